/* test-sshkey.c: unit tests of src/util/sshkey.c: the generated pair is a
 * valid OpenSSH ed25519 pair (libssh reloads it and both halves match), the
 * private key file is 0600, the private key is registered as a secret, and
 * errors (missing directory, missing .pub) are reported, not crashed on. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <libssh/libssh.h>

#include "util/diag.h"
#include "util/log.h"
#include "util/sshkey.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char tmpdir[] = "/tmp/imc-test-sshkey.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = { "id", "id.pub", "again", "again.pub" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = xasprintf("%s/%s", tmpdir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(tmpdir);
	return 0;
}

static void test_generate_valid_pair(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	char *priv = xasprintf("%s/id", tmpdir);
	int before = secret_count();
	assert_int_equal(sshkey_generate(priv, "imc test\nkey", &d), 0);
	assert_false(diag_has_errors(&d));
	assert_true(secret_count() > before);

	struct stat st;
	assert_int_equal(stat(priv, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	char *pub = sshkey_read_public(priv, &d);
	assert_non_null(pub);
	assert_int_equal(strncmp(pub, "ssh-ed25519 AAAA", 16), 0);
	assert_non_null(strstr(pub, " imc test key"));
	assert_null(strchr(pub, '\n'));

	/* libssh reads the private key back and derives the same public key */
	ssh_key k = NULL;
	assert_int_equal(ssh_pki_import_privkey_file(priv, NULL, NULL, NULL, &k), SSH_OK);
	assert_int_equal(ssh_key_type(k), SSH_KEYTYPE_ED25519);
	char *b64 = NULL;
	assert_int_equal(ssh_pki_export_pubkey_base64(k, &b64), SSH_OK);
	assert_non_null(strstr(pub, b64));
	ssh_string_free_char(b64);
	ssh_key_free(k);

	/* the private key text is now a secret: redaction masks its lines */
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, priv), 0);
	char *r = redact(sb.buf);
	assert_null(strstr(r, "AAAA"));
	free(r);
	strbuf_release(&sb);

	/* generating again over an existing pair replaces it */
	char *pub2 = NULL;
	assert_int_equal(sshkey_generate(priv, NULL, &d), 0);
	pub2 = sshkey_read_public(priv, &d);
	assert_non_null(pub2);
	assert_string_not_equal(pub, pub2);
	free(pub);
	free(pub2);
	free(priv);
	diag_release(&d);
}

static void test_errors_are_reported(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	char *priv = xasprintf("%s/no/such/dir/id", tmpdir);
	assert_int_equal(sshkey_generate(priv, "x", &d), -1);
	assert_true(diag_has_errors(&d));
	assert_non_null(strstr(diag_first_message(&d), "cannot create"));
	diag_release(&d);

	diag_init(&d);
	assert_null(sshkey_read_public(priv, &d));
	assert_true(diag_has_errors(&d));
	diag_release(&d);

	/* a .pub file that is not a key */
	char *again = xasprintf("%s/again", tmpdir);
	char *againpub = xasprintf("%s/again.pub", tmpdir);
	FILE *fp = fopen(againpub, "w");
	assert_non_null(fp);
	fputs("not a key\n", fp);
	fclose(fp);
	diag_init(&d);
	assert_null(sshkey_read_public(again, &d));
	assert_non_null(strstr(diag_first_message(&d), "not an OpenSSH public key"));
	diag_release(&d);
	free(priv);
	free(again);
	free(againpub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generate_valid_pair),
		cmocka_unit_test(test_errors_are_reported),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
