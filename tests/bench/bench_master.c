/* SPDX-License-Identifier: MIT */
/* bench_master: the master bot against another level: win rate (with a 95% interval),
 * duel length, and its time per call (mean, median, 99th percentile, worst), with the seats
 * alternating between duels.
 *
 *   bench_master [DUELS [SIZE [BUDGET [OPPONENT [SEED [PLAYER]]]]]]
 *
 * Defaults: 1000 duels at 25x25, bot_master_budget(SIZE) commands per call (as
 * bot_choose() gives it; 0 means the same), against hard, seeds from 1, the player
 * measured being master. The measurement is the default (`meson test -C build
 * --benchmark master`). Times are CPU time of this thread (CLOCK_THREAD_CPUTIME_ID), so
 * a busy machine does not inflate them; the wall time of the same calls is printed too.
 * Also prints the search's own speed: commands played out per second of CPU.
 *
 * With BENCH_MASTER_TIMES=FILE in the environment, every call of the measured player is
 * written to FILE, one line each: seed, turn number, CPU ms, commands played out. Two
 * builds that decide alike make the same calls, so their lines compare call by call.
 *
 * With BENCH_MASTER_LEDGER set in the environment, it also keeps a ledger of what each side did
 * and what it cost: every action (not the steps) by what it was (the spell it became, the
 * kind of potion drunk, a pickup, a pass), how many of each changed anyone's HP, and the
 * hit points each side lost and gained by each, per duel, in the duels the measured player
 * won and in those it did not; printed at the end (docs/bots.md, "Where the hit
 * points go").
 *
 * With BENCH_MASTER_PHASE set, it also prints how the duels that reached the end phase (turn
 * END_PHASE_PER_SIDE x SIZE, from which each wizard senses the other every turn) ended, by
 * both HPs as it began, and how many of the others the measured player won: run it for
 * hard against hard (PLAYER hard) too, and the measured player's end phase compares with
 * what hard makes of the same HPs (docs/bots.md, "The end phase").
 *
 * With BENCH_MASTER_RESULTS=FILE, every duel is written to FILE, one line each: seed, the
 * measured player's seat, and W, L or D for it. Two runs on the same seeds (a budget against
 * another) pair duel by duel: tests/bench/paired.py reads two such files (docs/bots.md,
 * "Master's budget").
 *
 * With BENCH_MASTER_REPEAT="SEED TURN N", the measured player's first call at that turn of
 * that duel is made N times more (not counted), for a profiler to see one slow call.
 *
 * PLAYER may be another level (random, easy, normal, hard) or `stall`: the player who only
 * hides and casts Mirror Earth or Alter Dungeon whenever offered (the test that
 * stalling no longer pays, since the turn limit gives the duel to the one with more HP). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot.h"
#include "potion.h"
#include "spell.h"
#include "view.h"

#if defined(MASTER_ORACLE) && MASTER_ORACLE
/* An oracle build (-Dc_args=-DMASTER_ORACLE=BITS, bots/master.c): master's drawn games take
 * those parts from the true game, set here before each of its calls. A measurement, not a player. */
extern const struct game *master__oracle;
#endif

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

static struct timing cpu, wall, searched_cpu; /* searched_cpu: the calls that searched */

/* The ledger (BENCH_MASTER_LEDGER): an action's cause is a spell (the one it became), a
 * potion kind drunk, or one of the other actions. */
enum { CAUSE_PICKUP = SPELL_COUNT + POTION_KIND_COUNT, CAUSE_PASS, CAUSE_COUNT };
struct ledger {
	/* [cause][actor: 1 the measured player][duel: 1 won] */
	uint64_t acts[CAUSE_COUNT][2][2], changed[CAUSE_COUNT][2][2];
	/* [cause][actor][victim: 1 the measured player][0 lost, 1 gained][duel won] */
	uint64_t hp[CAUSE_COUNT][2][2][2][2];
};

static const char *
cause_name(int c)
{
	return c < SPELL_COUNT ? spell_name(c) : c < CAUSE_PICKUP ? potion_name(c - SPELL_COUNT) : c == CAUSE_PICKUP ? "pick up" : "pass";
}

