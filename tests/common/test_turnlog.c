/* SPDX-License-Identifier: MIT */
/* Tests for turnlog: format and parse round trips, strict parsing, and replays of selfplay logs made in memory. */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "turnlog.h"

/* ---- a log in memory, written as `wizwar selfplay --log` writes it ---- */

struct logbuf {
	char *text;
	size_t len, cap;
	int commands, hashes, lines;
};

static void
put(struct logbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->text = realloc(b->text, b->cap);
		cr_assert_not_null(b->text);
	}
	memcpy(b->text + b->len, s, n + 1);
	b->len += n;
	for (size_t i = 0; i < n; i++)
		b->lines += s[i] == '\n';
}

static void
logbuf_free(struct logbuf *b)
{
	free(b->text);
	memset(b, 0, sizeof *b);
}

/* One duel between random bots, logged line by line; returns the final state's hash. */
static uint64_t
make_log(struct logbuf *b, uint64_t seed, const struct options *o)
{
	static struct game g;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, *o, seed, { "random-bot-0", "random-bot-1" } };
	struct harness_bots bots;
	struct events ev;
	struct cmd c;
	char line[TURNLOG_LINE_MAX * 8];

	memset(b, 0, sizeof *b);
	cr_assert_eq(game_init(&g, o, seed), ERR_OK);
	cr_assert_gt(turnlog_format_header(&h, game_hash(&g), line, sizeof line), 0);
	put(b, line);
	harness_bots_init(&bots, seed);
	while (g.result == RESULT_NONE) {
		int p = g.turn;
		harness_bots_step(&bots, &g, &c, &ev);
		cr_assert_gt(turnlog_format_cmd(p, &c, line, sizeof line), 0);
		put(b, line);
		b->commands++;
		if (ev.turn_ended) {
			cr_assert_gt(turnlog_format_hash(g.turn_no, game_hash(&g), line, sizeof line), 0);
			put(b, line);
			b->hashes++;
		}
	}
	cr_assert_gt(turnlog_format_end(&g, line, sizeof line), 0);
	put(b, line);
	return game_hash(&g);
}

/* The offset of line n (1-based) and its length without the '\n'. */
static size_t
line_at(const struct logbuf *b, int n, size_t *len)
{
	size_t pos = 0;

	for (int i = 1; i < n; i++) {
		const char *nl = memchr(b->text + pos, '\n', b->len - pos);
		cr_assert_not_null(nl, "no line %d", n);
		pos = (size_t)(nl - b->text) + 1;
	}
	const char *nl = memchr(b->text + pos, '\n', b->len - pos);
	*len = nl ? (size_t)(nl - (b->text + pos)) : b->len - pos;
	return pos;
}

/* The number of the k-th line (1-based) that starts with `prefix`, or 0. */
static int
find_line(const struct logbuf *b, const char *prefix, int k)
{
	size_t pos = 0;
	int n = 1;

	while (pos < b->len) {
		if (strncmp(b->text + pos, prefix, strlen(prefix)) == 0 && --k == 0)
			return n;
		const char *nl = memchr(b->text + pos, '\n', b->len - pos);
		if (nl == NULL)
			break;
		pos = (size_t)(nl - b->text) + 1;
		n++;
	}
	return 0;
}

/* Replace line n with `text` (no '\n'). */
static void
replace_line(struct logbuf *b, int n, const char *text)
{
	size_t len, pos = line_at(b, n, &len);
	size_t tl = strlen(text);
	char *t = malloc(b->len - len + tl + 1);

	cr_assert_not_null(t);
	memcpy(t, b->text, pos);
	memcpy(t + pos, text, tl);
	memcpy(t + pos + tl, b->text + pos + len, b->len - pos - len + 1);
	free(b->text);
	b->text = t;
	b->len = b->len - len + tl;
	b->cap = b->len + 1;
}

static int
parse(const char *s, struct turnlog_line *l, char *why)
{
	return turnlog_parse_line(s, strlen(s), l, why, 128);
}

