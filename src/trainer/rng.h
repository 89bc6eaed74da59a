/* rng.h: the trainer's deterministic random numbers (xoshiro256** seeded
 * through splitmix64), for initialisation and shuffling. The same seed gives
 * the same stream on every machine, which checkpoint/resume relies on. */
#ifndef IMC_TRAINER_RNG_H
#define IMC_TRAINER_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1) with 24 random bits (exactly representable as float). */
float rng_uniform(struct rng *r);
/* Uniform integer in [0, n), unbiased. n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);

#endif
