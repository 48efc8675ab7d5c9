/* SPDX-License-Identifier: MIT */
/* help: inflates the --help texts that mkhelp deflated at build time (help_data.c). */
#include <stdio.h>
#include <stdlib.h>

#include <zlib.h>

#include "help.h"

const char *
help_get(enum help_id id)
{
	static int ready;

	if (!ready) {
		uLongf n = help__at[HELP_COUNT];
		if (uncompress((Bytef *)help__text, &n, help__z, help__zlen) != Z_OK || n != help__at[HELP_COUNT]) {
			fputs("wizwar: cannot inflate the help texts (out of memory?)\n", stderr);
			exit(1);
		}
		ready = 1;
	}
	return help__text + help__at[id];
}
