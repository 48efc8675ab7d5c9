/* SPDX-License-Identifier: MIT */
/* bench_crowd: the shipped `wizwar server` against a crowd: N duels arriving at once, then a human pace. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <uv.h>

#include "crowd.h"
#include "procstat.h"
#include "spawn.h"

/*
 * The server is the shipped executable (`wizwar server` with its default limits and
 * turn logs on disk) in a process of its own, fresh for each size; this process is
 * the crowd: 2 x N lean clients on one libuv loop (crowd.h).
 *
 * 1. Admission: every connection is started in the same turn of the loop, as after a
 *    server restart; each is timed from its connect() to WELCOME.
 * 2. Play: each duel gets one command a second (the player whose turn it is waits
 *    0.5 to 1.5 s, uniformly, before each command); after a warm-up, SECS seconds
 *    are measured: commands answered per second against the pace, the time from
 *    sending a command to its own UPDATE (or refusal), the server's CPU (its CPU-time
 *    clock, clock_getcpuclockid) and its resident memory.
 */

static void
on_closed(uv_handle_t *h)
{
	(void)h;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double
pct_ms(uint64_t *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_u64);
	return (double)v[(size_t)(p * (double)(n - 1) + 0.5)] / 1e6;
}

static bool
all_settled(void)
{
	return C.welcomed + C.dropped >= C.n;
}

static bool
all_started(void)
{
	return C.started + C.dropped >= C.n;
}

/* The server. */

static const char *tmp_dir = "/tmp";
static const char *extra_args[8]; /* --arg: more arguments for `wizwar server` (an older build's caps) */
static int nextra;

struct server_proc {
	pid_t pid;
	char dir[256];
};

static int
spawn_server(const char *wizwar, struct server_proc *sp)
{
	char logpath[300], keydir[300], errpath[300];

	snprintf(sp->dir, sizeof sp->dir, "%s/bench_crowd.XXXXXX", tmp_dir);
	if (mkdtemp(sp->dir) == NULL)
		return -1;
	snprintf(logpath, sizeof logpath, "%s/logs", sp->dir);
	snprintf(keydir, sizeof keydir, "%s/state", sp->dir);
	snprintf(errpath, sizeof errpath, "%s/server.err", sp->dir);
	mkdir(logpath, 0700);
	mkdir(keydir, 0700);
	sp->pid = spawn_wizwar(wizwar, logpath, keydir, errpath, extra_args, nextra, &C.node[0].port, C.node[0].fp, sizeof C.node[0].fp);
	return sp->pid < 0 ? -1 : 0;
}

/* The server's whole life in CPU and peak memory: getrusage of the children reaped,
 * before and after reaping it (it is the only child). */
static void
stop_server(struct server_proc *sp, struct rusage *ru)
{
	char cmd[300];
	struct rusage before;
	int st;

	getrusage(RUSAGE_CHILDREN, &before);
	kill(sp->pid, SIGTERM);
	if (waitpid(sp->pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, ru) != 0) {
		memset(ru, 0, sizeof *ru);
	} else {
		ru->ru_utime.tv_sec -= before.ru_utime.tv_sec;
		ru->ru_utime.tv_usec -= before.ru_utime.tv_usec;
		ru->ru_stime.tv_sec -= before.ru_stime.tv_sec;
		ru->ru_stime.tv_usec -= before.ru_stime.tv_usec;
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", sp->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_crowd: could not remove %s\n", sp->dir);
}

static void
close_all(void)
{
	for (int i = 0; i < C.n; i++) {
		struct client *c = C.cl[i];
		if (!uv_is_closing((uv_handle_t *)&c->tcp))
			uv_close((uv_handle_t *)&c->tcp, on_closed);
		if (!uv_is_closing((uv_handle_t *)&c->pace))
			uv_close((uv_handle_t *)&c->pace, on_closed);
	}
	uv_run(C.loop, UV_RUN_DEFAULT);
	for (int i = 0; i < C.n; i++) {
		pconn_finish(&C.cl[i]->pc);
		free(C.cl[i]);
	}
	free(C.cl);
}

/* What the benchmark was asked (main's options). */
struct opts {
	unsigned warm, secs, sample, ramp_secs;
	double rate;
	bool ramp;
};

