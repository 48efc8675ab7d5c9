/* SPDX-License-Identifier: MIT */
/* Tests for update: applying update_make(before, after) to before gives after, field by field, for hand-built,
 * random and selfplay views, through encode/decode and through whole connections. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "pconn.h"
#include "samples.h"
#include "rng.h"
#include "selfplay.h"
#include "update.h"

static struct update *
new_update(void)
{
	struct update *u = malloc(sizeof *u);

	cr_assert(u);
	return u;
}

/* make -> encode -> decode -> encode again (same bytes) -> apply to a copy of before == after. */
static size_t
roundtrip(const struct view *before, const struct view *after, const struct events *ev, int receiver)
{
	struct update *u = new_update(), *d = new_update();
	static uint8_t buf[PROTO_PAYLOAD_MAX], buf2[PROTO_PAYLOAD_MAX];
	struct proto_err e = { 0 };
	struct view v = *before;
	size_t len, len2;

	cr_assert_eq(update_make(before, after, ev, receiver, u, &e), 0, "make: %s", e.why);
	cr_assert_eq(update_encode(u, buf, sizeof buf, &len, &e), 0, "encode: %s", e.why);
	cr_assert_eq(update_decode(buf, len, d, &e), 0, "decode: %s", e.why);
	cr_assert_eq(update_encode(d, buf2, sizeof buf2, &len2, &e), 0, "re-encode: %s", e.why);
	cr_assert(len == len2 && memcmp(buf, buf2, len) == 0, "decode/encode is not the identity");
	cr_assert_eq(update_apply(&v, d, &e), 0, "apply: %s", e.why);
	cr_assert(update_view_equal(&v, after), "applied view differs from after");
	/* Beyond the level nothing is ever touched. */
	cr_assert(memcmp(v.cell, after->cell, sizeof v.cell) == 0);
	free(u);
	free(d);
	return len;
}

static void
base_view(struct view *v, int size)
{
	update_blank(v);
	v->opt.size = (uint8_t)size;
	v->opt.fov = true;
	v->opt.potions = true;
	v->x = v->y = (uint8_t)(size / 2);
	v->hp = v->opp_hp = WIZARD_HP;
}

Test(update, blank_is_one_byte)
{
	struct view a, b;
	struct update *u = new_update();
	uint8_t buf[16];
	size_t len;

	base_view(&a, 25);
	b = a;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, NULL), 0);
	cr_assert_eq(u->has, 0u);
	cr_assert_eq(update_encode(u, buf, sizeof buf, &len, NULL), 0);
	cr_assert_eq(len, 1);
	cr_assert_eq(buf[0], 0);
	free(u);
}

Test(update, every_field_alone)
{
	struct view a, b;
	struct update *u = new_update();

	base_view(&a, 25);
	for (int y = 0; y < 25; y++)
		for (int x = 0; x < 25; x++)
			a.cell[y][x] = (x == 0 || y == 0 || x == 24 || y == 24) ? VCELL_WALL : VCELL_FLOOR;
	for (int f = 0; f < UPD_COUNT; f++) {
		b = a;
		switch (f) {
		case UPD_POS: b.x = 3; break;
		case UPD_STEPS: b.steps_left = 4; break;
		case UPD_VIS: b.cell[5][5] |= VCELL_VISIBLE; break;
		case UPD_LAYOUT: b.cell[7][9] = VCELL_WALL; break;
		case UPD_OPP: b.opp_state = OPP_VISIBLE; b.opp_x = 3; b.opp_y = 4; break;
		case UPD_MSGS: continue;
		case UPD_FX: continue;
		case UPD_TURN: b.turn = 1; b.turn_no = 1; break;
		case UPD_OFFERED: b.offered[1] = SPELL_MAPPING; break;
		case UPD_HP: b.hp = 3; break;
		case UPD_OPP_HP: b.opp_hp = -1; break;
		case UPD_POTIONS: b.potion[3][20] = 1 + APPEAR_ORANGE; break;
		case UPD_RING: b.cell[0][10] = VCELL_UNKNOWN; break;
		case UPD_INV: b.ninv = 2; b.inv[0] = APPEAR_RED; b.inv[1] = APPEAR_YELLOW; break;
		case UPD_KIND: b.kind_of[APPEAR_BLUE] = POTION_SPEED; break;
		case UPD_INTRINSICS: b.intrinsics = INTRINSIC(HANDLER_FAST); break;
		case UPD_TURNS_LEFT: b.turns_left[HANDLER_REGEN] = 4; break;
		case UPD_RESULT: b.result = RESULT_DRAW; b.end_reason = END_TURN_LIMIT; break;
		case UPD_OPT: b.opt.potions = false; break;
		case UPD_ME: b.me = 1; break;
		}
		cr_assert_eq(update_make(&a, &b, NULL, 0, u, NULL), 0);
		cr_assert_eq(u->has, UPD_BIT(f), "field %s: has 0x%x", update_field_name(f), (unsigned)u->has);
		roundtrip(&a, &b, NULL, 0);
	}
	free(u);
}

