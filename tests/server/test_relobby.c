/* SPDX-License-Identifier: MIT */
/* server/relobby: a link lost in the lobby (before the first duel, and after one) comes back by itself with its
 * token: the seat held, the other player told, the lobby as it was, READY said again with the same part; a seat
 * not held any more is joined afresh; a server that never comes back is given up with the reason. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

struct rl {
	struct th *t;
	const char *room;
	char seat_file[128];
	struct netbot a, b;     /* a's link is cut in the lobby; b stays */
	int pa;                 /* a's seat */
	int cut_after_ends;     /* cut a in the lobby after this many duels (0: the first lobby) */
	bool cut, seat_file_at_cut;
	int ends_before_cut;    /* a's ENDs before the cut (0: the first lobby, 1: after a duel) */
	uint8_t part_at_cut[PROTO_PART_LEN];
	/* what a got after the cut, by type, until its first LOBBY */
	int seq[64], nseq;
	bool seq_done;
	unsigned back_hold, back_grace; /* what the WELCOME after the cut said: the server's own holds */
	int a_ends, a_resumed_starts;
	/* as b saw it */
	int peer_dropped, peer_back, peer_gone;
	unsigned dropped_secs;
	bool held_ok;           /* at PEER_DROPPED: the seat taken, not connected, not ready, name and control kept */
	bool held_checked;
	bool a_ready_again;     /* a LOBBY after the return showing a ready */
	bool same_part;         /* ... with the part a sent before the cut */
	bool b_readied;
	bool close_server;      /* the give-up case: the server goes right after the cut */
	bool unready_first;     /* a says READY 0 after its READY, and is cut not ready */
	bool unreadied;
};

static struct gameroom *
rl_room(struct rl *s)
{
	return s->t->srv ? server_room(s->t->srv, s->room) : NULL;
}

static void
cut_a(struct rl *s)
{
	struct gameroom *r = rl_room(s);
	struct conn *c = r->seat[s->pa].conn;

	s->cut = true;
	s->ends_before_cut = s->a_ends;
	s->seat_file_at_cut = access(s->seat_file, F_OK) == 0;
	memcpy(s->part_at_cut, r->seat[s->pa].part, PROTO_PART_LEN);
	conn__close_now(c); /* as if the network failed: no BYE, no ERROR */
	if (s->close_server) {
		server_close(s->t->srv, NULL, NULL);
		s->t->srv = NULL;
	}
}

static void
a_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct rl *s = ud;

	if (s->cut && !s->seq_done && (s->nseq > 0 || m->type == WIRE_WELCOME)) { /* after the handshake */
		if (s->nseq < 64)
			s->seq[s->nseq++] = m->type;
		s->seq_done = m->type == WIRE_LOBBY;
		if (m->type == WIRE_WELCOME) {
			s->back_hold = m->u.welcome.hold;
			s->back_grace = m->u.welcome.grace;
		}
	}
	if (m->type == WIRE_START && m->u.start.resumed)
		s->a_resumed_starts++;
	if (m->type != WIRE_LOBBY || s->cut || s->a_ends != s->cut_after_ends || !b->net || net_phase(b->net) != NET_LOBBY)
		return;
	s->pa = net_player(b->net);
	/* Both here, a ready (its part with the server), b not: the lobby a user would be in. */
	if (m->u.lobby.present == 3 && (m->u.lobby.ready & (1u << s->pa)) && !(m->u.lobby.ready & (1u << (1 - s->pa)))) {
		if (!s->unready_first) {
			cut_a(s);
		} else if (!s->unreadied) {
			s->unreadied = true;
			b->cfg.ready = false; /* the bot would ready again by itself */
			net_ready(b->net, false);
		}
	} else if (s->unreadied && m->u.lobby.present == 3 && !(m->u.lobby.ready & 3u)) {
		cut_a(s); /* it took its READY back: nobody is ready */
	}
}

static void
a_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct rl *s = ud;

	(void)b;
	(void)e;
	(void)verified;
	(void)why;
	s->a_ends++;
}

