/* test-radl.c: unit tests of the RADL parser API (src/parser/radl.h): what
 * the plan and the commands read from the AST, including what RADL-JSON
 * drops (an upper bound next to a different lower bound), positions in
 * diagnostics, building and changing aspects, JSON and text round trips. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parser/radl.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/strbuf.h"

static struct radl_doc *parse_ok(const char *text)
{
	struct diag d;
	diag_init(&d);
	struct radl_doc *doc = radl_parse("t.radl", text, strlen(text), &d);
	if (!doc || radl_check(doc, &d) < 0) {
		diag_print(&d, stderr);
		fail_msg("'%s' should be valid", text);
	}
	diag_release(&d);
	return doc;
}

static const char cluster[] =
	"network privada ()\n"
	"network publica ( outbound = 'yes' and outports = '22,8080-80' )\n"
	"system front (\n"
	"  cpu.count >= 2 and cpu.count <= 8 and\n"
	"  memory.size >= 1g and memory.size <= 4g and\n"
	"  instance_type = 't2.small' and\n"
	"  net_interface.0.connection = 'publica' and net_interface.0.dns_name = 'front' and\n"
	"  net_interface.1.connection = 'privada' and\n"
	"  disk.0.image.url = 'local://debian' and\n"
	"  disk.0.os.credentials.username = 'ubuntu' and\n"
	"  disk.0.applications contains (name = 'ansible.roles.a' and version = '1.0') and\n"
	"  disk.0.applications contains (name = 'b') and\n"
	"  soft 10 ( cpu.count >= 4 )\n"
	")\n"
	"system wn ( memory.size = 512m and net_interface.0.connection = 'privada' )\n"
	"configure front (\n"
	"@begin\n"
	"- tasks:\n"
	"  - debug: msg=hi\n"
	"@end\n"
	")\n"
	"configure wn ()\n"
	"deploy front 1 one\n"
	"deploy wn 3\n"
	"deploy wn 2\n"
	"contextualize 600 (\n"
	"  option ansible_version = '2.9'\n"
	"  system front configure front step 1\n"
	"  system wn configure wn step 2\n"
	")\n";

/* The reference's JSON keeps only memory.size_min when the bounds differ:
 * the AST keeps both, and the getters answer from it. */
static void test_upper_bound_kept(void **state)
{
	(void)state;
	struct radl_doc *doc = parse_ok(cluster);
	const struct radl_aspect *front = radl_find_system(doc, "front");
	assert_non_null(front);
	double v;
	assert_int_equal(radl_get_number_min(&front->body, "memory.size", &v), 0);
	assert_true(v == 1e9);
	assert_int_equal(radl_get_number_max(&front->body, "memory.size", &v), 0);
	assert_true(v == 4e9);
	assert_int_equal(radl_get_number(&front->body, "memory.size", &v), -1);

	/* every constraint, in order, with comparator and location */
	const struct radl_feature *f = radl_next_feature(&front->body, "memory.size", NULL);
	assert_non_null(f);
	assert_int_equal(f->cmp, RADL_GE);
	assert_int_equal(f->loc.line, 5);
	assert_int_equal(f->loc.col, 3);
	f = radl_next_feature(&front->body, "memory.size", f);
	assert_non_null(f);
	assert_int_equal(f->cmp, RADL_LE);
	assert_int_equal(f->kind, RADL_V_NUMBER);
	assert_string_equal(f->num.unit, "g");
	assert_true(f->num.written == 4 && f->num.value == 4e9 && f->num.is_int);
	assert_null(radl_next_feature(&front->body, "memory.size", f));

	/* and RADL-JSON drops it, as IM does */
	json_t *j = radl_doc_to_json(doc);
	json_t *sys = json_array_get(j, 2);
	assert_string_equal(json_string_value(json_object_get(sys, "id")), "front");
	assert_int_equal(json_integer_value(json_object_get(sys, "memory.size_min")), 1000000000);
	assert_null(json_object_get(sys, "memory.size_max"));
	json_decref(j);
	radl_doc_free(doc);
}

