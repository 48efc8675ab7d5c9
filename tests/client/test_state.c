/* SPDX-License-Identifier: MIT */
/* test_state: the client model without a terminal: prompts, potions, chat editing, quitting, the log by rounds. */
#include <criterion/criterion.h>
#include <curses.h>
#include <string.h>

#include "look.h"
#include "state.h"

static struct keys keys;
static struct state st;

static void
setup(void)
{
	keys_init(&keys);
	state_init(&st, &keys);
}

TestSuite(state, .init = setup);

/* A view on my move: open floor around (5, 5), three spells offered, two potions carried. */
static void
my_view(struct view *v)
{
	memset(v, 0, sizeof *v);
	v->opt.size = 25;
	v->opt.fov = true;
	v->opt.potions = true;
	v->me = 0;
	for (int y = 0; y < 25; y++)
		for (int x = 0; x < 25; x++)
			v->cell[y][x] = (y == 0 || x == 0 || y == 24 || x == 24) ? VCELL_WALL : VCELL_FLOOR | VCELL_VISIBLE;
	v->cell[4][5] = VCELL_WALL | VCELL_VISIBLE; /* north of me */
	v->x = v->y = 5;
	v->hp = v->opp_hp = 5;
	v->turn = 0;
	v->steps_left = 5;
	v->offered[0] = SPELL_COLD;
	v->offered[1] = SPELL_FIRE;
	v->offered[2] = SPELL_IDENTIFY;
	v->ninv = 2;
	v->inv[0] = APPEAR_RED;
	v->inv[1] = APPEAR_BLUE;
	memset(v->kind_of, POTION_NONE, sizeof v->kind_of);
}

static void
start(void)
{
	struct view v;

	my_view(&v);
	state_apply(&st, &v, NULL, 0, NULL, 0);
	/* The first view of a duel says who moves first; the tests below start from an empty log. */
	cr_assert_eq(st.log_count, 1);
	cr_assert_str_eq(state_log_get(&st, 0)->text, "You move first.");
	state_log_clear(&st);
}

/* A key as the app gives it: the action its binding names, and the code. */
static void
press(int code, struct state_out *out)
{
	state_key(&st, keys_action(&keys, code), code, out);
}

