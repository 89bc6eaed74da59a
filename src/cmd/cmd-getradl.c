/* cmd-getradl.c: 'imc getradl ID': the RADL the infrastructure was created
 * from (after @input substitution, with what addresource appended). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/log.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	if (a->ctx->json) {
		radl_doc_free(deploy_radl(a->in, a->d));
		json_t *j = cli_json_doc();
		json_object_set_new(j, "radl", json_string(a->in->radl ? a->in->radl : ""));
		cli_json_print(j);
	} else {
		/* credentials written in the RADL are masked (registered by deploy_radl) */
		radl_doc_free(deploy_radl(a->in, a->d));
		char *r = redact(a->in->radl ? a->in->radl : "");
		fputs(r, stdout);
		if (*r && r[strlen(r) - 1] != '\n')
			fputc('\n', stdout);
		free(r);
	}
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getradl_entry = {
	.name = "getradl", .synopsis = "ID",
	.summary = "the RADL the infrastructure was created from",
	.flags = CMD_NEEDS_INFRA, .run = run,
};
