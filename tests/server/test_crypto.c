/* SPDX-License-Identifier: MIT */
/* server/crypto: the threat model's claims, each tested: an eavesdropper's capture shows nothing and does
 * not compress, a man in the middle is refused, a changed key stops the join, the right fingerprint joins,
 * first contact is remembered, a proof captured in one channel is useless in another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include <criterion/criterion.h>
#include <zlib.h>

#include "harness.h"
#include "known.h"

static bool
closed(void *ud)
{
	return ((struct netbot *)ud)->closed;
}

static bool
joined(void *ud)
{
	struct netbot *b = ud;
	return b->closed || (b->net && net_player(b->net) >= 0);
}

struct pair {
	struct netbot a, b;
};

static bool
pair_closed(void *ud)
{
	struct pair *p = ud;
	return p->a.closed && p->b.closed;
}

static bool
contains(const uint8_t *hay, size_t n, const void *needle, size_t k)
{
	for (size_t i = 0; k && i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return true;
	return false;
}

/* ---- a relay on the loop: accepts, connects onward, passes bytes both ways ---- */

#define CAPTURE_MAX (4u << 20)

struct relay;

/* One relayed connection: the client's side and the server's side. */
struct hop {
	struct relay *rl;
	uv_tcp_t side[2];          /* 0: from the client, 1: to the server */
	uv_connect_t creq;
	bool up, closing;
	int open;
	/* The man in the middle's own ends: a server to the client, a client to the server. */
	struct pconn *pc[2];
	struct wire_msg msg;
	uint8_t frame[PCONN_FRAME_MAX];
	uint8_t held[4096];         /* the client's bytes before the server side is up */
	size_t nheld;
};

struct relay {
	uv_loop_t *loop;
	uv_tcp_t listener;
	int port, target;
	bool mitm;
	struct auth_identity fake;  /* the MITM's own key */
	uint8_t *capture;           /* every byte, both ways, in order */
	size_t ncapture;
	struct hop hops[8];
	int nhops;
	int proofs_forwarded;
	bool tamper_next;           /* flip the last byte of the next client-to-server read */
	bool tamper_down;           /* ... and with this, of the next server-to-client read instead */
	bool stall;                 /* with tamper_next: raise the record's length prefix to the most instead */
	int tampered;
};

static void
hop_closed(uv_handle_t *h)
{
	struct hop *p = h->data;

	if (--p->open == 0)
		for (int i = 0; i < 2; i++)
			if (p->pc[i]) {
				pconn_finish(p->pc[i]);
				free(p->pc[i]);
				p->pc[i] = NULL;
			}
}

static void
hop_close(struct hop *p)
{
	if (p->closing)
		return;
	p->closing = true;
	for (int i = 0; i < 2; i++)
		if (!uv_is_closing((uv_handle_t *)&p->side[i]))
			uv_close((uv_handle_t *)&p->side[i], hop_closed);
}

