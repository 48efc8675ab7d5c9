/* SPDX-License-Identifier: MIT */
/* Tests for fov: the plan's examples, symmetry, the radius, walls blocking and fov_compute == fov_los. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "fov.h"
#include "internal.h"

static int
cheb(int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), dy = abs(y1 - y0);

	return dx > dy ? dx : dy;
}

/* A size x size level, all wall. */
static void
solid(struct level *lv, int size)
{
	memset(lv, 0, sizeof *lv);
	lv->size = (uint8_t)size;
}

/* A size x size level with its outer ring wall and all else floor. */
static void
open_level(struct level *lv, int size)
{
	solid(lv, size);
	for (int y = 1; y < size - 1; y++)
		for (int x = 1; x < size - 1; x++)
			lv->cell[y][x] = CELL_FLOOR;
}

static void
gen(struct level *lv, int size, uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed);
	cr_assert_eq(level_generate(lv, size, &r, NULL), 0);
}

/* A corridor along row 7 of a 15x15 level, columns 1..13 floor. */
static void
corridor(struct level *lv)
{
	solid(lv, 15);
	for (int x = 1; x <= 13; x++)
		lv->cell[7][x] = CELL_FLOOR;
}

Test(fov, plan_examples_in_a_corridor)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	corridor(&lv);
	/* "@.....@": six apart, seen, both ways. */
	cr_assert(fov_los(&lv, 1, 7, 7, 7, FOV_RADIUS));
	cr_assert(fov_los(&lv, 7, 7, 1, 7, FOV_RADIUS));
	/* "@......@": seven apart, not seen. */
	cr_assert(!fov_los(&lv, 1, 7, 8, 7, FOV_RADIUS));
	cr_assert(!fov_los(&lv, 8, 7, 1, 7, FOV_RADIUS));
	fov_compute(&lv, 1, 7, FOV_RADIUS, vis);
	cr_assert(vis[7][7] == 1 && vis[7][8] == 0);
	/* "@.#.@": a wall between, not seen; the wall itself is. */
	lv.cell[7][3] = CELL_WALL;
	cr_assert(!fov_los(&lv, 1, 7, 5, 7, FOV_RADIUS));
	cr_assert(!fov_los(&lv, 5, 7, 1, 7, FOV_RADIUS));
	cr_assert(fov_los(&lv, 1, 7, 3, 7, FOV_RADIUS));
	fov_compute(&lv, 1, 7, FOV_RADIUS, vis);
	cr_assert(vis[7][2] == 1 && vis[7][3] == 1 && vis[7][4] == 0 && vis[7][5] == 0);
}

Test(fov, plan_examples_every_direction)
{
	static const int dir[8][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 }, { 1, 1 }, { 1, -1 }, { -1, 1 }, { -1, -1 } };
	struct level lv;

	for (int d = 0; d < 8; d++) {
		int dx = dir[d][0], dy = dir[d][1], cx = 25, cy = 25;
		/* Only the ray is floor: a corridor in that direction, diagonal ones included. */
		solid(&lv, 51);
		for (int k = 0; k <= 8; k++)
			lv.cell[cy + k * dy][cx + k * dx] = CELL_FLOOR;
		cr_assert(fov_los(&lv, cx, cy, cx + 6 * dx, cy + 6 * dy, FOV_RADIUS), "dir %d: 6 away", d);
		cr_assert(!fov_los(&lv, cx, cy, cx + 7 * dx, cy + 7 * dy, FOV_RADIUS), "dir %d: 7 away", d);
		lv.cell[cy + 2 * dy][cx + 2 * dx] = CELL_WALL;
		cr_assert(!fov_los(&lv, cx, cy, cx + 4 * dx, cy + 4 * dy, FOV_RADIUS), "dir %d: through a wall", d);
		cr_assert(fov_los(&lv, cx, cy, cx + 2 * dx, cy + 2 * dy, FOV_RADIUS), "dir %d: the wall", d);
	}
}

