/* SPDX-License-Identifier: MIT */
/* test_pool: quick pairing's matching: fixed waves in, the expected pairs out. */
#include <criterion/criterion.h>

#include "pool.h"

static void
expect_pairs(const struct pool_entry *e, size_t n, const struct pool_pair *want, size_t nwant)
{
	struct pool_pair got[32];
	size_t k = pool_match(e, n, got);

	cr_assert_eq(k, nwant, "%zu pairs, want %zu", k, nwant);
	for (size_t i = 0; i < k; i++)
		cr_expect(got[i].a == want[i].a && got[i].b == want[i].b, "pair %zu: %u-%u, want %u-%u", i, got[i].a,
		          got[i].b, want[i].a, want[i].b);
}

Test(pool, nearest_ratings_pair)
{
	/* Sorted 1400 1450 | 1500 1560: the nearest neighbours, not 1400-1500 and 1450-1560. */
	const struct pool_entry e[] = {
		{ 1, 1500, 0 }, { 1, 1400, 0 }, { 1, 1560, 0 }, { 1, 1450, 0 },
	};
	const struct pool_pair want[] = { { 0, 2 }, { 1, 3 } };
	expect_pairs(e, 4, want, 2);
}

Test(pool, minimum_weight_not_greedy)
{
	/* 1000 1060 1100 1160: greedy on the closest pair (1060-1100, 40) leaves 1000 and 1160 apart
	 * (160, beyond every gap): one pair. The minimum-weight matching of most pairs makes two. */
	const struct pool_entry e[] = {
		{ 7, 1000, 0 }, { 7, 1060, 0 }, { 7, 1100, 0 }, { 7, 1160, 0 },
	};
	const struct pool_pair want[] = { { 0, 1 }, { 2, 3 } };
	expect_pairs(e, 4, want, 2);
}

Test(pool, options_never_mix)
{
	const struct pool_entry e[] = {
		{ 1, 1500, 0 }, { 2, 1500, 0 }, { 1, 1510, 0 }, { 2, 1490, 0 }, { 3, 1500, 60 },
	};
	const struct pool_pair want[] = { { 0, 2 }, { 1, 3 } };
	expect_pairs(e, 5, want, 2);
}

Test(pool, the_range_widens_with_the_wait)
{
	/* 300 apart: not at once (gap 100), not when only one waited (both must accept), yes when both
	 * waited 10 s (gap 300). */
	const struct pool_entry fresh[] = { { 1, 1500, 0 }, { 1, 1800, 0 } };
	const struct pool_entry one[] = { { 1, 1500, 60 }, { 1, 1800, 0 } };
	const struct pool_entry both[] = { { 1, 1500, 10 }, { 1, 1800, 10 } };
	const struct pool_pair want[] = { { 0, 1 } };

	expect_pairs(fresh, 2, NULL, 0);
	expect_pairs(one, 2, NULL, 0);
	expect_pairs(both, 2, want, 1);
	cr_expect_eq(pool_gap(0), POOL_GAP_BASE);
	cr_expect_eq(pool_gap(1000000), POOL_GAP_MAX);
}

Test(pool, the_long_waiter_is_paired_first)
{
	/* Three of the same rating: one pair. The one who waited longest is in it. */
	const struct pool_entry e[] = { { 1, 1500, 1 }, { 1, 1500, 2 }, { 1, 1500, 30 } };
	const struct pool_pair want[] = { { 1, 2 } };
	expect_pairs(e, 3, want, 1);
}

Test(pool, deterministic_and_bounded)
{
	struct pool_entry e[25];
	struct pool_pair a[16], b[16];

	for (unsigned i = 0; i < 25; i++)
		e[i] = (struct pool_entry){ 1, (uint16_t)(1500 + (i * 37) % 90), i % 4 };
	size_t ka = pool_match(e, 25, a), kb = pool_match(e, 25, b);
	cr_assert_eq(ka, kb);
	cr_assert_eq(memcmp(a, b, ka * sizeof a[0]), 0);
	/* 25 within 90 points: windows of POOL_WINDOW (10, 10, 5) pair all but the odd one of the last. */
	cr_expect_eq(ka, 12);
	unsigned seen[25] = { 0 };
	for (size_t i = 0; i < ka; i++) {
		cr_expect_lt(a[i].a, a[i].b);
		seen[a[i].a]++;
		seen[a[i].b]++;
	}
	for (unsigned i = 0; i < 25; i++)
		cr_expect_leq(seen[i], 1, "entry %u in %u pairs", i, seen[i]);
	cr_expect_eq(pool_match(e, 0, a), 0);
}
