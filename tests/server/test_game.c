/* SPDX-License-Identifier: MIT */
/* server/game: whole duels between headless network bots over loopback: lobby, play, end, verification, rematch. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct two {
	struct netbot a, b;
};

static bool
both_closed(void *ud)
{
	struct two *w = ud;
	return w->a.closed && w->b.closed;
}

Test(game, whole_duels_verified)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	struct two w;

	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 42;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 3);
	th_bot_config(&t, &cb, "bob", BOT_HARD, 2, 3);
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_expect_eq(w.a.games, 3, "alice played %d duels (%s)", w.a.games, w.a.last_why);
	cr_expect_eq(w.b.games, 3, "bob played %d duels (%s)", w.b.games, w.b.last_why);
	cr_expect_eq(w.a.verified, 3, "alice verified %d: %s", w.a.verified, w.a.last_why);
	cr_expect_eq(w.b.verified, 3, "bob verified %d: %s", w.b.verified, w.b.last_why);
	cr_expect_eq(w.a.wins + w.a.draws, w.b.losses + w.b.draws);
	cr_expect_eq(w.a.errors, 0);
	cr_expect_eq(w.b.errors, 0);
	th_finish(&t);
}

/* The master bot plays through the protocol like any other: it searches on the view the
 * server sends it (decoded, rebuilt from updates), never on a game. A 15x15 duel against
 * random, verified at the end. */
Test(game, master_plays_over_the_network)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	struct two w;

	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 43;
	c.opt.size = 15;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "magister", BOT_MASTER, 1, 1);
	th_bot_config(&t, &cb, "rando", BOT_RANDOM, 2, 1);
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 120000, both_closed, &w);
	cr_expect_eq(w.a.games, 1, "master played %d duels (%s)", w.a.games, w.a.last_why);
	cr_expect_eq(w.a.verified, 1, "master verified %d: %s", w.a.verified, w.a.last_why);
	cr_expect_eq(w.b.verified, 1, "random verified %d: %s", w.b.verified, w.b.last_why);
	cr_expect_eq(w.a.wins, 1, "master lost to random");
	cr_expect_eq(w.a.errors, 0);
	th_finish(&t);
}

/* A mirror rematch: both ask for one, and the second duel is the first's seed with the seats swapped. */
Test(game, mirror_rematch_swaps_seats_on_the_same_seed)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	struct two w;

	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "bob", BOT_HARD, 2, 2);
	ca.mirror = cb.mirror = true;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_assert_eq(w.a.games, 2, "alice played %d duels (%s)", w.a.games, w.a.last_why);
	cr_assert_eq(w.a.verified, 2, "the mirror duel verified too: %s", w.a.last_why);
	cr_expect(strstr(w.a.last_why, "the last duel's seed again (a mirror rematch)"), "%s", w.a.last_why);
	cr_assert_eq(w.a.seed[0], w.a.seed[1], "the same level");
	cr_assert_eq(w.a.player[1], 1 - w.a.player[0], "alice took the other seat");
	cr_assert_eq(w.b.player[1], 1 - w.b.player[0], "bob took the other seat");
	cr_assert_eq(w.b.seed[1], w.a.seed[1]);
	th_finish(&t);
}

/* One mirror and one plain rematch: a plain one, on a new seed, nobody moved. */
Test(game, mirror_needs_both)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	struct two w;

	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "bob", BOT_HARD, 2, 2);
	ca.mirror = true;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_assert_eq(w.a.games, 2, "alice played %d duels (%s)", w.a.games, w.a.last_why);
	cr_assert_neq(w.a.seed[0], w.a.seed[1], "a new level");
	cr_assert_eq(w.a.player[1], w.a.player[0], "nobody moved");
	th_finish(&t);
}
