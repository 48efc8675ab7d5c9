/* SPDX-License-Identifier: MIT */
/* botint: what the bot files share and nobody else may call (the master bot searches over hard's plans). */
#ifndef WW_BOTINT_H
#define WW_BOTINT_H

#include "game.h"
#include "view.h"

/* The numbers hard weighs its plans by, in hundredths of a hit unless said otherwise: one
 * table, so that a tuning run (tests/bench/bench_tune.c) can play hard with other numbers
 * against hard itself, for master's own plans. None found was better (docs/bots.md,
 * "A mind between calls"): master plans by hard's. */
struct bot__weights {
	float hurt[3];              /* a hit taken at 1 HP or less, at 2 HP, at more */
	float heal[WIZARD_HP];      /* one HP healed, from 0 (unused) to 4 HP */
	float danger_sight;         /* odds of being hit next turn, ending it in the opponent's sight, */
	float danger_line;          /* on its row, column or diagonal out of sight, */
	float danger_off;           /* elsewhere */
	float danger_near;          /* those odds times this when it is only remembered */
	float nav;                  /* a step still to go towards the quarry or the unknown */
	float close;                /* within this many steps of a known opponent, nearer is no better */
	float lifedetect_near;      /* Life Detection with the opponent remembered, */
	float lifedetect_lost;      /* lost */
	float mapping;              /* Magic Mapping and Enlightenment, times the share never seen */
	float escape_cornered;      /* Alter Dungeon or Mirror Earth when cornered, */
	float escape_idle;          /* otherwise, plus */
	float escape_unknown;       /* this times the share never seen */
	float blink_cornered;       /* Blink when cornered */
	float blinkall_cornered;    /* Blink All when cornered */
	float blink_idle;           /* either otherwise */
	float use_measured;         /* not 0: Blink, Blink All and Acid Resistance used at once where
	                             * bot.c's use_helps says (hard's, for its own; normal keeps the
	                             * cornered rule); 0: hard blinks when cornered, as before */
	float cornered_hp;          /* cornered: at this HP or less, in the opponent's sight */
	float telepathy;            /* Telepathy drunk while not seeing the opponent */
	float speed_exact;          /* Speed drunk with the opponent's square known, */
	float speed_else;           /* otherwise */
	float resist_near;          /* a resistance drunk with the opponent near, */
	float resist_far;           /* otherwise */
	float teleport_cornered;    /* Teleportation drunk when cornered */
	float drink_unknown;        /* an unknown potion drunk, */
	float drink_unknown_hp;     /* at this HP or more, the opponent not at hand */
	float pickup_unknown;       /* an unknown potion picked up */
	float identify_each;        /* Identify, per unknown potion carried (and once more) */
	float stay;                 /* a remembered opponent that did not move, against one square it walked to */
};

/* Hard's own numbers: the hard level, the normal and easy levels' shared reckoning, master's
 * own plans, and the opponent master plays out. */
extern const struct bot__weights bot__hard_weights;

/* bot_master_choose_mind() with the numbers `w` for master's own plans (the opponent it
 * plays out is hard, by bot__hard_weights): the tuning bench's way in. */
struct rng;
struct bot_mind;
int bot__master_choose_w(const struct view *v, const struct bot__weights *w, const struct bot_mind *mind,
    struct rng *rng, long budget, struct cmd *out);

/* The levels bot.c plays (bot.h's BOT_RANDOM to BOT_HARD, and BOT_NOVICE), for choose.c's table and
 * master's play-outs: each for the viewer to move in a duel not over (bot_choose() sees to it). */
struct rng;
void bot__choose_random(const struct view *v, struct rng *r, struct cmd *out);
void bot__choose_easy(const struct view *v, struct rng *r, struct cmd *out);
void bot__choose_novice(const struct view *v, struct rng *r, struct cmd *out);
void bot__choose_normal(const struct view *v, struct rng *r, struct cmd *out);
void bot__choose_hard(const struct view *v, struct rng *r, struct cmd *out);

/* Does bot.c weigh this spell (kind < 0) or this kind of potion (spell < 0)? Every row of
 * SPELL_LIST and POTION_LIST must have its row in bot.c's spell_values or potion_values. */
bool bot__valued(int spell, int kind);

/* The states a use of Blink, Blink All or Acid Resistance is measured and decided in
 * (tests/bench/bench_use.c measures, bot.c's use_helps decides): at the first command of
 * the mover's turn, by its HP (1, 2, or 3 to 5), whether it sees the opponent now, and
 * whether it is behind in HP. BOT_USE_CLASSES of them (few, so that each holds enough states
 * to measure); -1 when it is not the first command of a turn (the bench forks only there,
 * so the bot decides only there). */
enum { BOT_USE_HP = 3, BOT_USE_CLASSES = BOT_USE_HP * 2 * 2 };
int bot__use_class(const struct view *v);
/* The items: Blink, Blink All, Acid Resistance. */
enum { BOT_USE_BLINK, BOT_USE_BLINKALL, BOT_USE_RESACID, BOT_USE_ITEMS };
/* Does the table say that item helps in that class (the bot uses it there, at once)? */
bool bot__use_helps(int item, int cls);

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

/* The same with the numbers `w` in place of hard's, and with the opponent lost, the
 * squares a mind says it may be on (NULL:
 * anywhere out of sight, as the view says) as its belief and, when they are few, as the
 * quarry (MIND_PLANS in bot.c; master's own plans). */
struct bot_mind;
int bot__plans_mind(const struct view *v, const struct bot__weights *w, const struct bot_mind *mind,
    struct bot__plan *plans, int max, struct bot__belief *bel);

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
