/* SPDX-License-Identifier: MIT */
/* mind: what a bot remembers between its calls (see mind.h).
 *
 * The view says where the opponent was last seen, not when, and forgets that square once
 * it is seen empty; after that the opponent is "lost" and could be anywhere out of sight.
 * But it walks at most STEPS_PER_TURN squares a turn: from the last square I knew, the
 * squares it may stand on grow by that many steps each of its turns, and every square I
 * see without it drops out. That set is what the master bot draws the opponent from. It
 * can be wrong (Speed doubles the steps, its Blink and Teleportation jump unseen): when
 * the opponent shows up outside it, or everything in it has been seen empty, it starts
 * again from the view alone. The jumps I am told of move it as they moved the opponent
 * (a Mirror Earth turns it over; my own Blink leaves it where it was). Sight is mutual
 * (the rules' field of view sees both ways alike), so the square I stood on when we last
 * saw each other is where the opponent remembers me, until
 * it sees that square without me: at once if I step out of its sight (it still sees the
 * square I left), or when it comes to look (after MIND_FORGET of its turns, guessed).
 * The messages of its turn say more (mind_heard()): its Life Detection told it where I
 * am, and its Scream was heard near me or far away; where its spells struck, on the
 * squares I see (mind_saw()), says where it cast them from; and my views after its
 * commands (mind_watch()) show where it walked through my sight, and that it saw me
 * there, though my view at my next call keeps no trace of it. A step in my sight always
 * shows it, so a walk none of those views showed went round what I see. */
#include <string.h>

#include "mind.h"
#include "spell.h"

#ifndef MIND_HEAR
#define MIND_HEAR 1   /* 0: messages are not heard (to measure what they are worth) */
#endif
#ifndef MIND_SEE_FX
#define MIND_SEE_FX 1 /* 0: the effects of its spells are not used (to measure what they are worth) */
#endif
#ifndef MIND_WATCH
#define MIND_WATCH 1  /* 0: where it walked through my sight in its turn is not used */
#endif
#ifndef MIND_HIDDEN
#define MIND_HIDDEN 1 /* 0: its unseen walk may cross squares I see */
#endif
#ifndef MIND_JUMPS
#define MIND_JUMPS 1  /* 0: any jump, and my Alter Dungeon, start the set again from the view */
#endif
#ifndef MIND_FORGET
#define MIND_FORGET 3 /* after this many of its turns unseen, it has likely looked at that square and found me gone */
#endif

/* What moved a wizard otherwise than by its steps, by the message it sent me. */
enum {
	JUMP_MY_MIRROR = 1,  /* my Mirror Earth: the level turned over, and both of us with it */
	JUMP_ITS_MIRROR = 2, /* its Mirror Earth: the same, once it had walked */
	JUMP_THROWN = 4,     /* a Blink All, mine or its: both of us anywhere */
	JUMP_ME_ALONE = 8,   /* I blinked (the spell, or Teleportation), or an Alter Dungeon pushed me */
	JUMP_MY_ALTER = 16,  /* my Alter Dungeon: a new level round us both, where we stood */
};
static const uint8_t jump_of[MSG_COUNT] = {
	[MSG_MIRRORED] = JUMP_MY_MIRROR,
	[MSG_MIRRORED_OPP] = JUMP_ITS_MIRROR,
	[MSG_BLINKED_ALL] = JUMP_THROWN,
	[MSG_TELEPORTED] = JUMP_THROWN, /* its Blink All threw me */
	[MSG_BLINKED] = JUMP_ME_ALONE,
	[MSG_ALTER_MOVED] = JUMP_ME_ALONE,
	[MSG_ALTERED] = JUMP_MY_ALTER,
};

static const int8_t ndx[8] = { 0, 1, 1, 1, 0, -1, -1, -1 };
static const int8_t ndy[8] = { -1, -1, 0, 1, 1, 1, 0, -1 };

