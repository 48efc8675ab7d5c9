/* SPDX-License-Identifier: MIT */
/* Tests for every potion kind in POTION_LIST: drinking, identification, each effect and its duration. */
#include <criterion/criterion.h>

#include <string.h>

#include "harness.h"
#include "internal.h"

/* Player p drinks a potion of `kind` (bound to red) from the ground or from its pack. */
static void
drink_kind(struct game *g, int p, int kind, bool from_pack, struct events *ev)
{
	harness_bind(g, APPEAR_RED, kind);
	if (from_pack) {
		harness_give(g, p, APPEAR_RED);
		cr_assert_eq(harness_do(g, p, CMD_QUAFF, g->wiz[p].ninv - 1, 0, ev), ERR_OK);
	} else {
		harness_put(g, g->wiz[p].x, g->wiz[p].y, APPEAR_RED);
		cr_assert_eq(harness_do(g, p, CMD_DRINK, 0, 0, ev), ERR_OK);
	}
}

/* The opponent passes; returns the steps the drinker then has. */
static int
next_turn(struct game *g, int drinker, struct events *ev)
{
	if (g->turn == drinker)
		harness_pass(g, drinker, ev);
	harness_pass(g, 1 - drinker, ev);
	return g->steps_left;
}

/* ---- drinking ---- */

Test(potions, drink_from_the_ground)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	g.wiz[0].hp = 2;
	harness_bind(&g, APPEAR_RED, POTION_HEALING);
	harness_put(&g, 7, 7, APPEAR_RED);
	cr_assert_eq(harness_do(&g, 0, CMD_DRINK, 0, 0, &ev), ERR_OK);
	cr_assert_eq(g.potion[7][7], 0, "the potion is gone");
	cr_assert_eq(g.wiz[0].hp, 4);
	cr_assert_eq(g.wiz[0].known, 1u << APPEAR_RED);
	cr_assert_eq(g.wiz[1].known, 0, "only the drinker learns the kind");
	const struct msg *m = harness_msg_for(&ev, MSG_DRANK, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 1);
	cr_assert_eq(m->a, APPEAR_RED);
	m = harness_msg_for(&ev, MSG_IT_WAS, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 1);
	cr_assert_eq(m->a, POTION_HEALING);
	m = harness_msg_for(&ev, MSG_RESTORED, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->a, 2);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0, "the opponent is told nothing");
	cr_assert(ev.turn_ended);
	cr_assert_eq(g.turn, 1);
	cr_assert_eq(g.wiz[0].ninv, 0);
}

Test(potions, quaff_shifts_the_pack)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_give(&g, 0, APPEAR_YELLOW);
	harness_give(&g, 0, APPEAR_RED);
	harness_give(&g, 0, APPEAR_BLUE);
	harness_give(&g, 0, APPEAR_GREEN);
	harness_bind(&g, APPEAR_RED, POTION_HEALING);
	cr_assert_eq(harness_do(&g, 0, CMD_QUAFF, 1, 0, &ev), ERR_OK);
	cr_assert_eq(g.wiz[0].ninv, 3);
	cr_assert_eq(g.wiz[0].inv[0], APPEAR_YELLOW);
	cr_assert_eq(g.wiz[0].inv[1], APPEAR_BLUE);
	cr_assert_eq(g.wiz[0].inv[2], APPEAR_GREEN);
	cr_assert_eq(harness_msg_for(&ev, MSG_DRANK, 0)->a, APPEAR_RED);
	cr_assert_eq(g.wiz[0].known, 1u << APPEAR_RED);

	/* The last slot, then the first. */
	harness_pass(&g, 1, &ev);
	cr_assert_eq(harness_do(&g, 0, CMD_QUAFF, 2, 0, &ev), ERR_OK);
	cr_assert_eq(harness_msg_for(&ev, MSG_DRANK, 0)->a, APPEAR_GREEN);
	cr_assert_eq(g.wiz[0].ninv, 2);
	cr_assert_eq(g.wiz[0].inv[0], APPEAR_YELLOW);
	cr_assert_eq(g.wiz[0].inv[1], APPEAR_BLUE);
	harness_pass(&g, 1, &ev);
	cr_assert_eq(harness_do(&g, 0, CMD_QUAFF, 0, 0, &ev), ERR_OK);
	cr_assert_eq(harness_msg_for(&ev, MSG_DRANK, 0)->a, APPEAR_YELLOW);
	cr_assert_eq(g.wiz[0].ninv, 1);
	cr_assert_eq(g.wiz[0].inv[0], APPEAR_BLUE);
	cr_assert_eq(g.wiz[0].known, (1u << APPEAR_RED) | (1u << APPEAR_GREEN) | (1u << APPEAR_YELLOW));
}

