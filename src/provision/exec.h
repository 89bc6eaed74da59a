/* exec.h: the play loop (exec-play.c), one task on one host (exec-task.c)
 * and async jobs (exec-async.c): what runs a playbook over a task_run. */
#ifndef IMC_PROVISION_EXEC_H
#define IMC_PROVISION_EXEC_H

#include <stdbool.h>

#include <jansson.h>

#include "provision/play.h"
#include "provision/run.h"
#include "util/diag.h"

/* exec-play.c: runs every play of pb on the run's hosts. Returns 0 when no
 * host failed, 1 when some host failed or was unreachable, -1 on internal
 * error. */
int task_run_playbook(struct task_run *run, struct task_playbook *pb, struct diag *d);

/* exec-task.c: one task on one host: prints and counts its outcome; returns
 * -1 when the host failed (not ignored). *result gets the result. */
int exec_task_host(struct task_run *run, struct ptask *t, struct task_host *h, bool rescuable,
		   json_t *inc_params, json_t **result);
/* The items of the task's loop/with_* (new reference); *has_loop false when
 * the task has none (NULL returned); NULL with d set on error. */
json_t *exec_loop_items(struct exec_ctx *x, struct diag *d, bool *has_loop);
/* Sets in into the variables loop_control gives item i of items. */
void exec_loop_item_vars(struct exec_ctx *x, json_t *lc, json_t *items, size_t i, json_t *into);

/* exec-async.c */
struct task_module;
json_t *exec_async_start(struct exec_ctx *x, const struct task_module *mod, json_t *args,
			 long async_s, long poll);

#endif
