/* SPDX-License-Identifier: MIT */
/* layout: the plan's run-length code for dungeon cells, extended for cells never seen. */
#ifndef WW_LAYOUT_H
#define WW_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "proto.h"

/*
 * A sequence of cells, each VCELL_UNKNOWN (0), VCELL_WALL (1) or VCELL_FLOOR (2)
 * (view.h's numbers), is written as maximal runs:
 *   a run of n walls   'a' + n - 1 for n <= 26 ("a" = 1 wall, "z" = 26); longer runs
 *                      repeat 'z' for each 26 and end with the rest ("zd" = 30)
 *   a run of n floors  the same with 'A'..'Z'
 *   a run of n unknown cells (the extension): n in decimal, no leading zero ("400")
 * A decoder accepts any split of a run ("ab" = 3 walls) but never a run of 0,
 * a leading zero or more cells than the sequence holds.
 */

/* Write n cells as run-length text into out (no NUL). Returns its length, or -1
 * when a cell is not 0..2 or cap is too small. */
int layout_encode(const uint8_t *cells, size_t n, char *out, size_t cap);

/* The length layout_encode() gives a run of `run` cells of one kind (0..2): its decimal
 * digits for unknown cells, a letter per 26 for walls or floors; 0 for no cells. A
 * sequence's text is the sum over its maximal runs, so a sender can weigh several
 * forms without writing any (update.c). */
static inline size_t
layout_run_len(unsigned kind, size_t run)
{
	size_t d = 1;

	if (run == 0)
		return 0;
	if (kind != 0)
		return (run + 25) / 26;
	while (run >= 10) {
		run /= 10;
		d++;
	}
	return d;
}

/* Read run-length text into at most cap cells; *n receives how many. Returns 0,
 * or PROTO_BROKEN with e filled (PERR_LAYOUT). */
int layout_decode(const char *s, size_t len, uint8_t *cells, size_t cap, size_t *n, struct proto_err *e);

/* Run-length text for a sequence of this many cells is never longer than this. */
size_t layout_bound(size_t cells);

/* The plan's own form of a whole level: the outer edge dropped, the (size-2)^2
 * interior cells row by row, walls and floors only. Returns the length or -1. */
int layout_encode_level(const struct level *lv, char *out, size_t cap);
/* Back to a level of side `size` (the outer ring set to wall). 0 or PROTO_BROKEN. */
int layout_decode_level(const char *s, size_t len, int size, struct level *lv, struct proto_err *e);

/* The outer ring as a sequence: 4 * (size - 1) cells, clockwise from (0, 0):
 * the top row left to right, the right column down, the bottom row right to
 * left, the left column up. */
int layout_ring_len(int size);
void layout_ring_point(int size, int i, int *x, int *y);

#endif
