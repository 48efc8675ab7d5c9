/* SPDX-License-Identifier: MIT */
/* server/limits: the write-queue cap (a peer that stops reading), the idle timeout after the join (in the
 * lobby and in a duel) and the handshake timeout, each with short limits from the config and timed. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

struct drop_rec {
	int n;
	int code[16];
	char why[16][PROTO_REASON_BYTES + 1];
	char name[16][PROTO_NAME_BYTES + 1];
	uint64_t at[16];
	size_t queued[16];
	struct th *t;
};

static void
rec_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	struct drop_rec *d = ud;

	if (d->n < 16) {
		d->code[d->n] = code;
		snprintf(d->why[d->n], sizeof d->why[d->n], "%s", why);
		snprintf(d->name[d->n], sizeof d->name[d->n], "%s", c->who.name);
		d->at[d->n] = uv_now(&d->t->loop);
		d->queued[d->n] = c->queued;
	}
	d->n++;
}

/* How late a limit may be seen to act: the server checks its limits every tick (50 ms in these
 * tests), and a loaded machine runs the loop late, by 400 ms and more at a load average of 20
 * (the bound was 300 ms, and 1 run in about 185 failed there). A limit never applied still fails:
 * each wait below ends at 5 s. */
#define LATE_MS 1000

static void
limits_setup(struct th *t, struct server_config *c, struct drop_rec *d)
{
	memset(d, 0, sizeof *d);
	d->t = t;
	th_init(t);
	th_config(c);
	c->multi = true;
	c->hooks.ud = d;
	c->hooks.dropped = rec_dropped;
}

/* The messages a raw peer got, by type. */
static int
count_type(const struct raw *r, int type)
{
	return r->count[type];
}

static void
last_error(const struct raw *r, struct wire_msg *err)
{
	int nerr;

	raw_decode(r, err, &nerr);
	cr_assert_geq(nerr, 1, "no ERROR before the drop (%zu bytes got)", r->ngot);
}

/* Raw peers, with the time each was seen closed (the loop polls every 10 ms). */
struct watch {
	struct th *t;
	struct raw *r[4];
	int n;
	uint64_t closed_at[4];
	uint64_t until;      /* 0, or: stop at this time */
};

static bool
watch_poll(void *ud)
{
	struct watch *w = ud;
	uint64_t now = uv_now(&w->t->loop);
	bool all = true;

	for (int i = 0; i < w->n; i++) {
		if (w->r[i]->eof && !w->closed_at[i])
			w->closed_at[i] = now;
		all = all && w->closed_at[i];
	}
	return w->until ? now >= w->until : all;
}

/* A raw peer that sends a HEARTBEAT every 100 ms while it is connected. */
struct beater {
	uv_timer_t tm;
	struct raw *r;
	int sent;
};

static void
on_beat(uv_timer_t *tm)
{
	struct beater *b = tm->data;
	static struct wire_msg m;

	if (!b->r->connected || b->r->eof || !b->r->pc.secure)
		return;
	m.type = WIRE_HEARTBEAT;
	raw_msg(b->r, &m);
	b->sent++;
}

static void
beater_start(struct th *t, struct beater *b, struct raw *r)
{
	memset(b, 0, sizeof *b);
	b->r = r;
	uv_timer_init(&t->loop, &b->tm);
	b->tm.data = b;
	uv_timer_start(&b->tm, on_beat, 100, 100);
}

