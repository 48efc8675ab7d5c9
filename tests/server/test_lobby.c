/* SPDX-License-Identifier: MIT */
/* server/lobby: options by the controller only, control handed over, chat relayed at once, the turn timer,
 * and many rooms of one server at the same time. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct lobby {
	struct th *t;
	struct netbot a, b;
	int step;
	int not_controller, chats_b, chats_a, chat_limited, time_up, starts;
	uint8_t start_size;
	bool a_saw_control_lost, b_got_control, b_tried;
	int lobby_msgs;
	int welcomes[2], welcomes_wrong; /* WELCOMEs each got, and those not with the server's holds */
	unsigned hold, grace;            /* the server's holds, in seconds */
};

/* Every WELCOME carries this server's own holds, whatever sent it (join, CONTROL, a mirror). */
static void
count_welcome(struct lobby *l, int who, const struct wire_msg *m)
{
	if (m->type != WIRE_WELCOME)
		return;
	l->welcomes[who]++;
	if (m->u.welcome.hold != l->hold || m->u.welcome.grace != l->grace)
		l->welcomes_wrong++;
}

static void
a_msg(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	struct lobby *l = ud;
	struct net *n = bot->net;

	count_welcome(l, 0, m);
	if (m->type == WIRE_CHAT)
		l->chats_a++;
	if (m->type == WIRE_ERROR && m->u.error.code == PERR_LIMIT && !m->u.error.fatal && strstr(m->u.error.text, "chat"))
		l->chat_limited++;
	if (m->type == WIRE_WELCOME && l->step >= 2 && !m->u.welcome.controller)
		l->a_saw_control_lost = true;
	if (m->type != WIRE_LOBBY)
		return;
	l->lobby_msgs++;
	if (l->step == 0 && (m->u.lobby.present & 3) == 3) {
		/* Both here: a (the controller) sets options, then hands control to b. */
		struct options o = m->u.lobby.opt;
		o.size = 17;
		net_options(n, &o, 0);
		net_chat(n, "hello from a");
		/* Then a flood: past the burst, lines are refused (not fatal). */
		for (int i = 0; i < 12; i++)
			net_chat(n, "flood");
		l->step = 1;
	} else if (l->step == 1 && m->u.lobby.opt.size == 17) {
		net_control(n);
		l->step = 2;
	}
}

static void
b_msg(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	struct lobby *l = ud;
	struct net *n = bot->net;

	count_welcome(l, 1, m);
	if (m->type == WIRE_CHAT && m->u.chat.from == 0 && strcmp(m->u.chat.text, "hello from a") == 0)
		l->chats_b++;
	if (m->type == WIRE_ERROR && m->u.error.code == PERR_NOT_CONTROLLER)
		l->not_controller++;
	if (m->type == WIRE_START) {
		l->starts++;
		l->start_size = m->u.start.view.opt.size;
	}
	if (m->type == WIRE_UPDATE)
		for (int i = 0; i < m->u.update.nmsg; i++)
			l->time_up += m->u.update.msg[i].id == MSG_TIME_UP;
	if (m->type != WIRE_LOBBY)
		return;
	if (!l->b_tried && (m->u.lobby.present & 3) == 3 && m->u.lobby.controller == 0) {
		l->b_tried = true;
		/* Not the controller yet: refused. */
		struct options o = m->u.lobby.opt;
		o.potions = false;
		net_options(n, &o, 0);
	}
	if (l->step == 2 && m->u.lobby.controller == 1 && !l->b_got_control) {
		l->b_got_control = true;
		struct options o = m->u.lobby.opt;
		o.size = 19;
		o.fov = false;
		net_options(n, &o, 0);
		l->step = 3;
	}
	if (l->step == 3 && m->u.lobby.opt.size == 19) {
		net_ready(n, true);
		l->step = 4;
	}
	if (l->step == 4 && (m->u.lobby.ready & 2)) {
		net_ready(l->a.net, true);
		l->step = 5;
	}
}

static bool
a_joined(void *ud)
{
	struct lobby *l = ud;
	return net_player(l->a.net) >= 0;
}

static bool
done(void *ud)
{
	struct lobby *l = ud;
	return l->a.closed && l->b.closed;
}