Test(fov, corridor_walls_seen_as_far_as_its_floor)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	corridor(&lv);
	fov_compute(&lv, 1, 7, FOV_RADIUS, vis);
	for (int x = 0; x <= 7; x++) {
		cr_assert(vis[6][x] && vis[8][x] && vis[7][x], "column %d", x);
		cr_assert(fov_los(&lv, 1, 7, x, 6, FOV_RADIUS) && fov_los(&lv, x, 8, 1, 7, FOV_RADIUS), "column %d", x);
	}
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++)
			if (y < 6 || y > 8 || x > 7)
				cr_assert(!vis[y][x], "%d,%d seen from a corridor", x, y);
}

Test(fov, radius_bound_in_an_open_level)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	open_level(&lv, 51);
	for (int r = 0; r <= 8; r++) {
		fov_compute(&lv, 25, 25, r, vis);
		for (int y = 0; y < 51; y++) {
			for (int x = 0; x < 51; x++) {
				cr_assert_eq(vis[y][x], cheb(25, 25, x, y) <= r, "radius %d: %d,%d", r, x, y);
				cr_assert_eq(fov_los(&lv, 25, 25, x, y, r), cheb(25, 25, x, y) <= r, "radius %d: %d,%d", r, x,
				    y);
			}
		}
	}
	cr_assert(!fov_los(&lv, 25, 25, 25, 25, -1), "negative radius sees nothing");
}

Test(fov, open_level_sees_all)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	for (int size = LEVEL_MIN; size <= 25; size += 10) {
		/* With the outer ring: the ring is drawn whole, corners included. */
		open_level(&lv, size);
		for (int y = 1; y < size - 1; y++) {
			for (int x = 1; x < size - 1; x++) {
				fov_compute(&lv, x, y, size, vis);
				for (int ty = 0; ty < size; ty++)
					for (int tx = 0; tx < size; tx++)
						cr_assert(vis[ty][tx], "size %d from %d,%d: %d,%d unseen", size, x, y, tx, ty);
			}
		}
		/* No walls at all, as fov.h puts it. */
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++)
				lv.cell[y][x] = CELL_FLOOR;
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size; x++) {
				fov_compute(&lv, x, y, size, vis);
				for (int ty = 0; ty < size; ty++)
					for (int tx = 0; tx < size; tx++)
						cr_assert(vis[ty][tx], "size %d from %d,%d: %d,%d unseen", size, x, y, tx, ty);
			}
		}
	}
}

Test(fov, pillar_hides_what_is_behind)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	open_level(&lv, 25);
	lv.cell[12][14] = CELL_WALL;
	fov_compute(&lv, 12, 12, FOV_RADIUS, vis);
	cr_assert(vis[12][14], "the pillar itself");
	for (int x = 15; x <= 18; x++)
		cr_assert(!vis[12][x] && !fov_los(&lv, x, 12, 12, 12, FOV_RADIUS), "%d,12 behind the pillar", x);
	/* Beside the shadow the room is still seen. */
	cr_assert(vis[10][18] && vis[14][18]);
	lv.cell[10][10] = CELL_WALL;
	cr_assert(!fov_los(&lv, 12, 12, 8, 8, FOV_RADIUS), "diagonal pillar");
	cr_assert(fov_los(&lv, 12, 12, 8, 9, FOV_RADIUS) || fov_los(&lv, 12, 12, 9, 8, FOV_RADIUS));
}

/* On straight and diagonal lines there is only one Bresenham line, so the rule can be
 * checked by hand: seen exactly when every cell strictly between is floor. */
Test(fov, straight_lines_on_generated_levels)
{
	struct level lv;

	for (int i = 0; i < 300; i++) {
		int size = i % 3 == 0 ? 15 : i % 3 == 1 ? 25 : 51;
		gen(&lv, size, 1000 + (uint64_t)i);
		for (int y = 1; y < size - 1; y++) {
			for (int x = 1; x < size - 1; x++) {
				if (!level_floor(&lv, x, y))
					continue;
				for (int dy = -1; dy <= 1; dy++) {
					for (int dx = -1; dx <= 1; dx++) {
						if (dx == 0 && dy == 0)
							continue;
						bool clear = true;
						for (int k = 1; k <= FOV_RADIUS + 1; k++) {
							int tx = x + k * dx, ty = y + k * dy;
							if (!level_in(&lv, tx, ty))
								break;
							bool expect = clear && k <= FOV_RADIUS;
							if (level_floor(&lv, tx, ty))
								cr_assert_eq(fov_los(&lv, x, y, tx, ty, FOV_RADIUS), expect,
								    "seed %d: %d,%d to %d,%d", i, x, y, tx, ty);
							else if (expect)
								cr_assert(fov_los(&lv, x, y, tx, ty, FOV_RADIUS));
							clear = clear && level_floor(&lv, tx, ty);
						}
					}
				}
			}
		}
	}
}

