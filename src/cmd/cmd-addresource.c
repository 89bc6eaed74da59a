/* cmd-addresource.c: 'imc addresource ID FILE' adds the VMs FILE deploys
 * to an infrastructure through deploy_add (deploy/add.c: FILE may refer to
 * the infrastructure's systems, networks and configures; the new VMs get
 * the next numbers and a worker creates them and contextualizes the whole
 * infrastructure again, as IM does; --no-context: the new VMs are only
 * created and stay 'running', IM's context=0). Prints IM's "Resources with IDs: N,M
 * successfully added." once they are deployed (-d: right away). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/strbuf.h"
#include "util/banned.h"

enum { OPT_NO_CONTEXT, OPT_EXTRA_VAR, OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_NO_CONTEXT] = { "no-context", 0, CMD_OPT_FLAG, NULL,
			     "only create the new VMs (they stay running)" },
	[OPT_EXTRA_VAR] = CMD_OPTION_EXTRA_VAR,
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

static int run(struct cmd_args *a)
{
	bool detach = a->opt[OPT_DETACH].set, no_context = a->opt[OPT_NO_CONTEXT].set;
	json_t *vars = json_object();
	int *nums = NULL, rc = IMC_EXIT_OK;
	size_t n = 0;
	struct strbuf ids = STRBUF_INIT;
	if (cli_extra_vars(&vars, &a->opt[OPT_EXTRA_VAR], a->d) < 0)
		goto out;
	struct deploy_submission req = { .file = a->operands[1], .vars = vars, .interactive = true,
					 .auth_given = a->ctx->auth_file };
	if (deploy_add(&a->st, a->in->id, &req, no_context, &nums, &n, a->d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&ids, "%s%d", i ? "," : "", nums[i]);
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(a->st, a->in->id, 0, FOLLOW_QUIET, &final, a->d) < 0)
		goto out;
	bool bad = false;
	for (size_t i = 0; i < n && !detach; i++) {
		struct state_vm vm;
		if (state_vm_get(a->st, a->in->id, nums[i], &vm, a->d) == 0) {
			bad = bad || vm.state == VM_FAILED || vm.state == VM_UNCONFIGURED;
			state_vm_release(&vm);
		}
	}
	if (a->ctx->json) {
		json_t *j = cli_json_doc(), *added = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(added, json_integer(nums[i]));
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "added", added);
		cli_json_print(j);
	} else
		printf("Resources with IDs: %s successfully added.\n", ids.buf);
	if (bad)
		rc = IMC_EXIT_FAILED;
out:
	strbuf_release(&ids);
	json_decref(vars);
	free(nums);
	return rc;
}

const struct imc_cmd cmd_addresource_entry = {
	.name = "addresource", .synopsis = "[-d] [--no-context] [-e KEY=VALUE]... ID FILE",
	.summary = "add VMs to an infrastructure",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
