/* SPDX-License-Identifier: MIT */
/* mind: what a bot remembers between its calls, from the views it was given, its own
 * commands and what it was told and shown of the opponent's turns (messages, the
 * effects of its spells, my view after each of its commands: what a client gets), never
 * from the game: where the opponent may be now, and where it last saw me. */
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
	/* What the opponent's turn told me (mind_heard()), read at my next call. */
	bool heard_watched;       /* it sensed me (Life Detection) or took my life: it knows my square */
	uint8_t heard_scream;     /* 1: it screamed near me, 2: far from me */
	uint8_t heard_jump;       /* JUMP_* bits (mind.c): what moved one of us since the last call */
	/* The effects of its spells I saw in its turn (mind_saw()), by square: where they
	 * struck says where it stood (its cast ends its turn there). */
	bool saw_fx;
	uint8_t fx[LEVEL_MAX][LEVEL_MAX]; /* enum fx, FX_NONE where none was seen */
	/* Where I last saw it during its turn (mind_watch()): it walked into my sight and out
	 * again, and the moves I saw it make there. */
	bool glimpse;
	uint8_t glimpse_x, glimpse_y, glimpse_moves;
	bool watching;            /* given my views of its last turn: it did not cross my sight unseen */
};

void mind_reset(struct bot_mind *m);

/* Bring the mind up to `v`, the view of a call on my turn. */
void mind_observe(struct bot_mind *m, const struct view *v);

/* A message the rules sent me: every message of every update, in order, as a client is
 * told them. Some tell what the opponent did out of my sight: it sensed me (Life
 * Detection) or took my life (which needs sight of me), it screamed near me or far away. */
void mind_heard(struct bot_mind *m, const struct msg *msg);
/* The same for every message a command's events send player `me`. */
void mind_heard_events(struct bot_mind *m, int me, const struct events *ev);

/* An effect I saw on (x, y) (enum fx) while the opponent moved: an update's effects for
 * the opponent's commands (never my own: my spells say nothing of where it is). */
void mind_saw(struct bot_mind *m, int x, int y, int fx);
/* The same for every effect of the events of an opponent's command that lies on a square
 * `mine` (my view at that moment) shows in sight: what a client is sent. */
void mind_saw_events(struct bot_mind *m, const struct events *ev, const struct view *mine);

/* My view right after one of the opponent's commands, as an update gives a client
 * during its turn: where it stood when it walked through my sight (and saw me, sight
 * being mutual), though it may end its turn out of it. A step I cannot see gives a
 * client no update, so nothing here needs one. */
void mind_watch(struct bot_mind *m, const struct view *mine);

/* All a client gets of one command given by `mover`, for the mind of player mine->me:
 * the messages to me, and for the opponent's commands the effects on the squares I see
 * and `mine`, my view right after the command (view_build_after()). */
void mind_told(struct bot_mind *m, const struct view *mine, const struct events *ev, int mover);

/* Note the command I give on `v` (a spell cast may wipe what the opponent knows). */
void mind_acted(struct bot_mind *m, const struct view *v, const struct cmd *c);

/* Does the opponent still remember me, as far as I can tell: where (*x, *y). */
bool mind_opp_remembers(const struct bot_mind *m, const struct view *v, int *x, int *y);

#endif
