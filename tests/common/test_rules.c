/* SPDX-License-Identifier: MIT */
/* Tests for the rules: set-up, steps, actions and turns, winning and drawing, refusals, determinism, the hash. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "fov.h"
#include "harness.h"
#include "internal.h"

/* Player 0 in a dead end: wall to the west, north and south; player 1 east of it. */
static const char *const nook_map[] = {
	"###############",
	"#######.#######",
	"######01.######",
	"#######.#######",
	"###############",
	NULL,
};

static int
room_of(const struct level_rooms *rs, int x, int y)
{
	for (int i = 0; i < rs->n; i++) {
		const struct room *rm = &rs->room[i];
		if (x >= rm->x && x < rm->x + rm->w && y >= rm->y && y < rm->y + rm->h)
			return i;
	}
	return -1;
}

static bool
offer_ok(const struct game *g)
{
	for (int i = 0; i < SPELL_OFFERED; i++) {
		if (g->offered[i] >= SPELL_COUNT || spell_class_of(g->offered[i]) == SPELL_NEGATIVE)
			return false;
		for (int j = 0; j < i; j++)
			if (g->offered[i] == g->offered[j])
				return false;
	}
	return true;
}

/* Refused with `want`, and nothing at all changed: not the hash, not one byte of the state. */
static void
refuse(struct game *g, int p, int type, int arg, int dir, int want)
{
	static struct game before;
	struct cmd c = { (uint8_t)type, (uint8_t)arg, (uint8_t)dir };
	struct events ev;
	uint64_t h = game_hash(g);

	memcpy(&before, g, sizeof before);
	cr_assert_eq(game_check(g, p, &c), want, "check of p%d %d/%d/%d: want '%s', got '%s'", p, type, arg, dir,
	    err_text(want), err_text(game_check(g, p, &c)));
	int err = game_apply(g, p, &c, &ev);
	cr_assert_eq(err, want, "p%d %d/%d/%d: want '%s', got '%s'", p, type, arg, dir, err_text(want), err_text(err));
	cr_assert_eq(game_hash(g), h, "a refusal changed the hash");
	cr_assert(memcmp(g, &before, sizeof before) == 0, "a refusal changed the state");
}

/* ---- set-up ---- */

Test(rules, start_state)
{
	static const int sizes[] = { 15, 17, 25, 37, 51 };
	static struct game g;
	bool first_seen[PLAYERS] = { false, false };

	for (int s = 0; s < 5; s++) {
		for (uint64_t seed = 0; seed < 150; seed++) {
			struct options o;
			struct level lv;
			struct level_rooms rooms;
			struct rng r;
			uint8_t vis[LEVEL_MAX][LEVEL_MAX];
			int size = sizes[s];

			harness_options(&o, size, true, true);
			cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
			/* game_init draws the level first: the same draws give the rooms it used. */
			rng_seed(&r, seed);
			cr_assert_eq(level_generate(&lv, size, &r, &rooms), 0);
			cr_assert(memcmp(lv.cell, g.level.cell, sizeof lv.cell) == 0);
			int r0 = room_of(&rooms, g.wiz[0].x, g.wiz[0].y), r1 = room_of(&rooms, g.wiz[1].x, g.wiz[1].y);
			cr_assert(r0 >= 0 && r1 >= 0 && r0 != r1, "size %d seed %d: rooms %d and %d", size, (int)seed, r0, r1);

			first_seen[g.first] = true;
			cr_assert_eq(g.turn, g.first);
			cr_assert_eq(g.turn_no, 0);
			cr_assert_eq(g.steps_left, STEPS_PER_TURN);
			cr_assert_eq(g.result, RESULT_NONE);
			cr_assert_eq(g.end_reason, END_NONE);
			cr_assert_eq(g.seed, seed);
			cr_assert(offer_ok(&g), "size %d seed %d: bad offer", size, (int)seed);

			/* Five different kinds behind the five appearances. */
			for (int a = 0; a < APPEARANCE_COUNT; a++) {
				cr_assert_lt(g.kind_of[a], POTION_KIND_COUNT);
				for (int b = 0; b < a; b++)
					cr_assert_neq(g.kind_of[a], g.kind_of[b]);
			}

			int want = level_floor_count(&g.level) / POTION_DIVISOR;
			if (want < 1)
				want = 1;
			cr_assert_eq(harness_potions(&g), want, "size %d seed %d", size, (int)seed);
			for (int y = 0; y < size; y++)
				for (int x = 0; x < size; x++) {
					if (!g.potion[y][x])
						continue;
					cr_assert(g.potion[y][x] <= APPEARANCE_COUNT);
					cr_assert(level_floor(&g.level, x, y), "potion in rock");
					for (int p = 0; p < PLAYERS; p++)
						cr_assert(g.wiz[p].x != x || g.wiz[p].y != y, "potion under a wizard");
				}

			for (int p = 0; p < PLAYERS; p++) {
				const struct wizard *w = &g.wiz[p];
				cr_assert_eq(w->hp, WIZARD_HP);
				cr_assert(level_floor(&g.level, w->x, w->y));
				cr_assert_eq(w->ninv, START_POTIONS);
				cr_assert_lt(w->inv[0], APPEARANCE_COUNT);
				cr_assert_lt(w->inv[1], APPEARANCE_COUNT);
				cr_assert_neq(w->inv[0], w->inv[1], "two of the same start potion");
				cr_assert_eq(w->known, (1u << w->inv[0]) | (1u << w->inv[1]), "start potions identified, nothing else");
				cr_assert_eq(w->chain.n, 0);
				cr_assert_eq(w->intrinsics, 0);
				/* Each knows exactly what it sees. */
				fov_compute(&g.level, w->x, w->y, FOV_RADIUS, vis);
				for (int y = 0; y < size; y++)
					for (int x = 0; x < size; x++) {
						int want_mem = !vis[y][x] ? MEM_UNKNOWN : g.level.cell[y][x] == CELL_WALL ? MEM_WALL : MEM_FLOOR;
						cr_assert_eq(w->mem[y][x], want_mem);
						cr_assert_eq(w->memp[y][x], vis[y][x] ? g.potion[y][x] : 0);
					}
				const struct wizard *opp = &g.wiz[1 - p];
				cr_assert_eq(w->opp_known, vis[opp->y][opp->x] ? OPPMEM_REMEMBERED : OPPMEM_NONE);
			}
		}
	}
	cr_assert(first_seen[0] && first_seen[1], "the first mover is not random");
}

