/* SPDX-License-Identifier: MIT */
/* server/seed: the seed the host cannot choose: the server's committed part and the players' parts, checked by
 * the real client against the real server, and against a hostile server written here that lies about them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

/* ---- the real server ---- */

struct watch {
	struct netbot a, b;
	int starts, ends;
	uint8_t lobby_commit[2][PROTO_COMMIT_LEN]; /* a's: the last LOBBY's before each START */
	uint8_t start_commit[2][PROTO_COMMIT_LEN];
	uint8_t lobby_parts[2];
	bool start_chosen[2];
	struct wire_end end[2];
	char why_a[2][800], why_b[2][800];
};

static bool
both_closed(void *ud)
{
	struct watch *w = ud;
	return w->a.closed && w->b.closed;
}

static void
a_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct watch *w = ud;

	(void)b;
	if (m->type == WIRE_LOBBY && w->starts < 2 && net_phase(w->a.net) == NET_LOBBY) {
		memcpy(w->lobby_commit[w->starts], m->u.lobby.commit, PROTO_COMMIT_LEN);
		w->lobby_parts[w->starts] = m->u.lobby.parts;
	}
	if (m->type == WIRE_START && !m->u.start.resumed && w->starts < 2) {
		memcpy(w->start_commit[w->starts], m->u.start.commit, PROTO_COMMIT_LEN);
		w->start_chosen[w->starts] = m->u.start.chosen;
		w->starts++;
	}
}

static void
a_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct watch *w = ud;

	(void)b;
	(void)verified;
	if (w->ends < 2) {
		w->end[w->ends] = *e;
		snprintf(w->why_a[w->ends], sizeof w->why_a[0], "%s", why);
	}
	w->ends++;
}

static void
b_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct watch *w = ud;

	(void)verified;
	(void)e;
	if (b->games >= 1 && b->games <= 2)
		snprintf(w->why_b[b->games - 1], sizeof w->why_b[0], "%s", why);
}

/* Two duels between two players on a server that plays no seat: both parts, a new commitment each duel. */
Test(seed, both_parts_and_a_new_commitment_each_duel)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	static struct watch w;

	memset(&w, 0, sizeof w);
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "bob", BOT_RANDOM, 2, 2);
	ca.ud = cb.ud = &w;
	ca.on_msg = a_msg;
	ca.on_end = a_end;
	cb.on_end = b_end;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_assert_eq(w.a.verified, 2, "%s", w.a.last_why);
	cr_assert_eq(w.b.verified, 2, "%s", w.b.last_why);
	for (int d = 0; d < 2; d++) {
		const struct wire_end *e = &w.end[d];
		uint8_t commit[PROTO_COMMIT_LEN];

		cr_expect_eq(w.lobby_parts[d], 3, "the LOBBY announced both players' parts");
		cr_expect(memcmp(w.lobby_commit[d], w.start_commit[d], PROTO_COMMIT_LEN) == 0,
		          "START carries the commitment the LOBBY made before the parts");
		auth_seed_commit(e->server_part, commit);
		cr_expect(memcmp(commit, w.start_commit[d], PROTO_COMMIT_LEN) == 0, "END reveals the committed part");
		cr_expect_eq(e->parts, 3);
		cr_expect_eq(e->seed, auth_seed_mix(e->server_part, e->parts, e->part), "the seed is the hash of the parts");
		cr_expect_not(w.start_chosen[d]);
		cr_expect(strstr(w.why_a[d], "seed made with your part and the other player's, log verified"), "%s",
		          w.why_a[d]);
		cr_expect(strstr(w.why_b[d], "seed made with your part and the other player's, log verified"), "%s",
		          w.why_b[d]);
	}
	cr_expect(memcmp(w.start_commit[0], w.start_commit[1], PROTO_COMMIT_LEN) != 0, "a new commitment for the rematch");
	cr_expect(memcmp(w.end[0].server_part, w.end[1].server_part, PROTO_PART_LEN) != 0, "a new server part");
	cr_expect(memcmp(w.end[0].part[0], w.end[1].part[0], PROTO_PART_LEN) != 0, "a new part of each player");
	th_finish(&t);
}

