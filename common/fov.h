/* SPDX-License-Identifier: MIT */
/* fov: what a wizard can see: a square of radius 6 where walls block sight, symmetric by construction. */
#ifndef WW_FOV_H
#define WW_FOV_H

#include <stdbool.h>
#include <stdint.h>

#include "level.h"

#define FOV_RADIUS 6
#define FOV_SIDE (2 * FOV_RADIUS + 1)

/* True when a wizard at (x0, y0) sees cell (x1, y1): both inside the level, within the
 * square of `radius` (Chebyshev distance), and a line between them whose cells strictly
 * between the two ends are all floor. The line is tried from each end, so
 * fov_los(a, b) == fov_los(b, a) always. A wall cell is seen when the line up to it is
 * clear; the wall itself does not block its own visibility. A wall cell is also seen when
 * one of its 8 neighbours is floor seen from the other end, so the walls around what is
 * seen are drawn whole (a bare line misses a corridor's side walls beyond 2 cells). */
bool fov_los(const struct level *lv, int x0, int y0, int x1, int y1, int radius);

/* Set vis[y][x] = 1 for every cell fov_los() says is seen from (x, y), and 0 for all
 * others within the level. With `radius` >= size, and a level of no walls, all is seen. */
void fov_compute(const struct level *lv, int x, int y, int radius, uint8_t vis[LEVEL_MAX][LEVEL_MAX]);

/* What is seen from (x, y) at FOV_RADIUS, as bits: bit i of row[j] is the cell
 * (x - FOV_RADIUS + i, y - FOV_RADIUS + j). Nothing outside that square is ever seen. */
struct fov_sight {
	int16_t x, y;
	uint16_t row[FOV_SIDE];
};

/* The same answer as fov_compute(lv, x, y, FOV_RADIUS, ...) and fov_los(), at a fraction
 * of the cost (docs/benchmarks.md): the rules' one way of computing sight. */
void fov_sight(const struct level *lv, int x, int y, struct fov_sight *s);

/* Is (x, y) seen in `s`? */
static inline bool
fov_seen(const struct fov_sight *s, int x, int y)
{
	unsigned i = (unsigned)(x - s->x + FOV_RADIUS), j = (unsigned)(y - s->y + FOV_RADIUS);

	return i < FOV_SIDE && j < FOV_SIDE && (s->row[j] >> i & 1u);
}

#endif