Test(limits, handshake_timeout)
{
	struct th t;
	struct server_config c;
	static struct drop_rec d;
	static struct raw silent, beating, hello_only, joined;
	static struct watch w;
	static struct beater b;
	static struct wire_msg err;

	limits_setup(&t, &c, &d);
	c.lim.handshake_ms = 400;
	c.lim.idle_ms = 10000;
	th_server(&t, &c);
	uint64_t t0 = uv_now(&t.loop);
	raw_start(&t, &silent);
	raw_start(&t, &beating);   /* HEARTBEATs may cross before the join (inside the channel), but do not extend it */
	raw_start(&t, &hello_only);
	raw_start(&t, &joined);    /* a whole handshake at once: not dropped */
	beater_start(&t, &b, &beating);
	raw_hello(&beating);
	raw_hello(&hello_only);
	raw_join(&joined, "prompt", "lurk");
	memset(&w, 0, sizeof w);
	w.t = &t;
	w.r[0] = &silent;
	w.r[1] = &beating;
	w.r[2] = &hello_only;
	w.n = 3;
	th_run(&t, 5000, watch_poll, &w);
	for (int i = 0; i < 3; i++) {
		uint64_t took = w.closed_at[i] - t0;
		cr_expect_geq(took, 400, "peer %d dropped after %lu ms, before the handshake limit", i, (unsigned long)took);
		cr_expect_leq(took, 400 + 50 + LATE_MS, "peer %d dropped only after %lu ms", i, (unsigned long)took);
		last_error(w.r[i], &err);
		cr_expect_eq(err.u.error.code, PERR_TIMEOUT);
		cr_expect(err.u.error.fatal);
		cr_expect_str_eq(err.u.error.text, "the handshake took too long");
	}
	cr_expect_geq(b.sent, 2, "the beating peer sent no HEARTBEAT before it was dropped");
	cr_expect_eq(d.n, 3, "%d drops", d.n);
	/* The peer that joined in time is still there, well past the limit. */
	w.until = uv_now(&t.loop) + 400;
	th_run(&t, 5000, watch_poll, &w);
	cr_expect(!joined.eof, "a joined peer was dropped by the handshake limit");
	cr_expect_eq(count_type(&joined, WIRE_WELCOME), 1);
	cr_expect_eq(server_conn_count(t.srv), 1);
	cr_expect_eq(server_room_count(t.srv), 1);
	uv_close((uv_handle_t *)&b.tm, NULL);
	raw_close(&joined);
	raw_close(&silent);
	raw_close(&beating);
	raw_close(&hello_only);
	th_finish(&t);
}

Test(limits, idle_timeout_after_the_join)
{
	struct th t;
	struct server_config c;
	static struct drop_rec d;
	static struct raw silent, beating;
	static struct watch w;
	static struct beater b;
	static struct wire_msg err;

	limits_setup(&t, &c, &d);
	c.lim.handshake_ms = 10000;
	c.lim.idle_ms = 600;
	c.lim.heartbeat_ms = 200;
	c.lim.lobby_hold_ms = 300; /* a silent peer's seat is held as any dropped one's, then freed */
	th_server(&t, &c);
	uint64_t t0 = uv_now(&t.loop);
	raw_start(&t, &silent);
	raw_start(&t, &beating);
	raw_join(&silent, "silent", "hush");
	raw_join(&beating, "beating", "hush");
	beater_start(&t, &b, &beating);
	memset(&w, 0, sizeof w);
	w.t = &t;
	w.r[0] = &silent;
	w.n = 1;
	th_run(&t, 5000, watch_poll, &w);
	uint64_t took = w.closed_at[0] - t0;
	cr_expect_geq(took, 600, "dropped after %lu ms, before the idle limit", (unsigned long)took);
	cr_expect_leq(took, 600 + 50 + LATE_MS, "dropped only after %lu ms", (unsigned long)took);
	cr_expect_eq(count_type(&silent, WIRE_WELCOME), 1, "the silent peer never joined");
	/* The server kept its side alive meanwhile: HEARTBEATs after 200 ms of quiet. */
	cr_expect_geq(count_type(&silent, WIRE_HEARTBEAT), 1, "no HEARTBEAT from the server");
	last_error(&silent, &err);
	cr_expect_eq(err.u.error.code, PERR_TIMEOUT);
	cr_expect(err.u.error.fatal);
	cr_expect_eq(d.n, 1);
	cr_expect_str_eq(d.name[0], "silent");
	/* The peer that sends HEARTBEATs stays, well past the limit, and was told the other
	 * dropped (its seat held, as for any drop in the lobby) and then, the hold over, left. */
	w.until = uv_now(&t.loop) + 300 + LATE_MS; /* the hold, seen late */
	th_run(&t, 5000, watch_poll, &w);
	cr_expect(!beating.eof, "a peer sending HEARTBEATs was dropped");
	cr_expect_eq(d.n, 1);
	cr_expect_eq(count_type(&beating, WIRE_PEER), 2);
	struct gameroom *r = server_room(t.srv, "hush");
	cr_assert_not_null(r);
	cr_expect(r->seat[0].taken != r->seat[1].taken, "the silent peer's seat was not freed");
	uv_close((uv_handle_t *)&b.tm, NULL);
	raw_close(&beating);
	th_finish(&t);
}

/* In a duel, a silent player is dropped like any other; its seat is held, the other player
 * is told, and it forfeits when the grace runs out. */
struct idle_duel {
	struct th *t;
	struct netbot sleeper, awake;
	uint64_t started, peer_dropped_at, end_at;
	int end_reason;
};

