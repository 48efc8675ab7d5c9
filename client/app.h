/* SPDX-License-Identifier: MIT */
/* app: the curses client's libuv glue: terminal input, signals and the turn animation, between a session and a screen. */
#ifndef WW_APP_H
#define WW_APP_H

#include "cold.h"

#include <stdbool.h>
#include <uv.h>

#include "game.h"
#include "keys.h"
#include "msg.h"
#include "state.h"
#include "view.h"

/*
 * The session seam: where commands and chat go. The network session (session_net.c: TCP + proto)
 * fills this table, and practice.c wraps it (the same session, with its own server and bot to close
 * on the way out); tests use fakes. The app never knows which it talks to. Each function returns 0,
 * or -1 when the request could not even be sent
 * (the session then tells the app why through app_on_status or app_on_end).
 */
struct session_ops {
	int (*send_cmd)(void *ctx, const struct cmd *c);
	int (*send_chat)(void *ctx, const char *utf8);
	/* The person leaves: stop timers, close sockets. Called once; the loop then runs dry. */
	void (*quit)(void *ctx);
	/* After the end: another duel; mirror: the same seed with the seats (and so the first mover)
	 * swapped. NULL: not offered. 0, or -1 (the session said why). */
	int (*rematch)(void *ctx, bool mirror);
	/* The turn log of the duel shown, once it is over and complete on disk, for the all-seeing
	 * replay the end screen offers (v); NULL: none (not kept, or not yet). NULL op: never. */
	const char *(*replay_log)(void *ctx);
};

/*
 * The screen seam (style habit 16): everything the app does to a terminal goes through this table,
 * so that tests and bots can run the app headless. ui.c has the curses one (ui_screen_ops); a NULL
 * table is the null screen: nothing drawn, no keys but those given to app_key().
 */
#define APP_NOKEY (-2) /* read_key: nothing waiting */
struct screen_ops {
	int (*start)(void *ctx);                          /* 0, or -1 when there is no usable terminal */
	void (*stop)(void *ctx);                          /* restore the terminal; safe twice */
	void (*draw)(void *ctx, const struct state *st);
	void (*resize)(void *ctx);                        /* the terminal's size changed: re-read it */
	void (*invalidate)(void *ctx);                    /* the next draw repaints every cell */
	int (*read_key)(void *ctx);                       /* a keys.h code, KEY_RESIZE, KEYS_NONE or APP_NOKEY */
	void (*flash)(void *ctx);                         /* a refused key: a short visual bell */
};

/* A replay viewer and other modes that are not a duel take keys themselves. */
typedef void (*app_key_fn)(void *ud, int action, int raw);

struct app_config {
	uv_loop_t *loop;
	const struct keys *keys;
	const struct screen_ops *screen; /* NULL: the null screen */
	void *screen_ctx;
	const struct session_ops *session; /* NULL: no session (a replay viewer) */
	void *session_ctx;
	int input_fd;       /* the terminal to poll for keys, normally 0; -1 for none */
	unsigned anim_ms;   /* the plan's pause after effects are drawn; 0 means 250 */
	app_key_fn on_key;  /* NULL: keys go to state_key() and the session */
	void *on_key_ud;
	/* Called before each draw, once keys and updates have changed the state (a guide that
	 * follows what the person did: the tutorial); NULL: none. */
	void (*on_state)(void *ud, struct state *st);
	void *on_state_ud;
};

struct app_update; /* private: one queued update */

struct app {
	/* read-only */
	struct state st;
	int status;              /* the exit status app_run() returns */
	bool quitting;