Test(potions, identification_is_per_drinker_and_per_appearance)
{
	static struct game g;
	struct events ev;
	struct view v0, v1;

	harness_setup(&g, harness_room_map, 1);
	harness_bind(&g, APPEAR_ORANGE, POTION_TELEPATHY);
	harness_give(&g, 0, APPEAR_ORANGE);
	harness_give(&g, 0, APPEAR_ORANGE);
	harness_give(&g, 1, APPEAR_ORANGE);
	view_build(&g, 0, &v0);
	cr_assert_eq(v0.kind_of[APPEAR_ORANGE], POTION_NONE);
	cr_assert_eq(harness_do(&g, 0, CMD_QUAFF, 0, 0, &ev), ERR_OK);
	view_build(&g, 0, &v0);
	view_build(&g, 1, &v1);
	cr_assert_eq(v0.kind_of[APPEAR_ORANGE], POTION_TELEPATHY, "the other orange potion is known now");
	cr_assert_eq(v0.inv[0], APPEAR_ORANGE);
	cr_assert_eq(v1.kind_of[APPEAR_ORANGE], POTION_NONE, "the opponent's orange potion stays unknown");
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		if (a != APPEAR_ORANGE)
			cr_assert_eq(v0.kind_of[a], POTION_NONE);
}

/* Every kind, from the ground and from the pack: the drinker is told what it was, and the
 * first thing it does is what the kind does. */
Test(potions, every_kind_acts)
{
	static struct game g;
	struct events ev;

	for (int k = 0; k < POTION_KIND_COUNT; k++) {
		const struct potion_info *pi = potion_info(k);
		for (int from_pack = 0; from_pack < 2; from_pack++) {
			harness_setup(&g, harness_room_map, (uint64_t)k);
			g.wiz[0].hp = 3;
			drink_kind(&g, 0, k, from_pack, &ev);
			cr_assert_eq(harness_msg_for(&ev, MSG_IT_WAS, 0)->a, k);
			int i = 0;
			while (i < ev.nmsg && ev.msg[i].id != MSG_IT_WAS)
				i++;
			cr_assert_lt(i + 1, ev.nmsg, "%s: does nothing", pi->name);
			const struct msg *m = &ev.msg[i + 1];
			switch (pi->effect) {
			case PEFFECT_HEAL:
				cr_assert_eq(m->id, MSG_RESTORED, "%s", pi->name);
				cr_assert_eq(g.wiz[0].hp, 5);
				break;
			case PEFFECT_HARM:
				cr_assert_eq(m->id, MSG_HURT, "%s", pi->name);
				cr_assert_eq(m->a, ELEMENT_POISON);
				cr_assert_eq(g.wiz[0].hp, 3 - pi->arg);
				break;
			case PEFFECT_INTRINSIC:
				cr_assert(g.wiz[0].intrinsics & INTRINSIC(pi->arg), "%s", pi->name);
				cr_assert_eq(g.wiz[0].chain.n, 1);
				cr_assert_eq(g.wiz[0].chain.link[0].id, pi->arg);
				cr_assert_eq(g.wiz[0].chain.link[0].turns, pi->turns, "%s", pi->name);
				break;
			case PEFFECT_SPELL: {
				static const int said[][2] = { { SPELL_MAPPING, MSG_MAPPED }, { SPELL_BLINK, MSG_BLINKED },
					{ SPELL_FORGET, MSG_FORGOT }, { SPELL_ACIDRAIN, MSG_ACID_RAINS } };
				int want = -1;
				for (int s = 0; s < 4; s++)
					if (said[s][0] == pi->arg)
						want = said[s][1];
				cr_assert_eq(m->id, want, "%s", pi->name);
				cr_assert_eq(m->to, 1);
				cr_assert_eq(harness_msgs(&ev, MSG_CAST, 1), 0, "a potion is not a cast");
				break;
			}
			}
			cr_assert_eq(g.wiz[0].known, 1u << APPEAR_RED);
		}
	}
}

