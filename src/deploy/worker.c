/* worker.c: the deployment worker's main loop (see worker.h). One process
 * per infrastructure at a time, detached from the terminal by
 * deploy_spawn() (spawn.c), logging to HOME/infra/ID/worker.log. It writes
 * the intent of each cloud call before making it and the result right
 * after, so that a kill at any point leaves a store from which getstate
 * tells the truth (deploy_recover) and destroy finds everything. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "deploy/worker.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MOD "worker"

/* Destroy cancels a worker with SIGTERM: the provisioning child goes with
 * it. */
static void on_term(int sig)
{
	deploy_kill_provisioner();
	_exit(128 + sig);
}

int deploy_worker_main(const char *home, const char *id, int ready_fd, enum worker_task task, const char *only)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	struct diag d = DIAG_INIT;
	struct state_store *st = state_open(home, &d);
	struct state_infra in = { 0 };
	struct auth_file *af = NULL;
	struct deploy_sessions ss = { 0 };
	int rc = 1;
	if (!st)
		goto out;
	if (state_infra_get(st, id, &in, &d) != 0)
		goto out;
	if (state_infra_set_worker(st, id, getpid(), state_proc_start_time(getpid()), &d) < 0 ||
	    state_infra_set_phase(st, id, task == WORKER_DEPLOY ? PHASE_CREATING : PHASE_CONFIGURING, &d) < 0)
		goto out;
	in.phase = task == WORKER_DEPLOY ? PHASE_CREATING : PHASE_CONFIGURING;
	if (write(ready_fd, "1", 1) < 0)
		log_warn(MOD, "cannot tell the parent the worker started");
	close(ready_fd);
	ready_fd = -1;
	log_info(MOD, "worker %d for infrastructure %s", (int)getpid(), id);
	deploy_pause_at("started");
	if (in.auth_path) {
		af = auth_file_load(in.auth_path, &d);
		if (!af) {
			char *msg = xasprintf("cannot read the auth file: %s", diag_first_message(&d));
			state_log_add(st, id, -1, msg, &d);
			free(msg);
		}
	}
	if (task == WORKER_DEPLOY || task == WORKER_CREATE) {
		deploy_create_networks(st, &in, af, &ss, &d);
		deploy_pause_at("networks");
		deploy_create_vms(st, &in, af, &ss, &d);
		deploy_pause_at("vms");
		state_infra_set_phase(st, id, PHASE_CONFIGURING, &d);
	}
	struct diag cd = DIAG_INIT;
	if (task == WORKER_CREATE) {
		/* IM's context=0: the new VMs stay 'running', nothing is run */
		state_log_add(st, id, -1, "VMs added without contextualization", &d);
	} else if (deploy_contextualize(st, &in, only, &cd) < 0) {
		char *msg = xasprintf("contextualization not run: %s", diag_first_message(&cd));
		state_log_add(st, id, -1, msg, &d);
		free(msg);
		/* nothing ran: running VMs stay unconfigured */
		struct state_vm *vms = NULL;
		size_t n = 0;
		state_vm_list(st, id, &vms, &n, &d);
		for (size_t i = 0; i < n; i++)
			if (vms[i].state == VM_RUNNING && deploy_in_list(only, vms[i].num)) {
				vms[i].state = VM_UNCONFIGURED;
				vms[i].ctxt = 0;
				state_vm_update(st, &vms[i], &d);
			}
		state_vm_list_free(vms, n);
	}
	diag_release(&cd);
	deploy_pause_at("done");
	if (state_begin(st, &d) == 0) {
		state_infra_set_phase(st, id, PHASE_DONE, &d);
		state_infra_set_worker(st, id, 0, 0, &d);
		state_commit(st, &d);
	}
	rc = 0;
out:
	if (diag_has_errors(&d))
		diag_print(&d, stderr);
	if (ready_fd >= 0)
		close(ready_fd);
	deploy_sessions_free(&ss);
	auth_file_free(af);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
