/* SPDX-License-Identifier: MIT */
/* test_xmsg: the cluster's channel lines (server/xmsg.c): each line a node writes taken, each malformed field refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "xmsg.h"

#define ID "abcdefghijklmnopqrstuvwxyz"
#define ID2 "0123456789abcdefghijklmnop"
#define KEY "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static int
parse(const char *s, struct xmsg *m)
{
	return xmsg_parse(s, strlen(s), m);
}

/* Each line refused; the same line with the bytes of a good line after it, told its own length,
 * refused too (nothing is read past n). */
static void
all_refused(const char *const *bad, size_t n)
{
	struct xmsg m;
	char buf[600];

	for (size_t i = 0; i < n; i++) {
		cr_expect_neq(parse(bad[i], &m), 0, "took '%s'", bad[i]);
		snprintf(buf, sizeof buf, "%s%s", bad[i], " 1 1");
		cr_expect_neq(xmsg_parse(buf, strlen(bad[i]), &m), 0, "took '%s' (with bytes after it)", bad[i]);
	}
}

Test(xmsg, a_beat_is_an_id_an_address_a_port_a_key_and_a_count)
{
	struct xmsg m;

	cr_assert_eq(parse("beat " ID " 127.0.0.1 7727 " KEY " 12", &m), 0);
	cr_assert_eq(m.type, XMSG_BEAT);
	cr_assert_str_eq(m.id, ID);
	cr_assert_str_eq(m.host, "127.0.0.1");
	cr_assert_eq(m.port, 7727);
	cr_assert_eq(m.key[0], 0x00);
	cr_assert_eq(m.key[5], 0x55);
	cr_assert_eq(m.key[31], 0xff);
	cr_assert_eq(m.rooms, 12);
	cr_assert_eq(parse("beat " ID " 2001:db8::1 1 " KEY " 0", &m), 0);
	cr_assert_str_eq(m.host, "2001:db8::1");
	cr_assert_eq(parse("beat " ID " 10.0.0.2 65535 " KEY " 10000000", &m), 0);
	cr_assert_eq(m.rooms, 10000000);
	static const char *const bad[] = {
		/* the id */
		"beat " ID "a 127.0.0.1 7727 " KEY " 12", "beat abcdefghijklmnopqrstuvwxy 127.0.0.1 7727 " KEY " 12",
		"beat ABCDEFGHIJKLMNOPQRSTUVWXYZ 127.0.0.1 7727 " KEY " 12", "beat abcdefghijklmnopqrstuvwxy- 127.0.0.1 7727 " KEY " 12",
		/* the host: a name, brackets, too long, not an address */
		"beat " ID " wizwar.example 7727 " KEY " 12", "beat " ID " [::1] 7727 " KEY " 12",
		"beat " ID " 127.0.0.256 7727 " KEY " 12", "beat " ID " 1.2.3 7727 " KEY " 12",
		"beat " ID " 0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:00001 7727 " KEY " 12",
		/* the port */
		"beat " ID " 127.0.0.1 0 " KEY " 12", "beat " ID " 127.0.0.1 65536 " KEY " 12",
		"beat " ID " 127.0.0.1 07727 " KEY " 12", "beat " ID " 127.0.0.1 +7727 " KEY " 12",
		"beat " ID " 127.0.0.1 -1 " KEY " 12", "beat " ID " 127.0.0.1 77x " KEY " 12",
		"beat " ID " 127.0.0.1 99999999999999999999 " KEY " 12",
		/* the key: short, long, upper case, not hex */
		"beat " ID " 127.0.0.1 7727 00112233 12", "beat " ID " 127.0.0.1 7727 " KEY "00 12",
		"beat " ID " 127.0.0.1 7727 00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff 12",
		"beat " ID " 127.0.0.1 7727 g0112233445566778899aabbccddeeff00112233445566778899aabbccddeeff 12",
		/* the count */
		"beat " ID " 127.0.0.1 7727 " KEY " 10000001", "beat " ID " 127.0.0.1 7727 " KEY " -1",
		"beat " ID " 127.0.0.1 7727 " KEY " 012", "beat " ID " 127.0.0.1 7727 " KEY " +1",
		"beat " ID " 127.0.0.1 7727 " KEY " 1e3", "beat " ID " 127.0.0.1 7727 " KEY " 18446744073709551617",
		/* the fields: one missing, one too many, a space doubled, leading, trailing, a tab */
		"beat " ID " 127.0.0.1 7727 " KEY, "beat " ID " 127.0.0.1 7727 " KEY " 12 1",
		"beat " ID "  127.0.0.1 7727 " KEY " 12", "beat  " ID " 127.0.0.1 7727 " KEY " 12",
		"beat " ID " 127.0.0.1 7727 " KEY " 12 ", "beat " ID " 127.0.0.1\t7727 " KEY " 12",
		" beat " ID " 127.0.0.1 7727 " KEY " 12", "Beat " ID " 127.0.0.1 7727 " KEY " 12", "beat", "beat ",
	};
	all_refused(bad, sizeof bad / sizeof bad[0]);
}

