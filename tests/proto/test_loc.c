/* SPDX-License-Identifier: MIT */
/* Tests for loc: the plan's letter code for locations, its extension past 26 columns and every refusal. */
#include <criterion/criterion.h>

#include <string.h>

#include "level.h"
#include "loc.h"

Test(loc, plan_example)
{
	struct loc l[4];
	size_t n;

	/* "h7f": x = h, y = 7, id f. Letters count from a = 0. */
	cr_assert_eq(loc_decode("h7f", 3, l, 4, &n, NULL), 0);
	cr_assert_eq(n, 1);
	cr_assert(l[0].x == 7 && l[0].y == 7 && l[0].id == 5);
	cr_assert_eq(loc_decode("h7f,a0a,z12c", 12, l, 4, &n, NULL), 0);
	cr_assert_eq(n, 3);
	cr_assert(l[1].x == 0 && l[1].y == 0 && l[1].id == 0);
	cr_assert(l[2].x == 25 && l[2].y == 12 && l[2].id == 2);
	cr_assert_eq(loc_decode("", 0, l, 4, &n, NULL), 0);
	cr_assert_eq(n, 0);
}

Test(loc, past_26_columns)
{
	char buf[8];
	struct loc in = { 26, 50, 25 }, out;
	size_t n;
	int len;

	cr_assert_eq(loc_format_x(25, buf), 1);
	cr_assert_str_eq(buf, "z");
	cr_assert_eq(loc_format_x(26, buf), 2);
	cr_assert_str_eq(buf, "aa");
	cr_assert_eq(loc_format_x(50, buf), 2);
	cr_assert_str_eq(buf, "ay");
	len = loc_encode(&in, 1, buf, sizeof buf);
	cr_assert_eq(len, 5);
	buf[len] = '\0';
	cr_assert_str_eq(buf, "aa50z");
	cr_assert_eq(loc_decode(buf, 5, &out, 1, &n, NULL), 0);
	cr_assert(out.x == 26 && out.y == 50 && out.id == 25);
}

Test(loc, every_location_round_trips)
{
	static struct loc all[LEVEL_MAX * LEVEL_MAX], back[LEVEL_MAX * LEVEL_MAX];
	static char text[LEVEL_MAX * LEVEL_MAX * LOC_TEXT_MAX];
	size_t n = 0, m;
	int len;

	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++)
			all[n++] = (struct loc){ (uint8_t)x, (uint8_t)y, (uint8_t)((x + y) % 26) };
	len = loc_encode(all, n, text, sizeof text);
	cr_assert_gt(len, 0);
	cr_assert_eq(loc_decode(text, (size_t)len, back, n, &m, NULL), 0);
	cr_assert_eq(m, n);
	cr_assert(memcmp(all, back, sizeof all) == 0);
	cr_assert_eq(loc_decode(text, (size_t)len, back, n - 1, &m, NULL), PROTO_BROKEN, "more than cap");
	cr_assert_eq(loc_encode(all, n, text, (size_t)len - 1), -1, "buffer too small");
}

Test(loc, refusals)
{
	static const char *const bad[] = {
		"h", "h7", "7f", "h7F", "H7f", "h07f", "h7f,", ",h7f", "h7f;a1b", "h7f,,a1b", "az1a" /* x 51 */,
		"ba1a" /* x 52 */, "a51a", "a999999999999a", "abc1a", "h7fg", "h7 f", "h-7f",
	};
	struct loc l[8];
	struct proto_err e;
	size_t n;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(loc_decode(bad[i], strlen(bad[i]), l, 8, &n, &e), PROTO_BROKEN, "%s", bad[i]);
		cr_assert_eq(e.code, PERR_LOC);
	}
	cr_assert_eq(loc_encode(&(struct loc){ 51, 0, 0 }, 1, (char[8]){ 0 }, 8), -1);
	cr_assert_eq(loc_encode(&(struct loc){ 0, 51, 0 }, 1, (char[8]){ 0 }, 8), -1);
	cr_assert_eq(loc_encode(&(struct loc){ 0, 0, 26 }, 1, (char[8]){ 0 }, 8), -1);
}
