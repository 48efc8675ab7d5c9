/* SPDX-License-Identifier: MIT */
/* master: the bot that searches, from the view alone.
 *
 * Determinized Monte Carlo over hard's plans (perfect-information sampling, the flat
 * form of information-set search):
 *
 *   1. The candidates are hard's best plans for this turn (bot__plans: walk to a square,
 *      give a command there), at most MASTER_PLANS. When they all begin with the same
 *      command, there is nothing to search: that command is given. The budget is spent
 *      in HALVINGS shares by successive halving: after each share the worse half of the
 *      plans still in the race drop out (8, then 4, then 2), so the best few get most
 *      of the play-outs (six plans searched evenly won 53% of 30 duels against hard at
 *      25x25, eight halved 68% of 60, the same duels and budget).
 *   2. A determinization is one whole game consistent with the view: the squares I know
 *      as I know them, the squares I have never seen drawn from the level generator (a
 *      fresh level of the same size, laid under what I know), the opponent on a square
 *      drawn from hard's belief (exact when seen or sensed; spread over where it may have
 *      walked when remembered; anywhere unseen when lost), its pack drawn (0 to 2 potions
 *      of random appearance), the appearances I have not identified bound to kinds drawn
 *      among those not yet bound, its map whole (the worst case for me), its memory of me
 *      where I stand if we have met. Given a mind (mind.h: what my earlier calls of the
 *      duel saw, and what the opponent's turns told and showed me as they tell and show a
 *      client), the opponent's square is drawn from the mind's set of squares it may be
 *      on instead, its memory of me is where the mind says it last saw me (none once I
 *      hid), a lost turn whose set is small is searched (MIND_SEARCH_LOST), and my own
 *      plans take the set as their belief and aim every spell at it (MIND_PLANS and
 *      MIND_AIM in bot.c). Nothing of this reads
 *      the real game: the view, my own past views and what a client is sent are all
 *      there is (see test_bot.c, "master_reads_only_the_view").
 *   3. Each plan is played out in each determinization with the real rules (game_apply):
 *      my walk and my command, then the opponent's whole turn by the hard bot on views
 *      built from the determinized game (view_build), so the opponent answers with what
 *      it would see. Hard decides afresh at every step of its walk; here it decides once
 *      and walks its plan, deciding again only when what it knows of me changes (it sees
 *      me, or sees I am not where it remembered) or its way is held: the same strength,
 *      a command 40% cheaper. Playing my next turn too (by hard) made the search favour plans
 *      whose follow-up hit and ignore the answer to that: it only tied with hard. The same determinizations serve every plan
 *      (common random numbers), so the plans are compared on the same luck.
 *   4. A played-out duel is worth value(my HP) - value(its HP), concave, death -1000; a
 *      plan is worth its mean plus a quarter of hard's own score (which knows what a
 *      rollout of one exchange cannot see: maps, potions kept, the way to the quarry).
 *      When the opponent is lost, the rollouts rarely meet it and the means tie, so hard's
 *      first plan is taken without a search.
 *
 * Measured and left off (knobs below, 0 by default; docs/bots.md, "Master: what was measured": none
 * moved the win rate out of its noise, 189 and 190 of the same 300 duels): the opponent's
 * offer and dice drawn again after my command, the same for every plan (CRN_OFFER); the
 * measured odds of winning as the worth (WORTH_V); hard's first plan left only for one
 * better by PAIRED_Z standard errors round by round; the escapes as candidates at low HP
 * (ESCAPE_HP); one candidate per first command (DISTINCT_FIRST). Measured later that day
 * (docs/bots.md, "The turns that begin with the opponent lost"), 0 by default too:
 * searching the lost turns with play-outs of LOST_TURNS turns (hard for both sides) lost
 * 11 points (113 against 135 of the same 200 duels: the search, blind to what a sight or
 * a Life Detection is worth over a few turns, drops hard's way of looking for the
 * opponent for noise, and duels grow 12% longer); with hard's plan kept unless another
 * is better by LOST_Z standard errors, and a worth for knowing where it is (LOST_SIGHT),
 * it ties (127 to 133); three turns played out at low HP in sight (LOW_TURNS) 137.
 * With the mind reading the opponent's turn (2026-11-26, fifth session; 354 of seeds
 * 1-500 as kept): the lost turns searched also when it remembers me (MIND_SEARCH_KNOWN),
 * 353; when the set is 120 squares or fewer, not 60 (MIND_SEARCH_LOST), 359; one more
 * turn of mine played out (ROLLOUT_TURNS 2), 348; its map what I know (OPP_MAP 1), 341.
 * In the end phase (tenth session; 365 of seeds 1-500, 96 of the 171 duels that reach
 * it): three turns played out there (END_TURNS 3), 94 of the 171; hard's score weighing
 * 0 or 0.6 there instead of 0.25 (END_PRIOR), 97 and 97. Each side then knows where the
 * other stands at every turn and attacks hit nine times in ten: the offers decide.
 * Under rules 3 at the budget of 167 (issue 33, paired on seeds 1-1000; docs/bots.md,
 * "A stronger master"), the one change kept: a lost turn searched when the set holds 120
 * squares or fewer, not 60 (MIND_SEARCH_LOST; at the old budget of 2,000 it had tied).
 * Screened and not kept: 250 squares; hard's score weighing 0.5 (PRIOR_WEIGHT); a leaf
 * worth for who knows whose square (KNOW_BONUS 40 or 80); the set near me weighing three
 * times when it remembers me (BEL_TOWARD). The search given the true hidden game instead
 * of drawn ones (an oracle build, not a player) won 11 points more: the points are still
 * in belief. Under rules 4 (docs/bots.md, "Under rules 4: the oracle, part by part"), that
 * oracle taken apart (MASTER_ORACLE, one ORACLE_* part at a time): the opponent's square is
 * the one part worth points alone (+5.2 of the whole's +9.0 on seeds 1-1000); its memory of
 * me, pack, kinds, map, effects and the unseen level each tie. Priors over the mind's set
 * measured from where hard really stood (BEL_DIST by distance and lines, BEL_REM, BEL_UNKNOWN)
 * tied: mild likelihoods over a hundred squares do not find the one square.
 *
 * Deterministic: the determinizations are seeded from a peek at the bot's RNG (which is
 * never advanced) and the turn number, so the calls of one turn (each step is a call)
 * see the same determinizations and keep to one plan, and the same view and RNG give the
 * same command. No clock: the budget is a count of commands given inside the play-outs
 * (an Alter Dungeon counts 7: it draws a whole level; MASTER_COMMANDS scaled by size by
 * default, bot_master_choose() to set it), so a
 * call's work is bounded however long its play-outs run; docs/bots.md states what it
 * costs in time, worst case included.
 */
