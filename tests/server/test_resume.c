/* SPDX-License-Identifier: MIT */
/* server/resume: a dropped player comes back with its token and loses nothing; one who does not, forfeits;
 * a host killed mid-duel comes back from its turn log and both players reconnect into the same duel. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "logtree.h"

struct scene {
	struct th *t;
	struct netbot a, b;
	int drop_after;         /* updates seen by a before its connection is cut */
	int updates_a;
	bool dropped;
	int peer_dropped, peer_back, peer_gone;   /* as b saw them */
	int resumed_starts;
	int resumed_chosen;     /* resumed STARTs that said the host chose the seed */
	uint32_t turn_at_drop, turn_after;
	uv_timer_t kill;
	/* host restart */
	char dir[256], copy[300];
	int applied;
	int kill_after;
	bool killed, restarted;
	int port;
};

static void
cut_a(struct scene *s)
{
	struct gameroom *r = server_room(s->t->srv, NULL);
	struct conn *c = r->seat[s->a.net ? net_player(s->a.net) : 0].conn;

	s->dropped = true;
	s->turn_at_drop = room_game(r)->turn_no;
	if (c)
		conn__close_now(c); /* as if the network failed: no BYE, no ERROR */
}

static void
a_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct scene *s = ud;

	(void)b;
	/* A drop in mid-duel: not on the update that ended it (the server is in the lobby
	 * by then, where a lost connection frees the seat); then on the next duel's. */
	if (m->type == WIRE_UPDATE && s->drop_after > 0 && ++s->updates_a >= s->drop_after && !s->dropped && s->t->srv &&
	    room_playing(server_room(s->t->srv, NULL)) && room_game(server_room(s->t->srv, NULL))->result == RESULT_NONE)
		cut_a(s);
	if (m->type == WIRE_START && m->u.start.resumed) {
		s->resumed_starts++;
		s->resumed_chosen += m->u.start.chosen;
	}
}

static void
b_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct scene *s = ud;

	(void)b;
	if (m->type != WIRE_PEER)
		return;
	s->peer_dropped += m->u.peer.state == PEER_DROPPED;
	s->peer_back += m->u.peer.state == PEER_BACK;
	s->peer_gone += m->u.peer.state == PEER_GONE;
}

static bool
closed_b(void *ud)
{
	struct scene *s = ud;
	return s->b.games > 0;
}

static bool
both_closed(void *ud)
{
	struct scene *s = ud;
	return s->a.closed && s->b.closed;
}

Test(resume, drop_and_come_back)
{
	static struct scene s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&s, 0, sizeof s);
	s.t = &t;
	s.drop_after = 40;
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "flaky", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "steady", BOT_NORMAL, 2, 2);
	ca.ud = cb.ud = &s;
	ca.on_msg = a_msg;
	cb.on_msg = b_msg;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, both_closed, &s);
	cr_assert(s.dropped, "the duel ended before the drop");
	cr_expect_eq(s.resumed_starts, 1);
	cr_expect_eq(s.peer_dropped, 1);
	cr_expect_eq(s.peer_back, 1);
	cr_expect_eq(s.a.games, 2, "%s", s.a.last_why);
	/* The replayed log contains every view each was shown, before and after the drop. */
	cr_expect_eq(s.a.verified, 2, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 2, "%s", s.b.last_why);
	/* The client that came back still checked that its own part made the seed. */
	cr_expect(strstr(s.a.last_why, "seed made with your part and the other player's"), "%s", s.a.last_why);
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	cr_expect_eq(s.b.errors, 0, "%s", s.b.last_why);
	th_finish(&t);
}

/* A reload changes the password (server_set_password_key, what SIGHUP does) in mid-duel: the player
 * who drops right after comes back to its seat with the password it joined with, and the duel goes on;
 * a new join needs the new one. */
static void
a_msg_rekey(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct scene *s = ud;
	bool was = s->dropped;

	a_msg(ud, b, m);
	if (s->dropped && !was) {
		struct auth_key k;
		cr_assert_eq(auth_key_derive(&k, "the new one", server_password_salt(s->t->srv)), 0);
		cr_expect(server_set_password_key(s->t->srv, &k), "the new key is taken as a change");
		cr_expect_not(server_set_password_key(s->t->srv, &k), "the same key again is no change");
		auth_key_wipe(&k);
	}
}

