/* SPDX-License-Identifier: MIT */
/* ui: draws a struct state with ncursesw; peer text only through put_text(), which emits printable characters alone. */
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "cli.h"
#include "describe.h"
#include "help.h"
#include "look.h"
#include "potion.h"
#include "spell.h"
#include "terminfo.h"
#include "ui.h"

/* ---- last-resort terminal restore ----
 * The only statics of the client: a signal handler and atexit() get no context pointer (and curses
 * itself is one per process). What the handler does is async-signal-safe: tcsetattr() and write() of bytes captured at start-up. */

static struct termios saved_tio;
static bool saved_tio_ok;
static volatile sig_atomic_t screen_active;
static char restore_seq[128];
static size_t restore_len;
static bool curses_began; /* initscr() ran: curses is one per process, a second screen resumes it */
static bool offscreen_began; /* ui_start_offscreen() ran: one a process, made before the terminal's */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void
fatal_restore(int sig)
{
	if (screen_active) {
		if (restore_len)
			(void)!write(STDOUT_FILENO, restore_seq, restore_len);
		if (saved_tio_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
		screen_active = 0;
	}
	/* SA_RESETHAND put the default action back: die of the same signal. */
	raise(sig);
}

static void
atexit_restore(void)
{
	if (screen_active && !isendwin())
		endwin();
	screen_active = 0;
}

static void
capture(const char *cap)
{
	char *s = tigetstr((char *)cap);
	size_t n;

	if (s == NULL || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore_len + n < sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

/* ---- colours and attributes ---- */

enum pair {
	CP_WHITE = 1,
	CP_RED,
	CP_YELLOW,
	CP_BLUE,
	CP_GREEN,
	CP_ORANGE,
	CP_CYAN,
	CP_MAGENTA,
	CP_GREY,
};

enum role {
	R_TEXT,
	R_CELL,     /* floor and wall in sight */
	R_MEMORY,   /* remembered, not in sight */
	R_ME,
	R_OPP,
	R_OPP_OLD,  /* where the opponent was last seen or sensed */
	R_TITLE,
	R_KEY,
	R_CHAT,
	R_SYSTEM,
	R_DIMTEXT,
	R_STATUS,
	R_FRAME,
};

static attr_t
role_attr(const struct ui *ui, int role)
{
	if (!ui->colour) {
		static const attr_t mono[] = {
			[R_TEXT] = A_NORMAL, [R_CELL] = A_NORMAL, [R_MEMORY] = A_DIM, [R_ME] = A_BOLD,
			[R_OPP] = A_REVERSE, [R_OPP_OLD] = A_REVERSE | A_DIM, [R_TITLE] = A_BOLD, [R_KEY] = A_BOLD,
			[R_CHAT] = A_NORMAL, [R_SYSTEM] = A_DIM, [R_DIMTEXT] = A_DIM, [R_STATUS] = A_BOLD,
			[R_FRAME] = A_NORMAL,
		};
		return mono[role];
	}
	switch (role) {
	case R_CELL:
		return COLOR_PAIR(CP_WHITE);
	case R_MEMORY:
		/* Grey where there are 256 colours; else blue (colours_init): dim white looks exactly like
		 * white on the Linux console. */
		return ui->grey ? COLOR_PAIR(CP_GREY) : ui->nodim ? COLOR_PAIR(CP_BLUE) : COLOR_PAIR(CP_WHITE) | A_DIM;
	case R_ME:
		return COLOR_PAIR(CP_WHITE) | A_BOLD;
	case R_OPP:
		return COLOR_PAIR(CP_RED) | A_BOLD;
	case R_OPP_OLD:
		return COLOR_PAIR(CP_RED) | A_DIM;
	case R_TITLE:
		return COLOR_PAIR(CP_WHITE) | A_BOLD;
	case R_KEY:
		return COLOR_PAIR(CP_YELLOW) | A_BOLD;
	case R_CHAT:
		return COLOR_PAIR(CP_CYAN);
	case R_SYSTEM:
		return COLOR_PAIR(CP_MAGENTA);
	case R_DIMTEXT:
		return ui->grey ? COLOR_PAIR(CP_GREY) : COLOR_PAIR(CP_WHITE) | A_DIM;
	case R_STATUS:
		return COLOR_PAIR(CP_YELLOW) | A_BOLD;
	case R_FRAME:
		return COLOR_PAIR(CP_BLUE) | A_BOLD;
	default:
		return COLOR_PAIR(CP_WHITE);
	}
}

/* A potion's appearance colour. */
static attr_t
appear_attr(const struct ui *ui, int a)
{
	static const short pair[APPEARANCE_COUNT] = {
		[APPEAR_YELLOW] = CP_YELLOW, [APPEAR_BLUE] = CP_BLUE, [APPEAR_RED] = CP_RED,
		[APPEAR_GREEN] = CP_GREEN, [APPEAR_ORANGE] = CP_ORANGE,
	};
	if (!ui->colour || a < 0 || a >= APPEARANCE_COUNT)
		return A_BOLD;
	/* Bold brightens yellow and blue on eight-colour terminals; orange without 256 colours is
	 * the plain (brownish) yellow, told apart from the bold one. */
	return COLOR_PAIR(pair[a]) | (a == APPEAR_YELLOW || a == APPEAR_BLUE ? A_BOLD : 0);
}

static attr_t
fx_attr(const struct ui *ui, int fx)
{
	static const short pair[FX_COUNT] = {
		[FX_COLD] = CP_CYAN, [FX_FIRE] = CP_ORANGE, [FX_ELEC] = CP_YELLOW,
		[FX_ACID] = CP_GREEN, [FX_SONIC] = CP_WHITE, [FX_MAGIC] = CP_MAGENTA,
	};
	if (!ui->colour || fx <= 0 || fx >= FX_COUNT)
		return A_BOLD | A_REVERSE;
	return COLOR_PAIR(pair[fx]) | A_BOLD;
}

static void
colours_init(struct ui *ui, bool honour_no_color)
{
	const char *nc = honour_no_color ? getenv("NO_COLOR") : NULL;

	ui->colour = has_colors() && (nc == NULL || nc[0] == '\0');
	ui->grey = false;
	/* Without 256 colours there is no grey, and A_DIM is not to be trusted: the Linux console, for
	 * one, declares dim and shows it as plain white. Blue is distinct everywhere. */
	char *dim = tigetstr((char *)"dim");
	ui->nodim = dim == NULL || dim == (char *)-1 || COLORS < 256;
	if (!ui->colour)
		return;
	start_color();
	ui->grey = COLORS >= 256;
	short orange = COLORS >= 256 ? 208 : COLOR_YELLOW;
	/* The plan's black background. */
	init_pair(CP_WHITE, COLOR_WHITE, COLOR_BLACK);
	init_pair(CP_RED, COLOR_RED, COLOR_BLACK);
	init_pair(CP_YELLOW, COLOR_YELLOW, COLOR_BLACK);
	init_pair(CP_BLUE, COLOR_BLUE, COLOR_BLACK);
	init_pair(CP_GREEN, COLOR_GREEN, COLOR_BLACK);
	init_pair(CP_ORANGE, orange, COLOR_BLACK);
	init_pair(CP_CYAN, COLOR_CYAN, COLOR_BLACK);
	init_pair(CP_MAGENTA, COLOR_MAGENTA, COLOR_BLACK);
	init_pair(CP_GREY, ui->grey ? 243 : COLOR_WHITE, COLOR_BLACK);
	bkgdset(' ' | COLOR_PAIR(CP_WHITE));
}

/* ---- start and stop ---- */

void
ui_init(struct ui *ui, const struct keys *keys)
{
	memset(ui, 0, sizeof *ui);
	ui->keys = keys;
}

int
ui_start(struct ui *ui)
{
	struct sigaction sa;

	if (ui->started)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -1;
	saved_tio_ok = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
	if (curses_began) {
		/* A second screen in one process (the replay that the end of a duel offers): curses
		 * resumes after endwin() with a refresh; a second initscr() is not allowed. */
		reset_prog_mode();
		refresh();
	} else {
		if (!terminfo_check()) /* before initscr, which would exit on an unknown TERM */
			return -1;
		if (initscr() == NULL)
			return -1;
		/* A terminal that cannot move the cursor (TERM=dumb) cannot show a map: say so, plainly. */
		char *cup = tigetstr((char *)"cup");
		if (cup == NULL || cup == (char *)-1) {
			endwin();
			const char *t = getenv("TERM");
			cli_error("this terminal (TERM=%s) cannot move the cursor; the game needs a full-screen "
			    "terminal such as xterm, screen, tmux or linux\n", t && t[0] ? t : "unset");
			return -1;
		}
		/* One frame, one write: ncurses (from 6.0's patch 20170722) flushes its output at
		 * every cursor move until its screen has been through endwin() once, so a frame left
		 * in some 40 writes, a row or two each, and a terminal (or a tmux capture) between two
		 * of them showed the new header ("your move") over the old map ("waiting..."): both
		 * drawn from the same state, the map's rows not yet written. An endwin() and a refresh()
		 * before anything is drawn make it buffer a frame whole ((2 + rows) * (6 + columns)
		 * bytes: a turn's frame in one write, a full repaint in two). typeahead(-1): nor does
		 * it poll for a key every 5 rows and flush there when one waits. */
		typeahead(-1);
		endwin();
		refresh();
		curses_began = true;
		restore_len = 0;
		capture("sgr0");
		capture("cnorm");
		capture("rmcup");
		atexit(atexit_restore);
	}
	ui->started = true;
	screen_active = 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fatal_restore;
	sa.sa_flags = (int)SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		sigaction(fatal_signals[i], &sa, NULL);
	/* cbreak, not raw: Ctrl-C stays a signal, which the app turns into a clean exit. */
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25); /* Esc cancels at once; a user's ESCDELAY (read by ncurses) wins */
	curs_set(0);
	colours_init(ui, true);
	ui->bytes = MB_CUR_MAX == 1;
	ui->npend = 0;
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->invalid = true;
	return 0;
}

int
ui_start_file(struct ui *ui, FILE *out, const char *term, int cols, int rows)
{
	char num[16];
	SCREEN *s;

	if (ui->started)
		return 0;
	/* Not a terminal: curses takes the size from LINES and COLUMNS, read by newterm(). */
	snprintf(num, sizeof num, "%d", cols);
	setenv("COLUMNS", num, 1);
	snprintf(num, sizeof num, "%d", rows);
	setenv("LINES", num, 1);
	use_env(TRUE);
	if ((ui->file_in = fopen("/dev/null", "r")) == NULL)
		return -1;
	if ((s = newterm(term, out, ui->file_in)) == NULL) {
		fclose(ui->file_in);
		ui->file_in = NULL;
		return -1;
	}
	set_term(s);
	ui->file_screen = s;
	ui->started = true;
	/* What ui_start() sets that changes what is written (not how keys are read). */
	nonl();
	curs_set(0);
	colours_init(ui, false); /* a cast is watched elsewhere: this terminal's NO_COLOR is not its viewers' */
	ui->bytes = MB_CUR_MAX == 1;
	getmaxyx(stdscr, ui->rows, ui->cols);
	if (ui->rows != rows || ui->cols != cols)
		resizeterm(rows, cols);
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->invalid = true;
	return 0;
}

void
ui_stop(struct ui *ui)
{
	if (!ui->started)
		return;
	if (ui->file_screen) {
		endwin();
		delscreen(ui->file_screen);
		fclose(ui->file_in);
		ui->file_screen = NULL;
		ui->file_in = NULL;
		ui->started = false;
		return;
	}
	curs_set(1);
	endwin();
	ui->started = false;
	screen_active = 0;
}

void
ui_resize(struct ui *ui)
{
	struct winsize ws;

	if (!ui->started)
		return;
	/* libuv owns SIGWINCH, so curses did not see it: tell curses the new size. */
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
	    is_term_resized(ws.ws_row, ws.ws_col))
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, ui->rows, ui->cols);
	ui->invalid = true;
}

