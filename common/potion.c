/* SPDX-License-Identifier: MIT */
/* potion: the appearance and kind tables, built from APPEARANCE_LIST and POTION_LIST. */
#include <stddef.h>

#include "potion.h"

static const char *const appearances[APPEARANCE_COUNT] = {
#define X(id, name) name,
	APPEARANCE_LIST(X)
#undef X
};

static const struct potion_info kinds[POTION_KIND_COUNT] = {
#define X(id, name, eff, arg, turns, good, line, rules) { name, eff, arg, turns, good },
	POTION_LIST(X)
#undef X
};

/* The kinds no duel draws (potion.h says why): a table, so that retiring another is a row. */
static const bool retired[POTION_KIND_COUNT] = {
	[POTION_RESACID] = true,
};

bool
potion_drawn(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT && !retired[kind];
}

const char *
appearance_name(int a)
{
	return a >= 0 && a < APPEARANCE_COUNT ? appearances[a] : "(unknown colour)";
}

const struct potion_info *
potion_info(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT ? &kinds[kind] : NULL;
}

const char *
potion_name(int kind)
{
	return kind >= 0 && kind < POTION_KIND_COUNT ? kinds[kind].name : "(unknown potion)";
}