/* Refused, with a reason that says `reason` (when given). */
static void
rejects(const char *s, const char *reason)
{
	struct turnlog_line l;
	char why[128] = "";

	cr_assert_eq(parse(s, &l, why), -1, "accepted '%s'", s);
	cr_assert_gt(strlen(why), 0, "'%s' refused without a reason", s);
	if (reason)
		cr_assert(strstr(why, reason) != NULL, "'%s': reason '%s', want '%s'", s, why, reason);
}

static void
accepts(const char *s, struct turnlog_line *l)
{
	char why[128] = "";

	cr_assert_eq(parse(s, l, why), 0, "refused '%s': %s", s, why);
}

/* ---- round trips ---- */

Test(turnlog, every_command_round_trips)
{
	struct cmd cmds[64];
	int n = 0;
	static const int d8[8] = { 1, 2, 3, 4, 6, 7, 8, 9 };

	for (int i = 0; i < 8; i++)
		cmds[n++] = (struct cmd){ CMD_STEP, 0, (uint8_t)d8[i] };
	for (int s = 0; s < SPELL_OFFERED; s++) {
		cmds[n++] = (struct cmd){ CMD_CAST, (uint8_t)s, 0 };
		cmds[n++] = (struct cmd){ CMD_CAST, (uint8_t)s, DIR_NE };
		cmds[n++] = (struct cmd){ CMD_CAST, (uint8_t)s, DIR_SW };
	}
	for (int s = 0; s < INV_MAX; s++)
		cmds[n++] = (struct cmd){ CMD_QUAFF, (uint8_t)s, 0 };
	cmds[n++] = (struct cmd){ CMD_DRINK, 0, 0 };
	cmds[n++] = (struct cmd){ CMD_PICKUP, 0, 0 };
	cmds[n++] = (struct cmd){ CMD_PASS, 0, 0 };
	cmds[n++] = (struct cmd){ CMD_RESIGN, 0, 0 };
	for (int p = 0; p < PLAYERS; p++)
		for (int i = 0; i < n; i++) {
			char buf[64], why[128];
			struct turnlog_line l;
			int len = turnlog_format_cmd(p, &cmds[i], buf, sizeof buf);
			cr_assert_gt(len, 0);
			cr_assert_eq((size_t)len, strlen(buf));
			cr_assert_eq(buf[len - 1], '\n');
			cr_assert_eq(strchr(buf, '\n'), buf + len - 1, "one line");
			cr_assert_eq(turnlog_parse_line(buf, (size_t)len - 1, &l, why, sizeof why), 0, "'%s': %s", buf, why);
			cr_assert_eq(l.kind, TL_CMD);
			cr_assert_eq(l.player, p);
			cr_assert(memcmp(&l.cmd, &cmds[i], sizeof l.cmd) == 0, "'%.*s' came back as %d/%d/%d", len - 1, buf,
			    l.cmd.type, l.cmd.arg, l.cmd.dir);
		}
}

