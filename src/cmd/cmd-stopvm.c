/* cmd-stopvm.c: 'imc stopvm ID VM': stop one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return vmop_command(a, VMOP_STOP);
}

const struct imc_cmd cmd_stopvm_entry = {
	.name = "stopvm", .synopsis = "ID VM", .summary = "stop one VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM | CMD_RECOVER, .run = run,
};