static struct opts opt = { 5, 10, 0, 10, 1.0, false };

/* One measured window of play: the crowd's figures and the server's, from /proc and perf. */
struct window {
	double span, per_s, paced;
	double p50_ms, p99_ms, max_ms, lag99_ms;
	double s_cpu, c_cpu; /* server (its CPU clock) and crowd CPU seconds */
	double s_cpu_stat;   /* the server's utime + stime from /proc/PID/stat */
	double s_user_stat;  /* its utime alone */
	long ctxt;           /* the server's context switches, every thread (/proc) */
	long syscalls, cs;   /* from perf stat, -1 if not available */
	long rss_kib, anon_kib, fds;
	int playing;
	uint64_t commands;
};

/* The soak's samples: the server's resident memory and descriptors every --sample seconds. */
struct sample {
	double t;
	long rss_kib, anon_kib, fds;
	uint64_t duels_ended;
};
static struct sample *samples;
static size_t nsamples;

static int
playing_duels(void)
{
	int playing = 0;

	for (int i = 0; i < C.n; i += 2)
		playing += C.cl[i]->playing && !C.cl[i]->gone && !C.cl[i + 1]->gone;
	return playing;
}

/* SECS seconds of play measured; with SAMPLE, the server's RSS and descriptors read (and
 * printed) every SAMPLE seconds into samples[]. */
static void
measure(const struct server_proc *sp, int duels, unsigned secs, unsigned sample, struct window *w)
{
	clockid_t srv_clock;
	struct perfstat ps;

	(void)duels;
	memset(w, 0, sizeof *w);
	if (clock_getcpuclockid(sp->pid, &srv_clock) != 0)
		srv_clock = CLOCK_PROCESS_CPUTIME_ID; /* cannot happen for a live child */
	free(samples);
	samples = NULL;
	nsamples = 0;
	if (sample && (samples = calloc(secs / sample + 2, sizeof *samples)) == NULL)
		sample = 0;
	perfstat_start(&ps, sp->pid);
	run_for(300, NULL); /* perf attaches to every thread; the crowd plays on meanwhile */
	C.measuring = true;
	C.nlat = C.nlag = 0;
	C.commands = 0;
	long ctxt0 = proc_ctxt(sp->pid);
	double st0 = proc_cpu_s(sp->pid), ut0 = proc_user_s(sp->pid);
	double s0 = cpu_clock_s(srv_clock), b0 = self_cpu_s();
	uint64_t m0 = now_ns();
	for (unsigned done = 0; done < secs;) {
		unsigned step = sample && secs - done > sample ? sample : secs - done;
		run_for((uint64_t)step * 1000, NULL);
		done += step;
		if (sample) {
			struct sample *x = &samples[nsamples++];
			x->t = (double)(now_ns() - m0) / 1e9;
			x->rss_kib = rss_kib(sp->pid);
			x->anon_kib = status_kib(sp->pid, "RssAnon");
			x->fds = proc_fds(sp->pid);
			x->duels_ended = C.ends / 2;
			printf("  soak %6.0f s: server RSS %ld KiB (anon %ld), %ld descriptors, %d duels playing, %" PRIu64
			       " commands, %" PRIu64 " duels ended\n", x->t, x->rss_kib, x->anon_kib, x->fds, playing_duels(),
			       C.commands, x->duels_ended);
		}
	}
	w->span = (double)(now_ns() - m0) / 1e9;
	w->s_cpu = cpu_clock_s(srv_clock) - s0;
	w->c_cpu = self_cpu_s() - b0;
	w->s_cpu_stat = proc_cpu_s(sp->pid) - st0;
	w->s_user_stat = proc_user_s(sp->pid) - ut0;
	w->ctxt = proc_ctxt(sp->pid) - ctxt0;
	C.measuring = false;
	perfstat_stop(&ps, &w->syscalls, &w->cs);
	w->commands = C.commands;
	w->per_s = (double)C.commands / w->span;
	w->playing = playing_duels();
	w->paced = w->playing * C.rate;
	w->p50_ms = pct_ms(C.lat, C.nlat, 0.5);
	w->p99_ms = pct_ms(C.lat, C.nlat, 0.99);
	w->max_ms = pct_ms(C.lat, C.nlat, 1.0);
	w->lag99_ms = pct_ms(C.lag, C.nlag, 0.99);
	w->rss_kib = rss_kib(sp->pid);
	w->anon_kib = status_kib(sp->pid, "RssAnon");
	w->fds = proc_fds(sp->pid);
}