Test(turnlog, command_text)
{
	static const struct {
		int p;
		struct cmd c;
		const char *text;
	} cases[] = {
		{ 0, { CMD_STEP, 0, DIR_N }, "0 step 8\n" },
		{ 1, { CMD_STEP, 0, DIR_SW }, "1 step 1\n" },
		{ 0, { CMD_CAST, 0, 0 }, "0 cast 1\n" },
		{ 1, { CMD_CAST, 2, DIR_E }, "1 cast 3 6\n" },
		{ 0, { CMD_QUAFF, 8, 0 }, "0 quaff 9\n" },
		{ 1, { CMD_DRINK, 0, 0 }, "1 drink\n" },
		{ 0, { CMD_PICKUP, 0, 0 }, "0 pickup\n" },
		{ 1, { CMD_PASS, 0, 0 }, "1 pass\n" },
		{ 0, { CMD_RESIGN, 0, 0 }, "0 resign\n" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_gt(turnlog_format_cmd(cases[i].p, &cases[i].c, buf, sizeof buf), 0);
		cr_assert_str_eq(buf, cases[i].text);
	}
	cr_assert_eq(turnlog_format_cmd(0, &(struct cmd){ CMD_COUNT, 0, 0 }, buf, sizeof buf), -1);
	cr_assert_eq(turnlog_format_cmd(0, &(struct cmd){ CMD_PASS, 0, 0 }, buf, 4), -1, "too small a buffer");
}

Test(turnlog, header_round_trips)
{
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 37, false, true }, 0x0123456789abcdefULL,
		{ "Alice the Red", "bob" } };
	static const int kinds[] = { TL_MAGIC, TL_RULES, TL_OPTIONS, TL_SEED, TL_PLAYER, TL_PLAYER, TL_START };
	char buf[1024];
	struct turnlog_line l;
	int len = turnlog_format_header(&h, 0xfedcba9876543210ULL, buf, sizeof buf);

	char want[256];
	cr_assert_gt(len, 0);
	snprintf(want, sizeof want, "wizwar-turnlog %d\nrules %d\noptions size=37 fov=off potions=on\nseed 0123456789abcdef\n"
	    "player 0 Alice the Red\nplayer 1 bob\nstart fedcba9876543210\n", TURNLOG_FORMAT, RULES_VERSION);
	cr_assert_str_eq(buf, want);
	char *line = buf;
	for (int i = 0; i < 7; i++) {
		char *nl = strchr(line, '\n');
		char why[128];
		cr_assert_not_null(nl);
		cr_assert_eq(turnlog_parse_line(line, (size_t)(nl - line), &l, why, sizeof why), 0, "%s", why);
		cr_assert_eq((int)l.kind, (int)kinds[i]);
		line = nl + 1;
		switch (l.kind) {
		case TL_OPTIONS:
			cr_assert(l.opt.size == 37 && !l.opt.fov && l.opt.potions);
			break;
		case TL_SEED:
			cr_assert_eq(l.value, 0x0123456789abcdefULL);
			break;
		case TL_START:
			cr_assert_eq(l.value, 0xfedcba9876543210ULL);
			break;
		case TL_PLAYER:
			cr_assert_str_eq(l.text, h.name[l.player]);
			break;
		case TL_RULES:
			cr_assert_eq(l.value, RULES_VERSION);
			break;
		default:
			cr_assert_eq(l.value, 1);
		}
	}
	cr_assert_eq(*line, '\0');
	/* Names must not break the line. */
	strcpy(h.name[1], "bad\tname");
	cr_assert_eq(turnlog_format_header(&h, 0, buf, sizeof buf), -1);
	strcpy(h.name[1], "");
	cr_assert_eq(turnlog_format_header(&h, 0, buf, sizeof buf), -1);
	strcpy(h.name[1], "ok");
	cr_assert_eq(turnlog_format_header(&h, 0, buf, 40), -1, "too small a buffer");
}