Test(rules, start_without_potions)
{
	static struct game g;
	bool offered_with[SPELL_COUNT] = { false };

	for (uint64_t seed = 0; seed < 400; seed++) {
		struct options o;

		harness_options(&o, 25, true, false);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		cr_assert_eq(harness_potions(&g), 0);
		for (int p = 0; p < PLAYERS; p++) {
			cr_assert_eq(g.wiz[p].ninv, 0);
			cr_assert_eq(g.wiz[p].known, 0);
		}
		/* Every turn's offer, through a short random duel. */
		struct harness_bots b;
		struct events ev;
		struct cmd c;
		harness_bots_init(&b, seed);
		for (int i = 0; i < 60 && g.result == RESULT_NONE; i++) {
			cr_assert(offer_ok(&g));
			for (int k = 0; k < SPELL_OFFERED; k++)
				cr_assert(g.offered[k] != SPELL_CREATE && g.offered[k] != SPELL_IDENTIFY &&
				        g.offered[k] != SPELL_ITEMDETECT,
				    "seed %d: %s offered without potions", (int)seed, spell_name(g.offered[k]));
			harness_bots_step(&b, &g, &c, &ev);
			cr_assert_eq(harness_potions(&g), 0, "a potion appeared without the potions option");
		}

		harness_options(&o, 25, true, true);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		for (int k = 0; k < SPELL_OFFERED; k++)
			offered_with[g.offered[k]] = true;
	}
	/* With potions, every spell but the negative ones turns up in some first offer. */
	for (int s = 0; s < SPELL_COUNT; s++)
		cr_assert_eq(offered_with[s], spell_class_of(s) != SPELL_NEGATIVE, "%s", spell_name(s));
}

Test(rules, options_check)
{
	static const int good[] = { 15, 17, 25, 49, 51 };
	static const int bad[] = { 0, 1, 13, 14, 16, 24, 50, 52, 53, 255 };
	static struct game g;
	struct options o;

	options_default(&o);
	cr_assert_eq(o.size, 25);
	cr_assert(o.fov && o.potions);
	cr_assert_eq(options_check(&o), ERR_OK);
	for (int i = 0; i < 5; i++) {
		o.size = (uint8_t)good[i];
		cr_assert_eq(options_check(&o), ERR_OK, "size %d", good[i]);
		cr_assert_eq(game_init(&g, &o, 7), ERR_OK, "size %d", good[i]);
		cr_assert_eq(g.level.size, good[i]);
	}
	for (int i = 0; i < 10; i++) {
		o.size = (uint8_t)bad[i];
		cr_assert_eq(options_check(&o), ERR_BAD_SIZE, "size %d", bad[i]);
		cr_assert_eq(game_init(&g, &o, 7), ERR_BAD_SIZE, "size %d", bad[i]);
	}
}

Test(rules, names_and_directions)
{
	static const struct {
		int d, dx, dy;
	} dirs[] = { { 1, -1, 1 }, { 2, 0, 1 }, { 3, 1, 1 }, { 4, -1, 0 }, { 6, 1, 0 }, { 7, -1, -1 }, { 8, 0, -1 }, { 9, 1, -1 } };

	for (int i = 0; i < 8; i++) {
		cr_assert(dir_valid(dirs[i].d));
		cr_assert_eq(dir_dx(dirs[i].d), dirs[i].dx);
		cr_assert_eq(dir_dy(dirs[i].d), dirs[i].dy);
	}
	cr_assert(!dir_valid(0) && !dir_valid(5) && !dir_valid(10) && !dir_valid(-1));
	cr_assert_eq(dir_dx(5), 0);
	cr_assert_eq(dir_dy(10), 0);
	for (int t = 0; t < CMD_COUNT; t++)
		cr_assert_eq(cmd_lookup(cmd_name(t)), t);
	cr_assert_eq(cmd_lookup("walk"), -1);
	cr_assert_eq(cmd_lookup(NULL), -1);
	for (int e = 0; e < ERR_COUNT; e++)
		cr_assert_neq(strcmp(err_text(e), "unknown error"), 0);
	cr_assert_str_eq(err_text(ERR_COUNT), "unknown error");
	for (int s = 0; s < SPELL_COUNT; s++)
		cr_assert_eq(spell_lookup(spell_name(s)), s);
	cr_assert_eq(spell_lookup("cold"), SPELL_COLD);
	cr_assert_eq(spell_lookup("acidrain"), SPELL_ACIDRAIN);
	cr_assert_eq(spell_lookup(NULL), -1);
}

/* ---- steps ---- */

Test(rules, step_each_direction)
{
	static const int d8[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };
	static struct game g;
	struct events ev;

	for (int i = 0; i < 8; i++) {
		harness_setup(&g, harness_room_map, 1);
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, d8[i], &ev), ERR_OK);
		cr_assert_eq(g.wiz[0].x, 7 + dir_dx(d8[i]));
		cr_assert_eq(g.wiz[0].y, 7 + dir_dy(d8[i]));
		cr_assert_eq(g.steps_left, STEPS_PER_TURN - 1);
		cr_assert_eq(g.turn, 0, "a step does not end the turn");
		cr_assert_eq(g.turn_no, 0);
		cr_assert(ev.moved);
		cr_assert(!ev.turn_ended);
		cr_assert_eq(g.wiz[1].x, 13);
		cr_assert_eq(g.wiz[1].y, 13);
	}
}

