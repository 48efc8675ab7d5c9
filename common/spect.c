/* SPDX-License-Identifier: MIT */
/* spect: the spectator's views (shared, one player's, everything), made from the players' views. */
#include <stdio.h>
#include <string.h>

#include "spect.h"

/* The public part of any view: options, HP, whose turn, the result; private fields cleared. */
static void
public_of(const struct view *pv, int p, struct spect_view *out)
{
	struct view *v = &out->v;

	memset(out, 0, sizeof *out);
	v->opt = pv->opt;
	v->me = 0;
	v->hp = p == 0 ? pv->hp : pv->opp_hp;
	v->opp_hp = p == 0 ? pv->opp_hp : pv->hp;
	memset(v->kind_of, POTION_NONE, sizeof v->kind_of);
	memset(v->offered, SPELL_NONE, sizeof v->offered);
	v->turn = pv->turn;
	v->turn_no = pv->turn_no;
	v->result = pv->result;
	v->end_reason = pv->end_reason;
}

/* Put wizard w (0 or 1) at (x, y) with state `state` (an enum opp_state). */
static void
place(struct spect_view *out, int w, uint8_t state, uint8_t x, uint8_t y)
{
	if (state == OPP_UNKNOWN)
		x = y = 0;
	if (w == 0) {
		out->me_state = state;
		out->v.x = x;
		out->v.y = y;
	} else {
		out->v.opp_state = state;
		out->v.opp_x = x;
		out->v.opp_y = y;
	}
}

void
spect_of_player(const struct view *pv, int p, struct spect_view *out)
{
	int size = pv->opt.size;

	public_of(pv, p, out);
	out->kind = (uint8_t)(p == 0 ? SPECT_KIND_PLAYER0 : SPECT_KIND_PLAYER1);
	for (int y = 0; y < size; y++) {
		memcpy(out->v.cell[y], pv->cell[y], (size_t)size);
		memcpy(out->v.potion[y], pv->potion[y], (size_t)size);
	}
	place(out, p, OPP_VISIBLE, pv->x, pv->y);
	place(out, 1 - p, pv->opp_state, pv->opp_x, pv->opp_y);
}

void
spect_shared(const struct view *v0, const struct view *v1, struct spect_view *out)
{
	int size = v0->opt.size;

	public_of(v0, 0, out);
	out->kind = SPECT_KIND_SHARED;
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			uint8_t a = v0->cell[y][x], b = v1->cell[y][x];
			uint8_t base = (uint8_t)(a & ~VCELL_VISIBLE);
			/* A cell both know the same (Alter Dungeon can make two memories differ). */
			if (base == VCELL_UNKNOWN || base != (b & ~VCELL_VISIBLE))
				continue;
			out->v.cell[y][x] = (uint8_t)(base | (a & b & VCELL_VISIBLE));
			if (v0->potion[y][x] && v0->potion[y][x] == v1->potion[y][x])
				out->v.potion[y][x] = v0->potion[y][x];
		}
	/* Each wizard knows where it is: what the other knows of it is what both know. */
	place(out, 0, v1->opp_state, v1->opp_x, v1->opp_y);
	place(out, 1, v0->opp_state, v0->opp_x, v0->opp_y);
}

void
spect_all(const struct game *g, struct spect_view *out)
{
	const struct wizard *w0 = &g->wiz[0], *w1 = &g->wiz[1];
	struct view *v = &out->v;
	int size = g->level.size;

	memset(out, 0, sizeof *out);
	out->kind = SPECT_KIND_ALL;
	out->me_state = OPP_VISIBLE;
	v->opt = g->opt;
	v->me = 0;
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			v->cell[y][x] = (uint8_t)((g->level.cell[y][x] == CELL_WALL ? VCELL_WALL : VCELL_FLOOR) | VCELL_VISIBLE);
			v->potion[y][x] = g->potion[y][x];
		}
	v->x = w0->x;
	v->y = w0->y;
	v->hp = w0->hp;
	v->opp_hp = w1->hp;
	v->opp_state = OPP_VISIBLE;
	v->opp_x = w1->x;
	v->opp_y = w1->y;
	v->ninv = w0->ninv;
	memcpy(v->inv, w0->inv, sizeof v->inv);
	memcpy(v->kind_of, g->kind_of, sizeof v->kind_of);
	v->intrinsics = w0->intrinsics;
	v->turn = g->turn;
	v->turn_no = g->turn_no;
	v->steps_left = g->result == RESULT_NONE ? g->steps_left : 0;
	memcpy(v->offered, g->offered, sizeof v->offered);
	if (g->result != RESULT_NONE)
		memset(v->offered, SPELL_NONE, sizeof v->offered);
	v->result = g->result;
	v->end_reason = g->end_reason;
}

static const char *const kind_text[SPECT_KIND_COUNT] = {
	[SPECT_KIND_SHARED] = "what both players know",
	[SPECT_KIND_PLAYER0] = "player 1's view",
	[SPECT_KIND_PLAYER1] = "player 2's view",
	[SPECT_KIND_ALL] = "everything (the duel is over)",
};

const char *
spect_kind_text(unsigned kind)
{
	return kind < SPECT_KIND_COUNT ? kind_text[kind] : NULL;
}

size_t
spect_mode_text(unsigned mode, unsigned delay, const char *name, char *buf, size_t len)
{
	int n;

	if (mode == SPECT_SHARED)
		n = snprintf(buf, len, "shared view: only what both players know");
	else if (mode == SPECT_DELAYED)
		n = snprintf(buf, len, "%s's view, %u turn%s behind", name, delay, delay == 1 ? "" : "s");
	else
		n = snprintf(buf, len, "nothing until the duel is over");
	return n < 0 ? 0 : (size_t)n;
}