Test(lobby, options_control_and_chat)
{
	static struct lobby l;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&l, 0, sizeof l);
	l.t = &t;
	th_init(&t);
	th_config(&c);
	/* Not the defaults: the WELCOMEs that CONTROL makes say these. */
	c.lim.grace_ms = 600000;
	c.lim.lobby_hold_ms = 45000;
	l.hold = 45;
	l.grace = 600;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "first", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "second", BOT_NORMAL, 2, 1);
	ca.ready = cb.ready = false; /* the script says when */
	ca.ud = cb.ud = &l;
	ca.on_msg = a_msg;
	cb.on_msg = b_msg;
	th_bot(&t, &l.a, &ca);
	th_run(&t, 5000, a_joined, &l);
	th_bot(&t, &l.b, &cb);
	th_run(&t, 60000, done, &l);
	cr_expect_eq(l.not_controller, 1, "b set options before it controlled the room");
	cr_expect(l.b_got_control);
	cr_expect(l.a_saw_control_lost);
	cr_expect_eq(l.chats_b, 1, "chat relayed to the other player");
	cr_expect_eq(l.chats_a, 8, "chat echoed to its sender, up to the burst limit");
	cr_expect_eq(l.chat_limited, 5, "chat lines past the burst refused");
	cr_expect_eq(l.starts, 1);
	cr_expect_eq(l.start_size, 19, "the duel uses the new controller's options");
	cr_expect_eq(l.welcomes[0], 2, "a: the join's WELCOME and the one CONTROL made");
	cr_expect_eq(l.welcomes[1], 2, "b: likewise");
	cr_expect_eq(l.welcomes_wrong, 0, "a WELCOME without the server's holds (45 s, 600 s)");
	cr_expect_eq(l.a.verified, 1, "%s", l.a.last_why);
	cr_expect_eq(l.b.verified, 1, "%s", l.b.last_why);
	th_finish(&t);
}

/* What the client takes from its WELCOMEs: the defaults before one came, then the server's own holds,
 * which a host's --grace and lobby_hold_ms set (here 600 s and 12.5 s, said rounded up, 13 s). */
struct holds {
	struct netbot a, b;
	int welcomes[2], welcomes_wrong;
	int lobbies, lobbies_wrong;   /* LOBBYs after a WELCOME, and those at which the client's figures were not the server's */
	unsigned got_hold, got_grace; /* the client's figures at the last wrong one */
};

static void
holds_msg(struct holds *h, int who, struct netbot *bot, const struct wire_msg *m)
{
	bool hold_known, grace_known;
	unsigned hold, grace;

	if (m->type == WIRE_WELCOME) {
		h->welcomes[who]++;
		if (m->u.welcome.hold != 13 || m->u.welcome.grace != 600)
			h->welcomes_wrong++;
	}
	/* A LOBBY follows every WELCOME; by then net.c has taken the WELCOME in (hooks see a message first). */
	if (m->type != WIRE_LOBBY || !h->welcomes[who])
		return;
	h->lobbies++;
	hold = net_lobby_hold_secs(bot->net, &hold_known);
	grace = net_duel_grace_secs(bot->net, &grace_known);
	if (hold != 13 || grace != 600 || !hold_known || !grace_known) {
		h->lobbies_wrong++;
		h->got_hold = hold;
		h->got_grace = grace;
	}
}

static void
holds_a(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	holds_msg(ud, 0, bot, m);
}

static void
holds_b(void *ud, struct netbot *bot, const struct wire_msg *m)
{
	holds_msg(ud, 1, bot, m);
}

static bool
holds_done(void *ud)
{
	struct holds *h = ud;
	return h->a.closed && h->b.closed;
}