static void
wrote(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
put(struct hop *p, int to, const uint8_t *b, size_t n)
{
	struct relay *rl = p->rl;
	struct { uv_write_t w; uint8_t d[]; } *req;
	uv_buf_t buf;

	if (n == 0 || p->closing)
		return;
	if (rl->ncapture + n <= CAPTURE_MAX) {
		memcpy(rl->capture + rl->ncapture, b, n);
		rl->ncapture += n;
	}
	req = malloc(sizeof *req + n);
	memcpy(req->d, b, n);
	buf = uv_buf_init((char *)req->d, (unsigned)n);
	if (uv_write(&req->w, (uv_stream_t *)&p->side[to], &buf, 1, wrote) != 0)
		free(req);
}

static void
alloc(uv_handle_t *h, size_t sug, uv_buf_t *b)
{
	(void)h;
	b->base = malloc(sug);
	b->len = sug;
}

/* The man in the middle: decrypt with one pconn, encrypt with the other. */
static void
mitm_take(struct hop *p, int from, const uint8_t *b, size_t n)
{
	struct pconn *in = p->pc[from], *out = p->pc[1 - from];
	struct proto_err e;
	size_t len;
	int rc;

	while (n) {
		size_t k = pconn_feed(in, b, n);
		b += k;
		n -= k;
		while ((rc = pconn_next(in, &p->msg, &e)) == PROTO_DONE) {
			if (p->msg.type == WIRE_HELLO && from == 0)
				continue; /* its own HELLO went to the server at connect */
			if (p->msg.type == WIRE_CHALLENGE && from == 1) {
				/* The real server's salt and flag, under the MITM's own key. */
				uint8_t salt[PROTO_PW_SALT_LEN];
				bool pw = p->msg.u.challenge.password;
				memcpy(salt, p->msg.u.challenge.salt, sizeof salt);
				wire_challenge_init(&p->msg, salt, pw);
			}
			if (p->msg.type == WIRE_IDENT && from == 0) {
				/* The victim's IDENT is bound to the victim's channel with the MITM, and the
				 * server refuses it relayed (test_ident.c): the most a MITM can do is show a key
				 * of its own, signed over its own channel with the server. */
				static struct auth_ident own;
				if (own.pk[0] == 0 && own.pk[1] == 0)
					auth_ident_new(&own);
				memcpy(p->msg.u.ident.key, own.pk, PROTO_IDENT_KEY_LEN);
				auth_ident_sign(&own, pconn_hash(out), p->msg.u.ident.sig);
			}
			if (p->msg.type == WIRE_AUTH || p->msg.type == WIRE_RESUME)
				p->rl->proofs_forwarded++;
			if (pconn_send(out, &p->msg, p->frame, sizeof p->frame, &len, &e) == 0)
				put(p, 1 - from, p->frame, len);
		}
		if (rc == PROTO_BROKEN) {
			hop_close(p);
			return;
		}
	}
}

static void
hop_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct hop *p = s->data;
	int from = s == (uv_stream_t *)&p->side[0] ? 0 : 1;

	if (n < 0) {
		hop_close(p);
	} else if (n > 0) {
		if (p->rl->mitm) {
			if (from == 0 && !p->up) {
				memcpy(p->held + p->nheld, b->base, (size_t)n);
				p->nheld += (size_t)n;
			} else {
				mitm_take(p, from, (const uint8_t *)b->base, (size_t)n);
			}
		} else if (from == 1 || p->up) {
			if (p->rl->tamper_next && from == (p->rl->tamper_down ? 1 : 0)) {
				/* A tamperer: one bit of a record's tag (a read ends a write, a record), or
				 * the length of the record that starts the read raised to the most a
				 * record may have, so that the receiver waits for bytes never sent. */
				if (p->rl->stall) {
					b->base[0] = (char)((PCONN_RECORD_WIRE - 2) >> 8);
					b->base[1] = (char)((PCONN_RECORD_WIRE - 2) & 0xff);
				} else {
					b->base[n - 1] ^= 0x01;
				}
				p->rl->tamper_next = false;
				p->rl->tampered++;
			}
			put(p, 1 - from, (const uint8_t *)b->base, (size_t)n);
		} else {
			memcpy(p->held + p->nheld, b->base, (size_t)n);
			p->nheld += (size_t)n;
		}
	}
	free(b->base);
}

static void
hop_connected(uv_connect_t *c, int status)
{
	struct hop *p = c->data;

	if (status != 0) {
		hop_close(p);
		return;
	}
	p->up = true;
	uv_read_start((uv_stream_t *)&p->side[1], alloc, hop_read);
	if (p->rl->mitm) {
		static struct wire_msg hello;
		struct proto_err e;
		size_t len;
		wire_hello_init(&hello);
		cr_assert_eq(pconn_send(p->pc[1], &hello, p->frame, sizeof p->frame, &len, &e), 0);
		put(p, 1, p->frame, len);
		if (p->nheld)
			mitm_take(p, 0, p->held, p->nheld);
	} else {
		put(p, 1, p->held, p->nheld);
	}
	p->nheld = 0;
}

static void
relay_accept(uv_stream_t *l, int status)
{
	struct relay *rl = l->data;
	struct hop *p;
	struct sockaddr_in a;

	cr_assert_eq(status, 0);
	cr_assert_lt(rl->nhops, 8);
	p = &rl->hops[rl->nhops++];
	memset(p, 0, sizeof *p);
	p->rl = rl;
	for (int i = 0; i < 2; i++) {
		uv_tcp_init(rl->loop, &p->side[i]);
		p->side[i].data = p;
	}
	p->open = 2;
	cr_assert_eq(uv_accept(l, (uv_stream_t *)&p->side[0]), 0);
	if (rl->mitm) {
		p->pc[0] = calloc(1, sizeof *p->pc[0]);
		p->pc[1] = calloc(1, sizeof *p->pc[1]);
		pconn_init(p->pc[0], PCONN_SERVER);
		pconn_set_identity(p->pc[0], &rl->fake.kp);
		pconn_init(p->pc[1], PCONN_CLIENT);
	}
	uv_read_start((uv_stream_t *)&p->side[0], alloc, hop_read);
	uv_ip4_addr("127.0.0.1", rl->target, &a);
	p->creq.data = p;
	cr_assert_eq(uv_tcp_connect(&p->creq, &p->side[1], (struct sockaddr *)&a, hop_connected), 0);
}

