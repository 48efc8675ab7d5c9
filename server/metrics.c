/* SPDX-License-Identifier: MIT */
/* metrics: the server's counters, their status lines and Prometheus text, and the --metrics HTTP endpoint on the loop. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "metrics.h"
#include "slog.h"

static const char *const limit_label[METRICS_LIMITS] = {
#define X(id, label, help) label,
	METRICS_LIMIT_LIST(X)
#undef X
};
static const char *const fail_label[METRICS_FAILS] = {
#define X(id, label, help) label,
	METRICS_FAIL_LIST(X)
#undef X
};

void
metrics_limit_hit(struct metrics *m, enum metrics_limit which)
{
	m->limits[which]++;
}

void
metrics_command(struct metrics *m, uint64_t now_ms)
{
	uint64_t sec = now_ms / 1000;
	unsigned i = (unsigned)(sec % METRICS_RATE_S);

	m->commands++;
	if (m->sec[i] != sec) {
		m->sec[i] = sec;
		m->n[i] = 0;
	}
	m->n[i]++;
}

double
metrics_rate(const struct metrics *m, uint64_t now_ms)
{
	uint64_t sec = now_ms / 1000, sum = 0;

	/* The last METRICS_RATE_S whole seconds, the one under way left out (it is not whole). */
	for (unsigned i = 0; i < METRICS_RATE_S; i++)
		if (m->sec[i] < sec && m->sec[i] + METRICS_RATE_S >= sec)
			sum += m->n[i];
	return (double)sum / METRICS_RATE_S;
}

/* Error codes by the reason they count under; a code not listed is OTHER. */
static const struct { int code; enum metrics_fail why; } fail_codes[] = {
	{ PERR_AUTH, METRICS_FAIL_WRONG_PASSWORD },
	{ PERR_MAGIC, METRICS_FAIL_VERSION },
	{ PERR_VERSION, METRICS_FAIL_VERSION },
	{ PERR_RULES, METRICS_FAIL_VERSION },
	{ PERR_CRYPTO, METRICS_FAIL_CRYPTO },
	{ PERR_RECORD, METRICS_FAIL_CRYPTO },
	{ PERR_TIMEOUT, METRICS_FAIL_TIMEOUT },
	{ PERR_LIMIT, METRICS_FAIL_LIMIT },
	{ PERR_SERVER, METRICS_FAIL_LIMIT },
	{ PERR_NO_ROOM, METRICS_FAIL_NO_ROOM },
	{ PERR_ROOM_FULL, METRICS_FAIL_NO_ROOM },
	{ PERR_NAME_TAKEN, METRICS_FAIL_NO_ROOM },
	{ PERR_RESUME, METRICS_FAIL_RESUME },
	{ PERR_BANNED, METRICS_FAIL_BANNED },
};

enum metrics_fail
metrics_fail_of_code(int code)
{
	for (size_t i = 0; i < sizeof fail_codes / sizeof fail_codes[0]; i++)
		if (fail_codes[i].code == code)
			return fail_codes[i].why;
	/* 1..99: what the decoder found wrong with the bytes; STATE: a message out of turn. */
	if ((code > PERR_OK && code < PERR_AUTH) || code == PERR_STATE)
		return METRICS_FAIL_MALFORMED;
	return METRICS_FAIL_OTHER;
}

void
metrics_buf_printf(struct metrics_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if (b->p && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t want = b->cap ? b->cap * 2 : 4096;
		while (want < b->len + (size_t)n + 1)
			want *= 2;
		char *p;
		if (want > b->max || (p = realloc(b->p, want)) == NULL) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = want;
	}
}