Test(lobby, welcome_tells_the_servers_own_holds)
{
	static struct holds h;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	bool known;

	memset(&h, 0, sizeof h);
	th_init(&t);
	th_config(&c);
	c.lim.grace_ms = 600000;
	c.lim.lobby_hold_ms = 12500;
	th_server(&t, &c);
	/* Two duels, the second a mirror rematch: the join's WELCOME, then one before the swapped duel. */
	th_bot_config(&t, &ca, "first", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "second", BOT_NORMAL, 2, 2);
	ca.mirror = cb.mirror = true;
	ca.ud = cb.ud = &h;
	ca.on_msg = holds_a;
	cb.on_msg = holds_b;
	th_bot(&t, &h.a, &ca);
	/* Before any WELCOME the client can only say a server's defaults, and knows it. */
	cr_expect_eq(net_lobby_hold_secs(h.a.net, &known), NET_LOBBY_HOLD_MS / 1000);
	cr_expect(!known);
	cr_expect_eq(net_duel_grace_secs(h.a.net, &known), NET_DUEL_GRACE_MS / 1000);
	cr_expect(!known);
	th_bot(&t, &h.b, &cb);
	th_run(&t, 90000, holds_done, &h);
	cr_expect_eq(h.a.verified, 2, "%s", h.a.last_why);
	cr_expect_eq(h.b.verified, 2, "%s", h.b.last_why);
	cr_expect(strstr(h.a.last_why, "(a mirror rematch)"), "%s", h.a.last_why);
	cr_expect_geq(h.welcomes[0], 2, "a: %d WELCOMEs, not the join's and the mirror's", h.welcomes[0]);
	cr_expect_geq(h.welcomes[1], 2, "b: %d WELCOMEs, not the join's and the mirror's", h.welcomes[1]);
	cr_expect_eq(h.welcomes_wrong, 0, "a WELCOME without the server's holds (13 s, 600 s)");
	cr_expect_gt(h.lobbies, 0);
	cr_expect_eq(h.lobbies_wrong, 0, "the client said a lobby hold of %u s and a grace of %u s, not 13 and 600",
	             h.got_hold, h.got_grace);
	th_finish(&t);
}

static bool
timeouts_seen(void *ud)
{
	struct lobby *l = ud;
	return l->time_up >= 3;
}

Test(lobby, turn_timer_passes_a_stalled_turn)
{
	static struct lobby l;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&l, 0, sizeof l);
	l.t = &t;
	th_init(&t);
	th_config(&c);
	c.turn_time = 1;
	/* The server's log on stderr says why if this stalls. It did, under load, when "asleep"
	 * joined first: it was then the controller, and b_msg (written for the second player)
	 * set options with no turn limit. So "quick" joins first. */
	c.quiet = false;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "quick", BOT_NORMAL, 1, 0);
	th_bot_config(&t, &cb, "asleep", BOT_NORMAL, 2, 0);
	cb.passive = true;
	cb.ud = &l;
	cb.on_msg = b_msg;
	th_bot(&t, &l.a, &ca);
	th_run(&t, 5000, a_joined, &l);
	th_bot(&t, &l.b, &cb);
	uint64_t t0 = uv_now(&t.loop);
	th_run(&t, 20000, timeouts_seen, &l);
	uint64_t took = uv_now(&t.loop) - t0;
	struct gameroom *r = server_room(t.srv, NULL);
	cr_expect(room_playing(r));
	cr_expect_geq(room_game(r)->turn_no, 5, "the duel moved on: %u turns", room_game(r)->turn_no);
	cr_expect_geq(took, 2000, "three timed-out turns took only %llu ms", (unsigned long long)took);
	/* The log says so too: the stalled player's turns are passes. */
	size_t n;
	char *text = tlog_text(&r->log, &n);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "1 pass\n") != NULL);
	free(text);
	netbot_stop(&l.a);
	netbot_stop(&l.b);
	th_run(&t, 5000, done, &l);
	th_finish(&t);
}

struct many {
	struct netbot bots[16];
};

static bool
all_closed(void *ud)
{
	struct many *m = ud;
	for (int i = 0; i < 16; i++)
		if (!m->bots[i].closed)
			return false;
	return true;
}

