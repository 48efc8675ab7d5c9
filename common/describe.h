/* SPDX-License-Identifier: MIT */
/* describe: what each spell and potion kind does: one line for players, and the rule docs/rules.md gives. */
#ifndef WW_DESCRIBE_H
#define WW_DESCRIBE_H

/* One sentence, at most DESCRIBE_MAX bytes; "" for an id out of range. */
#define DESCRIBE_MAX 96
const char *spell_desc(int spell);
const char *potion_desc(int kind);
/* The whole rule, as docs/rules.md's tables give it (markdown); "" for an id out of range. */
const char *spell_rules(int spell);
const char *potion_rules(int kind);

#endif
