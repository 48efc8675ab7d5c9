/* SPDX-License-Identifier: MIT */
/* fov: symmetric line of sight on a square of radius FOV_RADIUS, walls drawn whole. */
#include "fov.h"
#include "internal.h"
#include "le.h"

#include <stdlib.h>
#include <string.h>

/* One quadrant of the square of sight, corner and axes included: cell (ux, uy), both
 * 0..FOV_RADIUS away from the viewer, is bit uy * QUAD + ux of a 64-bit mask. */
#define QUAD (FOV_RADIUS + 1)
#define QUAD_MASK ((UINT64_C(1) << (QUAD * QUAD)) - 1)
_Static_assert(QUAD * QUAD <= 64, "a quadrant must fit one 64-bit mask");
_Static_assert(FOV_SIDE <= 16, "a row of the square must fit 16 bits");

/*
 * The Bresenham lines of one quadrant: lines[uy * QUAD + ux] holds, for a target ux and
 * uy cells away, the cells strictly between the two ends of the line run from the
 * viewer ([0]) and of the line run back from the target ([1]), both as quadrant masks
 * relative to the viewer. line_clear() below steps by the signs of dx and dy and decides
 * from |dx| and |dy| alone, so the other three quadrants are this one mirrored.
 * Written out by line_clear() itself; test_fov.c checks every entry against it.
 */
static const uint64_t lines[QUAD * QUAD][2] = {
	{ 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x2u, 0x2u }, { 0x6u, 0x6u }, { 0xeu, 0xeu }, { 0x1eu, 0x1eu }, { 0x3eu, 0x3eu },
	{ 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x100u, 0x2u }, { 0x202u, 0x202u }, { 0x602u, 0x406u }, { 0xc06u, 0xc06u }, { 0x1c06u, 0x180eu },
	{ 0x80u, 0x80u }, { 0x100u, 0x80u }, { 0x100u, 0x100u }, { 0x300u, 0x300u }, { 0x20300u, 0x602u }, { 0x40602u, 0x40602u }, { 0x80e02u, 0x80e02u },
	{ 0x4080u, 0x4080u }, { 0x8080u, 0x8080u }, { 0x8100u, 0x8100u }, { 0x10100u, 0x10100u }, { 0x30100u, 0x20300u }, { 0x60300u, 0x60300u }, { 0x4060300u, 0xc0602u },
	{ 0x204080u, 0x204080u }, { 0x408080u, 0x404080u }, { 0x808100u, 0x408080u }, { 0x810100u, 0x808100u }, { 0x1010100u, 0x1010100u }, { 0x2030100u, 0x2030100u }, { 0x6020300u, 0x6020300u },
	{ 0x10204080u, 0x10204080u }, { 0x20404080u, 0x20404080u }, { 0x40408080u, 0x40408080u }, { 0x40808100u, 0x40808100u }, { 0x80810100u, 0x80810100u }, { 0x101010100u, 0x101010100u }, { 0x203010100u, 0x202030100u },
	{ 0x810204080u, 0x810204080u }, { 0x1020404080u, 0x1020204080u }, { 0x2020408080u, 0x2020408080u }, { 0x4040808100u, 0x2040408080u }, { 0x4080808100u, 0x4080808100u }, { 0x8081010100u, 0x8080810100u }, { 0x10101010100u, 0x10101010100u },
};

const uint64_t (*fov__lines(void))[2]
{
	return lines;
}

/*
 * The same lines the other way round: blocks[w] holds, as a quadrant mask, the targets
 * whose line from the viewer ([0]) or back from the target ([1]) passes through cell w.
 * A target is hidden when walls block both its lines, so the quadrant's hidden targets are
 * the OR of blocks[w][0] over its walls AND the OR of blocks[w][1]: a step a wall, where
 * testing both lines of every target was two steps a target. Written out from lines[];
 * test_fov.c checks every entry against it.
 */
