/* SPDX-License-Identifier: MIT */
/* bench_net: command-to-both-clients latency on loopback, and how many rooms of network bots one server holds. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bot.h"
#include "net.h"
#include "netbot.h"
#include "server.h"

/* The server's key, made before the fork: the clients check the key it shows. */
static struct auth_identity server_id;

/* The server runs in a child process of its own, as it would on a host, so that its CPU and
 * memory are measured apart from the bots'. */
static pid_t
spawn_server(int *port)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		exit(1);
	if ((pid = fork()) == 0) {
		uv_loop_t loop;
		struct server_config c;
		struct server *s;
		char why[256];

		close(fds[0]);
		uv_loop_init(&loop);
		server_config_default(&c);
		c.bind = "127.0.0.1";
		c.multi = true;
		c.quiet = true;
		c.lim.max_rooms = 100000;
		c.lim.max_conns = 200000;
		c.lim.max_conns_per_addr = 200000;
		c.identity = &server_id;
		if (server_create(&loop, &c, &s, why, sizeof why) != 0) {
			fprintf(stderr, "bench_net: %s\n", why);
			_exit(1);
		}
		int p = server_port(s);
		if (write(fds[1], &p, sizeof p) != sizeof p)
			_exit(1);
		close(fds[1]);
		uv_run(&loop, UV_RUN_DEFAULT);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], port, sizeof *port) != sizeof *port)
		exit(1);
	close(fds[0]);
	return pid;
}

static long
rss_kib(pid_t pid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* CPU seconds of a process from its CPU-time clock (user + system), not the wall. */
static double
cpu_s(pid_t pid)
{
	clockid_t id;
	struct timespec ts;

	if (pid == getpid())
		id = CLOCK_PROCESS_CPUTIME_ID;
	else if (clock_getcpuclockid(pid, &id) != 0)
		return 0;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
loadavg(char *out, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a = -1;

	if (f == NULL || fscanf(f, "%lf", &a) != 1)
		a = -1;
	if (f)
		fclose(f);
	snprintf(out, len, "%.2f", a);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double
pct(uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_u64);
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)v[i] / 1000.0; /* ns -> µs */
}

/* Part 1: latency. Two clients in one room with FoV off; the commands are steps and passes only,
 * so that every command changes both players' views: one UPDATE to each, and the sample is the
 * time from sending the command until both have theirs. */

#define LAT_SAMPLES 4000

struct lat {
	struct net *n[2];
	struct rng rng;
	bool configured;
	int actor;             /* -1: no command out */
	int got;               /* UPDATEs received for the command out */
	uint64_t t0;
	uint64_t *samples;
	size_t nsamples;
	bool stop;
};

static void
lat_act(struct lat *l)
{
	for (int p = 0; p < 2 && l->actor < 0 && !l->stop; p++) {
		const struct view *v = net_view(l->n[p]);
		struct cmd c = { CMD_PASS, 0, 0 };
		if (net_phase(l->n[p]) != NET_PLAYING || v->result != RESULT_NONE || v->turn != v->me)
			continue;
		/* Both views must agree whose turn it is before the next command goes out. */
		const struct view *o = net_view(l->n[1 - p]);
		if (o->turn != v->turn || o->turn_no != v->turn_no)
			return;
		if (v->steps_left > 0) {
			int d = (int)rng_below(&l->rng, 8), dirs[8] = { 1, 2, 3, 4, 6, 7, 8, 9 };
			for (int k = 0; k < 8; k++) {
				int dd = dirs[(d + k) % 8], x = v->x + dir_dx(dd), y = v->y + dir_dy(dd);
				if ((v->cell[y][x] & ~VCELL_VISIBLE) == VCELL_FLOOR && !(x == v->opp_x && y == v->opp_y)) {
					c = (struct cmd){ CMD_STEP, 0, (uint8_t)dd };
					break;
				}
			}
		}
		l->actor = p;
		l->got = 0;
		l->t0 = uv_hrtime();
		net_cmd(l->n[p], &c);
	}
}

static void
lat_update(void *ud, struct net *n, const struct view *v, const struct update *u)
{
	struct lat *l = ud;

	(void)n;
	(void)v;
	(void)u;
	if (l->actor >= 0 && ++l->got == 2) {
		if (l->nsamples < LAT_SAMPLES)
			l->samples[l->nsamples++] = uv_hrtime() - l->t0;
		l->actor = -1;
		if (l->nsamples >= LAT_SAMPLES && !l->stop) {
			l->stop = true;
			net_close(l->n[0]);
			net_close(l->n[1]);
			return;
		}
	}
	lat_act(l);
}

static void
lat_start(void *ud, struct net *n, const struct view *v, bool resumed)
{
	struct lat *l = ud;

	(void)n;
	(void)v;
	(void)resumed;
	l->actor = -1;
	lat_act(l);
}

static void
lat_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct lat *l = ud;

	if (code >= PERR_REFUSED_BASE && l->actor >= 0 && l->n[l->actor] == n) {
		struct cmd pass = { CMD_PASS, 0, 0 };
		l->got = 0;
		l->t0 = uv_hrtime();
		net_cmd(n, &pass);
		return;
	}
	if (fatal && !l->stop)
		fprintf(stderr, "bench_net: %s\n", text);
}

