/* SPDX-License-Identifier: MIT */
/* pool: quick pairing's matching, pure: who waits with whom, by options and nearest rating, the range widening with the wait. */
#ifndef WW_POOL_H
#define WW_POOL_H

#include <stddef.h>
#include <stdint.h>

/* The rating a player is paired by until the store knows its own: Glicko-2's newcomer. The
 * server keeps one per connection (struct conn's `rating`), filled from the store when a
 * rating is recorded for its key. */
#define POOL_RATING_DEFAULT 1500

/* lichess's pools widen the range with the wait; these are ours (docs/server.md, "Quick pairing"). */
#define POOL_GAP_BASE 100   /* rating points two newcomers to the pool may be apart */
#define POOL_GAP_GROW 20    /* ... and this many more for every second waited */
#define POOL_GAP_MAX 1000   /* the range stops widening here */
/* The exact matching runs over windows of this many players in rating order (2^W states each). */
#define POOL_WINDOW 10

struct pool_entry {
	uint32_t key;       /* the options: two players may meet only when their keys are equal */
	uint16_t rating;
	uint32_t waited_s;  /* seconds in the pool so far */
};

struct pool_pair {
	uint32_t a, b;      /* indices into the entries, a < b */
};

/* The rating gap a player who waited `waited_s` seconds accepts. */
unsigned pool_gap(uint32_t waited_s);

/* The pairs of one wave: players of equal keys whose ratings are within both their gaps, as many
 * pairs as can be made, then the smallest sum of rating differences, a long wait weighing against
 * staying unpaired. Writes at most n / 2 pairs to out (sorted by a) and returns how many; the same
 * entries always give the same pairs. 0 also when out of memory (the wave is tried again). */
size_t pool_match(const struct pool_entry *e, size_t n, struct pool_pair *out);

#endif
