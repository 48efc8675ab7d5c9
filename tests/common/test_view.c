/* SPDX-License-Identifier: MIT */
/* Tests for view: over many random duels, after every command, each player's view holds exactly what it may know. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "fov.h"
#include "harness.h"
#include "internal.h"

/* What a player has legitimately learnt so far, kept by the test from the events alone. */
struct shadow {
	uint8_t known[LEVEL_MAX][LEVEL_MAX]; /* squares it has seen (or mapped, or sensed) */
	uint8_t ident;                        /* appearances it has identified */
	bool opp_valid;                       /* opp_x/opp_y is where it last saw or sensed the opponent */
	uint8_t opp_x, opp_y;
};

static bool
got(const struct events *ev, int id, int p)
{
	return harness_msg_for(ev, id, p) != NULL;
}

static bool
sees(const struct game *g, int p, int x, int y)
{
	if (!g->opt.fov)
		return true;
	return fov_los(&g->level, g->wiz[p].x, g->wiz[p].y, x, y, FOV_RADIUS);
}

static void
shadow_init(struct shadow *s, const struct game *g, int p)
{
	memset(s, 0, sizeof *s);
	s->ident = g->wiz[p].known; /* the start potions, identified by the rules */
	for (int y = 0; y < g->level.size; y++)
		for (int x = 0; x < g->level.size; x++)
			s->known[y][x] = sees(g, p, x, y);
	if (sees(g, p, g->wiz[1 - p].x, g->wiz[1 - p].y)) {
		s->opp_valid = true;
		s->opp_x = g->wiz[1 - p].x;
		s->opp_y = g->wiz[1 - p].y;
	}
}

/* Every message is well formed: a known id, for one or both players, and arguments that
 * fit their kinds (the wire refuses anything else). */
static void
check_messages(const struct events *ev)
{
	cr_assert_leq(ev->nmsg, EVENTS_MSG_MAX);
	for (int i = 0; i < ev->nmsg; i++) {
		const struct msg *m = &ev->msg[i];
		cr_assert(m->id > MSG_NONE && m->id < MSG_COUNT, "message id %d", m->id);
		cr_assert(m->to >= 1 && m->to <= 3, "message %d to %d", m->id, m->to);
		for (int k = 0; k < 2; k++) {
			unsigned v = k ? m->b : m->a;
			switch (msg_arg_kind(m->id, k)) {
			case ARG_NONE:
				cr_assert_eq(v, 0, "message %d: argument %d should be empty, is %u", m->id, k + 1, v);
				break;
			case ARG_SPELL:
				cr_assert_lt(v, SPELL_COUNT);
				break;
			case ARG_APPEAR:
				cr_assert_lt(v, APPEARANCE_COUNT);
				break;
			case ARG_KIND:
				cr_assert_lt(v, POTION_KIND_COUNT);
				break;
			case ARG_ELEMENT:
				cr_assert_lt(v, ELEMENT_COUNT);
				break;
			case ARG_NUM:
				break;
			}
		}
	}
}

/* Bring the shadow up to date with one command's events, and check the view against it
 * and against the game. */
