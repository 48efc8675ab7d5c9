/* SPDX-License-Identifier: MIT */
/* practice: a duel against a bot through the protocol: a one-room server on 127.0.0.1, the person's
 * network session and a network bot, all on one libuv loop, with a plain turn log. */
#ifndef WW_PRACTICE_H
#define WW_PRACTICE_H

#include "cold.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "app.h"
#include "game.h"
#include "netbot.h"
#include "proto.h"
#include "session_net.h"
#include "turnlog.h"
#include "view.h"

#define PRACTICE_BOT_MS 150  /* the bot's pause before each command, so that a person can follow it */

struct server;

struct practice_config {
	struct options opt;
	uint64_t seed;
	int bot_level;        /* enum bot_level */
	const char *name;     /* mine; cleaned and cut to a protocol name; NULL or "" gives "you" */
	const char *log_dir;  /* where practice-SEED.log goes (created); NULL: no turn log */
	unsigned bot_ms;      /* 0: PRACTICE_BOT_MS */
	int seat;             /* mine, 0 or 1 (a mirror rematch swaps it); the bot has the other */
};

struct practice {
	/* read-only */
	uint64_t seed;
	int port;              /* the server's, on 127.0.0.1 */
	char name[PLAYERS][TURNLOG_NAME_MAX]; /* player 0 the person (the host's seat), 1 the bot */
	char log_path[4096];   /* "" when no log is written */
	bool log_failed;
	char log_warning[300]; /* why there is no turn log though one was asked for; "" if none */
	bool have_final;       /* the duel ended: `final` is my view of its end, from the server's game */
	struct view final;

	int seat;              /* mine */
	unsigned duels;        /* played in this process, this one included */

	/* private */
	struct practice_config cfg; /* for a rematch; cfg.name points at name_arg */
	char name_arg[TURNLOG_NAME_MAX];
	bool restarting, srv_closed;
	uint64_t next_seed;
	int next_seat;
	uv_timer_t *restart;   /* a rematch waits on it until server, bot and my link have closed (malloc'd:
	                        * it is still closing when the struct starts again) */
	uv_loop_t *loop;
	struct app *app;
	struct server *srv;
	struct session_net sess;  /* the person's client: the same session as `wizwar join` */
	struct netbot bot;
	bool bot_on, bot_closed, quit, started, srv_closing;
	int level;
	unsigned bot_ms;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	FILE *log;
	bool log_ended;
};

/* Start the server (listening on 127.0.0.1, a free port) with the person's seat held, and the turn
 * log. Returns 0, or -1 with a reason in err; on -1 the loop must still be run until it is empty. */
WW_COLD int practice_init(struct practice *p, uv_loop_t *loop, const struct practice_config *cfg, char *err,
    size_t errlen);
/* The person's client and the bot join; the duel starts when both are in. 0, or -1 with a reason
 * (everything then closes: run the loop until it is empty). */
int practice_start(struct practice *p, struct app *app, char *err, size_t errlen);
/* After the loop ran dry: close the log. */
void practice_finish(struct practice *p);

/* The table for struct app_config.session; ctx is a struct practice. */
extern const struct session_ops practice_ops;

#endif
