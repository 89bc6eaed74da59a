/* test-auth.c: unit tests of the auth file reader (src/cloud/auth.c): IM's
 * line format with its quoting and escapes, the JSON form, errors by line,
 * and the registration of every secret value. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloud/auth.h"
#include "util/diag.h"
#include "util/log.h"
#include "util/xalloc.h"

static struct auth_file *parse(const char *text, struct diag *d)
{
	return auth_file_parse("auth.dat", text, strlen(text), d);
}

static void test_im_lines(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct auth_file *af = parse(
		"# a comment\n"
		"\n"
		"id = one; type = OpenNebula; host = server:2633; username = user; password = pass\n"
		"  type=InfrastructureManager;username=u;password=p;\n"
		"id = ec2; type = EC2; username = AKIDEXAMPLE; password = 'sec;ret=key'\r\n"
		"id = k; type = OpenStack; password = \"it's\"; private_key = 'a\\nb'; token = abc==\n", &d);
	assert_non_null(af);
	assert_false(diag_has_errors(&d));
	assert_int_equal(af->n, 4);
	assert_int_equal(af->creds[0].line, 3);
	assert_string_equal(auth_get(&af->creds[0], "host"), "server:2633");
	assert_string_equal(auth_get(&af->creds[1], "type"), "InfrastructureManager");
	assert_int_equal(af->creds[1].n, 3); /* trailing ';' is no item */
	assert_string_equal(auth_get(&af->creds[2], "password"), "sec;ret=key");
	assert_string_equal(auth_get(&af->creds[3], "password"), "it's");
	assert_string_equal(auth_get(&af->creds[3], "private_key"), "a\nb");
	/* unlike IM, an unquoted '=' in a value is kept */
	assert_string_equal(auth_get(&af->creds[3], "token"), "abc==");
	assert_ptr_equal(auth_find(af, "ec2", NULL), &af->creds[2]);
	assert_ptr_equal(auth_find(af, NULL, "openstack"), &af->creds[3]);
	assert_null(auth_find(af, "nope", NULL));
	assert_null(auth_get(&af->creds[0], "token"));
	auth_file_free(af);
	diag_release(&d);
}

static void test_secrets_registered(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	struct auth_file *af = parse("id = a; type = EC2; username = AKIAPLANTED1; password = Secr3tPlanted; "
				     "public_key = ssh-ed25519-not-secret\n", &d);
	assert_non_null(af);
	char *r = redact("key AKIAPLANTED1 secret Secr3tPlanted pub ssh-ed25519-not-secret");
	assert_null(strstr(r, "Secr3tPlanted"));
	assert_null(strstr(r, "AKIAPLANTED1")); /* EC2's username is the access key */
	assert_non_null(strstr(r, "ssh-ed25519-not-secret"));
	free(r);
	auth_file_free(af);
	/* which usernames are secret is the line's cloud's to say: LibCloud's
	 * (case-insensitive type) is the access key, OpenNebula's a login */
	af = parse("type = libCloud; username = LibcloudKeyId7\n"
		   "type = OpenNebula; username = plainlogin8; password = OneSecret8\n", &d);
	assert_non_null(af);
	r = redact("LibcloudKeyId7 plainlogin8 OneSecret8");
	assert_null(strstr(r, "LibcloudKeyId7"));
	assert_non_null(strstr(r, "plainlogin8"));
	assert_null(strstr(r, "OneSecret8"));
	free(r);
	auth_file_free(af);
	/* a line with an error still registers what it read */
	af = parse("id = b; type = dummy; password = BadLineSecret9; token = 'open\n", &d);
	assert_null(af);
	r = redact("BadLineSecret9");
	assert_null(strstr(r, "BadLineSecret9"));
	free(r);
	diag_release(&d);
}

static void test_errors_name_the_line(void **state)
{
	(void)state;
	static const struct { const char *text; int line; const char *msg; } cases[] = {
		{ "type = dummy\nid = x; type = EC2; password = 'open\n", 2, "unterminated single quote" },
		{ "type = dummy\n\n\nid = x; type = dummy; garbage\n", 4, "has no '='" },
		{ "id = 1abc; type = dummy\n", 1, "incorrect value in auth item id" },
		{ "username = u\n", 1, "no 'type'" },
		{ "type = dummy; = v\n", 1, "empty key" },
		{ "type = dummy; type = EC2\n", 1, "given twice" },
		{ "[\n{\"type\": \"dummy\"},\n{\"type\": }\n]", 3, "invalid JSON" },
		{ "[{\"type\": \"dummy\"}, 3]", 2, "not an object" },
		{ "[{\"type\": \"dummy\", \"x\": [1]}]", 1, "must be a string" },
		{ "{\"type\": \"dummy\"}", 1, "must be a list" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct diag d = DIAG_INIT;
		struct auth_file *af = parse(cases[i].text, &d);
		assert_null(af);
		assert_true(diag_has_errors(&d));
		assert_int_equal(d.code, IMC_EXIT_DATAERR);
		assert_int_equal(d.items[0].line, cases[i].line);
		if (!strstr(d.items[0].msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, d.items[0].msg, cases[i].msg);
		diag_release(&d);
	}
}

static void test_json_and_file(void **state)
{
	(void)state;
	char path[] = "/tmp/imc-test-auth-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "-----PEM-----\nZm9v\n", 19), 19);
	close(fd);
	char *text = xasprintf("[{\"id\": \"j\", \"type\": \"OpenStack\", \"port\": 5000, \"verify\": true},\n"
			       " {\"type\": \"dummy\"}]");
	struct diag d = DIAG_INIT;
	struct auth_file *af = parse(text, &d);
	assert_non_null(af);
	assert_int_equal(af->n, 2);
	assert_string_equal(auth_get(&af->creds[0], "port"), "5000");
	assert_string_equal(auth_get(&af->creds[0], "verify"), "true");
	assert_int_equal(af->creds[1].line, 2);
	auth_file_free(af);
	free(text);
	text = xasprintf("id = g; type = GCE; password = file(%s)\n", path);
	af = parse(text, &d);
	assert_non_null(af);
	assert_string_equal(auth_get(&af->creds[0], "password"), "-----PEM-----\nZm9v\n");
	auth_file_free(af);
	free(text);
	unlink(path);
	text = xasprintf("id = g; type = GCE; password = file(%s)\n", path);
	af = parse(text, &d);
	assert_null(af);
	assert_int_equal(d.items[0].line, 1);
	assert_non_null(strstr(d.items[0].msg, "cannot read"));
	free(text);
	diag_release(&d);
	/* auth_file_load of a missing file: 66 */
	af = auth_file_load("/nonexistent/auth.dat", &d);
	assert_null(af);
	assert_int_equal(d.code, IMC_EXIT_NOINPUT);
	diag_release(&d);
	auth_file_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_im_lines),
		cmocka_unit_test(test_secrets_registered),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_json_and_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
