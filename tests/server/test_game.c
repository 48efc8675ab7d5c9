/* SPDX-License-Identifier: MIT */
/* server/game: whole duels between headless network bots over loopback: lobby, play, end, verification, rematch. */
#include <stdio.h>
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
	/* Its mind was told the messages and shown the effects of random's spells, as a person is. */
	cr_expect_gt(w.a.told, 0);
	cr_expect_gt(w.a.shown, 0, "random cast nothing master saw in a whole duel");
	cr_expect_gt(w.a.watched, 0, "random never stood in master's sight in its turn");
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

/* `bot --mirror` against another: each level twice, once from each seat, then a new one (a mirror
 * after a mirror would deal the same level for ever). */
Test(game, mirror_bots_play_each_level_from_both_seats)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	struct two w;

	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 5, 4);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 6, 4);
	ca.mirror = cb.mirror = true;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 120000, both_closed, &w);
	cr_assert_eq(w.a.games, 4, "alice played %d duels (%s)", w.a.games, w.a.last_why);
	cr_assert_eq(w.a.verified, 4, "%s", w.a.last_why);
	cr_assert_eq(w.b.verified, 4, "%s", w.b.last_why);
	cr_expect_eq(w.a.seed[1], w.a.seed[0], "duel 2 is not duel 1's mirror");
	cr_expect_eq(w.a.player[1], 1 - w.a.player[0], "alice kept her seat in the mirror");
	cr_expect_neq(w.a.seed[2], w.a.seed[1], "duel 3 mirrored a mirror: the same level a third time");
	cr_expect_eq(w.a.player[2], w.a.player[1], "a plain rematch moved alice");
	cr_expect_eq(w.a.seed[3], w.a.seed[2], "duel 4 is not duel 3's mirror");
	cr_expect_eq(w.a.player[3], 1 - w.a.player[2]);
	cr_expect(strstr(w.a.last_why, "(a mirror rematch)"), "%s", w.a.last_why);
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

/* Issue 14: what one command sends a connection (its UPDATE; at the end END, the log, LOBBY)
 * goes out as one record in one write. The tap sees every write; a prepare handle counts the
 * loop's turns, so that the writes of the turn in which a command was applied are that
 * command's (nothing else runs in that callback). */
struct writes {
	uv_prepare_t turns;
	uint64_t turn, applied_turn;
	int cmd, ncmds;
	int last_cmd[PLAYERS], last_count[PLAYERS];
	int worst, worst_cmd, multi_record, final_writes[PLAYERS];
	bool ended;
	struct two w;
};

static void
on_turn(uv_prepare_t *p)
{
	((struct writes *)p->data)->turn++;
}

static void
w_applied(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev)
{
	struct writes *s = ud;

	(void)r;
	(void)p;
	(void)c;
	(void)ev;
	s->applied_turn = s->turn;
	s->cmd = ++s->ncmds;
}

static void
w_ended(void *ud, struct gameroom *r)
{
	(void)r;
	((struct writes *)ud)->ended = true;
}

static void
w_tap(void *ud, const struct conn *c, int seat, const uint8_t *bytes, size_t n)
{
	struct writes *s = ud;

	(void)c;
	if (seat < 0 || s->turn != s->applied_turn || s->cmd == 0)
		return;
	int k = s->last_cmd[seat] == s->cmd ? ++s->last_count[seat] : (s->last_count[seat] = 1);
	s->last_cmd[seat] = s->cmd;
	if (s->ended) {
		s->final_writes[seat] = k; /* the end's burst: the log may need more than one record */
		return;
	}
	if (k > s->worst) {
		s->worst = k;
		s->worst_cmd = s->cmd;
	}
	/* One record: its 2-byte length is the rest of the write. */
	if (n < 2 || (size_t)((bytes[0] << 8) | bytes[1]) + 2 != n)
		s->multi_record++;
}

static bool
w_closed(void *ud)
{
	struct writes *s = ud;
	return s->w.a.closed && s->w.b.closed;
}

Test(game, one_write_and_one_record_per_connection_per_command)
{
	static struct writes s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&s, 0, sizeof s);
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 44;
	c.hooks.ud = &s;
	c.hooks.tap = w_tap;
	c.hooks.applied = w_applied;
	c.hooks.ended = w_ended;
	th_server(&t, &c);
	uv_prepare_init(&t.loop, &s.turns);
	s.turns.data = &s;
	uv_prepare_start(&s.turns, on_turn);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 2, 1);
	th_bot(&t, &s.w.a, &ca);
	th_bot(&t, &s.w.b, &cb);
	th_run(&t, 60000, w_closed, &s);
	uv_close((uv_handle_t *)&s.turns, NULL);
	cr_assert_eq(s.w.a.verified, 1, "%s", s.w.a.last_why);
	cr_assert_eq(s.w.b.verified, 1, "%s", s.w.b.last_why);
	cr_assert(s.ended);
	cr_expect_gt(s.ncmds, 20);
	cr_expect_eq(s.worst, 1, "command %d went to one connection in %d writes", s.worst_cmd, s.worst);
	cr_expect_eq(s.multi_record, 0, "%d writes of a command held more than one record", s.multi_record);
	/* END, the log (about 10 lines a turn: well under one record's 16 KiB here) and LOBBY. */
	for (int p = 0; p < PLAYERS; p++)
		cr_expect_eq(s.final_writes[p], 1, "the end went to seat %d in %d writes", p, s.final_writes[p]);
	th_finish(&t);
}

struct crowd {
	struct netbot bot[8];
	int n;
};

static bool
crowd_closed(void *ud)
{
	struct crowd *w = ud;
	for (int i = 0; i < w->n; i++)
		if (!w->bot[i].closed)
			return false;
	return true;
}

/* Four rooms playing at once on one server: each room's game is kept packed and unpacked
 * into the server's one scratch game for a command, so the rooms' commands, arriving
 * interleaved, take turns in it. Each duel must still be its own: every player verifies its
 * END (the log replayed, its views found in the replay's, the hash matched). */
Test(game, rooms_playing_at_once_each_keep_their_game)
{
	static const char *const rooms[] = { "pack-a", "pack-b", "pack-c", "pack-d" };
	static char names[8][16];
	struct th t;
	struct server_config c;
	struct netbot_config bc[8];
	static struct crowd w;

	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	w.n = 8;
	for (int i = 0; i < w.n; i++) {
		snprintf(names[i], sizeof names[i], "p%d", i);
		th_bot_config(&t, &bc[i], names[i], i % 2 ? BOT_HARD : BOT_NORMAL, 10 + (uint64_t)i, 2);
		bc[i].net.room = rooms[i / 2];
		th_bot(&t, &w.bot[i], &bc[i]);
	}
	th_run(&t, 120000, crowd_closed, &w);
	for (int i = 0; i < w.n; i++) {
		cr_expect_eq(w.bot[i].games, 2, "%s played %d duels (%s)", names[i], w.bot[i].games, w.bot[i].last_why);
		cr_expect_eq(w.bot[i].verified, 2, "%s verified %d: %s", names[i], w.bot[i].verified, w.bot[i].last_why);
		cr_expect_eq(w.bot[i].errors, 0, "%s: %s", names[i], w.bot[i].last_why);
	}
	th_finish(&t);
}