Test(update, messages_only_for_the_receiver_and_effects_only_where_seen)
{
	struct view a, b;
	struct events *ev = calloc(1, sizeof *ev);
	struct update *u = new_update();
	struct proto_err e;

	base_view(&a, 25);
	for (int y = 0; y < 25; y++)
		for (int x = 0; x < 25; x++)
			a.cell[y][x] = x == 0 || y == 0 || x == 24 || y == 24 ? VCELL_WALL : VCELL_FLOOR;
	a.cell[5][5] |= VCELL_VISIBLE; /* seen before only */
	b = a;
	b.cell[5][5] &= (uint8_t)~VCELL_VISIBLE;
	b.cell[6][6] |= VCELL_VISIBLE; /* seen after only */
	ev->nmsg = 3;
	ev->msg[0] = (struct msg){ MSG_THUNDER, 1u << 1, 0, 0 };
	ev->msg[1] = (struct msg){ MSG_CAST, 1u << 0, SPELL_FIRE, 0 };
	ev->msg[2] = (struct msg){ MSG_HURT, 3, ELEMENT_COLD, 2 };
	ev->has_fx = true;
	ev->fx[5][5] = FX_COLD;
	ev->fx[6][6] = FX_FIRE;
	ev->fx[7][7] = FX_ELEC; /* never seen: not sent */
	cr_assert_eq(update_make(&a, &b, ev, 0, u, &e), 0, "%s", e.why);
	cr_assert_eq(u->nmsg, 2);
	cr_assert_eq(u->msg[0].id, MSG_CAST);
	cr_assert_eq(u->msg[0].a, SPELL_FIRE);
	cr_assert_eq(u->msg[1].id, MSG_HURT);
	cr_assert_eq(u->msg[1].b, 2);
	cr_assert_eq(u->nfx, 2);
	cr_assert(u->fx[0].x == 5 && u->fx[0].y == 5 && u->fx[0].id == FX_COLD);
	cr_assert(u->fx[1].x == 6 && u->fx[1].y == 6 && u->fx[1].id == FX_FIRE);
	roundtrip(&a, &b, ev, 0);
	cr_assert_eq(update_make(&a, &b, ev, 1, u, NULL), 0);
	cr_assert_eq(u->nmsg, 2);
	cr_assert_eq(u->msg[0].id, MSG_THUNDER);
	/* An argument the message does not take is dropped, not sent. */
	ev->msg[0].a = 7;
	cr_assert_eq(update_make(&a, &b, ev, 1, u, NULL), 0);
	cr_assert_eq(u->msg[0].a, 0);
	/* Values the protocol cannot carry are refused, not sent. */
	ev->msg[0] = (struct msg){ MSG_COUNT, 2, 0, 0 };
	cr_assert_eq(update_make(&a, &b, ev, 1, u, NULL), PROTO_BROKEN);
	ev->msg[0] = (struct msg){ MSG_CAST, 2, SPELL_COUNT, 0 };
	cr_assert_eq(update_make(&a, &b, ev, 1, u, NULL), PROTO_BROKEN);
	ev->nmsg = 0;
	ev->fx[6][6] = FX_COUNT;
	cr_assert_eq(update_make(&a, &b, ev, 1, u, NULL), PROTO_BROKEN);
	free(u);
	free(ev);
}

