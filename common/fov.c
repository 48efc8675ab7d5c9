/* fov: symmetric line of sight on a square of radius FOV_RADIUS, walls drawn whole. */
#include "fov.h"

#include <stdlib.h>
#include <string.h>

static int
chebyshev(int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), dy = abs(y1 - y0);

	return dx > dy ? dx : dy;
}

/*
 * True when the Bresenham line from (x0, y0) to (x1, y1) has only floor strictly between
 * its ends. The line stays inside the box its two ends span, so ends inside the level
 * keep it inside too.
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

/*
 * Bresenham breaks ties differently in the two directions, so the line from a to b is not
 * always the line from b to a reversed. Accepting either makes the test symmetric by
 * construction: whatever a wizard sees, it is seen by.
 */
static bool
clear_either(const struct level *lv, int x0, int y0, int x1, int y1)
{
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

/*
 * Two passes over the square instead of fov_los() per cell: the first runs the lines, the
 * second lights walls from the floor the first found seen, so no line is run twice.
 */
void
fov_compute(const struct level *lv, int x, int y, int radius, uint8_t vis[LEVEL_MAX][LEVEL_MAX])
{
	memset(vis, 0, sizeof(uint8_t[LEVEL_MAX][LEVEL_MAX]));
	if (radius < 0 || !level_in(lv, x, y))
		return;

	int x0 = x - radius < 0 ? 0 : x - radius, x1 = x + radius >= lv->size ? lv->size - 1 : x + radius;
	int y0 = y - radius < 0 ? 0 : y - radius, y1 = y + radius >= lv->size ? lv->size - 1 : y + radius;

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
