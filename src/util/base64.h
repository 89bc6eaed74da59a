/* base64.h: standard base64 (RFC 4648, with padding) of a byte buffer,
 * from OpenSSL's libcrypto. */
#ifndef IMC_UTIL_BASE64_H
#define IMC_UTIL_BASE64_H

#include <stddef.h>

/* Malloc'd, NUL-terminated. */
char *base64_encode(const void *data, size_t len);

#endif