#include <string.h>

#include "bot.h"
#include "botint.h"
#include "mind.h"

#ifndef MASTER_PLANS
#define MASTER_PLANS 8
#endif
#ifndef ROLLOUT_TURNS
#define ROLLOUT_TURNS 1      /* the opponent's answer (two turns: 50% against hard at 25x25, 40 duels) */
#endif
#define ROLLOUT_COMMANDS 64  /* a bound on the commands of one rollout, should a bot dither */
#ifndef LOST_TURNS
#define LOST_TURNS 0         /* > 0: the turns that begin with the opponent lost are searched, played out this many turns */
#endif
#ifndef LOW_TURNS
#define LOW_TURNS 0          /* > 0: at LOW_HP or less with the opponent seen or sensed, play out this many turns */
#endif
#ifndef LOW_HP
#define LOW_HP 2
#endif
#ifndef END_PRIOR
#define END_PRIOR -1.0f      /* >= 0: once the end phase has begun, hard's score weighs this in a plan's worth */
#endif
#ifndef END_TURNS
#define END_TURNS 0          /* > 0: once the end phase has begun, play out this many turns */
#endif
#ifndef LOST_Z
#define LOST_Z 0.0           /* > 0: when lost, PAIRED_Z's test with this many standard errors */
#endif
#ifndef LOST_SIGHT
#define LOST_SIGHT 0.0f      /* such a play-out: worth this more when it ends with me knowing where it is and not it me (less the other way) */
#endif
#ifndef BEL_TOWARD
#define BEL_TOWARD 0.0f      /* > 0: when the opponent remembers me, the squares of the set within BEL_NEAR of me weigh this many times */
#endif
#ifndef BEL_NEAR
#define BEL_NEAR 6
#endif
#ifndef BEL_DIST
#define BEL_DIST 0           /* 1: the set's squares weighed by their distance from me (bel_dist); 2: and by my lines */
#endif
#ifndef BEL_REM
#define BEL_REM 4.0f         /* with a mind: the square the view remembers it on weighs this many times another */
#endif
#ifndef BEL_UNKNOWN
#define BEL_UNKNOWN 0.5f     /* with a mind: a square of the set I have never seen weighs this much of one known as floor */
#endif
#ifndef KNOW_BONUS
#define KNOW_BONUS 0.0f      /* a play-out not over: worth this more when it ends with me knowing its square, less when it knows mine */
#endif
#ifndef PRIOR_WEIGHT
#define PRIOR_WEIGHT 0.25f
#endif
#ifndef HALVINGS
#define HALVINGS 3           /* successive halving: the budget in this many shares */
#endif
#ifndef DRAW_COST
#define DRAW_COST 2          /* drawing a whole game, counted in commands */
#endif
#define MASTER_MIN_BUDGET 64
#ifndef OPP_REPLAN
#define OPP_REPLAN 0         /* 1: the opponent's hard decides afresh at every command of its turn */
#endif
#ifndef OPP_MEM_PCT
#define OPP_MEM_PCT 100      /* when I only remember it: the odds (%) that it remembers me, where I stand */
#endif
#ifndef OPP_MAP
#define OPP_MAP 0            /* the opponent's map: 0 whole, 1 what I know (it explored as much as I did) */
#endif
#ifndef CRN_OFFER
#define CRN_OFFER 0          /* 1: the opponent's offer and dice drawn anew, the same for every plan */
#endif
#ifndef PAIRED_Z
#define PAIRED_Z 0.0         /* > 0: leave hard's first plan only for one better by this many standard errors */
#endif
#ifndef DISTINCT_FIRST
#define DISTINCT_FIRST 0     /* > 0: of hard's this many best plans, the best for each first command */
#endif
#ifndef ESCAPE_HP
#define ESCAPE_HP 0          /* > 0: at this HP or less with the opponent in sight, the escapes are candidates */
#endif
#ifndef MIND_POS
#define MIND_POS 1           /* with a mind: the opponent drawn from its set of squares it may be on */
#endif
#ifndef MIND_ME
#define MIND_ME 1            /* with a mind: the opponent remembers me where it last saw me */
#endif
#ifndef MIND_SEARCH_LOST
#define MIND_SEARCH_LOST 120 /* with a mind: a lost turn is searched when it may be on this many squares or fewer
                              * (60 until rules 3's screens at the budget of 167: 120 won +2.8 points; docs/bots.md) */
#endif
#ifndef MIND_SEARCH_KNOWN
#define MIND_SEARCH_KNOWN 0  /* 1: with a mind, a lost turn is searched too when it remembers me (its spells will seek me) */
#endif
#ifndef ALTER_COST
#define ALTER_COST 6         /* an Alter Dungeon cast in a play-out, in commands beyond its own */
#endif
#ifndef MASTER_ORACLE
#define MASTER_ORACLE 0      /* a measurement build, not a player: parts of the true game given (ORACLE_* bits) */
#endif

/* What an oracle build gives the drawn games from the true one, part by part, to measure
 * what each guess of determinize() costs (docs/bots.md, "The oracle, part by part"). The
 * dice stay drawn: an oracle of the future would measure luck, not belief. */
enum {
	ORACLE_SQUARE = 1,   /* the opponent's square */
	ORACLE_MEMORY = 2,   /* whether and where it remembers me */
	ORACLE_PACK = 4,     /* its pack and which appearances it has identified */
	ORACLE_KINDS = 8,    /* the kinds of the appearances I have not identified */
	ORACLE_MAP = 16,     /* its map (what it has explored, the potions it remembers) */
	ORACLE_EFFECTS = 32, /* its effects (what it drank or cast on itself, and for how long) */
	ORACLE_LEVEL = 64,   /* the squares I have not seen, and the potions lying anywhere */
};
#if MASTER_ORACLE
/* The true game of the call, set by the caller (tests/bench/bench_master.c) before each call
 * of an oracle build; never defined in a player's build. */
extern const struct game *master__oracle;
const struct game *master__oracle;
#endif

static const int8_t mdx[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
static const int8_t mdy[8] = { -1, -1, 0, 1, 1, 1, 0, -1 };
static const uint8_t mdir[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };

struct master {
	const struct view *v;
	const struct bot_mind *mind; /* what the calls before this one saw, or NULL */
	struct bot__plan plan[MASTER_PLANS];
	int nplan;
	int turns; /* turns played out after my command: ROLLOUT_TURNS, or LOST_TURNS when lost */
	float prior; /* what hard's score weighs in a plan's worth: PRIOR_WEIGHT, or END_PRIOR */
	struct bot__belief bel;
	int16_t dist[MASTER_PLANS][LEVEL_MAX][LEVEL_MAX]; /* steps to each plan's square over known floor */
	int16_t odist[LEVEL_MAX][LEVEL_MAX]; /* the opponent's way to its plan's square, in a play-out */
	double sum[MASTER_PLANS];
	double dsum[MASTER_PLANS], dsq[MASTER_PLANS]; /* of each round's worth less hard's first plan's */
	struct game base, sim;
	struct view scratch;
	struct bot__memo memo; /* the opponent's plans in this round's game, by its view */
	struct events ev; /* what the last command played out left: each wizard's sight, for view_build_after() */
	uint16_t queue[LEVEL_MAX * LEVEL_MAX];
};

/* A duel's worth to me, by hit points: concave, so that a point matters more when low. */
static const float hp_value[WIZARD_HP + 1] = { -1000, 0, 150, 260, 340, 400 };

static float
worth(int hp)
{
	return hp <= 0 ? hp_value[0] : hp >= WIZARD_HP ? hp_value[WIZARD_HP] : hp_value[hp];
}

#ifndef WORTH_V
#define WORTH_V 0            /* 1: a play-out is worth the odds of winning from where it ends */
#endif
#ifndef WORTH_SCALE
#define WORTH_SCALE 1000.0f  /* those odds in the units of hard's score (hundredths of a hit) */
#endif
/* The odds that the wizard to move wins, by its HP (row, 1 to 5) and the opponent's
 * (column), at the start of its turn: measured over 3,000 duels of hard against hard at
 * 25x25 (seeds 50001 to 53000, 490,000 turns; every cell from at least 247 turns, most
 * from thousands). [1]: it knows exactly where the opponent stands (sees or sensed it,
 * or remembers it where it still is): the tempo of the one who strikes first; [0]: not.
 * From 5 HP against 5 a hit taken costs 0.04 and a hit given gains 0.06, but from 3
 * against 5 falling to 2 costs 0.11 and from 1 death costs 0.13: death is not worth
 * ten hits, as hp_value said. */
static const float win_odds[2][WIZARD_HP][WIZARD_HP] = {
	{
		{ 0.60f, 0.31f, 0.22f, 0.18f, 0.14f },
		{ 0.77f, 0.54f, 0.38f, 0.31f, 0.29f },
		{ 0.83f, 0.65f, 0.52f, 0.43f, 0.38f },
		{ 0.86f, 0.72f, 0.60f, 0.52f, 0.46f },
		{ 0.88f, 0.72f, 0.64f, 0.55f, 0.50f },
	},
	{
		{ 0.74f, 0.31f, 0.16f, 0.14f, 0.11f },
		{ 0.88f, 0.61f, 0.42f, 0.29f, 0.25f },
		{ 0.94f, 0.75f, 0.58f, 0.44f, 0.38f },
		{ 0.93f, 0.80f, 0.66f, 0.54f, 0.46f },
		{ 0.96f, 0.82f, 0.69f, 0.60f, 0.49f },
	},
};

/* 1 when wizard p's memory holds the opponent's very square (seen, sensed, or remembered
 * where it still stands), else 0. */
static int
knows_where(const struct game *g, int p)
{
	const struct wizard *w = &g->wiz[p], *o = &g->wiz[1 - p];

	return w->opp_known != OPPMEM_NONE && w->opp_x == o->x && w->opp_y == o->y;
}

/* Where a play-out ended, to me: the odds of winning from there (WORTH_V), or the HP worths. */
static float
leaf_worth(const struct game *g, int me)
{
	const struct wizard *w = &g->wiz[me], *o = &g->wiz[1 - me];

	if (!WORTH_V)
		return worth(w->hp) - worth(o->hp);
	if (w->hp <= 0 || o->hp <= 0)
		return WORTH_SCALE * (w->hp > 0 ? 1.0f : o->hp > 0 ? 0.0f : 0.5f);
	bool exact = knows_where(g, me);
	int a = w->hp > WIZARD_HP ? WIZARD_HP : w->hp, b = o->hp > WIZARD_HP ? WIZARD_HP : o->hp;
	return WORTH_SCALE * win_odds[exact][a - 1][b - 1];
}

static int
vcell(const struct view *v, int x, int y)
{
	return v->cell[y][x] & ~VCELL_VISIBLE;
}

/* Steps to (tx, ty) from every floor square, 8-direction steps: over the squares I know
 * to be floor (lv NULL), or over a drawn game's level. */
static void
bfs_to(struct master *m, int16_t (*d)[LEVEL_MAX], const struct level *lv, int tx, int ty, int far)
{
	const struct view *v = m->v;
	int head = 0, tail = 0, size = v->opt.size;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			d[y][x] = INT16_MAX;
	d[ty][tx] = 0;
	m->queue[tail++] = (uint16_t)(ty * LEVEL_MAX + tx);
	while (head < tail) {
		int x = m->queue[head] % LEVEL_MAX, y = m->queue[head] / LEVEL_MAX;
		head++;
		if (d[y][x] >= far)
			continue; /* the walk starts within `far` steps: no need to look farther */
		for (int i = 0; i < 8; i++) {
			int nx = x + mdx[i], ny = y + mdy[i];
			if (nx <= 0 || ny <= 0 || nx >= size - 1 || ny >= size - 1 || d[ny][nx] != INT16_MAX ||
			    (lv ? !level_floor(lv, nx, ny) : vcell(v, nx, ny) != VCELL_FLOOR))
				continue;
			d[ny][nx] = (int16_t)(d[y][x] + 1);
			m->queue[tail++] = (uint16_t)(ny * LEVEL_MAX + nx);
		}
	}
}

/* A square for the opponent, drawn from the belief; when nothing is believed, any floor
 * square I do not see. Never my own square. */
static void
draw_opponent(const struct master *m, const struct game *g, struct rng *r, int *ox, int *oy)
{
	const struct view *v = m->v;
	int size = v->opt.size;

	if (m->bel.wtotal > 0) {
		float t = (float)(rng_next(r) >> 40) / (float)(1 << 24) * m->bel.wtotal;
		int lastx = -1, lasty = -1;
		for (int y = 1; y < size - 1; y++)
			for (int x = 1; x < size - 1; x++) {
				if (m->bel.w[y][x] <= 0 || (x == v->x && y == v->y))
					continue;
				lastx = x;
				lasty = y;
				if ((t -= m->bel.w[y][x]) < 0) {
					*ox = x;
					*oy = y;
					return;
				}
			}
		if (lastx >= 0) {
			*ox = lastx;
			*oy = lasty;
			return;
		}
	}
	int n = 0;
	for (int pass = 0; pass < 2; pass++) {
		int k = pass ? (int)rng_below(r, (uint32_t)n) : -1;
		for (int y = 1; y < size - 1; y++)
			for (int x = 1; x < size - 1; x++) {
				if (!level_floor(&g->level, x, y) || (x == v->x && y == v->y))
					continue;
				if ((v->cell[y][x] & VCELL_VISIBLE) && v->opt.fov)
					continue;
				if (pass == 0)
					n++;
				else if (k-- == 0) {
					*ox = x;
					*oy = y;
					return;
				}
			}
		if (n == 0)
			break;
	}
	/* Everything in sight and no opponent in it: cannot be, but stay total. */
	*ox = v->x == 1 ? 2 : 1;
	*oy = 1;
}

/* One whole game consistent with the view (see the head of this file). */
static void
determinize(struct master *m, uint64_t seed, struct game *g)
{
	const struct view *v = m->v;
	struct rng r;
	int me = v->me, op = 1 - me, size = v->opt.size, ox, oy;
	bool used[POTION_KIND_COUNT] = { false };

	rng_seed(&r, seed);
	memset(g, 0, sizeof *g);
	g->opt = v->opt;
	g->seed = seed;
	rng_seed(&g->rng, rng_next(&r));
	level_generate(&g->level, size, &r, NULL);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			int c = vcell(v, x, y);
			if (c == VCELL_FLOOR)
				g->level.cell[y][x] = CELL_FLOOR;
			else if (c == VCELL_WALL)
				g->level.cell[y][x] = CELL_WALL;
			g->potion[y][x] = v->potion[y][x];
		}
	g->level.cell[v->y][v->x] = CELL_FLOOR;
	draw_opponent(m, g, &r, &ox, &oy);
#if MASTER_ORACLE
	const struct game *t = master__oracle;
	if (t && (MASTER_ORACLE & ORACLE_LEVEL)) {
		memcpy(&g->level, &t->level, sizeof g->level);
		memcpy(g->potion, t->potion, sizeof g->potion);
	}
	if (t && (MASTER_ORACLE & ORACLE_SQUARE)) {
		ox = t->wiz[op].x;
		oy = t->wiz[op].y;
	}
#endif
	g->level.cell[oy][ox] = CELL_FLOOR;

	for (int a = 0; a < APPEARANCE_COUNT; a++)
		if (v->kind_of[a] < POTION_KIND_COUNT)
			used[v->kind_of[a]] = true;
	for (int a = 0; a < APPEARANCE_COUNT; a++) {
		if (v->kind_of[a] < POTION_KIND_COUNT) {
			g->kind_of[a] = v->kind_of[a];
			continue;
		}
		int k;
		do
			k = (int)rng_below(&r, POTION_KIND_COUNT);
		while (used[k]);
		used[k] = true;
		g->kind_of[a] = (uint8_t)k;
	}

	struct wizard *w = &g->wiz[me], *o = &g->wiz[op];
	w->x = v->x;
	w->y = v->y;
	w->hp = v->hp;
	w->ninv = v->ninv;
	memcpy(w->inv, v->inv, sizeof w->inv);
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		if (v->kind_of[a] < POTION_KIND_COUNT)
			w->known |= (uint8_t)(1u << a);
	w->intrinsics = v->intrinsics;
	for (int h = 0; h < HANDLER_COUNT; h++)
		if (v->intrinsics & INTRINSIC(h))
			w->chain.link[w->chain.n++] = (struct link){ (uint8_t)h, v->turns_left[h] };
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			int c = vcell(v, x, y);
			w->mem[y][x] = c == VCELL_FLOOR ? MEM_FLOOR : c == VCELL_WALL ? MEM_WALL : MEM_UNKNOWN;
			w->memp[y][x] = v->potion[y][x];
		}
	if (v->opp_state != OPP_UNKNOWN) {
		w->opp_known = v->opp_state == OPP_SENSED ? OPPMEM_SENSED : OPPMEM_REMEMBERED;
		w->opp_x = v->opp_x;
		w->opp_y = v->opp_y;
	}

	o->x = (uint8_t)ox;
	o->y = (uint8_t)oy;
	o->hp = v->opp_hp;
	if (v->opt.potions) {
		int n = (int)rng_below(&r, 3);
		for (int i = 0; i < n; i++) {
			o->inv[i] = (uint8_t)rng_below(&r, APPEARANCE_COUNT);
			o->known |= (uint8_t)(1u << o->inv[i]);
		}
		o->ninv = (uint8_t)n;
	}
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			if (OPP_MAP == 1 && vcell(v, x, y) == VCELL_UNKNOWN) {
				o->mem[y][x] = MEM_UNKNOWN;
				continue;
			}
			o->mem[y][x] = g->level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL;
			o->memp[y][x] = g->potion[y][x];
		}
	int mx, my;
	if (m->mind && MIND_ME) {
		if (mind_opp_remembers(m->mind, v, &mx, &my)) {
			o->opp_known = OPPMEM_REMEMBERED;
			o->opp_x = (uint8_t)mx;
			o->opp_y = (uint8_t)my;
		}
	} else if (v->opp_state == OPP_VISIBLE || v->opp_state == OPP_SENSED ||
	    (v->opp_state == OPP_REMEMBERED && (OPP_MEM_PCT >= 100 || rng_below(&r, 100) < OPP_MEM_PCT))) {
		o->opp_known = OPPMEM_REMEMBERED;
		o->opp_x = v->x;
		o->opp_y = v->y;
	}

