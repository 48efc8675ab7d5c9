/* SPDX-License-Identifier: MIT */
/* describe: the in-game descriptions; tests/common/test_describe.c keeps them equal to docs/rules.md's table. */
#include "describe.h"
#include "potion.h"
#include "spell.h"

static const char *const spell_descs[SPELL_COUNT] = {
	[SPELL_COLD] = "Rays in all 8 directions, through walls: 1 cold damage to a wizard on one.",
	[SPELL_FIRE] = "Aimed: fire floods 5-10 steps over floor in a 90-degree cone: 1 fire damage.",
	[SPELL_LIGHTNING] = "Bolts north, south, east, west to the first wall, and beside them: 1 damage.",
	[SPELL_MAPPING] = "You learn the whole layout of the level (not its potions).",
	[SPELL_ALTER] = "A new level around both wizards; you know it, your opponent forgets its own.",
	[SPELL_IDENTIFY] = "Every kind of potion you carry becomes known to you.",
	[SPELL_ITEMDETECT] = "Each potion on the ground is revealed to you with even odds.",
	[SPELL_LIFEDETECT] = "You sense where your opponent is; it feels watched.",
	[SPELL_RESTORE] = "You heal 1 HP (up to 5).",
	[SPELL_TAKELIFE] = "An opponent in sight loses 1 HP (no resistance) and you gain it.",
	[SPELL_MIRROR] = "The level and both wizards are mirrored; your opponent forgets the level.",
	[SPELL_RANDOM] = "Casts one of the other 19 spells at random, harmful ones included.",
	[SPELL_DEMOLISH] = "Walls within 2 squares of you crumble with even odds.",
	[SPELL_NAVIGATE] = "Straight passages open north, south, east and west of you.",
	[SPELL_CREATE] = "1 to 3 potions appear on random free squares.",
	[SPELL_BLINK] = "You move to a random floor square.",
	[SPELL_BLINKALL] = "You, then your opponent, move to random floor squares.",
	[SPELL_SCREAM] = "Potions within 4 squares may shatter, carried ones too (yours 1 in 3).",
	[SPELL_FORGET] = "You forget, with even odds, each square you remember but do not see.",
	[SPELL_ACIDRAIN] = "Acid on you and the 8 squares around: 1 acid damage to you and to a neighbour.",
};

static const char *const potion_descs[POTION_KIND_COUNT] = {
	[POTION_HEALING] = "+2 HP, up to 5.",
	[POTION_SPEED] = "Fast: 5 more steps on each of your next 3 turns.",
	[POTION_REGEN] = "+1 HP at the start of each of your next 4 turns.",
	[POTION_RESCOLD] = "Stops cold damage until the end of your 8th turn from now.",
	[POTION_RESFIRE] = "Stops fire damage until the end of your 8th turn from now.",
	[POTION_RESELEC] = "Stops lightning damage until the end of your 8th turn from now.",
	[POTION_RESACID] = "Stops acid damage until the end of your 8th turn from now.",
	[POTION_TELEPATHY] = "You sense your opponent at the start of each of your next 5 turns.",
	[POTION_ENLIGHTEN] = "As Magic Mapping: you learn the whole layout.",
	[POTION_TELEPORT] = "As Blink: you move to a random floor square.",
	[POTION_FORGET] = "As the Forgetfulness spell (harmful).",
	[POTION_ACID] = "As Acid Rain: 1 acid damage to you and to a neighbour (harmful).",
	[POTION_POISON] = "1 poison damage to you; nothing resists it (harmful).",
	[POTION_SLOWNESS] = "Slow: 3 steps fewer on each of your next 3 turns (harmful).",
};

const char *
spell_desc(int spell)
{
	return spell >= 0 && spell < SPELL_COUNT && spell_descs[spell] ? spell_descs[spell] : "";
}

const char *
potion_desc(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT && potion_descs[kind] ? potion_descs[kind] : "";
}
