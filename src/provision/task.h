/* task.h: internal interfaces of the task executor (src/provision): the
 * connection vtable every module goes through, the loaded play structure,
 * per-host run state, the module table and the output sink. Not a public
 * contract: provision.h is the one the deployment worker uses.
 *
 * Ownership: a task_playbook owns its plays, tasks and roles; a task_run owns
 * its hosts (and their connections); json_t values follow jansson's
 * reference counting, and a function that returns a json_t * returns a new
 * reference unless it says "borrowed". */
#ifndef IMC_PROVISION_TASK_H
#define IMC_PROVISION_TASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "util/diag.h"
#include "util/strbuf.h"

/* ---- connections (conn*.c) ---------------------------------------------- */

#define CONN_OUTPUT_CAP (64u << 20) /* bytes kept of a command's stdout/stderr */

struct conn_result {
	int rc;             /* exit status, or 128 + signal */
	struct strbuf out;
	struct strbuf err;
};

struct task_conn;

struct task_conn_ops {
	const char *name;
	/* Runs cmd with /bin/sh -c semantics on the node, feeding in[0..inlen)
	 * on stdin. Returns 0 when the command ran (whatever its status), -1
	 * when the node could not be reached (d set). */
	int (*exec)(struct task_conn *c, const char *cmd, const void *in, size_t inlen,
		    struct conn_result *r, struct diag *d);
	void (*close)(struct task_conn *c);
};

struct task_conn {
	const struct task_conn_ops *ops;
	char *user;        /* login user (for become decisions) */
	bool is_root;      /* login user is root: become root needs no sudo */
	void *priv;
};

void conn_result_init(struct conn_result *r);
void conn_result_release(struct conn_result *r);

struct task_conn *conn_local_open(void);

struct conn_ssh_opts {
	const char *host;
	int port;
	const char *user;
	const char *key_path;
	const char *pinned_key;   /* "TYPE BASE64" or NULL */
	int timeout;              /* seconds to wait for SSH to come up (0 = one try) */
	/* called with the server key when nothing was pinned */
	void (*on_hostkey)(void *opaque, const char *key);
	void *opaque;
};
struct task_conn *conn_ssh_open(const struct conn_ssh_opts *o, struct diag *d);

void conn_close(struct task_conn *c);

/* Shell quoting: appends s as one single-quoted word. */
void sh_quote(struct strbuf *sb, const char *s);

/* ---- the loaded playbook (play*.c) --------------------------------------- */

struct task_role;

struct ptask {
	json_t *raw;               /* the task mapping (owned reference) */
	const char *file;          /* file it came from (owned by the playbook) */
	int line;
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
};

struct task_role {
	char *name;
	char *dir;
	json_t *defaults, *vars, *params; /* owned */
	struct ptask **handlers;
	size_t nhandlers;
	bool public_vars;
};

struct task_play {
	char *name;
	json_t *raw;
	char *hosts;               /* pattern */
	bool gather_facts;
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
	pthread_mutex_t lock;      /* include_tasks loads at run time */
};

/* Loads a playbook file. Paths of recipes given as text use play_load_text. */
struct task_playbook *play_load_file(const char *path, const char *roles_path, struct diag *d);
/* text: a RADL configure recipe (plays without hosts), wrapped with IM's header. */
struct task_playbook *play_load_text(const char *text, const char *file, int line_offset,
				     const char *dir, const char *roles_path, bool im_header,
				     struct diag *d);
void play_free(struct task_playbook *pb);
/* True when every error in d is about a construct outside the supported
 * subset (module, keyword, filter, test, lookup): ansible-playbook may run it. */
bool play_error_unsupported(const struct diag *d);

/* YAML -> jansson (play-yaml.c): YAML 1.1 scalars as Ansible (PyYAML) reads
 * them. line_of() gives the 1-based line where a node started (0 unknown). */
struct yaml_doc;
json_t *yaml_load(const char *text, size_t len, const char *file, int line_offset,
		  struct yaml_doc **lines, struct diag *d);
int yaml_line_of(const struct yaml_doc *doc, const json_t *node);
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
 * roles_path, $IMC_ROLES_PATH, recipes/roles). */
struct task_role *play_load_role(struct task_playbook *pb, const char *name, json_t *params,
				 const char *from_dir, const char *tasks_from,
				 struct ptask **wrapper, struct ptask *parent, struct diag *d);
void *play_alloc(struct task_playbook *pb, size_t n);
char *play_strdup(struct task_playbook *pb, const char *s);

