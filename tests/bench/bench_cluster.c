/* SPDX-License-Identifier: MIT */
/* bench_cluster: one node against N nodes of a cluster on this box, side by side: duels held, latency, CPU, the ceiling. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <uv.h>

#include "crowd.h"
#include "procstat.h"
#include "spawn.h"

/*
 * Issue 34's capacity goal: N nodes on one box hold N times the duels of one at a command a
 * second, the own update's p99 under 10 ms, and the cluster's CPU ceiling against one node's.
 * Two configurations run one after the other in the same run, each on fresh processes:
 *
 *   (b) N nodes, N x D duels: with --redis a real cluster (a redis-server started here on a
 *       loopback port of its own, every node `--redis` on it), else N independent servers;
 *   (a) one `wizwar server` alone (no --redis: a node as it runs without a cluster), D duels.
 *
 * The cluster is the configuration that counts: a node of a cluster copies each loop
 * iteration's turn-log lines to Redis (XADD, cluster_tlog) on the hot path, and redis-server
 * takes CPU of the same two cores; independent servers are the bound it could reach.
 *
 * The crowd (crowd.h's clients) is split over P processes forked here (--procs), each with
 * its own loop, descriptor limit and share of the cores: 2 x N x D duels need 4 x N x D
 * sockets on the client side, more than one process may open, and one loop could not keep
 * the pace for the crowd. Duel d's first player connects to node d mod N and asks for room
 * crowd-d to be made; a node may send it on (REDIRECT: a new room goes to the node holding
 * fewer), which it follows as the real client does, checking the key; its second player then
 * connects to the node the first ended on, so the two cannot make the room on two nodes. The
 * crowd processes report through memory shared with this one (mmap before fork) and are told
 * each window (its pace, its start and end on CLOCK_MONOTONIC, which every process reads
 * alike) through a pipe; this process meanwhile sleeps and reads the servers' CPU
 * (/proc/PID/task/ * /schedstat: every thread) and, with perf, their system calls and context
 * switches, over the same window.
 *
 * Each configuration: admission (every first player at once), a warm-up, SECS measured at
 * RATE commands a second a duel; with --ramp, then the pace raised by half again each
 * window until the own update's p99 passes 10 ms, the pace is not kept, or the commands
 * answered stop growing: the highest commands a second with p99 under 10 ms is the ceiling.
 */

#define PROCS_MAX 8
#define NODE_UP_MS 10000      /* a node to start and hear of every other node */
#define ADMIT_MS 300000       /* every duel to start (minutes on a loaded box) */
#define ADMIT_INFLIGHT 128    /* handshakes a crowd process has under way at once (see crowd_main) */
#define GOAL_MS 10.0          /* issue 34: p99 own update under 10 ms */
#define SETTLE_MS 3000        /* after a change of pace, before a window */
#define PERF_ATTACH_MS 300    /* perf stat to attach to every thread before a window */
#define SAMPLES_MAX (8u << 20) /* latency samples a crowd process keeps a window */

struct opts {
	int duels, nodes, procs;
	bool redis, ramp, join;
	unsigned warm, secs, ramp_secs;
	double rate;
	const char *tmp;
	const char *extra[8];
	int nextra;
	const char *node_arg[CROWD_NODES_MAX][4];
	int nnode_arg[CROWD_NODES_MAX];
};

static struct opts opt = { 250, 2, 2, false, false, false, 5, 10, 10, 1.0, "/tmp", { 0 }, 0, { { 0 } }, { 0 } };

/* What a crowd process tells this one, in shared memory: written by it before it writes a
 * byte to its report pipe, read here after that byte. */
struct report {
	int welcomed, started, dropped, refused, connect_failed, redirected, rejoined, thrice, nodes_seen, playing;
	int told_new;                          /* players whose last NODES named the node started mid-run (--join) */
	int duels_on[CROWD_NODES_MAX];        /* duels playing, by node */
	int waiting, connecting, handshaking;  /* players not in yet: not started, before connect, after */
	double admit_s;                        /* from its start until every duel started */
	double cpu_s;                          /* its CPU over the window */
	uint64_t commands, node_cmds[CROWD_NODES_MAX];
	size_t nlat, nlag;
	bool truncated;                        /* more commands than samples kept */
	char last_error[200];
};

/* A window asked of a crowd process: its pace, and its start and end (uv_hrtime's clock). */
struct window_req {
	double rate;
	uint64_t t0, t1;
};

struct shared {
	size_t stride, cap;                    /* bytes a crowd process, samples a window */
	uint8_t *base;
};

static struct report *
report_of(const struct shared *sh, int j)
{
	return (struct report *)(void *)(sh->base + sh->stride * (size_t)j);
}

static uint64_t *
lat_of(const struct shared *sh, int j)
{
	return (uint64_t *)(void *)(sh->base + sh->stride * (size_t)j + sizeof(struct report) + 64);
}

static uint64_t *
lag_of(const struct shared *sh, int j)
{
	return lat_of(sh, j) + sh->cap;
}

static uint32_t *
lat_at_of(const struct shared *sh, int j)
{
	return (uint32_t *)(void *)(lag_of(sh, j) + sh->cap);
}

/* ---- a crowd process ---- */

static struct report *me_rep;
static bool quit;
static uv_timer_t win_start, win_end;
static double win_cpu0;
static uint8_t ctl_buf[sizeof(struct window_req)];
static size_t ctl_have;
static int res_fd;

static bool
duels_settled(void)
{
	for (int i = 0; i < C.n; i += 2) {
		const struct client *a = C.cl[i], *b = C.cl[i + 1];
		if (!(a->gone || b->gone || (a->playing && b->playing)))
			return false;
	}
	return true;
}

