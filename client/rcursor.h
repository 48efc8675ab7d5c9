/* SPDX-License-Identifier: MIT */
/* rcursor: a position in a recorded duel: the one seek, step, jump to a turn, key map and status line of `wizwar replay` and the web page's replays. */
#ifndef WW_RCURSOR_H
#define WW_RCURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "spect.h"
#include "state.h"
#include "turnlog.h"
#include "view.h"

/*
 * The terminal viewer (client/cmd_watch.c, with its asciicast) and the web page (web/wview.c) both
 * drive a struct rcursor: what a position shows, where "jump to turn N" lands and the status line
 * are written once here, so the page's screens cannot drift from the terminal's (tests/web
 * compares them cell for cell). How a step is shown (the terminal's effects and pause, the page's
 * result at once) stays with each caller.
 */

#define RCURSOR_CKPT 32        /* a copy of the game every this many commands: a seek replays at most these */
#define RCURSOR_SPEEDS 6
#define RCURSOR_JUMP_DIGITS 6  /* "g" then at most this many digits: no duel has a million turns */

struct rcursor_chat {
	uint32_t at; /* commands before it */
	uint8_t p;
	char text[STATE_CHAT_MAX + 1];
};

/* A finished duel's commands, collected once by turnlog_replay() (which checks every hash); the
 * cursor trusts them after and never changes them, so it may be collected off the loop. */
struct rcursor_log {
	struct turnlog_header hdr;
	struct cmd *cmd;
	uint8_t *who;
	uint32_t *turn_at;  /* turn_at[k]: the game's turn_no after k commands (k = 0 .. ncmd) */
	uint32_t ncmd, cap;
	struct game *ckpt;  /* ckpt[k]: the state after (k + 1) * RCURSOR_CKPT commands */
	uint32_t nckpt;
	struct rcursor_chat *chat;
	uint32_t nchat, chatcap;
	bool oom;           /* something was not kept: ncmd is short of the log's commands */
};

/* turnlog_replay()'s step callback and cli_log_chat()'s, `ud` a zeroed struct rcursor_log. */
void rcursor_collect(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno);
void rcursor_keep_chat(void *ud, int lineno, uint32_t cmds, int player, const char *text);
/* Its arrays (not the struct). */
void rcursor_log_finish(struct rcursor_log *l);

/* One command forward, for the caller to show: the view after it, its messages, the effects seen. */
struct rcursor_step {
	struct view v;
	struct msg msgs[EVENTS_MSG_MAX];
	int nmsg, nfx;
	struct fx_square fx[STATE_FX_MAX];
};

struct rcursor {
	const struct rcursor_log *log; /* read-only */
	struct state *st;              /* the screen's state, written by seeks and rcursor_show() */
	struct game game;              /* after `pos` commands */
	uint32_t pos;
	int viewpoint;                 /* 0, 1, or 2 all-seeing */
	int speed;                     /* 0 .. RCURSOR_SPEEDS - 1 */
	bool playing;
	bool jumping;                  /* "g" pressed: digits of a turn being typed */
	char jump[RCURSOR_JUMP_DIGITS + 1];
	void (*on_seek)(void *ud);     /* before a seek rebuilds the screen (the terminal drops queued updates) */
	void *on_seek_ud;
	/* private: scratch too large for the stack */
	struct view last;              /* the viewpoint's view as last shown, for effects seen before */
	struct view scratch;
	struct spect_view all;
	struct events ev;
	char line[320];
};

/* At command 0, paused, the status line set. */
void rcursor_init(struct rcursor *c, const struct rcursor_log *log, struct state *st, int viewpoint, int speed);
/* To `target` commands (at most the end): the game from the nearest copy, the message log from
 * far enough back to hold the previous and the current round; no effects, a jump is not a turn. */
void rcursor_seek(struct rcursor *c, uint32_t target);
/* One command forward into s (false at the end); the caller shows it, then rcursor_chats(). */
bool rcursor_advance(struct rcursor *c, struct rcursor_step *s);
/* The log's chat lines said after the current command. */
void rcursor_chats(struct rcursor *c);
/* One command forward shown at once (the page's step: no effects, no pause). */
bool rcursor_show_step(struct rcursor *c);
/* The turn shown at `pos` commands, as "jump to turn N" counts: the turn being played (from 1),
 * at the end the turn of the last command. */
uint32_t rcursor_turn_shown(const struct rcursor *c, uint32_t pos);
/* Stop and seek to the first position that shows turn n (the end, past it). */
void rcursor_goto_turn(struct rcursor *c, uint32_t n);
/* The time between two commands at this speed. */
unsigned rcursor_speed_ms(const struct rcursor *c);
/* Playing: ms until the next command; 0 when stopped or at the end. */
unsigned rcursor_delay_ms(const struct rcursor *c);
/* The effects' pause at this speed (the terminal's animation). */
unsigned rcursor_anim_ms(const struct rcursor *c);
/* The status line into st->replay_line. */
void rcursor_line(struct rcursor *c);

enum rcursor_key {
	RCURSOR_KEY_NONE, /* not a viewer key: the caller's (quit, redraw) */
	RCURSOR_KEY_DONE, /* handled: redraw, and the playing timer again */
	RCURSOR_KEY_STEP, /* one step wanted: the caller shows it its own way */
};
/* A key of the viewer (space n b 0 e + - g v [ ] ?, the arrows, Home, End; digits, Backspace,
 * Enter and Esc while a turn is typed); in help, any key closes it. */
enum rcursor_key rcursor_key(struct rcursor *c, int key);

#endif