Test(fov, symmetric_between_floor_cells)
{
	struct level lv;
	long pairs = 0, seen = 0;

	for (int i = 0; i < 300; i++) {
		int size = i % 3 == 0 ? 15 : i % 3 == 1 ? 25 : 37;
		gen(&lv, size, 5000 + (uint64_t)i);
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size; x++) {
				if (!level_floor(&lv, x, y))
					continue;
				for (int ty = y - FOV_RADIUS; ty <= y + FOV_RADIUS; ty++) {
					for (int tx = x - FOV_RADIUS; tx <= x + FOV_RADIUS; tx++) {
						if (!level_floor(&lv, tx, ty))
							continue;
						bool ab = fov_los(&lv, x, y, tx, ty, FOV_RADIUS);
						cr_assert_eq(ab, fov_los(&lv, tx, ty, x, y, FOV_RADIUS),
						    "seed %d: %d,%d and %d,%d", i, x, y, tx, ty);
						pairs++;
						seen += ab;
					}
				}
			}
		}
	}
	/* Not vacuous: both answers occur. */
	cr_assert(seen > 0 && seen < pairs);
}

Test(fov, symmetric_between_all_cells)
{
	struct level lv;

	for (int i = 0; i < 20; i++) {
		gen(&lv, 15, 9000 + (uint64_t)i);
		for (int a = 0; a < 15 * 15; a++)
			for (int b = 0; b < 15 * 15; b++)
				cr_assert_eq(fov_los(&lv, a % 15, a / 15, b % 15, b / 15, FOV_RADIUS),
				    fov_los(&lv, b % 15, b / 15, a % 15, a / 15, FOV_RADIUS), "seed %d: %d,%d and %d,%d", i,
				    a % 15, a / 15, b % 15, b / 15);
	}
}

Test(fov, compute_agrees_with_los)
{
	static const int radii[] = { 0, 1, 3, FOV_RADIUS, 10 };
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	for (int i = 0; i < 200; i++) {
		int size = i % 4 == 0 ? 51 : i % 4 == 1 ? 15 : 25;
		int radius = radii[i % 5];
		gen(&lv, size, 20000 + (uint64_t)i);
		/* Every viewer on floor, plus a few inside walls (fov_compute takes another road there). */
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size; x++) {
				if (!level_floor(&lv, x, y) && (x * 7 + y * 3) % 11 != 0)
					continue;
				memset(vis, 0xee, sizeof vis);
				fov_compute(&lv, x, y, radius, vis);
				for (int ty = 0; ty < size; ty++)
					for (int tx = 0; tx < size; tx++)
						cr_assert_eq(vis[ty][tx], fov_los(&lv, x, y, tx, ty, radius),
						    "seed %d radius %d from %d,%d: %d,%d", i, radius, x, y, tx, ty);
			}
		}
	}
}

