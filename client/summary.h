/* SPDX-License-Identifier: MIT */
/* summary: the story of a finished duel from its turn log: the whole level as it ended and what each wizard did. */
#ifndef WW_SUMMARY_H
#define WW_SUMMARY_H

#include "cold.h"

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "view.h"

struct summary {
	uint32_t turns;               /* turns played, both wizards' */
	int damage_taken[PLAYERS];    /* HP lost, all causes */
	int healed[PLAYERS];          /* HP gained */
	int casts[PLAYERS];
	int drunk[PLAYERS];           /* potions drunk, underfoot or from the pack */
	int steps[PLAYERS];
};

/* Replay a whole turn log (hashes checked) into the final game and a summary. Returns 0, or -1
 * when the log does not replay. `final` may be NULL. */
WW_COLD int summary_from_log(const char *log, size_t len, struct summary *s, struct game *final);

/* Player p's view of the end with nothing hidden: every square of the level seen, every potion on
 * the ground, the opponent where it stands, and the kinds of every appearance (its carried potions
 * are in opp_inv). */
void summary_reveal(const struct game *g, int p, struct view *v, uint8_t *opp_ninv, uint8_t opp_inv[INV_MAX]);

/* One line: "6 rounds (12 turns). Tess: lost 3 HP, regained 2, cast 4 spells, drank 1 potion. ..." */
WW_COLD size_t summary_text(const struct summary *s, int me, const char *const names[PLAYERS], char *buf, size_t len);

#endif
