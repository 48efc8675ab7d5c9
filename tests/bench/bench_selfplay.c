/* SPDX-License-Identifier: MIT */
/* bench_selfplay [GAMES]: whole headless duels per second on one core, the rules alone
 * (simulations per second, as a searching bot would run them), the CPU cost of one
 * game_apply, and that of unpacking a duel held packed and packing it again (gpack), as
 * the server does around each command. GAMES duels per size, 60 unless given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "game.h"
#include "gpack.h"
#include "view.h"

#define REPS 3

/* The process's CPU time: the wall clock would count the time other work held the core. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof v[0], cmp);
	return v[n / 2];
}

/* Every command of the duels, in order, to replay the rules alone. */
struct played {
	long n, cap;
	struct cmd *cmd;
	uint8_t *player;
};

static void
record(struct played *pl, int p, const struct cmd *c)
{
	if (pl->n == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 1 << 16;
		pl->cmd = realloc(pl->cmd, (size_t)pl->cap * sizeof *pl->cmd);
		pl->player = realloc(pl->player, (size_t)pl->cap);
		if (!pl->cmd || !pl->player) {
			perror("bench_selfplay");
			exit(1);
		}
	}
	pl->cmd[pl->n] = *c;
	pl->player[pl->n++] = (uint8_t)p;
}

/* Plays `games` random-vs-random duels from `seed` on, as a server would run them: after
 * each command the mover's view comes from the command's own sight (view_build_after).
 * Records the commands applied in `pl` when it is not NULL; returns the final hashes' xor. */
static uint64_t
play(int size, uint64_t seed, int games, struct played *pl)
{
	static struct game g;
	struct options o;
	struct events ev;
	struct view v;
	struct rng brng;
	struct cmd c;
	uint64_t h = 0;

	options_default(&o);
	o.size = (uint8_t)size;
	for (int i = 0; i < games; i++) {
		game_init(&g, &o, seed + (uint64_t)i);
		rng_seed(&brng, seed ^ 0x5e1f);
		view_build(&g, g.turn, &v);
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			bot_choose(&v, BOT_RANDOM, &brng, &c);
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				c = (struct cmd){ CMD_PASS, 0, 0 };
				game_apply(&g, p, &c, &ev);
			}
			if (pl)
				record(pl, p, &c);
			view_build_after(&g, g.turn, &ev, &v);
		}
		h ^= game_hash(&g);
	}
	return h;
}

/* The recorded duels again, the rules alone: game_init and game_apply. With `each` it
 * times every game_apply on its own into each[]. With `packed` it holds the game packed
 * between commands as the server does (a second game is unpacked into the scratch
 * between two commands, as another room's would be), times each unpack + pack into
 * packed[] and records the packed sizes in bytes[]. Returns the final hashes' xor. */
static uint64_t
replay(int size, uint64_t seed, int games, const struct played *pl, double *each, double *packed, double *bytes)
{
	static struct game g, scratch, other;
	static uint8_t held[GPACK_MAX], out[GPACK_MAX], other_held[GPACK_MAX];
	size_t held_len = 0, other_len = 0;
	struct options o;
	struct events ev;
	uint64_t h = 0;
	long k = 0;

	options_default(&o);
	o.size = (uint8_t)size;
	if (packed) {
		game_init(&other, &o, seed ^ 0xa11);
		other_len = gpack_pack(&other, other_held);
	}
	for (int i = 0; i < games; i++) {
		game_init(&g, &o, seed + (uint64_t)i);
		if (packed)
			held_len = gpack_pack(&g, held);
		while (g.result == RESULT_NONE && k < pl->n) {
			struct game *at = &g;
			double t0, t1 = 0;
			if (packed) {
				gpack_unpack(other_held, other_len, &scratch); /* another room's turn, untimed */
				t0 = now();
				if (gpack_unpack(held, held_len, &scratch) != 0)
					exit(1);
				t1 = now() - t0;
				at = &scratch;
			}
			t0 = each ? now() : 0;
			int err = game_apply(at, pl->player[k], &pl->cmd[k], &ev);
			if (each)
				each[k] = now() - t0;
			if (packed) {
				t0 = now();
				held_len = gpack_pack(at, out);
				memcpy(held, out, held_len);
				packed[k] = t1 + now() - t0;
				bytes[k] = (double)held_len;
				g = scratch;
			}
			if (err != ERR_OK) {
				fprintf(stderr, "bench_selfplay: command %ld refused on replay\n", k);
				exit(1);
			}
			k++;
		}
		h ^= game_hash(&g);
	}
	return h;
}