static void
awake_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct idle_duel *s = ud;
	uint64_t now = uv_now(&s->t->loop);

	(void)b;
	if (m->type == WIRE_START && !s->started)
		s->started = now;
	if (m->type == WIRE_PEER && m->u.peer.state == PEER_DROPPED && !s->peer_dropped_at)
		s->peer_dropped_at = now;
	if (m->type == WIRE_END && !s->end_at) {
		s->end_at = now;
		s->end_reason = m->u.end.reason;
	}
}

static bool
idle_done(void *ud)
{
	struct idle_duel *s = ud;
	return s->sleeper.closed && s->awake.closed;
}

Test(limits, idle_timeout_in_a_duel)
{
	static struct idle_duel s;
	static struct drop_rec d;
	struct th t;
	struct server_config c;
	struct netbot_config cs, ca;

	memset(&s, 0, sizeof s);
	s.t = &t;
	limits_setup(&t, &c, &d);
	c.lim.idle_ms = 500;
	c.lim.heartbeat_ms = 150;
	c.lim.grace_ms = 400;
	th_server(&t, &c);
	th_bot_config(&t, &cs, "sleeper", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &ca, "awake", BOT_NORMAL, 2, 1);
	cs.net.room = ca.net.room = "nap";
	cs.passive = true;              /* never moves ... */
	cs.net.heartbeat_ms = 600000;   /* ... and never says anything */
	cs.net.idle_ms = 600000;
	ca.net.heartbeat_ms = 100;
	ca.ud = &s;
	ca.on_msg = awake_msg;
	th_bot(&t, &s.sleeper, &cs);
	th_bot(&t, &s.awake, &ca);
	th_run(&t, 10000, idle_done, &s);
	cr_assert(s.started, "the duel never started");
	cr_assert(s.peer_dropped_at, "the other player was not told of the silent one");
	uint64_t took = s.peer_dropped_at - s.started;
	cr_expect_leq(took, 500 + 50 + LATE_MS, "the silent player was noticed only after %lu ms", (unsigned long)took);
	cr_expect_eq(d.n, 1, "%d drops", d.n);
	cr_expect_str_eq(d.name[0], "sleeper");
	cr_expect_eq(d.code[0], PERR_TIMEOUT);
	cr_assert(s.end_at, "no forfeit after the grace");
	cr_expect_eq(s.end_reason, END_RESIGNED);
	/* From the server's drop (the grace timer's own start): not sooner than the grace. */
	cr_expect_geq(s.end_at - d.at[0], 400, "forfeit %lu ms after the drop, before the grace ran out",
	              (unsigned long)(s.end_at - d.at[0]));
	cr_expect_eq(s.awake.wins, 1, "the one who stayed must win by forfeit");
	cr_expect_eq(s.awake.verified, 1, "%s", s.awake.last_why);
	cr_expect_eq(s.sleeper.last_error, PERR_TIMEOUT, "the silent player was not told why");
	th_finish(&t);
}

/* A peer that never reads: the server queues for it up to max_queued, then drops it; the
 * room and the other player go on. */
static void
deaf_start(struct th *t, struct raw *d, const char *room)
{
	raw_start_small(t, d);
	d->deaf = true; /* through the handshake, then it never reads again */
	raw_join(d, "deaf", room);
}

struct flood {
	struct th *t;
	struct drop_rec *d;
	struct netbot loud, late;
	bool late_started;
	struct rng rng;
	bool flooding, stopped, after_sent, after_echo;
	long chats, echoes;
	int peer_gone;
};

static void
flood_chat(struct flood *f, struct netbot *b)
{
	char text[201];

	/* Printable noise that deflate cannot squeeze much. */
	for (int i = 0; i < 200; i++)
		text[i] = (char)(0x21 + rng_below(&f->rng, 94));
	text[200] = '\0';
	cr_assert_eq(net_chat(b->net, text), 0);
	f->chats++;
}

