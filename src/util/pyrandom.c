/* pyrandom.c: Python's random.Random (see pyrandom.h): MT19937 with
 * init_by_array, keyed as CPython's random_seed keys it (the absolute
 * value's 32-bit words, least significant first). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/pyrandom.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MT_N 624
#define MT_M 397

static void init_genrand(struct pyrandom *r, uint32_t s)
{
	r->mt[0] = s;
	for (int i = 1; i < MT_N; i++)
		r->mt[i] = 1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
	r->mti = MT_N;
}

static void init_by_array(struct pyrandom *r, const uint32_t *key, size_t len)
{
	init_genrand(r, 19650218U);
	size_t i = 1, j = 0;
	for (size_t k = MT_N > len ? MT_N : len; k; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
		i++;
		j++;
		if (i >= MT_N) {
			r->mt[0] = r->mt[MT_N - 1];
			i = 1;
		}
		if (j >= len)
			j = 0;
	}
	for (size_t k = MT_N - 1; k; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
		i++;
		if (i >= MT_N) {
			r->mt[0] = r->mt[MT_N - 1];
			i = 1;
		}
	}
	r->mt[0] = 0x80000000U;
}

static uint32_t genrand_uint32(struct pyrandom *r)
{
	static const uint32_t mag01[2] = { 0x0U, 0x9908b0dfU };
	uint32_t y;
	if (r->mti >= MT_N) {
		int kk;
		for (kk = 0; kk < MT_N - MT_M; kk++) {
			y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
			r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1U];
		}
		for (; kk < MT_N - 1; kk++) {
			y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
			r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1U];
		}
		y = (r->mt[MT_N - 1] & 0x80000000U) | (r->mt[0] & 0x7fffffffU);
		r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1U];
		r->mti = 0;
	}
	y = r->mt[r->mti++];
	y ^= (y >> 11);
	y ^= (y << 7) & 0x9d2c5680U;
	y ^= (y << 15) & 0xefc60000U;
	y ^= (y >> 18);
	return y;
}

/* Keys the generator with the big-endian unsigned integer b[0..n): its
 * 32-bit words from the least significant, as many as its bits need
 * (one for zero). */
static void seed_bytes_be(struct pyrandom *r, const unsigned char *b, size_t n)
{
	while (n && !b[0]) {
		b++;
		n--;
	}
	size_t words = n ? (n + 3) / 4 : 1;
	uint32_t *key = xcalloc(words, sizeof(*key));
	for (size_t i = 0; i < n; i++)
		key[i / 4] |= (uint32_t)b[n - 1 - i] << (8 * (i % 4));
	init_by_array(r, key, words);
	free(key);
}

void pyrandom_seed_str(struct pyrandom *r, const char *s, size_t len)
{
	unsigned char *b = xmalloc(len + EVP_MAX_MD_SIZE);
	memcpy(b, s, len);
	unsigned int dl = 0;
	if (!EVP_Digest(s, len, b + len, &dl, EVP_sha512(), NULL))
		dl = 0; /* only on allocation failure inside OpenSSL */
	seed_bytes_be(r, b, len + dl);
	free(b);
}

void pyrandom_seed_int(struct pyrandom *r, long long n)
{
	unsigned long long a = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(a >> (8 * (7 - i)));
	seed_bytes_be(r, b, sizeof(b));
}

uint64_t pyrandom_getrandbits(struct pyrandom *r, int k)
{
	if (k <= 32)
		return genrand_uint32(r) >> (32 - k);
	/* the least significant word is drawn first */
	uint64_t lo = genrand_uint32(r);
	uint64_t hi = genrand_uint32(r) >> (64 - k);
	return lo | hi << 32;
}

uint64_t pyrandom_below(struct pyrandom *r, uint64_t n)
{
	int k = 64 - __builtin_clzll(n);
	uint64_t v = pyrandom_getrandbits(r, k);
	while (v >= n)
		v = pyrandom_getrandbits(r, k);
	return v;
}
