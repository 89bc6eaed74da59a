/* cmd-getstate.c: 'imc getstate ID': the state of the infrastructure and
 * of each VM, in IM's words, with the contextualization steps and their
 * durations. A worker found dead is recorded first (CMD_RECOVER), so the
 * answer is the truth, not the last thing the worker wrote. */
#include "config.h"

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	cli_print_state(a->ctx, a->st, a->in->id, false, a->d);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getstate_entry = {
	.name = "getstate", .synopsis = "ID", .summary = "state of the infrastructure and each VM",
	.flags = CMD_NEEDS_INFRA | CMD_RECOVER | CMD_REFRESH | CMD_ERRORS_ONLY, .run = run,
};
