/* SPDX-License-Identifier: MIT */
/* Tests for text: strict UTF-8, no controls or escapes or bidi marks, and the limits of each kind. */
#include <criterion/criterion.h>

#include <string.h>

#include "proto.h"
#include "text.h"

static bool
ok(const char *s, int kind)
{
	return text_check(s, strlen(s), kind);
}

Test(text, accepts_clean_text)
{
	cr_assert(ok("Merlin", TEXT_NAME));
	cr_assert(ok("Ŝarlota", TEXT_NAME));
	cr_assert(ok("火の魔術師", TEXT_NAME));
	cr_assert(ok("A B", TEXT_NAME));
	cr_assert(ok("duel-1_X", TEXT_ROOM));
	cr_assert(ok("gg 🙂 👩‍👩‍👧", TEXT_CHAT)); /* a zero-width joiner is fine in chat */
	cr_assert(ok("", TEXT_REASON));
	cr_assert(ok("0123456789abcdef", TEXT_NAME)); /* 16 code points */
	cr_assert(ok("ééééééééééééééé", TEXT_NAME));
}

Test(text, refuses_controls_escapes_and_bidi)
{
	static const char *const bad[] = {
		"a\x1b[2Jb",        /* ESC: a terminal escape */
		"a\nb", "a\tb", "a\rb", "a\x7f", "\x01",
		"a\xc2\x9b" "2J",   /* C1 CSI, U+009B */
		"a\xc2\x85",        /* NEL */
		"a\xe2\x80\xae" "b",  /* RLO U+202E */
		"a\xe2\x81\xa6" "b",  /* LRI U+2066 */
		"a\xe2\x80\x8f",      /* RLM */
		"a\xd8\x9c",          /* ALM U+061C */
		"a\xe2\x80\xa8",      /* LINE SEPARATOR */
		"\xef\xbb\xbf" "a",   /* BOM */
		"a\xef\xbf\xbe",      /* U+FFFE */
		"a\xef\xb7\x90",      /* U+FDD0 */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		for (int k = 0; k < TEXT_KIND_COUNT; k++)
			cr_assert(!ok(bad[i], k), "bad[%zu] kind %d", i, k);
	cr_assert(!text_check("a\0b", 3, TEXT_CHAT), "NUL inside");
}

/* Invisible names, decided from Unicode properties: default-ignorable characters anywhere in a
 * name, and a name with nothing to see (no letter, digit or pictograph). */
Test(text, refuses_invisible_names)
{
	static const char *const bad[] = {
		"\xe3\x85\xa4",                          /* U+3164 HANGUL FILLER (a letter, but default-ignorable) */
		"\xe3\x85\xa4\xe3\x85\xa4\xe3\x85\xa4",
		"\xe2\xa0\x80",                          /* U+2800 BRAILLE PATTERN BLANK */
		"\xe2\xa0\x80\xe2\xa0\x80",
		"\xe3\x80\x80",                          /* U+3000 IDEOGRAPHIC SPACE */
		"\xcc\x81\xcc\x81",                      /* combining marks alone */
		"\xef\xbe\xa0",                          /* U+FFA0 HALFWIDTH HANGUL FILLER */
		"a\xe3\x85\xa4" "b",                     /* a filler inside makes "ab" look like "a b" */
		"a\xe2\x80\x8d" "b",                     /* ZWJ */
		"a\xcd\x8f" "b",                          /* U+034F COMBINING GRAPHEME JOINER */
		"a\xef\xb8\x8f",                          /* U+FE0F VARIATION SELECTOR-16 */
		"a\xc2\xad" "b",                          /* soft hyphen */
		"...",
	};
	char out[64];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert(!ok(bad[i], TEXT_NAME), "bad[%zu]", i);
	cr_assert_eq(text_clean(out, sizeof out, "\xe2\xa0\x80\xe2\xa0\x80", 6, TEXT_NAME), -1, "nothing visible left");
	cr_assert_str_eq(out, "");
	cr_assert_eq(text_clean(out, sizeof out, "a\xe3\x85\xa4" "b", 5, TEXT_NAME), 2);
	cr_assert_str_eq(out, "ab");
	/* Something to see around a blank is a name; a pictograph alone too. */
	cr_assert(ok("a\xe2\xa0\x80" "b", TEXT_NAME));
	cr_assert(ok("\xf0\x9f\xa7\x99", TEXT_NAME)); /* U+1F9D9 MAGE */
	cr_assert(ok("R2-D2", TEXT_NAME) && ok("7", TEXT_NAME));
	/* Chat keeps what is harmless there: the join controls of emoji sequences, blanks. */
	cr_assert(ok("\xe2\xa0\x80", TEXT_CHAT) && ok("a\xe2\x80\x8c" "b", TEXT_CHAT));
	/* Format characters are refused in every kind, join controls aside: tags, soft hyphen, ZWSP. */
	cr_assert(!ok("a\xf3\xa0\x81\x81", TEXT_CHAT), "U+E0041 TAG LATIN CAPITAL LETTER A");
	cr_assert(!ok("a\xc2\xad", TEXT_CHAT) && !ok("a\xe2\x80\x8b", TEXT_CHAT));
	cr_assert(!ok("a\xef\xbf\xb9", TEXT_CHAT), "U+FFF9 interlinear annotation");
}

Test(text, refuses_invalid_utf8)
{
	static const char *const bad[] = {
		"\x80", "a\xc3", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80" /* surrogate */,
		"\xf0\x80\x80\xaf", "\xf4\x90\x80\x80" /* past U+10FFFF */, "\xf5\x80\x80\x80", "\xff", "\xe2\x82",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char out[64];

		cr_assert(!ok(bad[i], TEXT_CHAT), "bad[%zu]", i);
		cr_assert_eq(text_clean(out, sizeof out, bad[i], strlen(bad[i]), TEXT_CHAT), -1);
		cr_assert_str_eq(out, "");
	}
}

Test(text, limits_per_kind)
{
	char s[300];

	memset(s, 'a', sizeof s);
	cr_assert(!text_check(s, 17, TEXT_NAME), "17 code points");
	cr_assert(text_check(s, 16, TEXT_ROOM));
	cr_assert(!text_check(s, 17, TEXT_ROOM));
	cr_assert(text_check(s, PROTO_CHAT_BYTES, TEXT_CHAT));
	cr_assert(!text_check(s, PROTO_CHAT_BYTES + 1, TEXT_CHAT));
	cr_assert(text_check(s, PROTO_REASON_BYTES, TEXT_REASON));
	cr_assert(!text_check(s, PROTO_REASON_BYTES + 1, TEXT_REASON));
	cr_assert(!text_check(s, 0, TEXT_NAME) && !text_check(s, 0, TEXT_CHAT) && !text_check(s, 0, TEXT_ROOM));
	cr_assert(!ok(" lead", TEXT_NAME) && !ok("trail ", TEXT_NAME));
	cr_assert(!ok("a\xe2\x80\x8b" "b", TEXT_NAME), "zero-width space in a name");
	cr_assert(!ok("a b", TEXT_ROOM) && !ok("é", TEXT_ROOM) && !ok("a/b", TEXT_ROOM));
	/* 16 four-byte code points are 64 bytes: the most a name holds. */
	cr_assert(ok("🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂", TEXT_NAME));
	cr_assert(!ok("🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂", TEXT_NAME));
	cr_assert(!text_check("x", 1, TEXT_KIND_COUNT) && !text_check("x", 1, -1));
}

Test(text, clean_drops_and_cuts)
{
	char out[PROTO_CHAT_BYTES + 1], big[400];

	cr_assert_eq(text_clean(out, sizeof out, "hi\x1b[31m there\n", 14, TEXT_CHAT), 12);
	cr_assert_str_eq(out, "hi[31m there");
	cr_assert_eq(text_clean(out, sizeof out, "  Merlin the Grey, Wizard of Old  ", 34, TEXT_NAME), 16);
	cr_assert_str_eq(out, "Merlin the Grey,");
	cr_assert_eq(text_clean(out, sizeof out, " a ", 3, TEXT_NAME), 1);
	cr_assert_str_eq(out, "a");
	cr_assert_eq(text_clean(out, sizeof out, "\x1b\x1b", 2, TEXT_NAME), -1, "nothing left");
	cr_assert_eq(text_clean(out, sizeof out, "room 1/ok", 9, TEXT_ROOM), 7);
	cr_assert_str_eq(out, "room1ok");
	/* Cut on a code point boundary, never inside one. */
	for (int i = 0; i < 200; i++)
		memcpy(big + 2 * i, "é", 2);
	cr_assert_eq(text_clean(out, sizeof out, big, 400, TEXT_CHAT), 200);
	cr_assert(text_check(out, 200, TEXT_CHAT));
	cr_assert_eq(text_clean(out, 6, big, 400, TEXT_CHAT), 4, "a small buffer cuts too");
	cr_assert_eq(text_clean(out, 0, big, 400, TEXT_CHAT), -1);
	cr_assert_eq(text_clean(out, sizeof out, "x", 1, 99), -1);
	cr_assert_eq(text_clean(out, sizeof out, "", 0, TEXT_REASON), 0);
}

Test(text, utf8_next)
{
	uint32_t cp;

	cr_assert_eq(text_utf8_next((const uint8_t *)"\xf0\x9f\x99\x82", 4, &cp), 4);
	cr_assert_eq(cp, 0x1f642);
	cr_assert_eq(text_utf8_next((const uint8_t *)"\xf0\x9f\x99\x82", 3, &cp), 0);
	cr_assert_eq(text_utf8_next((const uint8_t *)"", 0, &cp), 0);
	cr_assert(!text_allowed(0x1b, TEXT_CHAT) && text_allowed('a', TEXT_CHAT) && !text_allowed('a', 99));
}

/* The decoder's edges, one by one, as RFC 3629 draws them: the last of each length and the
 * first past it, overlong forms, surrogates, past U+10FFFF, stray and missing continuation
 * bytes. The text check and the cleaner must agree with it on each. */
Test(text, utf8_edges)
{
	static const struct {
		const char *s;
		size_t len;   /* the first code point's length, 0 when invalid */
		uint32_t cp;
	} cases[] = {
		{ "\x00", 1, 0 },
		{ "\x7f", 1, 0x7f },
		{ "\xc2\x80", 2, 0x80 },
		{ "\xdf\xbf", 2, 0x7ff },
		{ "\xe0\xa0\x80", 3, 0x800 },
		{ "\xed\x9f\xbf", 3, 0xd7ff },
		{ "\xee\x80\x80", 3, 0xe000 },
		{ "\xef\xbf\xbf", 3, 0xffff },
		{ "\xf0\x90\x80\x80", 4, 0x10000 },
		{ "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
		{ "\xc0\x80", 0, 0 },             /* overlong NUL */
		{ "\xc1\xbf", 0, 0 },             /* overlong 0x7f */
		{ "\xe0\x9f\xbf", 0, 0 },         /* overlong 0x7ff */
		{ "\xf0\x8f\xbf\xbf", 0, 0 },     /* overlong 0xffff */
		{ "\xed\xa0\x80", 0, 0 },         /* U+D800, a surrogate */
		{ "\xed\xbf\xbf", 0, 0 },         /* U+DFFF */
		{ "\xf4\x90\x80\x80", 0, 0 },     /* U+110000 */
		{ "\xf5\x80\x80\x80", 0, 0 },
		{ "\xff", 0, 0 },
		{ "\x80", 0, 0 },                 /* a continuation byte alone */
		{ "\xc3", 0, 0 },                 /* a lead byte with nothing after it */
		{ "\xc3\x28", 0, 0 },             /* a lead byte followed by no continuation */
		{ "\xe2\x82", 0, 0 },
		{ "\xe2\x28\xa1", 0, 0 },
		{ "\xf0\x9f\x99", 0, 0 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const uint8_t *s = (const uint8_t *)cases[i].s;
		size_t n = cases[i].len ? cases[i].len : strlen(cases[i].s);
		uint32_t cp = 0xdead;
		char out[64];

		cr_assert_eq(text_utf8_next(s, n, &cp), cases[i].len, "case %zu", i);
		if (cases[i].len == 0) {
			cr_assert(!text_check(cases[i].s, n, TEXT_CHAT), "case %zu", i);
			cr_assert_eq(text_clean(out, sizeof out, cases[i].s, n, TEXT_CHAT), -1, "case %zu", i);
			continue;
		}
		char enc[4];
		cr_assert_eq(cp, cases[i].cp, "case %zu", i);
		cr_assert_eq(text_utf8_put(enc, cp), cases[i].len, "case %zu", i);
		cr_assert(memcmp(enc, s, cases[i].len) == 0, "case %zu round trip", i);
	}
}

Test(text, utf8_put_refuses_what_is_no_scalar_value)
{
	char enc[4] = { 'x', 'x', 'x', 'x' };

	cr_assert_eq(text_utf8_put(enc, 0xd800), 0);
	cr_assert_eq(text_utf8_put(enc, 0xdfff), 0);
	cr_assert_eq(text_utf8_put(enc, 0x110000), 0);
	cr_assert_eq(text_utf8_put(enc, 0x1fffff), 0);
	cr_assert_eq(enc[0], 'x');
}
