/* cmd-start.c: 'imc start ID': start every VM of an infrastructure (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return vmop_command(a, VMOP_START);
}

const struct imc_cmd cmd_start_entry = {
	.name = "start", .synopsis = "ID", .summary = "start every VM of the infrastructure",
	.flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
