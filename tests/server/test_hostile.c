/* SPDX-License-Identifier: MIT */
/* server/hostile: garbage, oversized frames, half-open handshakes, out-of-order messages and illegal moves:
 * each offender is dropped (or refused) with a reason; no game state changes wrongly; the server goes on. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct drops {
	int n;
	int codes[64];
};

static void
on_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	struct drops *d = ud;
	(void)c;
	(void)why;
	if (d->n < 64)
		d->codes[d->n] = code;
	d->n++;
}

static bool
raw_done(void *ud)
{
	struct raw *r = ud;
	return r->closed;
}

static void
hostile_setup(struct th *t, struct server_config *c, struct drops *d)
{
	th_init(t);
	th_config(c);
	c->multi = true;
	c->lim.handshake_ms = 300;
	c->hooks.ud = d;
	c->hooks.dropped = on_dropped;
	memset(d, 0, sizeof *d);
	th_server(t, c);
}

static void
expect_error(struct raw *r, int code)
{
	static struct wire_msg err;
	int nerr;

	raw_decode(r, &err, &nerr);
	cr_assert_geq(nerr, 1, "no ERROR before the drop (%zu bytes got)", r->ngot);
	cr_expect_eq(err.u.error.code, code, "ERROR %d (%s), expected %d", err.u.error.code, err.u.error.text, code);
	cr_expect(err.u.error.fatal);
	cr_expect(r->eof);
}

struct pair {
	struct netbot a, b;
};

static bool
pair_done(void *ud)
{
	struct pair *p = ud;
	return p->a.closed && p->b.closed;
}

static void
play_normal_game(struct th *t, const char *room)
{
	static struct pair p;
	struct netbot_config ca, cb;

	th_bot_config(t, &ca, "fair-a", BOT_NORMAL, 7, 1);
	th_bot_config(t, &cb, "fair-b", BOT_EASY, 8, 1);
	ca.net.room = cb.net.room = room;
	th_bot(t, &p.a, &ca);
	th_bot(t, &p.b, &cb);
	th_run(t, 60000, pair_done, &p);
	cr_expect_eq(p.a.verified, 1, "%s", p.a.last_why);
	cr_expect_eq(p.b.verified, 1, "%s", p.b.last_why);
}

Test(hostile, garbage_bytes)
{
	struct th t;
	struct server_config c;
	struct drops d;
	struct raw r;
	uint8_t junk[64];

	hostile_setup(&t, &c, &d);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)(i * 37 + 200);
	raw_start(&t, &r);
	raw_send(&r, junk, sizeof junk);
	th_run(&t, 5000, raw_done, &r);
	cr_expect_eq(d.n, 1);
	cr_expect_eq(r.ngot > 0, true);
	play_normal_game(&t, "after-garbage");
	th_finish(&t);
}

Test(hostile, oversized_frame)
{
	struct th t;
	struct server_config c;
	struct drops d;
	struct raw r;
	uint8_t hdr[PROTO_HEADER_MAX];
	static uint8_t body[16000];

	hostile_setup(&t, &c, &d);
	int hl = frame_header(hdr, WIRE_HELLO, false, sizeof body);
	raw_start(&t, &r);
	raw_send(&r, hdr, (size_t)hl);
	raw_send(&r, body, 1000); /* the header alone must be enough to refuse it */
	th_run(&t, 5000, raw_done, &r);
	expect_error(&r, PERR_FRAME_SIZE);
	play_normal_game(&t, "after-big");
	th_finish(&t);
}

Test(hostile, half_open_handshakes)
{
	struct th t;
	struct server_config c;
	struct drops d;
	static struct raw silent, hello_only;

	hostile_setup(&t, &c, &d);
	raw_start(&t, &silent);
	raw_start(&t, &hello_only);
	raw_hello(&hello_only); /* and then nothing inside the channel */
	th_run(&t, 5000, raw_done, &silent);
	th_run(&t, 5000, raw_done, &hello_only);
	expect_error(&silent, PERR_TIMEOUT);
	expect_error(&hello_only, PERR_TIMEOUT);
	cr_expect_eq(server_room_count(t.srv), 0, "a half-open handshake left a room behind");
	play_normal_game(&t, "after-lurk");
	th_finish(&t);
}

