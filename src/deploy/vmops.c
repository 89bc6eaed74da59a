/* vmops.c: start, stop and reboot of one VM through its cloud driver (see
 * deploy.h), the state recorded once the cloud confirmed; and of the VMs
 * in scope of a command or a REST request (deploy_vms_op), which takes the
 * infrastructure's lock, so an operation never races a worker or another
 * command. A VM that starts again comes back to the outcome its
 * contextualization had (configured or unconfigured), as in IM. */
#include "config.h"

#include <stdlib.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const verbs[] = { "started", "stopped", "rebooted" };

const char *deploy_vmop_verb(enum vmop op)
{
	return verbs[op];
}

int deploy_vm_op(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		 struct state_vm *vm, enum vmop op, struct diag *d)
{
	if (vm->state == VM_FAILED || vm->state == VM_OFF || vm->state == VM_DELETING || !vm->cloud_id) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "VM %d is %s: it cannot be %s", vm->num,
			   vm_state_name(vm->state), verbs[op]);
		return -1;
	}
	struct cloud_session s;
	if (deploy_cloud_open(st, in, vm->cloud, vm->cloud_cred, af, &s, d) < 0)
		return -1;
	int (*fn)(struct cloud_session *, struct cloud_vm *, struct diag *) =
		op == VMOP_START ? s.drv->vm_start : op == VMOP_STOP ? s.drv->vm_stop : s.drv->vm_reboot;
	if (!fn || (op != VMOP_REBOOT && !(s.drv->caps & CLOUD_CAP_STOP))) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot have its VMs %s", vm->cloud, verbs[op]);
		deploy_cloud_close(&s);
		return -1;
	}
	json_t *spec;
	struct cloud_vm cv;
	deploy_cloud_vm(vm, &spec, &cv);
	int rc = fn(&s, &cv, d);
	if (rc == 0) {
		deploy_vm_take(vm, &cv);
		if (op == VMOP_STOP)
			vm->state = VM_STOPPED;
		else if (vm->state == VM_RUNNING || vm->state == VM_STOPPED || vm->state == VM_PENDING)
			vm->state = vm->ctxt > 0 ? VM_CONFIGURED : vm->ctxt == 0 ? VM_UNCONFIGURED : VM_RUNNING;
		char *msg = xasprintf("VM %s", verbs[op]);
		rc = state_vm_update(st, vm, d) < 0 || state_log_add(st, in->id, vm->num, msg, d) < 0 ? -1 : 0;
		free(msg);
	}
	deploy_cloud_vm_release(&cv);
	json_decref(spec);
	deploy_cloud_close(&s);
	return rc;
}

int deploy_vms_op(struct state_store *st, struct state_infra *in, const char *auth_given, int num, enum vmop op,
		  struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct auth_file *af = NULL;
	int lock = -1;
	bool found = false;
	if (state_lock_infra(st, in->id, true, &lock, d) != 0 || state_vm_list(st, in->id, &vms, &n, d) < 0 ||
	    deploy_auth(auth_given, state_home(st), in->auth_path, &af, NULL, d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (num >= 0 && vms[i].num != num)
			continue;
		found = true;
		if (num < 0 && (vms[i].state == VM_FAILED || vms[i].state == VM_OFF))
			continue; /* nothing there to start or stop */
		deploy_vm_op(st, in, af, &vms[i], op, d);
	}
	if (num >= 0 && !found)
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in->id, num);
out:
	state_unlock_infra(lock);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	return diag_has_errors(d) ? -1 : 0;
}