/* ---- each kind ---- */

Test(potions, healing_two_capped_at_five)
{
	static struct game g;
	struct events ev;
	static const int from[] = { 1, 2, 3, 4, 5 };

	for (int i = 0; i < 5; i++) {
		harness_setup(&g, harness_room_map, 1);
		g.wiz[0].hp = (int8_t)from[i];
		drink_kind(&g, 0, POTION_HEALING, true, &ev);
		int want = from[i] + 2 > WIZARD_HP ? WIZARD_HP : from[i] + 2;
		cr_assert_eq(g.wiz[0].hp, want, "from %d", from[i]);
		if (want > from[i])
			cr_assert_eq(harness_msg_for(&ev, MSG_RESTORED, 0)->a, want - from[i]);
		else
			cr_assert_eq(harness_msgs(&ev, MSG_FULL_HP, 1), 1);
	}
}

/* Speed: ten steps on each of the drinker's next three turns, five again after. */
Test(potions, speed_ten_steps_for_three_turns)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_SPEED, false, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_ON, 1), 1);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN, "the opponent's steps are its own");
	for (int t = 1; t <= 3; t++) {
		harness_pass(&g, 1, &ev);
		cr_assert_eq(g.turn, 0);
		cr_assert_eq(g.steps_left, 2 * STEPS_PER_TURN, "turn %d after", t);
		cr_assert(g.wiz[0].intrinsics & INTRINSIC(HANDLER_FAST));
		/* All ten can be walked (west and back, five each way)... */
		for (int s = 0; s < 2 * STEPS_PER_TURN; s++)
			cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, s < STEPS_PER_TURN ? DIR_W : DIR_E, &ev), ERR_OK,
			    "turn %d step %d", t, s + 1);
		/* ...and no eleventh. */
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_N, &ev), ERR_NO_STEPS);
		harness_pass(&g, 0, &ev);
		cr_assert_eq(harness_msgs(&ev, MSG_FAST_OFF, 1), t == 3, "turn %d", t);
	}
	cr_assert_eq(g.wiz[0].intrinsics, 0);
	cr_assert_eq(g.wiz[0].chain.n, 0);
	harness_pass(&g, 1, &ev);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN);
}

Test(potions, slowness_two_steps_for_three_turns)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_SLOWNESS, true, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_SLOW_ON, 1), 1);
	for (int t = 1; t <= 3; t++) {
		cr_assert_eq(next_turn(&g, 0, &ev), STEPS_PER_TURN - SLOW_PENALTY, "turn %d", t);
		cr_assert_eq(g.steps_left, 2);
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_N, &ev), ERR_OK);
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_S, &ev), ERR_OK);
		cr_assert_eq(harness_do(&g, 0, CMD_STEP, 0, DIR_N, &ev), ERR_NO_STEPS);
	}
	harness_pass(&g, 0, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_SLOW_OFF, 1), 1);
	cr_assert_eq(next_turn(&g, 0, &ev), STEPS_PER_TURN);
}