static void
check_view(const struct game *g, int p, const struct events *ev, struct shadow *s, const char *where)
{
	static struct view v;
	const struct wizard *w = &g->wiz[p], *o = &g->wiz[1 - p];
	int size = g->level.size;

	view_build(g, p, &v);

	/* What the events say this player learnt or lost. */
	if (got(ev, MSG_ALTERED_OPP, p) || got(ev, MSG_MIRRORED_OPP, p)) {
		memset(s->known, 0, sizeof s->known);
		s->opp_valid = false;
	}
	if (got(ev, MSG_MAPPED, p) || got(ev, MSG_ALTERED, p) || got(ev, MSG_MIRRORED, p))
		memset(s->known, 1, sizeof s->known);
	if (got(ev, MSG_MIRRORED, p))
		s->opp_valid = false; /* its memory of the opponent turned with the world */
	if (got(ev, MSG_FORGOT, p)) {
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++) {
				bool k = (v.cell[y][x] & ~VCELL_VISIBLE) != VCELL_UNKNOWN;
				cr_assert(!k || s->known[y][x] || sees(g, p, x, y), "%s: p%d forgot into knowing (%d,%d)", where, p, x, y);
				s->known[y][x] = k;
			}
	}
	if (got(ev, MSG_ITEMS_SENSED, p)) {
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++)
				if (!s->known[y][x] && (v.cell[y][x] & ~VCELL_VISIBLE) != VCELL_UNKNOWN) {
					cr_assert_neq(g->potion[y][x], 0, "%s: item detection showed an empty square", where);
					cr_assert_eq(v.potion[y][x], g->potion[y][x]);
					s->known[y][x] = 1;
				}
	}
	if (got(ev, MSG_DRANK, p))
		s->ident |= (uint8_t)(1u << harness_msg_for(ev, MSG_DRANK, p)->a);
	if (got(ev, MSG_IDENTIFIED_N, p))
		for (int i = 0; i < w->ninv; i++)
			s->ident |= (uint8_t)(1u << w->inv[i]);

	/* The layout: seen squares flagged exactly as fov_los says, unknown exactly where never learnt. */
	cr_assert_eq(v.me, p);
	cr_assert(memcmp(&v.opt, &g->opt, sizeof v.opt) == 0);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			bool vis = sees(g, p, x, y);
			int c = v.cell[y][x] & ~VCELL_VISIBLE;
			cr_assert_eq((v.cell[y][x] & VCELL_VISIBLE) != 0, vis, "%s: p%d visible flag at (%d,%d)", where, p, x, y);
			if (vis) {
				s->known[y][x] = 1;
				cr_assert_eq(c, g->level.cell[y][x] == CELL_FLOOR ? VCELL_FLOOR : VCELL_WALL, "%s: p%d sees (%d,%d) wrong",
				    where, p, x, y);
				cr_assert_eq(v.potion[y][x], g->potion[y][x], "%s: p%d sees the potion at (%d,%d) wrong", where, p, x, y);
			}
			cr_assert_eq(c != VCELL_UNKNOWN, s->known[y][x] != 0, "%s: p%d knows (%d,%d): view %d, learnt %d", where, p,
			    x, y, c, s->known[y][x]);
			if (v.potion[y][x] != 0) {
				cr_assert_leq(v.potion[y][x], APPEARANCE_COUNT);
				cr_assert_eq(c, VCELL_FLOOR, "%s: p%d remembers a potion in rock at (%d,%d)", where, p, x, y);
			}
		}

	/* The opponent: exact when in sight or sensed (and sensed only on its own turn),
	 * where last seen or sensed when remembered, and no coordinates at all when unknown. */
	bool opp_vis = sees(g, p, o->x, o->y);
	if (opp_vis || (ev->sensed & (1 << p))) {
		s->opp_valid = true;
		s->opp_x = o->x;
		s->opp_y = o->y;
	}
	if (opp_vis) {
		cr_assert_eq(v.opp_state, OPP_VISIBLE, "%s: p%d does not see the opponent in sight", where, p);
	} else {
		cr_assert_neq(v.opp_state, OPP_VISIBLE, "%s: p%d sees the opponent out of sight", where, p);
	}
	switch (v.opp_state) {
	case OPP_UNKNOWN:
		cr_assert(v.opp_x == 0 && v.opp_y == 0, "%s: coordinates of an unknown opponent", where);
		break;
	case OPP_VISIBLE:
		cr_assert(v.opp_x == o->x && v.opp_y == o->y);
		break;
	case OPP_SENSED:
		cr_assert(g->turn == p, "%s: p%d 'senses' on the opponent's turn", where, p);
		cr_assert(v.opp_x == o->x && v.opp_y == o->y, "%s: p%d senses (%d,%d), the opponent is at (%d,%d)", where, p,
		    v.opp_x, v.opp_y, o->x, o->y);
		break;
	case OPP_REMEMBERED:
		/* Looking at the remembered square and finding it empty clears the memory. */
		cr_assert(!sees(g, p, v.opp_x, v.opp_y), "%s: p%d remembers the opponent on (%d,%d), in sight and empty", where, p,
		    v.opp_x, v.opp_y);
		if (s->opp_valid)
			cr_assert(v.opp_x == s->opp_x && v.opp_y == s->opp_y, "%s: p%d remembers (%d,%d), last learnt (%d,%d)",
			    where, p, v.opp_x, v.opp_y, s->opp_x, s->opp_y);
		break;
	default:
		cr_assert_fail("%s: opp_state %d", where, v.opp_state);
	}

	/* Identified kinds only, and the true ones. */
	for (int a = 0; a < APPEARANCE_COUNT; a++) {
		bool k = s->ident & (1u << a);
		cr_assert_eq(v.kind_of[a], k ? g->kind_of[a] : POTION_NONE, "%s: p%d kind of %s", where, p, appearance_name(a));
	}

	/* Its own things; the opponent's only HP. */
	cr_assert(v.x == w->x && v.y == w->y);
	cr_assert_eq(v.hp, w->hp);
	cr_assert_eq(v.opp_hp, o->hp);
	cr_assert_eq(v.ninv, w->ninv);
	cr_assert(memcmp(v.inv, w->inv, w->ninv) == 0);
	for (int i = w->ninv; i < INV_MAX; i++)
		cr_assert_eq(v.inv[i], 0, "%s: stale inventory bytes", where);
	cr_assert_eq(v.intrinsics, w->intrinsics);
	for (int h = 0; h < HANDLER_COUNT; h++) {
		int want = 0;
		for (int i = 0; i < w->chain.n; i++)
			if (w->chain.link[i].id == h)
				want = w->chain.link[i].turns;
		cr_assert_eq(v.turns_left[h], want);
	}
	cr_assert_eq(v.turn, g->turn);
	cr_assert_eq(v.turn_no, g->turn_no);
	cr_assert_eq(v.result, g->result);
	cr_assert_eq(v.end_reason, g->end_reason);
	if (g->turn == p && g->result == RESULT_NONE) {
		cr_assert_eq(v.steps_left, g->steps_left);
		cr_assert(memcmp(v.offered, g->offered, sizeof v.offered) == 0);
	} else {
		cr_assert_eq(v.steps_left, 0, "%s: p%d sees the opponent's steps", where, p);
		for (int i = 0; i < SPELL_OFFERED; i++)
			cr_assert_eq(v.offered[i], SPELL_NONE, "%s: p%d sees the opponent's offer", where, p);
	}
}

