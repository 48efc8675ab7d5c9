/* SPDX-License-Identifier: MIT */
/* bench_use: what casting Blink or Blink All, or drinking Acid Resistance, buys the hard bot in
 * the states it could, as a counterfactual: the rules are a pure state machine, so each such
 * state of a duel is copied and played out twice, (a) using the item at once and (b) as hard
 * plays with the item hidden from it (its own best other choice), ROLLOUTS times each, the two
 * with the same dice (the copy's generator reseeded alike), hard against hard to the end.
 *
 *   bench_use DUELS SIZE SEED ROLLOUTS ITEM [CAP]
 *
 * ITEM: `Blink`, `Blink All` or `Acid Resistance` (which no duel draws since rules version 4:
 * its measurements are of version 3 and of the candidate in commit 73bf4ce). The duels are hard against hard, seeds SEED
 * to SEED + DUELS - 1; a state is the first command of a turn (bot__use_class(): the mover's HP,
 * whether it sees the opponent, behind, even or ahead) in which the mover is offered the spell,
 * or carries a potion of the kind it has identified (and is not already resisting acid for more
 * than this turn). The duel itself goes on as hard plays it (with bots/bot.c's use_helps as it
 * is), and so do the play-outs after the fork.
 *
 * A state's worth of the item is the share of its play-outs (a) won less the share (b) won (a
 * draw is half a win); the states are the independent samples: per class, their mean, with a
 * 95% interval from their spread (Student's t is near enough normal from 30 states on; classes
 * with fewer are printed, never marked). A class is marked "helps" only when the lower end of
 * a wider interval is above 0: z = 2.87, 95% for the BOT_USE_CLASSES classes together
 * (Bonferroni), since twelve 95% intervals mark one class in two runs by chance alone (seeds
 * 100001 on did: Blink All at 1 HP out of sight, behind, +7.1, which seeds 1 to 1300 put at
 * -5.0). The last line, `use_helps ITEM: ...`, is bots/bot.c's table row: 1 where it helps. Also printed: how often the mover had
 * the item a duel, and how often hard used it in the duels themselves (the rule as it stands).
 * With CAP, a class stops being forked once it holds CAP states (the duels go on, so the rare
 * classes, low in HP and in the opponent's sight, keep filling at a duel's cost, about 10 ms).
 * With BENCH_USE_UNSEEN set in the environment, (a) plays a rule proposed, not the rules: a
 * Blink (Blink All) that leaves the two wizards in sight of each other is drawn again, with the
 * next dice, up to 100 times, so the caster lands on a random square out of the opponent's
 * sight, as a Blink restated "to a random unoccupied square the opponent does not see" would
 * (docs/rules.md, "What each spell and potion is worth").
 * The same arguments print the same lines (docs/bots.md, "Blink, Blink All and Acid Resistance"). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "fov.h"
#include "botint.h"
#include "potion.h"
#include "rng.h"
#include "spell.h"
#include "view.h"

/* The first command where player p may use the item, in its slot (a spell slot, or an
 * inventory slot); -1 if it may not. */
static int
item_slot(const struct view *v, int item)
{
	if (item == BOT_USE_RESACID) {
		if ((v->intrinsics & INTRINSIC(HANDLER_RES_ACID)) && v->turns_left[HANDLER_RES_ACID] > 1)
			return -1;
		for (int i = 0; i < v->ninv; i++)
			if (v->kind_of[v->inv[i]] == POTION_RESACID)
				return i;
		return -1;
	}
	int spell = item == BOT_USE_BLINK ? SPELL_BLINK : SPELL_BLINKALL;
	for (int i = 0; i < SPELL_OFFERED; i++)
		if (v->offered[i] == spell)
			return i;
	return -1;
}

static struct cmd
item_cmd(int item, int slot)
{
	return (struct cmd){ (uint8_t)(item == BOT_USE_RESACID ? CMD_QUAFF : CMD_CAST), (uint8_t)slot, DIR_NONE };
}

/* Hard's command with the item hidden from it: the spell's slot emptied, or every potion of
 * the kind taken out of the inventory it sees (its answer's slot mapped back). */
