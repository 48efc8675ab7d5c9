/* SPDX-License-Identifier: MIT */
/* bench_mem: server memory per playing duel, measured on a fresh `wizwar server` process, and bytes per duel. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bot.h"
#include "net.h"
#include "netbot.h"
#include "procstat.h"
#include "spawn.h"

/*
 * Usage: bench_mem WIZWAR [duels [seconds]]
 * Starts WIZWAR server (the real executable, turn logs on disk, as a host runs it) in a
 * process of its own, reads its resident memory while it is idle, then plays `duels` (100)
 * rooms of two network bots over loopback for `seconds` (150) of play: normal bots that
 * think 300 ms plus 0..900 ms (drawn per command) before each command, so that rooms
 * are out of step as people's are; a finished duel is followed by a rematch. The server's
 * VmRSS is read every second. Reported: the growth over idle, per duel, at the end of
 * the run (every room still playing or between duels) and at its peak, and the bytes on
 * the wire of a whole duel cycle (START to the next START, both directions, records and
 * their tags, no TCP/IP headers), over the cycles that finished.
 */

#define THINK_MS 300
#define JITTER_MS 900

struct fleet {
	struct netbot *bots;
	uint64_t *mark;         /* each bot's bytes at its last START; 0: none yet */
	int n;
	uint64_t cycle_bytes;   /* START to the next START, summed over bots */
	unsigned cycles;        /* bot cycles: two a room's duel */
	unsigned ends;
	unsigned refused, errors;
	pid_t server;
	long rss0, peak, anon0;
	int seconds, left;
	uv_timer_t tick;
};

static struct fleet F;

static uint64_t
bytes_of(struct netbot *b)
{
	uint64_t in = 0, out = 0;

	net_bytes(b->net, &in, &out);
	return in + out;
}

static void
on_start(void *ud, struct netbot *b, const struct view *v, bool resumed)
{
	int i = (int)(intptr_t)ud;
	uint64_t now = bytes_of(b);

	(void)v;
	(void)resumed;
	if (F.mark[i]) {
		F.cycle_bytes += now - F.mark[i];
		F.cycles++;
	}
	F.mark[i] = now ? now : 1;
}

static void
on_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	(void)ud;
	(void)b;
	(void)e;
	(void)why;
	F.ends++;
	if (!verified)
		F.errors++;
}

static void
on_tick(uv_timer_t *t)
{
	long r = rss_kib(F.server);

	if (r < 0) {
		fprintf(stderr, "bench_mem: the server is gone\n");
		exit(1);
	}
	if (r > F.peak)
		F.peak = r;
	if (--F.left % 30 == 0 && F.left > 0)
		printf("  %3d s: server RSS %ld KiB (+%.1f KiB a duel), %u duels finished\n", F.seconds - F.left, r,
		       (double)(r - F.rss0) / (F.n / 2), F.ends / 2);
	if (F.left <= 0)
		uv_stop(t->loop);
}