#if MASTER_ORACLE
	if (t && (MASTER_ORACLE & ORACLE_KINDS))
		memcpy(g->kind_of, t->kind_of, sizeof g->kind_of);
	if (t && (MASTER_ORACLE & ORACLE_PACK)) {
		o->ninv = t->wiz[op].ninv;
		memcpy(o->inv, t->wiz[op].inv, sizeof o->inv);
		o->known = t->wiz[op].known;
	}
	if (t && (MASTER_ORACLE & ORACLE_MAP)) {
		memcpy(o->mem, t->wiz[op].mem, sizeof o->mem);
		memcpy(o->memp, t->wiz[op].memp, sizeof o->memp);
	}
	if (t && (MASTER_ORACLE & ORACLE_EFFECTS)) {
		o->intrinsics = t->wiz[op].intrinsics;
		o->chain = t->wiz[op].chain;
	}
	if (t && (MASTER_ORACLE & ORACLE_MEMORY)) {
		o->opp_known = t->wiz[op].opp_known;
		o->opp_x = t->wiz[op].opp_x;
		o->opp_y = t->wiz[op].opp_y;
	}
#endif
	g->first = (uint8_t)me;
	g->turn = (uint8_t)me;
	g->turn_no = v->turn_no;
	g->steps_left = v->steps_left;
	memcpy(g->offered, v->offered, sizeof g->offered);
}

