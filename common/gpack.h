/* SPDX-License-Identifier: MIT */
/* gpack: a struct game packed to its level's size, for holding a duel between commands in little memory. */
#ifndef WW_GPACK_H
#define WW_GPACK_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

/*
 * A struct game is sized for the largest level: its six grids (the level, the potions,
 * each wizard's memory of walls and of potions) are LEVEL_MAX x LEVEL_MAX bytes each,
 * 15.6 KiB in all, where a 25x25 duel uses 3.7 KiB of them and each cell needs 1 to 3 bits.
 * A server holding thousands of duels keeps each one packed between its commands and
 * unpacks it into one scratch game to apply a command.
 *
 * The packed form is every byte of struct game outside the six grids, copied as it is
 * (so a field added to the struct is packed without a change here, unless it is a grid),
 * then each grid's first `size` rows of `size` cells at the width of its largest value
 * (0 to 8 bits; 0 for a grid of zeros), each row rounded up to 8 cells; or, for a grid
 * of few cells not zero (the potions; what a wizard remembers of them), the list of those
 * cells, where that is smaller. At 25x25: 0.4 to 1.5 KiB, 0.75 on average over whole
 * duels. It is for this process's memory only: it follows the struct's layout and byte
 * order, and is never written to a file or the wire (turn logs do that). gpack_unpack(gpack_pack(g)) equals g byte for byte, padding
 * included, provided g's grids hold zeros outside the level, as every game the rules
 * make does (the rules read nothing there). Pure: no I/O, no allocation, no globals.
 */

/* Bytes of a packed game at most: a 51x51 level, every cell 8 bits wide, each row
 * rounded up to 8 cells; and 8 bytes to spare for the packer's word stores. */
#define GPACK_MAX (sizeof(struct game) + 6 * (1 + 8 * LEVEL_MAX) + 8)

/* Pack g into out (GPACK_MAX bytes); returns the bytes written. */
size_t gpack_pack(const struct game *g, uint8_t *out);

/* Unpack len bytes made by gpack_pack() into g. Returns 0, or -1 (g then unusable) when
 * they cannot be a packed game: a level size above LEVEL_MAX, a width above 8, a length that
 * does not match. */
int gpack_unpack(const uint8_t *in, size_t len, struct game *g);

/*
 * A server packs the scratch game again after every command, where most commands change
 * one grid of six or none (a wizard's memory while it explores; the level only by a few
 * spells). A memo keeps the grids as the packed bytes last unpacked or made hold them,
 * and where each grid's bytes lie in them, so that packing again copies the bytes of a
 * grid still equal to its memo instead of folding it anew: the same bytes as
 * gpack_pack(), for less work (issue 29). Equality is tested on the bytes, never
 * assumed, so that no change to a grid can be missed, whoever made it.
 */
#define GPACK_GRIDS 6

struct gpack_memo {
	int n;                                   /* the level's side the grids are held at; 0: no memo */
	uint32_t at[GPACK_GRIDS + 1];            /* grid i's bytes in the packed form: at[i] to at[i + 1] */
	uint8_t grid[GPACK_GRIDS][LEVEL_MAX * LEVEL_MAX]; /* each grid's first n rows, as in struct game */
};

/* gpack_unpack(), and m made to describe in's bytes (cleared on failure). */
int gpack_unpack_memo(const uint8_t *in, size_t len, struct game *g, struct gpack_memo *m);

/* gpack_pack() into out, the same bytes, where `old` holds the packed bytes m describes
 * (from gpack_unpack_memo() or the last gpack_pack_memo(); m->n 0: none, all is packed);
 * out must not overlap old. m then describes out. */
size_t gpack_pack_memo(const struct game *g, const uint8_t *old, struct gpack_memo *m, uint8_t *out);

#endif
