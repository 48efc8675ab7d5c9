/* SPDX-License-Identifier: MIT */
/* Tests for every spell in SPELL_LIST: its area, its damage, its messages to caster and opponent. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "fov.h"
#include "harness.h"
#include "internal.h"

static int
cheb(int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), dy = abs(y1 - y0);

	return dx > dy ? dx : dy;
}

static void
wall(struct game *g, int x, int y)
{
	g->level.cell[y][x] = CELL_WALL;
}

/* The events mark effect `fx` exactly on the squares `want` holds, and nothing else. */
static void
expect_fx(const struct events *ev, const uint8_t want[LEVEL_MAX][LEVEL_MAX], int fx, const char *what)
{
	bool any = false;

	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++) {
			int got = ev->fx[y][x];
			cr_assert_eq(got, want[y][x] ? fx : FX_NONE, "%s: square (%d,%d) is %d, want %d", what, x, y, got,
			    want[y][x] ? fx : FX_NONE);
			any |= want[y][x] != 0;
		}
	cr_assert_eq(ev->has_fx, any);
}

/* The RNG draw a spell will make first, read from a copy of the RNG. */
static int
next_range(const struct game *g, int lo, int hi)
{
	struct rng r = g->rng;

	return rng_range(&r, lo, hi);
}

/* The messages the caster may receive first after casting each spell (after RANDOM_IS). */
static const int first_for_caster[SPELL_COUNT][3] = {
	[SPELL_COLD] = { MSG_COLD_HIT, MSG_COLD_MISS, MSG_OPP_RESISTED },
	[SPELL_FIRE] = { MSG_FIRE_HIT, MSG_FIRE_MISS, MSG_OPP_RESISTED },
	[SPELL_LIGHTNING] = { MSG_BOLT_HIT, MSG_BOLT_MISS, MSG_OPP_RESISTED },
	[SPELL_MAPPING] = { MSG_MAPPED },
	[SPELL_ALTER] = { MSG_ALTERED },
	[SPELL_IDENTIFY] = { MSG_IDENTIFIED_N, MSG_IDENTIFY_NONE },
	[SPELL_ITEMDETECT] = { MSG_ITEMS_SENSED, MSG_ITEMS_NONE },
	[SPELL_LIFEDETECT] = { MSG_LIFE_SENSED },
	[SPELL_RESTORE] = { MSG_RESTORED, MSG_FULL_HP },
	[SPELL_TAKELIFE] = { MSG_TOOK_LIFE, MSG_TAKELIFE_FAIL },
	[SPELL_MIRROR] = { MSG_MIRRORED },
	[SPELL_RANDOM] = { MSG_RANDOM_IS },
	[SPELL_DEMOLISH] = { MSG_DEMOLISHED, MSG_NOTHING_HAPPENS },
	[SPELL_NAVIGATE] = { MSG_NAVIGATED, MSG_NOTHING_HAPPENS },
	[SPELL_CREATE] = { MSG_CREATED, MSG_NOTHING_HAPPENS },
	[SPELL_BLINK] = { MSG_BLINKED },
	[SPELL_BLINKALL] = { MSG_BLINKED_ALL },
	[SPELL_SCREAM] = { MSG_SCREAMED },
	[SPELL_FORGET] = { MSG_FORGOT },
	[SPELL_ACIDRAIN] = { MSG_ACID_RAINS },
};

/* What the opponent may hear of each spell (besides the damage it takes). */
static const int opp_may_hear[SPELL_COUNT][3] = {
	[SPELL_LIGHTNING] = { MSG_THUNDER },
	[SPELL_ALTER] = { MSG_ALTERED_OPP, MSG_ALTER_MOVED },
	[SPELL_LIFEDETECT] = { MSG_WATCHED },
	[SPELL_TAKELIFE] = { MSG_SOUL_TAKEN },
	[SPELL_MIRROR] = { MSG_MIRRORED_OPP },
	[SPELL_DEMOLISH] = { MSG_HEAR_ROCK },
	[SPELL_NAVIGATE] = { MSG_HEAR_ROCK },
	[SPELL_BLINKALL] = { MSG_TELEPORTED },
	[SPELL_SCREAM] = { MSG_SCREAM_NEAR, MSG_SCREAM_FAR, MSG_SHATTERED },
	[SPELL_ACIDRAIN] = { MSG_HEAR_RAIN },
};

static bool
one_of(const int set[3], int id)
{
	for (int i = 0; i < 3; i++)
		if (set[i] == id && id != MSG_NONE)
			return true;
	return false;
}

/* The index of the first message to player p at or after index `from`, or -1. */
static int
next_for(const struct events *ev, int p, int from)
{
	for (int i = from; i < ev->nmsg; i++)
		if (ev->msg[i].to & (1 << p))
			return i;
	return -1;
}

/* ---- every spell: its first message to the caster, and nothing unexpected to the opponent ---- */

Test(spells, every_spell_tells_caster_and_opponent)
{
	static struct game g;
	struct events ev;

	for (int s = 0; s < SPELL_COUNT; s++) {
		for (uint64_t seed = 0; seed < 20; seed++) {
			harness_setup(&g, harness_room_map, seed);
			harness_put(&g, 3, 3, APPEAR_RED);
			harness_give(&g, 0, APPEAR_BLUE);
			cr_assert_eq(harness_cast(&g, 0, s, DIR_E, &ev), ERR_OK, "%s", spell_name(s));
			cr_assert_eq(ev.msg[0].id, MSG_CAST);
			cr_assert_eq(ev.msg[0].to, 1);
			cr_assert_eq(ev.msg[0].a, s);
			int i = next_for(&ev, 0, 1);
			cr_assert_geq(i, 0, "%s: nothing more for the caster", spell_name(s));
			cr_assert(one_of(first_for_caster[s], ev.msg[i].id), "%s: first message %d", spell_name(s), ev.msg[i].id);
			if (s == SPELL_RANDOM)
				continue;
			for (int k = 0; k < ev.nmsg; k++) {
				const struct msg *m = &ev.msg[k];
				cr_assert(m->to == 1 || m->to == 2 || m->to == 3, "bad recipients %d", m->to);
				if (!(m->to & 2))
					continue;
				/* In sight (the room map), the opponent also sees the cast: test_view checks that line. */
				if (harness_narration(m->id)) {
					cr_assert(m->id == MSG_OPP_CASTS || (m->id == MSG_OPP_CASTS_SEEN && m->a == s),
					    "%s: narrated as message %d (%d)", spell_name(s), m->id, m->a);
					continue;
				}
				cr_assert(m->id == MSG_HURT || one_of(opp_may_hear[s], m->id), "%s: the opponent hears message %d",
				    spell_name(s), m->id);
			}
		}
	}
}

/* ---- Rays of Cold ---- */

