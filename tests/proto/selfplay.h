/* SPDX-License-Identifier: MIT */
/* selfplay: random duels for the protocol's tests, fuzz corpus and benchmark: every command, both views before and after. */
#ifndef WW_TEST_SELFPLAY_H
#define WW_TEST_SELFPLAY_H

#include <stdint.h>

#include "game.h"
#include "view.h"

/* Called once at the start with both players' first views (before = NULL, ev = NULL,
 * c = NULL), then after every accepted command with both views before and after it. */
typedef void (*selfplay_cb)(void *ud, const struct game *g, const struct view *before, const struct view *after,
                            const struct events *ev, const struct cmd *c, int mover);

/* Play one duel of BOT_RANDOM against itself: game_init(opt, seed), the bots' RNG
 * seeded with seed ^ SELFPLAY_BOT_KEY, a refused command replaced by a pass.
 * Returns the number of commands applied, or -1 if game_init refused. */
#define SELFPLAY_BOT_KEY 0x5eedb075eedb075ULL
long selfplay_run(const struct options *opt, uint64_t seed, int bot_level, selfplay_cb cb, void *ud);

#endif