static void
relay_start(struct th *t, struct relay *rl, bool mitm)
{
	struct sockaddr_in a;
	struct sockaddr_storage ss;
	int len = sizeof ss;

	memset(rl, 0, sizeof *rl);
	rl->loop = &t->loop;
	rl->target = t->port;
	rl->mitm = mitm;
	rl->capture = malloc(CAPTURE_MAX);
	auth_identity_new(&rl->fake);
	uv_tcp_init(&t->loop, &rl->listener);
	rl->listener.data = rl;
	uv_ip4_addr("127.0.0.1", 0, &a);
	cr_assert_eq(uv_tcp_bind(&rl->listener, (struct sockaddr *)&a, 0), 0);
	cr_assert_eq(uv_listen((uv_stream_t *)&rl->listener, 8, relay_accept), 0);
	uv_tcp_getsockname(&rl->listener, (struct sockaddr *)&ss, &len);
	rl->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void
relay_stop(struct relay *rl)
{
	for (int i = 0; i < rl->nhops; i++)
		hop_close(&rl->hops[i]);
	uv_close((uv_handle_t *)&rl->listener, NULL);
}

static void
relay_free(struct relay *rl)
{
	free(rl->capture);
}

/* ---- the eavesdropper ---- */

struct secrets {
	uint8_t token[2][PROTO_TOKEN_MAX];
	size_t token_len[2];
	bool chatted;
	uint8_t log[1 << 16];       /* the first player's revealed logs (LOG_CHUNKs), one after another */
	size_t nlog;
};

static struct secrets sec;
static const char chat_line[] = "meet me at the old oak at midnight";

static void
watch_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	int who = ud == (void *)&sec ? 0 : 1;

	if (m->type == WIRE_WELCOME) {
		memcpy(sec.token[who], m->u.welcome.token, m->u.welcome.token_len);
		sec.token_len[who] = m->u.welcome.token_len;
	}
	if (who == 0 && m->type == WIRE_LOG_CHUNK && sec.nlog + m->u.log.len <= sizeof sec.log) {
		memcpy(sec.log + sec.nlog, m->u.log.data, m->u.log.len);
		sec.nlog += m->u.log.len;
	}
	if (who == 0 && m->type == WIRE_LOBBY && m->u.lobby.present == 3 && !sec.chatted) {
		sec.chatted = true;
		cr_assert_eq(net_chat(b->net, chat_line), 0);
	}
}

Test(crypto, a_relay_capture_shows_nothing_and_does_not_compress, .timeout = 240)
{
	static struct pair duel;
	static struct relay rl;
	static uint8_t squeezed[CAPTURE_MAX + 1024];
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	const char *room = "quartz-hollow-77", *na = "Alexandrina", *nb = "Bartholomew";
	uLongf zlen = sizeof squeezed;

	memset(&sec, 0, sizeof sec);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	relay_start(&t, &rl, false);
	th_bot_config(&t, &ca, na, BOT_NORMAL, 11, 2);
	th_bot_config(&t, &cb, nb, BOT_NORMAL, 12, 2);
	ca.net.port = cb.net.port = rl.port;
	ca.net.room = cb.net.room = room;
	ca.ud = &sec;
	cb.ud = &duel; /* any other pointer: the second player */
	ca.on_msg = cb.on_msg = watch_msg;
	/* Each player's long-term key crosses inside the channel (IDENT): never in clear. */
	static struct auth_ident ida, idb;
	char fpa[AUTH_FP_LEN + 1];
	auth_ident_new(&ida);
	auth_ident_new(&idb);
	auth_fingerprint(ida.pk, fpa);
	ca.net.ident = &ida;
	cb.net.ident = &idb;
	th_bot(&t, &duel.a, &ca);
	th_bot(&t, &duel.b, &cb);
	th_run(&t, 200000, pair_closed, &duel);
	cr_expect(!contains(rl.capture, rl.ncapture, ida.pk, 8), "a player's key crossed in clear");
	cr_expect(!contains(rl.capture, rl.ncapture, idb.pk, 8), "a player's key crossed in clear");
	cr_expect(!contains(rl.capture, rl.ncapture, fpa, AUTH_FP_LEN), "a key's fingerprint crossed in clear");
	cr_expect_eq(duel.a.verified, 2, "%s", duel.a.last_why);
	cr_expect_eq(duel.b.verified, 2, "%s", duel.b.last_why);
	cr_assert(sec.chatted && sec.token_len[0] && sec.token_len[1]);
	cr_log_info("captured %zu bytes of two whole duels", rl.ncapture);
	cr_assert_gt(rl.ncapture, 10000);
	cr_expect(!contains(rl.capture, rl.ncapture, na, strlen(na)), "a name crossed in clear");
	cr_expect(!contains(rl.capture, rl.ncapture, nb, strlen(nb)), "a name crossed in clear");
	cr_expect(!contains(rl.capture, rl.ncapture, room, strlen(room)), "the room code crossed in clear");
	cr_expect(!contains(rl.capture, rl.ncapture, chat_line, 12), "chat crossed in clear");
	for (int i = 0; i < 2; i++)
		cr_expect(!contains(rl.capture, rl.ncapture, sec.token[i], sec.token_len[i]), "a resume token crossed");
	/* Nor does the log END reveals (made to be kept and shared) hold the room code: the server's
	 * own copy keeps it, the players' copy leaves that comment out. */
	cr_expect_gt(sec.nlog, 100, "no log revealed");
	cr_expect(!contains(sec.log, sec.nlog, room, strlen(room)), "the revealed log holds the room code");
	cr_expect(!contains(sec.log, sec.nlog, "# wizwar-server room", 20), "the revealed log holds the room comment");
	cr_expect(contains(sec.log, sec.nlog, na, strlen(na)), "the revealed log is not the duel's");
	/* Encrypted bytes look random: deflate finds nothing to squeeze. */
	cr_assert_eq(compress2(squeezed, &zlen, rl.capture, rl.ncapture, 9), Z_OK);
	cr_log_info("zlib ratio of the capture: %.3f", (double)zlen / (double)rl.ncapture);
	cr_expect_geq((double)zlen / (double)rl.ncapture, 0.9, "the capture compresses: %lu of %zu", (unsigned long)zlen,
	              rl.ncapture);
	relay_stop(&rl);
	th_finish(&t);
	relay_free(&rl);
}