static void
a_start(void *ud, struct netbot *b, const struct view *v, bool resumed)
{
	struct rl *s = ud;

	(void)b;
	(void)v;
	s->a_resumed_starts += resumed ? 100 : 0; /* a resumed START that reached the bot: none should */
}

static void
b_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	(void)ud;
	(void)e;
	(void)verified;
	(void)why;
	b->cfg.ready = false; /* b stays unready after a duel: the lobby waits for the test */
}

static void
b_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct rl *s = ud;
	struct gameroom *r = rl_room(s);

	if (m->type == WIRE_PEER) {
		if (m->u.peer.state == PEER_DROPPED) {
			s->peer_dropped++;
			s->dropped_secs = m->u.peer.seconds;
			if (r && !s->held_checked) {
				const struct seat *st = &r->seat[s->pa];
				s->held_checked = true;
				s->held_ok = st->taken && !st->conn && !st->ready && !st->rematch && st->grace_on &&
				             strcmp(st->name, "flaky") == 0 && r->controller == s->pa;
			}
		}
		s->peer_back += m->u.peer.state == PEER_BACK;
		s->peer_gone += m->u.peer.state == PEER_GONE;
		return;
	}
	if (m->type != WIRE_LOBBY || !s->cut || (!s->peer_back && !s->peer_gone) || s->b_readied || !r ||
	    s->unready_first)
		return;
	int pa = 1 - net_player(b->net);
	if (m->u.lobby.present == 3 && (m->u.lobby.ready & (1u << pa))) {
		/* a is back and ready again, of itself: now b readies and the duel starts. */
		s->a_ready_again = true;
		s->same_part = memcmp(r->seat[pa].part, s->part_at_cut, PROTO_PART_LEN) == 0;
		s->b_readied = true;
		if (s->ends_before_cut)
			net_rematch(b->net);
		else
			net_ready(b->net, true);
	}
}

static bool
both_closed(void *ud)
{
	struct rl *s = ud;
	return s->a.closed && s->b.closed;
}

static bool
a_closed(void *ud)
{
	return ((struct rl *)ud)->a.closed;
}

static void
rl_setup(struct rl *s, struct th *t, struct server_config *c, int cut_after_ends)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->room = "relobby";
	s->cut_after_ends = cut_after_ends;
	snprintf(s->seat_file, sizeof s->seat_file, "/tmp/wizwar-test-relobby-%d", (int)getpid());
	unlink(s->seat_file);
	th_init(t);
	th_config(c);
	c->multi = true;
}

static void
rl_bots(struct rl *s, struct th *t, struct netbot_config *ca, struct netbot_config *cb, int games)
{
	th_bot_config(t, ca, "flaky", BOT_NORMAL, 31, games);
	th_bot_config(t, cb, "steady", BOT_NORMAL, 32, games);
	ca->net.room = cb->net.room = s->room;
	cb->net.create_room = false; /* a makes the room (and controls it), then b joins */
	ca->net.seat_file = s->seat_file;
	ca->net.reconnect_ms = 400;  /* the held seat stays in view a while */
	ca->ud = cb->ud = s;
	ca->on_msg = a_msg;
	ca->on_end = a_end;
	ca->on_start = a_start;
	cb->on_msg = b_msg;
	cb->ready = games > 1;       /* the first lobby: only a is ready; after a duel, b_end unreadies b */
	if (games > 1)
		cb->on_end = b_end;
}

static bool
room_made(void *ud)
{
	return rl_room(ud) != NULL;
}

static void
start_bots(struct rl *s, struct th *t, const struct netbot_config *ca, const struct netbot_config *cb)
{
	th_bot(t, &s->a, ca);
	th_run(t, 10000, room_made, s);
	th_bot(t, &s->b, cb);
}

