/* hash.h: hex digests (SHA-1, MD5, SHA-256) of a byte buffer, from
 * OpenSSL's libcrypto. The template engine's hash filters and the modules
 * that compare content by checksum (Ansible's `checksum` is a SHA-1,
 * `md5sum` an MD5) share them. */
#ifndef IMC_UTIL_HASH_H
#define IMC_UTIL_HASH_H

#include <stddef.h>

/* Lowercase hex digest of data into out, NUL-terminated. */
void hash_sha1_hex(const void *data, size_t len, char out[41]);
void hash_md5_hex(const void *data, size_t len, char out[33]);
void hash_sha256_hex(const void *data, size_t len, char out[65]);

#endif