/* ---- the eavesdropper, a password in use ---- */

static struct th *pw_th;
static uint8_t pw_proof[2][PROTO_PROOF_LEN];
static int pw_proofs;

/* At its WELCOME, the proof this player sent in its AUTH, as the server checked it: the server's
 * password key over its connection's handshake hash and the name. */
static void
grab_proof(void *ud, struct netbot *b, const struct wire_msg *m)
{
	(void)ud;
	if (m->type != WIRE_WELCOME || pw_proofs >= 2)
		return;
	for (struct conn *c = pw_th->srv->conns; c; c = c->next)
		if (c->state == CONN_JOINED && strcmp(c->who.name, b->cfg.net.name) == 0) {
			auth_proof(&pw_th->srv->key, pconn_hash(&c->pc), c->who.name, strlen(c->who.name),
			           pw_proof[pw_proofs]);
			cr_assert(auth_check(&pw_th->srv->key, pconn_hash(&c->pc), c->who.name, strlen(c->who.name),
			                     pw_proof[pw_proofs]));
			pw_proofs++;
			return;
		}
}

Test(crypto, an_eavesdropper_gets_no_password_nor_proof, .timeout = 120)
{
	static struct pair duel;
	static struct relay rl;
	static const uint8_t zero[PROTO_PROOF_LEN];
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;
	const char *pw = "correct horse battery";

	th_init(&t);
	th_config(&c);
	c.password = pw;
	th_server(&t, &c);
	pw_th = &t;
	pw_proofs = 0;
	cr_assert(t.srv->key.set);
	relay_start(&t, &rl, false);
	th_bot_config(&t, &ca, "Alexandrina", BOT_NORMAL, 21, 1);
	th_bot_config(&t, &cb, "Bartholomew", BOT_NORMAL, 22, 1);
	ca.net.port = cb.net.port = rl.port;
	ca.net.password = cb.net.password = pw;
	ca.on_msg = cb.on_msg = grab_proof;
	th_bot(&t, &duel.a, &ca);
	th_bot(&t, &duel.b, &cb);
	th_run(&t, 60000, pair_closed, &duel);
	cr_expect_eq(duel.a.verified, 1, "%s", duel.a.last_why);
	cr_expect_eq(duel.b.verified, 1, "%s", duel.b.last_why);
	cr_assert_eq(pw_proofs, 2);
	cr_assert_gt(rl.ncapture, 1000);
	/* Both ways: what the clients sent as well as what they got. */
	cr_expect(!contains(rl.capture, rl.ncapture, pw, strlen(pw)), "the password crossed");
	cr_expect(!contains(rl.capture, rl.ncapture, "correct", 7), "part of the password crossed");
	cr_expect(!contains(rl.capture, rl.ncapture, t.srv->key.k, AUTH_KEY_LEN), "the password's key crossed");
	for (int i = 0; i < 2; i++) {
		cr_expect(memcmp(pw_proof[i], zero, sizeof zero) != 0, "no proof to look for");
		cr_expect(!contains(rl.capture, rl.ncapture, pw_proof[i], PROTO_PROOF_LEN), "a proof crossed in clear");
		/* Half of one is enough to test a guess offline. */
		cr_expect(!contains(rl.capture, rl.ncapture, pw_proof[i], 8), "part of a proof crossed in clear");
	}
	relay_stop(&rl);
	th_finish(&t);
	relay_free(&rl);
}

