/* SPDX-License-Identifier: MIT */
/* test_keys: key bindings: presets, names, keys.conf parsing and its warnings, paths, `wizwar keys`; the `?` fight page's potions. */
#include <criterion/criterion.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_keys.h"
#include "help.h"
#include "potion.h"
#include "game.h"
#include "keys.h"
#include "text.h"

/* Load a C string as a file named "k.conf"; the warning count. */
static unsigned
load(struct keys *k, struct keys_diag *d, const char *text)
{
	keys_diag_init(d);
	return keys_load_buf(k, text, strlen(text), "k.conf", d);
}

/* Does any kept warning contain every one of the given strings? */
static bool
warned(const struct keys_diag *d, const char *a, const char *b, const char *c)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->msg[i], a) && (!b || strstr(d->msg[i], b)) && (!c || strstr(d->msg[i], c)))
			return true;
	return false;
}

static void
dump_diag(const struct keys_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		cr_log_info("warning: %s", d->msg[i]);
}

/* Every binding is found again by lookup: a key maps to one action, the one that lists it. */
static void
check_consistent(const struct keys *k)
{
	for (int a = 0; a < ACTION_COUNT; a++)
		for (unsigned i = 0; i < keys_count(k, a); i++) {
			int code = keys_get(k, a, i)->code;
			cr_assert(keys_code_valid(code));
			cr_assert_eq(keys_action(k, code), a, "key 0x%x of %s looks up as %d", code,
			    keys_action_name(a), keys_action(k, code));
		}
}

static char tmpdir[256];

static void
make_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/wizwar-keys-XXXXXX", t && *t ? t : "/tmp");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* Actions. */

Test(actions, names_are_unique_and_look_up)
{
	for (int a = 0; a < ACTION_COUNT; a++) {
		cr_assert_not_null(keys_action_name(a));
		cr_assert_not_null(keys_action_desc(a));
		cr_assert_eq(keys_action_lookup(keys_action_name(a)), a, "%s", keys_action_name(a));
	}
	cr_assert_eq(keys_action_lookup("move-up"), ACTION_NONE);
	cr_assert_eq(keys_action_lookup(NULL), ACTION_NONE);
	cr_assert_null(keys_action_name(ACTION_COUNT));
	cr_assert_null(keys_action_name(ACTION_NONE));
}

Test(actions, moves_give_each_numpad_direction_once)
{
	int seen[10] = { 0 };
	int nmoves = 0;

	for (int a = 0; a < ACTION_COUNT; a++) {
		int d = keys_dir(a);
		if (d == DIR_NONE)
			continue;
		nmoves++;
		cr_assert(d >= 1 && d <= 9 && d != 5, "%s gives %d", keys_action_name(a), d);
		seen[d]++;
	}
	cr_assert_eq(nmoves, 8);
	for (int d = 1; d <= 9; d++)
		cr_assert_eq(seen[d], d == 5 ? 0 : 1, "direction %d", d);
	cr_assert_eq(keys_dir(ACTION_MOVE_N), DIR_N);
	cr_assert_eq(keys_dir(ACTION_MOVE_SW), DIR_SW);
	cr_assert_eq(keys_dir(ACTION_NONE), DIR_NONE);
	cr_assert_eq(keys_dir(ACTION_COUNT), DIR_NONE);
}

/* Presets. */

Test(presets, each_loads_clean_binds_every_action_and_every_direction)
{
	int np = 0;

	for (int p = 0; keys_preset_name(p) != NULL; p++, np++) {
		const char *name = keys_preset_name(p);
		struct keys k;
		struct keys_diag d;
		char line[64];

		keys_init(&k);
		snprintf(line, sizeof line, "preset %s\n", name);
		cr_assert_eq(load(&k, &d, line), 0, "preset %s warns", name);
		cr_assert(keys_preset(&k, name));
		check_consistent(&k);
		for (int a = 0; a < ACTION_COUNT; a++)
			cr_assert_gt(keys_count(&k, a), 0, "preset %s leaves %s without a key", name,
			    keys_action_name(a));
		for (int dir = 1; dir <= 9; dir++) {
			if (dir == 5)
				continue;
			int found = 0;
			for (int a = 0; a < ACTION_COUNT; a++)
				if (keys_dir(a) == dir)
					found += keys_action(&k, keys_get(&k, a, 0)->code) == a;
			cr_assert_eq(found, 1, "preset %s: direction %d", name, dir);
		}
	}
	cr_assert_eq(np, 4);
	struct keys k;
	cr_assert_not(keys_preset(&k, "emacs"));
	cr_assert_not(keys_preset(&k, NULL));
}

Test(presets, default_is_the_plan_plus_arrows)
{
	struct keys k;
	static const struct { int code; int action; } want[] = {
		{ '8', ACTION_MOVE_N }, { '9', ACTION_MOVE_NE }, { '6', ACTION_MOVE_E }, { '3', ACTION_MOVE_SE },
		{ '2', ACTION_MOVE_S }, { '1', ACTION_MOVE_SW }, { '4', ACTION_MOVE_W }, { '7', ACTION_MOVE_NW },
		{ KEY_A1, ACTION_MOVE_NW }, { KEY_A3, ACTION_MOVE_NE }, { KEY_C1, ACTION_MOVE_SW },
		{ KEY_C3, ACTION_MOVE_SE }, { KEY_B2, ACTION_DRINK },
		{ '/', ACTION_CAST_1 }, { '*', ACTION_CAST_2 }, { '-', ACTION_CAST_3 },
		{ '5', ACTION_DRINK }, { '0', ACTION_PICKUP }, { '+', ACTION_INVENTORY },
		{ '\n', ACTION_CHAT }, { '\r', ACTION_CHAT }, { KEY_ENTER, ACTION_CHAT },
		{ '.', ACTION_END_TURN }, { KEY_DC, ACTION_END_TURN },
		{ '?', ACTION_HELP }, { 'Q', ACTION_QUIT }, { 12, ACTION_REDRAW }, { 27, ACTION_CANCEL },
		/* the arrows set, where it does not clash */
		{ KEY_UP, ACTION_MOVE_N }, { KEY_DOWN, ACTION_MOVE_S }, { KEY_LEFT, ACTION_MOVE_W },
		{ KEY_RIGHT, ACTION_MOVE_E }, { KEY_HOME, ACTION_MOVE_NW }, { KEY_PPAGE, ACTION_MOVE_NE },
		{ KEY_END, ACTION_MOVE_SW }, { KEY_NPAGE, ACTION_MOVE_SE },
		{ 'z', ACTION_CAST_1 }, { 'x', ACTION_CAST_2 }, { 'c', ACTION_CAST_3 }, { 'i', ACTION_INVENTORY },
		{ 'g', ACTION_PICKUP },
	};

	keys_init(&k);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert_eq(keys_action(&k, want[i].code), want[i].action, "key 0x%x", want[i].code);
	cr_assert_eq(keys_action(&k, 'h'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, KEYS_META | '8'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 0), ACTION_NONE);
	cr_assert_eq(keys_action(&k, -5), ACTION_NONE);
	check_consistent(&k);
}

