/* SPDX-License-Identifier: MIT */
/* bench_net: command-to-both-clients latency on loopback beside a bare libuv ping-pong, and how many rooms of network bots one server holds. */
#include <inttypes.h>
#include <poll.h>
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
#include "loopchild.h"
#include "procstat.h"
#include "relay.h"

/* The server's key, made before the fork: the clients check the key it shows. */
static struct auth_identity server_id;
/* Where the server writes its turn logs (a fresh directory, removed at the end). */
static char log_dir[] = "/tmp/wizwar-bench-net-XXXXXX";
static bool log_dir_used = true; /* false with BENCH_NET_NO_LOGS */

/* The server runs in a child process of its own, as it would on a host, so that its CPU and
 * memory are measured apart from the bots'. */
static int
serve_wizwar(uv_loop_t *loop, void *ud)
{
	struct server_config c;
	struct server *s;
	char why[256];

	(void)ud;
	server_config_default(&c);
	c.bind = "127.0.0.1";
	c.multi = true;
	c.quiet = true;
	c.lim.max_rooms = 100000;
	c.lim.max_conns = 200000;
	c.lim.max_conns_per_addr = 200000;
	c.identity = &server_id;
	c.log_dir = getenv("BENCH_NET_NO_LOGS") ? NULL : log_dir; /* as shipped: every duel's turn log on disk */
	if (server_create(loop, &c, &s, why, sizeof why) != 0) {
		fprintf(stderr, "bench_net: %s\n", why);
		return -1;
	}
	return server_port(s);
}

static pid_t
spawn_server(int *port)
{
	return loopchild_spawn(serve_wizwar, NULL, port);
}

