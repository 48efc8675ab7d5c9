/* SPDX-License-Identifier: MIT */
/* bench_tune: hard's numbers (struct bot__weights) changed by name, played against hard
 * itself, to tune the numbers master plans its own turns by (docs/benchmarks.md, "A mind
 * between calls": none found beat hard's own).
 *
 *   bench_tune DUELS SIZE SEED PLAYER [NAME=VALUE ...]
 *   bench_tune names
 *
 * PLAYER is `hard` (hard's reckoning with those numbers: a duel costs about 6 ms, so
 * thousands of duels a minute), `mind` (the same reckoning given a mind, as master's own
 * plans are: hard's planner with the mind's belief, no search; as cheap, and the quick
 * proxy for master's unsearched turns) or `master` (the master search with those numbers
 * for its own plans, at bot_master_budget(SIZE), with a mind unless NOMIND is set in the
 * environment). The numbers start from hard's own; each NAME=VALUE sets one (`names`
 * lists them; heal0..heal4 and hurt0..hurt2 are the arrays). The seats alternate between
 * duels, seeds SEED to SEED + DUELS - 1, the opponent always hard with its own numbers;
 * one line is printed: duels, wins, losses, draws, turns a duel. The same arguments give
 * the same line: nothing but the seeds and the numbers decides. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "botint.h"
#include "view.h"

#define W(f) { #f, offsetof(struct bot__weights, f) }
static const struct {
	const char *name;
	size_t off;
} names[] = {
	{ "hurt0", offsetof(struct bot__weights, hurt) }, { "hurt1", offsetof(struct bot__weights, hurt) + sizeof(float) },
	{ "hurt2", offsetof(struct bot__weights, hurt) + 2 * sizeof(float) },
	{ "heal0", offsetof(struct bot__weights, heal) }, { "heal1", offsetof(struct bot__weights, heal) + sizeof(float) },
	{ "heal2", offsetof(struct bot__weights, heal) + 2 * sizeof(float) },
	{ "heal3", offsetof(struct bot__weights, heal) + 3 * sizeof(float) },
	{ "heal4", offsetof(struct bot__weights, heal) + 4 * sizeof(float) },
	W(danger_sight), W(danger_line), W(danger_off), W(danger_near), W(nav), W(close), W(lifedetect_near),
	W(lifedetect_lost), W(mapping), W(escape_cornered), W(escape_idle), W(escape_unknown), W(blink_cornered),
	W(blinkall_cornered), W(blink_idle), W(use_measured), W(cornered_hp), W(telepathy), W(speed_exact), W(speed_else),
	W(resist_near), W(resist_far), W(teleport_cornered), W(drink_unknown), W(drink_unknown_hp),
	W(pickup_unknown), W(identify_each), W(stay),
};
#define NNAMES (sizeof names / sizeof names[0])

static int
set_weight(struct bot__weights *w, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq)
		return -1;
	for (size_t i = 0; i < NNAMES; i++)
		if (strlen(names[i].name) == (size_t)(eq - arg) && strncmp(names[i].name, arg, (size_t)(eq - arg)) == 0) {
			char *end;
			float val = strtof(eq + 1, &end);
			if (end == eq + 1 || *end)
				return -1;
			memcpy((char *)w + names[i].off, &val, sizeof val);
			return 0;
		}
	return -1;
}

int
main(int argc, char **argv)
{
	static struct game g;
	static struct view v;
	static struct events ev;
	struct bot__weights w = bot__hard_weights;
	struct options o;
	long won = 0, lost = 0, drawn = 0;
	uint64_t turns = 0;

	if (argc >= 2 && strcmp(argv[1], "names") == 0) {
		for (size_t i = 0; i < NNAMES; i++) {
			float h;
			memcpy(&h, (const char *)&bot__hard_weights + names[i].off, sizeof h);
			printf("%-18s %g\n", names[i].name, (double)h);
		}
		return 0;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: bench_tune DUELS SIZE SEED hard|mind|master [NAME=VALUE ...]\n"
		                "       bench_tune names\n");
		return 2;
	}
	long duels = atol(argv[1]);
	int size = atoi(argv[2]);
	uint64_t base = strtoull(argv[3], NULL, 0);
	bool master = strcmp(argv[4], "master") == 0;
	bool planner_mind = strcmp(argv[4], "mind") == 0;
	if (duels < 1 || (!master && !planner_mind && strcmp(argv[4], "hard") != 0)) {
		fprintf(stderr, "bench_tune: bad DUELS or PLAYER\n");
		return 2;
	}
	for (int i = 5; i < argc; i++) {
		if (set_weight(&w, argv[i]) != 0) {
			fprintf(stderr, "bench_tune: %s: not NAME=VALUE with a NAME of `bench_tune names`\n", argv[i]);
			return 2;
		}
	}
	options_default(&o);
	o.size = (uint8_t)size;
	if (options_check(&o) != ERR_OK) {
		fprintf(stderr, "bench_tune: bad size %d\n", size);
		return 2;
	}
	long budget = bot_master_budget(size);
	bool use_mind = (master && !getenv("NOMIND")) || planner_mind;
	for (long i = 0; i < duels; i++) {
		uint64_t seed = base + (uint64_t)i;
		int seat = (int)(i & 1);
		struct rng r[PLAYERS];
		struct cmd c;
		struct bot_mind mind;

		game_init(&g, &o, seed);
		mind_reset(&mind);
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			view_build(&g, p, &v);
			if (p != seat) {
				bot_choose(&v, BOT_HARD, &r[p], &c);
			} else if (master) {
				if (use_mind && v.turn == v.me)
					mind_observe(&mind, &v);
				bot__master_choose_w(&v, &w, use_mind ? &mind : NULL, &r[p], budget, &c);
				if (use_mind)
					mind_acted(&mind, &v, &c);
			} else {
				struct bot__plan plan;
				if (use_mind && v.turn == v.me)
					mind_observe(&mind, &v);
				bot__plans_mind(&v, &w, use_mind ? &mind : NULL, &plan, 1, NULL);
				c = plan.first;
				if (use_mind)
					mind_acted(&mind, &v, &c);
			}
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				struct cmd pass = { CMD_PASS, 0, 0 };
				game_apply(&g, p, &pass, &ev);
			}
			view_build_after(&g, seat, &ev, &v);
			mind_told(&mind, &v, &ev, p); /* what a client is told and shown of it */
		}
		turns += g.turn_no;
		if (g.result == RESULT_DRAW)
			drawn++;
		else if ((g.result == RESULT_WIN0) == (seat == 0))
			won++;
		else
			lost++;
	}
	printf("%ld %ld %ld %ld %.1f\n", duels, won, lost, drawn, (double)turns / (double)duels);
	return 0;
}