Test(spells, cold_rays_through_walls_to_the_edge)
{
	static struct game g;
	static uint8_t want[LEVEL_MAX][LEVEL_MAX];
	static const int d8[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 0, 5, 7);
	harness_place(&g, 1, 5, 2); /* on the north ray, behind a wall */
	wall(&g, 5, 4);
	wall(&g, 8, 4); /* on the north-east ray */
	wall(&g, 9, 7);
	memset(want, 0, sizeof want);
	for (int i = 0; i < 8; i++)
		for (int x = 5 + dir_dx(d8[i]), y = 7 + dir_dy(d8[i]); x >= 0 && y >= 0 && x < 15 && y < 15;
		    x += dir_dx(d8[i]), y += dir_dy(d8[i]))
			want[y][x] = 1;
	cr_assert_eq(harness_cast(&g, 0, SPELL_COLD, 0, &ev), ERR_OK);
	expect_fx(&ev, want, FX_COLD, "cold");
	/* The rays reach the outer ring itself, and the walls on their way stand. */
	cr_assert_eq(ev.fx[0][5], FX_COLD);
	cr_assert_eq(ev.fx[7][14], FX_COLD);
	cr_assert_eq(ev.fx[2][0], FX_COLD);
	cr_assert_eq(ev.fx[14][12], FX_COLD);
	cr_assert_eq(g.level.cell[4][5], CELL_WALL);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
	cr_assert_eq(harness_msgs(&ev, MSG_COLD_HIT, 1), 1);
	const struct msg *m = harness_msg_for(&ev, MSG_HURT, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 2);
	cr_assert_eq(m->a, ELEMENT_COLD);
	cr_assert_eq(m->b, 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 1, "the opponent is told only of its hurt");
	cr_assert_eq(ev.hp_changed, 2);
}

Test(spells, cold_misses_off_the_rays)
{
	static struct game g;
	struct events ev;
	static const int off[][2] = { { 9, 8 }, { 8, 9 }, { 13, 12 }, { 1, 2 } };

	for (int i = 0; i < 4; i++) {
		harness_setup(&g, harness_room_map, 1);
		harness_place(&g, 1, off[i][0], off[i][1]);
		cr_assert_eq(harness_cast(&g, 0, SPELL_COLD, 0, &ev), ERR_OK);
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP, "hit at (%d,%d)", off[i][0], off[i][1]);
		cr_assert_eq(harness_msgs(&ev, MSG_COLD_MISS, 1), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_COLD_HIT, 1), 0);
		cr_assert_eq(harness_msgs_for(&ev, 1), 0, "no message for the opponent");
		cr_assert_eq(ev.hp_changed, 0);
	}
	/* On the far diagonal, across the whole room: hit. */
	harness_setup(&g, harness_room_map, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_COLD, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
}

/* ---- Fire Storm ---- */

/* The squares a fire storm of `reach` covers in an open room: the 90-degree cone of `d`
 * (forward at least as far as sideways; a diagonal's quadrant), up to `reach` squares. */
static void
fire_cone(const struct game *g, int cx, int cy, int d, int reach, uint8_t want[LEVEL_MAX][LEVEL_MAX])
{
	int fx = dir_dx(d), fy = dir_dy(d);

	memset(want, 0, sizeof(uint8_t[LEVEL_MAX][LEVEL_MAX]));
	for (int y = 0; y < g->level.size; y++)
		for (int x = 0; x < g->level.size; x++) {
			int ox = x - cx, oy = y - cy;
			bool in;
			if (!level_floor(&g->level, x, y) || (ox == 0 && oy == 0) || cheb(0, 0, ox, oy) > reach)
				continue;
			if (fx != 0 && fy != 0)
				in = ox * fx >= 0 && oy * fy >= 0;
			else
				in = ox * fx + oy * fy >= abs(ox * fy - oy * fx);
			want[y][x] = in;
		}
}

Test(spells, fire_cone_in_the_open)
{
	static struct game g;
	static uint8_t want[LEVEL_MAX][LEVEL_MAX];
	static const int d8[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };
	static const int start[4][2] = { { 7, 7 }, { 1, 7 }, { 1, 1 }, { 13, 12 } };
	struct events ev;
	bool reach_seen[11] = { false };

	for (int i = 0; i < 8; i++)
		for (int s = 0; s < 4; s++)
			for (uint64_t seed = 0; seed < 6; seed++) {
				harness_setup(&g, harness_room_map, seed * 8 + (uint64_t)i);
				harness_place(&g, 0, start[s][0], start[s][1]);
				harness_place(&g, 1, 7, 7);
				if (s == 0)
					harness_place(&g, 1, 13, 13);
				int reach = next_range(&g, 5, 10);
				reach_seen[reach] = true;
				fire_cone(&g, start[s][0], start[s][1], d8[i], reach, want);
				cr_assert_eq(harness_cast(&g, 0, SPELL_FIRE, d8[i], &ev), ERR_OK);
				expect_fx(&ev, want, FX_FIRE, "fire");
				bool hit = want[g.wiz[1].y][g.wiz[1].x];
				cr_assert_eq(g.wiz[1].hp, WIZARD_HP - hit);
				cr_assert_eq(harness_msgs(&ev, hit ? MSG_FIRE_HIT : MSG_FIRE_MISS, 1), 1);
				cr_assert_eq(harness_msgs_for(&ev, 1), hit, "the opponent hears only its hurt");
				cr_assert_eq(g.wiz[0].hp, WIZARD_HP, "the caster is never burnt");
			}
	for (int r = 5; r <= 10; r++)
		cr_assert(reach_seen[r], "reach %d never drawn", r);
	/* A few squares by hand: east from the middle reaches 5 to 10, 45 degrees each side. */
	harness_setup(&g, harness_room_map, 3);
	cr_assert_eq(harness_cast(&g, 0, SPELL_FIRE, DIR_E, &ev), ERR_OK);
	cr_assert_eq(ev.fx[7][8], FX_FIRE);
	cr_assert_eq(ev.fx[6][8], FX_FIRE);
	cr_assert_eq(ev.fx[8][8], FX_FIRE);
	cr_assert_eq(ev.fx[5][8], FX_NONE);
	cr_assert_eq(ev.fx[2][12], FX_FIRE);
	cr_assert_eq(ev.fx[6][7], FX_NONE);
	cr_assert_eq(ev.fx[7][6], FX_NONE);
	cr_assert_eq(ev.fx[7][7], FX_NONE);
}

Test(spells, fire_stopped_by_walls)
{
	static struct game g;
	struct events ev;

	for (uint64_t seed = 0; seed < 12; seed++) {
		/* A wall across the room at x = 5: only the column before it burns. */
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 0, 3, 7);
		harness_place(&g, 1, 8, 7);
		for (int y = 1; y < 14; y++)
			wall(&g, 5, y);
		cr_assert_eq(harness_cast(&g, 0, SPELL_FIRE, DIR_E, &ev), ERR_OK);
		cr_assert_eq(harness_fx(&ev, FX_FIRE), 3);
		cr_assert_eq(ev.fx[6][4], FX_FIRE);
		cr_assert_eq(ev.fx[7][4], FX_FIRE);
		cr_assert_eq(ev.fx[8][4], FX_FIRE);
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
		cr_assert_eq(harness_msgs(&ev, MSG_FIRE_MISS, 1), 1);

		/* A gap in the wall: the fire floods through it, and reaches the opponent 5 away. */
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 0, 3, 7);
		harness_place(&g, 1, 8, 7);
		for (int y = 1; y < 14; y++)
			if (y != 7)
				wall(&g, 5, y);
		int reach = next_range(&g, 5, 10);
		cr_assert_eq(harness_cast(&g, 0, SPELL_FIRE, DIR_E, &ev), ERR_OK);
		cr_assert_eq(ev.fx[7][5], FX_FIRE);
		cr_assert_eq(ev.fx[6][5], FX_NONE, "walls do not burn");
		cr_assert_eq(ev.fx[6][6], FX_FIRE, "the fire spreads again past the gap");
		cr_assert_eq(ev.fx[4][6], FX_FIRE, "around the corner of the gap, inside the cone");
		cr_assert_eq(ev.fx[3][6], FX_NONE, "outside the cone");
		cr_assert_eq(ev.fx[7][3 + reach], FX_FIRE);
		cr_assert_eq(ev.fx[7][3 + reach + 1], FX_NONE);
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
		cr_assert_eq(harness_msgs(&ev, MSG_FIRE_HIT, 1), 1);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++)
				cr_assert(ev.fx[y][x] != FX_FIRE || level_floor(&g.level, x, y));
	}
	/* It needs a direction. */
	harness_setup(&g, harness_room_map, 1);
	harness_offer(&g, SPELL_FIRE, SPELL_COLD, SPELL_MAPPING);
	cr_assert_eq(harness_do(&g, 0, CMD_CAST, 0, DIR_NONE, &ev), ERR_NEEDS_DIRECTION);
}

