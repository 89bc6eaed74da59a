/* wire-auth.c: the authenticated wire (see wire-auth.h): the secret file,
 * the challenge-response handshake and the frame tags, on OpenSSL's
 * HMAC-SHA256, RAND_bytes and CRYPTO_memcmp. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "trainer/wire-auth.h"
#include "util/xalloc.h"
#include "util/banned.h"

int wire_secret_load(const char *path, struct wire_secret *s, struct diag *d)
{
	memset(s, 0, sizeof(*s));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		diag_error(d, errno == ENOENT ? IMC_EXIT_NOINPUT : IMC_EXIT_IOERR, NULL,
			   "cannot read the secret file '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int rc = -1;
	unsigned char *buf = NULL;
	if (!S_ISREG(st.st_mode)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "the secret file '%s' is not a regular file", path);
		goto out;
	}
	if (st.st_mode & 077) {
		diag_error(d, IMC_EXIT_NOPERM, NULL,
			   "the secret file '%s' is accessible to group or others (mode %04o): chmod 600 it",
			   path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_size > WIRE_SECRET_MAX) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "the secret file '%s' is larger than %d bytes",
			   path, WIRE_SECRET_MAX);
		goto out;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot read the secret file '%s': %s", path,
				   r < 0 ? strerror(errno) : "short read");
			goto out;
		}
		got += (size_t)r;
	}
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		got--;
	if (got < WIRE_SECRET_MIN) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "the secret file '%s' holds fewer than %d bytes", path, WIRE_SECRET_MIN);
		goto out;
	}
	s->key = buf;
	s->len = got;
	buf = NULL;
	rc = 0;
out:
	if (buf) {
		OPENSSL_cleanse(buf, (size_t)st.st_size + 1);
		free(buf);
	}
	close(fd);
	return rc;
}

void wire_secret_release(struct wire_secret *s)
{
	if (s->key) {
		OPENSSL_cleanse(s->key, s->len);
		free(s->key);
	}
	s->key = NULL;
	s->len = 0;
}

int wire_auth_nonce(unsigned char n[WIRE_AUTH_NONCE], struct diag *d)
{
	if (RAND_bytes(n, WIRE_AUTH_NONCE) != 1) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "no random bytes from OpenSSL");
		return -1;
	}
	return 0;
}

void wire_auth_proof(const struct wire_secret *s, const char *label,
		     const unsigned char *a, const unsigned char *b,
		     unsigned char out[WIRE_AUTH_TAG])
{
	/* the long-term key is used here through a MAC keyed by it: the
	 * label keeps the proofs and the direction keys apart, and the eight
	 * zero bytes in front of the nonces keep the bytes a proof covers as
	 * they have always been (it was once frame 0's tag) */
	unsigned char k[WIRE_AUTH_TAG], msg[8 + 2 * WIRE_AUTH_NONCE];
	unsigned int kl = 0, ol = 0;
	memset(msg, 0, 8);
	memcpy(msg + 8, a, WIRE_AUTH_NONCE);
	memcpy(msg + 8 + WIRE_AUTH_NONCE, b, WIRE_AUTH_NONCE);
	if (!HMAC(EVP_sha256(), s->key, (int)s->len, (const unsigned char *)label, strlen(label),
		  k, &kl) ||
	    !HMAC(EVP_sha256(), k, sizeof(k), msg, sizeof(msg), out, &ol))
		abort(); /* out of memory or a libcrypto without HMAC-SHA256 */
	OPENSSL_cleanse(k, sizeof(k));
}

bool wire_auth_equal(const unsigned char *a, const unsigned char *b)
{
	return CRYPTO_memcmp(a, b, WIRE_AUTH_TAG) == 0;
}

bool wire_tag_equal(const unsigned char *a, const unsigned char *b)
{
	return CRYPTO_memcmp(a, b, WIRE_FRAME_TAG) == 0;
}

void wire_auth_keys(const struct wire_secret *s, const unsigned char nc[WIRE_AUTH_NONCE],
		    const unsigned char ns[WIRE_AUTH_NONCE], bool client, struct wire_auth *a)
{
	unsigned char c2s[WIRE_AUTH_TAG], s2c[WIRE_AUTH_TAG];
	wire_auth_proof(s, "imc-train c2s", nc, ns, c2s);
	wire_auth_proof(s, "imc-train s2c", nc, ns, s2c);
	memcpy(a->k_out, client ? c2s : s2c, WIRE_AUTH_TAG);
	memcpy(a->k_in, client ? s2c : c2s, WIRE_AUTH_TAG);
	OPENSSL_cleanse(c2s, sizeof(c2s));
	OPENSSL_cleanse(s2c, sizeof(s2c));
	a->seq_out = a->seq_in = 0;
	a->on = true;
}

static int send_all(int fd, const void *p, size_t n, struct diag *d)
{
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "authentication: send failed: %s",
				   w < 0 ? strerror(errno) : "closed");
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* Reads n bytes; a close is reported as the peer refusing us. */
static int recv_all(int fd, void *p, size_t n, struct diag *d)
{
	size_t off = 0;
	while (off < n) {
		ssize_t r = recv(fd, (char *)p + off, n - off, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			diag_error(d, IMC_EXIT_NOPERM, NULL,
				   "the peer closed the connection during authentication (does it hold the same secret?)");
			return -1;
		}
		if (r < 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "authentication: %s",
				   errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno));
			return -1;
		}
		off += (size_t)r;
	}
	return 0;
}