/* ---- the tamperer ---- */

struct tamper {
	struct relay *rl;
	int updates;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	int errors_21;
};

static void
tamper_midway(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct tamper *tp = ud;
	(void)b;
	if (m->type == WIRE_WELCOME) {
		memcpy(tp->token, m->u.welcome.token, m->u.welcome.token_len);
		tp->token_len = m->u.welcome.token_len;
	}
	if (m->type == WIRE_UPDATE && ++tp->updates == 6)
		tp->rl->tamper_next = true;
	if (m->type == WIRE_ERROR && m->u.error.code == PERR_CRYPTO && m->u.error.fatal)
		tp->errors_21++;
}

static struct drops_seen {
	int n, code[8];
} tamper_drops;

static void
tamper_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	(void)ud;
	(void)c;
	(void)why;
	if (tamper_drops.n < 8)
		tamper_drops.code[tamper_drops.n] = code;
	tamper_drops.n++;
}

/* After one link of a's was lost on the way: back by itself, one link lost and taken back, the
 * duel played to its end on both sides, with one result. */
static void
back_and_played(const struct pair *duel)
{
	cr_expect_eq(duel->a.links_lost, 1, "links lost: %d (%s)", duel->a.links_lost, duel->a.last_why);
	cr_expect_eq(duel->a.links_back, 1, "links back: %d", duel->a.links_back);
	cr_expect_eq(duel->a.games, 1, "the client whose link was lost, its duel: %s", duel->a.last_why);
	cr_expect_eq(duel->a.verified, 1, "%s", duel->a.last_why);
	cr_expect_eq(duel->b.games, 1, "%s", duel->b.last_why);
	cr_expect_eq(duel->a.wins + duel->b.wins + duel->b.draws, 1, "one result, the same on both sides");
}

/* A bit changed on the way (a tamperer who cannot read the records, or a broken link). On
 * the way up the server finds it, drops that link with CRYPTO and holds the seat; on the way
 * down the client finds it and drops the link itself. Either way the client comes back by
 * itself with its token over a new handshake, as after any drop, and the duel plays on to
 * its end. */
static void
changed_record(bool down)
{
	static struct pair duel;
	static struct relay rl;
	static struct tamper tp;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	th_init(&t);
	th_config(&c);
	c.hooks.dropped = tamper_dropped;
	memset(&tamper_drops, 0, sizeof tamper_drops);
	th_server(&t, &c);
	relay_start(&t, &rl, false);
	rl.tamper_down = down;
	memset(&tp, 0, sizeof tp);
	tp.rl = &rl;
	th_bot_config(&t, &ca, "tampered", BOT_NORMAL, 31, 1);
	th_bot_config(&t, &cb, "direct", BOT_NORMAL, 32, 1);
	ca.net.port = rl.port;
	ca.net.reconnect_ms = 200;
	ca.ud = &tp;
	ca.on_msg = tamper_midway;
	th_bot(&t, &duel.a, &ca);
	th_bot(&t, &duel.b, &cb);
	th_run(&t, 90000, pair_closed, &duel);
	cr_assert_eq(rl.tampered, 1);
	if (!down) {
		cr_expect_eq(tamper_drops.n, 1);
		cr_expect_eq(tamper_drops.code[0], PERR_CRYPTO, "dropped with %d", tamper_drops.code[0]);
		cr_expect_eq(tp.errors_21, 1, "the client was not told CRYPTO");
	} else {
		cr_expect_eq(tp.errors_21, 0, "the server found nothing wrong on its side");
	}
	back_and_played(&duel);
	cr_expect_eq(duel.b.wins + duel.b.losses + duel.b.draws, 1);
	relay_stop(&rl);
	th_finish(&t);
	relay_free(&rl);
}

/* A record's length raised on the way: the receiver would wait for bytes that never come,
 * while the heartbeats that go into that record keep the silence timers satisfied (idle is
 * off here). A record begun must be whole within record_ms: the server drops the link with
 * RECORD, which the client takes as a changed record; or the client drops the link itself.
 * Then, as after any drop, the client comes back with its token and the duel ends. */
