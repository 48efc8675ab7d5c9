/* SPDX-License-Identifier: MIT */
/* help: the subcommands' --help texts, kept deflated in the executable (help_texts.h, mkhelp.c). */
#ifndef WW_HELP_H
#define WW_HELP_H

enum help_id {
#define HELP_TEXT(id, text) id,
#include "help_texts.h"
#undef HELP_TEXT
	HELP_COUNT
};

/* Text `id`, NUL-terminated, valid until exit. The first call inflates all of them (a few
 * microseconds) into a static buffer; if zlib cannot (out of memory), it says so and exits 1. */
const char *help_get(enum help_id id);

/* help_data.c, written by mkhelp (for help.c only): the texts one after the other, each with its
 * NUL, deflated; where each starts (help__at[HELP_COUNT] is the whole length); room for them. */
extern const unsigned char help__z[];
extern const unsigned long help__zlen;
extern const unsigned help__at[HELP_COUNT + 1];
extern char help__text[];

#endif
