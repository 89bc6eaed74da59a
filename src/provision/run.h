/* run.h: the run state (run.c): a run of plays over hosts, each host's
 * connection, variables, facts and counters, and the context one task
 * runs in on one host (exec_ctx), which modules receive. A task_run owns
 * its hosts (unless borrowed_hosts) and a task_host its connection. */
#ifndef IMC_PROVISION_RUN_H
#define IMC_PROVISION_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "provision/conn/conn.h"
#include "provision/play.h"
#include "util/strbuf.h"

struct task_out;
struct play_state;

struct task_stats {
	int ok, changed, unreachable, failed, skipped, rescued, ignored;
};

struct task_host {
	char *name;
	struct task_conn *conn;
	json_t *vars;          /* inventory host vars (owned) */
	json_t *included;      /* include_vars results: below facts, above task vars (owned) */
	json_t *facts;         /* gathered facts + set_fact + registered (owned) */
	json_t *cached;        /* Ansible's fact cache: what setup gathered and
				* set_fact cacheable set; ansible_facts shows it (owned) */
	json_t *registered;    /* names in facts that hold registered results: never
				* templated again when read (Ansible's unsafe) */
	json_t *native;        /* names in facts set from a template (type_debug 'str') */
	json_t *notified;      /* object: handler key -> true */
	json_t *roles_ran;     /* task_role.key -> true: the roles that ran to
				* their end here in the current play (exec-play.c) */
	json_t *fallbacks;     /* names of the tasks Ansible ran here (exec-fallback.c;
				* under task_facts_lock), or NULL */
	struct task_stats st;
	bool failed;           /* removed from the rest of the play */
	bool unreachable;
	bool ended;            /* meta: end_play */
	/* free strategy: failed by another host's failing run_once task,
	 * which fails the play's hosts for the rest of the play only
	 * (Ansible's iterator marks them, its failed-hosts list does not) */
	bool failed_by_once;
	/* how many rescue or always sections the host is running (or, for
	 * a host that passed a block, waiting for): any_errors_fatal does not
	 * fail it there, as Ansible's linear strategy spares those states */
	unsigned spared;
	char *error;           /* first fatal error (for provision step reports) */
	int index;             /* index in the caller's host table */
	json_t *fail_task;     /* {name} of the last failed task (for rescue) */
	json_t *fail_result;
	struct strbuf log;     /* this host's own log, when log_per_host */
	struct conn_ssh_opts ssh; /* to reconnect */
	bool use_ssh;
	bool implicit;         /* Ansible's implicit localhost: in no group, matched
				* only by its own name (inventory.c) */
};

