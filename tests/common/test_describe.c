/* SPDX-License-Identifier: MIT */
/* Tests for describe: every spell and potion has a line, short enough for the screen, and docs/rules.md's table says the same. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "potion.h"
#include "spell.h"

/* The row "| NAME | TEXT |" of rules.md, or NULL. */
static bool
doc_has_row(const char *doc, const char *name, const char *text)
{
	char row[512];

	snprintf(row, sizeof row, "\n| %s | %s |\n", name, text);
	return strstr(doc, row) != NULL;
}

static char *
read_rules(void)
{
	const char *root = getenv("WIZWAR_SRCDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/docs/rules.md", root ? root : ".");
	FILE *f = fopen(path, "r");
	static char buf[1 << 17];
	size_t n;

	cr_assert_not_null(f, "cannot open docs/rules.md (WIZWAR_SRCDIR)");
	n = fread(buf + 1, 1, sizeof buf - 2, f);
	fclose(f);
	buf[0] = '\n';
	buf[n + 1] = '\0';
	return buf;
}

Test(describe, every_spell_and_potion_has_a_line_that_fits)
{
	for (int s = 0; s < SPELL_COUNT; s++) {
		size_t n = strlen(spell_desc(s));
		cr_assert(n > 10 && n <= DESCRIBE_MAX, "%s: %zu bytes", spell_name(s), n);
	}
	for (int k = 0; k < POTION_KIND_COUNT; k++) {
		size_t n = strlen(potion_desc(k));
		cr_assert(n > 10 && n <= DESCRIBE_MAX, "%s: %zu bytes", potion_name(k), n);
	}
	cr_assert_str_eq(spell_desc(SPELL_COUNT), "");
	cr_assert_str_eq(potion_desc(-1), "");
}

Test(describe, rules_md_says_the_same)
{
	const char *doc = read_rules();

	for (int s = 0; s < SPELL_COUNT; s++)
		cr_assert(doc_has_row(doc, spell_name(s), spell_desc(s)), "docs/rules.md lacks \"| %s | %s |\"", spell_name(s),
		    spell_desc(s));
	for (int k = 0; k < POTION_KIND_COUNT; k++)
		cr_assert(doc_has_row(doc, potion_name(k), potion_desc(k)), "docs/rules.md lacks \"| %s | %s |\"",
		    potion_name(k), potion_desc(k));
}