static void
stalled_record(bool down)
{
	static struct pair duel;
	static struct relay rl;
	static struct tamper tp;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	th_init(&t);
	th_config(&c);
	c.hooks.dropped = tamper_dropped;
	c.lim.idle_ms = 600000;
	c.lim.heartbeat_ms = 100;
	c.lim.record_ms = 1000;
	memset(&tamper_drops, 0, sizeof tamper_drops);
	th_server(&t, &c);
	relay_start(&t, &rl, false);
	rl.tamper_down = down;
	rl.stall = true;
	memset(&tp, 0, sizeof tp);
	tp.rl = &rl;
	th_bot_config(&t, &ca, "stalled", BOT_NORMAL, 41, 1);
	th_bot_config(&t, &cb, "direct", BOT_NORMAL, 42, 1);
	ca.net.port = rl.port;
	ca.net.reconnect_ms = 200;
	ca.net.idle_ms = cb.net.idle_ms = 600000;
	ca.net.heartbeat_ms = 100;
	ca.net.record_ms = 1000;
	ca.ud = &tp;
	ca.on_msg = tamper_midway;
	th_bot(&t, &duel.a, &ca);
	th_bot(&t, &duel.b, &cb);
	th_run(&t, 60000, pair_closed, &duel);
	cr_assert_eq(rl.tampered, 1);
	if (!down) {
		cr_expect_eq(tamper_drops.n, 1);
		cr_expect_eq(tamper_drops.code[0], PERR_RECORD, "dropped with %d", tamper_drops.code[0]);
	} else {
		cr_expect_eq(tamper_drops.n, 0, "the server found nothing wrong on its side");
	}
	back_and_played(&duel);
	relay_stop(&rl);
	th_finish(&t);
	relay_free(&rl);
}

Test(crypto, a_stalled_record_to_the_server_drops_the_link, .timeout = 120)
{
	stalled_record(false);
}

Test(crypto, a_stalled_record_to_the_client_drops_the_link, .timeout = 120)
{
	stalled_record(true);
}

Test(crypto, a_changed_record_on_the_wire_drops_the_link, .timeout = 120)
{
	changed_record(false);
}

Test(crypto, a_changed_record_from_the_server_drops_the_link, .timeout = 120)
{
	changed_record(true);
}

/* ---- the man in the middle ---- */

static void
temp_known(char *path, size_t len, const char *content)
{
	char dir[] = "/tmp/wizwar-known-XXXXXX";
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/known_servers", dir);
	if (content) {
		cr_assert_not_null(f = fopen(path, "w"));
		fputs(content, f);
		fclose(f);
	}
}