Test(presets, vi_moves)
{
	struct keys k;
	static const char moves[] = "kulnjbhy"; /* n ne e se s sw w nw */

	cr_assert(keys_preset(&k, "vi"));
	for (int i = 0; i < 8; i++)
		cr_assert_eq(keys_action(&k, moves[i]), ACTION_MOVE_N + i, "%c", moves[i]);
	cr_assert_eq(keys_action(&k, '8'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, KEY_UP), ACTION_NONE);
}

Test(presets, origins_name_the_preset)
{
	struct keys k;
	char buf[KEYS_ORIGIN_LEN + 16];

	keys_init(&k);
	cr_assert_str_eq(keys_origin(&k, keys_get(&k, ACTION_MOVE_N, 0), buf, sizeof buf), "preset numpad");
	const struct keys_binding *z = NULL;
	for (unsigned i = 0; i < keys_count(&k, ACTION_CAST_1); i++)
		if (keys_get(&k, ACTION_CAST_1, i)->code == 'z')
			z = keys_get(&k, ACTION_CAST_1, i);
	cr_assert_not_null(z);
	cr_assert_str_eq(keys_origin(&k, z, buf, sizeof buf), "preset arrows");
	cr_assert_null(keys_get(&k, ACTION_MOVE_N, 99));
	cr_assert_null(keys_get(&k, ACTION_COUNT, 0));
}

/* Names. */

static void
round_trip(int code)
{
	char name[KEYS_NAME_MAX], label[KEYS_NAME_MAX];

	cr_assert(keys_code_valid(code), "0x%x", code);
	keys_name(code, name, sizeof name);
	cr_assert_neq(name[0], '\0', "no name for 0x%x", code);
	cr_assert_eq(keys_parse_name(name), code, "0x%x -> '%s' -> 0x%x", code, name, keys_parse_name(name));
	keys_label(code, label, sizeof label);
	cr_assert_neq(label[0], '\0', "no label for 0x%x", code);
	cr_assert_lt(strlen(name), KEYS_NAME_MAX - 1);
}

Test(names, every_code_round_trips_plain_and_meta)
{
	int codes[] = {
		KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, KEY_HOME, KEY_END, KEY_PPAGE, KEY_NPAGE, KEY_IC, KEY_DC,
		KEY_BACKSPACE, KEY_ENTER, KEY_A1, KEY_A3, KEY_B2, KEY_C1, KEY_C3, KEY_BEG, KEY_BTAB, KEY_SR,
		KEY_SF, KEY_SLEFT, KEY_SRIGHT, KEY_SHOME, KEY_SEND, KEY_SPREVIOUS, KEY_SNEXT, KEY_SIC, KEY_SDC,
		KEY_MAX, 0x2ff, 0xffff, /* unnamed curses codes, written 0x... */
		KEYS_WCHAR | 0xe9, KEYS_WCHAR | 0x20ac, KEYS_WCHAR | 0x1f600, KEYS_WCHAR | 0xa0,
	};
	int n = 0;

	for (int c = 1; c < 128; c++, n++) {
		round_trip(c);
		round_trip(keys_meta(c));
	}
	for (int f = 1; f <= 63; f++, n++) {
		round_trip(KEY_F(f));
		round_trip(KEYS_META | KEY_F(f));
	}
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++, n++) {
		round_trip(codes[i]);
		round_trip(keys_meta(codes[i]));
	}
	cr_assert_gt(n, 200);
}

Test(names, canonical_names)
{
	static const struct { int code; const char *name; } want[] = {
		{ 'a', "a" }, { 1, "^A" }, { 26, "^Z" }, { 127, "^?" }, { 0x1c, "^\\" }, { ' ', "space" },
		{ '#', "hash" }, { '\t', "tab" }, { '\n', "enter" }, { '\r', "return" }, { 27, "escape" },
		{ KEY_UP, "KEY_UP" }, { KEY_DC, "KEY_DC" }, { KEY_A1, "KEY_A1" }, { KEY_F(1), "F1" },
		{ KEY_F(12), "F12" }, { KEYS_META | 'x', "M-x" }, { KEYS_META | KEY_UP, "M-KEY_UP" },
		{ KEYS_META | 1, "M-^A" }, { 0x2ff, "0x2ff" }, { KEYS_WCHAR | 0xe9, "\xc3\xa9" },
	};
	char buf[KEYS_NAME_MAX];

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert_str_eq(keys_name(want[i].code, buf, sizeof buf), want[i].name);
	cr_assert_str_eq(keys_name(0, buf, sizeof buf), "");
	cr_assert_str_eq(keys_name(200, buf, sizeof buf), "");
	cr_assert_str_eq(keys_name(KEY_RESIZE, buf, sizeof buf), "");
	cr_assert_str_eq(keys_name(KEYS_META | 0, buf, sizeof buf), "");
	char tiny[3];
	cr_assert_str_eq(keys_name(KEY_BACKSPACE, tiny, sizeof tiny), "KE");
}

