/* SPDX-License-Identifier: MIT */
/* cmd_watch: `wizwar replay LOG` in a terminal: a recorded duel from either wizard's view or all-seeing,
 * or (--asciicast) the same screens written as an asciicast. */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cast.h"
#include "cli.h"
#include "help.h"
#include "commands_ui.h"
#include "keys.h"
#include "spect.h"
#include "turnlog.h"
#include "ui.h"
#include "view.h"

#define WATCH_FILE_MAX (64u << 20)
#define CKPT_EVERY 32 /* a copy of the game every this many commands: stepping back replays at most these */


static const unsigned speed_ms[] = { 2000, 1000, 500, 250, 100, 30 };
#define SPEEDS ((int)(sizeof speed_ms / sizeof speed_ms[0]))
#define JUMP_DIGITS 6 /* "g" then at most this many digits: no duel has a million turns */
#define CAST_TERM "xterm-256color" /* the terminal an asciicast's bytes are written for */

struct chat_rec {
	uint32_t at; /* commands before it */
	uint8_t p;
	char text[STATE_CHAT_MAX + 1];
};

struct watch {
	struct turnlog_header hdr;
	struct cmd *cmd;
	uint8_t *who;
	uint32_t *turn_at;      /* turn_at[k]: the game's turn_no after k commands (k = 0..ncmd) */
	uint32_t ncmd, cap;
	struct chat_rec *chat;
	uint32_t nchat, chatcap;
	struct game *ckpt;      /* ckpt[k]: the state after k * CKPT_EVERY commands */
	uint32_t nckpt;
	struct game game;       /* after `pos` commands */
	uint32_t pos;
	int viewpoint;          /* 0, 1, or 2 for all-seeing */
	int speed;              /* index into speed_ms */
	bool playing;
	struct view last;       /* the viewpoint's view as last shown, for effects seen before */
	struct app *app;        /* the viewer's app; NULL when writing an asciicast */
	struct state *st;       /* the screen's state: the app's, or the asciicast's own */
	bool jumping;           /* "g" pressed: digits of a turn being typed */
	char jump[JUMP_DIGITS + 1];
	uv_timer_t timer;
	bool timer_open;
	char line[320];
};

/* ---- collecting the log ---- */

static void
collect(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct watch *w = ud;

	if (w->ncmd == w->cap) {
		uint32_t cap = w->cap ? w->cap * 2 : 256;
		struct cmd *nc = realloc(w->cmd, cap * sizeof *nc);
		if (nc == NULL)
			return;
		w->cmd = nc;
		uint8_t *nw = realloc(w->who, cap);
		if (nw == NULL)
			return;
		w->who = nw;
		uint32_t *nt = realloc(w->turn_at, (cap + 1) * sizeof *nt);
		if (nt == NULL)
			return;
		w->turn_at = nt;
		if (w->cap == 0)
			w->turn_at[0] = 0; /* game_init: no turn completed */
		w->cap = cap;
	}
	w->cmd[w->ncmd] = *c;
	w->who[w->ncmd++] = (uint8_t)p;
	w->turn_at[w->ncmd] = g->turn_no;
	/* Keep a copy every CKPT_EVERY commands, so that going back is quick. */
	if (w->ncmd % CKPT_EVERY == 0) {
		struct game *nk = realloc(w->ckpt, (w->nckpt + 1) * sizeof *nk);
		if (nk == NULL)
			return;
		w->ckpt = nk;
		w->ckpt[w->nckpt++] = *g;
	}
}

/* A chat line of the log, shown once `cmds` commands are (cli_log_chat()). */
static void
keep_chat(void *ud, int lineno, uint32_t cmds, int player, const char *text)
{
	struct watch *w = ud;

	(void)lineno;
	if (w->nchat == w->chatcap) {
		uint32_t cap = w->chatcap ? w->chatcap * 2 : 32;
		struct chat_rec *nc = realloc(w->chat, cap * sizeof *nc);
		if (nc == NULL)
			return;
		w->chat = nc;
		w->chatcap = cap;
	}
	struct chat_rec *c = &w->chat[w->nchat++];
	c->at = cmds;
	c->p = (uint8_t)player;
	state_clean_text(c->text, sizeof c->text, text, strlen(text));
}

