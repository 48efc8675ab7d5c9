/* SPDX-License-Identifier: MIT */
/* bench_relay: the floor under bench_crowd's figures: a bare libuv relay of the same shape and pace, N pairs. */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <uv.h>

#include "procstat.h"
#include "relay.h"

/*
 * What does a server cost that does nothing but move a duel's bytes? bench_crowd gives the
 * `wizwar server`'s CPU, system calls and context switches a command at N duels of a command
 * a second; this gives the same figures, measured the same way, for relay.h's bare relay
 * (no rules, no encryption, no turn log) in a process of its own. The sizes default to
 * the smallest padded records of protocol 6 (240 bytes both ways: a CMD, and the UPDATE most
 * commands get). Run it beside bench_crowd at the same N (docs/benchmarks.md, issue 29): what
 * wizwar costs above this is its own; below this no server on this kernel can go.
 *
 * The crowd: 2 x N connections on one loop in this process, paired by the server in the order
 * it accepts them; each connection sends every 1 to 3 s (uniform, mean 2), so N messages a
 * second in all, as bench_crowd's duels send a command a second each. A message carries its
 * sender's tag, which the server copies into both replies, so that the sender times its own.
 */

static size_t cmd_len = 240, reply_len = 240;

/* The crowd (this process). */

struct cconn {
	uv_tcp_t tcp;
	uv_connect_t cr;
	uv_timer_t timer;
	uint32_t id, seq;
	uint64_t t0;           /* the message out: when sent, 0 if none */
	size_t have;
	uint8_t *buf; /* 2 x reply_len */
};

static struct {
	uv_loop_t *loop;
	struct sockaddr_in to;
	struct cconn *c;
	size_t n, started, connected;
	uint64_t rng;
	bool measuring;
	uint64_t *lat;
	size_t nlat, cap;
	uint64_t sent, own, replies;
	uint8_t *msg;
} R;

static uint64_t
rng_next(void)
{
	/* splitmix64: a benchmark's jitter, not the rules' dice. */
	uint64_t z = (R.rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t
gap_ms(void)
{
	return 1000 + rng_next() % 2001;
}

static void
c_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	struct cconn *c = h->data;

	(void)suggested;
	*b = uv_buf_init((char *)c->buf + c->have, (unsigned)(2 * reply_len - c->have));
}

static void
c_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct cconn *c = st->data;
	size_t at = 0;

	(void)b;
	if (n < 0) {
		fprintf(stderr, "bench_relay: connection %u lost: %s\n", c->id, uv_strerror((int)n));
		exit(1);
	}
	c->have += (size_t)n;
	while (c->have - at >= reply_len) {
		uint32_t id, seq;
		memcpy(&id, c->buf + at, 4);
		memcpy(&seq, c->buf + at + 4, 4);
		R.replies++;
		if (id == c->id && seq == c->seq && c->t0) {
			if (R.measuring && R.nlat < R.cap)
				R.lat[R.nlat++] = uv_hrtime() - c->t0;
			R.own += R.measuring;
			c->t0 = 0;
		}
		at += reply_len;
	}
	memmove(c->buf, c->buf + at, c->have - at);
	c->have -= at;
}

static void
c_tick(uv_timer_t *t)
{
	struct cconn *c = t->data;
	uv_buf_t b = uv_buf_init((char *)R.msg, (unsigned)cmd_len);

	c->seq++;
	memcpy(R.msg, &c->id, 4);
	memcpy(R.msg + 4, &c->seq, 4);
	c->t0 = uv_hrtime();
	if (uv_try_write((uv_stream_t *)&c->tcp, &b, 1) != (int)cmd_len) {
		fprintf(stderr, "bench_relay: a %zu-byte message did not go out at once\n", cmd_len);
		exit(1);
	}
	R.sent += R.measuring;
	uv_timer_start(&c->timer, c_tick, gap_ms(), 0);
}

static void c_start_next(void);

static void
c_connected(uv_connect_t *cr, int status)
{
	struct cconn *c = cr->data;

	if (status != 0) {
		fprintf(stderr, "bench_relay: connect: %s\n", uv_strerror(status));
		exit(1);
	}
	uv_tcp_nodelay(&c->tcp, 1);
	uv_read_start((uv_stream_t *)&c->tcp, c_alloc, c_read);
	R.connected++;
	c_start_next();
}

/* At most 256 connects in flight: the listen backlog is not the thing measured. */
static void
c_start_next(void)
{
	while (R.started < R.n && R.started - R.connected < 256) {
		struct cconn *c = &R.c[R.started];
		c->id = (uint32_t)R.started++;
		if ((c->buf = malloc(2 * reply_len)) == NULL)
			exit(1);
		uv_tcp_init(R.loop, &c->tcp);
		c->tcp.data = c;
		c->cr.data = c;
		uv_timer_init(R.loop, &c->timer);
		c->timer.data = c;
		if (uv_tcp_connect(&c->cr, &c->tcp, (const struct sockaddr *)&R.to, c_connected) != 0)
			exit(1);
	}
}

static void
on_stop(uv_timer_t *t)
{
	uv_stop(t->loop);
}