Test(rules, step_limit_and_zero_steps)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	for (int i = 0; i < STEPS_PER_TURN; i++) {
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_W, &ev), ERR_OK, "step %d", i + 1);
		cr_assert_eq(g.steps_left, STEPS_PER_TURN - 1 - i);
	}
	cr_assert_eq(g.wiz[0].x, 2);
	refuse(&g, 0, CMD_STEP, 0, DIR_E, ERR_NO_STEPS);
	/* Out of steps, an action is still allowed and passes the turn. */
	harness_pass(&g, 0, &ev);
	cr_assert_eq(g.turn, 1);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN);

	/* Zero steps, then an action. */
	harness_setup(&g, harness_room_map, 1);
	cr_assert_eq(harness_do(&g, 0, CMD_CAST, 2, 0, &ev), ERR_OK);
	cr_assert_eq(g.turn, 1);
	cr_assert_eq(g.wiz[0].x, 7);
}

Test(rules, step_blocked_and_occupied)
{
	static struct game g;

	harness_setup(&g, nook_map, 1);
	refuse(&g, 0, CMD_STEP, 0, DIR_W, ERR_BLOCKED);
	refuse(&g, 0, CMD_STEP, 0, DIR_N, ERR_BLOCKED);
	refuse(&g, 0, CMD_STEP, 0, DIR_S, ERR_BLOCKED);
	refuse(&g, 0, CMD_STEP, 0, DIR_SW, ERR_BLOCKED);
	refuse(&g, 0, CMD_STEP, 0, DIR_E, ERR_OCCUPIED);
	/* The diagonals to the ends of the corridor are open floor. */
	cr_assert_eq(game_check(&g, 0, &(struct cmd){ CMD_STEP, 0, DIR_NE }), ERR_OK);
	cr_assert_eq(game_check(&g, 0, &(struct cmd){ CMD_STEP, 0, DIR_SE }), ERR_OK);
	/* A wizard on the edge of the map cannot leave it: the outer ring is wall. */
	harness_place(&g, 0, 7, 1);
	refuse(&g, 0, CMD_STEP, 0, DIR_N, ERR_BLOCKED);
}

/* ---- actions end the turn ---- */

Test(rules, each_action_ends_the_turn)
{
	static struct game g;
	struct events ev;

	for (int type = 0; type < CMD_COUNT; type++) {
		int arg = 0;

		if (type == CMD_STEP || type == CMD_RESIGN)
			continue;
		harness_setup(&g, harness_room_map, 3);
		harness_put(&g, 7, 7, APPEAR_YELLOW);
		harness_give(&g, 0, APPEAR_YELLOW);
		g.wiz[0].hp = 3;
		if (type == CMD_CAST)
			arg = 2; /* Magic Mapping */
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_N, &ev), ERR_OK);
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_S, &ev), ERR_OK);
		cr_assert_eq(harness_do(&g, 0, type, arg, 0, &ev), ERR_OK, "%s", cmd_name(type));
		cr_assert(ev.turn_ended, "%s did not end the turn", cmd_name(type));
		cr_assert_eq(g.turn, 1);
		cr_assert_eq(g.turn_no, 1);
		cr_assert_eq(g.steps_left, STEPS_PER_TURN, "the next wizard's steps");
		cr_assert(offer_ok(&g));
		cr_assert_eq(g.result, RESULT_NONE);
		/* And the other wizard's action passes it back. */
		harness_pass(&g, 1, &ev);
		cr_assert_eq(g.turn, 0);
		cr_assert_eq(g.turn_no, 2);
		cr_assert_eq(g.steps_left, STEPS_PER_TURN);
	}
	harness_setup(&g, harness_room_map, 3);
	harness_pass(&g, 0, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_WAITED, 1), 1);
}

Test(rules, offers_are_redrawn_each_turn)
{
	static struct game g;
	struct events ev;
	int changed = 0;

	harness_setup(&g, harness_room_map, 11);
	for (int i = 0; i < 40; i++) {
		uint8_t before[SPELL_OFFERED];
		memcpy(before, g.offered, sizeof before);
		harness_pass(&g, g.turn, &ev);
		cr_assert(offer_ok(&g));
		changed += memcmp(before, g.offered, sizeof before) != 0;
	}
	cr_assert_gt(changed, 30, "offers redrawn only %d times in 40 turns", changed);
}

Test(rules, pickup)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_put(&g, 7, 7, APPEAR_GREEN);
	cr_assert_eq(harness_do(&g, 0, CMD_PICKUP, 0, 0, &ev), ERR_OK);
	cr_assert_eq(g.potion[7][7], 0);
	cr_assert_eq(g.wiz[0].ninv, 1);
	cr_assert_eq(g.wiz[0].inv[0], APPEAR_GREEN);
	cr_assert_eq(g.wiz[0].known, 0, "picking up does not identify");
	const struct msg *m = harness_msg_for(&ev, MSG_PICKED_UP, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 1);
	cr_assert_eq(m->a, APPEAR_GREEN);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0, "the opponent is told nothing");
	cr_assert(ev.turn_ended);

	/* Up to nine: the ninth fits, a tenth is refused. */
	harness_setup(&g, harness_room_map, 1);
	for (int i = 0; i < INV_MAX - 1; i++)
		harness_give(&g, 0, i % APPEARANCE_COUNT);
	harness_put(&g, 7, 7, APPEAR_BLUE);
	cr_assert_eq(harness_do(&g, 0, CMD_PICKUP, 0, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].ninv, INV_MAX);
	cr_assert_eq(g.wiz[0].inv[INV_MAX - 1], APPEAR_BLUE);
	harness_pass(&g, 1, &ev);
	harness_put(&g, 7, 7, APPEAR_RED);
	refuse(&g, 0, CMD_PICKUP, 0, 0, ERR_INVENTORY_FULL);
	/* Full hands may still drink it where it lies. */
	cr_assert_eq(harness_do(&g, 0, CMD_DRINK, 0, 0, &ev), ERR_OK);
}

/* A wizard remembers where it last saw the opponent, until it looks there and finds the
 * square empty. */
