/* exec-tags.h: --tags/--skip-tags selection of tasks (exec-tags.c). */
#ifndef IMC_PROVISION_EXEC_TAGS_H
#define IMC_PROVISION_EXEC_TAGS_H

#include <stdbool.h>

#include <jansson.h>

#include "provision/play.h"
#include "provision/run.h"

/* Whether task t (not a block) runs under the run's --tags/--skip-tags;
 * its templated tags use host h's variables (with inc_params). */
bool exec_tags_select(struct task_run *run, struct ptask *t, struct task_host *h, json_t *inc_params);
/* Task t's tags: its own, its enclosing blocks', static imports' and role
 * entries', and the play's, as a set (an object, in the order met; empty
 * when untagged; new reference). */
json_t *exec_tags_of(struct task_run *run, struct ptask *t, struct task_host *h, json_t *inc_params);
/* The current play's own tags, the same way (new reference). */
json_t *exec_tags_play(struct task_run *run);
/* Whether the play's implicit fact gathering runs. */
bool exec_tags_gather(struct task_run *run);

#endif