/* LANG=C: curses' get_wch() stalls for good on the first byte over 0x7f (it never forms a character in
 * that locale), and every key after it is lost. So bytes are read one by one and a UTF-8 character
 * (what terminals send whatever the locale) is put together here; a broken one becomes U+FFFD. */
static int
read_byte_key(struct ui *ui)
{
	for (;;) {
		int c = getch();
		if (c == ERR)
			return APP_NOKEY;
		if (c == KEY_RESIZE)
			return KEY_RESIZE;
		if (c < 0x80 || c > 0xff) {
			ui->npend = 0;
			return keys_code_from_wch(c > 0xff ? KEY_CODE_YES : OK, (unsigned)c);
		}
		ui->pend[ui->npend++] = (unsigned char)c;
		uint32_t cp;
		size_t n = state_utf8_next((const char *)ui->pend, (size_t)ui->npend, &cp);
		if (n == (size_t)ui->npend) {
			ui->npend = 0;
			return keys_code_from_wch(OK, cp);
		}
		/* Incomplete so far: wait for the rest, unless it can no longer become a character. */
		bool lead_ok = ui->pend[0] >= 0xc2 && ui->pend[0] <= 0xf4;
		int want = ui->pend[0] < 0xe0 ? 2 : ui->pend[0] < 0xf0 ? 3 : 4;
		bool cont_ok = ui->npend == 1 || (c & 0xc0) == 0x80;
		if (!lead_ok || !cont_ok || ui->npend >= want) {
			ui->npend = 0;
			return keys_code_from_wch(OK, 0xfffd);
		}
	}
}

int
ui_read_key(struct ui *ui)
{
	wint_t wc;
	int rc;

	if (!ui->started)
		return APP_NOKEY;
	if (ui->bytes)
		return read_byte_key(ui);
	rc = get_wch(&wc);
	if (rc == ERR)
		return APP_NOKEY;
	if (rc == KEY_CODE_YES && wc == KEY_RESIZE)
		return KEY_RESIZE;
	return keys_code_from_wch(rc, (unsigned)wc);
}

/* ---- text ---- */

/* Columns a code point takes, or -1 when it must not be drawn. */
static int
cp_cols(uint32_t cp)
{
	if (!state_printable(cp))
		return -1;
	int w = wcwidth((wchar_t)cp);
	/* Printable, but not in this locale (LANG=C): shown as a one-column stand-in, never dropped. */
	return w < 0 ? 1 : w;
}

/* What is drawn for a printable code point: itself, or '?' where the locale cannot show it. */
static wchar_t
cp_glyph(uint32_t cp)
{
	return wcwidth((wchar_t)cp) < 0 ? L'?' : (wchar_t)cp;
}

#define UI_CUT_MARK L'\u2026' /* HORIZONTAL ELLIPSIS */

/* What ends a text cut to fit: an ellipsis where the locale shows one, else '>'. A cut is
 * always seen, never a word that silently stops (the 80x24 screen test looks for it). */
static wchar_t
cut_mark(void)
{
	return wcwidth(UI_CUT_MARK) == 1 ? UI_CUT_MARK : L'>';
}

/* Draw UTF-8 text at (y, x), at most w columns, printable characters only; a broken byte is
 * skipped. Every string a peer could have chosen (names, chat) reaches the terminal through
 * here. Text longer than w ends in the cut mark. Returns the columns used. */