Test(potions, fast_and_slow_make_seven_either_way)
{
	static struct game g;
	struct events ev;
	static const int order[2][2] = { { POTION_SPEED, POTION_SLOWNESS }, { POTION_SLOWNESS, POTION_SPEED } };

	for (int o = 0; o < 2; o++) {
		harness_setup(&g, harness_room_map, 1);
		drink_kind(&g, 0, order[o][0], true, &ev);
		harness_pass(&g, 1, &ev);
		harness_bind(&g, APPEAR_BLUE, order[o][1]);
		harness_give(&g, 0, APPEAR_BLUE);
		cr_assert_eq(harness_do(&g, 0, CMD_QUAFF, 0, 0, &ev), ERR_OK);
		cr_assert_eq(next_turn(&g, 0, &ev), 7, "%s first", potion_name(order[o][0]));
		cr_assert_eq(g.wiz[0].intrinsics, INTRINSIC(HANDLER_FAST) | INTRINSIC(HANDLER_SLOW));
	}
}

Test(potions, regeneration_heals_at_turn_start)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	g.wiz[0].hp = 1;
	drink_kind(&g, 0, POTION_REGEN, true, &ev);
	cr_assert_eq(g.wiz[0].hp, 1, "nothing at once");
	cr_assert_eq(harness_msgs(&ev, MSG_REGEN_ON, 1), 1);
	for (int t = 1; t <= 4; t++) {
		harness_pass(&g, 1, &ev); /* the drinker's turn starts inside the opponent's pass */
		cr_assert_eq(g.wiz[0].hp, 1 + t, "turn %d", t);
		cr_assert_eq(harness_msgs(&ev, MSG_REGENERATED, 1), 1);
		cr_assert(ev.hp_changed & 1);
		if (t == 4)
			g.wiz[0].hp = 2;
		harness_pass(&g, 0, &ev);
		cr_assert_eq(harness_msgs(&ev, MSG_REGEN_OFF, 1), t == 4);
	}
	harness_pass(&g, 1, &ev);
	cr_assert_eq(g.wiz[0].hp, 2, "worn off");
	cr_assert_eq(harness_msgs(&ev, MSG_REGENERATED, 1), 0);

	/* At full health it heals nothing and says nothing. */
	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_REGEN, true, &ev);
	harness_pass(&g, 1, &ev);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
	cr_assert_eq(harness_msgs(&ev, MSG_REGENERATED, 1), 0);
}

/* Each resistance stops its own element and only that one. */
Test(potions, each_resistance_stops_only_its_element)
{
	static struct game g;
	static const struct {
		int kind, element;
	} res[] = { { POTION_RESCOLD, ELEMENT_COLD }, { POTION_RESFIRE, ELEMENT_FIRE }, { POTION_RESELEC, ELEMENT_ELEC },
		{ POTION_RESACID, ELEMENT_ACID } };
	static const struct {
		int spell, element;
	} att[] = { { SPELL_COLD, ELEMENT_COLD }, { SPELL_FIRE, ELEMENT_FIRE }, { SPELL_LIGHTNING, ELEMENT_ELEC },
		{ SPELL_ACIDRAIN, ELEMENT_ACID }, { SPELL_TAKELIFE, ELEMENT_DRAIN } };
	struct events ev;

	for (int r = 0; r < 4; r++)
		for (int a = 0; a < 5; a++) {
			harness_setup(&g, harness_room_map, 1);
			harness_place(&g, 1, 8, 7); /* east of the caster, adjacent */
			harness_pass(&g, 0, &ev);
			drink_kind(&g, 1, res[r].kind, true, &ev);
			cr_assert_eq(g.turn, 0);
			cr_assert_eq(harness_cast(&g, 0, att[a].spell, DIR_E, &ev), ERR_OK);
			bool stopped = res[r].element == att[a].element;
			cr_assert_eq(g.wiz[1].hp, WIZARD_HP - !stopped, "%s vs %s", potion_name(res[r].kind), spell_name(att[a].spell));
			if (stopped) {
				const struct msg *m = harness_msg_for(&ev, MSG_RESISTED, 1);
				cr_assert_not_null(m);
				cr_assert_eq(m->to, 2);
				cr_assert_eq(m->a, att[a].element);
				m = harness_msg_for(&ev, MSG_OPP_RESISTED, 0);
				cr_assert_not_null(m);
				cr_assert_eq(m->to, 1);
				cr_assert_eq(m->a, att[a].element);
				cr_assert_eq(harness_msgs(&ev, MSG_HURT, 2), 0);
			} else {
				cr_assert_eq(harness_msgs(&ev, MSG_RESISTED, 2), 0);
				cr_assert_eq(harness_msgs(&ev, MSG_HURT, 2), 1);
			}
		}
}

