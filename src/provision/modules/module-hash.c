/* module-hash.c: digests of controller-side content, as hex, from OpenSSL's
 * libcrypto (EVP). Modules compare the content they are about to write
 * with the node's file by checksum (Ansible's `checksum` result is a SHA-1,
 * `md5sum` an MD5); the hash filters use them too. */
#include "config.h"

#include <stdio.h>

#include <openssl/evp.h>

#include "provision/module.h"
#include "util/banned.h"

/* md's digest of data as lowercase hex into out (2 * digest size + 1). */
static void digest_hex(const EVP_MD *md, const void *data, size_t len, char *out)
{
	unsigned char dg[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (!EVP_Digest(data, len, dg, &n, md, NULL))
		n = 0; /* only on allocation failure inside OpenSSL */
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", dg[i]);
	out[2 * n] = '\0';
}

void mod_sha1_hex(const void *data, size_t len, char out[41])
{
	digest_hex(EVP_sha1(), data, len, out);
}

void mod_md5_hex(const void *data, size_t len, char out[33])
{
	digest_hex(EVP_md5(), data, len, out);
}

void mod_sha256_hex(const void *data, size_t len, char out[65])
{
	digest_hex(EVP_sha256(), data, len, out);
}
