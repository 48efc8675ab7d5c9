/* SPDX-License-Identifier: MIT */
/* bot: players that choose a command from a view alone.
 *
 * One row per level in choose.c's `choosers`; the first four are here:
 *
 *   random  a random legal command: the selfplay and test opponent.
 *   easy    wanders at random. It strikes only when the opponent is in sight (or sensed) and already
 *           inside an offered spell's reach from where it stands, heals when down to 2 HP,
 *           and otherwise picks up what it stands on or passes. It never plans a step.
 *   normal  hunts. It walks a shortest known way to the opponent's square (seen, sensed
 *           or remembered), or explores towards the unknown and the potions it knows of
 *           when it has lost the opponent, and after each step it strikes as soon as an
 *           offered spell surely reaches the opponent from where it stands. It heals when
 *           hurt, drinks what it knows to be good when it helps, picks potions up, and
 *           casts Life Detection or Magic Mapping when it has lost the opponent.
 *   hard    plans the whole turn. It scores every square it can still reach this turn
 *           and, on each, every command it could then give: the chance an offered spell
 *           hits the opponent from there (exactly where it is in sight or sensed; over
 *           the squares it may have walked to when only remembered; anywhere unseen for
 *           Rays of Cold when lost), heals, potions (Telepathy, Speed, resistances,
 *           Identify on unknown ones), minus the danger of standing there (in the
 *           opponent's sight, or on its row, column or diagonal), plus how far the square
 *           brings it towards its quarry. It steps towards the best square and acts there,
 *           so it strikes from out of the opponent's sight where it can.
 *   master  searches (master.c). Its own plans are hard's, given a mind (mind.h): with the
 *           opponent lost they weigh the squares the mind says it may be on instead of
 *           everything unseen, hunt them when they are few (MIND_GOAL), and aim every
 *           spell at them (MIND_AIM): Fire Storm and Take Life too, where hard aims only
 *           Rays of Cold and Lightning Bolts at a lost opponent. Without that, a set of
 *           one square behind a wall (the opponent at 1 HP) made master cast Navigate
 *           with Fire Storm in hand; with it master won 77.1% of the 1,000 duels
 *           against hard at 25x25, 71.3% before (docs/bots.md, "Aimed at the
 *           mind's squares").
 *
 * No level keeps memory between calls: a turn is several calls (steps, then an action),
 * and each call plans again from the new view (see seen_this_turn() for what hard infers
 * of its own turn from the steps it has left). Only commands the view shows legal are
 * given: steps onto known floor not held by a visible opponent (the eight squares around
 * a wizard are always in sight), casts of an offered slot with a direction exactly when
 * the spell takes one, potions that are underfoot or carried.
 *
 * Cost, stated: at most 2 ms per call at 51x51, the largest level, for every level.
 * A call runs at most five breadth-first searches over the level and, for hard, scores
 * at most 21x21 squares (Speed's 10 steps), each with two or three Fire Storm floods of
 * at most 10 steps (eight on the remembered square itself). The worst case found (hard
 * with Speed at 51x51, the opponent remembered so no flood can stop early) is about 7
 * million instructions, 1.0 to 1.2 ms; the mean is under 0.1 ms (tests/bench/bench_bot.c,
 * docs/bots.md). All work space is one struct on the stack (about 42 KiB); nothing is
 * allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "botint.h"
#include "fov.h"

#ifndef MIND_PLANS
#define MIND_PLANS 1  /* master's own plans weigh a lost opponent by the mind's squares (0: by the view's) */
#endif
#ifndef MIND_GOAL
#define MIND_GOAL 60  /* and hunt those squares when they are this few */
#endif
#ifndef MIND_AIM
#define MIND_AIM (LEVEL_MAX * LEVEL_MAX) /* and aim every spell at them when they are this few: always (0: never) */
#endif
#ifndef MIND_AIM_DANGER
#define MIND_AIM_DANGER 0 /* 1: and fear their sight at the end of my turn (not kept: docs/bots.md, "Master: what was measured") */
#endif