Test(fov, walls_beside_seen_floor_are_seen)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	for (int i = 0; i < 100; i++) {
		gen(&lv, 25, 30000 + (uint64_t)i);
		for (int y = 1; y < 24; y++) {
			for (int x = 1; x < 24; x++) {
				if (!level_floor(&lv, x, y))
					continue;
				fov_compute(&lv, x, y, FOV_RADIUS, vis);
				for (int ty = 0; ty < 25; ty++) {
					for (int tx = 0; tx < 25; tx++) {
						if (lv.cell[ty][tx] == CELL_FLOOR || vis[ty][tx] || cheb(x, y, tx, ty) > FOV_RADIUS)
							continue;
						/* An unseen wall in range: no seen floor within the radius may touch it. */
						for (int dy = -1; dy <= 1; dy++)
							for (int dx = -1; dx <= 1; dx++)
								cr_assert(!(level_floor(&lv, tx + dx, ty + dy) &&
								    cheb(x, y, tx + dx, ty + dy) <= FOV_RADIUS &&
								    vis[ty + dy][tx + dx]), "seed %d from %d,%d: wall %d,%d",
								    i, x, y, tx, ty);
					}
				}
				/* And only walls next to seen floor (or on a clear line) are seen: never a wall deep in rock. */
				for (int ty = 1; ty < 24; ty++) {
					for (int tx = 1; tx < 24; tx++) {
						if (lv.cell[ty][tx] == CELL_FLOOR || !vis[ty][tx])
							continue;
						bool beside = false;
						for (int dy = -1; dy <= 1; dy++)
							for (int dx = -1; dx <= 1; dx++)
								beside = beside || lv.cell[ty + dy][tx + dx] == CELL_FLOOR;
						cr_assert(beside, "seed %d from %d,%d: buried wall %d,%d seen", i, x, y, tx, ty);
					}
				}
			}
		}
	}
}

Test(fov, off_the_level)
{
	struct level lv;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];

	open_level(&lv, 15);
	cr_assert(!fov_los(&lv, 1, 1, -1, 1, FOV_RADIUS));
	cr_assert(!fov_los(&lv, 13, 13, 15, 13, FOV_RADIUS));
	cr_assert(!fov_los(&lv, 15, 13, 13, 13, FOV_RADIUS));
	memset(vis, 0xee, sizeof vis);
	fov_compute(&lv, 20, 20, FOV_RADIUS, vis);
	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++)
			cr_assert_eq(vis[y][x], 0, "viewer off the level sees %d,%d", x, y);
	/* Near the edge the square is clipped, never read past the level. */
	fov_compute(&lv, 1, 1, FOV_RADIUS, vis);
	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++)
			cr_assert_eq(vis[y][x], x < 15 && y < 15 && x <= 7 && y <= 7, "%d,%d", x, y);
}

/*
 * The field of view as it was defined before fov_sight() (fov.c at d93bf35), kept whole
 * as the reference: the fast code must give the same answer for every cell, or the
 * state hashes and the golden replays change.
 */
static bool
ref_line_clear(const struct level *lv, int x0, int y0, int x1, int y1)
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

static bool
ref_clear_either(const struct level *lv, int x0, int y0, int x1, int y1)
{
	return ref_line_clear(lv, x0, y0, x1, y1) || ref_line_clear(lv, x1, y1, x0, y0);
}

static bool
ref_wall_lit(const struct level *lv, int vx, int vy, int wx, int wy, int radius)
{
	for (int dy = -1; dy <= 1; dy++) {
		for (int dx = -1; dx <= 1; dx++) {
			int fx = wx + dx, fy = wy + dy;
			if ((dx != 0 || dy != 0) && level_floor(lv, fx, fy) && cheb(vx, vy, fx, fy) <= radius &&
			    ref_clear_either(lv, vx, vy, fx, fy))
				return true;
		}
	}
	return false;
}

static bool
ref_los(const struct level *lv, int x0, int y0, int x1, int y1, int radius)
{
	if (radius < 0 || !level_in(lv, x0, y0) || !level_in(lv, x1, y1) || cheb(x0, y0, x1, y1) > radius)
		return false;
	if (ref_clear_either(lv, x0, y0, x1, y1))
		return true;
	return (lv->cell[y1][x1] != CELL_FLOOR && ref_wall_lit(lv, x0, y0, x1, y1, radius)) ||
	    (lv->cell[y0][x0] != CELL_FLOOR && ref_wall_lit(lv, x1, y1, x0, y0, radius));
}

