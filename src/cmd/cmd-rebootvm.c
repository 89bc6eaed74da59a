/* cmd-rebootvm.c: 'imc rebootvm ID VM': reboot one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	return vmop_command(a, VMOP_REBOOT);
}

const struct imc_cmd cmd_rebootvm_entry = {
	.name = "rebootvm", .synopsis = "ID VM", .summary = "reboot one VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM | CMD_RECOVER, .run = run,
};