static void
fill_report(void)
{
	struct report *r = me_rep;

	r->welcomed = C.welcomed;
	r->started = C.started;
	r->dropped = C.dropped;
	r->refused = C.refused;
	r->connect_failed = C.connect_failed;
	r->redirected = C.redirected;
	r->rejoined = C.rejoined;
	r->thrice = C.thrice;
	r->nodes_seen = C.nodes_seen;
	r->told_new = 0;
	for (int i = 0; i < C.n; i++)
		r->told_new += C.cl[i]->told_new && !C.cl[i]->gone;
	r->playing = 0;
	memset(r->duels_on, 0, sizeof r->duels_on);
	for (int i = 0; i < C.n; i += 2) {
		const struct client *a = C.cl[i], *b = C.cl[i + 1];
		if (a->playing && !a->gone && !b->gone) {
			r->playing++;
			r->duels_on[a->node]++;
		}
	}
	r->waiting = r->connecting = r->handshaking = 0;
	for (int i = 0; i < C.n; i++) {
		const struct client *c = C.cl[i];
		if (c->welcomed || c->gone)
			continue;
		if (c->tcp.loop == NULL)
			r->waiting++;
		else if (uv_is_readable((const uv_stream_t *)&c->tcp))
			r->handshaking++;
		else
			r->connecting++;
	}
	snprintf(r->last_error, sizeof r->last_error, "%s", C.last_error);
}

static void
tell_parent(char what)
{
	if (write(res_fd, &what, 1) != 1)
		_exit(3);
}

static void
on_win_start(uv_timer_t *t)
{
	(void)t;
	C.nlat = C.nlag = 0;
	C.win_t0 = now_ns();
	C.commands = 0;
	memset(C.node_cmds, 0, sizeof C.node_cmds);
	C.measuring = true;
	win_cpu0 = self_cpu_s();
}

static void
on_win_end(uv_timer_t *t)
{
	(void)t;
	C.measuring = false;
	fill_report();
	me_rep->cpu_s = self_cpu_s() - win_cpu0;
	me_rep->commands = C.commands;
	memcpy(me_rep->node_cmds, C.node_cmds, sizeof C.node_cmds);
	me_rep->nlat = C.nlat;
	me_rep->nlag = C.nlag;
	me_rep->truncated = C.nlat >= C.cap;
	tell_parent('W');
}

static uint64_t
ms_until(uint64_t t)
{
	uint64_t now = now_ns();
	return t > now ? (t - now) / 1000000 : 0;
}

static void
ctl_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)h;
	(void)suggested;
	*buf = uv_buf_init((char *)ctl_buf + ctl_have, (unsigned)(sizeof ctl_buf - ctl_have));
}

/* A window asked (the pace changes at once: the parent leaves time to settle), or EOF: the end. */
static void
ctl_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct window_req w;

	(void)buf;
	if (n < 0) {
		quit = true;
		uv_read_stop(st);
		uv_stop(st->loop);
		return;
	}
	ctl_have += (size_t)n;
	if (ctl_have < sizeof ctl_buf)
		return;
	memcpy(&w, ctl_buf, sizeof w);
	ctl_have = 0;
	C.rate = w.rate;
	uv_timer_start(&win_start, on_win_start, ms_until(w.t0), 0);
	uv_timer_start(&win_end, on_win_end, ms_until(w.t1), 0);
}

static int next_first; /* the next first player to start, an index into C.cl */

static void
on_pump(uv_timer_t *t)
{
	int first = *(const int *)t->data;

	while (next_first < C.n && C.launched - C.welcomed - C.dropped < ADMIT_INFLIGHT) {
		if (client_start(C.cl[next_first], next_first, (first + next_first / 2) % C.nnodes) != 0)
			_exit(2);
		next_first += 2;
	}
	if (next_first >= C.n)
		uv_timer_stop(t);
}

/* Crowd process j: duels [first, first + count) of the run's total, over the nodes in C.node. */
static void
crowd_main(const struct shared *sh, int j, int first, int count, int total, int ctl_fd)
{
	static uv_loop_t loop;
	uv_pipe_t ctl;
	uv_timer_t beats;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	me_rep = report_of(sh, j);
	uv_loop_init(&loop);
	C.loop = &loop;
	C.n = 2 * count;
	C.base = 2 * first;
	C.naddr = (2 * total + PER_ADDR - 1) / PER_ADDR;
	C.follow = true;
	C.rate = opt.rate;
	C.cap = sh->cap;
	C.lat = lat_of(sh, j);
	C.lag = lag_of(sh, j);
	C.lat_at = lat_at_of(sh, j);
	C.admit = calloc((size_t)C.n, sizeof *C.admit);
	C.cl = calloc((size_t)C.n, sizeof *C.cl);
	if (auth_init() != 0 || C.admit == NULL || C.cl == NULL)
		_exit(2);
	for (int i = 0; i < C.n; i++)
		if ((C.cl[i] = calloc(1, sizeof *C.cl[i])) == NULL)
			_exit(2);
	uv_timer_init(&loop, &beats);
	uv_timer_start(&beats, on_heartbeats, HEARTBEAT_CHECK_MS, HEARTBEAT_CHECK_MS);
	uv_timer_init(&loop, &win_start);
	uv_timer_init(&loop, &win_end);
	uv_pipe_init(&loop, &ctl, 0);
	uv_pipe_open(&ctl, ctl_fd);

	uint64_t t0 = now_ns();
	/* The first players ADMIT_INFLIGHT handshakes at a time (bench_crowd measures everyone at once:
	 * here, on a loaded box, thousands at once outlast the server's 10 s handshake limit, and the
	 * goal is the play that follows); each second player when its first has its WELCOME. */
	uv_timer_t pump;
	uv_timer_init(&loop, &pump);
	pump.data = &first;
	uv_timer_start(&pump, on_pump, 0, 10);
	run_for(ADMIT_MS, duels_settled);
	uv_close((uv_handle_t *)&pump, NULL);
	fill_report();
	me_rep->admit_s = (double)(now_ns() - t0) / 1e9;
	tell_parent('R');
	uv_read_start((uv_stream_t *)&ctl, ctl_alloc, ctl_read);
	while (!quit)
		uv_run(&loop, UV_RUN_DEFAULT);
	/* The sockets close with the process: each node sees its players go, as at a crowd's end. */
	_exit(0);
}