struct task_run {
	struct task_playbook *pb;
	struct task_host **hosts;
	size_t nhosts;
	/* hosts add_host put in the inventory while the run goes (owned by the
	 * run even when hosts are borrowed; inventory.c) */
	struct task_host **added;
	size_t nadded;
	json_t *groups;        /* group -> [host names], its descendants' hosts included;
				* replaced, never changed in place, under task_facts_lock
				* (variables hold references to it) */
	json_t *group_parents; /* group -> [its direct parent groups] (inventory.c) */
	json_t *global_vars;   /* infrastructure vars ("all" group) */
	/* imc play: the variables of the inventory's groups and of the
	 * group_vars/ and host_vars/ directories, kept apart because a host's
	 * share depends on its groups when a task runs (group_by, add_host):
	 * {"file": {GROUP: vars}, "dirs": [{"group_vars": {NAME: vars},
	 * "host_vars": {NAME: vars}}, ...], "prio": {GROUP: ansible_group_priority}}
	 * in the order Ansible merges them
	 * (inventory_vars); NULL when there are none */
	json_t *inv_vars;
	/* imc play: this machine is Ansible's controller, so the implicit
	 * localhost runs here whatever connections the inventory's hosts use */
	bool controller_local;
	json_t *extra_vars;    /* -e */
	/* --tags and --skip-tags: arrays of tag names (owned), NULL when not
	 * given (exec-tags.c: --tags defaults to "all") */
	json_t *only_tags, *skip_tags;
	int forks;
	double deadline;       /* monotonic seconds; 0 = none */
	bool async_local;      /* async jobs: status files under ~/.imc_async */
	unsigned cleared;      /* meta: clear_host_errors count (a block's always
				* then leaves its hosts' errors cleared) */
	struct task_out *out;
	const char *output_dir;  /* fetch destination */
	/* current play; its state (handlers, include cache) lives in the run,
	 * not in a global, because provision_run() runs many plays at once */
	struct task_play *play;
	struct play_state *ps;
	json_t *play_hosts;
	const char *limit;     /* only this host runs (provision: one item) */
	const char *subset;    /* --limit: a host pattern the play's hosts must match too */
	/* --start-at-task: the task name (a glob) tasks are skipped until;
	 * NULL once the run has started (exec-list.c); start_task is the
	 * current play's match, NULL when the play has none */
	const char *start_at;
	struct ptask *start_task;
	bool borrowed_hosts;   /* hosts belong to the caller */
	/* the current serial batch of the play (exec-play.c): the hosts
	 * any_errors_fatal and max_fail_percentage count and fail */
	struct task_host **batch;
	size_t nbatch;
	size_t batch_failed0;  /* of them, those failed before it started */
	/* any_errors_fatal, max_fail_percentage, or a batch whose hosts all
	 * failed: Ansible runs no further batch nor play */
	bool stopped;
	/* what imc refused to run once the run had started (a construct it
	 * lacks that Ansible would run): the run stops there, no rescue,
	 * always or handler runs after it, and the playbook fails with it */
	char *refused;
	/* an error that ends the whole run, as an AnsibleError raised in
	 * Ansible's strategy does (an included role that is not found): no
	 * task, handler, batch or play runs after it; the recap is printed,
	 * and the playbook fails with it */
	char *aborted;
	/* the same error with where it is (a parser error in a file loaded
	 * at run time), reported instead of aborted alone; NULL: none */
	struct diag *aborted_at;
	/* the aborting error escapes Ansible's strategy itself (free's
	 * refusal of add_host): ansible-playbook prints no recap then */
	bool raised;
	bool play_ended;       /* meta: end_play: no further batch of the play */
	/* --force-handlers: the force_handlers keyword's default */
	bool force_handlers;
	/* ERROR_ON_MISSING_HANDLER false: a notification no handler answers
	 * is a warning, not the run's error */
	bool missing_handler_warns;
	/* BECOME_ALLOW_SAME_USER true: become runs its method even to the
	 * user the connection already is (Ansible skips it otherwise) */
	bool become_same_user;
	/* INJECT_FACTS_AS_VARS false: a module's facts are under
	 * ansible_facts only, not variables of their own */
	bool facts_not_vars;
	/* ANSIBLE_STRATEGY is free (or host_pinned): the strategy keyword's
	 * default; free_play: the current play runs free (exec-free.c) */
	bool free;
	bool free_play;
	/* ansible-playbook's --check and --diff: the defaults the check_mode
	 * and diff keywords override; --check also sets ansible_check_mode */
	bool check;
	bool diff;
	/* Marks the handlers that answer to name as notified by host h (set by
	 * the play loop while a play runs, NULL otherwise): exec-task.c calls
	 * it without depending on the play loop that calls exec-task.c. */
	void (*notify)(struct task_run *run, struct task_host *h, const char *name);
	/* exec-play.c's worker threads while a playbook runs (NULL otherwise,
	 * or when none could start) */
	struct host_pool *pool;
	pthread_mutex_t lock;
};

/* One task on one host: what modules get. */
struct exec_ctx {
	struct task_run *run;
	struct task_host *host;
	/* the connection the task runs on: host's own, or the delegated
	 * host's (delegate_to); host->conn is never swapped, because tasks of
	 * other hosts may be delegated to host meanwhile */
	struct task_conn *conn;
	/* delegate_facts: the inventory host the task's facts go to instead
	 * of host (NULL: host) */
	struct task_host *facts_host;
	struct ptask *task;
	json_t *vars;          /* merged variables (owned) */
	const char *become_user;  /* NULL = no become */
	char *become_user_own;
	bool become_su;           /* become_method su (else sudo) */
	json_t *env;           /* environment object (owned) or NULL */
	double deadline;
	/* the task keyword timeout: when this attempt must end (0: none);
	 * commands run past it are killed and timed_out set (module-util.c),
	 * and the task fails with Ansible's message (exec-task.c) */
	double task_deadline;
	bool timed_out;
	bool check_mode;       /* the check_mode keyword, templated, or --check */
	/* a native module's check-mode case it does not compute: Ansible
	 * runs the task, or a failure says why (exec-task.c sets it, so
	 * the modules do not depend on the fallback, which depends on them) */
	json_t *(*check_unsupported)(struct exec_ctx *x, const char *module, json_t *args,
				     const char *what);
	/* module-util.c's stat memo: "PATH\0WHAT" where WHAT is the stat of
	 * PATH the last command printed; cleared when the next command is
	 * sent, so that a stat nothing has run after is not asked for again
	 * (owned, NULL when none); or mod_stat's own last answer, under a
	 * tagged key (module-util.c) */
	char *stat_memo;
	/* module-util.c's write memo: the answer of a write mod_stat_write
	 * made in its stat's round trip, for the module's write of it
	 * (owned, NULL when none; cleared as the stat memo) */
	struct write_memo *write_memo;
};