static const uint64_t blocks[QUAD * QUAD][2] = {
	{ 0x0u, 0x0u }, { 0x183c7cu, 0x81c3e7cu }, { 0x3078u, 0x3878u }, { 0x70u, 0x2070u }, { 0x60u, 0x60u }, { 0x40u, 0x40u }, { 0x0u, 0x0u },
	{ 0x1c3830604000u, 0x3c387060c000u }, { 0x1e3c7cf878200u, 0x1c3c787830000u }, { 0x40c1e0c00u, 0x40e1e0400u }, { 0x183800u, 0x81c1800u }, { 0x103000u, 0x103000u }, { 0x2000u, 0x2000u }, { 0x0u, 0x0u },
	{ 0xc1810200000u, 0xc1830200000u }, { 0x706060c00000u, 0x7060c0c00000u }, { 0x1838383000000u, 0x1838301000000u }, { 0x60e040000u, 0x20606000000u }, { 0xc080000u, 0xc080000u }, { 0x100000u, 0x8100000u }, { 0x0u, 0x0u },
	{ 0x40810000000u, 0xc0810000000u }, { 0x183020000000u, 0x303060000000u }, { 0x60c0c0000000u, 0xc0c080000000u }, { 0x1830100000000u, 0x1010100000000u }, { 0x20600000000u, 0x20600000000u }, { 0x408000000u, 0x400000000u }, { 0x0u, 0x0u },
	{ 0x40800000000u, 0x40800000000u }, { 0x181000000000u, 0x181000000000u }, { 0x206000000000u, 0x206000000000u }, { 0xc08000000000u, 0xc08000000000u }, { 0x1010000000000u, 0x1010000000000u }, { 0x20000000000u, 0x20000000000u }, { 0x0u, 0x0u },
	{ 0x40000000000u, 0x40000000000u }, { 0x80000000000u, 0x80000000000u }, { 0x100000000000u, 0x300000000000u }, { 0x600000000000u, 0x400000000000u }, { 0x800000000000u, 0x800000000000u }, { 0x1000000000000u, 0x1000000000000u }, { 0x0u, 0x0u },
	{ 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x0u, 0x0u }, { 0x0u, 0x0u },
};

const uint64_t (*fov__blocks(void))[2]
{
	return blocks;
}

static int
chebyshev(int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), dy = abs(y1 - y0);

	return dx > dy ? dx : dy;
}

/*
 * True when the Bresenham line from (x0, y0) to (x1, y1) has only floor strictly between
 * its ends. The line stays inside the box its two ends span, so ends inside the level
 * keep it inside too. This is the definition; within the square of sight the table
 * above answers instead.
 */
static bool
line_clear(const struct level *lv, int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
	int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;

	for (;;) {
		if (x0 == x1 && y0 == y1)
			return true;
		int e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
		if ((x0 != x1 || y0 != y1) && lv->cell[y0][x0] != CELL_FLOOR)
			return false;
	}
}

/* The cells of quadrant mask m, mirrored by (sx, sy) around (x, y), are all floor. */
static bool
mask_clear(const struct level *lv, int x, int y, int sx, int sy, uint64_t m)
{
	for (; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		if (lv->cell[y + sy * (b / QUAD)][x + sx * (b % QUAD)] != CELL_FLOOR)
			return false;
	}
	return true;
}

/*
 * Bresenham breaks ties differently in the two directions, so the line from a to b is not
 * always the line from b to a reversed. Accepting either makes the test symmetric by
 * construction: whatever a wizard sees, it is seen by.
 */
static bool
clear_either(const struct level *lv, int x0, int y0, int x1, int y1)
{
	int ux = abs(x1 - x0), uy = abs(y1 - y0);

	if (ux <= FOV_RADIUS && uy <= FOV_RADIUS) {
		const uint64_t *l = lines[uy * QUAD + ux];
		int sx = x1 < x0 ? -1 : 1, sy = y1 < y0 ? -1 : 1;
		return mask_clear(lv, x0, y0, sx, sy, l[0]) || mask_clear(lv, x0, y0, sx, sy, l[1]);
	}
	return line_clear(lv, x0, y0, x1, y1) || line_clear(lv, x1, y1, x0, y0);
}

/*
 * A wall is also seen when one of its 8 neighbours is floor seen from (vx, vy). A bare
 * line misses walls met at a grazing angle: in a straight corridor the line to a side
 * wall 3 or more cells ahead runs into that same wall nearer by, so the corridor's floor
 * would show 6 cells ahead and its walls only 2. Lighting the walls beside seen floor
 * draws the edges of what is seen whole, room corners included (hence 8 neighbours).
 */
static bool
wall_lit(const struct level *lv, int vx, int vy, int wx, int wy, int radius)
{
	for (int dy = -1; dy <= 1; dy++) {
		for (int dx = -1; dx <= 1; dx++) {
			int fx = wx + dx, fy = wy + dy;
			if ((dx != 0 || dy != 0) && level_floor(lv, fx, fy) &&
			    chebyshev(vx, vy, fx, fy) <= radius && clear_either(lv, vx, vy, fx, fy))
				return true;
		}
	}
	return false;
}

/*
 * Every clause below reads the same with the two ends swapped, which is what makes
 * fov_los(a, b) == fov_los(b, a). Wizards stand on floor, so between two wizards only the
 * line matters; the wall clauses only decide which walls are drawn.
 */