/* Give a command, or a pass if the determinized rules refuse it (a guess was wrong).
 * Returns what it cost, in commands: Alter Dungeon draws a whole new level, about 80 µs
 * against 2 for any other command (measured in play-outs at 25x25), and a search that
 * plays it out in every round took 70 ms where others took 40. */
static long
apply_or_pass(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	static const struct cmd pass = { CMD_PASS, 0, 0 };
	bool alter = c->type == CMD_CAST && c->arg < SPELL_OFFERED && g->offered[c->arg] == SPELL_ALTER;

	if (game_apply(g, p, c, ev) != ERR_OK) {
		game_apply(g, p, &pass, ev);
		alter = false;
	}
	return 1 + (alter ? ALTER_COST : 0);
}

/* Play plan k out in m->sim (already a copy of the determinization); its worth to me.
 * Adds the commands it gave (mine and the opponent's) to *spent: the budget's unit. */
static float
play_out(struct master *m, int k, struct rng *r, uint64_t luck, long *spent)
{
	const struct view *v = m->v;
	const struct bot__plan *p = &m->plan[k];
	struct game *g = &m->sim;
	int me = v->me, commands = 0;
	uint32_t stop = v->turn_no + (uint32_t)m->turns + 1;
	bool applied = false; /* m->ev describes g (a refused command changes neither) */

	while (g->result == RESULT_NONE && g->turn == me && g->steps_left > 0 &&
	    (g->wiz[me].x != p->x || g->wiz[me].y != p->y)) {
		int x = g->wiz[me].x, y = g->wiz[me].y, d = m->dist[k][y][x], dir = DIR_NONE;
		for (int i = 0; i < 8 && dir == DIR_NONE; i++) {
			int nx = x + mdx[i], ny = y + mdy[i];
			struct cmd c = { CMD_STEP, 0, mdir[i] };
			if (m->dist[k][ny][nx] < d && game_check(g, me, &c) == ERR_OK)
				dir = mdir[i];
		}
		struct cmd c = { CMD_STEP, 0, (uint8_t)dir };
		++*spent;
		if (dir == DIR_NONE || game_apply(g, me, &c, &m->ev) != ERR_OK)
			break; /* the way is held by the opponent of this determinization */
		applied = true;
	}
	if (g->result == RESULT_NONE && g->turn == me) {
		*spent += apply_or_pass(g, me, &p->cmd, &m->ev);
		applied = true;
	}
	/* The opponent's luck, the same whatever my plan: my command may have drawn from the
	 * game's dice (a Fire Storm's reach, a Blink, a Mirror Earth) or not, and the offer
	 * its turn began with came from what was left, so two plans met different offers and
	 * were compared on different luck. Its offer and dice are drawn again from the
	 * round's seed (the same distribution: the rules' own draw). */
	if (CRN_OFFER && g->result == RESULT_NONE && g->turn != me) {
		rng_seed(&g->rng, luck);
		game_draw_offer(g);
	}
	/* The opponent is hard, but hard decides afresh at every step of its walk; here it
	 * decides once and walks its plan, deciding again only when what it knows of me
	 * changes (it sees me, or sees that I am not where it remembered), or its way is held. */
	bool planned = false;
	struct bot__plan op;
	int ks = -1, kx = -1, ky = -1;
	uint32_t planned_turn = 0;
	while (g->result == RESULT_NONE && g->turn_no < stop && commands++ < ROLLOUT_COMMANDS * m->turns) {
		struct cmd c;
		int q = g->turn;
		const struct view *ov = &m->scratch;
		/* The sight the last command computed, not a second field of view (the same view). */
		if (applied)
			view_build_after(g, q, &m->ev, &m->scratch);
		else
			view_build(g, q, &m->scratch);
		if (g->turn_no != planned_turn)
			planned = false; /* a new turn: a new plan */
		if (OPP_REPLAN) {
			bot__choose_hard(ov, r, &c); /* the mover's view, the game not over: hard itself */
		} else {
			int x = g->wiz[q].x, y = g->wiz[q].y;
			if (planned && (ov->opp_state != ks || (ks != OPP_UNKNOWN && (ov->opp_x != kx || ov->opp_y != ky))))
				planned = false;
			if (planned && (x != op.x || y != op.y)) {
				int d = m->odist[y][x], dir = DIR_NONE;
				for (int i = 0; i < 8 && dir == DIR_NONE; i++) {
					struct cmd s = { CMD_STEP, 0, mdir[i] };
					if (m->odist[y + mdy[i]][x + mdx[i]] < d && game_check(g, q, &s) == ERR_OK)
						dir = mdir[i];
				}
				if (dir == DIR_NONE)
					planned = false;
				c = (struct cmd){ CMD_STEP, 0, (uint8_t)dir };
			} else if (planned) {
				c = op.cmd;
			}
			if (!planned) {
				bot__plan_memo(ov, &op, &m->memo);
				c = op.first;
				if (op.x != x || op.y != y)
					bfs_to(m, m->odist, &g->level, op.x, op.y, op.steps);
				ks = ov->opp_state;
				kx = ov->opp_x;
				ky = ov->opp_y;
				planned = true;
				planned_turn = g->turn_no;

			}
		}
		*spent += apply_or_pass(g, q, &c, &m->ev);
		applied = true;
	}
	/* (A leaf worth from hard's score of my next turn, at half weight, did worse: 24 of 40
	 * at 15x15 against 42 of 60 without, 10 of 20 at 25x25; capped at 150 and at 0.4,
	 * 33 of 50 against 39 of 50 without, seeds 1001 to 1050.) */
	float val = leaf_worth(g, me);
	if (KNOW_BONUS != 0 && g->result == RESULT_NONE)
		val += KNOW_BONUS * (float)(knows_where(g, me) - knows_where(g, 1 - me));
	if (m->bel.lost && LOST_SIGHT != 0 && g->result == RESULT_NONE)
		val += LOST_SIGHT * (float)(knows_where(g, me) - knows_where(g, 1 - me));
	return val;
}