/* Guards every host's facts (several runs may share hosts). */
extern pthread_mutex_t task_facts_lock;

/* run.c */
struct task_run *task_run_new(void);
void task_run_free(struct task_run *run);
/* Records that imc refused task's msg (the first refusal is kept) and
 * stops the run (see task_run.refused). Thread-safe. */
void task_run_refuse(struct task_run *run, const char *task, const char *msg);
/* Records msg as the error that ends the run (see task_run.aborted; the
 * first is kept). Thread-safe. */
void task_run_abort(struct task_run *run, const char *msg);
/* The same for a parser error of a file loaded at run time (Ansible's
 * strategy re-raises an AnsibleParserError, no recap follows): d's items,
 * with their location and source, are moved into the run and reported at
 * its end. */
void task_run_abort_diag(struct task_run *run, struct diag *d);
struct task_host *task_host_new(const char *name, struct task_conn *conn, json_t *vars);
void task_host_free(struct task_host *h);
/* Monotonic seconds (deadlines, elapsed times). */
double task_now(void);
/* Sets fact name of host h to v (a set_fact value: no longer a registered
 * result). */
void exec_set_fact(struct task_run *run, struct task_host *h, const char *name, json_t *v);
/* Also puts fact name in the host's fact cache (setup, set_fact
 * cacheable), which the variable ansible_facts shows. */
void exec_cache_fact(struct task_host *h, const char *name, json_t *v);
/* A fact a module returned (not set_fact's, nor include_vars'): in the
 * fact cache, and a variable of its own unless INJECT_FACTS_AS_VARS is
 * false; module output, never templated again. */
void exec_module_fact(struct task_run *run, struct task_host *h, const char *name, json_t *v);
/* Whether module's facts are Ansible's clean facts (set_fact,
 * include_vars): variables whatever INJECT_FACTS_AS_VARS says. */
bool exec_clean_facts(const char *module);
/* The variable ansible_facts of host h: its fact cache with the ansible_
 * prefix dropped from the names (ansible_local kept), as Ansible
 * namespaces them (new reference; call with task_facts_lock held). */
json_t *exec_ansible_facts(struct task_host *h);
/* inventory.c: the in-memory inventory as add_host and group_by change
 * it. Every host of the run (the caller's, then the added), i from 0 to
 * inventory_nhosts(run) - 1: */
size_t inventory_nhosts(struct task_run *run);
struct task_host *inventory_host(struct task_run *run, size_t i);
/* True when the run's own hosts are all reached by the local connection
 * (imc play --connection local). */
bool inventory_local(struct task_run *run);
/* The host named name, or NULL. */
struct task_host *inventory_find(struct task_run *run, const char *name);
/* Ansible's add_host result applied: the host created when new (with the
 * local connection when the run is local or its vars ask for it, else
 * none: a task that would reach it fails as unsupported), its vars merged,
 * put in groups (an array of names). Returns whether the inventory
 * changed. */
bool inventory_add_host(struct task_run *run, const char *name, json_t *groups, json_t *vars);
/* group_by's result applied for host h: group under parents (an array
 * of names). Returns whether the inventory changed, as Ansible decides. */
bool inventory_group_by(struct task_run *run, struct task_host *h, const char *group,
			json_t *parents);
/* Ansible's implicit localhost: each name of pattern that is localhost,
 * 127.0.0.1 or ::1 and matches no host of the inventory becomes a host of
 * that name, in no group ("all" does not match it), reached by the local
 * connection. Done only when the run is local: on SSH hosts Ansible's
 * localhost is the controller, which imc play does not stand for. */
void inventory_implicit(struct task_run *run, const char *pattern);
/* Host h's inventory variables as Ansible merges them (low to high): the
 * "all" group's from the inventory files, then its other groups' (sorted
 * by depth, ansible_group_priority, name), then group_vars/all of each
 * directory (inventory sources, then the playbook's), then group_vars/
 * of its groups likewise, then its own host vars, then host_vars/ of
 * each directory. New reference; the _locked form with task_facts_lock
 * held. */
json_t *inventory_vars(struct task_run *run, struct task_host *h);
json_t *inventory_vars_locked(struct task_run *run, struct task_host *h);
/* Whether name is one of Ansible's names of localhost (localhost,
 * 127.0.0.1, ::1). */
bool inventory_localhost_name(const char *name);
/* Whether host matches an Ansible host pattern (a,b / a:b unions, !x
 * exclusions, &x intersections, groups, globs). */
bool inventory_selected(struct task_run *run, const char *pattern, const char *host);
/* Marks name as holding a registered result (see task_host.registered). */
void exec_mark_registered(struct task_host *h, const char *name);
/* Records whether fact name was set from a template (see task_host.native). */
void exec_mark_native(struct task_host *h, const char *name, bool templated);

#endif
