/* vmops.c: the commands start, stop, startvm, stopvm and rebootvm (see
 * vmops.h): the VMs in scope through deploy_vms_op (deploy/vmops.c, which
 * holds the infrastructure's lock so they never race a worker or another
 * command), and the message. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/vmops.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int vmop_command(struct cmd_args *a, enum vmop op)
{
	bool one_vm = a->cmd->flags & CMD_NEEDS_VM;
	int num = a->vm;
	if (deploy_vms_op(a->st, a->in, a->ctx->auth_file, one_vm ? num : -1, op, a->d) < 0)
		return IMC_EXIT_OK;
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
	return IMC_EXIT_OK;
}