/* ---- Lightning Bolts ---- */

Test(spells, lightning_plus_with_sides)
{
	static struct game g;
	struct events ev;

	/* The open room: every square within one of the caster's row or column. */
	harness_setup(&g, harness_room_map, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_LIGHTNING, 0, &ev), ERR_OK);
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++) {
			bool want = level_floor(&g.level, x, y) && (abs(x - 7) <= 1 || abs(y - 7) <= 1) && !(x == 7 && y == 7);
			cr_assert_eq(ev.fx[y][x], want ? FX_ELEC : FX_NONE, "(%d,%d)", x, y);
		}
	cr_assert_eq(harness_fx(&ev, FX_ELEC), 68);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
	cr_assert_eq(harness_msgs(&ev, MSG_BOLT_MISS, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_THUNDER, 2), 1, "thunder even on a miss");
	cr_assert_eq(harness_msgs_for(&ev, 1), 1);
}

Test(spells, lightning_stopped_by_walls)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	wall(&g, 7, 4);  /* stops the north bolt at (7,5) */
	wall(&g, 10, 8); /* a side square of the east bolt */
	harness_place(&g, 1, 6, 3); /* beside the north bolt's line, past the wall */
	cr_assert_eq(harness_cast(&g, 0, SPELL_LIGHTNING, 0, &ev), ERR_OK);
	cr_assert_eq(harness_fx(&ev, FX_ELEC), 55);
	cr_assert_eq(ev.fx[5][7], FX_ELEC);
	cr_assert_eq(ev.fx[5][6], FX_ELEC);
	cr_assert_eq(ev.fx[5][8], FX_ELEC);
	cr_assert_eq(ev.fx[4][7], FX_NONE);
	cr_assert_eq(ev.fx[4][6], FX_NONE);
	cr_assert_eq(ev.fx[3][6], FX_NONE);
	cr_assert_eq(ev.fx[1][7], FX_NONE);
	cr_assert_eq(ev.fx[8][10], FX_NONE, "a wall beside a bolt is not struck");
	cr_assert_eq(ev.fx[6][10], FX_ELEC);
	cr_assert_eq(ev.fx[8][11], FX_ELEC);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
	cr_assert_eq(harness_msgs(&ev, MSG_BOLT_MISS, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_THUNDER, 2), 1);

	/* Beside the east bolt: struck. */
	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 1, 12, 8);
	cr_assert_eq(harness_cast(&g, 0, SPELL_LIGHTNING, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
	cr_assert_eq(harness_msgs(&ev, MSG_BOLT_HIT, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_THUNDER, 2), 1);
	const struct msg *m = harness_msg_for(&ev, MSG_HURT, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->a, ELEMENT_ELEC);
	/* Two beside the bolt's line is safe. */
	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 1, 12, 9);
	cr_assert_eq(harness_cast(&g, 0, SPELL_LIGHTNING, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
}

/* ---- Acid Rain ---- */

Test(spells, acid_rain_three_by_three)
{
	static struct game g;
	static uint8_t want[LEVEL_MAX][LEVEL_MAX];
	struct events ev;

	for (int far = 0; far < 2; far++) {
		harness_setup(&g, harness_room_map, 1);
		wall(&g, 6, 6);
		harness_place(&g, 1, far ? 9 : 8, far ? 9 : 8);
		memset(want, 0, sizeof want);
		for (int y = 6; y <= 8; y++)
			for (int x = 6; x <= 8; x++)
				want[y][x] = 1;
		cr_assert_eq(harness_cast(&g, 0, SPELL_ACIDRAIN, 0, &ev), ERR_OK);
		expect_fx(&ev, want, FX_ACID, "acid");
		cr_assert_eq(g.wiz[0].hp, WIZARD_HP - 1, "the rain falls on the caster too");
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP - !far);
		cr_assert_eq(harness_msgs(&ev, MSG_ACID_RAINS, 1), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_HEAR_RAIN, 2), 1);
		const struct msg *m = harness_msg_for(&ev, MSG_HURT, 0);
		cr_assert_not_null(m);
		cr_assert_eq(m->to, 1);
		cr_assert_eq(m->a, ELEMENT_ACID);
		cr_assert_eq(harness_msgs(&ev, MSG_HURT, 2), !far);
		/* The caster is told it hit, as with every other damage spell. */
		cr_assert_eq(harness_msgs(&ev, MSG_ACID_HIT, 1), !far);
	}
}

/* ---- Magic Mapping ---- */

Test(spells, mapping_reveals_the_layout_to_the_caster)
{
	static struct game g;
	static uint8_t opp_mem[LEVEL_MAX][LEVEL_MAX];
	struct events ev;

	harness_setup(&g, harness_pocket_map, 1);
	memcpy(opp_mem, g.wiz[1].mem, sizeof opp_mem);
	cr_assert_eq(harness_cast(&g, 0, SPELL_MAPPING, 0, &ev), ERR_OK);
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++) {
			cr_assert_eq(g.wiz[0].mem[y][x], g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL);
			cr_assert_eq(g.wiz[0].memp[y][x], 0, "the layout, not the potions");
		}
	cr_assert(memcmp(opp_mem, g.wiz[1].mem, sizeof opp_mem) == 0, "the opponent learns nothing");
	cr_assert_eq(harness_msgs(&ev, MSG_MAPPED, 1), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_NONE, "mapping does not show the opponent");
}

/* ---- Alter Dungeon ---- */

