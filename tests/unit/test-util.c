/* test-util.c: unit tests of src/util: strbuf, diagnostics and, above all,
 * the secret redaction layer that every log line goes through. */
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

#include "util/diag.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/path.h"
#include "util/pypath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void test_strbuf_grows_and_caps(void **state)
{
	(void)state;
	struct strbuf sb;
	strbuf_init(&sb, 10);
	strbuf_addstr(&sb, "hello ");
	strbuf_addf(&sb, "%s-%d", "world", 42);
	assert_int_equal(sb.len, 10);
	assert_true(sb.truncated);
	assert_string_equal(strbuf_str(&sb), "hello worl");
	strbuf_release(&sb);

	strbuf_init(&sb, 0);
	for (int i = 0; i < 1000; i++)
		strbuf_addch(&sb, 'x');
	assert_int_equal(sb.len, 1000);
	assert_false(sb.truncated);
	char *s = strbuf_detach(&sb);
	assert_int_equal(strlen(s), 1000);
	free(s);
}

static void test_strbuf_reads_an_empty_file_as_empty_string(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, "/dev/null"), 0);
	assert_int_equal(sb.len, 0);
	assert_non_null(sb.buf);
	assert_int_equal(sb.buf[0], '\0');
	strbuf_release(&sb);
}

static void test_redact_masks_registered_secrets(void **state)
{
	(void)state;
	secret_register("AKIDEXAMPLESECRET");
	secret_register("abc"); /* too short: ignored */
	char *r = redact("key=AKIDEXAMPLESECRET; again AKIDEXAMPLESECRET; abc");
	assert_string_equal(r, "key=***; again ***; abc");
	free(r);
}

static void test_redact_longest_match_and_pem_lines(void **state)
{
	(void)state;
	secret_register("pass");
	secret_register("password123");
	char *r = redact("x password123 y");
	assert_string_equal(r, "x *** y");
	free(r);
	secret_register("-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END KEY-----\n");
	r = redact("line: AAAAB3NzaC1yc2EAAAADAQABAAABAQ");
	assert_string_equal(r, "line: ***");
	free(r);
}

/* A scope releases what it registered, but not a secret registered
 * outside it too (imc serve: one scope per request). */
static void test_secret_scope_releases_its_own(void **state)
{
	(void)state;
	secret_register("outside-secret-1");
	int base = secret_count();
	secret_scope_begin();
	secret_register("scoped-secret-22");
	secret_register("outside-secret-1");
	secret_register("scoped-secret-22");
	assert_int_equal(secret_count(), base + 1);
	char *r = redact("x scoped-secret-22 outside-secret-1 y");
	assert_string_equal(r, "x *** *** y");
	free(r);
	secret_scope_end();
	assert_int_equal(secret_count(), base);
	r = redact("x scoped-secret-22 outside-secret-1 y");
	assert_string_equal(r, "x scoped-secret-22 *** y");
	free(r);
}

static void test_log_never_prints_a_secret(void **state)
{
	(void)state;
	secret_register("s3cr3t-token-value");
	char path[] = "/tmp/imc-test-log.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	log_set_level(LOG_DEBUG);
	log_error("test", "token is %s", "s3cr3t-token-value");
	struct diag d = DIAG_INIT;
	diag_error(&d, IMC_EXIT_DATAERR, NULL, "bad token '%s'", "s3cr3t-token-value");
	diag_print(&d, stderr);
	diag_release(&d);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	unlink(path);
	assert_null(strstr(sb.buf, "s3cr3t-token-value"));
	assert_non_null(strstr(sb.buf, "token is ***"));
	assert_non_null(strstr(sb.buf, "imc: error: bad token '***'"));
	strbuf_release(&sb);
}

static void test_diag_excerpt_and_caret(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	const char *src = "line one\n\tline two\nline three\n";
	diag_add_source(&d, "f.radl", src, strlen(src));
	struct src_loc loc = { "f.radl", 2, 3 };
	diag_error(&d, IMC_EXIT_DATAERR, &loc, "unexpected '%s'", "ine");
	assert_int_equal(d.code, IMC_EXIT_DATAERR);
	assert_true(diag_has_errors(&d));
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	diag_print(&d, fp);
	fclose(fp);
	assert_string_equal(buf, "f.radl:2:3: error: unexpected 'ine'\n  \tline two\n  \t ^\n");
	free(buf);
	diag_release(&d);
}

static void test_diag_long_line_is_cut(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	char src[5001];
	memset(src, 'a', 5000);
	src[5000] = '\0';
	src[3000] = 'X';
	diag_add_source(&d, "long.radl", src, 5000);
	struct src_loc loc = { "long.radl", 1, 3001 };
	diag_error(&d, IMC_EXIT_DATAERR, &loc, "bad");
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	diag_print(&d, fp);
	fclose(fp);
	assert_true(len < 500);
	/* the caret sits under the X */
	char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	assert_int_equal(strchr(l2, 'X') - l2, strchr(l3, '^') - l3);
	free(buf);
	diag_release(&d);
}

/* A secret that the excerpt window would cut in two is masked whole, not
 * shown in part; and one that happens to match the location text is masked
 * there too (both found by fuzz-auth). */