/* A resistance drunk on turn T protects through the opponent's turns up to the end of T+8. */
Test(potions, resistance_lasts_eight_turns)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 1, 8, 7);
	harness_pass(&g, 0, &ev);
	drink_kind(&g, 1, POTION_RESCOLD, true, &ev); /* turn T */
	for (int t = 1; t <= 9; t++) {
		/* The opponent's turn between T+t-1 and T+t: cold. */
		cr_assert_eq(harness_cast(&g, 0, SPELL_COLD, 0, &ev), ERR_OK);
		cr_assert_eq(g.wiz[1].hp, t <= 8 ? WIZARD_HP : WIZARD_HP - 1, "attack %d", t);
		g.wiz[1].hp = WIZARD_HP;
		harness_pass(&g, 1, &ev); /* turn T+t */
		cr_assert_eq(harness_msgs(&ev, MSG_RESCOLD_OFF, 2), t == 8, "turn T+%d", t);
	}
}

/* Telepathy: the drinker senses the opponent at the start of each of its next 5 turns. */
Test(potions, telepathy_senses_at_turn_start)
{
	static struct game g;
	struct events ev;
	struct view v;

	harness_setup(&g, harness_pocket_map, 1);
	drink_kind(&g, 0, POTION_TELEPATHY, true, &ev);
	cr_assert_eq(ev.sensed & 1, 0, "not before the next turn");
	view_build(&g, 0, &v);
	cr_assert_eq(v.opp_state, OPP_UNKNOWN);
	for (int t = 1; t <= 6; t++) {
		cr_assert_eq(harness_do(&g, 1, CMD_STEP, 0, t % 2 ? DIR_W : DIR_N, &ev), ERR_OK);
		view_build(&g, 0, &v);
		cr_assert_neq(v.opp_state, OPP_SENSED, "nothing sensed during the opponent's turn");
		harness_pass(&g, 1, &ev);
		view_build(&g, 0, &v);
		if (t <= 5) {
			cr_assert(ev.sensed & 1, "turn %d", t);
			cr_assert_eq(v.opp_state, OPP_SENSED);
			cr_assert_eq(v.opp_x, g.wiz[1].x);
			cr_assert_eq(v.opp_y, g.wiz[1].y);
		} else {
			cr_assert_eq(ev.sensed & 1, 0, "turn %d: worn off", t);
			cr_assert_eq(v.opp_state, OPP_REMEMBERED);
			cr_assert(v.opp_x != g.wiz[1].x || v.opp_y != g.wiz[1].y);
		}
		harness_pass(&g, 0, &ev);
		cr_assert_eq(harness_msgs(&ev, MSG_TELEPATHY_OFF, 1), t == 5);
	}
}

Test(potions, enlightenment_maps)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_pocket_map, 1);
	drink_kind(&g, 0, POTION_ENLIGHTEN, true, &ev);
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++)
			cr_assert_eq(g.wiz[0].mem[y][x], g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL);
	cr_assert_eq(harness_msgs(&ev, MSG_MAPPED, 1), 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);
}

