/* SPDX-License-Identifier: MIT */
/* describe: the in-game lines and the rules of each spell and potion, from their rows in SPELL_LIST and POTION_LIST. */
#include "describe.h"
#include "potion.h"
#include "spell.h"

static const char *const spell_lines[SPELL_COUNT] = {
#define X(id, name, cls, dir, line, rules) line,
	SPELL_LIST(X)
#undef X
};

static const char *const spell_rule_texts[SPELL_COUNT] = {
#define X(id, name, cls, dir, line, rules) rules,
	SPELL_LIST(X)
#undef X
};

static const char *const potion_lines[POTION_KIND_COUNT] = {
#define X(id, name, eff, arg, turns, good, line, rules) line,
	POTION_LIST(X)
#undef X
};

static const char *const potion_rule_texts[POTION_KIND_COUNT] = {
#define X(id, name, eff, arg, turns, good, line, rules) rules,
	POTION_LIST(X)
#undef X
};

const char *
spell_desc(int spell)
{
	return spell >= 0 && spell < SPELL_COUNT ? spell_lines[spell] : "";
}

const char *
potion_desc(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT ? potion_lines[kind] : "";
}

const char *
spell_rules(int spell)
{
	return spell >= 0 && spell < SPELL_COUNT ? spell_rule_texts[spell] : "";
}

const char *
potion_rules(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT ? potion_rule_texts[kind] : "";
}