Test(turnlog, hash_chat_and_end_round_trip)
{
	static struct game g;
	struct turnlog_line l;
	char buf[TURNLOG_LINE_MAX + 8], why[128];
	static const char *const chats[] = { "hello", "gg, well played", "two  spaces", " leading space", "trailing space ",
		"ünïcödé ✓", "#not a comment", "1 step 8" };

	cr_assert_gt(turnlog_format_hash(4000000000u, 0x00000000000000ffULL, buf, sizeof buf), 0);
	cr_assert_str_eq(buf, "= 4000000000 00000000000000ff\n");
	accepts("= 4000000000 00000000000000ff", &l);
	cr_assert_eq(l.kind, TL_HASH);
	cr_assert_eq(l.turn, 4000000000u);
	cr_assert_eq(l.value, 0xff);
	accepts("= 0 0000000000000000", &l);

	for (size_t i = 0; i < sizeof chats / sizeof chats[0]; i++) {
		int p = (int)(i % 2);
		int len = turnlog_format_chat(p, chats[i], buf, sizeof buf);
		cr_assert_gt(len, 0, "'%s'", chats[i]);
		cr_assert_eq(turnlog_parse_line(buf, (size_t)len - 1, &l, why, sizeof why), 0, "chat '%s' written as '%.*s' is refused: %s",
		    chats[i], len - 1, buf, why);
		cr_assert_eq(l.kind, TL_CHAT);
		cr_assert_eq(l.player, p);
		cr_assert_str_eq(l.text, chats[i]);
	}
	cr_assert_eq(turnlog_format_chat(0, "bell\a", buf, sizeof buf), -1);
	cr_assert_eq(turnlog_format_chat(0, "", buf, sizeof buf), -1);

	/* A name of two words with two spaces reads back as written, too. */
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 25, true, true }, 1, { "Merlin  II", "x" } };
	cr_assert_gt(turnlog_format_header(&h, 2, buf, sizeof buf), 0);
	char *p0 = strstr(buf, "player 0 ");
	cr_assert_eq(turnlog_parse_line(p0, (size_t)(strchr(p0, '\n') - p0), &l, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(l.text, "Merlin  II");

	static const struct {
		int result, reason;
		const char *head;
	} ends[] = { { RESULT_WIN0, END_KILLED, "end win0 killed " }, { RESULT_WIN1, END_RESIGNED, "end win1 resigned " },
		{ RESULT_DRAW, END_TURN_LIMIT, "end draw turn-limit " }, { RESULT_DRAW, END_KILLED, "end draw killed " } };
	struct options o;
	options_default(&o);
	cr_assert_eq(game_init(&g, &o, 9), ERR_OK);
	for (int i = 0; i < 4; i++) {
		g.result = (uint8_t)ends[i].result;
		g.end_reason = (uint8_t)ends[i].reason;
		int len = turnlog_format_end(&g, buf, sizeof buf);
		cr_assert_gt(len, 0);
		cr_assert(strncmp(buf, ends[i].head, strlen(ends[i].head)) == 0, "'%s'", buf);
		cr_assert_eq(turnlog_parse_line(buf, (size_t)len - 1, &l, why, sizeof why), 0, "%s", why);
		cr_assert_eq(l.kind, TL_END);
		cr_assert_eq(l.result, ends[i].result);
		cr_assert_eq(l.reason, ends[i].reason);
		cr_assert_eq(l.value, game_hash(&g));
	}
	g.result = 9;
	cr_assert_eq(turnlog_format_end(&g, buf, sizeof buf), -1);
}

/* ---- strict parsing ---- */

Test(turnlog, blank_comment_and_cr)
{
	struct turnlog_line l;

	accepts("", &l);
	cr_assert_eq(l.kind, TL_BLANK);
	accepts("# a comment, with  any   spacing ", &l);
	cr_assert_eq(l.kind, TL_BLANK);
	accepts("0 pass\r", &l);
	cr_assert_eq(l.kind, TL_CMD);
	cr_assert_eq(l.cmd.type, CMD_PASS);
	accepts("\r", &l);
	cr_assert_eq(l.kind, TL_BLANK);
}

Test(turnlog, rejects_unknown_commands_and_lines)
{
	rejects("0 walk 8", "unknown command");
	rejects("1 Pass", "unknown command");
	rejects("0 cast", NULL);
	rejects("0", NULL);
	rejects("hello world", "unknown line");
	rejects("wizwar-turnlog", NULL);
	rejects("rules one", NULL);
	rejects("0 pass 1", "takes no argument");
	rejects("0 drink 1", "takes no argument");
	rejects("1 resign now", "takes no argument");
	rejects("0 pickup 8", "takes no argument");
	rejects("0 quaff", NULL);
	rejects("0 quaff 1 2", NULL);
}

Test(turnlog, rejects_bad_directions)
{
	rejects("0 step 0", "direction");
	rejects("0 step 5", "direction");
	rejects("0 step 10", "direction");
	rejects("0 step -1", "direction");
	rejects("0 step", "direction");
	rejects("0 step 8 8", "direction");
	rejects("0 step n", "direction");
	rejects("0 cast 1 5", "bad direction");
	rejects("0 cast 1 0", "bad direction");
	rejects("0 cast 1 12", "bad direction");
	rejects("0 cast 1 8 8", NULL);
}

/* Numbers out of their range: one digit past the top must fail as surely as two. */
Test(turnlog, rejects_out_of_range_numbers)
{
	rejects("2 pass", NULL);
	rejects("9 step 8", NULL);
	rejects("0 cast 0", NULL);
	rejects("0 cast 4", NULL);
	rejects("0 cast 9 6", NULL);
	rejects("0 quaff 0", NULL);
	rejects("0 quaff 10", NULL);
	rejects("chat 2 hello", NULL);
	rejects("chat 5 hello", NULL);
	rejects("player 2 carol", NULL);
	rejects("options size=14 fov=on potions=on", "level size");
	rejects("options size=53 fov=on potions=on", "level size");
	rejects("options size=256 fov=on potions=on", NULL);
	rejects("= 4294967296 0000000000000000", NULL);
	rejects("rules 0", NULL);
	rejects("wizwar-turnlog 0", NULL);
}

Test(turnlog, rejects_stray_spaces)
{
	struct turnlog_line l;

	rejects("0  pass", "stray space");
	rejects("0 pass ", "stray space");
	rejects("0 step  8", "stray space");
	rejects("0 cast 1 6 ", "stray space");
	rejects(" 0 pass", NULL);
	rejects("=  1 0000000000000000", NULL);
	rejects("seed 0000000000000001 ", NULL);
	rejects("chat 0 ", NULL);
	rejects("chat 0", NULL);
	rejects("player 1", NULL);
	accepts("player 1 a b c d e f g h", &l);
	cr_assert_str_eq(l.text, "a b c d e f g h");
}

Test(turnlog, rejects_control_characters)
{
	char line[32];

	rejects("0 pass\t", "control character");
	rejects("0\tpass", "control character");
	rejects("chat 0 hi\x1b[2J", "control character");
	rejects("player 0 nul\x7f", "control character");
	rejects("0 pass\r\r", "control character");
	/* A NUL inside the line counts too (the line's length, not strlen, bounds it). */
	memcpy(line, "0 pa\0ss", 7);
	struct turnlog_line l;
	char why[128];
	cr_assert_eq(turnlog_parse_line(line, 7, &l, why, sizeof why), -1);
	cr_assert(strstr(why, "control character") != NULL, "%s", why);
}

Test(turnlog, rejects_bad_hex_and_leading_zeros)
{
	rejects("seed 123", "16 lower-case hex digits");
	rejects("seed 00000000000000001", "16 lower-case hex digits");
	rejects("seed 0123456789ABCDEF", "16 lower-case hex digits");
	rejects("seed 0123456789abcdeg", "16 lower-case hex digits");
	rejects("seed 0x23456789abcdef", "16 lower-case hex digits");
	rejects("start 123456789abcdef", "16 lower-case hex digits");
	rejects("= 3 123", "= TURN HASH");
	rejects("= 3 00000000000000000", "= TURN HASH");
	rejects("end win0 killed 12345678", "end line");
	rejects("end none none 0000000000000000", "end line");
	rejects("end win0 dead 0000000000000000", "end line");
	/* Numbers never start with 0. */
	rejects("0 step 08", NULL);
	rejects("0 cast 01", NULL);
	rejects("0 cast 1 06", NULL);
	rejects("0 quaff 03", NULL);
	rejects("00 pass", NULL);
	rejects("= 03 0000000000000000", NULL);
	rejects("rules 01", NULL);
	rejects("options size=025 fov=on potions=on", NULL);
	rejects("player 00 x", NULL);
	rejects("options size=25 fov=yes potions=on", "options must read");
	rejects("options size=25 potions=on fov=on", "options must read");
	rejects("options size=25 fov=on", "options must read");
}

Test(turnlog, rejects_long_lines)
{
	char line[TURNLOG_LINE_MAX + 4];
	struct turnlog_line l;

	memset(line, 'a', sizeof line);
	memcpy(line, "chat 0 ", 7);
	line[TURNLOG_LINE_MAX - 1] = '\0';
	accepts(line, &l); /* 511 bytes: the longest line */
	line[TURNLOG_LINE_MAX - 1] = 'a';
	line[TURNLOG_LINE_MAX] = '\0';
	rejects(line, "longer than");
	/* A name of 64 bytes is too long; 63 is fine. */
	memset(line, 'n', sizeof line);
	memcpy(line, "player 0 ", 9);
	line[9 + 63] = '\0';
	accepts(line, &l);
	cr_assert_eq(strlen(l.text), 63);
	line[9 + 63] = 'n';
	line[9 + 64] = '\0';
	rejects(line, "too long");
}

/* ---- replays ---- */

static int cb_calls, cb_last_line;

static void
count_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	(void)ud;
	cr_assert_not_null(ev);
	cr_assert_gt(lineno, cb_last_line);
	cb_last_line = lineno;
	cb_calls++;
}

