/* SPDX-License-Identifier: MIT */
/* bench_absent: what one spell or one potion is worth, as the win rate of a hard bot that
 * never has it against a hard bot that does (docs/rules.md, "What each spell and potion is
 * worth"; tests/bench/absent_table.sh writes that table from this program's rows).
 *
 *   bench_absent DUELS SIZE SEED ITEM...
 *
 * ITEM is a spell or a potion kind by its name ("Take Life", "Speed"), `none`
 * (the control: nothing withheld, so the "without" seat wins about half), or `all`: none,
 * then every spell that is offered and every potion kind a duel draws (potion_drawn()), in
 * the rules' order. For each item,
 * DUELS duels of hard against hard on seeds SEED to SEED + DUELS - 1 (the same seeds for
 * every item, so the items compare on the same levels), the seats alternating between
 * duels; one side is the one *without* the item:
 *   - a spell is never offered to it: each time its turn's three spells are drawn and the
 *     item is among them, that slot is drawn again from the spells not yet offered (from
 *     this program's own generator; the duel's own draws are untouched, so the levels,
 *     potions and the other side's offers are the duel's);
 *   - a potion kind does nothing for it: it does not start with one (the slot is dropped,
 *     and so is its knowledge of that appearance), and drinking or quaffing one uses the
 *     potion up and ends its turn as a pass would (it is not identified by it).
 * Only one side goes without, because with both the duel stays symmetric (50% by
 * construction): the question is what the item is worth to the side that has it.
 *
 * A bench-only hook outside common/: the rules know nothing of it, so no game without it
 * changes. One line per item:
 *   | item | won (of DUELS) by the side without it | 95% interval | drawn | turns a duel | the other side's uses a duel |
 * The same arguments print the same lines: nothing but the seeds decides. It stops with an
 * error if the side without the item ever casts or drinks it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "potion.h"
#include "rng.h"
#include "spell.h"
#include "view.h"

enum { ITEM_NONE, ITEM_SPELL, ITEM_POTION };

struct item {
	int type;
	int id;
};

static int
item_parse(const char *s, struct item *it)
{
	if (strcmp(s, "none") == 0) {
		*it = (struct item){ ITEM_NONE, -1 };
		return 0;
	}
	for (int k = 0; k < SPELL_COUNT; k++)
		/* A negative spell is never offered (Forgetfulness is a potion's name too). */
		if (strcmp(s, spell_name(k)) == 0 && spell_class_of(k) != SPELL_NEGATIVE) {
			*it = (struct item){ ITEM_SPELL, k };
			return 0;
		}
	for (int k = 0; k < POTION_KIND_COUNT; k++)
		if (potion_drawn(k) && strcmp(s, potion_name(k)) == 0) {
			*it = (struct item){ ITEM_POTION, k };
			return 0;
		}
	return -1;
}

/* The turn's offer for the side without the spell: a slot holding it is drawn again from
 * the offerable spells not offered now, by their tickets as the rules draw (default
 * options: FoV and potions on, so every spell but the negative ones). */
static void
offer_without(struct game *g, int spell, struct rng *r)
{
	for (int i = 0; i < SPELL_OFFERED; i++) {
		if (g->offered[i] != spell)
			continue;
		uint8_t pool[SPELL_COUNT];
		int n = 0, total = 0;
		for (int s = 0; s < SPELL_COUNT; s++) {
			bool taken = s == spell || spell_class_of(s) == SPELL_NEGATIVE;
			for (int j = 0; j < SPELL_OFFERED; j++)
				taken |= g->offered[j] == s;
			if (!taken) {
				pool[n++] = (uint8_t)s;
				total += game_offer_tickets(s);
			}
		}
		int t = (int)rng_below(r, (uint32_t)total), j = 0;
		while (t >= game_offer_tickets(pool[j]))
			t -= game_offer_tickets(pool[j++]);
		g->offered[i] = pool[j];
	}
}

/* The side without the potion kind starts without it. */
static void
start_without(struct game *g, int p, int kind)
{
	struct wizard *w = &g->wiz[p];
	int n = 0;

	for (int i = 0; i < w->ninv; i++) {
		if (g->kind_of[w->inv[i]] == kind) {
			w->known &= (uint8_t)~(1u << w->inv[i]);
			continue;
		}
		w->inv[n++] = w->inv[i];
	}
	w->ninv = (uint8_t)n;
}

/* A drink of the kind by the side without it: the potion is used up, and the command
 * becomes a pass. Returns whether it did so. */
static bool
drink_without(struct game *g, int p, int kind, struct cmd *c)
{
	struct wizard *w = &g->wiz[p];

	if (c->type == CMD_DRINK && g->potion[w->y][w->x] && g->kind_of[g->potion[w->y][w->x] - 1] == kind) {
		g->potion[w->y][w->x] = 0;
	} else if (c->type == CMD_QUAFF && c->arg < w->ninv && g->kind_of[w->inv[c->arg]] == kind) {
		memmove(&w->inv[c->arg], &w->inv[c->arg + 1], (size_t)(w->ninv - c->arg - 1));
		w->ninv--;
	} else {
		return false;
	}
	*c = (struct cmd){ CMD_PASS, 0, 0 };
	return true;
}

/* Is this applied command a use of the item (the spell cast as itself, or through Random;
 * the kind drunk)? */
