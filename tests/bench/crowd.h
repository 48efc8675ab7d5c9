/* SPDX-License-Identifier: MIT */
/* crowd: the network benchmarks' lean players: many real clients on one libuv loop, one copy for all. */
#ifndef WIZWAR_BENCH_CROWD_H
#define WIZWAR_BENCH_CROWD_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uv.h>

#include "auth.h"
#include "bot.h"
#include "pconn.h"
#include "rng.h"
#include "update.h"
#include "view.h"
#include "wire.h"

/*
 * Each client is a pconn (the real Noise handshake, records and deflate), a view kept
 * with update_apply, and the random bot choosing its commands on that view. Each client
 * binds its own loopback address (127.1.x.y, PER_ADDR clients to one) so that the
 * server's per-address cap (16 by default) counts them as the different players they
 * stand for. The crowd is this process's state (C): bench_crowd runs one, bench_cluster
 * one in each of its crowd processes.
 */

#define PER_ADDR 4
#define CROWD_NODES_MAX 8    /* servers one crowd plays on (bench_cluster's nodes) */
#define CROWD_REDIRECTS_MAX 3 /* REDIRECTs followed for one join, as the real client (client/net.c) */
#define CROWD_REJOINS_MAX 20  /* joins started again, a second apart, before the player gives up */
#define CROWD_REJOIN_MS 1000
#define PACE_MIN_MS 500
#define PACE_SPAN_MS 1000
#define ADMIT_LIMIT_MS 30000

struct client {
	uv_tcp_t tcp;
	uv_connect_t creq;
	uv_timer_t pace;
	int i;
	int me;                   /* seat, -1 before WELCOME */
	int node;                 /* the server it is connected to (C.node[]) */
	int home;                 /* the node it asks first */
	int redirects;            /* REDIRECTs followed for this join */
	int rejoins;              /* joins started again from home (sent on too often) */
	bool welcomed, playing, ready_sent, gone, moving;
	bool told_new;            /* its last NODES named a node the run did not start with (bench_cluster --join) */
	uint64_t t_connect, t_welcome, t_cmd, due;
	uint64_t last_tx;         /* when this client last sent anything (its heartbeats) */
	struct rng rng;
	struct view view;
	struct pconn pc;          /* large: last */
};

struct crowd {
	struct auth_ident id; /* the crowd's one key (IDENT) */
	bool have_id;
	uv_loop_t *loop;
	struct client **cl;
	int n;                    /* clients */
	struct {
		int port;
		char fp[AUTH_FP_LEN + 1];
	} node[CROWD_NODES_MAX];
	int nnodes;
	int base;                 /* this crowd's first client in the whole run (names, rooms, addresses) */
	int naddr;                /* loopback addresses the whole run's clients are spread over */
	/* bench_cluster: a duel's second player connects once the first has its WELCOME, to the node
	 * the first ended on (after any REDIRECT), so that the two cannot make the room on two nodes. */
	bool follow;
	int redirected;           /* REDIRECTs followed */
	int rejoined;             /* joins sent on more than CROWD_REDIRECTS_MAX times, started again */
	int thrice;               /* joins sent on more than twice (issue 34: a new room placed within a beat) */
	int launched;             /* clients started (client_start) */
	int nodes_seen;           /* the fewest nodes a NODES message named (0: none came) */
	uint64_t node_cmds[CROWD_NODES_MAX]; /* commands answered in the window, by node */
	int welcomed, started, dropped, refused, connect_failed;
	char last_error[200];
	bool measuring;
	double rate;              /* commands a second a duel (1: a human's pace) */
	uint64_t commands;
	uint64_t ends;            /* END messages read (two a finished duel) */
	uint64_t *lat, *lag;
	uint32_t *lat_at;         /* bench_cluster: when each sample was answered, ms into the window (NULL: not kept) */
	uint64_t win_t0;
	size_t nlat, nlag, cap;
	uint64_t *admit;          /* per client: connect to WELCOME, ns */
	struct wire_msg in, out;
	uint8_t frame[PCONN_FRAME_MAX];
	struct proto_err err;
};

static struct crowd C;

static uint64_t
now_ns(void)
{
	return uv_hrtime();
}

static void
on_written(uv_write_t *req, int status)
{
	(void)status;
	free(req->data);
}