Test(potions, teleportation_blinks)
{
	static struct game g;
	struct events ev;

	for (uint64_t seed = 0; seed < 30; seed++) {
		harness_setup(&g, harness_room_map, seed);
		harness_place(&g, 1, 8, 8);
		drink_kind(&g, 0, POTION_TELEPORT, false, &ev);
		cr_assert(level_floor(&g.level, g.wiz[0].x, g.wiz[0].y));
		cr_assert(!(g.wiz[0].x == 7 && g.wiz[0].y == 7));
		cr_assert(!(g.wiz[0].x == 8 && g.wiz[0].y == 8));
		cr_assert_eq(g.wiz[1].x, 8);
		cr_assert_eq(harness_msgs(&ev, MSG_BLINKED, 1), 1);
		cr_assert(ev.moved);
	}
}

Test(potions, forgetfulness_forgets)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	harness_place(&g, 0, 1, 1);
	harness_remember(&g);
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++)
			g.wiz[0].mem[y][x] = g.level.cell[y][x] == CELL_FLOOR ? MEM_FLOOR : MEM_WALL;
	drink_kind(&g, 0, POTION_FORGET, true, &ev);
	int forgot = 0;
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++)
			forgot += g.wiz[0].mem[y][x] == MEM_UNKNOWN;
	cr_assert(forgot > 40 && forgot < 120, "forgot %d", forgot);
	cr_assert_eq(g.wiz[0].mem[1][1], MEM_FLOOR);
	cr_assert_eq(harness_msgs(&ev, MSG_FORGOT, 1), 1);
}

Test(potions, acid_rains_on_the_drinker)
{
	static struct game g;
	struct events ev;

	for (int near = 0; near < 2; near++) {
		harness_setup(&g, harness_room_map, 1);
		if (near)
			harness_place(&g, 1, 6, 8);
		drink_kind(&g, 0, POTION_ACID, false, &ev);
		cr_assert_eq(g.wiz[0].hp, WIZARD_HP - 1);
		cr_assert_eq(g.wiz[1].hp, WIZARD_HP - near);
		cr_assert_eq(harness_msg_for(&ev, MSG_HURT, 0)->a, ELEMENT_ACID);
		cr_assert_eq(harness_msgs(&ev, MSG_ACID_RAINS, 1), 1);
		cr_assert_eq(harness_msgs(&ev, MSG_HEAR_RAIN, 2), 1);
		cr_assert_eq(harness_fx(&ev, FX_ACID), 9);
	}
}

Test(potions, poison_hurts_and_can_kill)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_POISON, true, &ev);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP - 1);
	const struct msg *m = harness_msg_for(&ev, MSG_HURT, 0);
	cr_assert_not_null(m);
	cr_assert_eq(m->a, ELEMENT_POISON);
	cr_assert_eq(m->b, 1);
	cr_assert_eq(harness_msgs_for(&ev, 1), 0);

	/* No resistance stops poison. */
	harness_setup(&g, harness_room_map, 1);
	g.wiz[0].chain = (struct chain){ 4, { { HANDLER_RES_COLD, 5 }, { HANDLER_RES_FIRE, 5 }, { HANDLER_RES_ELEC, 5 },
		{ HANDLER_RES_ACID, 5 } } };
	drink_kind(&g, 0, POTION_POISON, true, &ev);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP - 1);

	/* The last hit point: the drinker loses. */
	harness_setup(&g, harness_room_map, 1);
	harness_pass(&g, 0, &ev);
	g.wiz[1].hp = 1;
	drink_kind(&g, 1, POTION_POISON, false, &ev);
	cr_assert_eq(g.result, RESULT_WIN0);
	cr_assert_eq(g.end_reason, END_KILLED);
	cr_assert_eq(harness_msgs(&ev, MSG_YOU_LOSE, 2), 1);
	cr_assert(!ev.turn_ended);
}

