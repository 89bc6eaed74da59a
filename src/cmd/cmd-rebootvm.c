/* cmd-rebootvm.c: 'imc rebootvm': reboot one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

int cmd_rebootvm(struct imc_ctx *ctx, int argc, char **argv)
{
	return vmop_command(ctx, argc, argv, VMOP_REBOOT, true);
}