static void test_getters(void **state)
{
	(void)state;
	struct radl_doc *doc = parse_ok(cluster);
	const struct radl_aspect *front = radl_find_system(doc, "front");
	const struct radl_aspect *wn = radl_find_system(doc, "wn");
	double v;
	assert_string_equal(radl_get_string(&front->body, "disk.0.image.url"), "local://debian");
	assert_string_equal(radl_aspect_string(front, "net_interface.0.connection"), "publica");
	assert_string_equal(radl_get_string(&front->body, "instance_type"), "t2.small");
	assert_null(radl_get_string(&front->body, "nothing"));
	assert_int_equal(radl_get_number(&wn->body, "memory.size", &v), 0);
	assert_true(v == 512e6);

	const struct radl_body *apps[4];
	assert_int_equal(radl_get_contains(&front->body, "disk.0.applications", apps, 4), 2);
	assert_string_equal(radl_get_string(apps[0], "name"), "ansible.roles.a");
	assert_string_equal(radl_get_string(apps[0], "version"), "1.0");
	assert_string_equal(radl_get_string(apps[1], "name"), "b");

	assert_int_equal(front->body.nsoft, 1);
	assert_true(front->body.soft[0].weight.value == 10);
	assert_int_equal(radl_get_number_min(front->body.soft[0].body, "cpu.count", &v), 0);
	assert_true(v == 4);

	assert_non_null(radl_find_network(doc, "publica"));
	assert_null(radl_find_network(doc, "front"));
	const struct radl_configure *c = radl_find_configure(doc, "front");
	assert_non_null(c);
	assert_string_equal(c->recipe, "\n- tasks:\n  - debug: msg=hi\n");
	assert_int_equal(c->recipe_line, 17);
	c = radl_find_configure(doc, "wn");
	assert_null(c->recipe);
	assert_false(c->reference);

	assert_int_equal(radl_deploy_count(doc, "wn"), 5);
	assert_int_equal(radl_deploy_count(doc, "front"), 1);
	assert_string_equal(doc->deploys[0].cloud, "one");

	assert_true(doc->ctxt.present);
	assert_true(doc->ctxt.max_time.value == 600);
	assert_int_equal(doc->ctxt.nitems, 2);
	const struct radl_ctxt_item *it = radl_find_ctxt_item(doc, "wn", "wn");
	assert_non_null(it);
	assert_true(it->has_step && it->step.value == 2);
	assert_int_equal(it->loc.line, 29);
	assert_string_equal(radl_get_string(&doc->ctxt.options, "ansible_version"), "2.9");
	radl_doc_free(doc);
}

static void test_change_and_clone(void **state)
{
	(void)state;
	struct radl_doc *doc = parse_ok(cluster);
	struct radl_aspect *copy = radl_aspect_clone(radl_find_system(doc, "front"));
	radl_set_string(&copy->body, "net_interface.0.ip", "10.0.0.5");
	radl_set_number(&copy->body, "memory.size", 2e9, true);
	radl_unset(&copy->body, "instance_type");
	double v;
	assert_int_equal(radl_get_number(&copy->body, "memory.size", &v), 0);
	assert_true(v == 2e9);
	assert_string_equal(radl_get_string(&copy->body, "net_interface.0.ip"), "10.0.0.5");
	assert_null(radl_get_string(&copy->body, "instance_type"));
	/* the original is untouched */
	assert_string_equal(radl_get_string(&radl_find_system(doc, "front")->body, "instance_type"),
			    "t2.small");
	struct strbuf sb = STRBUF_INIT;
	radl_print_aspect(&sb, copy);
	assert_non_null(strstr(strbuf_str(&sb), "net_interface.0.ip = '10.0.0.5'"));
	assert_non_null(strstr(strbuf_str(&sb), "memory.size = 2000000000"));
	strbuf_release(&sb);
	radl_aspect_free(copy);
	radl_aspect_free(NULL);
	radl_doc_free(doc);
	radl_doc_free(NULL);
}

