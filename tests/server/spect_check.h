/* SPDX-License-Identifier: MIT */
/* spect_check: the spectators' leak rule, a frame against the truth at its state (server/spect and server/xspect). */
#ifndef WW_TEST_SPECT_CHECK_H
#define WW_TEST_SPECT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "view.h"

/*
 * The checker never calls common/spect.c: the caller replays the commands the duel applied with
 * common/, builds both players' views with view_build at the state a frame names (SPECT_VIEW.cmds),
 * and checks the frame against the promise of its room's option, field by field:
 *   shared:   every cell, potion and wizard shown is in both players' views, the same there;
 *   delayed:  exactly player p's view at the end of a turn (and, checked by the caller, when it
 *             arrived the duel was at least `delay` turns further on);
 *   after:    nothing until the duel is over;
 * and in every mode, once over, the whole truth. Private facts never appear but in that last.
 * Each returns how many facts break the rule (0: none), the first one said in why.
 */
struct spect_frame {
	struct view v;
	uint32_t cmds, live_turn, bytes;
	uint8_t kind, me_state, delay;
};

/* Private facts shown: inventory, identified potions, intrinsics, spells offered, timed effects. */
unsigned spect_check_private(const struct view *v);
/* A shared room's frame against both players' views of its state. */
unsigned spect_check_shared(const struct spect_frame *f, const struct view *v0, const struct view *v1, char *why,
                            size_t len);
/* A delayed room's frame: exactly the player's view pv, wizards in player 0's frame. */
unsigned spect_check_player(const struct spect_frame *f, const struct view *pv, char *why, size_t len);
/* The frame after the end: the whole truth of g, every cell and both wizards. */
unsigned spect_check_all(const struct spect_frame *f, const struct game *g);

#endif
