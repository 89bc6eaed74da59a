/* cmd-wait.c: 'imc wait ID [MAX_SECONDS]' waits until the infrastructure's
 * worker is done (IM's client polls every 30 s; imc follows the store).
 * Like IM, success (exit 0) only when the result is 'configured'; any
 * other final state exits 1; running out of time prints "Timeout waiting."
 * and exits 75 (try again). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/spawn.h"
#include "util/banned.h"

/* MAX_SECONDS, when given, is checked before anything is opened. */
static int parse_max(struct cmd_args *a, const char *arg, double *max)
{
	char *end;
	errno = 0;
	*max = strtod(arg, &end);
	if (errno || end == arg || *end || *max < 0)
		return cmd_usage_error(a->cmd, "'%s' is not a number of seconds", arg);
	return 0;
}

static int check_operands(struct cmd_args *a)
{
	double max;
	return a->noperands == 2 ? parse_max(a, a->operands[1], &max) : 0;
}

static int run(struct cmd_args *a)
{
	double max = 36000; /* IM's default: 10 h */
	enum vm_state final = VM_UNKNOWN;
	int rc;
	if (a->noperands == 2)
		parse_max(a, a->operands[1], &max);
	deploy_follow_catch_interrupt();
	int w = deploy_follow(a->st, a->in->id, max, FOLLOW_QUIET, &final, a->d);
	if (w < 0)
		return IMC_EXIT_OK;
	if (w == 2)
		return IMC_EXIT_TEMPFAIL;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(a->in->id));
		json_object_set_new(j, "state", json_string(vm_state_name(final)));
		json_object_set_new(j, "timeout", json_boolean(w == 1));
		cli_json_print(j);
	} else if (w == 1)
		printf("Timeout waiting.\n");
	else
		printf("The infrastructure is in state: %s\n", vm_state_name(final));
	rc = w == 1 ? IMC_EXIT_TEMPFAIL : final == VM_CONFIGURED ? IMC_EXIT_OK : IMC_EXIT_FAILED;
	return rc;
}

const struct imc_cmd cmd_wait_entry = {
	.name = "wait", .synopsis = "ID [MAX_SECONDS]",
	.summary = "wait until an infrastructure is configured (exit 0) or fails",
	.flags = CMD_NEEDS_INFRA, .check = check_operands, .run = run,
};