static void
remove_logs(void)
{
	uv_fs_t req;
	uv_dirent_t ent;

	if (uv_fs_scandir(NULL, &req, log_dir, 0, NULL) >= 0) {
		while (uv_fs_scandir_next(&req, &ent) != UV_EOF) {
			char p[128];
			snprintf(p, sizeof p, "%s/%s", log_dir, ent.name);
			unlink(p);
		}
		uv_fs_req_cleanup(&req);
	}
	rmdir(log_dir);
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

/* CPU time of a whole process, every thread (the server's threadpool writes its logs), in
 * nanoseconds: the scheduler's own accounting (/proc/PID/task/TID/schedstat), not ticks. */
/* Part 1: latency. Two clients in one room with FoV off; the commands are steps and passes only,
 * so that every command changes both players' views: one UPDATE to each, and the sample is the
 * time from sending the command until both have theirs. Beside it, in the same run and in
 * alternating blocks, a bare libuv ping-pong of the same shape (pp_*): one client sends a
 * command-sized message to a server in its own process, which writes an update-sized reply
 * to both clients; the sample is the time until both have it. */

#define LAT_SAMPLES 4000
#define LAT_BLOCKS 8
#define ARRIVAL_WAIT_MS 100

/* Arrival: right after a command goes out, the benchmark waits in poll(2) on both receivers'
 * sockets and stamps the moment the second becomes readable: the update is then in both
 * clients' hands, and neither client's own work (opening the record, inflating, applying the
 * update, hashing the view for the fair-host check) is counted, nor one client's work delaying
 * the other's read (both share one loop). The ping-pong is stamped the same way. A command sent
 * while either socket already had bytes waiting gives no arrival sample (they would end it
 * early); `ready` says whether both were quiet. Returns the nanoseconds from t0, or 0. */
static bool
sockets_quiet(const int fd[2])
{
	struct pollfd pf[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };

	return poll(pf, 2, 0) == 0;
}

static uint64_t
arrival(const int fd[2], uint64_t t0)
{
	struct pollfd pf[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
	bool got[2] = { false, false };
	uint64_t t = 0;

	while (!got[0] || !got[1]) {
		int n = 0;
		struct pollfd w[2];
		int idx[2];
		for (int i = 0; i < 2; i++)
			if (!got[i]) {
				w[n] = pf[i];
				idx[n++] = i;
			}
		if (poll(w, (nfds_t)n, ARRIVAL_WAIT_MS) <= 0)
			return 0;
		t = uv_hrtime();
		for (int k = 0; k < n; k++)
			if (w[k].revents)
				got[idx[k]] = true;
	}
	return t - t0;
}

struct lat {
	struct net *n[2];
	struct rng rng;
	bool configured;
	int actor;             /* -1: no command out */
	int got;               /* UPDATEs received for the command out */
	uint64_t t0;
	uint64_t *samples;
	size_t nsamples, target;
	uint64_t arr_now;      /* the command out: its arrival at both, or 0 */
	uint64_t *arr;
	size_t narr;
	bool stop;
	uv_loop_t loop;
};

/* BENCH_NET_GAP_MS=N: the clients wait N ms before each command (and each ping-pong), so that
 * the server's timers run between commands (the turn log's 20 ms batch goes to the disk after
 * every command, as at a human pace) instead of commands following each other at once. */
static unsigned gap_ms;

static void
gap(void)
{
	struct timespec ts = { (time_t)(gap_ms / 1000), (long)(gap_ms % 1000) * 1000000L };

	if (gap_ms)
		nanosleep(&ts, NULL);
}

static void
lat_send(struct lat *l, struct net *n, const struct cmd *c)
{
	int fd[2] = { net_fd(l->n[0]), net_fd(l->n[1]) };
	bool quiet;

	gap();
	quiet = sockets_quiet(fd);

	l->got = 0;
	l->t0 = uv_hrtime();
	net_cmd(n, c);
	l->arr_now = quiet ? arrival(fd, l->t0) : 0;
}

static void
lat_act(struct lat *l)
{
	for (int p = 0; p < 2 && l->actor < 0 && !l->stop && l->nsamples < l->target; p++) {
		const struct view *v = net_view(l->n[p]);
		const struct view *o = net_view(l->n[1 - p]);
		struct cmd c = { CMD_PASS, 0, 0 };
		/* Both clients in the same duel, both views agreeing whose turn it is, before the next
		 * command goes out: a client still in the lobby (its START not yet read after a
		 * rematch) would never get its UPDATE, and the sample would wait forever. */
		if (net_phase(l->n[p]) != NET_PLAYING || net_phase(l->n[1 - p]) != NET_PLAYING)
			return;
		if (v->result != RESULT_NONE || o->result != RESULT_NONE || v->turn != v->me)
			continue;
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
		lat_send(l, l->n[p], &c);
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
		if (l->arr_now && l->narr < LAT_SAMPLES)
			l->arr[l->narr++] = l->arr_now;
		l->actor = -1;
		if (l->nsamples >= l->target) {
			uv_stop(&l->loop); /* the block is done: the ping-pong's turn */
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
	/* The other client's START may come while a command is already out: it stays out. */
	lat_act(l);
}

static void
lat_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct lat *l = ud;

	if (code >= PERR_REFUSED_BASE && l->actor >= 0 && l->n[l->actor] == n) {
		struct cmd pass = { CMD_PASS, 0, 0 };
		lat_send(l, n, &pass);
		l->arr_now = 0; /* the refusal was an arrival at one client only */
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
	/* The command that ended the duel has its two UPDATEs counted (each before its END). */
	if (!l->stop)
		net_rematch(n);
}

static void
lat_open(struct lat *l, int port)
{
	struct net_config nc;
	char why[256];

	memset(l, 0, sizeof *l);
	l->actor = -1;
	rng_seed(&l->rng, 5);
	l->samples = calloc(LAT_SAMPLES, sizeof *l->samples);
	l->arr = calloc(LAT_SAMPLES, sizeof *l->arr);
	uv_loop_init(&l->loop);
	for (int i = 0; i < 2; i++) {
		net_config_default(&nc);
		nc.host = "127.0.0.1";
		nc.port = port;
		nc.name = i ? "lat-b" : "lat-a";
		nc.room = "latency";
		nc.server_key = server_id.kp.pk;
		nc.create_room = true;
		nc.verify = true;
		nc.ud = l;
		nc.ev.update = lat_update;
		nc.ev.start = lat_start;
		nc.ev.error = lat_error;
		nc.ev.lobby = lat_lobby;
		nc.ev.end = lat_end;
		if ((l->n[i] = net_create(&l->loop, &nc, why, sizeof why)) == NULL)
			exit(1);
		/* Player 0 first, so that it controls the room. */
		while (i == 0 && net_player(l->n[0]) < 0)
			uv_run(&l->loop, UV_RUN_ONCE);
	}
}

static void
lat_block(struct lat *l, size_t n)
{
	l->target = l->nsamples + n;
	lat_act(l);
	uv_run(&l->loop, UV_RUN_DEFAULT);
}

static void
lat_close(struct lat *l)
{
	l->stop = true;
	net_close(l->n[0]);
	net_close(l->n[1]);
	uv_run(&l->loop, UV_RUN_DEFAULT);
	uv_loop_close(&l->loop);
}

/* The baseline: relay.h's bare relay in a process of its own (as the wizwar server is) and two
 * clients on one loop in this one, TCP_NODELAY everywhere, as wizwar's sockets are. The sizes
 * are those of wizwar's records: a CMD (2 + 3 + 16 bytes) and a small UPDATE (2 + 12 + 16). */

#define PP_CMD 21
#define PP_REPLY 30

struct pp {
	uv_loop_t loop;
	uv_tcp_t c[2];
	uv_connect_t cr[2];
	size_t have[2];
	uint8_t buf[2][256];
	int connected, got, sender;
	uint64_t t0;
	uint64_t *samples;
	size_t nsamples, target;
	uint64_t arr_now, *arr;
	size_t narr;
};

static void
pp_send(struct pp *p)
{
	static uint8_t cmd[PP_CMD];
	uv_buf_t b = uv_buf_init((char *)cmd, sizeof cmd);

	int fd[2];
	bool quiet;

	gap();
	for (int i = 0; i < 2; i++) {
		uv_os_fd_t f;
		uv_fileno((uv_handle_t *)&p->c[i], &f);
		fd[i] = (int)f;
	}
	quiet = sockets_quiet(fd);
	p->got = 0;
	p->t0 = uv_hrtime();
	/* The clients take turns, as two players do. uv_try_write: the socket is writable. */
	if (uv_try_write((uv_stream_t *)&p->c[p->sender], &b, 1) != PP_CMD)
		exit(1);
	p->sender ^= 1;
	p->arr_now = quiet ? arrival(fd, p->t0) : 0;
}

static void
pp_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	struct pp *p = h->loop->data;
	int i = (uv_tcp_t *)h == &p->c[1];

	(void)suggested;
	*b = uv_buf_init((char *)p->buf[i] + p->have[i], (unsigned)(sizeof p->buf[i] - p->have[i]));
}

static void
pp_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct pp *p = st->loop->data;
	int i = (uv_tcp_t *)st == &p->c[1];

	(void)b;
	if (n < 0)
		exit(1);
	p->have[i] += (size_t)n;
	while (p->have[i] >= PP_REPLY) {
		memmove(p->buf[i], p->buf[i] + PP_REPLY, p->have[i] - PP_REPLY);
		p->have[i] -= PP_REPLY;
		if (++p->got < 2)
			continue;
		if (p->target == 0)
			continue; /* the first round, before the blocks: not a sample */
		if (p->nsamples < LAT_SAMPLES)
			p->samples[p->nsamples++] = uv_hrtime() - p->t0;
		if (p->arr_now && p->narr < LAT_SAMPLES)
			p->arr[p->narr++] = p->arr_now;
		if (p->nsamples >= p->target)
			uv_stop(&p->loop);
		else
			pp_send(p);
	}
}

static void
pp_connected(uv_connect_t *r, int status)
{
	struct pp *p = r->handle->loop->data;

	if (status != 0)
		exit(1);
	uv_tcp_nodelay((uv_tcp_t *)r->handle, 1);
	uv_read_start(r->handle, pp_alloc, pp_read);
	p->connected++;
}

static void
pp_open(struct pp *p, int port)
{
	struct sockaddr_in sa;

	memset(p, 0, sizeof *p);
	p->samples = calloc(LAT_SAMPLES, sizeof *p->samples);
	p->arr = calloc(LAT_SAMPLES, sizeof *p->arr);
	uv_loop_init(&p->loop);
	p->loop.data = p;
	uv_ip4_addr("127.0.0.1", port, &sa);
	for (int i = 0; i < 2; i++) {
		uv_tcp_init(&p->loop, &p->c[i]);
		uv_tcp_connect(&p->cr[i], &p->c[i], (const struct sockaddr *)&sa, pp_connected);
		while (p->connected <= i) /* one at a time */
			uv_run(&p->loop, UV_RUN_ONCE);
	}
	/* The server has accepted both when a first round trip reaches both clients. */
	p->target = 0;
	pp_send(p);
	while (p->got < 2)
		uv_run(&p->loop, UV_RUN_ONCE);
}

static void
pp_block(struct pp *p, size_t n)
{
	p->target = p->nsamples + n;
	pp_send(p);
	uv_run(&p->loop, UV_RUN_DEFAULT);
}

static void
pp_close(struct pp *p)
{
	for (int i = 0; i < 2; i++)
		uv_close((uv_handle_t *)&p->c[i], NULL);
	uv_run(&p->loop, UV_RUN_DEFAULT);
	uv_loop_close(&p->loop);
}

static void
latency(int port, pid_t server)
{
	static struct lat l;
	static struct pp p;
	int pp_port;
	pid_t pp_server = loopchild_spawn(relay_serve, &(struct relay_cfg){ PP_CMD, PP_REPLY }, &pp_port);
	uint64_t cpu_w = 0, cpu_p = 0;
	size_t block = LAT_SAMPLES / LAT_BLOCKS;
	char la0[16];
	/* BENCH_NET_BURN=N: N processes spinning on the CPU beside the run, a load that is the
	 * same on every machine and run ("under load"); without it, whatever the machine has. */
	int nburn = getenv("BENCH_NET_BURN") ? atoi(getenv("BENCH_NET_BURN")) : 0;

	gap_ms = getenv("BENCH_NET_GAP_MS") ? (unsigned)atoi(getenv("BENCH_NET_GAP_MS")) : 0;
	pid_t burn[16];

	for (int i = 0; i < nburn && i < 16; i++)
		if ((burn[i] = fork()) == 0)
			for (volatile unsigned long x = 0;; x++)
				;
	loadavg(la0, sizeof la0);
	lat_open(&l, port);
	pp_open(&p, pp_port);
	/* Both servers counted by perf over the whole run: each is idle while the other's block runs. */
	struct perfstat ps_w, ps_p;
	long sc_w, cs_w, sc_p, cs_p, cx_w = proc_ctxt(server), cx_p = proc_ctxt(pp_server);
	perfstat_start(&ps_w, server);
	perfstat_start(&ps_p, pp_server);
	{
		struct timespec ts = { 0, 300000000 }; /* for perf to attach to every thread */
		nanosleep(&ts, NULL);
	}
	/* Alternating blocks, so that both see the same machine (its load drifts). */
	for (int b = 0; b < LAT_BLOCKS; b++) {
		uint64_t c0 = proc_cpu_ns(server);
		lat_block(&l, block);
		cpu_w += proc_cpu_ns(server) - c0;
		c0 = proc_cpu_ns(pp_server);
		pp_block(&p, block);
		cpu_p += proc_cpu_ns(pp_server) - c0;
	}
	perfstat_stop(&ps_w, &sc_w, &cs_w);
	perfstat_stop(&ps_p, &sc_p, &cs_p);
	cx_w = proc_ctxt(server) - cx_w;
	cx_p = proc_ctxt(pp_server) - cx_p;
	for (int i = 0; i < nburn && i < 16; i++)
		if (burn[i] > 0) {
			kill(burn[i], SIGKILL);
			waitpid(burn[i], NULL, 0);
		}
	lat_close(&l);
	pp_close(&p);
	kill(pp_server, SIGKILL);
	waitpid(pp_server, NULL, 0);
	double am = proc_pct_us(l.arr, l.narr, 0.5), a99 = proc_pct_us(l.arr, l.narr, 0.99);
	double qm = proc_pct_us(p.arr, p.narr, 0.5), q99 = proc_pct_us(p.arr, p.narr, 0.99);
	double wm = proc_pct_us(l.samples, l.nsamples, 0.5), w99 = proc_pct_us(l.samples, l.nsamples, 0.99);
	double pm = proc_pct_us(p.samples, p.nsamples, 0.5), p99 = proc_pct_us(p.samples, p.nsamples, 0.99);
	char la[16];
	loadavg(la, sizeof la);
	printf("latency: command to both clients, %zu commands (turn logs %s) and %zu ping-pongs in %d alternating "
	       "blocks; load %s -> %s; %d spinning beside (BENCH_NET_BURN), %u ms between commands (BENCH_NET_GAP_MS)\n",
	       l.nsamples, log_dir_used ? "on disk" : "in memory", p.nsamples, LAT_BLOCKS, la0, la, nburn, gap_ms);
	printf("  arrival at both (%zu and %zu samples: the sockets quiet when the command went out):\n", l.narr, p.narr);
	printf("    wizwar server: median %.0f µs, p99 %.0f µs, max %.0f µs; server CPU %.1f µs a command\n", am, a99,
	       proc_pct_us(l.arr, l.narr, 1.0), (double)cpu_w / 1000.0 / (double)(l.nsamples ? l.nsamples : 1));
	printf("    bare libuv ping-pong: median %.0f µs, p99 %.0f µs, max %.0f µs; server CPU %.1f µs a round\n", qm, q99,
	       proc_pct_us(p.arr, p.narr, 1.0), (double)cpu_p / 1000.0 / (double)(p.nsamples ? p.nsamples : 1));
	printf("    ratio wizwar / ping-pong: median %.2fx, p99 %.2fx\n", am / qm, a99 / q99);
	{
		double nw = (double)(l.nsamples ? l.nsamples : 1), np = (double)(p.nsamples ? p.nsamples : 1);
		if (sc_w >= 0 && sc_p >= 0)
			printf("    a command on the server: %.2f system calls, %.2f context switches (perf); the ping-pong's a "
			       "round: %.2f, %.2f\n", (double)sc_w / nw, (double)cs_w / nw, (double)sc_p / np,
			       (double)cs_p / np);
		printf("    context switches (/proc, every thread): %.2f a command; the ping-pong's %.2f a round\n",
		       (double)cx_w / nw, (double)cx_p / np);
	}
	if (nburn == 0 && (atof(la0) >= 0.5 || atof(la) >= 0.5))
		printf("  WARNING: load %s -> %s: a figure under load; the idle figure needs a load average under 0.5 "
		       "(uptime) all through\n", la0, la);
	printf("  applied by both (read, decrypted, inflated, update_apply, view hashed; both clients on one loop):\n");
	printf("    wizwar: median %.0f µs, p99 %.0f µs; ping-pong: median %.0f µs, p99 %.0f µs; "
	       "ratio: median %.2fx, p99 %.2fx\n", wm, w99, pm, p99, wm / pm, w99 / p99);
	free(l.samples);
	free(p.samples);
	free(l.arr);
	free(p.arr);
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
	       nrooms, (double)f.commands / secs, want, proc_pct_us(f.samples, f.nsamples, 0.5), proc_pct_us(f.samples, f.nsamples, 0.99),
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
	if (mkdtemp(log_dir) == NULL) {
		perror("bench_net: mkdtemp");
		return 1;
	}
	log_dir_used = getenv("BENCH_NET_NO_LOGS") == NULL;
	server = spawn_server(&port);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_net: server pid %d on 127.0.0.1:%d, RSS %ld KiB idle\n", (int)server, port, rss_kib(server));
	latency(port, server);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	for (int n = argc > 2 ? atoi(argv[2]) : 25; n <= max_rooms; n *= 2)
		rooms(n);
	remove_logs();
	return 0;
}
