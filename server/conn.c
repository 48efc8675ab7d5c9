/* SPDX-License-Identifier: MIT */
/* conn: one TCP peer of the server: bounded frame reading, a capped write queue, timeouts, and dropping with a reason. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pool.h"
#include "proxy.h"

struct wreq {
	uv_write_t req;
	struct conn *c;
	size_t len;
	uint8_t data[];
};

static void
on_close(uv_handle_t *h)
{
	struct conn *c = h->data;
	struct server *s = c->srv;

	if (--c->handles == 0) {
		if (c->prev)
			c->prev->next = c->next;
		else
			s->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		pconn_finish(&c->pc);
		free(c->px);
		free(c);
		server__unref(s);
	}
}

void
conn__close_now(struct conn *c)
{
	if (c->handles < 2 || uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	server__conn_gone(c);
	c->state = CONN_CLOSING;
	uv_close((uv_handle_t *)&c->tcp, on_close);
	uv_close((uv_handle_t *)&c->timer, on_close);
}

static void
on_shutdown(uv_shutdown_t *req, int status)
{
	struct conn *c = req->data;

	(void)status;
	free(req);
	conn__close_now(c);
}

/* Stop reading, let what is queued go out, then close (or close after close_ms). */
static void
begin_close(struct conn *c)
{
	uv_shutdown_t *req;

	if (c->state == CONN_CLOSING)
		return;
	/* Frames kept for a record (a command's sends, corked) go before the shutdown. */
	conn__flush(c);
	server__conn_gone(c);
	c->state = CONN_CLOSING;
	c->closing_since = server__now(c->srv);
	if (c->reading) {
		uv_read_stop((uv_stream_t *)&c->tcp);
		c->reading = false;
	}
	if ((req = malloc(sizeof *req)) == NULL) {
		conn__close_now(c);
		return;
	}
	req->data = c;
	if (uv_shutdown(req, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
		free(req);
		conn__close_now(c);
		return;
	}
	c->shutting = true;
}

static void
on_write(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;

	(void)status;
	w->c->queued -= w->len;
	free(w);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);
static void proxy_read(struct conn *c, size_t n);

static void
on_doomed(uv_timer_t *t)
{
	conn__close_now(t->data);
}

/* A peer that cannot be written to any more goes at the next turn of the loop, not
 * here: conn__send is called while a room is sending to both seats (from its shared
 * scratch message), and closing now would re-enter the room in the middle of that.
 * Until then it reads nothing and every send to it is refused. */
static void
doom(struct conn *c)
{
	if (c->doomed)
		return;
	c->doomed = true;
	if (c->reading) {
		uv_read_stop((uv_stream_t *)&c->tcp);
		c->reading = false;
	}
	if (!uv_is_closing((uv_handle_t *)&c->timer))
		uv_timer_start(&c->timer, on_doomed, 0, 0);
}

static int conn__write(struct conn *c, size_t len);

int
conn__send(struct conn *c, const struct wire_msg *m)
{
	struct server *s = c->srv;
	size_t len;

	if (c->doomed || (c->state == CONN_CLOSING && c->shutting))
		return -1;
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return -1;
	if (pconn_send(&c->pc, m, s->frame, sizeof s->frame, &len, &s->err) != 0) {
		if (m->type == WIRE_CHALLENGE && s->err.code == PERR_CRYPTO) {
			/* The key exchange with the HELLO's ephemeral key gave nothing (a low-order
			 * point, all zeros): the peer's fault, refused in clear as any bad HELLO is. */
			conn__drop(c, PERR_CRYPTO, "HELLO: the key exchange failed: not a usable X25519 key");
			return -1;
		}
		/* Our own message would not encode: a server bug, never the peer's fault,
		 * but the deflate stream may be out of step now, so this peer goes. */
		server__event(s, LOG_WARNING, c->room ? c->room->code : NULL, c->peer, "cannot send %s: %s", wire_name(m->type), s->err.why);
		doom(c);
		return -1;
	}
	return conn__write(c, len);
}

/* NODES, a cluster's live nodes as they are now, into m: false when there are none (not a cluster). */
static bool
nodes_fill(struct server *s, struct wire_msg *m)
{
	struct cluster_node nodes[WIRE_NODES_MAX];
	unsigned n;

	if (s->cluster == NULL || (n = cluster_list(s->cluster, nodes, WIRE_NODES_MAX)) == 0)
		return false;
	memset(&m->u.nodes, 0, sizeof m->u.nodes);
	m->type = WIRE_NODES;
	m->u.nodes.n = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		m->u.nodes.node[i].port = (uint16_t)nodes[i].port;
		memcpy(m->u.nodes.node[i].key, nodes[i].key, PROTO_KEY_LEN);
		snprintf(m->u.nodes.node[i].host, sizeof m->u.nodes.node[i].host, "%s", nodes[i].host);
	}
	return true;
}

