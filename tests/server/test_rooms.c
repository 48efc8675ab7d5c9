/* SPDX-License-Identifier: MIT */
/* server/rooms: rooms found by code through the hash table, made only on request, guessing limited, idle lobbies closed; per-connection budgets,
 * padded and broken deflate answered with a fatal ERROR; a valid resume token past a lockout, and the
 * policy for a token shown while its seat is still connected; /64s counted as one address. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct drops {
	int n;
	int codes[64];
	char why[64][PROTO_REASON_BYTES + 1];
};

static void
on_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	struct drops *d = ud;
	(void)c;
	if (d->n < 64) {
		d->codes[d->n] = code;
		snprintf(d->why[d->n], sizeof d->why[d->n], "%s", why);
	}
	d->n++;
}

static void
setup(struct th *t, struct server_config *c, struct drops *d)
{
	th_init(t);
	th_config(c);
	c->multi = true;
	c->hooks.ud = d;
	c->hooks.dropped = on_dropped;
	memset(d, 0, sizeof *d);
}

static bool
raw_done(void *ud)
{
	return ((struct raw *)ud)->closed;
}

/* The last ERROR a raw peer got; it must be fatal and the peer closed. */
static void
expect_error(struct raw *r, int code, const char *text)
{
	static struct wire_msg err;
	int nerr;

	raw_decode(r, &err, &nerr);
	cr_assert_geq(nerr, 1, "no ERROR before the drop (%zu bytes got)", r->ngot);
	cr_expect_eq(err.u.error.code, code, "ERROR %d (%s), expected %d", err.u.error.code, err.u.error.text, code);
	cr_expect(err.u.error.fatal);
	if (text)
		cr_expect(strstr(err.u.error.text, text) != NULL, "'%s' does not say '%s'", err.u.error.text, text);
}

/* A raw peer that has joined (a WELCOME came, after the CHALLENGE), or was closed. */
static bool
raw_welcomed(void *ud)
{
	struct raw *r = ud;

	return r->closed || r->count[WIRE_WELCOME] > 0;
}

Test(rooms, unknown_codes_refused_and_guessing_limited)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct raw guess[5], maker;

	char room[16];

	setup(&t, &c, &d);
	c.lim.room_misses = 3;
	c.lim.room_window_ms = 400;
	th_server(&t, &c);
	for (int i = 0; i < 5; i++) {
		snprintf(room, sizeof room, "guess-%d", i);
		raw_start(&t, &guess[i]);
		raw_join_as(&guess[i], "guesser", room, false);
		th_run(&t, 5000, raw_done, &guess[i]);
	}
	for (int i = 0; i < 3; i++)
		expect_error(&guess[i], PERR_NO_ROOM, "no room 'guess-");
	expect_error(&guess[3], PERR_LIMIT, "too many unknown room codes");
	expect_error(&guess[4], PERR_LIMIT, "too many unknown room codes");
	cr_expect_eq(server_room_count(t.srv), 0, "a guess made a room");
	/* The window passes; asking to create makes the room. */
	uv_sleep(450);
	uv_update_time(&t.loop);
	raw_start(&t, &maker);
	raw_join_as(&maker, "maker", "made-here", true);
	th_run(&t, 5000, raw_welcomed, &maker);
	cr_expect(!maker.closed, "a room asked for was not made");
	cr_expect_eq(server_room_count(t.srv), 1);
	raw_close(&maker);
	th_finish(&t);
}

struct beat {
	uv_timer_t tm;
	struct raw *r;
};

static void
beat_tick(uv_timer_t *tm)
{
	struct beat *b = tm->data;
	uint8_t hb[2] = { WIRE_HEARTBEAT, 0 };
	if (!b->r->closed)
		raw_sealed(b->r, hb, 2);
}

