/* SPDX-License-Identifier: MIT */
/* harness: builds exact duel situations for the rules tests: a hand-drawn map, wizards, potions, offers. */
#ifndef WW_TEST_HARNESS_H
#define WW_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "view.h"

/*
 * harness_setup() starts from game_init() (so the RNG, options and every field are those
 * of a real duel) and then rewrites the situation from `map`, a NULL-terminated array of
 * rows drawn from the top-left corner of a size x size level; cells the map does not
 * cover are wall. The map's characters:
 *   '#' wall   '.' floor   '0' '1' a wizard on floor   'a'..'e' a potion of appearance 0..4
 * After it: both wizards at 5 HP with nothing carried, nothing identified, no effects,
 * no memories but what each sees now; kind_of[a] == a (yellow Healing, blue Speed, red
 * Regeneration, green Cold Resistance, orange Fire Resistance) until harness_bind();
 * player 0 to move on turn 0 with STEPS_PER_TURN steps; offered Cold, Lightning, Mapping.
 * A map without one of the wizards aborts the test.
 */
void harness_setup(struct game *g, const char *const *map, uint64_t seed);
/* The same with explicit options (size odd, 15..51). */
void harness_setup_opt(struct game *g, const char *const *map, int size, bool fov, bool potions, uint64_t seed);

/* Refresh both wizards' memories with what they see now, as the rules do after each command. */
void harness_remember(struct game *g);
void harness_offer(struct game *g, int s0, int s1, int s2);
void harness_bind(struct game *g, int appearance, int kind);
void harness_give(struct game *g, int p, int appearance);
void harness_put(struct game *g, int x, int y, int appearance);
void harness_place(struct game *g, int p, int x, int y);
/* Reseed the duel's RNG: the same situation with other dice. */
void harness_reseed(struct game *g, uint64_t seed);
/* Whose turn it is, with a fresh STEPS_PER_TURN steps. */
void harness_turn(struct game *g, int p);

/* Apply a command built from its parts. */
int harness_do(struct game *g, int p, int type, int arg, int dir, struct events *ev);
/* Offer `spell` in slot 0 and cast it (with `dir` if it takes one). */
int harness_cast(struct game *g, int p, int spell, int dir, struct events *ev);
/* Player p passes; the turn goes to the other. */
void harness_pass(struct game *g, int p, struct events *ev);

/* How many messages `id` the events hold for exactly the players in `to` (bit p: player p). */
int harness_msgs(const struct events *ev, int id, int to);
/* The first message `id` that player p receives, or NULL. */
const struct msg *harness_msg_for(const struct events *ev, int id, int p);
/* How many of the plan's messages player p receives: the narration of an opponent in sight
 * (harness_narration) is not counted here; test_view checks it over whole duels. */
int harness_msgs_for(const struct events *ev, int p);
/* Is `id` a line telling an observer what it saw its opponent do (MSG_OPP_DRINKS ...)? */
bool harness_narration(int id);
/* Number of potions on the ground. */
int harness_potions(const struct game *g);
/* Number of squares marked with effect `fx` in the events. */
int harness_fx(const struct events *ev, int fx);

/* Play random duels as selfplay does: bot_choose(BOT_RANDOM) on view_build, one bot
 * RNG per player seeded from the duel's seed; a refused command becomes a pass. */
struct harness_bots {
	struct rng rng[PLAYERS];
	int refusals;
};
void harness_bots_init(struct harness_bots *b, uint64_t seed);
/* Choose and apply one command for the player to move; returns it in *c and fills ev. */
void harness_bots_step(struct harness_bots *b, struct game *g, struct cmd *c, struct events *ev);

/* Default options with these changes. */
void harness_options(struct options *o, int size, bool fov, bool potions);


/* Shared scenes, 15x15 with the outer wall. room_map: a 13x13 room, player 0 in the
 * middle, player 1 in the far corner (in sight, 6 away). pocket_map: player 0 shut in a
 * one-square pocket, player 1 in the far corner. */
extern const char *const harness_room_map[];
extern const char *const harness_pocket_map[];

#endif