/* At ESCAPE_HP or less, with the opponent seen or sensed, each escape offered (Restoration,
 * Mirror Earth, Alter Dungeon, Blink: cast where I stand) that none of hard's plans uses
 * takes the place of hard's last plan, so the search weighs it: hard ranks them low and
 * left Mirror Earth out of its eight best in 60% of such turns, Blink in 70% (500 duels of
 * hard against hard at 25x25), yet of the turns master began at 2 HP or less in sight, the
 * opponent hit back after 8% of its Mirror Earths and 38% of its Restorations. */
static const uint8_t escapes[] = { SPELL_RESTORE, SPELL_MIRROR, SPELL_ALTER, SPELL_BLINK };

static void
add_escapes(struct master *m)
{
	const struct view *v = m->v;
	int last = m->nplan - 1;
	float low = m->plan[last].score; /* hard's worst plan's score: no prior in the escape's favour */

	if (v->hp > ESCAPE_HP || (v->opp_state != OPP_VISIBLE && v->opp_state != OPP_SENSED))
		return;
	for (size_t e = 0; e < sizeof escapes; e++)
		for (int s = 0; s < SPELL_OFFERED; s++) {
			if (v->offered[s] != escapes[e])
				continue;
			bool have = false;
			for (int k = 0; k < m->nplan && !have; k++)
				have = m->plan[k].cmd.type == CMD_CAST && m->plan[k].cmd.arg == s;
			if (have)
				continue;
			struct cmd c = { CMD_CAST, (uint8_t)s, 0 };
			if (m->nplan < MASTER_PLANS) {
				m->plan[m->nplan] = m->plan[m->nplan - 1];
				last = m->nplan++;
			} else if (last <= 0) {
				return; /* never hard's first plan */
			}
			m->plan[last].x = v->x;
			m->plan[last].y = v->y;
			m->plan[last].steps = 0;
			m->plan[last].cmd = c;
			m->plan[last].first = c;
			m->plan[last].score = low;
			last--;
		}
}

