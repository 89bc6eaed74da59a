/* cmd-wait.c: 'imc wait' (placeholder until its subsystem lands). */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"
#include "util/banned.h"

int cmd_wait(struct imc_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	fprintf(stderr, "imc wait: error: not implemented yet\n");
	return IMC_EXIT_SOFTWARE;
}