/* A host's own seat (reserved in-process, as `wizwar host` does): its part does not count, the joiner's does. */
Test(seed, the_hosts_own_part_does_not_count)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	static struct watch w;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;

	memset(&w, 0, sizeof w);
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	cr_assert_eq(server_reserve_host(t.srv, "hana", token, &token_len), 0);
	th_bot_config(&t, &ca, "hana", BOT_NORMAL, 1, 1);
	ca.net.token = token;
	ca.net.token_len = token_len;
	th_bot_config(&t, &cb, "joiner", BOT_RANDOM, 2, 1);
	ca.ud = cb.ud = &w;
	ca.on_msg = a_msg;
	ca.on_end = a_end;
	cb.on_end = b_end;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_assert_eq(w.a.verified, 1, "%s", w.a.last_why);
	cr_assert_eq(w.b.verified, 1, "%s", w.b.last_why);
	cr_expect_eq(w.lobby_parts[0], 2, "the LOBBY announced the joiner's part alone");
	cr_expect_eq(w.end[0].parts, 2);
	cr_expect_eq(w.end[0].seed, auth_seed_mix(w.end[0].server_part, 2, w.end[0].part));
	cr_expect(strstr(w.why_b[0], "seed made with your part, log verified"), "the joiner: %s", w.why_b[0]);
	cr_expect(strstr(w.why_a[0], "your seat is the host's"), "the host: %s", w.why_a[0]);
	th_finish(&t);
}

/* host --seed: START says so, END uses no part, both lines say the host chose the level; the rematch draws. */
Test(seed, a_chosen_seed_is_told)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	static struct watch w;

	memset(&w, 0, sizeof w);
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 1234;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 2);
	th_bot_config(&t, &cb, "bob", BOT_RANDOM, 2, 2);
	ca.ud = cb.ud = &w;
	ca.on_msg = a_msg;
	ca.on_end = a_end;
	cb.on_end = b_end;
	th_bot(&t, &w.a, &ca);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 60000, both_closed, &w);
	cr_assert_eq(w.a.verified, 2, "%s", w.a.last_why);
	cr_assert_eq(w.b.verified, 2, "%s", w.b.last_why);
	cr_expect(w.start_chosen[0], "START says the host chose the seed");
	cr_expect_eq(w.end[0].seed, 1234);
	cr_expect_eq(w.end[0].parts, 0);
	cr_expect(strstr(w.why_a[0], "the host chose this level"), "%s", w.why_a[0]);
	cr_expect(strstr(w.why_b[0], "the host chose this level"), "%s", w.why_b[0]);
	cr_expect_not(w.start_chosen[1], "the rematch's seed is drawn");
	cr_expect_eq(w.end[1].parts, 3);
	cr_expect(strstr(w.why_b[1], "seed made with your part"), "%s", w.why_b[1]);
	th_finish(&t);
}

/* ---- a hostile server, written here, against the real client ----
 * It speaks the protocol as a host would (the host's seat is its own), starts a duel the
 * moment the joiner is ready, resigns for its own seat at once, and reveals at END what its
 * `lie` says: the truth, or a seed made without the joiner's part, or a part that is not
 * the one committed to, or a commitment changed after the joiner's part came, or a part of
 * its own mixed in after all, or a "mirror rematch" (a seed of its choosing, no part) the
 * joiner never asked for. */

enum lie { HONEST, NOT_YOURS, BAD_COMMIT, MOVED_COMMIT, EXTRA_PART, FAKE_MIRROR };

struct liar {
	uv_tcp_t listener, peer;
	int port;
	enum lie lie;
	struct pconn pc;
	struct wire_msg in, out;
	uint8_t rx[65536];
	uint8_t frame[PCONN_FRAME_MAX];
	uint8_t part[PROTO_PART_LEN], commit[PROTO_COMMIT_LEN];
	struct game g;
	struct view last, v;
	struct tlog log;
	bool started, peer_open;
	int handles;
};

struct wreq {
	uv_write_t w;
	uint8_t d[];
};

