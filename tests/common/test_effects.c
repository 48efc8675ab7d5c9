/* SPDX-License-Identifier: MIT */
/* Tests for the handler chain (effect.c): the base handler, resistances, timed links, renewal, the intrinsics word. */
#include <criterion/criterion.h>

#include <string.h>

#include "harness.h"
#include "internal.h"

static const char *const room_map[] = {
	"###############",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#......01.....#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"###############",
	NULL,
};

static struct game g;
static struct events ev;

static void
fresh(void)
{
	harness_setup(&g, room_map, 1);
	memset(&ev, 0, sizeof ev);
}

static int
send(int who, int type, int element, int amount)
{
	struct hmsg m = { (uint8_t)type, (uint8_t)element, (int16_t)amount };

	return effect__send(&g, who, m, &ev);
}

static void
link_raw(int who, int id, int turns)
{
	struct wizard *w = &g.wiz[who];

	w->chain.link[w->chain.n++] = (struct link){ (uint8_t)id, (uint8_t)turns };
	w->intrinsics |= INTRINSIC(id);
}

/* ---- the base handler ---- */

Test(effects, base_damage)
{
	fresh();
	cr_assert_eq(send(1, HMSG_DAMAGE, ELEMENT_FIRE, 1), 1);
	cr_assert_eq(g.wiz[1].hp, 4);
	cr_assert_eq(ev.hp_changed, 2);
	const struct msg *m = harness_msg_for(&ev, MSG_HURT, 1);
	cr_assert_not_null(m);
	cr_assert_eq(m->to, 2);
	cr_assert_eq(m->a, ELEMENT_FIRE);
	cr_assert_eq(m->b, 1);
	cr_assert_eq(send(1, HMSG_DAMAGE, ELEMENT_COLD, 3), 3);
	cr_assert_eq(g.wiz[1].hp, 1);
	cr_assert_eq(send(1, HMSG_DAMAGE, ELEMENT_COLD, 3), 3, "HP may go below zero");
	cr_assert_eq(g.wiz[1].hp, -2);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);

	fresh();
	cr_assert_eq(send(0, HMSG_DAMAGE, ELEMENT_ACID, 0), 0);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
	cr_assert_eq(ev.nmsg, 0);
	cr_assert_eq(ev.hp_changed, 0);
}

Test(effects, base_heal_capped)
{
	fresh();
	g.wiz[0].hp = 2;
	cr_assert_eq(send(0, HMSG_HEAL, 0, 2), 2);
	cr_assert_eq(g.wiz[0].hp, 4);
	cr_assert_eq(ev.hp_changed, 1);
	cr_assert_eq(send(0, HMSG_HEAL, 0, 2), 1, "only up to the maximum");
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
	memset(&ev, 0, sizeof ev);
	cr_assert_eq(send(0, HMSG_HEAL, 0, 2), 0);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
	cr_assert_eq(ev.hp_changed, 0);
	cr_assert_eq(ev.nmsg, 0, "the base handler heals silently; the caller says why");
}

Test(effects, base_turn_start_sets_steps)
{
	fresh();
	g.steps_left = 0;
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN);
	/* Fewer than none is none. */
	link_raw(0, HANDLER_SLOW, 3);
	send(0, HMSG_TURN_START, 0, 2);
	cr_assert_eq(g.steps_left, 0);
}

/* ---- resistances ---- */

Test(effects, resistance_matrix)
{
	static const int res[4][2] = { { HANDLER_RES_COLD, ELEMENT_COLD }, { HANDLER_RES_FIRE, ELEMENT_FIRE },
		{ HANDLER_RES_ELEC, ELEMENT_ELEC }, { HANDLER_RES_ACID, ELEMENT_ACID } };

	for (int r = 0; r < 4; r++)
		for (int e = 0; e < ELEMENT_COUNT; e++) {
			fresh();
			link_raw(1, res[r][0], 5);
			int got = send(1, HMSG_DAMAGE, e, 1);
			bool stopped = e == res[r][1];
			cr_assert_eq(got, !stopped, "%s vs %s", handler_name(res[r][0]), element_name(e));
			cr_assert_eq(g.wiz[1].hp, WIZARD_HP - !stopped);
			cr_assert_eq(harness_msgs(&ev, MSG_RESISTED, 2), stopped);
			cr_assert_eq(harness_msgs(&ev, MSG_HURT, 2), !stopped);
			if (stopped)
				cr_assert_eq(harness_msg_for(&ev, MSG_RESISTED, 1)->a, e);
			cr_assert_eq(g.wiz[1].chain.n, 1, "a resistance is not used up");
			cr_assert_eq(g.wiz[1].chain.link[0].turns, 5);
		}
}

/* A resistance anywhere in the chain stops its element; one of another element does not
 * get in the way. */
