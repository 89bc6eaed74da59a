/* pyrandom.h: Python's random.Random, seeded as Python seeds it, for the
 * template filters that take a seed (random, shuffle): Ansible's
 * `59 | random(seed=inventory_hostname)` must pick the same number under
 * imc as under Ansible, or a cron minute spread by host moves. The
 * generator is MT19937 (Matsumoto and Nishimura's reference algorithm,
 * init_by_array seeding), which CPython's _random module implements. */
#ifndef IMC_UTIL_PYRANDOM_H
#define IMC_UTIL_PYRANDOM_H

#include <stddef.h>
#include <stdint.h>

struct pyrandom {
	uint32_t mt[624];
	int mti;
};

/* random.Random(s) for a str s (UTF-8 bytes of len): seeded with the
 * integer of s followed by its SHA-512 digest, as Python's version 2
 * seeding does. */
void pyrandom_seed_str(struct pyrandom *r, const char *s, size_t len);

/* random.Random(n) for an integer n (its absolute value is the key). */
void pyrandom_seed_int(struct pyrandom *r, long long n);

/* random.getrandbits(k), 0 < k <= 64. */
uint64_t pyrandom_getrandbits(struct pyrandom *r, int k);

/* Random._randbelow(n): uniform in [0, n), n > 0, as Python draws it
 * (getrandbits of n's bit length, redrawn while >= n). */
uint64_t pyrandom_below(struct pyrandom *r, uint64_t n);

#endif
