/* base64.h: standard base64 (RFC 4648, with padding) of a byte buffer and
 * back, from OpenSSL's libcrypto. */
#ifndef IMC_UTIL_BASE64_H
#define IMC_UTIL_BASE64_H

#include <stddef.h>

#include "util/strbuf.h"

/* Malloc'd, NUL-terminated. */
char *base64_encode(const void *data, size_t len);

/* Appends the bytes that s[0..n) encodes to out; line breaks in s (as
 * base64(1) writes them) are skipped. -1 on a malformed encoding. */
int base64_decode(const char *s, size_t n, struct strbuf *out);

#endif