static void
liar_wrote(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
liar_send(struct liar *l, const struct wire_msg *m)
{
	struct proto_err e;
	size_t len;

	cr_assert_eq(pconn_send(&l->pc, m, l->frame, sizeof l->frame, &len, &e), 0, "liar: %s: %s", wire_name(m->type),
	             e.why);
	struct wreq *r = malloc(sizeof *r + len);
	cr_assert_not_null(r);
	memcpy(r->d, l->frame, len);
	uv_buf_t b = uv_buf_init((char *)r->d, (unsigned)len);
	cr_assert_eq(uv_write(&r->w, (uv_stream_t *)&l->peer, &b, 1, liar_wrote), 0);
}

static void
liar_lobby(struct liar *l)
{
	struct wire_msg *m = &l->out;

	memset(m, 0, sizeof *m);
	m->type = WIRE_LOBBY;
	options_default(&m->u.lobby.opt);
	m->u.lobby.present = 3;
	m->u.lobby.ready = 1;
	m->u.lobby.parts = 2; /* the joiner's alone, as an honest host says */
	memcpy(m->u.lobby.commit, l->commit, PROTO_COMMIT_LEN);
	strcpy(m->u.lobby.name[0], "liar");
	strcpy(m->u.lobby.name[1], "joiner");
	liar_send(l, m);
}

/* The joiner's part came: the duel, its one command (the liar resigns), and the END of its lie. */
static void
liar_duel(struct liar *l, const uint8_t joiner[PROTO_PART_LEN])
{
	struct wire_msg *m = &l->out;
	uint8_t server_part[PROTO_PART_LEN], start_commit[PROTO_COMMIT_LEN], parts[PLAYERS][PROTO_PART_LEN];
	unsigned bits = 2;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 0, { "liar", "joiner" } };
	struct cmd resign = { CMD_RESIGN, 0, 0 };
	struct events ev;
	struct proto_err e;
	char why[200];

	memcpy(server_part, l->part, sizeof server_part);
	memcpy(start_commit, l->commit, sizeof start_commit);
	memset(parts, 0, sizeof parts);
	memcpy(parts[1], joiner, PROTO_PART_LEN);
	switch (l->lie) {
	case HONEST:
		break;
	case NOT_YOURS:
		parts[1][0] ^= 1; /* a part it likes better than the joiner's */
		break;
	case BAD_COMMIT:
		server_part[5] ^= 0x40; /* a part it did not commit to */
		break;
	case MOVED_COMMIT:
		server_part[5] ^= 0x40; /* ... and START shows the commitment of that other part */
		auth_seed_commit(server_part, start_commit);
		break;
	case EXTRA_PART:
		memset(parts[0], 0x77, PROTO_PART_LEN); /* its own part, picked after seeing the joiner's */
		bits = 3;
		break;
	case FAKE_MIRROR:
		bits = 0; /* "the last duel's seed again": any seed it likes */
		memset(parts, 0, sizeof parts);
		break;
	}
	options_default(&h.opt);
	h.seed = auth_seed_mix(server_part, bits, parts);
	cr_assert_eq(game_init(&l->g, &h.opt, h.seed), ERR_OK);
	cr_assert_eq(tlog_open(&l->log, NULL, NULL, &h, game_hash(&l->g), "", why, sizeof why), 0, "%s", why);
	memset(m, 0, sizeof *m);
	m->type = WIRE_START;
	m->u.start.first = l->g.first;
	m->u.start.mirror = l->lie == FAKE_MIRROR;
	memcpy(m->u.start.commit, start_commit, PROTO_COMMIT_LEN);
	update_blank(&l->last);
	view_build(&l->g, 1, &l->v);
	cr_assert_eq(update_make(&l->last, &l->v, NULL, 1, &m->u.start.view, &e), 0);
	liar_send(l, m);
	l->last = l->v;
	cr_assert_eq(game_apply(&l->g, 0, &resign, &ev), ERR_OK);
	tlog_cmd(&l->log, 0, &resign, &l->g, ev.turn_ended);
	tlog_end(&l->log, &l->g);
	view_build(&l->g, 1, &l->v);
	m->type = WIRE_UPDATE;
	cr_assert_eq(update_make(&l->last, &l->v, &ev, 1, &m->u.update, &e), 0);
	liar_send(l, m);
	memset(m, 0, sizeof *m);
	m->type = WIRE_END;
	m->u.end.result = l->g.result;
	m->u.end.reason = l->g.end_reason;
	m->u.end.seed = h.seed;
	memcpy(m->u.end.server_part, server_part, PROTO_PART_LEN);
	m->u.end.parts = (uint8_t)bits;
	memcpy(m->u.end.part, parts, sizeof parts);
	m->u.end.hash = game_hash(&l->g);
	size_t len;
	char *text = tlog_text(&l->log, &len);
	cr_assert_not_null(text);
	m->u.end.log_len = (uint32_t)len;
	liar_send(l, m);
	for (size_t off = 0; off < len;) {
		size_t n = len - off > PROTO_LOG_CHUNK ? PROTO_LOG_CHUNK : len - off;
		m->type = WIRE_LOG_CHUNK;
		m->u.log.offset = (uint32_t)off;
		m->u.log.len = (uint16_t)n;
		memcpy(m->u.log.data, text + off, n);
		liar_send(l, m);
		off += n;
	}
	free(text);
	tlog_close(&l->log);
	liar_lobby(l);
}