Test(spells, alter_dungeon)
{
	static struct game g;
	static struct level before;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	struct events ev;

	int pushed = 0;

	for (uint64_t seed = 0; seed < 40; seed++) {
		struct options o;
		int count[APPEARANCE_COUNT + 1] = { 0 }, after[APPEARANCE_COUNT + 1] = { 0 };

		harness_options(&o, seed % 2 ? 25 : 15, true, true);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		int c = g.turn, opp = 1 - c;
		int cx = g.wiz[c].x, cy = g.wiz[c].y, ox = g.wiz[opp].x, oy = g.wiz[opp].y;
		before = g.level;
		for (int y = 0; y < o.size; y++)
			for (int x = 0; x < o.size; x++)
				count[g.potion[y][x]]++;
		cr_assert_eq(harness_cast(&g, c, SPELL_ALTER, 0, &ev), ERR_OK);
		cr_assert(memcmp(before.cell, g.level.cell, sizeof before.cell) != 0, "seed %d: the layout is the same",
		    (int)seed);
		cr_assert(ev.layout_changed);
		cr_assert(level_sealed(&g.level));
		cr_assert(level_connected(&g.level));
		/* The wizards stay where they stood, on floor; or, where the last of the bounded
		 * tries had rock there, one was pushed to the nearest floor and told so. */
		for (int k = 0; k < 2; k++) {
			int p = k ? opp : c, px = k ? ox : cx, py = k ? oy : cy;
			bool moved = g.wiz[p].x != px || g.wiz[p].y != py;
			cr_assert(level_floor(&g.level, g.wiz[p].x, g.wiz[p].y));
			cr_assert_eq(harness_msgs(&ev, MSG_ALTER_MOVED, 1 << p), moved, "seed %d: moved %d, told?", (int)seed, moved);
			pushed += moved;
		}
		cx = g.wiz[c].x;
		cy = g.wiz[c].y;
		ox = g.wiz[opp].x;
		oy = g.wiz[opp].y;
		/* The same potions, on free floor. */
		for (int y = 0; y < o.size; y++)
			for (int x = 0; x < o.size; x++) {
				after[g.potion[y][x]]++;
				if (g.potion[y][x]) {
					cr_assert(level_floor(&g.level, x, y));
					cr_assert(!(x == cx && y == cy) && !(x == ox && y == oy), "a potion under a wizard");
				}
			}
		for (int a = 1; a <= APPEARANCE_COUNT; a++)
			cr_assert_eq(after[a], count[a], "seed %d: %s potions %d -> %d", (int)seed, appearance_name(a - 1),
			    count[a], after[a]);
		/* The caster knows the new layout; the opponent only what it sees now. */
		fov_compute(&g.level, ox, oy, FOV_RADIUS, vis);
		for (int y = 0; y < o.size; y++)
			for (int x = 0; x < o.size; x++) {
				cr_assert_eq(g.wiz[c].mem[y][x], g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL);
				cr_assert_eq(g.wiz[opp].mem[y][x] != MEM_UNKNOWN, vis[y][x] != 0, "seed %d: opponent memory at (%d,%d)",
				    (int)seed, x, y);
				cr_assert_eq(g.wiz[opp].memp[y][x], vis[y][x] ? g.potion[y][x] : 0);
			}
		cr_assert_eq(g.wiz[opp].opp_known, vis[cy][cx] ? OPPMEM_REMEMBERED : OPPMEM_NONE);
		cr_assert_eq(harness_msgs(&ev, MSG_ALTERED, 1 << c), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_ALTERED_OPP, 1 << opp), 1);
	}
	cr_assert(pushed <= 4, "%d of 80 wizards pushed: the tries should almost always find floor", pushed);
}

/* Both wizards on squares at even x and y of a 51x51 level: the maze never carves those,
 * so only a room can put floor there, and most new layouts have rock under one of them.
 * The old rules then drew up to 1,000 levels and moved a wizard without a word. Now the
 * tries are bounded (ALTER_TRIES), and a wizard left in rock is pushed to the nearest
 * free floor square and told. */
Test(spells, alter_dungeon_fallback_bounded_and_told)
{
	static struct game g;
	static const char *const open51[] = {
		"###################################################",
		"#.................................................#",
		"#.0.............................................1.#",
		"#.................................................#",
		NULL,
	};
	struct events ev;
	int told = 0;

	for (uint64_t seed = 0; seed < 20; seed++) {
		harness_setup_opt(&g, open51, 51, true, true, 1);
		harness_reseed(&g, seed);
		cr_assert_eq(harness_cast(&g, 0, SPELL_ALTER, 0, &ev), ERR_OK);
		for (int p = 0; p < PLAYERS; p++) {
			int x0 = p ? 48 : 2, y0 = 2, x = g.wiz[p].x, y = g.wiz[p].y;
			bool moved = x != x0 || y != y0;
			cr_assert(level_floor(&g.level, x, y), "seed %d: wizard %d in rock", (int)seed, p);
			cr_assert_eq(harness_msgs(&ev, MSG_ALTER_MOVED, 1 << p), moved);
			told += moved;
			if (!moved)
				continue;
			/* The nearest: no free floor square is nearer than the one chosen. */
			int r = x > x0 ? x - x0 : x0 - x;
			if ((y > y0 ? y - y0 : y0 - y) > r)
				r = y > y0 ? y - y0 : y0 - y;
			for (int yy = y0 - r + 1; yy < y0 + r; yy++)
				for (int xx = x0 - r + 1; xx < x0 + r; xx++)
					cr_assert(!level_floor(&g.level, xx, yy) || (xx == g.wiz[1 - p].x && yy == g.wiz[1 - p].y),
					    "seed %d: (%d,%d) was nearer than (%d,%d)", (int)seed, xx, yy, x, y);
		}
		cr_assert(ev.moved == (g.wiz[0].x != 2 || g.wiz[1].x != 48 || g.wiz[0].y != 2 || g.wiz[1].y != 2));
	}
	cr_assert(told > 0, "the fallback never ran: the test shows nothing");
}

/* ---- Identify ---- */

Test(spells, identify_the_inventory)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_give(&g, 0, APPEAR_RED);
	harness_give(&g, 0, APPEAR_BLUE);
	harness_give(&g, 0, APPEAR_RED);
	harness_give(&g, 0, APPEAR_ORANGE);
	g.wiz[0].known = 1u << APPEAR_BLUE;
	harness_put(&g, 7, 7, APPEAR_GREEN);
	harness_give(&g, 1, APPEAR_YELLOW);
	cr_assert_eq(harness_cast(&g, 0, SPELL_IDENTIFY, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].known, (1u << APPEAR_RED) | (1u << APPEAR_BLUE) | (1u << APPEAR_ORANGE));
	cr_assert_eq(g.wiz[1].known, 0, "only the caster learns");
	const struct msg *m = harness_msg_for(&ev, MSG_IDENTIFIED_N, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 1);
	cr_assert_eq(m->a, 2, "two new kinds (red, orange)");
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	cr_assert_eq(g.wiz[0].ninv, 4, "identifying uses nothing up");

	harness_pass(&g, 1, &ev);
	cr_assert_eq(harness_cast(&g, 0, SPELL_IDENTIFY, 0, &ev), ERR_OK);
	cr_assert_eq(harness_msgs(&ev, MSG_IDENTIFY_NONE, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_IDENTIFIED_N, 1), 0);
}

/* ---- Item Detection ---- */