static void
expect_back_in_the_lobby(struct rl *s)
{
	cr_assert(s->cut, "a was never cut in the lobby");
	cr_expect(s->seat_file_at_cut, "no seat file while a held a seat in the lobby");
	cr_expect_eq(s->peer_dropped, 1, "b was not told of the drop");
	cr_expect_eq(s->dropped_secs, 30, "held %u s, not the 30 s lobby hold", s->dropped_secs);
	/* The WELCOME of the return says the holds too, as PEER told b. */
	cr_expect_eq(s->back_hold, 30, "WELCOME after the resume said a lobby hold of %u s", s->back_hold);
	cr_expect_eq(s->back_grace, 120, "WELCOME after the resume said a grace of %u s", s->back_grace);
	cr_expect(s->held_ok, "the seat was not held as it was (name, control; not ready)");
	cr_expect_eq(s->peer_back, 1, "b was not told a came back");
	cr_expect_eq(s->peer_gone, 0);
	cr_expect_eq(s->a.links_lost, 1);
	cr_expect_eq(s->a.links_back, 1);
	cr_expect(s->a_ready_again, "a did not say READY again once back");
	cr_expect(s->same_part, "a's READY after the return carried another part: a new roll for the server");
}

Test(relobby, drop_in_the_first_lobby)
{
	static struct rl s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	rl_setup(&s, &t, &c, 0);
	th_server(&t, &c);
	rl_bots(&s, &t, &ca, &cb, 1);
	start_bots(&s, &t, &ca, &cb);
	th_run(&t, 60000, both_closed, &s);
	expect_back_in_the_lobby(&s);
	/* Back before any duel: WELCOME and LOBBY, nothing else. */
	cr_assert_geq(s.nseq, 2);
	cr_expect_eq(s.seq[0], WIRE_WELCOME);
	cr_expect_eq(s.seq[1], WIRE_LOBBY);
	cr_expect_eq(s.ends_before_cut, 0);
	cr_expect_eq(s.a.games, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.games, 1, "%s", s.b.last_why);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	cr_expect(strstr(s.a.last_why, "seed made with your part and the other player's"), "%s", s.a.last_why);
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	cr_expect_eq(s.b.errors, 0, "%s", s.b.last_why);
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived the leaving");
	th_finish(&t);
}

Test(relobby, drop_in_the_lobby_after_a_duel)
{
	static struct rl s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	rl_setup(&s, &t, &c, 1);
	th_server(&t, &c);
	rl_bots(&s, &t, &ca, &cb, 2);
	start_bots(&s, &t, &ca, &cb);
	th_run(&t, 90000, both_closed, &s);
	expect_back_in_the_lobby(&s);
	cr_expect_eq(s.ends_before_cut, 1, "not cut in the lobby after the first duel");
	/* The server owes a dropped seat the END again (it cannot know it arrived): the final
	 * view, END, the log, then LOBBY. The client had it and takes it in quietly. */
	cr_assert_geq(s.nseq, 4, "only %d messages on resume", s.nseq);
	cr_expect_eq(s.seq[0], WIRE_WELCOME);
	cr_expect_eq(s.seq[1], WIRE_START);
	cr_expect_eq(s.seq[2], WIRE_END);
	cr_expect_eq(s.seq[s.nseq - 1], WIRE_LOBBY);
	cr_expect_eq(s.a_resumed_starts, 1, "the owed END's snapshot reached the bot as a duel (%d)", s.a_resumed_starts);
	cr_expect_eq(s.a_ends, 2, "the owed END was counted as a duel (%d ENDs)", s.a_ends);
	cr_expect_eq(s.a.games, 2, "%s", s.a.last_why);
	cr_expect_eq(s.b.games, 2, "%s", s.b.last_why);
	cr_expect_eq(s.a.verified, 2, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 2, "%s", s.b.last_why);
	cr_expect_eq(s.a.errors, 0, "%s", s.a.last_why);
	cr_expect_eq(s.b.errors, 0, "%s", s.b.last_why);
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived the leaving");
	th_finish(&t);
}

/* The seat not held long enough (a short hold here): the token is refused, and the client joins
 * the room afresh rather than give up; it is ready again there too. */
