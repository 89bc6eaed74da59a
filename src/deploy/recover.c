/* recover.c: the truth about an infrastructure whose deployment worker
 * died (see deploy.h). The worker writes each intent before acting, so
 * what it left half done can be told from the store alone: a VM still
 * 'pending' was never confirmed by the cloud, a VM 'running' with its
 * contextualization unfinished was being configured, and the first
 * unfinished step of each VM was the one running. */
#include "config.h"

#include <stdlib.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

int deploy_recover(struct state_store *st, struct state_infra *in, struct diag *d)
{
	if (in->phase != PHASE_NEW && in->phase != PHASE_CREATING && in->phase != PHASE_CONFIGURING)
		return 0;
	if (state_worker_alive(in->worker_pid, in->worker_start))
		return 0;
	int fd;
	int rc = state_lock_infra(st, in->id, false, &fd, d);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* held: someone is working on it */
	/* Re-read under the lock: the worker may have finished meanwhile. */
	struct state_infra fresh;
	if (state_infra_get(st, in->id, &fresh, d) != 0) {
		state_unlock_infra(fd);
		return -1;
	}
	if (fresh.phase == PHASE_NEW || fresh.phase == PHASE_CREATING || fresh.phase == PHASE_CONFIGURING) {
		struct state_vm *vms = NULL;
		size_t n = 0;
		if (state_begin(st, d) < 0 || state_vm_list(st, in->id, &vms, &n, d) < 0)
			goto fail;
		char *msg = xasprintf("deployment worker (PID %d) ended before finishing the %s phase",
				      (int)fresh.worker_pid, infra_phase_name(fresh.phase));
		if (state_log_add(st, in->id, -1, msg, d) < 0) {
			free(msg);
			goto fail;
		}
		free(msg);
		for (size_t i = 0; i < n; i++) {
			struct state_vm *vm = &vms[i];
			const char *why = NULL;
			if (vm->state == VM_PENDING) {
				vm->state = VM_FAILED;
				why = "creation not confirmed: the deployment worker died (destroy removes any leftover)";
			} else if (vm->state == VM_RUNNING && vm->ctxt < 0) {
				vm->state = VM_UNCONFIGURED;
				vm->ctxt = 0;
				why = "contextualization interrupted: the deployment worker died (use reconfigure)";
			}
			if (why && (state_vm_update(st, vm, d) < 0 || state_log_add(st, in->id, vm->num, why, d) < 0))
				goto fail;
		}
		struct state_step *steps = NULL;
		size_t ns = 0;
		if (state_step_list(st, in->id, &steps, &ns, d) < 0)
			goto fail;
		/* per VM, the first unfinished step was the one running when the
		 * worker died: failed; the later ones never started: skipped */
		int *hit = xcalloc(ns + 1, sizeof(*hit));
		size_t nhit = 0;
		for (size_t i = 0; i < ns; i++)
			if (steps[i].status == STEP_RUNNING || steps[i].status == STEP_PENDING) {
				bool first = true;
				for (size_t k = 0; k < nhit; k++)
					if (hit[k] == steps[i].vm)
						first = false;
				if (first)
					hit[nhit++] = steps[i].vm;
				steps[i].status = first ? STEP_FAILED : STEP_SKIPPED;
				if (!steps[i].error && first)
					steps[i].error = xstrdup("interrupted: the deployment worker died");
				if (state_step_set(st, in->id, &steps[i], d) < 0) {
					free(hit);
					state_step_list_free(steps, ns);
					goto fail;
				}
			}
		free(hit);
		state_step_list_free(steps, ns);
		if (state_infra_set_phase(st, in->id, PHASE_INTERRUPTED, d) < 0 ||
		    state_infra_set_worker(st, in->id, 0, 0, d) < 0 || state_commit(st, d) < 0)
			goto fail;
		state_vm_list_free(vms, n);
		state_infra_release(in);
		rc = state_infra_get(st, fresh.id, in, d);
		state_infra_release(&fresh);
		state_unlock_infra(fd);
		return rc == 0 ? 0 : -1;
	fail:
		state_rollback(st);
		state_vm_list_free(vms, n);
		state_infra_release(&fresh);
		state_unlock_infra(fd);
		return -1;
	}
	state_infra_release(in);
	*in = fresh;
	state_unlock_infra(fd);
	return 0;
}