/* k=v argument strings (exec-args.c), as Ansible's parse_kv/split_args. */
/* Splits free-form text into k=v pairs and the rest (_raw_params). check_raw:
 * only the keys in raw_keys are taken from a free-form string. */
json_t *args_parse_kv(const char *s, bool free_form, struct diag *d);
/* POSIX shlex split (for command). Returns a JSON array of strings or NULL. */
json_t *args_shlex(const char *s);
/* Option coercion helpers. */
bool args_bool(json_t *v, bool dflt);
bool args_is_bool(json_t *v);
const char *args_str(json_t *args, const char *key);      /* borrowed; NULL when absent */
char *args_strdup(json_t *args, const char *key);          /* stringified copy or NULL */
/* Mode: from "0644", "644", "u=rw,g=r", or an integer; -1 when absent; -2 invalid. */
long args_mode(json_t *v, long cur_mode);
/* Python str() rendering of a value (True, None, ['a', 1]) */
void args_pystr(struct strbuf *sb, json_t *v);

/* ---- run state ----------------------------------------------------------- */

struct task_stats {
	int ok, changed, unreachable, failed, skipped, rescued, ignored;
};

struct task_host {
	char *name;
	struct task_conn *conn;
	json_t *vars;          /* inventory host vars (owned) */
	json_t *facts;         /* gathered facts + set_fact + registered (owned) */
	json_t *registered;    /* names in facts that hold registered results: never
				* templated again when read (Ansible's unsafe) */
	json_t *native;        /* names in facts set from a template (type_debug 'str') */
	json_t *notified;      /* object: handler key -> true */
	struct task_stats st;
	bool failed;           /* removed from the rest of the play */
	bool unreachable;
	bool ended;            /* meta: end_play */
	char *error;           /* first fatal error (for provision step reports) */
	int index;             /* index in the caller's host table */
	json_t *fail_task;     /* {name} of the last failed task (for rescue) */
	json_t *fail_result;
	struct strbuf log;     /* this host's own log, when log_per_host */
	struct conn_ssh_opts ssh; /* to reconnect */
	bool use_ssh;
};

struct task_out;

struct play_state;

struct task_run {
	struct task_playbook *pb;
	struct task_host **hosts;
	size_t nhosts;
	json_t *groups;        /* group -> [host names] */
	json_t *global_vars;   /* infrastructure vars ("all" group) */
	json_t *extra_vars;    /* -e */
	int forks;
	double deadline;       /* monotonic seconds; 0 = none */
	bool async_local;      /* async jobs: status files under ~/.imc_async */
	struct task_out *out;
	const char *output_dir;  /* fetch destination */
	/* current play; its state (handlers, include cache) lives in the run,
	 * not in a global, because provision_run() runs many plays at once */
	struct task_play *play;
	struct play_state *ps;
	json_t *play_hosts;
	const char *limit;     /* only this host runs (provision: one item) */
	bool borrowed_hosts;   /* hosts belong to the caller */
	/* Marks the handlers that answer to name as notified by host h (set by
	 * the play loop while a play runs, NULL otherwise): exec-task.c calls
	 * it without depending on the play loop that calls exec-task.c. */
	void (*notify)(struct task_run *run, struct task_host *h, struct ptask *t, const char *name);
	pthread_mutex_t lock;
};

/* Guards every host's facts (several runs may share hosts). */
extern pthread_mutex_t task_facts_lock;

/* run.c */
struct task_run *task_run_new(void);
void task_run_free(struct task_run *run);
struct task_host *task_host_new(const char *name, struct task_conn *conn, json_t *vars);
void task_host_free(struct task_host *h);
/* Monotonic seconds (deadlines, elapsed times). */
double task_now(void);
/* exec-play.c: runs every play of pb on the run's hosts. Returns 0 when no
 * host failed, 1 when some host failed or was unreachable, -1 on internal
 * error. */
int task_run_playbook(struct task_run *run, struct task_playbook *pb, struct diag *d);

/* exec-vars.c: the variables a task sees on a host (new reference). */
struct exec_ctx {
	struct task_run *run;
	struct task_host *host;
	struct ptask *task;
	json_t *vars;          /* merged variables (owned) */
	const char *become_user;  /* NULL = no become */
	char *become_user_own;
	json_t *env;           /* environment object (owned) or NULL */
	double deadline;
};
json_t *exec_build_vars(struct task_run *run, struct task_host *host, struct ptask *t,
			json_t *include_params);
