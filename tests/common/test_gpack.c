/* SPDX-License-Identifier: MIT */
/* Tests for gpack: a packed game unpacks to the same bytes, at every command of many duels, and plays on the same. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "gpack.h"
#include "harness.h"

static uint8_t buf[GPACK_MAX], again[GPACK_MAX];

/* Pack g, unpack it into a struct full of other bytes (a scratch that held another
 * duel), and require every byte back; packing the copy gives the same bytes. */
static size_t
round_trip(const struct game *g, struct game *copy)
{
	size_t n = gpack_pack(g, buf);

	cr_assert_leq(n, GPACK_MAX);
	memset(copy, 0xa5, sizeof *copy);
	cr_assert_eq(gpack_unpack(buf, n, copy), 0, "a packed game did not unpack");
	cr_assert_eq(memcmp(copy, g, sizeof *g), 0, "the unpacked game differs (turn %u, size %d)", g->turn_no,
	             g->level.size);
	cr_assert_eq(gpack_pack(copy, again), n);
	cr_assert_eq(memcmp(buf, again, n), 0, "packing is not deterministic");
	return n;
}

/* From a mid-duel state, the unpacked copy and the original play on with the same bots
 * (the same dice) and must stay the same game, hash and bytes, to the end. */
static void
play_on(const struct game *g, const struct harness_bots *bots)
{
	static struct game a, b;
	struct harness_bots ba = *bots, bb = *bots;
	struct events ev;
	struct cmd ca, cb;

	a = *g;
	round_trip(g, &b);
	for (int k = 0; k < 150 && a.result == RESULT_NONE; k++) {
		harness_bots_step(&ba, &a, &ca, &ev);
		harness_bots_step(&bb, &b, &cb, &ev);
		cr_assert_eq(memcmp(&ca, &cb, sizeof ca), 0);
		cr_assert_eq(game_hash(&a), game_hash(&b), "the unpacked copy played differently (turn %u)", a.turn_no);
		cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
	}
}

struct tally {
	long states;
	size_t max;
	double sum;
};

static void
duels(int size, bool fov, bool potions, int games, uint64_t seed0, struct tally *t)
{
	static struct game g, copy;
	struct options o;
	struct harness_bots bots;
	struct events ev;
	struct cmd c;

	harness_options(&o, size, fov, potions);
	for (int i = 0; i < games; i++) {
		uint64_t seed = seed0 + (uint64_t)i;
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		harness_bots_init(&bots, seed);
		round_trip(&g, &copy);
		for (long k = 0; g.result == RESULT_NONE; k++) {
			harness_bots_step(&bots, &g, &c, &ev);
			size_t n = round_trip(&g, &copy);
			t->states++;
			t->sum += (double)n;
			if (n > t->max)
				t->max = n;
			if (k % 211 == 13)
				play_on(&g, &bots);
		}
	}
}

Test(gpack, every_state_of_duels_at_15_25_51)
{
	static const int sizes[] = { 15, 25, 51 };
	static const int games[] = { 10, 8, 2 };

	for (int s = 0; s < 3; s++) {
		struct tally t = { 0, 0, 0 };
		for (int m = 0; m < 4; m++)
			duels(sizes[s], m & 1, m & 2, games[s], 7000 + (uint64_t)(100 * s + 1000 * m), &t);
		fprintf(stderr, "# size %d: %ld states, packed %.0f bytes on average, %zu at most (struct game %zu)\n",
		            sizes[s], t.states, t.sum / (double)t.states, t.max, sizeof(struct game));
		cr_assert_gt(t.states, 1000);
		/* Not a tautology of the round trip: the point is to be small at the common sizes. */
		if (sizes[s] <= 25)
			cr_assert_lt(t.max, 2048, "size %d packs to %zu bytes", sizes[s], t.max);
	}
}

/* The smarter bots reach other states (potions drunk and identified, long chases): whole
 * duels between them, every state round-tripped. */