Test(lobby, many_rooms_at_once)
{
	static struct many m;
	struct th t;
	struct server_config c;
	struct netbot_config bc;
	static char names[16][16], rooms[8][16];

	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	for (int i = 0; i < 16; i++) {
		snprintf(names[i], sizeof names[i], "p%d", i);
		snprintf(rooms[i / 2], sizeof rooms[i / 2], "room-%d", i / 2);
		/* The levels below master: its search would only slow this test of rooms down
		 * (test_game.c plays master over the network). */
		th_bot_config(&t, &bc, names[i], i % BOT_MASTER, (uint64_t)i + 1, 2);
		bc.net.room = rooms[i / 2];
		th_bot(&t, &m.bots[i], &bc);
	}
	th_run(&t, 120000, all_closed, &m);
	for (int i = 0; i < 16; i++) {
		cr_expect_eq(m.bots[i].games, 2, "bot %d: %s", i, m.bots[i].last_why);
		cr_expect_eq(m.bots[i].verified, 2, "bot %d: %s", i, m.bots[i].last_why);
	}
	cr_expect_eq(server_room_count(t.srv), 0, "empty rooms are removed");
	th_finish(&t);
}

struct relay {
	struct netbot a, b, c;
	bool c_started;
};

static bool
b_closed(void *ud)
{
	return ((struct relay *)ud)->b.closed;
}

static bool
a_and_c_closed(void *ud)
{
	struct relay *r = ud;
	return r->a.closed && r->c.closed;
}

/* When the opponent leaves, the lobby clears both players' readiness; a bot that stays
 * must be ready again for whoever takes the seat next (it used to wait forever). */
Test(lobby, a_bot_readies_again_for_a_new_opponent)
{
	static struct relay r;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb, cc;

	memset(&r, 0, sizeof r);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "stays", BOT_NORMAL, 1, 2);
	ca.net.room = "relay";
	th_bot_config(&t, &cb, "leaves", BOT_RANDOM, 2, 1);
	cb.net.room = "relay";
	th_bot(&t, &r.a, &ca);
	th_bot(&t, &r.b, &cb);
	th_run(&t, 60000, b_closed, &r);
	cr_assert_eq(r.a.games, 1, "%s", r.a.last_why);
	th_bot_config(&t, &cc, "arrives", BOT_RANDOM, 3, 1);
	cc.net.room = "relay";
	th_bot(&t, &r.c, &cc);
	th_run(&t, 60000, a_and_c_closed, &r);
	cr_expect_eq(r.a.games, 2, "the bot that stayed played the newcomer: %s", r.a.last_why);
	cr_expect_eq(r.c.games, 1, "%s", r.c.last_why);
	cr_expect_eq(r.a.verified, 2);
	th_finish(&t);
}

/* The controller sets the options after a bot said READY: the server clears every READY, and
 * the bot says READY again (it used to wait for ever, and the duel never started). */
static void
c_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct lobby *l = ud;

	if (m->type == WIRE_LOBBY && !l->b_tried && (m->u.lobby.ready & 2u)) {
		l->b_tried = true; /* the bot (player 2) is ready: now change the options */
		struct options o = m->u.lobby.opt;
		o.size = 15;
		net_options(b->net, &o, 0);
		l->step = 1;
	}
	if (m->type == WIRE_LOBBY && l->step == 1 && m->u.lobby.opt.size == 15 && !(m->u.lobby.ready & 1u)) {
		net_ready(b->net, true);
		l->step = 2;
	}
	if (m->type == WIRE_START) {
		l->starts++;
		l->start_size = m->u.start.view.opt.size;
	}
}

static bool
started(void *ud)
{
	struct lobby *l = ud;
	return l->starts > 0;
}

Test(lobby, a_bot_says_ready_again_after_the_options_change)
{
	static struct lobby l;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&l, 0, sizeof l);
	l.t = &t;
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "host", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "bot", BOT_NORMAL, 2, 1);
	ca.ready = false; /* c_msg says when */
	ca.ud = &l;
	ca.on_msg = c_msg;
	th_bot(&t, &l.a, &ca);
	th_run(&t, 5000, a_joined, &l);
	th_bot(&t, &l.b, &cb);
	th_run(&t, 20000, started, &l);
	cr_assert_eq(l.starts, 1, "the duel started");
	cr_expect_eq(l.start_size, 15, "with the options set after the bot's first READY");
	netbot_stop(&l.a);
	netbot_stop(&l.b);
	th_run(&t, 5000, done, &l);
	th_finish(&t);
}
