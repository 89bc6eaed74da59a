/* cmd-export.c: 'imc export ID [--delete]' prints the infrastructure's
 * record as one JSON document (IM's GET .../data): the RADL, the VMs with
 * their cloud ids and addresses, networks, steps, logs and outputs, as
 * deploy_export (src/deploy/export.c) writes it for the server too.
 * --delete then forgets the infrastructure in the store; its cloud
 * resources stay, to be taken over by 'imc import'. */
#include "config.h"

#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

_Static_assert(DEPLOY_RECORD_FORMAT == IMC_JSON_FORMAT, "an exported record is a --json document");

enum { OPT_DELETE };

static const struct cmd_option options[] = {
	[OPT_DELETE] = { "delete", 0, CMD_OPT_FLAG, NULL,
			 "then forget the infrastructure (its cloud resources stay)" },
	{ 0 },
};

static int run(struct cmd_args *a)
{
	json_t *j = cli_json_doc();
	int rc = deploy_export(a->st, a->in, a->opt[OPT_DELETE].set, j, a->d);
	/* a failed forget still prints the record it follows */
	if (rc == 0 || json_object_get(j, "outputs"))
		cli_json_print(j);
	else
		json_decref(j);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_export_entry = {
	.name = "export", .synopsis = "[--delete] ID",
	.summary = "print the infrastructure's record as JSON",
	.options = options, .flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