/* What an observer is told of the opponent's action: only what it could see. The view before the
 * command says whether the opponent stood in sight; a drink, pick-up or cast in sight is always
 * told, one out of sight never; a spell is named only when one of its effects lay in sight. */
static int narrated;

static void
check_narration(const struct game *g, const struct view *before, int mover, const struct cmd *c,
    const struct events *ev, const char *where)
{
	static const int opp_ids[] = { MSG_OPP_DRINKS, MSG_OPP_PICKS_UP, MSG_OPP_CASTS, MSG_OPP_CASTS_SEEN };
	int obs = 1 - mover;
	bool in_sight = before[obs].opp_state == OPP_VISIBLE;
	int told = 0;

	for (size_t i = 0; i < sizeof opp_ids / sizeof opp_ids[0]; i++) {
		cr_assert_null(harness_msg_for(ev, opp_ids[i], mover), "%s: the mover is told of itself", where);
		told += harness_msg_for(ev, opp_ids[i], obs) != NULL;
	}
	if (!in_sight) {
		cr_assert_eq(told, 0, "%s: p%d told of an opponent it could not see", where, obs);
		return;
	}
	switch (c->type) {
	case CMD_DRINK:
	case CMD_QUAFF: {
		const struct msg *m = harness_msg_for(ev, MSG_OPP_DRINKS, obs);
		cr_assert_not_null(m, "%s: p%d saw its opponent drink and was not told", where, obs);
		const struct msg *own = harness_msg_for(ev, MSG_DRANK, mover);
		cr_assert_eq(m->a, own->a, "%s: the wrong appearance", where);
		if (c->type == CMD_DRINK)
			cr_assert_eq(before[obs].potion[before[obs].opp_y][before[obs].opp_x], m->a + 1,
			    "%s: told of a potion it did not see", where);
		narrated++;
		break;
	}
	case CMD_PICKUP:
		cr_assert_not_null(harness_msg_for(ev, MSG_OPP_PICKS_UP, obs), "%s: a pick-up in sight untold", where);
		narrated++;
		break;
	case CMD_CAST: {
		const struct msg *named = harness_msg_for(ev, MSG_OPP_CASTS_SEEN, obs);
		cr_assert_eq(told, 1, "%s: one line for a cast in sight", where);
		if (named) {
			bool fx_in_sight = false;
			for (int y = 0; y < g->level.size; y++)
				for (int x = 0; x < g->level.size; x++)
					fx_in_sight |= ev->fx[y][x] && sees(g, obs, x, y);
			cr_assert(fx_in_sight, "%s: a spell named whose effect p%d did not see", where, obs);
		}
		narrated++;
		break;
	}
	default:
		cr_assert_eq(told, 0, "%s: narration of a %s", where, cmd_name(c->type));
	}
}

