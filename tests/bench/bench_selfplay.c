/* bench_selfplay: whole headless duels per second on one core, and the cost of one command. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bot.h"
#include "game.h"
#include "view.h"

#define GAMES 60
#define REPS 3

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Plays `games` random-vs-random duels from `seed` on; returns commands applied. */
static long
play(int size, uint64_t seed, int games, double *apply_s, double *view_s)
{
	static struct game g;
	struct options o;
	struct events ev;
	struct view v;
	struct rng brng;
	struct cmd c;
	long commands = 0;

	options_default(&o);
	o.size = (uint8_t)size;
	*apply_s = *view_s = 0;
	for (int i = 0; i < games; i++) {
		game_init(&g, &o, seed + (uint64_t)i);
		rng_seed(&brng, seed ^ 0x5e1f);
		while (g.result == RESULT_NONE) {
			double t0 = now();
			view_build(&g, g.turn, &v);
			bot_choose(&v, BOT_RANDOM, &brng, &c);
			double t1 = now();
			if (game_apply(&g, g.turn, &c, &ev) != ERR_OK) {
				c = (struct cmd){ CMD_PASS, 0, 0 };
				game_apply(&g, g.turn, &c, &ev);
			}
			*view_s += t1 - t0;
			*apply_s += now() - t1;
			commands++;
		}
	}
	return commands;
}

int
main(void)
{
	static const int sizes[] = { 25, 51 };

	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		double gps[REPS], apply_us[REPS], view_us[REPS];
		long commands = 0;
		for (int r = 0; r < REPS; r++) {
			double a, v, t0 = now();
			commands = play(sizes[s], 1000, GAMES, &a, &v);
			double el = now() - t0;
			gps[r] = GAMES / el;
			apply_us[r] = a * 1e6 / (double)commands;
			view_us[r] = v * 1e6 / (double)commands;
		}
		qsort(gps, REPS, sizeof gps[0], cmp);
		qsort(apply_us, REPS, sizeof apply_us[0], cmp);
		qsort(view_us, REPS, sizeof view_us[0], cmp);
		printf("selfplay size=%d games=%d commands=%ld games_per_s=%.1f us_per_game_apply=%.2f "
		       "us_per_view_and_bot=%.2f (median of %d, one core)\n",
		    sizes[s], GAMES, commands, gps[REPS / 2], apply_us[REPS / 2], view_us[REPS / 2], REPS);
	}
	return 0;
}