static void
ref_compute(const struct level *lv, int x, int y, int radius, uint8_t vis[LEVEL_MAX][LEVEL_MAX])
{
	memset(vis, 0, sizeof(uint8_t[LEVEL_MAX][LEVEL_MAX]));
	if (radius < 0 || !level_in(lv, x, y))
		return;

	int x0 = x - radius < 0 ? 0 : x - radius, x1 = x + radius >= lv->size ? lv->size - 1 : x + radius;
	int y0 = y - radius < 0 ? 0 : y - radius, y1 = y + radius >= lv->size ? lv->size - 1 : y + radius;

	if (lv->cell[y][x] != CELL_FLOOR) {
		for (int ty = y0; ty <= y1; ty++)
			for (int tx = x0; tx <= x1; tx++)
				vis[ty][tx] = ref_los(lv, x, y, tx, ty, radius);
		return;
	}
	for (int ty = y0; ty <= y1; ty++)
		for (int tx = x0; tx <= x1; tx++)
			vis[ty][tx] = ref_clear_either(lv, x, y, tx, ty);
	for (int ty = y0; ty <= y1; ty++) {
		for (int tx = x0; tx <= x1; tx++) {
			if (vis[ty][tx] || lv->cell[ty][tx] == CELL_FLOOR)
				continue;
			for (int dy = -1; dy <= 1 && !vis[ty][tx]; dy++) {
				for (int dx = -1; dx <= 1; dx++) {
					int fx = tx + dx, fy = ty + dy;
					if (fx >= x0 && fx <= x1 && fy >= y0 && fy <= y1 && lv->cell[fy][fx] == CELL_FLOOR &&
					    vis[fy][fx]) {
						vis[ty][tx] = 1;
						break;
					}
				}
			}
		}
	}
}

/* The table of lines is what the reference's Bresenham walks, entry by entry. */
Test(fov, line_table_is_bresenham)
{
	const uint64_t (*lines)[2] = fov__lines();
	enum { Q = FOV_RADIUS + 1 };

	for (int uy = 0; uy < Q; uy++) {
		for (int ux = 0; ux < Q; ux++) {
			/* Each cell of the quadrant walled alone: a line is blocked exactly when it passes there. */
			for (int c = 0; c < Q * Q; c++) {
				struct level lv;
				open_level(&lv, 15);
				lv.cell[1 + c / Q][1 + c % Q] = CELL_WALL;
				bool there = c != 0 && c != uy * Q + ux;
				cr_assert_eq(!(lines[uy * Q + ux][0] >> c & 1), !there || ref_line_clear(&lv, 1, 1, 1 + ux, 1 + uy),
				    "from the viewer to %d,%d, cell %d", ux, uy, c);
				cr_assert_eq(!(lines[uy * Q + ux][1] >> c & 1), !there || ref_line_clear(&lv, 1 + ux, 1 + uy, 1, 1),
				    "back from %d,%d, cell %d", ux, uy, c);
			}
		}
	}
}

/* A level of random cells, walls at `density` percent, outer ring kept wall or not. */
static void
noise(struct level *lv, int size, int density, bool ring, struct rng *r)
{
	solid(lv, size);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			lv->cell[y][x] = (int)rng_below(r, 100) < density ? CELL_WALL : CELL_FLOOR;
	if (ring)
		for (int i = 0; i < size; i++)
			lv->cell[0][i] = lv->cell[size - 1][i] = lv->cell[i][0] = lv->cell[i][size - 1] = CELL_WALL;
}

/* Compares fov_sight(), fov_compute() at FOV_RADIUS and (when `los`) fov_los() with the
 * reference from every square of lv (walls too, and a ring of squares just off the level). */