static const uint8_t dirs8[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };
/* dirs8's offsets, for the inner loops (dir_dx() and dir_dy() are calls into game.c). */
static const int8_t dx8[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
static const int8_t dy8[8] = { -1, -1, 0, 1, 1, 1, 0, -1 };
/* The same steps on a LEVEL_MAX-wide grid as one index, y * LEVEL_MAX + x. */
static const int16_t step8[8] = { -LEVEL_MAX, 1 - LEVEL_MAX, 1, 1 + LEVEL_MAX, LEVEL_MAX, LEVEL_MAX - 1, -1, -1 - LEVEL_MAX };

/* Can I step that way, as far as I can tell? Adjacent squares are always in sight,
 * so for a step the view is never stale. */
static bool
step_ok(const struct view *v, int d)
{
	int x = v->x + dir_dx(d), y = v->y + dir_dy(d);

	if (x < 0 || y < 0 || x >= v->opt.size || y >= v->opt.size)
		return false;
	if ((v->cell[y][x] & ~VCELL_VISIBLE) != VCELL_FLOOR)
		return false;
	return !(v->opp_state == OPP_VISIBLE && v->opp_x == x && v->opp_y == y);
}

static int
pick_step(const struct view *v, struct rng *r)
{
	uint8_t ok[8];
	int n = 0;

	for (int i = 0; i < 8; i++)
		if (step_ok(v, dirs8[i]))
			ok[n++] = dirs8[i];
	return n ? ok[rng_below(r, (uint32_t)n)] : DIR_NONE;
}

/* Easy's step: towards the opponent when it knows where that is, half the time; else,
 * half the time, on a heading it keeps for eight turns (drawn from the turn number, so
 * no memory is needed); otherwise at random. A pure random walk covers ground in the
 * square root of its steps: at 51x51 easy and random rarely met, and half their duels
 * reached the turn limit. */
static int
easy_step(const struct view *v, struct rng *r)
{
	int tx, ty;

	if (v->opp_state != OPP_UNKNOWN && rng_chance(r, 1, 2)) {
		tx = v->opp_x;
		ty = v->opp_y;
	} else if (rng_chance(r, 1, 2)) {
		int h = (int)(rng_mix64((uint64_t)(v->turn_no / 16) << 1 | v->me) % 8);
		tx = v->x + dx8[h] * LEVEL_MAX;
		ty = v->y + dy8[h] * LEVEL_MAX;
	} else {
		return pick_step(v, r);
	}
	int far = abs(v->x - tx) > abs(v->y - ty) ? abs(v->x - tx) : abs(v->y - ty);
	int sum = abs(v->x - tx) + abs(v->y - ty), best = DIR_NONE;
	for (int i = 0; i < 8; i++) {
		int nx = v->x + dx8[i], ny = v->y + dy8[i];
		int ax = abs(nx - tx), ay = abs(ny - ty), d = ax > ay ? ax : ay;
		if (!step_ok(v, dirs8[i]) || (nx == tx && ny == ty) || d > far || (d == far && ax + ay >= sum))
			continue;
		far = d;
		sum = ax + ay;
		best = dirs8[i];
	}
	return best != DIR_NONE ? best : pick_step(v, r);
}

/* Random: three steps in four while steps are left, then an action at random,
 * weighted towards casting so that random duels end. */
void
bot__choose_random(const struct view *v, struct rng *r, struct cmd *out)
{
	bool potion_here = v->potion[v->y][v->x] != 0;
	int d;

	if (v->steps_left > 0 && rng_chance(r, 3, 4) && (d = pick_step(v, r)) != DIR_NONE) {
		*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
		return;
	}
	int roll = (int)rng_below(r, 12);
	if (roll < 7) {
		int slot = (int)rng_below(r, SPELL_OFFERED);
		int dir = spell_takes_dir(v->offered[slot]) ? dirs8[rng_below(r, 8)] : DIR_NONE;
		*out = (struct cmd){ CMD_CAST, (uint8_t)slot, (uint8_t)dir };
	} else if (roll < 8 && potion_here) {
		*out = (struct cmd){ CMD_DRINK, 0, 0 };
	} else if (roll < 10 && potion_here && v->ninv < INV_MAX) {
		*out = (struct cmd){ CMD_PICKUP, 0, 0 };
	} else if (roll < 11 && v->ninv > 0) {
		*out = (struct cmd){ CMD_QUAFF, (uint8_t)rng_below(r, v->ninv), 0 };
	} else {
		*out = (struct cmd){ CMD_PASS, 0, 0 };
	}
}

/* ---- what the thinking levels share: a model of the level and of the opponent ---- */

/* The rules' Fire Storm reach (game.h): a random FIRE_MIN to FIRE_MAX steps. */
#define FIRE_FAR FIRE_MAX

/* Values are in hundredths of a hit: one point of damage to the opponent is worth 100. */
#define V_HIT 100.0f
#define V_KILL 10000.0f
#define V_NEVER (-1e6f)

/* What the bot believes of the opponent's whereabouts. */
enum belief {
	B_NONE,  /* nothing usable: no spell is aimed */
	B_EXACT, /* in sight, sensed or seen this turn: one square, for sure */
	B_NEAR,  /* remembered: somewhere within one turn's walk of that square, out of my sight */
	B_ANY,   /* lost: anywhere I do not see now */
};

#define NCELLS (LEVEL_MAX * LEVEL_MAX)
#define UNREACHED INT16_MAX

struct brain {
	const struct view *v;
	const struct bot_mind *mind;  /* with the opponent lost, where it may be (or NULL) */
	const struct bot__weights *k; /* the numbers it weighs by */
	int size, me_x, me_y, hp;
	int belief, ox, oy;          /* ox, oy: the square believed (B_EXACT) or remembered (B_NEAR) */
	bool point;                  /* the belief is the one square (ox, oy), with odds w / wtotal */
	bool aimed;                  /* B_ANY over a mind's squares: every spell is aimed at them */
	float unknown_frac;          /* share of the level's inside I have never seen */
	struct level lv;             /* known floor (and the opponent's square) is floor; all else wall */
	struct level open;           /* the same with unknown squares as floor: sight I cannot rule out */
	/* The searches read these grids flat (y * LEVEL_MAX + x): each union makes the grid one
	 * array of NCELLS, so a flat index past the first row stays inside the object. */
	union { int16_t dme[LEVEL_MAX][LEVEL_MAX]; int16_t dme_flat[NCELLS]; };     /* steps from me over known floor; UNREACHED otherwise */
	union { uint8_t first[LEVEL_MAX][LEVEL_MAX]; uint8_t first_flat[NCELLS]; }; /* the first step of a shortest way there */
	union { int16_t dgoal[LEVEL_MAX][LEVEL_MAX]; int16_t dgoal_flat[NCELLS]; }; /* steps to the nearest goal, unknown squares passable */
	union { float w[LEVEL_MAX][LEVEL_MAX]; float w_flat[NCELLS]; };             /* how much the opponent may be there */
	float wtotal;
	union { uint16_t stamp[LEVEL_MAX][LEVEL_MAX]; uint16_t stamp_flat[NCELLS]; }; /* stamp == gen: touched by the area being summed */
	uint16_t gen;
	uint16_t queue[NCELLS];
	uint8_t pass[NCELLS];        /* may the goal search pass: inside, not known rock (y * LEVEL_MAX + x) */
	uint8_t walk[NCELLS];        /* known floor (never on the outer ring) */
	/* What one decision computes once and reads many times (the same answers as computing
	 * them where they are read: a cache, never a different rule; test_bot.c checks). */
	int wx0, wy0, wx1, wy1;      /* the box holding every square of w > 0 */
	int walked;                  /* dme and first hold every square within this many steps of me */
	int fire_x, fire_y;          /* p_fire towards each of dirs8 from this square, in fire_p */
	float fire_p[8];
	int take_x, take_y;          /* p_take from this square, in take_p */
	float take_p;
	bool have_osight, have_odanger;
	struct fov_sight osight;     /* what (ox, oy) sees over lv: sees() from anywhere to it */
	struct fov_sight odanger;    /* what (ox, oy) sees over open: danger() */
};

static int
cell_of(const struct view *v, int x, int y)
{
	return v->cell[y][x] & ~VCELL_VISIBLE;
}

static bool
inside(const struct brain *b, int x, int y)
{
	return x > 0 && y > 0 && x < b->size - 1 && y < b->size - 1;
}

static int
iabs(int a)
{
	return a < 0 ? -a : a;
}

static int
cheb(int x0, int y0, int x1, int y1)
{
	int dx = iabs(x0 - x1), dy = iabs(y0 - y1);
	return dx > dy ? dx : dy;
}

static bool
aligned(int x0, int y0, int x1, int y1)
{
	return (x0 != x1 || y0 != y1) && (x0 == x1 || y0 == y1 || iabs(x0 - x1) == iabs(y0 - y1));
}

static void
next_gen(struct brain *b)
{
	if (++b->gen == 0) {
		memset(b->stamp, 0, sizeof b->stamp);
		b->gen = 1;
	}
}

/* The weight of (x, y), once per area. */
static float
take(struct brain *b, int x, int y)
{
	if (b->stamp[y][x] == b->gen)
		return 0;
	b->stamp[y][x] = b->gen;
	return b->w[y][x];
}

/* Breadth-first distances, up to `maxd`, over passable squares from the sources already
 * at 0 in `d` and queued in b->queue[0..n). With `reach` > 0, only the squares within
 * `reach` steps of me are wanted: once my own square has its distance D, nothing farther
 * than D + reach is (every square within `reach` steps of me is within D + reach of the
 * sources), which spares a search of the whole level for a few squares around me. */
static void
spread_near(struct brain *b, int16_t d[NCELLS], int n, int maxd, int reach)
{
	int head = 0, tail = n, me = b->me_y * LEVEL_MAX + b->me_x;

	if (reach > 0 && d[me] != UNREACHED && d[me] + reach < maxd)
		maxd = d[me] + reach;
	while (head < tail) {
		int q = b->queue[head];
		head++;
		if (d[q] >= maxd)
			continue;
		/* Sources and what they reach are inside the outer ring (b->pass is 0 on it), so
		 * every neighbour is on the grid. */
		for (int i = 0; i < 8; i++) {
			int nq = q + step8[i];
			if (!b->pass[nq] || d[nq] != UNREACHED)
				continue;
			d[nq] = (int16_t)(d[q] + 1);
			b->queue[tail++] = (uint16_t)nq;
			if (reach > 0 && nq == me && d[nq] + reach < maxd)
				maxd = d[nq] + reach;
		}
	}
}

static void
spread(struct brain *b, int16_t d[NCELLS], int n, int maxd)
{
	spread_near(b, d, n, maxd, 0);
}

/* Only the level's own rows and columns: nothing reads past them, and a search is run
 * several times a call (clearing the whole 51x51 arrays was a tenth of hard's time at
 * 25x25). */
static void
dist_reset(const struct brain *b, int16_t d[LEVEL_MAX][LEVEL_MAX])
{
	for (int y = 0; y < b->size; y++)
		for (int x = 0; x < b->size; x++)
			d[y][x] = UNREACHED;
}

/* Where I can walk, and how: known floor only, never the opponent's square when known.
 * Only the squares within `far` steps are searched (and their neighbours given their
 * distance): a decision reads the squares within its steps left, and patrol_target(),
 * which reads them all, asks for the whole walk again. With the whole map known, as the
 * opponent of a master play-out knows it, the whole walk was a sixth of hard's time. */
static void
walk_map(struct brain *b, int far)
{
	int head = 0, tail = 0;

	dist_reset(b, b->dme);
	b->dme[b->me_y][b->me_x] = 0;
	b->first[b->me_y][b->me_x] = DIR_NONE;
	b->queue[tail++] = (uint16_t)(b->me_y * LEVEL_MAX + b->me_x);
	int16_t *d = b->dme_flat;
	uint8_t *first = b->first_flat;
	int held = b->belief == B_EXACT ? b->oy * LEVEL_MAX + b->ox : -1;
	while (head < tail) {
		int q = b->queue[head];
		head++;
		if (d[q] >= far)
			continue;
		/* I stand inside the outer ring and floor is never on it: all on the grid. */
		for (int i = 0; i < 8; i++) {
			int nq = q + step8[i];
			if (!b->walk[nq] || d[nq] != UNREACHED || nq == held)
				continue;
			d[nq] = (int16_t)(d[q] + 1);
			first[nq] = first[q] != DIR_NONE ? first[q] : dirs8[i];
			b->queue[tail++] = (uint16_t)nq;
		}
	}
	b->walked = far;
}

/* Does (ox, oy) see (x, y) over `lv`? Answered from one field of view of (ox, oy), computed
 * at the first question of a decision (fov_los is symmetric, and fov_sight gives its
 * answers): a decision scores many squares against the one square believed. */
static bool
seen_from(const struct level *lv, int ox, int oy, struct fov_sight *sight, bool *have, int x, int y)
{
	if (!*have) {
		fov_sight(lv, ox, oy, sight);
		*have = true;
	}
	return fov_seen(sight, x, y);
}

/* Would I see (ox, oy) from (x, y)? Unknown squares block: sight I cannot count on. */
static bool
sees_opp(struct brain *b, int x, int y)
{
	return !b->v->opt.fov || seen_from(&b->lv, b->ox, b->oy, &b->osight, &b->have_osight, x, y);
}

/* Is the remembered square surely where the opponent stands now? The opponent never
 * moves during my turn, and the rules forget a remembered square as soon as I see it
 * empty: so if I saw that square at any moment of this turn, the opponent is on it now.
 * The view does not say when I last saw it, but it does say how many steps I have taken
 * this turn; if no square within that many steps of me sees it, I cannot have seen it
 * this turn. If one does, I take it that I did: a hunter that walked that near its
 * quarry's square looked at it (and the few times it did not cost a wasted spell).
 * Without this, stepping out of the opponent's sight would make it a guess and stepping
 * back a certainty, and a planner that scores each square afresh walks back and forth. */
static bool
seen_this_turn(struct brain *b)
{
	const struct view *v = b->v;
	int full = STEPS_PER_TURN, head = 0, tail = 0;

	if (v->intrinsics & INTRINSIC(HANDLER_FAST))
		full += STEPS_PER_TURN;
	if (v->intrinsics & INTRINSIC(HANDLER_SLOW))
		full -= SLOW_PENALTY;
	int taken = full - v->steps_left;
	if (taken <= 0)
		return false;
	/* dgoal is free until goal_map(): here it holds the steps back from me. */
	dist_reset(b, b->dgoal);
	b->dgoal[b->me_y][b->me_x] = 0;
	b->queue[tail++] = (uint16_t)(b->me_y * LEVEL_MAX + b->me_x);
	while (head < tail) {
		int x = b->queue[head] % LEVEL_MAX, y = b->queue[head] / LEVEL_MAX;
		head++;
		if (sees_opp(b, x, y))
			return true;
		if (b->dgoal[y][x] >= taken)
			continue;
		for (int i = 0; i < 8; i++) {
			int nx = x + dx8[i], ny = y + dy8[i];
			if (!inside(b, nx, ny) || cell_of(v, nx, ny) != VCELL_FLOOR || b->dgoal[ny][nx] != UNREACHED)
				continue;
			b->dgoal[ny][nx] = (int16_t)(b->dgoal[y][x] + 1);
			b->queue[tail++] = (uint16_t)(ny * LEVEL_MAX + nx);
		}
	}
	return false;
}

/* Where the opponent may be. `spread_near`: a remembered square stands for every square
 * within one turn's walk of it that I do not see now (a visible square would show it);
 * otherwise it stands for itself alone, at half the odds, as normal reads it.
 * `any`: when lost, every square out of my sight. */
static void
believe(struct brain *b, bool spread_near, bool any)
{
	const struct view *v = b->v;
	int n = 0;

	memset(b->w, 0, sizeof b->w[0] * (size_t)b->size); /* the level's rows: nothing reads past them */
	b->wtotal = 0;
	b->belief = B_NONE;
	b->point = false;
	b->aimed = false;
	/* The box of w > 0: the one square (ox, oy) unless the belief spreads (set below). */
	b->wx0 = b->wx1 = v->opp_x;
	b->wy0 = b->wy1 = v->opp_y;
	if (v->opp_state == OPP_VISIBLE || v->opp_state == OPP_SENSED || !v->opt.fov) {
		if (v->opp_state == OPP_UNKNOWN)
			return; /* cannot happen with FoV off: the opponent is always in sight */
		b->belief = B_EXACT;
		b->ox = v->opp_x;
		b->oy = v->opp_y;
		b->w[b->oy][b->ox] = 1;
		b->wtotal = 1;
		b->point = true;
		return;
	}
	if (v->opp_state == OPP_REMEMBERED) {
		b->ox = v->opp_x;
		b->oy = v->opp_y;
		if (spread_near && seen_this_turn(b)) {
			b->belief = B_EXACT;
			b->w[b->oy][b->ox] = 1;
			b->wtotal = 1;
			b->point = true;
			return;
		}
		if (!spread_near) {
			b->belief = B_NEAR;
			b->w[b->oy][b->ox] = 1;
			b->wtotal = 2; /* half the odds: it may have moved */
			b->point = true;
			return;
		}
		dist_reset(b, b->dgoal);
		b->dgoal[b->oy][b->ox] = 0;
		b->queue[n++] = (uint16_t)(b->oy * LEVEL_MAX + b->ox);
		spread(b, b->dgoal_flat, n, STEPS_PER_TURN);
		b->wx0 = b->wy0 = LEVEL_MAX;
		b->wx1 = b->wy1 = -1;
		for (int y = 1; y < b->size - 1; y++)
			for (int x = 1; x < b->size - 1; x++) {
				int d = b->dgoal[y][x];
				if (d > STEPS_PER_TURN || (v->cell[y][x] & VCELL_VISIBLE))
					continue;
				float wt = cell_of(v, x, y) == VCELL_FLOOR ? 1.0f : 0.5f;
				if (d == 0)
					wt *= b->k->stay; /* it may well not have moved */
				b->w[y][x] = wt;
				b->wtotal += wt;
				b->wx0 = x < b->wx0 ? x : b->wx0;
				b->wx1 = x > b->wx1 ? x : b->wx1;
				b->wy0 = y < b->wy0 ? y : b->wy0;
				b->wy1 = y > b->wy1 ? y : b->wy1;
			}
		if (b->wtotal > 0) {
			b->belief = B_NEAR;
			return;
		}
	}
	if (!any)
		return;
	b->wx0 = b->wy0 = 1;
	b->wx1 = b->wy1 = b->size - 2;
	for (int y = 1; y < b->size - 1; y++)
		for (int x = 1; x < b->size - 1; x++) {
			if ((v->cell[y][x] & VCELL_VISIBLE) || cell_of(v, x, y) == VCELL_WALL)
				continue;
			if (b->mind && !b->mind->may[y][x])
				continue;
			float wt = cell_of(v, x, y) == VCELL_FLOOR ? 1.0f : 0.4f;
			b->w[y][x] = wt;
			b->wtotal += wt;
		}
	if (b->wtotal <= 0)
		return;
	b->belief = B_ANY;
	if (!b->mind || b->mind->nmay > MIND_AIM)
		return;
	/* The mind's squares, not everything unseen: aim Fire Storm and Take Life at them too,
	 * as at the squares round a remembered one (to hard, an opponent lost is worth Rays
	 * of Cold and Lightning alone). Each square stands on floor if the opponent is there. */
	b->aimed = true;
	b->wx0 = b->wy0 = LEVEL_MAX;
	b->wx1 = b->wy1 = -1;
	for (int y = 1; y < b->size - 1; y++)
		for (int x = 1; x < b->size - 1; x++) {
			if (b->w[y][x] <= 0)
				continue;
			b->lv.cell[y][x] = b->open.cell[y][x] = CELL_FLOOR;
			b->wx0 = x < b->wx0 ? x : b->wx0;
			b->wx1 = x > b->wx1 ? x : b->wx1;
			b->wy0 = y < b->wy0 ? y : b->wy0;
			b->wy1 = y > b->wy1 ? y : b->wy1;
		}
}

static void
brain_init(struct brain *b, const struct view *v, const struct bot__weights *k, bool spread_near, bool any)
{
	int unknown = 0;

	b->v = v;
	b->k = k;
	b->size = v->opt.size;
	b->me_x = v->x;
	b->me_y = v->y;
	b->hp = v->hp;
	b->gen = 0;
	b->fire_x = b->take_x = -1;
	b->have_osight = b->have_odanger = false;
	memset(b->stamp, 0, sizeof b->stamp[0] * (size_t)b->size);
	memset(&b->lv, 0, sizeof b->lv);
	b->lv.size = (uint8_t)b->size;
	b->open.size = (uint8_t)b->size;
	for (int y = 0; y < b->size; y++)
		for (int x = 0; x < b->size; x++) {
			int c = cell_of(v, x, y);
			b->lv.cell[y][x] = c == VCELL_FLOOR ? CELL_FLOOR : CELL_WALL;
			b->open.cell[y][x] = c == VCELL_WALL ? CELL_WALL : CELL_FLOOR;
			b->pass[y * LEVEL_MAX + x] = c != VCELL_WALL && inside(b, x, y);
			b->walk[y * LEVEL_MAX + x] = c == VCELL_FLOOR && inside(b, x, y);
			unknown += c == VCELL_UNKNOWN && inside(b, x, y);
		}
	b->unknown_frac = (float)unknown / (float)((b->size - 2) * (b->size - 2));
	/* A wizard stands on floor, even where I have not seen the floor (sensed). */
	if (v->opp_state != OPP_UNKNOWN)
		b->lv.cell[v->opp_y][v->opp_x] = b->open.cell[v->opp_y][v->opp_x] = CELL_FLOOR;
	believe(b, spread_near, any);
	walk_map(b, v->steps_left);
}

/* ---- the spells' areas, as the rules draw them (game.c), over what I know ---- */

/* Narrow [*lo, *hi] to the steps t at which s + t * d lies in [a0, a1]; false if none. */
static bool
ray_span(int s, int d, int a0, int a1, int *lo, int *hi)
{
	if (d == 0)
		return s >= a0 && s <= a1 && *lo <= *hi;
	int t0 = d > 0 ? a0 - s : s - a1, t1 = d > 0 ? a1 - s : s - a0;
	*lo = t0 > *lo ? t0 : *lo;
	*hi = t1 < *hi ? t1 : *hi;
	return *lo <= *hi;
}

/* Rays of Cold: the eight lines to the edge, through walls. */
static float
p_cold(struct brain *b, int sx, int sy)
{
	float sum = 0;

	if (b->point)
		return aligned(sx, sy, b->ox, b->oy) ? b->w[b->oy][b->ox] / b->wtotal : 0;
	/* Each ray only where it crosses the belief's box: elsewhere w is 0, which adds
	 * nothing (the same sum, in the same order). */
	for (int i = 0; i < 8; i++) {
		int dx = dx8[i], dy = dy8[i], lo = 1, hi = LEVEL_MAX;
		if (!ray_span(sx, dx, b->wx0, b->wx1, &lo, &hi) || !ray_span(sy, dy, b->wy0, b->wy1, &lo, &hi))
			continue;
		for (int t = lo; t <= hi; t++)
			sum += b->w[sy + t * dy][sx + t * dx];
	}
	return sum / b->wtotal;
}

/* Lightning Bolts: four bolts to the first wall, and the floor on either side of them.
 * An unknown square stops a bolt here: what I cannot count on, I do not count. */
static float
p_bolt(struct brain *b, int sx, int sy)
{
	static const int8_t fourx[4] = { 0, -1, 0, 1 }, foury[4] = { -1, 0, 1, 0 }; /* N, W, S, E */
	float sum = 0;

	next_gen(b);
	/* A bolt is followed only while its swath (the bolt's line and a square either side)
	 * can still meet the belief's box: past it every square adds w = 0, and a square
	 * left unmarked there has w = 0 for the bolts after too. The same sum, to the bit. */
	for (int i = 0; i < 4; i++) {
		int fx = fourx[i], fy = foury[i], lo = 1, hi = LEVEL_MAX;
		if (!ray_span(sx, fx, b->wx0 - !fx, b->wx1 + !fx, &lo, &hi) ||
		    !ray_span(sy, fy, b->wy0 - !fy, b->wy1 + !fy, &lo, &hi))
			continue;
		for (int t = 1, x = sx + fx, y = sy + fy; t <= hi && level_floor(&b->lv, x, y); t++, x += fx, y += fy) {
			sum += take(b, x, y);
			for (int s = -1; s <= 1; s += 2)
				if (level_floor(&b->lv, x + s * fy, y + s * fx))
					sum += take(b, x + s * fy, y + s * fx);
		}
	}
	return sum / b->wtotal;
}

/* The odds that a Fire Storm's random reach (5 to 10, evenly) covers d steps. */
_Static_assert(FIRE_MIN == 5 && FIRE_MAX == 10, "fire_odds below assumes a reach of 5 to 10");
static const float fire_odds[FIRE_FAR + 1] = {
	1, 1, 1, 1, 1, 1, 5 / 6.0f, 4 / 6.0f, 3 / 6.0f, 2 / 6.0f, 1 / 6.0f,
};

/* Steps from (x, y) to the nearest square of the belief's box (Chebyshev). */
static int
box_far(const struct brain *b, int x, int y)
{
	int dx = x < b->wx0 ? b->wx0 - x : x > b->wx1 ? x - b->wx1 : 0;
	int dy = y < b->wy0 ? b->wy0 - y : y > b->wy1 ? y - b->wy1 : 0;

	return dx > dy ? dx : dy;
}

/* Fire Storm towards d: a flood over floor inside the cone, 8-direction steps.
 * The flood is not spread from a square farther from every square of w > 0 than the
 * steps it has left (Chebyshev steps are the fewest any way can take): every square on a
 * shortest way to a weighted square within reach passes that test, and so do the squares
 * that reach those first, so the weighted squares are reached at the same steps and in
 * the same order, and the sum is the same to the bit (the others add w = 0). */
static float
p_fire(struct brain *b, int sx, int sy, int d)
{
	int head = 0, tail = 0, fx = dir_dx(d), fy = dir_dy(d), target = b->point ? b->oy * LEVEL_MAX + b->ox : -1;
	const uint8_t *floor = &b->lv.cell[0][0];
	const float *w = b->w_flat;
	uint16_t *stamp = b->stamp_flat, gen;
	float sum = 0;

	/* Only cones that hold the believed square: the others are not worth the flood. */
	if (b->belief == B_ANY ? !b->aimed || box_far(b, sx, sy) > FIRE_FAR :
	    !game_in_cone(fx, fy, b->ox - sx, b->oy - sy) || cheb(sx, sy, b->ox, b->oy) > FIRE_FAR)
		return 0;
	next_gen(b);
	gen = b->gen;
	stamp[sy * LEVEL_MAX + sx] = gen;
	b->queue[tail++] = (uint16_t)(sy * LEVEL_MAX + sx);
	/* Layer by layer: the squares of layer f + 1 are reached at f + 1 steps. */
	for (int f = 0; f < FIRE_FAR && head < tail; f++) {
		int end = tail;
		float odds = fire_odds[f + 1];
		for (; head < end; head++) {
			int q = b->queue[head], x = q % LEVEL_MAX, y = q / LEVEL_MAX;
			if (box_far(b, x, y) > FIRE_FAR - f)
				continue;
			/* Floor is never on the outer ring, so a floor square's neighbours are all on the grid. */
			for (int i = 0; i < 8; i++) {
				int n = q + step8[i];
				if (floor[n] != CELL_FLOOR || stamp[n] == gen || !game_in_cone(fx, fy, x + dx8[i] - sx, y + dy8[i] - sy))
					continue;
				stamp[n] = gen;
				sum += w[n] * odds;
				/* One square believed: the flood first reaches it by its shortest way. */
				if (n == target)
					return sum / b->wtotal;
				b->queue[tail++] = (uint16_t)n;
			}
		}
	}
	return sum / b->wtotal;
}

/* Fire Storm's odds from (sx, sy) towards each of dirs8, once per square: Fire Storm and
 * Random both ask (Random for all eight, at every square). */
static const float *
fire_all(struct brain *b, int sx, int sy)
{
	if (b->fire_x != sx || b->fire_y != sy) {
		for (int i = 0; i < 8; i++)
			b->fire_p[i] = b->belief == B_NONE ? 0 : p_fire(b, sx, sy, dirs8[i]);
		b->fire_x = sx;
		b->fire_y = sy;
	}
	return b->fire_p;
}

/* Take Life: the opponent in sight. Not guessed at when lost: too many squares to try. */
static float
p_take(struct brain *b, int sx, int sy)
{
	float sum = 0;

	if (b->point)
		return sees_opp(b, sx, sy) ? b->w[b->oy][b->ox] / b->wtotal : 0;
	if (b->belief != B_NEAR && !b->aimed)
		return 0;
	/* Take Life and Random both ask, at the same square. */
	if (b->take_x == sx && b->take_y == sy)
		return b->take_p;
	int x0 = sx - FOV_RADIUS > b->wx0 ? sx - FOV_RADIUS : b->wx0, x1 = sx + FOV_RADIUS < b->wx1 ? sx + FOV_RADIUS : b->wx1;
	int y0 = sy - FOV_RADIUS > b->wy0 ? sy - FOV_RADIUS : b->wy0, y1 = sy + FOV_RADIUS < b->wy1 ? sy + FOV_RADIUS : b->wy1;
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			if (x >= 0 && y >= 0 && x < b->size && y < b->size && b->w[y][x] > 0 &&
			    (!b->v->opt.fov || fov_los(&b->lv, sx, sy, x, y, FOV_RADIUS)))
				sum += b->w[y][x];
		}
	b->take_x = sx;
	b->take_y = sy;
	b->take_p = sum / b->wtotal;
	return b->take_p;
}

