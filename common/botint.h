/* SPDX-License-Identifier: MIT */
/* botint: what the bot files share and nobody else may call (the master bot searches over hard's plans). */
#ifndef WW_BOTINT_H
#define WW_BOTINT_H

#include "game.h"
#include "view.h"

/* One plan of the hard bot: walk to (x, y), `steps` away, and give `cmd` there. */
struct bot__plan {
	uint8_t x, y, steps;
	struct cmd cmd;
	float score; /* hard's worth of it, in hundredths of a hit */
	struct cmd first; /* the command that starts it now: a step, or cmd itself */
};

/* Where the opponent may be, as hard weighs it: w over the squares, summing to wtotal
 * (0: nothing is known). `exact`: one square, for sure. */
struct bot__belief {
	float w[LEVEL_MAX][LEVEL_MAX];
	float wtotal;
	bool exact;
	bool lost; /* neither seen, sensed nor remembered: spread over all I do not see */
};

/* Hard's `max` best plans for the player to move, best first; returns how many (>= 1
 * while it is the viewer's turn: standing still is always a plan). Fills `bel` unless NULL. */
int bot__plans(const struct view *v, struct bot__plan *plans, int max, struct bot__belief *bel);

/* Hard's best plan for a view, remembered: the master's play-outs ask it again and again
 * for the same view (the opponent's turn after each of my plans, in one drawn game, often
 * looks the same to it: it did not see what I did). A hit is a view equal byte for byte
 * (view_build() clears the whole struct first), and bot__plans() reads nothing but the
 * view, so a hit gives the very plan it would compute. Empty: n and next 0. */
#define BOT_MEMO_SIZE 4
struct bot__memo {
	int n, next;
	struct view view[BOT_MEMO_SIZE];
	struct bot__plan plan[BOT_MEMO_SIZE];
};

/* bot__plans(v, plan, 1, NULL), from `memo` when it holds v (and into it when not). */
void bot__plan_memo(const struct view *v, struct bot__plan *plan, struct bot__memo *memo);

#endif