static int
put_text(int y, int x, int w, const char *s, attr_t attr)
{
	wchar_t wbuf[512];
	int cols[512];
	int n = 0, used = 0;
	bool cut = false;
	size_t len = strlen(s);

	/* Room is kept for the cut mark and the NUL. */
	for (size_t i = 0; i < len && n < (int)(sizeof wbuf / sizeof wbuf[0]) - 2;) {
		uint32_t cp;
		size_t k = state_utf8_next(s + i, len - i, &cp);
		if (k == 0) {
			i++;
			continue;
		}
		i += k;
		int cw = cp_cols(cp);
		if (cw < 0 || (cw == 0 && n == 0))
			continue;
		if (used + cw > w) {
			cut = true;
			break;
		}
		cols[n] = cw;
		wbuf[n++] = cp_glyph(cp);
		used += cw;
	}
	if (cut && w > 0) {
		while (n > 0 && used + 1 > w)
			used -= cols[--n];
		wbuf[n++] = cut_mark();
		used++;
	}
	if (n == 0 || w <= 0)
		return 0;
	wbuf[n] = L'\0';
	attron(attr);
	mvaddnwstr(y, x, wbuf, n);
	attroff(attr);
	return used;
}

static int
text_cols(const char *s)
{
	int used = 0;
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t k = state_utf8_next(s + i, len - i, &cp);
		if (k == 0) {
			i++;
			continue;
		}
		i += k;
		int cw = cp_cols(cp);
		if (cw > 0)
			used += cw;
	}
	return used;
}

/* Columns of s[from, to). */
static int
cols_between(const char *s, size_t from, size_t to)
{
	char buf[STATE_TEXT_MAX + 80];
	size_t n = to - from < sizeof buf ? to - from : sizeof buf - 1;

	memcpy(buf, s + from, n);
	buf[n] = '\0';
	return text_cols(buf);
}

/* Split s into lines of at most w columns, at spaces where possible. Fills up to max (start,
 * length) byte pairs (lines may be NULL); returns the number of lines the whole text needs. */
static int
wrap(const char *s, int w, int (*lines)[2], int max)
{
	size_t len = strlen(s), start = 0, i = 0, brk = 0;
	int n = 0, col = 0;
	bool have_brk = false;

	if (w < 1)
		w = 1;
	while (i < len) {
		uint32_t cp = 0;
		size_t k = state_utf8_next(s + i, len - i, &cp);
		int cw = k ? cp_cols(cp) : 0;
		if (k == 0)
			k = 1;
		if (cw < 0)
			cw = 0;
		if (col + cw > w && i > start) {
			size_t end = have_brk ? brk : i, next = have_brk ? brk + 1 : i;
			if (lines && n < max) {
				lines[n][0] = (int)start;
				lines[n][1] = (int)(end - start);
			}
			n++;
			start = next;
			have_brk = false;
			col = cols_between(s, start, i);
			continue;
		}
		if (cp == ' ' && k == 1 && i > start) {
			brk = i;
			have_brk = true;
		}
		col += cw;
		i += k;
	}
	if (i > start || n == 0) {
		if (lines && n < max) {
			lines[n][0] = (int)start;
			lines[n][1] = (int)(len - start);
		}
		n++;
	}
	return n;
}

/* put_text on a byte range. */
static int
put_range(int y, int x, int w, const char *s, int off, int len, attr_t attr)
{
	char buf[STATE_NOTE_MAX];

	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof buf)
		len = (int)sizeof buf - 1;
	memcpy(buf, s + off, (size_t)len);
	buf[len] = '\0';
	return put_text(y, x, w, buf, attr);
}

static void
hline_at(int y, int x, int w, attr_t attr)
{
	attron(attr);
	mvhline(y, x, ACS_HLINE, w);
	attroff(attr);
}

static const char *
key1(const struct ui *ui, int action, char *buf, size_t len)
{
	const struct keys_binding *b = ui->keys ? keys_get(ui->keys, action, 0) : NULL;

	buf[0] = '\0';
	if (b)
		keys_label(b->code, buf, len);
	if (buf[0] == '\0')
		snprintf(buf, len, "-");
	return buf;
}

