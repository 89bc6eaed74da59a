/* test-template-syntax.c: unit tests of the Jinja environment settings a
 * rendering can change: a template's "#jinja2:" first line, the template
 * module's block/variable/comment start and end strings, trim_blocks and
 * lstrip_blocks. Every expected text was recorded from ansible-playbook
 * 2.14.18 (the template module on the same file, vars x: X and
 * bar: "[% x %]{{ x }}<< x >>", read back with slurp). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "template/template.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* Renders text as the template module does with syn and the two block
 * options; returns the text or "ERR: message". */
static char *render(const char *text, const struct tmpl_syntax *syn, bool trim, bool lstrip)
{
	json_t *vars = json_pack("{s:s, s:s}", "x", "X", "bar", "[% x %]{{ x }}<< x >>");
	struct tmpl_env env = { .vars = vars, .syntax = syn, .no_trim_blocks = !trim, .lstrip_blocks = lstrip };
	struct diag d = DIAG_INIT;
	char *r = tmpl_render_string(&env, text, &d);
	if (!r)
		r = xasprintf("ERR: %s", diag_first_message(&d));
	diag_release(&d);
	json_decref(vars);
	return r;
}

#define assert_render(text, syn, trim, lstrip, expect) do { \
		char *got_ = render((text), (syn), (trim), (lstrip)); \
		if (strcmp(got_, (expect))) \
			fail_msg("%s: got [%s], expected [%s]", (text), got_, (expect)); \
		free(got_); \
	} while (0)

static void test_header(void **state)
{
	(void)state;
	/* delimiters of the text only: the variables it reads keep Jinja's */
	assert_render("#jinja2:variable_start_string:'<<' , variable_end_string:'>>'\n<< x >> {{ x }} << bar >>\n",
		      NULL, true, false, "X {{ x }} [% x %]X<< x >>\n");
	assert_render("#jinja2: variable_start_string:'[%', variable_end_string:'%]'\na=[% x %] b=[% bar %] c={{ x }}\n",
		      NULL, true, false, "a=X b=[% x %]X<< x >> c={{ x }}\n");
	assert_render("#jinja2: trim_blocks: False\n{% if true %}\nA\n{% endif %}\n", NULL, true, false, "\nA\n");
	assert_render("#jinja2: lstrip_blocks: True\n  {% if true %}\nA\n  {% endif %}\n", NULL, true, false, "A\n");
	assert_render("#jinja2: keep_trailing_newline: True\nx\n\n", NULL, true, false, "x\n\n");
	assert_render("#jinja2: newline_sequence:'\\r\\n'\na\nb\n\n", NULL, true, false, "a\r\nb\r\n\r\n");
	/* the line wins over the module's option */
	assert_render("#jinja2: trim_blocks:True\n{% if true %}\nA\n{% endif %}\n", NULL, false, false, "A\n");
	assert_render("#jinja2: line_statement_prefix:':'\n: if true\nfoo\n  : for i in [1,\n  2]\n{{ i }}\n: endfor\n: endif\n",
		      NULL, true, false, "foo\n1\n2\n");
	assert_render("#jinja2: line_comment_prefix:'##'\na ## c\n  ## d\nb{{ 1 }}## e\n", NULL, true, false, "a\n\nb1\n");
	assert_render("#jinja2: block_start_string:'<%', block_end_string:'%>', comment_start_string:'<#', "
		      "comment_end_string:'#>'\n<% for i in [1,2] %>{{ i }}<# c #>{# k #}<% endfor %>\n"
		      "<%- if true -%>\n  y  \n<%- endif %>\n<% raw %><% x %>{{ x }}<% endraw %>\n",
		      NULL, true, false, "1{# k #}2{# k #}y<% x %>{{ x }}\n");
}

static void test_header_errors(void **state)
{
	(void)state;
	char *s = render("#jinja2: lstrip_blocks=True\nx\n", NULL, true, false);
	assert_string_equal(s, "ERR: failed to parse jinja2 override 'lstrip_blocks=True'. Did you use something "
			       "different from colon as key-value separator?");
	free(s);
	/* what imc does not render is named, never ignored */
	s = render("#jinja2: autoescape: True\n{{ '<a>' }}\n", NULL, true, false);
	assert_non_null(strstr(s, "the jinja2 override 'autoescape' is not supported by imc"));
	free(s);
	s = render("#jinja2: variable_start_string:'{%'\nx\n", NULL, true, false);
	assert_non_null(strstr(s, "block, variable and comment start strings must be different."));
	free(s);
	s = render("#jinja2: newline_sequence:'\\t'\nx\n", NULL, true, false);
	assert_non_null(strstr(s, "newline_sequence set to unknown line ending string."));
	free(s);
}

static void test_module_options(void **state)
{
	(void)state;
	struct tmpl_syntax all = { .block_start = "<%", .block_end = "%>", .variable_start = "[[", .variable_end = "]]",
				   .comment_start = "<#", .comment_end = "#>" };
	assert_render("<% for i in [1,2] %>[[ i ]]{{ i }}<# c #>{# k #}<% endfor %>\n[[ bar ]] [[ x ]]\n"
		      "<%+ if true %>\nT\n<% endif %>\n",
		      &all, true, false, "1{{ i }}{# k #}2{{ i }}{# k #}[% x %]{{ x }}<< x >> X\nT\n");
	/* the module's delimiters are the environment's: the variables the
	 * template reads are templated with them */
	struct tmpl_syntax sq = { .variable_start = "[%", .variable_end = "%]" };
	assert_render("a=[% x %] b=[% bar %] c={{ x }}\n", &sq, true, false, "a=X b=X{{ x }}<< x >> c={{ x }}\n");
	assert_render("  {% if true %}\nA\n  {% endif %}\n", NULL, false, true, "\nA\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_module_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
