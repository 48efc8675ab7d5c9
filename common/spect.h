/* SPDX-License-Identifier: MIT */
/* spect: what a spectator may be shown of a duel, from the players' views; pure, no I/O. */
#ifndef WW_SPECT_H
#define WW_SPECT_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "view.h"

/*
 * The room's choice of what its spectators see (docs/server.md, "Spectators"). Never the
 * spectator's: a spectator who could pick a player's live view could tell that player's
 * opponent everything.
 */
enum spect_mode {
	SPECT_SHARED = 0,  /* live: only what both players know (the intersection of their views) */
	SPECT_DELAYED = 1, /* one player's view, `delay` whole turns behind; the server holds the frames */
	SPECT_AFTER = 2,   /* nothing while the duel runs; everything once it is over */
	SPECT_MODE_COUNT
};
#define SPECT_DELAY_MIN 1
#define SPECT_DELAY_MAX 20

/* What a frame shows: whose knowledge it is. */
enum spect_kind {
	SPECT_KIND_SHARED = 0,
	SPECT_KIND_PLAYER0 = 1, /* player 0's view (delayed) */
	SPECT_KIND_PLAYER1 = 2,
	SPECT_KIND_ALL = 3,     /* the whole truth, after the end */
	SPECT_KIND_COUNT
};

/*
 * A spectator's view: a struct view always in player 0's frame (v.me is 0; v.x, v.y and v.hp are
 * wizard 0's, v.opp_* wizard 1's), so that a client draws every kind the same way, plus where
 * wizard 0 is known (me_state, an enum opp_state: a shared view may not know it). None of a
 * player's private facts are in it (inventory, identified potions, intrinsics, timed effects, the
 * spells offered, steps left) but in SPECT_KIND_ALL: they are zero, or POTION_NONE / SPELL_NONE.
 */
struct spect_view {
	struct view v;
	uint8_t me_state;
	uint8_t kind; /* enum spect_kind */
};

/* Player p's view (view_build(g, p)) as a spectator may see it once it is old enough. */
void spect_of_player(const struct view *pv, int p, struct spect_view *out);
/* Only what both views hold: cells known to both (and seen now only where both see them), the
 * potions both place on the same square, each wizard where the other knows it; HP, the turn and
 * the result, which are public. v0 and v1 are player 0's and player 1's views of one state. */
void spect_shared(const struct view *v0, const struct view *v1, struct spect_view *out);
/* Everything: the whole level, both wizards, wizard 0's private facts (the replay viewer's
 * all-seeing view). For the end of a duel. */
void spect_all(const struct game *g, struct spect_view *out);

/* The words a spectator is shown, one home for the terminal (cmd_spectate.c) and the web page
 * (web/wview.c). What a frame of this kind shows ("what both players know"); NULL past the kinds. */
const char *spect_kind_text(unsigned kind);
/* What the room lets its spectators see, as a phrase: "shared view: only what both players know",
 * "NAME's view, 3 turns behind", "nothing until the duel is over". Returns the length snprintf would. */
size_t spect_mode_text(unsigned mode, unsigned delay, const char *name, char *buf, size_t len);

#endif
