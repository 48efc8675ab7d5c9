/* SPDX-License-Identifier: MIT */
/* tests/server harness: one loop, one server, bots and raw sockets; every test ends with uv_loop_close() == 0. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "noise.h"

void
th_config(struct server_config *c)
{
	server_config_default(c);
	c->bind = "127.0.0.1";
	c->port = 0;
	c->quiet = getenv("WIZWAR_TEST_VERBOSE") == NULL;
	c->lim.tick_ms = 50;
	c->lim.max_conns_per_addr = 64;
	/* Every test peer is on 127.0.0.1, and many make rooms quickly: the rate limits are off
	 * but in the tests of them (server/limits, "rate_*"). */
	c->lim.hs_burst = 0;
	c->lim.room_burst = 0;
	c->identity = th_identity();
}

/* One long-term key for every server of a test process, as a host keeps its key across
 * restarts: a client resuming into a restarted server sees the key it pinned. */
const struct auth_identity *
th_identity(void)
{
	static struct auth_identity id;
	static bool made;

	if (!made) {
		cr_assert_eq(auth_init(), 0);
		auth_identity_new(&id);
		made = true;
	}
	return &id;
}

void
th_init(struct th *t)
{
	memset(t, 0, sizeof *t);
	cr_assert_eq(uv_loop_init(&t->loop), 0);
}

void
th_server(struct th *t, const struct server_config *c)
{
	char why[256];

	cr_assert_eq(server_create(&t->loop, c, &t->srv, why, sizeof why), 0, "server_create: %s", why);
	t->port = server_port(t->srv);
	cr_assert_gt(t->port, 0);
}

void
th_bot_config(struct th *t, struct netbot_config *bc, const char *name, int level, uint64_t seed, int games)
{
	memset(bc, 0, sizeof *bc);
	net_config_default(&bc->net);
	bc->net.host = "127.0.0.1";
	bc->net.port = t->port;
	bc->net.name = name;
	/* No server of ours (a test's own hostile one): the key every test server shares. */
	bc->net.server_key = t->srv ? server_public_key(t->srv) : th_identity()->kp.pk;
	bc->net.reconnect_ms = 100;
	bc->net.create_room = true; /* a multi-room server: the first of a room's players makes it */
	bc->level = level;
	bc->seed = seed;
	bc->games = games;
	bc->ready = true;
	bc->quiet = getenv("WIZWAR_TEST_VERBOSE") == NULL;
}

void
th_bot(struct th *t, struct netbot *b, const struct netbot_config *bc)
{
	char why[256];

	cr_assert_eq(netbot_start(b, &t->loop, bc, why, sizeof why), 0, "netbot_start: %s", why);
}

struct runctl {
	struct th *t;
	bool (*stop)(void *ud);
	void *ud;
};

static void
on_watchdog(uv_timer_t *w)
{
	struct runctl *rc = w->data;

	if (rc->stop && rc->stop(rc->ud)) {
		uv_stop(w->loop);
		return;
	}
	if (uv_now(w->loop) >= (uint64_t)(uintptr_t)rc->t->watchdog.data) {
		rc->t->timed_out = true;
		uv_stop(w->loop);
	}
}

void
th_run(struct th *t, unsigned ms, bool (*stop)(void *ud), void *ud)
{
	struct runctl rc = { t, stop, ud };
	uv_timer_t w;
	uint64_t deadline = uv_now(&t->loop) + ms;

	uv_timer_init(&t->loop, &w);
	uv_unref((uv_handle_t *)&w);
	w.data = &rc;
	t->watchdog.data = (void *)(uintptr_t)deadline;
	uv_timer_start(&w, on_watchdog, 10, 10);
	t->timed_out = false;
	uv_run(&t->loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&w, NULL);
	uv_run(&t->loop, UV_RUN_NOWAIT);
	cr_assert(!t->timed_out, "timed out after %u ms", ms);
}

static void
on_srv_closed(void *ud)
{
	((struct th *)ud)->srv_closed = true;
}

static void
walk_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	cr_log_warn("handle left open: %s", uv_handle_type_name(uv_handle_get_type(h)));
}

void
th_finish(struct th *t)
{
	if (t->srv)
		server_close(t->srv, on_srv_closed, t);
	t->srv = NULL;
	for (int i = 0; i < 100 && uv_run(&t->loop, UV_RUN_NOWAIT); i++)
		uv_sleep(10);
	uv_run(&t->loop, UV_RUN_DEFAULT);
	uv_walk(&t->loop, walk_cb, NULL);
	cr_assert_eq(uv_loop_close(&t->loop), 0, "handles left open on the loop");
}

