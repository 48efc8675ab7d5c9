/* SPDX-License-Identifier: MIT */
/* view: all that one player may know of a duel, and nothing more; servers send views, bots decide on them. */
#ifndef WW_VIEW_H
#define WW_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "game.h"

enum vcell {
	VCELL_UNKNOWN = 0,
	VCELL_WALL = 1,
	VCELL_FLOOR = 2,
};
#define VCELL_VISIBLE 0x80 /* or-ed in: seen right now, not only remembered */

enum opp_state {
	OPP_UNKNOWN = 0,     /* not known: never seen, or its remembered square since seen empty, or forgotten */
	OPP_VISIBLE = 1,     /* in sight now */
	OPP_SENSED = 2,      /* sensed this turn (Life Detection, Telepathy) */
	OPP_REMEMBERED = 3,  /* last seen or sensed there, may have moved */
};

struct view {
	struct options opt;
	uint8_t me;
	uint8_t cell[LEVEL_MAX][LEVEL_MAX];   /* enum vcell | VCELL_VISIBLE */
	uint8_t potion[LEVEL_MAX][LEVEL_MAX]; /* 0, or appearance + 1: seen now or remembered */
	uint8_t x, y;
	int8_t hp, opp_hp;                    /* both wizards' HP are public, as the plan shows them */
	uint8_t opp_state;
	uint8_t opp_x, opp_y;                 /* meaningful unless OPP_UNKNOWN */
	uint8_t ninv;
	uint8_t inv[INV_MAX];                 /* appearances */
	uint8_t kind_of[APPEARANCE_COUNT];    /* POTION_NONE where not identified by me */
	uint32_t intrinsics;
	uint8_t turns_left[HANDLER_COUNT];    /* of my own timed effects */
	uint8_t turn;                         /* whose move */
	uint32_t turn_no;
	uint8_t steps_left;                   /* mine, on my turn; 0 otherwise (the opponent's would betray unseen steps) */
	uint8_t offered[SPELL_OFFERED];       /* mine, on my turn; SPELL_NONE otherwise */
	uint8_t result;
	uint8_t end_reason;
};

/* What player p knows now. Deterministic; reads only what p may know. */
void view_build(const struct game *g, int p, struct view *v);

/* The same view, right after game_apply(g, p', c, ev) returned ERR_OK, with nothing
 * changed in g since: it takes what p sees from ev->sight, which the rules' memory
 * update computed, instead of computing the field of view a second time. */
void view_build_after(const struct game *g, int p, const struct events *ev, struct view *v);

/* n bytes of a grid's row (a level's side) copied as 16-byte blocks, the last one
 * overlapping the block before so that nothing past the row is read or written: a memcpy
 * of a length known only at run time is a call into libc a row, and the server copies some
 * 200 rows a command (each seat's last view in and out, the potions of the view built),
 * issue 29. */
static inline void
view_row_copy(uint8_t *restrict d, const uint8_t *restrict s, size_t n)
{
	size_t i;

	if (n < 16) {
		memcpy(d, s, n);
		return;
	}
	for (i = 0; i + 16 < n; i += 16)
		memcpy(d + i, s + i, 16);
	memcpy(d + n - 16, s + n - 16, 16);
}

#endif
