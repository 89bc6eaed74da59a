/* cmd-getcontmsg.c: 'imc getcontmsg ID': the contextualization log of the
 * infrastructure and of every VM (IM's contmsg), then the steps with their
 * durations. */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/banned.h"

int cmd_getcontmsg(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 1, 1, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct strbuf log = STRBUF_INIT;
	struct state_step *steps = NULL;
	size_t ns = 0;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0 || deploy_recover(st, &in, &d) < 0 ||
	    state_log_get(st, in.id, -2, &log, &d) < 0 || state_step_list(st, in.id, &steps, &ns, &d) < 0)
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "contmsg", json_string(strbuf_str(&log)));
		json_object_set_new(j, "steps", deploy_steps_json(in.created, steps, ns));
		infra_json_print(j);
	} else if (!log.len && !ns) {
		printf("No Msg Contextualizator avaliable\n");
	} else {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "Msg Contextualizator: \n\n%s", strbuf_str(&log));
		if (ns) {
			strbuf_addstr(&sb, "\nContextualization steps:\n");
			deploy_steps_text(&sb, in.created, steps, ns);
		}
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	}
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	state_step_list_free(steps, ns);
	strbuf_release(&log);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