void
metrics_buf_free(struct metrics_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* Rooms by what a person would call their state: each room in exactly one. */
enum { RS_WAITING, RS_LOBBY, RS_PLAYING, RS_HELD, RS_ENDED, RS_COUNT };
static const char *const room_state_label[RS_COUNT] = { "waiting_seat", "lobby", "playing", "seat_held", "ended" };
static const char *const room_state_text[RS_COUNT] = { "waiting for a seat to be taken", "in the lobby", "playing",
	                                               "waiting for a player to come back", "after a duel" };

/* Walked when asked (a few thousand rooms at most): kept as counters, every state change of a
 * room would have to say so, and one missed would drift for ever. */
static void
rooms_by_state(const struct server *s, unsigned out[RS_COUNT])
{
	memset(out, 0, RS_COUNT * sizeof out[0]);
	for (const struct gameroom *r = s->rooms; r; r = r->next) {
		bool away = false, free_seat = false;
		for (int p = 0; p < PLAYERS; p++) {
			away |= r->seat[p].taken && r->seat[p].conn == NULL;
			free_seat |= !r->seat[p].taken;
		}
		if (r->state == ROOM_PLAYING)
			out[away ? RS_HELD : RS_PLAYING]++;
		else if (free_seat)
			out[RS_WAITING]++;
		else
			out[r->games > 0 ? RS_ENDED : RS_LOBBY]++;
	}
}

struct sample {
	size_t held;
	unsigned long dropped;
	unsigned rooms[RS_COUNT];
	double rate, uptime_s;
	uint64_t joined;
};

static void
take(struct server *s, struct sample *x)
{
	memset(x, 0, sizeof *x);
	if (s->slog)
		slog_stats(s->slog, &x->held, &x->dropped);
	rooms_by_state(s, x->rooms);
	x->rate = metrics_rate(&s->m, server__now(s));
	x->uptime_s = (double)(server__now(s) - s->m.started_ms) / 1000.0;
	for (const struct conn *c = s->conns; c; c = c->next)
		x->joined += c->state == CONN_JOINED;
}

/* One family's HELP and TYPE lines. */
static void
family(struct metrics_buf *b, const char *name, const char *type, const char *help)
{
	metrics_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void
metrics_prometheus(struct server *s, struct metrics_buf *b)
{
	const struct metrics *m = &s->m;
	struct sample x;

	take(s, &x);
	family(b, "wizwar_uptime_seconds", "gauge", "Seconds since the server started.");
	metrics_buf_printf(b, "wizwar_uptime_seconds %.3f\n", x.uptime_s);
	family(b, "wizwar_connections", "gauge", "Game connections open now, in the handshake or joined.");
	metrics_buf_printf(b, "wizwar_connections %u\n", s->nconns);
	family(b, "wizwar_connections_joined", "gauge", "Game connections that are players in a room now.");
	metrics_buf_printf(b, "wizwar_connections_joined %llu\n", (unsigned long long)x.joined);
	family(b, "wizwar_rooms", "gauge", "Rooms now, each in one state: waiting_seat (no duel, a seat free), lobby "
	       "(both seats taken, no duel yet), playing, seat_held (a duel whose player is away), ended (both seats "
	       "taken after a duel).");
	for (int i = 0; i < RS_COUNT; i++)
		metrics_buf_printf(b, "wizwar_rooms{state=\"%s\"} %u\n", room_state_label[i], x.rooms[i]);
	family(b, "wizwar_duels_started_total", "counter", "Duels started (a resumed duel is not counted again).");
	metrics_buf_printf(b, "wizwar_duels_started_total %llu\n", (unsigned long long)m->duels_started);
	family(b, "wizwar_duels_finished_total", "counter", "Duels that reached their end.");
	metrics_buf_printf(b, "wizwar_duels_finished_total %llu\n", (unsigned long long)m->duels_finished);
	family(b, "wizwar_commands_total", "counter", "Game commands received from players.");
	metrics_buf_printf(b, "wizwar_commands_total %llu\n", (unsigned long long)m->commands);
	family(b, "wizwar_commands_per_second", "gauge", "Game commands a second over the last 10 whole seconds.");
	metrics_buf_printf(b, "wizwar_commands_per_second %.1f\n", x.rate);
	family(b, "wizwar_handshakes_total", "counter", "Connections accepted: handshakes begun.");
	metrics_buf_printf(b, "wizwar_handshakes_total %llu\n", (unsigned long long)m->accepted);
	family(b, "wizwar_handshakes_welcomed_total", "counter", "Handshakes that ended with the peer joined (WELCOME).");
	metrics_buf_printf(b, "wizwar_handshakes_welcomed_total %llu\n", (unsigned long long)m->welcomed);
	family(b, "wizwar_handshake_failures_total", "counter", "Handshakes that failed, by reason.");
	for (int i = 0; i < METRICS_FAILS; i++)
		metrics_buf_printf(b, "wizwar_handshake_failures_total{reason=\"%s\"} %llu\n", fail_label[i],
		                   (unsigned long long)m->failed[i]);
	family(b, "wizwar_limit_hits_total", "counter", "Times each limit refused or dropped something.");
	for (int i = 0; i < METRICS_LIMITS; i++)
		metrics_buf_printf(b, "wizwar_limit_hits_total{limit=\"%s\"} %llu\n", limit_label[i],
		                   (unsigned long long)m->limits[i]);
	family(b, "wizwar_proxied_connections_total", "counter", "Connections whose client address a trusted proxy gave.");
	metrics_buf_printf(b, "wizwar_proxied_connections_total %llu\n", (unsigned long long)m->proxied);
	family(b, "wizwar_received_bytes_total", "counter", "Bytes read from game connections.");
	metrics_buf_printf(b, "wizwar_received_bytes_total %llu\n", (unsigned long long)m->bytes_in);
	family(b, "wizwar_sent_bytes_total", "counter", "Bytes written to game connections.");
	metrics_buf_printf(b, "wizwar_sent_bytes_total %llu\n", (unsigned long long)m->bytes_out);
	family(b, "wizwar_log_held_bytes", "gauge", "Log bytes waiting for the log writer (its lag).");
	metrics_buf_printf(b, "wizwar_log_held_bytes %zu\n", x.held);
	family(b, "wizwar_log_dropped_lines_total", "counter", "Log lines dropped because the log was not being read.");
	metrics_buf_printf(b, "wizwar_log_dropped_lines_total %lu\n", x.dropped);
}

/* "N reason, N reason" of the non-zero ones, or "none". */
static void
nonzero(struct metrics_buf *b, const uint64_t *v, const char *const *label, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++)
		if (v[i]) {
			metrics_buf_printf(b, "%s%s %llu", any ? ", " : "", label[i], (unsigned long long)v[i]);
			any = true;
		}
	metrics_buf_printf(b, "%s\n", any ? "" : "none");
}

void
metrics_status(struct server *s, struct metrics_buf *b)
{
	const struct metrics *m = &s->m;
	struct sample x;
	unsigned long long up;

	take(s, &x);
	up = (unsigned long long)x.uptime_s;
	metrics_buf_printf(b, "uptime: %llud %02lluh %02llum %02llus\n", up / 86400, up / 3600 % 24, up / 60 % 60, up % 60);
	metrics_buf_printf(b, "connections: %u (%llu joined)\n", s->nconns, (unsigned long long)x.joined);
	metrics_buf_printf(b, "rooms: %u:", s->nrooms);
	for (int i = 0; i < RS_COUNT; i++)
		metrics_buf_printf(b, "%s %u %s", i ? "," : "", x.rooms[i], room_state_text[i]);
	metrics_buf_printf(b, "\nduels: %llu started, %llu finished\n", (unsigned long long)m->duels_started,
	                   (unsigned long long)m->duels_finished);
	metrics_buf_printf(b, "commands: %.1f a second over the last %d s (%llu in all)\n", x.rate, METRICS_RATE_S,
	                   (unsigned long long)m->commands);
	metrics_buf_printf(b, "handshakes: %llu begun, %llu joined, %llu through a trusted proxy\n",
	                   (unsigned long long)m->accepted, (unsigned long long)m->welcomed,
	                   (unsigned long long)m->proxied);
	metrics_buf_printf(b, "handshake failures: ");
	nonzero(b, m->failed, fail_label, METRICS_FAILS);
	metrics_buf_printf(b, "limits hit: ");
	nonzero(b, m->limits, limit_label, METRICS_LIMITS);
	metrics_buf_printf(b, "bytes: %llu in, %llu out\n", (unsigned long long)m->bytes_in,
	                   (unsigned long long)m->bytes_out);
	if (s->slog)
		metrics_buf_printf(b, "log writer: %zu bytes waiting, %lu lines dropped\n", x.held, x.dropped);
	else
		metrics_buf_printf(b, "log writer: none (quiet)\n");
}

bool
metrics_parse_addr(const char *s, struct sockaddr_storage *sa, bool *loopback, char *why, size_t whylen)
{
	char host[64];
	const char *port_s;
	size_t hl;
	long port = 0;

	memset(sa, 0, sizeof *sa);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (end == NULL || end[1] != ':')
			goto bad;
		hl = (size_t)(end - s - 1);
		if (hl >= sizeof host)
			goto bad;
		memcpy(host, s + 1, hl);
		port_s = end + 2;
	} else if ((port_s = strrchr(s, ':')) != NULL) {
		hl = (size_t)(port_s - s);
		if (hl >= sizeof host || memchr(s, ':', hl))
			goto bad;
		memcpy(host, s, hl);
		port_s++;
	} else {
		hl = strlen("127.0.0.1");
		memcpy(host, "127.0.0.1", hl);
		port_s = s;
	}
	host[hl] = '\0';
	if (*port_s == '\0' || strlen(port_s) > 5)
		goto bad;
	for (const char *d = port_s; *d; d++) {
		if (*d < '0' || *d > '9')
			goto bad;
		port = port * 10 + (*d - '0');
	}
	if (port > 65535)
		goto bad;
	if (uv_ip4_addr(host, (int)port, (struct sockaddr_in *)sa) == 0) {
		*loopback = ((const uint8_t *)&((struct sockaddr_in *)sa)->sin_addr)[0] == 127;
		return true;
	}
	if (uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)sa) == 0) {
		static const uint8_t one[16] = { [15] = 1 };
		*loopback = memcmp(&((struct sockaddr_in6 *)sa)->sin6_addr, one, 16) == 0;
		return true;
	}
