/* SPDX-License-Identifier: MIT */
/* potion: the kinds of potion, the five appearances of a duel, and what each kind does. */
#ifndef WW_POTION_H
#define WW_POTION_H

#include <stdint.h>

#include "effect.h"
#include "spell.h"

/* The plan's five appearances. Each duel binds each to one kind at random. */
#define APPEARANCE_LIST(X) \
	X(YELLOW, "yellow") \
	X(BLUE,   "blue")   \
	X(RED,    "red")    \
	X(GREEN,  "green")  \
	X(ORANGE, "orange")

enum appearance {
#define X(id, name) APPEAR_##id,
	APPEARANCE_LIST(X)
#undef X
	APPEARANCE_COUNT
};

/* How a potion acts: it grants a timed intrinsic (through the handler chain), casts a
 * spell's effect on the drinker, or heals / harms directly. */
enum potion_effect {
	PEFFECT_HEAL,      /* + amount HP, never above the maximum */
	PEFFECT_HARM,      /* amount damage of element `element` to the drinker, through its chain */
	PEFFECT_INTRINSIC, /* handler `handler` linked for `turns` of the drinker's turns */
	PEFFECT_SPELL,     /* the spell `spell` takes effect as if the drinker cast it */
};

/* X(ID, name, effect, arg, turns, good)
 *   arg: amount for HEAL/HARM, handler id for INTRINSIC, spell id for SPELL.
 * The order is part of the rules version: append only. */
#define POTION_LIST(X) \
	X(HEALING,     "Healing",              PEFFECT_HEAL,      2,                 0, 1) \
	X(SPEED,       "Speed",                PEFFECT_INTRINSIC, HANDLER_FAST,      3, 1) \
	X(REGEN,       "Regeneration",         PEFFECT_INTRINSIC, HANDLER_REGEN,     4, 1) \
	X(RESCOLD,     "Cold Resistance",      PEFFECT_INTRINSIC, HANDLER_RES_COLD,  8, 1) \
	X(RESFIRE,     "Fire Resistance",      PEFFECT_INTRINSIC, HANDLER_RES_FIRE,  8, 1) \
	X(RESELEC,     "Lightning Resistance", PEFFECT_INTRINSIC, HANDLER_RES_ELEC,  8, 1) \
	X(RESACID,     "Acid Resistance",      PEFFECT_INTRINSIC, HANDLER_RES_ACID,  8, 1) \
	X(TELEPATHY,   "Telepathy",            PEFFECT_INTRINSIC, HANDLER_TELEPATHY, 5, 1) \
	X(ENLIGHTEN,   "Enlightenment",        PEFFECT_SPELL,     SPELL_MAPPING,     0, 1) \
	X(TELEPORT,    "Teleportation",        PEFFECT_SPELL,     SPELL_BLINK,       0, 1) \
	X(FORGET,      "Forgetfulness",        PEFFECT_SPELL,     SPELL_FORGET,      0, 0) \
	X(ACID,        "Acid",                 PEFFECT_SPELL,     SPELL_ACIDRAIN,    0, 0) \
	X(POISON,      "Poison",               PEFFECT_HARM,      1,                 0, 0) \
	X(SLOWNESS,    "Slowness",             PEFFECT_INTRINSIC, HANDLER_SLOW,      3, 0)

enum potion_kind {
#define X(id, name, eff, arg, turns, good) POTION_##id,
	POTION_LIST(X)
#undef X
	POTION_KIND_COUNT
};

struct potion_info {
	const char *name;
	enum potion_effect effect;
	int arg;
	int turns;
	int good;
};

#define POTION_NONE 0xff

const char *appearance_name(int a);
const struct potion_info *potion_info(int kind);
const char *potion_name(int kind);

#endif
