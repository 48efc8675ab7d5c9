/* SPDX-License-Identifier: MIT */
/* gpack: packs a struct game to its level's size (grids as bit streams) and back, for a server's idle duels. */
#include <stddef.h>
#include <string.h>

#include "gpack.h"

#define GRIDS 6
#define CELLS (LEVEL_MAX * LEVEL_MAX)
#define WIZ(p, f) (offsetof(struct game, wiz) + (p) * sizeof(struct wizard) + offsetof(struct wizard, f))

typedef uint8_t grid_t[LEVEL_MAX][LEVEL_MAX];

/* The grids by their place in the struct, in increasing order: the bytes between them
 * (and before the first, and after the last) are the rest of the game, copied whole. */
static const size_t grid_at[GRIDS] = {
	offsetof(struct game, level) + offsetof(struct level, cell),
	offsetof(struct game, potion),
	WIZ(0, mem),
	WIZ(0, memp),
	WIZ(1, mem),
	WIZ(1, memp),
};

_Static_assert(PLAYERS == 2, "gpack's grid table has two wizards");
_Static_assert(sizeof(grid_t) == CELLS, "a grid is LEVEL_MAX x LEVEL_MAX bytes");
_Static_assert(offsetof(struct game, potion) >= offsetof(struct game, level) + sizeof(struct level),
               "the grids are in struct order");
_Static_assert(WIZ(0, memp) >= WIZ(0, mem) + CELLS && WIZ(1, mem) >= WIZ(0, memp) + CELLS &&
               WIZ(1, memp) >= WIZ(1, mem) + CELLS && WIZ(0, mem) >= offsetof(struct game, potion) + CELLS,
               "the grids are in struct order");

/* Bits needed for every value of the grid's first n x n cells: that of their or. */
static int
width(const uint8_t *grid, int n)
{
	unsigned any = 0;
	int w = 0;

	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			any |= grid[y * LEVEL_MAX + x];
	while (any >> w)
		w++;
	return w;
}

/* The first n x n cells, row by row, w bits each, least significant first. */
static uint8_t *
put_grid(uint8_t *o, const uint8_t *grid, int n, int w)
{
	uint32_t acc = 0;
	int bits = 0;

	*o++ = (uint8_t)w;
	if (w == 0)
		return o;
	for (int y = 0; y < n; y++) {
		const uint8_t *row = grid + y * LEVEL_MAX;
		for (int x = 0; x < n; x++) {
			acc |= (uint32_t)row[x] << bits;
			bits += w;
			if (bits >= 8) {
				*o++ = (uint8_t)acc;
				acc >>= 8;
				bits -= 8;
			}
		}
	}
	if (bits > 0)
		*o++ = (uint8_t)acc;
	return o;
}

static const uint8_t *
get_grid(const uint8_t *in, const uint8_t *end, uint8_t *grid, int n)
{
	int w;
	uint32_t acc = 0, mask;
	int bits = 0;

	if (in >= end || (w = *in++) > 8)
		return NULL;
	if (w == 0)
		return in; /* the grid stays zero */
	if ((size_t)(end - in) < ((size_t)n * (size_t)n * (size_t)w + 7) / 8)
		return NULL;
	mask = (1u << w) - 1;
	for (int y = 0; y < n; y++) {
		uint8_t *row = grid + y * LEVEL_MAX;
		for (int x = 0; x < n; x++) {
			if (bits < w) {
				acc |= (uint32_t)*in++ << bits;
				bits += 8;
			}
			row[x] = (uint8_t)(acc & mask);
			acc >>= w;
			bits -= w;
		}
	}
	return in;
}

size_t
gpack_pack(const struct game *g, uint8_t *out)
{
	const uint8_t *b = (const uint8_t *)g;
	int n = g->level.size <= LEVEL_MAX ? g->level.size : LEVEL_MAX;
	uint8_t *o = out;
	size_t at = 0;

	for (int i = 0; i < GRIDS; i++) {
		memcpy(o, b + at, grid_at[i] - at);
		o += grid_at[i] - at;
		at = grid_at[i] + CELLS;
	}
	memcpy(o, b + at, sizeof *g - at);
	o += sizeof *g - at;
	for (int i = 0; i < GRIDS; i++)
		o = put_grid(o, b + grid_at[i], n, width(b + grid_at[i], n));
	return (size_t)(o - out);
}

int
gpack_unpack(const uint8_t *in, size_t len, struct game *g)
{
	uint8_t *b = (uint8_t *)g;
	const uint8_t *end = in + len;
	size_t at = 0;
	int n;

	if (len < sizeof *g - GRIDS * CELLS)
		return -1;
	for (int i = 0; i < GRIDS; i++) {
		memcpy(b + at, in, grid_at[i] - at);
		in += grid_at[i] - at;
		memset(b + grid_at[i], 0, CELLS);
		at = grid_at[i] + CELLS;
	}
	memcpy(b + at, in, sizeof *g - at);
	in += sizeof *g - at;
	if ((n = g->level.size) > LEVEL_MAX)
		return -1;
	for (int i = 0; i < GRIDS; i++)
		if ((in = get_grid(in, end, b + grid_at[i], n)) == NULL)
			return -1;
	return in == end ? 0 : -1;
}