/* update_make skips the rows the receiver already has (issue 14: the server's CPU a command):
 * changes in the first and last interior rows, and only there, still make one layout
 * spanning both, and views with no cell changed send no layout, ring or visibility. */
Test(update, unchanged_rows_skipped_changed_rows_found)
{
	struct view a, b;
	struct update *u = new_update();
	struct proto_err e;

	base_view(&a, 25);
	for (int y = 0; y < 25; y++)
		for (int x = 0; x < 25; x++)
			a.cell[y][x] = (x == 0 || y == 0 || x == 24 || y == 24 || (x * y) % 3 == 0) ? VCELL_WALL : VCELL_FLOOR;
	b = a;
	b.cell[1][2] = VCELL_FLOOR | VCELL_VISIBLE;
	b.cell[23][22] = VCELL_WALL | VCELL_VISIBLE;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), 0, "%s", e.why);
	cr_assert(u->has & UPD_BIT(UPD_VIS));
	roundtrip(&a, &b, NULL, 0);
	b = a;
	b.cell[23][21] = a.cell[23][21] == VCELL_WALL ? VCELL_FLOOR : VCELL_WALL;
	b.cell[1][3] = a.cell[1][3] == VCELL_WALL ? VCELL_FLOOR : VCELL_WALL;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), 0, "%s", e.why);
	cr_assert(u->has & UPD_BIT(UPD_LAYOUT));
	cr_assert(u->lay_mode & LAY_WHOLE || (u->lay_y == 1 && u->lay_h == 23), "rows %u+%u", u->lay_y, u->lay_h);
	roundtrip(&a, &b, NULL, 0);
	b = a;
	b.x = 3;
	b.potion[5][5] = 1;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), 0, "%s", e.why);
	cr_assert_eq(u->has & (UPD_BIT(UPD_LAYOUT) | UPD_BIT(UPD_RING) | UPD_BIT(UPD_VIS)), 0);
	cr_assert_eq(u->npot, 1);
	roundtrip(&a, &b, NULL, 0);
	free(u);
}

Test(update, refuses_views_it_cannot_carry)
{
	struct view a, b;
	struct update *u = new_update();
	struct proto_err e;

	base_view(&a, 25);
	b = a;
	b.cell[3][3] = 3;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	b = a;
	b.cell[0][3] = VCELL_FLOOR; /* the ring is wall by the rules */
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.opt.size = 24;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.potion[2][2] = APPEARANCE_COUNT + 1;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.x = 25;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.intrinsics = 1u << 31;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.kind_of[0] = POTION_KIND_COUNT;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.offered[0] = SPELL_COUNT;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	b = a;
	b.ninv = INV_MAX + 1;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, &e), PROTO_BROKEN);
	free(u);
}

/* Random but valid views: knowledge, sight, potions and every scalar at random. */
static void
random_view(struct view *v, struct rng *r, int size, int density)
{
	base_view(v, size);
	v->opt.fov = rng_below(r, 2);
	v->opt.potions = rng_below(r, 2);
	v->me = (uint8_t)rng_below(r, 2);
	v->x = (uint8_t)rng_range(r, 1, size - 2);
	v->y = (uint8_t)rng_range(r, 1, size - 2);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			bool ring = x == 0 || y == 0 || x == size - 1 || y == size - 1;
			uint8_t k = rng_below(r, 100) < (uint32_t)density ? (uint8_t)rng_range(r, 1, ring ? 1 : 2) : 0;

			if (rng_below(r, 3) == 0)
				k |= VCELL_VISIBLE; /* even over unknown cells: the encoding is exact for any view */
			v->cell[y][x] = k;
			v->potion[y][x] = rng_below(r, 30) == 0 ? (uint8_t)rng_range(r, 1, APPEARANCE_COUNT) : 0;
		}
	v->hp = (int8_t)rng_range(r, -3, WIZARD_HP);
	v->opp_hp = (int8_t)rng_range(r, -3, WIZARD_HP);
	v->opp_state = (uint8_t)rng_below(r, 4);
	v->opp_x = (uint8_t)rng_below(r, (uint32_t)size);
	v->opp_y = (uint8_t)rng_below(r, (uint32_t)size);
	v->ninv = (uint8_t)rng_below(r, INV_MAX + 1);
	for (int i = 0; i < v->ninv; i++)
		v->inv[i] = (uint8_t)rng_below(r, APPEARANCE_COUNT);
	for (int i = 0; i < APPEARANCE_COUNT; i++)
		v->kind_of[i] = rng_below(r, 2) ? POTION_NONE : (uint8_t)rng_below(r, POTION_KIND_COUNT);
	v->intrinsics = (uint32_t)rng_below(r, 1u << HANDLER_COUNT);
	for (int i = 0; i < HANDLER_COUNT; i++)
		v->turns_left[i] = rng_below(r, 3) ? 0 : (uint8_t)rng_range(r, 1, 255);
	v->turn = (uint8_t)rng_below(r, 2);
	v->turn_no = (uint32_t)rng_next(r);
	v->steps_left = (uint8_t)rng_below(r, 11);
	for (int i = 0; i < SPELL_OFFERED; i++)
		v->offered[i] = rng_below(r, 2) ? SPELL_NONE : (uint8_t)rng_below(r, SPELL_COUNT);
	v->result = (uint8_t)rng_below(r, 4);
	v->end_reason = (uint8_t)rng_below(r, 4);
}