Test(rules, opponent_memory_cleared_by_looking)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 0, 1, 7);
	g.wiz[0].opp_known = OPPMEM_REMEMBERED;
	g.wiz[0].opp_x = 9;
	g.wiz[0].opp_y = 7;
	cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_E, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_REMEMBERED, "(9,7) is 7 away: not yet in sight");
	cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_E, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_NONE, "(9,7) in sight and empty");
	/* Seeing the opponent is remembering it there. */
	cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_SE, &ev), ERR_OK);
	cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_SE, &ev), ERR_OK);
	cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_SE, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].x, 6);
	cr_assert_eq(g.wiz[0].y, 10);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_NONE, "(13,13) is 7 away");
	harness_pass(&g, 0, &ev);
	cr_assert_eq(harness_do(&g, 1, CMD_STEP, 0, DIR_W, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_REMEMBERED, "the opponent walked into sight");
	cr_assert_eq(g.wiz[0].opp_x, 12);
	cr_assert_eq(g.wiz[0].opp_y, 13);
}

/* ---- the end of a duel ---- */

Test(rules, kill_wins)
{
	static struct game g;
	struct events ev;

	for (int caster = 0; caster < PLAYERS; caster++) {
		harness_setup(&g, harness_room_map, 1);
		harness_place(&g, 1, 7, 3); /* on the north ray of Rays of Cold */
		harness_turn(&g, caster);
		g.wiz[1 - caster].hp = 1;
		cr_assert_eq(harness_cast(&g, caster, SPELL_COLD, 0, &ev), ERR_OK);
		cr_assert_eq(g.wiz[1 - caster].hp, 0);
		cr_assert_eq(g.result, caster == 0 ? RESULT_WIN0 : RESULT_WIN1);
		cr_assert_eq(g.end_reason, END_KILLED);
		cr_assert_eq(ev.result, g.result);
		cr_assert_eq(harness_msgs(&ev, MSG_YOU_WIN, 1 << caster), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_YOU_LOSE, 1 << (1 - caster)), 1);
		cr_assert(!ev.turn_ended, "no turn follows the last blow");
		cr_assert_eq(g.turn, caster);
		cr_assert_eq(g.turn_no, 0);
		for (int p = 0; p < PLAYERS; p++) {
			refuse(&g, p, CMD_PASS, 0, 0, ERR_GAME_OVER);
			refuse(&g, p, CMD_RESIGN, 0, 0, ERR_GAME_OVER);
			refuse(&g, p, CMD_STEP, 0, DIR_N, ERR_GAME_OVER);
		}
	}
}

Test(rules, own_death_loses)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	g.wiz[0].hp = 1;
	cr_assert_eq(harness_cast(&g, 0, SPELL_ACIDRAIN, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].hp, 0);
	cr_assert_eq(g.wiz[1].hp, WIZARD_HP, "the opponent is far from the rain");
	cr_assert_eq(g.result, RESULT_WIN1);
	cr_assert_eq(g.end_reason, END_KILLED);
	cr_assert_eq(harness_msgs(&ev, MSG_YOU_LOSE, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_YOU_WIN, 2), 1);
}

Test(rules, both_dead_at_once_is_a_draw)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 1, 8, 8);
	g.wiz[0].hp = 1;
	g.wiz[1].hp = 1;
	cr_assert_eq(harness_cast(&g, 0, SPELL_ACIDRAIN, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].hp, 0);
	cr_assert_eq(g.wiz[1].hp, 0);
	cr_assert_eq(g.result, RESULT_DRAW);
	cr_assert_eq(g.end_reason, END_KILLED);
	cr_assert_eq(harness_msgs(&ev, MSG_DRAW, 3), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_YOU_WIN, 1) + harness_msgs(&ev, MSG_YOU_WIN, 2), 0);
	refuse(&g, 1, CMD_PASS, 0, 0, ERR_GAME_OVER);
}

Test(rules, resign_on_either_turn)
{
	static struct game g;
	struct events ev;

	for (int who = 0; who < PLAYERS; who++) {
		harness_setup(&g, harness_room_map, 1); /* player 0 to move */
		cr_assert_eq(harness_do(&g, who, CMD_RESIGN, 0, 0, &ev), ERR_OK);
		cr_assert_eq(g.result, who == 0 ? RESULT_WIN1 : RESULT_WIN0);
		cr_assert_eq(g.end_reason, END_RESIGNED);
		cr_assert_eq(ev.result, g.result);
		cr_assert_eq(harness_msgs(&ev, MSG_YOU_RESIGNED, 1 << who), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_OPP_RESIGNED, 1 << (1 - who)), 1);
		cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP);
		refuse(&g, 1 - who, CMD_RESIGN, 0, 0, ERR_GAME_OVER);
	}
}

/* At the limit, more HP wins: the one behind gains nothing by stalling. */
Test(rules, turn_limit_more_hp_wins)
{
	static struct game g;
	struct events ev;

	for (int leader = 0; leader < PLAYERS; leader++) {
		harness_setup(&g, harness_room_map, 1);
		g.wiz[1 - leader].hp = 2;
		g.wiz[leader].hp = 3;
		g.turn_no = TURN_LIMIT - 1;
		harness_pass(&g, 0, &ev);
		cr_assert_eq(g.end_reason, END_TURN_LIMIT);
		cr_assert_eq(g.result, leader == 0 ? RESULT_WIN0 : RESULT_WIN1);
		cr_assert_eq(ev.result, g.result);
		const struct msg *w = harness_msg_for(&ev, MSG_LIMIT_WIN, leader);
		const struct msg *l = harness_msg_for(&ev, MSG_LIMIT_LOSE, 1 - leader);
		cr_assert(w && l && w->to == 1 << leader && l->to == 1 << (1 - leader));
		cr_assert(w->a == 3 && w->b == 2 && l->a == 2 && l->b == 3);
		cr_assert_eq(harness_msgs(&ev, MSG_TURN_LIMIT, 3), 0);
	}
}