/* ---- what things are worth ---- */

const struct bot__weights bot__hard_weights = {
	.hurt = { 600, 200, 100 },
	.heal = { 130, 110, 90, 70, 45 },
	.danger_sight = 0.3f, .danger_line = 0.15f, .danger_off = 0.06f, .danger_near = 0.5f,
	.nav = 3, .close = 6,
	.lifedetect_near = 25, .lifedetect_lost = 45, .mapping = 60,
	.escape_cornered = 45, .escape_idle = 2, .escape_unknown = 8,
	.blink_cornered = 50, .blinkall_cornered = 35, .blink_idle = -5, .cornered_hp = 2, .use_measured = 1,
	.telepathy = 60, .speed_exact = 40, .speed_else = 18, .resist_near = 30, .resist_far = 6,
	.teleport_cornered = 60,
	.drink_unknown = 4, .drink_unknown_hp = WIZARD_HP - 1, .pickup_unknown = 15, .identify_each = 12,
	.stay = 4,
};

/* What a hit on me costs: more as I near death. */
static float
hurt_cost_of(const struct brain *b, int hp)
{
	return b->k->hurt[hp <= 1 ? 0 : hp == 2 ? 1 : 2];
}

/* One hit point healed, by the hit points I have before it. */
static float
heal_value(const struct brain *b, int hp, int amount)
{
	float v = 0;

	for (int i = 0; i < amount && hp + i < WIZARD_HP; i++)
		v += b->k->heal[hp + i < 0 ? 0 : hp + i];
	return v;
}