static void
choose_without(struct view *v, int item, struct rng *r, struct cmd *c)
{
	uint8_t map[INV_MAX];
	int n = 0;

	if (item != BOT_USE_RESACID) {
		int spell = item == BOT_USE_BLINK ? SPELL_BLINK : SPELL_BLINKALL;
		for (int i = 0; i < SPELL_OFFERED; i++)
			if (v->offered[i] == spell)
				v->offered[i] = SPELL_NONE;
		bot_choose(v, BOT_HARD, r, c);
		return;
	}
	for (int i = 0; i < v->ninv; i++)
		if (v->kind_of[v->inv[i]] != POTION_RESACID) {
			map[n] = (uint8_t)i;
			v->inv[n++] = v->inv[i];
		}
	v->ninv = (uint8_t)n;
	bot_choose(v, BOT_HARD, r, c);
	if (c->type == CMD_QUAFF && c->arg < n)
		c->arg = map[c->arg];
}

static void
apply_or_pass(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	if (game_apply(g, p, c, ev) != ERR_OK) {
		struct cmd pass = { CMD_PASS, 0, 0 };
		game_apply(g, p, &pass, ev);
	}
}

/* Hard against hard to the end; what it was worth to p: 1 won, 0.5 drawn, 0 lost. */
static double
play_out(struct game *g, int p, struct rng *r)
{
	static struct view v;
	static struct events ev;
	struct cmd c;

	while (g->result == RESULT_NONE) {
		int q = g->turn;
		view_build(g, q, &v);
		bot_choose(&v, BOT_HARD, &r[q], &c);
		apply_or_pass(g, q, &c, &ev);
	}
	return g->result == RESULT_DRAW ? 0.5 : (g->result == RESULT_WIN0) == (p == 0) ? 1.0 : 0.0;
}

/* The normal quantile for 95% over BOT_USE_CLASSES intervals at once: 1 - 0.025 / 12. */
#define FAMILY_Z 2.87

struct cls {
	long n;
	double sa, sb, sd, sdd;
};
static struct cls cls[BOT_USE_CLASSES]; /* bench-only: one run's tallies */

static const char *
class_name(int k, char *buf, size_t len)
{
	static const char *hp[BOT_USE_HP] = { "1 HP", "2 HP", "3-5 HP" };
	snprintf(buf, len, "%s, %s, %s", hp[k / 4], (k / 2) % 2 ? "sees it" : "does not see it", k % 2 ? "behind" : "not behind");
	return buf;
}

