/* SPDX-License-Identifier: MIT */
/* tutorial: the guide of `wizwar tutorial`: which step of a first duel is done, and what to do next. */
#include <stdio.h>
#include <string.h>

#include "bot.h"
#include "keys.h"
#include "tutorial.h"

/* The first key bound to `action` as it is printed on the screen's key labels, or "(unbound)". */
static const char *
key_of(const struct state *st, int action, char *buf, size_t len)
{
	const struct keys_binding *b = st->keys ? keys_get(st->keys, action, 0) : NULL;

	if (b == NULL || keys_label(b->code, buf, len) == NULL || buf[0] == '\0')
		snprintf(buf, len, "(unbound)");
	return buf;
}

/* Each step's advice: the text with up to three %s, filled with the keys of the actions named
 * (ACTION_NONE: none). One row of a table per step, so that a step is added as a row. */
static const struct {
	const char *text;
	int key[3];
} steps[TUTORIAL_STEPS + 1] = {
	[TUTORIAL_MOVE] = { "Tutorial 1/6, move: you are the white @. Step with the move keys (%s north, %s west, "
	                    "or the arrows); up to 5 steps a turn.",
	    { ACTION_MOVE_N, ACTION_MOVE_W, ACTION_NONE } },
	[TUTORIAL_LOOK] = { "Tutorial 2/6, look: press %s, move the cursor over a square to read what you know of "
	                    "it, %s to stop.",
	    { ACTION_LOOK, ACTION_CANCEL, ACTION_NONE } },
	[TUTORIAL_CAST] = { "Tutorial 3/6, cast: the spells offered are on the right; press %s, %s or %s to cast one "
	                    "(an aimed one asks a direction). A cast ends the turn.",
	    { ACTION_CAST_1, ACTION_CAST_2, ACTION_CAST_3 } },
	[TUTORIAL_POTION] = { "Tutorial 4/6, potions: walk onto a ! you have not identified and press %s to drink it: "
	                      "drinking one names its kind.",
	    { ACTION_DRINK, ACTION_NONE, ACTION_NONE } },
	[TUTORIAL_FIND] = { "Tutorial 5/6, find the red @: it hides. Walk the corridors, or cast Life Detection, "
	                    "Telepathy or Magic Mapping if offered (%s tells what each does).",
	    { ACTION_DESCRIBE, ACTION_NONE, ACTION_NONE } },
	[TUTORIAL_WIN] = { "Tutorial 6/6, win: bring its HP to 0. Rays and bolts fly in straight lines; Take Life "
	                   "needs sight. %s twice: how to fight.",
	    { ACTION_HELP, ACTION_NONE, ACTION_NONE } },
	[TUTORIAL_STEPS] = { "Tutorial done. Next: wizwar practice --bot novice, then easy, normal, hard, master.",
	    { ACTION_NONE, ACTION_NONE, ACTION_NONE } },
};

