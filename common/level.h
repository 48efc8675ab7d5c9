/* SPDX-License-Identifier: MIT */
/* level: the dungeon grid, its generator (maze, rooms, dead ends pruned) and whole-level transforms. */
#ifndef WW_LEVEL_H
#define WW_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

#define LEVEL_MIN 15
#define LEVEL_MAX 51
#define LEVEL_DEFAULT 25
#define LEVEL_ROOMS_MIN 2
#define LEVEL_ROOMS_MAX 6
#define LEVEL_FLOOR_DIVISOR 8 /* a level has at least size * size / this floor squares (but see LEVEL_TRIES) */
#define LEVEL_TRIES 8         /* draws before the level with the most floor is kept */

enum cell {
	CELL_WALL = 0, /* the plan's 0 */
	CELL_FLOOR = 1, /* the plan's 1 and 2: rooms are floor once generated */
};

/* A square level of odd side `size`. Cells outside [0,size) are never read; the
 * outer ring is always wall. Indexed cell[y][x]. */
struct level {
	uint8_t size;
	uint8_t cell[LEVEL_MAX][LEVEL_MAX];
};

/* A room's floor rectangle: top-left (x, y), sides w and h, each 3, 5 or 7, x and y odd. */
struct room {
	uint8_t x, y, w, h;
};

struct level_rooms {
	int n;
	struct room room[LEVEL_ROOMS_MAX];
};

/* How many rooms a level of this size asks for at most: 6 (fewer are placed where they do not fit). */
int level_rooms_max(int size);
/* The floor squares a level is drawn again for when it has fewer: size * size / 8. */
int level_floor_min(int size);
/* Fill `lv` with a new dungeon of side `size` (odd, LEVEL_MIN..LEVEL_MAX): a perfect
 * maze, 2..level_rooms_max(size) rooms overlaid that never overlap nor touch, dead
 * ends pruned; drawn again (at most LEVEL_TRIES times) while it has fewer than
 * level_floor_min(size) floor squares. The floor is always one 8-connected (indeed 4-connected) region and
 * every room is part of it. `rooms` receives the rooms placed. Returns 0, or -1 for
 * a bad size. Draws only from `rng`. */
int level_generate(struct level *lv, int size, struct rng *rng, struct level_rooms *rooms);
/* level_generate() for a caller that keeps the level only if each of the n squares
 * (need_x[i], need_y[i]) is floor: the same draws and the same level, and 1 returned when
 * one of the squares is wall in it (0 otherwise). (Rules version 1 skipped the pruning of
 * such a level; with the floor minimum's redraws deciding on the pruned floor count, every
 * try is pruned.) */
int level_generate_unless_wall(struct level *lv, int size, struct rng *rng, struct level_rooms *rooms, int n,
    const int *need_x, const int *need_y);

static inline bool
level_in(const struct level *lv, int x, int y)
{
	return x >= 0 && y >= 0 && x < lv->size && y < lv->size;
}

/* Floor inside the level (false off the grid). */
static inline bool
level_floor(const struct level *lv, int x, int y)
{
	return level_in(lv, x, y) && lv->cell[y][x] == CELL_FLOOR;
}

/* On the outer ring, which no spell may ever open. */
static inline bool
level_edge(const struct level *lv, int x, int y)
{
	return x == 0 || y == 0 || x == lv->size - 1 || y == lv->size - 1;
}

int level_floor_count(const struct level *lv);
/* True when every floor cell is reachable from every other by 8-direction steps. */
bool level_connected(const struct level *lv);
/* True when the outer ring is all wall. */
bool level_sealed(const struct level *lv);

enum level_mirror {
	MIRROR_H = 1, /* left-right: x -> size-1-x */
	MIRROR_V = 2, /* top-bottom: y -> size-1-y */
	MIRROR_BOTH = 3,
};
/* Where (x, y) goes under a mirror. */
void level_mirror_point(int size, int how, int *x, int *y);
/* Mirror a whole size x size byte grid in place (used for the layout, potions and memories). */
void level_mirror_grid(uint8_t grid[LEVEL_MAX][LEVEL_MAX], int size, int how);

#endif