static bool
late_closed(void *ud)
{
	return ((struct netbot *)ud)->closed;
}

Test(resume, a_reloaded_password_keeps_the_duels_players)
{
	static struct scene s;
	static struct netbot late;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb, cl;

	memset(&s, 0, sizeof s);
	s.t = &t;
	/* One duel only, its seed partly random (the server's part): a drop at the 40th update could come
	 * after a short duel's end, and the test had nothing to test. The second update is mid-duel in any. */
	s.drop_after = 2;
	th_init(&t);
	th_config(&c);
	c.password = "the old one";
	th_server(&t, &c);
	th_bot_config(&t, &ca, "flaky", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "steady", BOT_NORMAL, 2, 1);
	ca.net.password = cb.net.password = "the old one";
	ca.ud = cb.ud = &s;
	ca.on_msg = a_msg_rekey;
	cb.on_msg = b_msg;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, both_closed, &s);
	cr_assert(s.dropped, "the duel ended before the drop");
	cr_expect_eq(s.resumed_starts, 1, "the dropped player did not come back: %s", s.a.last_why);
	cr_expect_eq(s.peer_back, 1);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 1, "%s", s.b.last_why);
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	/* A new player with the old password is refused now. */
	th_bot_config(&t, &cl, "late", BOT_NORMAL, 3, 1);
	cl.net.password = "the old one";
	th_bot(&t, &late, &cl);
	th_run(&t, 20000, late_closed, &late);
	cr_expect(strstr(late.last_why, "password") != NULL, "%s", late.last_why);
	cr_expect_eq(late.games, 0);
	th_finish(&t);
}

Test(resume, no_return_is_a_forfeit)
{
	static struct scene s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&s, 0, sizeof s);
	s.t = &t;
	s.drop_after = 10;
	th_init(&t);
	th_config(&c);
	c.lim.grace_ms = 400;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "gone", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "stays", BOT_NORMAL, 2, 2);
	ca.net.reconnect_ms = 600000; /* it will not try again in time */
	ca.ud = cb.ud = &s;
	ca.on_msg = a_msg;
	cb.on_msg = b_msg;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 30000, closed_b, &s);
	cr_assert(s.dropped);
	cr_expect_eq(s.peer_dropped, 1);
	cr_expect_eq(s.peer_gone, 1);
	cr_expect_eq(s.b.wins, 1, "the one who stayed must win by forfeit");
	cr_expect_eq(s.b.verified, 1, "%s", s.b.last_why);
	netbot_stop(&s.a);
	netbot_stop(&s.b);
	th_run(&t, 5000, both_closed, &s);
	th_finish(&t);
}

/* A duel that ends while a player is away: its seat and token are held through the end until
 * its grace runs out; on its return it gets the final snapshot, END and the log (and
 * verifies the host), then the lobby. */
struct away {
	struct th *t;
	const char *room;        /* NULL: one-room mode */
	struct netbot a, b;
	int cut_after;           /* updates a sees before its connection is cut */
	int updates_a;
	bool cut, resigned, ended_away;
	int me;                  /* a's player index */
	bool back, recorded;
	int seq[64], nseq;       /* message types a got from its WELCOME after the cut to the next LOBBY */
	bool start_resumed, start_result;
	struct wire_end end_a;   /* the END a got after the cut */
	int peer_dropped, peer_back, peer_gone; /* as b saw them */
	int rooms_after_b;       /* rooms left when b had gone */
};

static struct gameroom *
away_room(struct away *s)
{
	return server_room(s->t->srv, s->room);
}

static void
away_a_msg(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	struct away *s = ud;

	(void)bot;
	if (s->cut) {
		/* What was already on its way before the cut still arrives: start at WELCOME. */
		s->back = s->back || m->type == WIRE_WELCOME;
		if (!s->back || s->recorded)
			return;
		if (s->nseq < 64)
			s->seq[s->nseq++] = m->type;
		s->recorded = m->type == WIRE_LOBBY;
		if (m->type == WIRE_START) {
			s->start_resumed = m->u.start.resumed;
			/* The snapshot is applied after this tap: look at the server's own game. */
			s->start_result = room_game(away_room(s))->result != RESULT_NONE;
		}
		if (m->type == WIRE_END)
			s->end_a = m->u.end;
		return;
	}
	if (m->type == WIRE_UPDATE && ++s->updates_a >= s->cut_after && room_playing(away_room(s)) &&
	    room_game(away_room(s))->result == RESULT_NONE) {
		struct gameroom *r = away_room(s);
		struct conn *c = r->seat[net_player(s->a.net)].conn;
		s->me = net_player(s->a.net);
		s->cut = true;
		cr_assert_not_null(c);
		conn__close_now(c); /* the network fails: no BYE */
	}
}

