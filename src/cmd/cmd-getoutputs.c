/* cmd-getoutputs.c: 'imc getoutputs ID': what the deployment fetched back
 * into $IMC_HOME/infra/ID/outputs (model, metrics, accuracy), as IM's
 * "key = value" lines; a file's value is its content when it is short
 * text, else its path. */
#include "config.h"

#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/infra.h"
#include "util/banned.h"

int cmd_getoutputs(struct imc_ctx *ctx, int argc, char **argv)
{
	if (cmd_help_requested(argc, argv))
		return IMC_EXIT_OK;
	char *pos[1];
	int npos, rc = infra_args(ctx, argc, argv, NULL, pos, 1, 1, &npos);
	if (rc)
		return rc;
	struct diag d = DIAG_INIT;
	struct state_infra in = { 0 };
	struct state_output *outs = NULL;
	size_t n = 0;
	struct state_store *st = infra_store(ctx, &d);
	if (!st || infra_lookup(st, pos[0], &in, &d) < 0 || state_output_list(st, in.id, &outs, &n, &d) < 0)
		goto out;
	if (ctx->json) {
		json_t *j = infra_json_doc(), *o = json_object();
		for (size_t i = 0; i < n; i++)
			json_object_set_new(o, outs[i].name, json_pack("{s:o, s:o}",
				"value", outs[i].value ? json_string(outs[i].value) : json_null(),
				"path", outs[i].path ? json_string(outs[i].path) : json_null()));
		json_object_set_new(j, "outputs", o);
		infra_json_print(j);
	} else {
		for (size_t i = 0; i < n; i++) {
			const char *v = outs[i].value ? outs[i].value : outs[i].path ? outs[i].path : "";
			int len = 0;
			while (v[len] && v[len] != '\n')
				len++;
			/* one line per output: a multi-line value is shown by its path */
			if (v[len] == '\n' && v[len + 1] && outs[i].path)
				printf("%s = %s\n", outs[i].name, outs[i].path);
			else
				printf("%s = %.*s\n", outs[i].name, len, v);
		}
	}
out:
	rc = d.n ? cmd_report(ctx, &d) : IMC_EXIT_OK;
	state_output_list_free(outs, n);
	state_infra_release(&in);
	state_close(st);
	diag_release(&d);
	return rc;
}