/* ---- views ---- */

/* Everything, as a spectator: the whole level in sight, both wizards, every potion known. */
/* Everything, as a spectator sees it once a duel is over: the rules' own all-seeing view (common/spect.c). */
static void
view_all(const struct game *g, struct view *v)
{
	static struct spect_view sv; /* a view is 5 KiB: not on the stack; one viewer a process */

	spect_all(g, &sv);
	*v = sv.v;
}

static void
build_view(const struct watch *w, const struct game *g, struct view *v)
{
	if (w->viewpoint == 2)
		view_all(g, v);
	else
		view_build(g, w->viewpoint, v);
}

static int
filter_msgs(const struct watch *w, const struct events *ev, struct msg *out)
{
	int n = 0;

	for (int i = 0; i < ev->nmsg; i++)
		if (w->viewpoint == 2 || (ev->msg[i].to & (1u << w->viewpoint)))
			out[n++] = ev->msg[i];
	return n;
}

static const char *
speed_name(int s)
{
	static const char *const names[SPEEDS] = { "0.25x", "0.5x", "1x", "2x", "5x", "16x" };
	return names[s];
}

/* The turn shown at `pos` commands, as "jump to turn N" counts: the turn being played (turns from 1),
 * at the end the turn of the last command (the one that ended the duel, finished or not). */
static uint32_t
turn_shown(const struct watch *w, uint32_t pos)
{
	if (w->ncmd == 0)
		return 1;
	return w->turn_at[pos < w->ncmd ? pos : w->ncmd - 1] + 1;
}

/* The first position that shows turn `n` (the end, for a turn past it). */
static uint32_t
turn_start(const struct watch *w, uint32_t n)
{
	for (uint32_t pos = 0; pos < w->ncmd; pos++)
		if (w->turn_at[pos] + 1 >= n)
			return pos;
	return w->ncmd;
}

static void
update_line(struct watch *w)
{
	const char *vp = w->viewpoint == 2 ? "all-seeing" : w->hdr.name[w->viewpoint];
	char keys[80];

	if (w->jumping)
		snprintf(keys, sizeof keys, "Jump to turn: %s_  (Enter go, Esc cancel)", w->jump);
	else
		snprintf(keys, sizeof keys, "space play  n b step  g turn  v view  ? help");
	snprintf(w->line, sizeof w->line, "Replay: %s, %s, turn %u, command %u/%u\nView: %.24s\n%s",
	    w->pos >= w->ncmd ? "at the end" : w->playing ? "playing" : "paused", speed_name(w->speed),
	    (unsigned)turn_shown(w, w->pos), (unsigned)w->pos, (unsigned)w->ncmd, vp, keys);
	w->st->replay_line = w->line;
}

static void
chats_at(struct watch *w, uint32_t at)
{
	for (uint32_t i = 0; i < w->nchat; i++)
		if (w->chat[i].at == at)
			state_log_chat(w->st, w->chat[i].p, w->chat[i].text, strlen(w->chat[i].text));
}

/* Jump to `target` commands: rebuild the game from the nearest copy, and the log from far enough
 * back to hold the previous and the current round. No effects: a jump is not a turn. */
