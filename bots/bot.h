/* SPDX-License-Identifier: MIT */
/* bot: players that decide from a view alone, never from the game state: what a person could know. */
#ifndef WW_BOT_H
#define WW_BOT_H

#include "game.h"
#include "mind.h"
#include "rng.h"
#include "view.h"

enum bot_level {
	BOT_RANDOM = 0, /* a random legal command; the selfplay and test opponent */
	BOT_EASY,
	BOT_NORMAL,
	BOT_HARD,
	BOT_MASTER, /* searches: hard's plans played out over guesses consistent with the view */
	BOT_NOVICE, /* below easy, for a first duel: strikes half the time it could, never heals; last so
	             * that the levels' numbers (and every duel recorded with them) stay as they were */
	BOT_LEVEL_COUNT
};

const char *bot_level_name(int level);
int bot_level_lookup(const char *name); /* -1 if unknown */
/* The next level up the ladder (random, novice, easy, normal, hard, master), or -1 above master. */
int bot_level_next(int level);

/* The next command for the player whose view `v` is (it must be that player's turn).
 * Draws only from `rng`, which is the bot's own, never the game's. The command is
 * legal as far as the view can tell; a caller must still handle a refusal. */
void bot_choose(const struct view *v, int level, struct rng *rng, struct cmd *out);

/* The same, for a player that keeps a mind (mind.h) through the duel: it is brought up to
 * `v` and told the command given. Master reads it (where the opponent may be, where it last
 * saw me); the other levels decide from the view alone. A NULL mind is bot_choose(). */
void bot_choose_mind(const struct view *v, int level, struct rng *rng, struct bot_mind *mind, struct cmd *out);

/* The most the master level spends a call when bot_choose() is asked for it, in
 * commands given inside its play-outs (mine and the opponent's, with the opponent's
 * view; drawing a game counts 2, an Alter Dungeon 7): a count, not a clock, so
 * replays stay reproducible and a call's work is bounded whatever its play-outs cost.
 * 167 since a paired test on the same seeds found 2,000 (the old default, the most
 * within 100 ms of one core) no measurably stronger at 25x25 (docs/bots.md, "Master's
 * budget"). MASTER_SCALE is the size formula's base (the budget a size would have without
 * that cap: 2,000 at 25x25, 315 at 51x51). */
#ifndef MASTER_COMMANDS
#define MASTER_COMMANDS 167
#endif
#ifndef MASTER_SCALE
#define MASTER_SCALE 2000
#endif

/* The master level's budget at this level size (bot_choose() uses it): MASTER_SCALE
 * x 25 x 75 x 50 x 50 / (size x (size + 50) x (size + 25)^2), since a command costs more
 * on a larger level, at most MASTER_COMMANDS and at least 64 (167 at 15x15, 25x25 and
 * 51x51). */
long bot_master_budget(int size);

/* The master level with a budget of `budget` commands for this call (below 64: hard's
 * first plan, no search). Deterministic given the view and `rng`, which it does not
 * advance; reads no clock. Returns the commands it spent (0 when there was nothing to
 * search); it never spends more than the budget plus one play-out and a draw (at most 90). */
int bot_master_choose(const struct view *v, struct rng *rng, long budget, struct cmd *out);

/* The same with a mind (read only: bot_choose_mind() keeps it up to date). */
int bot_master_choose_mind(const struct view *v, const struct bot_mind *mind, struct rng *rng, long budget,
    struct cmd *out);

#endif