static bool
is_use(const struct game *before, int p, const struct cmd *c, const struct events *ev, const struct item *it)
{
	if (it->type == ITEM_SPELL)
		return c->type == CMD_CAST && before->offered[c->arg] == it->id;
	if (it->type == ITEM_POTION) {
		const struct wizard *w = &before->wiz[p];
		if (c->type == CMD_DRINK && before->potion[w->y][w->x])
			return before->kind_of[before->potion[w->y][w->x] - 1] == it->id;
		if (c->type == CMD_QUAFF && c->arg < w->ninv)
			return before->kind_of[w->inv[c->arg]] == it->id;
	}
	(void)ev;
	return false;
}

static const char *
item_name(const struct item *it)
{
	return it->type == ITEM_SPELL ? spell_name(it->id) : it->type == ITEM_POTION ? potion_name(it->id) : "none";
}

/* Wilson's 95% interval for k of n. */
static void
wilson(long k, long n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / (double)n, d = 1 + z * z / (double)n;
	double c = (p + z * z / (2.0 * (double)n)) / d;
	double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;

	*lo = c - h;
	*hi = c + h;
}

static void
run(const struct item *it, long duels, int size, uint64_t base)
{
	static struct game g, before;
	static struct view v;
	struct events ev;
	struct options o;
	long won = 0, drawn = 0, uses = 0;
	uint64_t turns = 0;

	options_default(&o);
	o.size = (uint8_t)size;
	for (long i = 0; i < duels; i++) {
		uint64_t seed = base + (uint64_t)i;
		int without = (int)(i & 1);
		struct rng r[PLAYERS], hook;

		if (game_init(&g, &o, seed) != ERR_OK) {
			fprintf(stderr, "bench_absent: seed %" PRIu64 ": no game\n", seed);
			exit(1);
		}
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		rng_seed(&hook, rng_mix64(seed ^ 0xab5e47ULL));
		if (it->type == ITEM_POTION)
			start_without(&g, without, it->id);
		if (it->type == ITEM_SPELL && g.turn == without)
			offer_without(&g, it->id, &hook);
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			struct cmd c;

			view_build(&g, p, &v);
			bot_choose(&v, BOT_HARD, &r[p], &c);
			if (it->type == ITEM_POTION && p == without)
				drink_without(&g, p, it->id, &c);
			before = g;
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				struct cmd pass = { CMD_PASS, 0, 0 };
				fprintf(stderr, "bench_absent: seed %" PRIu64 ": a command refused\n", seed);
				game_apply(&g, p, &pass, &ev);
			} else if (is_use(&before, p, &c, &ev, it)) {
				if (p == without) { /* the hook failed: the table would be wrong */
					fprintf(stderr, "bench_absent: seed %" PRIu64 ": the side without %s used it\n", seed,
					    item_name(it));
					exit(1);
				}
				uses++;
			}
			if (it->type == ITEM_SPELL && ev.turn_ended && g.result == RESULT_NONE && g.turn == without)
				offer_without(&g, it->id, &hook);
		}
		turns += g.turn_no;
		if (g.result == RESULT_DRAW)
			drawn++;
		else if ((g.result == RESULT_WIN0) == (without == 0))
			won++;
	}
	double lo, hi;
	wilson(won, duels, &lo, &hi);
	printf("| %s | %.1f%% (%ld of %ld) | %.1f%% to %.1f%% | %ld | %.0f | %.2f |\n", item_name(it),
	    100.0 * (double)won / (double)duels, won, duels, 100.0 * lo, 100.0 * hi, drawn,
	    (double)turns / (double)duels, (double)uses / (double)duels);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_absent DUELS SIZE SEED ITEM...\n"
		                "  ITEM: a spell or potion kind by name (\"Take Life\"), or none\n");
		return 2;
	}
	char *end;
	long duels = strtol(argv[1], &end, 10);
	if (*end || duels < 1 || duels > 1000000) {
		fprintf(stderr, "bench_absent: bad number of duels '%s'\n", argv[1]);
		return 2;
	}
	long size = strtol(argv[2], &end, 10);
	struct options o;
	options_default(&o);
	o.size = (uint8_t)(size >= 0 && size < 256 ? size : 0);
	if (*end || options_check(&o) != ERR_OK) {
		fprintf(stderr, "bench_absent: bad size '%s' (odd, %d to %d)\n", argv[2], LEVEL_MIN, LEVEL_MAX);
		return 2;
	}
	uint64_t base = strtoull(argv[3], &end, 10);
	if (*end || !*argv[3]) {
		fprintf(stderr, "bench_absent: bad seed '%s'\n", argv[3]);
		return 2;
	}
	struct item items[64];
	int n = 0;
	for (int a = 4; a < argc && n < 64; a++) {
		if (strcmp(argv[a], "all") == 0) {
			items[n++] = (struct item){ ITEM_NONE, -1 };
			for (int k = 0; k < SPELL_COUNT && n < 64; k++)
				if (spell_class_of(k) != SPELL_NEGATIVE)
					items[n++] = (struct item){ ITEM_SPELL, k };
			for (int k = 0; k < POTION_KIND_COUNT && n < 64; k++)
				if (potion_drawn(k)) /* a kind no duel draws is absent from both sides already */
					items[n++] = (struct item){ ITEM_POTION, k };
			continue;
		}
		if (item_parse(argv[a], &items[n++]) != 0) {
			fprintf(stderr, "bench_absent: no spell (but the negative ones) or potion kind named '%s'\n", argv[a]);
			return 2;
		}
	}
	for (int k = 0; k < n; k++)
		run(&items[k], duels, (int)size, base);
	return 0;
}