static void
seek(struct watch *w, uint32_t target)
{
	struct state *st = w->st;
	struct events ev;
	struct msg msgs[EVENTS_MSG_MAX];
	struct view v;
	uint32_t k, from;
	struct game *g = &w->game;

	if (target > w->ncmd)
		target = w->ncmd;
	if (w->app)
		app_reset_updates(w->app);
	/* Where the target is, to know which round's messages to show. */
	k = target / CKPT_EVERY;
	if (k > w->nckpt)
		k = w->nckpt;
	if (k == 0)
		game_init(g, &w->hdr.opt, w->hdr.seed);
	else
		*g = w->ckpt[k - 1];
	for (uint32_t i = k * CKPT_EVERY; i < target; i++)
		game_apply(g, w->who[i], &w->cmd[i], NULL);
	uint32_t round = g->turn_no / 2, want = round > 0 ? 2 * (round - 1) : 0;
	/* Back to a copy from before the previous round began. */
	while (k > 0 && w->ckpt[k - 1].turn_no > want)
		k--;
	from = k * CKPT_EVERY;
	if (k == 0)
		game_init(g, &w->hdr.opt, w->hdr.seed);
	else
		*g = w->ckpt[k - 1];
	state_log_clear(st);
	st->have_view = false;
	build_view(w, g, &v);
	state_apply(st, &v, NULL, 0, NULL, 0);
	chats_at(w, from);
	for (uint32_t i = from; i < target; i++) {
		game_apply(g, w->who[i], &w->cmd[i], &ev);
		build_view(w, g, &v);
		state_apply(st, &v, msgs, filter_msgs(w, &ev, msgs), NULL, 0);
		chats_at(w, i + 1);
	}
	w->pos = target;
	w->last = st->view;
	if (st->mode != MODE_HELP)
		st->mode = state_base_mode(st);
	update_line(w);
}

/* One command forward: the viewpoint's view after it, its messages and the effects seen. False at
 * the end. The caller shows them, then calls chats_at(w, w->pos). */
struct stepped {
	struct view v;
	struct msg msgs[EVENTS_MSG_MAX];
	int nmsg, nfx;
	struct fx_square fx[STATE_FX_MAX];
};

static bool
advance(struct watch *w, struct stepped *s)
{
	static struct events ev; /* large, and one viewer a process */
	int size = w->game.opt.size;

	if (w->pos >= w->ncmd)
		return false;
	if (game_apply(&w->game, w->who[w->pos], &w->cmd[w->pos], &ev) != ERR_OK)
		return false; /* the log replayed exactly once already; cannot happen */
	w->pos++;
	build_view(w, &w->game, &s->v);
	s->nfx = 0;
	for (int y = 0; ev.has_fx && y < size; y++)
		for (int x = 0; x < size; x++)
			if (ev.fx[y][x] && ((w->last.cell[y][x] | s->v.cell[y][x]) & VCELL_VISIBLE) && s->nfx < STATE_FX_MAX)
				s->fx[s->nfx++] = (struct fx_square){ (uint8_t)x, (uint8_t)y, ev.fx[y][x] };
	w->last = s->v;
	s->nmsg = filter_msgs(w, &ev, s->msgs);
	update_line(w);
	return true;
}

/* One command forward, with its effects and the plan's pause, through the app's queue. */
static void
step(struct watch *w)
{
	struct stepped *s = malloc(sizeof *s);

	if (s != NULL && advance(w, s)) {
		app_on_update(w->app, &s->v, s->msgs, s->nmsg, s->fx, s->nfx);
		chats_at(w, w->pos);
	}
	free(s);
}

static void on_timer(uv_timer_t *t);

static void
schedule(struct watch *w)
{
	if (!w->timer_open || w->app->quitting)
		return;
	uv_timer_stop(&w->timer);
	if (w->playing && w->pos < w->ncmd)
		uv_timer_start(&w->timer, on_timer, speed_ms[w->speed], 0);
}

static void
on_timer(uv_timer_t *t)
{
	struct watch *w = t->data;

	/* Let an effects pause finish before the next command. */
	if (!w->app->animating && w->app->uhead == NULL)
		step(w);
	if (w->pos >= w->ncmd)
		w->playing = false;
	update_line(w);
	app_redraw(w->app);
	schedule(w);
}

static void
set_speed(struct watch *w, int s)
{
	w->speed = s < 0 ? 0 : s >= SPEEDS ? SPEEDS - 1 : s;
	app_set_anim_ms(w->app, speed_ms[w->speed] < 250 ? speed_ms[w->speed] : 250);
}

/* A key while a turn is typed after "g": digits, Backspace, Enter to go there, Esc (or any other
 * key) to give up. */