static void
away_b_msg(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	struct away *s = ud;

	if (m->type != WIRE_PEER)
		return;
	s->peer_dropped += m->u.peer.state == PEER_DROPPED;
	s->peer_back += m->u.peer.state == PEER_BACK;
	s->peer_gone += m->u.peer.state == PEER_GONE;
	if (m->u.peer.state == PEER_DROPPED && !s->resigned) {
		/* The duel ends while the other is away. */
		struct cmd resign = { CMD_RESIGN, 0, 0 };
		s->resigned = true;
		cr_assert_eq(net_cmd(bot->net, &resign), 0);
	}
}

static void
away_ended(void *ud, struct gameroom *r)
{
	struct away *s = ud;

	if (s->cut && r->games == 1) {
		int p = s->me;
		s->ended_away = r->seat[p].conn == NULL && r->seat[p].taken && r->seat[p].end_pending;
	}
}

static bool
away_both_closed(void *ud)
{
	struct away *s = ud;
	return s->a.closed && s->b.closed;
}

static void
away_setup(struct away *s, struct th *t, struct server_config *c, struct netbot_config *ca,
           struct netbot_config *cb)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->cut_after = 12;
	th_init(t);
	th_config(c);
	c->hooks.ud = s;
	c->hooks.ended = away_ended;
}

Test(resume, away_when_the_duel_ends)
{
	static struct away s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	away_setup(&s, &t, &c, &ca, &cb);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "away", BOT_NORMAL, 3, 2);
	th_bot_config(&t, &cb, "quitter", BOT_NORMAL, 4, 2);
	ca.net.reconnect_ms = 400; /* back well after the other has resigned */
	ca.ud = cb.ud = &s;
	ca.on_msg = away_a_msg;
	cb.on_msg = away_b_msg;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, away_both_closed, &s);
	cr_assert(s.cut && s.resigned, "the duel ended before the cut");
	cr_assert(s.ended_away, "the first duel did not end while the player was away, seat held");
	/* Back after the end: WELCOME, the final snapshot, END and its log, then the lobby. */
	cr_assert_geq(s.nseq, 5, "only %d messages after the cut", s.nseq);
	cr_expect_eq(s.seq[0], WIRE_WELCOME);
	cr_expect_eq(s.seq[1], WIRE_START);
	cr_expect(s.start_resumed && s.start_result, "START is not the resumed final snapshot");
	cr_expect_eq(s.seq[2], WIRE_END);
	int i = 3;
	while (i < s.nseq && s.seq[i] == WIRE_LOG_CHUNK)
		i++;
	cr_expect_gt(i, 3, "no LOG_CHUNK after END");
	cr_expect(i < s.nseq && s.seq[i] == WIRE_LOBBY && i + 1 == s.nseq, "no LOBBY after the log");
	cr_expect_eq(s.end_a.result, s.me == 0 ? RESULT_WIN0 : RESULT_WIN1, "END does not say the away player won");
	cr_expect_eq(s.end_a.reason, END_RESIGNED);
	cr_expect_gt(s.end_a.log_len, 0);
	cr_expect_eq(s.peer_dropped, 1);
	cr_expect_eq(s.peer_back, 1, "the other player was not told it came back");
	cr_expect_eq(s.peer_gone, 0);
	/* It verified the host from the END it got late, and both played a second duel. */
	cr_expect_eq(s.a.games, 2, "%s", s.a.last_why);
	cr_expect_geq(s.a.wins, 1);
	cr_expect_eq(s.a.verified, 2, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 2, "%s", s.b.last_why);
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	/* b may have had a command on its way when it resigned (answered with a non-fatal
	 * STATE error), so only its games are counted. */
	cr_expect_eq(s.b.games, 2, "%s", s.b.last_why);
	th_finish(&t);
}

