/* SPDX-License-Identifier: MIT */
/* terminfo: TERM checked with setupterm, which reports, where initscr exits from inside ncurses. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

#include "cli.h"
#include "terminfo.h"

bool
terminfo_check(void)
{
	int err = 0;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		const char *term = getenv("TERM");
		cli_error("the terminal type '%s' (TERM) is not in the terminfo database%s\n",
		        term && term[0] ? term : "(unset)", err == -1 ? " (no terminfo database was found)" : "");
		return false;
	}
	del_curterm(cur_term); /* initscr reads it again */
	return true;
}