/* ---- the servers ---- */

/* The daemons this run started: a run stopped by a signal (meson's timeout, ^C) stops them too,
 * rather than leaving nodes and a redis-server behind. */
static volatile pid_t daemons[CROWD_NODES_MAX + 1];

static void
on_fatal_signal(int sig)
{
	for (int k = 0; k < CROWD_NODES_MAX + 1; k++)
		if (daemons[k] > 0)
			kill(daemons[k], SIGTERM);
	signal(sig, SIG_DFL);
	raise(sig);
}

struct proc {
	pid_t pid;
	char dir[288];
	char errpath[320];
};

static pid_t
wait_gone(pid_t pid)
{
	int st;
	return waitpid(pid, &st, WNOHANG);
}

static void
stop_proc(struct proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
}

static void
show_tail(const char *path)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "tail -n 5 '%s' >&2", path);
	if (system(cmd) != 0)
		fprintf(stderr, "(cannot read %s)\n", path);
}

static int
free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(s, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (s >= 0)
		close(s);
	return port;
}

/* Redis answers PING on PORT: a blocking probe, here where no loop runs. */
static bool
redis_answers(int port)
{
	struct sockaddr_in a;
	char buf[16];
	int s = socket(AF_INET, SOCK_STREAM, 0);
	bool ok = false;

	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 && write(s, "PING\r\n", 6) == 6 &&
	    read(s, buf, sizeof buf) >= 5 && memcmp(buf, "+PONG", 5) == 0)
		ok = true;
	if (s >= 0)
		close(s);
	return ok;
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void
sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int
redis_start(const char *dir, struct proc *p, int *port)
{
	char sport[16];

	snprintf(p->errpath, sizeof p->errpath, "%s/redis.log", dir);
	if ((*port = free_port()) < 0)
		return -1;
	snprintf(sport, sizeof sport, "%d", *port);
	if ((p->pid = fork()) == 0) {
		if (freopen(p->errpath, "w", stdout) == NULL || dup2(1, 2) < 0)
			_exit(126);
		execlp("redis-server", "redis-server", "--port", sport, "--bind", "127.0.0.1", "--save", "",
		       "--appendonly", "no", "--protected-mode", "yes", (char *)NULL);
		perror("redis-server");
		_exit(127);
	}
	if (p->pid < 0)
		return -1;
	daemons[CROWD_NODES_MAX] = p->pid;
	/* It answers within some ms; polled, as nothing tells when it listens. */
	for (int k = 0; k < 250; k++) {
		if (redis_answers(*port))
			return 0;
		if (wait_gone(p->pid) == p->pid) {
			p->pid = 0;
			break;
		}
		sleep_ms(20);
	}
	fprintf(stderr, "bench_cluster: redis-server did not answer on port %d:\n", *port);
	show_tail(p->errpath);
	return -1;
}

static int
count_lines(const char *path, const char *needle)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* The last line of a file holding needle, into out ("" if none). */
static void
last_line(const char *path, const char *needle, char *out, size_t len)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f))
		if (strstr(line, needle)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line);
		}
	fclose(f);
}

/* Node k of n: `wizwar server` as spawn_wizwar starts it, with room for every duel of the run
 * (a node may be sent more than its share), and --redis when there is one. */
static int
node_start(const char *wizwar, const char *dir, int k, int rport, int duels, struct proc *p)
{
	char logs[320], state[320], rooms[16], conns[16], url[64];
	const char *args[SPAWN_ARGS_MAX];
	int na = 0;

	snprintf(p->dir, sizeof p->dir, "%s/node%d", dir, k);
	snprintf(logs, sizeof logs, "%s/logs", p->dir);
	snprintf(state, sizeof state, "%s/state", p->dir);
	snprintf(p->errpath, sizeof p->errpath, "%s/server.err", p->dir);
	if (mkdir(p->dir, 0700) != 0 || mkdir(logs, 0700) != 0 || mkdir(state, 0700) != 0)
		return -1;
	snprintf(rooms, sizeof rooms, "%d", duels + 64);
	snprintf(conns, sizeof conns, "%d", 2 * duels + 256);
	args[na++] = "--max-rooms";
	args[na++] = rooms;
	args[na++] = "--max-conns";
	args[na++] = conns;
	if (rport > 0) {
		snprintf(url, sizeof url, "redis://127.0.0.1:%d", rport);
		args[na++] = "--redis";
		args[na++] = url;
	}
	for (int i = 0; i < opt.nextra && na < SPAWN_ARGS_MAX; i++)
		args[na++] = opt.extra[i];
	for (int i = 0; i < opt.nnode_arg[k] && na < SPAWN_ARGS_MAX; i++)
		args[na++] = opt.node_arg[k][i];
	p->pid = spawn_wizwar(wizwar, logs, state, p->errpath, args, na, &C.node[k].port, C.node[k].fp,
	                      sizeof C.node[k].fp);
	if (p->pid < 0) {
		fprintf(stderr, "bench_cluster: node %d did not start:\n", k);
		show_tail(p->errpath);
		return -1;
	}
	daemons[k] = p->pid;
	return 0;
}