static void
send_msg(struct client *c, const struct wire_msg *m)
{
	size_t len;
	uv_buf_t b;
	int n;

	if (c->gone)
		return;
	if (pconn_send(&c->pc, m, C.frame, sizeof C.frame, &len, &C.err) != 0) {
		snprintf(C.last_error, sizeof C.last_error, "cannot send %s: %s", wire_name(m->type), C.err.why);
		return;
	}
	c->last_tx = now_ns();
	b = uv_buf_init((char *)C.frame, (unsigned)len);
	n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
	if (n == (int)len)
		return;
	/* The socket buffer is full (rare on loopback): queue the rest. */
	{
		size_t off = n > 0 ? (size_t)n : 0;
		struct {
			uv_write_t req;
			uint8_t data[];
		} *w = malloc(sizeof *w + len - off);
		if (w == NULL)
			return;
		memcpy(w->data, C.frame + off, len - off);
		b = uv_buf_init((char *)w->data, (unsigned)(len - off));
		w->req.data = w;
		if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0)
			free(w);
	}
}

static void
drop(struct client *c, const char *why)
{
	if (c->gone)
		return;
	c->gone = true;
	C.dropped++;
	snprintf(C.last_error, sizeof C.last_error, "client %d: %s", c->i, why);
	uv_read_stop((uv_stream_t *)&c->tcp);
	uv_timer_stop(&c->pace);
}

static void
send_cmd(struct client *c)
{
	const struct view *v = &c->view;

	if (c->gone || !c->playing || v->result != RESULT_NONE || v->turn != v->me || c->t_cmd)
		return;
	C.out.type = WIRE_CMD;
	bot_choose(v, BOT_RANDOM, &c->rng, &C.out.u.cmd);
	c->t_cmd = now_ns();
	send_msg(c, &C.out);
}

static void
on_pace(uv_timer_t *t)
{
	struct client *c = t->data;
	uint64_t late = now_ns() - c->due;

	if (C.measuring && C.nlag < C.cap && (int64_t)late >= 0)
		C.lag[C.nlag++] = late;
	send_cmd(c);
}

/* A player waiting through the opponent's turns sends nothing; the server drops a peer
 * silent for 45 s, so each client says HEARTBEAT after 15 s of silence, as the real
 * client does (client/net.c): one crowd-wide timer, every 5 s, looks at them all. */
#define HEARTBEAT_MS 15000
#define HEARTBEAT_CHECK_MS 5000

static void
on_heartbeats(uv_timer_t *t)
{
	uint64_t now = now_ns();

	(void)t;
	for (int i = 0; i < C.n; i++) {
		struct client *c = C.cl[i];
		if (c && c->welcomed && !c->gone && now - c->last_tx >= (uint64_t)HEARTBEAT_MS * 1000000) {
			C.out.type = WIRE_HEARTBEAT;
			send_msg(c, &C.out);
		}
	}
}

/* My turn and nothing out: the next command after a human's pause. */
static void
consider(struct client *c)
{
	const struct view *v = &c->view;
	uint64_t ms;

	if (c->gone || !c->playing || v->result != RESULT_NONE || v->turn != v->me || c->t_cmd ||
	    uv_is_active((uv_handle_t *)&c->pace))
		return;
	ms = (uint64_t)((double)(PACE_MIN_MS + rng_below(&c->rng, PACE_SPAN_MS + 1)) / C.rate + 0.5);
	c->due = now_ns() + ms * 1000000;
	uv_timer_start(&c->pace, on_pace, ms, 0);
}

static void
answered(struct client *c)
{
	if (c->t_cmd == 0)
		return;
	if (C.measuring) {
		C.commands++;
		C.node_cmds[c->node]++;
		if (C.nlat < C.cap) {
			uint64_t now = now_ns();
			if (C.lat_at)
				C.lat_at[C.nlat] = (uint32_t)((now - C.win_t0) / 1000000);
			C.lat[C.nlat++] = now - c->t_cmd;
		}
	}
	c->t_cmd = 0;
}

static int client_start(struct client *c, int i, int k);
static void redirect(struct client *c, const struct wire_redirect *d);

