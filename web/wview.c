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

/* ---- collecting a log (on libuv's thread pool: touches only its struct wreplay_data) ---- */

static bool
grow(struct wreplay_data *d)
{
	uint32_t cap = d->cap ? d->cap * 2 : 256;
	struct cmd *nc = realloc(d->cmd, cap * sizeof *nc);
	if (nc == NULL)
		return false;
	d->cmd = nc;
	uint8_t *nw = realloc(d->who, cap);
	if (nw == NULL)
		return false;
	d->who = nw;
	uint32_t *nt = realloc(d->turn, (cap + 1) * sizeof *nt);
	if (nt == NULL)
		return false;
	d->turn = nt;
	d->cap = cap;
	return true;
}

void
wreplay_collect(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct wreplay_data *d = ud;

	(void)lineno;
	if (ev == NULL || d->oom)
		return; /* called before the command too: only what was applied counts */
	if (d->ncmd == d->cap && !grow(d)) {
		d->oom = true;
		return;
	}
	if (d->ncmd == 0)
		d->turn[0] = 0;
	d->cmd[d->ncmd] = *c;
	d->who[d->ncmd++] = (uint8_t)p;
	d->turn[d->ncmd] = g->turn_no;
	if (d->ncmd % WVIEW_CKPT == 0) {
		struct game *nk = realloc(d->ckpt, (d->nckpt + 1) * sizeof *nk);
		if (nk == NULL) {
			d->oom = true;
			return;
		}
		d->ckpt = nk;
		d->ckpt[d->nckpt++] = *g;
	}
}

void
wreplay_chat(void *ud, int lineno, uint32_t cmds, int player, const char *text)
{
	struct wreplay_data *d = ud;

	(void)lineno;
	if (d->nchat == d->chatcap) {
		uint32_t cap = d->chatcap ? d->chatcap * 2 : 32;
		struct wchat *nc = realloc(d->chat, cap * sizeof *nc);
		if (nc == NULL)
			return;
		d->chat = nc;
		d->chatcap = cap;
	}
	struct wchat *c = &d->chat[d->nchat++];
	c->at = cmds;
	c->p = (uint8_t)player;
	state_clean_text(c->text, sizeof c->text, text, strlen(text));
}

void
wreplay_data_free(struct wreplay_data *d)
{
	if (d == NULL)
		return;
	free(d->cmd);
	free(d->who);
	free(d->turn);
	free(d->ckpt);
	free(d->chat);
	free(d);
}

/* ---- live: what a terminal spectator's cmd_spectate.c does with the same messages ---- */

static const char *const kind_text[SPECT_KIND_COUNT] = {
	[SPECT_KIND_SHARED] = "what both players know",
	[SPECT_KIND_PLAYER0] = "player 1's view",
	[SPECT_KIND_PLAYER1] = "player 2's view",
	[SPECT_KIND_ALL] = "everything (the duel is over)",
};