static bool cornered(const struct brain *b);

/* The odds p of one point of damage, and what they are worth when they may kill. */
static float
hit_value(const struct brain *b, float p)
{
	return p * (b->v->opp_hp <= 1 ? V_KILL : V_HIT);
}

static bool
has(const struct view *v, int handler)
{
	return (v->intrinsics & INTRINSIC(handler)) != 0;
}

/* ---- what each kind of potion is worth: one row per kind, in potion_values below ---- */

/* Drinking a potion whose kind I know, now (the kind is the row's, for those that share). */
typedef float (*drink_fn)(const struct brain *b, int kind, bool hard);

static float
drink_healing(const struct brain *b, int kind, bool hard)
{
	return heal_value(b, b->hp, 2);
}

static float
drink_regen(const struct brain *b, int kind, bool hard)
{
	return has(b->v, HANDLER_REGEN) ? 0 : 0.7f * heal_value(b, b->hp, 4);
}

static float
drink_speed(const struct brain *b, int kind, bool hard)
{
	return has(b->v, HANDLER_FAST) || !hard ? 0 : b->belief == B_EXACT ? b->k->speed_exact : b->k->speed_else;
}

/* Cold, fire and lightning resistance (not acid: only Acid Rain deals it, and only the
 * caster and its neighbour). Cold is worth more: Rays of Cold go through walls. */
