/* cmd-getvmcontmsg.c: 'imc getvmcontmsg ID VM': the contextualization log
 * of one VM. */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int cmd_getvmcontmsg(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[2];
	int npos, num, rc = infra_args(ctx, argc, argv, NULL, pos, 2, 2, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_vm vm = { 0 };
	struct strbuf log = STRBUF_INIT;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_vm_arg(pos[1], &num, &d) < 0 || infra_lookup(st, pos[0], &in, &d) < 0 ||
	    deploy_recover(st, &in, &d) < 0)
		goto out;
	int g = state_vm_get(st, in.id, num, &vm, &d);
	if (g > 0)
		diag_error(&d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in.id, num);
	if (g != 0 || state_log_get(st, in.id, num, &log, &d) < 0)
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, "contmsg", json_string(strbuf_str(&log)));
		infra_json_print(j);
	} else
		fputs(strbuf_str(&log), stdout);
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	strbuf_release(&log);
	state_vm_release(&vm);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