Test(rooms, an_idle_lobby_is_closed)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct raw r;
	static struct beat b;

	setup(&t, &c, &d);
	c.lim.lobby_idle_ms = 400;
	th_server(&t, &c);
	raw_start(&t, &r);
	raw_join_as(&r, "squatter", "squat", true);
	uv_timer_init(&t.loop, &b.tm);
	b.tm.data = &b;
	b.r = &r;
	uv_timer_start(&b.tm, beat_tick, 100, 100); /* HEARTBEATs hold nothing */
	th_run(&t, 5000, raw_done, &r);
	expect_error(&r, PERR_TIMEOUT, "nothing but heartbeats");
	cr_expect_eq(server_room_count(t.srv), 0, "the squatted room is still there");
	uv_close((uv_handle_t *)&b.tm, NULL);
	th_finish(&t);
}

Test(rooms, a_frame_flood_meets_the_budget)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct raw r;
	uint8_t hb[400];

	setup(&t, &c, &d);
	c.lim.frames_per_s = 50;
	th_server(&t, &c);
	raw_start(&t, &r);
	raw_join_as(&r, "flooder", "flood", true);
	th_run(&t, 5000, raw_welcomed, &r);
	for (size_t i = 0; i < sizeof hb; i += 2) {
		hb[i] = WIRE_HEARTBEAT;
		hb[i + 1] = 0;
	}
	raw_sealed(&r, hb, sizeof hb); /* 200 HEARTBEATs at once, in one record */
	th_run(&t, 5000, raw_done, &r);
	expect_error(&r, PERR_LIMIT, "more than 50 frames in a second");
	th_finish(&t);
}

/* Protocol 4: a client never deflates, so the server holds no inflate state; any deflated
 * frame from a client, padding or data, good or bad, is refused from its header, unread. */
Test(rooms, deflated_frames_from_a_client_get_a_fatal_error)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct raw pad, bad;
	uint8_t frame[64];

	setup(&t, &c, &d);
	th_server(&t, &c);
	/* A deflated HEARTBEAT of 40 bytes: empty blocks that would inflate to nothing. */
	raw_start(&t, &pad);
	raw_join_as(&pad, "padder", "pad", true);
	th_run(&t, 5000, raw_welcomed, &pad);
	frame[0] = WIRE_HEARTBEAT | FRAME_DEFLATED;
	frame[1] = 40;
	for (int i = 0; i < 40; i += 5)
		memcpy(frame + 2 + i, "\x00\x00\x00\xff\xff", 5); /* empty stored blocks */
	raw_sealed(&pad, frame, 42);
	th_run(&t, 5000, raw_done, &pad);
	expect_error(&pad, PERR_STATE, "deflated HEARTBEAT: a client never deflates");
	/* A READY deflated (here as bad data): the ERROR still goes out. */
	raw_start(&t, &bad);
	raw_join_as(&bad, "breaker", "bad", true);
	th_run(&t, 5000, raw_welcomed, &bad);
	frame[0] = WIRE_READY | FRAME_DEFLATED;
	frame[1] = 12;
	memset(frame + 2, 0xff, 12);
	raw_sealed(&bad, frame, 14);
	th_run(&t, 5000, raw_done, &bad);
	expect_error(&bad, PERR_STATE, "deflated READY: a client never deflates");
	th_finish(&t);
}

/* A duel; its first player's token is kept from WELCOME. */
struct held {
	struct th *t;
	struct netbot a, b, a2;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	bool started;
	int a2_starts;
};

static void
a_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct held *h = ud;
	(void)b;
	if (m->type == WIRE_WELCOME) {
		h->token_len = m->u.welcome.token_len;
		memcpy(h->token, m->u.welcome.token, h->token_len);
	}
	if (m->type == WIRE_START)
		h->started = true;
}

static void
a2_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct held *h = ud;
	(void)b;
	if (m->type == WIRE_START && m->u.start.resumed)
		h->a2_starts++;
}

static bool
started(void *ud)
{
	return ((struct held *)ud)->started;
}