static void
print_window(int duels, const char *tag, const struct window *w, long rss_idle)
{
	double n = w->commands ? (double)w->commands : 1;
	char la[16], sc[48], cs[48];

	loadavg(la, sizeof la);
	if (w->syscalls >= 0)
		snprintf(sc, sizeof sc, "%.2f", (double)w->syscalls / n);
	else
		snprintf(sc, sizeof sc, "n/a (no perf)");
	if (w->cs >= 0)
		snprintf(cs, sizeof cs, "%.2f", (double)w->cs / n);
	else
		snprintf(cs, sizeof cs, "n/a");
	printf("crowd %5d duels%s: %d playing, %.0f commands/s (paced for %.0f), own update median %.2f ms, p99 %.2f ms, "
	       "max %.1f ms; pace timers late p99 %.2f ms; server CPU %.1f%% of a core, crowd CPU %.1f%%; server RSS %ld "
	       "MiB (%ld idle, %.0f KiB a duel), %ld descriptors; %d refused; load %s\n",
	       duels, tag, w->playing, w->per_s, w->paced, w->p50_ms, w->p99_ms, w->max_ms, w->lag99_ms,
	       100.0 * w->s_cpu / w->span, 100.0 * w->c_cpu / w->span, w->rss_kib / 1024, rss_idle / 1024,
	       (double)(w->rss_kib - rss_idle) / duels, w->fds, C.refused, la);
	printf("  a command on the server: CPU %.1f µs (clock; %.1f µs from /proc stat utime+stime, %.1f µs of it user "
	       "space), %s system calls, %s context switches (perf), %.2f context switches (/proc, every thread)\n",
	       w->s_cpu * 1e6 / n, w->s_cpu_stat * 1e6 / n, w->s_user_stat * 1e6 / n, sc, cs, (double)w->ctxt / n);
}

/* The soak's verdict. The settling is the first third of the samples, and at least until
 * as many duels have ended as are played (the random bots' duels run 1,000 to 1,700
 * commands, some 20 minutes at a command a second: until the first ones end, every room
 * holds a growing turn log and none has yet kept a finished one); after it, resident
 * memory must stay within 5% + 2 MiB of the first settled sample, at every sample, and
 * the descriptors within 8 + 1% of the duels. A run too short to settle has no verdict:
 * it fails, saying so. */
static int
soak_verdict(int duels)
{
	size_t first = nsamples / 3;
	long rss_ref, fd_ref, rss_max = 0, fd_max = 0;
	double slope;

	while (first < nsamples && samples[first].duels_ended < (uint64_t)duels)
		first++;
	if (nsamples < 3 || first + 3 > nsamples) {
		printf("soak: %zu samples, %" PRIu64 " of %d duels ended: too short to settle, no verdict (run it longer "
		       "or faster, SOAK_RATE): FAIL\n", nsamples, nsamples ? samples[nsamples - 1].duels_ended : 0, duels);
		return -1;
	}
	rss_ref = samples[first].rss_kib;
	fd_ref = samples[first].fds;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
	for (size_t i = first; i < nsamples; i++) {
		if (samples[i].rss_kib > rss_max)
			rss_max = samples[i].rss_kib;
		if (samples[i].fds > fd_max)
			fd_max = samples[i].fds;
		sx += samples[i].t;
		sy += (double)samples[i].rss_kib;
		sxx += samples[i].t * samples[i].t;
		sxy += samples[i].t * (double)samples[i].rss_kib;
		k++;
	}
	slope = k * sxx - sx * sx != 0 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) * 3600.0 : 0; /* KiB an hour */
	long rss_tol = rss_ref / 20 + 2048, fd_tol = 8 + duels / 100;
	bool rss_ok = rss_max <= rss_ref + rss_tol, fd_ok = fd_max <= fd_ref + fd_tol;
	printf("soak %d duels, %.0f s: after %.0f s settling, RSS %ld KiB at first, at most %ld (tolerance +%ld), "
	       "trend %+.0f KiB an hour: %s; descriptors %ld at first, at most %ld (tolerance +%ld): %s\n",
	       duels, samples[nsamples - 1].t, samples[first].t, rss_ref, rss_max, rss_tol, slope,
	       rss_ok ? "flat" : "GROWS", fd_ref, fd_max, fd_tol, fd_ok ? "no growth" : "GROWS");
	printf("soak: %s\n", rss_ok && fd_ok ? "PASS" : "FAIL");
	return rss_ok && fd_ok ? 0 : -1;
}

