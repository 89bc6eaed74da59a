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

int cmd_radl(struct imc_ctx *ctx, int argc, char **argv)
{
	enum fmt out = FMT_AUTO, from = FMT_AUTO, was = FMT_RADL;
	const char *file = NULL;
	bool no_check = false;

	if (cmd_help_requested(argc, argv)) {
		fputs("\nOptions:\n"
		      "  --json           print RADL-JSON (the default for RADL input)\n"
		      "  --radl           print RADL text (the default for JSON input)\n"
		      "  --from radl|json read the input as this format (default: by content)\n"
		      "  --no-check       skip the semantic checks (syntax only)\n"
		      "FILE may be '-' for standard input.\n", stdout);
		return IMC_EXIT_OK;
	}
	if (ctx->json)
		out = FMT_JSON;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0) {
			out = FMT_JSON;
		} else if (strcmp(a, "--radl") == 0) {
			out = FMT_RADL;
		} else if (strcmp(a, "--no-check") == 0) {
			no_check = true;
		} else if (strcmp(a, "--from") == 0 || strncmp(a, "--from=", 7) == 0) {
			const char *v = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
			if (v && strcmp(v, "radl") == 0)
				from = FMT_RADL;
			else if (v && strcmp(v, "json") == 0)
				from = FMT_JSON;
			else
				return cmd_usage_error("radl", "--from takes 'radl' or 'json'");
		} else if (strcmp(a, "--") == 0 && i + 1 < argc && !file) {
			file = argv[++i];
		} else if (a[0] == '-' && a[1] != '\0') {
			return cmd_usage_error("radl", "unknown option '%s'", a);
		} else if (!file) {
			file = a;
		} else {
			return cmd_usage_error("radl", "only one FILE can be converted at a time");
		}
	}
	if (!file)
		return cmd_usage_error("radl", "missing FILE");

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