/* A plan's worth so far: its mean over the rounds it was played in, plus the prior. */
static float
plan_value(const struct master *m, int k, int rounds)
{
	return (float)(m->sum[k] / rounds) + m->prior * m->plan[k].score;
}

int
bot_master_choose(const struct view *v, struct rng *rng, long budget, struct cmd *out)
{
	return bot__master_choose_w(v, &bot__hard_weights, NULL, rng, budget, out);
}

int
bot_master_choose_mind(const struct view *v, const struct bot_mind *mind, struct rng *rng, long budget,
    struct cmd *out)
{
	return bot__master_choose_w(v, &bot__hard_weights, mind, rng, budget, out);
}

/* How much more often hard stood on a square of the mind's set at this distance from me
 * (Chebyshev, capped at 19) than a draw uniform over the set says, [1] when the mind holds
 * that it remembers me: bench_master's BENCH_MASTER_BELIEF tally over seeds 20001-20300
 * (master against hard, 25x25, 35,000 calls), rounded. It comes to strike from 2 or 3
 * squares when it knows where I am, and strays far less than the set's walk allows. */
static const float bel_dist[2][20] = {
	{ 1, 1, 1, 1, 1, 1, 1, 1, 1.1f, 1.1f, 1.1f, 0.95f, 0.95f, 0.85f, 0.85f, 0.85f, 0.85f, 0.63f, 0.63f, 0.65f },
	{ 1, 1, 1.35f, 1.8f, 1.1f, 0.95f, 0.95f, 0.95f, 0.95f, 0.95f, 0.95f, 0.8f, 0.8f, 0.8f, 0.8f, 0.7f, 0.7f,
	  0.57f, 0.57f, 0.45f },
};
/* The same by lines, when it remembers me: [on a line through me][on one through where it
 * remembers me]. Hard ends its turn off the lines of the square it thinks I hold. */