/* NODES to one connection (nothing outside a cluster): where a player resumes, a spectator watches
 * again, or a player waiting for a pair asks again, if this node dies. Made in a scratch message of
 * its own, not s->out: it is sent from inside a spectators' fan-out (spect.c, items_send), which may
 * run while a caller's message is in s->out. */
void
conn__send_nodes(struct conn *c)
{
	struct server *s = c->srv;

	if (nodes_fill(s, &s->nout))
		conn__send(c, &s->nout);
}

int
conn__send_payload(struct conn *c, int type, const uint8_t *payload, size_t plen)
{
	struct server *s = c->srv;
	size_t len;

	if (c->doomed || c->state != CONN_JOINED || uv_is_closing((uv_handle_t *)&c->tcp))
		return -1;
	if (pconn_send_payload(&c->pc, type, payload, plen, s->frame, sizeof s->frame, &len, &s->err) != 0) {
		server__log(s, "%s: cannot send %s: %s", c->peer, wire_name(type), s->err.why);
		doom(c);
		return -1;
	}
	return conn__write(c, len);
}

/* Frames sent until conn__flush() share one record (one tag). */
void
conn__cork(struct conn *c)
{
	pconn_cork(&c->pc);
}

int
conn__flush(struct conn *c)
{
	struct server *s = c->srv;
	size_t len;

	if (c->doomed || uv_is_closing((uv_handle_t *)&c->tcp)) {
		pconn_flush(&c->pc, s->frame, sizeof s->frame, &len, &s->err); /* uncork, drop */
		return -1;
	}
	if (pconn_flush(&c->pc, s->frame, sizeof s->frame, &len, &s->err) != 0) {
		doom(c);
		return -1;
	}
	return conn__write(c, len);
}

/* Write the len bytes pconn left in s->frame. */
static int
conn__write(struct conn *c, size_t len)
{
	struct server *s = c->srv;
	struct wreq *w;
	uv_buf_t b;

	if (len == 0)
		return 0;
	if (c->queued + len > s->cfg.lim.max_queued) {
		server__event(s, LOG_NOTICE, c->room ? c->room->code : NULL, c->peer, "dropped: %zu bytes waiting, it does not read",
		              c->queued);
		metrics_limit_hit(&s->m, METRICS_LIM_WRITE_QUEUE);
		if (s->cfg.hooks.dropped)
			s->cfg.hooks.dropped(s->cfg.hooks.ud, c, PERR_TIMEOUT, "write queue full");
		doom(c);
		return -1;
	}
	/* Nothing queued: straight to the socket (one write(2), no request, no callback, no
	 * epoll change); what the socket does not take now is queued, in order, as before.
	 * An error is left for uv_write, which reports it as it always did. */
	size_t done = 0;
	if (c->queued == 0) {
		b = uv_buf_init((char *)s->frame, (unsigned)len);
		int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
		done = n > 0 ? (size_t)n : 0;
	}
	if (done < len) {
		if ((w = malloc(sizeof *w + (len - done))) == NULL) {
			doom(c);
			return -1;
		}
		w->c = c;
		w->len = len - done;
		memcpy(w->data, s->frame + done, len - done);
		b = uv_buf_init((char *)w->data, (unsigned)(len - done));
		if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write) != 0) {
			free(w);
			doom(c);
			return -1;
		}
		c->queued += len - done;
	}
	c->last_tx = server__now(s);
	s->m.bytes_out += len;
	if (s->cfg.hooks.tap)
		s->cfg.hooks.tap(s->cfg.hooks.ud, c, c->state == CONN_JOINED ? c->seat : -1, s->frame, len);
	return 0;
}

