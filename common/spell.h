/* SPDX-License-Identifier: MIT */
/* spell: the table of every spell of the plan; one row per spell, in SPELL_LIST. */
#ifndef WW_SPELL_H
#define WW_SPELL_H

#include <stdbool.h>
#include <stdint.h>

enum spell_class {
	SPELL_POSITIVE,
	SPELL_NEUTRAL,
	SPELL_NEGATIVE, /* never offered; only through Random and potions */
};

/* One row per spell, its one home in the rules:
 *   X(ID, name, class, takes a direction, line, rules)
 * line: one sentence for players (the `I` screen, at most DESCRIBE_MAX bytes); rules: the
 * whole rule, docs/rules.md's row (tests/common/doc_rules.c writes that table from these
 * rows and `meson test` fails when it differs). What a spell does is its cast_ function in
 * game.c's `casts`; what it is worth to the bots, its row of bots/bot.c's `spell_values`
 * (a test fails for a spell without one). docs/hacking.md, "A spell", has the steps.
 * The order is part of the rules version: spell ids cross the wire and stand in turn
 * logs. Append only. */
#define SPELL_LIST(X) \
	X(COLD, "Rays of Cold", SPELL_POSITIVE, false, \
	  "Rays in all 8 directions, through walls: 1 cold damage to a wizard on one.", \
	  "Rays in all 8 directions from the caster to the edge of the dungeon, **through walls** " \
	  "(walls stay). 1 cold damage to the opponent if on a ray. Caster told hit or miss; no " \
	  "message for the opponent.") \
	X(FIRE, "Fire Storm", SPELL_POSITIVE, true, \
	  "Aimed: fire floods 5-10 steps over floor in a 90-degree cone: 1 fire damage.", \
	  "Fire floods over the floor from the caster, up to a random **5 to 10** steps " \
	  "(8-direction steps), within the **90-degree cone** of the chosen direction (orthogonal: " \
	  "squares at least as far forward as sideways; diagonal: its quadrant). Walls stop it. 1 " \
	  "fire damage to the opponent if reached. Caster told hit or miss; no message for the " \
	  "opponent.") \
	X(LIGHTNING, "Lightning Bolts", SPELL_POSITIVE, false, \
	  "Bolts north, south, east, west to the first wall, and beside them: 1 damage.", \
	  "Bolts north, west, south and east of the caster, each until the first wall; the squares " \
	  "on either side of each bolt square are struck too where they are floor (the plan's " \
	  "\"lines next to the direct lines\"). 1 lightning damage. Caster told hit or miss; opponent " \
	  "always: \"Thunder echoes all around the dungeon!\"") \
	X(MAPPING, "Magic Mapping", SPELL_POSITIVE, false, \
	  "You learn the whole layout of the level (not its potions).", \
	  "The caster learns the whole layout (not the potions). No message for the opponent.") \
	X(ALTER, "Alter Dungeon", SPELL_POSITIVE, false, \
	  "A new level around both wizards; you know it, your opponent forgets its own.", \
	  "New layouts are generated until one has floor under both wizards (at most 1,000 tries; " \
	  "see below). The potions that were on the ground are scattered again over random free " \
	  "squares. The caster knows the whole new layout; the opponent forgets everything it knew " \
	  "and is told \"You sense your surroundings are different.\"") \
	X(IDENTIFY, "Identify", SPELL_POSITIVE, false, \
	  "Every kind of potion you carry becomes known to you.", \
	  "Every appearance in the caster's inventory becomes identified for the caster. No message " \
	  "for the opponent.") \
	X(ITEMDETECT, "Item Detection", SPELL_POSITIVE, false, \
	  "Each potion on the ground is revealed to you with even odds.", \
	  "Each potion on the ground is sensed with even odds (the plan's \"some items\"): the caster " \
	  "now remembers it and the floor under it. No message for the opponent.") \
	X(LIFEDETECT, "Life Detection", SPELL_POSITIVE, false, \
	  "You sense where your opponent is; it feels watched.", \
	  "The caster senses the opponent's position. Opponent: \"You feel like you're being " \
	  "watched.\"") \
	X(RESTORE, "Restoration", SPELL_POSITIVE, false, \
	  "You heal 1 HP (up to 5).", \
	  "The caster heals 1 HP, up to 5. No message for the opponent.") \
	X(TAKELIFE, "Take Life", SPELL_POSITIVE, false, \
	  "An opponent in sight loses 1 HP (no resistance) and you gain it.", \
	  "If the opponent is in sight: 1 drain damage to it (no resistance stops drain) and the " \
	  "caster heals 1. Opponent: \"You feel like your soul is being taken away.\" Out of sight " \
	  "the spell fizzles, and the caster is told so.") \
	X(MIRROR, "Mirror Earth", SPELL_POSITIVE, false, \
	  "The level and both wizards are mirrored; your opponent forgets the level.", \
	  "Layout, potions and both wizards are mirrored left-right, top-bottom or both (one of " \
	  "three, evenly). The caster knows the whole mirrored layout (its potion memories mirror " \
	  "too); the opponent forgets everything and is told \"You feel unaware of your " \
	  "surroundings.\"") \
	X(RANDOM, "Random", SPELL_NEUTRAL, false, \
	  "Casts any other spell at random, harmful ones included.", \
	  "Casts any spell but Random, each as likely, negative ones included, with a random " \
	  "direction if it needs one. The caster is told which.") \
	X(DEMOLISH, "Demolition", SPELL_NEUTRAL, false, \
	  "Walls within 2 squares of you crumble with even odds.", \
	  "Each wall within 2 squares of the caster (never the outer ring) crumbles with even odds, " \
	  "the nearer ring first, and only if it touches floor. Opponent, if any rock fell: \"You " \
	  "hear rock being destroyed.\"") \
	X(NAVIGATE, "Navigate", SPELL_NEUTRAL, false, \
	  "Straight passages open north, south, east and west of you.", \
	  "Straight passages are opened north, west, south and east of the caster up to the outer " \
	  "ring. Opponent, if anything changed: \"You hear rock being destroyed.\"") \
	X(CREATE, "Create Potions", SPELL_NEUTRAL, false, \
	  "1 to 3 potions appear on random free squares.", \
	  "1 to 3 (d3) potions of random appearance appear on random free squares (floor, no " \
	  "potion, no wizard). No message for the opponent.") \
	X(BLINK, "Blink", SPELL_NEUTRAL, false, \
	  "You move to a random floor square.", \
	  "The caster moves to a random floor square that holds no wizard. No message for the " \
	  "opponent.") \
	X(BLINKALL, "Blink All", SPELL_NEUTRAL, false, \
	  "You, then your opponent, move to random floor squares.", \
	  "Both wizards move so, caster first. Opponent: \"You are teleported!\"") \
	X(SCREAM, "Scream", SPELL_NEUTRAL, false, \
	  "Potions within 4 squares may shatter, carried ones too (yours 1 in 3).", \
	  "A sonic boom of radius 4 around the caster. Potions on the ground within it shatter with " \
	  "even odds (the caster is told how many of those it saw); each potion the caster carries " \
	  "with odds 1/3; if the opponent is within it, each potion it carries with even odds. " \
	  "Opponent: \"A loud magical scream can be heard!\" within radius 4, \"A loud magical scream " \
	  "can be heard in the distance.\" beyond.") \
	X(FORGET, "Forgetfulness", SPELL_NEGATIVE, false, \
	  "You forget, with even odds, each square you remember but do not see.", \
	  "Each square the caster remembers but does not see now is forgotten with even odds " \
	  "(layout and potion); a remembered opponent out of sight is forgotten. No message for the " \
	  "opponent.") \
	X(ACIDRAIN, "Acid Rain", SPELL_NEGATIVE, false, \
	  "Acid on you and the 8 squares around: 1 acid damage to you and to a neighbour.", \
	  "Acid on the caster's square and the 8 around it: 1 acid damage to the caster, and to the " \
	  "opponent if adjacent. Caster told when it hits; opponent: \"You can hear rain.\"") \
	/* a new row goes above this line: append only (docs/hacking.md) */

enum spell_id {
#define X(id, name, cls, dir, line, rules) SPELL_##id,
	SPELL_LIST(X)
#undef X
	SPELL_COUNT
};

#define SPELL_OFFERED 3
#define SPELL_NONE 0xff

const char *spell_name(int id);
enum spell_class spell_class_of(int id);
bool spell_takes_dir(int id);
/* Name -> id by exact name, or by the short id in any case ("cold", "FIRE"); -1 if none. */
int spell_lookup(const char *name);

#endif