/* A view like `a` with a few random changes, as a command makes. */
static void
mutate(struct view *v, struct rng *r)
{
	int s = v->opt.size, n = (int)rng_below(r, 30);

	for (int i = 0; i < n; i++) {
		int x = (int)rng_below(r, (uint32_t)s), y = (int)rng_below(r, (uint32_t)s);
		bool ring = x == 0 || y == 0 || x == s - 1 || y == s - 1;

		switch (rng_below(r, 4)) {
		case 0: v->cell[y][x] ^= VCELL_VISIBLE; break;
		case 1: v->cell[y][x] = (uint8_t)((v->cell[y][x] & VCELL_VISIBLE) | rng_range(r, 0, ring ? 1 : 2)); break;
		case 2: v->potion[y][x] = (uint8_t)rng_below(r, APPEARANCE_COUNT + 1); break;
		default: v->x = (uint8_t)x; v->y = (uint8_t)y; break;
		}
	}
	if (rng_below(r, 2))
		v->steps_left = (uint8_t)rng_below(r, 6);
}

Test(update, random_views)
{
	struct view *a = malloc(sizeof *a), *b = malloc(sizeof *b), *blank = malloc(sizeof *blank);
	struct rng r;
	static const int sizes[] = { 15, 25, 51 };

	rng_seed(&r, 42);
	update_blank(blank);
	for (int i = 0; i < 600; i++) {
		int size = sizes[i % 3];

		random_view(a, &r, size, (int)rng_below(&r, 101));
		roundtrip(blank, a, NULL, a->me);
		*b = *a;
		mutate(b, &r);
		roundtrip(a, b, NULL, a->me);
		random_view(b, &r, size, (int)rng_below(&r, 101));
		roundtrip(a, b, NULL, a->me);
	}
	free(a);
	free(b);
	free(blank);
}