/* What player p's action c on g is, before it is applied (a potion drunk is known by the
 * kind the game bound its appearance to); a cast is named after it, by the spell it made. */
static int
cause_of(const struct game *g, int p, const struct cmd *c)
{
	const struct wizard *w = &g->wiz[p];
	int a = -1;

	if (c->type == CMD_DRINK && g->potion[w->y][w->x])
		a = g->potion[w->y][w->x] - 1;
	else if (c->type == CMD_QUAFF && c->arg < w->ninv)
		a = w->inv[c->arg];
	if (a >= 0)
		return SPELL_COUNT + g->kind_of[a];
	return c->type == CMD_PICKUP ? CAUSE_PICKUP : CAUSE_PASS;
}

static void
ledger_print(const struct ledger *l, const char *who, long won, long duels)
{
	double nw = won > 0 ? (double)won : 1, nl = duels - won > 0 ? (double)(duels - won) : 1;

	printf("ledger, per duel (in the %ld duels %s won / the %ld it did not): actions (those that changed anyone's HP);"
	       " HP it lost, gained, and took from the opponent; the same for the opponent\n", won, who, duels - won);
	for (int c = 0; c < CAUSE_COUNT; c++) {
		uint64_t any = 0;
		for (int a = 0; a < 2; a++)
			for (int w = 0; w < 2; w++)
				any += l->acts[c][a][w];
		if (any == 0)
			continue;
		printf("  %-21s", cause_name(c));
		for (int a = 1; a >= 0; a--)
			printf(" | %5.2f/%5.2f (%4.2f/%4.2f) lost %4.2f/%4.2f gained %4.2f/%4.2f took %4.2f/%4.2f",
			    l->acts[c][a][1] / nw, l->acts[c][a][0] / nl, l->changed[c][a][1] / nw, l->changed[c][a][0] / nl,
			    l->hp[c][a][a][0][1] / nw, l->hp[c][a][a][0][0] / nl, l->hp[c][a][a][1][1] / nw,
			    l->hp[c][a][a][1][0] / nl, l->hp[c][a][1 - a][0][1] / nw, l->hp[c][a][1 - a][0][0] / nl);
		printf("\n");
	}
}

/* The staller: Mirror Earth or Alter Dungeon whenever offered; otherwise a step away from
 * where the opponent is known to be, while one gets farther; then a pass. */