static void
liar_message(struct liar *l, const struct wire_msg *in)
{
	struct wire_msg *m = &l->out;

	switch (in->type) {
	case WIRE_HELLO: {
		uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
		wire_challenge_init(m, salt, false);
		liar_send(l, m);
		return;
	}
	case WIRE_AUTH:
		memset(m, 0, sizeof *m);
		m->type = WIRE_WELCOME;
		m->u.welcome.player = 1;
		m->u.welcome.token_len = PROTO_TOKEN_MIN;
		auth_random(m->u.welcome.token, PROTO_TOKEN_MIN);
		m->u.welcome.hold = 30;
		m->u.welcome.grace = 120;
		liar_send(l, m);
		liar_lobby(l);
		return;
	case WIRE_READY:
	case WIRE_REMATCH:
		if (l->started)
			return;
		l->started = true;
		liar_duel(l, in->type == WIRE_READY ? in->u.ready.part : in->u.rematch.part);
		return;
	default:
		return;
	}
}

static void
liar_closed(uv_handle_t *h)
{
	struct liar *l = h->data;

	l->handles--;
}

static void
liar_alloc(uv_handle_t *h, size_t sug, uv_buf_t *b)
{
	struct liar *l = h->data;

	(void)sug;
	*b = uv_buf_init((char *)l->rx, sizeof l->rx);
}

static void
liar_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct liar *l = s->data;
	const uint8_t *p = (const uint8_t *)b->base;
	struct proto_err e;
	int rc = PROTO_MORE;

	if (n < 0) {
		if (l->peer_open) {
			l->peer_open = false;
			uv_close((uv_handle_t *)&l->peer, liar_closed);
		}
		return;
	}
	while (n > 0) {
		size_t k = pconn_feed(&l->pc, p, (size_t)n);
		p += k;
		n -= (ssize_t)k;
		while ((rc = pconn_next(&l->pc, &l->in, &e)) == PROTO_DONE)
			liar_message(l, &l->in);
		cr_assert_neq(rc, PROTO_BROKEN, "liar: the client sent something broken: %s", e.why);
	}
}

static void
liar_accept(uv_stream_t *srv, int status)
{
	struct liar *l = srv->data;

	cr_assert_eq(status, 0);
	cr_assert_not(l->peer_open, "one client only");
	uv_tcp_init(srv->loop, &l->peer);
	l->peer.data = l;
	l->handles++;
	l->peer_open = true;
	cr_assert_eq(uv_accept(srv, (uv_stream_t *)&l->peer), 0);
	uv_read_start((uv_stream_t *)&l->peer, liar_alloc, liar_read);
}

static void
liar_start(struct th *t, struct liar *l, enum lie lie)
{
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof got;

	memset(l, 0, sizeof *l);
	l->lie = lie;
	pconn_init(&l->pc, PCONN_SERVER);
	pconn_set_identity(&l->pc, &th_identity()->kp);
	auth_random(l->part, sizeof l->part);
	auth_seed_commit(l->part, l->commit);
	uv_tcp_init(&t->loop, &l->listener);
	l->listener.data = l;
	l->handles = 1;
	uv_ip4_addr("127.0.0.1", 0, &a);
	cr_assert_eq(uv_tcp_bind(&l->listener, (struct sockaddr *)&a, 0), 0);
	cr_assert_eq(uv_listen((uv_stream_t *)&l->listener, 4, liar_accept), 0);
	uv_tcp_getsockname(&l->listener, (struct sockaddr *)&got, &len);
	l->port = ntohs(((struct sockaddr_in *)&got)->sin_port);
	t->port = l->port;
}

struct against {
	struct liar liar;
	struct netbot bot;
	bool ended, verified;
	char why[800];
};

static void
against_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct against *x = ud;

	(void)b;
	(void)e;
	x->ended = true;
	x->verified = verified;
	snprintf(x->why, sizeof x->why, "%s", why);
}

static bool
against_done(void *ud)
{
	struct against *x = ud;
	return x->bot.closed;
}

