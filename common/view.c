/* SPDX-License-Identifier: MIT */
/* view: builds what one player may know from the game state; the only reader of hidden state for a player. */
#include <string.h>

#include "fov.h"
#include "internal.h"
#include "view.h"

/* A memory is its view cell, so the copy below is a loop the compiler vectorizes, where a
 * table lookup a cell was not (a view is built for both players after every command). */
_Static_assert((int)MEM_UNKNOWN == (int)VCELL_UNKNOWN && (int)MEM_WALL == (int)VCELL_WALL && (int)MEM_FLOOR == (int)VCELL_FLOOR,
               "a memory is its view cell");

/*
 * `sight` is what p sees now, or NULL when FoV is off (all is seen). It comes either
 * from fov_sight() here (view_build) or from the memory update of the command just
 * applied (view_build_after): the one field of view per wizard and command. It is
 * passed in, not stored in the game, so that nothing derived from the level and the
 * positions can outlive a change to them.
 */
static void
build(const struct game *g, int p, const struct fov_sight *sight, struct view *v)
{
	const struct wizard *w = &g->wiz[p], *o = &g->wiz[1 - p];
	int size = g->level.size;

	memset(v, 0, sizeof *v);
	v->opt = g->opt;
	v->me = (uint8_t)p;
	/* Memory already holds every visible square (the rules update it after each
	 * command), so the layout comes from memory alone; sight only adds the flag. */
	for (int y = 0; y < size; y++) {
		const uint8_t *m = w->mem[y];
		uint8_t *c = v->cell[y];
		for (int x = 0; x < size; x++)
			c[x] = m[x] <= MEM_FLOOR ? m[x] : VCELL_UNKNOWN;
		memcpy(v->potion[y], w->memp[y], (size_t)size);
	}
	if (sight) {
		for (int j = 0; j < FOV_SIDE; j++)
			for (unsigned row = sight->row[j]; row; row &= row - 1)
				v->cell[sight->y - FOV_RADIUS + j][sight->x - FOV_RADIUS + __builtin_ctz(row)] |= VCELL_VISIBLE;
	} else {
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++)
				v->cell[y][x] |= VCELL_VISIBLE;
	}
	v->x = w->x;
	v->y = w->y;
	v->hp = w->hp;
	v->opp_hp = o->hp;
	if (!sight || fov_seen(sight, o->x, o->y)) {
		v->opp_state = OPP_VISIBLE;
		v->opp_x = o->x;
		v->opp_y = o->y;
	} else if (w->opp_known != OPPMEM_NONE && !fov_seen(sight, w->opp_x, w->opp_y)) {
		/* Sensed is exact only on p's own turn. The rules demote it when p's next turn
		 * starts, so through the opponent's turn (when the opponent may walk off) it
		 * is already a memory: showing it as "sensed" there claimed a square the
		 * opponent had left. And a memory of a square in sight, where the opponent is
		 * not, is known to be stale (the rules clear such a memory, but only once it is
		 * no longer "sensed": after p's own Blink All it lingered). Both are mapped
		 * here, not in the rules, so no game hash changes. */
		v->opp_state = w->opp_known == OPPMEM_SENSED && g->turn == p ? OPP_SENSED : OPP_REMEMBERED;
		v->opp_x = w->opp_x;
		v->opp_y = w->opp_y;
	}
	v->ninv = w->ninv;
	memcpy(v->inv, w->inv, w->ninv);
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		v->kind_of[a] = (w->known & (1u << a)) ? g->kind_of[a] : POTION_NONE;
	v->intrinsics = w->intrinsics;
	for (int i = 0; i < w->chain.n; i++)
		v->turns_left[w->chain.link[i].id] = w->chain.link[i].turns;
	v->turn = g->turn;
	v->turn_no = g->turn_no;
	if (g->turn == p && g->result == RESULT_NONE) {
		v->steps_left = g->steps_left;
		memcpy(v->offered, g->offered, sizeof v->offered);
	} else {
		memset(v->offered, SPELL_NONE, sizeof v->offered);
	}
	v->result = g->result;
	v->end_reason = g->end_reason;
}

void
view_build(const struct game *g, int p, struct view *v)
{
	struct fov_sight s;

	if (g->opt.fov)
		fov_sight(&g->level, g->wiz[p].x, g->wiz[p].y, &s);
	build(g, p, g->opt.fov ? &s : NULL, v);
}

void
view_build_after(const struct game *g, int p, const struct events *ev, struct view *v)
{
	build(g, p, g->opt.fov ? &ev->sight[p] : NULL, v);
}