static void
live_line(struct wview *v)
{
	char what[160] = "waiting for the room";
	const struct wire_sinfo *i = &v->info;

	if (v->have_info && i->mode == SPECT_SHARED)
		snprintf(what, sizeof what, "shared view: only what both players know");
	else if (v->have_info && i->mode == SPECT_DELAYED)
		snprintf(what, sizeof what, "%s's view, %u turn%s behind", v->st.name[i->player < PLAYERS ? i->player : 0],
		         i->delay, i->delay == 1 ? "" : "s");
	else if (v->have_info)
		snprintf(what, sizeof what, "nothing until the duel is over");
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
				state_log_system(&v->st, "You see %s.", kind_text[kind]);
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

/* ---- replay: client/cmd_watch.c's viewer, key for key (the page's screens equal its) ---- */

static const unsigned speed_ms[] = { 2000, 1000, 500, 250, 100, 30 };
#define SPEEDS ((int)(sizeof speed_ms / sizeof speed_ms[0]))

static const char *
speed_name(int s)
{
	static const char *const names[SPEEDS] = { "0.25x", "0.5x", "1x", "2x", "5x", "16x" };
	return names[s];
}

static void
build_view(const struct wview *v, const struct game *g, struct view *out)
{
	static struct spect_view sv; /* 5 KiB; the loop's thread only */

	if (v->viewpoint == 2) {
		spect_all(g, &sv);
		*out = sv.v;
	} else {
		view_build(g, v->viewpoint, out);
	}
}

static int
filter_msgs(const struct wview *v, const struct events *ev, struct msg *out)
{
	int n = 0;

	for (int i = 0; i < ev->nmsg; i++)
		if (v->viewpoint == 2 || (ev->msg[i].to & (1u << v->viewpoint)))
			out[n++] = ev->msg[i];
	return n;
}

static void
replay_line(struct wview *v)
{
	const struct wreplay_data *d = v->d;
	const char *vp = v->viewpoint == 2 ? "all-seeing" : d->hdr.name[v->viewpoint];

	/* The terminal viewer's line (cmd_watch.c's update_line), word for word: the page is compared
	 * with it cell by cell. Its "g turn" is the page's turn box ('g' focuses it). */
	uint32_t turn = d->ncmd == 0 ? 1 : d->turn[v->pos < d->ncmd ? v->pos : d->ncmd - 1] + 1;
	snprintf(v->line, sizeof v->line,
	    "Replay: %s, %s, turn %u, command %u/%u\nView: %.24s\nspace play  n b step  g turn  v view  ? help",
	    v->pos >= d->ncmd ? "at the end" : v->playing ? "playing" : "paused", speed_name(v->speed),
	    (unsigned)turn, (unsigned)v->pos, (unsigned)d->ncmd, vp);
	v->st.replay_line = v->line;
}

static void
chats_at(struct wview *v, uint32_t at)
{
	for (uint32_t i = 0; i < v->d->nchat; i++)
		if (v->d->chat[i].at == at)
			state_log_chat(&v->st, v->d->chat[i].p, v->d->chat[i].text, strlen(v->d->chat[i].text));
}

/* cmd_watch.c's seek(): the game from the nearest copy, the log from far enough back to hold
 * the previous and the current round. */
static void
seek(struct wview *v, uint32_t target)
{
	const struct wreplay_data *d = v->d;
	struct state *st = &v->st;
	struct events ev;
	struct msg msgs[EVENTS_MSG_MAX];
	static struct view view;
	uint32_t k, from;
	struct game *g = &v->game;

	if (target > d->ncmd)
		target = d->ncmd;
	k = target / WVIEW_CKPT;
	if (k > d->nckpt)
		k = d->nckpt;
	if (k == 0)
		game_init(g, &d->hdr.opt, d->hdr.seed);
	else
		*g = d->ckpt[k - 1];
	for (uint32_t i = k * WVIEW_CKPT; i < target; i++)
		game_apply(g, d->who[i], &d->cmd[i], NULL);
	uint32_t round = g->turn_no / 2, want = round > 0 ? 2 * (round - 1) : 0;
	while (k > 0 && d->ckpt[k - 1].turn_no > want)
		k--;
	from = k * WVIEW_CKPT;
	if (k == 0)
		game_init(g, &d->hdr.opt, d->hdr.seed);
	else
		*g = d->ckpt[k - 1];
	state_log_clear(st);
	st->have_view = false;
	build_view(v, g, &view);
	state_apply(st, &view, NULL, 0, NULL, 0);
	chats_at(v, from);
	for (uint32_t i = from; i < target; i++) {
		game_apply(g, d->who[i], &d->cmd[i], &ev);
		build_view(v, g, &view);
		state_apply(st, &view, msgs, filter_msgs(v, &ev, msgs), NULL, 0);
		chats_at(v, i + 1);
	}
	v->pos = target;
	if (st->mode != MODE_HELP)
		st->mode = state_base_mode(st);
	replay_line(v);
}

/* One command forward (the terminal shows its effects for a moment; the page shows the result). */
static void
step(struct wview *v)
{
	struct events ev;
	struct msg msgs[EVENTS_MSG_MAX];
	static struct view view;

	if (v->pos >= v->d->ncmd)
		return;
	if (game_apply(&v->game, v->d->who[v->pos], &v->d->cmd[v->pos], &ev) != ERR_OK)
		return; /* the log replayed exactly once already; cannot happen */
	v->pos++;
	build_view(v, &v->game, &view);
	state_apply(&v->st, &view, msgs, filter_msgs(v, &ev, msgs), NULL, 0);
	chats_at(v, v->pos);
	replay_line(v);
}

void
wview_replay_init(struct wview *v, struct wreplay_data *d, const char *usage)
{
	memset(v, 0, sizeof *v);
	keys_init(&v->keys);
	state_init(&v->st, &v->keys);
	v->d = d;
	v->viewpoint = 2;
	v->speed = 2;
	v->st.allseeing = true;
	v->st.help_text = usage;
	for (int p = 0; p < PLAYERS; p++)
		state_set_name(&v->st, p, d->hdr.name[p]);
	seek(v, 0);
}

bool
wview_replay_key(struct wview *v, int key)
{
	struct state *st = &v->st;

	if (st->mode == MODE_HELP) {
		st->mode = state_base_mode(st);
		return true;
	}
	switch (key) {
	case ' ':
		v->playing = !v->playing && v->pos < v->d->ncmd;
		break;
	case 'n':
		v->playing = false;
		step(v);
		break;
	case 'b':
		v->playing = false;
		seek(v, v->pos > 0 ? v->pos - 1 : 0);
		break;
	case '0':
		v->playing = false;
		seek(v, 0);
		break;
	case 'e':
		v->playing = false;
		seek(v, v->d->ncmd);
		break;
	case '+':
		v->speed = v->speed + 1 < SPEEDS ? v->speed + 1 : SPEEDS - 1;
		break;
	case '-':
		v->speed = v->speed > 0 ? v->speed - 1 : 0;
		break;
	case 'v':
		v->viewpoint = (v->viewpoint + 1) % 3;
		st->allseeing = v->viewpoint == 2;
		seek(v, v->pos);
		break;
	case '[':
		st->log_scroll += 3;
		break;
	case ']':
		st->log_scroll = st->log_scroll > 3 ? st->log_scroll - 3 : 0;
		break;
	case '?':
		st->mode = MODE_HELP;
		break;
	default:
		return false;
	}
	replay_line(v);
	return true;
}

void
wview_replay_turn(struct wview *v, uint32_t turn)
{
	uint32_t k = 0;

	while (k < v->d->ncmd && v->d->turn[k] < turn)
		k++;
	v->playing = false;
	seek(v, k);
}

unsigned
wview_replay_delay(const struct wview *v)
{
	return v->playing && v->pos < v->d->ncmd ? speed_ms[v->speed] : 0;
}

unsigned
wview_replay_tick(struct wview *v)
{
	step(v);
	if (v->pos >= v->d->ncmd)
		v->playing = false;
	replay_line(v);
	return wview_replay_delay(v);
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
	uselocale(old);
	freelocale(l);
	return b.full ? 0 : b.n;
}