int
th_raw_connect(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(fd, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

static void
raw_on_write(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
raw_flush(struct raw *r)
{
	if (!r->connected || r->npending == 0 || r->closed)
		return;
	struct { uv_write_t w; uint8_t d[]; } *req = malloc(sizeof *req + r->npending);
	memcpy(req->d, r->pending, r->npending);
	uv_buf_t b = uv_buf_init((char *)req->d, (unsigned)r->npending);
	if (uv_write(&req->w, (uv_stream_t *)&r->tcp, &b, 1, raw_on_write) != 0)
		free(req);
	r->npending = 0;
}

static void
raw_alloc(uv_handle_t *h, size_t sug, uv_buf_t *b)
{
	struct raw *r = h->data;
	(void)sug;
	*b = uv_buf_init((char *)r->got + r->ngot, (unsigned)(sizeof r->got - r->ngot));
}

static void
raw_closed(uv_handle_t *h)
{
	struct raw *r = h->data;

	r->closed = true;
	pconn_finish(&r->pc);
}

void
raw_close(struct raw *r)
{
	if (!uv_is_closing((uv_handle_t *)&r->tcp))
		uv_close((uv_handle_t *)&r->tcp, raw_closed);
}

/* Decode what came, as a client; answer CHALLENGE when joining. */
static void
raw_take(struct raw *r, const uint8_t *p, size_t n)
{
	struct proto_err e;
	int rc;

	while (n && !r->broken) {
		size_t k = pconn_feed(&r->pc, p, n);
		p += k;
		n -= k;
		while ((rc = pconn_next(&r->pc, &r->in, &e)) == PROTO_DONE) {
			r->nmsgs++;
			r->count[r->in.type & 0x7f]++;
			if (r->on_msg)
				r->on_msg(r, &r->in);
			if (r->in.type == WIRE_ERROR) {
				r->last_error = r->in;
				r->nerrors++;
			}
			if (r->in.type == WIRE_CHALLENGE && !r->no_ident) {
				static struct wire_msg m;
				memset(&m, 0, sizeof m);
				m.type = WIRE_IDENT;
				memcpy(m.u.ident.key, r->id.pk, PROTO_IDENT_KEY_LEN);
				auth_ident_sign(&r->id, pconn_hash(&r->pc), m.u.ident.sig);
				raw_msg(r, &m);
			}
			if (r->in.type == WIRE_CHALLENGE && r->join) {
				static struct wire_msg m;
				memset(&m, 0, sizeof m);
				m.type = WIRE_AUTH; /* no password: the proof is not checked */
				wire_who_init(&m.u.auth.who, r->name, r->room, r->spectator ? ROLE_SPECTATOR : ROLE_PLAYER);
				m.u.auth.who.create = r->create;
				raw_msg(r, &m);
				r->sent_auth = true;
			}
			if (r->in.type == WIRE_WELCOME && r->deaf) {
				/* Joined: from now on it reads nothing (a spectator or player that does not read). */
				uv_read_stop((uv_stream_t *)&r->tcp);
				return;
			}
		}
		if (rc == PROTO_BROKEN)
			r->broken = true;
	}
}

static void
raw_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct raw *r = s->data;
	(void)b;
	if (n < 0) {
		r->eof = true;
		raw_close(r);
		return;
	}
	r->ngot += (size_t)n;
	raw_take(r, r->got + r->ngot - (size_t)n, (size_t)n);
	if (r->ngot == sizeof r->got)
		r->ngot = 0; /* a long session: keep reading, forget the oldest bytes */
}

static void
raw_connected(uv_connect_t *c, int status)
{
	struct raw *r = c->data;
	if (status != 0) {
		r->eof = true;
		raw_close(r);
		return;
	}
	r->connected = true;
	uv_read_start((uv_stream_t *)&r->tcp, raw_alloc, raw_read);
	raw_flush(r);
}

static void
raw_begin(struct th *t, struct raw *r)
{
	memset(r, 0, sizeof *r);
	auth_ident_new(&r->id); /* set another after raw_start, before the loop runs, to choose the key */
	pconn_init(&r->pc, PCONN_CLIENT);
	r->tcp.data = r;
	r->creq.data = r;
	(void)t;
}

static void
raw_go(struct th *t, struct raw *r)
{
	struct sockaddr_in a;

	uv_ip4_addr("127.0.0.1", t->port, &a);
	cr_assert_eq(uv_tcp_connect(&r->creq, &r->tcp, (struct sockaddr *)&a, raw_connected), 0);
}

void
raw_start(struct th *t, struct raw *r)
{
	raw_begin(t, r);
	uv_tcp_init(&t->loop, &r->tcp);
	raw_go(t, r);
}

void
raw_start_small(struct th *t, struct raw *r)
{
	int small = 4096;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	raw_begin(t, r);
	cr_assert_geq(fd, 0);
	/* A small receive window, so that the kernel holds little for it. */
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	uv_tcp_init(&t->loop, &r->tcp);
	cr_assert_eq(uv_tcp_open(&r->tcp, fd), 0);
	raw_go(t, r);
}

void
raw_start_from(struct th *t, struct raw *r, const char *src)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	raw_begin(t, r);
	cr_assert_geq(fd, 0);
	cr_assert_eq(uv_ip4_addr(src, 0, &a), 0);
	/* On Linux all of 127/8 is this machine: 127.0.0.2 is another address for the server's
	 * per-address limits. */
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "cannot bind %s", src);
	uv_tcp_init(&t->loop, &r->tcp);
	cr_assert_eq(uv_tcp_open(&r->tcp, fd), 0);
	raw_go(t, r);
}