void
conn__error(struct conn *c, int code, bool fatal, const char *fmt, ...)
{
	struct wire_msg *m = &c->srv->out;
	char text[PROTO_REASON_BYTES + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	wire_error_init(m, code, fatal, text);
	conn__send(c, m);
}

/* fail: the reason a handshake failure is counted under, or -1 for the code's. */
static void
drop(struct conn *c, int code, const char *why, bool log, int fail)
{
	struct server *s = c->srv;

	if (c->state == CONN_CLOSING)
		return;
	/* Every state before WELCOME is the handshake's: HELLO, CHALLENGED, KNOWN (IDENT taken), CLAIMING. */
	if (c->state < CONN_JOINED)
		s->m.failed[fail >= 0 ? fail : (int)metrics_fail_of_code(code)]++;
	if (log)
		server__event(s, LOG_NOTICE, c->room ? c->room->code : NULL, c->peer, "dropped: %s (%s)", proto_strerror(code),
		              why);
	c->offender = code != PERR_TIMEOUT;
	if (s->cfg.hooks.dropped)
		s->cfg.hooks.dropped(s->cfg.hooks.ud, c, code, why);
	conn__error(c, code, true, "%s", why);
	begin_close(c);
}

void
conn__drop(struct conn *c, int code, const char *why)
{
	drop(c, code, why, true, -1);
}

void
conn__drop_unlogged(struct conn *c, int code, const char *why)
{
	drop(c, code, why, false, -1);
}

void
conn__send_close(struct conn *c, const struct wire_msg *m)
{
	if (c->state == CONN_CLOSING)
		return;
	conn__send(c, m);
	begin_close(c);
}

void
conn__bye(struct conn *c, int reason)
{
	struct wire_msg *m = &c->srv->out;

	if (c->state == CONN_CLOSING)
		return;
	m->type = WIRE_BYE;
	m->u.bye.reason = (uint8_t)reason;
	conn__send(c, m);
	begin_close(c);
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct conn *c = h->data;
	size_t n;
	uint8_t *p;

	(void)suggested;
	if (c->px) {
		/* No more than the header still needs: what follows it is pconn's. */
		*buf = uv_buf_init((char *)c->px + c->pxlen, (unsigned)(c->pxneed - c->pxlen));
		return;
	}
	p = pconn_space(&c->pc, &n);
	*buf = uv_buf_init((char *)p, (unsigned)n);
}

/* Each connection may send so many frames and inflated bytes per second (whatever their
 * type: a flood of HEARTBEATs costs the loop as much as any); past that it is dropped
 * with LIMIT, so that one peer cannot slow the other rooms. True: dropped. */
static bool
over_budget(struct conn *c)
{
	struct server *s = c->srv;
	const struct server_limits *l = &s->cfg.lim;
	uint64_t now = server__now(s), bytes = c->pc.payload_in;
	char why[PROTO_REASON_BYTES];

	if (now - c->budget_start >= 1000) {
		c->budget_start = now;
		c->budget_frames = 0;
		c->budget_bytes = bytes;
	}
	c->budget_frames++;
	if (c->budget_frames <= l->frames_per_s && bytes - c->budget_bytes <= l->inflated_per_s)
		return false;
	metrics_limit_hit(&s->m, METRICS_LIM_FRAMES);
	if (c->budget_frames > l->frames_per_s)
		snprintf(why, sizeof why, "more than %u frames in a second", l->frames_per_s);
	else
		snprintf(why, sizeof why, "more than %u bytes (inflated) in a second", l->inflated_per_s);
	conn__drop(c, PERR_LIMIT, why);
	return true;
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *c = st->data;
	struct server *s = c->srv;

	(void)buf;
	if (nread < 0) {
		/* The peer went away (EOF, reset): not a protocol matter. */
		conn__close_now(c);
		return;
	}
	if (nread == 0)
		return;
	s->m.bytes_in += (size_t)nread;
	c->last_rx = server__now(s);
	if (c->px) {
		proxy_read(c, (size_t)nread);
		return;
	}
	/* A PROXY header from an address not trusted: said as what it is, not as bad magic. */
	if (c->rx == 0 && c->state == CONN_HELLO && proxy_looks_like((const uint8_t *)buf->base, (size_t)nread) &&
	    nread >= 8) {
		c->rx += (size_t)nread;
		drop(c, PERR_STATE, "a PROXY protocol header from an address that is not a trusted proxy (--trusted-proxy)",
		     true, METRICS_FAIL_PROXY);
		return;
	}
	c->rx += (size_t)nread;
	pconn_commit(&c->pc, (size_t)nread);
	while (c->state != CONN_CLOSING && !c->doomed) {
		int rc = pconn_next(&c->pc, &s->in, &s->err);
		if (rc == PROTO_MORE)
			break;
		if (rc == PROTO_BROKEN) {
			char why[PROTO_REASON_BYTES];
			/* Say it from the reader's side: the client shows this text as it is. */
			if (wire_version_refusal(&s->err, why, sizeof why)) {
				conn__drop(c, s->err.code, why);
			} else {
				conn__drop(c, s->err.code, s->err.why);
			}
			break;
		}
		if (over_budget(c))
			break;
		server__handle(c, &s->in);
	}
	if (c->state != CONN_CLOSING && !c->doomed)
		(void)pconn_stalled(&c->pc, server__now(s), s->cfg.lim.record_ms); /* starts its clock */
}

static void
tick(struct conn *c, uint64_t now)
{
	struct server *s = c->srv;
	const struct server_limits *l = &s->cfg.lim;

	if (c->doomed) {
		conn__close_now(c);
		return;
	}
	if (c->state == CONN_CLOSING) {
		if (now - c->closing_since >= l->close_ms)
			conn__close_now(c);
		return;
	}
	if (c->px && now - c->born >= l->proxy_ms) {
		char why[96];
		snprintf(why, sizeof why, "no whole PROXY header from the trusted proxy within %u ms", l->proxy_ms);
		drop(c, PERR_TIMEOUT, why, true, METRICS_FAIL_PROXY);
		return;
	}
	if (c->state != CONN_JOINED && c->state != CONN_POOLED && now - c->born >= l->handshake_ms) {
		conn__drop(c, PERR_TIMEOUT, "the handshake took too long");
		return;
	}
	if (pconn_stalled(&c->pc, now, l->record_ms)) {
		/* Heartbeats would keep last_rx fresh while going into a record that never ends
		 * (a length prefix raised on the way): RECORD, which the client takes as a link
		 * changed on the way, and comes back with its token. */
		char why[96];
		snprintf(why, sizeof why, "a record unfinished after %u s: cut or changed on the way", (l->record_ms + 999) / 1000);
		conn__drop(c, PERR_RECORD, why);
		return;
	}
	if (now - c->last_rx >= l->idle_ms) {
		char why[64];
		snprintf(why, sizeof why, "silent for %u s", (l->idle_ms + 999) / 1000);
		conn__drop(c, PERR_TIMEOUT, why);
		return;
	}
	if ((c->state == CONN_JOINED || c->state == CONN_POOLED) && now - c->last_tx >= l->heartbeat_ms) {
		s->out.type = WIRE_HEARTBEAT;
		conn__send(c, &s->out);
	}
}

/* Every connection's timeouts, checked in one pass every tick_ms by the server's one
 * timer, not by a timer a connection: at 5,000 duels those were 20,000 timer expiries a
 * second (a heap removal and insertion each, in libuv) and a loop woken at nearly every
 * millisecond for them, 4 a command at a command a second a duel. A deadline is still
 * seen at most tick_ms after it passes. Dropping a peer only starts its close (freed in a
 * close callback), so the next one is safe to read after. */
void
conn__tick_all(struct server *s)
{
	uint64_t now = server__now(s);
	struct conn *next;

	for (struct conn *c = s->conns; c; c = next) {
		next = c->next;
		if (!uv_is_closing((uv_handle_t *)&c->tcp))
			tick(c, now);
	}
}

/* What the per-address limits count a peer as: an IPv4 address (mapped into IPv6 form, also
 * when it came through a dual-stack socket), or an IPv6 address cut to its /64, since one site
 * holds a whole /64. Fills host and port for log lines. */
void
conn__addr_key(const struct sockaddr *sa, uint8_t addr16[16], char *host, size_t hostlen, int *port)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(addr16, 0, 16);
	snprintf(host, hostlen, "?");
	*port = 0;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
		uv_ip4_name(a, host, hostlen);
		*port = ntohs(a->sin_port);
		addr16[10] = addr16[11] = 0xff;
		memcpy(addr16 + 12, &a->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
		*port = ntohs(a->sin6_port);
		memcpy(addr16, &a->sin6_addr, 16);
		if (memcmp(addr16, v4mapped, 12) == 0) {
			struct sockaddr_in a4 = { .sin_family = AF_INET };
			memcpy(&a4.sin_addr, addr16 + 12, 4);
			uv_ip4_name(&a4, host, hostlen);
		} else {
			uv_ip6_name(a, host, hostlen);
			memset(addr16 + 8, 0, 8);
		}
	}
}