/* The move keys in short: "1-9" for the plan's keypad, else the eight first keys. */
static const char *
move_keys(const struct ui *ui, char *buf, size_t len)
{
	bool digits = ui->keys != NULL;
	size_t off = 0;

	for (int a = ACTION_MOVE_N; a <= ACTION_MOVE_NW && digits; a++) {
		bool found = false;
		for (unsigned i = 0; i < keys_count(ui->keys, a); i++)
			if (keys_get(ui->keys, a, i)->code == '0' + keys_dir(a))
				found = true;
		digits = found;
	}
	if (digits) {
		snprintf(buf, len, "1-9");
		return buf;
	}
	buf[0] = '\0';
	for (int a = ACTION_MOVE_N; a <= ACTION_MOVE_NW; a++) {
		char k[KEYS_NAME_MAX];
		key1(ui, a, k, sizeof k);
		/* Single characters run together ("kulnjbhy"); longer labels are spaced. */
		int n = snprintf(buf + off, len - off, "%s%s", off && strlen(k) > 1 ? " " : "", k);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

/* ---- the map ---- */

struct layout {
	int mapw, maph;   /* the map pane, frame included */
	bool bottom;      /* the frame's bottom row fits */
	int vw, vh;       /* the viewport onto the level's inside */
	int offx, offy;   /* level cell shown at the viewport's top-left */
	bool scrolled;
	int sx, sw;       /* the side panel's first column and width */
};

static int
clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The outer ring of a level is always wall, so the pane's frame stands for it and the viewport
 * shows the inside, cells 1..size-2: a 25x25 level is a 23x23 inside in a 25-column frame. */
static void
layout_of(const struct ui *ui, const struct state *st, struct layout *L)
{
	int size = st->have_view ? st->view.opt.size : LEVEL_DEFAULT;
	int inner = size - 2;
	const struct view *v = st->anim ? &st->prev : &st->view;

	memset(L, 0, sizeof *L);
	L->mapw = size < ui->cols - UI_SIDE_MIN - 1 ? size : ui->cols - UI_SIDE_MIN - 1;
	L->bottom = ui->rows >= size;
	L->maph = L->bottom ? size : ui->rows;
	L->vw = L->mapw - 2;
	L->vh = L->maph - 1 - (L->bottom ? 1 : 0);
	if (L->vw > inner)
		L->vw = inner;
	if (L->vh > inner)
		L->vh = inner;
	/* Keep the player (or the look cursor) in view, centred where the level is larger than the pane. */
	int cx = st->mode == MODE_LOOK ? st->look_x : v->x, cy = st->mode == MODE_LOOK ? st->look_y : v->y;
	L->offx = L->vw >= inner ? 1 : clampi(cx - L->vw / 2, 1, size - 1 - L->vw);
	L->offy = L->vh >= inner ? 1 : clampi(cy - L->vh / 2, 1, size - 1 - L->vh);
	L->scrolled = L->vw < inner || L->vh < inner;
	L->sx = L->mapw + 1;
	L->sw = ui->cols - L->sx;
}

static void
put_cell(int y, int x, chtype ch, attr_t attr)
{
	mvaddch(y, x, ch | attr);
}

static void
draw_map(const struct ui *ui, const struct state *st, const struct layout *L)
{
	/* Steps 2-4 of the plan's "After Turn" draw the old layout and items under the new effects. */
	const struct view *v = st->anim ? &st->prev : &st->view;
	int size = st->have_view ? v->opt.size : LEVEL_DEFAULT;
	attr_t frame = role_attr(ui, R_FRAME);
	char title[48];

	attron(frame);
	mvaddch(0, 0, ACS_ULCORNER);
	mvhline(0, 1, ACS_HLINE, L->mapw - 2);
	mvaddch(0, L->mapw - 1, ACS_URCORNER);
	mvvline(1, 0, ACS_VLINE, L->vh);
	mvvline(1, L->mapw - 1, ACS_VLINE, L->vh);
	if (L->bottom) {
		mvaddch(L->vh + 1, 0, ACS_LLCORNER);
		mvhline(L->vh + 1, 1, ACS_HLINE, L->mapw - 2);
		mvaddch(L->vh + 1, L->mapw - 1, ACS_LRCORNER);
	}
	attroff(frame);
	/* Scrolled, the title says which part of the level is in view (columns and rows, from 1). */
	if (L->scrolled)
		snprintf(title, sizeof title, " %dx%d x%d-%d y%d-%d ", size, size, L->offx, L->offx + L->vw - 1, L->offy,
		    L->offy + L->vh - 1);
	else
		snprintf(title, sizeof title, " %dx%d ", size, size);
	put_text(0, 2, L->mapw - 4, title, role_attr(ui, R_TITLE));
	if (!st->have_view) {
		put_text(L->vh / 2, 2, L->vw, "waiting...", role_attr(ui, R_DIMTEXT));
		return;
	}
	for (int j = 0; j < L->vh; j++) {
		int y = L->offy + j;
		for (int i = 0; i < L->vw; i++) {
			int x = L->offx + i;
			uint8_t c = v->cell[y][x];
			bool seen = (c & VCELL_VISIBLE) != 0;
			chtype ch = ' ';
			attr_t a = role_attr(ui, seen ? R_CELL : R_MEMORY);
			switch (c & ~VCELL_VISIBLE) {
			case VCELL_WALL:
				ch = '#';
				break;
			case VCELL_FLOOR:
				ch = '.';
				break;
			default:
				ch = ' ';
				break;
			}
			/* Potions over empty tiles. */
			if (v->potion[y][x]) {
				ch = '!';
				a = appear_attr(ui, v->potion[y][x] - 1) | (seen ? 0 : A_DIM);
			}
			put_cell(1 + j, 1 + i, ch, a);
		}
	}
	/* Players over potions: the opponent where seen or last known, then me. */
	int px = v->x - L->offx, py = v->y - L->offy;
	if (v->opp_state != OPP_UNKNOWN) {
		int ox = v->opp_x - L->offx, oy = v->opp_y - L->offy;
		if (ox >= 0 && oy >= 0 && ox < L->vw && oy < L->vh)
			put_cell(1 + oy, 1 + ox, '@', role_attr(ui, v->opp_state == OPP_REMEMBERED ? R_OPP_OLD : R_OPP));
	}
	/* A spectator's shared view shows wizard 0 only where player 1 knows it. */
	if (st->me_state != OPP_UNKNOWN && px >= 0 && py >= 0 && px < L->vw && py < L->vh)
		put_cell(1 + py, 1 + px, '@', role_attr(ui, st->me_state == OPP_REMEMBERED ? R_OPP_OLD : R_ME));
	/* Effects over everything. */
	for (int k = 0; k < st->nfx && st->anim; k++) {
		int fx = st->fx[k].x - L->offx, fy = st->fx[k].y - L->offy;
		if (fx >= 0 && fy >= 0 && fx < L->vw && fy < L->vh)
			put_cell(1 + fy, 1 + fx, '*', fx_attr(ui, st->fx[k].fx));
	}
	/* The look cursor: the square in reverse video (seen without colour too). */
	if (st->mode == MODE_LOOK) {
		int lx = st->look_x - L->offx, ly = st->look_y - L->offy;
		if (lx >= 0 && ly >= 0 && lx < L->vw && ly < L->vh)
			mvchgat(1 + ly, 1 + lx, 1, A_REVERSE | A_BOLD, 0, NULL);
	}
}

/* ---- the side panel ---- */

/* Draw "key desc" items left to right from (y, x), wrapping within w columns and max_rows rows.
 * Returns the rows used. */
struct item {
	char key[128];
	char text[64];
	attr_t attr;
};

static int
draw_items(const struct ui *ui, int y, int x0, int w, int max_rows, const struct item *it, int n, bool draw)
{
	int row = 0, x = x0;

	for (int i = 0; i < n; i++) {
		int need = text_cols(it[i].key) + (it[i].key[0] ? 1 : 0) + text_cols(it[i].text);
		if (x > x0 && x + need > x0 + w) {
			row++;
			x = x0;
		}
		if (row >= max_rows) {
			/* What does not fit is not dropped unseen: the last row ends in the cut mark. */
			if (draw) {
				wchar_t mark[2] = { cut_mark(), L'\0' };
				mvaddnwstr(y + max_rows - 1, x0 + w - 1, mark, 1);
			}
			return max_rows;
		}
		if (draw) {
			if (it[i].key[0]) {
				x += put_text(y + row, x, x0 + w - x, it[i].key, role_attr(ui, R_KEY));
				x += 1;
			}
			x += put_text(y + row, x, x0 + w - x, it[i].text, it[i].attr);
		} else {
			x += need;
		}
		x += 2;
	}
	return row + 1;
}

static int
actions_items(const struct ui *ui, const struct state *st, struct item *it)
{
	const struct view *v = &st->view;
	bool mine = state_my_turn(st), over = st->have_view && v->result != RESULT_NONE;
	bool potion = st->have_view && v->potion[v->y][v->x] != 0;
	attr_t t = role_attr(ui, R_TEXT);
	int n = 0;

#define ITEM(k, ...) do { snprintf(it[n].key, sizeof it[n].key, "%s", k); \
		snprintf(it[n].text, sizeof it[n].text, __VA_ARGS__); it[n].attr = t; n++; } while (0)
	char k[KEYS_NAME_MAX], k2[KEYS_NAME_MAX], k3[KEYS_NAME_MAX], km[112];
	if (mine) {
		if (v->steps_left > 0)
			ITEM(move_keys(ui, km, sizeof km), "move");
		snprintf(km, sizeof km, "%s %s %s", key1(ui, ACTION_CAST_1, k, sizeof k),
		    key1(ui, ACTION_CAST_2, k2, sizeof k2), key1(ui, ACTION_CAST_3, k3, sizeof k3));
		ITEM(km, "cast");
		if (potion) {
			ITEM(key1(ui, ACTION_DRINK, k, sizeof k), "drink");
			if (v->ninv < INV_MAX)
				ITEM(key1(ui, ACTION_PICKUP, k, sizeof k), "pick up");
		}
		if (v->ninv > 0)
			ITEM(key1(ui, ACTION_INVENTORY, k, sizeof k), "quaff");
		ITEM(key1(ui, ACTION_END_TURN, k, sizeof k), "end turn");
	}
	ITEM(key1(ui, ACTION_CHAT, k, sizeof k), "chat");
	ITEM(key1(ui, ACTION_HELP, k, sizeof k), "help");
	ITEM(key1(ui, ACTION_DESCRIBE, k, sizeof k), "spells");
	ITEM(key1(ui, ACTION_LOOK, k, sizeof k), "look");
	snprintf(km, sizeof km, "%s%s", key1(ui, ACTION_LOG_UP, k, sizeof k), key1(ui, ACTION_LOG_DOWN, k2, sizeof k2));
	ITEM(km, "log");
	ITEM(key1(ui, ACTION_QUIT, k, sizeof k), "%s", over || st->offline ? "leave" : "quit");
#undef ITEM
	return n;
}

static int
potion_items(const struct ui *ui, const struct state *st, struct item *it)
{
	const struct view *v = &st->view;
	int n = 0;

	for (int i = 0; i < v->ninv && i < INV_MAX; i++) {
		int a = v->inv[i];
		int kind = a < APPEARANCE_COUNT ? v->kind_of[a] : POTION_NONE;
		snprintf(it[n].key, sizeof it[n].key, "%d", i + 1);
		/* The kind where I have identified it, else what it looks like; always in its colour. */
		if (kind != POTION_NONE)
			snprintf(it[n].text, sizeof it[n].text, "%s", potion_name(kind));
		else
			snprintf(it[n].text, sizeof it[n].text, "%s", appearance_name(a));
		it[n].attr = appear_attr(ui, a);
		n++;
	}
	return n;
}

static void
draw_header(const struct ui *ui, const struct state *st, int y, int x, int w)
{
	const struct view *v = &st->view;
	char buf[160];
	int me = st->allseeing ? 0 : !st->have_view && st->seat >= 0 ? st->seat : v->me, opp = 1 - me;
	int col = x;

	/* Step 6 of "After Turn": HP changes only when the new view comes in. */
	col += put_text(y, col, 18, st->name[me], role_attr(ui, R_ME));
	snprintf(buf, sizeof buf, " HP %d/%d", st->have_view ? v->hp : WIZARD_HP, WIZARD_HP);
	col += put_text(y, col, x + w - col, buf, role_attr(ui, R_TEXT));
	col += put_text(y, col, x + w - col, "   vs   ", role_attr(ui, R_DIMTEXT));
	if (!st->have_view && !st->named[opp]) {
		/* A room waiting for its second player: say so rather than leave a blank after "vs". */
		put_text(y, col, x + w - col, "no opponent yet", role_attr(ui, R_DIMTEXT));
		return;
	}
	col += put_text(y, col, 18, st->name[opp], role_attr(ui, R_OPP));
	snprintf(buf, sizeof buf, " HP %d/%d", st->have_view ? v->opp_hp : WIZARD_HP, WIZARD_HP);
	col += put_text(y, col, x + w - col, buf, role_attr(ui, R_TEXT));
	/* A player sees whether anyone watches (a spectator's count is on its own status line). */
	if (st->spect_off)
		put_text(y, col, x + w - col, "   no spectators", role_attr(ui, R_DIMTEXT));
	else if (st->watchers > 0) {
		snprintf(buf, sizeof buf, "   %d watching", st->watchers);
		put_text(y, col, x + w - col, buf, role_attr(ui, R_DIMTEXT));
	}
}

static void
draw_turn(const struct ui *ui, const struct state *st, int y, int x, int w)
{
	const struct view *v = &st->view;
	char buf[256];
	int n, col;

	if (!st->have_view) {
		put_text(y, x, w, "Waiting for the duel to start.", role_attr(ui, R_DIMTEXT));
		return;
	}
	if (v->result != RESULT_NONE) {
		state_result_text(st, buf, sizeof buf);
		put_text(y, x, w, buf, role_attr(ui, R_STATUS));
		return;
	}
	/* Rounds, both wizards' turns each, as a player counts them; whose move it is. */
	unsigned round = (unsigned)state_round_of(v->turn_no);
	if (st->allseeing)
		n = snprintf(buf, sizeof buf, "Round %u: %s to move", round, st->name[v->turn]);
	else if (v->turn == v->me)
		n = snprintf(buf, sizeof buf, "Round %u: your move, %d step%s left", round, v->steps_left,
		    v->steps_left == 1 ? "" : "s");
	else
		n = snprintf(buf, sizeof buf, "Round %u: %s's move", round, st->name[1 - v->me]);
	(void)n;
	col = x + put_text(y, x, w, buf, role_attr(ui, v->turn == v->me && !st->allseeing ? R_STATUS : R_TEXT));
	/* The clock, for whoever is to move; in the last ten seconds it stands out. */
	if (st->clock_left == STATE_CLOCK_UNKNOWN) {
		col += put_text(y, col, x + w - col, "  ?s", role_attr(ui, R_TEXT));
	} else if (st->clock_left >= 0) {
		bool hurry = st->clock_left <= 10;
		snprintf(buf, sizeof buf, "  %ds%s", st->clock_left, hurry && state_my_turn(st) ? " left!" : "");
		col += put_text(y, col, x + w - col, buf, role_attr(ui, hurry ? R_STATUS : R_TEXT));
	}
	/* My timed effects, while there is room: the turns they still act on, this one included. */
	for (int h = 0; h < HANDLER_COUNT; h++) {
		if (!(v->intrinsics & INTRINSIC(h)))
			continue;
		snprintf(buf, sizeof buf, "  %s %d", handler_name(h), state_effect_turns(st, h));
		if (col + text_cols(buf) > x + w)
			break;
		col += put_text(y, col, x + w - col, buf, role_attr(ui, R_CHAT));
	}
}

static int
draw_spells(const struct ui *ui, const struct state *st, int y, int x, int w)
{
	const struct view *v = &st->view;
	char k[KEYS_NAME_MAX], buf[96];
	int half = (w - 7) / 2;

	put_text(y, x, 7, "Spells", role_attr(ui, R_TITLE));
	if (st->spectator && st->have_view && v->result == RESULT_NONE && v->offered[0] == SPELL_NONE) {
		put_text(y, x + 7, w - 7, "not shown to spectators", role_attr(ui, R_DIMTEXT));
		return 1;
	}
	if (!state_my_turn(st) || st->allseeing) {
		if (st->allseeing && st->have_view && v->result == RESULT_NONE) {
			int col = x + 7;
			for (int i = 0; i < SPELL_OFFERED; i++) {
				snprintf(buf, sizeof buf, "%s%s", i ? ", " : "", spell_name(v->offered[i]));
				col += put_text(y, col, x + w - col, buf, role_attr(ui, R_TEXT));
			}
		} else {
			put_text(y, x + 7, w - 7, "offered on your move", role_attr(ui, R_DIMTEXT));
		}
		return 1;
	}
	for (int i = 0; i < SPELL_OFFERED; i++) {
		int row = i / 2, cx = x + 7 + (i % 2) * (half + 1);
		int col = cx;
		if (v->offered[i] == SPELL_NONE)
			continue;
		col += put_text(y + row, col, half, key1(ui, ACTION_CAST_1 + i, k, sizeof k), role_attr(ui, R_KEY));
		col++;
		snprintf(buf, sizeof buf, "%s%s", spell_name(v->offered[i]), spell_takes_dir(v->offered[i]) ? " (aim)" : "");
		put_text(y + row, col, cx + half - col, buf, role_attr(ui, R_TEXT));
	}
	return 2;
}

/* ---- the log ---- */

struct logline {
	int idx; /* the entry */
	int off, len;
};

#define LOGLINES_MAX 512

static attr_t
entry_attr(const struct ui *ui, const struct state *st, const struct log_entry *e)
{
	if (e->kind == LOG_CHAT)
		return role_attr(ui, R_CHAT);
	if (e->kind == LOG_SYSTEM)
		return role_attr(ui, R_SYSTEM);
	/* The previous round's messages are dimmer than the current round's. */
	return role_attr(ui, e->round < state_round(st) ? R_DIMTEXT : R_TEXT);
}

#define LOG_SHOWN_MAX 128 /* entries laid out at most: more than any screen holds */

static void
draw_log(const struct ui *ui, const struct state *st, int y, int x, int w, int h)
{
	char texts[LOG_SHOWN_MAX][STATE_TEXT_MAX + 80];
	const struct log_entry *ent[LOG_SHOWN_MAX];
	int nlines[LOG_SHOWN_MAX];
	bool keep[LOG_SHOWN_MAX];
	struct logline lines[LOGLINES_MAX];
	int ne = 0, total = 0, nl = 0;
	unsigned count = 0, skip;
	bool back = st->log_scroll > 0 || st->mode == MODE_HISTORY;

	hline_at(y, x, w, role_attr(ui, R_FRAME));
	put_text(y, x + 2, w - 4, back ? " Messages (history) " : " Messages ", role_attr(ui, R_TITLE));
	y++;
	h--;
	if (h <= 0)
		return;
	/* Normally the previous and the current round; scrolled back, the whole history kept. */
	while (back ? state_log_get(st, count) != NULL : state_log_visible(st, count) != NULL)
		count++;
	skip = count > LOG_SHOWN_MAX ? count - LOG_SHOWN_MAX : 0;
	for (unsigned i = skip; i < count; i++) {
		const struct log_entry *e = back ? state_log_get(st, i) : state_log_visible(st, i);
		state_log_text(st, e, texts[ne], sizeof texts[ne]);
		ent[ne] = e;
		nlines[ne] = wrap(texts[ne], w, NULL, 0);
		keep[ne] = true;
		total += nlines[ne];
		ne++;
	}
	/* Chat must not push game messages out of view: when the panel is full, the oldest chat and
	 * notes go first, and game messages only when nothing else is left. */
	bool dropped = false;
	if (!back) {
		for (int i = 0; i < ne - 1 && total > h; i++)
			if (ent[i]->kind != LOG_GAME) {
				keep[i] = false;
				total -= nlines[i];
				dropped = true;
			}
	}
	for (int i = 0; i < ne; i++) {
		int lw[32][2];
		if (!keep[i])
			continue;
		int n = wrap(texts[i], w, lw, 32);
		for (int j = 0; j < n && j < 32; j++) {
			if (nl == LOGLINES_MAX) {
				memmove(lines, lines + 1, sizeof lines - sizeof lines[0]);
				nl--;
			}
			lines[nl++] = (struct logline){ i, lw[j][0], lw[j][1] };
		}
	}
	/* The newest lines, or further back by log_scroll lines. */
	int end = nl - (back ? st->log_scroll : 0);
	if (end < h)
		end = h < nl ? h : nl;
	int first = end - h < 0 ? 0 : end - h;
	/* A panel that was full keeps its newest line at the foot, however many lines the notes
	 * dropped to make room took: no blank row under it, nor the rest shifted up behind an
	 * end box that covers the panel's top. */
	int pad = dropped && end - first < h ? h - (end - first) : 0;
	for (int r = 0; first + r < end; r++) {
		const struct logline *L = &lines[first + r];
		put_range(y + pad + r, x, w, texts[L->idx], L->off, L->len, entry_attr(ui, st, ent[L->idx]));
	}
}

/* ---- prompt, help, game over ---- */

static void
draw_prompt(struct ui *ui, const struct state *st, int y, int x, int w)
{
	char buf[STATE_TEXT_MAX + 64];
	int col;

	switch (st->mode) {
	case MODE_CHAT: {
		col = x + put_text(y, x, w, "Say: ", role_attr(ui, R_KEY));
		/* Show the end of a long line: the part being typed. */
		const char *s = st->chat;
		while (*s && text_cols(s) > x + w - col - 1) {
			uint32_t cp;
			size_t k = state_utf8_next(s, strlen(s), &cp);
			s += k ? k : 1;
		}
		col += put_text(y, col, x + w - col - 1, s, role_attr(ui, R_TEXT));
		move(y, col);
		curs_set(1);
		return;
	}
	case MODE_DIRECTION:
		snprintf(buf, sizeof buf, "%s: which way? (a move key; Esc cancels)",
		    spell_name(st->view.offered[st->dir_slot]));
		put_text(y, x, w, buf, role_attr(ui, R_STATUS));
		break;
	case MODE_INVENTORY:
		snprintf(buf, sizeof buf, "Quaff which potion? (1-%d; Esc cancels)", st->view.ninv);
		put_text(y, x, w, buf, role_attr(ui, R_STATUS));
		break;
	case MODE_LOOK: {
		/* Wrapped upwards over the end of the log, 4 rows at most: the whole line is read at 80x24. */
		char what[STATE_TEXT_MAX];
		int lines[4][2];
		look_text(st, st->look_x, st->look_y, what, sizeof what);
		snprintf(buf, sizeof buf, "Look: %s", what);
		int n = wrap(buf, w, lines, 4);
		if (n > 4)
			n = 4;
		for (int i = 0; i < n; i++) {
			move(y - n + 1 + i, x);
			clrtoeol();
			put_range(y - n + 1 + i, x, w, buf, lines[i][0], lines[i][1], role_attr(ui, R_STATUS));
		}
		break;
	}
	case MODE_QUIT:
		put_text(y, x, w, st->quit_by_interrupt ? "Forfeit and quit? y/^C yes, r forfeit but stay, n no" :
		    "Forfeit and quit? y yes, r forfeit but stay, n no", role_attr(ui, R_STATUS));
		break;
	default:
		if (st->status[0])
			put_text(y, x, w, st->status, role_attr(ui, R_STATUS));
		else if ((st->mode == MODE_OVER || st->offline) && !st->replay_line)
			put_text(y, x, w, st->offline ? "Disconnected: Q leaves." :
			    "Over: Q leaves, r rematch, m mirror, Enter chats.", role_attr(ui, R_DIMTEXT));
		break;
	}
	curs_set(0);
}

/* What the offered spells and my potions do, one line each, from common/describe.c. */
static void
draw_describe(const struct ui *ui, const struct state *st)
{
	const struct view *v = &st->view;
	char buf[200], k[KEYS_NAME_MAX];
	int y = 0, w = ui->cols - 4;

	put_text(y++, 2, w, "Your spells and potions (any key closes this)", role_attr(ui, R_TITLE));
	y++;
	put_text(y++, 2, w, state_my_turn(st) ? "Offered this turn:" : "Spells are offered on your move.", role_attr(ui, R_TITLE));
	for (int i = 0; i < SPELL_OFFERED && state_my_turn(st); i++) {
		if (v->offered[i] == SPELL_NONE)
			continue;
		snprintf(buf, sizeof buf, "%s %s: %s", key1(ui, ACTION_CAST_1 + i, k, sizeof k), spell_name(v->offered[i]),
		    spell_desc(v->offered[i]));
		int lw[3][2], n = wrap(buf, w, lw, 3);
		for (int j = 0; j < n && j < 3 && y < ui->rows; j++)
			put_range(y++, 2 + (j ? 4 : 0), w - (j ? 4 : 0), buf, lw[j][0], lw[j][1], role_attr(ui, R_TEXT));
	}
	y++;
	put_text(y++, 2, w, v->ninv ? "Carried:" : "You carry no potions.", role_attr(ui, R_TITLE));
	for (int i = 0; i < v->ninv && i < INV_MAX && y < ui->rows; i++) {
		int a = v->inv[i], kind = a < APPEARANCE_COUNT ? v->kind_of[a] : POTION_NONE;
		if (kind != POTION_NONE)
			snprintf(buf, sizeof buf, "%d %s (%s): %s", i + 1, potion_name(kind), appearance_name(a), potion_desc(kind));
		else
			snprintf(buf, sizeof buf, "%d %s: not identified; drinking it or Identify tells", i + 1, appearance_name(a));
		int lw[3][2], n = wrap(buf, w, lw, 3);
		for (int j = 0; j < n && j < 3 && y < ui->rows; j++)
			put_range(y++, 2 + (j ? 4 : 0), w - (j ? 4 : 0), buf, lw[j][0], lw[j][1], appear_attr(ui, a));
	}
	int a = st->have_view ? v->potion[v->y][v->x] : 0;
	if (a && y + 1 < ui->rows) {
		int kind = a - 1 < APPEARANCE_COUNT ? v->kind_of[a - 1] : POTION_NONE;
		snprintf(buf, sizeof buf, "Underfoot: %s %s potion: %s", state_article(appearance_name(a - 1)), appearance_name(a - 1),
		    kind != POTION_NONE ? potion_desc(kind) : "unknown");
		int lw[3][2], n = wrap(buf, w, lw, 3);
		for (int j = 0, uy = y + 1; j < n && j < 3 && uy < ui->rows; j++, uy++)
			put_range(uy, 2 + (j ? 4 : 0), w - (j ? 4 : 0), buf, lw[j][0], lw[j][1], appear_attr(ui, a - 1));
	}
}

static void
draw_help(const struct ui *ui, const struct state *st)
{
	char list[128];
	int rows = ui->rows, cols = ui->cols;

	erase();
	if (st->help_page == 1) {
		put_text(0, 2, cols - 4, "wizwar: how to fight (any key closes this)", role_attr(ui, R_TITLE));
		const char *s = help_get(HELP_FIGHT);
		for (int y = 2; *s && y < rows; y++) {
			const char *nl = strchr(s, '\n');
			int len = nl ? (int)(nl - s) : (int)strlen(s);
			put_range(y, 2, cols - 4, s, 0, len, role_attr(ui, R_TEXT));
			s += len + (nl ? 1 : 0);
		}
		return;
	}
	put_text(0, 2, cols - 4, st->help_text ? "wizwar: keys (any key closes this)" :
	    "wizwar: keys (? again: how to fight; any other key closes this)", role_attr(ui, R_TITLE));
	if (st->help_text) {
		const char *s = st->help_text;
		for (int y = 2; *s && y < rows; y++) {
			const char *nl = strchr(s, '\n');
			int len = nl ? (int)(nl - s) : (int)strlen(s);
			put_range(y, 2, cols - 4, s, 0, len, role_attr(ui, R_TEXT));
			s += len + (nl ? 1 : 0);
		}
		return;
	}
	/* Two columns of actions: keys, then what they do, wrapped under itself when long. */
	char rebind[300];
	keys_rebind_note(rebind, sizeof rebind);
	const char *notes[] = {
		"A spell marked (aim) asks for a move key; after the quaff key, 1-9 drinks.",
		"@ you, red @ the opponent, ! potions, * effects; dim: remembered.",
		rebind,
		st->lobby_help,
	};
	/* Every key must fit at 80x24 with the lobby's commands under them (the fit test checks). */
	int nnotes = st->lobby_help ? 4 : 3, colw = (cols - 4) / 2, keyw = 12, descw = colw - keyw - 2;
	int noterows = 0;
	for (int i = 0; i < nnotes; i++)
		noterows += wrap(notes[i], cols - 4, NULL, 0);
	int top = 1, bottom = rows - noterows - 1, y = top, x = 2;
	for (int a = 0; a < ACTION_COUNT; a++) {
		int lw[4][2], kw[4][2];
		const char *desc = keys_action_desc(a);
		keys_list(ui->keys, a, false, list, sizeof list);
		if (!list[0])
			snprintf(list, sizeof list, "(none)");
		/* The keys wrap in their column as the words do in theirs: no key is cut off. */
		int nd = wrap(desc, descw, lw, 4), nk = wrap(list, keyw, kw, 4);
		int n = nd > nk ? nd : nk;
		if (y + n > bottom && x == 2) {
			y = top;
			x = 2 + colw;
		}
		if (y + n > bottom) {
			put_text(bottom - 1, x + colw - 2, 1, "..", role_attr(ui, R_KEY)); /* the cut mark: more than fits */
			break;
		}
		for (int i = 0; i < nk && i < 4; i++)
			put_range(y + i, x, keyw, list, kw[i][0], kw[i][1], role_attr(ui, R_KEY));
		for (int i = 0; i < nd && i < 4; i++)
			put_range(y + i, x + keyw + 1, descw, desc, lw[i][0], lw[i][1], role_attr(ui, R_TEXT));
		y += n;
	}
	/* The notes under the keys, each wrapped at spaces rather than cut at the edge. */
	for (int i = 0, ny = rows - noterows; i < nnotes; i++) {
		int lw[4][2], n = wrap(notes[i], cols - 4, lw, 4);
		for (int j = 0; j < n && j < 4; j++)
			put_range(ny++, 2, cols - 4, notes[i], lw[j][0], lw[j][1], role_attr(ui, i == 3 ? R_KEY : R_DIMTEXT));
	}
}

/* The end: a box over the side panel's spells, potions and actions (which no longer matter), never
 * over the map, which now shows the whole level; the log below stays readable. Esc puts it away. */
static void
draw_over(const struct ui *ui, const struct state *st, const struct layout *L)
{
	char buf[200];
	int lw[10][2], nl, w, h, y = 1, x = L->sx;

	state_result_text(st, buf, sizeof buf);
	/* A replay shows the result in its status line and keeps its controls in view. */
	if (buf[0] == '\0' || st->mode != MODE_OVER || st->replay_line || st->over_hidden)
		return;
	w = L->sw;
	nl = st->over_note[0] ? wrap(st->over_note, w - 4, lw, 10) : 0;
	if (nl > 10)
		nl = 10;
	int rp = st->can_replay ? 1 : 0; /* a row offering the all-seeing replay */
	h = 5 + nl + 1 + rp;
	attron(role_attr(ui, R_FRAME));
	for (int r = 0; r < h; r++)
		mvhline(y + r, x, ' ', w);
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x + w - 1, ACS_URCORNER);
	mvaddch(y + h - 1, x, ACS_LLCORNER);
	mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
	mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
	attroff(role_attr(ui, R_FRAME));
	put_text(y, x + 2, w - 4, " GAME OVER ", role_attr(ui, R_TITLE));
	put_text(y + 1, x + 2, w - 4, buf, role_attr(ui, R_STATUS));
	for (int i = 0; i < nl; i++)
		put_range(y + 2 + i, x + 2, w - 4, st->over_note, lw[i][0], lw[i][1], role_attr(ui, R_TEXT));
	put_text(y + 2 + nl, x + 2, w - 4, st->revealed ? "The map shows the whole level." : "", role_attr(ui, R_DIMTEXT));
	if (rp)
		put_text(y + 3 + nl, x + 2, w - 4, "v replays the duel all-seeing: how it went", role_attr(ui, R_KEY));
	put_text(y + 3 + nl + rp, x + 2, w - 4, st->offline ? "" : "r rematch   m mirror: same level, seats swapped",
	    role_attr(ui, R_KEY));
	put_text(y + 4 + nl + rp, x + 2, w - 4, st->offline ? "Esc hides this   Q leaves" : "Esc hides this   Q leaves   Enter chats",
	    role_attr(ui, R_DIMTEXT));
}