Test(hostile, out_of_turn_messages)
{
	struct th t;
	struct server_config c;
	struct drops d;
	static struct raw early_cmd, early_deflate, wrong_dir;
	static struct wire_msg m;
	uint8_t f[512];
	size_t n;

	hostile_setup(&t, &c, &d);
	/* A command before any HELLO. */
	raw_start(&t, &early_cmd);
	m.type = WIRE_CMD;
	m.u.cmd = (struct cmd){ CMD_PASS, 0, 0 };
	raw_send(&early_cmd, f, raw_frame(&m, f, sizeof f));
	/* A deflated frame before the join. */
	raw_start(&t, &early_deflate);
	wire_hello_init(&m);
	n = raw_frame(&m, f, sizeof f);
	f[0] |= FRAME_DEFLATED;
	raw_send(&early_deflate, f, n);
	/* A message only a server sends. */
	raw_start(&t, &wrong_dir);
	m.type = WIRE_PEER;
	m.u.peer = (struct wire_peer){ 0, PEER_GONE, 0 };
	raw_send(&wrong_dir, f, raw_frame(&m, f, sizeof f));
	th_run(&t, 5000, raw_done, &early_cmd);
	th_run(&t, 5000, raw_done, &early_deflate);
	th_run(&t, 5000, raw_done, &wrong_dir);
	expect_error(&early_cmd, PERR_STATE);
	expect_error(&early_deflate, PERR_EARLY_DEFLATE);
	expect_error(&wrong_dir, PERR_DIRECTION);
	play_normal_game(&t, "after-order");
	th_finish(&t);
}

/* A HELLO whose ephemeral key is a low-order point (the exchange gives the all-zero secret):
 * a fatal ERROR 21 (CRYPTO) in clear, in place of CHALLENGE, and the close; logged as the
 * peer's fault (the drop hook), not as a server that cannot send CHALLENGE. */
Test(hostile, a_low_order_hello_key_gets_a_crypto_error_in_clear)
{
	struct th t;
	struct server_config c;
	struct drops d;
	static struct raw r[3];
	static struct wire_msg m, err;
	uint8_t f[512];
	int nerr;
	/* u = 0 (order 2), u = 1 (order 4), and a point of order 8. */
	static const uint8_t keys[3][PROTO_KEY_LEN] = {
		{ 0 },
		{ 1 },
		{ 0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
		  0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00 },
	};

	hostile_setup(&t, &c, &d);
	for (int i = 0; i < 3; i++) {
		raw_start(&t, &r[i]);
		wire_hello_init(&m);
		memcpy(m.u.hello.e, keys[i], PROTO_KEY_LEN);
		raw_send(&r[i], f, raw_frame(&m, f, sizeof f));
		th_run(&t, 5000, raw_done, &r[i]);
		/* raw_decode reads as a client before the handshake: only a clear ERROR decodes. */
		raw_decode(&r[i], &err, &nerr);
		cr_expect_eq(nerr, 1, "key %d: %d ERRORs in clear (%zu bytes got)", i, nerr, r[i].ngot);
		cr_expect_eq(r[i].count[WIRE_CHALLENGE], 0, "key %d: a CHALLENGE was sent", i);
		cr_expect_eq(err.u.error.code, PERR_CRYPTO, "key %d: ERROR %d (%s)", i, err.u.error.code, err.u.error.text);
		cr_expect(err.u.error.fatal);
		cr_expect(strstr(err.u.error.text, "X25519") != NULL, "%s", err.u.error.text);
		cr_expect(r[i].eof, "key %d: not closed", i);
	}
	cr_expect_eq(d.n, 3);
	for (int i = 0; i < 3 && i < d.n; i++)
		cr_expect_eq(d.codes[i], PERR_CRYPTO, "drop %d: code %d", i, d.codes[i]);
	play_normal_game(&t, "after-low-order");
	th_finish(&t);
}