Test(spells, item_detection_senses_some_potions)
{
	static struct game g;
	static const int spots[10][2] = { { 4, 3 }, { 8, 3 }, { 12, 3 }, { 4, 7 }, { 8, 7 }, { 12, 7 }, { 4, 11 },
		{ 8, 11 }, { 12, 11 }, { 2, 12 } };
	struct events ev;
	int total = 0, casts_none = 0, casts_all = 0;
	bool ever[10] = { false };

	for (uint64_t seed = 0; seed < 60; seed++) {
		harness_setup(&g, harness_pocket_map, seed);
		for (int i = 0; i < 10; i++)
			harness_put(&g, spots[i][0], spots[i][1], i % APPEARANCE_COUNT);
		cr_assert_eq(harness_cast(&g, 0, SPELL_ITEMDETECT, 0, &ev), ERR_OK);
		int n = 0;
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				if (g.wiz[0].memp[y][x] == 0)
					continue;
				cr_assert_eq(g.wiz[0].memp[y][x], g.potion[y][x], "a sensed potion that is not there");
				cr_assert_eq(g.wiz[0].mem[y][x], MEM_FLOOR);
				n++;
			}
		for (int i = 0; i < 10; i++) {
			bool sensed = g.wiz[0].memp[spots[i][1]][spots[i][0]] != 0;
			ever[i] |= sensed;
			if (!sensed)
				cr_assert_eq(g.wiz[0].mem[spots[i][1]][spots[i][0]], MEM_UNKNOWN);
		}
		if (n > 0) {
			const struct msg *m = harness_msg_for(&ev, MSG_ITEMS_SENSED, 0);
			cr_assert_not_null(m);
			cr_assert_eq(m->a, n);
		} else {
			cr_assert_eq(harness_msgs(&ev, MSG_ITEMS_NONE, 1), 1);
			casts_none++;
		}
		casts_all += n == 10;
		cr_assert_eq(harness_msgs_for(&ev, 1), 0);
		total += n;
	}
	/* "Some items": about half of them, never always all. */
	cr_assert(total > 200 && total < 400, "%d of 600 sensed", total);
	cr_assert_lt(casts_all, 5);
	for (int i = 0; i < 10; i++)
		cr_assert(ever[i]);
	(void)casts_none;
}

/* ---- Life Detection ---- */

Test(spells, life_detection)
{
	static struct game g;
	struct events ev;
	struct view v;

	harness_setup(&g, harness_pocket_map, 1);
	view_build(&g, 0, &v);
	cr_assert_eq(v.opp_state, OPP_UNKNOWN);
	cr_assert_eq(harness_cast(&g, 0, SPELL_LIFEDETECT, 0, &ev), ERR_OK);
	cr_assert(ev.sensed & 1);
	cr_assert_eq(harness_msgs(&ev, MSG_LIFE_SENSED, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_WATCHED, 2), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 1);
	view_build(&g, 0, &v);
	cr_assert(v.opp_state == OPP_SENSED || v.opp_state == OPP_REMEMBERED);
	cr_assert_eq(v.opp_x, 13);
	cr_assert_eq(v.opp_y, 13);

	/* The opponent walks off: the caster's knowledge is no longer "sensed" (exact). */
	cr_assert_eq(harness_do(&g, 1, CMD_STEP, 0, DIR_W, &ev), ERR_OK);
	view_build(&g, 0, &v);
	cr_assert_neq(v.opp_state, OPP_SENSED, "sensed at (13,13), but the opponent stands at (12,13)");
	cr_assert_eq(v.opp_state, OPP_REMEMBERED);
	cr_assert_eq(v.opp_x, 13);
	harness_pass(&g, 1, &ev);
	view_build(&g, 0, &v);
	cr_assert_eq(v.opp_state, OPP_REMEMBERED);
	cr_assert_eq(v.opp_x, 13);
	cr_assert_eq(v.opp_y, 13);
}

/* ---- Restoration ---- */

Test(spells, restoration_heals_one_up_to_five)
{
	static struct game g;
	struct events ev;
	static const int from[] = { 1, 3, 4, 5 };

	for (int i = 0; i < 4; i++) {
		harness_setup(&g, harness_room_map, 1);
		g.wiz[0].hp = (int8_t)from[i];
		cr_assert_eq(harness_cast(&g, 0, SPELL_RESTORE, 0, &ev), ERR_OK);
		int want = from[i] < WIZARD_HP ? from[i] + 1 : WIZARD_HP;
		cr_assert_eq(g.wiz[0].hp, want);
		if (from[i] < WIZARD_HP) {
			const struct msg *m = harness_msg_for(&ev, MSG_RESTORED, 0);
			cr_assert_not_null(m);
			cr_assert_eq(m->a, 1);
			cr_assert_eq(ev.hp_changed, 1);
		} else {
			cr_assert_eq(harness_msgs(&ev, MSG_FULL_HP, 1), 1);
			cr_assert_eq(ev.hp_changed, 0);
		}
		cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	}
}

/* ---- Take Life ---- */

Test(spells, take_life_in_sight)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1); /* the opponent is 6 away across open floor: in sight */
	g.wiz[0].hp = 3;
	cr_assert(game_sees(&g, 0, 13, 13));
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
	cr_assert_eq(g.wiz[0].hp, 4);
	cr_assert_eq(harness_msgs(&ev, MSG_TOOK_LIFE, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_SOUL_TAKEN, 2), 1);
	const struct msg *m = harness_msg_for(&ev, MSG_HURT, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->a, ELEMENT_DRAIN);
	cr_assert_eq(ev.fx[13][13], FX_MAGIC);
	cr_assert_eq(ev.hp_changed, 3);

	/* At full health the caster still steals; it just cannot hold more. */
	harness_setup(&g, harness_room_map, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);

	/* The last hit point: the caster wins. */
	harness_setup(&g, harness_room_map, 1);
	g.wiz[1].hp = 1;
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.result, RESULT_WIN0);
}

Test(spells, take_life_needs_sight)
{
	static struct game g;
	struct events ev;

	/* Shut in: fizzles, and the opponent feels nothing. */
	harness_setup(&g, harness_pocket_map, 1);
	g.wiz[0].hp = 3;
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
	cr_assert_eq(g.wiz[0].hp, 3);
	cr_assert_eq(harness_msgs(&ev, MSG_TAKELIFE_FAIL, 1), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	cr_assert_eq(ev.hp_changed, 0);

	/* Seven squares off across open floor: out of sight. */
	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 0, 6, 7);
	cr_assert(!game_sees(&g, 0, 13, 13));
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);

	/* With FoV off the whole level is in sight, walls or not. */
	harness_setup_opt(&g, harness_pocket_map, 15, false, true, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_TAKELIFE, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP - 1);
}

/* ---- Mirror Earth ---- */

static const char *const lopsided_map[] = {
	"###############",
	"#0.....#......#",
	"#.###..#..a...#",
	"#...#..####.###",
	"#.b.#.........#",
	"#...#..c......#",
	"###.######.####",
	"#.............#",
	"#.....#.......#",
	"#..d..#....1..#",
	"#.....#.......#",
	"####.##########",
	"#.........e...#",
	"#.............#",
	"###############",
	NULL,
};

