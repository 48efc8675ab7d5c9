/* SPDX-License-Identifier: MIT */
/* Tests for layout: the plan's run-length examples, the unknown-cell extension, whole levels and every refusal. */
#include <criterion/criterion.h>

#include <string.h>

#include "layout.h"
#include "rng.h"
#include "view.h"

/* Cells from a string of the plan's digits: '0' wall, '1' floor, '?' unknown. */
static size_t
cells_of(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; *s; s++)
		out[n++] = *s == '0' ? VCELL_WALL : *s == '1' ? VCELL_FLOOR : VCELL_UNKNOWN;
	return n;
}

static void
check(const char *digits, const char *code)
{
	uint8_t cells[3000], back[3000];
	char out[3000];
	size_t n = cells_of(digits, cells), m;
	int len = layout_encode(cells, n, out, sizeof out);

	cr_assert_geq(len, 0);
	out[len] = '\0';
	cr_assert_str_eq(out, code, "%s", digits);
	cr_assert_eq(layout_decode(out, (size_t)len, back, sizeof back, &m, NULL), 0);
	cr_assert_eq(m, n);
	cr_assert(memcmp(cells, back, n) == 0);
}

Test(layout, plan_examples)
{
	/* "000 to c, 00 to b, 0 to a; 111 to C, 11 to B, 1 to A" */
	check("000", "c");
	check("00", "b");
	check("0", "a");
	check("111", "C");
	check("11", "B");
	check("1", "A");
	check("0001101", "cBaA");
	check("11111111111111111111111111", "Z");   /* 26 */
	check("111111111111111111111111111", "ZA"); /* 27: runs stop at z / Z */
	check("", "");
}

Test(layout, unknown_runs_are_decimal)
{
	check("?", "1");
	check("??????????", "10");
	check("0??1", "a2A");
	check("???0", "3a");
}

Test(layout, whole_level_drops_the_edge)
{
	struct level lv, back;
	char out[4000];
	int len;

	/* The plan's 25x25: 23x23 = 529 interior cells, all wall = 20 z's and an i (20 * 26 + 9). */
	memset(&lv, 0, sizeof lv);
	lv.size = 25;
	len = layout_encode_level(&lv, out, sizeof out);
	cr_assert_eq(len, 21);
	out[len] = '\0';
	cr_assert_str_eq(out, "zzzzzzzzzzzzzzzzzzzzi");
	/* Random levels go there and back. */
	for (int i = 0; i < 200; i++) {
		struct rng r;
		int size = 15 + 2 * (i % 19);

		rng_seed(&r, (uint64_t)i);
		cr_assert_eq(level_generate(&lv, size, &r, NULL), 0);
		len = layout_encode_level(&lv, out, sizeof out);
		cr_assert_gt(len, 0);
		cr_assert_leq((size_t)len, layout_bound((size_t)(size - 2) * (size_t)(size - 2)));
		cr_assert_eq(layout_decode_level(out, (size_t)len, size, &back, NULL), 0);
		cr_assert_eq(back.size, size);
		for (int y = 0; y < size; y++)
			cr_assert(memcmp(back.cell[y], lv.cell[y], (size_t)size) == 0, "level %d row %d", i, y);
	}
	cr_assert_eq(layout_encode_level(&(struct level){ .size = 0 }, out, sizeof out), -1);
}

Test(layout, bound_holds_for_the_worst_case)
{
	uint8_t cells[2401];
	char out[2401];

	for (int i = 0; i < 2401; i++)
		cells[i] = (uint8_t)(i % 3);
	cr_assert_eq(layout_encode(cells, 2401, out, layout_bound(2401)), 2401);
	cr_assert_eq(layout_encode(cells, 2401, out, 2400), -1, "too small a buffer");
	cells[7] = 3;
	cr_assert_eq(layout_encode(cells, 2401, out, sizeof out), -1, "not a cell");
}