static int
round_of(const char *wizwar, int duels)
{
	bool failed = false;
	struct server_proc sp;
	struct rusage ru;
	clockid_t srv_clock;
	char la0[16];
	uint64_t t0;

	memset(&C.welcomed, 0, sizeof C - offsetof(struct crowd, welcomed));
	C.n = duels * 2;
	C.rate = opt.rate;
	/* samples of one window: its commands, with room for the pace's spread */
	C.cap = (size_t)(1.6 * duels * (opt.ramp ? 64 : opt.rate) *
	                 ((opt.secs > opt.ramp_secs ? opt.secs : opt.ramp_secs) + 5)) + 1000;
	C.lat = calloc(C.cap, sizeof *C.lat);
	C.lag = calloc(C.cap, sizeof *C.lag);
	C.admit = calloc((size_t)C.n, sizeof *C.admit);
	C.cl = calloc((size_t)C.n, sizeof *C.cl);
	if (!C.lat || !C.lag || !C.admit || !C.cl)
		return -1;
	if (spawn_server(wizwar, &sp) != 0)
		return -1;
	if (clock_getcpuclockid(sp.pid, &srv_clock) != 0) {
		fprintf(stderr, "bench_crowd: no CPU clock for the server\n");
		return -1;
	}
	loadavg(la0, sizeof la0);
	long rss_idle = rss_kib(sp.pid);
	double s_cpu0 = cpu_clock_s(srv_clock), c_cpu0 = self_cpu_s();

	uv_timer_t beats;
	uv_timer_init(C.loop, &beats);
	uv_timer_start(&beats, on_heartbeats, HEARTBEAT_CHECK_MS, HEARTBEAT_CHECK_MS);

	/* 1. Everyone at once. */
	C.nnodes = 1;
	C.naddr = (C.n + PER_ADDR - 1) / PER_ADDR;
	t0 = now_ns();
	for (int i = 0; i < C.n; i++) {
		if ((C.cl[i] = calloc(1, sizeof *C.cl[i])) == NULL || client_start(C.cl[i], i, 0) != 0)
			return -1;
	}
	run_for(ADMIT_LIMIT_MS, all_settled);
	double all_in = (double)(now_ns() - t0) / 1e9;
	double s_cpu_admit = cpu_clock_s(srv_clock) - s_cpu0, c_cpu_admit = self_cpu_s() - c_cpu0;
	int welcomed = C.welcomed, dropped = C.dropped;
	uint64_t *adm = malloc((size_t)C.n * sizeof *adm);
	size_t nadm = 0;
	for (int i = 0; i < C.n; i++)
		if (C.cl[i]->welcomed)
			adm[nadm++] = C.admit[i];
	printf("crowd %5d duels: %d connections at once: %d welcomed in %.2f s (connect to WELCOME median %.0f ms, "
	       "p99 %.0f ms, max %.0f ms), %d dropped%s%s; server CPU %.2f s, crowd CPU %.2f s; load %s\n",
	       duels, C.n, welcomed, all_in, pct_ms(adm, nadm, 0.5), pct_ms(adm, nadm, 0.99), pct_ms(adm, nadm, 1.0),
	       dropped, dropped ? " (last: " : "", dropped ? C.last_error : "", s_cpu_admit, c_cpu_admit, la0);
	if (dropped)
		printf(")\n");
	free(adm);

	/* 2. Play at a human pace. */
	run_for(ADMIT_LIMIT_MS, all_started);
	run_for((uint64_t)opt.warm * 1000, NULL);
	int drop0 = C.dropped;
	struct window w;
	measure(&sp, duels, opt.secs, opt.sample, &w);
	print_window(duels, "", &w, rss_idle);
	if (opt.sample && soak_verdict(duels) != 0)
		failed = true;
	if (opt.sample && C.dropped > drop0) {
		/* Fewer players hold fewer descriptors and less memory: a soak that lost some proves nothing. */
		printf("soak: %d players dropped during the soak: FAIL\n", C.dropped - drop0);
		failed = true;
	}
	if (C.dropped > drop0)
		printf("  last drop: %s\n", C.last_error);
	/* 3. The ceiling of one loop: the pace raised by half again each step until the own
	 * update's p99 passes 100 ms or the commands answered fall behind the pace. */
	for (double r = opt.rate * 1.5; opt.ramp && r <= 64; r *= 1.5) {
		char tag[32];
		C.rate = r;
		run_for(3000, NULL);
		measure(&sp, duels, opt.ramp_secs, 0, &w);
		snprintf(tag, sizeof tag, " at %.2f a second a duel", r);
		print_window(duels, tag, &w, rss_idle);
		if (w.p99_ms > 100 || w.per_s < 0.9 * w.paced)
			break;
	}
	uv_close((uv_handle_t *)&beats, NULL);
	close_all();
	stop_server(&sp, &ru);
	printf("crowd %5d duels: server process in all: CPU %.2f s user + %.2f s system, max RSS %ld MiB\n", duels,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss / 1024);
	fflush(stdout);
	free(C.lat);
	free(C.lag);
	free(C.admit);
	return welcomed == C.n && !failed ? 0 : 1;
}

