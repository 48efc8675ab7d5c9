/* SPDX-License-Identifier: MIT */
/* bench_ladder: the bot levels rated on one Glicko-2 scale (server/glicko.c, lichess's parameters) from selfplay. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "glicko.h"
#include "view.h"

/*
 * Every level meets every other level, rounds of one duel a pairing with the seats
 * alternating, so that all ratings move together as a population's would; each duel is
 * rated at once as lichess rates a game (no rating period: periods 0), every level starting
 * as a new player (1500 +- 500). Usage: bench_ladder [ROUNDS [SIZE [MASTER_ROUNDS]]]:
 * ROUNDS duels a pairing (default 200) at SIZE x SIZE (default 25); master, a hundred times
 * slower a move, plays MASTER_ROUNDS of them (default 40). Deterministic: duel k of a pairing
 * has seed 500000 + 1000 * pairing + k.
 */

static int
duel(const struct options *o, uint64_t seed, const int level[PLAYERS])
{
	static struct game g;
	static struct view v;
	struct rng r[PLAYERS];
	struct cmd c;

	if (game_init(&g, o, seed) != ERR_OK)
		return -1;
	for (int p = 0; p < PLAYERS; p++)
		rng_seed(&r[p], rng_mix64(seed ^ (0x1adde7ULL + (uint64_t)p)));
	while (g.result == RESULT_NONE) {
		int p = g.turn;
		view_build(&g, p, &v);
		bot_choose(&v, level[p], &r[p], &c);
		if (game_apply(&g, p, &c, NULL) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			if (game_apply(&g, p, &c, NULL) != ERR_OK)
				return -1;
		}
	}
	return g.result;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200, size = argc > 2 ? atoi(argv[2]) : 25;
	int master_rounds = argc > 3 ? atoi(argv[3]) : 40;
	struct glicko_params gp = glicko_lichess();
	struct glicko rating[BOT_LEVEL_COUNT];
	long games[BOT_LEVEL_COUNT] = { 0 }, score2[BOT_LEVEL_COUNT][BOT_LEVEL_COUNT] = { { 0 } };
	long met[BOT_LEVEL_COUNT][BOT_LEVEL_COUNT] = { { 0 } };
	struct options o;

	if (rounds < 1 || size < LEVEL_MIN || size > LEVEL_MAX || size % 2 == 0 || master_rounds < 0) {
		fprintf(stderr, "usage: bench_ladder [ROUNDS [SIZE [MASTER_ROUNDS]]]\n");
		return 2;
	}
	options_default(&o);
	o.size = (uint8_t)size;
	for (int l = 0; l < BOT_LEVEL_COUNT; l++)
		rating[l] = gp.start;
	for (int k = 0; k < rounds; k++) {
		int pairing = 0;
		for (int a = 0; a < BOT_LEVEL_COUNT; a++)
			for (int b = a + 1; b < BOT_LEVEL_COUNT; b++, pairing++) {
				if ((a == BOT_MASTER || b == BOT_MASTER) && k >= master_rounds)
					continue;
				int level[PLAYERS], pa = k % 2;
				level[pa] = a;
				level[1 - pa] = b;
				int r = duel(&o, 500000 + 1000 * (uint64_t)pairing + (uint64_t)k, level);
				if (r < 0) {
					fprintf(stderr, "bench_ladder: %s vs %s: a duel could not go on\n", bot_level_name(a),
					    bot_level_name(b));
					return 1;
				}
				/* a's score: 1 a win, 0.5 a draw, 0 a loss (in halves for the table). */
				int half = r == RESULT_DRAW ? 1 : ((r == RESULT_WIN0) == (pa == 0)) ? 2 : 0;
				struct glicko na, nb;
				if (!glicko_duel(&gp, rating[a], rating[b], half / 2.0, 0.0, &na, &nb)) {
					fprintf(stderr, "bench_ladder: the rating did not converge\n");
					return 1;
				}
				rating[a] = na;
				rating[b] = nb;
				games[a]++;
				games[b]++;
				score2[a][b] += half;
				score2[b][a] += 2 - half;
				met[a][b]++;
				met[b][a]++;
			}
	}
	printf("# the bot levels on one Glicko-2 scale (lichess's parameters), %dx%d, %d duels a pairing (master %d)\n",
	    size, size, rounds, master_rounds < rounds ? master_rounds : rounds);
	printf("| level | rating | deviation | duels | provisional |\n| --- | ---: | ---: | ---: | --- |\n");
	int order[BOT_LEVEL_COUNT];
	for (int l = 0; l < BOT_LEVEL_COUNT; l++)
		order[l] = l;
	for (int i = 1; i < BOT_LEVEL_COUNT; i++)
		for (int j = i; j > 0 && rating[order[j]].rating > rating[order[j - 1]].rating; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < BOT_LEVEL_COUNT; i++) {
		int l = order[i];
		printf("| %s | %.0f | %.0f | %ld | %s |\n", bot_level_name(l), rating[l].rating, rating[l].deviation, games[l],
		    glicko_provisional(&gp, rating[l]) ? "yes" : "no");
	}
	printf("\n# the row's score against the column (wins + draws/2), and what the ratings expect\n| |");
	for (int b = 0; b < BOT_LEVEL_COUNT; b++)
		printf(" %s |", bot_level_name(order[b]));
	printf("\n| --- |");
	for (int b = 0; b < BOT_LEVEL_COUNT; b++)
		printf(" ---: |");
	printf("\n");
	for (int i = 0; i < BOT_LEVEL_COUNT; i++) {
		int a = order[i];
		printf("| %s |", bot_level_name(a));
		for (int j = 0; j < BOT_LEVEL_COUNT; j++) {
			int b = order[j];
			if (a == b || met[a][b] == 0)
				printf(" - |");
			else
				printf(" %.0f%% (%.0f%%) |", 50.0 * (double)score2[a][b] / (double)met[a][b],
				    100.0 * glicko_expect(rating[a], rating[b]));
		}
		printf("\n");
	}
	return 0;
}
