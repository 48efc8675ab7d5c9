/* SPDX-License-Identifier: MIT */
/* session_net: the curses client's session seam over the network: net.c's events become app_on_* calls. */
#ifndef WW_SESSION_NET_H
#define WW_SESSION_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "app.h"
#include "net.h"

struct server;

#define SESSION_WIND_MS 1000
/* Before the first duel, once both players are here: the seconds each client waits before it says
 * READY by itself, for either to read the options, have them changed, or hold the start (/wait). */
#define LOBBY_COUNTDOWN_S 5

struct session_net {
	/* read-only */
	struct net *net;
	int me;
	bool ended_ok;          /* the last duel verified */
	char last_result[200];
	bool joined;            /* WELCOME came: the screen may start */
	bool failed;            /* the session ended on a fatal error (not by the person's leaving) ... */
	char why[512];          /* ... and why, for stderr once the terminal is restored */
	char resume_log[4200];  /* `host`'s server closed mid-duel (its terminal closed): the duel's log, for --resume */
	/* private */
	struct app *app;
	struct server *srv;     /* `host`, `practice`: the in-process server, closed on quit ... */
	uv_timer_t wind;        /* ... once it has taken our BYE (a forfeit in a duel), or after a second */
	uint64_t wind_since;
	bool quit, started, srv_closing, wind_open;
	bool auto_ready;        /* before the first duel: ready by itself once the countdown runs out */
	uv_timer_t countdown;   /* both here before the first duel: a second a tick, LOBBY_COUNTDOWN_S of them */
	bool countdown_open, countdown_on;
	int countdown_left;     /* seconds */
	bool spect_told;        /* a SPECT_INFO came: spect_last is the room's spectator options */
	struct wire_sinfo spect_last;
	bool lobby_seen;        /* a LOBBY came: lobby_opt and lobby_tt hold its options */
	struct options lobby_opt;
	int lobby_tt;
	char last_lobby[400];   /* the last lobby line said: the same is not said twice */
	bool early_start, early_resumed; /* a START came before the screen started */
	bool played;            /* a duel has started in this session */
	bool unreadied;         /* the person said /unready (and not /ready since) */
	char muted[PROTO_NAME_BYTES + 1]; /* /mute: that player's chat is not shown ("": none) ... */
	unsigned muted_lines;   /* ... and how many of its lines were not */
	bool reconnecting;      /* the link is down; net.c is trying to get it back */
	bool relinked;          /* the link is back: the WELCOME that follows is not news */
	bool afresh;            /* the server no longer held the seat: the next join is a new one */
	bool rejoined;          /* ... and its WELCOME, coming next, is a new seat's */
	bool hold_said;         /* reconnecting: the end of the lobby seat's hold was said */
	int away;               /* the opponent whose link dropped (PEER dropped, not yet back or gone), or -1 */
	unsigned welcomed;      /* WELCOMEs so far: a later one (control handed over, a mirror) is news */
	struct fx_square fx[LEVEL_MAX * LEVEL_MAX];

	/* Set before session_net_start() by `practice` (practice.c); all optional. */
	bool practice;          /* one duel against a bot: no lobby talk, no /commands (all chat) */
	void *hook_ud;
	void (*on_chat)(void *ud, int from, const char *text); /* a chat line as the server relayed it */
	void (*on_settled)(void *ud); /* on quit, just before the in-process server is closed */
	const char *log_path;   /* practice: where this duel's turn log is, said at the end */

	/* Set before session_net_start() by `join`: where the log each END reveals is kept
	 * (duel-SEED.log, 0600, never overwriting one), or NULL to keep none. */
	const char *save_dir;
	char saved_path[4200];  /* the last one kept ("" if none) ... */
	uint64_t saved_seed, saved_hash; /* ... and its duel: an END told again after a resume is not kept twice */
	unsigned saved;         /* logs kept in this session */
	bool saved_now;         /* saved_path is the log of the duel on screen (not of the one before) */
};

/* Fill the net events of cfg so that they drive s; then net_create(). */
void session_net_events(struct session_net *s, struct net_config *cfg);
/* Run the loop until the join succeeds (true) or fails (false, s->why says why, and the net is
 * closed): a join that cannot start never shows a duel screen. */
bool session_net_wait_join(struct session_net *s, uv_loop_t *loop);
/* Attach the app (before the loop runs). srv: the host's own server, or NULL. On quit the session
 * leaves (BYE), and closes srv when the server has taken that BYE and holds no duel any more (so a
 * forfeit is applied, logged and shown to the other player), or after SESSION_WIND_MS. */
void session_net_start(struct session_net *s, struct app *app, struct net *net, struct server *srv);

/* Lobby commands typed at the chat prompt, for the person: "/ready", "/rematch", ... Returns true
 * when `text` was one (answered with a status line). */
bool session_net_command(struct session_net *s, const char *text);

extern const struct session_ops session_net_ops;

#endif