static void test_diag_never_prints_part_of_a_secret(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	char src[2001];
	memset(src, 'a', 2000);
	src[2000] = '\0';
	src[1000] = 'X';
	/* the window is 240 columns around the X: [880, 1120) */
	memcpy(src + 1110, "PARTSECRETPARTSECRET", 20);
	secret_register("PARTSECRETPARTSECRET");
	secret_register("ong.radl:1:1001: er");
	diag_add_source(&d, "long.radl", src, 2000);
	struct src_loc loc = { "long.radl", 1, 1001 };
	diag_error(&d, IMC_EXIT_DATAERR, &loc, "bad");
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	diag_print(&d, fp);
	fclose(fp);
	assert_null(strstr(buf, "PARTSEC"));
	assert_null(strstr(buf, "ong.radl:1:1001: er"));
	assert_non_null(strstr(buf, "l***ror: bad\n"));
	/* the caret still sits under the X */
	char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	assert_int_equal(strchr(l2, 'X') - l2, strchr(l3, '^') - l3);
	free(buf);
	diag_release(&d);
}

/* The digests modules and the hash filters compare against: lowercase hex,
 * NUL-terminated, the published vectors of each algorithm. */
static void test_hash_hex_digests(void **state)
{
	(void)state;
	char s1[41], m5[33], s256[65];
	hash_sha1_hex("abc", 3, s1);
	assert_string_equal(s1, "a9993e364706816aba3e25717850c26c9cd0d89d");
	hash_md5_hex("", 0, m5);
	assert_string_equal(m5, "d41d8cd98f00b204e9800998ecf8427e");
	hash_sha256_hex("abc", 3, s256);
	assert_string_equal(s256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	char big[1000];
	memset(big, 'a', sizeof(big));
	hash_sha256_hex(big, sizeof(big), s256);
	assert_string_equal(s256, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

/* path_normpath answers as Python's os.path.normpath does (the expected
 * values are Python 3.11's). */
static void test_path_normpath_is_pythons(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "", "." }, { "/", "/" }, { "//", "//" }, { "///", "/" }, { "//a/b", "//a/b" },
		{ "/a/./b/../c/", "/a/c" }, { "/..", "/" }, { "../a/../..", "../.." }, { "a/../..", ".." },
		{ "file:///repo/", "file:/repo" }, { "./", "." }, { "a//b/./", "a/b" }, { "/../x/..", "/" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = path_normpath(cases[i][0]);
		assert_string_equal(got, cases[i][1]);
		free(got);
	}
}

/* Python's posixpath.expandvars and expanduser, the expected values
 * printed by Python 3.11 with the same environment and homes */
static const char *fake_env(void *ud, const char *name)
{
	(void)ud;
	static const char *const kv[] = { "HOME", "/h", "A", "x", "EMPTY", "", "B", "~u", "A1", "y", NULL };
	for (size_t i = 0; kv[i]; i += 2)
		if (!strcmp(kv[i], name))
			return kv[i + 1];
	return NULL;
}

static const char *fake_home(void *ud, const char *user)
{
	(void)ud;
	if (!user)
		return "/h";
	return !strcmp(user, "root") ? "/root/" : !strcmp(user, "slash") ? "/" : NULL;
}

static void test_pypath_is_pythons(void **state)
{
	(void)state;
	static const char *const vars[][2] = {
		{ "$A/b", "x/b" }, { "${A}c", "xc" }, { "$A1", "y" }, { "$A-1", "x-1" }, { "$$A", "$x" },
		{ "$", "$" }, { "${", "${" }, { "${A", "${A" }, { "$NOPE/$A", "$NOPE/x" },
		{ "${NOPE}", "${NOPE}" }, { "$EMPTY/z", "/z" }, { "a$", "a$" }, { "${}", "${}" },
		{ "$B/k", "~u/k" }, { "x${A}${A}", "xxx" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		char *r = pypath_expandvars(vars[i][0], fake_env, NULL);
		assert_string_equal(r, vars[i][1]);
		free(r);
	}
	static const char *const users[][2] = {
		{ "~", "/h" }, { "~/a", "/h/a" }, { "~//a", "/h//a" }, { "~root", "/root" },
		{ "~root/x", "/root/x" }, { "~nosuchuserx/y", "~nosuchuserx/y" }, { "a~", "a~" },
		{ "~/", "/h/" }, { "~slash", "/" }, { "~slash/a", "/a" },
	};
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		char *r = pypath_expanduser(users[i][0], fake_home, NULL);
		assert_string_equal(r, users[i][1]);
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_grows_and_caps),
		cmocka_unit_test(test_strbuf_reads_an_empty_file_as_empty_string),
		cmocka_unit_test(test_redact_masks_registered_secrets),
		cmocka_unit_test(test_redact_longest_match_and_pem_lines),
		cmocka_unit_test(test_secret_scope_releases_its_own),
		cmocka_unit_test(test_log_never_prints_a_secret),
		cmocka_unit_test(test_diag_excerpt_and_caret),
		cmocka_unit_test(test_diag_long_line_is_cut),
		cmocka_unit_test(test_diag_never_prints_part_of_a_secret),
		cmocka_unit_test(test_hash_hex_digests),
		cmocka_unit_test(test_path_normpath_is_pythons),
		cmocka_unit_test(test_pypath_is_pythons),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
