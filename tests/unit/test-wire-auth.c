/* test-wire-auth.c: unit tests of the authenticated wire
 * (src/trainer/wire-auth.c): the secret file's checks, the handshake
 * between two holders of the secret (and its failure with another), and
 * that a frame tag fails when a byte, the sequence number or the
 * direction changes; that the tag and the proofs are the constructions
 * wire-auth.h states, recomputed here with libcrypto directly. The handshake runs over a socketpair, the server side
 * in a thread. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "trainer/wire-auth.h"
#include "util/diag.h"

static void key(struct wire_secret *s, const char *text)
{
	s->len = strlen(text);
	s->key = (unsigned char *)strdup(text);
}

struct server_arg {
	int fd;
	struct wire_secret *s;
	struct wire_auth a;
	int rc;
	int code;
};

static void *server(void *p)
{
	struct server_arg *sa = p;
	struct diag d = DIAG_INIT;
	sa->rc = wire_auth_server(sa->fd, sa->s, &sa->a, &d);
	sa->code = d.code;
	diag_release(&d);
	/* a refusing server closes: the client then sees the close */
	if (sa->rc < 0)
		shutdown(sa->fd, SHUT_RDWR);
	return NULL;
}

/* Runs the handshake with the client holding c and the server s. */
static int handshake(struct wire_secret *c, struct wire_secret *s, struct wire_auth *ca,
		     struct server_arg *sa, int *ccode)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	sa->fd = sv[1];
	sa->s = s;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, server, sa), 0);
	struct diag d = DIAG_INIT;
	int rc = wire_auth_client(sv[0], c, ca, &d);
	*ccode = d.code;
	diag_release(&d);
	if (rc < 0)
		shutdown(sv[0], SHUT_RDWR);
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static void test_handshake(void **state)
{
	(void)state;
	struct wire_secret k1, k2;
	key(&k1, "0123456789abcdef0123456789abcdef");
	key(&k2, "0123456789abcdef0123456789abcdeF");
	struct wire_auth ca = { .on = false };
	struct server_arg sa;
	int code;
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(handshake(&k1, &k1, &ca, &sa, &code), 0);
	assert_int_equal(sa.rc, 0);
	assert_true(ca.on && sa.a.on);
	/* each side's out key is the other's in key, and the directions differ */
	assert_memory_equal(ca.k_out, sa.a.k_in, WIRE_AUTH_TAG);
	assert_memory_equal(ca.k_in, sa.a.k_out, WIRE_AUTH_TAG);
	assert_memory_not_equal(ca.k_out, ca.k_in, WIRE_AUTH_TAG);
	/* a second handshake with the same secret gives other keys (fresh nonces) */
	struct wire_auth ca2 = { .on = false };
	struct server_arg sa2;
	memset(&sa2, 0, sizeof(sa2));
	assert_int_equal(handshake(&k1, &k1, &ca2, &sa2, &code), 0);
	assert_memory_not_equal(ca.k_out, ca2.k_out, WIRE_AUTH_TAG);
	/* another secret: both sides refuse */
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(handshake(&k2, &k1, &ca, &sa, &code), -1);
	assert_int_equal(code, IMC_EXIT_NOPERM);
	assert_int_equal(sa.rc, -1);
	wire_secret_release(&k1);
	wire_secret_release(&k2);
}

static void test_tags(void **state)
{
	(void)state;
	struct wire_secret k;
	key(&k, "0123456789abcdef0123456789abcdef");
	unsigned char nc[WIRE_AUTH_NONCE], ns[WIRE_AUTH_NONCE];
	memset(nc, 1, sizeof(nc));
	memset(ns, 2, sizeof(ns));
	struct wire_auth c = { .on = false }, s = { .on = false };
	wire_auth_keys(&k, nc, ns, true, &c);
	wire_auth_keys(&k, nc, ns, false, &s);
	unsigned char frame[64], tag[WIRE_FRAME_TAG], want[WIRE_FRAME_TAG];
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (unsigned char)i;
	struct iovec v = { frame, sizeof(frame) };
	wire_auth_tag_out(&c, &v, 1, tag); /* frame 0, client to server */
	struct wire_mac m = { NULL };
	wire_mac_begin(&m, s.k_in, 0);
	wire_mac_add(&m, frame, sizeof(frame));
	wire_mac_end(&m, want);
	assert_true(wire_tag_equal(tag, want));
	/* replayed as frame 1: fails */
	wire_mac_begin(&m, s.k_in, 1);
	wire_mac_add(&m, frame, sizeof(frame));
	wire_mac_end(&m, want);
	assert_false(wire_tag_equal(tag, want));
	/* one bit changed: fails */
	frame[17] ^= 1;
	wire_mac_begin(&m, s.k_in, 0);
	wire_mac_add(&m, frame, sizeof(frame));
	wire_mac_end(&m, want);
	assert_false(wire_tag_equal(tag, want));
	frame[17] ^= 1;
	/* reflected back to its sender (the other direction's key): fails */
	wire_mac_begin(&m, c.k_in, 0);
	wire_mac_add(&m, frame, sizeof(frame));
	wire_mac_end(&m, want);
	assert_false(wire_tag_equal(tag, want));
	assert_int_equal(c.seq_out, 1);
	/* the sender's context, keyed once, tags its next frame as a fresh
	 * context does */
	wire_auth_tag_out(&c, &v, 1, tag); /* frame 1 */
	wire_mac_begin(&m, s.k_in, 1);
	wire_mac_add(&m, frame, sizeof(frame));
	wire_mac_end(&m, want);
	assert_true(wire_tag_equal(tag, want));
	wire_mac_release(&m);
	wire_auth_release(&c);
	wire_auth_release(&s);
	wire_secret_release(&k);
}

