/* vmops.c: start/stop/reboot of VMs through their cloud driver (see
 * vmops.h), with the infrastructure locked so they never race a worker or
 * another command. A VM that starts again comes back to the outcome its
 * contextualization had (configured or unconfigured), as in IM. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/infra.h"
#include "cmd/vmops.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const verbs[] = { "started", "stopped", "rebooted" };

static int one(struct state_store *st, struct state_infra *in, const struct auth_file *af,
	       struct state_vm *vm, enum vmop op, struct diag *d)
{
	if (vm->state == VM_FAILED || vm->state == VM_OFF || vm->state == VM_DELETING || !vm->cloud_id) {
		diag_error(d, IMC_EXIT_FAILED, NULL, "VM %d is %s: it cannot be %s", vm->num,
			   vm_state_name(vm->state), verbs[op]);
		return -1;
	}
	struct cloud_session s;
	if (infra_cloud_open(st, in, vm->cloud, vm->cloud_cred, af, &s, d) < 0)
		return -1;
	int (*fn)(struct cloud_session *, struct cloud_vm *, struct diag *) =
		op == VMOP_START ? s.drv->vm_start : op == VMOP_STOP ? s.drv->vm_stop : s.drv->vm_reboot;
	if (!fn || (op != VMOP_REBOOT && !(s.drv->caps & CLOUD_CAP_STOP))) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' cannot have its VMs %s", vm->cloud, verbs[op]);
		infra_cloud_close(&s);
		return -1;
	}
	json_t *spec;
	struct cloud_vm cv;
	infra_cloud_vm(vm, &spec, &cv);
	int rc = fn(&s, &cv, d);
	if (rc == 0) {
		infra_vm_take(vm, &cv);
		if (op == VMOP_STOP)
			vm->state = VM_STOPPED;
		else if (vm->state == VM_RUNNING || vm->state == VM_STOPPED || vm->state == VM_PENDING)
			vm->state = vm->ctxt > 0 ? VM_CONFIGURED : vm->ctxt == 0 ? VM_UNCONFIGURED : VM_RUNNING;
		char *msg = xasprintf("VM %s", verbs[op]);
		rc = state_vm_update(st, vm, d) < 0 || state_log_add(st, in->id, vm->num, msg, d) < 0 ? -1 : 0;
		free(msg);
	}
	infra_cloud_vm_release(&cv);
	json_decref(spec);
	infra_cloud_close(&s);
	return rc;
}

int vmop_command(struct cmd_args *a, enum vmop op)
{
	bool one_vm = a->cmd->flags & CMD_NEEDS_VM;
	int num = a->vm;
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct auth_file *af = NULL;
	int lock = -1;
	bool found = false;
	if (state_lock_infra(a->st, a->in->id, true, &lock, a->d) != 0 || state_vm_list(a->st, a->in->id, &vms, &n, a->d) < 0 ||
	    infra_auth(a->ctx, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (one_vm && vms[i].num != num)
			continue;
		found = true;
		if (!one_vm && (vms[i].state == VM_FAILED || vms[i].state == VM_OFF))
			continue; /* nothing there to start or stop */
		one(a->st, a->in, af, &vms[i], op, a->d);
	}
	if (one_vm && !found)
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, num);
	if (diag_has_errors(a->d))
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		if (one_vm)
			json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, verbs[op], json_true());
		cli_json_print(j);
	} else if (one_vm)
		printf("VM successfully %s\n", verbs[op]);
	else
		printf("Infrastructure successfully %s\n", verbs[op]);
out:
	state_unlock_infra(lock);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	return IMC_EXIT_OK;
}
