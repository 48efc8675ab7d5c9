/* SPDX-License-Identifier: MIT */
/* bench_master: the master bot against another level: win rate, duel length, and its time
 * per call (mean, 99th percentile, worst), with the seats alternating between duels.
 *
 *   bench_master [DUELS [SIZE [SIMS [OPPONENT [SEED]]]]]
 *
 * Defaults: 1000 duels at 25x25, bot_master_budget(SIZE) played-out duels per call (as
 * bot_choose() gives it; 0 means the same), against hard, seeds from 1. The measurement is the default (`meson test -C build --benchmark master`);
 * it takes about an hour and a half of one core. Times are CPU time of this thread
 * (CLOCK_THREAD_CPUTIME_ID), so a busy machine does not inflate them; the wall time of
 * the same calls is printed too. Also prints the rules' own speed inside the search:
 * played-out duels per second and commands applied per second. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "view.h"

#define BUCKET_US 100 /* 0.1 ms buckets up to 2 s */
#define BUCKETS 20000

struct timing {
	uint64_t calls;
	double total_ms, max_ms;
	uint32_t hist[BUCKETS + 1];
};

static double
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
timing_add(struct timing *t, double ms)
{
	long b = (long)(ms * 1000.0 / BUCKET_US);

	t->calls++;
	t->total_ms += ms;
	if (ms > t->max_ms)
		t->max_ms = ms;
	t->hist[b < BUCKETS ? b : BUCKETS]++;
}

static double
timing_pct(const struct timing *t, double pct)
{
	uint64_t want = (uint64_t)((double)t->calls * pct / 100.0), seen = 0;

	for (long b = 0; b <= BUCKETS; b++) {
		seen += t->hist[b];
		if (seen > want)
			return b == BUCKETS ? t->max_ms : (double)(b + 1) * BUCKET_US / 1000.0;
	}
	return t->max_ms;
}

static struct timing cpu, wall;

static void
report(long done, int size, int sims, int opp, long won, long lost, long drawn, uint64_t turns, long limit, long searched,
    long rollouts, double search_ms, double t_start)
{
	double total = clock_ms(CLOCK_THREAD_CPUTIME_ID) - t_start;
	printf("master (%d sims a call) vs %s, %ld duels at %dx%d: master won %ld (%.1f%%), lost %ld, drawn %ld;"
	       " %.1f turns a duel; %ld reached the turn limit\n",
	    sims, bot_level_name(opp), done, size, size, won, 100.0 * (double)won / (double)done, lost, drawn,
	    (double)turns / (double)done, limit);
	printf("master time a call, CPU: mean %.2f ms, 99th percentile %.2f ms, worst %.2f ms over %" PRIu64 " calls\n",
	    cpu.total_ms / (double)cpu.calls, timing_pct(&cpu, 99), cpu.max_ms, cpu.calls);
	printf("master time a call, wall: mean %.2f ms, 99th percentile %.2f ms, worst %.2f ms\n",
	    wall.total_ms / (double)wall.calls, timing_pct(&wall, 99), wall.max_ms);
	printf("searched %ld of %" PRIu64 " calls; %ld duels played out, %.0f a second of CPU (%.1f us each, the plans"
	       " and the drawing of games included)\n",
	    searched, cpu.calls, rollouts, search_ms > 0 ? (double)rollouts / (search_ms / 1000.0) : 0.0,
	    rollouts > 0 ? search_ms * 1000.0 / (double)rollouts : 0.0);
	printf("whole run: %.1f s CPU\n", total / 1000.0);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	long duels = argc > 1 ? atol(argv[1]) : 1000;
	int size = argc > 2 ? atoi(argv[2]) : 25;
	int sims = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : bot_master_budget(size);
	int opp = argc > 4 ? bot_level_lookup(argv[4]) : BOT_HARD;
	uint64_t base = argc > 5 ? strtoull(argv[5], NULL, 0) : 1;
	static struct game g;
	static struct view v;
	struct options o;
	long won = 0, lost = 0, drawn = 0, limit = 0, searched = 0, rollouts = 0;
	double search_ms = 0;
	uint64_t turns = 0;

	if (duels < 1 || opp < 0 || sims < 0) {
		fprintf(stderr, "usage: bench_master [DUELS [SIZE [SIMS [OPPONENT [SEED]]]]]\n");
		return 2;
	}
	options_default(&o);
	o.size = (uint8_t)size;
	if (options_check(&o) != ERR_OK) {
		fprintf(stderr, "bench_master: bad size %d\n", size);
		return 2;
	}
	double t_start = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < duels; i++) {
		uint64_t seed = base + (uint64_t)i;
		int master_seat = (int)(i & 1);
		struct rng r[PLAYERS];
		struct cmd c;

		game_init(&g, &o, seed);
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			view_build(&g, p, &v);
			if (p == master_seat) {
				double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ms(CLOCK_MONOTONIC);
				int played = bot_master_choose(&v, &r[p], sims, &c);
				double spent = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
				timing_add(&cpu, spent);
				if (played > 0) {
					searched++;
					rollouts += played;
					search_ms += spent;
				}
				timing_add(&wall, clock_ms(CLOCK_MONOTONIC) - w0);
			} else {
				bot_choose(&v, opp, &r[p], &c);
			}
			if (game_apply(&g, p, &c, NULL) != ERR_OK) {
				struct cmd pass = { CMD_PASS, 0, 0 };
				fprintf(stderr, "bench_master: seed %" PRIu64 ": %s refused\n", seed, p == master_seat ? "master" : "opponent");
				game_apply(&g, p, &pass, NULL);
			}
		}
		turns += g.turn_no;
		limit += g.end_reason == END_TURN_LIMIT;
		if (g.result == RESULT_DRAW)
			drawn++;
		else if ((g.result == RESULT_WIN0) == (master_seat == 0))
			won++;
		else
			lost++;
		if ((i + 1) % 10 == 0 || i + 1 == duels)
			report(i + 1, size, sims, opp, won, lost, drawn, turns, limit, searched, rollouts, search_ms, t_start);
	}
	return 0;
}