static void
play_and_check(uint64_t seed, const struct options *o, int max_commands)
{
	static struct game g;
	static struct shadow s[PLAYERS];
	static struct view before[PLAYERS];
	struct harness_bots b;
	struct events ev;
	struct cmd c;
	char where[64];

	cr_assert_eq(game_init(&g, o, seed), ERR_OK);
	harness_bots_init(&b, seed);
	memset(&ev, 0, sizeof ev);
	for (int p = 0; p < PLAYERS; p++) {
		shadow_init(&s[p], &g, p);
		snprintf(where, sizeof where, "seed %d start", (int)seed);
		check_view(&g, p, &ev, &s[p], where);
	}
	for (int i = 0; i < max_commands && g.result == RESULT_NONE; i++) {
		int mover = g.turn;
		for (int p = 0; p < PLAYERS; p++)
			view_build(&g, p, &before[p]);
		harness_bots_step(&b, &g, &c, &ev);
		check_messages(&ev);
		snprintf(where, sizeof where, "seed %d command %d (%s)", (int)seed, i, cmd_name(c.type));
		if (c.type != CMD_RESIGN)
			check_narration(&g, before, mover, &c, &ev, where);
		for (int p = 0; p < PLAYERS; p++) {
			check_view(&g, p, &ev, &s[p], where);
			/* The view from the sight the command's memory update computed is the view. */
			static struct view fresh, after;
			view_build(&g, p, &fresh);
			view_build_after(&g, p, &ev, &after);
			cr_assert(memcmp(&fresh, &after, sizeof fresh) == 0, "%s: p%d view_build_after differs", where, p);
		}
	}
	cr_assert_eq(b.refusals, 0, "seed %d: a bot's command, chosen from its view, was refused", (int)seed);
}

Test(view, random_duels_default)
{
	struct options o;

	options_default(&o);
	narrated = 0;
	for (uint64_t seed = 1; seed <= 12; seed++)
		play_and_check(seed, &o, 1500);
	cr_assert_gt(narrated, 10, "the duels gave too few actions in sight to test narration (%d)", narrated);
}

Test(view, random_duels_small_and_large)
{
	struct options o;

	for (uint64_t seed = 20; seed < 30; seed++) {
		harness_options(&o, seed % 2 ? 15 : 37, true, true);
		play_and_check(seed, &o, 1500);
	}
}

Test(view, random_duels_without_potions)
{
	struct options o;

	harness_options(&o, 21, true, false);
	for (uint64_t seed = 40; seed < 48; seed++)
		play_and_check(seed, &o, 1500);
}

Test(view, random_duels_without_fov)
{
	struct options o;

	harness_options(&o, 17, false, true);
	for (uint64_t seed = 50; seed < 56; seed++)
		play_and_check(seed, &o, 1500);
}

/* With FoV off everything is seen from the start: the whole layout and the opponent. */
Test(view, fov_off_sees_all)
{
	static struct game g;
	static struct view v;
	struct options o;

	harness_options(&o, 25, false, true);
	cr_assert_eq(game_init(&g, &o, 3), ERR_OK);
	for (int p = 0; p < PLAYERS; p++) {
		view_build(&g, p, &v);
		cr_assert_eq(v.opp_state, OPP_VISIBLE);
		for (int y = 0; y < 25; y++)
			for (int x = 0; x < 25; x++) {
				cr_assert_eq(v.cell[y][x], (g.level.cell[y][x] == CELL_FLOOR ? VCELL_FLOOR : VCELL_WALL) | VCELL_VISIBLE);
				cr_assert_eq(v.potion[y][x], g.potion[y][x]);
			}
	}
}

/* Nothing hidden reaches a view: change everything a player may not know, and its view
 * stays byte for byte the same. */