void
ui_draw(struct ui *ui, const struct state *st)
{
	struct layout L;
	struct item items[24];
	int y, n, rows_pot, rows_act;

	if (!ui->started)
		return;
	getmaxyx(stdscr, ui->rows, ui->cols);
	if (ui->invalid) {
		clear(); /* erase and repaint everything on the next refresh */
		ui->invalid = false;
	}
	erase();
	if (ui->rows < UI_MIN_ROWS || ui->cols < UI_MIN_COLS) {
		char buf[96];
		snprintf(buf, sizeof buf, "The terminal is %dx%d; wizwar needs %dx%d.", ui->cols, ui->rows, UI_MIN_COLS,
		    UI_MIN_ROWS);
		put_text(ui->rows / 2, 0, ui->cols, buf, role_attr(ui, R_STATUS));
		curs_set(0);
		refresh();
		return;
	}
	if (st->mode == MODE_HISTORY || st->mode == MODE_DESCRIBE) {
		erase();
		if (st->mode == MODE_HISTORY) {
			put_text(0, 2, ui->cols - 4, "Message history: [ PgUp b back, ] PgDn space forward, any other key closes",
			    role_attr(ui, R_TITLE));
			draw_log(ui, st, 1, 1, ui->cols - 2, ui->rows - 1);
		} else {
			draw_describe(ui, st);
		}
		curs_set(0);
		refresh();
		return;
	}
	if (st->mode == MODE_HELP) {
		draw_help(ui, st);
		curs_set(0);
		refresh();
		return;
	}
	layout_of(ui, st, &L);
	draw_map(ui, st, &L);

	/* The side panel, top to bottom; the log takes what is left, the prompt the last row. A line
	 * to copy takes the screen's last row, whole width, while it matters: in the lobby (the map
	 * is empty) and while the end box is shown. */
	int x = L.sx, w = L.sw, last = ui->rows - 1;
	bool share = st->share[0] && !st->replay_line &&
	    (!st->have_view || (st->mode == MODE_OVER && !st->over_hidden));
	if (share) {
		move(last, 0);
		clrtoeol();
		put_text(last, 0, ui->cols, st->share, role_attr(ui, R_KEY));
		last--;
	}
	y = 0;
	draw_header(ui, st, y++, x, w);
	draw_turn(ui, st, y++, x, w);
	y += draw_spells(ui, st, y, x, w);
	put_text(y, x, 8, "Potions", role_attr(ui, R_TITLE));
	if (!st->have_view || !st->view.opt.potions) {
		put_text(y, x + 8, w - 8, st->have_view ? "none in this duel" : "", role_attr(ui, R_DIMTEXT));
		rows_pot = 1;
	} else if (st->view.ninv == 0) {
		/* A spectator is not shown what a wizard carries (but at the end, all of it). */
		put_text(y, x + 8, w - 8, st->spectator && st->view.result == RESULT_NONE ? "not shown to spectators" :
		         "none carried", role_attr(ui, R_DIMTEXT));
		rows_pot = 1;
	} else {
		n = potion_items(ui, st, items);
		rows_pot = draw_items(ui, y, x + 8, w - 8, 3, items, n, true);
	}
	y += rows_pot;
	if (st->replay_line) {
		/* Lines of its own, each wrapped; three rows at most. */
		const char *s = st->replay_line;
		rows_act = 0;
		while (*s && rows_act < 3) {
			char seg[STATE_TEXT_MAX];
			const char *nl = strchr(s, '\n');
			size_t len = nl ? (size_t)(nl - s) : strlen(s);
			int lw[3][2];
			if (len >= sizeof seg)
				len = sizeof seg - 1;
			memcpy(seg, s, len);
			seg[len] = '\0';
			int nlw = wrap(seg, w, lw, 3);
			for (int i = 0; i < nlw && i < 3 && rows_act < 3; i++, rows_act++)
				put_range(y + rows_act, x, w, seg, lw[i][0], lw[i][1], role_attr(ui, R_TEXT));
			s += len + (nl ? 1 : 0);
		}
	} else {
		n = actions_items(ui, st, items);
		/* Two rows, or three where a potion underfoot or rebound keys make more: every action
		 * the person can take is shown, the log gives up the row. */
		rows_act = draw_items(ui, y, x, w, 3, items, n, true);
	}
	y += rows_act;
	if (st->guide[0] && !st->replay_line && y + 2 < last) {
		/* The tutorial's advice: up to three rows of its own, above the log. */
		int lw[3][2];
		int nlw = wrap(st->guide, w, lw, 3);
		for (int i = 0; i < nlw && i < 3; i++)
			put_range(y++, x, w, st->guide, lw[i][0], lw[i][1], role_attr(ui, R_KEY));
	}
	draw_log(ui, st, y, x, w, last - y);
	draw_over(ui, st, &L);
	draw_prompt(ui, st, last, x, w);
	refresh();
}

