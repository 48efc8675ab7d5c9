/* SPDX-License-Identifier: MIT */
/* pool: quick pairing's matching over one wave of waiting players (pure: no clock, no I/O). */
#include "pool.h"

#include <stdbool.h>
#include <stdlib.h>

/* Leaving a player unpaired costs more than any pair's difference (so a wave makes as many pairs
 * as it can), plus a little for every second it waited (so of two matchings of as many pairs the
 * one that pairs the longer waiter wins unless it costs many more rating points). */
#define UNPAIRED_COST 1000000u
#define UNPAIRED_PER_S 10u

unsigned
pool_gap(uint32_t waited_s)
{
	uint64_t g = POOL_GAP_BASE + (uint64_t)POOL_GAP_GROW * waited_s;

	return g > POOL_GAP_MAX ? POOL_GAP_MAX : (unsigned)g;
}

/* Sort order: key, rating, then index (the input order), so equal inputs give equal waves. */
static int
cmp_idx(const void *pa, const void *pb, const struct pool_entry *e)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (e[a].key != e[b].key)
		return e[a].key < e[b].key ? -1 : 1;
	if (e[a].rating != e[b].rating)
		return e[a].rating < e[b].rating ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Insertion sort: qsort has no context argument in C11, and a wave is a few hundred players. */
static void
sort_idx(uint32_t *idx, size_t n, const struct pool_entry *e)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t v = idx[i];
		size_t j = i;
		while (j > 0 && cmp_idx(&idx[j - 1], &v, e) > 0) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

static bool
may_meet(const struct pool_entry *a, const struct pool_entry *b)
{
	unsigned d = a->rating > b->rating ? a->rating - b->rating : b->rating - a->rating;
	unsigned ga = pool_gap(a->waited_s), gb = pool_gap(b->waited_s);

	return a->key == b->key && d <= (ga < gb ? ga : gb);
}

static uint64_t
unpaired(const struct pool_entry *a)
{
	return UNPAIRED_COST + (uint64_t)UNPAIRED_PER_S * a->waited_s;
}

/* The minimum-weight matching of one window of w <= POOL_WINDOW players (w[i] are indices into e),
 * exactly, by dynamic programming over subsets: f[mask] is the least cost of settling the players
 * not in mask, the lowest of them either unpaired or paired with another. choice[mask] keeps which. */
static size_t
match_window(const struct pool_entry *e, const uint32_t *w, unsigned m, uint64_t *f, int8_t *choice,
             struct pool_pair *out)
{
	unsigned full = (1u << m) - 1;
	size_t k = 0;

	f[full] = 0;
	for (unsigned mask = full; mask-- > 0;) {
		unsigned i = 0;
		while (mask & (1u << i))
			i++;
		uint64_t best = unpaired(&e[w[i]]) + f[mask | (1u << i)];
		int8_t pick = -1;
		for (unsigned j = i + 1; j < m; j++) {
			if ((mask & (1u << j)) || !may_meet(&e[w[i]], &e[w[j]]))
				continue;
			unsigned ri = e[w[i]].rating, rj = e[w[j]].rating;
			uint64_t c = (ri > rj ? ri - rj : rj - ri) + f[mask | (1u << i) | (1u << j)];
			if (c < best) {
				best = c;
				pick = (int8_t)j;
			}
		}
		f[mask] = best;
		choice[mask] = pick;
	}
	for (unsigned mask = 0; mask != full;) {
		unsigned i = 0;
		while (mask & (1u << i))
			i++;
		mask |= 1u << i;
		if (choice[mask & ~(1u << i)] >= 0) {
			unsigned j = (unsigned)choice[mask & ~(1u << i)];
			uint32_t a = w[i], b = w[j];
			out[k].a = a < b ? a : b;
			out[k].b = a < b ? b : a;
			k++;
			mask |= 1u << j;
		}
	}
	return k;
}

static int
cmp_pair(const void *pa, const void *pb)
{
	const struct pool_pair *a = pa, *b = pb;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* lichess runs a blossom matching over the whole pool; here each group of equal options is cut,
 * in rating order, into windows of POOL_WINDOW, each matched exactly: a group of that many or fewer
 * (every pool of a small server) gets the exact minimum-weight matching, a larger one the exact one
 * of each window, at 2^POOL_WINDOW * POOL_WINDOW steps a window, bounded on the loop. */
size_t
pool_match(const struct pool_entry *e, size_t n, struct pool_pair *out)
{
	uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
	uint64_t *f = malloc(sizeof *f << POOL_WINDOW);
	int8_t *choice = malloc((size_t)1 << POOL_WINDOW);
	size_t k = 0;

	if (idx == NULL || f == NULL || choice == NULL) {
		free(idx);
		free(f);
		free(choice);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	sort_idx(idx, n, e);
	for (size_t start = 0; start < n;) {
		size_t end = start;
		while (end < n && e[idx[end]].key == e[idx[start]].key && end - start < POOL_WINDOW)
			end++;
		k += match_window(e, idx + start, (unsigned)(end - start), f, choice, out + k);
		start = end;
	}
	qsort(out, k, sizeof *out, cmp_pair);
	free(idx);
	free(f);
	free(choice);
	return k;
}
