/* SPDX-License-Identifier: MIT */
/* cmd_practice: `wizwar practice`: the curses client against a network bot, both on a one-room server on
 * 127.0.0.1 in this process, with a turn log. */
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "bot.h"
#include "cli.h"
#include "help.h"
#include "commands_ui.h"
#include "keys.h"
#include "practice.h"
#include "tutorial.h"
#include "ui.h"


static uint64_t
random_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
			s = 0;
		close(fd);
	}
	if (s == 0)
		s = rng_mix64(uv_hrtime() ^ ((uint64_t)getpid() << 32));
	return s;
}

static void
print_help(const struct keys *k)
{
	size_t n = keys_help(k, NULL, 0) + 1;
	char *buf = malloc(n);

	fputs(help_get(HELP_PRACTICE), stdout);
	if (buf) {
		keys_help(k, buf, n);
		fputs(buf, stdout);
		free(buf);
	}
	fputs(help_get(HELP_PRACTICE_SCREEN), stdout);
}

/* The tutorial's guide between the app and the practice session: it sees each command sent. */
struct guided {
	struct practice *prac;
	struct tutorial *tut;
	struct tutorial_streak *streak;
};

static int
guided_send_cmd(void *ctx, const struct cmd *c)
{
	struct guided *g = ctx;
	int rc = practice_ops.send_cmd(g->prac, c);

	if (rc == 0)
		tutorial_sent(g->tut, c);
	return rc;
}

static int
guided_send_chat(void *ctx, const char *utf8)
{
	return practice_ops.send_chat(((struct guided *)ctx)->prac, utf8);
}

static void
guided_quit(void *ctx)
{
	practice_ops.quit(((struct guided *)ctx)->prac);
}

static int
guided_rematch(void *ctx, bool mirror)
{
	return practice_ops.rematch(((struct guided *)ctx)->prac, mirror);
}

static const char *
guided_replay_log(void *ctx)
{
	return practice_ops.replay_log(((struct guided *)ctx)->prac);
}

static const struct session_ops guided_ops = {
	.send_cmd = guided_send_cmd,
	.send_chat = guided_send_chat,
	.quit = guided_quit,
	.rematch = guided_rematch,
	.replay_log = guided_replay_log,
};

static void
guided_state(void *ud, struct state *st)
{
	struct guided *g = ud;

	tutorial_watch(g->tut, st);
	tutorial_streak_watch(g->streak, st);
}

static void
streak_watch(void *ud, struct state *st)
{
	tutorial_streak_watch(ud, st);
}

/* The duel itself, practice's or the tutorial's (tut != NULL): the person's screen, the server and
 * the bot on one loop. Returns the exit status. */
static int
run(const struct practice_config *cfg, struct keys *keys, const struct keys_diag *diag, struct tutorial *tut)
{
	static struct practice prac; /* large, one per process */
	static char replay[4200];    /* v at the end: the log to watch once the duel screen has closed */
	static struct tutorial_streak streak;
	struct guided guided = { &prac, tut, &streak };
	struct ui ui;
	struct app *app = NULL;
	uv_loop_t loop;
	char err[256];
	int status = 1;
	bool ended = false; /* the duel came to its end (not left by a quit or a lost terminal) */

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("needs a terminal (try `wizwar selfplay` for headless duels)\n");
		return 1;
	}
	setlocale(LC_ALL, "");
	if (uv_loop_init(&loop) != 0) {
		cli_error("cannot start the event loop\n");
		return 1;
	}
	if (practice_init(&prac, &loop, cfg, err, sizeof err) != 0) {
		cli_error("%s\n", err);
		uv_run(&loop, UV_RUN_DEFAULT);
		goto out;
	}
	if ((app = malloc(sizeof *app)) == NULL) {
		cli_error("out of memory\n");
		practice_ops.quit(&prac);
		uv_run(&loop, UV_RUN_DEFAULT);
		goto out_practice;
	}
	ui_init(&ui, keys);
	struct app_config ac = {
		.loop = &loop, .keys = keys, .screen = &ui_screen_ops, .screen_ctx = &ui,
		.session = &practice_ops, .session_ctx = &prac, .input_fd = STDIN_FILENO,
	};
	tutorial_streak_init(&streak, cfg->bot_level);
	ac.on_state = tut ? guided_state : streak_watch;
	ac.on_state_ud = tut ? (void *)&guided : (void *)&streak;
	if (tut) {
		ac.session = &guided_ops;
		ac.session_ctx = &guided;
	}
	if (app_init(app, &ac) != 0) {
		cli_error("cannot start the terminal\n");
		free(app);
		app = NULL;
		practice_ops.quit(&prac);
		uv_run(&loop, UV_RUN_DEFAULT);
		goto out_practice;
	}
	for (unsigned i = 0; i < diag->n; i++)
		app_on_status(app, diag->msg[i]);
	if (prac.log_warning[0])
		app_on_status(app, prac.log_warning);
	if (practice_start(&prac, app, err, sizeof err) != 0) {
		app_quit(app, 1);
		app_run(app);
		app_finish(app);
		free(app);
		app = NULL;
		cli_error("%s\n", err);
		goto out_practice;
	}
	status = app_run(app);
	app_finish(app);