Test(turnlog, selfplay_logs_replay_exactly)
{
	static struct turnlog_replay r;
	static const struct {
		int size;
		bool fov, potions;
	} opts[] = { { 25, true, true }, { 15, false, true }, { 51, true, true }, { 21, true, false } };

	for (int k = 0; k < 4; k++)
		for (uint64_t seed = 11; seed < 16; seed++) {
			struct options o;
			struct logbuf b;

			harness_options(&o, opts[k].size, opts[k].fov, opts[k].potions);
			uint64_t final = make_log(&b, seed, &o);
			cb_calls = cb_last_line = 0;
			int rc = turnlog_replay(b.text, b.len, &r, count_cb, NULL);
			cr_assert_eq(rc, 0, "seed %d: %s", (int)seed, r.error);
			cr_assert(r.ended);
			cr_assert(!r.torn);
			cr_assert_eq(r.line, 0);
			cr_assert_eq(r.commands, (uint32_t)b.commands);
			cr_assert_eq(cb_calls, b.commands);
			cr_assert_eq(r.hashes_checked, (uint32_t)b.hashes + 2, "start, every turn, and the end");
			cr_assert_eq(game_hash(&r.game), final);
			cr_assert_eq(r.hdr.seed, seed);
			cr_assert(memcmp(&r.hdr.opt, &o, sizeof o) == 0);
			cr_assert_str_eq(r.hdr.name[1], "random-bot-1");
			logbuf_free(&b);
		}
}

