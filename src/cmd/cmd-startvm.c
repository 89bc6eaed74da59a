/* cmd-startvm.c: 'imc startvm': start one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

int cmd_startvm(struct imc_ctx *ctx, int argc, char **argv)
{
	return vmop_command(ctx, argc, argv, VMOP_START, true);
}
