/* SPDX-License-Identifier: MIT */
/* describe: one line on what each spell and potion kind does, for players; docs/rules.md holds the same lines. */
#ifndef WW_DESCRIBE_H
#define WW_DESCRIBE_H

/* One sentence, at most DESCRIBE_MAX bytes; "" for an id out of range. */
#define DESCRIBE_MAX 96
const char *spell_desc(int spell);
const char *potion_desc(int kind);

#endif
