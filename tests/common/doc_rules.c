/* SPDX-License-Identifier: MIT */
/* doc_rules: docs/rules.md's spell and potion tables, written from SPELL_LIST and POTION_LIST. */
#include <stdio.h>

#include "describe.h"
#include "docblock.h"
#include "game.h"
#include "potion.h"
#include "spell.h"

/*
 * A spell or potion has one home, its row in spell.h or potion.h: name, class, the line
 * players see and the whole rule. docs/rules.md shows them as tables; each is written here
 * from those rows, and `meson test` (common/doc_rules) fails when the document says
 * otherwise, so a new row cannot leave the document behind. `doc_rules --write
 * docs/rules.md` (tests/replays/regen.sh runs it) brings the document up to date.
 */

static const char *const class_names[] = { [SPELL_POSITIVE] = "positive", [SPELL_NEUTRAL] = "neutral",
	                                   [SPELL_NEGATIVE] = "negative" };

static int
gen_spells(FILE *o)
{
	fprintf(o, "\n| spell | class | what it does |\n| --- | --- | --- |\n");
	for (int s = 0; s < SPELL_COUNT; s++)
		fprintf(o, "| %s | %s%s | %s |\n", spell_name(s), class_names[spell_class_of(s)],
		    spell_takes_dir(s) ? ", **takes a direction**" : "", spell_rules(s));
	fprintf(o, "\n");
	return 0;
}

static int
gen_potions(FILE *o)
{
	fprintf(o, "\n| kind | effect | lasts |\n| --- | --- | --- |\n");
	for (int k = 0; k < POTION_KIND_COUNT; k++) {
		const struct potion_info *pi = potion_info(k);
		if (pi->turns)
			fprintf(o, "| %s | %s | %d turns |\n", pi->name, potion_rules(k), pi->turns);
		else
			fprintf(o, "| %s | %s | - |\n", pi->name, potion_rules(k));
	}
	fprintf(o, "\n");
	return 0;
}

static int
gen_spell_lines(FILE *o)
{
	fprintf(o, "\n| spell | in the game |\n| --- | --- |\n");
	for (int s = 0; s < SPELL_COUNT; s++)
		fprintf(o, "| %s | %s |\n", spell_name(s), spell_desc(s));
	fprintf(o, "\n");
	return 0;
}

static int
gen_potion_lines(FILE *o)
{
	fprintf(o, "\n| potion | in the game |\n| --- | --- |\n");
	for (int k = 0; k < POTION_KIND_COUNT; k++)
		fprintf(o, "| %s | %s |\n", potion_name(k), potion_desc(k));
	fprintf(o, "\n");
	return 0;
}

static int
gen_counts(FILE *o)
{
	int drawn = 0;

	for (int k = 0; k < POTION_KIND_COUNT; k++)
		drawn += potion_drawn(k);
	fprintf(o, "%d spells exist (`SPELL_LIST`) and %d kinds of potion (`POTION_LIST`), of which duels draw %d.\n",
	    SPELL_COUNT, POTION_KIND_COUNT, drawn);
	return 0;
}

static int
gen_version(FILE *o)
{
	fprintf(o, "This is rules version **%d** (`RULES_VERSION`).\n", RULES_VERSION);
	return 0;
}

static const struct docblock blocks[] = {
	{ "version", gen_version },
	{ "counts", gen_counts },
	{ "spells", gen_spells },
	{ "potions", gen_potions },
	{ "spell-lines", gen_spell_lines },
	{ "potion-lines", gen_potion_lines },
};

int
main(int argc, char **argv)
{
	return docblock_main(argc, argv, blocks, (int)(sizeof blocks / sizeof *blocks), NULL);
}
