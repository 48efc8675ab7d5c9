/* SPDX-License-Identifier: MIT */
/* bot: players that decide from a view alone, never from the game state: what a person could know. */
#ifndef WW_BOT_H
#define WW_BOT_H

#include "game.h"
#include "rng.h"
#include "view.h"

enum bot_level {
	BOT_RANDOM = 0, /* a random legal command; the selfplay and test opponent */
	BOT_EASY,
	BOT_NORMAL,
	BOT_HARD,
	BOT_MASTER, /* searches: hard's plans played out over guesses consistent with the view */
	BOT_LEVEL_COUNT
};

const char *bot_level_name(int level);
int bot_level_lookup(const char *name); /* -1 if unknown */

/* The next command for the player whose view `v` is (it must be that player's turn).
 * Draws only from `rng`, which is the bot's own, never the game's. The command is
 * legal as far as the view can tell; a caller must still handle a refusal. */
void bot_choose(const struct view *v, int level, struct rng *rng, struct cmd *out);

/* The master level's played-out duels per call at 25x25 when bot_choose() is asked for
 * it, calibrated so that a call stays within 100 ms on one core of the reference machine
 * (docs/bots.md has the measured times, worst case included). Other sizes scale it by
 * side (bot_master_budget): a play-out costs less than the area grows, since the bots'
 * work follows the squares within a turn's reach, not the whole level. */
#define MASTER_SIMS 96

/* The played-out duels a call of the master level makes at this level size: MASTER_SIMS
 * x 25 / size (160 at 15x15, 96 at 25x25, 47 at 51x51), at least 12 (two per plan
 * searched) and at most 2 x MASTER_SIMS. */
int bot_master_budget(int size);

/* The master level with a budget of `sims` played-out duels for this call (fewer than
 * the plans searched: hard's first plan, no search). Deterministic given the view and
 * `rng`, which it does not advance; reads no clock. Returns the duels played out (0 when
 * there was nothing to search). */
int bot_master_choose(const struct view *v, struct rng *rng, int sims, struct cmd *out);

#endif
