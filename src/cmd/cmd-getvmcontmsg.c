/* cmd-getvmcontmsg.c: 'imc getvmcontmsg ID VM': the contextualization log
 * of one VM. */
#include "config.h"

#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	int num = a->vm;
	struct state_vm vm = { 0 };
	struct strbuf log = STRBUF_INIT;
	int g = state_vm_get(a->st, a->in->id, num, &vm, a->d);
	if (g > 0)
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", a->in->id, num);
	if (g != 0 || state_log_get(a->st, a->in->id, num, &log, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "vm", json_integer(num));
		json_object_set_new(j, "contmsg", json_string(strbuf_str(&log)));
		cli_json_print(j);
	} else
		fputs(strbuf_str(&log), stdout);
out:
	strbuf_release(&log);
	state_vm_release(&vm);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getvmcontmsg_entry = {
	.name = "getvmcontmsg", .synopsis = "ID VM", .summary = "contextualization log of one VM",
	.flags = CMD_NEEDS_INFRA | CMD_NEEDS_VM | CMD_RECOVER, .run = run,
};
