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
#include "rcursor.h"
#include "turnlog.h"
#include "ui.h"
#include "view.h"

#define WATCH_FILE_MAX (64u << 20)
#define CAST_TERM "xterm-256color" /* the terminal an asciicast's bytes are written for */

/* The log and the position in it are rcursor.c's, shared with the web page's replays; this file
 * shows them: in the terminal through the app (effects, the plan's pause), or as an asciicast. */
struct watch {
	struct rcursor_log log;
	struct rcursor cur;
	struct app *app;        /* the viewer's app; NULL when writing an asciicast */
	uv_timer_t timer;
	bool timer_open;
};

/* Before a seek rebuilds the screen: the updates still queued belong to the old position. */
static void
drop_updates(void *ud)
{
	struct watch *w = ud;

	if (w->app)
		app_reset_updates(w->app);
}

/* One command forward, with its effects and the plan's pause, through the app's queue. */
static void
step(struct watch *w)
{
	struct rcursor_step *s = malloc(sizeof *s);

	if (s != NULL && rcursor_advance(&w->cur, s)) {
		app_on_update(w->app, &s->v, s->msgs, s->nmsg, s->fx, s->nfx);
		rcursor_chats(&w->cur);
	}
	free(s);
}

static void on_timer(uv_timer_t *t);

static void
schedule(struct watch *w)
{
	unsigned ms = rcursor_delay_ms(&w->cur);

	if (!w->timer_open || w->app->quitting)
		return;
	uv_timer_stop(&w->timer);
	if (ms)
		uv_timer_start(&w->timer, on_timer, ms, 0);
}

static void
on_timer(uv_timer_t *t)
{
	struct watch *w = t->data;

	/* Let an effects pause finish before the next command. */
	if (!w->app->animating && w->app->uhead == NULL)
		step(w);
	rcursor_line(&w->cur);
	app_redraw(w->app);
	schedule(w);
}

static void
on_key(void *ud, int action, int raw)
{
	struct watch *w = ud;

	if (w->app->st.mode != MODE_HELP && !w->cur.jumping && (raw == 'q' || raw == 'Q' || raw == 27)) {
		app_quit(w->app, 0);
		return;
	}
	switch (rcursor_key(&w->cur, raw)) {
	case RCURSOR_KEY_NONE:
		if (action == ACTION_REDRAW) {
			app_redraw(w->app);
			return;
		}
		break;
	case RCURSOR_KEY_STEP:
		if (!w->app->animating)
			step(w);
		break;
	case RCURSOR_KEY_DONE:
		break;
	}
	app_set_anim_ms(w->app, rcursor_anim_ms(&w->cur));
	rcursor_line(&w->cur);
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
write_cast(struct watch *w, const struct keys *keys, const char *usage, int viewpoint, int speed, int cols, int rows)
{
	static struct state st;  /* large: not on the stack */
	static struct rcursor_step s;
	struct rcursor *c = &w->cur;
	struct ui ui;
	FILE *screen;
	long taken = 0;
	char title[2 * TURNLOG_NAME_MAX + 32];

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
	st.help_text = usage;
	rcursor_init(c, &w->log, &st, viewpoint, speed);
	c->playing = true;
	rcursor_line(c);
	unsigned anim = rcursor_anim_ms(c);
	snprintf(title, sizeof title, "wizwar: %s vs %s", st.name[0], st.name[1]);
	cast_header(stdout, cols, rows, CAST_TERM, title);
	cast_frame(&ui, &st, screen, &taken, 0);
	cast_marker("turn", 1);
	while (rcursor_advance(c, &s)) {
		uint32_t wait = rcursor_speed_ms(c);
		state_update_begin(&st, &s.v, s.fx, s.nfx);
		if (st.anim) {
			/* The effects over the old layout, then the plan's pause, as app.c's pump() shows them. */
			cast_frame(&ui, &st, screen, &taken, wait);
			wait = anim;
		}
		state_update_end(&st, &s.v, s.msgs, s.nmsg);
		st.anim = false;
		st.nfx = 0;
		rcursor_chats(c);
		cast_frame(&ui, &st, screen, &taken, wait);
		if (c->pos < w->log.ncmd && rcursor_turn_shown(c, c->pos) != rcursor_turn_shown(c, c->pos - 1))
			cast_marker("turn", rcursor_turn_shown(c, c->pos));
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
			if (!cli_int(argv[++i], 1, RCURSOR_SPEEDS, "--speed", &v))
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
	if (turnlog_replay(buf, len, r, rcursor_collect, &w.log) != 0) {
		cli_error("%s: %s\n", path, r->error); /* r->error names the line */
		goto out_free;
	}
	if (w.log.oom || w.log.ncmd != r->commands) {
		cli_error("out of memory\n");
		goto out_free;
	}
	w.log.hdr = r->hdr;
	cli_log_chat(buf, len, rcursor_keep_chat, &w.log);
	keys_init(&keys);
	if (preset && !keys_preset(&keys, preset)) {
		cli_error("--keys takes default, numpad, vi or arrows, not '%s'\n", preset);
		status = 2;
		goto out_free;
	}
	if (cast) {
		status = write_cast(&w, &keys, usage, viewpoint, speed, cols, rows);
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
	app->st.help_text = usage;
	uv_timer_init(&loop, &w.timer);
	w.timer.data = &w;
	w.timer_open = true;
	rcursor_init(&w.cur, &w.log, &app->st, viewpoint, speed);
	w.cur.on_seek = drop_updates;
	w.cur.on_seek_ud = &w;
	app_set_anim_ms(app, rcursor_anim_ms(&w.cur));
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
	rcursor_log_finish(&w.log);
	return status;
}