Test(gpack, duels_of_the_searching_levels)
{
	static struct game g, copy;
	struct options o;
	struct rng r[PLAYERS];
	struct view v;
	struct events ev;
	struct cmd c;

	for (int i = 0; i < 6; i++) {
		harness_options(&o, i % 2 ? 25 : 15, true, true);
		cr_assert_eq(game_init(&g, &o, 500 + (uint64_t)i), ERR_OK);
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], 900 + (uint64_t)(i * 2 + p));
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			view_build(&g, p, &v);
			bot_choose(&v, i < 3 ? BOT_NORMAL : BOT_HARD, &r[p], &c);
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				c = (struct cmd){ CMD_PASS, 0, 0 };
				cr_assert_eq(game_apply(&g, p, &c, &ev), ERR_OK);
			}
			round_trip(&g, &copy);
		}
	}
}

/* Bytes that are not a packed game are refused, whatever a caller hands in. */
Test(gpack, refuses_what_it_did_not_make)
{
	static struct game g, copy;
	struct options o;

	harness_options(&o, 25, true, true);
	cr_assert_eq(game_init(&g, &o, 3), ERR_OK);
	size_t n = gpack_pack(&g, buf);
	cr_assert_eq(gpack_unpack(buf, n, &copy), 0);
	cr_expect_eq(gpack_unpack(buf, n - 1, &copy), -1, "cut short");
	cr_expect_eq(gpack_unpack(buf, n + 1, &copy), -1, "a byte too many");
	cr_expect_eq(gpack_unpack(buf, 10, &copy), -1, "far too short");
	cr_expect_eq(gpack_unpack(buf, 0, &copy), -1, "empty");

	/* The first grid's width byte follows everything outside the grids. */
	size_t w0 = sizeof g - 6 * (size_t)LEVEL_MAX * LEVEL_MAX;
	cr_assert_eq(buf[w0], 1, "the level's cells are 1 bit wide");
	buf[w0] = 9;
	cr_expect_eq(gpack_unpack(buf, n, &copy), -1, "a width of 9 bits");

	g.level.size = LEVEL_MAX + 1;
	n = gpack_pack(&g, buf);
	cr_expect_eq(gpack_unpack(buf, n, &copy), -1, "a level larger than LEVEL_MAX");
}

/* A game that never started (all zeros, as a room before its first duel) round-trips too. */
Test(gpack, the_empty_game)
{
	static struct game g, copy;

	memset(&g, 0, sizeof g);
	size_t n = round_trip(&g, &copy);
	cr_assert_eq(n, sizeof g - 6 * (size_t)LEVEL_MAX * LEVEL_MAX + 6);
}

/* Both forms of a grid, by their sizes: a few cells are a list (3 bytes and 2 a cell), many
 * are rows of 8-cell words at the width of the largest value (here 3 bits: 3 bytes a word). */
Test(gpack, a_grid_is_a_list_or_rows_by_what_is_smaller)
{
	static struct game g, copy;
	const size_t outside = sizeof g - 6 * (size_t)LEVEL_MAX * LEVEL_MAX;

	memset(&g, 0, sizeof g);
	g.level.size = 25;
	cr_assert_eq(round_trip(&g, &copy), outside + 6);
	g.potion[3][4] = 5;
	g.potion[24][24] = 1;
	g.wiz[1].memp[0][24] = 15;
	cr_assert_eq(round_trip(&g, &copy), outside + 4 + (3 + 2 * 2) + (3 + 2), "two lists: 3 + 2 x 2, 3 + 1 x 2");
	for (int y = 0; y < 25; y++)
		for (int x = 0; x < 25; x++)
			g.potion[y][x] = (uint8_t)(1 + (x + y) % 5);
	cr_assert_eq(round_trip(&g, &copy), outside + 4 + (1 + 25 * 4 * 3) + (3 + 2), "the potions as rows");
	g.potion[10][10] = 200; /* too wide for a list: rows of 8 bits */
	cr_assert_eq(round_trip(&g, &copy), outside + 4 + (1 + 25 * 4 * 8) + (3 + 2));
}