static void
loud_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct flood *f = ud;

	if (m->type == WIRE_LOBBY && m->u.lobby.present == 3 && !f->flooding && !f->stopped) {
		f->flooding = true;
		for (int i = 0; i < 32; i++)
			flood_chat(f, b);
	}
	if (m->type == WIRE_PEER && m->u.peer.state == PEER_GONE)
		f->peer_gone++;
	/* Ready only for the duel after the flood (the bot readies once per lobby by itself). */
	if (m->type == WIRE_LOBBY && f->stopped && m->u.lobby.present == 3 &&
	    !(m->u.lobby.ready & (1u << net_player(b->net))))
		net_ready(b->net, true);
	if (m->type != WIRE_CHAT || m->u.chat.from != net_player(b->net))
		return;
	f->echoes++;
	if (f->after_sent && strcmp(m->u.chat.text, "still here") == 0) {
		f->after_echo = true;
		return;
	}
	if (f->d->n > 0 || f->chats > 200000) {
		/* The deaf peer is gone (or never will be: a failure below). */
		f->flooding = false;
		f->stopped = true;
		if (!f->after_sent) {
			f->after_sent = true;
			cr_assert_eq(net_chat(b->net, "still here"), 0);
		}
		return;
	}
	if (f->flooding)
		flood_chat(f, b);
}

static bool
flood_stopped(void *ud)
{
	struct flood *f = ud;
	return f->after_echo && f->peer_gone && server_conn_count(f->t->srv) == 1;
}

static bool
flood_done(void *ud)
{
	struct flood *f = ud;
	return f->loud.closed && f->late.closed;
}

Test(limits, write_queue_cap)
{
	static struct flood f;
	static struct drop_rec d;
	static struct raw deaf;
	struct th t;
	struct server_config c;
	struct netbot_config cl, cn;

	memset(&f, 0, sizeof f);
	f.t = &t;
	f.d = &d;
	rng_seed(&f.rng, 42);
	limits_setup(&t, &c, &d);
	c.lim.chat_burst = 1000000; /* the flood is the point here */
	c.lim.frames_per_s = 1000000;
	c.lim.inflated_per_s = 1u << 30;
	c.lim.lobby_hold_ms = 200; /* the dropped peer's seat is held a while, as any lobby drop's */
	cr_assert_eq(c.lim.max_queued, 256 * 1024, "the documented default");
	th_server(&t, &c);
	deaf_start(&t, &deaf, "flood");
	th_bot_config(&t, &cl, "loud", BOT_NORMAL, 3, 1);
	cl.net.room = "flood";
	cl.ready = false;
	cl.ud = &f;
	cl.on_msg = loud_msg;
	th_bot(&t, &f.loud, &cl);
	th_run(&t, 30000, flood_stopped, &f);
	cr_assert_eq(d.n, 1, "%d drops after %ld chats", d.n, f.chats);
	cr_log_info("the deaf peer was dropped after %ld chats, %zu bytes queued", f.chats, d.queued[0]);
	cr_expect_eq(d.code[0], PERR_TIMEOUT);
	cr_expect_str_eq(d.why[0], "write queue full");
	cr_expect_str_eq(d.name[0], "deaf");
	/* Dropped at the cap, not before: what was queued and the frame that did not fit pass it. */
	cr_expect_leq(d.queued[0], c.lim.max_queued);
	cr_expect_gt(d.queued[0], c.lim.max_queued - 4096, "dropped with only %zu bytes queued", d.queued[0]);
	cr_expect(f.after_echo, "the other player's chat was not relayed after the drop");
	/* Every chat came back to its sender, the one whose relay overflowed the deaf peer too
	 * (dropping it must not disturb the rest of that relay). */
	cr_expect_eq(f.echoes, f.chats + 1, "%ld chats sent, %ld came back", f.chats + 1, f.echoes);
	cr_expect_eq(f.peer_gone, 1);
	cr_expect_eq(f.loud.errors, 0, "%s", f.loud.last_why);
	/* The room goes on: a new player takes the free seat and they play a whole duel. */
	th_bot_config(&t, &cn, "late", BOT_NORMAL, 4, 1);
	cn.net.room = "flood";
	th_bot(&t, &f.late, &cn);
	th_run(&t, 60000, flood_done, &f);
	cr_expect_eq(f.loud.verified, 1, "%s", f.loud.last_why);
	cr_expect_eq(f.late.verified, 1, "%s", f.late.last_why);
	raw_close(&deaf);
	th_finish(&t);
}

/* WELCOME says the grace in a u16 of seconds: a server refuses to start with one it could not tell
 * (or none at all), and takes the longest one that fits. */
Test(limits, grace_must_fit_welcome)
{
	struct th t;
	struct server_config c;
	struct server *s = NULL;
	char why[200];
	const unsigned refused[] = { 0, PROTO_HOLD_MAX * 1000u + 1, 86400000 };

	th_init(&t);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		th_config(&c);
		c.lim.grace_ms = refused[i];
		why[0] = '\0';
		cr_expect_eq(server_create(&t.loop, &c, &s, why, sizeof why), -1, "a grace of %u ms was taken", refused[i]);
		cr_expect(strstr(why, "grace must be 1 to 65535 seconds"), "%s", why);
		cr_expect_null(s);
	}
	th_config(&c);
	c.lim.grace_ms = PROTO_HOLD_MAX * 1000u;
	th_server(&t, &c);
	th_finish(&t);
}