Test(spells, mirror_earth)
{
	static struct game g, before;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	struct events ev;
	bool seen[4] = { false };

	for (uint64_t seed = 0; seed < 40; seed++) {
		harness_setup(&g, lopsided_map, seed);
		/* The caster remembers the opponent where it saw it, and a potion. */
		g.wiz[0].opp_known = OPPMEM_REMEMBERED;
		g.wiz[0].opp_x = 11;
		g.wiz[0].opp_y = 9;
		g.wiz[0].memp[12][10] = APPEAR_ORANGE + 1;
		g.wiz[1].mem[1][1] = MEM_FLOOR;
		before = g;
		int how = next_range(&g, MIRROR_H, MIRROR_BOTH);
		seen[how] = true;
		cr_assert_eq(harness_cast(&g, 0, SPELL_MIRROR, 0, &ev), ERR_OK);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				int mx = x, my = y;
				level_mirror_point(15, how, &mx, &my);
				cr_assert_eq(g.level.cell[my][mx], before.level.cell[y][x], "how %d (%d,%d)", how, x, y);
				cr_assert_eq(g.potion[my][mx], before.potion[y][x]);
				cr_assert_eq(g.wiz[0].mem[y][x], g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL);
			}
		/* Remembered potions turn with the world; what the caster sees now is fresh. */
		fov_compute(&g.level, g.wiz[0].x, g.wiz[0].y, FOV_RADIUS, vis);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				int mx = x, my = y;
				level_mirror_point(15, how, &mx, &my);
				cr_assert_eq(g.wiz[0].memp[my][mx], vis[my][mx] ? g.potion[my][mx] : before.wiz[0].memp[y][x]);
			}
		for (int p = 0; p < PLAYERS; p++) {
			int x = before.wiz[p].x, y = before.wiz[p].y;
			level_mirror_point(15, how, &x, &y);
			cr_assert_eq(g.wiz[p].x, x);
			cr_assert_eq(g.wiz[p].y, y);
		}
		cr_assert_neq(g.wiz[0].opp_known, OPPMEM_NONE);
		cr_assert_eq(g.wiz[0].opp_x, g.wiz[1].x, "the caster's memory of the opponent turns with the world");
		cr_assert_eq(g.wiz[0].opp_y, g.wiz[1].y);
		/* The opponent forgets all but what it sees now. */
		fov_compute(&g.level, g.wiz[1].x, g.wiz[1].y, FOV_RADIUS, vis);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++)
				cr_assert_eq(g.wiz[1].mem[y][x] != MEM_UNKNOWN, vis[y][x] != 0);
		cr_assert(ev.layout_changed && ev.moved);
		cr_assert_eq(harness_msgs(&ev, MSG_MIRRORED, 1), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_MIRRORED_OPP, 2), 1);
		cr_assert_eq(harness_msgs_for(&ev, 1), 1);
	}
	cr_assert(seen[MIRROR_H] && seen[MIRROR_V] && seen[MIRROR_BOTH]);
}

/* ---- Random ---- */

Test(spells, random_casts_another_spell)
{
	static struct game g;
	struct events ev;
	bool seen[SPELL_COUNT] = { false };

	for (uint64_t seed = 0; seed < 600; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_give(&g, 0, APPEAR_RED);
		harness_put(&g, 3, 3, APPEAR_BLUE);
		g.wiz[0].hp = 4;
		cr_assert_eq(harness_cast(&g, 0, SPELL_RANDOM, 0, &ev), ERR_OK);
		cr_assert_eq(ev.msg[0].id, MSG_CAST);
		cr_assert_eq(ev.msg[0].a, SPELL_RANDOM);
		int i = next_for(&ev, 0, 1);
		cr_assert_eq(ev.msg[i].id, MSG_RANDOM_IS, "Random announces what it became");
		cr_assert_eq(ev.msg[i].to, 1);
		int s = ev.msg[i].a;
		cr_assert(s < SPELL_COUNT && s != SPELL_RANDOM, "became %d", s);
		seen[s] = true;
		int j = next_for(&ev, 0, i + 1);
		cr_assert_geq(j, 0);
		cr_assert(one_of(first_for_caster[s], ev.msg[j].id), "Random as %s: message %d", spell_name(s), ev.msg[j].id);
	}
	for (int s = 0; s < SPELL_COUNT; s++)
		cr_assert_eq(seen[s], s != SPELL_RANDOM, "%s", spell_name(s));
}

/* ---- Demolition ---- */

static const char *const tunnels_map[] = {
	"###############",
	"##.############",
	"##.############",
	"#0.........1###",
	"##.#####.######",
	"##.#####.######",
	"##...###.######",
	"###############",
	NULL,
};

Test(spells, demolition_near_walls_only)
{
	static struct game g, before;
	struct events ev;
	bool ever[LEVEL_MAX][LEVEL_MAX];
	int nothing = 0;

	memset(ever, 0, sizeof ever);
	for (uint64_t seed = 0; seed < 300; seed++) {
		harness_setup(&g, tunnels_map, seed);
		harness_place(&g, 0, 2, 3); /* two from the western outer ring */
		cr_assert(level_connected(&g.level));
		before = g;
		cr_assert_eq(harness_cast(&g, 0, SPELL_DEMOLISH, 0, &ev), ERR_OK);
		int n = 0;
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				if (g.level.cell[y][x] == before.level.cell[y][x]) {
					cr_assert_neq(ev.fx[y][x], FX_MAGIC);
					continue;
				}
				cr_assert_eq(before.level.cell[y][x], CELL_WALL, "floor turned to rock");
				cr_assert_leq(cheb(x, y, 2, 3), 2, "(%d,%d) demolished, too far", x, y);
				cr_assert(!level_edge(&g.level, x, y), "the outer ring broken at (%d,%d)", x, y);
				cr_assert_eq(ev.fx[y][x], FX_MAGIC);
				ever[y][x] = true;
				n++;
			}
		cr_assert(level_sealed(&g.level));
		cr_assert(level_connected(&g.level), "seed %d: demolition left a pocket", (int)seed);
		if (n > 0) {
			const struct msg *m = harness_msg_for(&ev, MSG_DEMOLISHED, 0);
			cr_assert_not_null(m);
			cr_assert_eq(m->a, n);
			cr_assert_eq(harness_msgs(&ev, MSG_HEAR_ROCK, 2), 1);
			cr_assert(ev.layout_changed);
		} else {
			cr_assert_eq(harness_msgs(&ev, MSG_NOTHING_HAPPENS, 1), 1);
			cr_assert_eq(harness_msgs_for(&ev, 1), 0);
			nothing++;
		}
	}
	/* Over many casts, every wall within two (but the ring) falls some time. */
	for (int y = 1; y <= 5; y++)
		for (int x = 1; x <= 4; x++)
			cr_assert_eq(ever[y][x], tunnels_map[y][x] == '#', "(%d,%d)", x, y);
	cr_assert_lt(nothing, 30);

	/* In the middle of an open room there is nothing to demolish. */
	harness_setup(&g, harness_room_map, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_DEMOLISH, 0, &ev), ERR_OK);
	cr_assert_eq(harness_msgs(&ev, MSG_NOTHING_HAPPENS, 1), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	cr_assert(!ev.layout_changed);
}

/* On generated levels, from wherever the wizard to move stands: rock opens only next to
 * floor, so the floor stays one region and the outer ring stays whole. */
Test(spells, demolition_and_navigate_on_real_levels)
{
	static struct game g;
	struct events ev;

	for (uint64_t seed = 0; seed < 150; seed++) {
		struct options o;
		int spell = seed % 2 ? SPELL_DEMOLISH : SPELL_NAVIGATE;

		harness_options(&o, seed % 3 == 0 ? 15 : seed % 3 == 1 ? 25 : 51, true, true);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		int c = g.turn, before = level_floor_count(&g.level);
		cr_assert_eq(harness_cast(&g, c, spell, 0, &ev), ERR_OK);
		cr_assert(level_sealed(&g.level), "seed %d: %s opened the outer ring", (int)seed, spell_name(spell));
		cr_assert(level_connected(&g.level), "seed %d: %s cut the floor in two", (int)seed, spell_name(spell));
		cr_assert_geq(level_floor_count(&g.level), before, "rock never grows");
		cr_assert_eq(ev.layout_changed, level_floor_count(&g.level) > before);
	}
}

/* ---- Navigate ---- */

