/* cmd-validate.c: 'imc validate FILE...', parsing and checking RADL (or
 * RADL-JSON) files without deploying anything, with a one-line summary per
 * valid file: how many systems, networks, deploys (and VMs) and
 * contextualization steps it describes. Every file is checked even when an
 * earlier one is invalid; the exit status is that of the first failure. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "parser/radl.h"
#include "util/banned.h"

struct summary {
	size_t systems, networks, deploys, configures, steps;
	double vms;
};

/* The contextualization steps IM would run: the distinct step numbers of
 * the items, or one step when each system runs the configure of its name. */
static size_t count_steps(const struct radl_doc *doc)
{
	if (doc->ctxt.present) {
		double *seen = calloc(doc->ctxt.nitems + 1, sizeof(double));
		size_t n = 0;
		for (size_t i = 0; seen && i < doc->ctxt.nitems; i++) {
			double s = doc->ctxt.items[i].step.value;
			size_t k = 0;
			while (k < n && seen[k] != s)
				k++;
			if (k == n)
				seen[n++] = s;
		}
		free(seen);
		return n;
	}
	for (size_t i = 0; i < doc->nsystems; i++)
		if (radl_find_configure(doc, doc->systems[i].id))
			return 1;
	return 0;
}

static void summarise(const struct radl_doc *doc, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->systems = doc->nsystems;
	s->networks = doc->nnetworks;
	s->deploys = doc->ndeploys;
	s->configures = doc->nconfigures;
	for (size_t i = 0; i < doc->ndeploys; i++)
		s->vms += doc->deploys[i].count.value;
	s->steps = count_steps(doc);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int run(struct cmd_args *a)
{
	struct imc_ctx *ctx = a->ctx;
	bool json = ctx->json;
	int rc = IMC_EXIT_OK;

	if (a->noperands == 0)
		return cmd_usage_error(a->cmd, "missing FILE");
	json_t *files = json_array();
	struct strbuf out = STRBUF_INIT;
	for (int i = 0; i < a->noperands; i++) {
		const char *path = a->operands[i];
		struct diag d;
		diag_init(&d);
		struct radl_doc *doc = radl_load_file(path, &d);
		if (doc)
			radl_check(doc, &d);
		if (!doc || diag_has_errors(&d)) {
			int r = cmd_report(ctx, &d);
			if (rc == IMC_EXIT_OK)
				rc = r;
		} else {
			struct summary s;
			summarise(doc, &s);
			strbuf_addf(&out, "%s: valid: %zu %s, %zu %s, %zu %s (%.0f %s), %zu %s\n", path,
				    s.systems, plural(s.systems, "system", "systems"),
				    s.networks, plural(s.networks, "network", "networks"),
				    s.deploys, plural(s.deploys, "deploy", "deploys"),
				    floor(s.vms), plural((size_t)s.vms, "VM", "VMs"),
				    s.steps, plural(s.steps, "step", "steps"));
			json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:I}", "file", path,
					      "systems", (json_int_t)s.systems,
					      "networks", (json_int_t)s.networks,
					      "deploys", (json_int_t)s.deploys,
					      "configures", (json_int_t)s.configures,
					      "vms", s.vms, "steps", (json_int_t)s.steps);
			json_array_append_new(files, o);
			cmd_report(ctx, &d); /* warnings */
		}
		radl_doc_free(doc);
		diag_release(&d);
	}
	/* stdout stays empty when something is invalid in --json mode, so a
	 * consumer never reads a partial answer as a complete one */
	if (json && rc == IMC_EXIT_OK) {
		json_t *doc = json_pack("{s:i, s:O}", "format", IMC_JSON_FORMAT, "files", files);
		char *s = json_dumps(doc, JSON_INDENT(2));
		if (s)
			puts(s);
		free(s);
		json_decref(doc);
	} else if (!json) {
		fwrite(strbuf_str(&out), 1, out.len, stdout);
	}
	json_decref(files);
	strbuf_release(&out);
	return rc;
}

const struct imc_cmd cmd_validate_entry = {
	.name = "validate", .synopsis = "FILE...", .summary = "check RADL files and summarise them",
	.help = "Each FILE is RADL or RADL-JSON (chosen by content). Prints one line per\n"
		"valid file; errors go to stderr as FILE:LINE:COL: error: MESSAGE.\n"
		"Exit status: 0 all valid, 65 some file is invalid, 66 some file is missing.\n",
	.flags = CMD_ANY_OPERANDS, .run = run,
};
