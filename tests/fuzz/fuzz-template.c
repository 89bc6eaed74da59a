/* fuzz-template.c: libFuzzer harness for the templating engine's template
 * path (lexer, statement parser, renderer, filters): any input must render
 * or fail with exactly one recorded error and an error kind, never crash,
 * hang or leak. The input is rendered three ways — as a template file, as
 * task-argument text and with Ansible's result typing — over a fixed set of
 * variables that includes lazily templated ones. Built as a libFuzzer
 * program with --enable-fuzzing (CC=clang), and as a plain replay program
 * (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "template/template.h"
#include "util/diag.h"

#include "fuzz-lookups.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *vars;

static const char vars_json[] =
	"{\"i\": 7, \"f\": 1.5, \"s\": \"Hello World\", \"b\": true, \"n\": null,"
	" \"l\": [3, 1, 2], \"names\": [\"b\", \"a\", \"c\"], \"d\": {\"a\": 1, \"b\": [1, 2], \"c\": {\"x\": \"y\"}},"
	" \"groups\": {\"all\": [\"h1\", \"h2\"]}, \"hostvars\": {\"h1\": {\"ip\": \"10.0.0.1\"}},"
	" \"r\": {\"changed\": true, \"rc\": 0, \"stdout\": \"3\", \"failed\": false},"
	" \"t1\": \"{{ i + 1 }}\", \"t2\": [\"{{ s }}\", \"{{ t1 }}\"], \"loop1\": \"{{ loop2 }}\", \"loop2\": \"{{ loop1 }}\"}";

static void check(struct tmpl_env *env, struct diag *d, bool ok)
{
	if (ok) {
		if (diag_has_errors(d))
			abort();
	} else {
		if (!diag_has_errors(d) || env->err_kind == TMPL_ERR_NONE)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!vars) {
		vars = json_loads(vars_json, 0, NULL);
		if (!vars)
			abort();
	}
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	const char *sp[] = { "/nonexistent-imc-fuzz", NULL };

	struct tmpl_env env = { .vars = vars, .search_path = sp, .lookup = no_side_effects };
	struct diag d;
	diag_init(&d);
	char *r = tmpl_render_string(&env, text, &d);
	check(&env, &d, r != NULL);
	free(r);
	diag_release(&d);

	diag_init(&d);
	r = tmpl_render_text(&env, text, &d);
	check(&env, &d, r != NULL);
	free(r);
	diag_release(&d);

	diag_init(&d);
	json_t *v = tmpl_render_typed(&env, text, &d);
	check(&env, &d, v != NULL);
	if (v) {
		char *t = tmpl_to_text(v), *p = tmpl_repr(v);
		free(t);
		free(p);
	}
	json_decref(v);
	diag_release(&d);

	diag_init(&d);
	(void)tmpl_check(text, false, "fuzz", &d);
	diag_release(&d);
	free(text);
	return 0;
}