void
mind_reset(struct bot_mind *m)
{
	memset(m, 0, sizeof *m);
	m->cast = SPELL_NONE;
}

static int
known(const struct view *v, int x, int y)
{
	return v->cell[y][x] & ~VCELL_VISIBLE;
}

/* Anywhere not known to be wall: where a lost opponent may be. */
static void
may_anywhere(struct bot_mind *m, const struct view *v)
{
	m->nmay = 0;
	for (int y = 1; y < m->size - 1; y++)
		for (int x = 1; x < m->size - 1; x++) {
			m->may[y][x] = known(v, x, y) != VCELL_WALL;
			m->nmay += m->may[y][x];
		}
	m->exact = false;
}

static void
may_only(struct bot_mind *m, int x, int y)
{
	memset(m->may, 0, sizeof m->may);
	m->may[y][x] = 1;
	m->nmay = 1;
}

/* Less every square I see now (it would show) and every known wall (may_grow() starts
 * from squares I knew, which a changed map may have walled). */
static void
may_cut_seen(struct bot_mind *m, const struct view *v)
{
	for (int y = 1; y < m->size - 1; y++)
		for (int x = 1; x < m->size - 1; x++)
			if (m->may[y][x] && ((v->cell[y][x] & VCELL_VISIBLE) || known(v, x, y) == VCELL_WALL)) {
				m->may[y][x] = 0;
				m->nmay--;
			}
}

/* Steps between two squares, 8-direction steps on open floor (the spells' reach). */
static int
cheb(int dx, int dy)
{
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	return dx > dy ? dx : dy;
}

static bool
near_me(const struct view *v, int x, int y)
{
	return cheb(x - v->x, y - v->y) <= SCREAM_RADIUS;
}

/* It screamed near me (or far): it stands within the Scream's radius of me (or beyond). */
static void
may_scream(struct bot_mind *m, const struct view *v, bool near)
{
	for (int y = 1; y < m->size - 1; y++)
		for (int x = 1; x < m->size - 1; x++)
			if (m->may[y][x] && near_me(v, x, y) != near) {
				m->may[y][x] = 0;
				m->nmay--;
			}
}

/* An effect I saw, where. */
struct seen_fx {
	uint8_t x, y, fx;
};

/* Could a caster on (px, py) have made what I saw? Each effect's square must lie where
 * that spell reaches from there (game.c): Rays of Cold on its eight lines, through walls,
 * to the edge, and then every square I see on those lines is struck; Lightning Bolts on
 * its row or column or beside them; a Fire Storm within FIRE_MAX and inside one of the
 * eight cones (game_in_cone()); Acid Rain on its square and the eight around; a Scream
 * within SCREAM_RADIUS. Magic (Take Life, Blink, Demolition, ...) is not read: it marks
 * where I stand, or where the caster was. */
static bool
fx_from(const struct bot_mind *m, const struct view *v, const struct seen_fx *fx, int n, int px, int py)
{
	bool cold = false;
	unsigned cones = 0xff; /* the directions whose Fire Storm cone holds every fire I saw */

	for (int i = 0; i < n; i++) {
		int dx = fx[i].x - px, dy = fx[i].y - py, far = cheb(dx, dy);
		int adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
		switch (fx[i].fx) {
		case FX_COLD:
			if ((dx != 0 && dy != 0 && adx != ady) || far == 0)
				return false;
			cold = true;
			break;
		case FX_ELEC:
			if (adx > 1 && ady > 1)
				return false;
			break;
		case FX_FIRE:
			for (int d = 0; d < 8; d++)
				if (!game_in_cone(ndx[d], ndy[d], dx, dy))
					cones &= ~(1u << d);
			if (far > FIRE_MAX || !cones)
				return false;
			break;
		case FX_ACID:
			if (far > 1)
				return false;
			break;
		case FX_SONIC:
			if (far > SCREAM_RADIUS)
				return false;
			break;
		default:
			break;
		}
	}
	if (!cold)
		return true;
	/* The rays strike every square of the eight lines: each one I see bears the cold. */
	for (int d = 0; d < 8; d++)
		for (int x = px + ndx[d], y = py + ndy[d]; x >= 0 && y >= 0 && x < m->size && y < m->size;
		    x += ndx[d], y += ndy[d])
			if ((v->cell[y][x] & VCELL_VISIBLE) && m->fx[y][x] != FX_COLD)
				return false;
	return true;
}

