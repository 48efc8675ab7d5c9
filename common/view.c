/* view: builds what one player may know from the game state; the only reader of hidden state for a player. */
#include <string.h>

#include "fov.h"
#include "internal.h"
#include "view.h"

static const uint8_t from_mem[3] = {
	[MEM_UNKNOWN] = VCELL_UNKNOWN,
	[MEM_WALL] = VCELL_WALL,
	[MEM_FLOOR] = VCELL_FLOOR,
};

void
view_build(const struct game *g, int p, struct view *v)
{
	const struct wizard *w = &g->wiz[p], *o = &g->wiz[1 - p];
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	int size = g->level.size;

	memset(v, 0, sizeof *v);
	v->opt = g->opt;
	v->me = (uint8_t)p;
	if (g->opt.fov)
		fov_compute(&g->level, w->x, w->y, FOV_RADIUS, vis);
	else
		memset(vis, 1, sizeof vis);
	/* Memory already holds every visible square (the rules update it after each
	 * command), so the layout comes from memory alone; sight only adds the flag. */
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			v->cell[y][x] = (uint8_t)(from_mem[w->mem[y][x] < 3 ? w->mem[y][x] : 0] | (vis[y][x] ? VCELL_VISIBLE : 0));
			v->potion[y][x] = w->memp[y][x];
		}
	v->x = w->x;
	v->y = w->y;
	v->hp = w->hp;
	v->opp_hp = o->hp;
	if (vis[o->y][o->x]) {
		v->opp_state = OPP_VISIBLE;
		v->opp_x = o->x;
		v->opp_y = o->y;
	} else if (w->opp_known != OPPMEM_NONE && !vis[w->opp_y][w->opp_x]) {
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