static void
on_message(struct client *c, const struct wire_msg *m)
{
	char fp[AUTH_FP_LEN + 1];
	struct auth_key none;

	switch (m->type) {
	case WIRE_CHALLENGE:
		if (pconn_peer_key(&c->pc) == NULL) {
			drop(c, "no server key");
			return;
		}
		auth_fingerprint(pconn_peer_key(&c->pc), fp);
		if (strcmp(fp, C.node[c->node].fp) != 0) {
			drop(c, "not the server's key");
			return;
		}
		/* IDENT first (protocol 7): one key for the whole crowd, made once; its names are its own. */
		if (!C.have_id) {
			auth_ident_new(&C.id);
			C.have_id = true;
		}
		C.out.type = WIRE_IDENT;
		memcpy(C.out.u.ident.key, C.id.pk, PROTO_IDENT_KEY_LEN);
		auth_ident_sign(&C.id, pconn_hash(&c->pc), C.out.u.ident.sig);
		send_msg(c, &C.out);
		memset(&none, 0, sizeof none); /* no password: a proof of zeros */
		C.out.type = WIRE_AUTH;
		{
			char name[32], room[32];
			snprintf(name, sizeof name, "p%d", C.base + c->i);
			snprintf(room, sizeof room, "crowd-%d", (C.base + c->i) / 2);
			wire_who_init(&C.out.u.auth.who, name, room, ROLE_PLAYER);
			C.out.u.auth.who.create = true; /* whichever of the two comes first makes the room */
			auth_proof(&none, pconn_hash(&c->pc), name, strlen(name), C.out.u.auth.proof);
		}
		send_msg(c, &C.out);
		return;
	case WIRE_WELCOME:
		c->welcomed = true;
		c->t_welcome = now_ns();
		C.admit[c->i] = c->t_welcome - c->t_connect;
		C.welcomed++;
		c->me = m->u.welcome.player;
		if (C.follow && c->i % 2 == 0 && C.cl[c->i + 1]->tcp.loop == NULL && client_start(C.cl[c->i + 1], c->i + 1, c->node) != 0)
			drop(C.cl[c->i + 1], "cannot start");
		return;
	case WIRE_NODES:
		if (C.nodes_seen == 0 || m->u.nodes.n < C.nodes_seen)
			C.nodes_seen = m->u.nodes.n;
		c->told_new = false;
		for (unsigned i = 0; i < m->u.nodes.n; i++) {
			bool known = false;
			for (int k = 0; k < C.nnodes; k++)
				known |= m->u.nodes.node[i].port == C.node[k].port;
			c->told_new |= !known;
		}
		return;
	case WIRE_REDIRECT:
		redirect(c, &m->u.redirect);
		return;
	case WIRE_LOBBY:
		if ((m->u.lobby.present & 3u) != 3u)
			c->ready_sent = false;
		if (c->me >= 0 && !(m->u.lobby.ready & (1u << c->me)) && !c->ready_sent) {
			c->ready_sent = true;
			C.out.type = c->playing ? WIRE_REMATCH : WIRE_READY;
			if (c->playing)
				C.out.u.rematch.mirror = false;
			else
				C.out.u.ready.ready = true;
			send_msg(c, &C.out);
		}
		return;
	case WIRE_START:
		update_blank(&c->view);
		if (update_apply(&c->view, &m->u.start.view, &C.err) != 0) {
			drop(c, "bad START");
			return;
		}
		if (!c->playing)
			C.started++;
		c->playing = true;
		c->ready_sent = false;
		c->t_cmd = 0;
		consider(c);
		return;
	case WIRE_UPDATE:
		if (update_apply(&c->view, &m->u.update, &C.err) != 0) {
			drop(c, "bad UPDATE");
			return;
		}
		answered(c); /* no turn timer: nothing else moves while my command is out */
		consider(c);
		return;
	case WIRE_END:
		C.ends++;
		/* The next duel: a rematch at once (the log that follows is not checked here). */
		uv_timer_stop(&c->pace);
		c->t_cmd = 0;
		c->ready_sent = true;
		C.out.type = WIRE_REMATCH;
		C.out.u.rematch.mirror = false;
		send_msg(c, &C.out);
		return;
	case WIRE_ERROR:
		if (m->u.error.code >= PERR_REFUSED_BASE && !m->u.error.fatal) {
			/* Judged from the view alone a refusal is legal play: it answers the command. */
			C.refused++;
			answered(c);
			consider(c);
			return;
		}
		if (m->u.error.fatal) {
			char why[PROTO_REASON_BYTES + 64];
			snprintf(why, sizeof why, "%s: %s", proto_strerror(m->u.error.code), m->u.error.text);
			drop(c, why);
		}
		return;
	default:
		return;
	}
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct client *c = h->data;
	size_t n;
	uint8_t *p = pconn_space(&c->pc, &n);

	(void)suggested;
	*buf = uv_buf_init((char *)p, (unsigned)n);
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct client *c = st->data;

	(void)buf;
	if (nread < 0) {
		drop(c, nread == UV_EOF ? "the server closed the connection" : uv_strerror((int)nread));
		return;
	}
	if (nread == 0)
		return;
	pconn_commit(&c->pc, (size_t)nread);
	while (!c->gone && !c->moving) {
		int rc = pconn_next(&c->pc, &C.in, &C.err);
		if (rc == PROTO_MORE)
			break;
		if (rc == PROTO_BROKEN) {
			drop(c, C.err.why);
			break;
		}
		on_message(c, &C.in);
	}
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct client *c = req->data;

	if (status != 0) {
		C.connect_failed++;
		drop(c, uv_strerror(status));
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
	wire_hello_init(&C.out);
	send_msg(c, &C.out);
}

/* Connect client c (its tcp handle initialised) to node k, from its own loopback address. */
static int
client_connect(struct client *c, int k)
{
	struct sockaddr_in src, dst;
	int a = (C.base + c->i) % C.naddr, rc;
	char ip[32];

	c->node = k;
	snprintf(ip, sizeof ip, "127.1.%d.%d", a / 250, 1 + a % 250);
	uv_ip4_addr(ip, 0, &src);
	uv_ip4_addr("127.0.0.1", C.node[k].port, &dst);
	if ((rc = uv_tcp_bind(&c->tcp, (const struct sockaddr *)&src, 0)) != 0) {
		fprintf(stderr, "crowd: bind %s: %s\n", ip, uv_strerror(rc));
		return -1;
	}
	if ((rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&dst, on_connect)) != 0) {
		fprintf(stderr, "crowd: connect: %s\n", uv_strerror(rc));
		return -1;
	}
	return 0;
}

