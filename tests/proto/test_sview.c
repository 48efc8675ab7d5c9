/* SPDX-License-Identifier: MIT */
/* Tests that a SPECT_VIEW, never deflated, always fits one frame: the encoder's worst case bounded field by field, and the largest views built. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "loc.h"
#include "rng.h"
#include "spect.h"
#include "update.h"
#include "wire.h"

/*
 * SPECT_VIEW is sealed as it is for every spectator (pconn.c, never_deflated()), so a payload over
 * PROTO_FRAME_MAX could not be sent at all (PERR_TOO_BIG), although WIRE_LIST lets a decoder take up
 * to PROTO_PAYLOAD_MAX. The server makes it with update_make(blank, view, NULL, 0): no events, so no
 * MSGS and no FX, and every other field at most once. What the rules guarantee and the bound uses:
 * the outer ring is wall (never demolished: game.c's cast_demolish skips level_edge) and a potion
 * lies only on a floor square, so a view places potions on the (size-2)^2 interior squares at most.
 */

static size_t
varint_bytes(uint32_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The potions field's text with a potion on every interior square of a size x size level, each
 * location as loc_encode() writes it (the longest id), commas between. */
static size_t
potion_text_max(int size)
{
	size_t sum = 0, n = 0;
	char buf[16];

	for (int y = 1; y < size - 1; y++)
		for (int x = 1; x < size - 1; x++) {
			struct loc l = { (uint8_t)x, (uint8_t)y, APPEARANCE_COUNT };
			int len = loc_encode(&l, 1, buf, sizeof buf);

			cr_assert_gt(len, 0);
			sum += (size_t)len;
			n++;
		}
	return sum + (n ? n - 1 : 0);
}

/* The most bytes update__write can give a view of a size x size level with no events: every field
 * at its largest, each part bounded by what its encoder can write. */
static size_t
update_bound(int size)
{
	size_t cells = (size_t)size * (size_t)size, inner = (size_t)(size - 2) * (size_t)(size - 2);
	size_t bits = (cells + 7) / 8, ring = 4 * (size_t)(size - 1), text, vis, n = 0;

	n += varint_bytes(UPD_BIT(UPD_COUNT) - 1);       /* has */
	n += 2 + 1;                                        /* POS, STEPS */
	/* VIS: the mode, then a rectangle and its bits, a count and the bits, or VIS_PREDICT's
	 * corrections (each a varint of a cell's distance, below `cells`). */
	vis = 4 + bits;
	if (varint_bytes((uint32_t)cells) + bits > vis)
		vis = varint_bytes((uint32_t)cells) + bits;
	if (1 + VIS_FIX_MAX * varint_bytes((uint32_t)cells) > vis)
		vis = 1 + VIS_FIX_MAX * varint_bytes((uint32_t)cells);
	n += 1 + vis;
	text = layout_bound(inner);                        /* LAYOUT: mode, rectangle, length, text */
	n += 1 + 4 + varint_bytes((uint32_t)text) + text;
	n += 3;                                            /* OPP */
	n += 1 + 5;                                        /* TURN: turn, turn_no */
	n += SPELL_OFFERED + 1 + 1;                        /* OFFERED, HP, OPP_HP */
	text = potion_text_max(size);                      /* POTIONS */
	n += varint_bytes((uint32_t)text) + text;
	text = layout_bound(ring);                         /* RING */
	n += varint_bytes((uint32_t)text) + text;
	n += 2 + INV_MAX;                                  /* INV */
	n += APPEARANCE_COUNT;                             /* KIND */
	n += 5;                                            /* INTRINSICS */
	n += 5 + HANDLER_COUNT;                            /* TURNS_LEFT: mask, one byte each */
	n += 2 + 2 + 1;                                    /* RESULT, OPT, ME */
	return n;
}

/* SPECT_VIEW: cmds (a varint of 32 bits), kind, wizard 0's state, delay, the update. */
static size_t
sview_bound(int size)
{
	return 5 + 3 + update_bound(size);
}

Test(sview, bound_fits_one_frame)
{
	/* The bound grows with the level: its largest is at LEVEL_MAX. */
	for (int s = 15; s <= LEVEL_MAX; s += 2)
		cr_assert_leq(sview_bound(s - 2), sview_bound(s));
	cr_log_info("SPECT_VIEW at %dx%d: at most %zu bytes of PROTO_FRAME_MAX's %d", LEVEL_MAX, LEVEL_MAX,
	            sview_bound(LEVEL_MAX), PROTO_FRAME_MAX);
	cr_assert_leq(sview_bound(LEVEL_MAX), PROTO_FRAME_MAX, "a SPECT_VIEW of %zu bytes could not be sent",
	              sview_bound(LEVEL_MAX));
	/* ... and WIRE_LIST says so: a receiver takes no more than one frame's worth, deflated or not. */
	cr_assert_eq(wire_max(WIRE_SPECT_VIEW), PROTO_FRAME_MAX);
}

/* ---- the largest views, built and encoded by the real encoder ---- */

enum pattern {
	ALL_FLOOR,    /* every interior square floor with a potion: the longest POTIONS */
	CHECKER,      /* floor and wall alternate, a potion on each floor: layout and potions together */
	HOLES,        /* known and unknown alternate: the unknown runs' digits */
	PATTERNS
};

/* A view of size x size that holds as much as a view can: everything known (but HOLES), visible
 * cells in a pattern that no rectangle nor prediction covers cheaply, every private field set. */
static void
worst_view(int size, enum pattern pat, struct rng *rng, struct view *v)
{
	update_blank(v);
	v->opt = (struct options){ (uint8_t)size, true, true };
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			bool edge = x == 0 || y == 0 || x == size - 1 || y == size - 1;
			uint8_t c = VCELL_FLOOR;

			if (edge || (pat == CHECKER && (x + y) % 2))
				c = VCELL_WALL;
			if (!edge && pat == HOLES && (x + y) % 2)
				c = VCELL_UNKNOWN;
			if (c != VCELL_UNKNOWN && rng_below(rng, 2))
				c |= VCELL_VISIBLE;
			v->cell[y][x] = c;
			if ((c & ~VCELL_VISIBLE) == VCELL_FLOOR)
				v->potion[y][x] = (uint8_t)(1 + rng_below(rng, APPEARANCE_COUNT));
		}
	v->me = 0;
	v->x = 1;
	v->y = 1;
	v->potion[1][1] = 0;
	v->opp_state = OPP_REMEMBERED;
	v->opp_x = (uint8_t)(size - 2);
	v->opp_y = (uint8_t)(size - 2);
	v->hp = 5;
	v->opp_hp = 5;
	v->ninv = INV_MAX;
	for (int i = 0; i < INV_MAX; i++)
		v->inv[i] = (uint8_t)(APPEARANCE_COUNT - 1 - i % APPEARANCE_COUNT);
	for (int i = 0; i < APPEARANCE_COUNT; i++)
		v->kind_of[i] = (uint8_t)(i % POTION_KIND_COUNT);
	v->intrinsics = (uint32_t)(((uint64_t)1 << HANDLER_COUNT) - 1);
	for (int i = 0; i < HANDLER_COUNT; i++)
		v->turns_left[i] = 255;
	v->turn = 1;
	v->turn_no = 0xfffffffu;
	v->steps_left = 5;
	for (int i = 0; i < SPELL_OFFERED; i++)
		v->offered[i] = (uint8_t)(SPELL_COUNT - 1 - i);
}

