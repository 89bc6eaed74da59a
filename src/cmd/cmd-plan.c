/* cmd-plan.c: 'imc plan FILE' shows what 'imc create FILE' would do (the
 * VMs with their numbers, names and clouds, the networks per cloud and the
 * ordered contextualization steps) without creating anything. Like create,
 * it loads and checks every recipe the steps will run, and fails on one
 * that cannot load. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "deploy/recipes.h"
#include "plan/plan.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { OPT_CLOUD, OPT_EXTRA_VAR };

static const struct cmd_option options[] = {
	[OPT_CLOUD] = CMD_OPTION_CLOUD,
	[OPT_EXTRA_VAR] = CMD_OPTION_EXTRA_VAR,
	{ 0 },
};

static int run(struct cmd_args *a)
{
	const char *file = a->operands[0];
	json_t *vars = json_object();
	struct auth_file *af = NULL;
	struct radl_doc *doc = NULL;
	struct plan *p = NULL;
	char *text = NULL, *abs = NULL, *home = state_default_home(a->ctx->home);
	if (cli_extra_vars(&vars, &a->opt[OPT_EXTRA_VAR], a->d) < 0)
		goto out;
	if (deploy_auth(a->ctx->auth_file, home, NULL, &af, NULL, a->d) < 0)
		goto out;
	doc = deploy_load_radl(file, vars, false, &text, a->d);
	if (!doc)
		goto out;
	struct plan_opts o = { .cloud_override = a->opt[OPT_CLOUD].val, .auth = af, .lenient = true };
	p = plan_build(doc, &o, a->d);
	if (!p)
		goto out;
	/* what 'imc create' would refuse, plan refuses the same way */
	abs = realpath(file, NULL);
	if (recipes_precheck(p, doc->file, abs, a->d) < 0)
		goto out;
	/* its warnings: the tasks Ansible will run (shown once, here) */
	if (a->d->n) {
		diag_print(a->d, stderr);
		diag_release(a->d);
		diag_init(a->d);
	}
	if (a->ctx->json) {
		json_t *j = cli_json_doc();
		json_t *pj = plan_to_json(p);
		json_object_update(j, pj);
		json_decref(pj);
		cli_json_print(j);
	} else {
		struct strbuf sb = STRBUF_INIT;
		plan_print(&sb, p);
		fputs(strbuf_str(&sb), stdout);
		strbuf_release(&sb);
	}
out:
	plan_free(p);
	radl_doc_free(doc);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(abs);
	free(home);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_plan_entry = {
	.name = "plan", .synopsis = "[--cloud ID] [-e KEY=VALUE]... FILE",
	.summary = "show the VMs, networks and steps a RADL file would create",
	.options = options, .flags = CMD_ERRORS_ONLY, .run = run,
};
