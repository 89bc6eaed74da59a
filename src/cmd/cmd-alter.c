/* cmd-alter.c: 'imc alter ID VM FILE' changes the features of a VM (IM's
 * PUT .../vms/VM) through deploy_alter (deploy/alter.c): FILE holds a
 * system whose cpu.count, memory.size, gpu.count and instance_type replace
 * the VM's, once the VM's cloud made the change real. */
#include "config.h"

#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	int num = a->vm;
	json_t *spec = NULL;
	struct deploy_submission req = { .file = a->operands[2], .interactive = true,
					 .auth_given = a->ctx->auth_file };
	if (deploy_alter(a->st, a->in, num, &req, &spec, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, "spec", json_incref(spec));
		cli_json_print(j);
	} else
		printf("VM successfully modified.\n");
out:
	json_decref(spec);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_alter_entry = {
	.name = "alter", .synopsis = "ID VM FILE", .summary = "change the features of a VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM, .run = run,
};