static void
stall_choose(const struct view *v, struct rng *r, struct cmd *out)
{
	static const int8_t dx[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
	static const int8_t dy[8] = { -1, -1, 0, 1, 1, 1, 0, -1 };
	static const uint8_t dir[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };

	for (int i = 0; i < SPELL_OFFERED; i++)
		if (v->offered[i] == SPELL_MIRROR || v->offered[i] == SPELL_ALTER) {
			*out = (struct cmd){ CMD_CAST, (uint8_t)i, 0 };
			return;
		}
	*out = (struct cmd){ CMD_PASS, 0, 0 };
	if (v->steps_left == 0 || v->opp_state == OPP_UNKNOWN)
		return;
	int far = abs(v->x - v->opp_x) > abs(v->y - v->opp_y) ? abs(v->x - v->opp_x) : abs(v->y - v->opp_y);
	int start = (int)rng_below(r, 8);
	for (int j = 0; j < 8; j++) {
		int i = (start + j) % 8, nx = v->x + dx[i], ny = v->y + dy[i];
		int ax = abs(nx - v->opp_x), ay = abs(ny - v->opp_y), d = ax > ay ? ax : ay;
		if ((v->cell[ny][nx] & ~VCELL_VISIBLE) != VCELL_FLOOR || (nx == v->opp_x && ny == v->opp_y) || d <= far)
			continue;
		far = d;
		*out = (struct cmd){ CMD_STEP, 0, dir[i] };
	}
}

static void
report(long done, int size, long budget, const char *who, int opp, long won, long lost, long drawn, uint64_t turns, long limit, long searched,
    long rollouts, double search_ms, double t_start)
{
	double total = clock_ms(CLOCK_THREAD_CPUTIME_ID) - t_start;
	/* Wilson's 95% interval of the share of duels won (draws count as not won) */
	double n = (double)done, ph = (double)won / n, z = 1.96, c = ph + z * z / (2 * n);
	double half = z * sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)), den = 1 + z * z / n;
	printf("%s (budget %ld) vs %s, %ld duels at %dx%d: %s won %ld (%.1f%%, 95%% interval %.1f%% to %.1f%%), lost %ld,"
	       " drawn %ld; %.1f turns a duel; %ld reached the turn limit\n",
	    who, budget, bot_level_name(opp), done, size, size, who, won, 100.0 * ph, 100.0 * (c - half) / den,
	    100.0 * (c + half) / den, lost, drawn, (double)turns / (double)done, limit);
	printf("%s time a call, CPU: mean %.2f ms, median %.2f ms, 99th percentile %.2f ms, worst %.2f ms over %" PRIu64 " calls\n",
	    who, cpu.total_ms / (double)cpu.calls, timing_pct(&cpu, 50), timing_pct(&cpu, 99), cpu.max_ms, cpu.calls);
	printf("%s time a searched call, CPU: median %.2f ms, 99th percentile %.2f ms\n", who, timing_pct(&searched_cpu, 50),
	    timing_pct(&searched_cpu, 99));
	printf("%s time a call, wall: mean %.2f ms, 99th percentile %.2f ms, worst %.2f ms\n",
	    who, wall.total_ms / (double)wall.calls, timing_pct(&wall, 99), wall.max_ms);
	printf("searched %ld of %" PRIu64 " calls; %ld commands played out, %.0f a second of CPU (%.1f us each, the"
	       " plans, the opponent's choices and the drawing of games included)\n",
	    searched, cpu.calls, rollouts, search_ms > 0 ? (double)rollouts / (search_ms / 1000.0) : 0.0,
	    rollouts > 0 ? search_ms * 1000.0 / (double)rollouts : 0.0);
	printf("whole run: %.1f s CPU\n", total / 1000.0);
	fflush(stdout);
}

/* Where the opponent stood within the mind's set of squares it may be on, at master's calls
 * that neither see nor sense it: by its distance from me (Chebyshev), and whether the mind
 * holds that it remembers me. `share` is what a draw uniform over the set puts in each
 * distance, `found` how often the opponent stood there: their ratio is how much more likely
 * a square of the set at that distance is than the set's uniform draw says. The same by a
 * class of square: by lines (bit 0 on a line through me, bit 1 on one through where the mind
 * says it remembers me), or with BENCH_MASTER_BELIEF=known, known floor (0) or never seen (1).
 * docs/bots.md, "Under rules 4: the oracle, part by part". */
#define BELIEF_FAR 25
struct belief_tally {
	bool by_known;
	double share[2][BELIEF_FAR + 1], found[2][BELIEF_FAR + 1];
	double lshare[2][4], lfound[2][4];
	long calls[2], inside[2];
};

static int
on_line(int ax, int ay, int bx, int by)
{
	return ax == bx || ay == by || abs(ax - bx) == abs(ay - by);
}

static int
line_class(const struct belief_tally *t, const struct view *v, int h, int mx, int my, int x, int y)
{
	if (t->by_known)
		return (v->cell[y][x] & ~VCELL_VISIBLE) == VCELL_FLOOR ? 0 : 1;
	return on_line(v->x, v->y, x, y) | (h && on_line(mx, my, x, y)) << 1;
}