/* Keep the squares of the set it could have cast what I saw from; when none could (a
 * Random, a spell the rules changed), keep the set as it was. */
static void
may_fx(struct bot_mind *m, const struct view *v)
{
	struct seen_fx fx[LEVEL_MAX * LEVEL_MAX];
	uint8_t keep[LEVEL_MAX][LEVEL_MAX];
	int n = 0, kept = 0;

	for (int y = 0; y < m->size; y++)
		for (int x = 0; x < m->size; x++)
			if (m->fx[y][x] != FX_NONE)
				fx[n++] = (struct seen_fx){ (uint8_t)x, (uint8_t)y, m->fx[y][x] };
	memset(keep, 0, sizeof keep);
	for (int y = 1; y < m->size - 1; y++)
		for (int x = 1; x < m->size - 1; x++)
			if (m->may[y][x] && fx_from(m, v, fx, n, x, y)) {
				keep[y][x] = 1;
				kept++;
			}
	if (kept == 0)
		return;
	memcpy(m->may, keep, sizeof keep);
	m->nmay = kept;
}

/* Every square within `steps` of the set, over all that is not known wall; `hidden`:
 * and never through a square I see (it would have been seen there: every step it takes
 * in my sight gives a client an update that shows it, and I do not move in its turn).
 * With no view (v NULL): over every square but the outer ring. */
static void
may_grow(struct bot_mind *m, const struct view *v, int steps, bool hidden)
{
	uint16_t queue[LEVEL_MAX * LEVEL_MAX];
	uint8_t dist[LEVEL_MAX][LEVEL_MAX];
	int head = 0, tail = 0;

	for (int y = 0; y < m->size; y++)
		for (int x = 0; x < m->size; x++) {
			dist[y][x] = m->may[y][x] ? 0 : UINT8_MAX;
			if (m->may[y][x])
				queue[tail++] = (uint16_t)(y * LEVEL_MAX + x);
		}
	while (head < tail) {
		int x = queue[head] % LEVEL_MAX, y = queue[head] / LEVEL_MAX;
		head++;
		if (dist[y][x] >= steps)
			continue;
		for (int i = 0; i < 8; i++) {
			int nx = x + ndx[i], ny = y + ndy[i];
			if (nx <= 0 || ny <= 0 || nx >= m->size - 1 || ny >= m->size - 1 || dist[ny][nx] != UINT8_MAX ||
			    (v && known(v, nx, ny) == VCELL_WALL) || (v && hidden && (v->cell[ny][nx] & VCELL_VISIBLE)))
				continue;
			dist[ny][nx] = (uint8_t)(dist[y][x] + 1);
			m->may[ny][nx] = 1;
			m->nmay++;
			queue[tail++] = (uint16_t)(ny * LEVEL_MAX + nx);
		}
	}
}

/* The set turned over by each mirror (bit `how`) in `hows`: a Mirror Earth turns the
 * level over and both wizards with it. */
static void
may_mirror(struct bot_mind *m, int hows)
{
	uint8_t was[LEVEL_MAX][LEVEL_MAX];

	memcpy(was, m->may, sizeof was);
	memset(m->may, 0, sizeof m->may);
	m->nmay = 0;
	for (int how = MIRROR_H; how <= MIRROR_BOTH; how++)
		for (int y = 0; y < m->size && (hows & 1 << how); y++)
			for (int x = 0; x < m->size; x++) {
				int mx = x, my = y;
				if (!was[y][x])
					continue;
				level_mirror_point(m->size, how, &mx, &my);
				m->nmay += !m->may[my][mx];
				m->may[my][mx] = 1;
			}
}

