/* worker.h: the pieces of the deployment worker, the detached process
 * deploy_spawn() starts (spawn.h): its main loop (worker.c), the creation
 * of networks and VMs (create.c) and the contextualization
 * (contextualize.c). Internal to src/deploy; commands use spawn.h. */
#ifndef IMC_DEPLOY_WORKER_H
#define IMC_DEPLOY_WORKER_H

#include <stdbool.h>

#include "cloud/auth.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "state/store.h"
#include "util/diag.h"

/* The worker process for infrastructure id, after the fork: records its
 * PID, tells the parent by writing to ready_fd, does the task, records
 * the end. only restricts WORKER_CONFIGURE to a comma list of VM numbers.
 * Returns the process's exit status. */
int deploy_worker_main(const char *home, const char *id, int ready_fd, enum worker_task task, const char *only);

/* The test hook of spawn.h (pause.c): pauses at point when the
 * environment asks. */
void deploy_pause_at(const char *point);

/* Creates the networks not created yet, then the VMs still 'pending',
 * through the sessions of ss; what fails is logged, not returned. */
int deploy_create_networks(struct state_store *st, struct state_infra *in, const struct auth_file *af,
			   struct deploy_sessions *ss, struct diag *d);
int deploy_create_vms(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		      struct deploy_sessions *ss, struct diag *d);

/* Contextualizes the alive VMs of in (only: a comma list of VM numbers, or
 * NULL for all): -1 when it could not start (nothing ran). */
int deploy_contextualize(struct state_store *st, struct state_infra *in, const char *only, struct diag *d);
/* Whether num is in the comma list (NULL or empty: every VM is). */
bool deploy_in_list(const char *list, int num);
/* Kills the provisioning child, if one runs (async-signal-safe). */
void deploy_kill_provisioner(void);

#endif