/* Chat and comments may stand anywhere after the header; they change nothing. */
Test(turnlog, chat_and_comments_are_skipped)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;
	char line[128];

	options_default(&o);
	make_log(&b, 3, &o);
	int n = find_line(&b, "= ", 2);
	size_t len, pos = line_at(&b, n, &len);
	snprintf(line, sizeof line, "%.*s\nchat 1 well  played!\n# a note\n\nchat 0 thanks", (int)len, b.text + pos);
	replace_line(&b, n, line);
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), 0, "%s", r.error);
	cr_assert(r.ended);
	logbuf_free(&b);
}

Test(turnlog, tampered_hash_fails_at_its_line)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;

	options_default(&o);
	for (int k = 1; k <= 5; k += 2) {
		make_log(&b, 21, &o);
		int n = find_line(&b, "= ", k);
		cr_assert_gt(n, 0);
		size_t len, pos = line_at(&b, n, &len);
		b.text[pos + len - 1] = b.text[pos + len - 1] == '0' ? '1' : '0';
		cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
		cr_assert_eq(r.line, n, "failed at %d, tampered %d: %s", r.line, n, r.error);
		cr_assert(strstr(r.error, "diverged") != NULL, "%s", r.error);
		logbuf_free(&b);
	}
}

Test(turnlog, tampered_setup_and_end)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;
	size_t len, pos;

	options_default(&o);
	/* Another seed: the start hash no longer matches. */
	make_log(&b, 5, &o);
	replace_line(&b, 4, "seed 0000000000000006");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 7, "%s", r.error);
	cr_assert(strstr(r.error, "diverged") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* Other options, likewise. */
	make_log(&b, 5, &o);
	replace_line(&b, 3, "options size=27 fov=on potions=on");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 7, "%s", r.error);
	logbuf_free(&b);

	/* The final hash. */
	make_log(&b, 5, &o);
	pos = line_at(&b, b.lines, &len);
	cr_assert(strncmp(b.text + pos, "end ", 4) == 0);
	b.text[pos + len - 1] = b.text[pos + len - 1] == '0' ? '1' : '0';
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, b.lines);
	cr_assert(strstr(r.error, "diverged") != NULL, "%s", r.error);
	logbuf_free(&b);
}