/* The peer's name for log lines and its key for the limits; *trusted when it is one of the
 * trusted proxies (matched on its whole address, not the /64 the limits use). false: the peer
 * is already gone (a connection reset before it was accepted has no peer name: a proxy's
 * health check that sends its header and closes at once). */
static bool
peer_name(struct conn *c, uint8_t addr16[16], bool *trusted)
{
	struct sockaddr_storage ss;
	int len = sizeof ss;
	char host[48] = "?";
	int port = 0;
	uint8_t full[16] = { 0 };

	memset(addr16, 0, 16);
	*trusted = false;
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) != 0)
		return false;
	{
		conn__addr_key((const struct sockaddr *)&ss, addr16, host, sizeof host, &port);
		if (ss.ss_family == AF_INET6) {
			memcpy(full, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
		} else if (ss.ss_family == AF_INET) {
			full[10] = full[11] = 0xff;
			memcpy(full + 12, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		}
		*trusted = c->srv->ntrusted && ss.ss_family != AF_UNSPEC &&
		           proxy_cidr_match(c->srv->trusted, c->srv->ntrusted, full);
		memcpy(c->real, full, 16); /* a trusted proxy's header replaces it */
	}
	snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
	return true;
}

/* The per-address checks, once the address is known (at accept, or after a trusted proxy's
 * header), then reading for the handshake. */
static void
admit(struct conn *c, const uint8_t a[16])
{
	struct server *s = c->srv;
	char why[PROTO_REASON_BYTES];
	bool say;

	if ((c->addr = server__addr_get(s, a)) != NULL)
		c->addr->conns++;
	/* An operator's address ban, on the real client's whole address: before a byte of the
	 * handshake is read, told in a plain ERROR (the reason is the operator's, not a secret). */
	if (moderate__refuse(c))
		return;
	if (c->addr && !server__may_handshake(s, c, why, sizeof why, &say)) {
		/* A flood from one address is said once (with the first refusal), not once a connection. */
		if (say)
			server__event(s, LOG_WARNING, NULL, c->peer, "refusing its address's handshakes for now (more than %u at "
			              "once, then one every %u ms): %s", s->cfg.lim.hs_burst, s->cfg.lim.hs_every_ms, why);
		metrics_limit_hit(&s->m, METRICS_LIM_HANDSHAKE_RATE);
		conn__drop_unlogged(c, PERR_LIMIT, why);
		return;
	}
	if (c->addr == NULL || c->addr->conns > s->cfg.lim.max_conns_per_addr) {
		metrics_limit_hit(&s->m, METRICS_LIM_CONNS_PER_ADDR);
		conn__drop(c, PERR_SERVER, "too many connections from your address");
		return;
	}
	if (!c->reading && uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) {
		conn__close_now(c);
		return;
	}
	c->reading = true;
}

/* Bytes of a trusted proxy's header came in: once it is whole, the client it names is the
 * peer (its address for the limits, its name for the log), and the handshake begins. */
static void
proxy_read(struct conn *c, size_t n)
{
	struct server *s = c->srv;
	struct proxy_hdr h;
	size_t need;
	char why[PROTO_REASON_BYTES];
	uint8_t a[16];

	c->pxlen += n;
	c->rx += n;
	int rc = proxy_decode(c->px, c->pxlen, &h, &need, why, sizeof why);
	if (rc == PROXY_MORE) {
		c->pxneed = need;
		return;
	}
	if (rc == PROXY_BROKEN) {
		drop(c, PERR_STATE, why, true, METRICS_FAIL_PROXY);
		return;
	}
	free(c->px);
	c->px = NULL;
	if (h.has_addr) {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(h.src_port) };
		char host[48];
		int port;
		memcpy(&sa.sin6_addr, h.src, 16);
		memcpy(c->real, h.src, 16);
		conn__addr_key((const struct sockaddr *)&sa, a, host, sizeof host, &port);
		snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
		s->m.proxied++;
	} else {
		/* LOCAL (the proxy's health check), UNSPEC, a Unix socket: the proxy itself. */
		struct sockaddr_storage ss;
		int len = sizeof ss;
		char host[48];
		int port;
		memset(a, 0, 16);
		if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
			conn__addr_key((const struct sockaddr *)&ss, a, host, sizeof host, &port);
	}
	admit(c, a);
}