Test(view, hidden_state_does_not_leak)
{
	static struct game g, h;
	static struct view a, b;
	int checked = 0;

	for (uint64_t seed = 0; seed < 60; seed++) {
		struct options o;
		struct harness_bots bots;
		struct events ev;
		struct cmd c;

		options_default(&o);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		harness_bots_init(&bots, seed);
		for (int i = 0; i < (int)(seed % 40) && g.result == RESULT_NONE; i++)
			harness_bots_step(&bots, &g, &c, &ev);
		if (g.result != RESULT_NONE)
			continue;
		for (int p = 0; p < PLAYERS; p++) {
			int q = 1 - p;
			struct wizard *oq;

			view_build(&g, p, &a);
			h = g;
			oq = &h.wiz[q];
			/* The opponent's pack, what it knows, its effects and its memories. */
			oq->ninv = 7;
			for (int i = 0; i < INV_MAX; i++)
				oq->inv[i] = (uint8_t)((i * 3 + 1) % APPEARANCE_COUNT);
			oq->known = 0x1f;
			oq->chain = (struct chain){ 2, { { HANDLER_FAST, 3 }, { HANDLER_RES_FIRE, 7 } } };
			oq->intrinsics = INTRINSIC(HANDLER_FAST) | INTRINSIC(HANDLER_RES_FIRE);
			memset(oq->mem, MEM_WALL, sizeof oq->mem);
			memset(oq->memp, 2, sizeof oq->memp);
			oq->opp_known = OPPMEM_SENSED;
			oq->opp_x = h.wiz[p].x;
			oq->opp_y = h.wiz[p].y;
			/* The dice, and the kinds it has not identified. */
			h.rng.s[0] ^= 0x5555;
			h.seed ^= 77;
			for (int k = 0; k < APPEARANCE_COUNT; k++)
				if (!(h.wiz[p].known & (1u << k)))
					h.kind_of[k] = (uint8_t)((h.kind_of[k] + 5) % POTION_KIND_COUNT);
			/* Potions where it neither sees nor remembers any. */
			for (int y = 0; y < h.level.size; y++)
				for (int x = 0; x < h.level.size; x++)
					if (!game_sees(&h, p, x, y) && h.wiz[p].memp[y][x] == 0 && level_floor(&h.level, x, y))
						h.potion[y][x] = (uint8_t)(1 + (x + y) % APPEARANCE_COUNT);
			/* The offer and the steps, when it is not its turn. */
			if (h.turn != p) {
				h.steps_left = 9;
				h.offered[0] = SPELL_SCREAM;
				h.offered[1] = SPELL_FIRE;
				h.offered[2] = SPELL_BLINK;
			}
			/* Where the opponent stands, when out of its sight. */
			if (!game_sees(&h, p, oq->x, oq->y)) {
				for (int y = 0; y < h.level.size; y++)
					for (int x = 0; x < h.level.size; x++)
						if (level_floor(&h.level, x, y) && !game_sees(&h, p, x, y) && !(x == oq->x && y == oq->y)) {
							oq->x = (uint8_t)x;
							oq->y = (uint8_t)y;
							goto moved;
						}
moved:;
			}
			view_build(&h, p, &b);
			cr_assert(memcmp(&a, &b, sizeof a) == 0, "seed %d: p%d's view changed with hidden state", (int)seed, p);
			checked++;
		}
	}
	cr_assert_gt(checked, 80);
}

/* The opponent's HP is public; its position is not. */
Test(view, what_is_public)
{
	static struct game g;
	static struct view v;
	static const char *const map[] = {
		"###############",
		"#0#...........#",
		"###...........#",
		"#............1#",
		NULL,
	};

	harness_setup(&g, map, 1);
	g.wiz[1].hp = 2;
	view_build(&g, 0, &v);
	cr_assert_eq(v.opp_hp, 2);
	cr_assert_eq(v.opp_state, OPP_UNKNOWN);
	cr_assert_eq(v.opp_x, 0);
	cr_assert_eq(v.opp_y, 0);
	cr_assert_eq(v.cell[3][13], VCELL_UNKNOWN);
	cr_assert_eq(v.cell[1][1], VCELL_FLOOR | VCELL_VISIBLE);
	cr_assert_eq(v.cell[1][2], VCELL_WALL | VCELL_VISIBLE);
	cr_assert_eq(v.steps_left, STEPS_PER_TURN);
	view_build(&g, 1, &v);
	cr_assert_eq(v.steps_left, 0);
	cr_assert_eq(v.offered[0], SPELL_NONE);
	/* A remembered square out of sight keeps what was seen, without the flag. */
	g.wiz[1].mem[1][1] = MEM_FLOOR;
	g.wiz[1].memp[1][1] = APPEAR_BLUE + 1;
	view_build(&g, 1, &v);
	cr_assert_eq(v.cell[1][1], VCELL_FLOOR);
	cr_assert_eq(v.potion[1][1], APPEAR_BLUE + 1);
	/* After the end, nobody has an offer or steps. */
	g.result = RESULT_WIN1;
	view_build(&g, 0, &v);
	cr_assert_eq(v.steps_left, 0);
	cr_assert_eq(v.offered[1], SPELL_NONE);
	cr_assert_eq(v.result, RESULT_WIN1);
}
