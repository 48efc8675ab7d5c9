/* SPDX-License-Identifier: MIT */
/* game: the duel as a pure state machine: options + seed + commands in order => the same game, bit for bit. */
#ifndef WW_GAME_H
#define WW_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "effect.h"
#include "fov.h"
#include "level.h"
#include "msg.h"
#include "potion.h"
#include "rng.h"
#include "spell.h"

/* Bump whenever any table, number or rule below changes the outcome of a game:
 * logs and the wire carry it, and a mismatch is refused rather than desynced. */
#define RULES_VERSION 4

#define PLAYERS 2
#define WIZARD_HP 5      /* start and maximum */
#define SCREAM_RADIUS 4  /* Scream shatters within this many squares (Chebyshev), and is heard "near" within them */
#define STEPS_PER_TURN 5 /* the plan's 0 to 5 squares; Fast adds as many again */
#define SLOW_PENALTY 3   /* steps a Slow wizard loses each turn */
#define INV_MAX 9
#define START_POTIONS 2  /* different kinds, identified */
#define TURN_LIMIT 1000  /* whole turns (one wizard's move) before the duel ends: more HP wins, equal HP draws */
#define END_PHASE_PER_SIDE 5 /* the end phase (each wizard senses the other every turn) starts at turn size * this */
#define POTION_DIVISOR 24 /* potions on the level = max(1, free squares / this) */
#define FIRE_MIN 5        /* Fire Storm floods a random 5 to 10 steps */
#define FIRE_MAX 10

struct options {
	uint8_t size; /* odd, LEVEL_MIN..LEVEL_MAX */
	bool fov;     /* false: the whole level is seen */
	bool potions; /* false: none on the level nor in inventories */
};

/* Directions are the numeric keypad's digits, as the plan's keys: 7 8 9 / 4 . 6 / 1 2 3. */
enum dir {
	DIR_NONE = 0,
	DIR_SW = 1, DIR_S = 2, DIR_SE = 3,
	DIR_W = 4, DIR_E = 6,
	DIR_NW = 7, DIR_N = 8, DIR_NE = 9,
};
bool dir_valid(int d);
int dir_dx(int d);
int dir_dy(int d);
/* "north-east" for DIR_NE; "" for anything else. */
const char *dir_name(int d);
/* The direction of a step (dx, dy) by their signs (y grows southwards); DIR_NONE for (0, 0). */
int dir_toward(int dx, int dy);

/* X(ID, name in logs and on the wire, what `arg` means). */
#define CMD_LIST(X) \
	X(STEP,   "step")   /* dir: one square */ \
	X(CAST,   "cast")   /* arg: offered slot 0..2; dir: for a spell that takes one */ \
	X(DRINK,  "drink")  /* the potion underfoot */ \
	X(QUAFF,  "quaff")  /* arg: inventory slot 0..8 */ \
	X(PICKUP, "pickup") /* the potion underfoot */ \
	X(PASS,   "pass")   /* the plan's 'end turn' */ \
	X(RESIGN, "resign") /* forfeit; allowed on either player's turn */

enum cmd_type {
#define X(id, name) CMD_##id,
	CMD_LIST(X)
#undef X
	CMD_COUNT
};

/* A command is data: the same struct is decoded from the wire and is one line of a turn log. */
struct cmd {
	uint8_t type;
	uint8_t arg;
	uint8_t dir;
};

const char *cmd_name(int type);
int cmd_lookup(const char *name);

/* X(ID, text). Every refusal has a reason; a refused command changes nothing. */
#define ERR_LIST(X) \
	X(OK,              "ok") \
	X(GAME_OVER,       "the duel is over") \
	X(NOT_YOUR_TURN,   "it is not your turn") \
	X(BAD_PLAYER,      "no such player") \
	X(BAD_COMMAND,     "no such command") \
	X(BAD_DIRECTION,   "not a direction (use 1-4, 6-9)") \
	X(NO_STEPS,        "no steps left this turn") \
	X(BLOCKED,         "that square is not open floor") \
	X(OCCUPIED,        "the other wizard stands there") \
	X(BAD_SPELL,       "no such spell offered (slots 1-3)") \
	X(NEEDS_DIRECTION, "that spell needs a direction") \
	X(NO_DIRECTION,    "that command takes no direction") \
	X(STRAY_ARGUMENT,  "that command takes no argument") \
	X(NO_POTION_HERE,  "there is no potion here") \
	X(INVENTORY_FULL,  "you cannot carry more than 9 potions") \
	X(BAD_SLOT,        "no potion in that inventory slot") \
	X(BAD_SIZE,        "level size must be odd, from 15 to 51") \
	X(BAD_OPTIONS,     "bad options")

enum err {
#define X(id, text) ERR_##id,
	ERR_LIST(X)
#undef X
	ERR_COUNT
};
const char *err_text(int err);

enum result {
	RESULT_NONE = 0,
	RESULT_WIN0 = 1, /* player 0 won */
	RESULT_WIN1 = 2, /* player 1 won */
	RESULT_DRAW = 3,
};
enum end_reason {
	END_NONE = 0,
	END_KILLED = 1,
	END_RESIGNED = 2,
	END_TURN_LIMIT = 3,
};

/* What a wizard remembers of a cell. */
enum mem {
	MEM_UNKNOWN = 0,
	MEM_WALL = 1,
	MEM_FLOOR = 2,
};

