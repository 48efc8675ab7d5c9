/* SPDX-License-Identifier: MIT */
/* update: what changed in one player's view, as the server sends it after every command (and whole, at the start). */
#ifndef WW_UPDATE_H
#define WW_UPDATE_H

#include <stdint.h>

#include "game.h"
#include "level.h"
#include "loc.h"
#include "msg.h"
#include "proto.h"
#include "view.h"

/*
 * The fields of an update: X(ID, bit, name). A field is present when its bit
 * is set in the update's `has` word, and is then encoded after the fields of
 * lower bits (docs/protocol.md, "UPDATE"). The bits of a typical step come
 * first so that `has` is one byte. Don't forget to bump PROTO_VERSION when
 * this list changes.
 */
#define UPD_LIST(X) \
	X(POS,        0,  "pos")        /* x, y */ \
	X(STEPS,      1,  "steps")      /* steps_left */ \
	X(VIS,        2,  "vis")        /* VCELL_VISIBLE of every cell */ \
	X(LAYOUT,     3,  "layout")     /* what is known of interior cells */ \
	X(OPP,        4,  "opp")        /* opp_state, opp_x, opp_y */ \
	X(MSGS,       5,  "msgs")       /* messages for the receiver (not in the view) */ \
	X(FX,         6,  "fx")         /* effects on squares the receiver sees (not in the view) */ \
	X(TURN,       7,  "turn")       /* turn, turn_no */ \
	X(OFFERED,    8,  "offered")    /* the three spells offered */ \
	X(HP,         9,  "hp") \
	X(OPP_HP,     10, "opp_hp") \
	X(POTIONS,    11, "potions")    /* potions seen or remembered on the level */ \
	X(RING,       12, "ring")       /* what is known of the outer ring */ \
	X(INV,        13, "inv")        /* ninv, inv */ \
	X(KIND,       14, "kind_of")    /* identified appearances */ \
	X(INTRINSICS, 15, "intrinsics") \
	X(TURNS_LEFT, 16, "turns_left") \
	X(RESULT,     17, "result")     /* result, end_reason */ \
	X(OPT,        18, "opt")        /* size, fov, potions */ \
	X(ME,         19, "me")

enum upd_field {
#define X(id, bit, name) UPD_##id = (bit),
	UPD_LIST(X)
#undef X
	UPD_COUNT
};
#define UPD_BIT(f) (1u << (f))

/* How visibility is sent (docs/protocol.md). */
enum upd_vis {
	VIS_RECT = 0,   /* a rectangle, one bit per cell in it; none visible outside */
	VIS_SQUARE = 1, /* one bit per known cell of the (2*FOV_RADIUS+1)^2 square around the wizard */
	VIS_ALL = 2,    /* every cell of the level (FoV off) */
	VIS_NONE = 3,
	VIS_PREDICT = 4, /* what the receiver's own fov_compute() on what it knows says, but for a few cells */
};
#define VIS_FIX_MAX 255 /* cells VIS_PREDICT may correct */

/* How the layout is sent: a rectangle of the interior, each of its cells or
 * only those the receiver had never seen. */
#define LAY_REVEAL 0x01 /* only cells VCELL_UNKNOWN in the receiver's view are coded */
#define LAY_WHOLE 0x02  /* the rectangle is the whole interior (no x, y, w, h sent) */
#define LAY_SIGHT 0x04  /* with REVEAL and WHOLE: only unknown cells the receiver may now see (docs) */

#define UPD_CELLS (LEVEL_MAX * LEVEL_MAX)
#define UPD_RING_MAX (4 * (LEVEL_MAX - 1))

/* A decoded update: plain data, no pointers. About 20 KiB: keep it off small stacks. */
struct update {
	uint32_t has; /* UPD_BIT(...) of the fields present */

	struct options opt;
	uint8_t me;
	uint8_t x, y;
	uint8_t steps_left;

	uint8_t vis_mode;                  /* enum upd_vis */
	uint8_t vis_x, vis_y, vis_w, vis_h; /* VIS_RECT */
	uint16_t vis_nbits;
	uint8_t vis_bits[(UPD_CELLS + 7) / 8];
	uint8_t vis_nfix;                  /* VIS_PREDICT: cells where the prediction is wrong */
	uint16_t vis_fix[VIS_FIX_MAX];     /* ... as y * size + x, ascending */

	uint8_t lay_mode;                  /* LAY_REVEAL | LAY_WHOLE */
	uint8_t lay_x, lay_y, lay_w, lay_h;
	uint16_t lay_n;
	uint8_t lay[UPD_CELLS];            /* enum vcell, in walk order */

	uint16_t ring_n;
	uint8_t ring[UPD_RING_MAX];        /* VCELL_UNKNOWN or VCELL_WALL, clockwise from (0, 0) */

	uint8_t opp_state, opp_x, opp_y;

	uint8_t nmsg;
	struct msg msg[EVENTS_MSG_MAX];    /* `to` is 0: every message is the receiver's */

	uint16_t nfx;
	struct loc fx[UPD_CELLS];          /* id: enum fx */

	uint8_t turn;
	uint8_t turn_next;                 /* 1: turn_no is the receiver's + 1 (then turn_no is 0) */
	uint32_t turn_no;
	uint8_t offered[SPELL_OFFERED];
	int8_t hp, opp_hp;

	uint16_t npot;
	struct loc pot[UPD_CELLS];         /* id: 0 no potion now, else appearance + 1 */

	uint8_t ninv;
	uint8_t inv_n;                     /* inv[0..inv_n) sent; later slots are 0 */
	uint8_t inv[INV_MAX];
	uint8_t kind_of[APPEARANCE_COUNT];
	uint32_t intrinsics;
	uint8_t turns_left[HANDLER_COUNT];
	uint8_t result, end_reason;
};

const char *update_field_name(int field);

/* A view that knows nothing: what a client holds before START (and the
 * `before` the server uses to make START). */
void update_blank(struct view *v);

/*
 * The server's side: what `receiver` needs to turn `before` into `after`, plus
 * the messages of `ev` addressed to it and the effects of `ev` on squares it
 * sees in `before` or in `after` (ev may be NULL). Returns 0, or PROTO_BROKEN
 * (PERR_RANGE) when a view holds a value the protocol cannot carry. Every field of u
 * is set but lay, fx and pot past their counts, which keep what they held (no reader
 * goes past a count; zeroing them cost more than the rest of the update).
 */
int update_make(const struct view *before, const struct view *after, const struct events *ev, int receiver,
                struct update *u, struct proto_err *e);

/*
 * The client's side: apply u to v. Afterwards v equals the server's `after`
 * field by field. Returns 0, or PROTO_BROKEN (PERR_UPDATE) when u does not fit
 * v (a coordinate off the level, a cell count that does not match); v is then
 * unchanged.
 */
int update_apply(struct view *v, const struct update *u, struct proto_err *e);

/* Field-by-field equality of two views (never memcmp: padding). */
bool update_view_equal(const struct view *a, const struct view *b);

/* The encoded payload (docs/protocol.md, "UPDATE") on its own. encode: 0 and
 * *len, or PROTO_BROKEN (PERR_BUFFER, PERR_RANGE); decode: 0 or PROTO_BROKEN. */
int update_encode(const struct update *u, uint8_t *out, size_t cap, size_t *len, struct proto_err *e);
int update_decode(const uint8_t *p, size_t len, struct update *u, struct proto_err *e);

#endif
