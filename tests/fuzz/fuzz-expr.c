/* fuzz-expr.c: libFuzzer harness for the templating engine's expression path
 * (bare expressions as in `when:`, tmpl_eval, the static check and the
 * Python-literal reader behind Ansible's result typing): any input must be
 * evaluated or rejected with an error, never crash, hang or leak. Built as a
 * libFuzzer program with --enable-fuzzing (CC=clang), and as a plain replay
 * program (replay.c) without it. */
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
	"{\"i\": 7, \"f\": 1.5, \"s\": \"Hello World\", \"b\": true, \"n\": null, \"e\": \"\","
	" \"l\": [3, 1, 2], \"names\": [\"b\", \"a\", \"c\"], \"d\": {\"a\": 1, \"b\": [1, 2], \"c\": {\"x\": \"y\"}},"
	" \"objs\": [{\"name\": \"x\", \"n\": 3}, {\"name\": \"y\", \"n\": 1}],"
	" \"r\": {\"changed\": true, \"rc\": 0, \"stdout\": \"3\", \"failed\": false, \"skipped\": false},"
	" \"t1\": \"{{ i + 1 }}\", \"ver\": \"1.33.2\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!vars) {
		vars = json_loads(vars_json, 0, NULL);
		if (!vars)
			abort();
	}
	if (size > 2048)
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	const char *sp[] = { "/nonexistent-imc-fuzz", NULL };
	struct tmpl_env env = { .vars = vars, .search_path = sp, .lookup = no_side_effects };
	struct diag d;

	diag_init(&d);
	json_t *v = tmpl_eval(&env, text, &d);
	if ((v == NULL) != diag_has_errors(&d))
		abort();
	if (v) {
		char *t = tmpl_to_text(v);
		free(t);
	}
	json_decref(v);
	diag_release(&d);

	diag_init(&d);
	bool out;
	int rc = tmpl_eval_cond_str(&env, text, &out, &d);
	if ((rc < 0) != diag_has_errors(&d))
		abort();
	diag_release(&d);

	diag_init(&d);
	(void)tmpl_check(text, true, NULL, &d);
	diag_release(&d);

	json_t *lit = tmpl_literal_eval(text);
	if (lit) {
		char *t = tmpl_repr(lit);
		free(t);
	}
	json_decref(lit);
	free(text);
	return 0;
}
