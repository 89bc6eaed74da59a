/* cmd-destroy.c: 'imc destroy [--force] ID' resolves the id and hands it to
 * deploy_destroy (deploy/destroy.c: the worker cancelled, every VM and
 * network deleted on its clouds, the orphans a backend finds tagged with
 * it, the store rows and $IMC_HOME/infra/ID). Idempotent:
 * destroying a destroyed infrastructure succeeds and does nothing. It asks
 * no question. --force forgets what a cloud that cannot be reached still
 * holds, and says what that may be. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

enum { OPT_FORCE, OPT_YES };

static const struct cmd_option options[] = {
	[OPT_FORCE] = { "force", 'f', CMD_OPT_FLAG, NULL,
			"forget what a cloud that cannot be reached still holds\n"
			"(reported as warnings)" },
	/* IM's client -y: accepted, never asked anyway */
	[OPT_YES] = { "yes", 'y', CMD_OPT_FLAG, NULL,
		      "accepted for IM's client; imc asks no question" },
	{ 0 },
};

static int run(struct cmd_args *a)
{
	bool force = a->opt[OPT_FORCE].set, already = false;
	char *id = NULL;
	int r = state_infra_resolve(a->st, a->operands[0], &id, a->d);
	if (r < 0)
		goto out;
	if (r > 0) {
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' does not exist", a->operands[0]);
		goto out;
	}
	if (deploy_destroy(a->st, id, a->ctx->auth_file, force, &already, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_object_set_new(j, "id", json_string(id));
		json_object_set_new(j, "destroyed", json_true());
		json_object_set_new(j, "already_destroyed", json_boolean(already));
		cli_json_print(j);
	} else if (already)
		printf("Infrastructure %s was already destroyed\n", id);
	else
		printf("Infrastructure successfully destroyed\n");
out:
	free(id);
	return IMC_EXIT_OK; /* a->d, also the warnings of --force, is reported by the caller */
}

const struct imc_cmd cmd_destroy_entry = {
	.name = "destroy", .synopsis = "[-f|--force] [-y|--yes] ID",
	.summary = "delete the infrastructure and everything it created",
	.options = options, .flags = CMD_NEEDS_STORE, .run = run,
};
