/* cmd-plan.c: 'imc plan FILE' shows what 'imc create FILE' would do (the
 * VMs with their numbers, names and clouds, the networks per cloud and the
 * ordered contextualization steps) without creating anything. Like create,
 * it loads and checks every recipe the steps will run, and fails on one
 * that cannot load. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "deploy/recipes.h"
#include "plan/plan.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

int cmd_plan(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	const char *cloud = NULL;
	const char **evars = NULL;
	size_t nev = 0;
	const struct infra_opt opts[] = {
		{ .lng = "cloud", .val = &cloud },
		{ .lng = "extra-var", .shrt = 'e', .list = &evars, .nlist = &nev },
		{ 0 },
	};
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, opts, pos, 1, 1, &npos);
	if (rc) {
		free(evars);
		return rc;
	}
	struct diag d = DIAG_INIT;
	json_t *vars = json_object();
	struct auth_file *af = NULL;
	struct radl_doc *doc = NULL;
	struct plan *p = NULL;
	char *text = NULL, *abs = NULL, *home = state_default_home(ctx->home);
	for (size_t i = 0; i < nev; i++)
		if (plan_parse_extra_var(&vars, evars[i], &d) < 0)
			goto out;
	if (deploy_auth(ctx->auth_file, home, NULL, &af, NULL, &d) < 0)
		goto out;
	doc = deploy_load_radl(pos[0], vars, false, &text, &d);
	if (!doc)
		goto out;
	struct plan_opts o = { .cloud_override = cloud, .auth = af, .lenient = true };
	p = plan_build(doc, &o, &d);
	if (!p)
		goto out;
	/* what 'imc create' would refuse, plan refuses the same way */
	abs = realpath(pos[0], NULL);
	if (recipes_precheck(p, doc->file, abs, &d) < 0)
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc();
		json_t *pj = plan_to_json(p);
		json_object_update(j, pj);
		json_decref(pj);
		infra_json_print(j);
	} else {
		struct strbuf sb = STRBUF_INIT;
		plan_print(&sb, p);
		fputs(strbuf_str(&sb), stdout);
		strbuf_release(&sb);
	}
out:
	rc = diag_has_errors(&d) ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	plan_free(p);
	radl_doc_free(doc);
	auth_file_free(af);
	json_decref(vars);
	free(text);
	free(abs);
	free(home);
	free(evars);
	diag_release(&d);
	return rc;
}
