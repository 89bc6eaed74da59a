/* play.h: the loaded playbook (play-load.c, play-yaml.c): plays, their
 * tasks, blocks, handlers and role instances as the YAML gave them, with
 * each task's module resolved and its arguments split, before any
 * templating. A task_playbook owns its plays, tasks and roles; json_t
 * values follow jansson's reference counting. */
#ifndef IMC_PROVISION_PLAY_H
#define IMC_PROVISION_PLAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util/diag.h"

struct task_role;

struct ptask {
	json_t *raw;               /* the task mapping (owned reference) */
	const char *file;          /* file it came from (owned by the playbook) */
	int line, col;             /* where its mapping starts (1-based; 0 unknown) */
	const char *dir;           /* directory of that file (owned by the playbook) */
	struct task_role *role;    /* role instance it belongs to, or NULL */
	struct ptask *parent;      /* enclosing block / import (inherits keywords) */
	bool is_block;             /* block/rescue/always, or a static import wrapper */
	bool is_handler;
	struct ptask **block, **rescue, **always;
	size_t nblock, nrescue, nalways;
	/* resolved at load time */
	const char *module;        /* canonical module name, NULL for blocks */
	json_t *args;              /* module args (owned), before templating */
	char *display;             /* "name" (or module) as printed, with role prefix */
	const char *action;        /* the module as the task wrote it (its FQCN, or
				    * include): what --list-tasks names an unnamed task */
	/* the module name as the task wrote it, when Ansible runs the task
	 * (exec-fallback.c): imc lacks the module or one of its arguments */
	const char *fallback;
	/* why the task cannot run at all (a module neither imc nor an
	 * allowed Ansible runs, in a dynamically included file): it fails
	 * with this only if it runs, as Ansible's would */
	const char *unrunnable;
	/* the wrapper of a role instance listed in roles: or as a
	 * dependency (its dependencies, then its tasks): one that already
	 * ran on a host in the play is not run again (exec-play.c) */
	bool role_start;
};

struct task_role {
	char *name;
	char *dir;
	json_t *defaults, *vars, *params; /* owned */
	struct ptask **handlers;
	size_t nhandlers;
	bool public_vars;
	/* what makes two instances the same role for Ansible's play role
	 * cache: its path and parameters */
	char *key;
	bool allow_duplicates;     /* meta/main.yml allows it to run again */
};

struct task_play {
	char *name;
	json_t *raw;
	char *hosts;               /* pattern */
	bool gather_facts;
	json_t *gather_when;       /* the gathering's condition (an import_playbook's when), or NULL */
	json_t *vars;              /* play vars (owned) */
	struct ptask **pre_tasks, **tasks, **post_tasks, **handlers;
	size_t npre, ntasks, npost, nhandlers;
	/* roles become a ptask wrapper (is_block) per instance, placed before tasks */
	struct ptask **roles;
	size_t nroles;
};

struct task_playbook {
	char *file;
	char *dir;
	struct task_play **plays;
	size_t nplays;
	/* everything allocated during load (ptasks, roles, strings) */
	void **pool;
	size_t npool, apool;
	json_t *refs;              /* the JSON the ptasks, roles and plays borrow */
	const char *roles_path;    /* extra ':'-separated role directories */
	/* what a name loaded statically (import_role's) is templated with:
	 * the extra vars (-e, borrowed; NULL: none) over the vars of the
	 * play whose tasks are loading (borrowed; NULL between plays) */
	json_t *extra_vars;
	json_t *loading_play_vars;
	/* the tasks Ansible will run (exec-fallback.c), as loaded:
	 * [{"file", "line", "task", "module", "why"}] (under lock) */
	json_t *fallbacks;
	pthread_mutex_t lock;      /* include_tasks loads at run time */
};

/* Loads a playbook file. Paths of recipes given as text use play_load_text. */
struct task_playbook *play_load_file(const char *path, const char *roles_path, json_t *extra_vars,
				     struct diag *d);
/* text: a RADL configure recipe (plays without hosts), wrapped with IM's header. */
struct task_playbook *play_load_text(const char *text, const char *file, int line_offset,
				     const char *dir, const char *roles_path, bool im_header,
				     struct diag *d);
void play_free(struct task_playbook *pb);
/* True when every error in d is about a construct outside the supported
 * subset (module, keyword, filter, test, lookup): ansible-playbook may run it. */
bool play_error_unsupported(const struct diag *d);

/* The variable a !vault value that could not be decrypted refers to
 * (play-yaml.c): its template fails with Ansible's message, which the
 * executor reports as Ansible does, alone (exec-tmpl.c). */
#define PLAY_VAULT_UNDECRYPTABLE "__imc_vault_undecryptable"

/* YAML -> jansson (play-yaml.c): YAML 1.1 scalars as Ansible (PyYAML) reads
 * them. line_of() gives the 1-based line where a node started (0 unknown),
 * col_of() its 1-based column (0 unknown). */
struct yaml_doc;
json_t *yaml_load(const char *text, size_t len, const char *file, int line_offset,
		  struct yaml_doc **lines, struct diag *d);
int yaml_line_of(const struct yaml_doc *doc, const json_t *node);
int yaml_col_of(const struct yaml_doc *doc, const json_t *node);
void yaml_doc_free(struct yaml_doc *doc);

/* Parses a list of tasks (a tasks file, a block list) into ptasks. */
int play_parse_tasks(struct task_playbook *pb, json_t *list, const struct yaml_doc *ydoc,
		     const char *file, const char *dir, struct task_role *role,
		     struct ptask *parent, bool handler, struct ptask ***out, size_t *nout,
		     struct diag *d);
/* Loads a tasks file for include_tasks at run time (cached per path). */
int play_load_tasks_file(struct task_playbook *pb, const char *path, struct task_role *role,
			 struct ptask *parent, struct ptask ***out, size_t *nout, struct diag *d);
/* Finds and loads a role instance (role dir lookup: next to the playbook,
 * roles_path, $IMC_ROLES_PATH, recipes/roles). from: an import_role or
 * include_role's arguments, whose tasks_from, handlers_from, vars_from and
 * defaults_from pick the role's files (NULL: main for each). */
struct task_role *play_load_role(struct task_playbook *pb, const char *name, json_t *params,
				 const char *from_dir, json_t *from,
				 struct ptask **wrapper, struct ptask *parent, struct diag *d);
/* The size of batch i (from 0) of a play whose serial keyword is serial
 * (a number, "N%" of nhosts, or a list of those whose last item repeats):
 * false when a value is neither; 0 or less means every host. */
bool play_serial_size(json_t *serial, size_t i, size_t nhosts, long *out);
/* m without the collection prefix of ansible.builtin.copy and friends
 * (a pointer into m). */
const char *play_short_module(const char *m);
/* What raw holds under action written short or with the ansible.builtin.
 * or ansible.legacy. prefix (NULL: none of them). */
json_t *play_action_value(json_t *raw, const char *action);
/* Whether order is one of the play keyword's values. */
bool play_order_valid(const char *order);
/* max_fail_percentage's value (a number, or its text with or without
 * '%'); false when it is neither. */
bool play_percent(json_t *v, double *out);
/* A strategy's name (as a play or ANSIBLE_STRATEGY gives it, with or
 * without ansible.builtin.): 1 for free and host_pinned, which imc runs
 * alike (exec-free.c says why), 0 for linear, -1 for one imc lacks. */
int play_strategy_free(const char *s);
void *play_alloc(struct task_playbook *pb, size_t n);
char *play_strdup(struct task_playbook *pb, const char *s);

#endif
