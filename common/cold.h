/* SPDX-License-Identifier: MIT */
/* cold: WW_COLD marks a function that runs once a process or only on a failure (a command's argument
 * parsing and set-up, --help, loading a file at start, reporting an error). gcc and clang then
 * optimize it for size, and lay out the calls to it as the unlikely path; the functions that only it
 * calls follow. Nothing the rules, the server's command path or a screen redraw runs is marked.
 * WW_NOINLINE keeps a small helper out of line where its many inlined copies are code that no hot
 * path runs (a client's decoding of updates). */
#ifndef WW_COLD_H
#define WW_COLD_H

#if defined(__GNUC__) || defined(__clang__)
#define WW_COLD __attribute__((cold))
#define WW_NOINLINE __attribute__((noinline))
#else
#define WW_COLD
#define WW_NOINLINE
#endif

#endif
