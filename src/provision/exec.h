/* exec.h: the play loop (exec-play.c), one task on one host (exec-task.c)
 * and async jobs (exec-async.c): what runs a playbook over a task_run. */
#ifndef IMC_PROVISION_EXEC_H
#define IMC_PROVISION_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "provision/play.h"
#include "provision/run.h"
#include "util/diag.h"

/* exec-play.c: runs every play of pb on the run's hosts. Returns 0 when no
 * host failed, 1 when some host failed or was unreachable, -1 on internal
 * error. */
int task_run_playbook(struct task_run *run, struct task_playbook *pb, struct diag *d);

/* exec-list.c: the playbook walked without running it. what: EXEC_LIST_*
 * bits, ansible-playbook's --list-hosts, --list-tasks, --list-tags, whose
 * output goes to fp as Ansible prints it (path as the user gave it). */
enum { EXEC_LIST_HOSTS = 1, EXEC_LIST_TASKS = 2, EXEC_LIST_TAGS = 4 };
int exec_list_playbook(struct task_run *run, struct task_playbook *pb, const char *path,
		       unsigned what, FILE *fp, struct diag *d);
/* The name play p is shown by: its name templated with host h's variables
 * (IM's "{{IM_HOST}}"; h may be NULL), else its hosts (malloc'd). */
char *exec_play_name(struct task_run *run, struct task_play *p, struct task_host *h);
/* --start-at-task (run->start_at): finds the task of play p the run starts
 * at (run->start_task, NULL when p has none) with host h's tags. */
void exec_start_at_play(struct task_run *run, struct task_play *p, struct task_host *h);
/* Whether task t is skipped because the run has not reached the start
 * task yet (the start task itself ends the skipping). */
bool exec_start_skip(struct task_run *run, struct ptask *t);

/* exec-task.c: one task on one host: prints and counts its outcome; returns
 * -1 when the host failed (not ignored). *result gets the result. */
int exec_task_host(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
		   json_t *inc_params, json_t **result);
/* The items of the task's loop/with_* (new reference); *has_loop false when
 * the task has none (NULL returned); NULL with d set on error. */
json_t *exec_loop_items(struct exec_ctx *x, struct diag *d, bool *has_loop);
/* The task's loop_control, loop_var and index_var templated (loop_var
 * defaulted to "item"): a new object, NULL with d set on error. */
json_t *exec_loop_control(struct exec_ctx *x, struct diag *d);
/* Sets in into the variables loop_control (as exec_loop_control returns
 * it) gives item i of items. */
void exec_loop_item_vars(struct exec_ctx *x, json_t *lc, json_t *items, size_t i, json_t *into);

/* exec-task.c: the conditions of task t and of the blocks around it, as
 * Ansible evaluates them (the outermost block's first, up to the first
 * false one), into *w: 0, or -1 with *w false and d holding Ansible's
 * whole message (the check, the error, t's position). */
int exec_when(struct exec_ctx *x, struct ptask *t, bool *w, struct diag *d);
/* The result of a task whose conditions could not be evaluated. */
json_t *exec_when_failure(struct diag *d);

/* error-context.c: what Ansible appends to an error placed at file:line:col
 * ("The error appears to be in ...", the offending lines, "^ here", its
 * hint); malloc'd. */
char *ansible_error_context(const char *file, int line, int col);
/* msg, then that text for task t's position: Ansible's words for an error
 * raised on a task (malloc'd). */
char *ansible_task_error(const struct ptask *t, const char *msg);
/* When msg is the templating message of an undefined variable in t's
 * options ("AnsibleUndefinedVariable: ..."), the message Ansible's task
 * fails with (malloc'd); NULL for any other message. */
char *ansible_undefined_in_args(const struct ptask *t, const char *msg);

/* exec-free.c: the free strategy (see there). Runs body for each host of
 * hosts[0..n), up to run->forks at a time, each host from its start to
 * its end on one thread. */
void exec_free_batch(struct task_run *run, struct task_host **hosts, size_t n,
		     void (*body)(struct task_run *run, struct task_host *h, void *arg), void *arg);
/* What free does as it queues task t (once: its run_once, fatal: its
 * any_errors_fatal): warns that it does not support them; a module that
 * bypasses the host loop ends the run with Ansible's error (-1). */
int exec_free_admit(struct task_run *run, struct ptask *t, bool once, bool fatal);

/* exec-async.c */
struct task_module;
/* Ansible's refusal of an async task before the module runs: a module whose
 * action does not support async fails "async is not supported for this
 * task.", any other in check mode "check mode and async cannot be used on
 * same task."; NULL when the task may run async. */
json_t *exec_async_refusal(const struct exec_ctx *x, const struct task_module *mod);
json_t *exec_async_start(struct exec_ctx *x, const struct task_module *mod, json_t *args,
			 long async_s, long poll);

/* exec-progress.c: the progress of a job a task waits for (the task's
 * imc_progress_file, imc_progress_steps, imc_progress_epochs). begin reads
 * the variables (nothing happens when the file is not named), poll records
 * the newest line appended since the last poll, end frees. */
struct exec_progress {
	char *path;
	long long offset;        /* bytes of the file already read */
	double steps, epochs;    /* the job's length (0: unknown) */
	double accuracy;         /* newest test accuracy (NAN: none yet) */
	bool started;
	double t0, f0;           /* time and fraction of the first line seen */
};
void exec_progress_begin(struct exec_ctx *x, struct exec_progress *pg);
void exec_progress_poll(struct exec_ctx *x, struct exec_progress *pg);
void exec_progress_end(struct exec_progress *pg);

/* exec-fallback.c: the per-task fallback to Ansible. */
/* IMC_NO_FALLBACK is set (and not "0"): nothing is handed to Ansible. */
bool fallback_disabled(void);
/* ansible-playbook is installed and the fallback not disabled. */
bool fallback_available(void);
/* Whether Ansible resolves name (as a task writes it) to a module or an
 * action, with the ':'-separated library directories libdirs (may be
 * NULL) searched too; cached per process. */
bool fallback_resolve(const char *name, const char *libdirs);
/* The library/ directories Ansible adds to its module path for a task
 * of role (may be NULL) in pb: ':'-separated, malloc'd (maybe ""). */
char *fallback_libdirs(const struct task_playbook *pb, const struct task_role *role);
/* Runs task x->task as module (its t->fallback, or a native module in
 * check mode) with args, templated, on x's host through ansible-playbook;
 * Ansible's result (new reference). */
json_t *fallback_run(struct exec_ctx *x, const char *module, json_t *args);

#endif
