/* cmd-stopvm.c: 'imc stopvm': stop one VM (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

int cmd_stopvm(struct imc_ctx *ctx, int argc, char **argv)
{
	return vmop_command(ctx, argc, argv, VMOP_STOP, true);
}