/* ---- the screen seam ---- */

static int
scr_start(void *ctx)
{
	return ui_start(ctx);
}

static void
scr_stop(void *ctx)
{
	ui_stop(ctx);
}

static void
scr_draw(void *ctx, const struct state *st)
{
	ui_draw(ctx, st);
}

static void
scr_resize(void *ctx)
{
	ui_resize(ctx);
}

static void
scr_invalidate(void *ctx)
{
	((struct ui *)ctx)->invalid = true;
}

static int
scr_read_key(void *ctx)
{
	return ui_read_key(ctx);
}

static void
scr_flash(void *ctx)
{
	if (((struct ui *)ctx)->started)
		beep();
}

const struct screen_ops ui_screen_ops = {
	.start = scr_start,
	.stop = scr_stop,
	.draw = scr_draw,
	.resize = scr_resize,
	.invalidate = scr_invalidate,
	.read_key = scr_read_key,
	.flash = scr_flash,
};

/* ---- offscreen (the web page's screens, web/) ---- */

int
ui_start_offscreen(struct ui *ui, const char *term, int rows, int cols)
{
	FILE *out, *in;
	SCREEN *s;

	/* Before a terminal's screen only: newterm() makes the new screen current and curses has no
	 * call that names the one it replaced, so a terminal's screen made first could not be made
	 * current again. Made first, it is: initscr() makes the terminal's current, and each draw
	 * here gets it back from set_term() (ui_offscreen_enter()). */
	if (curses_began || offscreen_began || ui->started)
		return -1;
	if ((out = fopen("/dev/null", "w")) == NULL)
		return -1;
	if ((in = fopen("/dev/null", "r")) == NULL) {
		fclose(out);
		return -1;
	}
	/* The screen is drawn into memory and read back with ui_cell(): its output goes nowhere. */
	if ((s = newterm(term, out, in)) == NULL) {
		fclose(out);
		fclose(in);
		return -1;
	}
	offscreen_began = true;
	ui->off_screen = s;
	resizeterm(rows, cols);
	colours_init(ui, false); /* a page is not the server's terminal: its NO_COLOR is not the viewer's */
	ui->started = true;
	ui->rows = rows;
	ui->cols = cols;
	ui->invalid = true;
	/* No screen current until a draw: a terminal's screen made next (terminfo_check()'s
	 * setupterm(), then initscr()) would otherwise give its terminal to this one (set_curterm()
	 * changes the current screen's) and free it. */
	set_term(NULL);
	return 0;
}

