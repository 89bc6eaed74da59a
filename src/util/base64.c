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
