/* wire_mac.c: CPU cost of the frame tags the authenticated wire could use
 * (wire-auth.h), all OpenSSL's own AEADs with the frame as additional data
 * and no plaintext, so the candidates compare at equal security (a 128-bit
 * tag under a 256-bit key, one nonce per frame): AES-256-GCM (GMAC) and
 * ChaCha20-Poly1305, each with its key set once per context and only the
 * nonce per frame (what the wire does) and with the key set again for
 * every frame (what the ring's receive side did), plus, for scale, the
 * same AEADs encrypting the frame and HMAC-SHA256. Reports, never fails.
 *
 *   bench/wire_mac [MIB] [REPEATS]   (64, 3)
 *
 * Each case walks a MIB-MiB buffer in frames of 16 KiB to 4 MiB (the
 * ring's chunk is 128 KiB), as the sender of a model does, and prints CPU
 * time (this process's user + system) per MiB tagged, the best of REPEATS
 * passes, and the load average. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "util/xalloc.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum kind { AAD_ONCE, AAD_REKEY, ENCRYPT, HMAC_SHA256 };

struct mac_case {
	const char *label;
	const char *cipher; /* NULL: HMAC-SHA256 */
	enum kind kind;
};

static const struct mac_case cases[] = {
	{ "AES-256-GCM, tag only, key once", "AES-256-GCM", AAD_ONCE },
	{ "AES-256-GCM, tag only, key per frame", "AES-256-GCM", AAD_REKEY },
	{ "ChaCha20-Poly1305, tag only, key once", "ChaCha20-Poly1305", AAD_ONCE },
	{ "ChaCha20-Poly1305, tag only, key per frame", "ChaCha20-Poly1305", AAD_REKEY },
	{ "AES-256-GCM, encrypting the frame", "AES-256-GCM", ENCRYPT },
	{ "ChaCha20-Poly1305, encrypting the frame", "ChaCha20-Poly1305", ENCRYPT },
	{ "HMAC-SHA256", NULL, HMAC_SHA256 },
};

/* Tags buf[0..len) in frames of 'frame' bytes. */
static void run(const struct mac_case *c, EVP_CIPHER *alg, unsigned char *buf, size_t len,
		size_t frame, unsigned char *out)
{
	static const unsigned char key[32] = "wire_mac bench key, 32 bytes...";
	unsigned char iv[12] = { 0 }, tag[32];
	unsigned int tl;
	int ol;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	if (!ctx || (alg && EVP_EncryptInit_ex2(ctx, alg, key, iv, NULL) != 1))
		abort();
	for (size_t at = 0, seq = 0; at < len; at += frame, seq++) {
		size_t n = len - at < frame ? len - at : frame;
		memcpy(iv, &seq, sizeof(seq));
		if (!alg) {
			if (!HMAC(EVP_sha256(), key, 32, buf + at, n, tag, &tl))
				abort();
			continue;
		}
		if (EVP_EncryptInit_ex2(ctx, NULL, c->kind == AAD_REKEY ? key : NULL, iv, NULL) != 1)
			abort();
		if (c->kind == ENCRYPT) {
			if (EVP_EncryptUpdate(ctx, out, &ol, buf + at, (int)n) != 1)
				abort();
		} else if (EVP_EncryptUpdate(ctx, NULL, &ol, buf + at, (int)n) != 1) {
			abort();
		}
		if (EVP_EncryptFinal_ex(ctx, tag, &ol) != 1 ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1)
			abort();
	}
	EVP_CIPHER_CTX_free(ctx);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64;
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	if (mib < 4 || mib > 4096 || reps < 1) {
		fputs("usage: wire_mac [MIB 4..4096] [REPEATS]\n", stderr);
		return 64;
	}
	static const size_t frames[] = { 16 << 10, 128 << 10, 1 << 20, 4 << 20 };
	size_t len = mib << 20;
	unsigned char *buf = xmalloc(len), *out = xmalloc(4 << 20);
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 131);
	double l[3] = { 0, 0, 0 };
	if (getloadavg(l, 3) != 3)
		l[0] = l[1] = l[2] = -1;
	printf("frame tags over %zu MiB, CPU ms per MiB (best of %d); load average %.2f %.2f %.2f\n",
	       mib, reps, l[0], l[1], l[2]);
	printf("  %-44s %9s %9s %9s %9s\n", "", "16 KiB", "128 KiB", "1 MiB", "4 MiB");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct mac_case *c = &cases[k];
		EVP_CIPHER *alg = c->cipher ? EVP_CIPHER_fetch(NULL, c->cipher, NULL) : NULL;
		if (c->cipher && !alg) {
			printf("  %-44s (not in this libcrypto)\n", c->label);
			continue;
		}
		printf("  %-44s", c->label);
		for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
			double best = 1e30;
			for (int r = 0; r < reps; r++) {
				double t0 = cpu_s();
				run(c, alg, buf, len, frames[f], out);
				double t = cpu_s() - t0;
				best = t < best ? t : best;
			}
			printf(" %9.3f", best * 1e3 / (double)mib);
		}
		printf("\n");
		EVP_CIPHER_free(alg);
	}
	free(buf);
	free(out);
	return 0;
}