/* Encodes the view as the server does (server/spect.c) and checks it against the bound and the
 * frame; decodes it back. Returns the payload's length. */
static size_t
encode_sview(const struct view *v, uint8_t kind, uint8_t delay)
{
	static struct view blank;
	static struct wire_msg m, back;
	static uint8_t payload[PROTO_PAYLOAD_MAX];
	struct proto_err e;
	size_t len = 0;

	update_blank(&blank);
	memset(&m, 0, sizeof m);
	m.type = WIRE_SPECT_VIEW;
	m.u.sview.cmds = UINT32_MAX;
	m.u.sview.kind = kind;
	m.u.sview.me_state = OPP_REMEMBERED;
	m.u.sview.delay = delay;
	cr_assert_eq(update_make(&blank, v, NULL, 0, &m.u.sview.view, &e), 0, "%s", e.why);
	cr_assert_eq(m.u.sview.view.has & (UPD_BIT(UPD_MSGS) | UPD_BIT(UPD_FX)), 0u);
	cr_assert_eq(wire_encode(&m, payload, sizeof payload, &len, &e), 0, "%s", e.why);
	cr_assert_leq(len, sview_bound(v->opt.size), "%zu bytes over the bound %zu", len, sview_bound(v->opt.size));
	cr_assert_leq(len, PROTO_FRAME_MAX);
	cr_assert_eq(wire_decode(WIRE_SPECT_VIEW, payload, len, &back, &e), 0, "%s", e.why);
	cr_assert_eq(back.u.sview.view.npot, m.u.sview.view.npot);
	return len;
}

Test(sview, largest_views_fit_one_frame)
{
	static struct view v;
	struct rng rng;
	size_t most = 0;

	rng_seed(&rng, 51);
	for (int pat = 0; pat < PATTERNS; pat++)
		for (int kind = 0; kind < SPECT_KIND_COUNT; kind++) {
			size_t len;

			worst_view(LEVEL_MAX, (enum pattern)pat, &rng, &v);
			len = encode_sview(&v, (uint8_t)kind,
			                   kind == SPECT_KIND_PLAYER0 || kind == SPECT_KIND_PLAYER1 ? SPECT_DELAY_MAX : 0);
			if (len > most)
				most = len;
		}
	cr_log_info("the largest SPECT_VIEW built: %zu bytes (bound %zu, frame %d)", most, sview_bound(LEVEL_MAX),
	            PROTO_FRAME_MAX);
	/* ALL_FLOOR comes near the bound: the bound is not loose by a frame's worth. */
	cr_assert_geq(most, PROTO_FRAME_MAX * 3 / 4);
}

Test(sview, random_views_within_the_bound)
{
	static struct view v;
	struct rng rng;

	rng_seed(&rng, 7);
	for (int i = 0; i < 300; i++) {
		int size = 15 + 2 * (int)rng_below(&rng, (LEVEL_MAX - 15) / 2 + 1);

		worst_view(size, (enum pattern)rng_below(&rng, PATTERNS), &rng, &v);
		/* Random holes and walls over the pattern. */
		for (int y = 1; y < size - 1; y++)
			for (int x = 1; x < size - 1; x++)
				if (rng_below(&rng, 4) == 0) {
					v.cell[y][x] = (uint8_t)rng_below(&rng, 3);
					if (v.cell[y][x] != VCELL_FLOOR)
						v.potion[y][x] = 0;
				}
		encode_sview(&v, SPECT_KIND_SHARED, 0);
	}
}