/* ---- the bytes, against the format's definition ---- */

/* The packed form written out cell by cell from its definition in gpack.h, with none of
 * the packer's word tricks (the halvings and multiplies of fold, reading a grid once, a
 * count that stops early): the packer must make these very bytes (issue 29 made it
 * faster; no byte of its output may change). Grids in struct order, as grid_at. */
static size_t
ref_pack(const struct game *g, uint8_t *out, long *lists)
{
	static const size_t wiz = offsetof(struct game, wiz), ws = sizeof(struct wizard);
	const size_t at[6] = { offsetof(struct game, level) + offsetof(struct level, cell), offsetof(struct game, potion),
		               wiz + offsetof(struct wizard, mem), wiz + offsetof(struct wizard, memp),
		               wiz + ws + offsetof(struct wizard, mem), wiz + ws + offsetof(struct wizard, memp) };
	const size_t cells = (size_t)LEVEL_MAX * LEVEL_MAX;
	const uint8_t *b = (const uint8_t *)g;
	int n = g->level.size <= LEVEL_MAX ? g->level.size : LEVEL_MAX, words = (n + 7) / 8;
	size_t o = 0, from = 0;

	for (int i = 0; i < 6; i++) {
		memcpy(out + o, b + from, at[i] - from);
		o += at[i] - from;
		from = at[i] + cells;
	}
	memcpy(out + o, b + from, sizeof *g - from);
	o += sizeof *g - from;
	for (int i = 0; i < 6; i++) {
		const uint8_t *grid = b + at[i];
		unsigned max = 0, used = 0, count = 0;
		int w = 0;
		for (int y = 0; y < n; y++)
			for (int j = 0; j < words; j++) {
				bool nz = false;
				for (int k = 8 * j; k < 8 * j + 8 && k < n; k++) {
					max = grid[y * LEVEL_MAX + k] > max ? grid[y * LEVEL_MAX + k] : max;
					nz |= grid[y * LEVEL_MAX + k] != 0;
				}
				used += nz;
			}
		while (max >> w)
			w++;
		if (w > 0 && w <= 4 && 3 + 16 * (size_t)used < 1 + (size_t)n * (size_t)words * (size_t)w) {
			size_t head = o;
			o += 3;
			for (int y = 0; y < n; y++)
				for (int x = 0; x < n; x++)
					if (grid[y * LEVEL_MAX + x]) {
						unsigned c = (unsigned)y << 6 | (unsigned)x;
						out[o++] = (uint8_t)c;
						out[o++] = (uint8_t)(c >> 8 | (unsigned)grid[y * LEVEL_MAX + x] << 4);
						count++;
					}
			out[head] = 16;
			++*lists;
			out[head + 1] = (uint8_t)count;
			out[head + 2] = (uint8_t)(count >> 8);
			continue;
		}
		out[o++] = (uint8_t)w;
		for (int y = 0; y < n; y++)
			for (int j = 0; j < words; j++, o += (size_t)w) {
				memset(out + o, 0, (size_t)w);
				for (int k = 0; k < 8 && 8 * j + k < n; k++)
					for (int bit = 0; bit < w; bit++)
						if (grid[y * LEVEL_MAX + 8 * j + k] >> bit & 1)
							out[o + (size_t)(k * w + bit) / 8] |= (uint8_t)(1u << ((k * w + bit) % 8));
			}
	}
	return o;
}

static void
same_as_ref(const struct game *g, long *lists)
{
	static uint8_t ref[GPACK_MAX];
	size_t n = gpack_pack(g, buf), m = ref_pack(g, ref, lists);

	cr_assert_eq(n, m, "size %d, turn %u: %zu bytes, the definition %zu", g->level.size, g->turn_no, n, m);
	size_t d = 0;
	while (d < n && buf[d] == ref[d])
		d++;
	cr_assert(d == n, "size %d, turn %u: byte %zu of %zu (%zu past the grids' start) is %u, the definition's %u",
	          g->level.size, g->turn_no, d, n, d - (sizeof *g - 6 * (size_t)LEVEL_MAX * LEVEL_MAX), buf[d], ref[d]);
}