bad:
	snprintf(why, whylen, "'%s' is not ADDRESS:PORT, [IPV6]:PORT or PORT (0 to 65535)", s);
	return false;
}

/* ---- The HTTP endpoint ---- */

/* A scraper's request is a line and a few headers: past this it is refused. */
#define HTTP_REQ_MAX 2048
/* A client has this long to send its request and read the answer. */
#define HTTP_TIMEOUT_MS 5000
/* Scrapers at once; more are accepted and closed at once. */
#define HTTP_CONNS_MAX 8
/* The answer's body at most (some 5 KB today). */
#define HTTP_BODY_MAX (1024 * 1024)

struct metrics_http {
	struct server *srv;
	uv_tcp_t listener;
	struct hconn *conns;
	unsigned nconns;
	bool closing;
};

struct hconn {
	uv_tcp_t tcp;
	uv_timer_t timer;
	uv_write_t wreq;
	struct metrics_http *h;
	struct hconn *next, *prev;
	int handles;
	bool answered;
	size_t len;
	char req[HTTP_REQ_MAX];
	struct metrics_buf out;
};

static void
hconn_closed(uv_handle_t *hd)
{
	struct hconn *c = hd->data;
	struct metrics_http *h = c->h;

	if (--c->handles > 0)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	h->nconns--;
	metrics_buf_free(&c->out);
	free(c);
	server__unref(h->srv);
}