static void test_errors_carry_positions(void **state)
{
	(void)state;
	static const char bad[] =
		"system s (\r\n"
		"  cpu.count >= 1 ;\r\n"
		"  and memory.size >= 1g\r\n"
		"\r\n"
		"deploy s 1\r\n"
		"system t ( x => 1 )\r\n";
	struct diag d;
	diag_init(&d);
	assert_null(radl_parse("bad.radl", bad, strlen(bad), &d));
	assert_true(diag_has_errors(&d));
	assert_int_equal(d.code, IMC_EXIT_DATAERR);
	/* the stray ';', the unclosed '(' (with a note) and the bad comparator */
	assert_string_equal(d.items[0].file, "bad.radl");
	assert_int_equal(d.items[0].line, 2);
	assert_int_equal(d.items[0].col, 18);
	int saw_deploy = 0, saw_note = 0, saw_arrow = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (d.items[i].level == DIAG_ERROR && d.items[i].line == 5)
			saw_deploy = 1;
		if (d.items[i].level == DIAG_NOTE && d.items[i].line == 1 && d.items[i].col == 10)
			saw_note = 1;
		if (d.items[i].level == DIAG_ERROR && d.items[i].line == 6 && d.items[i].col == 15)
			saw_arrow = 1;
	}
	assert_true(saw_deploy && saw_note && saw_arrow);
	diag_release(&d);
}

static void test_check_errors(void **state)
{
	(void)state;
	static const char text[] =
		"system s (\n"
		"  memory.size >= 1.5g and\n"
		"  disk.0.os.name = 'solaris' and\n"
		"  net_interface.0.connection = 'nowhere'\n"
		")\n"
		"configure s (\n"
		"@begin\n"
		"- hosts: [all\n"
		"@end\n"
		")\n"
		"deploy ghost 1\n";
	struct diag d;
	diag_init(&d);
	struct radl_doc *doc = radl_parse("c.radl", text, strlen(text), &d);
	assert_non_null(doc);
	assert_int_equal(radl_check(doc, &d), -1);
	int lines[16] = { 0 };
	for (size_t i = 0; i < d.n && i < 16; i++)
		lines[i] = d.items[i].line;
	/* memory float, os.name, connection, yaml (error at configure + note at
	 * the YAML line), deploy */
	assert_int_equal(lines[0], 2);
	assert_int_equal(lines[1], 3);
	assert_int_equal(lines[2], 4);
	assert_int_equal(lines[3], 11);
	assert_int_equal(lines[4], 6);
	assert_int_equal(d.items[5].level, DIAG_NOTE);
	assert_int_equal(lines[5], 9);
	diag_release(&d);
	radl_doc_free(doc);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	struct radl_doc *doc = parse_ok(cluster);
	json_t *j1 = radl_doc_to_json(doc);
	struct diag d;
	diag_init(&d);
	struct radl_doc *back = radl_doc_from_json("j", j1, &d);
	assert_non_null(back);
	assert_int_equal(radl_check(back, &d), 0);
	struct strbuf sb = STRBUF_INIT;
	radl_print_doc(&sb, back);
	struct radl_doc *again = radl_parse("r", strbuf_str(&sb), sb.len, &d);
	assert_non_null(again);
	json_t *j2 = radl_doc_to_json(again);
	assert_true(json_equal(j1, j2));
	json_decref(j1);
	json_decref(j2);
	strbuf_release(&sb);
	radl_doc_free(doc);
	radl_doc_free(back);
	radl_doc_free(again);
	diag_release(&d);
}

static void test_empty_and_blank(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	struct radl_doc *doc = radl_parse("e", " \n\t\r\n", 5, &d);
	assert_non_null(doc);
	assert_int_equal(doc->nsystems, 0);
	assert_false(doc->ctxt.present);
	radl_doc_free(doc);
	assert_null(radl_parse("c", "# only a comment\n", 17, &d));
	diag_release(&d);
}

static void test_credentials_are_secrets(void **state)
{
	(void)state;
	int before = secret_count();
	struct radl_doc *doc = parse_ok(
		"system s ( disk.0.os.credentials.password = 'S3cret-pass' and "
		"disk.0.os.credentials.username = 'root' )\n");
	assert_true(secret_count() > before);
	char *r = redact("pw S3cret-pass");
	assert_string_equal(r, "pw ***");
	free(r);
	radl_doc_free(doc);
}