int
conn__start(struct server *s, int fd)
{
	struct conn *c;
	uint8_t a[16];
	bool trusted;

	if (!s->pscratch) {
		struct pconn_config pc = PCONN_CONFIG_DEFAULT;
		if ((s->pscratch = pconn_scratch_new(&pc)) == NULL)
			return -1;
	}
	if ((c = calloc(1, sizeof *c)) == NULL)
		return -1;
	c->srv = s;
	c->seat = -1;
	c->state = CONN_HELLO;
	c->rating = POOL_RATING_DEFAULT;
	pconn_init(&c->pc, PCONN_SERVER);
	pconn_share(&c->pc, s->pscratch);
	pconn_set_identity(&c->pc, &s->id.kp);
	uv_tcp_init(s->loop, &c->tcp);
	uv_timer_init(s->loop, &c->timer);
	c->tcp.data = c;
	c->timer.data = c;
	c->handles = 2;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	s->handles++;
	if (uv_tcp_open(&c->tcp, fd) != 0) {
		conn__close_now(c);
		return -1;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	c->born = c->last_rx = c->last_tx = c->budget_start = server__now(s);
	s->m.accepted++;
	if (!peer_name(c, a, &trusted)) {
		conn__close_now(c);
		return 0;
	}
	if (s->closing) {
		conn__bye(c, s->bye_reason);
		return 0;
	}
	if (s->nconns > s->cfg.lim.max_conns) {
		metrics_limit_hit(&s->m, METRICS_LIM_SERVER_FULL);
		conn__drop(c, PERR_SERVER, "the server is full");
		return 0;
	}
	if (trusted) {
		/* A trusted proxy: its header first, whole, within proxy_ms; the address it names
		 * is the one every per-address limit counts (admit, from proxy_read). */
		if ((c->px = malloc(PROXY_MAX)) == NULL) {
			conn__close_now(c);
			return 0;
		}
		c->pxneed = 1;
		if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0) {
			conn__close_now(c);
			return 0;
		}
		c->reading = true;
		return 0;
	}
	admit(c, a);
	return 0;
}

const uint8_t *
conn_ident(const struct conn *c)
{
	return c->state == CONN_KNOWN || c->state == CONN_CLAIMING || c->state == CONN_POOLED || c->state == CONN_JOINED ?
	       c->ident : NULL;
}

int
conn_seat(const struct conn *c)
{
	return c->state == CONN_JOINED ? c->seat : -1;
}
