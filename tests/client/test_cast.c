/* SPDX-License-Identifier: MIT */
/* client/cast: asciicast v3 lines as JSON: the header, intervals with three decimals, and any bytes as a valid JSON string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cast.h"

/* What f holds, as a string (the caller frees it). */
static char *
text_of(FILE *f)
{
	long n = ftell(f);
	char *s = calloc(1, (size_t)n + 1);

	cr_assert_not_null(s);
	rewind(f);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	return s;
}

Test(cast, the_header_names_version_3_and_the_terminal)
{
	FILE *f = tmpfile();
	char *s;

	cr_assert_not_null(f);
	cast_header(f, 80, 24, "xterm-256color", "wizwar: Ann vs \"Ben\"");
	s = text_of(f);
	cr_expect_str_eq(s, "{\"version\": 3, \"term\": {\"cols\": 80, \"rows\": 24, \"type\": \"xterm-256color\"}, "
	                    "\"title\": \"wizwar: Ann vs \\\"Ben\\\"\"}\n");
	free(s);
	fclose(f);
}

Test(cast, an_event_is_an_interval_a_code_and_its_bytes)
{
	FILE *f = tmpfile();
	char *s;

	cr_assert_not_null(f);
	cast_event(f, 0, 'o', "", 0);
	cast_event(f, 1500, 'o', "\x1b[1mA\\", 6);
	cast_event(f, 7, 'm', "turn 2", 6);
	s = text_of(f);
	cr_expect_str_eq(s, "[0.000, \"o\", \"\"]\n[1.500, \"o\", \"\\u001b[1mA\\\\\"]\n[0.007, \"m\", \"turn 2\"]\n");
	free(s);
	fclose(f);
}

/* Every control character escaped, UTF-8 kept, and bytes that are not UTF-8 (a stray continuation,
 * a truncated sequence, an overlong form, a surrogate) each one U+FFFD: JSON is UTF-8, and one bad
 * byte would make the whole cast unreadable. */
Test(cast, any_bytes_make_a_valid_json_string)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "\t\n\r\x7f", 4, "\\u0009\\u000a\\u000d\\u007f" },
		{ "a\0b", 3, "a\\u0000b" },
		{ "\xe2\x94\x8c\xc3\xa9", 5, "\xe2\x94\x8c\xc3\xa9" },
		{ "\x80x", 2, "\\ufffdx" },
		{ "\xe2\x94", 2, "\\ufffd\\ufffd" },
		{ "\xc0\xaf", 2, "\\ufffd\\ufffd" },
		{ "\xed\xa0\x80", 3, "\\ufffd\\ufffd\\ufffd" },
		{ "\"/\\", 3, "\\\"/\\\\" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		FILE *f = tmpfile();
		cr_assert_not_null(f);
		cast_json_string(f, cases[i].in, cases[i].len);
		char *s = text_of(f);
		cr_expect_str_eq(s, cases[i].out, "case %zu", i);
		free(s);
		fclose(f);
	}
}