json_t *exec_hostvars(struct task_run *run);
/* The innermost value of keyword kw along t's block chain, then the
 * play's (borrowed; NULL when none sets it). */
json_t *exec_keyword(struct task_run *run, struct ptask *t, const char *kw);

/* exec-task.c: one task on one host: prints and counts its outcome; returns
 * -1 when the host failed (not ignored). *result gets the result. */
int exec_task_host(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
		   json_t *inc_params, json_t **result);
/* The items of the task's loop/with_* (new reference); *has_loop false when
 * the task has none (NULL returned); NULL with d set on error. */
json_t *exec_loop_items(struct exec_ctx *x, struct diag *d, bool *has_loop);
/* run.c */
void exec_set_fact(struct task_run *run, struct task_host *h, const char *name, json_t *v);
/* Marks name as holding a registered result (see task_host.registered). */
void exec_mark_registered(struct task_host *h, const char *name);
/* Records whether fact name was set from a template (see task_host.native). */
void exec_mark_native(struct task_host *h, const char *name, bool templated);
/* exec-async.c */
struct task_module;
json_t *exec_async_start(struct exec_ctx *x, const struct task_module *mod, json_t *args,
			 long async_s, long poll);
/* modules/async_status.c: the async job table. A new job id (malloc'd);
 * adds job jid: a detached command (cmd its repr, raw for the raw module)
 * or the finished result of a module run at start; the state of job jid
 * as async_status reports it (new reference). */
char *async_job_new_id(void);
void async_job_add(const char *jid, json_t *cmd, json_t *result, bool raw);
json_t *async_job_status(struct exec_ctx *x, const char *jid);

/* exec-tmpl.c: glue to the templating engine (template.h). */
json_t *xt_value(struct exec_ctx *x, json_t *v, struct diag *d);     /* templated copy */
int xt_cond(struct exec_ctx *x, json_t *cond, bool *out, struct diag *d);
char *xt_render_text(struct exec_ctx *x, const char *text, const char *src_path, struct diag *d);
json_t *xt_expr(struct exec_ctx *x, const char *expr, struct diag *d);
json_t *xt_lookup(struct exec_ctx *x, const char *name, json_t *terms, struct diag *d);
/* The set of filters/tests/lookups supported (for the static check). */
bool xt_known_filter(const char *name);

/* ---- modules (modules/NAME.c) -------------------------------------------------- */

struct task_module {
	const char *name;
	const char *const *aliases;  /* NULL-terminated, or NULL */
	bool free_form;              /* takes _raw_params */
	bool controller;             /* runs on the controller (set_fact, debug…) */
	/* Static check of the (untemplated) args; runs before any VM is touched. */
	int (*check)(json_t *args, struct diag *d, const struct src_loc *loc);
	/* Runs with templated args; returns a result object (never NULL). */
	json_t *(*run)(struct exec_ctx *x, json_t *args);
};

const struct task_module *task_module_find(const char *name);
extern const struct task_module *const task_modules[];

/* Result helpers (modules/module-util.c) */
json_t *res_new(bool changed);
json_t *res_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void res_set_output(json_t *res, const struct conn_result *cr);
/* Runs a shell command on the node as the task's become user with its
 * environment. Returns 0 (ran) or -1 (unreachable; *res set to a result). */
int mod_sh(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
	   struct conn_result *cr, json_t **res);
/* Runs a script whose output says "__imc_changed__" when it changed
 * something: the result is changed accordingly, or failed ("WHAT failed:
 * stderr") on a non-zero status. */
json_t *mod_sh_changed(struct exec_ctx *x, const char *cmd, const char *what);
/* Appends " FLAG 'v'" to a command line when v is not NULL. */
void mod_sh_flag(struct strbuf *c, const char *flag, const char *v);
/* Reads a node file; *exists false when missing. -1 unreachable. */
struct node_stat {
	bool exists, isdir, isreg, islnk;
	long mode, size;
	long uid, gid;
	char owner[64], group[64];
	char target[512];
	char sha1[41];
	double mtime, atime, ctime;
};
int mod_stat(struct exec_ctx *x, const char *path, bool follow, bool checksum,
	     struct node_stat *st, json_t **res);
int mod_read(struct exec_ctx *x, const char *path, struct strbuf *data, bool *exists, json_t **res);
/* Writes data atomically (temp file in the same directory + rename), applying
 * mode when >= 0 (else keep the old mode or 0644 & ~umask). */