Test(relobby, seat_not_held_any_more_joins_afresh)
{
	static struct rl s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	rl_setup(&s, &t, &c, 0);
	c.lim.lobby_hold_ms = 150;
	th_server(&t, &c);
	rl_bots(&s, &t, &ca, &cb, 1);
	start_bots(&s, &t, &ca, &cb);
	th_run(&t, 60000, both_closed, &s);
	cr_assert(s.cut);
	cr_expect_eq(s.peer_dropped, 1);
	cr_expect_eq(s.dropped_secs, 1);
	cr_expect_eq(s.peer_gone, 1, "the seat was not freed when the hold ran out");
	cr_expect_eq(s.peer_back, 0);
	cr_expect(s.a_ready_again, "a was not ready again after joining afresh");
	cr_expect_eq(s.a.links_lost, 1);
	cr_expect_eq(s.a.links_back, 1);
	cr_expect_eq(s.a.last_error, PERR_RESUME);
	cr_expect_eq(s.a.errors, 1, "%s", s.a.last_why);
	cr_expect(!s.a.cut_off);
	cr_expect_eq(s.a.games, 1, "%s", s.a.last_why);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 1, "%s", s.b.last_why);
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived the leaving");
	th_finish(&t);
}

/* The server is gone for good: the client tries for reconnect_for_ms (one attempt each
 * reconnect_ms) and gives up with the reason; the seat file goes with the seat. */
Test(relobby, server_gone_for_good_is_given_up)
{
	static struct rl s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	rl_setup(&s, &t, &c, 0);
	s.close_server = true;
	th_server(&t, &c);
	rl_bots(&s, &t, &ca, &cb, 1);
	ca.net.reconnect_ms = 200;
	ca.net.reconnect_for_ms = 1500;
	start_bots(&s, &t, &ca, &cb);
	th_run(&t, 20000, a_closed, &s);
	cr_assert(s.cut);
	cr_expect_eq(s.a.links_lost, 1);
	cr_expect_eq(s.a.links_back, 0);
	cr_expect(s.a.cut_off, "giving up before its duel was played was not taken for a failure (exit 1)");
	cr_expect_eq(s.a.last_error, PERR_TIMEOUT);
	char want[64];
	snprintf(want, sizeof want, "could not get back to 127.0.0.1:%d: ", t.port);
	cr_expect(strstr(s.a.last_why, want), "%s", s.a.last_why);
	cr_expect(strstr(s.a.last_why, "attempts in 1 s, the last: connection refused"), "%s", s.a.last_why);
	unsigned n = 0;
	sscanf(strstr(s.a.last_why, ": ") + 2, "%u", &n);
	cr_expect(n >= 4 && n <= 9, "%u attempts in 1.5 s at one per 0.2 s", n);
	cr_expect_neq(access(s.seat_file, F_OK), 0, "the seat file outlived giving up");
	netbot_stop(&s.b);
	th_run(&t, 5000, both_closed, &s);
	th_finish(&t);
}

/* A peer the server drops for breaking the protocol is told so (a fatal ERROR) and does not come
 * back by itself: its lobby seat is not held, the other player is told it left. */
struct rude {
	struct th *t;
	struct netbot b;
	struct raw r;
	bool sent;
	int dropped, gone;
};

static void
rude_b_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct rude *s = ud;
	static struct wire_msg again;

	(void)b;
	if (m->type == WIRE_PEER) {
		s->dropped += m->u.peer.state == PEER_DROPPED;
		s->gone += m->u.peer.state == PEER_GONE;
	}
	if (m->type == WIRE_LOBBY && m->u.lobby.present == 3 && !s->sent) {
		s->sent = true;
		memset(&again, 0, sizeof again);
		again.type = WIRE_AUTH; /* a second AUTH once joined: out of turn */
		wire_who_init(&again.u.auth.who, "rude", "ruderoom", ROLE_PLAYER);
		raw_msg(&s->r, &again);
	}
}

static bool
rude_gone(void *ud)
{
	struct rude *s = ud;
	return s->gone > 0 || s->dropped > 0;
}

static bool
room_made_rude(void *ud)
{
	struct rude *s = ud;
	return server_room(s->t->srv, "ruderoom") != NULL;
}

static bool
rude_b_closed(void *ud)
{
	return ((struct rude *)ud)->b.closed;
}

