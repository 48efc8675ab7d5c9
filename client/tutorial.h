/* SPDX-License-Identifier: MIT */
/* tutorial: `wizwar tutorial`'s guide: the steps of a first duel, each checked on what the rules
 * answered (the views the server sends) and on the keys the person used, with one line of advice. */
#ifndef WW_TUTORIAL_H
#define WW_TUTORIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "state.h"

/* The steps, in the order they are asked for. A step done out of order (the opponent found
 * before any potion was drunk) counts when it happens: the guide asks for the first step not
 * done yet. */
enum tutorial_step {
	TUTORIAL_MOVE,   /* the wizard stood on another square */
	TUTORIAL_LOOK,   /* look mode opened and its cursor moved off the wizard */
	TUTORIAL_CAST,   /* a spell was cast and the rules ended the turn with it */
	TUTORIAL_POTION, /* a potion drunk, and an appearance identified that was not */
	TUTORIAL_FIND,   /* the opponent in sight, sensed, or remembered from either */
	TUTORIAL_WIN,    /* the duel won */
	TUTORIAL_STEPS
};

/* The tutorial's fixed duel: `wizwar tutorial` plays it (and checks nothing else of it). Seed 95
 * at 15x15 puts the person (seat 0) first to move, an unidentified potion two squares away in
 * its first room and the opponent twelve squares off and out of sight. */
#define TUTORIAL_SEED 95
#define TUTORIAL_SIZE 15

struct tutorial {
	/* read-only */
	unsigned done;        /* bit s: step s done */
	int step;             /* the first step not done; TUTORIAL_STEPS when every one is */

	/* private */
	bool started;         /* the first view was seen: start_x, start_y and known0 hold it */
	uint8_t start_x, start_y;
	unsigned known0;      /* appearances identified when the last drink was sent (or now, none sent) */
	bool cast_sent, drink_sent;
	uint32_t cast_turn;   /* the turn a cast was sent in */
	int me;
	uint32_t duel;        /* st->duels of the duel the fields above belong to (a rematch starts again) */
};

void tutorial_init(struct tutorial *t);
/* A command the person's client sent (before the rules answered). */
void tutorial_sent(struct tutorial *t, const struct cmd *c);
/* After each key handled and each update shown: mark the steps the state now proves done, and
 * put the advice for the next one in st->guide. */
void tutorial_watch(struct tutorial *t, struct state *st);
/* The advice of step s (TUTORIAL_STEPS: the end), with the keys in force. */
void tutorial_text(int step, const struct state *st, char *buf, size_t len);

/* Practice's coach: after two wins in a row against a level, a line in the log names the next
 * level up (issue 33: a ladder a new player climbs). It reads only the views shown, once per
 * duel's end; a loss or a draw starts the count again. */
struct tutorial_streak {
	int level;        /* the bot's (enum bot_level) */
	int wins;         /* in a row, up to the last duel counted */
	uint32_t counted; /* st->duels + 1 of the last duel counted; 0: none */
};

void tutorial_streak_init(struct tutorial_streak *s, int level);
void tutorial_streak_watch(struct tutorial_streak *s, struct state *st);

#endif
