/* vmops.c: the commands start, stop, startvm, stopvm and rebootvm (see
 * vmops.h): the infrastructure locked so they never race a worker or
 * another command, each VM in scope through deploy_vm_op
 * (deploy/vmops.c), and the message. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/vmops.h"
#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

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
	    deploy_auth(a->ctx->auth_file, state_home(a->st), a->in->auth_path, &af, NULL, a->d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (one_vm && vms[i].num != num)
			continue;
		found = true;
		if (!one_vm && (vms[i].state == VM_FAILED || vms[i].state == VM_OFF))
			continue; /* nothing there to start or stop */
		deploy_vm_op(a->st, a->in, af, &vms[i], op, a->d);
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
		json_object_set_new(j, deploy_vmop_verb(op), json_true());
		cli_json_print(j);
	} else if (one_vm)
		printf("VM successfully %s\n", deploy_vmop_verb(op));
	else
		printf("Infrastructure successfully %s\n", deploy_vmop_verb(op));
out:
	state_unlock_infra(lock);
	auth_file_free(af);
	state_vm_list_free(vms, n);
	return IMC_EXIT_OK;
}