/* Every state of duels at 15, 25, 41 and 51 (with and without FoV and potions), then grids
 * of random values at every size and density, each of the widths 1 to 8 (zero outside the
 * level, as the rules keep it): the packer's bytes are the definition's, and unpack to the
 * same game (widths 5 to 7, which no rules make, did not before issue 29). */
Test(gpack, the_bytes_are_the_definitions)
{
	static struct game g, copy;
	static const int sizes[] = { 15, 25, 41, 51 };
	struct options o;
	struct harness_bots bots;
	struct events ev;
	struct cmd c;
	struct rng r;
	long states = 0, lists = 0, duel_lists;

	for (int s = 0; s < 4; s++)
		for (int m = 0; m < 4; m++) {
			harness_options(&o, sizes[s], m & 1, m & 2);
			cr_assert_eq(game_init(&g, &o, 4100 + (uint64_t)(10 * s + m)), ERR_OK);
			harness_bots_init(&bots, 4100 + (uint64_t)(10 * s + m));
			same_as_ref(&g, &lists);
			for (int k = 0; k < 400 && g.result == RESULT_NONE; k++, states++) {
				harness_bots_step(&bots, &g, &c, &ev);
				same_as_ref(&g, &lists);
			}
		}
	duel_lists = lists;
	rng_seed(&r, 29);
	for (int i = 0; i < 3000; i++, states++) {
		int n = 1 + (int)rng_below(&r, LEVEL_MAX);
		memset(&g, 0, sizeof g);
		g.level.size = (uint8_t)n;
		uint8_t *grids[6] = { &g.level.cell[0][0], &g.potion[0][0], &g.wiz[0].mem[0][0], &g.wiz[0].memp[0][0],
			              &g.wiz[1].mem[0][0], &g.wiz[1].memp[0][0] };
		for (int k = 0; k < 6; k++) {
			/* per mille of cells set: none, a few (near the list's limit), many, all */
			static const unsigned dens[] = { 0, 8, 30, 120, 600, 1000 };
			unsigned d = dens[rng_below(&r, 6)], top = (1u << (1 + rng_below(&r, 8))) - 1;
			for (int y = 0; y < n; y++)
				for (int x = 0; x < n; x++)
					if (rng_below(&r, 1000) < d)
						grids[k][y * LEVEL_MAX + x] = (uint8_t)(1 + rng_below(&r, top));
		}
		same_as_ref(&g, &lists);
		round_trip(&g, &copy);
	}
	cr_assert_gt(states, 4000);
	cr_assert(duel_lists > 1000 && lists - duel_lists > 1000, "lists: %ld in the duels, %ld in random grids",
	          duel_lists, lists - duel_lists);
}

/* The server's way (room.c): a duel held packed, unpacked with a memo into a scratch that
 * held another game, a command applied, packed again with the memo; or a run of commands
 * in one room, each packed with the memo the last left. Every packing must be the bytes
 * of a fresh gpack_pack(), whichever grids the command changed. */
static uint8_t held[GPACK_MAX], out[GPACK_MAX], fresh[GPACK_MAX];

static size_t
memo_keep(const struct game *g, struct gpack_memo *m, size_t *held_len)
{
	size_t n = gpack_pack_memo(g, held, m, out), f = gpack_pack(g, fresh);

	cr_assert_eq(n, f, "the memo's packing has %zu bytes, a fresh one %zu (turn %u)", n, f, g->turn_no);
	cr_assert_eq(memcmp(out, fresh, n), 0, "the memo's packing differs from a fresh one (turn %u)", g->turn_no);
	memcpy(held, out, n);
	*held_len = n;
	return n;
}