/* Every node has heard of every other (its log's "cluster: node ... joined"), or one died. */
static int
nodes_joined(struct proc *nodes, int n)
{
	uint64_t end = now_ns() + (uint64_t)NODE_UP_MS * 1000000;

	for (;;) {
		int ready = 0;
		for (int k = 0; k < n; k++) {
			if (wait_gone(nodes[k].pid) == nodes[k].pid) {
				fprintf(stderr, "bench_cluster: node %d exited:\n", k);
				nodes[k].pid = 0;
				show_tail(nodes[k].errpath);
				return -1;
			}
			ready += count_lines(nodes[k].errpath, "cluster: node ") >= n - 1;
		}
		if (ready == n)
			return 0;
		if (now_ns() > end) {
			fprintf(stderr, "bench_cluster: the nodes did not all hear of each other in %d ms\n", NODE_UP_MS);
			return -1;
		}
		sleep_ms(20);
	}
}

/* ---- one configuration ---- */

struct figures {
	int held;                 /* duels playing at the end of the first window */
	double per_s, p50_ms, p99_ms;
	double ceiling;           /* most commands a second answered with p99 under GOAL_MS */
	bool ok;                  /* every duel admitted and started */
};

static int
cmp_u64q(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double
pct_sorted_ms(const uint64_t *v, size_t n, double p)
{
	return n ? (double)v[(size_t)(p * (double)(n - 1) + 0.5)] / 1e6 : 0;
}

static const char *
tag_of(int nodes, bool redis)
{
	return nodes == 1 && !redis ? "1 node" : redis ? "cluster" : "separate";
}

/* --join: one more node started in the middle of a window (node_start's arguments), and when. */
struct join {
	const char *wizwar, *dir;
	int k, rport, duels;
	struct proc *p;
	double at_s, up_ms;        /* into the window; its start took */
	bool failed;
};

/* --join: the own update by the second its answer came in, over the window (lat_at: ms into it):
 * each second's max and p99, and the worst second against the others. A stall of the busy node's
 * loop is one second's max; the window's p99 hides it. */
static void
by_second(const uint64_t *lat, const uint32_t *at, size_t nlat, unsigned secs, const struct join *jn)
{
	uint64_t *v = malloc((nlat + 1) * sizeof *v);
	double mx[64] = { 0 }, p99[64] = { 0 };
	size_t cnt[64] = { 0 };
	unsigned worst = 0;

	if (v == NULL || secs > 64) {
		free(v);
		return;
	}
	printf("  join: node %d started %.2f s into the window (up in %.0f ms)%s; own update by second, max/p99 ms:", jn->k,
	       jn->at_s, jn->up_ms, jn->failed ? ", FAILED" : "");
	for (unsigned b = 0; b < secs; b++) {
		size_t m = 0;
		for (size_t i = 0; i < nlat; i++)
			if (at[i] / 1000 == b)
				v[m++] = lat[i];
		qsort(v, m, sizeof *v, cmp_u64q);
		cnt[b] = m;
		mx[b] = pct_sorted_ms(v, m, 1.0);
		p99[b] = pct_sorted_ms(v, m, 0.99);
		if (mx[b] > mx[worst])
			worst = b;
		printf(" %.1f/%.1f", mx[b], p99[b]);
	}
	double omax = 0, op99[64];
	unsigned no = 0;
	for (unsigned b = 0; b < secs; b++)
		if (b != worst && cnt[b]) {
			omax = mx[b] > omax ? mx[b] : omax;
			op99[no++] = p99[b];
		}
	for (unsigned a = 0; a < no; a++) /* the others' median p99: a few values, sorted in place */
		for (unsigned b = a + 1; b < no; b++)
			if (op99[b] < op99[a]) {
				double t = op99[a];
				op99[a] = op99[b];
				op99[b] = t;
			}
	printf("\n  join: the worst second (+%u s): max %.1f ms, p99 %.2f ms (%zu answers); the others: max at most %.1f ms, "
	       "p99 median %.2f ms\n", worst, mx[worst], p99[worst], cnt[worst], omax, no ? op99[no / 2] : 0);
	free(v);
}

/* One window: asked of every crowd process, the servers read meanwhile; printed. With jn, one more node
 * started in its middle. */
static void
window(const struct shared *sh, int procs, const int *ctl, const int *res, struct proc *nodes, int n,
       const struct proc *redis, double rate, unsigned warm_ms, unsigned secs, const char *tag, int duels,
       struct figures *f, double *per_s_out, double *p99_out, struct join *jn)
{
	struct window_req w;
	struct perfstat ps[CROWD_NODES_MAX];
	uint64_t cpu0[CROWD_NODES_MAX + 1], cpu1[CROWD_NODES_MAX + 1];
	long ctxt0[CROWD_NODES_MAX], sys[CROWD_NODES_MAX], cs[CROWD_NODES_MAX];
	bool perf = getenv("BENCH_NO_PERF") == NULL;
	char la[16];

	w.rate = rate;
	w.t0 = now_ns() + (uint64_t)warm_ms * 1000000;
	w.t1 = w.t0 + (uint64_t)secs * 1000000000u;
	for (int j = 0; j < procs; j++)
		if (write(ctl[j], &w, sizeof w) != (ssize_t)sizeof w)
			fprintf(stderr, "bench_cluster: crowd %d is gone\n", j);
	sleep_until(w.t0 - (uint64_t)PERF_ATTACH_MS * 1000000);
	for (int k = 0; k < n; k++)
		if (perf)
			perfstat_start(&ps[k], nodes[k].pid);
		else
			ps[k].child = -1;
	sleep_until(w.t0);
	for (int k = 0; k < n; k++) {
		cpu0[k] = proc_cpu_ns(nodes[k].pid);
		ctxt0[k] = proc_ctxt(nodes[k].pid);
	}
	cpu0[n] = redis->pid > 0 ? proc_cpu_ns(redis->pid) : 0;
	if (jn) {
		sleep_until(w.t0 + (w.t1 - w.t0) / 2);
		uint64_t tj = now_ns();
		jn->failed = node_start(jn->wizwar, jn->dir, jn->k, jn->rport, jn->duels, jn->p) != 0;
		jn->at_s = (double)(tj - w.t0) / 1e9;
		jn->up_ms = (double)(now_ns() - tj) / 1e6;
	}
	sleep_until(w.t1);
	for (int k = 0; k < n; k++)
		cpu1[k] = proc_cpu_ns(nodes[k].pid);
	cpu1[n] = redis->pid > 0 ? proc_cpu_ns(redis->pid) : 0;
	for (int k = 0; k < n; k++) {
		long c1 = proc_ctxt(nodes[k].pid);
		ctxt0[k] = c1 >= 0 && ctxt0[k] >= 0 ? c1 - ctxt0[k] : -1;
		perfstat_stop(&ps[k], &sys[k], &cs[k]);
	}
	/* The crowd's figures, once each process has written them. */
	size_t nlat = 0, nlag = 0;
	uint64_t commands = 0, node_cmds[CROWD_NODES_MAX] = { 0 };
	int playing = 0, dropped = 0, refused = 0, told = 0, on[CROWD_NODES_MAX] = { 0 };
	double crowd_cpu = 0;
	bool truncated = false;
	const char *last = "";
	for (int j = 0; j < procs; j++) {
		char b;
		if (read(res[j], &b, 1) != 1 || b != 'W') {
			fprintf(stderr, "bench_cluster: crowd %d did not report its window\n", j);
			continue;
		}
		const struct report *r = report_of(sh, j);
		nlat += r->nlat;
		nlag += r->nlag;
		commands += r->commands;
		playing += r->playing;
		dropped += r->dropped;
		refused += r->refused;
		told += r->told_new;
		crowd_cpu += r->cpu_s;
		truncated |= r->truncated;
		if (r->last_error[0])
			last = r->last_error;
		for (int k = 0; k < n; k++) {
			node_cmds[k] += r->node_cmds[k];
			on[k] += r->duels_on[k];
		}
	}
	uint64_t *lat = malloc((nlat + 1) * sizeof *lat), *lag = malloc((nlag + 1) * sizeof *lag);
	uint32_t *at = malloc((nlat + 1) * sizeof *at);
	size_t a = 0, b2 = 0;
	for (int j = 0; j < procs && lat && lag && at; j++) {
		const struct report *r = report_of(sh, j);
		memcpy(lat + a, lat_of(sh, j), r->nlat * sizeof *lat);
		memcpy(at + a, lat_at_of(sh, j), r->nlat * sizeof *at);
		memcpy(lag + b2, lag_of(sh, j), r->nlag * sizeof *lag);
		a += r->nlat;
		b2 += r->nlag;
	}
	if (lat == NULL || lag == NULL || at == NULL)
		nlat = nlag = 0;
	else {
		if (jn)
			by_second(lat, at, nlat, secs, jn);
		qsort(lat, nlat, sizeof *lat, cmp_u64q);
		qsort(lag, nlag, sizeof *lag, cmp_u64q);
	}
	double span = (double)secs, per_s = (double)commands / span;
	double p50 = pct_sorted_ms(lat, nlat, 0.5), p99 = pct_sorted_ms(lat, nlat, 0.99);
	double srv_cpu = 0;
	for (int k = 0; k < n; k++)
		srv_cpu += (double)(cpu1[k] - cpu0[k]) / 1e9;
	double redis_cpu = (double)(cpu1[n] - cpu0[n]) / 1e9;
	loadavg(la, sizeof la);
	printf("%-8s %5d duels: %d playing, %.0f commands/s (paced for %.0f), own update median %.2f ms, p99 %.2f ms, "
	       "max %.1f ms%s; pace timers late p99 %.2f ms; CPU of 2 cores: servers %.0f%%, redis %.0f%%, crowd %.0f%% "
	       "(%d processes), all %.0f%% of 200%%; %d refused, %d dropped%s%s%s; load %s\n",
	       tag, duels, playing, per_s, playing * rate, p50, p99, pct_sorted_ms(lat, nlat, 1.0),
	       truncated ? " (samples truncated)" : "", pct_sorted_ms(lag, nlag, 0.99), 100 * srv_cpu / span,
	       100 * redis_cpu / span, 100 * crowd_cpu / span, procs, 100 * (srv_cpu + redis_cpu + crowd_cpu) / span,
	       refused, dropped, dropped ? " (last: " : "", dropped ? last : "", dropped ? ")" : "", la);
	printf("  at %.2f commands a second a duel; a command: servers %.1f µs, crowd %.1f µs, redis %.1f µs\n", rate,
	       commands ? srv_cpu * 1e6 / (double)commands : 0, commands ? crowd_cpu * 1e6 / (double)commands : 0,
	       commands ? redis_cpu * 1e6 / (double)commands : 0);
	for (int k = 0; k < n; k++) {
		double nc = node_cmds[k] ? (double)node_cmds[k] : 1, c = (double)(cpu1[k] - cpu0[k]) / 1e9;
		char sc[32] = "n/a", pcs[32] = "n/a";
		if (sys[k] >= 0)
			snprintf(sc, sizeof sc, "%.2f", (double)sys[k] / nc);
		if (cs[k] >= 0)
			snprintf(pcs, sizeof pcs, "%.2f", (double)cs[k] / nc);
		printf("  node %d: %d duels, %.0f commands/s, CPU %.0f%% of a core, %.1f µs a command, %s system calls and %s "
		       "context switches a command (perf; /proc: %.2f), RSS %ld MiB\n",
		       k, on[k], (double)node_cmds[k] / span, 100 * c / span, c * 1e6 / nc, sc, pcs,
		       ctxt0[k] >= 0 ? (double)ctxt0[k] / nc : -1.0, rss_kib(nodes[k].pid) / 1024);
	}
	if (opt.join && redis->pid > 0)
		printf("  join: players whose last NODES named the node started mid-run: %d (of %d playing)\n", told,
		       2 * playing);
	fflush(stdout);
	free(at);
	if (f) {
		f->held = playing;
		f->per_s = per_s;
		f->p50_ms = p50;
		f->p99_ms = p99;
	}
	*per_s_out = per_s;
	*p99_out = nlat ? p99 : 1e9;
	free(lat);
	free(lag);
}

static int
configuration(const char *wizwar, int nodes, bool redis, int duels, struct figures *f)
{
	struct proc node[CROWD_NODES_MAX], rp;
	struct shared sh;
	char dir[256];
	int rport = 0, procs = opt.procs, ctl[PROCS_MAX], res[PROCS_MAX], rc = -1;
	pid_t kid[PROCS_MAX];
	const char *tag = tag_of(nodes, redis);

	memset(f, 0, sizeof *f);
	memset(node, 0, sizeof node);
	memset(&rp, 0, sizeof rp);
	memset(kid, 0, sizeof kid);
	for (int j = 0; j < PROCS_MAX; j++)
		ctl[j] = res[j] = -1;
	sh.base = MAP_FAILED;
	snprintf(dir, sizeof dir, "%s/bench_cluster.XXXXXX", opt.tmp);
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		return -1;
	}
	if (redis && redis_start(dir, &rp, &rport) != 0)
		goto out;
	C.nnodes = nodes;
	for (int k = 0; k < nodes; k++)
		if (node_start(wizwar, dir, k, rport, duels, &node[k]) != 0)
			goto out;
	if (redis && nodes_joined(node, nodes) != 0)
		goto out;

	/* Memory for the crowd's reports and samples: pages untouched cost nothing. */
	unsigned wsecs = opt.secs > opt.ramp_secs ? opt.secs : opt.ramp_secs;
	double rmax = opt.ramp ? 64 : opt.rate;
	size_t per = (size_t)(duels + procs - 1) / (size_t)procs;
	sh.cap = (size_t)(1.6 * (double)per * rmax * (wsecs + 5)) + 1000;
	if (sh.cap > SAMPLES_MAX)
		sh.cap = SAMPLES_MAX;
	sh.stride = (sizeof(struct report) + 64 + 2 * sh.cap * sizeof(uint64_t) + sh.cap * sizeof(uint32_t) + 4095) &
	            ~(size_t)4095;
	sh.base = mmap(NULL, sh.stride * (size_t)procs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh.base == MAP_FAILED) {
		perror("bench_cluster: mmap");
		goto out;
	}
	int pc[PROCS_MAX][2], pr[PROCS_MAX][2];
	for (int j = 0; j < procs; j++) {
		/* close-on-exec: perf, started later, must not hold a control pipe open */
		if (pipe(pc[j]) != 0 || pipe(pr[j]) != 0) {
			perror("bench_cluster: pipe");
			goto out;
		}
		for (int e = 0; e < 2; e++) {
			fcntl(pc[j][e], F_SETFD, FD_CLOEXEC);
			fcntl(pr[j][e], F_SETFD, FD_CLOEXEC);
		}
		ctl[j] = pc[j][1];
		res[j] = pr[j][0];
	}
	fflush(stdout);
	for (int j = 0; j < procs; j++) {
		int first = (int)((long)duels * j / procs), last = (int)((long)duels * (j + 1) / procs);
		if ((kid[j] = fork()) == 0) {
			/* Only its own ends: a crowd process sees EOF when this one closes its control pipe. */
			for (int i = 0; i < procs; i++) {
				close(pc[i][1]);
				close(pr[i][0]);
				if (i != j) {
					close(pc[i][0]);
					close(pr[i][1]);
				}
			}
			res_fd = pr[j][1];
			crowd_main(&sh, j, first, last - first, duels, pc[j][0]);
		}
		if (kid[j] < 0) {
			perror("bench_cluster: fork");
			goto out;
		}
	}
	for (int j = 0; j < procs; j++) {
		close(pc[j][0]);
		close(pr[j][1]);
	}

	/* Admission. */
	int waiting = 0, connecting = 0, handshaking = 0;
	int welcomed = 0, dropped = 0, redirected = 0, rejoined = 0, thrice = 0, seen = 0, playing = 0, on[CROWD_NODES_MAX] = { 0 };
	double admit = 0;
	const char *last = "";
	bool all_reported = true;
	for (int j = 0; j < procs; j++) {
		char b;
		if (read(res[j], &b, 1) != 1 || b != 'R') {
			fprintf(stderr, "bench_cluster: crowd %d ended before its duels started\n", j);
			all_reported = false;
			continue;
		}
		const struct report *r = report_of(&sh, j);
		welcomed += r->welcomed;
		dropped += r->dropped;
		redirected += r->redirected;
		rejoined += r->rejoined;
		thrice += r->thrice;
		waiting += r->waiting;
		connecting += r->connecting;
		handshaking += r->handshaking;
		playing += r->playing;
		if (j == 0 || r->nodes_seen < seen)
			seen = r->nodes_seen;
		if (r->admit_s > admit)
			admit = r->admit_s;
		if (r->last_error[0])
			last = r->last_error;
		for (int k = 0; k < nodes; k++)
			on[k] += r->duels_on[k];
	}
	printf("%-8s %5d duels on %d node%s%s: %d of %d players welcomed, %d duels playing in %.2f s (", tag, duels, nodes,
	       nodes > 1 ? "s" : "", redis ? " and one redis-server" : "", welcomed, 2 * duels, playing, admit);
	for (int k = 0; k < nodes; k++)
		printf("%snode %d: %d", k ? ", " : "", k, on[k]);
	printf("), %d REDIRECTs followed, %d joins sent on more than twice, %d on %d times and started again a second "
	       "later; fewest nodes in a NODES %d; %d dropped%s%s%s\n", redirected, thrice, rejoined,
	       CROWD_REDIRECTS_MAX + 1, seen, dropped,
	       dropped ? " (last: " : "",
	       dropped ? last : "", dropped ? ")" : "");
	/* NODES lists the nodes heard within the last 1.6 s: a node whose loop is busy admitting (or a
	 * loaded machine) may miss one for a moment, so only a cluster that told no player of any
	 * node fails here; nodes_joined() saw every node hear of every other. */
	if (playing < duels)
		printf("%-8s players not in: %d not started, %d connecting (or waiting to start again), %d connected\n", tag,
		       waiting, connecting, handshaking);
	if (!all_reported || playing < duels || (redis && seen == 0)) {
		if (redis && seen == 0)
			printf("%-8s no player was told the cluster's nodes (NODES): not a cluster\n", tag);
		printf("%-8s FAIL: not every duel started\n", tag);
		goto out;
	}
	f->ok = true;

	/* Play: the pace asked, then (--ramp) faster until the p99 or the commands answered give out. */
	double per_s, p99, prev = 0;
	struct join jn = { wizwar, dir, nodes, rport, duels, &node[nodes], 0, 0, false };
	bool join = opt.join && redis && nodes < CROWD_NODES_MAX;
	int walks[CROWD_NODES_MAX];
	for (int k = 0; k < nodes; k++)
		walks[k] = count_lines(node[k].errpath, "cluster: the nodes told");
	window(&sh, procs, ctl, res, node, nodes, &rp, opt.rate, opt.warm * 1000, opt.secs, tag, duels, f, &per_s, &p99,
	       join ? &jn : NULL);
	if (join) {
		/* Every node's walk over its rooms done (its log says so; a node before the walk in slices
		 * says nothing: 10 s), then a short window whose end says who was told the new node. */
		uint64_t end = now_ns() + 10000000000u;
		for (int k = 0; k < nodes; k++)
			while (count_lines(node[k].errpath, "cluster: the nodes told") <= walks[k] && now_ns() < end)
				sleep_ms(20);
		window(&sh, procs, ctl, res, node, nodes, &rp, opt.rate, 0, 2, tag, duels, NULL, &per_s, &p99, NULL);
		for (int k = 0; k < nodes; k++) {
			char line[1024];
			last_line(node[k].errpath, "cluster: the nodes told", line, sizeof line);
			printf("  join: node %d's walk: %s\n", k, line[0] ? strstr(line, "cluster: ") : "(none in its log)");
		}
	}
	if (p99 <= GOAL_MS)
		f->ceiling = per_s;
	prev = per_s;
	for (double r = opt.rate * 1.5; opt.ramp && p99 <= GOAL_MS && r <= 64; r *= 1.5) {
		window(&sh, procs, ctl, res, node, nodes, &rp, r, SETTLE_MS, opt.ramp_secs, tag, duels, NULL, &per_s, &p99, NULL);
		if (p99 <= GOAL_MS && per_s > f->ceiling)
			f->ceiling = per_s;
		if (per_s < 0.9 * r * duels || per_s < 1.05 * prev)
			break; /* the pace is not kept, or more pace brings no more commands */
		prev = per_s;
	}
	/* What the nodes' logs say went wrong in the cluster meanwhile (a node thought dead takes
	 * the other's rooms over, and a loaded box can make a node miss its beats). */
	for (int k = 0; redis && k < nodes; k++) {
		int gone = count_lines(node[k].errpath, "not heard from"), lost = count_lines(node[k].errpath, " lost: duels here");
		printf("  node %d's log: another node not heard from (thought dead, its rooms claimed) %d times, Redis lost %d "
		       "times\n", k, gone, lost);
	}
	rc = 0;
out:
	for (int j = 0; j < procs; j++) {
		if (ctl[j] >= 0)
			close(ctl[j]);
	}
	for (int j = 0; j < procs; j++) {
		if (kid[j] > 0)
			waitpid(kid[j], NULL, 0);
		if (res[j] >= 0)
			close(res[j]);
	}
	for (int k = 0; k <= nodes && k < CROWD_NODES_MAX; k++) /* and --join's */
		stop_proc(&node[k]);
	stop_proc(&rp);
	memset((void *)daemons, 0, sizeof daemons);
	if (sh.base != MAP_FAILED)
		munmap(sh.base, sh.stride * (size_t)procs);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (getenv("BENCH_KEEP"))
		printf("  kept: %s\n", dir);
	else if (system(cmd) != 0)
		fprintf(stderr, "bench_cluster: could not remove %s\n", dir);
	return rc;
}