int mod_write(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
	      json_t **res);
/* Runs pre (shell, with the path in "$p") then stats path, in one round trip. */
int mod_sh_stat(struct exec_ctx *x, const char *path, const char *pre, struct node_stat *st,
		json_t **res);
/* mod_write that also applies owner/group and returns the new stat (one round trip). */
int mod_write_stat(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		   const char *owner, const char *group, struct node_stat *st, json_t **res);
/* Applies mode/owner/group from args to path whose stat is st (updated). */
int mod_attrs_st(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		 bool *changed, json_t **res);
/* Applies mode/owner/group from args to path; sets *changed. */
int mod_attrs(struct exec_ctx *x, const char *path, json_t *args, bool *changed, json_t **res);
/* backup=yes: copies path (when it exists) to path.PID.DATE@TIME~ beside
 * it, as Ansible's backup_local names backups. Returns 0 with *dest the
 * backup's name ("" when path is missing; malloc'd), or -1 with *res set
 * (Ansible's "Could not make backup" failure, or unreachable). */
int mod_backup(struct exec_ctx *x, const char *path, char **dest, json_t **res);
/* validate=: writes data to a temporary file on the node, runs the command
 * with its %s replaced by that file's name, and removes the file. Returns 0
 * when the command ran (its status and output in cr), -1 with *res set
 * (no %s, as Ansible's "validate must contain %s", or unreachable). */
int mod_validate(struct exec_ctx *x, const char *validate, const void *data, size_t len,
		 struct conn_result *cr, json_t **res);
/* The validate= argument of lineinfile, blockinfile and replace: 0 when
 * absent or the command accepts data, else -1 with *res Ansible's
 * "failed to validate: rc:N error:..." (or unreachable). */
int mod_validated(struct exec_ctx *x, json_t *args, const void *data, size_t len, json_t **res);
/* lineinfile's and blockinfile's diff list: the content (before and after
 * only in diff mode) and the file attributes' headers (new reference). */
json_t *mod_content_diff(struct exec_ctx *x, const char *path, const struct strbuf *before,
			 const struct strbuf *after);
/* mkdir -p of path's directory on the node, for modules that create the
 * file they edit. Returns 0, or -1 unreachable (*res set when res). */
int mod_mkdir_parent(struct exec_ctx *x, const char *path, json_t **res);
void mod_sha1_hex(const void *data, size_t len, char out[41]);
void mod_md5_hex(const void *data, size_t len, char out[33]);
void mod_sha256_hex(const void *data, size_t len, char out[65]);
/* Controller-side file lookup: role files/ or templates/, play dir. Malloc'd or NULL. */
char *mod_find_src(struct exec_ctx *x, const char *sub, const char *src);
void mod_file_result(json_t *res, const struct node_stat *st, const char *path);
/* The diff keyword of the task (or its blocks, or play): modules then
 * return the before and after content in their diff, as with --diff. */
bool mod_diff_wanted(struct exec_ctx *x);
/* Adds Ansible's path information (owner, group, mode, state, size...) of
 * the result's path or dest, when it exists. -1 when the node is
 * unreachable (res left as it was). */
int mod_path_info(struct exec_ctx *x, json_t *res);
/* Runs a command string, Ansible command-module style result */
json_t *mod_run_command(struct exec_ctx *x, const char *cmd, json_t *cmd_repr, const char *in,
			const char *chdir);

/* ---- output (output*.c) ------------------------------------------------- */

struct task_out {
	FILE *fp;                      /* Ansible-shaped text, or NULL */
	void (*on_log)(void *opaque, int host, const char *text);
	void *opaque;
	json_t *results;               /* json callback document being built, or NULL */
	json_t *cur_play;              /* borrowed */
	json_t *cur_task;              /* borrowed */
	pthread_mutex_t lock;
};

void out_init(struct task_out *o);
void out_release(struct task_out *o);
void out_play(struct task_out *o, const char *name);
void out_task(struct task_out *o, const char *banner_kind, const char *name);
void out_line(struct task_out *o, int host, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void out_begin_play(struct task_out *o, const char *name);
void out_begin_task(struct task_out *o, const char *name);
void out_record(struct task_out *o, struct task_host *h, json_t *res);
void out_recap(struct task_out *o, struct task_host **hosts, size_t n);
/* Compact JSON (Ansible's ", " and ": " separators). */
char *out_json_compact(json_t *v);

#endif
