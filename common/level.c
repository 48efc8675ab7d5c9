/* SPDX-License-Identifier: MIT */
/* level: the generator (maze, rooms, dead ends pruned) and whole-level queries and mirrors. */
#include "level.h"

#include <string.h>

/* Maze cells per side at the largest size: they sit at the odd coordinates 1, 3, ..., size-2. */
#define MAZE_MAX ((LEVEL_MAX - 1) / 2)
/* Random placements tried for one room at each side limit (7, then 5, then 3) before the
 * limit shrinks; after that every 3x3 spot is enumerated, so the bound is firm. */
#define ROOM_TRIES 24
#define ROOM_SIDE_MAX 7

static const int step4[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };

static bool
size_ok(int size)
{
	return size >= LEVEL_MIN && size <= LEVEL_MAX && size % 2 == 1;
}

int
level_rooms_max(int size)
{
	return size_ok(size) ? LEVEL_ROOMS_MAX : LEVEL_ROOMS_MIN;
}

/*
 * Randomized depth-first search (the "recursive backtracker") with an explicit stack, so
 * the depth of a 25x25 cell maze never touches the C stack. It carves a perfect maze: a
 * spanning tree of the maze cells, every cell reachable by exactly one path.
 */
static void
carve_maze(struct level *lv, struct rng *rng)
{
	int n = (lv->size - 1) / 2;
	bool seen[MAZE_MAX][MAZE_MAX];
	uint16_t stack[MAZE_MAX * MAZE_MAX];
	int top = 0;
	int start = (int)rng_below(rng, (uint32_t)(n * n));

	memset(seen, 0, sizeof seen);
	seen[start / n][start % n] = true;
	lv->cell[2 * (start / n) + 1][2 * (start % n) + 1] = CELL_FLOOR;
	stack[top++] = (uint16_t)start;
	while (top > 0) {
		int cx = stack[top - 1] % n, cy = stack[top - 1] / n;
		int next[4], k = 0;

		for (int d = 0; d < 4; d++) {
			int tx = cx + step4[d][0], ty = cy + step4[d][1];
			if (tx >= 0 && ty >= 0 && tx < n && ty < n && !seen[ty][tx])
				next[k++] = d;
		}
		if (k == 0) {
			top--;
			continue;
		}
		int d = next[rng_below(rng, (uint32_t)k)];
		int tx = cx + step4[d][0], ty = cy + step4[d][1];
		seen[ty][tx] = true;
		lv->cell[2 * cy + 1 + step4[d][1]][2 * cx + 1 + step4[d][0]] = CELL_FLOOR;
		lv->cell[2 * ty + 1][2 * tx + 1] = CELL_FLOOR;
		stack[top++] = (uint16_t)(ty * n + tx);
	}
}

/*
 * Whether `rm` may join the rooms already placed. Rooms keep at least one cell between
 * them on some axis, so they never overlap nor touch, diagonally included. Where two
 * rooms face each other across a gap of exactly one cell, that gap must also be wall in
 * the maze: otherwise a one-cell door would merge them into one room in all but name,
 * and the plan says rooms are never connected to each other. A wider gap holds a maze
 * cell, so whatever joins the rooms there is a corridor.
 */
static bool
room_fits(const struct level *lv, const struct room *rm, const struct level_rooms *rs)
{
	for (int i = 0; i < rs->n; i++) {
		const struct room *o = &rs->room[i];
		/* Cells strictly between the two rectangles on each axis; negative when they share columns (rows). */
		int gx = o->x > rm->x ? o->x - (rm->x + rm->w) : rm->x - (o->x + o->w);
		int gy = o->y > rm->y ? o->y - (rm->y + rm->h) : rm->y - (o->y + o->h);

		if (gx < 1 && gy < 1)
			return false;
		if (gx == 1 && gy < 1) {
			int x = o->x > rm->x ? rm->x + rm->w : o->x + o->w;
			int y0 = rm->y > o->y ? rm->y : o->y;
			int y1 = rm->y + rm->h < o->y + o->h ? rm->y + rm->h : o->y + o->h;
			for (int y = y0; y < y1; y++)
				if (lv->cell[y][x] == CELL_FLOOR)
					return false;
		}
		if (gy == 1 && gx < 1) {
			int y = o->y > rm->y ? rm->y + rm->h : o->y + o->h;
			int x0 = rm->x > o->x ? rm->x : o->x;
			int x1 = rm->x + rm->w < o->x + o->w ? rm->x + rm->w : o->x + o->w;
			for (int x = x0; x < x1; x++)
				if (lv->cell[y][x] == CELL_FLOOR)
					return false;
		}
	}
	return true;
}