static bool
away_b_closed(void *ud)
{
	struct away *s = ud;
	if (s->b.closed && s->rooms_after_b < 0)
		s->rooms_after_b = (int)server_room_count(s->t->srv);
	return s->b.closed;
}

static bool
no_rooms(void *ud)
{
	struct away *s = ud;
	return server_room_count(s->t->srv) == 0;
}

Test(resume, away_at_the_end_and_never_back)
{
	static struct away s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	away_setup(&s, &t, &c, &ca, &cb);
	s.room = "held";
	s.rooms_after_b = -1;
	c.multi = true;
	c.lim.grace_ms = 1000;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "away", BOT_NORMAL, 5, 1);
	th_bot_config(&t, &cb, "quitter", BOT_NORMAL, 6, 1);
	ca.net.room = cb.net.room = s.room;
	ca.net.reconnect_ms = 600000; /* it will not try again in time */
	ca.ud = cb.ud = &s;
	ca.on_msg = away_a_msg;
	cb.on_msg = away_b_msg;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 30000, away_b_closed, &s);
	cr_assert(s.cut && s.resigned && s.ended_away);
	uint64_t t0 = uv_now(&t.loop);
	/* The other player has left; the away player's seat keeps the room. */
	cr_expect_eq(s.rooms_after_b, 1, "the held seat did not keep the room");
	struct gameroom *r = away_room(&s);
	cr_assert_not_null(r);
	cr_expect_not_null(r->end_log, "the log for the away player's END was not kept");
	/* Its grace runs out: the seat is freed and the empty room goes. */
	th_run(&t, 5000, no_rooms, &s);
	cr_expect_leq(uv_now(&t.loop) - t0, 1500);
	netbot_stop(&s.a);
	th_run(&t, 5000, away_both_closed, &s);
	th_finish(&t);
}

/* Host restart: the log on disk is copied as a killed host would leave it, the server is
 * closed, and a new one resumes from the copy on the same port. */
static void
copy_log(struct scene *s, size_t cut)
{
	struct gameroom *r = server_room(s->t->srv, NULL);
	FILE *in = fopen(r->log.path, "rb"), *out = fopen(s->copy, "wb");
	static uint8_t buf[1 << 20];
	size_t n;

	cr_assert(in && out);
	n = fread(buf, 1, sizeof buf, in);
	cr_assert_gt(n, cut + 20);
	fwrite(buf, 1, n - cut, out);
	fclose(in);
	fclose(out);
}

static void
restart(uv_timer_t *tm)
{
	struct scene *s = tm->data;
	struct server_config c;
	char why[300];

	th_config(&c);
	c.port = s->port;
	c.log_dir = s->dir;
	cr_assert_eq(server_create(&s->t->loop, &c, &s->t->srv, why, sizeof why), 0, "%s", why);
	cr_assert_eq(server_resume_log(s->t->srv, s->copy, why, sizeof why), 0, "%s", why);
	s->restarted = true;
	uv_close((uv_handle_t *)tm, NULL);
}

static void
kill_applied(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev)
{
	struct scene *s = ud;

	(void)r;
	(void)p;
	(void)c;
	(void)ev;
	if (s->killed || ++s->applied < s->kill_after)
		return;
	s->killed = true;
	s->turn_at_drop = room_game(r)->turn_no;
	/* What is on disk now is what a kill -9 leaves; cut a few bytes too, as a torn write. */
	copy_log(s, (size_t)s->kill_after % 5);
	s->port = s->t->port;
	server_close(s->t->srv, NULL, NULL);
	s->t->srv = NULL;
	uv_timer_init(&s->t->loop, &s->kill);
	s->kill.data = s;
	uv_timer_start(&s->kill, restart, 300, 0);
}

