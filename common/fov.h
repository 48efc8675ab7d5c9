/* fov: what a wizard can see: a square of radius 6 where walls block sight, symmetric by construction. */
#ifndef WW_FOV_H
#define WW_FOV_H

#include <stdbool.h>
#include <stdint.h>

#include "level.h"

#define FOV_RADIUS 6

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

#endif