static const char usage[] =
    "usage: bench_crowd WIZWAR [DUELS...] [--warm S] [--secs S] [--rate R] [--ramp [S]] [--sample S]\n"
    "                  [--tmp DIR] [--arg ARG]...\n"
    "Runs `WIZWAR server` afresh for each number of duels (default 250): all 2 x DUELS players\n"
    "connect at once, then play at R commands a second a duel (default 1); SECS measured\n"
    "(default 10) after a warm-up of S (default 5): the own update's median and p99, and the\n"
    "server's CPU, system calls and context switches a command (perf stat where it works).\n"
    "--ramp: then the pace raised by half again each step (S seconds each, default 10) until the\n"
    "p99 passes 100 ms or the pace is not kept: the ceiling of one loop. --sample S: the soak:\n"
    "the server's RSS and descriptors read every S seconds, and a verdict (exit 1 if either grows\n"
    "after the first third). The server's key and turn logs go to a directory made in DIR\n"
    "(default /tmp) and removed after; --arg passes ARG on to `WIZWAR server`. Exits 1 if a\n"
    "connection was not admitted.\n";

int
main(int argc, char **argv)
{
	static uv_loop_t loop;
	struct rlimit rl;
	int sizes[16], nsizes = 0, rc = 0;

	if (argc < 2 || strcmp(argv[1], "--help") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--warm") == 0 && i + 1 < argc)
			opt.warm = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0)
			opt.rate = atof(argv[++i]);
		else if (strcmp(argv[i], "--sample") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
			opt.sample = (unsigned)atoi(argv[++i]);
		else if (strcmp(argv[i], "--ramp") == 0) {
			opt.ramp = true;
			if (i + 1 < argc && argv[i + 1][0] != '-' && atoi(argv[i + 1]) > 0 && atoi(argv[i + 1]) < 600)
				opt.ramp_secs = (unsigned)atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--arg") == 0 && i + 1 < argc && nextra < 8)
			extra_args[nextra++] = argv[++i];
		else if (strcmp(argv[i], "--tmp") == 0 && i + 1 < argc)
			tmp_dir = argv[++i];
		else if (strcmp(argv[i], "--secs") == 0 && i + 1 < argc)
			opt.secs = (unsigned)atoi(argv[++i]);
		else if (atoi(argv[i]) > 0 && nsizes < 16)
			sizes[nsizes++] = atoi(argv[i]);
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (nsizes == 0)
		sizes[nsizes++] = 250;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		printf("bench_crowd: file limit %llu; pid %d\n", (unsigned long long)rl.rlim_cur, (int)getpid());
	}
	if (auth_init() != 0)
		return 1;
	uv_loop_init(&loop);
	C.loop = &loop;
	for (int k = 0; k < nsizes; k++)
		if (round_of(argv[1], sizes[k]) != 0)
			rc = 1;
	uv_loop_close(&loop);
	return rc;
}