static void
hconn_close(struct hconn *c)
{
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	uv_close((uv_handle_t *)&c->tcp, hconn_closed);
	uv_close((uv_handle_t *)&c->timer, hconn_closed);
}

static void
on_written(uv_write_t *req, int status)
{
	(void)status;
	hconn_close(req->data);
}

/* One answer, then the connection closes (HTTP/1.0 manners, also for a 1.1 client: the
 * answer says Connection: close). */
static void
answer(struct hconn *c, int code, const char *reason, const char *extra, const char *body, size_t n)
{
	struct metrics_buf head = { .max = 4096 };
	uv_buf_t b;

	c->answered = true;
	uv_read_stop((uv_stream_t *)&c->tcp);
	metrics_buf_printf(&head, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
	                   code, reason, code == 200 ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8",
	                   n, extra);
	if (head.failed) {
		metrics_buf_free(&head);
		hconn_close(c);
		return;
	}
	/* The head goes before the body in c->out: one buffer, freed with the connection. */
	struct metrics_buf all = { .max = HTTP_BODY_MAX + 4096 };
	metrics_buf_printf(&all, "%.*s", (int)head.len, head.p);
	metrics_buf_free(&head);
	if (n) {
		if (!all.failed && all.cap - all.len < n + 1) {
			char *p = realloc(all.p, all.len + n + 1);
			if (p == NULL)
				all.failed = true;
			else {
				all.p = p;
				all.cap = all.len + n + 1;
			}
		}
		if (!all.failed) {
			memcpy(all.p + all.len, body, n);
			all.len += n;
		}
	}
	if (all.failed) {
		metrics_buf_free(&all);
		hconn_close(c);
		return;
	}
	metrics_buf_free(&c->out);
	c->out = all;
	b = uv_buf_init(c->out.p, (unsigned)c->out.len);
	c->wreq.data = c;
	if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0)
		hconn_close(c);
}

static void
answer_text(struct hconn *c, int code, const char *reason, const char *extra, const char *text)
{
	answer(c, code, reason, extra, text, strlen(text));
}

/* The request line: "METHOD SP TARGET SP HTTP/1.x". Headers are read past (up to the blank
 * line) and not used. */