static bool
all_closed(void *ud)
{
	struct held *h = ud;
	return h->a.closed && h->b.closed && h->a2.closed;
}

static bool
a_closed(void *ud)
{
	return ((struct held *)ud)->a.closed;
}

/* Five wrong passwords from 127.0.0.1: locked out. */
static void
lock_out(struct th *t)
{
	static struct raw r[6];

	for (int i = 0; i < 6; i++) {
		raw_start(t, &r[i]);
		raw_join_as(&r[i], "mallory", "lock", true);
		th_run(t, 5000, raw_done, &r[i]);
	}
	expect_error(&r[4], PERR_AUTH, "wrong password");
	expect_error(&r[5], PERR_AUTH, "too many wrong passwords");
}

static void
held_duel(struct held *h, struct th *t, bool drop_first)
{
	struct netbot_config ca, cb, c2;

	memset(h, 0, sizeof *h);
	h->t = t;
	th_bot_config(t, &ca, "ada", BOT_NORMAL, 1, 1);
	th_bot_config(t, &cb, "bob", BOT_NORMAL, 2, 1);
	ca.net.room = cb.net.room = "held";
	ca.net.password = cb.net.password = "sesame";
	ca.think_ms = cb.think_ms = 30;
	ca.ud = h;
	ca.on_msg = a_msg;
	th_bot(t, &h->a, &ca);
	th_bot(t, &h->b, &cb);
	th_run(t, 10000, started, h);
	cr_assert(h->started);
	lock_out(t);
	if (drop_first) {
		net_abandon(h->a.net); /* a killed client: no BYE */
		th_run(t, 5000, a_closed, h);
	}
	/* The same player again, from the locked-out address, with its token. */
	th_bot_config(t, &c2, "ada", BOT_NORMAL, 3, 1);
	c2.net.room = "held";
	c2.net.password = "sesame";
	c2.net.token = h->token;
	c2.net.token_len = h->token_len;
	c2.think_ms = 30;
	c2.ud = h;
	c2.on_msg = a2_msg;
	th_bot(t, &h->a2, &c2);
	th_run(t, 60000, all_closed, h);
}

Test(rooms, a_resume_token_passes_a_lockout)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct held h;

	setup(&t, &c, &d);
	c.password = "sesame";
	th_server(&t, &c);
	held_duel(&h, &t, true);
	cr_expect_eq(h.a2_starts, 1, "the token was refused from a locked-out address");
	cr_expect_eq(h.a2.verified, 1, "%s", h.a2.last_why);
	cr_expect_eq(h.b.verified, 1, "%s", h.b.last_why);
	th_finish(&t);
}

/* The policy: a token shown while its seat is connected takes the seat; the old connection
 * gets BYE "replaced" and does not come back on its own. */
Test(rooms, a_token_shown_while_connected_replaces_the_holder)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct held h;

	setup(&t, &c, &d);
	c.password = "sesame";
	th_server(&t, &c);
	held_duel(&h, &t, false);
	cr_expect_eq(h.a2_starts, 1, "the new holder did not get the seat");
	cr_expect(strstr(h.a.last_why, "connected again") != NULL, "the old holder was told: '%s'", h.a.last_why);
	cr_expect_eq(h.a.games, 0, "the old holder played on");
	cr_expect_eq(h.a2.verified, 1, "%s", h.a2.last_why);
	cr_expect_eq(h.b.verified, 1, "%s", h.b.last_why);
	th_finish(&t);
}

