/* cmd-getcontmsg.c: 'imc getcontmsg ID': the contextualization log of the
 * infrastructure and of every VM (IM's contmsg), then the steps with their
 * durations. */
#include "config.h"

#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	struct strbuf log = STRBUF_INIT;
	struct state_step *steps = NULL;
	size_t ns = 0;
	if (state_log_get(a->st, a->in->id, -2, &log, a->d) < 0 || state_step_list(a->st, a->in->id, &steps, &ns, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "contmsg", json_string(strbuf_str(&log)));
		json_object_set_new(j, "steps", deploy_steps_json(a->in->created, steps, ns));
		cli_json_print(j);
	} else if (!log.len && !ns) {
		printf("No Msg Contextualizator avaliable\n");
	} else {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "Msg Contextualizator: \n\n%s", strbuf_str(&log));
		if (ns) {
			strbuf_addstr(&sb, "\nContextualization steps:\n");
			deploy_steps_text(&sb, a->in->created, steps, ns);
		}
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	}
out:
	state_step_list_free(steps, ns);
	strbuf_release(&log);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getcontmsg_entry = {
	.name = "getcontmsg", .synopsis = "ID",
	.summary = "contextualization log of the infrastructure",
	.flags = CMD_NEEDS_INFRA | CMD_RECOVER, .run = run,
};
