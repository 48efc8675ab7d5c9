/* SPDX-License-Identifier: MIT */
/* wview: a web page's screen: a spectator's frames or a replay's commands into a struct state, drawn by ui.c offscreen. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "spect.h"
#include "update.h"
#include "view.h"
#include "wview.h"

void
wview_log_free(struct rcursor_log *d)
{
	if (d == NULL)
		return;
	rcursor_log_finish(d);
	free(d);
}

/* ---- live: what a terminal spectator's cmd_spectate.c does with the same messages ---- */

static void
live_line(struct wview *v)
{
	char what[160] = "waiting for the room";
	const struct wire_sinfo *i = &v->info;

	if (v->have_info)
		spect_mode_text(i->mode, i->delay, v->st.name[i->player < PLAYERS ? i->player : 0], what, sizeof what);
	snprintf(v->line, sizeof v->line, "Spectator in room %s: %s; %u watching\n%s\nOn the web page: the duel as it goes",
	         v->room, what, v->have_info ? (unsigned)i->count : 0u,
	         v->st.have_view && v->st.view.result == RESULT_NONE ? "Live." :
	         v->st.have_view ? "The duel is over: everything is shown." : "No view yet.");
	v->st.replay_line = v->line;
}

void
wview_live_init(struct wview *v, const char *room)
{
	memset(v, 0, sizeof *v);
	keys_init(&v->keys);
	state_init(&v->st, &v->keys);
	v->live = true;
	v->kind_shown = -1;
	snprintf(v->room, sizeof v->room, "%s", room);
	v->st.allseeing = true;
	v->st.spectator = true;
	live_line(v);
}

int
wview_live_msg(struct wview *v, int type, const uint8_t *payload, size_t len)
{
	/* A struct wire_msg is 20 KiB: off the stack, and one at a time (the loop's thread). */
	struct wire_msg *m = malloc(sizeof *m);
	struct proto_err e;
	int rc = 0;

	if (m == NULL)
		return 0; /* this frame is missed; the next is whole */
	if (wire_decode(type, payload, len, m, &e) != 0) {
		free(m);
		return -1;
	}
	if (m->type == WIRE_LOBBY) {
		for (int p = 0; p < PLAYERS; p++)
			if (m->u.lobby.name[p][0])
				state_set_name(&v->st, p, m->u.lobby.name[p]);
	} else if (m->type == WIRE_SPECT_INFO) {
		v->info = m->u.sinfo;
		v->have_info = true;
	} else if (m->type == WIRE_SPECT_VIEW) {
		static struct view view; /* 5 KiB; the loop's thread only */
		/* Every frame is whole: applied to nothing, it is the view. */
		update_blank(&view);
		if (update_apply(&view, &m->u.sview.view, &e) != 0) {
			rc = -1;
		} else {
			uint8_t kind = m->u.sview.kind;
			if (kind < SPECT_KIND_COUNT && kind != v->kind_shown) {
				state_log_system(&v->st, "You see %s.", spect_kind_text(kind));
				v->kind_shown = kind;
			}
			v->st.me_state = m->u.sview.me_state;
			state_apply(&v->st, &view, NULL, 0, NULL, 0);
		}
	}
	free(m);
	live_line(v);
	return rc;
}

/* ---- replay: client/rcursor.c, the terminal viewer's cursor (the page's screens equal its) ---- */

void
wview_replay_init(struct wview *v, struct rcursor_log *d, const char *usage)
{
	memset(v, 0, sizeof *v);
	keys_init(&v->keys);
	state_init(&v->st, &v->keys);
	v->d = d;
	v->st.help_text = usage;
	rcursor_init(&v->cur, d, &v->st, 2, 2);
}

bool
wview_replay_key(struct wview *v, int key)
{
	switch (rcursor_key(&v->cur, key)) {
	case RCURSOR_KEY_STEP:
		rcursor_show_step(&v->cur); /* the page shows a step's result, not its effects */
		return true;
	case RCURSOR_KEY_DONE:
		return true;
	default:
		return false;
	}
}

void
wview_replay_turn(struct wview *v, uint32_t turn)
{
	rcursor_goto_turn(&v->cur, turn);
}

unsigned
wview_replay_delay(const struct wview *v)
{
	return rcursor_delay_ms(&v->cur);
}

unsigned
wview_replay_tick(struct wview *v)
{
	rcursor_show_step(&v->cur);
	rcursor_line(&v->cur);
	return rcursor_delay_ms(&v->cur);
}

/* ---- drawing ---- */