static void
lat_lobby(void *ud, struct net *n, const struct wire_lobby *lb)
{
	struct lat *l = ud;
	int me = net_player(n);

	if (net_phase(n) != NET_LOBBY || l->stop)
		return;
	if ((lb->present & 3) != 3)
		return;
	if (lb->opt.fov && lb->controller == me && !l->configured) {
		struct options o = lb->opt;
		o.fov = false;
		l->configured = true;
		net_options(n, &o, 0);
		return;
	}
	if (!lb->opt.fov && !(lb->ready & (1u << me)))
		net_ready(n, true);
}

static void
lat_end(void *ud, struct net *n, const struct wire_end *e, bool verified, const char *why)
{
	struct lat *l = ud;

	(void)e;
	(void)verified;
	(void)why;
	l->actor = -1;
	if (!l->stop)
		net_rematch(n);
}

static void
latency(int port)
{
	static struct lat l;
	uv_loop_t loop;
	struct net_config nc;
	char why[256];

	memset(&l, 0, sizeof l);
	l.actor = -1;
	rng_seed(&l.rng, 5);
	l.samples = calloc(LAT_SAMPLES, sizeof *l.samples);
	uv_loop_init(&loop);
	for (int i = 0; i < 2; i++) {
		net_config_default(&nc);
		nc.host = "127.0.0.1";
		nc.port = port;
		nc.name = i ? "lat-b" : "lat-a";
		nc.room = "latency";
		nc.server_key = server_id.kp.pk;
		nc.create_room = true;
		nc.verify = true;
		nc.ud = &l;
		nc.ev.update = lat_update;
		nc.ev.start = lat_start;
		nc.ev.error = lat_error;
		nc.ev.lobby = lat_lobby;
		nc.ev.end = lat_end;
		if ((l.n[i] = net_create(&loop, &nc, why, sizeof why)) == NULL)
			exit(1);
		/* Player 0 first, so that it controls the room. */
		while (i == 0 && net_player(l.n[0]) < 0)
			uv_run(&loop, UV_RUN_ONCE);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	printf("latency: %zu steps, command to both clients: median %.0f µs, p99 %.0f µs, max %.0f µs\n", l.nsamples,
	       pct(l.samples, l.nsamples, 0.5), pct(l.samples, l.nsamples, 0.99), pct(l.samples, l.nsamples, 1.0));
	free(l.samples);
}

/* Part 2: rooms. Each room holds two network bots that think THINK_MS to THINK_MS + THINK_JITTER_MS
 * (uniformly) before each command: 250 ms on average, and not in step with the other rooms. Each
 * round has a server process of its own, so that one round's rooms, logs and heap do not carry
 * into the next. */

#define THINK_MS 125
#define THINK_JITTER_MS 250
#define RUN_MS 10000

struct fleet {
	struct netbot *bots;
	uint64_t *t0;
	int n;
	uint64_t *samples;
	size_t nsamples, cap;
	bool measuring;
	uint64_t commands;
};

struct botref {
	struct fleet *f;
	int i;
	struct rng rng;
};

static bool
fl_choose(void *ud, struct netbot *b, const struct view *v, struct cmd *out)
{
	struct botref *r = ud;

	(void)b;
	/* Decide here, so that the clock starts when the command goes out, not before the bot thinks. */
	bot_choose(v, BOT_NORMAL, &r->rng, out);
	r->f->t0[r->i] = uv_hrtime();
	return true;
}

static void
fl_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct botref *r = ud;
	struct fleet *f = r->f;

	(void)b;
	if ((m->type != WIRE_UPDATE && m->type != WIRE_ERROR) || f->t0[r->i] == 0)
		return;
	if (f->measuring) {
		f->commands++;
		if (f->nsamples < f->cap)
			f->samples[f->nsamples++] = uv_hrtime() - f->t0[r->i];
	}
	f->t0[r->i] = 0;
}

static void
on_tick(uv_timer_t *t)
{
	uv_stop(t->loop);
}

