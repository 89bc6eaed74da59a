/* base64.c: see base64.h. */
#include "config.h"

#include <openssl/evp.h>

#include "util/base64.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* EVP_EncodeBlock takes an int length: whole groups of 3 bytes at a time,
 * so that no padding lands in the middle. */
#define CHUNK ((size_t)3 << 20)

char *base64_encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = xmalloc(4 * ((len + 2) / 3) + 1), *o = out;
	*o = '\0';
	while (len) {
		size_t n = len < CHUNK ? len : CHUNK;
		o += EVP_EncodeBlock((unsigned char *)o, p, (int)n);
		p += n;
		len -= n;
	}
	return out;
}

int base64_decode(const char *s, size_t n, struct strbuf *out)
{
	EVP_ENCODE_CTX *ctx = EVP_ENCODE_CTX_new();
	int rc = -1;
	if (!ctx)
		return -1;
	EVP_DecodeInit(ctx);
	unsigned char buf[3 * 4096 / 4 + 80];
	while (n) {
		/* EVP_DecodeUpdate writes at most 3/4 of what it is given, plus
		 * the 64 bytes it may hold back from a previous call */
		int k = n < 4096 ? (int)n : 4096;
		int got = 0;
		if (EVP_DecodeUpdate(ctx, buf, &got, (const unsigned char *)s, k) < 0)
			goto out;
		strbuf_add(out, buf, (size_t)got);
		s += k;
		n -= (size_t)k;
	}
	int got = 0;
	if (EVP_DecodeFinal(ctx, buf, &got) < 0)
		goto out;
	strbuf_add(out, buf, (size_t)got);
	rc = 0;
out:
	EVP_ENCODE_CTX_free(ctx);
	return rc;
}
