/* SPDX-License-Identifier: MIT */
/* spect_check: the spectators' leak rule, field by field (spect_check.h), shared by the in-process and the cluster tests. */
#include <stdio.h>

#include "spect.h"
#include "spect_check.h"

static int
base(uint8_t c)
{
	return c & ~VCELL_VISIBLE;
}

/* Where view v places wizard `wiz` (0 or 1), as (state, x, y). */
static void
wizard_in(const struct view *v, int wiz, uint8_t *st, uint8_t *x, uint8_t *y)
{
	if (v->me == wiz) {
		*st = OPP_VISIBLE;
		*x = v->x;
		*y = v->y;
	} else {
		*st = v->opp_state;
		*x = v->opp_x;
		*y = v->opp_y;
	}
}

static void
frame_wizard(const struct spect_frame *f, int wiz, uint8_t *st, uint8_t *x, uint8_t *y)
{
	*st = wiz == 0 ? f->me_state : f->v.opp_state;
	*x = wiz == 0 ? f->v.x : f->v.opp_x;
	*y = wiz == 0 ? f->v.y : f->v.opp_y;
}

/* Nothing private: no inventory, no identified potion, no intrinsic, no spell offered. */
unsigned
spect_check_private(const struct view *v)
{
	unsigned n = v->ninv + (v->intrinsics != 0) + v->steps_left;

	for (int i = 0; i < APPEARANCE_COUNT; i++)
		n += v->kind_of[i] != POTION_NONE;
	for (int i = 0; i < SPELL_OFFERED; i++)
		n += v->offered[i] != SPELL_NONE;
	for (int i = 0; i < HANDLER_COUNT; i++)
		n += v->turns_left[i] != 0;
	return n;
}

/* A frame shown to spectators of a shared room: cells, potions, wizards, each in both views. */
unsigned
spect_check_shared(const struct spect_frame *f, const struct view *v0, const struct view *v1, char *why, size_t len)
{
	int size = v0->opt.size;
	unsigned n = 0;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			uint8_t c = f->v.cell[y][x];
			if (base(c) != VCELL_UNKNOWN &&
			    (base(c) != base(v0->cell[y][x]) || base(c) != base(v1->cell[y][x]))) {
				if (!n++)
					snprintf(why, len, "cell %d,%d known to a spectator, not to both", x, y);
			}
			if ((c & VCELL_VISIBLE) && !(v0->cell[y][x] & v1->cell[y][x] & VCELL_VISIBLE)) {
				if (!n++)
					snprintf(why, len, "cell %d,%d seen now by a spectator, not by both", x, y);
			}
			uint8_t pt = f->v.potion[y][x];
			if (pt && (pt != v0->potion[y][x] || pt != v1->potion[y][x])) {
				if (!n++)
					snprintf(why, len, "potion at %d,%d shown, not in both views", x, y);
			}
		}
	/* Each wizard only as the other player knows it (its own player knows where it is). */
	for (int wiz = 0; wiz < PLAYERS; wiz++) {
		uint8_t fs, fx, fy, os, ox, oy;
		frame_wizard(f, wiz, &fs, &fx, &fy);
		wizard_in(wiz == 0 ? v1 : v0, wiz, &os, &ox, &oy);
		if (fs != OPP_UNKNOWN && (fs != os || fx != ox || fy != oy)) {
			if (!n++)
				snprintf(why, len, "wizard %d shown at %d,%d (%u) where the other knows %d,%d (%u)", wiz, fx, fy,
				         fs, ox, oy, os);
		}
	}
	n += spect_check_private(&f->v);
	return n;
}

/* One player's view, exactly, wizards in player 0's frame. */
unsigned
spect_check_player(const struct spect_frame *f, const struct view *pv, char *why, size_t len)
{
	int size = pv->opt.size;
	unsigned n = 0;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			if (f->v.cell[y][x] != pv->cell[y][x] || f->v.potion[y][x] != pv->potion[y][x]) {
				if (!n++)
					snprintf(why, len, "cell %d,%d is not the player's view", x, y);
			}
	for (int wiz = 0; wiz < PLAYERS; wiz++) {
		uint8_t fs, fx, fy, ps, px, py;
		frame_wizard(f, wiz, &fs, &fx, &fy);
		wizard_in(pv, wiz, &ps, &px, &py);
		if (fs != ps || (fs != OPP_UNKNOWN && (fx != px || fy != py))) {
			if (!n++)
				snprintf(why, len, "wizard %d is not where the player's view has it", wiz);
		}
	}
	n += spect_check_private(&f->v);
	return n;
}

/* The whole truth at the end: every cell, both wizards. */
unsigned
spect_check_all(const struct spect_frame *f, const struct game *g)
{
	unsigned n = 0;
	int size = g->level.size;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			n += base(f->v.cell[y][x]) != (g->level.cell[y][x] == CELL_WALL ? VCELL_WALL : VCELL_FLOOR) ||
			     f->v.potion[y][x] != g->potion[y][x];
	n += f->v.x != g->wiz[0].x || f->v.y != g->wiz[0].y || f->v.opp_x != g->wiz[1].x || f->v.opp_y != g->wiz[1].y;
	n += f->v.hp != g->wiz[0].hp || f->v.opp_hp != g->wiz[1].hp;
	return n;
}