/* From game_end_phase(size) on, the mover senses the other at the start of each turn
 * (told once), so hiding stops paying; before it, nothing is sensed. */
Test(rules, end_phase_senses_the_opponent)
{
	static struct game g;
	static struct view v;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 1, 1, 1);
	cr_assert_eq(game_end_phase(15), 75u);
	cr_assert_eq(game_end_phase(51), 255u);
	/* Out of sight of each other: a wall between. */
	for (int x = 1; x < 14; x++)
		g.level.cell[4][x] = CELL_WALL;
	g.level.cell[4][13] = CELL_FLOOR;
	harness_remember(&g);
	g.wiz[0].opp_known = g.wiz[1].opp_known = 0;
	g.turn_no = game_end_phase(15) - 2;
	harness_pass(&g, 0, &ev);
	cr_assert_eq(g.wiz[1].opp_known, 0, "sensed before the end phase");
	cr_assert_eq(harness_msgs(&ev, MSG_END_PHASE, 2), 0);
	harness_pass(&g, 1, &ev);
	cr_assert_eq(g.turn_no, game_end_phase(15));
	cr_assert_eq(harness_msgs(&ev, MSG_END_PHASE, 1), 1);
	cr_assert(ev.sensed & 1);
	view_build(&g, 0, &v);
	cr_assert_eq(v.opp_state, OPP_SENSED);
	cr_assert(v.opp_x == g.wiz[1].x && v.opp_y == g.wiz[1].y);
	harness_pass(&g, 0, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_END_PHASE, 2), 1);
	view_build(&g, 1, &v);
	cr_assert_eq(v.opp_state, OPP_SENSED);
	/* Told once each; sensed every turn. */
	harness_pass(&g, 1, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_END_PHASE, 1), 0);
	cr_assert(ev.sensed & 1);
}

/* With FoV off everything is in sight: Magic Mapping, Life Detection and Item Detection
 * could do nothing, so they are never offered (Random may still draw them). */
Test(rules, fov_off_withholds_the_sensing_spells)
{
	static struct game g;
	bool offered[2][SPELL_COUNT] = { { false } };

	for (uint64_t seed = 0; seed < 300; seed++) {
		for (int fov = 0; fov < 2; fov++) {
			struct options o;
			struct harness_bots b;
			struct events ev;
			struct cmd c;
			harness_options(&o, 15, fov, true);
			cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
			harness_bots_init(&b, seed);
			for (int i = 0; i < 20 && g.result == RESULT_NONE; i++) {
				for (int k = 0; k < SPELL_OFFERED; k++)
					offered[fov][g.offered[k]] = true;
				harness_bots_step(&b, &g, &c, &ev);
			}
		}
	}
	for (int s = 0; s < SPELL_COUNT; s++) {
		bool sensing = s == SPELL_MAPPING || s == SPELL_LIFEDETECT || s == SPELL_ITEMDETECT;
		bool offerable = spell_class_of(s) != SPELL_NEGATIVE;
		cr_assert_eq(offered[1][s], offerable, "FoV on: %s", spell_name(s));
		cr_assert_eq(offered[0][s], offerable && !sensing, "FoV off: %s", spell_name(s));
	}
}

Test(rules, turn_limit_draw)
{
	static struct game g;
	struct events ev;
	char text[128];

	harness_setup(&g, harness_room_map, 1);
	g.turn_no = TURN_LIMIT - 2;
	harness_pass(&g, 0, &ev);
	cr_assert_eq(g.result, RESULT_NONE);
	cr_assert_eq(g.turn_no, TURN_LIMIT - 1);
	harness_pass(&g, 1, &ev);
	cr_assert_eq(g.turn_no, TURN_LIMIT);
	cr_assert_eq(g.result, RESULT_DRAW);
	cr_assert_eq(g.end_reason, END_TURN_LIMIT);
	cr_assert_eq(ev.result, RESULT_DRAW);
	cr_assert(ev.turn_ended);
	const struct msg *m = harness_msg_for(&ev, MSG_TURN_LIMIT, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 3);
	/* The text must not misstate the limit (1000 does not fit the message's byte). */
	msg_format(m, text, sizeof text);
	cr_assert(strstr(text, "255") == NULL, "the players are told: '%s'", text);
	refuse(&g, 0, CMD_PASS, 0, 0, ERR_GAME_OVER);
}

/* ---- refusals: each kind, each changing nothing ---- */

Test(rules, refuse_not_your_turn_and_bad_player)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	refuse(&g, 1, CMD_STEP, 0, DIR_N, ERR_NOT_YOUR_TURN);
	refuse(&g, 1, CMD_PASS, 0, 0, ERR_NOT_YOUR_TURN);
	refuse(&g, 1, CMD_CAST, 0, 0, ERR_NOT_YOUR_TURN);
	refuse(&g, 1, CMD_QUAFF, 0, 0, ERR_NOT_YOUR_TURN);
	refuse(&g, 1, CMD_DRINK, 0, 0, ERR_NOT_YOUR_TURN);
	refuse(&g, 1, CMD_PICKUP, 0, 0, ERR_NOT_YOUR_TURN);
	refuse(&g, 2, CMD_PASS, 0, 0, ERR_BAD_PLAYER);
	refuse(&g, -1, CMD_PASS, 0, 0, ERR_BAD_PLAYER);
	refuse(&g, 255, CMD_RESIGN, 0, 0, ERR_BAD_PLAYER);
}

Test(rules, refuse_game_over_first)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	g.result = RESULT_WIN1;
	g.end_reason = END_RESIGNED;
	refuse(&g, 0, CMD_PASS, 0, 0, ERR_GAME_OVER);
	refuse(&g, 1, CMD_PASS, 0, 0, ERR_GAME_OVER);
	refuse(&g, 7, CMD_PASS, 0, 0, ERR_GAME_OVER);
	refuse(&g, 0, CMD_COUNT, 0, 0, ERR_GAME_OVER);
}