bool
fov_los(const struct level *lv, int x0, int y0, int x1, int y1, int radius)
{
	if (radius < 0 || !level_in(lv, x0, y0) || !level_in(lv, x1, y1) ||
	    chebyshev(x0, y0, x1, y1) > radius)
		return false;
	if (clear_either(lv, x0, y0, x1, y1))
		return true;
	return (lv->cell[y1][x1] != CELL_FLOOR && wall_lit(lv, x0, y0, x1, y1, radius)) ||
	    (lv->cell[y0][x0] != CELL_FLOOR && wall_lit(lv, x1, y1, x0, y0, radius));
}

/* Bits 0..FOV_SIDE-1 of v in the opposite order: column i <-> column FOV_SIDE-1-i. */
static uint16_t
mirror_row(uint16_t v)
{
	unsigned r = v;

	r = (r & 0x5555u) << 1 | (r >> 1 & 0x5555u);
	r = (r & 0x3333u) << 2 | (r >> 2 & 0x3333u);
	r = (r & 0x0f0fu) << 4 | (r >> 4 & 0x0f0fu);
	r = (r & 0x00ffu) << 8 | (r >> 8 & 0x00ffu);
	return (uint16_t)(r >> (16 - FOV_SIDE));
}

/* Bit k set where byte k of the 8 at p is CELL_FLOOR: the bytes compared at once (bit 7
 * of each byte left where it was 0 after the XOR, carries kept inside their byte), then
 * gathered into one byte by a multiply. */
static unsigned
floor_bits8(const uint8_t *p)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), low7 = 0x7f * ones;
	uint64_t v = le_load64(p);

	v ^= CELL_FLOOR * ones;
	v = (~(((v & low7) + low7) | v) & ~low7) >> 7;
	return (unsigned)((v * UINT64_C(0x0102040810204080)) >> 56);
}

/* Bit i set where the cell (x + i, y) is floor, for i < n (n <= 16): reading the square's
 * rows a cell at a time was a third of what fov_sight cost (issue 29). Only the n cells are
 * read, into a zeroed buffer: past them a caller's scratch grid may hold bytes never written
 * (update.c fills only the box it looks at), which the carries above would mix in. */
static unsigned
floor_bits(const struct level *lv, int y, int x, int n)
{
	uint8_t b[16] = { 0 };

	memcpy(b, &lv->cell[y][x], (size_t)n);
	return (floor_bits8(b) | floor_bits8(b + 8) << 8) & ((1u << n) - 1);
}

/*
 * fov_los() for the whole square at once, as bit operations. The floor of the square is
 * read once into rows of bits; for each quadrant (the rows mirrored as needed so that it
 * reads as the first) the walls become one 49-bit mask, and a target is on a clear line
 * when either of its two line masks misses every wall: two ANDs where fov_los() walks
 * two lines. Walls beside seen floor are lit by spreading the seen floor one cell in all
 * eight directions. The answers are fov_los()'s, cell for cell (test_fov.c compares the
 * two, and a copy of the code before this one, on many levels from every square).
 */
