/* cmd-wait.c: 'imc wait ID [MAX_SECONDS]' waits until the infrastructure's
 * worker is done (IM's client polls every 30 s; imc follows the store).
 * Like IM, success (exit 0) only when the result is 'configured'; any
 * other final state exits 1; running out of time prints "Timeout waiting."
 * and exits 75 (try again). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/spawn.h"
#include "util/banned.h"

int cmd_wait(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[2];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 1, 2, &npos);
	if (rc)
		return rc;
	double max = 36000; /* IM's default: 10 h */
	if (npos == 2) {
		char *end;
		errno = 0;
		max = strtod(pos[1], &end);
		if (errno || end == pos[1] || *end || max < 0)
			return cmd_usage_error("wait", "'%s' is not a number of seconds", pos[1]);
	}
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	enum vm_state final = VM_UNKNOWN;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0)
		goto out;
	deploy_follow_catch_interrupt();
	int w = deploy_follow(st, in.id, max, false, &final, &d);
	if (w < 0)
		goto out;
	if (w == 2) {
		rc = IMC_EXIT_TEMPFAIL;
		goto out;
	}
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_object_set_new(j, "id", json_string(in.id));
		json_object_set_new(j, "state", json_string(vm_state_name(final)));
		json_object_set_new(j, "timeout", json_boolean(w == 1));
		infra_json_print(j);
	} else if (w == 1)
		printf("Timeout waiting.\n");
	else
		printf("The infrastructure is in state: %s\n", vm_state_name(final));
	rc = w == 1 ? IMC_EXIT_TEMPFAIL : final == VM_CONFIGURED ? IMC_EXIT_OK : IMC_EXIT_FAILED;
out:
	if (d.n) {
		int r = cmd_report(ctx, &d);
		if (r)
			rc = r;
	}
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
