/* spawn.h: starting and following the deployment worker, a detached
 * process that owns one infrastructure while it creates networks and VMs
 * through the cloud drivers and contextualizes them through
 * provision_run(), writing every transition to the state store before
 * acting on it. Commands start it with deploy_spawn() while holding the
 * infrastructure's lock, which the worker inherits and keeps until it
 * exits (so the lock is free exactly when no worker runs, whatever killed
 * it), and follow it with deploy_follow().
 *
 * Test hook: with IMC_TEST_PAUSE_AT=POINT and IMC_TEST_PAUSE_DIR=DIR in its
 * environment, the worker, on reaching POINT, opens the fifo DIR/reached
 * for writing, writes "POINT PID\n", then opens the fifo DIR/resume for
 * reading and waits for a writer to close it. Points, in order: started,
 * networks (networks created), vms-intent (about to call the cloud for
 * VMs, rows in 'pending'), vms (VMs created and recorded), configure
 * (about to contextualize), done (before the final write). */
#ifndef IMC_DEPLOY_SPAWN_H
#define IMC_DEPLOY_SPAWN_H

#include <stdbool.h>

#include "state/store.h"
#include "util/diag.h"

enum worker_task {
	WORKER_DEPLOY,      /* create what is pending, then contextualize everything */
	WORKER_CONFIGURE,   /* contextualize again (reconfigure) */
	WORKER_CREATE,      /* create what is pending, no contextualization */
};

/* Starts the worker for infrastructure id. The caller holds the lock
 * (lock_fd), which passes to the worker; *st is closed before the fork and
 * reopened after. vms (may be NULL) restricts WORKER_CONFIGURE to a comma
 * list of VM numbers. Returns 0 once the worker has recorded its PID. */
int deploy_spawn(struct state_store **st, const char *id, int lock_fd, enum worker_task task, const char *vms,
		 struct diag *d);

/* Makes deploy_spawn exec program for the worker instead of running it in
 * the forked child (NULL: back to that). A process with several threads
 * (imc serve) needs it: its fork copies only the calling thread, and a
 * lock another thread held then (SQLite's, the log's) would stay held in
 * the child forever, while an exec starts clean. program must run
 * deploy_worker_exec_main on the words after DEPLOY_WORKER_COMMAND. */
void deploy_spawn_exec(const char *program);
#define DEPLOY_WORKER_COMMAND "deploy-worker"
/* The worker in an exec'd program: argv is HOME ID TASK VMS READY_FD (the
 * words exec_worker in spawn.c passes). Returns the exit status. */
int deploy_worker_exec_main(int argc, char **argv);

enum follow_output {
	FOLLOW_QUIET,  /* nothing */
	FOLLOW_TEXT,   /* per-VM state changes and the jobs' progress lines (every
			* epoch or 5% of the job); on a terminal, a live status
			* line that becomes a progress bar once a job reports */
	FOLLOW_JSON,   /* each progress event as a JSON document on a line of its
			* own (deploy_progress_event) */
};
/* Follows an infrastructure until its worker is done (or died), printing
 * on stdout what out asks for. max_seconds <= 0: no limit. Returns 0 and
 * the final state in *final, 1 on timeout, 2 when interrupted (Ctrl-C, see
 * below), -1 on error. */
int deploy_follow(struct state_store *st, const char *id, double max_seconds, enum follow_output out,
		  enum vm_state *final, struct diag *d);
/* Waits, as IM's synchronous create and addresource do, until the worker
 * of id has created the VMs (its phase is past creating) or is gone, at
 * most max seconds. */
void deploy_wait_created(struct state_store *st, const char *id, double max);
/* Makes Ctrl-C stop deploy_follow() (not the worker, which is in a session
 * of its own) instead of killing the command. */
void deploy_follow_catch_interrupt(void);

#endif
