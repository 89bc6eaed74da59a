/* fuzz-radl.c: libFuzzer harness for the RADL parser (jq's
 * tests/jq_fuzz_parse.c, tmux's fuzz/cmd-parse-fuzzer.c). Any input must be
 * parsed or rejected with diagnostics, never crash; and a document that is
 * accepted must print as RADL-JSON and as RADL text that both read back to
 * the same RADL-JSON (the round trip 'imc radl' promises). Built as a
 * libFuzzer program with --enable-fuzzing (CC=clang), and as a plain replay
 * program (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "parser/radl.h"
#include "util/diag.h"
#include "util/strbuf.h"

#include "fuzz-diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct radl_doc *doc)
{
	struct diag d;
	diag_init(&d);
	json_t *j1 = radl_doc_to_json(doc);

	/* JSON -> document -> JSON */
	struct radl_doc *back = radl_doc_from_json("j", j1, &d);
	if (!back) {
		diag_print(&d, stderr);
		abort();
	}
	json_t *j2 = radl_doc_to_json(back);
	if (!json_equal(j1, j2))
		abort();

	/* RADL text -> document -> JSON */
	struct strbuf sb = STRBUF_INIT;
	radl_print_doc(&sb, doc);
	struct radl_doc *again = radl_parse("t", strbuf_str(&sb), sb.len, &d);
	if (!again) {
		fprintf(stderr, "printed text does not parse:\n%s\n", strbuf_str(&sb));
		diag_print(&d, stderr);
		abort();
	}
	json_t *j3 = radl_doc_to_json(again);
	if (!json_equal(j1, j3)) {
		char *a = json_dumps(j1, JSON_SORT_KEYS), *b = json_dumps(j3, JSON_SORT_KEYS);
		fprintf(stderr, "text round trip differs:\n%s\n%s\n%s\n", a, b, strbuf_str(&sb));
		abort();
	}
	json_decref(j1);
	json_decref(j2);
	json_decref(j3);
	strbuf_release(&sb);
	radl_doc_free(back);
	radl_doc_free(again);
	diag_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	radl_secrets_off();
	diag_init(&d);
	struct radl_doc *doc = radl_parse("fuzz.radl", (const char *)data, size, &d);
	if (doc) {
		/* random(N) makes text differ between runs; skip the round trip */
		bool random = memmem(data, size, "random(", 7) != NULL;
		radl_check(doc, &d);
		if (!random)
			round_trip(doc);
	}
	/* printing exercises the excerpt and caret code on every input */
	fuzz_print_diag(&d);
	char *js = diag_to_json(&d);
	free(js);
	radl_doc_free(doc);
	diag_release(&d);

	/* the JSON reader too */
	diag_init(&d);
	doc = radl_parse_json("fuzz.json", (const char *)data, size, &d);
	if (doc) {
		radl_check(doc, &d);
		json_t *j = radl_doc_to_json(doc);
		/* accepted RADL-JSON must be writable as RADL text that reads
		 * back to the same RADL-JSON */
		struct strbuf sb = STRBUF_INIT;
		struct diag d2;
		diag_init(&d2);
		radl_print_doc(&sb, doc);
		struct radl_doc *again = radl_parse("t", strbuf_str(&sb), sb.len, &d2);
		if (!again) {
			fprintf(stderr, "text from JSON does not parse:\n%s\n", strbuf_str(&sb));
			diag_print(&d2, stderr);
			abort();
		}
		json_t *j2 = radl_doc_to_json(again);
		if (!json_equal(j, j2)) {
			char *a = json_dumps(j, JSON_SORT_KEYS), *b = json_dumps(j2, JSON_SORT_KEYS);
			fprintf(stderr, "JSON -> text -> JSON differs:\n%s\n%s\n%s\n", a, b,
				strbuf_str(&sb));
			abort();
		}
		json_decref(j2);
		radl_doc_free(again);
		diag_release(&d2);
		strbuf_release(&sb);
		json_decref(j);
	}
	radl_doc_free(doc);
	diag_release(&d);
	return 0;
}