Test(gpack, a_memo_packs_the_bytes_of_a_fresh_pack)
{
	static struct game g, scratch;
	static struct gpack_memo m;
	struct options o;
	struct harness_bots bots;
	struct events ev;
	struct cmd c;
	long states = 0;

	for (int i = 0; i < 8; i++) {
		harness_options(&o, i % 4 == 3 ? 51 : i % 2 ? 25 : 15, i & 1, i & 2);
		cr_assert_eq(game_init(&g, &o, 8100 + (uint64_t)i), ERR_OK);
		harness_bots_init(&bots, 8100 + (uint64_t)i);
		m.n = 0;
		size_t len = 0;
		memo_keep(&g, &m, &len);
		for (long k = 0; g.result == RESULT_NONE; k++, states++) {
			if (k % 3 == 0) { /* another room ran between: unpack with a memo */
				memset(&scratch, 0x5a, sizeof scratch);
				memset(&m, 0xa5, sizeof m);
				cr_assert_eq(gpack_unpack_memo(held, len, &scratch, &m), 0);
				cr_assert_eq(memcmp(&scratch, &g, sizeof g), 0);
			}
			harness_bots_step(&bots, &g, &c, &ev);
			memo_keep(&g, &m, &len);
		}
	}
	cr_assert_gt(states, 1000);
}

/* A change to any one cell of any grid, wherever it lies in the level and whatever it does
 * to the grid's width or form, is packed: a memo that went stale would copy the old bytes. */
Test(gpack, a_memo_sees_a_change_to_any_cell)
{
	static struct game g, scratch;
	static struct gpack_memo m;
	static const size_t at[6] = {
		offsetof(struct game, level) + offsetof(struct level, cell), offsetof(struct game, potion),
		offsetof(struct game, wiz[0].mem), offsetof(struct game, wiz[0].memp),
		offsetof(struct game, wiz[1].mem), offsetof(struct game, wiz[1].memp),
	};
	struct options o;
	size_t len, n;

	harness_options(&o, 25, true, true);
	cr_assert_eq(game_init(&g, &o, 77), ERR_OK);
	const int s = g.level.size;
	const int cells[][2] = { { 0, 0 }, { s - 1, 0 }, { 0, s - 1 }, { s - 1, s - 1 }, { 12, 7 } };
	const uint8_t values[] = { 0, 1, 3, 9 };
	for (int i = 0; i < 6; i++)
		for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++)
			for (size_t v = 0; v < sizeof values; v++) {
				const uint8_t *cell = (const uint8_t *)&g + at[i] + (size_t)cells[k][1] * LEVEL_MAX + (size_t)cells[k][0];
				len = gpack_pack(&g, held);
				cr_assert_eq(gpack_unpack_memo(held, len, &scratch, &m), 0);
				if (*cell == values[v])
					continue;
				((uint8_t *)&scratch)[at[i] + (size_t)cells[k][1] * LEVEL_MAX + (size_t)cells[k][0]] = values[v];
				n = gpack_pack_memo(&scratch, held, &m, out);
				cr_assert_eq(n, gpack_pack(&scratch, fresh), "grid %d, cell (%d, %d) = %u: a stale length", i,
				             cells[k][0], cells[k][1], values[v]);
				cr_assert_eq(memcmp(out, fresh, n), 0, "grid %d, cell (%d, %d) = %u: stale bytes", i, cells[k][0],
				             cells[k][1], values[v]);
			}
	/* A memo of a 25x25 level does not serve a 15x15 one's packing, nor one with no memo. */
	len = gpack_pack(&g, held);
	cr_assert_eq(gpack_unpack_memo(held, len, &scratch, &m), 0);
	harness_options(&o, 15, true, true);
	cr_assert_eq(game_init(&scratch, &o, 77), ERR_OK);
	n = gpack_pack_memo(&scratch, held, &m, out);
	cr_assert_eq(n, gpack_pack(&scratch, fresh));
	cr_assert_eq(memcmp(out, fresh, n), 0, "a memo of another size served");
}