/* A command changed for another: caught no later than the next hash line. */
Test(turnlog, tampered_command)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;
	char line[64];

	options_default(&o);
	for (int k = 1; k <= 6; k++) {
		make_log(&b, 30 + (uint64_t)k, &o);
		int n = find_line(&b, "0 pass", 1);
		if (n == 0)
			n = find_line(&b, "1 pass", 1);
		cr_assert_gt(n, 0);
		size_t len, pos = line_at(&b, n, &len);
		snprintf(line, sizeof line, "%c cast 1 8", b.text[pos]);
		replace_line(&b, n, line);
		cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
		cr_assert(r.line == n || r.line == n + 1, "changed line %d, failed at %d: %s", n, r.line, r.error);
		cr_assert_gt(strlen(r.error), 0);
		logbuf_free(&b);
	}
}

Test(turnlog, torn_last_line)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;

	options_default(&o);
	make_log(&b, 7, &o);
	/* The end line lost its '\n': dropped, the rest stands. */
	b.text[--b.len] = '\0';
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), 0, "%s", r.error);
	cr_assert(r.torn);
	cr_assert(!r.ended);
	cr_assert_eq(r.commands, (uint32_t)b.commands);
	logbuf_free(&b);

	/* Cut in the middle of a command line: everything before it replays. */
	make_log(&b, 7, &o);
	int n = find_line(&b, "= ", 3) + 1;
	size_t len, pos = line_at(&b, n, &len);
	b.len = pos + 3;
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), 0, "%s", r.error);
	cr_assert(r.torn);
	cr_assert(!r.ended);
	cr_assert_eq(r.hashes_checked, 4, "start and three turns");
	logbuf_free(&b);

	/* A log that ends cleanly before its end line is unfinished, not torn. */
	make_log(&b, 7, &o);
	pos = line_at(&b, n, &len);
	b.len = pos;
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), 0, "%s", r.error);
	cr_assert(!r.torn);
	cr_assert(!r.ended);
	logbuf_free(&b);
}

Test(turnlog, header_faults)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;

	options_default(&o);
	/* Without its first line. */
	make_log(&b, 8, &o);
	replace_line(&b, 1, "# header lost");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 2, "%s", r.error);
	cr_assert(strstr(r.error, "out of place") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* Only part of a header. */
	make_log(&b, 8, &o);
	size_t len, pos = line_at(&b, 4, &len);
	b.len = pos;
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert(strstr(r.error, "inside its header") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* Nothing at all. */
	cr_assert_eq(turnlog_replay("", 0, &r, NULL, NULL), -1);

	/* Other rules, another format: refused by version, before any hash. */
	make_log(&b, 8, &o);
	replace_line(&b, 2, "rules 1"); /* the rules before this version */
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 2);
	cr_assert(strstr(r.error, "rules version") != NULL, "%s", r.error);
	logbuf_free(&b);
	make_log(&b, 8, &o);
	replace_line(&b, 1, "wizwar-turnlog 2");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 1);
	logbuf_free(&b);

	/* Players out of order. */
	make_log(&b, 8, &o);
	replace_line(&b, 5, "player 1 random-bot-1");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 5);
	logbuf_free(&b);
}