Test(names, aliases_and_spellings)
{
	static const struct { const char *name; int code; } want[] = {
		{ "esc", 27 }, { "ESCAPE", 27 }, { "^[", 27 }, { "Enter", '\n' }, { "^J", '\n' },
		{ "^M", '\r' }, { "^I", '\t' }, { "^a", 1 }, { "C-a", 1 }, { "c-z", 26 }, { "^?", 127 },
		{ "del", KEY_DC }, { "delete", KEY_DC }, { "ins", KEY_IC }, { "backspace", KEY_BACKSPACE },
		{ "key_up", KEY_UP }, { "up", KEY_UP }, { "pgdn", KEY_NPAGE }, { "pageup", KEY_PPAGE },
		{ "f5", KEY_F(5) }, { "KEY_F(5)", KEY_F(5) }, { "KEY_F(63)", KEY_F(63) }, { "key_f(2)", KEY_F(2) }, { "F63", KEY_F(63) },
		{ "M-x", KEYS_META | 'x' }, { "m-x", KEYS_META | 'x' }, { "M-^X", KEYS_META | 24 },
		{ "M--", KEYS_META | '-' }, { "M-M", KEYS_META | 'M' }, { "M", 'M' }, { "^", '^' }, { "#", '#' },
		{ "hash", '#' }, { "space", ' ' }, { "0x2FF", 0x2ff }, { "\xe2\x82\xac", KEYS_WCHAR | 0x20ac },
		{ "M-\xc3\xa9", KEYS_META | KEYS_WCHAR | 0xe9 },
	};
	static const char *const bad[] = {
		"", "^@", "^ab", "^1", "KEY_NOPE", "F0", "F64", "F1x", "F01", "KEY_F(0)", "KEY_F(64)", "KEY_F(1",
		"M-", "M-M-x", "M-KEY_NOPE", "^@", "0x", "0x100", "0xzz", "0x 1", "0x-1", "0x1a3 ", "0x7fffffffff",
		"ab", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xc2\x85", "\xf4\x90\x80\x80", "\xc3\xa9x", "0x19a",
		"C-", "C-ab", " ", "\t",
	};

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert_eq(keys_parse_name(want[i].name), want[i].code, "'%s'", want[i].name);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(keys_parse_name(bad[i]), KEYS_NONE, "'%s' parsed as 0x%x", bad[i],
		    keys_parse_name(bad[i]));
	cr_assert_eq(keys_parse_name(NULL), KEYS_NONE);
	cr_assert_eq(0x19a, KEY_RESIZE, "the bad list assumes KEY_RESIZE is 0x19a");
}

Test(names, labels_for_screens)
{
	char buf[KEYS_NAME_MAX];

	cr_assert_str_eq(keys_label(KEY_UP, buf, sizeof buf), "Up");
	cr_assert_str_eq(keys_label(KEY_NPAGE, buf, sizeof buf), "PgDn");
	cr_assert_str_eq(keys_label(KEY_A1, buf, sizeof buf), "KP7");
	cr_assert_str_eq(keys_label(KEY_DC, buf, sizeof buf), "Del");
	cr_assert_str_eq(keys_label(KEYS_META | KEY_A1, buf, sizeof buf), "M-KP7");
	cr_assert_str_eq(keys_label('/', buf, sizeof buf), "/");
	cr_assert_str_eq(keys_label(27, buf, sizeof buf), "Esc");
	cr_assert_str_eq(keys_label(KEY_F(3), buf, sizeof buf), "F3");
}

Test(names, codes_from_curses_input)
{
	cr_assert_eq(keys_code_from_wch(OK, 'a'), 'a');
	cr_assert_eq(keys_code_from_wch(OK, 27), 27);
	cr_assert_eq(keys_code_from_wch(KEY_CODE_YES, KEY_UP), KEY_UP);
	cr_assert_eq(keys_code_from_wch(OK, 0xe9), KEYS_WCHAR | 0xe9);
	cr_assert_eq(keys_code_from_wch(OK, 0x85), KEYS_NONE);     /* a C1 control */
	cr_assert_eq(keys_code_from_wch(OK, 0x110000), KEYS_NONE);
	cr_assert_eq(keys_code_from_wch(OK, 0), KEYS_NONE);
	cr_assert_eq(keys_code_from_wch(KEY_CODE_YES, KEY_RESIZE), KEYS_NONE);
	cr_assert_eq(keys_code_from_wch(ERR, 'a'), KEYS_NONE);
	cr_assert_eq(keys_meta('x'), KEYS_META | 'x');
	cr_assert_eq(keys_meta(KEYS_META | 'x'), KEYS_NONE);
	cr_assert_eq(keys_meta(0), KEYS_NONE);
	cr_assert_eq(keys_meta(KEYS_NONE), KEYS_NONE);
}

/* keys.conf. */

Test(conf, good_file_with_comments_blank_lines_and_every_directive)
{
	struct keys k;
	struct keys_diag d;
	const char *text =
		"# my keys\n"
		"\n"
		"   \t  \n"
		"  # indented comment\n"
		"bind cast-1 w M-w F5     # trailing comment, then ignored words: bind quit x\n"
		"bind\tmove-n\t^N\n"
		"unbind Q\n"
		"bind quit ^X\n"
		"clear log-up log-down\n"
		"bind log-up KEY_SR\n"
		"bind help hash\n";

	keys_init(&k);
	cr_assert_eq(load(&k, &d, text), 0);
	dump_diag(&d);
	cr_assert_eq(d.n, 0);
	cr_assert_eq(keys_action(&k, 'w'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, KEYS_META | 'w'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 'W'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, KEY_F(5)), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, '/'), ACTION_CAST_1, "bind adds, it does not replace");
	cr_assert_eq(keys_action(&k, 14), ACTION_MOVE_N);
	cr_assert_eq(keys_action(&k, 'Q'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 24), ACTION_QUIT);
	cr_assert_eq(keys_action(&k, 'x'), ACTION_CAST_2, "words after # are a comment");
	cr_assert_eq(keys_action(&k, '['), ACTION_NONE);
	cr_assert_eq(keys_action(&k, ']'), ACTION_NONE);
	cr_assert_eq(keys_count(&k, ACTION_LOG_DOWN), 0);
	cr_assert_eq(keys_action(&k, KEY_SR), ACTION_LOG_UP);
	cr_assert_eq(keys_action(&k, '#'), ACTION_HELP);
	check_consistent(&k);

	char where[KEYS_ORIGIN_LEN + 16];
	const struct keys_binding *b = keys_get(&k, ACTION_QUIT, 0);
	cr_assert_eq(b->code, 24);
	cr_assert_str_eq(keys_origin(&k, b, where, sizeof where), "k.conf:8");
}

Test(conf, crlf_bom_and_no_final_newline)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "\xef\xbb\xbf" "bind cast-1 w\r\n# c\r\n\r\nbind cast-2 v"), 0);
	dump_diag(&d);
	cr_assert_eq(keys_action(&k, 'w'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 'v'), ACTION_CAST_2);
	char where[KEYS_ORIGIN_LEN + 16];
	const struct keys_binding *b = keys_get(&k, ACTION_CAST_2, keys_count(&k, ACTION_CAST_2) - 1);
	cr_assert_str_eq(keys_origin(&k, b, where, sizeof where), "k.conf:4");
}