static const float bel_line[2][2] = { { 1, 0.69f }, { 1.32f, 0.7f } };

static int
on_line(int ax, int ay, int bx, int by)
{
	int dx = ax > bx ? ax - bx : bx - ax, dy = ay > by ? ay - by : by - ay;
	return dx == 0 || dy == 0 || dx == dy;
}

/* The belief of hard, replaced by the mind's set of squares the opponent may be on, when
 * the view does not show it: the set is narrower (it grows a turn's walk a turn from the
 * last square known, less all I have seen since), where the view has only "lost". */
static void
believe_mind(struct master *m)
{
	const struct bot_mind *mind = m->mind;
	const struct view *v = m->v;

	if (!mind || !MIND_POS || m->bel.exact || mind->exact || mind->nmay <= 0)
		return;
	int mx = 0, my = 0;
	bool hunted = mind_opp_remembers(mind, v, &mx, &my);
	memset(m->bel.w, 0, sizeof m->bel.w);
	m->bel.wtotal = 0;
	for (int y = 1; y < v->opt.size - 1; y++)
		for (int x = 1; x < v->opt.size - 1; x++) {
			if (!mind->may[y][x] || (x == v->x && y == v->y))
				continue;
			float wt = vcell(v, x, y) == VCELL_FLOOR ? 1.0f : BEL_UNKNOWN;
			if (v->opp_state == OPP_REMEMBERED && x == v->opp_x && y == v->opp_y)
				wt *= BEL_REM; /* it may well not have moved (hard's own weight) */
			if (BEL_DIST > 0) {
				int dx = x > v->x ? x - v->x : v->x - x, dy = y > v->y ? y - v->y : v->y - y;
				int d = dx > dy ? dx : dy;
				wt *= bel_dist[hunted][d > 19 ? 19 : d];
				if (BEL_DIST > 1 && hunted)
					wt *= bel_line[on_line(v->x, v->y, x, y)][on_line(mx, my, x, y)];
			}
			if (BEL_TOWARD > 0 && hunted) {
				int dx = x > mx ? x - mx : mx - x, dy = y > my ? y - my : my - y;
				if ((dx > dy ? dx : dy) <= BEL_NEAR)
					wt *= BEL_TOWARD; /* it remembers me: hard comes to strike */
			}
			m->bel.w[y][x] = wt;
			m->bel.wtotal += wt;
		}
	if (m->bel.lost && (mind->nmay <= MIND_SEARCH_LOST || (MIND_SEARCH_KNOWN && mind_opp_remembers(mind, v, &mx, &my))))
		m->bel.lost = false;
}

int
bot__master_choose_w(const struct view *v, const struct bot__weights *w, const struct bot_mind *mind,
    struct rng *rng, long budget, struct cmd *out)
{
	static const struct cmd pass = { CMD_PASS, 0, 0 };
	/* About 120 KiB: too much for some threads' stacks, and this must not allocate per
	 * call in a hot loop either; one per call keeps it reentrant. */
	struct master m_storage, *m = &m_storage;
	struct rng peek = *rng;
	uint64_t key = rng_next(&peek) ^ rng_mix64((uint64_t)v->turn_no << 1 | v->me);
	int distinct = 0, best = 0, active[MASTER_PLANS], nactive, rounds = 0;
	long spent = 0;