static float
drink_resist(const struct brain *b, int kind, bool hard)
{
	const struct view *v = b->v;
	bool near = b->belief == B_EXACT || b->belief == B_NEAR;
	int h = potion_info(kind)->arg; /* an intrinsic potion's handler */

	if (!hard || (has(v, h) && v->turns_left[h] > 1))
		return 0;
	return (near ? b->k->resist_near : b->k->resist_far) + (kind == POTION_RESCOLD ? 6.0f : 0.0f);
}

static float
drink_nothing(const struct brain *b, int kind, bool hard)
{
	return 0;
}

static float
drink_telepathy(const struct brain *b, int kind, bool hard)
{
	const struct view *v = b->v;

	if (has(v, HANDLER_TELEPATHY) && v->turns_left[HANDLER_TELEPATHY] > 1)
		return 0;
	return b->belief == B_EXACT && v->opp_state == OPP_VISIBLE ? 10 : hard ? b->k->telepathy : 35;
}

static float
drink_enlighten(const struct brain *b, int kind, bool hard)
{
	return b->k->mapping * b->unknown_frac;
}

static float
drink_teleport(const struct brain *b, int kind, bool hard)
{
	return hard && cornered(b) ? b->k->teleport_cornered : -5;
}

/* Poison and Acid: one point of damage to myself. */
static float
drink_never(const struct brain *b, int kind, bool hard)
{
	return V_NEVER;
}

static float
drink_forget(const struct brain *b, int kind, bool hard)
{
	return -80;
}

static float
drink_slowness(const struct brain *b, int kind, bool hard)
{
	return -50;
}

/* keep: what keeping one is worth (so one is not drunk for less, and Scream weighs what
 * it would break); the bad ones 3: kept away from the opponent. drink: drinking it now.
 * A kind without a row fails tests/common/test_bot.c (bot, every_spell_and_potion_has_a_value). */
static const struct {
	float keep;
	drink_fn drink;
} potion_values[POTION_KIND_COUNT] = {
	[POTION_HEALING] = { 35, drink_healing },
	[POTION_SPEED] = { 15, drink_speed },
	[POTION_REGEN] = { 25, drink_regen },
	[POTION_RESCOLD] = { 8, drink_resist },
	[POTION_RESFIRE] = { 8, drink_resist },
	[POTION_RESELEC] = { 8, drink_resist },
	[POTION_RESACID] = { 3, drink_nothing }, /* carried: best_action's use_value */
	[POTION_TELEPATHY] = { 20, drink_telepathy },
	[POTION_ENLIGHTEN] = { 8, drink_enlighten },
	[POTION_TELEPORT] = { 10, drink_teleport },
	[POTION_FORGET] = { 3, drink_forget },
	[POTION_ACID] = { 3, drink_never },
	[POTION_POISON] = { 3, drink_never },
	[POTION_SLOWNESS] = { 3, drink_slowness },
};

static float
keep_value(int kind)
{
	return potion_values[kind].keep;
}

static float
drink_value(const struct brain *b, int kind, bool hard)
{
	return potion_values[kind].drink(b, kind, hard);
}

/* Drinking a potion of unknown kind: even odds of good and bad, and it identifies. Only
 * hard risks it, and only with hit points to spare and no opponent at hand. */
static float
drink_unknown_value(const struct brain *b, bool hard)
{
	return hard && (float)b->hp >= b->k->drink_unknown_hp && b->belief != B_EXACT ? b->k->drink_unknown : V_NEVER;
}

static float
pickup_value(const struct brain *b, int appearance)
{
	int kind = b->v->kind_of[appearance];

	if (b->v->ninv >= INV_MAX)
		return V_NEVER;
	return kind == POTION_NONE ? b->k->pickup_unknown : keep_value(kind) + 5;
}

struct choice {
	float value;
	struct cmd cmd;
};

static void
consider(struct choice *best, float value, int type, int arg, int dir)
{
	if (value > best->value) {
		best->value = value;
		best->cmd = (struct cmd){ (uint8_t)type, (uint8_t)arg, (uint8_t)dir };
	}
}

/* ---- Blink, Blink All and Acid Resistance: used where measured to help ---- */

int
bot__use_class(const struct view *v)
{
	int full = STEPS_PER_TURN + (has(v, HANDLER_FAST) ? STEPS_PER_TURN : 0) - (has(v, HANDLER_SLOW) ? SLOW_PENALTY : 0);

	if (v->steps_left != (full < 0 ? 0 : full) || v->hp < 1)
		return -1;
	int hp = v->hp > BOT_USE_HP ? BOT_USE_HP : v->hp;
	return ((hp - 1) * 2 + (v->opp_state == OPP_VISIBLE)) * 2 + (v->hp < v->opp_hp);
}

/* Where each item measurably helps hard: tests/bench/bench_use.c's `use_helps` lines,
 * pasted (docs/bots.md, "Blink, Blink All and Acid Resistance"). */
static const uint8_t use_helps[BOT_USE_ITEMS][BOT_USE_CLASSES] = {
	[BOT_USE_BLINK] = { 0 },
	[BOT_USE_BLINKALL] = { 0 },
	[BOT_USE_RESACID] = { 0 },
};

bool
bot__use_helps(int item, int cls)
{
	return item >= 0 && item < BOT_USE_ITEMS && cls >= 0 && cls < BOT_USE_CLASSES && use_helps[item][cls];
}

/* What was measured is using the item at once, at the turn's first command, against hard's
 * best other choice: so where it helps it is worth more than anything but a kill, where I
 * stand, and elsewhere (or later in the turn) it is never chosen. */
#define V_USE (V_KILL * 0.49f)
static float
use_value(const struct brain *b, int item, int sx, int sy)
{
	if (sx == b->me_x && sy == b->me_y && bot__use_helps(item, bot__use_class(b->v)))
		return V_USE;
	return item == BOT_USE_RESACID ? 0 : b->k->blink_idle;
}

/* In the opponent's sight, low, with a wizard who knows where I am: time to leave. */
static bool
cornered(const struct brain *b)
{
	return (float)b->hp <= b->k->cornered_hp && b->belief == B_EXACT && b->v->opp_state == OPP_VISIBLE;
}

/* Scream from (sx, sy): the opponent's potions within 4 shatter at even odds (it starts
 * with two and I cannot see how many it holds now: two are guessed), mine at 1/3. */
static float
scream_value(const struct brain *b, int sx, int sy)
{
	const struct view *v = b->v;
	float mine = 0, theirs = 0;

	for (int i = 0; i < v->ninv; i++) {
		int kind = v->kind_of[v->inv[i]];
		mine += kind == POTION_NONE ? 10 : keep_value(kind);
	}
	if (b->belief == B_EXACT && cheb(sx, sy, b->ox, b->oy) <= 4 && v->opt.potions)
		theirs = 2 * 0.5f * 12;
	return theirs - mine / 3 - 1;
}

/* ---- what each spell is worth: one row per spell, in spell_values below ---- */

/* The worth of casting the spell from (sx, sy); *dir gets its direction if it takes one
 * (the caller set it to DIR_NONE). */
