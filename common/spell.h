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

/* X(ID, name, class, takes a direction). The order is part of the rules version:
 * spell ids cross the wire and stand in turn logs. Append only. */
#define SPELL_LIST(X) \
	X(COLD,       "Rays of Cold",     SPELL_POSITIVE, false) \
	X(FIRE,       "Fire Storm",       SPELL_POSITIVE, true)  \
	X(LIGHTNING,  "Lightning Bolts",  SPELL_POSITIVE, false) \
	X(MAPPING,    "Magic Mapping",    SPELL_POSITIVE, false) \
	X(ALTER,      "Alter Dungeon",    SPELL_POSITIVE, false) \
	X(IDENTIFY,   "Identify",         SPELL_POSITIVE, false) \
	X(ITEMDETECT, "Item Detection",   SPELL_POSITIVE, false) \
	X(LIFEDETECT, "Life Detection",   SPELL_POSITIVE, false) \
	X(RESTORE,    "Restoration",      SPELL_POSITIVE, false) \
	X(TAKELIFE,   "Take Life",        SPELL_POSITIVE, false) \
	X(MIRROR,     "Mirror Earth",     SPELL_POSITIVE, false) \
	X(RANDOM,     "Random",           SPELL_NEUTRAL,  false) \
	X(DEMOLISH,   "Demolition",       SPELL_NEUTRAL,  false) \
	X(NAVIGATE,   "Navigate",         SPELL_NEUTRAL,  false) \
	X(CREATE,     "Create Potions",   SPELL_NEUTRAL,  false) \
	X(BLINK,      "Blink",            SPELL_NEUTRAL,  false) \
	X(BLINKALL,   "Blink All",        SPELL_NEUTRAL,  false) \
	X(SCREAM,     "Scream",           SPELL_NEUTRAL,  false) \
	X(FORGET,     "Forgetfulness",    SPELL_NEGATIVE, false) \
	X(ACIDRAIN,   "Acid Rain",        SPELL_NEGATIVE, false)

enum spell_id {
#define X(id, name, cls, dir) SPELL_##id,
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
