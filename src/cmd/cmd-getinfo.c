/* cmd-getinfo.c: 'imc getinfo' (placeholder until its subsystem lands). */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"
#include "util/banned.h"

int cmd_getinfo(struct imc_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	fprintf(stderr, "imc getinfo: error: not implemented yet\n");
	return IMC_EXIT_SOFTWARE;
}