static void
rm_dir(const char *dir)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* One duel killed after its kill_after-th command; false if it ended before that. */
static bool
host_duel(struct scene *s, struct th *t, int kill_after, bool chosen, int attempt)
{
	struct server_config c;
	struct netbot_config ca, cb;

	memset(s, 0, sizeof *s);
	s->t = t;
	s->kill_after = kill_after;
	snprintf(s->dir, sizeof s->dir, "/tmp/wizwar-test-resume-%d-%d-%d", (int)getpid(), kill_after, attempt);
	cr_assert_eq(mkdir(s->dir, 0700), 0);
	snprintf(s->copy, sizeof s->copy, "%s/killed.log", s->dir); /* plain, as a duel being played is */
	th_init(t);
	th_config(&c);
	c.log_dir = s->dir;
	c.hooks.ud = s;
	c.hooks.applied = kill_applied;
	c.seed_fixed = chosen;
	c.seed = 99;
	th_server(t, &c);
	th_bot_config(t, &ca, "p0", BOT_HARD, 11 + 100 * (uint64_t)attempt, 1);
	th_bot_config(t, &cb, "p1", BOT_NORMAL, 12 + 100 * (uint64_t)attempt, 1);
	ca.ud = cb.ud = s;
	ca.on_msg = a_msg;
	cb.on_msg = b_msg;
	th_bot(t, &s->a, &ca);
	th_bot(t, &s->b, &cb);
	th_run(t, 60000, both_closed, s);
	if (s->killed)
		return true;
	th_finish(t);
	rm_dir(s->dir);
	return false;
}

static void
host_restart(int kill_after, bool chosen)
{
	static struct scene s;
	struct th t;
	int attempt = 0;

	/* The level's seed has the server's random part, so a duel may end before its kill_after-th
	 * command (about 1 in 50 for the late kill, HARD against NORMAL): such a duel has no late point
	 * to kill it at, and another is played, with other bots' seeds. Four short in a row is a failure. */
	while (!host_duel(&s, &t, kill_after, chosen, attempt))
		cr_assert_lt(++attempt, 4, "%d duels in a row ended before command %d", attempt, kill_after);
	cr_assert(s.killed && s.restarted, "the killed host did not restart");
	cr_expect_eq(s.resumed_starts, 1);
	cr_expect_eq(s.a.games, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.games, 1, "%s", s.b.last_why);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 1, "%s", s.b.last_why);
	/* A host resumed from its log still tells how the seed was made, at the start and at the end:
	 * the players' parts (kept in its log) went in, or the host chose the seed. */
	cr_expect_eq(s.resumed_chosen, chosen ? 1 : 0, "the resumed START says whether the host chose the seed");
	for (int i = 0; i < 2; i++) {
		const char *why = i ? s.b.last_why : s.a.last_why;
		cr_expect(strstr(why, chosen ? "the host chose this level" : "seed made with your part and the other player's"),
		          "%s", why);
	}
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	cr_expect_eq(s.b.errors, 0, "%s", s.b.last_why);
	th_finish(&t);
	/* The continued log is a whole duel that replays exactly, compressed once at its end into
	 * the day's folder of the log tree (the day it ended: now, or just before midnight). */
	struct tlog_resume *lr = calloc(1, sizeof *lr);
	char why[300], done[600];
	cr_expect_eq(access(s.copy, F_OK), -1, "the plain log is left after the end");
	for (int back = 0; back < 2; back++)
		if (logtree_done_path(done, sizeof done, s.dir, time(NULL) - back * 600, s.copy) && access(done, F_OK) == 0)
			break;
	int rc = tlog_load(done, lr, why, sizeof why);
	cr_expect_eq(rc, 0, "%s", why);
	cr_expect(lr->ended, "the resumed log has no end line");
	tlog_resume_free(lr);
	free(lr);
	rm_dir(s.dir);
}

Test(resume, host_restart_from_log_early)
{
	host_restart(7, false);
}

Test(resume, host_restart_from_log_late)
{
	host_restart(45, false);
}

/* host --seed, then a killed host resumed from its log: START still says the host chose the seed. */
Test(resume, host_restart_keeps_the_chosen_seed_said)
{
	host_restart(20, true);
}

/* A kill that lands just as END goes out (issue 10): the joiner dies in the very callback that
 * sent END (the server's `ended` hook: END and the log are written to its socket, unread), without
 * BYE. Its seat is held for the END, and the same seat file run again gets that END, the log and
 * the final view, checks the host, and leaves; the file goes only then. A variant: killed after it
 * read END, it is held the same; not back in time, the seat goes and a rerun joins afresh; a BYE
 * after the duel holds nothing. */