int
main(int argc, char **argv)
{
	static const int sizes[] = { 25, 51 };
	const uint64_t seed = 1000;
	const int games = argc > 1 ? atoi(argv[1]) : 60;

	if (games < 1 || games > 100000) {
		fprintf(stderr, "usage: bench_selfplay [GAMES]\n");
		return 2;
	}

	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int size = sizes[s];
		struct played pl = { 0 };
		double whole[REPS], rules[REPS], init[REPS];
		uint64_t h = play(size, seed, games, &pl);

		for (int r = 0; r < REPS; r++) {
			double t0 = now();
			if (play(size, seed, games, NULL) != h)
				return 1;
			whole[r] = now() - t0;
			t0 = now();
			if (replay(size, seed, games, &pl, NULL, NULL, NULL) != h)
				return 1;
			rules[r] = now() - t0;
			static struct game g;
			struct options o;
			options_default(&o);
			o.size = (uint8_t)size;
			t0 = now();
			for (int i = 0; i < games; i++)
				game_init(&g, &o, seed + (uint64_t)i);
			init[r] = now() - t0;
		}

		/* One game_apply at a time: the clock's own cost, read back to back, is taken off. */
		double *each = malloc((size_t)pl.n * sizeof *each), clock_cost[1001];
		if (!each)
			return 1;
		for (int i = 0; i < 1001; i++) {
			double t0 = now();
			clock_cost[i] = now() - t0;
		}
		double overhead = median(clock_cost, 1001);
		if (replay(size, seed, games, &pl, each, NULL, NULL) != h)
			return 1;
		for (long i = 0; i < pl.n; i++)
			each[i] -= overhead;
		qsort(each, (size_t)pl.n, sizeof each[0], cmp);
		/* Unpack + pack around each command: two clock reads each, so twice the clock's cost off. */
		double *pk = malloc((size_t)pl.n * sizeof *pk), *by = malloc((size_t)pl.n * sizeof *by);
		if (!pk || !by || replay(size, seed, games, &pl, NULL, pk, by) != h)
			return 1;
		for (long i = 0; i < pl.n; i++)
			pk[i] -= 2 * overhead;
		qsort(pk, (size_t)pl.n, sizeof pk[0], cmp);
		qsort(by, (size_t)pl.n, sizeof by[0], cmp);

		double w = median(whole, REPS), ru = median(rules, REPS), in = median(init, REPS);
		printf("selfplay size=%d games=%d commands=%ld (CPU time, median of %d, one core)\n", size, games, pl.n, REPS);
		printf("  with views and random bots: duels_per_s=%.1f us_per_command=%.2f\n", games / w, w * 1e6 / (double)pl.n);
		printf("  rules alone: duels_per_s=%.1f commands_per_s=%.0f us_per_game_apply=%.2f us_per_game_init=%.2f\n",
		    games / ru, (double)pl.n / (ru - in), (ru - in) * 1e6 / (double)pl.n, in * 1e6 / games);
		printf("  one game_apply timed alone: median_us=%.2f p90_us=%.2f p99_us=%.2f (clock cost %.2f us taken off)\n",
		    each[pl.n / 2] * 1e6, each[pl.n * 9 / 10] * 1e6, each[pl.n * 99 / 100] * 1e6, overhead * 1e6);
		printf("  held packed (gpack): unpack+pack per command median_us=%.2f p90_us=%.2f p99_us=%.2f; "
		    "packed bytes median=%.0f max=%.0f (struct game %zu)\n",
		    pk[pl.n / 2] * 1e6, pk[pl.n * 9 / 10] * 1e6, pk[pl.n * 99 / 100] * 1e6, by[pl.n / 2], by[pl.n - 1],
		    sizeof(struct game));
		fflush(stdout);
		free(pk);
		free(by);
		free(each);
		free(pl.cmd);
		free(pl.player);
	}
	return 0;
}