static void test_secret_file(void **state)
{
	(void)state;
	char path[] = "/tmp/test-wire-auth-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "0123456789abcdef0123456789abcdef\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct wire_secret s;
	struct diag d = DIAG_INIT;
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(wire_secret_load(path, &s, &d), 0);
	assert_int_equal(s.len, 32); /* the newline is not part of the key */
	assert_memory_equal(s.key, text, 32);
	wire_secret_release(&s);
	assert_null(s.key);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(wire_secret_load(path, &s, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_NOPERM);
	assert_non_null(strstr(diag_first_message(&d), "chmod 600"));
	assert_null(strstr(diag_first_message(&d), "0123456789abcdef")); /* never the content */
	diag_release(&d);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(wire_secret_load(path, &s, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_DATAERR);
	diag_release(&d);
	unlink(path);
	assert_int_equal(wire_secret_load(path, &s, &d), -1);
	assert_int_equal(d.code, IMC_EXIT_NOINPUT);
	diag_release(&d);
}

/* The frame tag is GMAC as wire-auth.h states it (AES-256-GCM, IV the
 * frame number then four zero bytes, the frame as additional data, no
 * plaintext), and a proof is HMAC(HMAC(K, label), 0^8 | a | b): both
 * recomputed with libcrypto's own calls, on a frame split in pieces. */
static void test_constructions(void **state)
{
	(void)state;
	struct wire_secret k;
	key(&k, "0123456789abcdef0123456789abcdef");
	unsigned char nc[WIRE_AUTH_NONCE], ns[WIRE_AUTH_NONCE];
	for (int i = 0; i < WIRE_AUTH_NONCE; i++) {
		nc[i] = (unsigned char)(3 * i);
		ns[i] = (unsigned char)(200 - i);
	}
	struct wire_auth c = { .on = false };
	wire_auth_keys(&k, nc, ns, true, &c);
	static unsigned char frame[70000];
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (unsigned char)(i * 7 + 1);
	struct iovec v[3] = { { frame, 13 }, { frame + 13, 65536 }, { frame + 65549, 70000 - 65549 } };
	unsigned char tag[WIRE_FRAME_TAG], want[WIRE_FRAME_TAG];
	c.seq_out = 0x0102030405ULL;
	wire_auth_tag_out(&c, v, 3, tag);

	unsigned char iv[12] = { 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0 }, none[16];
	int ol = 0;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	assert_non_null(x);
	assert_int_equal(EVP_EncryptInit_ex(x, EVP_aes_256_gcm(), NULL, c.k_out, iv), 1);
	assert_int_equal(EVP_EncryptUpdate(x, NULL, &ol, frame, (int)sizeof(frame)), 1);
	assert_int_equal(EVP_EncryptFinal_ex(x, none, &ol), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, WIRE_FRAME_TAG, want), 1);
	EVP_CIPHER_CTX_free(x);
	assert_memory_equal(tag, want, WIRE_FRAME_TAG);
	assert_true(wire_tag_equal(tag, want));
	want[WIRE_FRAME_TAG - 1] ^= 0x80; /* the comparison covers the last byte */
	assert_false(wire_tag_equal(tag, want));
	wire_auth_release(&c);

	unsigned char lk[32], msg[8 + 2 * WIRE_AUTH_NONCE], p[32], got[WIRE_AUTH_TAG];
	unsigned int l1 = 0, l2 = 0;
	const char *label = "imc-train server";
	memset(msg, 0, 8);
	memcpy(msg + 8, nc, WIRE_AUTH_NONCE);
	memcpy(msg + 8 + WIRE_AUTH_NONCE, ns, WIRE_AUTH_NONCE);
	assert_non_null(HMAC(EVP_sha256(), k.key, (int)k.len, (const unsigned char *)label,
			     strlen(label), lk, &l1));
	assert_non_null(HMAC(EVP_sha256(), lk, sizeof(lk), msg, sizeof(msg), p, &l2));
	wire_auth_proof(&k, label, nc, ns, got);
	assert_memory_equal(got, p, WIRE_AUTH_TAG);
	wire_secret_release(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_tags),
		cmocka_unit_test(test_constructions),
		cmocka_unit_test(test_secret_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
