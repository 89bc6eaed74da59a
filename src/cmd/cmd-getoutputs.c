/* cmd-getoutputs.c: 'imc getoutputs ID': what the deployment fetched back
 * into $IMC_HOME/infra/ID/outputs (model, metrics, accuracy), as IM's
 * "key = value" lines; a file's value is its content when it is short
 * text, else its path; each scalar member of a fetched JSON object (the
 * trainer's summary.json) is a named value of its own. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	struct state_output *outs = NULL;
	size_t n = 0;
	if (state_output_list(a->st, a->in->id, &outs, &n, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		/* {"format": 1, "outputs": {NAME: VALUE}, "files": {NAME: PATH}};
		 * each named value (not a file) is also a top-level member, for
		 * scripts: d["test_accuracy"] */
		json_t *j = cli_json_doc(), *o = json_object(), *files = json_object(), *top = json_object();
		for (size_t i = 0; i < n; i++) {
			json_t *v = NULL;
			if (!outs[i].path && outs[i].value) {
				v = json_loads(outs[i].value, JSON_DECODE_ANY, NULL);
				if (v && !json_is_number(v) && !json_is_boolean(v) && !json_is_null(v)) {
					json_decref(v);
					v = NULL;
				}
			}
			if (!v)
				v = outs[i].value ? json_string(outs[i].value) : outs[i].path ? json_string(outs[i].path) : json_null();
			if (!outs[i].path && strcmp(outs[i].name, "format") != 0 && strcmp(outs[i].name, "outputs") != 0 &&
			    strcmp(outs[i].name, "files") != 0)
				json_object_set(top, outs[i].name, v);
			json_object_set_new(o, outs[i].name, v);
			if (outs[i].path)
				json_object_set_new(files, outs[i].name, json_string(outs[i].path));
		}
		json_object_set_new(j, "outputs", o);
		json_object_set_new(j, "files", files);
		json_object_update(j, top);
		json_decref(top);
		cli_json_print(j);
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
	state_output_list_free(outs, n);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_getoutputs_entry = {
	.name = "getoutputs", .synopsis = "ID",
	.summary = "what the deployment fetched back (model, metrics)",
	.flags = CMD_NEEDS_INFRA, .run = run,
};
