/* SPDX-License-Identifier: MIT */
/* test_tutorial: the tutorial's guide on hand-made states: each step done only by what proves it, in order,
 * a step done early kept, the keys in force named, the end and a rematch. */
#include <criterion/criterion.h>
#include <string.h>

#include "bot.h"
#include "state.h"
#include "tutorial.h"

static struct keys keys;
static struct state st;
static struct tutorial tut;

/* My move at (5, 5) as player 0, two appearances identified (0 and 1), the opponent unknown. */
static void
setup(void)
{
	keys_init(&keys);
	state_init(&st, &keys);
	tutorial_init(&tut);
	st.have_view = true;
	st.view.me = 0;
	st.view.turn = 0;
	st.view.turn_no = 1;
	st.view.x = st.view.y = 5;
	st.view.steps_left = 5;
	memset(st.view.kind_of, POTION_NONE, sizeof st.view.kind_of);
	st.view.kind_of[0] = 0;
	st.view.kind_of[1] = 1;
	tutorial_watch(&tut, &st);
}

TestSuite(tutorial, .init = setup);

static void
sent(enum cmd_type type)
{
	struct cmd c = { (uint8_t)type, 0, 0 };
	tutorial_sent(&tut, &c);
	tutorial_watch(&tut, &st);
}

Test(tutorial, starts_at_move_with_the_keys_in_force)
{
	cr_assert_eq(tut.step, TUTORIAL_MOVE);
	cr_assert(strstr(st.guide, "Tutorial 1/6, move") != NULL, "%s", st.guide);
	cr_assert(strstr(st.guide, "(8 north, 4 west") != NULL, "%s", st.guide);
	/* Another preset, other keys named. */
	struct keys vi;
	keys_init(&vi);
	cr_assert(keys_preset(&vi, "vi"));
	st.keys = &vi;
	tutorial_watch(&tut, &st);
	cr_assert(strstr(st.guide, "(k north, h west") != NULL, "%s", st.guide);
}

Test(tutorial, each_step_only_by_what_proves_it)
{
	st.view.steps_left = 4; /* a step refused leaves me where I was */
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_MOVE);
	st.view.x = 6;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_LOOK, "%s", st.guide);
	cr_assert(strstr(st.guide, "2/6, look: press ;") != NULL, "%s", st.guide);

	st.mode = MODE_LOOK;
	st.look_x = 6, st.look_y = 5; /* on me: not yet */
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_LOOK);
	st.look_y = 4;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_CAST);
	st.mode = MODE_NORMAL;

	/* A cast sent, then a pass (the cast was refused): the turn ended without a cast. */
	sent(CMD_CAST);
	sent(CMD_PASS);
	st.view.turn = 1;
	st.view.turn_no = 2;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_CAST, "a pass counted as a cast");
	st.view.turn = 0;
	st.view.turn_no = 3;
	tutorial_watch(&tut, &st);
	sent(CMD_CAST);
	cr_assert_eq(tut.step, TUTORIAL_CAST, "counted before the rules ended the turn");
	st.view.turn = 1;
	st.view.turn_no = 4;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_POTION, "%s", st.guide);

	/* An appearance identified without drinking (the Identify spell) is not the potion step. */
	st.view.kind_of[2] = 2;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_POTION);
	sent(CMD_DRINK);
	cr_assert_eq(tut.step, TUTORIAL_POTION, "the drink's answer has not come");
	st.view.kind_of[3] = 3;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_FIND, "%s", st.guide);

	st.view.opp_state = OPP_SENSED;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_WIN);
	cr_assert(strstr(st.guide, "6/6, win") != NULL, "%s", st.guide);
	st.view.result = RESULT_WIN0;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_STEPS);
	cr_assert(strstr(st.guide, "Tutorial done") != NULL, "%s", st.guide);
}

Test(tutorial, a_step_done_early_counts_and_a_loss_keeps_them)
{
	st.view.opp_state = OPP_VISIBLE;
	tutorial_watch(&tut, &st);
	cr_assert_eq(tut.step, TUTORIAL_MOVE, "the first step not done is asked for");
	cr_assert(tut.done & (1u << TUTORIAL_FIND));
	st.view.opp_state = OPP_UNKNOWN; /* lost from sight again: still found */
	st.view.x = 4;
	tutorial_watch(&tut, &st);
	cr_assert(tut.done & (1u << TUTORIAL_FIND));
	cr_assert_eq(tut.step, TUTORIAL_LOOK);

	st.view.result = RESULT_WIN1;
	tutorial_watch(&tut, &st);
	cr_assert(strstr(st.guide, "not won this time") != NULL, "%s", st.guide);

	/* The rematch: a new duel elsewhere; what was done stays done, the drink sent before does not
	 * carry over to the new duel's identified potions. */
	sent(CMD_DRINK);
	st.duels++;
	st.view.result = RESULT_NONE;
	st.view.x = 9;
	st.view.kind_of[4] = 4;
	tutorial_watch(&tut, &st);
	cr_assert(tut.done & (1u << TUTORIAL_MOVE));
	cr_assert(tut.done & (1u << TUTORIAL_FIND));
	cr_assert_not(tut.done & (1u << TUTORIAL_POTION));
	cr_assert_eq(tut.step, TUTORIAL_LOOK);
}

/* Some client note in the log says `needle`. */
static bool
logged(const char *needle)
{
	for (unsigned i = 0; i < st.log_count; i++) {
		const struct log_entry *e = &st.log[(st.log_start + i) % STATE_LOG_MAX];
		if (e->kind == LOG_SYSTEM && strstr(e->text, needle))
			return true;
	}
	return false;
}

static void
duel_ends(struct tutorial_streak *s, int result)
{
	st.view.result = (uint8_t)result;
	tutorial_streak_watch(s, &st);
	tutorial_streak_watch(s, &st); /* watched again before the next duel: counted once */
	st.duels++;
	st.view.result = RESULT_NONE;
	tutorial_streak_watch(s, &st);
}

Test(tutorial, two_wins_in_a_row_name_the_next_level)
{
	struct tutorial_streak s;

	tutorial_streak_init(&s, BOT_NOVICE);
	duel_ends(&s, RESULT_WIN0);
	cr_assert_eq(s.wins, 1);
	cr_assert_not(logged("wins in a row"));
	duel_ends(&s, RESULT_WIN1); /* a loss starts again */
	cr_assert_eq(s.wins, 0);
	duel_ends(&s, RESULT_WIN0);
	cr_assert_not(logged("wins in a row"));
	duel_ends(&s, RESULT_WIN0);
	cr_assert(logged("2 wins in a row against the novice bot: try the next level up, wizwar practice --bot easy."));

	/* Master is the top: nothing to suggest. */
	tutorial_streak_init(&s, BOT_MASTER);
	unsigned before = st.log_count;
	duel_ends(&s, RESULT_WIN0);
	duel_ends(&s, RESULT_WIN0);
	cr_assert_eq(s.wins, 2);
	cr_assert_eq(st.log_count, before);
	cr_assert_eq(bot_level_next(BOT_RANDOM), BOT_NOVICE);
	cr_assert_eq(bot_level_next(BOT_NOVICE), BOT_EASY);
}