/* The mirrors that take where I stood at the last call to where I stand: bit `how` each.
 * More than one when I stood on a middle line; none when something else moved me too. */
static int
mirrors_of_me(const struct bot_mind *m, const struct view *v)
{
	int hows = 0;

	for (int how = MIRROR_H; how <= MIRROR_BOTH; how++) {
		int x = m->last_x, y = m->last_y;
		level_mirror_point(m->size, how, &x, &y);
		if (x == v->x && y == v->y)
			hows |= 1 << how;
	}
	return hows;
}

void
mind_observe(struct bot_mind *m, const struct view *v)
{
	bool in_sight = v->opp_state == OPP_VISIBLE, sensed = v->opp_state == OPP_SENSED;
	uint8_t jump = MIND_JUMPS ? m->heard_jump : 0;
	/* My Alter Dungeon and Mirror Earth wipe its memory of me (a Random may become either). */
	bool wiped = m->cast == SPELL_ALTER || m->cast == SPELL_MIRROR || (jump & (JUMP_MY_ALTER | JUMP_MY_MIRROR));

	m->heard_jump = 0;
	if (!m->started || m->me != v->me || m->size != v->opt.size || v->turn_no < m->turn_no ||
	    (!MIND_JUMPS && m->cast == SPELL_ALTER)) {
		/* A mind that had started is of another duel or level. One that had not holds
		 * only what I was told and shown before my first call: news of the opponent's
		 * first turn, when it moved first, read below as one turn of its. */
		bool first = !m->started;
		if (!first)
			mind_reset(m); /* and so it saw me nowhere: my Alter Dungeon wiped that too */
		m->started = true;
		m->me = v->me;
		m->size = v->opt.size;
		m->turn_no = first && v->turn_no > 0 ? v->turn_no - 1 : v->turn_no;
		m->last_x = v->x; /* I have not moved since */
		m->last_y = v->y;
		m->last_state = OPP_UNKNOWN;
		may_anywhere(m, v);
	}
	int turns = (int)((v->turn_no - m->turn_no + 1) / PLAYERS); /* the opponent's turns since the last call */
	/* I do not move in its turn, nor by my own action but for the jumps, and the messages
	 * say which: a Blink All threw us both anywhere, and the set from before means nothing
	 * now; a Mirror Earth turned the level over with both of us in it, and the set turns
	 * with them (which way, my own move says); I alone blinked, or was pushed aside by a
	 * new level, and it did not move for that. A move no message explains: anywhere. */
	bool moved = turns > 0 && (v->x != m->last_x || v->y != m->last_y), jumped = moved;
	bool my_mirror = false, its_mirror = false;
	int hows = 0;
	if (MIND_JUMPS && turns > 0) {
		if ((jump & JUMP_THROWN) || ((jump & JUMP_MY_MIRROR) && (jump & JUMP_ITS_MIRROR))) {
			jumped = true;
		} else if (jump & (JUMP_MY_MIRROR | JUMP_ITS_MIRROR)) {
			hows = mirrors_of_me(m, v);
			jumped = hows == 0;
			my_mirror = !jumped && (jump & JUMP_MY_MIRROR);
			its_mirror = !jumped && (jump & JUMP_ITS_MIRROR);
		} else if (jump & JUMP_ME_ALONE) {
			jumped = false;
		}
	}
	if (jumped)
		may_anywhere(m, v);
	/* What its turn told me: it sensed me (or took my life, which needs sight), or, from
	 * the start of the end phase, the rules made it sense me as its turn began; it screamed
	 * near me or far away, and a Scream ends its turn where it stands. */
	bool told = turns > 0 && (m->heard_watched || (v->turn_no >= 1 && v->turn_no - 1 >= game_end_phase(m->size)));
	int scream = turns > 0 && !jumped ? m->heard_scream : 0;
	bool fx = turns > 0 && !jumped && m->saw_fx;
	/* It walked through my sight in its turn and out of it: it stood there, and saw me. */
	bool glimpse = turns == 1 && !jumped && m->glimpse && MIND_WATCH;
	bool hidden = turns == 1 && !jumped && m->watching && MIND_HIDDEN;
	m->watching = false;
	m->heard_watched = false;
	m->heard_scream = 0;
	m->glimpse = false;
	m->glimpse_moves = 0;

	/* Where it may be. */
	if (in_sight || sensed || !v->opt.fov) {
		may_only(m, v->opp_x, v->opp_y);
		m->exact = true;
	} else {
		int rest = STEPS_PER_TURN - m->glimpse_moves > 1 ? STEPS_PER_TURN - m->glimpse_moves : 1;
		m->exact = false;
		if (my_mirror)
			may_mirror(m, hows); /* it turned over with the level before its turn began */
		if (its_mirror) {
			/* It walked, then cast, in the level as it was, whose walls and sight my view
			 * no longer holds (its spell made me forget): grown over everything, then
			 * turned over. */
			if (glimpse)
				may_only(m, m->glimpse_x, m->glimpse_y);
			may_grow(m, NULL, glimpse ? rest : STEPS_PER_TURN, false);
			may_mirror(m, hows);
		} else if (glimpse) {
			/* From where I last saw it, with what is left of its walk. */
			may_only(m, m->glimpse_x, m->glimpse_y);
			may_grow(m, v, rest, hidden);
		} else if (turns > 0) {
			/* One turn of its walk out of my sight, since I see now what I saw then. */
			may_grow(m, v, turns * STEPS_PER_TURN > 250 ? 250 : turns * STEPS_PER_TURN, hidden);
		}
		if (scream)
			may_scream(m, v, scream == 1);
		may_cut_seen(m, v);
		if (fx && m->nmay > 0)
			may_fx(m, v);
		if (v->opp_state == OPP_REMEMBERED && !m->may[v->opp_y][v->opp_x]) {
			/* It was seen where the set said it could not be: the set was wrong. */
			may_anywhere(m, v);
			may_cut_seen(m, v);
		}
		if (m->nmay <= 0)
			may_anywhere(m, v); /* it outran the set (Speed, Blink): anywhere, then */
	}

	/* Where it saw me: in sight now, or seen during its turn (the view's memory of it
	 * moved), when I stood where I stand. */
	bool news = v->opp_state == OPP_REMEMBERED &&
	    (m->last_state == OPP_UNKNOWN || v->opp_x != m->last_ox || v->opp_y != m->last_oy);
	/* In sight at my last call of this turn and not now: I stepped out of its sight (it does
	 * not move in my turn), and it still sees the square I left, empty: the rules clear
	 * its memory of me. */
	if (wiped || (turns == 0 && m->last_state == OPP_VISIBLE && !in_sight))
		m->seen = false;
	if (its_mirror && m->seen) {
		/* Its memory of me turned over with the level (each way I may have turned takes
		 * the square I stood on to the one I stand on: the lowest will do). */
		int x = m->seen_x, y = m->seen_y, how = MIRROR_H;
		while (!(hows & 1 << how))
			how++;
		level_mirror_point(m->size, how, &x, &y);
		m->seen_x = (uint8_t)x;
		m->seen_y = (uint8_t)y;
	}
	if (in_sight || (turns > 0 && news) || told || glimpse) {
		m->seen = true;
		m->seen_x = v->x;
		m->seen_y = v->y;
		m->seen_turn = v->turn_no;
	}
	m->last_x = v->x;
	m->last_y = v->y;
	m->last_state = v->opp_state;
	m->last_ox = v->opp_x;
	m->last_oy = v->opp_y;
	m->turn_no = v->turn_no;
	m->cast = SPELL_NONE;
	if (m->saw_fx) {
		memset(m->fx, FX_NONE, sizeof m->fx);
		m->saw_fx = false;
	}
}

