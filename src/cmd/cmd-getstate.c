/* cmd-getstate.c: 'imc getstate ID': the state of the infrastructure and
 * of each VM, in IM's words, with the contextualization steps and their
 * durations. A worker found dead is recorded first (deploy_recover), so the
 * answer is the truth, not the last thing the worker wrote. */
#include "config.h"

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int cmd_getstate(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 1, 1, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_store *st = infra_store(ctx, &d);
	if (st && infra_lookup(st, pos[0], &in, &d) == 0 && deploy_recover(st, &in, &d) == 0 &&
	    deploy_refresh(st, &in, ctx->auth_file, &d) == 0)
		infra_print_state(ctx, st, in.id, false, &d);
	rc = diag_has_errors(&d) ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