typedef float (*value_fn)(struct brain *b, int sx, int sy, bool hard, int *dir);

static float
value_cold(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return b->belief == B_NONE ? 0 : hit_value(b, p_cold(b, sx, sy));
}

static float
value_lightning(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return b->belief == B_NONE ? 0 : hit_value(b, p_bolt(b, sx, sy));
}

static float
value_fire(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	const float *fp = fire_all(b, sx, sy);
	float best = -1;
	for (int i = 0; i < 8; i++) {
		float p = fp[i];
		if (p > best) {
			best = p;
			*dir = dirs8[i];
		}
	}
	return hit_value(b, best);
}

static float
value_takelife(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	float p = b->belief == B_NONE ? 0 : p_take(b, sx, sy);
	return hit_value(b, p) + p * heal_value(b, b->hp, 1);
}

static float
value_restore(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return heal_value(b, b->hp, 1);
}

static float
value_lifedetect(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return b->belief == B_EXACT ? 0 : b->belief == B_NEAR ? b->k->lifedetect_near : b->k->lifedetect_lost;
}

static float
value_mapping(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return b->k->mapping * b->unknown_frac;
}

/* Alter Dungeon and Mirror Earth both wipe the opponent's map and its memory of me: an
 * escape when it has me in sight and I am low, little else (cast whenever offered, they
 * made hard vs hard at 51x51 last 336 turns, 41 Alter Dungeons a duel). */
static float
value_escape(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return hard && cornered(b) ? b->k->escape_cornered : hard ? b->k->escape_idle + b->k->escape_unknown * b->unknown_frac : 0;
}

static float
value_identify(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	const struct view *v = b->v;
	int unknown_inv = 0;

	for (int i = 0; i < v->ninv; i++)
		unknown_inv += v->kind_of[v->inv[i]] == POTION_NONE;
	return unknown_inv ? b->k->identify_each * (float)(1 + unknown_inv) : 0;
}

static float
value_itemdetect(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return b->v->ninv < INV_MAX ? 4 : 0;
}

static float
value_create(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return 2;
}

/* Navigate and Demolition: new ways through, for either of us. */
static float
value_dig(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return 1;
}

static float
value_blink(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	if (hard && b->k->use_measured != 0)
		return use_value(b, BOT_USE_BLINK, sx, sy);
	return cornered(b) ? b->k->blink_cornered : b->k->blink_idle;
}

/* Both move: out of its sight too, but it is told, and may land near. */
static float
value_blinkall(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	if (hard && b->k->use_measured != 0)
		return use_value(b, BOT_USE_BLINKALL, sx, sy);
	return cornered(b) ? b->k->blinkall_cornered : b->k->blink_idle;
}

static float
value_scream(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return scream_value(b, sx, sy);
}

/* The negative spells are never offered: their worth is what Random may cast. */
static float
value_forget(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	return -(20 * (1 - b->unknown_frac));
}

static float
value_acidrain(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	bool adjacent = b->belief == B_EXACT && cheb(sx, sy, b->ox, b->oy) <= 1;
	return (adjacent ? hit_value(b, 1) : 0) - (b->hp <= 1 ? 5 * V_KILL : hurt_cost_of(b, b->hp));
}

static float value_random(struct brain *b, int sx, int sy, bool hard, int *dir);

/* A spell without a row fails tests/common/test_bot.c (bot, every_spell_and_potion_has_a_value):
 * a bot that cannot weigh a spell never casts it, and nothing else would say so. */
static const value_fn spell_values[SPELL_COUNT] = {
	[SPELL_COLD] = value_cold,
	[SPELL_FIRE] = value_fire,
	[SPELL_LIGHTNING] = value_lightning,
	[SPELL_MAPPING] = value_mapping,
	[SPELL_ALTER] = value_escape,
	[SPELL_IDENTIFY] = value_identify,
	[SPELL_ITEMDETECT] = value_itemdetect,
	[SPELL_LIFEDETECT] = value_lifedetect,
	[SPELL_RESTORE] = value_restore,
	[SPELL_TAKELIFE] = value_takelife,
	[SPELL_MIRROR] = value_escape,
	[SPELL_RANDOM] = value_random,
	[SPELL_DEMOLISH] = value_dig,
	[SPELL_NAVIGATE] = value_dig,
	[SPELL_CREATE] = value_create,
	[SPELL_BLINK] = value_blink,
	[SPELL_BLINKALL] = value_blinkall,
	[SPELL_SCREAM] = value_scream,
	[SPELL_FORGET] = value_forget,
	[SPELL_ACIDRAIN] = value_acidrain,
};

/* The worth of casting `spell` from (sx, sy); *dir gets its direction if it takes one. */
static float
spell_value(struct brain *b, int spell, int sx, int sy, bool hard, int *dir)
{
	*dir = DIR_NONE;
	return spell_values[spell](b, sx, sy, hard, dir);
}

/* Random: the mean worth of every other spell (a Fire Storm in a random direction), Acid
 * Rain and Forgetfulness included, at their cost. */
static float
value_random(struct brain *b, int sx, int sy, bool hard, int *dir)
{
	float sum = 0;
	int d;

	for (int s = 0; s < SPELL_COUNT; s++) {
		if (s == SPELL_RANDOM)
			continue;
		if (s == SPELL_FIRE) {
			const float *fp = fire_all(b, sx, sy);
			float p = 0;
			for (int i = 0; i < 8 && b->belief != B_NONE; i++)
				p += fp[i] / 8;
			sum += hit_value(b, p);
		} else {
			sum += spell_value(b, s, sx, sy, hard, &d);
		}
	}
	return sum / (SPELL_COUNT - 1);
}

bool
bot__valued(int spell, int kind)
{
	if (spell >= 0)
		return spell < SPELL_COUNT && spell_values[spell] != NULL;
	return kind >= 0 && kind < POTION_KIND_COUNT && potion_values[kind].drink != NULL &&
	    potion_values[kind].keep > 0;
}

/* The best command to give standing on (sx, sy), my steps aside. */
static struct choice
best_action(struct brain *b, int sx, int sy, bool hard)
{
	const struct view *v = b->v;
	struct choice best = { 0, { CMD_PASS, 0, 0 } };
	int dir;

	for (int i = 0; i < SPELL_OFFERED; i++) {
		if (v->offered[i] >= SPELL_COUNT)
			continue;
		float val = spell_value(b, v->offered[i], sx, sy, hard, &dir);
		consider(&best, val, CMD_CAST, i, dir);
	}
	for (int i = 0; i < v->ninv; i++) {
		int kind = v->kind_of[v->inv[i]];
		/* Acid Resistance carried: quaffed where it was measured to help (bench_use's
		 * fork quaffs a carried one), worth nothing elsewhere (acid is rare). */
		float val = kind == POTION_NONE ? drink_unknown_value(b, hard)
		    : kind == POTION_RESACID && hard && b->k->use_measured != 0 ? use_value(b, BOT_USE_RESACID, sx, sy) - keep_value(kind)
		                                : drink_value(b, kind, hard) - keep_value(kind);
		consider(&best, val, CMD_QUAFF, i, DIR_NONE);
	}
	if (v->potion[sy][sx]) {
		int a = v->potion[sy][sx] - 1, kind = v->kind_of[a];
		float val = kind == POTION_NONE ? drink_unknown_value(b, hard) : drink_value(b, kind, hard);
		consider(&best, val, CMD_DRINK, 0, DIR_NONE);
		consider(&best, pickup_value(b, a), CMD_PICKUP, 0, DIR_NONE);
	}
	return best;
}

/* ---- where to go ---- */

/* A square to walk to when nothing is left to explore: a different one every few turns,
 * drawn from the turn number among the known floor I can reach. Nothing in the draw
 * depends on where I stand, so the target holds while I walk: a target that moved with
 * me would have me step back and forth. */
static bool
patrol_target(struct brain *b, int *tx, int *ty)
{
	int n = 0;

	if (b->walked < NCELLS)
		walk_map(b, NCELLS); /* every square I can reach, not only those within my steps */

	for (int y = 1; y < b->size - 1; y++)
		for (int x = 1; x < b->size - 1; x++)
			n += b->dme[y][x] != UNREACHED;
	uint64_t h = rng_mix64(((uint64_t)(b->v->turn_no / 8) << 8) ^ b->v->me ^ 0x9a7201ULL);
	int k = (int)(h % (uint64_t)n); /* n >= 1: my own square */
	for (int y = 1; y < b->size - 1; y++)
		for (int x = 1; x < b->size - 1; x++)
			if (b->dme[y][x] != UNREACHED && k-- == 0) {
				*tx = x;
				*ty = y;
				return true;
			}
	return false;
}

/* Fill dgoal: steps to the quarry (the opponent's believed or remembered square), or, when
 * lost, to the nearest unknown square or known potion (if there is room to carry it), or
 * to a patrol square. Unknown squares count as passable: a guess the next steps correct.
 * Only the squares I can reach this turn (and my neighbours) are ever read (rank_plans,
 * step_to_goal), so the search stops once they all have their distance. */