/* A duel's chat is capped by its turn log's size (the issue: one peer holding both seats of an
 * untimed duel chatted a log past the 16 MiB a resume reads). A player who says 400 lines of
 * 200 bytes at the start of a duel with a 32 KiB cap: the lines up to the cap are relayed and
 * logged, the rest refused with a non-fatal LIMIT that says why; the duel plays on to its end,
 * both players verify it, and the log on disk loads, its chat the lines relayed. */
struct chatter {
	int said, echoes, capped, other_errors;
	char why[PROTO_REASON_BYTES + 1];
};

static void
chatter_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct chatter *ch = ud;
	char text[201];

	if (m->type == WIRE_START && ch->said == 0) {
		for (int i = 0; i < 400; i++) {
			memset(text, 'a' + i % 26, 200);
			text[200] = '\0';
			cr_assert_eq(net_chat(b->net, text), 0);
			ch->said++;
		}
	}
	if (m->type == WIRE_CHAT && m->u.chat.from == net_player(b->net))
		ch->echoes++;
	if (m->type == WIRE_ERROR && m->u.error.code == PERR_LIMIT && !m->u.error.fatal) {
		ch->capped++;
		snprintf(ch->why, sizeof ch->why, "%s", m->u.error.text);
	} else if (m->type == WIRE_ERROR && m->u.error.code < PERR_REFUSED_BASE) {
		ch->other_errors++;
	}
}

static bool
both_closed(void *ud)
{
	struct netbot *b = ud;
	return b[0].closed && b[1].closed;
}

Test(limits, a_duels_chat_is_capped_and_its_log_still_loads)
{
	static struct netbot b[2];
	static struct chatter ch;
	static struct drop_rec d;
	static struct tlog_resume res;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	char dir[] = "/tmp/wizwar-chatcap.XXXXXX", why[256], path[512];
	int lines = 0;

	cr_assert_not_null(mkdtemp(dir));
	limits_setup(&t, &c, &d);
	c.multi = false;
	c.log_dir = dir;
	c.lim.chat_burst = 1000000;
	c.lim.log_chat_until = 32 * 1024;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "chatty", BOT_NORMAL, 5, 1);
	th_bot_config(&t, &cb, "quiet", BOT_NORMAL, 6, 1);
	ca.ud = &ch;
	ca.on_msg = chatter_msg;
	ca.think_ms = cb.think_ms = 5;
	th_bot(&t, &b[0], &ca);
	th_bot(&t, &b[1], &cb);
	th_run(&t, 60000, both_closed, b);
	cr_assert(!t.timed_out, "the duel did not end");
	cr_expect_eq(b[0].verified, 1, "%s", b[0].last_why);
	cr_expect_eq(b[1].verified, 1, "%s", b[1].last_why);
	cr_expect_eq(ch.other_errors, 0);
	cr_expect_gt(ch.echoes, 100, "only %d lines relayed before the cap", ch.echoes);
	cr_expect_lt(ch.echoes, 200, "%d lines of 200 bytes relayed under a 32 KiB cap", ch.echoes);
	cr_expect_eq(ch.echoes + ch.capped, ch.said, "%d said, %d relayed, %d refused", ch.said, ch.echoes, ch.capped);
	cr_expect(strstr(ch.why, "full of chat") != NULL, "refused with '%s'", ch.why);
	cr_assert_not_null(server_last_log(t.srv), "no log on disk");
	snprintf(path, sizeof path, "%s", server_last_log(t.srv));
	th_finish(&t);
	cr_assert_eq(tlog_load(path, &res, why, sizeof why), 0, "%s", why);
	cr_expect(res.ended);
	for (const char *p = res.text; (p = strstr(p, "\nchat 0 ")) != NULL; p++)
		lines++;
	cr_expect_eq(lines, ch.echoes, "%d chat lines in the log, %d relayed", lines, ch.echoes);
	cr_expect_lt(res.len, 32 * 1024 + 512 + 256 * 1024, "a log of %zu bytes", res.len);
	tlog_resume_free(&res);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir); /* the log tree by date (logtree.h) */
	cr_expect_eq(system(cmd), 0);
}