Test(hostile, connections_per_address)
{
	struct th t;
	struct server_config c;
	struct drops d;
	static struct raw r[6];

	hostile_setup(&t, &c, &d);
	t.srv->cfg.lim.max_conns_per_addr = 4;
	for (int i = 0; i < 6; i++)
		raw_start(&t, &r[i]);
	th_run(&t, 5000, raw_done, &r[5]);
	th_run(&t, 5000, raw_done, &r[4]);
	expect_error(&r[4], PERR_SERVER);
	expect_error(&r[5], PERR_SERVER);
	for (int i = 0; i < 4; i++)
		raw_close(&r[i]);
	th_run(&t, 5000, raw_done, &r[3]);
	t.srv->cfg.lim.max_conns_per_addr = 64;
	play_normal_game(&t, "after-flood");
	th_finish(&t);
}

/* A player that sends every kind of illegal command: refused each time, the state untouched. */
struct cheat {
	struct th *t;
	uint64_t hash_before;
	int tries, refused_ok, refused_bad;
	struct netbot bot, other;
	struct rng rng;
};

static bool
cheat_choose(void *ud, struct netbot *b, const struct view *v, struct cmd *out)
{
	struct cheat *ch = ud;
	struct gameroom *r = server_room(ch->t->srv, "cheat");

	(void)b;
	(void)v;
	if (rng_below(&ch->rng, 3) == 0)
		return false; /* a real move now and then, so that the duel goes on */
	out->type = (uint8_t)rng_below(&ch->rng, CMD_COUNT);
	out->arg = (uint8_t)rng_below(&ch->rng, 12);
	out->dir = (uint8_t)rng_below(&ch->rng, 10);
	if (out->type == CMD_RESIGN)
		out->type = CMD_CAST;
	ch->hash_before = r ? game_hash(room_game(r)) : 0;
	ch->tries++;
	return true;
}

static void
cheat_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct cheat *ch = ud;
	struct gameroom *r = server_room(ch->t->srv, "cheat");

	(void)b;
	if (m->type == WIRE_ERROR && m->u.error.code >= PERR_REFUSED_BASE && r) {
		if (game_hash(room_game(r)) == ch->hash_before)
			ch->refused_ok++;
		else
			ch->refused_bad++;
	}
}

/* The other player's commands, sent out of turn, are refused too. */
static bool
eager_choose(void *ud, struct netbot *b, const struct view *v, struct cmd *out)
{
	(void)ud;
	(void)v;
	struct cmd step = { CMD_STEP, 0, DIR_N };
	net_cmd(b->net, &step); /* a second command right behind the first: often out of turn */
	(void)out;
	return false;
}

static bool
cheat_done(void *ud)
{
	struct cheat *ch = ud;
	return ch->bot.closed && ch->other.closed;
}

Test(hostile, illegal_moves)
{
	static struct cheat ch;
	struct th t;
	struct server_config c;
	struct drops d;
	struct netbot_config ca, cb;

	hostile_setup(&t, &c, &d);
	memset(&ch, 0, sizeof ch);
	ch.t = &t;
	rng_seed(&ch.rng, 99);
	th_bot_config(&t, &ca, "cheater", BOT_HARD, 1, 2);
	th_bot_config(&t, &cb, "eager", BOT_NORMAL, 2, 2);
	ca.net.room = cb.net.room = "cheat";
	ca.ud = &ch;
	ca.choose = cheat_choose;
	ca.on_msg = cheat_msg;
	cb.choose = eager_choose;
	/* Refusals are the point here, not rates: the cheater sends two commands per view at
	 * full speed, which a real server's frame budget would stop (test_limits). */
	t.srv->cfg.lim.frames_per_s = 1000000;
	th_bot(&t, &ch.bot, &ca);
	th_bot(&t, &ch.other, &cb);
	th_run(&t, 120000, cheat_done, &ch);
	cr_expect_eq(ch.bot.games, 2, "%s", ch.bot.last_why);
	cr_expect_eq(ch.bot.verified, 2, "%s", ch.bot.last_why);
	cr_expect_eq(ch.other.verified, 2, "%s", ch.other.last_why);
	cr_expect_gt(ch.refused_ok, 20, "only %d refusals", ch.refused_ok);
	cr_expect_eq(ch.refused_bad, 0, "%d refusals changed the state", ch.refused_bad);
	cr_expect_gt(ch.other.refused, 0);
	cr_expect_eq(d.n, 0, "a legal-but-refused player was dropped");
	th_finish(&t);
}