static void test_json_reader_errors(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"{\"class\": \"system\", \"id\": \"a b\"}",           /* not a name */
		"[{\"class\": \"system\", \"id\": \"s\", \"x y\": 1}]", /* feature name */
		"[{\"class\": \"system\"}]",                             /* no id */
		"[{\"class\": \"planet\", \"id\": \"p\"}]",             /* unknown class */
		"[{\"class\": \"deploy\", \"system\": \"s\"}]",          /* no vm_number */
		"[{\"class\": \"system\", \"id\": \"s\", \"x\": true}]", /* no RADL form */
		"[{\"class\": \"system\", \"id\": \"s\", \"x\": [1]}]",  /* list of numbers */
		"[{\"class\": \"system\", \"id\": \"s\"}, {\"class\": \"system\", \"id\": \"s\"}]",
		"[1, 2",                                                   /* syntax */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag d;
		diag_init(&d);
		struct radl_doc *doc = radl_parse_json("b.json", bad[i], strlen(bad[i]), &d);
		if (doc)
			fail_msg("'%s' should be rejected", bad[i]);
		assert_true(diag_has_errors(&d));
		assert_int_equal(d.code, IMC_EXIT_DATAERR);
		diag_release(&d);
	}
	/* a single object is one sentence; _min/_max become bounds */
	static const char one[] = "{\"class\": \"system\", \"id\": \"s\", \"cpu.count_min\": 2, \"memory.size_max\": 1073741824}";
	struct diag d;
	diag_init(&d);
	struct radl_doc *doc = radl_parse_json("o.json", one, strlen(one), &d);
	assert_non_null(doc);
	const struct radl_feature *f = radl_get_feature(&doc->systems[0].body, "cpu.count");
	assert_non_null(f);
	assert_int_equal(f->cmp, RADL_GE);
	double v;
	assert_int_equal(radl_get_number_max(&doc->systems[0].body, "memory.size", &v), 0);
	assert_true(v == 1073741824.0);
	radl_doc_free(doc);
	diag_release(&d);
}

static void test_number_forms(void **state)
{
	(void)state;
	struct radl_doc *doc = parse_ok(
		"system s ( a = 1e3 and b = 2.x and c = 007 and d = 1.5g and e = 3 KiB and "
		"f = 12345678901234567890 and g = 0.1 )\n");
	const struct radl_body *b = &doc->systems[0].body;
	double v;
	assert_int_equal(radl_get_number(b, "a", &v), 0);
	assert_true(v == 1);
	assert_string_equal(radl_get_feature(b, "a")->num.unit, "e3");
	assert_int_equal(radl_get_number(b, "b", &v), 0);
	assert_true(v == 2 && !radl_get_feature(b, "b")->num.is_int);
	assert_int_equal(radl_get_number(b, "c", &v), 0);
	assert_true(v == 7);
	assert_int_equal(radl_get_number(b, "d", &v), 0);
	assert_true(v == 1.5e9);
	assert_int_equal(radl_get_number(b, "e", &v), 0);
	assert_true(v == 3072);
	assert_int_equal(radl_get_number(b, "f", &v), 0);
	assert_true(v == 12345678901234567890.0);
	assert_int_equal(radl_get_number(b, "g", &v), 0);
	assert_true(v == 0.1);
	/* printed text reads back to the same numbers */
	struct strbuf sb = STRBUF_INIT;
	radl_print_doc(&sb, doc);
	struct diag d;
	diag_init(&d);
	struct radl_doc *again = radl_parse("p", strbuf_str(&sb), sb.len, &d);
	assert_non_null(again);
	json_t *j1 = radl_doc_to_json(doc), *j2 = radl_doc_to_json(again);
	assert_true(json_equal(j1, j2));
	json_decref(j1);
	json_decref(j2);
	strbuf_release(&sb);
	radl_doc_free(again);
	radl_doc_free(doc);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upper_bound_kept),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_change_and_clone),
		cmocka_unit_test(test_errors_carry_positions),
		cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_empty_and_blank),
		cmocka_unit_test(test_credentials_are_secrets),
		cmocka_unit_test(test_json_reader_errors),
		cmocka_unit_test(test_number_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
