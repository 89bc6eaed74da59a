/* cmd-startvm.c: 'imc startvm ID VM': start one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return vmop_command(a, VMOP_START);
}

const struct imc_cmd cmd_startvm_entry = {
	.name = "startvm", .synopsis = "ID VM", .summary = "start one VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM | CMD_RECOVER, .run = run,
};