Test(effects, resistance_anywhere_in_the_chain)
{
	fresh();
	link_raw(0, HANDLER_FAST, 2);
	link_raw(0, HANDLER_RES_FIRE, 2);
	link_raw(0, HANDLER_REGEN, 2);
	link_raw(0, HANDLER_RES_COLD, 2);
	cr_assert_eq(send(0, HMSG_DAMAGE, ELEMENT_COLD, 1), 0);
	cr_assert_eq(send(0, HMSG_DAMAGE, ELEMENT_FIRE, 1), 0);
	cr_assert_eq(send(0, HMSG_DAMAGE, ELEMENT_ELEC, 1), 1);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP - 1);
	/* Healing passes every resistance. */
	cr_assert_eq(send(0, HMSG_HEAL, 0, 1), 1);
	cr_assert_eq(g.wiz[0].hp, WIZARD_HP);
}

/* ---- timed links ---- */

/* Counted down at each turn start, unlinked at the end of the turn that used the last count. */
Test(effects, countdown_and_unlink)
{
	fresh();
	effect__link(&g, 0, HANDLER_FAST, 2, &ev);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_ON, 1), 1);
	cr_assert_eq(g.wiz[0].intrinsics, INTRINSIC(HANDLER_FAST));
	send(0, HMSG_TURN_END, 0, 0); /* the turn it was drunk in */
	cr_assert_eq(g.wiz[0].chain.n, 1);
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 2);
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(g.steps_left, 10);
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 1);
	send(0, HMSG_TURN_END, 0, 0);
	cr_assert_eq(g.wiz[0].chain.n, 1);
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(g.steps_left, 10);
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 0);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_OFF, 1), 0);
	send(0, HMSG_TURN_END, 0, 0);
	cr_assert_eq(g.wiz[0].chain.n, 0);
	cr_assert_eq(g.wiz[0].intrinsics, 0);
	cr_assert_eq(harness_msgs(&ev, MSG_FAST_OFF, 1), 1);
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN);
}

/* Several links end in one walk, side by side and apart: the walk by index must not skip
 * the link that slides into an unlinked one's place. */
Test(effects, several_unlink_in_one_walk)
{
	fresh();
	link_raw(0, HANDLER_FAST, 0);
	link_raw(0, HANDLER_SLOW, 0);
	link_raw(0, HANDLER_REGEN, 1);
	link_raw(0, HANDLER_RES_COLD, 0);
	link_raw(0, HANDLER_TELEPATHY, 3);
	link_raw(0, HANDLER_RES_ACID, 0);
	send(0, HMSG_TURN_END, 0, 0);
	cr_assert_eq(g.wiz[0].chain.n, 2);
	cr_assert_eq(g.wiz[0].chain.link[0].id, HANDLER_REGEN);
	cr_assert_eq(g.wiz[0].chain.link[0].turns, 1);
	cr_assert_eq(g.wiz[0].chain.link[1].id, HANDLER_TELEPATHY);
	cr_assert_eq(g.wiz[0].chain.link[1].turns, 3);
	cr_assert_eq(g.wiz[0].intrinsics, INTRINSIC(HANDLER_REGEN) | INTRINSIC(HANDLER_TELEPATHY));
	/* Each said so, in chain order, to its own wizard only. */
	static const int off[4] = { MSG_FAST_OFF, MSG_SLOW_OFF, MSG_RESCOLD_OFF, MSG_RESACID_OFF };
	cr_assert_eq(ev.nmsg, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(ev.msg[i].id, off[i]);
		cr_assert_eq(ev.msg[i].to, 1);
	}
}

Test(effects, fast_and_slow_in_either_order)
{
	for (int o = 0; o < 2; o++) {
		fresh();
		link_raw(0, o ? HANDLER_SLOW : HANDLER_FAST, 3);
		link_raw(0, o ? HANDLER_FAST : HANDLER_SLOW, 3);
		send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
		cr_assert_eq(g.steps_left, STEPS_PER_TURN + STEPS_PER_TURN - SLOW_PENALTY);
		cr_assert_eq(g.steps_left, 7);
	}
}

/* Regeneration heals through the same chain, from inside the turn start walk. */
Test(effects, regeneration_heals_through_the_chain)
{
	fresh();
	g.wiz[0].hp = 3;
	link_raw(0, HANDLER_RES_FIRE, 4);
	link_raw(0, HANDLER_REGEN, 2);
	link_raw(0, HANDLER_FAST, 2);
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(g.wiz[0].hp, 4);
	cr_assert_eq(harness_msgs(&ev, MSG_REGENERATED, 1), 1);
	cr_assert_eq(g.steps_left, 10, "the steps of the outer walk survive the nested heal");
	for (int i = 0; i < 3; i++)
		cr_assert_eq(g.wiz[0].chain.link[i].turns, i == 0 ? 3 : 1, "each link counted once");
	memset(&ev, 0, sizeof ev);
	g.wiz[0].hp = WIZARD_HP;
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(harness_msgs(&ev, MSG_REGENERATED, 1), 0, "nothing to heal, nothing said");
}