static void
temp_known_rm(const char *path)
{
	char dir[4300];

	unlink(path);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

static int key_events[3];

static void
count_key(void *ud, struct net *n, int how, const char *fp)
{
	(void)ud;
	(void)n;
	(void)fp;
	key_events[how]++;
}

Test(crypto, a_man_in_the_middle_is_refused, .timeout = 120)
{
	static struct netbot pinned, remembered, first, pw_victim;
	static struct relay rl;
	struct th t;
	struct server_config c;
	struct netbot_config bc;
	char fp[AUTH_FP_LEN + 1], line[200], known[4200], known2[4200];

	th_init(&t);
	th_config(&c);
	c.multi = true;
	c.password = "old oak";
	th_server(&t, &c);
	server_fingerprint(t.srv, fp);
	relay_start(&t, &rl, true);

	/* Knowing the key (an in-process fingerprint): refused, nothing sent inside. */
	th_bot_config(&t, &bc, "victim", BOT_NORMAL, 1, 1);
	bc.net.port = rl.port;
	bc.net.room = "mitm";
	bc.net.password = "old oak";
	th_bot(&t, &pinned, &bc);
	th_run(&t, 10000, closed, &pinned);
	cr_expect_eq(pinned.last_error, PERR_HOSTKEY, "%d: %s", pinned.last_error, pinned.last_why);
	cr_expect_eq(rl.proofs_forwarded, 0, "the client sent its proof to a stranger");

	/* Remembered on an earlier visit (the known-servers file): the loud warning, and how to accept. */
	snprintf(line, sizeof line, "127.0.0.1:%d %s\n", rl.port, fp);
	temp_known(known, sizeof known, line);
	th_bot_config(&t, &bc, "victim", BOT_NORMAL, 1, 1);
	bc.net.server_key = NULL;
	bc.net.known_file = known;
	bc.net.port = rl.port;
	bc.net.room = "mitm";
	th_bot(&t, &remembered, &bc);
	th_run(&t, 10000, closed, &remembered);
	cr_expect_eq(remembered.last_error, PERR_HOSTKEY, "%d: %s", remembered.last_error, remembered.last_why);
	cr_expect(strstr(remembered.last_why, "CHANGED") != NULL, "%s", remembered.last_why);
	cr_expect(strstr(remembered.last_why, "line 1") != NULL, "%s", remembered.last_why);
	temp_known_rm(known);

	/* First contact with no fingerprint: trust on first use lets the MITM in (the limit that
	 * docs/server.md states) -- but the password proof it relays is bound to its own channel,
	 * so the real server refuses it: the MITM cannot join with it (it can still test password
	 * guesses against it offline, one Argon2id each: docs/server.md says so). */
	temp_known(known2, sizeof known2, NULL);
	memset(key_events, 0, sizeof key_events);
	th_bot_config(&t, &bc, "newcomer", BOT_NORMAL, 1, 1);
	bc.net.server_key = NULL;
	bc.net.known_file = known2;
	bc.net.port = rl.port;
	bc.net.room = "mitm";
	bc.net.password = "old oak";
	bc.net.ev.key = count_key;
	th_bot(&t, &first, &bc);
	th_run(&t, 10000, closed, &first);
	cr_expect_eq(key_events[NET_KEY_NEW], 1);
	cr_expect_eq(rl.proofs_forwarded, 1);
	cr_expect_eq(first.last_error, PERR_AUTH, "the server took a relayed proof: %d %s", first.last_error,
	             first.last_why);
	temp_known_rm(known2);
	(void)pw_victim;
	relay_stop(&rl);
	th_finish(&t);
	relay_free(&rl);
}

Test(crypto, fingerprints_and_known_servers, .timeout = 120)
{
	static struct netbot b[5];
	struct th t;
	struct server_config c;
	struct netbot_config bc;
	char fp[AUTH_FP_LEN + 1], wrong[AUTH_FP_LEN + 1], known[4200], line[200], text[400];
	FILE *f;

	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	server_fingerprint(t.srv, fp);
	temp_known(known, sizeof known, NULL);
	memset(key_events, 0, sizeof key_events);

	/* The right fingerprint in the join line: joins, asks nothing, and is remembered. */
	th_bot_config(&t, &bc, "paster", BOT_NORMAL, 1, 0);
	bc.net.server_key = NULL;
	bc.net.fingerprint = fp;
	bc.net.known_file = known;
	bc.net.room = "fp";
	bc.net.ev.key = count_key;
	bc.ready = false;
	th_bot(&t, &b[0], &bc);
	th_run(&t, 10000, joined, &b[0]);
	cr_expect_eq(key_events[NET_KEY_PINNED], 1);
	cr_expect_eq(net_player(b[0].net), 0, "%s", b[0].last_why);
	cr_assert_not_null(f = fopen(known, "r"));
	cr_assert_not_null(fgets(text, sizeof text, f));
	fclose(f);
	snprintf(line, sizeof line, "127.0.0.1:%d %s\n", t.port, fp);
	cr_expect_str_eq(text, line);
	netbot_stop(&b[0]);
	th_run(&t, 5000, closed, &b[0]);

	/* Known now: the next visit without a fingerprint matches the file. */
	th_bot_config(&t, &bc, "returner", BOT_NORMAL, 1, 0);
	bc.net.server_key = NULL;
	bc.net.known_file = known;
	bc.net.room = "fp";
	bc.net.ev.key = count_key;
	bc.ready = false;
	th_bot(&t, &b[1], &bc);
	th_run(&t, 10000, joined, &b[1]);
	cr_expect_eq(key_events[NET_KEY_KNOWN], 1);
	cr_expect_eq(net_player(b[1].net), 0, "%s", b[1].last_why);
	netbot_stop(&b[1]);
	th_run(&t, 5000, closed, &b[1]);

	/* A wrong fingerprint: refused, with both fingerprints named. */
	snprintf(wrong, sizeof wrong, "%s", fp);
	wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
	th_bot_config(&t, &bc, "typo", BOT_NORMAL, 1, 1);
	bc.net.server_key = NULL;
	bc.net.fingerprint = wrong;
	bc.net.room = "fp";
	th_bot(&t, &b[2], &bc);
	th_run(&t, 10000, closed, &b[2]);
	cr_expect_eq(b[2].last_error, PERR_HOSTKEY);
	cr_expect(strstr(b[2].last_why, fp) && strstr(b[2].last_why, wrong), "%s", b[2].last_why);

	/* The key changed since the file remembered it: stopped, with the command that accepts it. */
	cr_assert_not_null(f = fopen(known, "w"));
	fprintf(f, "# a comment\n127.0.0.1:%d %s\n", t.port, wrong);
	fclose(f);
	th_bot_config(&t, &bc, "wary", BOT_NORMAL, 1, 1);
	bc.net.server_key = NULL;
	bc.net.known_file = known;
	bc.net.room = "fp";
	th_bot(&t, &b[3], &bc);
	th_run(&t, 10000, closed, &b[3]);
	cr_expect_eq(b[3].last_error, PERR_HOSTKEY);
	snprintf(line, sizeof line, "wizwar join 127.0.0.1:%d#%s", t.port, fp);
	cr_expect(strstr(b[3].last_why, line) != NULL, "%s", b[3].last_why);
	cr_expect(strstr(b[3].last_why, "line 2") != NULL, "%s", b[3].last_why);

	/* Accepting it on purpose (the new fingerprint given) rewrites the line and joins. */
	th_bot_config(&t, &bc, "accepting", BOT_NORMAL, 1, 0);
	bc.net.server_key = NULL;
	bc.net.known_file = known;
	bc.net.fingerprint = fp;
	bc.net.room = "fp";
	bc.ready = false;
	th_bot(&t, &b[4], &bc);
	th_run(&t, 10000, joined, &b[4]);
	cr_expect_eq(net_player(b[4].net), 0, "%s", b[4].last_why);
	cr_assert_not_null(f = fopen(known, "r"));
	cr_assert_not_null(fgets(text, sizeof text, f));
	cr_assert_not_null(fgets(text, sizeof text, f));
	fclose(f);
	snprintf(line, sizeof line, "127.0.0.1:%d %s\n", t.port, fp);
	cr_expect_str_eq(text, line);
	netbot_stop(&b[4]);
	th_run(&t, 5000, closed, &b[4]);
	temp_known_rm(known);
	th_finish(&t);
}

/* A record changed on the way is caught; the peer is dropped, the room survives. */
Test(crypto, a_changed_record_drops_the_link)
{
	struct pconn *s = calloc(1, sizeof *s), *c = calloc(1, sizeof *c);
	static struct wire_msg m, got;
	static uint8_t out[PCONN_FRAME_MAX];
	struct proto_err e;
	size_t len;
	uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };

	pconn_init(s, PCONN_SERVER);
	pconn_init(c, PCONN_CLIENT);
	pconn_set_identity(s, &th_identity()->kp);
	wire_hello_init(&m);
	cr_assert_eq(pconn_send(c, &m, out, sizeof out, &len, &e), 0);
	pconn_feed(s, out, len);
	cr_assert_eq(pconn_next(s, &got, &e), PROTO_DONE);
	wire_challenge_init(&m, salt, false);
	cr_assert_eq(pconn_send(s, &m, out, sizeof out, &len, &e), 0);
	pconn_feed(c, out, len);
	cr_assert_eq(pconn_next(c, &got, &e), PROTO_DONE);
	m.type = WIRE_HEARTBEAT;
	cr_assert_eq(pconn_send(c, &m, out, sizeof out, &len, &e), 0);
	out[len - 1] ^= 1;
	pconn_feed(s, out, len);
	cr_assert_eq(pconn_next(s, &got, &e), PROTO_BROKEN);
	cr_expect_eq(e.code, PERR_CRYPTO);
	pconn_finish(s);
	pconn_finish(c);
	free(s);
	free(c);
}