/*
 * Add one room to `rs`. Sides are drawn from {3, 5, 7}, then {3, 5}, then {3}, each
 * with ROOM_TRIES random odd positions; if all of those fail, one of the 3x3 spots that
 * fit is chosen uniformly. That last step makes the first two rooms certain at every
 * size, 15 included where two 7x7 rooms cannot both fit: the inner 13 columns of a
 * 15x15 level hold the first room (side at most 7, at an odd x) and still leave columns
 * 1..4 free (when x >= 5) or 10..13 free (when x <= 3), and likewise rows, so a 3x3 room
 * fits in a corner diagonal to it, where the one-cell-gap rule has nothing to check.
 * Returns false when no room fits.
 */
static bool
place_room(const struct level *lv, struct rng *rng, struct level_rooms *rs)
{
	int size = lv->size;
	struct room rm;

	for (int side = ROOM_SIDE_MAX; side >= 3; side -= 2) {
		for (int t = 0; t < ROOM_TRIES; t++) {
			rm.w = (uint8_t)(3 + 2 * rng_below(rng, (uint32_t)(side - 1) / 2));
			rm.h = (uint8_t)(3 + 2 * rng_below(rng, (uint32_t)(side - 1) / 2));
			/* Odd positions from 1 up to size-1-w (size-1-h), so the room stays inside the outer ring. */
			rm.x = (uint8_t)(1 + 2 * rng_below(rng, (uint32_t)(size - rm.w) / 2));
			rm.y = (uint8_t)(1 + 2 * rng_below(rng, (uint32_t)(size - rm.h) / 2));
			if (room_fits(lv, &rm, rs)) {
				rs->room[rs->n++] = rm;
				return true;
			}
		}
	}

	int fits = 0, spots = (size - 3) / 2;

	rm.w = rm.h = 3;
	for (int pass = 0; pass < 2; pass++) {
		int pick = pass == 0 ? -1 : (int)rng_below(rng, (uint32_t)fits);
		int k = 0;
		for (int j = 0; j < spots; j++) {
			for (int i = 0; i < spots; i++) {
				rm.x = (uint8_t)(1 + 2 * i);
				rm.y = (uint8_t)(1 + 2 * j);
				if (!room_fits(lv, &rm, rs))
					continue;
				if (k++ == pick) {
					rs->room[rs->n++] = rm;
					return true;
				}
			}
		}
		fits = k;
		if (fits == 0)
			return false;
	}
	return false;
}

/* Orthogonal floor neighbours of a floor square. Floor is never on the outer ring, so its
 * four neighbours are on the grid: no bounds to test (this is most of a level's drawing,
 * which Alter Dungeon and the master bot's play-outs do often). */
static int
floor_degree(const struct level *lv, int x, int y)
{
	return (lv->cell[y][x - 1] == CELL_FLOOR) + (lv->cell[y][x + 1] == CELL_FLOOR) + (lv->cell[y - 1][x] == CELL_FLOOR) +
	    (lv->cell[y + 1][x] == CELL_FLOOR);
}

