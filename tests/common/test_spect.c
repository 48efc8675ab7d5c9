/* SPDX-License-Identifier: MIT */
/* common/spect: the spectators' views from the players' views: the intersection, one player's, everything; deterministic and private-free. */
#include <string.h>

#include <criterion/criterion.h>

#include "bot.h"
#include "game.h"
#include "spect.h"
#include "view.h"

static struct game g;

/* A duel a few commands in: both players' views and the three kinds of spectator view. */
static void
setup(uint64_t seed, struct view *v0, struct view *v1)
{
	struct options o;
	struct rng r;
	static struct view pv;

	options_default(&o);
	cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
	rng_seed(&r, seed);
	/* Random commands: the wizards wander, and each may come to know the other. */
	for (int i = 0; i < 60 && g.result == RESULT_NONE; i++) {
		struct cmd c;
		view_build(&g, g.turn, &pv);
		bot_choose(&pv, BOT_RANDOM, &r, &c);
		if (game_apply(&g, g.turn, &c, NULL) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			game_apply(&g, g.turn, &c, NULL);
		}
	}
	view_build(&g, 0, v0);
	view_build(&g, 1, v1);
}

Test(spect, shared_is_the_intersection_and_nothing_private)
{
	static struct view v0, v1;
	static struct spect_view sv, again;

	for (uint64_t seed = 1; seed < 40; seed++) {
		setup(seed, &v0, &v1);
		spect_shared(&v0, &v1, &sv);
		cr_assert_eq(sv.kind, SPECT_KIND_SHARED);
		cr_assert_eq(sv.v.me, 0);
		for (int y = 0; y < g.level.size; y++)
			for (int x = 0; x < g.level.size; x++) {
				uint8_t c = sv.v.cell[y][x] & ~VCELL_VISIBLE;
				if (c != VCELL_UNKNOWN)
					cr_assert(c == (v0.cell[y][x] & ~VCELL_VISIBLE) && c == (v1.cell[y][x] & ~VCELL_VISIBLE));
				if (sv.v.potion[y][x])
					cr_assert(sv.v.potion[y][x] == v0.potion[y][x] && sv.v.potion[y][x] == v1.potion[y][x]);
			}
		/* Each wizard exactly as the other knows it. */
		cr_assert_eq(sv.me_state, v1.opp_state);
		cr_assert_eq(sv.v.opp_state, v0.opp_state);
		cr_assert_eq(sv.v.ninv, 0);
		cr_assert_eq(sv.v.intrinsics, 0u);
		for (int i = 0; i < SPELL_OFFERED; i++)
			cr_assert_eq(sv.v.offered[i], SPELL_NONE);
		cr_assert_eq(sv.v.hp, g.wiz[0].hp);
		cr_assert_eq(sv.v.opp_hp, g.wiz[1].hp);
		/* Deterministic: the same views, the same bytes. */
		spect_shared(&v0, &v1, &again);
		cr_assert(memcmp(&sv, &again, sizeof sv) == 0);
	}
}

Test(spect, a_players_view_in_player_0s_frame)
{
	static struct view v0, v1;
	static struct spect_view sv;

	setup(7, &v0, &v1);
	spect_of_player(&v1, 1, &sv);
	cr_assert_eq(sv.kind, SPECT_KIND_PLAYER1);
	/* Wizard 1 is player 1 itself, seen; wizard 0 where player 1 knows it. */
	cr_assert_eq(sv.v.opp_state, OPP_VISIBLE);
	cr_assert(sv.v.opp_x == v1.x && sv.v.opp_y == v1.y);
	cr_assert_eq(sv.me_state, v1.opp_state);
	cr_assert_eq(sv.v.hp, v1.opp_hp);
	cr_assert_eq(sv.v.opp_hp, v1.hp);
	cr_assert_eq(sv.v.ninv, 0, "the inventory stays private even in a delayed view");
	cr_assert(memcmp(sv.v.cell, v1.cell, sizeof sv.v.cell) == 0);
}

Test(spect, everything_is_the_whole_level)
{
	static struct view v0, v1;
	static struct spect_view sv;

	setup(9, &v0, &v1);
	spect_all(&g, &sv);
	cr_assert_eq(sv.kind, SPECT_KIND_ALL);
	for (int y = 0; y < g.level.size; y++)
		for (int x = 0; x < g.level.size; x++)
			cr_assert(sv.v.cell[y][x] & VCELL_VISIBLE);
	cr_assert(sv.v.x == g.wiz[0].x && sv.v.y == g.wiz[0].y && sv.v.opp_x == g.wiz[1].x && sv.v.opp_y == g.wiz[1].y);
}