static locale_t
utf8_locale(void)
{
	/* The curses client's screen is a UTF-8 terminal's (box lines, the cut mark): the page's is
	 * drawn in a UTF-8 locale, for this thread alone, whatever the server's own locale. */
	locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	return l ? l : newlocale(LC_CTYPE_MASK, "C.utf8", (locale_t)0);
}

int
wview_screen_start(struct ui *ui, const struct keys *keys)
{
	locale_t l = utf8_locale(), old;
	int rc;

	if (l == (locale_t)0)
		return -1;
	old = uselocale(l);
	ui_init(ui, keys);
	/* xterm-256color: grey for what is remembered and orange, as most terminals show them. */
	rc = ui_start_offscreen(ui, "xterm-256color", WVIEW_ROWS, WVIEW_COLS);
	uselocale(old);
	freelocale(l);
	return rc;
}

struct jbuf {
	char *p;
	size_t n, cap;
	bool full;
};

static void
jput(struct jbuf *b, const char *s, size_t n)
{
	if (b->full || b->n + n >= b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void
jprintf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
jprintf(struct jbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		b->full = true;
	else
		jput(b, tmp, (size_t)n);
}

/* One code point into a JSON string: escaped where JSON asks, else UTF-8. */
static void
jchar(struct jbuf *b, uint32_t cp)
{
	char u[8];
	size_t n = 0;

	if (cp == '"' || cp == '\\') {
		u[n++] = '\\';
		u[n++] = (char)cp;
	} else if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) {
		cp = ' '; /* never drawn by ui.c (put_text prints printable characters only) */
		u[n++] = ' ';
	} else if (cp < 0x80) {
		u[n++] = (char)cp;
	} else if (cp < 0x800) {
		u[n++] = (char)(0xc0 | cp >> 6);
		u[n++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		u[n++] = (char)(0xe0 | cp >> 12);
		u[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[n++] = (char)(0x80 | (cp & 0x3f));
	} else {
		u[n++] = (char)(0xf0 | cp >> 18);
		u[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[n++] = (char)(0x80 | (cp & 0x3f));
	}
	jput(b, u, n);
}

size_t
wview_render(struct wview *v, struct ui *ui, char *out, size_t cap)
{
	struct jbuf b = { out, 0, cap, false };
	locale_t l = utf8_locale(), old;
	struct ui_cell c;

	if (l == (locale_t)0 || !ui->started) {
		if (l)
			freelocale(l);
		return 0;
	}
	old = uselocale(l);
	/* The host's own terminal screen may be curses' current one (`host --web`): given back below. */
	void *prev = ui_offscreen_enter(ui);
	ui->invalid = false; /* nothing to repaint: the screen is read back, not shown */
	ui_draw(ui, &v->st);
	/* {"t":"screen","rows":24,"cols":80,"text":[row...],"style":[[n,fg,flags,...]...]} */
	jprintf(&b, "{\"t\":\"screen\",\"rows\":%d,\"cols\":%d,\"text\":[", WVIEW_ROWS, WVIEW_COLS);
	for (int y = 0; y < WVIEW_ROWS; y++) {
		jput(&b, y ? ",\"" : "\"", y ? 2 : 1);
		for (int x = 0; x < WVIEW_COLS; x++) {
			ui_cell(ui, y, x, &c);
			jchar(&b, c.ch);
			if (wcwidth((wchar_t)c.ch) == 2)
				x++; /* its second column is the same character */
		}
		jput(&b, "\"", 1);
	}
	jput(&b, "],\"style\":[", 11);
	for (int y = 0; y < WVIEW_ROWS; y++) {
		int run = 0, fg = -1, fl = -1;
		bool first = true;
		jput(&b, y ? ",[" : "[", y ? 2 : 1);
		for (int x = 0; x <= WVIEW_COLS; x++) {
			if (x < WVIEW_COLS)
				ui_cell(ui, y, x, &c);
			if (x == WVIEW_COLS || c.fg != fg || c.flags != fl) {
				if (run > 0) {
					jprintf(&b, "%s%d,%d,%d", first ? "" : ",", run, fg, fl);
					first = false;
				}
				if (x == WVIEW_COLS)
					break;
				run = 0;
				fg = c.fg;
				fl = c.flags;
			}
			run++;
		}
		jput(&b, "]", 1);
	}
	jput(&b, "]}", 2);
	ui_offscreen_leave(prev);
	uselocale(old);
	freelocale(l);
	return b.full ? 0 : b.n;
}