void
raw_send(struct raw *r, const void *p, size_t n)
{
	cr_assert_leq(r->npending + n, sizeof r->pending);
	memcpy(r->pending + r->npending, p, n);
	r->npending += n;
	raw_flush(r);
}

void
raw_msg(struct raw *r, const struct wire_msg *m)
{
	struct proto_err e;
	size_t len;

	cr_assert_eq(pconn_send(&r->pc, m, r->frame, sizeof r->frame, &len, &e), 0, "raw: %s: %s", wire_name(m->type),
	             e.why);
	raw_send(r, r->frame, len);
}

void
raw_hello(struct raw *r)
{
	static struct wire_msg m;

	wire_hello_init(&m);
	raw_msg(r, &m);
}

void
raw_join_as(struct raw *r, const char *name, const char *room, bool create)
{
	snprintf(r->name, sizeof r->name, "%s", name);
	snprintf(r->room, sizeof r->room, "%s", room);
	r->join = true;
	r->create = create;
	raw_hello(r);
}

void
raw_join(struct raw *r, const char *name, const char *room)
{
	raw_join_as(r, name, room, true);
}

void
raw_sealed(struct raw *r, const void *plain, size_t n)
{
	static uint8_t rec[2 + PCONN_RECORD_MAX + NOISE_TAG_LEN];
	size_t padded = pconn_padded(n);

	cr_assert(r->pc.secure, "raw_sealed before the handshake");
	cr_assert_leq(n, (size_t)PCONN_RECORD_MAX);
	/* Padded with zeros to its class, as every record is (docs/protocol.md, "Padding"). */
	memcpy(rec + 2, plain, n);
	memset(rec + 2 + n, 0, padded - n);
	rec[0] = (uint8_t)((padded + NOISE_TAG_LEN) >> 8);
	rec[1] = (uint8_t)(padded + NOISE_TAG_LEN);
	cr_assert_eq(noise_seal(&r->pc.tx, rec + 2, padded, rec + 2), 0);
	raw_send(r, rec, 2 + padded + NOISE_TAG_LEN);
}

int
raw_decode(const struct raw *r, struct wire_msg *last_error, int *nerrors)
{
	*nerrors = r->nerrors;
	if (r->nerrors)
		*last_error = r->last_error;
	return r->nmsgs;
}

size_t
raw_frame(const struct wire_msg *m, uint8_t *out, size_t cap)
{
	struct proto_err e;
	size_t len;
	int hl;

	cr_assert_eq(wire_encode(m, out + PROTO_HEADER_MAX, cap - PROTO_HEADER_MAX, &len, &e), 0, "%s", e.why);
	uint8_t hdr[PROTO_HEADER_MAX];
	hl = frame_header(hdr, m->type, false, len);
	cr_assert_gt(hl, 0);
	memmove(out + hl, out + PROTO_HEADER_MAX, len);
	memcpy(out, hdr, (size_t)hl);
	return (size_t)hl + len;
}