static void
handle_request(struct hconn *c)
{
	struct server *s = c->h->srv;
	char *eol = memchr(c->req, '\n', c->len), *sp1, *sp2;

	*eol = '\0';
	if (eol > c->req && eol[-1] == '\r')
		eol[-1] = '\0';
	sp1 = strchr(c->req, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (sp1 == NULL || sp2 == NULL || strchr(sp2 + 1, ' ') ||
	    (strcmp(sp2 + 1, "HTTP/1.0") != 0 && strcmp(sp2 + 1, "HTTP/1.1") != 0)) {
		answer_text(c, 400, "Bad Request", "", "bad request\n");
		return;
	}
	*sp1 = *sp2 = '\0';
	if (strcmp(c->req, "GET") != 0) {
		answer_text(c, 405, "Method Not Allowed", "Allow: GET\r\n", "only GET\n");
		return;
	}
	if (strcmp(sp1 + 1, "/metrics") != 0) {
		answer_text(c, 404, "Not Found", "", "only /metrics\n");
		return;
	}
	struct metrics_buf body = { .max = HTTP_BODY_MAX };
	s->m.scrapes++;
	metrics_prometheus(s, &body);
	if (body.failed)
		answer_text(c, 500, "Internal Server Error", "", "out of memory\n");
	else
		answer(c, 200, "OK", "", body.p, body.len);
	metrics_buf_free(&body);
}

static void
on_alloc(uv_handle_t *hd, size_t suggested, uv_buf_t *buf)
{
	struct hconn *c = hd->data;

	(void)suggested;
	*buf = uv_buf_init(c->req + c->len, (unsigned)(sizeof c->req - c->len));
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct hconn *c = st->data;

	(void)buf;
	if (nread < 0) {
		hconn_close(c);
		return;
	}
	if (c->answered)
		return;
	c->len += (size_t)nread;
	/* The whole head: a blank line ends it. */
	for (size_t i = 0; i + 1 < c->len; i++) {
		if ((c->req[i] == '\n' && c->req[i + 1] == '\n') ||
		    (i + 3 < c->len && memcmp(c->req + i, "\r\n\r\n", 4) == 0)) {
			handle_request(c);
			return;
		}
	}
	if (c->len == sizeof c->req)
		answer_text(c, 431, "Request Header Fields Too Large", "", "request too large\n");
}

static void
on_timeout(uv_timer_t *t)
{
	hconn_close(t->data);
}

static void
on_connection(uv_stream_t *l, int status)
{
	struct metrics_http *h = l->data;
	struct hconn *c;

	if (status < 0 || h->closing || (c = calloc(1, sizeof *c)) == NULL)
		return;
	c->h = h;
	uv_tcp_init(l->loop, &c->tcp);
	uv_timer_init(l->loop, &c->timer);
	c->tcp.data = c->timer.data = c;
	c->handles = 2;
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	h->nconns++;
	h->srv->handles++;
	if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0 || h->nconns > HTTP_CONNS_MAX) {
		hconn_close(c);
		return;
	}
	uv_timer_start(&c->timer, on_timeout, HTTP_TIMEOUT_MS, 0);
	if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0)
		hconn_close(c);
}

static void
listener_closed(uv_handle_t *hd)
{
	struct metrics_http *h = hd->data;
	struct server *s = h->srv;

	free(h);
	server__unref(s);
}

int
metrics_http_start(struct server *s, const struct sockaddr *sa, struct metrics_http **out, char *why, size_t whylen)
{
	struct metrics_http *h = calloc(1, sizeof *h);
	int rc;

	*out = NULL;
	if (h == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	h->srv = s;
	uv_tcp_init(s->loop, &h->listener);
	h->listener.data = h;
	s->handles++;
	if ((rc = uv_tcp_bind(&h->listener, sa, 0)) != 0 || (rc = uv_listen((uv_stream_t *)&h->listener, 16, on_connection)) != 0) {
		snprintf(why, whylen, "--metrics: cannot listen: %s", uv_strerror(rc));
		h->closing = true;
		uv_close((uv_handle_t *)&h->listener, listener_closed);
		return -1;
	}
	*out = h;
	return 0;
}

int
metrics_http_port(const struct metrics_http *h)
{
	struct sockaddr_storage ss;
	int len = sizeof ss;

	if (uv_tcp_getsockname(&h->listener, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	return ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
	                               : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

void
metrics_http_close(struct metrics_http *h)
{
	if (h == NULL || h->closing)
		return;
	h->closing = true;
	for (struct hconn *c = h->conns; c; c = c->next)
		hconn_close(c);
	uv_close((uv_handle_t *)&h->listener, listener_closed);
}