static void
goal_map(struct brain *b)
{
	const struct view *v = b->v;
	int n = 0, tx, ty, reach = v->steps_left > 1 ? v->steps_left : 1;

	dist_reset(b, b->dgoal);
	if (v->opp_state != OPP_UNKNOWN) {
		b->dgoal[v->opp_y][v->opp_x] = 0;
		b->queue[n++] = (uint16_t)(v->opp_y * LEVEL_MAX + v->opp_x);
	} else if (b->mind && b->mind->nmay <= MIND_GOAL) {
		/* Lost, but a mind says it is on one of a few squares: hunt there. */
		for (int y = 1; y < b->size - 1; y++)
			for (int x = 1; x < b->size - 1; x++)
				if (b->mind->may[y][x]) {
					b->dgoal[y][x] = 0;
					b->queue[n++] = (uint16_t)(y * LEVEL_MAX + x);
				}
	} else {
		for (int y = 1; y < b->size - 1; y++)
			for (int x = 1; x < b->size - 1; x++)
				if (cell_of(v, x, y) == VCELL_UNKNOWN || (v->potion[y][x] && v->ninv < INV_MAX)) {
					b->dgoal[y][x] = 0;
					b->queue[n++] = (uint16_t)(y * LEVEL_MAX + x);
				}
	}
	spread_near(b, b->dgoal_flat, n, NCELLS, reach);
	if (b->dgoal[b->me_y][b->me_x] != UNREACHED || !patrol_target(b, &tx, &ty))
		return;
	dist_reset(b, b->dgoal);
	b->dgoal[ty][tx] = 0;
	b->queue[0] = (uint16_t)(ty * LEVEL_MAX + tx);
	spread_near(b, b->dgoal_flat, 1, NCELLS, reach);
}

/* The known step that brings me nearest the goal, if one brings me nearer at all. */
static int
step_to_goal(const struct brain *b)
{
	int best = DIR_NONE, bd = b->dgoal[b->me_y][b->me_x];

	for (int i = 0; i < 8; i++) {
		int x = b->me_x + dx8[i], y = b->me_y + dy8[i];
		if (!step_ok(b->v, dirs8[i]) || (b->belief == B_EXACT && x == b->ox && y == b->oy))
			continue;
		if (b->dgoal[y][x] < bd) {
			bd = b->dgoal[y][x];
			best = dirs8[i];
		}
	}
	return best;
}

/* ---- the levels ---- */

/* Easy: in sight and in reach, it strikes; low, it heals; else it wanders. */
void
bot__choose_easy(const struct view *v, struct rng *r, struct cmd *out)
{
	struct brain b;
	struct choice best = { 0, { CMD_PASS, 0, 0 } };
	int d;

	b.mind = NULL;
	brain_init(&b, v, &bot__hard_weights, false, false);
	/* In sight, or sensed this turn (where it stands is known exactly; Take Life's value
	 * knows it needs sight). */
	if (v->opp_state == OPP_VISIBLE || v->opp_state == OPP_SENSED) {
		for (int i = 0; i < SPELL_OFFERED; i++) {
			int s = v->offered[i];
			if (s != SPELL_COLD && s != SPELL_LIGHTNING && s != SPELL_FIRE && s != SPELL_TAKELIFE)
				continue;
			float val = spell_value(&b, s, v->x, v->y, false, &d);
			if (val >= V_HIT * 0.99f)
				consider(&best, val, CMD_CAST, i, d);
		}
		if (best.cmd.type == CMD_CAST) {
			*out = best.cmd;
			return;
		}
	}
	if (v->hp <= 2) {
		for (int i = 0; i < SPELL_OFFERED; i++)
			if (v->offered[i] == SPELL_RESTORE) {
				*out = (struct cmd){ CMD_CAST, (uint8_t)i, DIR_NONE };
				return;
			}
		for (int i = 0; i < v->ninv; i++)
			if (v->kind_of[v->inv[i]] == POTION_HEALING) {
				*out = (struct cmd){ CMD_QUAFF, (uint8_t)i, DIR_NONE };
				return;
			}
	}
	/* In the end phase the opponent is sensed every turn: easy walks a known shortest way to
	 * it then, or two easy bots at 51x51 drew three duels in four at the turn limit, lost in
	 * dead ends their wandering never left (issue 33). */
	if (v->steps_left > 0 && v->opp_state == OPP_SENSED && v->turn_no >= game_end_phase(v->opt.size)) {
		goal_map(&b);
		if ((d = step_to_goal(&b)) != DIR_NONE) {
			*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
			return;
		}
	}
	if (v->steps_left > 0 && rng_chance(r, 3, 4) && (d = easy_step(v, r)) != DIR_NONE) {
		*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
		return;
	}
	if (v->potion[v->y][v->x] && v->ninv < INV_MAX && rng_chance(r, 1, 2)) {
		*out = (struct cmd){ CMD_PICKUP, 0, 0 };
		return;
	}
	*out = (struct cmd){ CMD_PASS, 0, 0 };
}

/* Novice: easy's wandering with half its aim, for a person's first duels (issue 33: a new
 * player won 1 duel of 6 against normal and few against easy). It strikes only an opponent
 * it sees (never one merely sensed: no hits from the dark), only with the spells whose shape
 * a newcomer can read on the map (Rays of Cold, Lightning Bolts, Fire Storm; never Take
 * Life, which cannot be dodged but by breaking sight), and then only one time in two; it
 * never heals and never drinks. In the end phase it walks to the sensed opponent as easy
 * does, so two novices do not draw at the turn limit. */
void
bot__choose_novice(const struct view *v, struct rng *r, struct cmd *out)
{
	struct brain b;
	struct choice best = { 0, { CMD_PASS, 0, 0 } };
	int d;

	b.mind = NULL;
	brain_init(&b, v, &bot__hard_weights, false, false);
	if (v->opp_state == OPP_VISIBLE && rng_chance(r, 1, 2)) {
		for (int i = 0; i < SPELL_OFFERED; i++) {
			int s = v->offered[i];
			if (s != SPELL_COLD && s != SPELL_LIGHTNING && s != SPELL_FIRE)
				continue;
			float val = spell_value(&b, s, v->x, v->y, false, &d);
			if (val >= V_HIT * 0.99f)
				consider(&best, val, CMD_CAST, i, d);
		}
		if (best.cmd.type == CMD_CAST) {
			*out = best.cmd;
			return;
		}
	}
	if (v->steps_left > 0 && v->opp_state == OPP_SENSED && v->turn_no >= game_end_phase(v->opt.size)) {
		goal_map(&b);
		if ((d = step_to_goal(&b)) != DIR_NONE) {
			*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
			return;
		}
	}
	if (v->steps_left > 0 && rng_chance(r, 3, 4) && (d = easy_step(v, r)) != DIR_NONE) {
		*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
		return;
	}
	*out = (struct cmd){ CMD_PASS, 0, 0 };
}

/* Within this many steps of an opponent I know of, normal without an attack spell keeps
 * out of its way (hard's own: its weights' `close`). */
#define NORMAL_CLOSE 6

/* What normal will act on at once, before walking on: a sure hit, or a real need. */
#define NORMAL_ACT_NOW 60.0f

static float danger(struct brain *b, int x, int y);

static bool
offers_attack(const struct view *v)
{
	for (int i = 0; i < SPELL_OFFERED; i++)
		if (v->offered[i] == SPELL_COLD || v->offered[i] == SPELL_FIRE || v->offered[i] == SPELL_LIGHTNING ||
		    v->offered[i] == SPELL_TAKELIFE)
			return true;
	return false;
}

/* The square within my steps least exposed to the opponent, the nearest among equals;
 * my own if none is better. The squares reachable shrink as I walk
 * but the one chosen stays reachable on its shortest way, so the choice holds. */
/* How exposed (x, y) is: out of its sight first; then off its lines (Rays of Cold,
 * Lightning), then farther (Acid Rain, Fire Storm's falling reach). */
static float
exposure(struct brain *b, int x, int y)
{
	int far = cheb(x, y, b->ox, b->oy);

	return danger(b, x, y) + (aligned(x, y, b->ox, b->oy) ? 0.05f : 0) +
	    0.01f * (float)(FIRE_FAR - (far < FIRE_FAR ? far : FIRE_FAR));
}

static bool
evade_target(struct brain *b, int *tx, int *ty)
{
	float best = exposure(b, b->me_x, b->me_y);
	int bd = 0;

	*tx = b->me_x;
	*ty = b->me_y;
	for (int y = 1; y < b->size - 1; y++)
		for (int x = 1; x < b->size - 1; x++) {
			int d = b->dme[y][x];
			if (d == UNREACHED || d > b->v->steps_left)
				continue;
			float e = exposure(b, x, y);
			if (e < best - 0.001f || (e < best + 0.001f && d < bd)) {
				best = e;
				bd = d;
				*tx = x;
				*ty = y;
			}
		}
	return *tx != b->me_x || *ty != b->me_y;
}

