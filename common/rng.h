/* SPDX-License-Identifier: MIT */
/* rng: the one random stream of a duel, held inside the game state (no rand(), no globals). */
#ifndef WW_RNG_H
#define WW_RNG_H

#include <stdbool.h>
#include <stdint.h>

/* xoshiro256** seeded through splitmix64: fast, 256 bits of state, and the
 * same sequence on every platform because it is plain 64-bit arithmetic. */
struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n == 0 returns 0. Unbiased (Lemire's method with rejection). */
uint32_t rng_below(struct rng *r, uint32_t n);
/* Uniform in [lo, hi], inclusive; hi < lo returns lo. */
int rng_range(struct rng *r, int lo, int hi);
/* True with probability num/den. */
bool rng_chance(struct rng *r, uint32_t num, uint32_t den);
/* splitmix64 step, also used to derive independent sub-seeds and to mix hashes. */
uint64_t rng_mix64(uint64_t x);

#endif