Test(conf, later_lines_override_presets)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	/* A preset's key taken by a file line moves quietly; the user asked for it. */
	cr_assert_eq(load(&k, &d, "bind end-turn 5\nbind cast-1 KEY_UP\n"), 0);
	cr_assert_eq(keys_action(&k, '5'), ACTION_END_TURN);
	cr_assert_eq(keys_action(&k, KEY_UP), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, KEY_B2), ACTION_DRINK, "the other drink keys stay");
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N);
	check_consistent(&k);
}

Test(conf, preset_line_resets_and_merge_adds)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 w\npreset vi\nbind cast-2 v\n"), 0);
	cr_assert_eq(keys_action(&k, 'w'), ACTION_NONE, "preset drops earlier lines");
	cr_assert_eq(keys_action(&k, '8'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'k'), ACTION_MOVE_N);
	cr_assert_eq(keys_action(&k, 'v'), ACTION_CAST_2);
	cr_assert_eq(load(&k, &d, "merge numpad\n"), 0);
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N);
	cr_assert_eq(keys_action(&k, 'k'), ACTION_MOVE_N);
	cr_assert_eq(keys_action(&k, 'v'), ACTION_CAST_2, "merge keeps what is there");
	cr_assert_eq(load(&k, &d, "preset arrows\nbind cast-1 k\nmerge default\n"), 0);
	cr_assert_eq(keys_action(&k, 'k'), ACTION_CAST_1, "merging default must not reset");
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N);
	check_consistent(&k);
}

Test(conf, unbind_and_clear)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "unbind 8 KEY_UP\nclear cast-2\n"), 0);
	cr_assert_eq(keys_action(&k, '8'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, KEY_UP), ACTION_NONE);
	cr_assert_eq(keys_count(&k, ACTION_MOVE_N), 0);
	cr_assert_eq(keys_count(&k, ACTION_CAST_2), 0);
	cr_assert_eq(keys_action(&k, '*'), ACTION_NONE);
	cr_assert_eq(load(&k, &d, "unbind 8\n"), 1);
	cr_assert(warned(&d, "k.conf:1:", "'8' is not bound", NULL));
	cr_assert_eq(load(&k, &d, "clear all\nbind quit q\n"), 0);
	for (int a = 0; a < ACTION_COUNT; a++)
		cr_assert_eq(keys_count(&k, a), a == ACTION_QUIT ? 1u : 0u);
	cr_assert_eq(keys_action(&k, '9'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'q'), ACTION_QUIT);
	check_consistent(&k);
}

Test(conf, meta_keys)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind quit M-q\nbind redraw M-KEY_F(2) M-^R\n"), 0);
	cr_assert_eq(keys_action(&k, KEYS_META | 'q'), ACTION_QUIT);
	cr_assert_eq(keys_action(&k, keys_parse_name("M-q")), ACTION_QUIT);
	cr_assert_eq(keys_action(&k, 'q'), ACTION_DRINK, "plain q is still the arrows set's drink");
	cr_assert_eq(keys_action(&k, KEYS_META | KEY_F(2)), ACTION_REDRAW);
	cr_assert_eq(keys_action(&k, KEYS_META | 18), ACTION_REDRAW);
	cr_assert_eq(keys_action(&k, 18), ACTION_NONE);
	cr_assert_eq(load(&k, &d, "unbind M-q\n"), 0);
	cr_assert_eq(keys_action(&k, KEYS_META | 'q'), ACTION_NONE);
}

Test(conf, wide_and_extended_keys_use_the_slow_path)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 \xc3\xa9 0x2ff M-\xe2\x82\xac\n"), 0);
	cr_assert_eq(keys_action(&k, KEYS_WCHAR | 0xe9), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 0x2ff), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, KEYS_META | KEYS_WCHAR | 0x20ac), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, keys_code_from_wch(OK, 0xe9)), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, KEYS_WCHAR | 0xea), ACTION_NONE);
	cr_assert_eq(load(&k, &d, "bind cast-2 \xc3\xa9\n"), 1);
	cr_assert_eq(keys_action(&k, KEYS_WCHAR | 0xe9), ACTION_CAST_2);
	check_consistent(&k);
}

Test(conf, unknown_action_is_skipped_and_the_rest_loads)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 w\nbind move-up w k\nbind cast-2 v\n"), 1);
	dump_diag(&d);
	cr_assert(warned(&d, "k.conf:2:", "unknown action 'move-up'", "skipped"));
	cr_assert_eq(keys_action(&k, 'w'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 'k'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'v'), ACTION_CAST_2);
}

Test(conf, bad_key_name_skips_the_whole_line)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 w KEY_UPP v\nbind cast-3 V\n"), 1);
	cr_assert(warned(&d, "k.conf:1:", "unknown key name 'KEY_UPP'", "skipped"));
	cr_assert_eq(keys_action(&k, 'w'), ACTION_NONE, "a bad line binds nothing, not half of it");
	cr_assert_eq(keys_action(&k, 'v'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'V'), ACTION_CAST_3);
	cr_assert_eq(load(&k, &d, "unbind 8 nope\n"), 1);
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N);
}

Test(conf, malformed_directives)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bnd cast-1 w\nbind cast-1\nbind\nunbind\nclear\nclear nothing\n"
	    "preset\npreset vi numpad\npreset emacs\nmerge\n"), 10);
	dump_diag(&d);
	cr_assert(warned(&d, "k.conf:1:", "unknown directive 'bnd'", NULL));
	cr_assert(warned(&d, "k.conf:2:", "bind needs an action and at least one key", NULL));
	cr_assert(warned(&d, "k.conf:3:", "bind needs", NULL));
	cr_assert(warned(&d, "k.conf:4:", "unbind needs at least one key", NULL));
	cr_assert(warned(&d, "k.conf:5:", "clear needs an action", NULL));
	cr_assert(warned(&d, "k.conf:6:", "unknown action 'nothing'", NULL));
	cr_assert(warned(&d, "k.conf:7:", "preset takes one preset name", NULL));
	cr_assert(warned(&d, "k.conf:8:", "preset takes one", NULL));
	cr_assert(warned(&d, "k.conf:9:", "unknown preset 'emacs'", "vi"));
	cr_assert(warned(&d, "k.conf:10:", "merge takes one", NULL));
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N, "nothing changed");
}

