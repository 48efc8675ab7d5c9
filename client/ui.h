/* SPDX-License-Identifier: MIT */
/* ui: ncursesw drawing of a struct state: the map with FoV, both wizards' HP, spells, potions, actions, log, prompt. */
#ifndef WW_UI_H
#define WW_UI_H

#include "cold.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "app.h"
#include "keys.h"
#include "state.h"

#define UI_MIN_COLS 80
#define UI_MIN_ROWS 24
#define UI_SIDE_MIN 54 /* columns right of the map: HP, spells, potions, actions, log */

/* One terminal. Caller-owned: ui_init(), then ui_start()/ui_stop() around its use. */
struct ui {
	/* private */
	const struct keys *keys;
	bool started;
	bool colour;     /* has_colors() and NO_COLOR unset or empty */
	bool grey;       /* a 256-colour terminal: remembered cells in grey rather than A_DIM */
	bool nodim;      /* no dim attribute (TERM=linux): remembered cells in blue */
	bool bytes;      /* a locale without multibyte characters (LANG=C): keys read as bytes, UTF-8 decoded here */
	unsigned char pend[4]; /* bytes of a UTF-8 character still being typed */
	int npend;
	bool invalid;    /* repaint everything on the next draw */
	int rows, cols;
	void *file_screen; /* ui_start_file()'s SCREEN, drawing into a file rather than a terminal */
	FILE *file_in;
	void *off_screen;  /* ui_start_offscreen()'s SCREEN */
};

void ui_init(struct ui *ui, const struct keys *keys);
/* Enter curses mode (the alternate screen, cbreak, no echo, keypad, non-blocking reads). Also sets
 * the last-resort restores: atexit, and SIGSEGV/SIGABRT/SIGBUS/SIGFPE/SIGILL handlers that put the
 * terminal back before the process dies. Returns 0, or -1 when stdin/stdout are not a terminal. */
WW_COLD int ui_start(struct ui *ui);
/* Draw into `out` (a file with a descriptor, such as tmpfile()) instead of the terminal: curses as it
 * would drive a terminal of type `term` and cols x rows, with the same drawing code, so that what a
 * refresh writes there is what the client writes to such a terminal. For `replay --asciicast`, whose
 * output events are those bytes. The file screen is the process's current curses screen until
 * ui_stop(). Returns 0, or -1 when curses cannot make the screen (an unknown `term`). */
WW_COLD int ui_start_file(struct ui *ui, FILE *out, const char *term, int cols, int rows);
void ui_stop(struct ui *ui);
void ui_draw(struct ui *ui, const struct state *st);
/* Re-read the terminal's size (after SIGWINCH). */
void ui_resize(struct ui *ui);
/* One key: a keys.h code, KEY_RESIZE, KEYS_NONE for something that is no key, APP_NOKEY for none. */
int ui_read_key(struct ui *ui);

/* An offscreen screen of rows x cols for terminal type `term` (the web page's, web/): ui_draw()
 * draws into it as into a terminal's, and ui_cell() reads each cell back, between
 * ui_offscreen_enter() and ui_offscreen_leave(). Needs a UTF-8 locale in force (uselocale) while
 * it starts and while it draws. One a process, made before any terminal's screen (ui_start(),
 * which may follow: `host --web`); 0, or -1 (made already, a terminal's screen first, or no such
 * terminal type). */
WW_COLD int ui_start_offscreen(struct ui *ui, const char *term, int rows, int cols);
/* Make the offscreen screen curses' current one; returns the one to give back to leave(). */
void *ui_offscreen_enter(struct ui *ui);
void ui_offscreen_leave(void *prev);
enum ui_cell_flag { UI_CELL_BOLD = 1, UI_CELL_DIM = 2, UI_CELL_REVERSE = 4, UI_CELL_UNDERLINE = 8 };
struct ui_cell {
	uint32_t ch;   /* a code point (the first of the cell) */
	uint8_t fg;    /* a colour: 0-7 the eight ANSI ones, 8-255 xterm's (the background is always black) */
	uint8_t flags; /* enum ui_cell_flag */
};
void ui_cell(const struct ui *ui, int y, int x, struct ui_cell *out);

/* The curses screen for app.c; ctx is a struct ui. */
extern const struct screen_ops ui_screen_ops;

#endif
