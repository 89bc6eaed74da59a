/* cmd-getradl.c: 'imc getradl ID': the RADL the infrastructure was created
 * from (after @input substitution, with what addresource appended). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

int cmd_getradl(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 1, 1, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0)
		goto out;
	if (ctx->json) {
		radl_doc_free(deploy_radl(&in, &d));
		json_t *j = infra_json_doc();
		json_object_set_new(j, "radl", json_string(in.radl ? in.radl : ""));
		infra_json_print(j);
	} else {
		/* credentials written in the RADL are masked (registered by deploy_radl) */
		radl_doc_free(deploy_radl(&in, &d));
		char *r = redact(in.radl ? in.radl : "");
		fputs(r, stdout);
		if (*r && r[strlen(r) - 1] != '\n')
			fputc('\n', stdout);
		free(r);
	}
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
