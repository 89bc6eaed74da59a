/* vmops.c: the commands start, stop, startvm, stopvm and rebootvm (see
 * vmops.h): the arguments, the lock, the scope (every VM or one) and the
 * message; the operation on each VM is deploy_vm_op (deploy/vmops.c). */
#include "config.h"

#include <stdio.h>

#include "cmd/infra.h"
#include "cmd/vmops.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int vmop_command(struct imc_ctx *ctx, int argc, char **argv, enum vmop op, bool one_vm)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[2];
	int npos, num = -1, rc = infra_args(ctx, argc, argv, NULL, pos, one_vm ? 2 : 1, one_vm ? 2 : 1, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct auth_file *af = NULL;
	int lock = -1;
	bool found = false;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || (one_vm && infra_vm_arg(pos[1], &num, &d) < 0) || infra_lookup(st, pos[0], &in, &d) < 0 ||
	    deploy_recover(st, &in, &d) < 0 || state_lock_infra(st, in.id, true, &lock, &d) != 0 ||
	    state_vm_list(st, in.id, &vms, &n, &d) < 0 ||
	    deploy_auth(ctx->auth_file, state_home(st), in.auth_path, &af, NULL, &d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (one_vm && vms[i].num != num)
			continue;
		found = true;
		if (!one_vm && (vms[i].state == VM_FAILED || vms[i].state == VM_OFF))
			continue; /* nothing there to start or stop */
		deploy_vm_op(st, &in, af, &vms[i], op, &d);
	}
	if (one_vm && !found)
		diag_error(&d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in.id, num);
	if (diag_has_errors(&d))
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "id", json_string(in.id));
		if (one_vm)
			json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, deploy_vmop_verb(op), json_true());
		infra_json_print(j);
	} else if (one_vm)
		printf("VM successfully %s\n", deploy_vmop_verb(op));
	else
		printf("Infrastructure successfully %s\n", deploy_vmop_verb(op));
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	state_unlock_infra(lock);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
