/* cmd-radl.c: 'imc radl', converting RADL to RADL-JSON and back.
 *
 * The input is RADL text or RADL-JSON, chosen by its content (or --from);
 * it is parsed and checked like 'imc validate' does, then printed as
 * RADL-JSON (--json, the default for RADL input: the bare array IM's
 * radl_json.dump() gives, so other tools can consume it) or as RADL text
 * (--radl, the default for JSON input). Nothing goes to stdout when the
 * input is invalid. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "parser/radl.h"
#include "util/strbuf.h"
#include "util/banned.h"

enum fmt { FMT_AUTO, FMT_RADL, FMT_JSON };

static struct radl_doc *load(const char *path, enum fmt from, struct diag *d, enum fmt *was)
{
	struct strbuf sb = STRBUF_INIT;
	if (strcmp(path, "-") == 0) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
			strbuf_add(&sb, buf, n);
		path = "<stdin>";
	} else if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return radl_load_file(path, d); /* records why it cannot be read */
	}
	if (from == FMT_AUTO) {
		const char *s = strbuf_str(&sb);
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		from = (*s == '[' || *s == '{') ? FMT_JSON : FMT_RADL;
	}
	*was = from;
	struct radl_doc *doc = from == FMT_JSON ? radl_parse_json(path, strbuf_str(&sb), sb.len, d)
						: radl_parse(path, strbuf_str(&sb), sb.len, d);
	strbuf_release(&sb);
	return doc;
}

enum { OPT_JSON, OPT_RADL, OPT_FROM, OPT_NO_CHECK };

static const struct cmd_option options[] = {
	[OPT_JSON] = { "json", 0, CMD_OPT_FLAG, NULL,
		       "print RADL-JSON (the default for RADL input)" },
	[OPT_RADL] = { "radl", 0, CMD_OPT_FLAG, NULL,
		       "print RADL text (the default for JSON input)" },
	[OPT_FROM] = { "from", 0, CMD_OPT_VALUE, "radl|json",
		       "read the input as this format (default: by content)" },
	[OPT_NO_CHECK] = { "no-check", 0, CMD_OPT_FLAG, NULL,
			   "skip the semantic checks (syntax only)" },
	{ 0 },
};

static int run(struct cmd_args *a)
{
	struct imc_ctx *ctx = a->ctx;
	enum fmt out = FMT_AUTO, from = FMT_AUTO, was = FMT_RADL;
	const char *v = a->opt[OPT_FROM].val;
	bool no_check = a->opt[OPT_NO_CHECK].set;

	/* --json and --radl: the last one given wins */
	if (ctx->json)
		out = FMT_JSON;
	if (a->opt[OPT_JSON].set || a->opt[OPT_RADL].set)
		out = a->opt[OPT_JSON].where > a->opt[OPT_RADL].where ? FMT_JSON : FMT_RADL;
	if (v && strcmp(v, "radl") == 0)
		from = FMT_RADL;
	else if (v && strcmp(v, "json") == 0)
		from = FMT_JSON;
	else if (v)
		return cmd_usage_error(a->cmd, "--from takes 'radl' or 'json'");
	if (a->noperands > 1)
		return cmd_usage_error(a->cmd, "only one FILE can be converted at a time");
	if (a->noperands == 0)
		return cmd_usage_error(a->cmd, "missing FILE");
	const char *file = a->operands[0];

	struct diag d;
	diag_init(&d);
	struct radl_doc *doc = load(file, from, &d, &was);
	if (doc && !no_check)
		radl_check(doc, &d);
	if (!doc || diag_has_errors(&d)) {
		int rc = cmd_report(ctx, &d);
		radl_doc_free(doc);
		diag_release(&d);
		return rc;
	}
	if (out == FMT_AUTO)
		out = was == FMT_JSON ? FMT_RADL : FMT_JSON;
	if (out == FMT_JSON) {
		json_t *j = radl_doc_to_json(doc);
		/* 15 digits: what people write reads back exactly, without the
		 * noise of 17 (0.1 stays 0.1) */
		char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
		}
		free(s);
		json_decref(j);
	} else {
		struct strbuf sb = STRBUF_INIT;
		radl_print_doc(&sb, doc);
		fwrite(strbuf_str(&sb), 1, sb.len, stdout);
		strbuf_release(&sb);
	}
	int rc = cmd_report(ctx, &d); /* warnings, if any */
	radl_doc_free(doc);
	diag_release(&d);
	return rc;
}

const struct imc_cmd cmd_radl_entry = {
	.name = "radl", .synopsis = "[--json|--radl] [--from radl|json] [--no-check] FILE",
	.summary = "convert RADL to RADL-JSON and back",
	.help = "FILE may be '-' for standard input.\n",
	.options = options, .flags = CMD_ANY_OPERANDS, .run = run,
};