void *
ui_offscreen_enter(struct ui *ui)
{
	void *prev = set_term(ui->off_screen);

	/* A SIGWINCH of the terminal's screen marks every screen: this one is never another size. */
	if (LINES != ui->rows || COLS != ui->cols)
		resizeterm(ui->rows, ui->cols);
	return prev;
}

void
ui_offscreen_leave(void *prev)
{
	if (prev)
		set_term(prev);
}

void
ui_cell(const struct ui *ui, int y, int x, struct ui_cell *out)
{
	cchar_t cc;
	wchar_t wch[CCHARW_MAX + 1] = { 0 };
	attr_t attrs = 0;
	short pair = 0, fg = COLOR_WHITE, bg = COLOR_BLACK;

	memset(out, 0, sizeof *out);
	out->ch = ' ';
	out->fg = COLOR_WHITE;
	if (!ui->started || mvwin_wch(stdscr, y, x, &cc) == ERR || getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
		return;
	if (wch[0])
		out->ch = (uint32_t)wch[0];
	/* A line drawn with the terminal's alternate characters (ACS_HLINE and the like): the
	 * character that terminal shows, the DEC special graphics' Unicode one. */
	static const char dec[] = "`afgjklmnopqrstuvwxyz{|}~";
	static const uint16_t uni[] = { 0x25c6, 0x2592, 0xb0, 0xb1, 0x2518, 0x2510, 0x250c, 0x2514, 0x253c, 0x23ba,
		0x23bb, 0x2500, 0x23bc, 0x23bd, 0x251c, 0x2524, 0x2534, 0x252c, 0x2502, 0x2264, 0x2265, 0x3c0, 0x2260,
		0xa3, 0xb7 };
	const char *at = (attrs & A_ALTCHARSET) && out->ch > 0 && out->ch < 0x80 ? strchr(dec, (int)out->ch) : NULL;
	if (at)
		out->ch = uni[at - dec];
	if (ui->colour && pair > 0 && pair_content(pair, &fg, &bg) == OK && fg >= 0 && fg < 256)
		out->fg = (uint8_t)fg;
	out->flags = (uint8_t)((attrs & A_BOLD ? UI_CELL_BOLD : 0) | (attrs & A_DIM ? UI_CELL_DIM : 0) |
	    (attrs & A_REVERSE ? UI_CELL_REVERSE : 0) | (attrs & A_UNDERLINE ? UI_CELL_UNDERLINE : 0));
}
