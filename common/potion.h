/* SPDX-License-Identifier: MIT */
/* potion: the kinds of potion, the five appearances of a duel, and what each kind does. */
#ifndef WW_POTION_H
#define WW_POTION_H

#include <stdbool.h>
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

/* One row per kind of potion, its one home in the rules:
 *   X(ID, name, effect, arg, turns, good, line, rules)
 *   arg: amount for HEAL/HARM, handler id for INTRINSIC, spell id for SPELL.
 *   line: one sentence for players (the `I` screen); rules: docs/rules.md's row, whose
 *   "lasts" column is `turns` (tests/common/doc_rules.c writes that table from these rows).
 * What a kind is worth to the bots is its row of bots/bot.c's `potion_values` (a test fails
 * for a kind without one). The order is part of the rules version: append only. */
#define POTION_LIST(X) \
	X(HEALING, "Healing", PEFFECT_HEAL, 2, 0, 1, \
	  "+2 HP, up to 5.", \
	  "+2 HP, up to 5") \
	X(SPEED, "Speed", PEFFECT_INTRINSIC, HANDLER_FAST, 3, 1, \
	  "Fast: 5 more steps on each of your next 3 turns.", \
	  "Fast: 5 more steps each turn (a second set of steps)") \
	X(REGEN, "Regeneration", PEFFECT_INTRINSIC, HANDLER_REGEN, 4, 1, \
	  "+1 HP at the start of each of your next 4 turns.", \
	  "+1 HP at the start of each of the drinker's turns, up to 5") \
	X(RESCOLD, "Cold Resistance", PEFFECT_INTRINSIC, HANDLER_RES_COLD, 8, 1, \
	  "Stops cold damage until the end of your 8th turn from now.", \
	  "stops cold damage") \
	X(RESFIRE, "Fire Resistance", PEFFECT_INTRINSIC, HANDLER_RES_FIRE, 8, 1, \
	  "Stops fire damage until the end of your 8th turn from now.", \
	  "stops fire damage") \
	X(RESELEC, "Lightning Resistance", PEFFECT_INTRINSIC, HANDLER_RES_ELEC, 8, 1, \
	  "Stops lightning damage until the end of your 8th turn from now.", \
	  "stops lightning damage") \
	X(RESACID, "Acid Resistance", PEFFECT_INTRINSIC, HANDLER_RES_ACID, 8, 1, \
	  "Stops acid damage until the end of your 8th turn from now.", \
	  "stops acid damage; **never drawn** since rules version 4 (see below)") \
	X(TELEPATHY, "Telepathy", PEFFECT_INTRINSIC, HANDLER_TELEPATHY, 5, 1, \
	  "You sense your opponent at the start of each of your next 5 turns.", \
	  "the drinker senses the opponent's position at the start of each of its turns") \
	X(ENLIGHTEN, "Enlightenment", PEFFECT_SPELL, SPELL_MAPPING, 0, 1, \
	  "As Magic Mapping: you learn the whole layout.", \
	  "as Magic Mapping") \
	X(TELEPORT, "Teleportation", PEFFECT_SPELL, SPELL_BLINK, 0, 1, \
	  "As Blink: you move to a random floor square.", \
	  "as Blink") \
	X(FORGET, "Forgetfulness", PEFFECT_SPELL, SPELL_FORGET, 0, 0, \
	  "As the Forgetfulness spell (harmful).", \
	  "as the Forgetfulness spell (negative)") \
	X(ACID, "Acid", PEFFECT_SPELL, SPELL_ACIDRAIN, 0, 0, \
	  "As Acid Rain: 1 acid damage to you and to a neighbour (harmful).", \
	  "as Acid Rain (negative)") \
	X(POISON, "Poison", PEFFECT_HARM, 1, 0, 0, \
	  "1 poison damage to you; nothing resists it (harmful).", \
	  "1 poison damage to the drinker (negative; no resistance)") \
	X(SLOWNESS, "Slowness", PEFFECT_INTRINSIC, HANDLER_SLOW, 3, 0, \
	  "Slow: 3 steps fewer on each of your next 3 turns (harmful).", \
	  "Slow: 3 steps fewer each turn (2 instead of 5)") \
	/* a new row goes above this line: append only (docs/hacking.md) */

enum potion_kind {
#define X(id, name, eff, arg, turns, good, line, rules) POTION_##id,
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

/* Is the kind among those a duel draws its five from? Every kind but Acid Resistance, which
 * no duel draws since rules version 4: measured, drinking it helped hard in no state, and
 * neither did a restatement that let it stop poison too (docs/rules.md, "What each spell
 * and potion is worth"). Its row stays, so that the kinds keep their ids on the wire. */
bool potion_drawn(int kind);
const char *appearance_name(int a);
const struct potion_info *potion_info(int kind);
const char *potion_name(int kind);

#endif