static void
belief_add(struct belief_tally *t, const struct bot_mind *m, const struct view *v, const struct game *g)
{
	const struct wizard *o = &g->wiz[1 - v->me];
	int mx, my, h = mind_opp_remembers(m, v, &mx, &my);
	double n = 0;
	static double here[BELIEF_FAR + 1];
	double lhere[4] = { 0 };

	if (!m->started || m->nmay <= 0 || m->exact)
		return;
	memset(here, 0, sizeof here);
	for (int y = 1; y < v->opt.size - 1; y++)
		for (int x = 1; x < v->opt.size - 1; x++) {
			if (!m->may[y][x] || (x == v->x && y == v->y))
				continue;
			int dx = abs(x - v->x), dy = abs(y - v->y), d = dx > dy ? dx : dy;
			here[d > BELIEF_FAR ? BELIEF_FAR : d] += 1;
			lhere[line_class(t, v, h, mx, my, x, y)] += 1;
			n += 1;
		}
	if (n <= 0)
		return;
	t->calls[h]++;
	for (int d = 0; d <= BELIEF_FAR; d++)
		t->share[h][d] += here[d] / n;
	for (int c = 0; c < 4; c++)
		t->lshare[h][c] += lhere[c] / n;
	if (!m->may[o->y][o->x])
		return;
	t->inside[h]++;
	int dx = abs(o->x - v->x), dy = abs(o->y - v->y), d = dx > dy ? dx : dy;
	t->found[h][d > BELIEF_FAR ? BELIEF_FAR : d] += 1;
	t->lfound[h][line_class(t, v, h, mx, my, o->x, o->y)] += 1;
}

static void
belief_print(const struct belief_tally *t)
{
	for (int h = 0; h < 2; h++) {
		printf("belief, %s: %ld calls, the opponent in the set at %ld\n",
		    h ? "it remembers me (the mind says)" : "it does not", t->calls[h], t->inside[h]);
		printf("  distance  set's share  found  found/share\n");
		for (int d = 1; d <= BELIEF_FAR; d++)
			if (t->share[h][d] > 0)
				printf("  %8d  %11.1f  %5.0f  %11.2f\n", d, t->share[h][d], t->found[h][d],
				    t->found[h][d] / (t->share[h][d] * (double)t->inside[h] / (double)t->calls[h]));
		for (int c = 0; c < 4; c++)
			if (t->lshare[h][c] > 0)
				printf("  %s %d  %11.1f  %5.0f  %11.2f\n", t->by_known ? "known" : "line", c, t->lshare[h][c], t->lfound[h][c],
				    t->lfound[h][c] / (t->lshare[h][c] * (double)t->inside[h] / (double)t->calls[h]));
	}
}