static long
same_as_reference(const struct level *lv, bool los, const char *what, int i)
{
	static uint8_t want[LEVEL_MAX][LEVEL_MAX], got[LEVEL_MAX][LEVEL_MAX];
	struct fov_sight s;
	int size = lv->size;
	long seen = 0;

	for (int y = -1; y <= size; y++) {
		for (int x = -1; x <= size; x++) {
			ref_compute(lv, x, y, FOV_RADIUS, want);
			memset(got, 0xee, sizeof got);
			fov_compute(lv, x, y, FOV_RADIUS, got);
			if (memcmp(got, want, sizeof got) != 0)
				for (int ty = 0; ty < LEVEL_MAX; ty++)
					for (int tx = 0; tx < LEVEL_MAX; tx++)
						cr_assert_eq(got[ty][tx], want[ty][tx], "%s %d from %d,%d: fov_compute at %d,%d", what,
						    i, x, y, tx, ty);
			fov_sight(lv, x, y, &s);
			/* The square and one cell beyond it, where nothing may be seen. */
			for (int ty = y - FOV_RADIUS - 1; ty <= y + FOV_RADIUS + 1; ty++) {
				for (int tx = x - FOV_RADIUS - 1; tx <= x + FOV_RADIUS + 1; tx++) {
					bool ref = level_in(lv, tx, ty) && want[ty][tx];
					if (fov_seen(&s, tx, ty) != ref)
						cr_assert_fail("%s %d from %d,%d: fov_sight says %d at %d,%d", what, i, x, y, !ref, tx,
						    ty);
					if (los && fov_los(lv, x, y, tx, ty, FOV_RADIUS) != ref_los(lv, x, y, tx, ty, FOV_RADIUS))
						cr_assert_fail("%s %d: fov_los from %d,%d to %d,%d says %d", what, i, x, y, tx, ty, !ref);
					seen += ref;
				}
			}
		}
	}
	return seen;
}

Test(fov, same_as_the_reference_on_generated_levels, .timeout = 300)
{
	static const int sizes[] = { 15, 25, 37, 51 };
	struct level lv;
	long seen = 0;

	for (int i = 0; i < 100; i++) {
		gen(&lv, sizes[i % 4], 70000 + (uint64_t)i);
		seen += same_as_reference(&lv, i % 4 < 2, "generated level", i);
	}
	cr_assert(seen > 0);
}

/* Random cells make the shapes a generated maze never has: lone pillars, diagonal gaps,
 * floor on the outer ring and at the level's edge. */
Test(fov, same_as_the_reference_on_random_cells, .timeout = 300)
{
	struct level lv;
	struct rng r;

	rng_seed(&r, 77);
	for (int i = 0; i < 200; i++) {
		int size = LEVEL_MIN + 2 * (int)rng_below(&r, 6);
		noise(&lv, size, 5 + 85 * (i % 10) / 9, i % 3 == 0, &r);
		same_as_reference(&lv, true, "random level", i);
	}
}

/* fov_los() at other radii, where fov_compute() keeps its two passes and long lines walk Bresenham. */
Test(fov, same_as_the_reference_at_every_radius, .timeout = 300)
{
	static uint8_t want[LEVEL_MAX][LEVEL_MAX], got[LEVEL_MAX][LEVEL_MAX];
	struct level lv;
	struct rng r;

	rng_seed(&r, 78);
	for (int i = 0; i < 40; i++) {
		int radius = i % 12, size = i % 2 ? 25 : 15;
		if (i % 4 < 2)
			gen(&lv, size, 80000 + (uint64_t)i);
		else
			noise(&lv, size, 30, false, &r);
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size; x++) {
				ref_compute(&lv, x, y, radius, want);
				fov_compute(&lv, x, y, radius, got);
				cr_assert_arr_eq(got, want, sizeof got, "level %d radius %d from %d,%d", i, radius, x, y);
				for (int ty = 0; ty < size; ty++)
					for (int tx = 0; tx < size; tx++)
						if (fov_los(&lv, x, y, tx, ty, radius) != ref_los(&lv, x, y, tx, ty, radius))
							cr_assert_fail("level %d radius %d: fov_los from %d,%d to %d,%d differs", i, radius, x, y,
							    tx, ty);
			}
		}
	}
}

/* The table of blocks is the table of lines turned round: target t's line k passes
 * through cell w exactly when bit t of blocks[w][k] is set. */
Test(fov, block_table_is_the_lines_turned_round)
{
	const uint64_t (*lines)[2] = fov__lines(), (*blocks)[2] = fov__blocks();
	enum { Q = FOV_RADIUS + 1 };

	for (int w = 0; w < Q * Q; w++)
		for (int t = 0; t < Q * Q; t++)
			for (int k = 0; k < 2; k++)
				cr_assert_eq(blocks[w][k] >> t & 1, lines[t][k] >> w & 1, "cell %d, target %d, line %d", w, t, k);
}