static const char usage[] =
    "usage: bench_cluster WIZWAR [DUELS] [--nodes N] [--redis] [--procs P] [--warm S] [--secs S] [--rate R]\n"
    "                     [--ramp [S]] [--quick] [--join] [--tmp DIR] [--arg ARG]... [--node-arg K ARG]...\n"
    "Side by side in one run: N nodes (default 2) with N x DUELS duels (default 250): with --redis a\n"
    "cluster on a redis-server started here, else N separate servers; then one `WIZWAR server` alone\n"
    "with DUELS. The crowd is P processes (default 2); each duel's players are on the node that holds\n"
    "its room. At R commands a second a duel (default 1), SECS measured (default 10) after S of warm-up\n"
    "(default 5): players, commands/s, own update median and p99, each server's CPU, system calls and\n"
    "context switches a command (perf where it works; BENCH_NO_PERF=1: not), RSS, redis's and the\n"
    "crowd's CPU. --ramp: then the pace raised by half again each window (S seconds, default 10) until\n"
    "the p99 passes 10 ms or the commands answered stop growing: each one's ceiling. --quick: 40 duels,\n"
    "2 s, no warm-up, no ramp (a smoke). --arg passes ARG to every node, --node-arg to node K only.\n"
    "--join (with --redis): one more node started in the middle of the cluster's first window: the own\n"
    "update's max and p99 by second, each node's walk telling its players and spectators the nodes\n"
    "(its log), and, after a 2 s window, the players told of the new node.\n"
    "BENCH_KEEP=1 keeps the nodes' directories and logs. Exits 1 if a node or a duel did not come up.\n";