Test(spells, navigate_opens_four_passages)
{
	static struct game g, before;
	struct events ev;

	harness_setup(&g, tunnels_map, 1);
	harness_place(&g, 0, 5, 3);
	before = g;
	cr_assert_eq(harness_cast(&g, 0, SPELL_NAVIGATE, 0, &ev), ERR_OK);
	int n = 0;
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++) {
			bool line = (x == 5 || y == 3) && !level_edge(&g.level, x, y);
			if (line) {
				cr_assert_eq(g.level.cell[y][x], CELL_FLOOR, "(%d,%d) not opened", x, y);
			} else {
				cr_assert_eq(g.level.cell[y][x], before.level.cell[y][x], "(%d,%d) changed", x, y);
			}
			if (g.level.cell[y][x] != before.level.cell[y][x]) {
				cr_assert_eq(ev.fx[y][x], FX_MAGIC);
				n++;
			}
		}
	cr_assert_eq(n, 12 + 2, "the column but row 3, and row 3 east of the opponent");
	cr_assert(level_sealed(&g.level));
	cr_assert(level_connected(&g.level));
	const struct msg *m = harness_msg_for(&ev, MSG_NAVIGATED, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->a, n);
	cr_assert_eq(harness_msgs(&ev, MSG_HEAR_ROCK, 2), 1);
	cr_assert(ev.layout_changed);

	/* Again from the same square: nothing left to open, nothing heard. */
	harness_pass(&g, 1, &ev);
	cr_assert_eq(harness_cast(&g, 0, SPELL_NAVIGATE, 0, &ev), ERR_OK);
	cr_assert_eq(harness_msgs(&ev, MSG_NOTHING_HAPPENS, 1), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	cr_assert(!ev.layout_changed);
}

/* ---- Create Potions ---- */

Test(spells, create_potions)
{
	static struct game g, before;
	struct events ev;
	bool count_seen[4] = { false };

	for (uint64_t seed = 0; seed < 60; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_put(&g, 2, 2, APPEAR_RED);
		before = g;
		cr_assert_eq(harness_cast(&g, 0, SPELL_CREATE, 0, &ev), ERR_OK);
		const struct msg *m = harness_msg_for(&ev, MSG_CREATED, 0);
		cr_assert_not_null(m);
		cr_assert(m->a >= 1 && m->a <= 3, "%d potions", m->a);
		count_seen[m->a] = true;
		cr_assert_eq(harness_potions(&g), 1 + m->a);
		cr_assert_eq(g.potion[2][2], APPEAR_RED + 1, "an old potion is not replaced");
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++)
				if (g.potion[y][x] != before.potion[y][x]) {
					cr_assert_eq(before.potion[y][x], 0);
					cr_assert(g.potion[y][x] >= 1 && g.potion[y][x] <= APPEARANCE_COUNT);
					cr_assert(level_floor(&g.level, x, y));
					cr_assert(!(x == 7 && y == 7) && !(x == 13 && y == 13), "a potion under a wizard");
				}
		cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	}
	cr_assert(count_seen[1] && count_seen[2] && count_seen[3]);

	/* Without the potions option: nothing. */
	harness_setup_opt(&g, harness_room_map, 15, true, false, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_CREATE, 0, &ev), ERR_OK);
	cr_assert_eq(harness_potions(&g), 0);
	cr_assert_eq(harness_msgs(&ev, MSG_NOTHING_HAPPENS, 1), 1);

	/* No free square: nothing. */
	static const char *const full_map[] = { "#####", "#0a1#", "#####", NULL };
	harness_setup(&g, full_map, 1);
	cr_assert_eq(harness_cast(&g, 0, SPELL_CREATE, 0, &ev), ERR_OK);
	cr_assert_eq(harness_potions(&g), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_NOTHING_HAPPENS, 1), 1);
}

/* ---- Blink and Blink All ---- */

Test(spells, blink_to_free_floor)
{
	static struct game g;
	struct events ev;
	static const char *const three_map[] = { "#######", "#0#1#.#", "#######", NULL };

	/* One free square: always there. */
	for (uint64_t seed = 0; seed < 20; seed++) {
		harness_setup(&g, three_map, seed);
		cr_assert_eq(harness_cast(&g, 0, SPELL_BLINK, 0, &ev), ERR_OK);
		cr_assert_eq(g.wiz[0].x, 5);
		cr_assert_eq(g.wiz[0].y, 1);
		cr_assert_eq(g.wiz[1].x, 3, "Blink moves only the caster");
		cr_assert_eq(ev.fx[1][1], FX_MAGIC);
		cr_assert(ev.moved);
		cr_assert_eq(harness_msgs(&ev, MSG_BLINKED, 1), 1);
		cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	}
	/* In the room: anywhere free, never the same square twice in a row for long. */
	int moved_far = 0;
	for (uint64_t seed = 0; seed < 100; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 1, 8, 7);
		cr_assert_eq(harness_cast(&g, 0, SPELL_BLINK, 0, &ev), ERR_OK);
		cr_assert(level_floor(&g.level, g.wiz[0].x, g.wiz[0].y));
		cr_assert(!(g.wiz[0].x == 8 && g.wiz[0].y == 7), "blinked onto the opponent");
		cr_assert(!(g.wiz[0].x == 7 && g.wiz[0].y == 7), "blinked in place");
		moved_far += cheb(7, 7, g.wiz[0].x, g.wiz[0].y) > 3;
	}
	cr_assert_gt(moved_far, 50);
}

Test(spells, blink_all_moves_both)
{
	static struct game g;
	struct events ev;
	static const char *const four_map[] = { "#########", "#0#1#.#.#", "#########", NULL };
	bool opp_on_old = false;

	for (uint64_t seed = 0; seed < 60; seed++) {
		harness_setup(&g, four_map, seed);
		cr_assert_eq(harness_cast(&g, 0, SPELL_BLINKALL, 0, &ev), ERR_OK);
		int cx = g.wiz[0].x, ox = g.wiz[1].x;
		cr_assert(cx == 5 || cx == 7, "the caster to a free square, not %d", cx);
		cr_assert(ox == 1 || ox == 5 || ox == 7, "the opponent to a free square, not %d", ox);
		cr_assert_neq(cx, ox, "two wizards on one square");
		opp_on_old |= ox == 1;
		cr_assert_eq(harness_msgs(&ev, MSG_BLINKED_ALL, 1), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_TELEPORTED, 2), 1);
		cr_assert(ev.moved);
	}
	cr_assert(opp_on_old, "the caster's old square is free for the opponent");
}

/* Sensed (Telepathy) at the start of the turn, then Blink All: what the caster sensed is
 * stale, and a square it now sees empty cannot still hold the opponent. */
Test(spells, blink_all_after_sensing)
{
	static struct game g;
	struct events ev;
	struct view v;
	int cleared = 0, remembered = 0;

	for (uint64_t seed = 0; seed < 80; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 0, 1, 1);
		g.wiz[0].opp_known = OPPMEM_SENSED;
		g.wiz[0].opp_x = 13;
		g.wiz[0].opp_y = 13;
		view_build(&g, 0, &v);
		cr_assert_eq(v.opp_state, OPP_SENSED);
		cr_assert_eq(harness_cast(&g, 0, SPELL_BLINKALL, 0, &ev), ERR_OK);
		view_build(&g, 0, &v);
		if (game_sees(&g, 0, g.wiz[1].x, g.wiz[1].y)) {
			cr_assert_eq(v.opp_state, OPP_VISIBLE);
			continue;
		}
		cr_assert_neq(v.opp_state, OPP_SENSED, "seed %d: still 'sensed' at (13,13) after Blink All", (int)seed);
		if (game_sees(&g, 0, 13, 13)) {
			cr_assert_eq(v.opp_state, OPP_UNKNOWN, "seed %d: remembered on a square in sight", (int)seed);
			cleared++;
		} else {
			cr_assert_eq(v.opp_state, OPP_REMEMBERED);
			cr_assert(v.opp_x == 13 && v.opp_y == 13);
			remembered++;
		}
	}
	cr_assert(cleared > 0 && remembered > 0, "cleared %d, remembered %d", cleared, remembered);
}

