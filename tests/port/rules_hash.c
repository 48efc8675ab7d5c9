/* SPDX-License-Identifier: MIT */
/* rules_hash: `wizwar selfplay`'s duels and combined hash from the rules and bots alone, for a build (-m32) without the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "level.h"
#include "view.h"

/* The loop of client/cmd_selfplay.c's play_one(), without narration and logs: the same bots, seeded
 * the same way, told the same things, so that the same arguments give the same combined hash
 * (tests/port/compare.sh checks it against the real program in every 64-bit build). */
static uint64_t
play_one(const struct options *opt, const int bots[PLAYERS], uint64_t seed, struct game *g)
{
	struct rng brng[PLAYERS];
	struct bot_mind mind[PLAYERS];
	struct events ev;
	struct view v;
	struct cmd c;

	if (game_init(g, opt, seed) != ERR_OK) {
		fprintf(stderr, "rules_hash: game_init refused seed %" PRIu64 "\n", seed);
		exit(1);
	}
	for (int p = 0; p < PLAYERS; p++) {
		rng_seed(&brng[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		mind_reset(&mind[p]);
	}
	while (g->result == RESULT_NONE) {
		int p = g->turn;
		view_build(g, p, &v);
		bot_choose_mind(&v, bots[p], &brng[p], &mind[p], &c);
		if (game_apply(g, p, &c, &ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			if (game_apply(g, p, &c, &ev) != ERR_OK) {
				fprintf(stderr, "rules_hash: the rules refused a pass: a bug\n");
				abort();
			}
		}
		for (int q = 0; q < PLAYERS; q++)
			if (bots[q] == BOT_MASTER) {
				view_build_after(g, q, &ev, &v);
				mind_told(&mind[q], &v, &ev, p);
			}
	}
	return game_hash(g);
}

/* A decimal in [lo, hi], all of the word. */
static int
number(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long n = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n < lo || n > hi)
		return -1;
	*out = n;
	return 0;
}

static int
usage(void)
{
	fputs("usage: rules_hash budgets\n"
	      "       rules_hash selfplay --games N --seed S --bots A,B --size N --quiet\n"
	      "  budgets: the master level's budget at every level size, one line each\n"
	      "  selfplay: the last line `wizwar selfplay` prints for the same arguments\n", stderr);
	return 2;
}

int
main(int argc, char **argv)
{
	static struct game g; /* large */
	struct options opt;
	int bots[PLAYERS] = { BOT_RANDOM, BOT_RANDOM };
	long long games = 1, seed = 1, size;
	uint64_t combined = 0;

	if (argc == 2 && strcmp(argv[1], "budgets") == 0) {
		for (int s = LEVEL_MIN; s <= LEVEL_MAX; s += 2)
			printf("budget %d %ld\n", s, bot_master_budget(s));
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "selfplay") != 0)
		return usage();
	options_default(&opt);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *b = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--quiet") == 0)
			continue;
		if (b == NULL)
			return usage();
		i++;
		if (strcmp(a, "--games") == 0 && number(b, 1, 1000000, &games) == 0)
			continue;
		if (strcmp(a, "--seed") == 0 && number(b, 0, INT64_MAX, &seed) == 0)
			continue;
		if (strcmp(a, "--size") == 0 && number(b, LEVEL_MIN, LEVEL_MAX, &size) == 0 && size % 2 == 1) {
			opt.size = (uint8_t)size;
			continue;
		}
		if (strcmp(a, "--bots") == 0) {
			char first[16];
			const char *comma = strchr(b, ',');
			if (comma && (size_t)(comma - b) < sizeof first) {
				memcpy(first, b, (size_t)(comma - b));
				first[comma - b] = '\0';
				if ((bots[0] = bot_level_lookup(first)) >= 0 && (bots[1] = bot_level_lookup(comma + 1)) >= 0)
					continue;
			}
		}
		fprintf(stderr, "rules_hash: bad argument %s %s\n", a, b);
		return usage();
	}
	for (long long i = 0; i < games; i++)
		combined = rng_mix64(combined ^ play_one(&opt, bots, (uint64_t)seed + (uint64_t)i, &g));
	printf("combined hash %016" PRIx64 "\n", combined);
	return 0;
}
