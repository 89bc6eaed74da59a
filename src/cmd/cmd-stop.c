/* cmd-stop.c: 'imc stop': stop every VM of an infrastructure (vmops.c does the work). */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/vmops.h"
#include "util/banned.h"

int cmd_stop(struct imc_ctx *ctx, int argc, char **argv)
{
	return vmop_command(ctx, argc, argv, VMOP_STOP, false);
}