Test(rules, refuse_bad_command)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	refuse(&g, 0, CMD_COUNT, 0, 0, ERR_BAD_COMMAND);
	refuse(&g, 0, 255, 0, 0, ERR_BAD_COMMAND);
	refuse(&g, 1, CMD_COUNT, 0, 0, ERR_BAD_COMMAND);
}

Test(rules, refuse_bad_direction)
{
	static struct game g;
	static const int bad[] = { 0, 5, 10, 11, 255 };

	harness_setup(&g, harness_room_map, 1);
	harness_offer(&g, SPELL_FIRE, SPELL_COLD, SPELL_MAPPING);
	for (int i = 0; i < 5; i++) {
		refuse(&g, 0, CMD_STEP, 0, bad[i], ERR_BAD_DIRECTION);
		if (bad[i] != 0)
			refuse(&g, 0, CMD_CAST, 0, bad[i], ERR_BAD_DIRECTION);
	}
}

Test(rules, refuse_steps)
{
	static struct game g;

	harness_setup(&g, nook_map, 1);
	refuse(&g, 0, CMD_STEP, 0, DIR_W, ERR_BLOCKED);
	refuse(&g, 0, CMD_STEP, 0, DIR_E, ERR_OCCUPIED);
	refuse(&g, 0, CMD_STEP, 1, DIR_NE, ERR_STRAY_ARGUMENT);
	g.steps_left = 0;
	refuse(&g, 0, CMD_STEP, 0, DIR_NE, ERR_NO_STEPS);
}

Test(rules, refuse_casts)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	harness_offer(&g, SPELL_FIRE, SPELL_COLD, SPELL_MAPPING);
	refuse(&g, 0, CMD_CAST, 3, 0, ERR_BAD_SPELL);
	refuse(&g, 0, CMD_CAST, 255, DIR_N, ERR_BAD_SPELL);
	refuse(&g, 0, CMD_CAST, 0, 0, ERR_NEEDS_DIRECTION);
	refuse(&g, 0, CMD_CAST, 1, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 0, CMD_CAST, 2, DIR_S, ERR_NO_DIRECTION);
	cr_assert_eq(game_check(&g, 0, &(struct cmd){ CMD_CAST, 0, DIR_N }), ERR_OK);
	cr_assert_eq(game_check(&g, 0, &(struct cmd){ CMD_CAST, 1, 0 }), ERR_OK);
}

Test(rules, refuse_bare_commands)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	harness_put(&g, 7, 7, APPEAR_RED);
	harness_give(&g, 0, APPEAR_RED);
	refuse(&g, 0, CMD_PASS, 0, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 0, CMD_PASS, 1, 0, ERR_STRAY_ARGUMENT);
	refuse(&g, 0, CMD_DRINK, 0, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 0, CMD_DRINK, 1, 0, ERR_STRAY_ARGUMENT);
	refuse(&g, 0, CMD_PICKUP, 0, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 0, CMD_PICKUP, 2, 0, ERR_STRAY_ARGUMENT);
	refuse(&g, 0, CMD_QUAFF, 0, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 0, CMD_RESIGN, 0, DIR_N, ERR_NO_DIRECTION);
	refuse(&g, 1, CMD_RESIGN, 1, 0, ERR_STRAY_ARGUMENT);
}

Test(rules, refuse_potions)
{
	static struct game g;

	harness_setup(&g, harness_room_map, 1);
	refuse(&g, 0, CMD_DRINK, 0, 0, ERR_NO_POTION_HERE);
	refuse(&g, 0, CMD_PICKUP, 0, 0, ERR_NO_POTION_HERE);
	/* A potion on the next square is not here. */
	harness_put(&g, 8, 7, APPEAR_RED);
	refuse(&g, 0, CMD_DRINK, 0, 0, ERR_NO_POTION_HERE);
	refuse(&g, 0, CMD_QUAFF, 0, 0, ERR_BAD_SLOT);
	harness_give(&g, 0, APPEAR_RED);
	harness_give(&g, 0, APPEAR_BLUE);
	refuse(&g, 0, CMD_QUAFF, 2, 0, ERR_BAD_SLOT);
	refuse(&g, 0, CMD_QUAFF, 9, 0, ERR_BAD_SLOT);
	refuse(&g, 0, CMD_QUAFF, 255, 0, ERR_BAD_SLOT);
	cr_assert_eq(game_check(&g, 0, &(struct cmd){ CMD_QUAFF, 1, 0 }), ERR_OK);
	for (int i = 2; i < INV_MAX; i++)
		harness_give(&g, 0, APPEAR_GREEN);
	harness_put(&g, 7, 7, APPEAR_RED);
	refuse(&g, 0, CMD_PICKUP, 0, 0, ERR_INVENTORY_FULL);
}

/* Random commands against random states: game_check always agrees with game_apply, and a
 * refused command never changes a byte. */
Test(rules, check_agrees_with_apply)
{
	static struct game g, copy;
	struct rng r;
	struct events ev;
	struct cmd c;
	int tried = 0, refused = 0;

	rng_seed(&r, 99);
	for (uint64_t seed = 0; seed < 30; seed++) {
		struct options o;
		struct harness_bots b;

		harness_options(&o, seed % 3 == 0 ? 15 : 25, seed % 4 != 1, seed % 5 != 2);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		harness_bots_init(&b, seed);
		for (int i = 0; i < 300 && g.result == RESULT_NONE; i++) {
			for (int k = 0; k < 20; k++) {
				struct cmd t = { (uint8_t)rng_below(&r, CMD_COUNT + 2), (uint8_t)rng_below(&r, 11),
					(uint8_t)rng_below(&r, 11) };
				int p = (int)rng_below(&r, 3);
				memcpy(&copy, &g, sizeof copy);
				int want = game_check(&copy, p, &t);
				int got = game_apply(&copy, p, &t, &ev);
				cr_assert_eq(got, want, "check says '%s', apply says '%s'", err_text(want), err_text(got));
				if (got != ERR_OK) {
					cr_assert(memcmp(&copy, &g, sizeof copy) == 0, "refused with '%s' and changed the state",
					    err_text(got));
					refused++;
				}
				tried++;
			}
			harness_bots_step(&b, &g, &c, &ev);
		}
	}
	cr_assert_gt(refused, tried / 4);
	cr_assert_lt(refused, tried, "no random command was ever accepted");
}