/* What a wizard knows of the opponent's whereabouts (struct wizard.opp_known). */
enum {
	OPPMEM_NONE = 0,
	OPPMEM_SENSED = 2,     /* sensed during the holder's current turn: exact when sensed */
	OPPMEM_REMEMBERED = 3, /* seen or sensed earlier: may be stale */
};

struct wizard {
	uint8_t x, y;
	int8_t hp;
	uint8_t ninv;
	uint8_t inv[INV_MAX];  /* appearances */
	uint8_t known;         /* bit a set: appearance a identified by this wizard */
	uint32_t intrinsics;   /* INTRINSIC(handler) bits of the links in `chain` */
	struct chain chain;
	uint8_t opp_known;     /* remembers where the opponent was last seen or sensed */
	uint8_t opp_x, opp_y;
	uint8_t mem[LEVEL_MAX][LEVEL_MAX];    /* enum mem */
	uint8_t memp[LEVEL_MAX][LEVEL_MAX];   /* remembered potion: 0 none, else appearance + 1 */
};

struct game {
	struct options opt;
	uint64_t seed;
	struct rng rng;
	struct level level;
	uint8_t potion[LEVEL_MAX][LEVEL_MAX]; /* 0 none, else appearance + 1 */
	uint8_t kind_of[APPEARANCE_COUNT];    /* appearance -> potion kind, drawn per duel */
	struct wizard wiz[PLAYERS];
	uint8_t first;        /* who moved first */
	uint8_t turn;         /* whose move it is */
	uint32_t turn_no;     /* turns completed so far */
	uint8_t steps_left;
	uint8_t offered[SPELL_OFFERED];
	uint8_t result;       /* enum result */
	uint8_t end_reason;   /* enum end_reason */
};

/* Effects drawn for one action, and everything else a command changed, as data. */
/* X(ID, name). The order is part of the rules version: effect ids cross the wire. */
#define FX_LIST(X) \
	X(NONE,  "none") \
	X(COLD,  "cold") \
	X(FIRE,  "fire") \
	X(ELEC,  "lightning") \
	X(ACID,  "acid") \
	X(SONIC, "sonic") \
	X(MAGIC, "magic")

enum fx {
#define X(id, name) FX_##id,
	FX_LIST(X)
#undef X
	FX_COUNT
};

#define EVENTS_MSG_MAX 32

struct events {
	uint8_t nmsg;
	struct msg msg[EVENTS_MSG_MAX];
	bool has_fx;
	uint8_t fx[LEVEL_MAX][LEVEL_MAX]; /* enum fx on each square an effect touched */
	uint8_t hp_changed;    /* bit p: player p's HP changed */
	bool layout_changed;   /* the level's cells changed */
	bool moved;            /* a wizard changed square */
	uint8_t sensed;        /* bit p: player p sensed the opponent this action (Life Detection, Telepathy) */
	bool turn_ended;
	uint8_t result;
	uint8_t spell;         /* the spell whose effect the last cast made (Random: the one it became) */
	/* What each wizard sees once the command is done (FoV on; unused when it is off),
	 * as the memory update computed it: view_build_after() takes it from here rather
	 * than compute it again. It describes the game as game_apply() left it, so it is
	 * handed out with the command's other results and never kept in the game, where
	 * any later change (a test editing the level, the next command) would leave it stale. */
	struct fov_sight sight[PLAYERS];
};

void options_default(struct options *o);
/* ERR_OK or ERR_BAD_SIZE / ERR_BAD_OPTIONS. */
int options_check(const struct options *o);

/* Set up a new duel. Returns ERR_OK, or an error for bad options (g is then unusable). */
int game_init(struct game *g, const struct options *o, uint64_t seed);

/* Apply player p's command. Returns ERR_OK and fills `ev` (which may be NULL), or a
 * refusal, and then nothing at all has changed in g. */
int game_apply(struct game *g, int p, const struct cmd *c, struct events *ev);

/* Draw the three spells offered to the wizard to move (turn start does it; the master
 * bot draws them again in a play-out, so that every plan meets the same offer). */
void game_draw_offer(struct game *g);
/* A spell's tickets in that draw: each of the three is drawn with odds in proportion to them
 * among the offerable spells not yet drawn (Take Life holds fewer: docs/rules.md). */
int game_offer_tickets(int spell);

/* Check a command without applying it: the same answer game_apply() would give. */
int game_check(const struct game *g, int p, const struct cmd *c);

/* 64-bit FNV-1a over every field that matters, in a fixed order: the same on any platform. */
uint64_t game_hash(const struct game *g);

/* The turn (turns completed) from which each wizard senses the other at the start of
 * each of its turns, so that hiding stops paying: END_PHASE_PER_SIDE * size. */
uint32_t game_end_phase(int size);
/* Is offset (ox, oy) inside Fire Storm's 90-degree cone around the direction (fx, fy)
 * (one step: each -1, 0 or 1)? A diagonal's cone is its quadrant; an orthogonal one holds
 * what lies forward at least as far as sideways. */
bool game_in_cone(int fx, int fy, int ox, int oy);

/* Is (x, y) seen by player p now (FoV, or everything when FoV is off)? */
bool game_sees(const struct game *g, int p, int x, int y);

#endif