Test(xmsg, room_gone_and_sent_are_an_id_and_a_code)
{
	struct xmsg m;
	static const struct { const char *word; enum xmsg_type type; } kinds[] = {
		{ "room", XMSG_ROOM }, { "gone", XMSG_GONE }, { "sent", XMSG_SENT },
	};
	char line[300];

	for (size_t i = 0; i < 3; i++) {
		snprintf(line, sizeof line, "%s " ID " ab12-cd34_EFGH56", kinds[i].word);
		cr_assert_eq(parse(line, &m), 0, "refused '%s'", line);
		cr_assert_eq(m.type, kinds[i].type);
		cr_assert_str_eq(m.id, ID);
		cr_assert_str_eq(m.code, "ab12-cd34_EFGH56");
		snprintf(line, sizeof line, "%s " ID2 " x", kinds[i].word);
		cr_assert_eq(parse(line, &m), 0, "refused '%s'", line);
		static const char *const tails[] = {
			" " ID, " " ID " ", " " ID "  abc", " " ID " abc ", " " ID " abc def", " " ID " ab12-cd34_EFGH567",
			" " ID " ab.c", " " ID " ab/c", " " ID " \xc3\xa9t\xc3\xa9", " " ID "x abc", " abc " ID,
			" " ID " abc\r", "  " ID " abc", "",
		};
		for (size_t k = 0; k < sizeof tails / sizeof tails[0]; k++) {
			snprintf(line, sizeof line, "%s%s", kinds[i].word, tails[k]);
			cr_expect_neq(parse(line, &m), 0, "took '%s'", line);
		}
	}
	/* A NUL inside a text line: refused, not cut there. */
	static const char nul[] = "room " ID " abc\0def";
	cr_assert_neq(xmsg_parse(nul, sizeof nul - 1, &m), 0);
	/* A text line of XMSG_LINE_MAX bytes or more: refused, whatever it holds. */
	char longl[XMSG_LINE_MAX + 8];
	memset(longl, 'a', sizeof longl);
	memcpy(longl, "room " ID " ", 5 + XMSG_ID_LEN + 1);
	cr_assert_neq(xmsg_parse(longl, XMSG_LINE_MAX, &m), 0);
}

Test(xmsg, make_is_two_ids_a_code_and_four_bounded_numbers)
{
	struct xmsg m;

	cr_assert_eq(parse("make " ID " " ID2 " abc-123 25 1 0 60", &m), 0);
	cr_assert_eq(m.type, XMSG_MAKE);
	cr_assert_str_eq(m.id, ID);
	cr_assert_str_eq(m.to, ID2);
	cr_assert_str_eq(m.code, "abc-123");
	cr_assert_eq(m.opt.size, 25);
	cr_assert(m.opt.fov);
	cr_assert_not(m.opt.potions);
	cr_assert_eq(m.turn_time, 60);
	cr_assert_eq(parse("make " ID " " ID2 " abc 255 0 1 65535", &m), 0);
	cr_assert_eq(m.turn_time, 65535);
	cr_assert_eq(m.opt.size, 255);
	/* The options are bounded here and checked as a client's by the server: an even size is the
	 * server's to refuse, a size of 256 no line's. */
	cr_assert_eq(parse("make " ID " " ID2 " abc 24 0 0 0", &m), 0);
	static const char *const bad[] = {
		"make " ID "x " ID2 " abc 25 1 1 60", "make " ID " " ID2 "x abc 25 1 1 60", "make " ID " BAD abc 25 1 1 60",
		"make " ID " " ID2 " a.c 25 1 1 60", "make " ID " " ID2 " abcdefghijklmnopq 25 1 1 60",
		"make " ID " " ID2 " abc 256 1 1 60", "make " ID " " ID2 " abc 025 1 1 60", "make " ID " " ID2 " abc -25 1 1 60",
		"make " ID " " ID2 " abc 25 2 1 60", "make " ID " " ID2 " abc 25 01 1 60", "make " ID " " ID2 " abc 25 y 1 60",
		"make " ID " " ID2 " abc 25 1 2 60", "make " ID " " ID2 " abc 25 1 -0 60",
		"make " ID " " ID2 " abc 25 1 1 65536", "make " ID " " ID2 " abc 25 1 1 060", "make " ID " " ID2 " abc 25 1 1 +60",
		"make " ID " " ID2 " abc 25 1 1", "make " ID " " ID2 " abc 25 1 1 60 word", "make " ID " " ID2 " abc 25 1 1 60 ",
		"make " ID " " ID2 "  abc 25 1 1 60", "make " ID " " ID2 " abc 25 1 1  60", "make",
	};
	all_refused(bad, sizeof bad / sizeof bad[0]);
}