Test(effects, telepathy_senses_at_turn_start_only)
{
	fresh();
	link_raw(0, HANDLER_TELEPATHY, 2);
	send(0, HMSG_TURN_END, 0, 0);
	send(0, HMSG_DAMAGE, ELEMENT_COLD, 1);
	cr_assert_eq(ev.sensed, 0);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_REMEMBERED, "seen, from the harness");
	g.wiz[0].opp_known = OPPMEM_NONE;
	send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	cr_assert_eq(ev.sensed, 1);
	cr_assert_eq(g.wiz[0].opp_known, OPPMEM_SENSED);
	cr_assert_eq(g.wiz[0].opp_x, g.wiz[1].x);
	cr_assert_eq(g.wiz[0].opp_y, g.wiz[1].y);
}

/* ---- linking ---- */

Test(effects, link_and_renew)
{
	fresh();
	effect__link(&g, 1, HANDLER_RES_ACID, 8, &ev);
	cr_assert_eq(g.wiz[1].chain.n, 1);
	cr_assert_eq(g.wiz[1].intrinsics, INTRINSIC(HANDLER_RES_ACID));
	cr_assert_eq(harness_msgs(&ev, MSG_RESACID_ON, 2), 1);
	cr_assert_eq(g.wiz[0].chain.n, 0, "the other wizard is untouched");

	/* A second dose renews to the longer of the two durations: never shorter, never summed. */
	g.wiz[1].chain.link[0].turns = 2;
	memset(&ev, 0, sizeof ev);
	effect__link(&g, 1, HANDLER_RES_ACID, 8, &ev);
	cr_assert_eq(g.wiz[1].chain.n, 1);
	cr_assert_eq(g.wiz[1].chain.link[0].turns, 8);
	cr_assert_eq(harness_msgs(&ev, MSG_ALREADY_ACTIVE, 2), 1);
	cr_assert_eq(harness_msgs(&ev, MSG_RESACID_ON, 2), 0);
	effect__link(&g, 1, HANDLER_RES_ACID, 3, &ev);
	cr_assert_eq(g.wiz[1].chain.link[0].turns, 8);
}

Test(effects, every_handler_links_once)
{
	fresh();
	for (int h = 0; h < HANDLER_COUNT; h++)
		effect__link(&g, 0, h, 4, &ev);
	cr_assert_eq(g.wiz[0].chain.n, HANDLER_COUNT);
	cr_assert_eq(g.wiz[0].intrinsics, (1u << HANDLER_COUNT) - 1);
	for (int h = 0; h < HANDLER_COUNT; h++) {
		cr_assert_eq(g.wiz[0].chain.link[h].id, h, "links keep the order they were made in");
		effect__link(&g, 0, h, 4, &ev);
	}
	cr_assert_eq(g.wiz[0].chain.n, HANDLER_COUNT, "CHAIN_MAX: one link per handler");
	cr_assert_eq(harness_msgs(&ev, MSG_ALREADY_ACTIVE, 1), HANDLER_COUNT);
	/* Their ends: one after the other, all said. */
	for (int t = 0; t < 4; t++)
		send(0, HMSG_TURN_START, 0, STEPS_PER_TURN);
	memset(&ev, 0, sizeof ev);
	send(0, HMSG_TURN_END, 0, 0);
	cr_assert_eq(g.wiz[0].chain.n, 0);
	cr_assert_eq(g.wiz[0].intrinsics, 0);
	cr_assert_eq(ev.nmsg, HANDLER_COUNT);
}

Test(effects, names)
{
	static const char *const elements[] = { "cold", "fire", "lightning", "acid", "drain", "poison" };
	static const char *const handlers[] = { "Fast", "Slow", "Regeneration", "Resist cold", "Resist fire",
		"Resist lightning", "Resist acid", "Telepathy" };

	cr_assert_eq(ELEMENT_COUNT, 6);
	cr_assert_eq(HANDLER_COUNT, 8);
	for (int e = 0; e < ELEMENT_COUNT; e++)
		cr_assert_str_eq(element_name(e), elements[e]);
	for (int h = 0; h < HANDLER_COUNT; h++)
		cr_assert_str_eq(handler_name(h), handlers[h]);
	cr_assert_str_eq(element_name(ELEMENT_COUNT), "(unknown element)");
	cr_assert_str_eq(element_name(-1), "(unknown element)");
	cr_assert_str_eq(handler_name(HANDLER_COUNT), "(unknown effect)");
	cr_assert_lt(HANDLER_COUNT, 32, "each handler is one bit of the 32-bit intrinsics word");
}

/* Through the rules: an effect on one wizard never reacts to the other wizard's turns. */
Test(effects, chains_are_per_wizard)
{
	struct events e;

	fresh();
	effect__link(&g, 1, HANDLER_FAST, 1, &ev);
	/* Player 0's turns end and start; player 1's link does not move. */
	harness_pass(&g, 0, &e);
	cr_assert_eq(g.steps_left, 10, "player 1's turn starts with its Fast");
	cr_assert_eq(g.wiz[1].chain.link[0].turns, 0);
	harness_pass(&g, 1, &e);
	cr_assert_eq(harness_msgs(&e, MSG_FAST_OFF, 2), 1);
	cr_assert_eq(g.wiz[1].chain.n, 0);
	cr_assert_eq(g.steps_left, STEPS_PER_TURN, "player 0 was never fast");
}