static void
report(const char *name, int size, uint64_t base, long duels, long rollouts, long cap, long had, long used)
{
	printf("%s, hard against hard at %dx%d, seeds %" PRIu64 " to %" PRIu64 ", %ld play-outs a choice:"
	       " had it at a turn's start %.2f times a duel, used it there %.3f times a duel\n",
	    name, size, size, base, base + (uint64_t)duels - 1, rollouts, (double)had / (double)duels,
	    (double)used / (double)duels);
	printf("| state | states | won using it | won otherwise | difference (points) | 95%% interval |\n");
	printf("| --- | ---: | ---: | ---: | ---: | --- |\n");
	struct cls all = { 0 };
	int helps[BOT_USE_CLASSES] = { 0 };
	for (int k = 0; k <= BOT_USE_CLASSES; k++) {
		struct cls *s = k < BOT_USE_CLASSES ? &cls[k] : &all;
		char buf[64];
		if (s->n == 0)
			continue;
		double n = (double)s->n, mean = s->sd / n;
		double var = s->n > 1 ? (s->sdd - n * mean * mean) / (n - 1) : 0, se = sqrt(var > 0 ? var / n : 0);
		double half = 1.96 * se;
		if (k < BOT_USE_CLASSES) {
			all.n += s->n;
			all.sa += s->sa;
			all.sb += s->sb;
			all.sd += s->sd;
			all.sdd += s->sdd;
			helps[k] = s->n >= 30 && mean - FAMILY_Z * se > 0;
		}
		printf("| %s | %ld | %.1f%% | %.1f%% | %+.1f | %+.1f to %+.1f%s |\n",
		    k < BOT_USE_CLASSES ? class_name(k, buf, sizeof buf) : "all", s->n, 100 * s->sa / n, 100 * s->sb / n,
		    100 * mean, 100 * (mean - half), 100 * (mean + half), k < BOT_USE_CLASSES && helps[k] ? " (helps)" : "");
	}
	if (cap > 0)
		printf("(each class forked in at most %ld states)\n", cap);
	printf("use_helps %s:", name);
	for (int k = 0; k < BOT_USE_CLASSES; k++)
		printf(" %d", helps[k]);
	printf("\n");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const char *items[BOT_USE_ITEMS] = { "Blink", "Blink All", "Acid Resistance" };
	static struct game g, ga, gb;
	static struct view v;
	static struct events ev;
	long duels = argc > 1 ? atol(argv[1]) : 0, rollouts = argc > 4 ? atol(argv[4]) : 0;
	int size = argc > 2 ? atoi(argv[2]) : 0, item = -1;
	uint64_t base = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	bool unseen = getenv("BENCH_USE_UNSEEN") != NULL;
	long had = 0, used = 0, cap = argc > 6 ? atol(argv[6]) : 0;
	struct options o;

	for (int i = 0; argc > 5 && i < BOT_USE_ITEMS; i++)
		if (strcmp(argv[5], items[i]) == 0)
			item = i;
	options_default(&o);
	o.size = (uint8_t)size;
	if ((argc != 6 && argc != 7) || cap < 0 || duels < 1 || rollouts < 1 || item < 0 || options_check(&o) != ERR_OK) {
		fprintf(stderr, "usage: bench_use DUELS SIZE SEED ROLLOUTS ITEM [CAP]\n"
				"  ITEM: Blink, Blink All or Acid Resistance\n");
		return 2;
	}
	if (unseen)
		printf("BENCH_USE_UNSEEN: (a) blinks out of the opponent's sight (a rule proposed, not the rules)\n");
	for (long d = 0; d < duels; d++) {
		uint64_t seed = base + (uint64_t)d;
		struct rng r[PLAYERS];
		struct cmd c;

		game_init(&g, &o, seed);
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		while (g.result == RESULT_NONE) {
			int p = g.turn, slot, k;
			view_build(&g, p, &v);
			k = bot__use_class(&v);
			if (k >= 0 && (slot = item_slot(&v, item)) >= 0)
				had++;
			if (k >= 0 && (slot = item_slot(&v, item)) >= 0 && (cap == 0 || cls[k].n < cap)) {
				double wa = 0, wb = 0;
				for (long i = 0; i < rollouts; i++) {
					struct rng dice, rr[PLAYERS] = { r[0], r[1] };
					struct cmd use = item_cmd(item, slot);
					rng_seed(&dice, rng_mix64(seed * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)g.turn_no << 20) ^ (uint64_t)i));
					ga = g;
					ga.rng = dice;
					apply_or_pass(&ga, p, &use, &ev);
					for (int t = 0; unseen && item != BOT_USE_RESACID && t < 100 && ga.result == RESULT_NONE &&
					    fov_los(&ga.level, ga.wiz[0].x, ga.wiz[0].y, ga.wiz[1].x, ga.wiz[1].y, FOV_RADIUS); t++) {
						struct rng again = ga.rng; /* the next dice: where the last draw left them */
						ga = g;
						ga.rng = again;
						apply_or_pass(&ga, p, &use, &ev);
					}
					wa += play_out(&ga, p, rr);
					gb = g;
					gb.rng = dice;
					rr[0] = r[0];
					rr[1] = r[1];
					while (gb.result == RESULT_NONE && gb.turn == p) {
						static struct view vb;
						view_build(&gb, p, &vb);
						choose_without(&vb, item, &rr[p], &c);
						apply_or_pass(&gb, p, &c, &ev);
					}
					wb += play_out(&gb, p, rr);
				}
				wa /= (double)rollouts;
				wb /= (double)rollouts;
				cls[k].n++;
				cls[k].sa += wa;
				cls[k].sb += wb;
				cls[k].sd += wa - wb;
				cls[k].sdd += (wa - wb) * (wa - wb);
			}
			bot_choose(&v, BOT_HARD, &r[p], &c);
			if (k >= 0 && (slot = item_slot(&v, item)) >= 0) {
				struct cmd use = item_cmd(item, slot);
				used += c.type == use.type && c.arg == use.arg;
			}
			apply_or_pass(&g, p, &c, &ev);
		}
		if ((d + 1) % 50 == 0 || d + 1 == duels)
			report(items[item], size, base, d + 1, rollouts, cap, had, used);
	}
	return 0;
}