Test(xmsg, web_is_an_id_an_address_and_a_port)
{
	struct xmsg m;

	cr_assert_eq(parse("web " ID " 127.0.0.1 8080", &m), 0);
	cr_assert_eq(m.type, XMSG_WEB);
	cr_assert_str_eq(m.id, ID);
	cr_assert_str_eq(m.host, "127.0.0.1");
	cr_assert_eq(m.port, 8080);
	static const char *const bad[] = {
		"web " ID " 127.0.0.1", "web " ID " 127.0.0.1 0", "web " ID " 127.0.0.1 080", "web " ID " 127.0.0.1 8080 x",
		"web " ID " wizwar.example 80", "web " ID "  127.0.0.1 80", "web " ID " [::1] 80", "web x 127.0.0.1 80",
	};
	all_refused(bad, sizeof bad / sizeof bad[0]);
}

Test(xmsg, mod_is_an_id_and_a_line_without_control_bytes)
{
	struct xmsg m;
	static const char line[] = "mod " ID " ban 1999999000 0 name Sir Mordred --reason impersonation";

	cr_assert_eq(parse(line, &m), 0);
	cr_assert_eq(m.type, XMSG_MOD);
	cr_assert_str_eq(m.id, ID);
	cr_assert_str_eq(m.line, "ban 1999999000 0 name Sir Mordred --reason impersonation");
	/* Longer than a text line may be, up to XMSG_MOD_MAX - 1 bytes of its own. */
	char longl[4 + XMSG_ID_LEN + 1 + XMSG_MOD_MAX + 1];
	int h = snprintf(longl, sizeof longl, "mod " ID " ");
	memset(longl + h, 'x', XMSG_MOD_MAX - 1);
	cr_assert_eq(xmsg_parse(longl, (size_t)h + XMSG_MOD_MAX - 1, &m), 0);
	cr_assert_eq(strlen(m.line), XMSG_MOD_MAX - 1);
	longl[h + XMSG_MOD_MAX - 1] = 'x';
	cr_assert_neq(xmsg_parse(longl, (size_t)h + XMSG_MOD_MAX, &m), 0, "a line of XMSG_MOD_MAX bytes taken");
	static const char *const bad[] = {
		"mod " ID, "mod " ID " ", "mod " ID "x ban", "mod  " ID " ban", "mod BAD ban", "mod " ID " ban\n1",
		"mod " ID " ban\x1b[2J", "mod " ID " ban\x7f", "mod " ID "\tban",
	};
	all_refused(bad, sizeof bad / sizeof bad[0]);
	static const char nul[] = "mod " ID " ban\0x";
	cr_assert_neq(xmsg_parse(nul, sizeof nul - 1, &m), 0);
}

Test(xmsg, open_is_an_id_and_a_payload_left_to_the_wire_decoder)
{
	struct xmsg m;
	static const char line[] = "open " ID " \x00\x01\xff";

	cr_assert_eq(xmsg_parse(line, sizeof line - 1, &m), 0);
	cr_assert_eq(m.type, XMSG_OPEN);
	cr_assert_str_eq(m.id, ID);
	cr_assert_eq((const char *)m.payload, line + 5 + XMSG_ID_LEN + 1);
	cr_assert_eq(m.len, 3);
	cr_assert_eq(xmsg_parse("open " ID " ", 5 + XMSG_ID_LEN + 1, &m), 0);
	cr_assert_eq(m.len, 0);
	static const char *const bad[] = { "open " ID, "open " ID "x", "open  " ID " x", "open BAD x", "open" };
	all_refused(bad, sizeof bad / sizeof bad[0]);
}

Test(xmsg, an_unknown_word_or_nothing_is_refused)
{
	struct xmsg m;

	static const char *const bad[] = { "", " ", "hello " ID " abc", "rooms " ID " abc", ("beats " ID), "ro", "\n" };

	all_refused(bad, sizeof bad / sizeof bad[0]);
	cr_assert_neq(xmsg_parse("beat", 0, &m), 0);
}