Test(update, apply_refuses_what_does_not_fit)
{
	struct view a, b, v;
	struct update *u = new_update();
	struct proto_err e;

	base_view(&a, 25);
	b = a;
	for (int x = 3; x < 8; x++)
		b.cell[4][x] = VCELL_FLOOR;
	cr_assert_eq(update_make(&a, &b, NULL, 0, u, NULL), 0);
	cr_assert(u->lay_mode & LAY_REVEAL);
	/* The same reveal on a view that already knows one of those cells has one cell too many. */
	v = a;
	v.cell[4][5] = VCELL_WALL;
	cr_assert_eq(update_apply(&v, u, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_UPDATE);
	cr_assert_eq(v.cell[4][5], VCELL_WALL, "a refused update changes nothing");
	/* A smaller level: the same coordinates fall off it. */
	v = a;
	v.opt.size = 15;
	u->has |= UPD_BIT(UPD_POS);
	u->x = 20;
	cr_assert_eq(update_apply(&v, u, &e), PROTO_BROKEN);
	/* No size at all: nothing to apply to. */
	update_blank(&v);
	cr_assert_eq(update_apply(&v, u, &e), PROTO_BROKEN);
	/* Ring of another size. */
	u->has = UPD_BIT(UPD_RING);
	u->ring_n = (uint16_t)layout_ring_len(27);
	v = a;
	cr_assert_eq(update_apply(&v, u, &e), PROTO_BROKEN);
	free(u);
}

/* ---- selfplay: real views, every command, both players ---- */

struct sp_stats {
	long commands, updates;
	size_t bytes;
	struct view client[PLAYERS];
	struct pconn *srv, *cli;
	bool via_pconn;
	uint8_t frame[PCONN_FRAME_MAX];
	struct wire_msg *m, *got;
};

static void
through_pconn(struct sp_stats *s, int p, struct wire_msg *m)
{
	struct proto_err e = { 0 };
	size_t len;

	cr_assert_eq(pconn_send(&s->srv[p], m, s->frame, sizeof s->frame, &len, &e), 0, "send: %s", e.why);
	cr_assert_eq(pconn_feed(&s->cli[p], s->frame, len), len);
	cr_assert_eq(pconn_next(&s->cli[p], s->got, &e), PROTO_DONE, "next: %s", e.why);
	cr_assert_eq(pconn_next(&s->cli[p], s->got, &e), PROTO_MORE);
	s->bytes += len;
}

static void
join(struct sp_stats *s, int p)
{
	struct wire_msg *m = s->m;
	struct proto_err e = { 0 };

	cr_assert_eq(sample_handshake(&s->srv[p], &s->cli[p], &e), 0, "%s", e.why);
	memset(m, 0, sizeof *m);
	m->type = WIRE_WELCOME;
	m->u.welcome.player = (uint8_t)p;
	m->u.welcome.token_len = 16;
	m->u.welcome.hold = 30;
	m->u.welcome.grace = 120;
	through_pconn(s, p, m);
	cr_assert(s->srv[p].joined && s->cli[p].joined);
}

static void
sp_cb(void *ud, const struct game *g, const struct view *before, const struct view *after, const struct events *ev,
      const struct cmd *c, int mover)
{
	struct sp_stats *s = ud;
	struct proto_err e = { 0 };

	if (!before) {
		struct view blank;

		update_blank(&blank);
		for (int p = 0; p < PLAYERS; p++) {
			if (!s->via_pconn) {
				s->bytes += roundtrip(&blank, &after[p], NULL, p);
				continue;
			}
			join(s, p);
			memset(s->m, 0, sizeof *s->m);
			s->m->type = WIRE_START;
			s->m->u.start.first = g->first;
			cr_assert_eq(update_make(&blank, &after[p], NULL, p, &s->m->u.start.view, &e), 0, "%s", e.why);
			through_pconn(s, p, s->m);
			cr_assert_eq(s->got->type, WIRE_START);
			update_blank(&s->client[p]);
			cr_assert_eq(update_apply(&s->client[p], &s->got->u.start.view, &e), 0, "%s", e.why);
			cr_assert(update_view_equal(&s->client[p], &after[p]));
		}
		return;
	}
	s->commands++;
	for (int p = 0; p < PLAYERS; p++) {
		s->updates++;
		if (!s->via_pconn) {
			s->bytes += roundtrip(&before[p], &after[p], ev, p);
			continue;
		}
		s->m->type = WIRE_UPDATE;
		cr_assert_eq(update_make(&before[p], &after[p], ev, p, &s->m->u.update, &e), 0, "%s", e.why);
		through_pconn(s, p, s->m);
		cr_assert_eq(update_apply(&s->client[p], &s->got->u.update, &e), 0, "%s", e.why);
		cr_assert(update_view_equal(&s->client[p], &after[p]), "player %d after command %ld (%s by %d)", p,
		          s->commands, cmd_name(c->type), mover);
	}
}

static int
games(int dflt)
{
	const char *env = getenv("WIZWAR_PROTO_GAMES");

	return env && atoi(env) > 0 ? atoi(env) : dflt;
}

static void
run_games(bool via_pconn, int n)
{
	static const struct options opts[] = {
		{ 25, true, true }, { 15, true, true }, { 51, true, true }, { 25, false, true }, { 25, true, false },
		{ 15, false, false }, { 37, true, true },
	};
	struct sp_stats *s = calloc(1, sizeof *s);

	cr_assert(s);
	s->via_pconn = via_pconn;
	s->srv = calloc(PLAYERS, sizeof *s->srv);
	s->cli = calloc(PLAYERS, sizeof *s->cli);
	s->m = malloc(sizeof *s->m);
	s->got = malloc(sizeof *s->got);
	cr_assert(s->srv && s->cli && s->m && s->got);
	for (int i = 0; i < n; i++) {
		const struct options *o = &opts[i % (int)(sizeof opts / sizeof opts[0])];

		for (int p = 0; p < PLAYERS; p++) {
			pconn_init(&s->srv[p], PCONN_SERVER);
			pconn_init(&s->cli[p], PCONN_CLIENT);
		}
		cr_assert_geq(selfplay_run(o, 1000 + (uint64_t)i, 0, sp_cb, s), 1);
		for (int p = 0; p < PLAYERS; p++) {
			pconn_finish(&s->srv[p]);
			pconn_finish(&s->cli[p]);
		}
	}
	cr_log_info("%d games, %ld commands, %ld updates, %zu bytes (%s)", n, s->commands, s->updates, s->bytes,
	            via_pconn ? "frames, deflated" : "payloads");
	free(s->srv);
	free(s->cli);
	free(s->m);
	free(s->got);
	free(s);
}

Test(update, selfplay_every_command_both_players, .timeout = 300)
{
	run_games(false, games(40));
}

Test(update, selfplay_through_connections, .timeout = 300)
{
	run_games(true, games(40));
}

/* MSGS is self-delimiting: each message's argument bytes are counted, so an id of a
 * later table is stepped over, and a known id with the wrong count is refused. */
Test(update, messages_carry_their_argument_count)
{
	struct update *u = new_update();
	struct proto_err e;
	uint8_t buf[64];
	size_t len;
	/* has = MSGS (0x20); 3 messages: CAST Fire Storm, an unknown id 0x3fff with 3
	 * argument bytes, HURT cold 2. */
	const uint8_t three[] = { 0x20, 3, MSG_CAST, 1, SPELL_FIRE, 0xff, 0x7f, 3, 9, 9, 9, MSG_HURT, 2, ELEMENT_COLD, 2 };
	const uint8_t only_unknown[] = { 0x20, 1, 0xff, 0x7f, 0 };
	const uint8_t short_count[] = { 0x20, 1, MSG_CAST, 0, SPELL_FIRE };
	const uint8_t long_count[] = { 0x20, 1, MSG_WAITED, 1, 0 };
	const uint8_t past_end[] = { 0x20, 1, 0xff, 0x7f, 4, 1, 2, 3 };

	cr_assert_eq(update_decode(three, sizeof three, u, &e), 0, "%s", e.why);
	cr_assert_eq(u->nmsg, 2);
	cr_assert(u->msg[0].id == MSG_CAST && u->msg[0].a == SPELL_FIRE);
	cr_assert(u->msg[1].id == MSG_HURT && u->msg[1].a == ELEMENT_COLD && u->msg[1].b == 2);
	/* What it re-encodes is the two it knows, each with its count. */
	cr_assert_eq(update_encode(u, buf, sizeof buf, &len, &e), 0, "%s", e.why);
	cr_assert_eq(len, 9);
	cr_assert(memcmp(buf, (const uint8_t[]){ 0x20, 2, MSG_CAST, 1, SPELL_FIRE, MSG_HURT, 2, ELEMENT_COLD, 2 }, 9) ==
	          0);
	cr_assert_eq(update_decode(only_unknown, sizeof only_unknown, u, &e), 0, "%s", e.why);
	cr_assert_eq(u->nmsg, 0);
	cr_assert_eq(u->has, 0);
	cr_assert_eq(update_decode(short_count, sizeof short_count, u, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	cr_assert_eq(update_decode(long_count, sizeof long_count, u, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	cr_assert_eq(update_decode(past_end, sizeof past_end, u, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TRUNCATED);
	free(u);
}