/* ---- Scream ---- */

/* Scream tells its caster how many shattered potions it saw: a potion behind a wall,
 * though within the boom, shatters unseen and is not counted (it used to be, which told
 * the caster of a potion it could not know of). */
Test(spells, scream_counts_only_what_the_caster_saw)
{
	static struct game g;
	struct events ev;
	int hidden_lost = 0;

	for (uint64_t seed = 0; seed < 60; seed++) {
		harness_setup(&g, harness_room_map, seed);
		wall(&g, 9, 9);
		harness_remember(&g);
		harness_put(&g, 10, 10, APPEAR_RED); /* 3 away, behind the wall at (9, 9) */
		harness_put(&g, 5, 7, APPEAR_BLUE);  /* 2 away, in sight */
		cr_assert(!game_sees(&g, 0, 10, 10) && game_sees(&g, 0, 5, 7));
		cr_assert_eq(harness_cast(&g, 0, SPELL_SCREAM, 0, &ev), ERR_OK);
		int seen_lost = g.potion[7][5] == 0;
		hidden_lost += g.potion[10][10] == 0;
		const struct msg *m = harness_msg_for(&ev, MSG_SCREAMED, 0);
		cr_assert_not_null(m);
		cr_assert_eq(m->a, seen_lost, "seed %d: told %d, saw %d shatter", (int)seed, m->a, seen_lost);
	}
	cr_assert(hidden_lost > 10, "the hidden potion shattered only %d times in 60", hidden_lost);
}

Test(spells, scream_radius_four)
{
	static struct game g, before;
	struct events ev;
	int ground_lost = 0, near_lost = 0, own_lost = 0;

	for (uint64_t seed = 0; seed < 120; seed++) {
		bool near = seed % 2 == 0;
		harness_setup(&g, harness_room_map, seed);
		harness_put(&g, 11, 7, APPEAR_RED);   /* 4 away */
		harness_put(&g, 3, 3, APPEAR_BLUE);   /* 4 away */
		harness_put(&g, 12, 7, APPEAR_GREEN); /* 5 away */
		harness_put(&g, 2, 2, APPEAR_GREEN);  /* 5 away */
		harness_place(&g, 1, near ? 11 : 12, near ? 11 : 12);
		for (int i = 0; i < 6; i++) {
			harness_give(&g, 0, APPEAR_YELLOW);
			harness_give(&g, 1, APPEAR_ORANGE);
		}
		before = g;
		cr_assert_eq(harness_cast(&g, 0, SPELL_SCREAM, 0, &ev), ERR_OK);
		cr_assert_eq(harness_fx(&ev, FX_SONIC), 81);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++)
				cr_assert_eq(ev.fx[y][x] == FX_SONIC, cheb(x, y, 7, 7) <= 4);
		cr_assert_eq(g.potion[7][12], APPEAR_GREEN + 1, "5 away is out of reach");
		cr_assert_eq(g.potion[2][2], APPEAR_GREEN + 1);
		int lost = (g.potion[7][11] == 0) + (g.potion[3][3] == 0);
		ground_lost += lost;
		const struct msg *m = harness_msg_for(&ev, MSG_SCREAMED, 0);
		cr_assert_not_null(m);
		cr_assert_eq(m->a, lost);
		int own = before.wiz[0].ninv - g.wiz[0].ninv;
		own_lost += own;
		m = harness_msg_for(&ev, MSG_SHATTERED, 0);
		cr_assert_eq(m ? m->a : 0, own);
		int theirs = before.wiz[1].ninv - g.wiz[1].ninv;
		m = harness_msg_for(&ev, MSG_SHATTERED, 1);
		cr_assert_eq(m ? m->a : 0, theirs);
		if (near) {
			cr_assert_eq(harness_msgs(&ev, MSG_SCREAM_NEAR, 2), 1);
			near_lost += theirs;
		} else {
			cr_assert_eq(harness_msgs(&ev, MSG_SCREAM_FAR, 2), 1);
			cr_assert_eq(theirs, 0, "the opponent's potions are out of reach");
		}
		cr_assert_eq(harness_msgs(&ev, MSG_SCREAM_NEAR, 2) + harness_msgs(&ev, MSG_SCREAM_FAR, 2), 1);
	}
	/* Even odds on the ground and for a near opponent, one in three for the caster's own. */
	cr_assert(ground_lost > 80 && ground_lost < 160, "ground %d of 240", ground_lost);
	cr_assert(near_lost > 130 && near_lost < 230, "opponent %d of 360", near_lost);
	cr_assert(own_lost > 170 && own_lost < 310, "own %d of 720", own_lost);
}

/* ---- Forgetfulness ---- */

Test(spells, forgetfulness_only_out_of_sight)
{
	static struct game g, before;
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	struct events ev;

	for (uint64_t seed = 0; seed < 20; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 0, 1, 1);
		harness_put(&g, 12, 12, APPEAR_RED);
		harness_put(&g, 3, 3, APPEAR_BLUE);
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				g.wiz[0].mem[y][x] = g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL;
				g.wiz[0].memp[y][x] = g.potion[y][x];
			}
		harness_remember(&g);
		before = g;
		fov_compute(&g.level, 1, 1, FOV_RADIUS, vis);
		cr_assert_eq(harness_cast(&g, 0, SPELL_FORGET, 0, &ev), ERR_OK);
		int out = 0, forgot = 0;
		for (int y = 0; y < 15; y++)
			for (int x = 0; x < 15; x++) {
				if (vis[y][x]) {
					cr_assert_neq(g.wiz[0].mem[y][x], MEM_UNKNOWN, "(%d,%d) in sight forgotten", x, y);
					continue;
				}
				out++;
				if (g.wiz[0].mem[y][x] == MEM_UNKNOWN) {
					forgot++;
					cr_assert_eq(g.wiz[0].memp[y][x], 0);
				} else {
					cr_assert_eq(g.wiz[0].mem[y][x], before.wiz[0].mem[y][x]);
					cr_assert_eq(g.wiz[0].memp[y][x], before.wiz[0].memp[y][x]);
				}
			}
		cr_assert(forgot > out / 4 && forgot < out * 3 / 4, "forgot %d of %d", forgot, out);
		cr_assert(memcmp(g.wiz[1].mem, before.wiz[1].mem, sizeof g.wiz[1].mem) == 0, "the opponent forgets nothing");
		cr_assert_eq(g.wiz[0].memp[3][3], APPEAR_BLUE + 1, "a potion in sight is still known");
		cr_assert_eq(harness_msgs(&ev, MSG_FORGOT, 1), 1);
		cr_assert_eq(harness_msgs_for(&ev, 1), 0);
	}
}