struct endkill {
	struct th *t;
	const char *room;
	struct netbot a, a2, b;
	char seat_file[256];
	int me;                  /* a's player index */
	bool killed;
	int a_ends;              /* ENDs a got in its callback */
	int seq[64], nseq;       /* message types a2 got, from WELCOME to the first LOBBY */
	bool seq_done, start_resumed, start_final;
	struct wire_end end_a2, end_b;
	int ends_b;
	int peer_dropped, peer_back, peer_gone; /* as b saw them */
	unsigned dropped_secs;
	uint64_t dropped_at, gone_at;
	bool kill_after_end;     /* the variant: a is killed in its own END callback instead */
};

static struct gameroom *
ek_room(struct endkill *s)
{
	return s->t->srv ? server_room(s->t->srv, s->room) : NULL;
}

static void
ek_ended(void *ud, struct gameroom *r)
{
	struct endkill *s = ud;

	if (s->kill_after_end || s->killed || r->games != 1 || s->a.net == NULL)
		return;
	/* END has just been sent to both; the joiner's process dies before it reads a byte of it. */
	s->me = net_player(s->a.net);
	s->killed = true;
	netbot_abandon(&s->a);
}

static void
ek_a_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct endkill *s = ud;

	(void)e;
	(void)verified;
	(void)why;
	s->a_ends++;
	if (s->kill_after_end && !s->killed) {
		/* It has its END (and has checked the host); it dies before it says anything. */
		s->me = net_player(b->net);
		s->killed = true;
		netbot_abandon(b);
	}
}

static void
ek_a2_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct endkill *s = ud;

	(void)b;
	if (s->seq_done || (s->nseq == 0 && m->type != WIRE_WELCOME)) /* after the handshake */
		return;
	if (s->nseq < 64)
		s->seq[s->nseq++] = m->type;
	if (m->type == WIRE_START) {
		s->start_resumed = m->u.start.resumed;
		s->start_final = room_game(ek_room(s))->result != RESULT_NONE && !room_playing(ek_room(s));
	}
	if (m->type == WIRE_END)
		s->end_a2 = m->u.end;
	s->seq_done = m->type == WIRE_LOBBY;
}

static void
ek_b_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct endkill *s = ud;

	(void)b;
	if (m->type == WIRE_END && s->ends_b++ == 0)
		s->end_b = m->u.end;
	if (m->type != WIRE_PEER)
		return;
	if (m->u.peer.state == PEER_DROPPED) {
		s->peer_dropped++;
		s->dropped_secs = m->u.peer.seconds;
		s->dropped_at = uv_now(&s->t->loop);
	}
	s->peer_back += m->u.peer.state == PEER_BACK;
	if (m->u.peer.state == PEER_GONE) {
		s->peer_gone++;
		s->gone_at = uv_now(&s->t->loop);
	}
}

static bool
ek_held(void *ud)
{
	struct endkill *s = ud;
	struct gameroom *r = ek_room(s);

	return s->killed && s->a.closed && r && r->seat[s->me].taken && !r->seat[s->me].conn && r->seat[s->me].end_pending;
}

static bool
ek_gone(void *ud)
{
	return ((struct endkill *)ud)->peer_gone > 0;
}

static bool
ek_a2_closed(void *ud)
{
	return ((struct endkill *)ud)->a2.closed;
}

static bool
ek_b_closed(void *ud)
{
	return ((struct endkill *)ud)->b.closed;
}

static void
ek_setup(struct endkill *s, struct th *t, struct server_config *c, struct netbot_config *ca, struct netbot_config *cb,
         unsigned hold_ms)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->room = "endkill";
	snprintf(s->seat_file, sizeof s->seat_file, "/tmp/wizwar-test-endkill-%d", (int)getpid());
	unlink(s->seat_file);
	th_init(t);
	th_config(c);
	c->multi = true;
	c->hooks.ud = s;
	c->hooks.ended = ek_ended;
	if (hold_ms)
		c->lim.lobby_hold_ms = hold_ms;
	th_server(t, c);
	th_bot_config(t, ca, "joiner", BOT_NORMAL, 21, 1);
	th_bot_config(t, cb, "stays", BOT_NORMAL, 22, 0);
	ca->net.room = cb->net.room = s->room;
	ca->net.seat_file = s->seat_file;
	ca->ud = cb->ud = s;
	ca->on_end = ek_a_end;
	cb->on_msg = ek_b_msg;
}