/* A fingerprint accepted on purpose rewrites known_servers through a new file renamed over it.
 * A symlink planted where a fixed "known_servers.tmp" was written (a shared or restored state
 * folder) must not be followed: what it points to stays as it was, the file is rewritten, and no
 * temporary file is left. */
Test(crypto, known_servers_rewrite_follows_no_planted_symlink)
{
	char dir[] = "/tmp/wizwar-known.XXXXXX", path[256], tmp[256], victim[256], old[64], why[256], buf[256];
	int line;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/known_servers", dir);
	snprintf(tmp, sizeof tmp, "%s/known_servers.tmp", dir);
	snprintf(victim, sizeof victim, "%s/precious", dir);
	cr_assert_not_null(f = fopen(victim, "w"));
	fputs("precious\n", f);
	fclose(f);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("# kept\nexample.org:7727 aaaaaaaaaaaaaaaaaaaaaaaaaa\nother:1 cccccccccccccccccccccccccc\n", f);
	fclose(f);
	cr_assert_eq(symlink(victim, tmp), 0);

	cr_expect_eq(known_check(path, "example.org:7727", "bbbbbbbbbbbbbbbbbbbbbbbbbb", true, old, sizeof old, &line, why,
	                         sizeof why), KNOWN_MATCH, "%s", why);
	cr_assert_not_null(f = fopen(victim, "r"));
	cr_expect_not_null(fgets(buf, sizeof buf, f));
	fclose(f);
	cr_expect_str_eq(buf, "precious\n", "the symlink's target was written through");
	struct stat st;
	cr_expect_eq(lstat(path, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "known_servers is no longer a plain file");
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_expect_eq(known_check(path, "example.org:7727", "bbbbbbbbbbbbbbbbbbbbbbbbbb", false, old, sizeof old, &line,
	                         why, sizeof why), KNOWN_MATCH, "not rewritten");
	cr_expect_eq(known_check(path, "other:1", "cccccccccccccccccccccccccc", false, old, sizeof old, &line, why,
	                         sizeof why), KNOWN_MATCH, "another line lost");
	/* Nothing left but the three names: the file, the planted link (left alone), its target. */
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	cr_expect_eq(n, 3, "%d names in the folder: a temporary file left behind?", n);
	unlink(tmp);
	unlink(victim);
	unlink(path);
	rmdir(dir);
}