/*
 * Remove every dead end by pruning: a floor cell outside the rooms with at most one
 * orthogonal floor neighbour becomes wall, again and again until none is left. The plan
 * says "remove all dead ends". We prune rather than braid (knocking a dead end through
 * into a neighbouring corridor) because pruning a perfect maze leaves exactly the tree
 * of corridors that joins the rooms: every corridor leads to a room, there are no
 * pointless cul-de-sacs to hide in during a duel played under FoV, and loops appear only
 * where one room meets several corridors. Taking away a cell with one neighbour never
 * disconnects anything, so the floor stays one region. A worklist holds the cells that
 * may have become dead ends, so the work is linear in the level's area.
 */
static void
prune_dead_ends(struct level *lv, bool room[LEVEL_MAX][LEVEL_MAX])
{
	uint16_t work[LEVEL_MAX * LEVEL_MAX];
	bool queued[LEVEL_MAX][LEVEL_MAX];
	int top = 0, size = lv->size;

	memset(queued, 0, sizeof queued);
	for (int y = 1; y < size - 1; y++) {
		for (int x = 1; x < size - 1; x++) {
			if (lv->cell[y][x] == CELL_FLOOR && !room[y][x] && floor_degree(lv, x, y) <= 1) {
				queued[y][x] = true;
				work[top++] = (uint16_t)(y * LEVEL_MAX + x);
			}
		}
	}
	while (top > 0) {
		int x = work[top - 1] % LEVEL_MAX, y = work[top - 1] / LEVEL_MAX;

		top--;
		queued[y][x] = false;
		if (floor_degree(lv, x, y) > 1)
			continue;
		lv->cell[y][x] = CELL_WALL;
		for (int d = 0; d < 4; d++) {
			int nx = x + step4[d][0], ny = y + step4[d][1];
			if (level_floor(lv, nx, ny) && !room[ny][nx] && !queued[ny][nx] &&
			    floor_degree(lv, nx, ny) <= 1) {
				queued[ny][nx] = true;
				work[top++] = (uint16_t)(ny * LEVEL_MAX + nx);
			}
		}
	}
}

/* One draw of the generator: maze, rooms, pruning. */
static void
generate_once(struct level *lv, int size, struct rng *rng, struct level_rooms *rs)
{
	bool room[LEVEL_MAX][LEVEL_MAX];

	/* The whole array, not only size x size, so equal seeds give byte-identical levels. */
	memset(lv->cell, CELL_WALL, sizeof lv->cell);
	lv->size = (uint8_t)size;
	memset(rs, 0, sizeof *rs);

	carve_maze(lv, rng);
	int want = rng_range(rng, LEVEL_ROOMS_MIN, level_rooms_max(size));
	while (rs->n < want && place_room(lv, rng, rs))
		;

	/* Rooms are placed against the bare maze, then overlaid together. */
	memset(room, 0, sizeof room);
	for (int i = 0; i < rs->n; i++) {
		const struct room *rm = &rs->room[i];
		for (int y = rm->y; y < rm->y + rm->h; y++) {
			for (int x = rm->x; x < rm->x + rm->w; x++) {
				lv->cell[y][x] = CELL_FLOOR;
				room[y][x] = true;
			}
		}
	}
	prune_dead_ends(lv, room);
}

static bool
needs_met(const struct level *lv, int n, const int *need_x, const int *need_y)
{
	for (int i = 0; i < n; i++)
		if (!level_floor(lv, need_x[i], need_y[i]))
			return false;
	return true;
}

int
level_floor_min(int size)
{
	return size * size / LEVEL_FLOOR_DIVISOR;
}

/*
 * A few small rooms far apart in a large maze leave little more than one corridor
 * between them (42 floor squares were seen at 51x51), a duel of two wizards in a pipe.
 * So a level with fewer than level_floor_min(size) floor squares is drawn again, at most
 * LEVEL_TRIES times in all, and the draw with the most floor is kept: the cost stays
 * bounded and the result is the same for the same seed.
 */
int
level_generate(struct level *lv, int size, struct rng *rng, struct level_rooms *rooms)
{
	return level_generate_unless_wall(lv, size, rng, rooms, 0, NULL, NULL);
}