/* Client i (C.cl[i], zeroed) on node k. Its timers start with it: a follower is started late. */
static int
client_start(struct client *c, int i, int k)
{
	c->i = i;
	c->me = -1;
	rng_seed(&c->rng, (uint64_t)(C.base + i) * 7919 + 1);
	pconn_init(&c->pc, PCONN_CLIENT);
	uv_tcp_init(C.loop, &c->tcp);
	uv_timer_init(C.loop, &c->pace);
	c->tcp.data = c;
	c->pace.data = c;
	c->creq.data = c;
	c->home = k;
	C.launched++;
	c->t_connect = now_ns();
	return client_connect(c, k);
}

static void
on_rejoin(uv_timer_t *t)
{
	struct client *c = t->data;

	if (client_connect(c, c->node) != 0)
		drop(c, "cannot connect to the node it was sent to");
}

/* The old connection closed: a fresh channel to the node REDIRECT named (or, sent on too often,
 * to its home node a second later), the same AUTH on it. */
static void
on_moved(uv_handle_t *h)
{
	struct client *c = h->data;

	c->moving = false;
	pconn_finish(&c->pc);
	pconn_init(&c->pc, PCONN_CLIENT);
	uv_tcp_init(C.loop, &c->tcp);
	c->tcp.data = c;
	if (c->redirects == 0 && c->rejoins > 0)
		uv_timer_start(&c->pace, on_rejoin, CROWD_REJOIN_MS, 0);
	else
		on_rejoin(&c->pace);
}

/* REDIRECT: the room is on (or, new, goes to) another node. Followed as the real client follows
 * it (client/net.c): only to one of the nodes this run started, whose key is the one the node
 * we trusted named, at most CROWD_REDIRECTS_MAX times; where the real client then gives up, and
 * its person tries again, the crowd starts the join again from its home node a second later:
 * two nodes that both made new rooms since each other's last beat send a new room back and
 * forth (each sees the other's load a beat old), and the next beat settles it. */
static void
redirect(struct client *c, const struct wire_redirect *d)
{
	char fp[AUTH_FP_LEN + 1];
	int k;

	auth_fingerprint(d->key, fp);
	for (k = 0; k < C.nnodes; k++)
		if (C.node[k].port == d->port && strcmp(C.node[k].fp, fp) == 0)
			break;
	if (k == C.nnodes || strcmp(d->host, "127.0.0.1") != 0) {
		drop(c, "sent to a node this run did not start");
		return;
	}
	if (++c->redirects == 3)
		C.thrice++;
	if (c->redirects > CROWD_REDIRECTS_MAX) {
		if (++c->rejoins > CROWD_REJOINS_MAX) {
			drop(c, "sent from node to node on every try");
			return;
		}
		C.rejoined++;
		c->redirects = 0;
		k = c->home;
	} else
		C.redirected++;
	c->node = k;
	c->moving = true;
	uv_read_stop((uv_stream_t *)&c->tcp);
	uv_close((uv_handle_t *)&c->tcp, on_moved);
}

/* Measuring. */

static double
cpu_clock_s(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
self_cpu_s(void)
{
	return cpu_clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void
on_stop(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* Run the loop for ms, or until done() says so (checked every 50 ms). */
static void
run_for(uint64_t ms, bool (*done)(void))
{
	uv_timer_t t;
	uint64_t end = uv_now(C.loop) + ms;

	uv_timer_init(C.loop, &t);
	while (uv_now(C.loop) < end && !(done && done())) {
		uint64_t left = end - uv_now(C.loop);
		uv_timer_start(&t, on_stop, done && left > 50 ? 50 : left, 0);
		uv_run(C.loop, UV_RUN_DEFAULT);
		uv_update_time(C.loop);
	}
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(C.loop, UV_RUN_NOWAIT);
}

#endif