Test(conf, key_bound_twice_names_both_actions)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 w\nbind quit w\n"), 1);
	dump_diag(&d);
	cr_assert(warned(&d, "k.conf:2:", "'w' is bound twice", "cast-1 (k.conf:1)"));
	cr_assert(warned(&d, "k.conf:2:", "quit", "the later wins"));
	cr_assert_eq(keys_action(&k, 'w'), ACTION_QUIT);
	check_consistent(&k);

	/* The same key twice for one action, on one line or on two. */
	cr_assert_eq(load(&k, &d, "bind cast-2 v v\n"), 1);
	cr_assert(warned(&d, "k.conf:1:", "'v' is listed twice", NULL));
	cr_assert_eq(load(&k, &d, "\nbind cast-2 v\n"), 1);
	cr_assert(warned(&d, "k.conf:2:", "'v' is bound to cast-2 twice", "k.conf:1"));
	cr_assert_eq(keys_count(&k, ACTION_CAST_2), 3u, "*, x and v, each once");
}

Test(conf, taking_an_actions_last_key_warns)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 +\n"), 0, "inventory keeps i");
	cr_assert_eq(load(&k, &d, "bind cast-1 ?\n"), 1);
	cr_assert(warned(&d, "'?' was the only key for help", "preset numpad", "help now has no key"));
	cr_assert_eq(keys_count(&k, ACTION_HELP), 0);
}

Test(conf, at_most_keys_aliases_per_action)
{
	struct keys k;
	struct keys_diag d;

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "clear cast-1\nbind cast-1 a e f o p r s t u\nbind cast-1 v\n"), 2);
	dump_diag(&d);
	cr_assert_eq(keys_count(&k, ACTION_CAST_1), KEYS_ALIASES);
	cr_assert(warned(&d, "k.conf:2:", "cast-1 already has 8 keys", "'u' not bound"));
	cr_assert(warned(&d, "k.conf:3:", "'v' not bound", NULL));
	cr_assert_eq(keys_action(&k, 'u'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 't'), ACTION_CAST_1);
	/* A full action cannot take a key from another: the other keeps it. */
	cr_assert_eq(load(&k, &d, "bind cast-1 8\n"), 1);
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N);
	check_consistent(&k);
}

Test(conf, very_long_line)
{
	struct keys k;
	struct keys_diag d;
	size_t n = KEYS_LINE_MAX + 100;
	char *text = malloc(n + 64);

	cr_assert_not_null(text);
	memcpy(text, "bind cast-1 w", 13);
	memset(text + 13, ' ', n - 14);
	memcpy(text + n - 1, "v\nbind cast-2 V\n", 17);
	keys_init(&k);
	cr_assert_eq(load(&k, &d, text), 1);
	cr_assert(warned(&d, "k.conf:1:", "longer than 1024 bytes", "skipped"));
	cr_assert_eq(keys_action(&k, 'w'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'V'), ACTION_CAST_2);
	free(text);

	/* Exactly the limit is fine. */
	char ok[KEYS_LINE_MAX + 2];
	memset(ok, ' ', sizeof ok);
	memcpy(ok, "bind cast-3 V", 13);
	ok[KEYS_LINE_MAX - 1] = 'W';
	ok[KEYS_LINE_MAX] = '\n';
	keys_init(&k);
	keys_diag_init(&d);
	cr_assert_eq(keys_load_buf(&k, ok, KEYS_LINE_MAX + 1, "k.conf", &d), 0);
	cr_assert_eq(keys_action(&k, 'W'), ACTION_CAST_3);
}

Test(conf, nul_and_control_bytes)
{
	struct keys k;
	struct keys_diag d;
	static const char text[] = "bind cast-1 w\nbind\0 cast-2 v\nbind cast-3 \x1b\nbind quit q\x7f\nbind help V";

	keys_init(&k);
	keys_diag_init(&d);
	cr_assert_eq(keys_load_buf(&k, text, sizeof text - 1, "k.conf", &d), 3);
	dump_diag(&d);
	cr_assert(warned(&d, "k.conf:2:", "NUL byte at column 5", "binary"));
	cr_assert(warned(&d, "k.conf:3:", "control byte 0x1b", NULL));
	cr_assert(warned(&d, "k.conf:4:", "control byte 0x7f", NULL));
	cr_assert_eq(keys_action(&k, 'w'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 'v'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'V'), ACTION_HELP);
}

/* A warning quotes the file's words on a terminal: a line that is not UTF-8, or holds a C1 control
 * (0x9b is CSI to an 8-bit terminal) or a bidi override, is skipped whole, and a long word quoted is
 * cut on a character's boundary. */
Test(conf, a_line_a_terminal_could_take_for_controls_is_skipped)
{
	struct keys k;
	struct keys_diag d;
	static const char text[] = "bind cast-1 M-\xc3\x30\nbind cast-2 \xc2\x9b" "2J\nbind cast-3 \xe2\x80\xaeq\n"
	                           "bind quit \xc3\xa9\nbind help x\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	                           "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	                           "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n";

	keys_init(&k);
	keys_diag_init(&d);
	cr_assert_eq(keys_load_buf(&k, text, sizeof text - 1, "k.conf", &d), 4);
	dump_diag(&d);
	cr_assert(warned(&d, "k.conf:1:", "byte 0xc3 at column 15 is not UTF-8", NULL));
	cr_assert(warned(&d, "k.conf:2:", "control character U+009B at column 13", NULL));
	cr_assert(warned(&d, "k.conf:3:", "control character U+202E at column 13", NULL));
	cr_assert(warned(&d, "k.conf:5:", "unknown key name 'x\xc3\xa9", NULL));
	for (unsigned i = 0; i < d.n; i++) {
		size_t n = strlen(d.msg[i]), l;
		uint32_t cp;
		for (size_t j = 0; j < n; j += l)
			cr_assert((l = text_utf8_next((const uint8_t *)d.msg[i] + j, n - j, &cp)) > 0 &&
			              text_allowed(cp, TEXT_CHAT),
			          "%s", d.msg[i]);
	}
	cr_assert_eq(keys_action(&k, KEYS_WCHAR | 0xe9), ACTION_QUIT, "a key named in UTF-8 still binds");
}

Test(conf, binary_junk_is_bounded)
{
	struct keys k;
	struct keys_diag d;
	unsigned char junk[4096];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof junk; i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (unsigned char)(x >> 16);
	}
	keys_init(&k);
	keys_diag_init(&d);
	unsigned w = keys_load_buf(&k, (const char *)junk, sizeof junk, "junk", &d);
	cr_assert_gt(w, 0);
	cr_assert_eq(keys_diag_count(&d), w);
	cr_assert_leq(d.n, KEYS_DIAG_MAX);
	check_consistent(&k);
	cr_assert_eq(keys_load_buf(&k, NULL, 0, NULL, NULL), 0);
	cr_assert_eq(keys_load_buf(&k, "bind x", 6, NULL, NULL), 1, "no diag: still counted");
}

