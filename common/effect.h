/* SPDX-License-Identifier: MIT */
/* effect: damage and status effects as a chain of handlers on each wizard.
 *
 * In the way of the message-handler engine (seed 003): a message (damage, heal,
 * turn start, turn end) walks a wizard's chain from the front; each handler may
 * pass it on, stop it, and keep or unlink itself. The base handler, always last
 * and never stored, applies what reaches it. A resistance stops a damage message
 * of its element before the base handler; a timed effect counts down on
 * TURN_END and unlinks itself. Each linked handler also sets one bit of the
 * wizard's 32-bit intrinsics word (seed 000), so a new effect is one row in
 * HANDLER_LIST and one small function, never an edit of the resolver. */
#ifndef WW_EFFECT_H
#define WW_EFFECT_H

#include <stdint.h>

#define ELEMENT_LIST(X) \
	X(COLD,   "cold")      \
	X(FIRE,   "fire")      \
	X(ELEC,   "lightning") \
	X(ACID,   "acid")      \
	X(DRAIN,  "drain")     \
	X(POISON, "poison")

enum element {
#define X(id, name) ELEMENT_##id,
	ELEMENT_LIST(X)
#undef X
	ELEMENT_COUNT
};

/* X(ID, name shown to the player, message when it starts, message when it ends, the
 * element it stops or -1). The handler id is also the intrinsic bit:
 * INTRINSIC(HANDLER_FAST) == 1u << HANDLER_FAST. */
#define HANDLER_LIST(X) \
	X(FAST,      "Fast",             MSG_FAST_ON,      MSG_FAST_OFF,      -1)           \
	X(SLOW,      "Slow",             MSG_SLOW_ON,      MSG_SLOW_OFF,      -1)           \
	X(REGEN,     "Regeneration",     MSG_REGEN_ON,     MSG_REGEN_OFF,     -1)           \
	X(RES_COLD,  "Resist cold",      MSG_RESCOLD_ON,   MSG_RESCOLD_OFF,   ELEMENT_COLD) \
	X(RES_FIRE,  "Resist fire",      MSG_RESFIRE_ON,   MSG_RESFIRE_OFF,   ELEMENT_FIRE) \
	X(RES_ELEC,  "Resist lightning", MSG_RESELEC_ON,   MSG_RESELEC_OFF,   ELEMENT_ELEC) \
	X(RES_ACID,  "Resist acid",      MSG_RESACID_ON,   MSG_RESACID_OFF,   ELEMENT_ACID) \
	X(TELEPATHY, "Telepathy",        MSG_TELEPATHY_ON, MSG_TELEPATHY_OFF, -1)

enum handler_id {
#define X(id, name, on, off, resists) HANDLER_##id,
	HANDLER_LIST(X)
#undef X
	HANDLER_COUNT
};

#define INTRINSIC(h) (1u << (h))
#define CHAIN_MAX HANDLER_COUNT /* one link per handler id at most: a second dose renews it */

enum hmsg_type {
	HMSG_DAMAGE,     /* amount of element: the base handler subtracts it from HP */
	HMSG_HEAL,       /* amount: the base handler adds it, up to the maximum */
	HMSG_TURN_START, /* amount: steps allowed this turn; handlers may change it; timed ones count down */
	HMSG_TURN_END,   /* a timed handler with no turns left unlinks itself */
};

struct hmsg {
	uint8_t type;
	uint8_t element;
	int16_t amount;
};

enum hresult {
	H_KEEP_CONTINUE,
	H_KEEP_STOP,
	H_UNLINK_CONTINUE,
	H_UNLINK_STOP,
};

/* One link: which handler, and how many of its wizard's turn starts it will still act on. */
struct link {
	uint8_t id;
	uint8_t turns;
};

struct chain {
	uint8_t n;
	struct link link[CHAIN_MAX];
};

const char *handler_name(int id);
const char *element_name(int e);

#endif
