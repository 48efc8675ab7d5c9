/* SPDX-License-Identifier: MIT */
/* mind: what a bot remembers between its calls, from the views it was given and its own
 * commands, never from the game: where the opponent may be now, and where it last saw me. */
#ifndef WW_MIND_H
#define WW_MIND_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "view.h"

/* Zeroed (or mind_reset()) is empty: a mind that has seen nothing, which the bots read
 * as the view alone. The caller keeps one per player and duel and passes it to every
 * bot_choose_mind() call of that player; nothing else writes it. */
struct bot_mind {
	bool started;
	uint8_t me, size;
	uint32_t turn_no;         /* of the last view observed */
	/* Where the opponent may stand: the squares it could have walked to since I last knew
	 * its square, five steps a turn over everything not known to be wall, less every
	 * square I have seen since without it. */
	uint8_t may[LEVEL_MAX][LEVEL_MAX];
	int nmay;
	bool exact;               /* may is the one square I see or sensed it on, now */
	/* Where the opponent last saw me: the square I stood on when we last were in each
	 * other's sight (sight is mutual: game.c's field of view sees both ways alike), and
	 * the turn that was. Cleared when my spell wiped its memory. */
	bool seen;
	uint8_t seen_x, seen_y;
	uint32_t seen_turn;
	uint8_t last_state, last_ox, last_oy; /* the view's opponent at the last call */
	uint8_t last_x, last_y;   /* and where I stood */
	uint8_t cast;             /* the spell of my last command, SPELL_NONE if none */
};

void mind_reset(struct bot_mind *m);

/* Bring the mind up to `v`, the view of a call on my turn. */
void mind_observe(struct bot_mind *m, const struct view *v);

/* Note the command I give on `v` (a spell cast may wipe what the opponent knows). */
void mind_acted(struct bot_mind *m, const struct view *v, const struct cmd *c);

/* Does the opponent still remember me, as far as I can tell: where (*x, *y). */
bool mind_opp_remembers(const struct bot_mind *m, const struct view *v, int *x, int *y);

#endif
