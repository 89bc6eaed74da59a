/* cmd-create.c: 'imc create FILE' hands the RADL to deploy_submit
 * (deploy/submit.c: validated with IM's @input.KEY@ filled from -e
 * KEY=VALUE or asked on a terminal, planned, its recipes checked before
 * any cloud call, recorded, given to a detached worker). It prints the infrastructure id first, then follows the
 * worker until the infrastructure is configured or failed (-d: returns
 * right after the id; Ctrl-C stops following, not the deployment),
 * showing the progress a training job reports (deploy/progress.c): a line
 * every epoch or 5% of the job and a bar on a terminal, or under --json
 * one event document per line before the final document. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/banned.h"

_Static_assert(DEPLOY_EVENT_FORMAT == IMC_JSON_FORMAT, "a progress event is a --json document");

enum { OPT_CLOUD, OPT_EXTRA_VAR, OPT_DETACH };

static const struct cmd_option options[] = {
	[OPT_CLOUD] = CMD_OPTION_CLOUD,
	[OPT_EXTRA_VAR] = CMD_OPTION_EXTRA_VAR,
	[OPT_DETACH] = CMD_OPTION_DETACH,
	{ 0 },
};

static int run(struct cmd_args *a)
{
	const char *cloud = a->opt[OPT_CLOUD].val;
	bool detach = a->opt[OPT_DETACH].set;
	json_t *vars = json_object();
	char *home = state_default_home(a->ctx->home), *id = NULL;
	int rc = IMC_EXIT_OK;
	if (cli_extra_vars(&vars, &a->opt[OPT_EXTRA_VAR], a->d) < 0)
		goto out;
	struct deploy_submission req = { .file = a->operands[0], .cloud = cloud, .vars = vars,
					 .interactive = true, .auth_given = a->ctx->auth_file,
					 .catch_interrupt = !detach };
	if (deploy_submit(&req, home, &a->st, &id, a->d) < 0)
		goto out;
	/* the recipe check's warnings: the tasks Ansible will run */
	if (a->d->n) {
		diag_print(a->d, stderr);
		diag_release(a->d);
		diag_init(a->d);
	}
	if (!a->ctx->json) {
		printf("%s\n", id);
		fflush(stdout);
	}
	if (detach) {
		if (a->ctx->json) {
			json_t *j = cli_json_doc();
			json_object_set_new(j, "id", json_string(id));
			cli_json_print(j);
		}
		goto out;
	}
	enum vm_state final = VM_UNKNOWN;
	int w = deploy_follow(a->st, id, 0, a->ctx->json ? FOLLOW_JSON : FOLLOW_TEXT, &final, a->d);
	if (w < 0)
		goto out;
	if (w == 2) {
		fprintf(stderr, "imc create: stopped following; the deployment goes on ('imc wait %s')\n", id);
		rc = IMC_EXIT_TEMPFAIL;
		goto out;
	}
	cli_print_state(a->ctx, a->st, id, true, a->d);
	if (!diag_has_errors(a->d) && final != VM_CONFIGURED)
		rc = IMC_EXIT_FAILED;
out:
	json_decref(vars);
	free(home);
	free(id);
	return rc;
}

const struct imc_cmd cmd_create_entry = {
	.name = "create", .synopsis = "[-d] [--cloud ID] [-e KEY=VALUE]... FILE",
	.summary = "deploy an infrastructure and follow it until configured",
	.options = options, .flags = CMD_ERRORS_ONLY, .run = run,
};