/* What a message the rules send me says of the opponent's turn. (Whether my own spells
 * cast blind hit or missed says where it stood too, but it moved no wins: 698 of 1,000
 * against 701, the local branch exp-strike; hard seldom casts blind.) */
enum heard { HEARD_NOTHING, HEARD_WATCHED, HEARD_NEAR, HEARD_FAR };
static const uint8_t heard_of[MSG_COUNT] = {
	[MSG_WATCHED] = HEARD_WATCHED,      /* its Life Detection sensed me */
	[MSG_SOUL_TAKEN] = HEARD_WATCHED,   /* its Take Life, which needs sight of me */
	[MSG_SCREAM_NEAR] = HEARD_NEAR,
	[MSG_SCREAM_FAR] = HEARD_FAR,
};

void
mind_heard(struct bot_mind *m, const struct msg *msg)
{
	if (msg->id >= MSG_COUNT)
		return;
	m->heard_jump |= jump_of[msg->id];
	if (!MIND_HEAR)
		return;
	if (heard_of[msg->id] == HEARD_WATCHED)
		m->heard_watched = true;
	else if (heard_of[msg->id] != HEARD_NOTHING)
		m->heard_scream = heard_of[msg->id] == HEARD_NEAR ? 1 : 2;
}

void
mind_heard_events(struct bot_mind *m, int me, const struct events *ev)
{
	for (int i = 0; i < ev->nmsg; i++)
		if (ev->msg[i].to & (1u << me))
			mind_heard(m, &ev->msg[i]);
}