out_practice:
	practice_finish(&prac);
	if (app) {
		char result[200];
		/* The server's own end of the duel when it ended (a forfeit on the way out never reached the
		 * screen), else the last view shown. */
		if (prac.have_final) {
			app->st.view = prac.final;
			app->st.have_view = true;
		}
		state_result_text(&app->st, result, sizeof result);
		printf("%s\n", result[0] ? result : "The duel was left unfinished.");
		ended = result[0] != '\0';
		if (app_replay_path(app))
			snprintf(replay, sizeof replay, "%s", app_replay_path(app));
		free(app);
	}
	if (prac.log_path[0])
		printf("Turn log: %s%s\n", prac.log_path, prac.log_failed ? " (writing it failed)" : "");
	else if (prac.log_warning[0])
		cli_error("%s\n", prac.log_warning);
	/* On stderr too: stdout was the terminal that went, stderr may be a log that stays. */
	if (status == 128 + SIGHUP)
		cli_error("the terminal closed%s%s%s\n", ended ? "" : ": the duel is left unfinished",
		        prac.log_path[0] ? "; its turn log: " : "", prac.log_path);
out:
	/* Every handle closed: a leak here is a bug, as libuv's own tests insist. */
	if (uv_loop_close(&loop) != 0)
		cli_error("internal error: a libuv handle was left open\n");
	if (replay[0] && status == 0) {
		/* v at the end: the duel just played, all-seeing, in the replay viewer. */
		char *argv_replay[] = { replay, NULL };
		return cmd_watch(1, argv_replay);
	}
	return status;
}

int
cmd_practice(int argc, char **argv)
{
	struct practice_config cfg = { .bot_level = BOT_NORMAL };
	struct keys keys;
	struct keys_diag diag;
	char keypath[4096], logdir[4096];
	bool have_seed = false, want_log = true;

	const char *preset = NULL;
	options_default(&cfg.opt);
	keys_diag_init(&diag);
	const char *usage = help_get(HELP_PRACTICE);
	int args = cli_args("practice", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	/* The key preset first: --help lists the keys it gives. */
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], "--keys") == 0)
			preset = argv[i + 1];
	if (keys_setup_preset(&keys, preset, keypath, sizeof keypath, &diag) == -2) {
		cli_error("--keys takes default, numpad, vi or arrows, not '%s'\n", preset);
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		int r = cli_game_option(argc, argv, &i, &cfg.opt);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_help(&keys);
			return 0;
		} else if (strcmp(argv[i], "--bot") == 0 && i + 1 < argc) {
			if ((cfg.bot_level = bot_level_lookup(argv[++i])) < 0) {
				cli_error("--bot takes random, novice, easy, normal, hard or master, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			if (!cli_seed(argv[++i], &cfg.seed))
				return 2;
			have_seed = true;
		} else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
			cfg.name = argv[++i];
		} else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc) {
			i++; /* read above */
		} else if (strcmp(argv[i], "--no-log") == 0) {
			want_log = false;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (!have_seed)
		cfg.seed = random_seed();
	if (want_log) {
		if (cli_state_dir(logdir, sizeof logdir))
			cfg.log_dir = logdir;
		else
			cli_error("neither XDG_STATE_HOME nor HOME is set: no turn log\n");
	}
	return run(&cfg, &keys, &diag, NULL);
}

int
cmd_tutorial(int argc, char **argv)
{
	/* A fixed small duel against the weakest thinking bot, the person moving first (tutorial.h
	 * says why this seed). */
	struct practice_config cfg = { .bot_level = BOT_NOVICE, .seed = TUTORIAL_SEED };
	static struct tutorial tut;
	struct keys keys;
	struct keys_diag diag;
	char keypath[4096], logdir[4096];
	const char *preset = NULL, *usage = help_get(HELP_TUTORIAL);
	bool want_log = true;

	options_default(&cfg.opt);
	cfg.opt.size = TUTORIAL_SIZE;
	keys_diag_init(&diag);
	int args = cli_args("tutorial", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], "--keys") == 0)
			preset = argv[i + 1];
	if (keys_setup_preset(&keys, preset, keypath, sizeof keypath, &diag) == -2) {
		cli_error("--keys takes default, numpad, vi or arrows, not '%s'\n", preset);
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
			cfg.name = argv[++i];
		} else if (strcmp(argv[i], "--keys") == 0 && i + 1 < argc) {
			i++; /* read above */
		} else if (strcmp(argv[i], "--no-log") == 0) {
			want_log = false;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (want_log && cli_state_dir(logdir, sizeof logdir))
		cfg.log_dir = logdir;
	tutorial_init(&tut);
	return run(&cfg, &keys, &diag, &tut);
}
