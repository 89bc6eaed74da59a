/* cmd-reconfigure.c: 'imc reconfigure ID [FILE] [VM,...]' runs the
 * contextualization again (on the VMs listed, default all) through
 * deploy_reconfigure (deploy/reconfigure.c), after replacing the
 * infrastructure's configure sections and contextualize sentence by
 * those of FILE when one is given. Prints IM's "Infrastructure
 * successfully reconfigured." once the worker is done (-d: right away);
 * exits 1 when a VM ends unconfigured. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/banned.h"

static bool is_vm_list(const char *s)
{
	return *s && strspn(s, "0123456789,") == strlen(s);
}

enum { OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

/* Operands 1 and 2: a RADL file (one that exists) and a VM list, in either
 * order: 0, or the usage status. */
static int file_and_list(struct cmd_args *a, const char **file, const char **list)
{
	*file = *list = NULL;
	for (int i = 1; i < a->noperands; i++) {
		if (!*file && access(a->operands[i], F_OK) == 0)
			*file = a->operands[i];
		else if (!*list && is_vm_list(a->operands[i]))
			*list = a->operands[i];
		else
			return cmd_usage_error(a->cmd, "'%s' is neither a RADL file nor a VM list",
					       a->operands[i]);
	}
	return 0;
}

static int check_operands(struct cmd_args *a)
{
	const char *file, *list;
	return file_and_list(a, &file, &list);
}

static int run(struct cmd_args *a)
{
	bool detach = a->opt[OPT_DETACH].set;
	const char *file, *list;
	int rc = IMC_EXIT_OK;
	file_and_list(a, &file, &list);
	struct deploy_submission req = { .file = file, .interactive = true };
	if (deploy_reconfigure(&a->st, a->in->id, &req, list, a->d) < 0)
		goto out;
	enum vm_state final = VM_CONFIGURED;
	if (!detach && deploy_follow(a->st, a->in->id, 0, FOLLOW_QUIET, &final, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "state", json_string(detach ? "running" : vm_state_name(final)));
		cli_json_print(j);
	} else
		printf("Infrastructure successfully reconfigured.\n");
	if (!detach && final != VM_CONFIGURED)
		rc = IMC_EXIT_FAILED;
out:
	return rc;
}

const struct imc_cmd cmd_reconfigure_entry = {
	.name = "reconfigure", .synopsis = "[-d] ID [FILE] [VM,...]",
	.summary = "run the contextualization again",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER,
	.check = check_operands, .run = run,
};