/* The real client (a `wizwar bot`'s netbot over net.c) joins the liar and plays its one duel. */
static void
against(enum lie lie, bool want_verified, const char *want_why)
{
	struct th t;
	struct netbot_config bc;
	static struct against x;

	memset(&x, 0, sizeof x);
	th_init(&t);
	liar_start(&t, &x.liar, lie);
	th_bot_config(&t, &bc, "joiner", BOT_RANDOM, 3, 1);
	bc.net.reconnect_for_ms = 0;
	bc.ud = &x;
	bc.on_end = against_end;
	th_bot(&t, &x.bot, &bc);
	th_run(&t, 20000, against_done, &x);
	cr_assert(x.ended, "the duel against the liar did not end");
	cr_expect_eq(x.verified, want_verified, "%s", x.why);
	cr_expect(strstr(x.why, want_why), "wanted \"%s\", got: %s", want_why, x.why);
	if (x.liar.peer_open)
		uv_close((uv_handle_t *)&x.liar.peer, liar_closed);
	uv_close((uv_handle_t *)&x.liar.listener, liar_closed);
	th_finish(&t);
	pconn_finish(&x.liar.pc);
}

/* The hostile server telling the truth: so the lies below fail for their lie and nothing else. */
Test(seed, the_truth_verifies)
{
	against(HONEST, true, "seed made with your part, log verified");
}

Test(seed, a_seed_without_your_part_is_caught)
{
	against(NOT_YOURS, false, "YOUR PART WAS NOT USED");
}

Test(seed, a_part_not_committed_to_is_caught)
{
	against(BAD_COMMIT, false, "does not match the commitment");
}

Test(seed, a_commitment_changed_after_your_part_is_caught)
{
	against(MOVED_COMMIT, false, "another commitment than the one your part answered");
}

Test(seed, a_part_of_the_hosts_mixed_in_is_caught)
{
	against(EXTRA_PART, false, "other players' parts");
}

/* Ready, not ready, ready again in one lobby (or after the controller changed the options, which
 * clears both ready bits): the client sends the same part again, so the server gets no new roll
 * of the dice by making a player ready again. */
struct again {
	struct th *t;
	struct netbot a, b;
	int step;
	uint8_t seen[2][PROTO_PART_LEN];
	bool done;
};

static void
again_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct again *x = ud;
	int me = net_player(b->net);
	bool ready;

	if (m->type != WIRE_LOBBY || me < 0 || m->u.lobby.present != 3 || x->done)
		return;
	ready = (m->u.lobby.ready >> me) & 1;
	if (x->step == 0 && !ready) {
		net_ready(b->net, true);
		x->step = 1;
	} else if (x->step == 1 && ready) {
		memcpy(x->seen[0], server_room(x->t->srv, NULL)->seat[me].part, PROTO_PART_LEN);
		net_ready(b->net, false);
		x->step = 2;
	} else if (x->step == 2 && !ready) {
		net_ready(b->net, true);
		x->step = 3;
	} else if (x->step == 3 && ready) {
		memcpy(x->seen[1], server_room(x->t->srv, NULL)->seat[me].part, PROTO_PART_LEN);
		x->done = true;
		netbot_stop(&x->a);
		netbot_stop(&x->b);
	}
}

static bool
again_closed(void *ud)
{
	struct again *x = ud;
	return x->a.closed && x->b.closed;
}

Test(seed, ready_again_sends_the_same_part)
{
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	static struct again x;
	static const uint8_t zero[PROTO_PART_LEN];

	memset(&x, 0, sizeof x);
	x.t = &t;
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_RANDOM, 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_RANDOM, 2, 1);
	ca.ready = cb.ready = false;
	ca.ud = &x;
	ca.on_msg = again_msg;
	th_bot(&t, &x.a, &ca);
	th_bot(&t, &x.b, &cb);
	th_run(&t, 20000, again_closed, &x);
	cr_assert(x.done, "the lobby steps did not happen (step %d)", x.step);
	cr_expect(memcmp(x.seen[0], zero, PROTO_PART_LEN) != 0, "a part came with READY");
	cr_expect(memcmp(x.seen[0], x.seen[1], PROTO_PART_LEN) == 0, "READY again sent another part");
	th_finish(&t);
}

/* A turn log a protocol-3 host wrote (a `salt` comment, no parts) still loads and replays, but a
 * host does not resume it: its players' clients could not check its seed. */