static void
jump_key(struct watch *w, int raw)
{
	size_t n = strlen(w->jump);

	if (raw >= '0' && raw <= '9') {
		if (n < JUMP_DIGITS && !(n == 0 && raw == '0')) {
			w->jump[n] = (char)raw;
			w->jump[n + 1] = '\0';
		}
		return;
	}
	if ((raw == KEY_BACKSPACE || raw == 127 || raw == 8) && n > 0) {
		w->jump[n - 1] = '\0';
		return;
	}
	w->jumping = false;
	if ((raw == '\r' || raw == '\n' || raw == KEY_ENTER) && n > 0)
		seek(w, turn_start(w, (uint32_t)strtoul(w->jump, NULL, 10)));
}

static void
on_key(void *ud, int action, int raw)
{
	struct watch *w = ud;
	struct state *st = &w->app->st;

	if (st->mode == MODE_HELP) {
		st->mode = state_base_mode(st);
		app_redraw(w->app);
		return;
	}
	if (w->jumping) {
		jump_key(w, raw);
		update_line(w);
		schedule(w);
		app_redraw(w->app);
		return;
	}
	switch (raw) {
	case ' ':
		w->playing = !w->playing && w->pos < w->ncmd;
		break;
	case 'n':
	case KEY_RIGHT:
		w->playing = false;
		if (!w->app->animating)
			step(w);
		break;
	case 'b':
	case KEY_LEFT:
		w->playing = false;
		seek(w, w->pos > 0 ? w->pos - 1 : 0);
		break;
	case '0':
	case KEY_HOME:
		w->playing = false;
		seek(w, 0);
		break;
	case 'e':
	case KEY_END:
		w->playing = false;
		seek(w, w->ncmd);
		break;
	case '+':
	case '=':
		set_speed(w, w->speed + 1);
		break;
	case '-':
	case '_':
		set_speed(w, w->speed - 1);
		break;
	case 'g':
		w->playing = false;
		w->jumping = true;
		w->jump[0] = '\0';
		break;
	case 'v':
		w->viewpoint = (w->viewpoint + 1) % 3;
		st->allseeing = w->viewpoint == 2;
		seek(w, w->pos);
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
	case 'q':
	case 'Q':
	case 27:
		app_quit(w->app, 0);
		return;
	default:
		if (action == ACTION_REDRAW) {
			app_redraw(w->app);
			return;
		}
		break;
	}
	update_line(w);
	schedule(w);
	app_redraw(w->app);
}

static void
on_timer_close(uv_handle_t *h)
{
	struct watch *w = h->data;

	w->timer_open = false;
}

static void
watch_quit(void *ctx)
{
	struct watch *w = ctx;

	if (w->timer_open && !uv_is_closing((uv_handle_t *)&w->timer))
		uv_close((uv_handle_t *)&w->timer, on_timer_close);
}

static const struct session_ops watch_session = { .quit = watch_quit };

/* ---- --asciicast ---- */

/* What curses wrote into the file screen since the last frame: one output event, `ms` after the
 * one before it. */
static void
cast_frame(struct ui *ui, const struct state *st, FILE *screen, long *taken, uint32_t ms)
{
	char buf[8192];
	size_t n;
	size_t k = 0;
	char *all = NULL;

	ui_draw(ui, st);
	fflush(screen);
	if (fseek(screen, *taken, SEEK_SET) != 0)
		return;
	while ((n = fread(buf, 1, sizeof buf, screen)) > 0) {
		char *grown = realloc(all, k + n);
		if (grown == NULL)
			break;
		all = grown;
		memcpy(all + k, buf, n);
		k += n;
	}
	*taken += (long)k;
	fseek(screen, 0, SEEK_END);
	cast_event(stdout, ms, 'o', all ? all : "", k);
	free(all);
}

/* A marker "turn N" where a turn begins, after the frame that shows it (the position "g N" jumps
 * to), and "end" after the last frame: a player lists them as chapters, and a test finds a turn's
 * screen by them. */