void
fov_sight(const struct level *lv, int x, int y, struct fov_sight *s)
{
	uint16_t floor[FOV_SIDE] = { 0 }, mirrored[FOV_SIDE], in[FOV_SIDE] = { 0 };
	uint16_t seen[FOV_SIDE] = { 0 }, seen_m[FOV_SIDE] = { 0 }, h[FOV_SIDE + 2] = { 0 };

	s->x = (int16_t)x;
	s->y = (int16_t)y;
	memset(s->row, 0, sizeof s->row);
	if (!level_in(lv, x, y))
		return;
	if (lv->cell[y][x] != CELL_FLOOR) {
		/* A viewer inside a wall (never a wizard) also sees through its own neighbours: rare, so take the slow road. */
		for (int j = 0; j < FOV_SIDE; j++)
			for (int i = 0; i < FOV_SIDE; i++)
				if (fov_los(lv, x, y, x - FOV_RADIUS + i, y - FOV_RADIUS + j, FOV_RADIUS))
					s->row[j] |= (uint16_t)(1u << i);
		return;
	}

	int i0 = x < FOV_RADIUS ? FOV_RADIUS - x : 0;
	int i1 = x + FOV_RADIUS >= lv->size ? lv->size - 1 - x + FOV_RADIUS : FOV_SIDE - 1;
	uint16_t cols = (uint16_t)(((1u << (i1 + 1)) - 1) & ~((1u << i0) - 1));
	for (int j = 0; j < FOV_SIDE; j++) {
		int ty = y - FOV_RADIUS + j;
		if (ty >= 0 && ty < lv->size) {
			floor[j] = (uint16_t)(floor_bits(lv, ty, x - FOV_RADIUS + i0, i1 - i0 + 1) << i0);
			in[j] = cols;
		}
		mirrored[j] = mirror_row(floor[j]);
	}

	/* Quadrant q: rows downwards (+y) or upwards, columns rightwards or (mirrored) leftwards. */
	for (int q = 0; q < 4; q++) {
		int sy = q & 1 ? -1 : 1;
		const uint16_t *src = q & 2 ? mirrored : floor;
		uint16_t *dst = q & 2 ? seen_m : seen;
		uint64_t open = 0, vis = 0;

		for (int uy = 0; uy < QUAD; uy++)
			open |= (uint64_t)(src[FOV_RADIUS + sy * uy] >> FOV_RADIUS) << (QUAD * uy);
		uint64_t walls = ~open & QUAD_MASK, hid0 = 0, hid1 = 0;
		for (uint64_t w = walls; w; w &= w - 1) {
			int b = __builtin_ctzll(w);
			hid0 |= blocks[b][0];
			hid1 |= blocks[b][1];
		}
		vis = ~(hid0 & hid1) & QUAD_MASK;
		for (int uy = 0; uy < QUAD; uy++)
			dst[FOV_RADIUS + sy * uy] |= (uint16_t)((vis >> (QUAD * uy) & ((1u << QUAD) - 1)) << FOV_RADIUS);
	}

	/* Walls beside seen floor: the seen floor spread one cell sideways (h), then up and down. */
	for (int j = 0; j < FOV_SIDE; j++) {
		seen[j] = (uint16_t)((seen[j] | mirror_row(seen_m[j])) & in[j]);
		unsigned f = seen[j] & floor[j];
		h[j + 1] = (uint16_t)(f | f << 1 | f >> 1);
	}
	for (int j = 0; j < FOV_SIDE; j++)
		s->row[j] = (uint16_t)(seen[j] | ((h[j] | h[j + 1] | h[j + 2]) & ~floor[j] & in[j]));
}

/*
 * Two passes over the square instead of fov_los() per cell: the first runs the lines, the
 * second lights walls from the floor the first found seen, so no line is run twice.
 * At FOV_RADIUS, the radius the rules use, fov_sight() answers instead.
 */
void
fov_compute(const struct level *lv, int x, int y, int radius, uint8_t vis[LEVEL_MAX][LEVEL_MAX])
{
	memset(vis, 0, sizeof(uint8_t[LEVEL_MAX][LEVEL_MAX]));
	if (radius < 0 || !level_in(lv, x, y))
		return;

	int x0 = x - radius < 0 ? 0 : x - radius, x1 = x + radius >= lv->size ? lv->size - 1 : x + radius;
	int y0 = y - radius < 0 ? 0 : y - radius, y1 = y + radius >= lv->size ? lv->size - 1 : y + radius;

	if (radius == FOV_RADIUS) {
		struct fov_sight s;
		fov_sight(lv, x, y, &s);
		for (int ty = y0; ty <= y1; ty++)
			for (int tx = x0; tx <= x1; tx++)
				vis[ty][tx] = fov_seen(&s, tx, ty);
		return;
	}
	/* A viewer inside a wall (never a wizard) also sees through its own neighbours: rare, so take the slow road. */
	if (lv->cell[y][x] != CELL_FLOOR) {
		for (int ty = y0; ty <= y1; ty++)
			for (int tx = x0; tx <= x1; tx++)
				vis[ty][tx] = fov_los(lv, x, y, tx, ty, radius);
		return;
	}
	for (int ty = y0; ty <= y1; ty++)
		for (int tx = x0; tx <= x1; tx++)
			vis[ty][tx] = clear_either(lv, x, y, tx, ty);
	for (int ty = y0; ty <= y1; ty++) {
		for (int tx = x0; tx <= x1; tx++) {
			if (vis[ty][tx] || lv->cell[ty][tx] == CELL_FLOOR)
				continue;
			/* Only floor neighbours are read, and the first pass set those for good. */
			for (int dy = -1; dy <= 1 && !vis[ty][tx]; dy++) {
				for (int dx = -1; dx <= 1; dx++) {
					int fx = tx + dx, fy = ty + dy;
					if (fx >= x0 && fx <= x1 && fy >= y0 && fy <= y1 &&
					    lv->cell[fy][fx] == CELL_FLOOR && vis[fy][fx]) {
						vis[ty][tx] = 1;
						break;
					}
				}
			}
		}
	}
}