static void
run_for(uint64_t ms)
{
	uv_timer_t t;

	uv_timer_init(R.loop, &t);
	uv_timer_start(&t, on_stop, ms, 0);
	uv_run(R.loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(R.loop, UV_RUN_NOWAIT);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double
cpu_clock_s(clockid_t id)
{
	struct timespec ts;

	return clock_gettime(id, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 : 0;
}

int
main(int argc, char **argv)
{
	unsigned pairs = 0, warm = 5, secs = 10;
	char load0[16], load1[16];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--secs") == 0 && i + 1 < argc)
			secs = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--warm") == 0 && i + 1 < argc)
			warm = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--cmd") == 0 && i + 1 < argc)
			cmd_len = (size_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--reply") == 0 && i + 1 < argc)
			reply_len = (size_t)atoi(argv[++i]);
		else if (atoi(argv[i]) > 0 && pairs == 0)
			pairs = (unsigned)atoi(argv[i]);
		else {
			pairs = 0;
			break;
		}
	}
	if (pairs == 0 || pairs > 100000 || secs == 0 || cmd_len < 8 || cmd_len > 16384 || reply_len < 8 ||
	    reply_len > 16384) {
		fprintf(stderr,
		        "usage: bench_relay PAIRS [--secs S] [--warm S] [--cmd BYTES] [--reply BYTES]\n"
		        "A bare libuv relay (its own process) and 2 x PAIRS connections, each pair sending a message a\n"
		        "second (CMD bytes, default 240), each answered with a REPLY-byte write (default 240) to both of\n"
		        "the pair: the floor under `bench_crowd WIZWAR PAIRS`. After WARM seconds (default 5), SECS\n"
		        "(default 10) measured: messages a second, the sender's own reply (median, p99), and the relay's\n"
		        "CPU (user and system), system calls and context switches a message.\n");
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	int port;
	struct relay_cfg rc = { cmd_len, reply_len };
	pid_t srv = loopchild_spawn(relay_serve, &rc, &port);
	clockid_t srv_clock;
	if (clock_getcpuclockid(srv, &srv_clock) != 0) {
		fprintf(stderr, "bench_relay: no CPU clock for the relay\n");
		return 1;
	}

	R.loop = uv_default_loop();
	R.n = 2 * (size_t)pairs;
	R.rng = 0x5eed;
	R.cap = (size_t)pairs * (secs + 2) * 2;
	if ((R.c = calloc(R.n, sizeof *R.c)) == NULL || (R.lat = malloc(R.cap * sizeof *R.lat)) == NULL ||
	    (R.msg = calloc(1, cmd_len)) == NULL)
		return 1;
	uv_ip4_addr("127.0.0.1", port, &R.to);
	c_start_next();
	while (R.connected < R.n)
		uv_run(R.loop, UV_RUN_ONCE);
	for (size_t i = 0; i < R.n; i++)
		uv_timer_start(&R.c[i].timer, c_tick, gap_ms(), 0);

	run_for((uint64_t)warm * 1000);
	struct perfstat ps;
	perfstat_start(&ps, srv);
	run_for(300); /* perf attaches meanwhile */
	loadavg(load0, sizeof load0);
	double u0, k0, u1, k1;
	if (proc_times_s(srv, &u0, &k0) != 0)
		return 1;
	double c0 = cpu_clock_s(srv_clock);
	uint64_t t0 = uv_hrtime();
	R.measuring = true;
	run_for((uint64_t)secs * 1000);
	R.measuring = false;
	double wall = (double)(uv_hrtime() - t0) / 1e9;
	double cpu = cpu_clock_s(srv_clock) - c0;
	if (proc_times_s(srv, &u1, &k1) != 0)
		return 1;
	long sc, cs;
	perfstat_stop(&ps, &sc, &cs);
	loadavg(load1, sizeof load1);

	double n = (double)R.own;
	if (R.own == 0 || R.nlat == 0) {
		fprintf(stderr, "bench_relay: no message came back in the window\n");
		return 1;
	}
	qsort(R.lat, R.nlat, sizeof *R.lat, cmp_u64);
	double med = (double)R.lat[R.nlat / 2] / 1e6, p99 = (double)R.lat[(size_t)(0.99 * (double)(R.nlat - 1))] / 1e6;
	char scs[32], css[32];
	if (sc >= 0) {
		snprintf(scs, sizeof scs, "%.2f", (double)sc / n);
		snprintf(css, sizeof css, "%.2f", (double)cs / n);
	} else {
		snprintf(scs, sizeof scs, "n/a (no perf)");
		snprintf(css, sizeof css, "n/a");
	}
	printf("relay %u pairs: %.0f messages/s (paced for %u), %" PRIu64 " sent; own reply median %.2f ms, p99 %.2f ms; "
	       "messages %zu and %zu bytes; load %s to %s\n",
	       pairs, n / wall, pairs, R.sent, med, p99, cmd_len, reply_len, load0, load1);
	printf("  a message on the relay: CPU %.1f µs (clock; %.1f µs from /proc stat utime+stime, %.1f µs of it user "
	       "space, %.1f system), %s system calls, %s context switches (perf)\n",
	       cpu / n * 1e6, ((u1 - u0) + (k1 - k0)) / n * 1e6, (u1 - u0) / n * 1e6, (k1 - k0) / n * 1e6, scs, css);
	fflush(stdout);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	return 0;
}