int
main(int argc, char **argv)
{
	long duels = argc > 1 ? atol(argv[1]) : 1000;
	int size = argc > 2 ? atoi(argv[2]) : 25;
	long budget = argc > 3 && atol(argv[3]) > 0 ? atol(argv[3]) : bot_master_budget(size);
	int opp = argc > 4 ? bot_level_lookup(argv[4]) : BOT_HARD;
	uint64_t base = argc > 5 ? strtoull(argv[5], NULL, 0) : 1;
	const char *who = argc > 6 ? argv[6] : "master";
	int level = strcmp(who, "stall") == 0 ? -1 : bot_level_lookup(who);
	static struct game g;
	static struct view v;
	static struct events ev;
	struct options o;
	long won = 0, lost = 0, drawn = 0, limit = 0, searched = 0, rollouts = 0;
	double search_ms = 0;
	uint64_t turns = 0;

	if (duels < 1 || opp < 0 || budget < 0 || (level < 0 && strcmp(who, "stall") != 0)) {
		fprintf(stderr, "usage: bench_master [DUELS [SIZE [BUDGET [OPPONENT [SEED [PLAYER]]]]]]\n"
				"  PLAYER: master (default), random, easy, normal, hard or stall\n");
		return 2;
	}
	options_default(&o);
	o.size = (uint8_t)size;
	if (options_check(&o) != ERR_OK) {
		fprintf(stderr, "bench_master: bad size %d\n", size);
		return 2;
	}
	const char *times_path = getenv("BENCH_MASTER_TIMES");
	FILE *times = times_path ? fopen(times_path, "w") : NULL;
	if (times_path && !times) {
		perror(times_path);
		return 2;
	}
	const char *results_path = getenv("BENCH_MASTER_RESULTS");
	FILE *results = results_path ? fopen(results_path, "w") : NULL;
	if (results_path && !results) {
		perror(results_path);
		return 2;
	}
	uint64_t rep_seed = 0;
	unsigned rep_turn = 0, rep_n = 0;
	if (getenv("BENCH_MASTER_REPEAT"))
		sscanf(getenv("BENCH_MASTER_REPEAT"), "%" SCNu64 " %u %u", &rep_seed, &rep_turn, &rep_n);
	static struct ledger ledger, duel_ledger;
	bool keep_ledger = getenv("BENCH_MASTER_LEDGER") != NULL;
	/* BENCH_MASTER_PHASE: the duels that reach the end phase, by both HPs as it begins. */
	bool keep_phase = getenv("BENCH_MASTER_PHASE") != NULL;
	static long phase_n[WIZARD_HP + 1][WIZARD_HP + 1], phase_won[WIZARD_HP + 1][WIZARD_HP + 1];
	long early_n = 0, early_won = 0;
	uint32_t phase_turn = game_end_phase(size);
	/* BENCH_MASTER_BELIEF: where the opponent stands within the mind's set, by its distance. */
	bool keep_belief = getenv("BENCH_MASTER_BELIEF") != NULL;
	static struct belief_tally belief;
	belief.by_known = keep_belief && strcmp(getenv("BENCH_MASTER_BELIEF"), "known") == 0;
	double t_start = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < duels; i++) {
		uint64_t seed = base + (uint64_t)i;
		int master_seat = (int)(i & 1);
		struct rng r[PLAYERS];
		struct cmd c;
		struct bot_mind mind; /* the measured player's, as `wizwar bot` and selfplay keep one */

		game_init(&g, &o, seed);
		mind_reset(&mind);
		memset(&duel_ledger, 0, sizeof duel_ledger);
		int phase_hp[2] = { -1, -1 }; /* master's and the opponent's HP as the end phase began */
		for (int p = 0; p < PLAYERS; p++)
			rng_seed(&r[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
		while (g.result == RESULT_NONE) {
			int p = g.turn;
			if (phase_hp[0] < 0 && g.turn_no >= phase_turn) {
				phase_hp[0] = g.wiz[master_seat].hp;
				phase_hp[1] = g.wiz[1 - master_seat].hp;
			}
			view_build(&g, p, &v);
			if (p == master_seat) {
				if (rep_n > 0 && seed == rep_seed && g.turn_no == rep_turn && level == BOT_MASTER) {
					for (unsigned k = 0; k < rep_n; k++) {
						struct rng again = r[p];
						struct bot_mind m2 = mind;
						mind_observe(&m2, &v);
						bot_master_choose_mind(&v, &m2, &again, budget, &c);
					}
					rep_n = 0;
				}
				double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ms(CLOCK_MONOTONIC);
				int played = 0;
				if (level == BOT_MASTER && keep_belief && v.opp_state != OPP_VISIBLE && v.opp_state != OPP_SENSED) {
					struct bot_mind seen = mind;
					mind_observe(&seen, &v);
					belief_add(&belief, &seen, &v, &g);
				}
				if (level == BOT_MASTER) {
#if defined(MASTER_ORACLE) && MASTER_ORACLE
					master__oracle = &g;
#endif
					mind_observe(&mind, &v);
					played = bot_master_choose_mind(&v, &mind, &r[p], budget, &c);
					mind_acted(&mind, &v, &c);
				} else if (level >= 0) {
					bot_choose_mind(&v, level, &r[p], &mind, &c);
				}
				else
					stall_choose(&v, &r[p], &c);
				double spent = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
				timing_add(&cpu, spent);
				if (played > 0) {
					timing_add(&searched_cpu, spent);
					searched++;
					rollouts += played;
					search_ms += spent;
				}
				timing_add(&wall, clock_ms(CLOCK_MONOTONIC) - w0);
				if (times)
					fprintf(times, "%" PRIu64 " %" PRIu32 " %.3f %d\n", seed, g.turn_no, spent, played);
			} else {
				bot_choose(&v, opp, &r[p], &c);
			}
			int hp0[PLAYERS] = { g.wiz[0].hp, g.wiz[1].hp }, cause = cause_of(&g, p, &c);
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				struct cmd pass = { CMD_PASS, 0, 0 };
				fprintf(stderr, "bench_master: seed %" PRIu64 ": %s refused\n", seed, p == master_seat ? who : "opponent");
				game_apply(&g, p, &pass, &ev);
				c = pass;
				cause = CAUSE_PASS;
			}
			if (keep_ledger && c.type != CMD_STEP) {
				int a = p == master_seat;
				if (c.type == CMD_CAST)
					cause = ev.spell;
				duel_ledger.acts[cause][a][0]++;
				duel_ledger.changed[cause][a][0] += g.wiz[0].hp != hp0[0] || g.wiz[1].hp != hp0[1];
				for (int q = 0; q < PLAYERS; q++) {
					int d = g.wiz[q].hp - hp0[q];
					if (d != 0)
						duel_ledger.hp[cause][a][q == master_seat][d > 0][0] += (uint64_t)(d > 0 ? d : -d);
				}
			}
			view_build_after(&g, master_seat, &ev, &v);
			mind_told(&mind, &v, &ev, p); /* what a client is told and shown of it */
		}
		turns += g.turn_no;
		limit += g.end_reason == END_TURN_LIMIT;
		bool win = g.result != RESULT_DRAW && (g.result == RESULT_WIN0) == (master_seat == 0);
		if (g.result == RESULT_DRAW)
			drawn++;
		else if (win)
			won++;
		else
			lost++;
		if (results) {
			fprintf(results, "%" PRIu64 " %d %c\n", seed, master_seat, g.result == RESULT_DRAW ? 'D' : win ? 'W' : 'L');
			fflush(results);
		}
		if (phase_hp[0] > 0 && phase_hp[1] > 0 && phase_hp[0] <= WIZARD_HP && phase_hp[1] <= WIZARD_HP) {
			phase_n[phase_hp[0]][phase_hp[1]]++;
			phase_won[phase_hp[0]][phase_hp[1]] += win;
		} else {
			early_n++;
			early_won += win;
		}
		/* The duel's ledger into the won or the not-won column. */
		for (int k = 0; keep_ledger && k < CAUSE_COUNT; k++)
			for (int a = 0; a < 2; a++) {
				ledger.acts[k][a][win] += duel_ledger.acts[k][a][0];
				ledger.changed[k][a][win] += duel_ledger.changed[k][a][0];
				for (int q = 0; q < 2; q++)
					for (int d = 0; d < 2; d++)
						ledger.hp[k][a][q][d][win] += duel_ledger.hp[k][a][q][d][0];
			}
		if ((i + 1) % 10 == 0 || i + 1 == duels)
			report(i + 1, size, budget, who, opp, won, lost, drawn, turns, limit, searched, rollouts, search_ms, t_start);
	}
	if (keep_ledger)
		ledger_print(&ledger, who, won, duels);
	if (keep_belief)
		belief_print(&belief);
	if (keep_phase) {
		long pn = 0, pw = 0;
		printf("ended before the end phase (turn %" PRIu32 "): %s won %ld of %ld\n", phase_turn, who, early_won, early_n);
		printf("reached it, by %s's HP (rows) and the opponent's (columns) as it began: won of duels\n", who);
		for (int a = WIZARD_HP; a >= 1; a--) {
			printf("  %d:", a);
			for (int b = WIZARD_HP; b >= 1; b--) {
				printf(" %4ld/%-4ld", phase_won[a][b], phase_n[a][b]);
				pn += phase_n[a][b];
				pw += phase_won[a][b];
			}
			printf("\n");
		}
		printf("  (columns: the opponent at 5, 4, 3, 2, 1 HP) all: won %ld of %ld\n", pw, pn);
	}
	if (times)
		fclose(times);
	if (results)
		fclose(results);
	return 0;
}
