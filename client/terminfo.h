/* SPDX-License-Identifier: MIT */
/* terminfo: is the terminal type (TERM) known, asked before initscr, which would exit on an unknown one. */
#ifndef WW_TERMINFO_H
#define WW_TERMINFO_H

#include <stdbool.h>

/* True when terminfo knows $TERM for standard output; false after saying on stderr, with the
 * wizwar: prefix, what is wrong. A file of its own: <term.h> defines macros (lines, columns,
 * ...) that would clash with ordinary names elsewhere. */
bool terminfo_check(void);

#endif