Test(layout, refusals)
{
	static const char *const bad[] = { "0", "a0", "05a", "a-b", "a b", "\x80", "12345678901234567890" };
	uint8_t cells[100];
	struct proto_err e;
	size_t n;
	struct level lv;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(layout_decode(bad[i], strlen(bad[i]), cells, sizeof cells, &n, &e), PROTO_BROKEN, "%s", bad[i]);
		cr_assert_eq(e.code, PERR_LAYOUT);
	}
	cr_assert_eq(layout_decode("zzzzz", 5, cells, 100, &n, NULL), PROTO_BROKEN, "130 cells into 100");
	cr_assert_eq(layout_decode("zzzv", 4, cells, 100, &n, NULL), 0);
	cr_assert_eq(n, 100);
	cr_assert_eq(layout_decode("101", 3, cells, 100, &n, NULL), PROTO_BROKEN, "over the cap in digits");
	/* A whole level needs exactly its cells, known ones only. */
	cr_assert_eq(layout_decode_level("a", 1, 3, &lv, NULL), 0);
	cr_assert_eq(layout_decode_level("b", 1, 3, &lv, &e), PROTO_BROKEN);
	cr_assert_eq(layout_decode_level("1", 1, 3, &lv, &e), PROTO_BROKEN);
	cr_assert_eq(layout_decode_level("a", 1, 99, &lv, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
}

Test(layout, ring_walk)
{
	for (int size = 15; size <= 51; size += 2) {
		bool seen[51][51] = { { false } };
		int n = layout_ring_len(size);

		cr_assert_eq(n, 4 * (size - 1));
		for (int i = 0; i < n; i++) {
			int x, y;

			layout_ring_point(size, i, &x, &y);
			cr_assert(x == 0 || y == 0 || x == size - 1 || y == size - 1);
			cr_assert(!seen[y][x]);
			seen[y][x] = true;
		}
	}
	{
		int x, y;

		layout_ring_point(25, 0, &x, &y);
		cr_assert(x == 0 && y == 0);
		layout_ring_point(25, 24, &x, &y);
		cr_assert(x == 24 && y == 0, "then down the right side");
		layout_ring_point(25, 95, &x, &y);
		cr_assert(x == 0 && y == 1, "and up the left side last");
	}
	cr_assert_eq(layout_ring_len(1), 0);
}

/* A random sequence in long runs or short, some kinds left out, as views hold them. */
static size_t
random_cells(struct rng *r, uint8_t *cells, size_t cap)
{
	size_t n = rng_below(r, (uint32_t)cap);
	uint32_t kinds = 1 + rng_below(r, 3), stay = rng_below(r, 40);

	for (size_t i = 0; i < n; i++)
		cells[i] = i > 0 && rng_below(r, 40) < stay ? cells[i - 1] : (uint8_t)rng_below(r, kinds);
	return n;
}

/* layout_run_len over a sequence's maximal runs is layout_encode's length: update.c weighs
 * the forms of a layout by it without writing any. */
Test(layout, run_len_sums_to_the_text)
{
	struct rng r;
	uint8_t cells[2600];
	char out[2600];

	rng_seed(&r, 29);
	for (int t = 0; t < 2000; t++) {
		size_t n = random_cells(&r, cells, sizeof cells), sum = 0;

		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && cells[j] == cells[i]; j++)
				;
			sum += layout_run_len(cells[i], j - i);
		}
		cr_assert_eq((size_t)layout_encode(cells, n, out, sizeof out), sum, "sequence %d", t);
	}
	cr_assert_eq(layout_run_len(0, 0), 0);
	cr_assert_eq(layout_run_len(1, 0), 0);
	cr_assert_eq(layout_run_len(0, 999), 3);
	cr_assert_eq(layout_run_len(0, 1000), 4);
	cr_assert_eq(layout_run_len(2, 26), 1);
	cr_assert_eq(layout_run_len(2, 27), 2);
}

/* A cell added anywhere never shortens the text: update.c leaves out a layout form whose
 * cells hold an earlier form's (it cannot be shorter, and a tie keeps the earlier one). */
Test(layout, a_cell_added_never_shortens_the_text)
{
	struct rng r;
	uint8_t cells[2600], more[2601];
	char out[2601];

	rng_seed(&r, 2929);
	for (int t = 0; t < 20000; t++) {
		size_t n = random_cells(&r, cells, sizeof cells), at = rng_below(&r, (uint32_t)n + 1);
		int len = layout_encode(cells, n, out, sizeof out);

		memcpy(more, cells, at);
		more[at] = (uint8_t)rng_below(&r, 3);
		memcpy(more + at + 1, cells + at, n - at);
		cr_assert_geq(layout_encode(more, n + 1, out, sizeof out), len, "sequence %d, cell %zu", t, at);
	}
}
