/* cmd-import.c: 'imc import FILE' loads what 'imc export' printed into the
 * store (IM's PUT /infrastructures), keeping the infrastructure's id unless
 * the store already has it, and prints IM's "New Inf: ID". The document is
 * checked before anything is written: a malformed one is an error naming
 * the JSON line, never a half-imported infrastructure (deploy_import,
 * src/deploy/import.c, which the server's PUT /infrastructures runs too). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "deploy/deploy.h"
#include "util/banned.h"

static int run(struct cmd_args *a)
{
	const char *file = a->operands[0];
	struct state_store *st = NULL;
	json_error_t jerr;
	char *id = NULL;
	json_t *j = strcmp(file, "-") == 0 ? json_loadf(stdin, 0, &jerr) : json_load_file(file, 0, &jerr);
	if (!j) {
		if (jerr.line < 1) {
			diag_error(a->d, errno == ENOENT ? IMC_EXIT_NOINPUT : IMC_EXIT_DATAERR, NULL, "cannot read '%s': %s",
				   file, jerr.text);
		} else {
			struct src_loc loc = { file, jerr.line, jerr.column };
			diag_error(a->d, IMC_EXIT_DATAERR, &loc, "invalid JSON: %s", jerr.text);
		}
		goto out;
	}
	if (deploy_import_check(j, file, a->d) < 0)
		goto out;
	/* the store opens once the document is known good: a bad file
	 * creates no home */
	st = a->st = cli_store(a->ctx, a->d);
	if (!st)
		goto out;
	if (deploy_import(st, j, NULL, NULL, &id, a->d) < 0)
		goto out;
	if (a->ctx->json) {
		json_t *o = cli_json_doc();
		json_object_set_new(o, "id", json_string(id));
		cli_json_print(o);
	} else
		printf("New Inf: %s\n", id);
out:
	free(id);
	json_decref(j);
	return IMC_EXIT_OK;
}

const struct imc_cmd cmd_import_entry = {
	.name = "import", .synopsis = "FILE", .summary = "load an exported infrastructure",
	.run = run,
};