Test(seed, an_old_hosts_log_replays_but_is_not_resumed)
{
	struct th t;
	struct server_config c;
	struct tlog log;
	struct game g;
	struct options opt;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 7, { "old0", "old1" } };
	struct cmd pass = { CMD_PASS, 0, 0 };
	struct events ev;
	char path[200], why[300];
	static struct tlog_resume lr;
	const char *extra = "# wizwar-server salt 000102030405060708090a0b0c0d0e0f\n"
	                    "# wizwar-server token 0 0000000000000000000000000000000000000000000000000000000000000000\n"
	                    "# wizwar-server token 1 1111111111111111111111111111111111111111111111111111111111111111\n"
	                    "# wizwar-server turn-time 0\n";

	options_default(&opt);
	h.opt = opt;
	cr_assert_eq(game_init(&g, &opt, h.seed), ERR_OK);
	snprintf(path, sizeof path, "/tmp/wizwar-test-seed-%d.log.gz", (int)getpid());
	cr_assert_eq(tlog_open(&log, NULL, path, &h, game_hash(&g), extra, why, sizeof why), 0, "%s", why);
	cr_assert_eq(game_apply(&g, g.turn, &pass, &ev), ERR_OK);
	tlog_cmd(&log, g.turn == 0 ? 1 : 0, &pass, &g, ev.turn_ended);
	tlog_close(&log);
	cr_assert_eq(tlog_load(path, &lr, why, sizeof why), 0, "the old log does not load: %s", why);
	cr_expect(lr.old_seed && !lr.have_part);
	tlog_resume_free(&lr);
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	cr_expect_neq(server_resume_log(t.srv, path, why, sizeof why), 0);
	cr_expect(strstr(why, "written before protocol 4"), "%s", why);
	th_finish(&t);
	unlink(path);
}

/* A client killed mid-duel and run again (its seat file, as `wizwar join` keeps it) still checks
 * that its own part made the seed: the part is kept in the seat file with the commitment. */
struct rerun {
	struct th *t;
	struct netbot a, a2, b;
	struct netbot_config ca;
	uv_timer_t kill;
	int updates;
	bool killed, rerun;
	char seat[200];
};

static void
rerun_kill(uv_timer_t *tm)
{
	struct rerun *x = tm->data;

	net_abandon(x->a.net); /* as a kill leaves it: no BYE, the seat file stays */
	uv_close((uv_handle_t *)tm, NULL);
}

static void
rerun_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct rerun *x = ud;

	(void)b;
	if (m->type == WIRE_UPDATE && ++x->updates == 3 && !x->killed) {
		x->killed = true;
		uv_timer_init(&x->t->loop, &x->kill);
		x->kill.data = x;
		uv_timer_start(&x->kill, rerun_kill, 0, 0);
	}
}

static void
rerun_closed(void *ud, struct netbot *b)
{
	struct rerun *x = ud;
	struct netbot_config c = x->ca;

	if (b != &x->a || x->rerun)
		return;
	x->rerun = true;
	c.on_msg = NULL;
	c.on_closed = NULL;
	th_bot(x->t, &x->a2, &c);
}

static bool
rerun_done(void *ud)
{
	struct rerun *x = ud;
	return x->rerun && x->a2.closed && x->b.closed;
}

Test(seed, a_client_run_again_checks_its_part_from_the_seat_file)
{
	struct th t;
	struct server_config c;
	struct netbot_config cb;
	static struct rerun x;

	memset(&x, 0, sizeof x);
	x.t = &t;
	snprintf(x.seat, sizeof x.seat, "/tmp/wizwar-test-seat-%d", (int)getpid());
	unlink(x.seat);
	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	th_bot_config(&t, &x.ca, "killed", BOT_NORMAL, 1, 1);
	x.ca.net.seat_file = x.seat;
	x.ca.ud = &x;
	x.ca.on_msg = rerun_msg;
	x.ca.on_closed = rerun_closed;
	th_bot_config(&t, &cb, "other", BOT_RANDOM, 2, 1);
	th_bot(&t, &x.a, &x.ca);
	th_bot(&t, &x.b, &cb);
	th_run(&t, 60000, rerun_done, &x);
	cr_assert(x.killed && x.rerun);
	cr_expect_eq(x.a2.games, 1, "%s", x.a2.last_why);
	cr_expect_eq(x.a2.verified, 1, "%s", x.a2.last_why);
	cr_expect(strstr(x.a2.last_why, "seed made with your part and the other player's"), "%s", x.a2.last_why);
	cr_expect_eq(x.b.verified, 1, "%s", x.b.last_why);
	th_finish(&t);
	unlink(x.seat);
}

Test(seed, a_mirror_nobody_asked_for_is_caught)
{
	against(FAKE_MIRROR, false, "did not ask for one");
}