Test(relobby, a_peer_dropped_for_breaking_the_protocol_is_not_held)
{
	static struct rude s;
	struct th t;
	struct server_config c;
	struct netbot_config cb;

	memset(&s, 0, sizeof s);
	s.t = &t;
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	th_bot_config(&t, &cb, "polite", BOT_NORMAL, 41, 1);
	cb.net.room = "ruderoom";
	cb.ready = false;
	cb.ud = &s;
	cb.on_msg = rude_b_msg;
	th_bot(&t, &s.b, &cb);
	th_run(&t, 10000, room_made_rude, &s);
	raw_start(&t, &s.r);
	raw_join_as(&s.r, "rude", "ruderoom", false);
	th_run(&t, 10000, rude_gone, &s);
	cr_expect_eq(s.dropped, 0, "the seat of a peer dropped for a protocol breach was held");
	cr_expect_eq(s.gone, 1);
	struct gameroom *r = server_room(t.srv, "ruderoom");
	cr_assert_not_null(r);
	cr_expect(!r->seat[0].taken || !r->seat[1].taken, "the seat is still taken");
	struct wire_msg err;
	int nerr = 0;
	raw_decode(&s.r, &err, &nerr);
	cr_expect_eq(err.u.error.code, PERR_STATE);
	cr_expect(err.u.error.fatal);
	raw_close(&s.r);
	netbot_stop(&s.b);
	th_run(&t, 5000, rude_b_closed, &s);
	th_finish(&t);
}

/* A READY taken back before the drop is not said again: back, the player is not ready. */
static bool
back_and_settled(void *ud)
{
	struct rl *s = ud;
	static uint64_t since;

	if (!s->peer_back) {
		since = 0;
		return false;
	}
	if (since == 0)
		since = uv_now(&s->t->loop);
	return uv_now(&s->t->loop) - since >= 500; /* time for a READY, had one been sent */
}

Test(relobby, unready_stays_unready)
{
	static struct rl s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	rl_setup(&s, &t, &c, 0);
	s.unready_first = true;
	th_server(&t, &c);
	rl_bots(&s, &t, &ca, &cb, 1);
	start_bots(&s, &t, &ca, &cb);
	th_run(&t, 20000, back_and_settled, &s);
	cr_assert(s.cut);
	cr_expect_eq(s.peer_back, 1);
	cr_expect_eq(s.a.links_back, 1);
	struct gameroom *r = rl_room(&s);
	cr_assert_not_null(r);
	cr_expect(r->seat[s.pa].conn != NULL, "a is not back");
	cr_expect(!r->seat[s.pa].ready, "a READY taken back before the drop was said again");
	netbot_stop(&s.a);
	netbot_stop(&s.b);
	th_run(&t, 5000, both_closed, &s);
	th_finish(&t);
}

/* `bot --games 0` plays until it is stopped: a link lost for good after some duels is still a
 * session cut off under it (exit 1, as `join`), and only its being stopped is not. */
struct until {
	struct th *t;
	struct netbot a, b;
	bool a_done, gone;
};

/* The server goes for good once a has its END and b, which played its one duel, has left: not
 * before, or b could be cut off while it reads its own END. */
static void
until_gone(struct until *s)
{
	if (!s->a_done || !s->b.closed || !s->t->srv || s->gone)
		return;
	s->gone = true;
	server_close(s->t->srv, NULL, NULL); /* nothing listens on the port again */
	s->t->srv = NULL;
}

static void
until_a_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct until *s = ud;

	(void)e;
	(void)verified;
	(void)why;
	s->a_done = b->games == 1;
	until_gone(s);
}

static void
until_b_closed(void *ud, struct netbot *b)
{
	(void)b;
	until_gone(ud);
}

static bool
until_both_closed(void *ud)
{
	struct until *s = ud;
	return s->a.closed && s->b.closed;
}

static bool
room_made_until(void *ud)
{
	struct th *t = ud;
	return server_room(t->srv, "until") != NULL;
}

/* A server of rooms and two bots in room "until": a with --games 0, b with b_games; each given its
 * on_end. Runs until both have closed. */
