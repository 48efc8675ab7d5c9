/* SPDX-License-Identifier: MIT */
/* msg: every game message as an id with up to two typed arguments; text is made only at the edge. */
#ifndef WW_MSG_H
#define WW_MSG_H

#include <stddef.h>
#include <stdint.h>

/* Argument kinds, so that a message id plus two bytes is all that crosses the wire. */
enum msg_arg {
	ARG_NONE,
	ARG_NUM,     /* a small number */
	ARG_SPELL,   /* a spell id */
	ARG_APPEAR,  /* a potion appearance */
	ARG_KIND,    /* a potion kind */
	ARG_ELEMENT, /* a damage element */
};

/* X(ID, first argument, second argument, text). "%1" and "%2" stand for the arguments;
 * "{one/many}" is the word for a first argument of 1, or the other (so "1 potion", "2 potions").
 * Ids are part of the rules version: append only. */
#define MSG_LIST(X) \
	X(NONE,             ARG_NONE,    ARG_NONE, "") \
	X(CAST,             ARG_SPELL,   ARG_NONE, "You cast %1.") \
	X(COLD_HIT,         ARG_NONE,    ARG_NONE, "Your rays of cold hit your opponent!") \
	X(COLD_MISS,        ARG_NONE,    ARG_NONE, "Your rays of cold miss.") \
	X(FIRE_HIT,         ARG_NONE,    ARG_NONE, "Your fire storm engulfs your opponent!") \
	X(FIRE_MISS,        ARG_NONE,    ARG_NONE, "Your fire storm misses.") \
	X(BOLT_HIT,         ARG_NONE,    ARG_NONE, "Your lightning bolts strike your opponent!") \
	X(BOLT_MISS,        ARG_NONE,    ARG_NONE, "Your lightning bolts miss.") \
	X(THUNDER,          ARG_NONE,    ARG_NONE, "Thunder echoes all around the dungeon!") \
	X(MAPPED,           ARG_NONE,    ARG_NONE, "You sense the layout of the dungeon.") \
	X(ALTERED,          ARG_NONE,    ARG_NONE, "The dungeon reshapes itself around you.") \
	X(ALTERED_OPP,      ARG_NONE,    ARG_NONE, "You sense your surroundings are different.") \
	X(IDENTIFIED_N,     ARG_NUM,     ARG_NONE, "You identify %1 {kind/kinds} of potion.") \
	X(IDENTIFY_NONE,    ARG_NONE,    ARG_NONE, "You learn nothing new about your potions.") \
	X(ITEMS_SENSED,     ARG_NUM,     ARG_NONE, "You sense %1 {potion/potions}.") \
	X(ITEMS_NONE,       ARG_NONE,    ARG_NONE, "You sense no potions.") \
	X(LIFE_SENSED,      ARG_NONE,    ARG_NONE, "You sense your opponent.") \
	X(WATCHED,          ARG_NONE,    ARG_NONE, "You feel like you're being watched.") \
	X(RESTORED,         ARG_NUM,     ARG_NONE, "You feel better (+%1 HP).") \
	X(FULL_HP,          ARG_NONE,    ARG_NONE, "You are already at full health.") \
	X(TOOK_LIFE,        ARG_NONE,    ARG_NONE, "You steal a hit point from your opponent!") \
	X(TAKELIFE_FAIL,    ARG_NONE,    ARG_NONE, "You cannot see your opponent; the spell fizzles.") \
	X(SOUL_TAKEN,       ARG_NONE,    ARG_NONE, "You feel like your soul is being taken away.") \
	X(MIRRORED,         ARG_NONE,    ARG_NONE, "The world turns over around you.") \
	X(MIRRORED_OPP,     ARG_NONE,    ARG_NONE, "You feel unaware of your surroundings.") \
	X(RANDOM_IS,        ARG_SPELL,   ARG_NONE, "The random spell becomes %1!") \
	X(DEMOLISHED,       ARG_NUM,     ARG_NONE, "Rock crumbles around you (%1 {square/squares}).") \
	X(HEAR_ROCK,        ARG_NONE,    ARG_NONE, "You hear rock being destroyed.") \
	X(NAVIGATED,        ARG_NUM,     ARG_NONE, "Passages open around you (%1 {square/squares}).") \
	X(NOTHING_HAPPENS,  ARG_NONE,    ARG_NONE, "Nothing happens.") \
	X(CREATED,          ARG_NUM,     ARG_NONE, "You sense %1 {potion appears/potions appear} in the dungeon.") \
	X(BLINKED,          ARG_NONE,    ARG_NONE, "You blink to another place.") \
	X(BLINKED_ALL,      ARG_NONE,    ARG_NONE, "Space folds: both wizards are moved!") \
	X(TELEPORTED,       ARG_NONE,    ARG_NONE, "You are teleported!") \
	X(SCREAMED,         ARG_NUM,     ARG_NONE, "You scream! %1 {potion shatters/potions shatter}.") \
	X(SCREAM_NEAR,      ARG_NONE,    ARG_NONE, "A loud magical scream can be heard!") \
	X(SCREAM_FAR,       ARG_NONE,    ARG_NONE, "A loud magical scream can be heard in the distance.") \
	X(SHATTERED,        ARG_NUM,     ARG_NONE, "%1 of your potions {shatters/shatter}!") \
	X(FORGOT,           ARG_NONE,    ARG_NONE, "You forget parts of the dungeon.") \
	X(ACID_RAINS,       ARG_NONE,    ARG_NONE, "Acid rains down around you!") \
	X(HEAR_RAIN,        ARG_NONE,    ARG_NONE, "You can hear rain.") \
	X(HURT,             ARG_ELEMENT, ARG_NUM,  "You are hurt by %1 (-%2 HP)!") \
	X(RESISTED,         ARG_ELEMENT, ARG_NONE, "You resist the %1.") \
	X(OPP_RESISTED,     ARG_ELEMENT, ARG_NONE, "Your opponent resists the %1.") \
	X(DRANK,            ARG_APPEAR,  ARG_NONE, "You drink the %1 potion.") \
	X(IT_WAS,           ARG_KIND,    ARG_NONE, "It was a potion of %1.") \
	X(PICKED_UP,        ARG_APPEAR,  ARG_NONE, "You pick up the %1 potion.") \
	X(WAITED,           ARG_NONE,    ARG_NONE, "You end your turn.") \
	X(FAST_ON,          ARG_NONE,    ARG_NONE, "You feel quick!") \
	X(FAST_OFF,         ARG_NONE,    ARG_NONE, "You feel yourself slow down.") \
	X(SLOW_ON,          ARG_NONE,    ARG_NONE, "You feel sluggish.") \
	X(SLOW_OFF,         ARG_NONE,    ARG_NONE, "You feel yourself speed up.") \
	X(REGEN_ON,         ARG_NONE,    ARG_NONE, "Your wounds start to knit.") \
	X(REGEN_OFF,        ARG_NONE,    ARG_NONE, "Your wounds stop knitting.") \
	X(RESCOLD_ON,       ARG_NONE,    ARG_NONE, "You feel warm inside.") \
	X(RESCOLD_OFF,      ARG_NONE,    ARG_NONE, "You feel less warm.") \
	X(RESFIRE_ON,       ARG_NONE,    ARG_NONE, "You feel cool inside.") \
	X(RESFIRE_OFF,      ARG_NONE,    ARG_NONE, "You feel less cool.") \
	X(RESELEC_ON,       ARG_NONE,    ARG_NONE, "You feel grounded.") \
	X(RESELEC_OFF,      ARG_NONE,    ARG_NONE, "You feel less grounded.") \
	X(RESACID_ON,       ARG_NONE,    ARG_NONE, "Your skin hardens.") \
	X(RESACID_OFF,      ARG_NONE,    ARG_NONE, "Your skin softens.") \
	X(TELEPATHY_ON,     ARG_NONE,    ARG_NONE, "Your mind reaches out to your opponent.") \
	X(TELEPATHY_OFF,    ARG_NONE,    ARG_NONE, "Your mind closes again.") \
	X(REGENERATED,      ARG_NONE,    ARG_NONE, "You regenerate a hit point.") \
	X(ALREADY_ACTIVE,   ARG_NONE,    ARG_NONE, "The effect is renewed.") \
	X(YOU_WIN,          ARG_NONE,    ARG_NONE, "Your opponent is dead. You win!") \
	X(YOU_LOSE,         ARG_NONE,    ARG_NONE, "You die. You lose.") \
	X(DRAW,             ARG_NONE,    ARG_NONE, "Both wizards fall. The duel is a draw.") \
	X(OPP_RESIGNED,     ARG_NONE,    ARG_NONE, "Your opponent forfeits. You win!") \
	X(YOU_RESIGNED,     ARG_NONE,    ARG_NONE, "You forfeit the duel.") \
	X(TURN_LIMIT,       ARG_NONE,    ARG_NONE, "The turn limit is reached: the duel is a draw.") \
	X(TIME_UP,          ARG_NONE,    ARG_NONE, "Time is up: your turn passes.") \
	X(LIMIT_WIN,        ARG_NUM,     ARG_NUM,  "The turn limit is reached with %1 HP against %2: you win!") \
	X(LIMIT_LOSE,       ARG_NUM,     ARG_NUM,  "The turn limit is reached with %1 HP against %2: you lose.") \
	X(END_PHASE,        ARG_NONE,    ARG_NONE, "The duel nears its end: from now on each wizard senses the other at the start of its turn.") \
	X(ALTER_MOVED,      ARG_NONE,    ARG_NONE, "Rock fills your square: you are pushed to the nearest open floor.") \
	X(ACID_HIT,         ARG_NONE,    ARG_NONE, "Your acid rain burns your opponent!") \
	X(OPP_DRINKS,       ARG_APPEAR,  ARG_NONE, "Your opponent drinks a %1 potion.") \
	X(OPP_PICKS_UP,     ARG_APPEAR,  ARG_NONE, "Your opponent picks up a %1 potion.") \
	X(OPP_CASTS,        ARG_NONE,    ARG_NONE, "Your opponent casts a spell.") \
	X(OPP_CASTS_SEEN,   ARG_SPELL,   ARG_NONE, "Your opponent casts %1.")

enum msg_id {
#define X(id, a, b, text) MSG_##id,
	MSG_LIST(X)
#undef X
	MSG_COUNT
};

/* A message as the rules emit it: who it is for (bit p set: player p), and arguments. */
struct msg {
	uint16_t id;
	uint8_t to;
	uint8_t a, b;
};

enum msg_arg msg_arg_kind(int id, int which);
const char *msg_template(int id);
/* Write the message's text into buf (always NUL-terminated; truncated to fit). Unknown
 * ids and out-of-range arguments give a clear placeholder, never a crash: this also
 * runs on ids that arrived from the network. Returns the length written. */
size_t msg_format(const struct msg *m, char *buf, size_t len);

#endif