	/* private */
	struct app_config cfg;
	uv_poll_t poll;
	uv_signal_t sig[4];      /* SIGWINCH, SIGINT, SIGTERM, SIGHUP */
	uv_timer_t anim_timer;   /* the 250 ms pause of the plan's "After Turn" */
	uv_timer_t esc_timer;    /* how long a lone ESC waits to become Meta */
	uv_timer_t clock_timer;  /* the visible turn clock, ticking while a timed duel runs */
	uint64_t turn_began;     /* uv_now() when the turn shown began here */
	uint32_t clock_turn;     /* the turn number the clock counts for */
	bool clock_warned;       /* the last-seconds bell has rung for this turn */
	bool clock_started;      /* clock_turn and turn_began hold a turn seen here */
	bool clock_unknown;      /* the turn under way began before this client saw it (a resume) */
	uint64_t interrupt_at;   /* uv_now() of the Ctrl-C that asked "forfeit and quit?" */
	bool poll_on, screen_on, esc_pending;
	unsigned idle_wakes;     /* readable wake-ups in a row that brought no key (a lost terminal's sign) */
	int handles_open;        /* closed asynchronously; app_finish() waits for them */
	bool animating, pumping;
	struct app_update *cur;  /* the update whose effects are on screen */
	char replay[4200];       /* v at the end: the log to replay once the app has closed ("" none) */
	struct app_update *uhead, *utail;
	int keyq[256];
	unsigned khead, kcount;
};

/* Start the screen and the handles. Returns 0, or -1 (nothing left open) when the screen cannot start. */
WW_COLD int app_init(struct app *a, const struct app_config *cfg);
/* Run the loop until app_quit() and every handle has closed. Returns the exit status. */
int app_run(struct app *a);
/* Leave: closes the app's handles and calls the session's quit. The loop then ends by itself. */
void app_quit(struct app *a, int status);
/* Restore the terminal (also after app_run() returned). Safe twice. */
void app_finish(struct app *a);
/* After app_run(): the log the person asked to replay (v at the end), or NULL. */
const char *app_replay_path(const struct app *a);

/* What a session calls. */
void app_set_name(struct app *a, int player, const char *name);
/* A line a person copies whole (the join command while the room waits, the turn log's path at the
 * end): a screen row of its own, full width, never wrapped. NULL or "" removes it. */
void app_set_share(struct app *a, const char *text);
/* My player number, as the lobby says it before the first view does. */
void app_set_seat(struct app *a, int player);
/* A new view, the messages meant for this player and the effects on squares it saw before or
 * after. Queued: shown in order, each after its effects' pause. */
void app_on_update(struct app *a, const struct view *after, const struct msg *msgs, int nmsg,
    const struct fx_square *fx, int nfx);
void app_on_chat(struct app *a, int from, const char *text);
/* The duel is over and its whole truth is known (the revealed log): show the level with nothing
 * hidden and `note` (a summary) under the result, after the updates still queued. */
void app_on_reveal(struct app *a, const struct view *all, const char *note);
void app_on_status(struct app *a, const char *text);
/* A passing note on the prompt line, not logged (reconnection attempts); NULL clears it. The next
 * key clears it too. */
void app_on_note(struct app *a, const char *text);
void app_on_refused(struct app *a, int err);
/* The session is over (connection lost, server gone): the duel can no longer go on; Q leaves. */
void app_on_end(struct app *a, const char *why);

/* Seconds a turn may take in this duel (from the lobby), 0 for none: the clock counts down from
 * when each turn's view arrives here; the server's own timer is what ends the turn. */
void app_set_turn_time(struct app *a, int seconds);

/* The view just given came with a resume (a reconnect, or a server brought back): the turn under
 * way began before this client saw it. Its clock counts from now on this player's own turn (the
 * server gives it the whole turn again) and shows no number on the opponent's (its time is not
 * known here). */
void app_clock_resumed(struct app *a);

/* Drop queued updates and any effects pause (a replay viewer seeking elsewhere). */
void app_reset_updates(struct app *a);
/* The effects pause, in ms (a replay viewer shortens it at high speed). */
void app_set_anim_ms(struct app *a, unsigned ms);

/* Inject a key as if typed (tests, the null screen). */
void app_key(struct app *a, int code);
/* Draw now. */
void app_redraw(struct app *a);

#endif