Test(turnlog, body_structure_faults)
{
	static struct turnlog_replay r;
	struct options o;
	struct logbuf b;

	options_default(&o);
	/* A turn's hash line missing. */
	make_log(&b, 9, &o);
	int n = find_line(&b, "= ", 2);
	replace_line(&b, n, "# gone");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, n + 1, "%s", r.error);
	cr_assert(strstr(r.error, "expected the hash") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* A hash line that names the wrong turn, with the right hash. */
	make_log(&b, 9, &o);
	n = find_line(&b, "= 3 ", 1);
	cr_assert_gt(n, 0);
	size_t hl, hp = line_at(&b, n, &hl);
	char wrong[64];
	snprintf(wrong, sizeof wrong, "= 4 %.*s", 16, b.text + hp + 4);
	replace_line(&b, n, wrong);
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, n, "%s", r.error);
	cr_assert(strstr(r.error, "hash for turn 4") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* A hash line where no turn ended. */
	make_log(&b, 9, &o);
	replace_line(&b, 8, "= 1 0000000000000000");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 8, "%s", r.error);
	logbuf_free(&b);

	/* Anything after the end line. */
	make_log(&b, 9, &o);
	put(&b, "0 pass\n");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, b.lines);
	cr_assert(strstr(r.error, "after the end") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* A command where the end line should be: the duel is over. */
	make_log(&b, 9, &o);
	replace_line(&b, b.lines, "0 pass");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, b.lines);
	cr_assert(strstr(r.error, "expected the end line") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* A header line in the body. */
	make_log(&b, 9, &o);
	replace_line(&b, 8, "seed 0000000000000009");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 8, "%s", r.error);
	logbuf_free(&b);

	/* A command the rules refuse. */
	make_log(&b, 9, &o);
	size_t len, pos = line_at(&b, 8, &len);
	char who = b.text[pos];
	replace_line(&b, 8, who == '0' ? "1 pass" : "0 pass");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 8);
	cr_assert(strstr(r.error, "refused") != NULL, "%s", r.error);
	logbuf_free(&b);

	/* A malformed line names its reason. */
	make_log(&b, 9, &o);
	replace_line(&b, 8, "0 step 5");
	cr_assert_eq(turnlog_replay(b.text, b.len, &r, NULL, NULL), -1);
	cr_assert_eq(r.line, 8);
	cr_assert(strstr(r.error, "line 8") != NULL, "%s", r.error);
	logbuf_free(&b);
}

/* The two lines formatted by hand (issue 29) are the bytes of the printf formats they
 * replaced, for every command byte and player, every turn and hash tried, and refuse a
 * buffer one byte too small as vsnprintf did. */
static int
old_cmd(int p, const struct cmd *c, char *buf, size_t len)
{
	int n;

	switch (c->type) {
	case CMD_STEP: n = snprintf(buf, len, "%d step %d\n", p, c->dir); break;
	case CMD_CAST:
		n = c->dir != DIR_NONE ? snprintf(buf, len, "%d cast %d %d\n", p, c->arg + 1, c->dir)
		                       : snprintf(buf, len, "%d cast %d\n", p, c->arg + 1);
		break;
	case CMD_QUAFF: n = snprintf(buf, len, "%d quaff %d\n", p, c->arg + 1); break;
	default: n = snprintf(buf, len, "%d %s\n", p, cmd_name(c->type)); break;
	}
	return n < 0 || (size_t)n >= len ? -1 : n;
}

Test(turnlog, lines_by_hand_are_the_printf_bytes)
{
	static const int players[] = { 0, 1, -7, 12, 2147483647 };
	char a[64], b[64];

	for (size_t k = 0; k < sizeof players / sizeof players[0]; k++)
		for (int type = 0; type < CMD_COUNT; type++)
			for (int arg = 0; arg < 256; arg += (type == CMD_CAST || type == CMD_QUAFF) ? 1 : 85)
				for (int dir = 0; dir < 256; dir++) {
					struct cmd c = { (uint8_t)type, (uint8_t)arg, (uint8_t)dir };
					int n = old_cmd(players[k], &c, b, sizeof b);
					cr_assert_eq(turnlog_format_cmd(players[k], &c, a, sizeof a), n);
					cr_assert_str_eq(a, b);
					cr_assert_eq(turnlog_format_cmd(players[k], &c, a, (size_t)n + 1), n);
					cr_assert_eq(turnlog_format_cmd(players[k], &c, a, (size_t)n), -1, "'%s' in %d bytes", b, n);
				}
	static const uint64_t hashes[] = { 0, 1, 0xff, 0x0123456789abcdefULL, 0xfedcba9876543210ULL, ~0ULL };
	static const uint32_t turns[] = { 0, 1, 9, 10, 99, 100, 12345, 4000000000u, 4294967295u };
	for (size_t i = 0; i < sizeof hashes / sizeof hashes[0]; i++)
		for (size_t j = 0; j < sizeof turns / sizeof turns[0]; j++) {
			int n = snprintf(b, sizeof b, "= %" PRIu32 " %016" PRIx64 "\n", turns[j], hashes[i]);
			cr_assert_eq(turnlog_format_hash(turns[j], hashes[i], a, sizeof a), n);
			cr_assert_str_eq(a, b);
			cr_assert_eq(turnlog_format_hash(turns[j], hashes[i], a, (size_t)n), -1);
		}
}