static void
until_play(struct until *s, struct th *t, int b_games, uint64_t seed,
           void (*on_a_end)(void *, struct netbot *, const struct wire_end *, bool, const char *),
           void (*on_b_end)(void *, struct netbot *, const struct wire_end *, bool, const char *))
{
	struct server_config c;
	struct netbot_config ca, cb;

	memset(s, 0, sizeof *s);
	s->t = t;
	th_init(t);
	th_config(&c);
	c.multi = true;
	th_server(t, &c);
	th_bot_config(t, &ca, "forever", BOT_NORMAL, seed, 0);
	th_bot_config(t, &cb, "other", BOT_NORMAL, seed + 1, b_games);
	ca.net.room = cb.net.room = "until";
	cb.net.create_room = false;
	ca.net.reconnect_ms = 200;
	ca.net.reconnect_for_ms = 1500;
	ca.ud = cb.ud = s;
	ca.on_end = on_a_end;
	cb.on_end = on_b_end;
	cb.on_closed = until_b_closed;
	th_bot(t, &s->a, &ca);
	th_run(t, 10000, room_made_until, t); /* b joins with --room: the room must exist first */
	th_bot(t, &s->b, &cb);
	th_run(t, 60000, until_both_closed, s);
}

Test(relobby, games_0_cut_off_after_its_duels_is_a_failure)
{
	static struct until s;
	struct th t;

	until_play(&s, &t, 1, 51, until_a_end, NULL);
	cr_assert(s.gone, "the duel was not played");
	cr_expect_eq(s.a.games, 1, "%s", s.a.last_why);
	cr_expect(s.a.cut_off, "a --games 0 bot whose server went for good was not taken for cut off (exit 1): %s",
	          s.a.last_why);
	cr_expect(strstr(s.a.last_why, "could not get back to 127.0.0.1:") || strstr(s.a.last_why, "goodbye"), "%s",
	          s.a.last_why);
	cr_expect(!s.b.cut_off, "a bot that played its --games was taken for cut off");
	th_finish(&t);
}

/* Stopped (SIGINT, SIGTERM: netbot_stop), a --games 0 bot is not cut off. */
static void
stop_after_one(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	(void)ud;
	(void)e;
	(void)verified;
	(void)why;
	if (b->games == 1)
		netbot_stop(b);
}

Test(relobby, games_0_stopped_is_not_cut_off)
{
	static struct until s;
	struct th t;

	until_play(&s, &t, 0, 53, stop_after_one, stop_after_one);
	cr_expect_eq(s.a.games, 1, "%s", s.a.last_why);
	cr_expect(!s.a.cut_off, "a --games 0 bot stopped was taken for cut off: %s", s.a.last_why);
	cr_expect(!s.b.cut_off, "%s", s.b.last_why);
	th_finish(&t);
}

/* A server that says it is shutting down (BYE) while both players are in the lobby: the clients ride it
 * out as a drop. Started again on the same port and key, it knows neither token: each joins the room
 * again as a new player, the first back making the room again (a member's join after a lobby drop may),
 * so that the second is not refused a room that no longer exists; then they play. */
struct restart {
	struct th *t;
	struct netbot a, b;
	int port;
	bool closed_once, restarted;
	uv_timer_t tm;
	int a_bye, b_bye;
};

static void
restart_server(uv_timer_t *tm)
{
	struct restart *s = tm->data;
	struct server_config c;
	char why[300];

	th_config(&c);
	c.multi = true;
	c.port = s->port;
	cr_assert_eq(server_create(&s->t->loop, &c, &s->t->srv, why, sizeof why), 0, "%s", why);
	s->restarted = true;
	s->b.cfg.ready = true; /* now the duel may start, once both are back */
	uv_close((uv_handle_t *)tm, NULL);
}

static void
restart_a_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct restart *s = ud;

	(void)b;
	s->a_bye += m->type == WIRE_BYE;
	if (m->type == WIRE_LOBBY && m->u.lobby.present == 3 && !s->closed_once) {
		s->closed_once = true;
		s->port = s->t->port;
		server_close(s->t->srv, NULL, NULL); /* BYE: shutting down */
		s->t->srv = NULL;
		uv_timer_init(&s->t->loop, &s->tm);
		s->tm.data = s;
		uv_timer_start(&s->tm, restart_server, 1500, 0);
	}
}