/* Normal: hunts along a shortest way and strikes as soon as a spell reaches. Near an
 * opponent it knows of with no attack spell offered, it does not walk up to it (and then
 * stand beside it, passing): it gets out of the opponent's sight and lines instead. */
void
bot__choose_normal(const struct view *v, struct rng *r, struct cmd *out)
{
	struct brain b;
	struct choice here;
	int d, tx, ty;

	(void)r;
	b.mind = NULL;
	brain_init(&b, v, &bot__hard_weights, false, false);
	here = best_action(&b, v->x, v->y, false);
	if (here.value >= NORMAL_ACT_NOW || v->steps_left == 0) {
		*out = here.cmd;
		return;
	}
	if (b.belief != B_NONE && !offers_attack(v) && cheb(v->x, v->y, b.ox, b.oy) <= NORMAL_CLOSE) {
		if (evade_target(&b, &tx, &ty))
			*out = (struct cmd){ CMD_STEP, 0, b.first[ty][tx] };
		else
			*out = here.cmd;
		return;
	}
	goal_map(&b);
	if ((d = step_to_goal(&b)) != DIR_NONE) {
		*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
		return;
	}
	*out = here.cmd;
}

/* How likely the opponent strikes me next turn if I end mine on (x, y). In its sight it
 * knows where I am and has five steps to line up; out of it, it has to guess. Its sight
 * counts unknown squares open. */
static float
danger(struct brain *b, int x, int y)
{
	float d;

	if (MIND_AIM_DANGER && b->aimed) {
		float sum = 0;
		for (int sy = b->wy0; sy <= b->wy1; sy++)
			for (int sx = b->wx0; sx <= b->wx1; sx++) {
				if (b->w[sy][sx] <= 0)
					continue;
				d = fov_los(&b->open, sx, sy, x, y, FOV_RADIUS) ? b->k->danger_sight :
				    aligned(x, y, sx, sy) ? b->k->danger_line : b->k->danger_off;
				sum += b->w[sy][sx] * d;
			}
		return sum / b->wtotal * b->k->danger_near;
	}
	if (b->belief != B_EXACT && b->belief != B_NEAR)
		return 0;
	if (!b->v->opt.fov || seen_from(&b->open, b->ox, b->oy, &b->odanger, &b->have_odanger, x, y))
		d = b->k->danger_sight;
	else if (aligned(x, y, b->ox, b->oy))
		d = b->k->danger_line;
	else
		d = b->k->danger_off;
	return b->belief == B_EXACT ? d : d * b->k->danger_near;
}

/* Keep the `max` best plans in `plans`, best first (insertion: max is small). */
static int
keep_plan(struct bot__plan *plans, int n, int max, const struct bot__plan *p)
{
	int i = n < max ? n : max - 1;

	if (n >= max && p->score <= plans[max - 1].score)
		return n;
	while (i > 0 && plans[i - 1].score < p->score) {
		plans[i] = plans[i - 1];
		i--;
	}
	plans[i] = *p;
	return n < max ? n + 1 : n;
}

/* Hard's reckoning: every square within this turn's steps, the best command there, its
 * worth less the danger of ending the turn there plus the way it makes towards the
 * quarry. The `max` best squares, best first. */
static int
rank_plans(struct brain *b, struct bot__plan *plans, int max)
{
	const struct view *v = b->v;
	float cost = hurt_cost_of(b, v->hp);
	int n = 0;

	goal_map(b);
	for (int y = 1; y < b->size - 1; y++) {
		for (int x = 1; x < b->size - 1; x++) {
			int dm = b->dme[y][x];
			if (dm == UNREACHED || dm > v->steps_left)
				continue;
			struct choice c = best_action(b, x, y, true);
			int dg = b->dgoal[y][x];
			float nav = 0;
			if (dg != UNREACHED) {
				float far = b->belief == B_EXACT ? (float)dg - b->k->close : (float)dg;
				nav = -b->k->nav * (far > 0 ? far : 0);
			}
			/* A killing blow leaves no turn to the opponent. */
			float risk = c.value >= V_KILL * 0.5f ? 0 : danger(b, x, y) * cost;
			/* Among equals, the nearer square: fewer steps, less exposure on the way. */
			struct bot__plan p = { (uint8_t)x, (uint8_t)y, (uint8_t)dm, c.cmd,
				c.value + nav - risk - 0.01f * (float)dm, c.cmd };
			n = keep_plan(plans, n, max, &p);
		}
	}
	return n;
}

/* The first command of a plan: a step on its way, or its action where it stands. */
static struct cmd
plan_cmd(const struct brain *b, const struct bot__plan *p)
{
	if (p->x == b->me_x && p->y == b->me_y)
		return p->cmd;
	return (struct cmd){ CMD_STEP, 0, b->first[p->y][p->x] };
}

/* Hard: the best square within this turn's steps, and the best command there. */
void
bot__choose_hard(const struct view *v, struct rng *r, struct cmd *out)
{
	struct brain b;
	struct bot__plan best = { v->x, v->y, 0, { CMD_PASS, 0, 0 }, 0, { CMD_PASS, 0, 0 } };

	(void)r;
	b.mind = NULL;
	brain_init(&b, v, &bot__hard_weights, true, true);
	rank_plans(&b, &best, 1);
	*out = plan_cmd(&b, &best);
}

int
bot__plans(const struct view *v, struct bot__plan *plans, int max, struct bot__belief *bel)
{
	return bot__plans_mind(v, &bot__hard_weights, NULL, plans, max, bel);
}

int
bot__plans_mind(const struct view *v, const struct bot__weights *w, const struct bot_mind *mind,
    struct bot__plan *plans, int max, struct bot__belief *bel)
{
	_Static_assert(sizeof bel->w == sizeof ((struct brain *)0)->w, "the belief is the brain's");
	struct brain b;
	int n;

	b.mind = MIND_PLANS && mind && !mind->exact && mind->nmay > 0 ? mind : NULL;
	brain_init(&b, v, w, true, true);
	n = rank_plans(&b, plans, max);
	for (int i = 0; i < n; i++)
		plans[i].first = plan_cmd(&b, &plans[i]);
	if (bel == NULL)
		return n;
	memcpy(bel->w, b.w, sizeof bel->w);
	bel->wtotal = b.wtotal;
	bel->exact = b.belief == B_EXACT;
	bel->lost = b.belief == B_ANY || b.belief == B_NONE;
	return n;
}

void
bot__plan_memo(const struct view *v, struct bot__plan *plan, struct bot__memo *memo)
{
	for (int i = 0; i < memo->n; i++)
		if (memcmp(&memo->view[i], v, sizeof *v) == 0) {
			*plan = memo->plan[i];
			return;
		}
	bot__plans(v, plan, 1, NULL);
	int k = memo->next;
	memo->view[k] = *v;
	memo->plan[k] = *plan;
	memo->next = (k + 1) % BOT_MEMO_SIZE;
	if (memo->n < BOT_MEMO_SIZE)
		memo->n++;
}

long
bot_master_budget(int size)
{
	/* A command costs more on a larger level than its side grows (the opponent's view and
	 * hard's floods): 25 x 75 / (size x (size + 50)) alone gave 364 commands at 51x51 and
	 * a worst call of 98.9 ms in 40 duels, so the larger sizes lose more again, by 50 /
	 * (size + 25): 239 at 51x51. Smaller levels cost less a command on average, not in
	 * the worst case (1,000 at 15x15 reached 91 ms before the opponent's walk was
	 * cheapened), so the budget is capped at the 25x25 one. (Those figures are for
	 * MASTER_COMMANDS 1,000.) The play-outs have since become about twice as cheap, and
	 * MASTER_COMMANDS twice as large, but at 51x51 the slowest calls (Alter Dungeon's
	 * levels, floods over a spread belief) gained least: 478 commands made a worst call
	 * of 86 ms in 40 duels, so the larger sizes lose 50 / (size + 25) once more: 315.
	 * In 64 bits whatever long is: the numerator (9.4e9) overflows a 32-bit long. The
	 * formula's base is MASTER_SCALE (the old MASTER_COMMANDS); MASTER_COMMANDS, now far
	 * below it, caps every size (issue 33's paired test: docs/bots.md, "Master's budget"). */
	int64_t n = size > 0 ? (int64_t)MASTER_SCALE * 1875 * 50 * 50 /
	        ((int64_t)size * (size + 50) * (size + 25) * (size + 25)) : MASTER_COMMANDS;

	return n < 64 ? 64 : n > MASTER_COMMANDS ? MASTER_COMMANDS : (long)n;
}