Test(conf, many_warnings_are_counted_past_the_kept_ones)
{
	struct keys k;
	struct keys_diag d;
	char text[64 * 10];
	size_t off = 0;

	for (int i = 0; i < 40; i++)
		off += (size_t)snprintf(text + off, sizeof text - off, "nope %d\n", i);
	keys_init(&k);
	cr_assert_eq(load(&k, &d, text), 40);
	cr_assert_eq(d.n, KEYS_DIAG_MAX);
	cr_assert_eq(d.dropped, 40 - KEYS_DIAG_MAX);
	cr_assert_eq(keys_diag_count(&d), 40);
	cr_assert(warned(&d, "k.conf:32:", NULL, NULL));
}

Test(conf, long_origin_keeps_its_tail)
{
	struct keys k;
	struct keys_diag d;
	char origin[600], where[KEYS_ORIGIN_LEN + 16];

	memset(origin, 'd', sizeof origin);
	memcpy(origin + sizeof origin - 11, "/keys.conf", 11);
	keys_init(&k);
	keys_diag_init(&d);
	cr_assert_eq(keys_load_buf(&k, "bind cast-1 w\n", 14, origin, &d), 0);
	const struct keys_binding *b = keys_get(&k, ACTION_CAST_1, keys_count(&k, ACTION_CAST_1) - 1);
	keys_origin(&k, b, where, sizeof where);
	cr_assert_eq(strncmp(where, "...", 3), 0, "%s", where);
	cr_assert_not_null(strstr(where, "/keys.conf:1"));
	/* More origins than there is room for: the last slot stands for them, lookups still work. */
	cr_assert_eq(keys_load_buf(&k, "clear all\n", 10, origin, NULL), 0);
	for (int i = 0; i < KEYS_ORIGINS + 4; i++) {
		char name[32], line[32];
		snprintf(name, sizeof name, "f%d", i);
		snprintf(line, sizeof line, "bind cast-%d F%d\n", i % 3 + 1, i + 1);
		cr_assert_eq(keys_load_buf(&k, line, strlen(line), name, NULL), 0);
	}
	cr_assert_eq(keys_action(&k, KEY_F(KEYS_ORIGINS + 4)), ACTION_CAST_1 + (KEYS_ORIGINS + 3) % 3);
	b = keys_get(&k, ACTION_CAST_1 + (KEYS_ORIGINS + 3) % 3, keys_count(&k, ACTION_CAST_1 + (KEYS_ORIGINS + 3) % 3) - 1);
	cr_assert_str_eq(keys_origin(&k, b, where, sizeof where), "(several origins):1");
}

/* Text out. */

Test(text, format_rebuilds_the_same_bindings)
{
	struct keys k, k2;
	struct keys_diag d;
	char buf[8192];

	keys_init(&k);
	cr_assert_eq(load(&k, &d, "bind cast-1 M-w \xc3\xa9 0x2ff\nclear log-up\nbind quit ^X hash space\n"), 0);
	size_t n = keys_format(&k, buf, sizeof buf);
	cr_assert_eq(n, strlen(buf));
	cr_assert_not_null(strstr(buf, "bind cast-1"));
	cr_assert_not_null(strstr(buf, "from k.conf:1"));
	cr_assert_not_null(strstr(buf, "from preset numpad"));
	cr_assert_not_null(strstr(buf, "# log-up"));

	keys_init(&k2);
	cr_assert_eq(load(&k2, &d, buf), 0);
	dump_diag(&d);
	for (int a = 0; a < ACTION_COUNT; a++) {
		cr_assert_eq(keys_count(&k2, a), keys_count(&k, a), "%s", keys_action_name(a));
		for (unsigned i = 0; i < keys_count(&k, a); i++)
			cr_assert_eq(keys_get(&k2, a, i)->code, keys_get(&k, a, i)->code);
	}

	/* Sizing: NULL/0 gives the length; a short buffer is cut and ended. */
	cr_assert_eq(keys_format(&k, NULL, 0), n);
	char tiny[10];
	cr_assert_eq(keys_format(&k, tiny, sizeof tiny), n);
	cr_assert_eq(strlen(tiny), sizeof tiny - 1);
}

Test(text, help_lists_each_action_with_its_keys)
{
	struct keys k;
	char buf[8192];

	keys_init(&k);
	size_t n = keys_help(&k, buf, sizeof buf);
	cr_assert_eq(n, strlen(buf));
	for (int a = 0; a < ACTION_COUNT; a++)
		cr_assert_not_null(strstr(buf, keys_action_desc(a)), "%s", keys_action_desc(a));
	cr_assert_not_null(strstr(buf, "8 Up"));
	cr_assert_not_null(strstr(buf, "7 KP7 Home"));
	cr_assert_not_null(strstr(buf, "1-9"));
	cr_assert_not_null(strstr(buf, "direction"));

	char list[64];
	cr_assert_eq(keys_list(&k, ACTION_END_TURN, false, list, sizeof list), strlen(". Del"));
	cr_assert_str_eq(list, ". Del");
	keys_list(&k, ACTION_END_TURN, true, list, sizeof list);
	cr_assert_str_eq(list, ". KEY_DC");
	cr_assert_eq(keys_list(&k, ACTION_COUNT, true, list, sizeof list), 0);
	cr_assert_str_eq(list, "");

	struct keys_diag d;
	cr_assert_eq(load(&k, &d, "clear help\n"), 0);
	keys_help(&k, buf, sizeof buf);
	cr_assert_not_null(strstr(buf, "(none)"));
	cr_assert_eq(keys_help(&k, buf, 5), n, "\"?\" and \"(none)\" both pad to one width");
	cr_assert_eq(strlen(buf), 4u);
}

/* Paths and files. */