Test(state, step_sends_a_command_and_walls_are_refused_locally)
{
	struct state_out out;

	start();
	press('6', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_STEP);
	cr_assert_eq(out.cmd.dir, DIR_E);
	press('8', &out); /* a wall */
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_str_eq(st.status, "A wall blocks the way.");
	st.view.steps_left = 0;
	press('2', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert(strstr(st.status, "No steps left") != NULL);
}

Test(state, not_my_turn_gives_a_reason)
{
	struct state_out out;

	start();
	st.view.turn = 1;
	press('/', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert(strstr(st.status, "not your turn") != NULL, "%s", st.status);
}

Test(state, undirected_spell_casts_at_once)
{
	struct state_out out;

	start();
	press('/', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_CAST);
	cr_assert_eq(out.cmd.arg, 0);
	cr_assert_eq(out.cmd.dir, DIR_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);
}

Test(state, directional_spell_asks_for_a_direction)
{
	struct state_out out;

	start();
	press('*', &out); /* Fire Storm */
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_DIRECTION);
	cr_assert_eq(st.dir_slot, 1);
	press('9', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_CAST);
	cr_assert_eq(out.cmd.arg, 1);
	cr_assert_eq(out.cmd.dir, DIR_NE);
	cr_assert_eq(st.mode, MODE_NORMAL);

	/* Any other key cancels, and says so. */
	press('*', &out);
	press(27, &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_str_eq(st.status, "Cast cancelled.");

	/* A cursor key is a direction too (the default set binds it to a move). */
	press('*', &out);
	press(KEY_LEFT, &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.dir, DIR_W);
}

Test(state, direction_prompt_closes_when_the_move_passes)
{
	struct state_out out;
	struct view v;

	start();
	press('*', &out);
	cr_assert_eq(st.mode, MODE_DIRECTION);
	my_view(&v);
	v.turn = 1;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(st.mode, MODE_NORMAL);
}

Test(state, inventory_then_a_digit_quaffs_that_slot)
{
	struct state_out out;

	start();
	press('+', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_INVENTORY);
	press('2', &out); /* a move key elsewhere: here it is slot 2 */
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_QUAFF);
	cr_assert_eq(out.cmd.arg, 1);
	cr_assert_eq(st.mode, MODE_NORMAL);

	press('+', &out);
	press('9', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_str_eq(st.status, "No potion in slot 9.");

	press('+', &out);
	press(27, &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);

	st.view.ninv = 0;
	press('+', &out);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_str_eq(st.status, "You carry no potions.");
}

Test(state, potions_underfoot_are_checked_locally)
{
	struct state_out out;

	start();
	press('5', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_str_eq(st.status, "There is no potion here.");
	press('0', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	st.view.potion[5][5] = APPEAR_GREEN + 1;
	press('5', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_DRINK);
	press('0', &out);
	cr_assert_eq(out.cmd.type, CMD_PICKUP);
	st.view.ninv = INV_MAX;
	press('0', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert(strstr(st.status, "cannot carry") != NULL);
	press('.', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_PASS);
}

Test(state, chat_edits_utf8_by_code_point)
{
	struct state_out out;

	start();
	press('\r', &out);
	cr_assert_eq(st.mode, MODE_CHAT);
	press('h', &out);
	press(KEYS_WCHAR | 0xe9, &out);   /* é: 2 bytes */
	press(KEYS_WCHAR | 0x2603, &out); /* ☃: 3 bytes */
	press(KEYS_WCHAR | 0x1f600, &out); /* 😀: 4 bytes */
	press('.', &out);                  /* text here, not "end turn" */
	press('5', &out);                  /* text here, not "drink" */
	cr_assert_str_eq(st.chat, "h\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80.5");
	cr_assert_eq(st.chat_len, 12);
	press(KEY_BACKSPACE, &out);
	press(KEY_BACKSPACE, &out);
	press(KEY_BACKSPACE, &out); /* the whole 4-byte character */
	cr_assert_str_eq(st.chat, "h\xc3\xa9\xe2\x98\x83");
	press(127, &out);
	cr_assert_str_eq(st.chat, "h\xc3\xa9");
	press('\r', &out);
	cr_assert_eq(out.kind, OUT_CHAT);
	cr_assert_str_eq(out.chat, "h\xc3\xa9");
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_eq(st.chat_len, 0);
}

Test(state, chat_line_is_limited_to_200_bytes_and_controls_are_not_typed)
{
	struct state_out out;

	start();
	press('\r', &out);
	for (int i = 0; i < 199; i++)
		cr_assert(state_chat_insert(&st, 'a'));
	cr_assert_not(state_chat_insert(&st, 0xe9)); /* 2 bytes would make 201 */
	cr_assert(state_chat_insert(&st, 'b'));
	cr_assert_eq(st.chat_len, 200);
	cr_assert_not(state_chat_insert(&st, 'c'));
	press('d', &out);
	cr_assert_eq(st.chat_len, 200);
	cr_assert(strstr(st.status, "200 bytes") != NULL);
	cr_assert_not(state_chat_insert(&st, 0x1b));
	cr_assert_not(state_chat_insert(&st, 0x9b));
	cr_assert_not(state_chat_insert(&st, 0x202e));
}

Test(state, chat_prompt_closes_with_escape_or_del_and_drops_the_text)
{
	struct state_out out;

	start();
	press('\r', &out);
	press('x', &out);
	press(27, &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_eq(st.chat_len, 0);
	press('\r', &out);
	press('y', &out);
	press(KEY_DC, &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);
	/* An empty line sends nothing. */
	press('\r', &out);
	press('\r', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);
}

Test(state, quitting_a_running_duel_asks_first)
{
	struct state_out out;

	start();
	press('Q', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_QUIT);
	press('n', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.mode, MODE_NORMAL);

	press('Q', &out);
	press('r', &out);
	cr_assert_eq(out.kind, OUT_CMD);
	cr_assert_eq(out.cmd.type, CMD_RESIGN);
	cr_assert_eq(st.mode, MODE_NORMAL);

	press('Q', &out);
	press('y', &out);
	cr_assert_eq(out.kind, OUT_QUIT);
	cr_assert(out.resign);
	cr_assert_eq(out.cmd.type, CMD_RESIGN);
}

Test(state, quitting_after_the_end_does_not_ask)
{
	struct state_out out;
	struct view v;
	struct msg m = { MSG_YOU_WIN, 1, 0, 0 };
	char buf[128];

	start();
	my_view(&v);
	v.result = RESULT_WIN0;
	v.end_reason = END_KILLED;
	state_apply(&st, &v, &m, 1, NULL, 0);
	cr_assert_eq(st.mode, MODE_OVER);
	state_result_text(&st, buf, sizeof buf);
	cr_assert_str_eq(buf, "You win: your opponent is dead!");
	press('6', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert(strstr(st.status, "over") != NULL);
	press('Q', &out);
	cr_assert_eq(out.kind, OUT_QUIT);
	cr_assert_not(out.resign);
	press('q', &out);
	cr_assert_eq(out.kind, OUT_QUIT);
}

/* Rules version 2: at the turn limit more HP wins, and the result line says so. */
Test(state, a_win_at_the_turn_limit_says_why)
{
	struct view v;
	struct msg m = { MSG_LIMIT_WIN, 1, 3, 2 };
	char buf[128];

	start();
	my_view(&v);
	v.result = RESULT_WIN0;
	v.end_reason = END_TURN_LIMIT;
	state_apply(&st, &v, &m, 1, NULL, 0);
	state_result_text(&st, buf, sizeof buf);
	cr_assert_str_eq(buf, "You win: more HP at the turn limit.");
	v.result = RESULT_WIN1;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	state_result_text(&st, buf, sizeof buf);
	cr_assert_str_eq(buf, "You lose: less HP at the turn limit.");
}

Test(state, a_lost_connection_lets_quit_at_once)
{
	struct state_out out;

	start();
	st.offline = true;
	press('Q', &out);
	cr_assert_eq(out.kind, OUT_QUIT);
}

Test(state, help_opens_and_any_key_closes_it)
{
	struct state_out out;

	start();
	press('?', &out);
	cr_assert_eq(st.mode, MODE_HELP);
	press('6', &out);
	cr_assert_eq(out.kind, OUT_NONE); /* the key only closed the help */
	cr_assert_eq(st.mode, MODE_NORMAL);
}

static void
at_turn(uint32_t turn, int id)
{
	struct view v;
	struct msg m = { (uint16_t)id, 1, 0, 0 };

	my_view(&v);
	v.turn_no = turn;
	state_apply(&st, &v, &m, 1, NULL, 0);
}

Test(state, log_shows_the_previous_and_current_round)
{
	const struct log_entry *e;
	unsigned n = 0;

	start();                         /* turn 0 */
	at_turn(1, MSG_WAITED);          /* said during turn 0: round 0 */
	at_turn(2, MSG_FULL_HP);         /* turn 1: round 0 */
	at_turn(3, MSG_BLINKED);         /* turn 2: round 1 */
	state_log_chat(&st, 1, "hi", 2); /* now turn 3: round 1 */
	at_turn(4, MSG_FORGOT);          /* turn 3: round 1 */
	at_turn(5, MSG_MAPPED);          /* turn 4: round 2 */
	cr_assert_eq(state_round(&st), 2);
	while ((e = state_log_visible(&st, n)) != NULL)
		n++;
	cr_assert_eq(n, 4, "rounds 1 and 2 only: %u entries", n);
	cr_assert_eq(state_log_visible(&st, 0)->msg.id, MSG_BLINKED);
	cr_assert_eq(state_log_visible(&st, 1)->kind, LOG_CHAT);
	cr_assert_eq(state_log_visible(&st, 3)->msg.id, MSG_MAPPED);
	/* Everything is kept for scrolling back. */
	cr_assert_eq(state_log_get(&st, 0)->msg.id, MSG_WAITED);
}

Test(state, log_is_a_bounded_ring)
{
	struct msg m = { MSG_WAITED, 1, 0, 0 };

	start();
	for (int i = 0; i < STATE_LOG_MAX + 10; i++)
		state_log_msg(&st, &m, 0);
	cr_assert_eq(st.log_count, STATE_LOG_MAX);
	cr_assert_not_null(state_log_get(&st, STATE_LOG_MAX - 1));
	cr_assert_null(state_log_get(&st, STATE_LOG_MAX));
}

Test(state, message_ids_are_formatted_when_shown)
{
	struct msg cast = { MSG_CAST, 1, SPELL_COLD, 0 };
	struct msg hurt = { MSG_HURT, 1, ELEMENT_FIRE, 2 };
	struct msg bad = { 9999, 1, 0, 0 };
	char buf[STATE_TEXT_MAX];

	start();
	state_log_msg(&st, &cast, 0);
	state_log_msg(&st, &hurt, 0);
	state_log_msg(&st, &bad, 0);
	state_set_name(&st, 1, "Morgana");
	state_log_chat(&st, 1, "well met", 8);
	state_log_system(&st, "Connection lost: %s", "timeout");
	state_log_text(&st, state_log_get(&st, 0), buf, sizeof buf);
	cr_assert_str_eq(buf, "You cast Rays of Cold.");
	state_log_text(&st, state_log_get(&st, 1), buf, sizeof buf);
	cr_assert_str_eq(buf, "You are hurt by fire (-2 HP)!");
	state_log_text(&st, state_log_get(&st, 2), buf, sizeof buf);
	cr_assert_str_eq(buf, "(unknown message 9999)");
	state_log_text(&st, state_log_get(&st, 3), buf, sizeof buf);
	cr_assert_str_eq(buf, "<Morgana> well met");
	state_log_text(&st, state_log_get(&st, 4), buf, sizeof buf);
	cr_assert_str_eq(buf, "Connection lost: timeout");
}

Test(state, peer_text_is_never_a_terminal_control)
{
	char out[64];
	const char evil[] = "\x1b]0;owned\x07hi\xc2\x9b" "2J\xe2\x80\xae" "x\xff" "y\r\n";

	state_clean_text(out, sizeof out, evil, sizeof evil - 1);
	/* ESC, BEL, CSI (C1), RLO, CR and LF are dropped; the broken byte becomes U+FFFD. */
	cr_assert_str_eq(out, "]0;ownedhi2Jx\xef\xbf\xbdy");
	state_set_name(&st, 1, "\x1b[31m");
	cr_assert_str_eq(st.name[1], "[31m");
	state_set_name(&st, 1, "\x07");
	cr_assert_str_eq(st.name[1], "player 2");
	state_log_chat(&st, 1, "\x1b\x07", 2); /* nothing printable: not logged */
	cr_assert_eq(st.log_count, 0);
	/* Cut on a code point boundary. */
	state_clean_text(out, 3, "\xc3\xa9\xc3\xa9", 4);
	cr_assert_str_eq(out, "\xc3\xa9");
}

Test(state, updates_follow_the_plans_after_turn_order)
{
	struct view v;
	struct fx_square fx[2] = { { 6, 5, FX_COLD }, { 7, 5, FX_COLD } };
	struct msg m = { MSG_COLD_MISS, 1, 0, 0 };

	start();
	my_view(&v);
	v.x = 9;
	v.hp = 4;
	v.turn_no = 1;
	state_update_begin(&st, &v, fx, 2);
	/* Effects over the old layout: the screen still shows the old position and HP. */
	cr_assert(st.anim);
	cr_assert_eq(st.nfx, 2);
	cr_assert_eq(st.view.x, 5);
	cr_assert_eq(st.view.hp, 5);
	cr_assert_eq(st.prev.x, 5);
	cr_assert_eq(st.log_count, 0);
	state_update_end(&st, &v, &m, 1);
	cr_assert_not(st.anim);
	cr_assert_eq(st.nfx, 2); /* kept, not drawn: look tells them until the next update */
	cr_assert_eq(st.view.x, 9);
	cr_assert_eq(st.view.hp, 4);
	cr_assert_eq(st.prev.x, 5);
	cr_assert_eq(st.log_count, 1);
	/* Without effects there is no pause. */
	state_update_begin(&st, &v, NULL, 0);
	cr_assert_not(st.anim);
}

/* ---- what the player is told (issue 11) ---- */

static const char *
last_text(void)
{
	static char buf[STATE_TEXT_MAX + 80];

	state_log_text(&st, state_log_get(&st, st.log_count - 1), buf, sizeof buf);
	return buf;
}

Test(state, the_opponents_hp_and_what_lies_underfoot_are_told)
{
	struct view v;

	start();
	state_set_name(&st, 1, "Morgana");
	my_view(&v);
	v.opp_hp = 3;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(last_text(), "Morgana is hurt: HP 3/5.");
	v.opp_hp = 5;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(last_text(), "Morgana looks healthier: HP 5/5.");
	/* A step onto a potion: its appearance, and its kind only where I know it. */
	v.x = 6;
	v.potion[5][6] = APPEAR_YELLOW + 1;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(last_text(), "You stand on a yellow potion: unknown.");
	unsigned n = st.log_count;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(st.log_count, n, "said once, not at every update");
	v.x = 7;
	v.potion[5][7] = APPEAR_RED + 1;
	v.kind_of[APPEAR_RED] = POTION_HEALING;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(last_text(), "You stand on a red potion: Healing.");
	/* "an" before a vowel (issue 27: "You stand on a orange potion"). */
	v.x = 8;
	v.potion[5][8] = APPEAR_ORANGE + 1;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(last_text(), "You stand on an orange potion: unknown.");
}

Test(state, an_opponent_drinking_shows_the_kind_where_i_know_it)
{
	struct view v;
	struct msg m = { MSG_OPP_DRINKS, 1, APPEAR_BLUE, 0 };

	start();
	state_log_msg(&st, &m, 0);
	cr_assert_str_eq(last_text(), "Your opponent drinks a blue potion.");
	my_view(&v);
	v.kind_of[APPEAR_BLUE] = POTION_SPEED;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	state_log_msg(&st, &m, 0);
	cr_assert_str_eq(last_text(), "Your opponent drinks a blue potion: Speed.");
}

Test(state, time_up_comes_first_and_the_pass_it_made_is_not_mine)
{
	struct view v;
	struct msg m[2] = { { MSG_WAITED, 1, 0, 0 }, { MSG_TIME_UP, 1, 0, 0 } };

	start();
	my_view(&v);
	v.turn = 1;
	v.turn_no = 1;
	state_apply(&st, &v, m, 2, NULL, 0);
	cr_assert_eq(st.log_count, 1);
	cr_assert_eq(state_log_get(&st, 0)->msg.id, MSG_TIME_UP);
}

Test(state, a_refusal_note_goes_when_the_turn_passes)
{
	struct view v;
	struct state_out out;

	start();
	my_view(&v);
	v.turn = 1;
	v.turn_no = 1;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	press('6', &out);
	cr_assert(strstr(st.status, "not your turn") != NULL);
	v.turn = 0;
	v.turn_no = 2;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_str_eq(st.status, "", "stale into my turn: %s", st.status);
}

Test(state, effects_count_the_turns_they_still_act_on)
{
	struct view v;

	start();
	my_view(&v);
	v.intrinsics = INTRINSIC(HANDLER_FAST);
	v.turns_left[HANDLER_FAST] = 0; /* my last turn with it: it acts now */
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(state_effect_turns(&st, HANDLER_FAST), 1);
	v.turn = 1;
	v.turns_left[HANDLER_FAST] = 2; /* the opponent's move: two of my turns to come */
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(state_effect_turns(&st, HANDLER_FAST), 2);
	cr_assert_eq(state_effect_turns(&st, HANDLER_SLOW), 0);
	cr_assert_eq(state_round_of(0), 1);
	cr_assert_eq(state_round_of(1), 1);
	cr_assert_eq(state_round_of(2), 2);
}

Test(state, a_rematch_is_marked_and_leaves_the_end_behind)
{
	struct view v;
	struct state_out out;

	start();
	my_view(&v);
	v.result = RESULT_WIN1;
	v.end_reason = END_KILLED;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(st.mode, MODE_OVER);
	press(27, &out);
	cr_assert(st.over_hidden, "Esc puts the GAME OVER box away");
	my_view(&v);
	v.turn = 1; /* the opponent moves first this time */
	state_apply(&st, &v, NULL, 0, NULL, 0);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_not(st.over_hidden);
	cr_assert(strstr(state_log_get(&st, st.log_count - 2)->text, "A new duel begins (duel 2)") != NULL);
	cr_assert_str_eq(last_text(), "player 2 moves first.");
}

Test(state, the_end_reveals_the_whole_level)
{
	struct view v, all;

	start();
	my_view(&v);
	all = v;
	state_reveal(&st, &all, "x");
	cr_assert_not(st.revealed, "nothing is revealed while the duel runs");
	v.result = RESULT_WIN0;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	all = v;
	all.opp_state = OPP_VISIBLE;
	all.opp_x = all.opp_y = 9;
	state_reveal(&st, &all, "3 rounds (5 turns).");
	cr_assert(st.revealed);
	cr_assert_eq(st.view.opp_state, OPP_VISIBLE);
	cr_assert_str_eq(st.over_note, "3 rounds (5 turns).");
}

Test(state, counts_take_the_right_word)
{
	struct msg one = { MSG_ITEMS_SENSED, 1, 1, 0 }, three = { MSG_ITEMS_SENSED, 1, 3, 0 };
	struct msg shat = { MSG_SHATTERED, 1, 1, 0 }, scream = { MSG_SCREAMED, 1, 2, 0 };
	char buf[STATE_TEXT_MAX];

	msg_format(&one, buf, sizeof buf);
	cr_assert_str_eq(buf, "You sense 1 potion.");
	msg_format(&three, buf, sizeof buf);
	cr_assert_str_eq(buf, "You sense 3 potions.");
	msg_format(&shat, buf, sizeof buf);
	cr_assert_str_eq(buf, "1 of your potions shatters!");
	msg_format(&scream, buf, sizeof buf);
	cr_assert_str_eq(buf, "You scream! 2 potions shatter.");
}

Test(state, look_moves_a_cursor_and_tells_what_the_view_holds)
{
	struct state_out out;
	char buf[STATE_TEXT_MAX];
	struct view v;

	my_view(&v);
	v.potion[5][7] = APPEAR_RED + 1;
	v.kind_of[APPEAR_RED] = POTION_HEALING;
	v.potion[9][5] = APPEAR_BLUE + 1;
	v.cell[9][5] = VCELL_FLOOR; /* remembered, out of view */
	v.cell[12][12] = VCELL_UNKNOWN;
	v.opp_state = OPP_SENSED;
	v.opp_x = 8;
	v.opp_y = 8;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	state_log_clear(&st);

	press(';', &out);
	cr_assert_eq(st.mode, MODE_LOOK);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.look_x, 5);
	cr_assert_eq(st.look_y, 5);
	look_text(&st, st.look_x, st.look_y, buf, sizeof buf);
	cr_expect(strstr(buf, "You, HP 5.") == buf, "%s", buf);

	/* Two steps east: a red potion I identified, in view; nothing is sent, the turn is not spent. */
	press('6', &out);
	cr_assert_eq(out.kind, OUT_NONE);
	press(KEY_RIGHT, &out);
	cr_assert_eq(out.kind, OUT_NONE);
	cr_assert_eq(st.look_x, 7);
	cr_assert_eq(st.view.steps_left, 5);
	look_text(&st, st.look_x, st.look_y, buf, sizeof buf);
	cr_expect_str_eq(buf, "Floor, in view (2 east). A red potion: Healing.");

	look_text(&st, 5, 9, buf, sizeof buf);
	cr_expect_str_eq(buf, "Floor, remembered (out of view now) (4 south). You saw a blue potion here, not identified.");
	look_text(&st, 12, 12, buf, sizeof buf);
	cr_expect_str_eq(buf, "Unknown: you have not seen this square (7 south-east).");
	look_text(&st, 8, 8, buf, sizeof buf);
	cr_expect(strstr(buf, "sensed here this turn") != NULL, "%s", buf);
	cr_expect(strstr(buf, "Take Life needs sight") != NULL, "%s", buf);
	look_text(&st, 5, 4, buf, sizeof buf);
	cr_expect_str_eq(buf, "A wall, in view (1 north).");
	/* The outer wall stops the cursor; Escape puts it away. */
	for (int i = 0; i < 40; i++)
		press('8', &out);
	cr_assert_eq(st.look_y, 1);
	press(27, &out);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_eq(out.kind, OUT_NONE);
}

Test(state, look_tells_an_effect_the_last_update_drew)
{
	struct state_out out;
	char buf[STATE_TEXT_MAX];
	struct view v;
	struct fx_square fx = { 6, 5, FX_FIRE };

	my_view(&v);
	state_apply(&st, &v, NULL, 0, &fx, 1);
	press(';', &out);
	press('6', &out);
	look_text(&st, st.look_x, st.look_y, buf, sizeof buf);
	cr_expect(strstr(buf, "Struck by fire a moment ago.") != NULL, "%s", buf);
	/* The next update's effects replace it. */
	state_apply(&st, &v, NULL, 0, NULL, 0);
	look_text(&st, st.look_x, st.look_y, buf, sizeof buf);
	cr_expect(strstr(buf, "Struck") == NULL, "%s", buf);
}

Test(state, help_turns_to_how_to_fight_then_closes)
{
	struct state_out out;

	start();
	press('?', &out);
	cr_assert_eq(st.mode, MODE_HELP);
	cr_assert_eq(st.help_page, 0);
	press('?', &out);
	cr_assert_eq(st.mode, MODE_HELP);
	cr_assert_eq(st.help_page, 1);
	press('?', &out);
	cr_assert_eq(st.mode, MODE_NORMAL);
	cr_assert_eq(st.help_page, 0);
	cr_assert_eq(out.kind, OUT_NONE);
}

/* Hurt on the opponent's move, with the effect squares an update carries (those I see). */
static const char *
hurt_by(const struct fx_square *fx, int nfx, int turn_before)
{
	struct view v;

	setup();
	my_view(&v);
	v.turn = (uint8_t)turn_before;
	state_apply(&st, &v, NULL, 0, NULL, 0);
	state_log_clear(&st);
	v.turn = 0;
	v.hp = 4;
	state_apply(&st, &v, NULL, 0, fx, nfx);
	return st.log_count ? last_text() : "";
}

Test(state, a_hit_from_the_dark_says_where_the_effect_was_seen_and_no_more)
{
	const struct fx_square east[] = { { 5, 5, FX_COLD }, { 6, 5, FX_COLD }, { 7, 5, FX_COLD } };
	cr_expect_str_eq(hurt_by(east, 3, 1), "You saw the cold to your east.");
	const struct fx_square line[] = { { 4, 6, FX_ELEC }, { 5, 5, FX_ELEC }, { 6, 4, FX_ELEC }, { 7, 3, FX_ELEC } };
	cr_expect_str_eq(hurt_by(line, 4, 1), "You saw the lightning along the south-west to north-east line through you.");
	const struct fx_square cone[] = { { 5, 5, FX_FIRE }, { 6, 5, FX_FIRE }, { 7, 6, FX_FIRE }, { 7, 4, FX_FIRE },
		{ 8, 6, FX_FIRE } };
	cr_expect_str_eq(hurt_by(cone, 5, 1), "You saw the fire on 4 squares around you (; looks at them until the next move).");
	/* Only my own square seen: nothing more than the hit itself. */
	const struct fx_square mine[] = { { 5, 5, FX_ACID } };
	cr_expect(strstr(hurt_by(mine, 1, 1), "You saw") == NULL);
	/* On my own move (my own Acid Rain): I know where it came from. */
	const struct fx_square rain[] = { { 4, 4, FX_ACID }, { 5, 5, FX_ACID }, { 6, 6, FX_ACID } };
	cr_expect(strstr(hurt_by(rain, 3, 0), "You saw") == NULL);
}
