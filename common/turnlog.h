/* SPDX-License-Identifier: MIT */
/* turnlog: the plain-text record of a duel (docs/turnlog.md): format, parse and replay, on buffers only. */
#ifndef WW_TURNLOG_H
#define WW_TURNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

#define TURNLOG_FORMAT 1
#define TURNLOG_NAME_MAX 64   /* bytes of a player's name, as written */
#define TURNLOG_LINE_MAX 512  /* longer lines are refused */

struct turnlog_header {
	int format;
	int rules;
	struct options opt;
	uint64_t seed;
	char name[PLAYERS][TURNLOG_NAME_MAX];
};

enum turnlog_kind {
	TL_BLANK,   /* empty line or # comment */
	TL_MAGIC,   /* wizwar-turnlog N */
	TL_RULES,   /* rules N */
	TL_OPTIONS, /* options size=25 fov=on potions=on */
	TL_SEED,    /* seed 0123456789abcdef */
	TL_PLAYER,  /* player P NAME */
	TL_START,   /* start HASH: the state after set-up */
	TL_CMD,     /* P TYPE [ARG] [DIR] */
	TL_HASH,    /* = TURN HASH: the state after turn TURN ended */
	TL_CHAT,    /* chat P TEXT: not game state; replays show it */
	TL_END,     /* end RESULT REASON HASH */
};

struct turnlog_line {
	enum turnlog_kind kind;
	int player;
	struct cmd cmd;
	uint32_t turn;
	uint64_t value; /* a hash, a seed, or a version */
	struct options opt;
	int result, reason;
	char text[TURNLOG_LINE_MAX];
};

/* Each formatter writes one whole line with its '\n' and returns its length, or -1 if
 * `len` is too small. */
int turnlog_format_header(const struct turnlog_header *h, uint64_t start_hash, char *buf, size_t len);
int turnlog_format_cmd(int p, const struct cmd *c, char *buf, size_t len);
int turnlog_format_hash(uint32_t turn, uint64_t hash, char *buf, size_t len);
int turnlog_format_chat(int p, const char *text, char *buf, size_t len);
int turnlog_format_end(const struct game *g, char *buf, size_t len);

/* Parse one line (without its '\n'; a trailing '\r' is accepted). Returns 0, or -1
 * with a reason in `why` (at least 96 bytes). Strict: every field is checked. */
int turnlog_parse_line(const char *line, size_t len, struct turnlog_line *out, char *why, size_t whylen);

/* Called for every command replayed, before (`ev` NULL) and never after a refusal. */
typedef void (*turnlog_step_cb)(void *ud, const struct game *g, int p, const struct cmd *c,
    const struct events *ev, int lineno);

struct turnlog_replay {
	struct turnlog_header hdr;
	struct game game;
	uint32_t commands;
	uint32_t hashes_checked;
	bool torn;       /* a last line without '\n' was dropped, as a torn write */
	bool ended;      /* an `end` line was reached and matched */
	int line;        /* where it failed, 0 if it did not */
	char error[200];
};

/* Replay a whole log held in memory, checking every hash. Returns 0 when it replays
 * exactly, -1 with r->line and r->error saying where and how it diverged. */
int turnlog_replay(const char *text, size_t len, struct turnlog_replay *r, turnlog_step_cb cb, void *ud);

#endif