void
mind_saw(struct bot_mind *m, int x, int y, int fx)
{
	if (!MIND_SEE_FX || x < 0 || y < 0 || x >= LEVEL_MAX || y >= LEVEL_MAX || fx <= FX_NONE || fx >= FX_COUNT)
		return;
	m->fx[y][x] = (uint8_t)fx;
	m->saw_fx = true;
}

void
mind_saw_events(struct bot_mind *m, const struct events *ev, const struct view *mine)
{
	if (!ev->has_fx)
		return;
	for (int y = 0; y < mine->opt.size; y++)
		for (int x = 0; x < mine->opt.size; x++)
			if (ev->fx[y][x] != FX_NONE && (mine->cell[y][x] & VCELL_VISIBLE))
				mind_saw(m, x, y, ev->fx[y][x]);
}

void
mind_watch(struct bot_mind *m, const struct view *mine)
{
	if (m->started && mine->me != m->me)
		return;
	m->watching = true;
	if (mine->opp_state != OPP_VISIBLE)
		return;
	if (m->glimpse && (mine->opp_x != m->glimpse_x || mine->opp_y != m->glimpse_y) && m->glimpse_moves < UINT8_MAX)
		m->glimpse_moves++;
	m->glimpse = true;
	m->glimpse_x = mine->opp_x;
	m->glimpse_y = mine->opp_y;
}

void
mind_told(struct bot_mind *m, const struct view *mine, const struct events *ev, int mover)
{
	mind_heard_events(m, mine->me, ev);
	if (mover == mine->me)
		return;
	mind_saw_events(m, ev, mine);
	mind_watch(m, mine);
}

void
mind_acted(struct bot_mind *m, const struct view *v, const struct cmd *c)
{
	m->cast = c->type == CMD_CAST && c->arg < SPELL_OFFERED ? v->offered[c->arg] : SPELL_NONE;
}

bool
mind_opp_remembers(const struct bot_mind *m, const struct view *v, int *x, int *y)
{
	if (!m->seen || v->turn_no - m->seen_turn > (uint32_t)(MIND_FORGET * PLAYERS))
		return false;
	*x = m->seen_x;
	*y = m->seen_y;
	return true;
}