static void
rooms(int nrooms)
{
	static struct fleet f;
	uv_loop_t loop;
	uv_timer_t tm;
	char why[256], la0[16], la1[16];
	static char names[2][64];
	struct botref *refs;
	int port;
	pid_t server = spawn_server(&port);
	long rss0 = rss_kib(server);

	memset(&f, 0, sizeof f);
	f.n = nrooms * 2;
	f.bots = calloc((size_t)f.n, sizeof *f.bots);
	f.t0 = calloc((size_t)f.n, sizeof *f.t0);
	refs = calloc((size_t)f.n, sizeof *refs);
	f.cap = 4000000;
	f.samples = calloc(f.cap, sizeof *f.samples);
	uv_loop_init(&loop);
	uv_timer_init(&loop, &tm);
	for (int i = 0; i < f.n; i++) {
		struct netbot_config bc;
		char room[32];
		memset(&bc, 0, sizeof bc);
		net_config_default(&bc.net);
		bc.net.create_room = true;
		bc.net.host = "127.0.0.1";
		bc.net.port = port;
		snprintf(names[i & 1], sizeof names[0], "bot%d", i);
		snprintf(room, sizeof room, "r%d", i / 2);
		bc.net.name = names[i & 1];
		bc.net.room = room;
		bc.net.server_key = server_id.kp.pk;
		bc.level = BOT_NORMAL;
		bc.seed = (uint64_t)i + 1;
		bc.think_ms = THINK_MS;
		bc.jitter_ms = THINK_JITTER_MS;
		bc.ready = true;
		bc.quiet = true;
		refs[i] = (struct botref){ &f, i, { { 0 } } };
		rng_seed(&refs[i].rng, (uint64_t)i + 1);
		bc.ud = &refs[i];
		bc.choose = fl_choose;
		bc.on_msg = fl_msg;
		if (netbot_start(&f.bots[i], &loop, &bc, why, sizeof why) != 0) {
			fprintf(stderr, "bench_net: %s\n", why);
			exit(1);
		}
		/* Let each room's first player arrive first, a few rooms at a time. */
		if (i % 16 == 15)
			for (int k = 0; k < 4; k++)
				uv_run(&loop, UV_RUN_NOWAIT);
	}
	/* Warm up: every room playing. */
	uv_timer_start(&tm, on_tick, 3000, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	loadavg(la0, sizeof la0);
	double c0 = cpu_s(server), b0 = cpu_s(getpid());
	f.measuring = true;
	uint64_t t0 = uv_hrtime();
	uv_timer_start(&tm, on_tick, RUN_MS, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	double secs = (double)(uv_hrtime() - t0) / 1e9;
	double c1 = cpu_s(server), b1 = cpu_s(getpid());
	long rss1 = rss_kib(server);
	f.measuring = false;
	loadavg(la1, sizeof la1);
	/* one bot of each room at a time, a command every THINK_MS + THINK_JITTER_MS / 2 on average */
	double want = (double)f.n * 1000.0 / (THINK_MS + THINK_JITTER_MS / 2.0) / 2.0;
	printf("rooms %4d: %7.0f commands/s (paced for about %.0f), own update median %6.0f µs p99 %7.0f µs; "
	       "server CPU %4.1f%% of a core (%.0f µs a command; bots %3.0f%%), RSS %ld KiB (+%.0f KiB per room); "
	       "load %s -> %s\n",
	       nrooms, (double)f.commands / secs, want, pct(f.samples, f.nsamples, 0.5), pct(f.samples, f.nsamples, 0.99),
	       100.0 * (c1 - c0) / secs, f.commands ? (c1 - c0) * 1e6 / (double)f.commands : 0.0,
	       100.0 * (b1 - b0) / secs, rss1, (double)(rss1 - rss0) / nrooms, la0, la1);
	fflush(stdout);
	for (int i = 0; i < f.n; i++)
		netbot_stop(&f.bots[i]);
	uv_close((uv_handle_t *)&tm, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	free(f.bots);
	free(f.t0);
	free(refs);
	free(f.samples);
}

int
main(int argc, char **argv)
{
	struct rlimit rl;
	int port;
	pid_t server;
	int max_rooms = argc > 1 ? atoi(argv[1]) : 400;

	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (auth_init() != 0)
		return 1;
	auth_identity_new(&server_id);
	server = spawn_server(&port);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_net: server pid %d on 127.0.0.1:%d, RSS %ld KiB idle\n", (int)server, port, rss_kib(server));
	latency(port);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	for (int n = argc > 2 ? atoi(argv[2]) : 25; n <= max_rooms; n *= 2)
		rooms(n);
	return 0;
}
