/* SPDX-License-Identifier: MIT */
/* internal.h: what the files of the rules module share and nobody else may call. */
#ifndef WW_INTERNAL_H
#define WW_INTERNAL_H

#include "game.h"

/* Queue a message for the players in `to` (bit p: player p). Silently bounded. */
void game__say(struct events *ev, int to, int id, int a, int b);
/* Player p learns where the opponent stands now. */
void game__sense(struct game *g, int p, struct events *ev);

/* Send one message down wizard `who`'s handler chain; see effect.h. Returns what the
 * base handler applied (damage dealt, HP healed, steps granted), 0 if a handler stopped it. */
int effect__send(struct game *g, int who, struct hmsg m, struct events *ev);
/* Link handler `id` for `turns` of the wizard's turns; a second dose renews it. */
void effect__link(struct game *g, int who, int id, int turns, struct events *ev);

/* fov.c's table of Bresenham lines, one quadrant (uy * (FOV_RADIUS + 1) + ux -> the
 * cells between the ends from each end), and the same turned round (a cell -> the targets
 * whose lines pass through it): for the tests that keep them true. */
const uint64_t (*fov__lines(void))[2];
const uint64_t (*fov__blocks(void))[2];

/* Does player p see (x, y) in the game that game_apply() or game_init() just left, whose
 * results are in ev? The sight the memory update computed, or everything with FoV off. */
static inline bool
game__seen(const struct game *g, const struct events *ev, int p, int x, int y)
{
	return !g->opt.fov || fov_seen(&ev->sight[p], x, y);
}

static inline int
game__bit(int p)
{
	return 1 << p;
}

#endif