void
tutorial_text(int step, const struct state *st, char *buf, size_t len)
{
	char k[3][KEYS_NAME_MAX];

	if (step < 0 || step > TUTORIAL_STEPS)
		step = TUTORIAL_STEPS;
	for (int i = 0; i < 3; i++)
		if (steps[step].key[i] != ACTION_NONE)
			key_of(st, steps[step].key[i], k[i], sizeof k[i]);
		else
			k[i][0] = '\0';
	/* Each %s of the text takes the next key, in order (no printf on a table's string). */
	size_t o = 0;
	int used = 0;
	if (len == 0)
		return;
	for (const char *p = steps[step].text; *p && o + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 's') {
			const char *ks = used < 3 ? k[used++] : "";
			for (; *ks && o + 1 < len; ks++)
				buf[o++] = *ks;
			p++;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = '\0';
}

void
tutorial_init(struct tutorial *t)
{
	memset(t, 0, sizeof *t);
	t->me = -1;
}

void
tutorial_sent(struct tutorial *t, const struct cmd *c)
{
	/* The last action sent is the one that ended the turn: a cast the rules refused and then a
	 * pass is not a cast. */
	if (c->type == CMD_STEP || c->type == CMD_RESIGN)
		return;
	t->cast_sent = c->type == CMD_CAST;
	if (c->type == CMD_DRINK || c->type == CMD_QUAFF)
		t->drink_sent = true;
}

static unsigned
known_set(const struct view *v)
{
	unsigned s = 0;

	for (int a = 0; a < APPEARANCE_COUNT; a++)
		if (v->kind_of[a] != POTION_NONE)
			s |= 1u << a;
	return s;
}

void
tutorial_watch(struct tutorial *t, struct state *st)
{
	const struct view *v = &st->view;

	if (!st->have_view)
		return;
	if (!t->started || t->me != v->me || t->duel != st->duels) {
		/* A new duel (a rematch, on another level): what was done stays done; what proves the
		 * next steps is read afresh. */
		t->started = true;
		t->duel = st->duels;
		t->cast_sent = t->drink_sent = false;
		t->me = v->me;
		t->start_x = v->x;
		t->start_y = v->y;
		t->known0 = known_set(v);
	}
	/* A cast is done when the rules took it: the turn it was sent in is over. The turn number
	 * is read at each of my turns so that a cast refused (and so not sent on) is not counted. */
	if (state_my_turn(st) && !t->cast_sent)
		t->cast_turn = v->turn_no;
	/* Likewise the appearances known until a drink is sent: an Identify before it is not a drink. */
	if (!t->drink_sent)
		t->known0 = known_set(v);
	unsigned now = 0;
	if (v->x != t->start_x || v->y != t->start_y)
		now |= 1u << TUTORIAL_MOVE;
	if (st->mode == MODE_LOOK && (st->look_x != v->x || st->look_y != v->y))
		now |= 1u << TUTORIAL_LOOK;
	if (t->cast_sent && v->turn_no > t->cast_turn)
		now |= 1u << TUTORIAL_CAST;
	if (t->drink_sent && (known_set(v) & ~t->known0) != 0)
		now |= 1u << TUTORIAL_POTION;
	/* Remembered counts too: the rules remember only a square seen or sensed, and the update that
	 * showed it may have been followed by the opponent's before the guide looked. */
	if (v->opp_state != OPP_UNKNOWN)
		now |= 1u << TUTORIAL_FIND;
	if ((v->result == RESULT_WIN0 && v->me == 0) || (v->result == RESULT_WIN1 && v->me == 1))
		now |= 1u << TUTORIAL_WIN;
	t->done |= now;
	t->step = 0;
	while (t->step < TUTORIAL_STEPS && (t->done & (1u << t->step)))
		t->step++;
	if (v->result != RESULT_NONE && t->step < TUTORIAL_STEPS) {
		/* Lost or drawn: a rematch (r) plays the same duel again, the steps done stay done. */
		snprintf(st->guide, sizeof st->guide,
		    "Tutorial: not won this time. Press r for another duel against it (the steps done stay done).");
		return;
	}
	tutorial_text(t->step, st, st->guide, sizeof st->guide);
}

void
tutorial_streak_init(struct tutorial_streak *s, int level)
{
	*s = (struct tutorial_streak){ .level = level };
}

void
tutorial_streak_watch(struct tutorial_streak *s, struct state *st)
{
	const struct view *v = &st->view;

	if (!st->have_view || v->result == RESULT_NONE || s->counted == st->duels + 1)
		return;
	s->counted = st->duels + 1;
	bool won = (v->result == RESULT_WIN0 && v->me == 0) || (v->result == RESULT_WIN1 && v->me == 1);
	s->wins = won ? s->wins + 1 : 0;
	int next = bot_level_next(s->level);
	if (s->wins >= 2 && next >= 0)
		state_log_system(st, "%d wins in a row against the %s bot: try the next level up, wizwar practice --bot %s.",
		    s->wins, bot_level_name(s->level), bot_level_name(next));
}