static void
restart_b_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct restart *s = ud;

	(void)b;
	s->b_bye += m->type == WIRE_BYE;
}

static bool
restart_both_closed(void *ud)
{
	struct restart *s = ud;
	return s->a.closed && s->b.closed;
}

static bool
room_made_phoenix(void *ud)
{
	struct th *t = ud;
	return server_room(t->srv, "phoenix") != NULL;
}

Test(relobby, a_server_shutting_down_is_ridden_out_in_the_lobby)
{
	static struct restart s;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&s, 0, sizeof s);
	s.t = &t;
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "maker", BOT_NORMAL, 61, 1);
	th_bot_config(&t, &cb, "joiner", BOT_NORMAL, 62, 1);
	ca.net.room = cb.net.room = "phoenix";
	cb.net.create_room = false; /* joined with --room: it never asked for the room */
	cb.ready = false;           /* the lobby waits: the shutdown comes there */
	ca.net.reconnect_ms = cb.net.reconnect_ms = 200;
	ca.ud = cb.ud = &s;
	ca.on_msg = restart_a_msg;
	cb.on_msg = restart_b_msg;
	th_bot(&t, &s.a, &ca);
	th_run(&t, 10000, room_made_phoenix, &t);
	th_bot(&t, &s.b, &cb);
	th_run(&t, 60000, restart_both_closed, &s);
	cr_assert(s.restarted, "the server was not restarted");
	cr_expect_eq(s.a_bye, 1, "a got %d BYEs", s.a_bye);
	cr_expect_eq(s.b_bye, 1, "b got %d BYEs", s.b_bye);
	cr_expect_eq(s.a.links_lost, 1, "a did not take the shutdown for a drop: %s", s.a.last_why);
	cr_expect_eq(s.b.links_lost, 1, "b did not take the shutdown for a drop: %s", s.b.last_why);
	cr_expect_eq(s.a.links_back, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.links_back, 1, "%s", s.b.last_why);
	cr_expect_eq(s.a.games, 1, "a played no duel on the restarted server: %s", s.a.last_why);
	cr_expect_eq(s.b.games, 1, "b played no duel on the restarted server: %s", s.b.last_why);
	cr_expect_eq(s.a.verified, 1, "%s", s.a.last_why);
	cr_expect_eq(s.b.verified, 1, "%s", s.b.last_why);
	cr_expect(!s.a.cut_off && !s.b.cut_off);
	th_finish(&t);
}

/* A host's player who leaves on purpose closes the room for good (BYE leave): the joiner says so and
 * does not wait to reconnect. */
struct closed_room {
	struct th *t;
	struct netbot b;
	bool closed_it;
};

static void
closed_room_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct closed_room *s = ud;

	(void)b;
	if (m->type == WIRE_LOBBY && !s->closed_it) {
		s->closed_it = true;
		server_close_as(s->t->srv, BYE_LEAVE, NULL, NULL);
		s->t->srv = NULL;
	}
}

static bool
closed_room_done(void *ud)
{
	return ((struct closed_room *)ud)->b.closed;
}

Test(relobby, a_room_closed_by_its_host_is_not_waited_for)
{
	static struct closed_room s;
	struct th t;
	struct server_config c;
	struct netbot_config cb;

	memset(&s, 0, sizeof s);
	s.t = &t;
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &cb, "guest", BOT_NORMAL, 71, 1);
	cb.net.reconnect_ms = 200;
	cb.ud = &s;
	cb.on_msg = closed_room_msg;
	th_bot(&t, &s.b, &cb);
	uint64_t t0 = uv_now(&t.loop);
	th_run(&t, 10000, closed_room_done, &s);
	cr_assert(s.closed_it);
	cr_expect_lt(uv_now(&t.loop) - t0, 2000, "it waited to reconnect to a room closed for good");
	cr_expect_eq(s.b.links_lost, 0, "a room closed for good taken for a drop");
	cr_expect_str_eq(s.b.last_why, "the host left and closed the room");
	cr_expect(s.b.cut_off, "cut off before its duel: exit 1");
	th_finish(&t);
}