int
main(int argc, char **argv)
{
	struct figures one, many;
	bool quick = false;

	if (argc < 2 || strcmp(argv[1], "--help") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--nodes") == 0 && v && atoi(v) >= 1 && atoi(v) <= CROWD_NODES_MAX)
			opt.nodes = atoi(argv[++i]);
		else if (strcmp(a, "--procs") == 0 && v && atoi(v) >= 1 && atoi(v) <= PROCS_MAX)
			opt.procs = atoi(argv[++i]);
		else if (strcmp(a, "--redis") == 0)
			opt.redis = true;
		else if (strcmp(a, "--quick") == 0)
			quick = true;
		else if (strcmp(a, "--join") == 0)
			opt.join = true;
		else if (strcmp(a, "--warm") == 0 && v)
			opt.warm = (unsigned)atoi(argv[++i]);
		else if (strcmp(a, "--secs") == 0 && v && atoi(v) > 0)
			opt.secs = (unsigned)atoi(argv[++i]);
		else if (strcmp(a, "--rate") == 0 && v && atof(v) > 0 && atof(v) <= 64)
			opt.rate = atof(argv[++i]);
		else if (strcmp(a, "--ramp") == 0) {
			opt.ramp = true;
			if (v && v[0] != '-' && atoi(v) > 0 && atoi(v) < 600)
				opt.ramp_secs = (unsigned)atoi(argv[++i]);
		} else if (strcmp(a, "--tmp") == 0 && v)
			opt.tmp = argv[++i];
		else if (strcmp(a, "--arg") == 0 && v && opt.nextra < 8)
			opt.extra[opt.nextra++] = argv[++i];
		else if (strcmp(a, "--node-arg") == 0 && v && i + 2 < argc && atoi(v) >= 0 && atoi(v) < CROWD_NODES_MAX &&
		         opt.nnode_arg[atoi(v)] < 4) {
			int k = atoi(argv[++i]);
			opt.node_arg[k][opt.nnode_arg[k]++] = argv[++i];
		} else if (atoi(a) > 0 && strspn(a, "0123456789") == strlen(a))
			opt.duels = atoi(a);
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (quick) {
		opt.duels = 40;
		opt.warm = 0;
		opt.secs = 2;
		opt.ramp = false;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGINT, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	char la[16];
	loadavg(la, sizeof la);
	printf("bench_cluster: %d duels on %d %s, then %d on 1 node; crowd in %d processes; %ld cores; load %s\n",
	       opt.duels * opt.nodes, opt.nodes, opt.redis ? "nodes of a cluster (redis)" : "separate servers", opt.duels,
	       opt.procs, sysconf(_SC_NPROCESSORS_ONLN), la);
	/* The nodes first: a node that does not come up fails the run at once. */
	if (configuration(argv[1], opt.nodes, opt.redis, opt.duels * opt.nodes, &many) != 0 ||
	    configuration(argv[1], 1, false, opt.duels, &one) != 0) {
		printf("bench_cluster: FAIL (a node or a duel did not come up)\n");
		return 1;
	}
	bool met = many.held >= opt.nodes * opt.duels && many.p99_ms < GOAL_MS && one.p99_ms < GOAL_MS;
	printf("goal: %d nodes hold %dx the duels of one at %.2f a second, p99 own update under %.0f ms: 1 node %d duels, "
	       "p99 %.2f ms; %d nodes %d duels, p99 %.2f ms (%.2fx the p99): %s\n",
	       opt.nodes, opt.nodes, opt.rate, GOAL_MS, one.held, one.p99_ms, opt.nodes, many.held, many.p99_ms,
	       one.p99_ms > 0 ? many.p99_ms / one.p99_ms : 0, met ? "met" : "NOT met");
	if (opt.ramp && one.ceiling > 0 && many.ceiling > 0)
		printf("ceiling (most commands/s with p99 under %.0f ms): 1 node %.0f, %d nodes %.0f: %.2fx\n", GOAL_MS,
		       one.ceiling, opt.nodes, many.ceiling, many.ceiling / one.ceiling);
	else if (opt.ramp)
		printf("ceiling: not found: the p99 was over %.0f ms already at %.2f a second a duel on %s\n", GOAL_MS, opt.rate,
		       one.ceiling > 0 ? "the nodes" : many.ceiling > 0 ? "the one node" : "both");
	return 0;
}
