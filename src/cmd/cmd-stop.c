/* cmd-stop.c: 'imc stop ID': stop every VM of an infrastructure (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return vmop_command(a, VMOP_STOP);
}

const struct imc_cmd cmd_stop_entry = {
	.name = "stop", .synopsis = "ID", .summary = "stop every VM of the infrastructure",
	.flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