/* ---- determinism and the hash ---- */

/* Two copies of a duel driven by separate but equal bots stay equal at every step. */
Test(rules, same_seed_same_game)
{
	static struct game a, b;

	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct options o;
		struct harness_bots ba, bb;
		struct events ea, eb;
		struct cmd ca, cb;

		harness_options(&o, seed % 2 ? 25 : 15, seed % 3 != 0, seed % 5 != 0);
		cr_assert_eq(game_init(&a, &o, seed), ERR_OK);
		cr_assert_eq(game_init(&b, &o, seed), ERR_OK);
		harness_bots_init(&ba, seed);
		harness_bots_init(&bb, seed);
		cr_assert_eq(game_hash(&a), game_hash(&b));
		cr_assert(memcmp(&a, &b, sizeof a) == 0);
		for (int i = 0; a.result == RESULT_NONE; i++) {
			harness_bots_step(&ba, &a, &ca, &ea);
			harness_bots_step(&bb, &b, &cb, &eb);
			cr_assert(memcmp(&ca, &cb, sizeof ca) == 0);
			cr_assert_eq(game_hash(&a), game_hash(&b), "seed %d step %d", (int)seed, i);
			cr_assert(memcmp(&a, &b, sizeof a) == 0, "seed %d step %d: states differ", (int)seed, i);
			cr_assert(memcmp(&ea, &eb, sizeof ea) == 0, "seed %d step %d: events differ", (int)seed, i);
		}
		cr_assert_neq(b.result, RESULT_NONE);
	}
}

/* Replaying the recorded commands of a duel from the same seed gives the same hashes. */
Test(rules, replayed_commands_same_hashes)
{
	static struct game g;
	static struct cmd cmds[10000];
	static int players[10000];
	static uint64_t hashes[10000];

	for (uint64_t seed = 100; seed < 140; seed++) {
		struct options o;
		struct harness_bots b;
		struct events ev;
		int n = 0;

		options_default(&o);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		uint64_t start = game_hash(&g);
		harness_bots_init(&b, seed);
		while (g.result == RESULT_NONE) {
			cr_assert_lt(n, 10000, "a duel longer than the turn limit allows");
			players[n] = g.turn;
			harness_bots_step(&b, &g, &cmds[n], &ev);
			hashes[n++] = game_hash(&g);
		}
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		cr_assert_eq(game_hash(&g), start);
		for (int i = 0; i < n; i++) {
			cr_assert_eq(game_apply(&g, players[i], &cmds[i], NULL), ERR_OK, "seed %d command %d", (int)seed, i);
			cr_assert_eq(game_hash(&g), hashes[i], "seed %d diverged at command %d", (int)seed, i);
		}
	}
}

Test(rules, different_seeds_different_games)
{
	static struct game g;
	static uint64_t layout[300], start[300];

	for (int i = 0; i < 300; i++) {
		struct options o;
		uint64_t h = 0xcbf29ce484222325ULL;

		options_default(&o);
		cr_assert_eq(game_init(&g, &o, (uint64_t)i), ERR_OK);
		for (int y = 0; y < g.level.size; y++)
			for (int x = 0; x < g.level.size; x++)
				h = (h ^ g.level.cell[y][x]) * 0x100000001b3ULL;
		layout[i] = h;
		start[i] = game_hash(&g);
		for (int j = 0; j < i; j++) {
			cr_assert_neq(layout[i], layout[j], "seeds %d and %d share a layout", i, j);
			cr_assert_neq(start[i], start[j]);
		}
	}
}

/* Each field that makes the game, changed alone, changes the hash; what is not part of
 * the game (inventory slots past the count) does not. */