Test(rooms, addresses_of_one_slash_64_count_as_one)
{
	struct sockaddr_in6 a, b, other;
	struct sockaddr_in v4;
	uint8_t ka[16], kb[16], ko[16], k4[16], km[16];
	char host[64];
	int port;

	uv_ip6_addr("2001:db8:1:2::1", 1, &a);
	uv_ip6_addr("2001:db8:1:2:ffff:1234:5678:9abc", 2, &b);
	uv_ip6_addr("2001:db8:1:3::1", 3, &other);
	uv_ip4_addr("192.0.2.7", 4, &v4);
	conn__addr_key((struct sockaddr *)&a, ka, host, sizeof host, &port);
	conn__addr_key((struct sockaddr *)&b, kb, host, sizeof host, &port);
	conn__addr_key((struct sockaddr *)&other, ko, host, sizeof host, &port);
	cr_expect(memcmp(ka, kb, 16) == 0, "two addresses of one /64 count apart");
	cr_expect(memcmp(ka, ko, 16) != 0, "two /64s count as one");
	conn__addr_key((struct sockaddr *)&v4, k4, host, sizeof host, &port);
	uv_ip6_addr("::ffff:192.0.2.7", 5, &a);
	conn__addr_key((struct sockaddr *)&a, km, host, sizeof host, &port);
	cr_expect(memcmp(k4, km, 16) == 0, "IPv4 through a dual-stack socket counts apart from IPv4");
	cr_expect_str_eq(host, "192.0.2.7", "named as IPv4");
}

#define MANY 150

struct many {
	struct raw *r;
	int n;
};

static bool
all_welcomed(void *ud)
{
	struct many *m = ud;

	for (int i = 0; i < m->n; i++)
		if (!raw_welcomed(&m->r[i]))
			return false;
	return true;
}

static bool
rooms_down_to(void *ud)
{
	struct th *t = ud;

	return server_room_count(t->srv) <= MANY / 2;
}

/* Rooms are found by hash: 150 rooms (the table grows from 64 buckets twice), each found by its
 * code and only by it; half of them go, and the rest are still found, the gone ones not. */
Test(rooms, many_rooms_found_by_code)
{
	struct th t;
	struct server_config c;
	static struct drops d;
	static struct raw r[MANY], late;
	struct many m = { r, MANY };
	char room[16];

	setup(&t, &c, &d);
	c.lim.max_conns_per_addr = 1000;
	c.lim.lobby_hold_ms = 100; /* a closed peer's seat (no BYE) is held a moment, then its room goes */
	th_server(&t, &c);
	for (int i = 0; i < MANY; i++) {
		snprintf(room, sizeof room, "many-%d", i);
		raw_start(&t, &r[i]);
		raw_join_as(&r[i], "maker", room, true);
	}
	th_run(&t, 20000, all_welcomed, &m);
	cr_assert_eq(server_room_count(t.srv), MANY, "%u rooms, %d drops (%s)", server_room_count(t.srv), d.n, d.why[0]);
	for (int i = 0; i < MANY; i++) {
		snprintf(room, sizeof room, "many-%d", i);
		struct gameroom *g = server_room(t.srv, room);
		cr_assert(g != NULL, "room %s not found", room);
		cr_expect_str_eq(g->code, room);
		cr_expect_eq(g->seat[0].conn != NULL, true);
	}
	cr_expect(server_room(t.srv, "many-150") == NULL);
	cr_expect(server_room(t.srv, "many-") == NULL);
	/* The odd ones leave: a lobby with nobody in it is gone. */
	for (int i = 1; i < MANY; i += 2)
		raw_close(&r[i]);
	th_run(&t, 10000, rooms_down_to, &t);
	cr_assert_eq(server_room_count(t.srv), MANY / 2);
	for (int i = 0; i < MANY; i++) {
		snprintf(room, sizeof room, "many-%d", i);
		cr_expect_eq(server_room(t.srv, room) != NULL, i % 2 == 0, "room %s %s", room,
		             i % 2 ? "still found after it went" : "lost");
	}
	/* A gone room is not made again by a join that does not ask for it. */
	raw_start(&t, &late);
	raw_join_as(&late, "late", "many-1", false);
	th_run(&t, 5000, raw_done, &late);
	expect_error(&late, PERR_NO_ROOM, "no room 'many-1'");
	for (int i = 0; i < MANY; i += 2)
		raw_close(&r[i]);
	th_finish(&t);
}