	*out = pass;
	if (v->turn != v->me || v->result != RESULT_NONE)
		return 0;
	m->v = v;
	m->mind = mind;
	if (DISTINCT_FIRST > 0) {
		/* A call decides one command: a step or the action where I stand. Plans that
		 * begin alike are one choice, and the best of several noisy means is too hopeful:
		 * so each first command is played out once, by hard's best plan that begins
		 * with it, and the candidates are the first commands of hard's best plans. */
		struct bot__plan all[DISTINCT_FIRST > MASTER_PLANS ? DISTINCT_FIRST : MASTER_PLANS];
		int n = bot__plans_mind(v, w, mind, all, DISTINCT_FIRST, &m->bel);
		m->nplan = 0;
		for (int i = 0; i < n && m->nplan < MASTER_PLANS; i++) {
			bool seen = false;
			for (int j = 0; j < m->nplan && !seen; j++)
				seen = memcmp(&m->plan[j].first, &all[i].first, sizeof(struct cmd)) == 0;
			if (!seen)
				m->plan[m->nplan++] = all[i];
		}
	} else {
		m->nplan = bot__plans_mind(v, w, mind, m->plan, MASTER_PLANS, &m->bel);
	}
	if (m->nplan <= 0)
		return 0;
	*out = m->plan[0].first;
	believe_mind(m);
	if (ESCAPE_HP > 0)
		add_escapes(m);
	for (int i = 0; i < m->nplan; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = memcmp(&m->plan[j].first, &m->plan[i].first, sizeof(struct cmd)) == 0;
		distinct += !seen;
	}
	/* One way to begin, or a killing blow at hand: nothing a search could improve. With
	 * the opponent lost, an exchange played out from anywhere it may be rarely meets it, and
	 * the means tie: hard's own order would decide, so its first plan is taken unsearched. */
	if (distinct <= 1 || m->plan[0].score >= 5000 || (m->bel.lost && LOST_TURNS <= 0) || budget < MASTER_MIN_BUDGET)
		return 0;
	m->turns = m->bel.lost ? LOST_TURNS : ROLLOUT_TURNS;
	if (LOW_TURNS > 0 && v->hp <= LOW_HP && (v->opp_state == OPP_VISIBLE || v->opp_state == OPP_SENSED))
		m->turns = LOW_TURNS;
	bool end_phase = v->turn_no >= game_end_phase(v->opt.size);
	if (END_TURNS > 0 && end_phase)
		m->turns = END_TURNS;
	m->prior = END_PRIOR >= 0 && end_phase ? END_PRIOR : PRIOR_WEIGHT;
	for (int k = 0; k < m->nplan; k++) {
		bfs_to(m, m->dist[k], NULL, m->plan[k].x, m->plan[k].y, m->plan[k].steps);
		m->sum[k] = 0;
		m->dsum[k] = 0;
		m->dsq[k] = 0;
		active[k] = k;
	}
	nactive = m->nplan;
	/* Rounds of one determinization each, every plan still in the race played out in it
	 * (common random numbers: the plans are compared on the same luck). The budget counts
	 * commands, not play-outs, so a call's work is bounded whatever its play-outs cost; a
	 * round is kept only whole. Successive halving: when a share of the budget is spent,
	 * the worse half of the plans drop out, and the rest get the rounds they leave. */
	double z = m->bel.lost ? LOST_Z : PAIRED_Z; /* hard's first plan left only for one better by z standard errors */
	long phase_end = budget / HALVINGS;
	int phase = 1;
	for (;;) {
		uint64_t seed = rng_mix64(key + (uint64_t)rounds * 0x9e3779b97f4a7c15ULL);
		float got[MASTER_PLANS] = { 0 };
		bool whole = true;
		determinize(m, seed, &m->base);
		m->memo.n = m->memo.next = 0; /* a new game: nothing it held can come again */
		spent += DRAW_COST;
		for (int i = 0; i < nactive; i++) {
			int k = active[i];
			struct rng r;
			if (spent >= budget) {
				whole = false;
				break;
			}
			rng_seed(&r, seed ^ 0xb07ULL);
			m->sim = m->base;
			got[k] = play_out(m, k, &r, seed ^ 0x0ffe5ULL, &spent);
		}
		if (!whole)
			break;
		for (int i = 0; i < nactive; i++) {
			int k = active[i];
			double d = got[k] - got[0];
			m->sum[k] += got[k];
			m->dsum[k] += d;
			m->dsq[k] += d * d;
		}
		rounds++;
		if (spent >= budget)
			break;
		if (spent >= phase_end && nactive > 2 && phase < HALVINGS) {
			/* keep the better half (rounded up), best first */
			for (int i = 1; i < nactive; i++)
				for (int j = i; j > 0 && plan_value(m, active[j], rounds) > plan_value(m, active[j - 1], rounds); j--) {
					int t = active[j];
					active[j] = active[j - 1];
					active[j - 1] = t;
				}
			nactive = (nactive + 1) / 2;
			if (z > 0) { /* hard's first plan stays in the race: the others are measured against it */
				bool kept = false;
				for (int i = 0; i < nactive; i++)
					kept |= active[i] == 0;
				for (int i = nactive; i < m->nplan && !kept; i++)
					if (active[i] == 0) {
						active[i] = active[nactive];
						active[nactive++] = 0;
						kept = true;
					}
			}
			phase++;
			phase_end = budget * phase / HALVINGS;
		}
	}
	if (rounds == 0)
		return 0;
	float top = 0;
	for (int i = 0; i < nactive; i++) {
		int k = active[i];
		float val = plan_value(m, k, rounds);
		if (i == 0 || val > top) {
			top = val;
			best = k;
		}
	}
	if (z > 0 && best != 0) {
		/* Noise can make a plan look better than hard's first: leave it only when the
		 * difference, round by round on the same draws, stands out of that noise by
		 * PAIRED_Z standard errors. One round cannot measure its noise: hard's plan. */
		double mean = m->dsum[best] / rounds;
		double var = rounds > 1 ? (m->dsq[best] - rounds * mean * mean) / (rounds - 1) : 0;
		double gain = mean + m->prior * (m->plan[best].score - m->plan[0].score);
		if (rounds < 2 || gain <= 0 || gain * gain <= z * z * (var > 0 ? var / rounds : 0))
			best = 0;
	}
	*out = m->plan[best].first;
	return (int)(spent > INT32_MAX ? INT32_MAX : spent);
}
