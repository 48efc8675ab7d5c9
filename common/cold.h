/* SPDX-License-Identifier: MIT */
/* cold: WW_COLD marks a function that runs once a process or only on a failure (a command's argument
 * parsing and set-up, --help, loading a file at start, reporting an error). gcc and clang then
 * optimize it for size, and lay out the calls to it as the unlikely path; the functions that only it
 * calls follow. Nothing the rules, the server's command path or a screen redraw runs is marked. */
#ifndef WW_COLD_H
#define WW_COLD_H

#if defined(__GNUC__) || defined(__clang__)
#define WW_COLD __attribute__((cold))
#else
#define WW_COLD
#endif

#endif