Test(rules, hash_covers_every_field)
{
	static struct game base, g;
	struct events ev;
	struct harness_bots b;
	struct cmd c;
	struct options o;
	uint64_t h;

	options_default(&o);
	cr_assert_eq(game_init(&base, &o, 5), ERR_OK);
	harness_bots_init(&b, 5);
	for (int i = 0; i < 20 && base.result == RESULT_NONE; i++)
		harness_bots_step(&b, &base, &c, &ev);
	cr_assert_eq(base.result, RESULT_NONE);
	/* Make sure there are potions and links to change. */
	for (int p = 0; p < PLAYERS; p++) {
		base.wiz[p].ninv = 2;
		base.wiz[p].inv[0] = 0;
		base.wiz[p].inv[1] = 1;
	}
	base.wiz[0].chain.n = 1;
	base.wiz[0].chain.link[0] = (struct link){ HANDLER_FAST, 2 };
	base.wiz[0].intrinsics = INTRINSIC(HANDLER_FAST);
	h = game_hash(&base);
	cr_assert_eq(game_hash(&base), h, "the hash is a function of the state");

#define CHANGES(stmt) \
	do { \
		memcpy(&g, &base, sizeof g); \
		stmt; \
		cr_assert_neq(game_hash(&g), h, "the hash misses: %s", #stmt); \
	} while (0)
	CHANGES(g.opt.size = 27);
	CHANGES(g.opt.fov = !g.opt.fov);
	CHANGES(g.opt.potions = !g.opt.potions);
	CHANGES(g.seed ^= 1);
	for (int i = 0; i < 4; i++)
		CHANGES(g.rng.s[i] ^= 1ULL << 40);
	CHANGES(g.level.cell[0][0] = CELL_FLOOR);
	CHANGES(g.level.cell[12][13] ^= 1);
	CHANGES(g.level.cell[24][24] ^= 1);
	CHANGES(g.potion[12][12] ^= 3);
	CHANGES(g.potion[24][0] = 1);
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		CHANGES(g.kind_of[a] ^= 1);
	for (int p = 0; p < PLAYERS; p++) {
		CHANGES(g.wiz[p].x++);
		CHANGES(g.wiz[p].y++);
		CHANGES(g.wiz[p].hp--);
		CHANGES(g.wiz[p].ninv--);
		CHANGES(g.wiz[p].inv[0] ^= 1);
		CHANGES(g.wiz[p].inv[1] ^= 1);
		CHANGES(g.wiz[p].known ^= 0x10);
		CHANGES(g.wiz[p].intrinsics ^= 4);
		CHANGES(g.wiz[p].chain.n ^= 1);
		CHANGES(g.wiz[p].opp_known ^= 1);
		CHANGES(g.wiz[p].opp_x ^= 1);
		CHANGES(g.wiz[p].opp_y ^= 1);
		CHANGES(g.wiz[p].mem[0][0] ^= 3);
		CHANGES(g.wiz[p].mem[24][24] ^= 3);
		CHANGES(g.wiz[p].mem[5][17] ^= 1);
		CHANGES(g.wiz[p].memp[3][4] ^= 2);
		CHANGES(g.wiz[p].memp[24][24] ^= 2);
	}
	CHANGES(g.wiz[0].chain.link[0].id = HANDLER_SLOW);
	CHANGES(g.wiz[0].chain.link[0].turns++);
	CHANGES(g.first ^= 1);
	CHANGES(g.turn ^= 1);
	CHANGES(g.turn_no++);
	CHANGES(g.turn_no += 1u << 24);
	CHANGES(g.steps_left ^= 1);
	for (int i = 0; i < SPELL_OFFERED; i++)
		CHANGES(g.offered[i] ^= 1);
	CHANGES(g.result = RESULT_DRAW);
	CHANGES(g.end_reason = END_TURN_LIMIT);
#undef CHANGES

	/* Not part of the game: slots past the count, cells past the level's edge. */
	memcpy(&g, &base, sizeof g);
	g.wiz[1].inv[INV_MAX - 1] ^= 7;
	g.wiz[1].chain.link[CHAIN_MAX - 1].turns ^= 7;
	g.level.cell[30][30] ^= 1;
	g.wiz[0].mem[40][2] ^= 1;
	cr_assert_eq(game_hash(&g), h);
}

/* game_hash's definition, a byte at a time as first written: FNV-1a over the fields in
 * order, integers little-endian, grids row by row within the level. game_hash hashes the
 * grids a word at a time (zero words by one multiply); the values must be these, since
 * every turn log and END carries them. */
static uint64_t ref_h;

static void
ref_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		ref_h ^= b[i];
		ref_h *= 0x100000001b3ULL;
	}
}

static void
ref_u64(uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		uint8_t b = (uint8_t)(v >> (8 * i));
		ref_bytes(&b, 1);
	}
}

static void
ref_grid(const uint8_t grid[LEVEL_MAX][LEVEL_MAX], int size)
{
	for (int y = 0; y < size; y++)
		ref_bytes(grid[y], (size_t)size);
}

static uint64_t
ref_hash(const struct game *g)
{
	int size = g->level.size;

	ref_h = 0xcbf29ce484222325ULL;
	ref_u64(RULES_VERSION);
	ref_u64((uint64_t)g->opt.size | (uint64_t)g->opt.fov << 8 | (uint64_t)g->opt.potions << 16);
	ref_u64(g->seed);
	for (int i = 0; i < 4; i++)
		ref_u64(g->rng.s[i]);
	ref_grid(g->level.cell, size);
	ref_grid(g->potion, size);
	ref_bytes(g->kind_of, sizeof g->kind_of);
	for (int p = 0; p < PLAYERS; p++) {
		const struct wizard *w = &g->wiz[p];
		uint8_t head[8] = { w->x, w->y, (uint8_t)w->hp, w->ninv, w->known, w->opp_known, w->opp_x, w->opp_y };
		ref_bytes(head, sizeof head);
		ref_bytes(w->inv, w->ninv);
		ref_u64(w->intrinsics);
		ref_bytes(&w->chain.n, 1);
		for (int i = 0; i < w->chain.n; i++)
			ref_bytes(&w->chain.link[i], 2);
		ref_grid(w->mem, size);
		ref_grid(w->memp, size);
	}
	uint8_t tail[5] = { g->first, g->turn, g->steps_left, g->result, g->end_reason };
	ref_bytes(tail, sizeof tail);
	ref_u64(g->turn_no);
	ref_bytes(g->offered, sizeof g->offered);
	return ref_h;
}

/* Every odd size (each remainder of a row by 8), after every command of a duel, and the
 * grids filled with every byte value (the game's cells are small; the hash takes any). */
Test(rules, hash_is_bytewise_fnv)
{
	static struct game g;

	for (int size = LEVEL_MIN; size <= LEVEL_MAX; size += 2) {
		struct options o;
		struct harness_bots b;
		struct events ev;
		struct cmd c;
		uint64_t seed = 500 + (uint64_t)size;

		harness_options(&o, size, size % 4 == 1, true);
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		cr_assert_eq(game_hash(&g), ref_hash(&g), "size %d at the start", size);
		harness_bots_init(&b, seed);
		for (int i = 0; g.result == RESULT_NONE && i < 400; i++) {
			harness_bots_step(&b, &g, &c, &ev);
			cr_assert_eq(game_hash(&g), ref_hash(&g), "size %d, command %d", size, i);
		}
		struct rng r;
		rng_seed(&r, seed);
		for (int k = 0; k < 4; k++) {
			uint8_t *grids[] = { &g.level.cell[0][0], &g.potion[0][0], &g.wiz[0].mem[0][0], &g.wiz[1].memp[0][0] };
			for (int i = 0; i < LEVEL_MAX * LEVEL_MAX; i++)
				grids[k][i] = (uint8_t)(rng_below(&r, 3) == 0 ? rng_below(&r, 256) : 0);
			cr_assert_eq(game_hash(&g), ref_hash(&g), "size %d, grid %d of random bytes", size, k);
		}
	}
}