Test(resume, killed_as_end_goes_out)
{
	static struct endkill s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	ek_setup(&s, &t, &c, &ca, &cb, 0);
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, ek_held, &s);
	cr_assert_eq(s.a_ends, 0, "the killed joiner read its END after all");
	cr_expect_eq(access(s.seat_file, F_OK), 0, "the seat file went with the kill");
	cr_expect_eq(s.peer_dropped, 1, "the other player was not told of the drop");
	cr_expect_eq(s.dropped_secs, 30, "held %u s, not the 30 s end hold", s.dropped_secs);
	/* The same command again: the seat file, a RESUME, and the END it missed. */
	ca.on_end = NULL;
	ca.on_msg = ek_a2_msg;
	th_bot(&t, &s.a2, &ca);
	th_run(&t, 30000, ek_a2_closed, &s);
	/* (It leaves as soon as it has checked the log: what follows, LOBBY, may go unread.) */
	cr_assert_geq(s.nseq, 4, "only %d messages on resume", s.nseq);
	cr_expect_eq(s.seq[0], WIRE_WELCOME);
	cr_expect_eq(s.seq[1], WIRE_START);
	cr_expect(s.start_resumed && s.start_final, "START is not the resumed final snapshot");
	cr_expect_eq(s.seq[2], WIRE_END);
	int i = 3;
	while (i < s.nseq && s.seq[i] == WIRE_LOG_CHUNK)
		i++;
	cr_expect_gt(i, 3, "no LOG_CHUNK after END");
	cr_expect(i == s.nseq || s.seq[i] == WIRE_LOBBY, "not LOBBY after the log");
	cr_expect_eq(s.end_a2.result, s.end_b.result, "the END on resume is not the duel's");
	cr_expect_eq(s.end_a2.hash, s.end_b.hash);
	cr_expect_eq(s.end_a2.seed, s.end_b.seed);
	cr_expect_eq(s.a2.games, 1, "%s", s.a2.last_why);
	cr_expect_eq(s.a2.verified, 1, "the rerun did not check the host: %s", s.a2.last_why);
	cr_expect_eq(s.a2.errors, 0, "%s", s.a2.last_why);
	cr_expect_eq(s.peer_back, 1, "the other player was not told it came back");
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived the END and the leaving");
	/* It left with BYE: the seat is free at once, nothing held. */
	th_run(&t, 5000, ek_gone, &s); /* the close reaches the server */
	cr_expect_eq(s.peer_dropped, 1, "a BYE after the duel was taken for a drop");
	cr_expect(!ek_room(&s)->seat[s.me].taken, "the seat is held after a BYE");
	netbot_stop(&s.b);
	th_run(&t, 5000, ek_b_closed, &s);
	th_finish(&t);
	unlink(s.seat_file);
}

Test(resume, killed_after_end_and_not_back_in_time)
{
	static struct endkill s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	ek_setup(&s, &t, &c, &ca, &cb, 300);
	s.kill_after_end = true;
	th_bot(&t, &s.a, &ca);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, ek_held, &s);
	cr_assert_eq(s.a_ends, 1);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	/* It had its END, but said no BYE: the seat is held all the same, its file kept. */
	cr_expect_eq(access(s.seat_file, F_OK), 0, "the seat file went with the END");
	cr_expect_eq(s.peer_dropped, 1);
	cr_expect_eq(s.dropped_secs, 1);
	/* Not back within the hold: the seat is free, the other player told. */
	th_run(&t, 5000, ek_gone, &s);
	cr_expect_geq(s.gone_at - s.dropped_at, 250, "the seat went after %" PRIu64 " ms",
	              s.gone_at - s.dropped_at);
	cr_expect_leq(s.gone_at - s.dropped_at, 1500);
	cr_expect(!ek_room(&s)->seat[s.me].taken);
	/* The same command again: the server no longer knows the token; it joins afresh and plays. */
	th_bot(&t, &s.a2, &ca);
	th_run(&t, 60000, ek_a2_closed, &s);
	cr_expect_eq(s.a2.games, 1, "%s", s.a2.last_why);
	cr_expect_eq(s.a2.verified, 1, "%s", s.a2.last_why);
	cr_expect_eq(s.a_ends, 2, "the fresh join did not play a duel of its own");
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived the leaving");
	netbot_stop(&s.b);
	th_run(&t, 5000, ek_b_closed, &s);
	th_finish(&t);
	unlink(s.seat_file);
}
