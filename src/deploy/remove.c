/* remove.c: VMs taken out of an infrastructure, what 'imc removeresource'
 * and `imc serve`'s DELETE /infrastructures/ID/vms/N both do (see
 * deploy.h, deploy_remove): every VM named must exist before any is
 * touched; each is deleted on its cloud, then its row (its number is never
 * given again); the VMs left are contextualized again in the background
 * when any is reachable over SSH, as IM does, unless told not to. */
#include "config.h"

#include <stdlib.h>

#include "cloud/cloud.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

int deploy_remove(struct state_store **stp, struct state_infra *in, const char *auth_given, const int *nums,
		  size_t nnums, bool no_context, int **removed, size_t *nremoved, struct diag *d)
{
	struct state_store *st = *stp;
	struct auth_file *af = NULL;
	struct state_vm *vms = NULL;
	size_t n = 0;
	int lock = -1, rc = -1;
	bool *gone = NULL;
	/* a VM named twice is removed once: at most nnums */
	*removed = xcalloc(nnums ? nnums : 1, sizeof(**removed));
	*nremoved = 0;
	if (state_lock_infra(st, in->id, true, &lock, d) != 0 ||
	    deploy_auth(auth_given, state_home(st), in->auth_path, &af, NULL, d) < 0 ||
	    state_vm_list(st, in->id, &vms, &n, d) < 0)
		goto out;
	for (size_t k = 0; k < nnums; k++) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found = found || vms[i].num == nums[k];
		if (!found) {
			diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in->id, nums[k]);
			goto out;
		}
	}
	gone = xcalloc(n + 1, sizeof(*gone));
	for (size_t k = 0; k < nnums; k++)
		for (size_t i = 0; i < n; i++) {
			struct state_vm *vm = &vms[i];
			if (vm->num != nums[k] || gone[i])
				continue;
			enum vm_state before = vm->state;
			if (state_vm_set_state(st, in->id, vm->num, VM_DELETING, d) < 0)
				goto out;
			struct cloud_session s;
			int ok = -1;
			if (deploy_cloud_open(st, in, vm->cloud, vm->cloud_cred, af, &s, d) == 0) {
				ok = 0;
				if (s.drv->vm_destroy) {
					json_t *spec;
					struct cloud_vm cv;
					deploy_cloud_vm(vm, &spec, &cv);
					ok = s.drv->vm_destroy(&s, &cv, d);
					deploy_cloud_vm_release(&cv);
					json_decref(spec);
				}
				deploy_cloud_close(&s);
			}
			if (ok < 0) {
				state_vm_set_state(st, in->id, vm->num, before, d);
				continue;
			}
			char *msg = xasprintf("VM %d removed", vm->num);
			state_log_add(st, in->id, -1, msg, d);
			free(msg);
			if (state_vm_delete(st, in->id, vm->num, d) < 0)
				goto out;
			(*removed)[(*nremoved)++] = vm->num;
			gone[i] = true; /* listed twice: once is enough */
		}
	/* As IM: the VMs left are contextualized again (their /etc/hosts and
	 * groups lose the removed ones), when any of them is reachable over
	 * SSH; in the background, like a create -d. */
	bool ssh = false;
	for (size_t i = 0; i < n; i++) {
		const struct cloud_driver *drv = cloud_driver_find(vms[i].cloud);
		ssh = ssh || (!gone[i] && drv && (drv->caps & CLOUD_CAP_SSH) &&
			      (vms[i].state == VM_CONFIGURED || vms[i].state == VM_UNCONFIGURED));
	}
	if (*nremoved && ssh && !no_context) {
		if (state_infra_set_phase(st, in->id, PHASE_NEW, d) < 0 ||
		    deploy_spawn(stp, in->id, lock, WORKER_CONFIGURE, NULL, d) < 0)
			goto out;
	}
	rc = 0;
out:
	state_unlock_infra(lock);
	free(gone);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	return rc;
}