Test(path, xdg_then_home)
{
	char buf[256];

	cr_assert(keys_path(buf, sizeof buf, "/x/cfg", "/home/u"));
	cr_assert_str_eq(buf, "/x/cfg/wizwar/keys.conf");
	cr_assert(keys_path(buf, sizeof buf, "/x/cfg//", "/home/u"));
	cr_assert_str_eq(buf, "/x/cfg/wizwar/keys.conf");
	cr_assert(keys_path(buf, sizeof buf, NULL, "/home/u"));
	cr_assert_str_eq(buf, "/home/u/.config/wizwar/keys.conf");
	cr_assert(keys_path(buf, sizeof buf, "", "/home/u/"));
	cr_assert_str_eq(buf, "/home/u/.config/wizwar/keys.conf");
	cr_assert(keys_path(buf, sizeof buf, "relative/cfg", "/home/u"), "a relative XDG dir is ignored");
	cr_assert_str_eq(buf, "/home/u/.config/wizwar/keys.conf");
	cr_assert(keys_path(buf, sizeof buf, "/", NULL));
	cr_assert_str_eq(buf, "/wizwar/keys.conf");
	cr_assert_not(keys_path(buf, sizeof buf, NULL, NULL));
	cr_assert_str_eq(buf, "");
	cr_assert_not(keys_path(buf, sizeof buf, "", ""));
	cr_assert_not(keys_path(buf, 10, "/x/cfg", NULL), "too long for the buffer");
	cr_assert_str_eq(buf, "");
}

Test(path, from_the_environment)
{
	char buf[256];

	cr_assert_eq(setenv("XDG_CONFIG_HOME", "/xdg", 1), 0);
	cr_assert_eq(setenv("HOME", "/home/u", 1), 0);
	cr_assert(keys_path_env(buf, sizeof buf));
	cr_assert_str_eq(buf, "/xdg/wizwar/keys.conf");
	cr_assert_eq(unsetenv("XDG_CONFIG_HOME"), 0);
	cr_assert(keys_path_env(buf, sizeof buf));
	cr_assert_str_eq(buf, "/home/u/.config/wizwar/keys.conf");
}

/* The help screens name the keys.conf in force, not always ~/.config/wizwar/keys.conf. */
Test(path, the_help_names_the_file_in_force)
{
	struct keys k;
	char buf[300], help[8192];

	cr_assert_eq(setenv("XDG_CONFIG_HOME", "/srv/xdg", 1), 0);
	cr_assert_eq(setenv("HOME", "/home/u", 1), 0);
	keys_rebind_note(buf, sizeof buf);
	cr_assert_str_eq(buf, "Rebind keys in /srv/xdg/wizwar/keys.conf; `wizwar keys` lists them.");
	keys_init(&k);
	keys_help(&k, help, sizeof help);
	cr_assert_not_null(strstr(help, "/srv/xdg/wizwar/keys.conf"), "%s", help);
	cr_assert_null(strstr(help, "~/.config"), "%s", help);
	cr_assert_eq(setenv("XDG_CONFIG_HOME", "/home/u/cfg", 1), 0);
	keys_rebind_note(buf, sizeof buf);
	cr_assert_str_eq(buf, "Rebind keys in ~/cfg/wizwar/keys.conf; `wizwar keys` lists them.");
	cr_assert_eq(unsetenv("XDG_CONFIG_HOME"), 0);
	keys_rebind_note(buf, sizeof buf);
	cr_assert_str_eq(buf, "Rebind keys in ~/.config/wizwar/keys.conf; `wizwar keys` lists them.");
}