static void
cast_marker(const char *what, uint32_t turn)
{
	char label[32];
	int n = turn ? snprintf(label, sizeof label, "%s %u", what, (unsigned)turn) : snprintf(label, sizeof label, "%s", what);

	cast_event(stdout, 0, 'm', label, (size_t)n);
}

/* The whole duel as the viewer plays it at this speed (`playing`, every command, the effects
 * shown for the viewer's pause), drawn by the client's own ui_draw() into a file screen of
 * CAST_TERM (ui_start_file()): the events are the bytes the client writes to such a terminal. */
static int
write_cast(struct watch *w, const struct keys *keys, const char *usage, int cols, int rows)
{
	static struct state st;  /* large: not on the stack */
	static struct stepped s;
	struct ui ui;
	FILE *screen;
	long taken = 0;
	char title[2 * TURNLOG_NAME_MAX + 32];
	unsigned anim = speed_ms[w->speed] < 250 ? speed_ms[w->speed] : 250;

	/* asciicast is UTF-8: the map's lines and the wizards' names are drawn as UTF-8 whatever the
	 * user's locale. */
	if (setlocale(LC_ALL, "") == NULL || strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
			cli_error("--asciicast needs a UTF-8 locale (C.UTF-8 is missing)\n");
			return 1;
		}
	if ((screen = tmpfile()) == NULL) {
		cli_error("cannot make a temporary file: %s\n", strerror(errno));
		return 1;
	}
	ui_init(&ui, keys);
	if (ui_start_file(&ui, screen, CAST_TERM, cols, rows) != 0) {
		cli_error("curses cannot draw for %s (is ncurses-term's terminfo missing?)\n", CAST_TERM);
		fclose(screen);
		return 1;
	}
	state_init(&st, keys);
	w->st = &st;
	w->playing = true;
	st.allseeing = w->viewpoint == 2;
	st.help_text = usage;
	for (int p = 0; p < PLAYERS; p++)
		state_set_name(&st, p, w->hdr.name[p]);
	snprintf(title, sizeof title, "wizwar: %s vs %s", st.name[0], st.name[1]);
	cast_header(stdout, cols, rows, CAST_TERM, title);
	seek(w, 0);
	cast_frame(&ui, &st, screen, &taken, 0);
	cast_marker("turn", 1);
	while (advance(w, &s)) {
		uint32_t wait = speed_ms[w->speed];
		state_update_begin(&st, &s.v, s.fx, s.nfx);
		if (st.anim) {
			/* The effects over the old layout, then the plan's pause, as app.c's pump() shows them. */
			cast_frame(&ui, &st, screen, &taken, wait);
			wait = anim;
		}
		state_update_end(&st, &s.v, s.msgs, s.nmsg);
		st.anim = false;
		st.nfx = 0;
		chats_at(w, w->pos);
		if (w->pos >= w->ncmd)
			update_line(w); /* "at the end" */
		cast_frame(&ui, &st, screen, &taken, wait);
		if (w->pos < w->ncmd && turn_shown(w, w->pos) != turn_shown(w, w->pos - 1))
			cast_marker("turn", turn_shown(w, w->pos));
	}
	cast_marker("end", 0);
	/* Not endwin(): its bytes leave the alternate screen, and a player would end on an empty one. */
	fflush(stdout);
	ui_stop(&ui);
	fclose(screen);
	if (ferror(stdout)) {
		cli_error("cannot write the cast: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int
cmd_watch(int argc, char **argv)
{
	static struct watch w; /* two struct games inside: large */
	struct turnlog_replay *r = NULL;
	const char *path = NULL;
	struct keys keys;
	struct ui ui;
	struct app *app = NULL;
	uv_loop_t loop;
	char *buf = NULL;
	size_t len;
	long v;
	int status = 1, viewpoint = 2, speed = 2, cols = 80, rows = 24;
	bool cast = false;
	const char *preset = NULL;

	const char *usage = help_get(HELP_WATCH);
	int args = cli_args("replay", usage, &argc, &argv, &path);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--view") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "all") == 0)
				viewpoint = 2;
			else if (cli_int(argv[i], 1, 2, "--view", &v))
				viewpoint = (int)v - 1; /* people count players from 1 */
			else
				return 2;
		} else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc) {
			preset = argv[++i];
		} else if (strcmp(argv[i], "--asciicast") == 0) {
			cast = true;
		} else if (strcmp(argv[i], "--term-size") == 0 && i + 1 < argc) {
			char extra;
			i++;
			if (sscanf(argv[i], "%dx%d%c", &cols, &rows, &extra) != 2 || cols < UI_MIN_COLS || rows < UI_MIN_ROWS ||
			    cols > 500 || rows > 200) {
				cli_error("--term-size takes COLSxROWS, %dx%d to 500x200, not '%s'\n", UI_MIN_COLS, UI_MIN_ROWS, argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--speed") == 0 && i + 1 < argc) {
			if (!cli_int(argv[++i], 1, SPEEDS, "--speed", &v))
				return 2;
			speed = (int)v - 1;
		} else if (argv[i][0] != '-' && path == NULL) {
			path = argv[i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (path == NULL) {
		fputs(usage, stderr);
		return 2;
	}
	if (cli_read_file(path, WATCH_FILE_MAX, &buf, &len) != 0)
		return 1;
	memset(&w, 0, sizeof w);
	if ((r = malloc(sizeof *r)) == NULL) {
		cli_error("out of memory\n");
		goto out_free;
	}
	/* Replay once to check every hash and collect the commands; the viewer trusts them after. */
	if (turnlog_replay(buf, len, r, collect, &w) != 0) {
		cli_error("%s: %s\n", path, r->error); /* r->error names the line */
		goto out_free;
	}
	if (w.ncmd != r->commands) {
		cli_error("out of memory\n");
		goto out_free;
	}
	w.hdr = r->hdr;
	cli_log_chat(buf, len, keep_chat, &w);
	keys_init(&keys);
	if (preset && !keys_preset(&keys, preset)) {
		cli_error("--keys takes default, numpad, vi or arrows, not '%s'\n", preset);
		status = 2;
		goto out_free;
	}
	w.viewpoint = viewpoint;
	w.speed = speed;
	if (cast) {
		status = write_cast(&w, &keys, usage, cols, rows);
		goto out_free;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("watching needs a terminal (--text prints the duel, --asciicast writes it as a cast)\n");
		goto out_free;
	}
	setlocale(LC_ALL, "");
	if (uv_loop_init(&loop) != 0)
		goto out_free;
	if ((app = malloc(sizeof *app)) == NULL)
		goto out_loop;
	ui_init(&ui, &keys);
	struct app_config ac = {
		.loop = &loop, .keys = &keys, .screen = &ui_screen_ops, .screen_ctx = &ui,
		.session = &watch_session, .session_ctx = &w, .input_fd = STDIN_FILENO,
		.on_key = on_key, .on_key_ud = &w,
	};
	if (app_init(app, &ac) != 0) {
		cli_error("cannot start the terminal\n");
		free(app);
		app = NULL;
		goto out_loop;
	}
	w.app = app;
	w.st = &app->st;
	w.viewpoint = viewpoint;
	app->st.allseeing = viewpoint == 2;
	app->st.help_text = usage;
	for (int p = 0; p < PLAYERS; p++)
		state_set_name(&app->st, p, w.hdr.name[p]);
	uv_timer_init(&loop, &w.timer);
	w.timer.data = &w;
	w.timer_open = true;
	set_speed(&w, speed);
	seek(&w, 0);
	app_redraw(app);
	status = app_run(app);
	app_finish(app);
	free(app);
out_loop:
	if (uv_loop_close(&loop) != 0)
		cli_error("internal error: a libuv handle was left open\n");
out_free:
	free(r);
	free(buf);
	free(w.cmd);
	free(w.who);
	free(w.turn_at);
	free(w.chat);
	free(w.ckpt);
	return status;
}