/* The floor minimum's redraw decides on the pruned level, so every try is pruned (rules
 * version 1 could skip pruning a level with rock under a needed square: with redraws, the
 * draws that follow depend on the pruned floor count). */
int
level_generate_unless_wall(struct level *lv, int size, struct rng *rng, struct level_rooms *rooms, int n,
    const int *need_x, const int *need_y)
{
	struct level_rooms local, best_rooms;
	struct level_rooms *rs = rooms != NULL ? rooms : &local;
	struct level best;
	int best_floor = -1;

	if (!size_ok(size))
		return -1;
	for (int t = 0; t < LEVEL_TRIES; t++) {
		generate_once(lv, size, rng, rs);
		int floor = level_floor_count(lv);
		if (floor >= level_floor_min(size))
			return needs_met(lv, n, need_x, need_y) ? 0 : 1;
		if (floor > best_floor) {
			best_floor = floor;
			best = *lv;
			best_rooms = *rs;
		}
	}
	*lv = best;
	*rs = best_rooms;
	return needs_met(lv, n, need_x, need_y) ? 0 : 1;
}

int
level_floor_count(const struct level *lv)
{
	int n = 0;

	for (int y = 0; y < lv->size; y++)
		for (int x = 0; x < lv->size; x++)
			n += lv->cell[y][x] == CELL_FLOOR;
	return n;
}

bool
level_connected(const struct level *lv)
{
	uint16_t queue[LEVEL_MAX * LEVEL_MAX];
	bool seen[LEVEL_MAX][LEVEL_MAX];
	int head = 0, tail = 0;

	memset(seen, 0, sizeof seen);
	for (int i = 0; i < lv->size * lv->size && tail == 0; i++) {
		int x = i % lv->size, y = i / lv->size;
		if (lv->cell[y][x] == CELL_FLOOR) {
			seen[y][x] = true;
			queue[tail++] = (uint16_t)(y * LEVEL_MAX + x);
		}
	}
	/* Each floor cell enters the queue once, so it never holds more than the level's area. */
	while (head < tail) {
		int x = queue[head] % LEVEL_MAX, y = queue[head] / LEVEL_MAX;

		head++;
		for (int dy = -1; dy <= 1; dy++) {
			for (int dx = -1; dx <= 1; dx++) {
				int nx = x + dx, ny = y + dy;
				if (level_floor(lv, nx, ny) && !seen[ny][nx]) {
					seen[ny][nx] = true;
					queue[tail++] = (uint16_t)(ny * LEVEL_MAX + nx);
				}
			}
		}
	}
	return tail == level_floor_count(lv);
}

bool
level_sealed(const struct level *lv)
{
	int last = lv->size - 1;

	for (int i = 0; i <= last; i++) {
		if (lv->cell[0][i] == CELL_FLOOR || lv->cell[last][i] == CELL_FLOOR ||
		    lv->cell[i][0] == CELL_FLOOR || lv->cell[i][last] == CELL_FLOOR)
			return false;
	}
	return true;
}

void
level_mirror_point(int size, int how, int *x, int *y)
{
	if (how & MIRROR_H)
		*x = size - 1 - *x;
	if (how & MIRROR_V)
		*y = size - 1 - *y;
}

void
level_mirror_grid(uint8_t grid[LEVEL_MAX][LEVEL_MAX], int size, int how)
{
	if (size < 0 || size > LEVEL_MAX)
		return;
	if (how & MIRROR_H) {
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size / 2; x++) {
				uint8_t t = grid[y][x];
				grid[y][x] = grid[y][size - 1 - x];
				grid[y][size - 1 - x] = t;
			}
		}
	}
	if (how & MIRROR_V) {
		for (int y = 0; y < size / 2; y++) {
			uint8_t t[LEVEL_MAX];
			memcpy(t, grid[y], (size_t)size);
			memcpy(grid[y], grid[size - 1 - y], (size_t)size);
			memcpy(grid[size - 1 - y], t, (size_t)size);
		}
	}
}