Test(file, absent_present_unreadable_and_too_big)
{
	struct keys k;
	struct keys_diag d;
	char path[512], dir[512];

	make_tmpdir();
	keys_init(&k);
	keys_diag_init(&d);
	snprintf(path, sizeof path, "%s/nope.conf", tmpdir);
	cr_assert_eq(keys_load_file(&k, path, &d), 0);
	snprintf(path, sizeof path, "%s/nodir/keys.conf", tmpdir);
	cr_assert_eq(keys_load_file(&k, path, &d), 0);
	cr_assert_eq(keys_diag_count(&d), 0, "an absent file is not an error");

	snprintf(path, sizeof path, "%s/keys.conf", tmpdir);
	write_file(path, "bind cast-1 w\nbind nope x\n", 26);
	cr_assert_eq(keys_load_file(&k, path, &d), 1);
	cr_assert_eq(keys_action(&k, 'w'), ACTION_CAST_1);
	char want[600];
	snprintf(want, sizeof want, "%s:2:", path);
	cr_assert(warned(&d, want, "unknown action 'nope'", NULL));

	keys_diag_init(&d);
	snprintf(dir, sizeof dir, "%s/adir", tmpdir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(keys_load_file(&k, dir, &d), -1);
	cr_assert(warned(&d, dir, "cannot", NULL));

	/* Over 64 KiB: lines in the first 64 KiB count, a line cut by the limit and the rest do not. */
	size_t big = KEYS_FILE_MAX + 4096;
	char *text = malloc(big);
	cr_assert_not_null(text);
	memset(text, '\n', big);
	memcpy(text, "bind cast-1 V\n", 14);
	memcpy(text + KEYS_FILE_MAX - 6, "bind cast-2 W\n", 14); /* straddles the limit */
	memcpy(text + KEYS_FILE_MAX + 100, "bind cast-3 X\n", 14);
	snprintf(path, sizeof path, "%s/big.conf", tmpdir);
	write_file(path, text, big);
	free(text);
	keys_init(&k);
	keys_diag_init(&d);
	cr_assert_eq(keys_load_file(&k, path, &d), 1);
	dump_diag(&d);
	cr_assert_eq(keys_diag_count(&d), 1);
	cr_assert(warned(&d, "longer than 64 KiB", NULL, NULL));
	cr_assert_eq(keys_action(&k, 'V'), ACTION_CAST_1);
	cr_assert_eq(keys_action(&k, 'W'), ACTION_NONE);
	cr_assert_eq(keys_action(&k, 'X'), ACTION_NONE);
}

Test(file, setup_reads_the_xdg_file)
{
	struct keys k;
	struct keys_diag d;
	char path[512], got[512];

	make_tmpdir();
	snprintf(path, sizeof path, "%s/wizwar", tmpdir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/wizwar/keys.conf", tmpdir);
	write_file(path, "preset vi\n", 10);
	cr_assert_eq(setenv("XDG_CONFIG_HOME", tmpdir, 1), 0);
	keys_diag_init(&d);
	cr_assert_eq(keys_setup(&k, got, sizeof got, &d), 1);
	cr_assert_str_eq(got, path);
	cr_assert_eq(keys_action(&k, 'k'), ACTION_MOVE_N);
	cr_assert_eq(keys_action(&k, '8'), ACTION_NONE);

	cr_assert_eq(unsetenv("XDG_CONFIG_HOME"), 0);
	cr_assert_eq(unsetenv("HOME"), 0);
	cr_assert_eq(keys_setup(&k, got, sizeof got, &d), 0);
	cr_assert_str_eq(got, "");
	cr_assert_eq(keys_action(&k, '8'), ACTION_MOVE_N, "no path: the default set");
}

/* `wizwar keys`. */

static int
run_cmd(const char *out, const char *err, int argc, const char **argv)
{
	cr_assert_not_null(freopen(out, "w", stdout));
	cr_assert_not_null(freopen(err, "w", stderr));
	int rc = keys_cmd(argc, (char **)argv);
	fflush(stdout);
	fflush(stderr);
	return rc;
}

static char *
slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(cmd, prints_bindings_origins_and_warnings)
{
	char out[512], err[512], conf[512];

	make_tmpdir();
	snprintf(out, sizeof out, "%s/out", tmpdir);
	snprintf(err, sizeof err, "%s/err", tmpdir);
	snprintf(conf, sizeof conf, "%s/k.conf", tmpdir);
	write_file(conf, "bind cast-1 w\nbind quit w\nbind oops x\n", 38);
	const char *argv[] = { "--preset", "vi", "--file", conf, NULL };
	cr_assert_eq(run_cmd(out, err, 4, argv), 0);
	char *s = slurp(out);
	cr_assert_not_null(strstr(s, "starting preset: vi"));
	cr_assert_not_null(strstr(s, "bind move-n    k"));
	cr_assert_not_null(strstr(s, "from preset vi"));
	cr_assert_not_null(strstr(s, "k.conf:2"));
	cr_assert_not_null(strstr(s, "# 2 warnings:"));
	cr_assert_not_null(strstr(s, "unknown action 'oops'"));
	cr_assert_not_null(strstr(s, "'w' is bound twice: to cast-1"));
	cr_assert_str_eq(slurp(err), "");
}

Test(cmd, default_path_absent_is_fine)
{
	char out[512], err[512];

	make_tmpdir();
	snprintf(out, sizeof out, "%s/out", tmpdir);
	snprintf(err, sizeof err, "%s/err", tmpdir);
	cr_assert_eq(setenv("XDG_CONFIG_HOME", tmpdir, 1), 0);
	const char *argv[] = { NULL };
	cr_assert_eq(run_cmd(out, err, 0, argv), 0);
	char *s = slurp(out);
	cr_assert_not_null(strstr(s, "absent"));
	cr_assert_not_null(strstr(s, "bind move-n    8 KEY_UP"));
	cr_assert_null(strstr(s, "warning"));
}

Test(cmd, help_and_bad_arguments)
{
	char out[512], err[512], missing[512];

	make_tmpdir();
	snprintf(out, sizeof out, "%s/out", tmpdir);
	snprintf(err, sizeof err, "%s/err", tmpdir);
	snprintf(missing, sizeof missing, "%s/missing.conf", tmpdir);

	const char *help[] = { "--help", NULL };
	cr_assert_eq(run_cmd(out, err, 1, help), 0);
	cr_assert_not_null(strstr(slurp(out), "usage: wizwar keys"));

	const char *unknown[] = { "--frob", NULL };
	cr_assert_eq(run_cmd(out, err, 1, unknown), 2);
	cr_assert_not_null(strstr(slurp(err), "wizwar keys: unknown option '--frob'"));

	const char *novalue[] = { "--preset", NULL };
	cr_assert_eq(run_cmd(out, err, 1, novalue), 2);
	cr_assert_not_null(strstr(slurp(err), "--preset needs a value"));

	const char *eqform[] = { "--preset=vi", "--file=/dev/null", NULL };
	cr_assert_eq(run_cmd(out, err, 2, eqform), 0);
	cr_assert_not_null(strstr(slurp(out), "bind move-n    k "));

	const char *badpreset[] = { "--preset=emacs", NULL };
	cr_assert_eq(run_cmd(out, err, 1, badpreset), 2);
	cr_assert_not_null(strstr(slurp(err), "unknown preset 'emacs'"));

	/* A file that cannot be read is work that failed: 1, as the man page says, not 2. */
	const char *nofile[] = { "--file", missing, NULL };
	cr_assert_eq(run_cmd(out, err, 2, nofile), 1);
	cr_assert_not_null(strstr(slurp(err), "wizwar keys: cannot read"));
	cr_assert_not_null(strstr(slurp(err), "no such file"));

	const char *dirfile[] = { "--file", tmpdir, NULL };
	cr_assert_eq(run_cmd(out, err, 2, dirfile), 1);
	cr_assert(strncmp(slurp(err), "wizwar keys: ", 13) == 0);
	cr_assert_not_null(strstr(slurp(err), "cannot read"));
}

/* The `?` fight page names the resistance potions a duel can hold, and no other: since rules
 * version 4 no duel draws Acid Resistance (common/potion.h's potion_drawn), and "Resistance
 * potions stop their element" promised one against Acid Rain that a player never finds. */
Test(help, fight_page_names_the_resistances_a_duel_draws)
{
	char page[4096], *w = page;

	/* The page's rows joined into one line of single spaces: a sentence may wrap anywhere. */
	for (const char *s = help_get(HELP_FIGHT); *s && w < page + sizeof page - 1; s++)
		if (!((*s == ' ' || *s == '\n') && w > page && w[-1] == ' '))
			*w++ = *s == '\n' ? ' ' : *s;
	*w = '\0';
	const char *says = strstr(page, " Resistance stop their element");
	cr_assert(says, "the fight page does not say which Resistance potions stop their element: %s", page);
	const char *from = says;
	while (from > page && from[-1] != '.')
		from--;
	int n = 0;
	for (int k = 0; k < POTION_KIND_COUNT; k++) {
		const char *name = potion_name(k), *res = strstr(name, " Resistance");
		if (res == NULL || res[strlen(" Resistance")] != '\0')
			continue;
		char element[32], never[64];
		snprintf(element, sizeof element, "%.*s", (int)(res - name), name);
		snprintf(never, sizeof never, "no duel draws %s", name);
		const char *at = strstr(from, element);
		if (potion_drawn(k)) {
			cr_expect(at && at < says, "%s is drawn but not named among the resistances: %s", name, page);
		} else {
			cr_expect(at == NULL || at > says, "%s is never drawn but named among the resistances: %s", name, page);
			cr_expect(strstr(page, never), "the page does not say \"%s\": %s", never, page);
		}
		n++;
	}
	cr_assert_eq(n, 4, "%d Resistance potions in common/potion.h, the test knows 4", n);
}
