/* SPDX-License-Identifier: MIT */
/* spell: the spell table, built from SPELL_LIST. What each spell does lives in game.c's cast table. */
#include <string.h>

#include "spell.h"

static const struct {
	const char *name;
	const char *key; /* the short id in lower case, as turn logs and tools may name it */
	enum spell_class cls;
	bool dir;
} spells[SPELL_COUNT] = {
#define X(id, name, cls, dir, line, rules) { name, #id, cls, dir },
	SPELL_LIST(X)
#undef X
};

static bool
valid(int id)
{
	return id >= 0 && id < SPELL_COUNT;
}

const char *
spell_name(int id)
{
	return valid(id) ? spells[id].name : "(unknown spell)";
}

enum spell_class
spell_class_of(int id)
{
	return valid(id) ? spells[id].cls : SPELL_NEGATIVE;
}

bool
spell_takes_dir(int id)
{
	return valid(id) && spells[id].dir;
}

static bool
same_key(const char *key, const char *name)
{
	for (; *key && *name; key++, name++) {
		char c = *name;
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c != *key)
			return false;
	}
	return *key == '\0' && *name == '\0';
}

int
spell_lookup(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < SPELL_COUNT; i++)
		if (strcmp(spells[i].name, name) == 0 || same_key(spells[i].key, name))
			return i;
	return -1;
}