int wire_auth_client(int fd, const struct wire_secret *s, struct wire_auth *a,
		     struct diag *d)
{
	unsigned char nc[WIRE_AUTH_NONCE], in[WIRE_AUTH_NONCE + WIRE_AUTH_TAG], want[WIRE_AUTH_TAG];
	if (wire_auth_nonce(nc, d) < 0 || send_all(fd, nc, sizeof(nc), d) < 0 ||
	    recv_all(fd, in, sizeof(in), d) < 0)
		return -1;
	wire_auth_proof(s, "imc-train server", nc, in, want);
	if (!wire_auth_equal(want, in + WIRE_AUTH_NONCE)) {
		diag_error(d, IMC_EXIT_NOPERM, NULL,
			   "the peer failed to prove it holds the job's secret");
		return -1;
	}
	wire_auth_proof(s, "imc-train client", in, nc, want);
	if (send_all(fd, want, sizeof(want), d) < 0)
		return -1;
	wire_auth_keys(s, nc, in, true, a);
	return 0;
}

int wire_auth_server(int fd, const struct wire_secret *s, struct wire_auth *a,
		     struct diag *d)
{
	unsigned char nc[WIRE_AUTH_NONCE], out[WIRE_AUTH_NONCE + WIRE_AUTH_TAG], want[WIRE_AUTH_TAG],
		proof[WIRE_AUTH_TAG];
	if (recv_all(fd, nc, sizeof(nc), d) < 0 || wire_auth_nonce(out, d) < 0)
		return -1;
	wire_auth_proof(s, "imc-train server", nc, out, out + WIRE_AUTH_NONCE);
	if (send_all(fd, out, sizeof(out), d) < 0 || recv_all(fd, proof, sizeof(proof), d) < 0)
		return -1;
	wire_auth_proof(s, "imc-train client", out, nc, want);
	if (!wire_auth_equal(want, proof)) {
		diag_error(d, IMC_EXIT_NOPERM, NULL, "the peer does not hold the job's secret");
		return -1;
	}
	wire_auth_keys(s, nc, out, false, a);
	return 0;
}

static EVP_CIPHER *gcm;

static void gcm_fetch(void)
{
	gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
}

/* Fetched once: an implicit fetch on every frame's init costs more than
 * a small frame's tag. */
static EVP_CIPHER *gcm_alg(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, gcm_fetch);
	return gcm;
}

void wire_mac_begin(struct wire_mac *m, const unsigned char key[WIRE_AUTH_TAG], uint64_t seq)
{
	/* the IV is the frame's number, little-endian as every integer of the
	 * wire, then four zero bytes: unique for the key, which is used by
	 * one direction of one connection only */
	unsigned char iv[WIRE_MAC_IV] = { 0 };
	for (int i = 0; i < 8; i++)
		iv[i] = (unsigned char)(seq >> (8 * i));
	wire_mac_begin_iv(m, key, iv);
}

void wire_mac_begin_iv(struct wire_mac *m, const unsigned char key[WIRE_AUTH_TAG],
		       const unsigned char iv[WIRE_MAC_IV])
{
	if (!m->ctx)
		m->ctx = EVP_CIPHER_CTX_new();
	/* the key is set only when it changes: keying expands the AES key
	 * and derives GHASH's, work a frame does not need; a new IV alone
	 * restarts the tag */
	bool rekey = !m->keyed || CRYPTO_memcmp(m->key, key, WIRE_AUTH_TAG) != 0;
	if (!m->ctx || !gcm_alg() ||
	    EVP_EncryptInit_ex2(m->ctx, rekey ? gcm_alg() : NULL, rekey ? key : NULL, iv, NULL) != 1)
		abort(); /* out of memory or a libcrypto without AES-256-GCM */
	if (rekey) {
		memcpy(m->key, key, WIRE_AUTH_TAG);
		m->keyed = true;
	}
}

void wire_mac_add(struct wire_mac *m, const void *p, size_t n)
{
	/* GCM's additional data: authenticated, not encrypted; fed in pieces
	 * that fit EVP's int */
	const unsigned char *q = p;
	while (n) {
		int step = n > (1u << 30) ? 1 << 30 : (int)n, ol = 0;
		if (EVP_EncryptUpdate(m->ctx, NULL, &ol, q, step) != 1)
			abort();
		q += step;
		n -= (size_t)step;
	}
}

void wire_mac_end(struct wire_mac *m, unsigned char out[WIRE_FRAME_TAG])
{
	unsigned char none[16];
	int ol = 0;
	if (EVP_EncryptFinal_ex(m->ctx, none, &ol) != 1 ||
	    EVP_CIPHER_CTX_ctrl(m->ctx, EVP_CTRL_AEAD_GET_TAG, WIRE_FRAME_TAG, out) != 1)
		abort();
}

void wire_mac_release(struct wire_mac *m)
{
	EVP_CIPHER_CTX_free(m->ctx);
	OPENSSL_cleanse(m, sizeof(*m));
}

void wire_auth_tag_out(struct wire_auth *a, const struct iovec *iov, int n,
		       unsigned char out[WIRE_FRAME_TAG])
{
	wire_mac_begin(&a->tx, a->k_out, a->seq_out++);
	for (int i = 0; i < n; i++)
		wire_mac_add(&a->tx, iov[i].iov_base, iov[i].iov_len);
	wire_mac_end(&a->tx, out);
}

void wire_auth_release(struct wire_auth *a)
{
	wire_mac_release(&a->tx);
	wire_mac_release(&a->rx);
	OPENSSL_cleanse(a, sizeof(*a));
}