/* A second dose renews the effect to its full length; it never stacks. */
Test(potions, second_dose_renews)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_SPEED, true, &ev); /* T */
	cr_assert_eq(next_turn(&g, 0, &ev), 10);    /* T+1 */
	cr_assert_eq(next_turn(&g, 0, &ev), 10);    /* T+2: one count left */
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 1);
	drink_kind(&g, 0, POTION_SPEED, true, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_ALREADY_ACTIVE, 1), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_ON, 1), 0);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_OFF, 1), 0);
	cr_assert_eq(g.wiz[0].chain.n, 1, "one link, renewed");
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 3);
	for (int t = 3; t <= 5; t++) {
		cr_assert_eq(next_turn(&g, 0, &ev), 10, "T+%d: renewed, not 15", t);
	}
	harness_pass(&g, 0, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_OFF, 1), 1);
	cr_assert_eq(next_turn(&g, 0, &ev), 5);

	/* Renewed on its very last turn, it goes on instead of ending. */
	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_RESFIRE, true, &ev);
	for (int t = 1; t <= 8; t++)
		next_turn(&g, 0, &ev);
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 0);
	drink_kind(&g, 0, POTION_RESFIRE, true, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_RESFIRE_OFF, 1), 0);
	cr_assert_eq(g.wiz[0].intrinsics, INTRINSIC(HANDLER_RES_FIRE));
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 8);
}

/* Durations count only the drinker's own turns: the opponent's turns change nothing. */
Test(potions, durations_count_the_drinkers_turns_only)
{
	static struct game g;
	struct events ev;

	harness_setup(&g, harness_room_map, 1);
	drink_kind(&g, 0, POTION_TELEPATHY, true, &ev);
	harness_give(&g, 1, APPEAR_YELLOW);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(g.turn, 1);
		uint8_t before = g.wiz[0].chain.link[0].turns;
		cr_assert_eq(harness_do(&g, 1, CMD_STEP, 0, i % 2 ? DIR_S : DIR_N, &ev), ERR_OK);
		cr_assert_eq(g.wiz[0].chain.link[0].turns, before);
		harness_pass(&g, 1, &ev);
		cr_assert_eq(g.wiz[0].chain.link[0].turns, before - 1, "the drinker's turn start counts one");
		harness_pass(&g, 0, &ev);
	}
	cr_assert_eq(g.wiz[1].chain.n, 0);
}

/* Rules version 4: no duel binds Acid Resistance (potion_drawn()); the five kinds of a duel are
 * drawn from the other thirteen, each of them in about 5 duels of 13. Every kind but it must
 * turn up, and none anywhere near twice its share, over many seeds. */
Test(potions, duels_draw_their_kinds_from_all_but_acid_resistance)
{
	static struct game g;
	struct options o;
	int seen[POTION_KIND_COUNT] = { 0 }, drawn = 0;
	enum { DUELS = 1300 };

	for (int k = 0; k < POTION_KIND_COUNT; k++)
		drawn += potion_drawn(k);
	cr_assert_eq(drawn, POTION_KIND_COUNT - 1);
	cr_assert(!potion_drawn(POTION_RESACID));
	cr_assert(!potion_drawn(-1) && !potion_drawn(POTION_KIND_COUNT));
	harness_options(&o, 15, true, true);
	for (uint64_t seed = 1; seed <= DUELS; seed++) {
		cr_assert_eq(game_init(&g, &o, seed), ERR_OK);
		for (int a = 0; a < APPEARANCE_COUNT; a++)
			seen[g.kind_of[a]]++;
	}
	cr_assert_eq(seen[POTION_RESACID], 0, "a duel bound Acid Resistance");
	for (int k = 0; k < POTION_KIND_COUNT; k++)
		if (k != POTION_RESACID)
			cr_assert(seen[k] > DUELS * 5 / 13 * 3 / 4 && seen[k] < DUELS * 5 / 13 * 5 / 4, "%s in %d of %d duels",
			    potion_name(k), seen[k], DUELS);
}
