/* session_local: a duel in this process against a bot, behind the same session seam as the network. */
#ifndef WW_SESSION_LOCAL_H
#define WW_SESSION_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "app.h"
#include "game.h"
#include "rng.h"
#include "turnlog.h"
#include "view.h"

#define SESSION_BOT_MS 150 /* a bot's step, paced so that a person can follow it */

struct session_local_config {
	struct options opt;
	uint64_t seed;
	int bot_level;        /* enum bot_level */
	const char *name;     /* mine; cleaned; NULL or "" gives "you" */
	const char *log_dir;  /* where practice-SEED.log goes; NULL: no turn log */
	unsigned bot_ms;      /* 0: SESSION_BOT_MS */
};

struct session_local {
	/* read-only */
	struct game game;
	uint64_t seed;
	int me, bot;
	char log_path[4096];   /* "" when no log is written */
	char name[PLAYERS][TURNLOG_NAME_MAX];

	/* private */
	uv_loop_t *loop;
	struct app *app;
	uv_timer_t timer;      /* the bot's next step */
	bool timer_open, quit;
	int level;
	unsigned bot_ms;
	struct rng rng;        /* the bot's own, never the game's */
	struct view seen;      /* my view as last delivered: effects are shown where I saw them */
	FILE *log;
	bool log_failed;
};

/* Set up the duel and the turn log (creating log_dir). Returns 0, or -1 with a reason in err. */
int session_local_init(struct session_local *s, uv_loop_t *loop, const struct session_local_config *cfg,
    char *err, size_t errlen);
/* Connect to an app: names, the first view, and the bot's first move if it starts. */
void session_local_start(struct session_local *s, struct app *app);
/* Close the log (with its end line when the duel ended). The timer must be closed (quit). */
void session_local_finish(struct session_local *s);

/* The table for struct app_config.session; ctx is a struct session_local. */
extern const struct session_ops session_local_ops;

#endif