static pid_t
spawn_server(const char *wizwar, const char *dir, int duels, int *port, char *fp, size_t fplen)
{
	char logs[512], err[512], rooms[16], per[16];
	const char *args[] = { "--max-rooms", rooms, "--max-per-addr", per };
	pid_t pid;

	snprintf(logs, sizeof logs, "%s/logs", dir);
	snprintf(err, sizeof err, "%s/server.log", dir);
	snprintf(rooms, sizeof rooms, "%d", duels + 8);
	snprintf(per, sizeof per, "%d", 2 * duels + 8);
	if ((pid = spawn_wizwar(wizwar, logs, dir, err, args, 4, port, fp, fplen)) < 0)
		exit(1);
	return pid;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/bench_mem.XXXXXX", fp[64], why[256], cmd[600];
	static char names[2][32];
	struct rlimit rl;
	uv_loop_t loop;
	int port, duels, seconds;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_mem WIZWAR [duels [seconds]]\n");
		return 2;
	}
	duels = argc > 2 ? atoi(argv[2]) : 100;
	seconds = argc > 3 ? atoi(argv[3]) : 150;
	if (duels < 1 || seconds < 1)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mkdtemp(dir) == NULL)
		return 1;
	F.server = spawn_server(argv[1], dir, duels, &port, fp, sizeof fp);
	nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
	F.rss0 = F.peak = rss_kib(F.server);
	F.anon0 = status_kib(F.server, "RssAnon");
	printf("bench_mem: %s server, pid %d, 127.0.0.1:%d; idle: RSS %ld KiB, anonymous %ld KiB; %d duels for %d s\n",
	       argv[1], (int)F.server, port, F.rss0, F.anon0, duels, seconds);

	uv_loop_init(&loop);
	F.n = 2 * duels;
	F.bots = calloc((size_t)F.n, sizeof *F.bots);
	F.mark = calloc((size_t)F.n, sizeof *F.mark);
	for (int i = 0; i < F.n; i++) {
		struct netbot_config bc;
		char room[32];
		memset(&bc, 0, sizeof bc);
		net_config_default(&bc.net);
		bc.net.create_room = true;
		bc.net.host = "127.0.0.1";
		bc.net.port = port;
		bc.net.fingerprint = fp;
		snprintf(names[i & 1], sizeof names[0], "mem%d", i);
		snprintf(room, sizeof room, "m%d", i / 2);
		bc.net.name = names[i & 1];
		bc.net.room = room;
		bc.level = BOT_NORMAL;
		bc.seed = (uint64_t)i + 1;
		bc.think_ms = THINK_MS;
		bc.jitter_ms = JITTER_MS;
		bc.ready = true;
		bc.quiet = true;
		bc.ud = (void *)(intptr_t)i;
		bc.on_start = on_start;
		bc.on_end = on_end;
		if (netbot_start(&F.bots[i], &loop, &bc, why, sizeof why) != 0) {
			fprintf(stderr, "bench_mem: %s\n", why);
			return 1;
		}
		/* Each room's creator first. */
		for (int k = 0; k < 4; k++)
			uv_run(&loop, UV_RUN_NOWAIT);
	}
	F.seconds = F.left = seconds;
	uv_timer_init(&loop, &F.tick);
	uv_timer_start(&F.tick, on_tick, 1000, 1000);
	uv_run(&loop, UV_RUN_DEFAULT);

	long rss1 = rss_kib(F.server), anon1 = status_kib(F.server, "RssAnon");
	int playing = 0;
	for (int i = 0; i < F.n; i++)
		playing += net_phase(F.bots[i].net) == NET_PLAYING;
	printf("bench_mem: after %d s: server RSS %ld KiB, %+.1f KiB a duel (%d of %d players in a duel); "
	       "peak %ld KiB, %+.1f KiB a duel\n",
	       seconds, rss1, (double)(rss1 - F.rss0) / duels, playing, F.n, F.peak, (double)(F.peak - F.rss0) / duels);
	printf("bench_mem: anonymous RSS (heap) %ld KiB, %+.1f KiB a duel\n", anon1, (double)(anon1 - F.anon0) / duels);
	printf("bench_mem: %u duels finished (%u not verified); a duel cycle (START to the next START, both ways, "
	       "records): %.0f bytes over %u cycles\n",
	       F.ends / 2, F.errors, F.cycles ? 2.0 * (double)F.cycle_bytes / F.cycles : 0.0, F.cycles / 2);
	for (int i = 0; i < F.n; i++)
		netbot_stop(&F.bots[i]);
	uv_close((uv_handle_t *)&F.tick, NULL);
	kill(F.server, SIGTERM);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	waitpid(F.server, NULL, 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_mem: could not remove %s\n", dir);
	free(F.bots);
	free(F.mark);
	return F.ends == 0 || F.errors ? 1 : 0;
}
