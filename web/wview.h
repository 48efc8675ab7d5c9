/* SPDX-License-Identifier: MIT */
/* wview: what one web page shows, a live room as a spectator or a finished duel's replay, as the curses client's screen. */
#ifndef WW_WVIEW_H
#define WW_WVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "state.h"
#include "keys.h"
#include "rcursor.h"
#include "turnlog.h"
#include "ui.h"
#include "wire.h"

#define WVIEW_ROWS 24 /* the page's screen: the curses client's smallest, 80x24 */
#define WVIEW_COLS 80

/* A finished duel's log, read and checked off the loop (web.c's load_work): rcursor_collect() and
 * rcursor_keep_chat() fill it. Frees its arrays and itself; NULL is fine. */
void wview_log_free(struct rcursor_log *d);

/* One page's screen. Live: fed the messages a spectator's connection gets. Replay: moved by
 * `wizwar replay`'s own cursor and keys (client/rcursor.c), whose screens it draws the same. */
struct wview {
	struct state st;
	struct keys keys;
	bool live;
	/* live */
	char room[PROTO_ROOM_BYTES + 1];
	struct wire_sinfo info;
	bool have_info;
	int kind_shown;
	char line[400];
	/* replay: the terminal viewer's own cursor (client/rcursor.c), so the page cannot drift from it */
	struct rcursor_log *d; /* owned */
	struct rcursor cur;
};

void wview_live_init(struct wview *v, const char *room);
/* A message a spectator's connection would get (LOBBY, SPECT_INFO, SPECT_VIEW). -1: a payload
 * that does not decode (never from our own server; the page is closed then). */
int wview_live_msg(struct wview *v, int type, const uint8_t *payload, size_t len);

/* Takes d. */
void wview_replay_init(struct wview *v, struct rcursor_log *d, const char *usage);
/* A key of the replay viewer (rcursor_key(): the terminal's keys): true when the screen changed. */
bool wview_replay_key(struct wview *v, int key);
/* Jump to turn `turn`, as the terminal's "g" does (rcursor_goto_turn()). */
void wview_replay_turn(struct wview *v, uint32_t turn);
/* Playing: the next command, when it is due; ms until the one after (0: stopped). */
unsigned wview_replay_tick(struct wview *v);
unsigned wview_replay_delay(const struct wview *v);

/* The screen, drawn by client/ui.c offscreen, as the "screen" message's JSON (docs/protocol.md,
 * "The web page"): its length, or 0 when it did not fit or curses could not start. */
size_t wview_render(struct wview *v, struct ui *ui, char *out, size_t cap);
/* The process's one offscreen curses screen for wview_render, made before any terminal screen
 * (`host --web` draws its own beside it: ui_start_offscreen()). 0 or -1. */
int wview_screen_start(struct ui *ui, const struct keys *keys);

#endif
