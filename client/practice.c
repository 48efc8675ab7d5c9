/* SPDX-License-Identifier: MIT */
/* practice: `wizwar practice` through the protocol: server, the person's client and a network bot on one loop. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot.h"
#include "cli.h"
#include "practice.h"
#include "server.h"
#include "text.h"
#include "turnlog.h"

static void
fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The turn log: written here, from the server's hook, in the plain format; flushed after every command. */

static void
log_line(struct practice *p, const char *line, int n)
{
	if (p->log == NULL || n < 0)
		return;
	if (fputs(line, p->log) == EOF)
		p->log_failed = true;
}

static void
log_flush(struct practice *p)
{
	if (p->log && fflush(p->log) != 0)
		p->log_failed = true;
}

static int
log_open(struct practice *p, const struct practice_config *cfg, char *err, size_t errlen)
{
	struct turnlog_header h;
	char line[TURNLOG_LINE_MAX];
	struct game *g;
	int rc;

	if (cli_make_dirs(cfg->log_dir) != 0) {
		fail(err, errlen, "cannot create %s: %s", cfg->log_dir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(p->log_path, sizeof p->log_path, "%s/practice-%016" PRIx64 ".log", cfg->log_dir,
	        cfg->seed) >= sizeof p->log_path - 8) {
		p->log_path[0] = '\0';
		fail(err, errlen, "the log directory's name is too long");
		return -1;
	}
	/* The server starts its duel from the same options and seed: the same first state. */
	if ((g = malloc(sizeof *g)) == NULL) {
		p->log_path[0] = '\0';
		fail(err, errlen, "out of memory");
		return -1;
	}
	if ((rc = game_init(g, &cfg->opt, cfg->seed)) != ERR_OK) {
		free(g);
		p->log_path[0] = '\0';
		fail(err, errlen, "cannot set up the duel: %s", err_text(rc));
		return -1;
	}
	memset(&h, 0, sizeof h);
	h.format = TURNLOG_FORMAT;
	h.rules = RULES_VERSION;
	h.opt = cfg->opt;
	h.seed = cfg->seed;
	for (int i = 0; i < PLAYERS; i++)
		snprintf(h.name[i], sizeof h.name[i], "%s", p->name[i]);
	rc = turnlog_format_header(&h, game_hash(g), line, sizeof line);
	free(g);
	if (rc < 0) {
		p->log_path[0] = '\0';
		fail(err, errlen, "cannot write the turn log's header");
		return -1;
	}
	/* A seed played again gets practice-SEED-2.log, -3 ...: an earlier duel's log is never
	 * overwritten. */
	int fd = cli_create_log(p->log_path, sizeof p->log_path);
	if (fd < 0 || (p->log = fdopen(fd, "w")) == NULL) {
		fail(err, errlen, "cannot write %s: %s", p->log_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		p->log_path[0] = '\0';
		return -1;
	}
	log_line(p, line, rc);
	log_flush(p);
	return 0;
}

/* The server applied a command (the person's, the bot's or a forfeit): log it, and keep my view of the end. */
static void
on_applied(void *ud, struct gameroom *r, int pl, const struct cmd *c, const struct events *ev)
{
	struct practice *p = ud;
	const struct game *g = room_game(r);
	char line[TURNLOG_LINE_MAX];

	if (p->log_ended)
		return;
	log_line(p, line, turnlog_format_cmd(pl, c, line, sizeof line));
	/* A command that ended a turn is followed by the state's hash, even when it ended the duel. */
	if (ev->turn_ended)
		log_line(p, line, turnlog_format_hash(g->turn_no, game_hash(g), line, sizeof line));
	if (g->result != RESULT_NONE) {
		log_line(p, line, turnlog_format_end(g, line, sizeof line));
		/* From the game itself: a forfeit sent on the way out never reaches the screen. */
		view_build(g, p->sess.me, &p->final);
		p->have_final = true;
		p->log_ended = true;
	}
	log_flush(p);
}

/* A chat line as the server relayed it to the person: logged while the duel is played, as a server does. */
static void
on_chat(void *ud, int from, const char *text)
{
	struct practice *p = ud;
	struct gameroom *r = p->srv && !p->srv_closing ? server_room(p->srv, NULL) : NULL;
	char clean[STATE_CHAT_MAX + 1], line[TURNLOG_LINE_MAX];

	if (p->log == NULL || p->log_ended || r == NULL || !room_playing(r))
		return;
	if (state_clean_text(clean, sizeof clean, text, strlen(text)) == 0)
		return;
	log_line(p, line, turnlog_format_chat(from, clean, line, sizeof line));
	log_flush(p);
}

int
practice_init(struct practice *p, uv_loop_t *loop, const struct practice_config *cfg, char *err, size_t errlen)
{
	struct server_config sc;
	char why[300];
	int rc;

	unsigned duels = p->duels;
	char name[TURNLOG_NAME_MAX];

	/* cfg may be p->cfg's copy, its name p->name_arg: both are read before the struct is cleared. */
	snprintf(name, sizeof name, "%s", cfg->name ? cfg->name : "");
	struct practice_config keep = *cfg;
	cfg = &keep;
	memset(p, 0, sizeof *p);
	p->duels = duels + 1;
	p->cfg = *cfg;
	snprintf(p->name_arg, sizeof p->name_arg, "%s", name);
	keep.name = p->name_arg;
	p->cfg.name = p->name_arg;
	p->seat = cfg->seat == 1 ? 1 : 0;
	p->loop = loop;
	p->seed = cfg->seed;
	p->level = cfg->bot_level;
	p->bot_ms = cfg->bot_ms ? cfg->bot_ms : PRACTICE_BOT_MS;
	if ((rc = options_check(&cfg->opt)) != ERR_OK) {
		fail(err, errlen, "cannot set up the duel: %s", err_text(rc));
		return -1;
	}
	/* Names as the protocol takes them (cut to fit a turn log's too); the bot's must differ from mine. */
	int me = p->seat, bot = 1 - p->seat;
	if (cfg->name == NULL ||
	    text_clean(p->name[me], TURNLOG_NAME_MAX, cfg->name, strlen(cfg->name), TEXT_NAME) <= 0)
		snprintf(p->name[me], sizeof p->name[me], "you");
	snprintf(p->name[bot], sizeof p->name[bot], "%s bot", bot_level_name(p->level));
	if (strcmp(p->name[me], p->name[bot]) == 0)
		snprintf(p->name[bot], sizeof p->name[bot], "%s bot 2", bot_level_name(p->level));
	/* A log that cannot be written costs the record, not the duel: play on with a warning, as host
	 * and server do. */
	if (cfg->log_dir && log_open(p, cfg, p->log_warning, sizeof p->log_warning) != 0) {
		size_t n = strlen(p->log_warning);
		snprintf(p->log_warning + n, sizeof p->log_warning - n, "; no turn log");
	}

	server_config_default(&sc);
	sc.bind = "127.0.0.1"; /* never a public interface */
	sc.port = 0;
	sc.multi = false;
	sc.opt = cfg->opt;
	sc.turn_time = 0;
	sc.seed_fixed = true;
	sc.seed = cfg->seed;
	sc.log_dir = NULL;     /* the practice log is written here, from the hook */
	sc.quiet = true;       /* log lines would write over the screen */
	sc.hooks.ud = p;
	sc.hooks.applied = on_applied;
	if (server_create(loop, &sc, &p->srv, why, sizeof why) != 0) {
		fail(err, errlen, "cannot start the practice server: %s", why);
		p->srv = NULL;
		goto fail_log;
	}
	p->port = server_port(p->srv);
	/* The person holds its seat (0 unless a mirror rematch swapped it), as the host of a one-room
	 * server: the bot can only take the other. */
	if (server_reserve_seat(p->srv, p->seat, p->name[p->seat], p->token, &p->token_len) != 0) {
		fail(err, errlen, "no seat for the player");
		server_close(p->srv, NULL, NULL);
		p->srv = NULL;
		goto fail_log;
	}
	return 0;
fail_log:
	if (p->log) {
		fclose(p->log);
		p->log = NULL;
		remove(p->log_path);
		p->log_path[0] = '\0';
	}
	return -1;
}

/* Leaving: the session closes the server once it has taken the person's BYE (a forfeit in a duel, so
 * that the log ends as the duel did); the bot goes just before, never racing the person's BYE. */
static void
on_settled(void *ud)
{
	struct practice *p = ud;

	p->srv_closing = true;
	if (p->bot_on && !p->bot_closed)
		netbot_stop(&p->bot);
}

/* Before the session runs (a failed start): close what is open. */
static void
close_early(struct practice *p)
{
	if (p->sess.net)
		net_close(p->sess.net);
	if (p->srv && !p->srv_closing) {
		p->srv_closing = true;
		server_close(p->srv, NULL, NULL);
	}
}

static void
on_bot_closed(void *ud, struct netbot *b)
{
	struct practice *p = ud;
	char why[900];

	p->bot_closed = true;
	if (!p->quit && !p->restarting && p->app) {
		snprintf(why, sizeof why, "The bot has left the duel%s%s.", b->last_why[0] ? ": " : "", b->last_why);
		app_on_end(p->app, why);
	}
}

int
practice_start(struct practice *p, struct app *app, char *err, size_t errlen)
{
	struct net_config nc;
	struct netbot_config bc;
	char why[300], note[STATE_TEXT_MAX];

	p->app = app;
	app_set_name(app, 0, p->name[0]);
	app_set_name(app, 1, p->name[1]);
	snprintf(note, sizeof note, "Practice against the %s (seed %" PRIu64 ", you are player %d). ? shows the keys.",
	    p->name[1 - p->seat], p->seed, p->seat + 1);
	app_on_status(app, note);

	/* The person: the same network session as `wizwar join`, into the host's seat. */
	memset(&p->sess, 0, sizeof p->sess);
	p->sess.practice = true;
	p->sess.hook_ud = p;
	p->sess.on_chat = on_chat;
	p->sess.on_settled = on_settled;
	p->sess.log_path = p->log_path[0] ? p->log_path : NULL;
	net_config_default(&nc);
	nc.host = "127.0.0.1";
	nc.port = p->port;
	nc.name = p->name[p->seat];
	nc.server_key = server_public_key(p->srv); /* the server made here: no fingerprint to ask about */
	nc.token = p->token;
	nc.token_len = p->token_len;
	session_net_events(&p->sess, &nc);
	if ((p->sess.net = net_create(p->loop, &nc, why, sizeof why)) == NULL) {
		fail(err, errlen, "cannot join the practice server: %s", why);
		p->quit = true;
		close_early(p);
		return -1;
	}

	/* The bot: a network player that decides on the view it is sent, and nothing else. */
	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	bc.net.host = "127.0.0.1";
	bc.net.port = p->port;
	bc.net.name = p->name[1 - p->seat];
	bc.net.server_key = server_public_key(p->srv);
	bc.net.role = ROLE_BOT;
	bc.level = p->level;
	bc.seed = rng_mix64(p->seed ^ 0xb07b07b07ULL ^ 1u); /* its own stream, fixed by the duel's seed */
	bc.games = 0;        /* it stays until the server goes: the person leaves first */
	bc.think_ms = p->bot_ms;
	bc.ready = true;
	bc.quiet = true;     /* nothing on stderr under the screen */
	bc.ud = p;
	bc.on_closed = on_bot_closed;
	if (netbot_start(&p->bot, p->loop, &bc, why, sizeof why) != 0) {
		fail(err, errlen, "cannot start the bot: %s", why);
		p->quit = true;
		close_early(p);
		return -1;
	}
	p->bot_on = true;
	session_net_start(&p->sess, app, p->sess.net, p->srv);
	p->started = true;
	return 0;
}

static int
practice_send_cmd(void *ctx, const struct cmd *c)
{
	struct practice *p = ctx;

	return session_net_ops.send_cmd(&p->sess, c);
}

static int
practice_send_chat(void *ctx, const char *utf8)
{
	struct practice *p = ctx;

	return session_net_ops.send_chat(&p->sess, utf8);
}

/* ---- rematch: everything of the last duel closes, then a new server, bot and link on the same loop ---- */

static void
on_restart_closed(uv_handle_t *h)
{
	free(h);
}

static void
on_old_server_closed(void *ud)
{
	struct practice *p = ud;

	p->srv_closed = true;
}

static void
on_restart_poll(uv_timer_t *t)
{
	struct practice *p = t->data;
	struct practice_config cfg;
	struct app *app = p->app;
	char err[300], last[4096 + 40];

	if (p->quit) {
		uv_close((uv_handle_t *)t, on_restart_closed);
		return;
	}
	if (p->sess.net != NULL || !p->bot_closed || !p->srv_closed)
		return;
	/* Everything of the last duel is closed: the struct is free to start again. */
	uv_close((uv_handle_t *)t, on_restart_closed);
	snprintf(last, sizeof last, "%s", p->log_path);
	cfg = p->cfg;
	cfg.seed = p->next_seed;
	cfg.seat = p->next_seat;
	if (practice_init(p, p->loop, &cfg, err, sizeof err) != 0 || practice_start(p, app, err, sizeof err) != 0) {
		p->quit = true;
		app_on_end(app, err);
		return;
	}
	if (last[0]) {
		char note[sizeof last + 32];
		snprintf(note, sizeof note, "The last duel's turn log: %s", last);
		app_on_status(app, note);
	}
}

static const char *
practice_replay_log(void *ctx)
{
	struct practice *p = ctx;

	return p->have_final && p->log_path[0] && !p->log_failed ? p->log_path : NULL;
}

static int
practice_rematch(void *ctx, bool mirror)
{
	struct practice *p = ctx;

	if (p->quit || p->restarting || !p->started || !p->have_final)
		return -1;
	p->restarting = true;
	p->next_seed = mirror ? p->seed : rng_mix64(p->seed ^ uv_hrtime());
	p->next_seat = mirror ? 1 - p->seat : p->seat;
	if (p->log) {
		if (fclose(p->log) != 0)
			p->log_failed = true;
		p->log = NULL;
	}
	app_on_status(p->app, mirror ? "A mirror rematch: the same level, the seats swapped..." : "A rematch on a new level...");
	p->sess.quit = true; /* its link closing is not news */
	if (p->sess.net)
		net_close(p->sess.net);
	if (p->bot_on && !p->bot_closed)
		netbot_stop(&p->bot);
	else
		p->bot_closed = true;
	p->srv_closing = true;
	server_close(p->srv, on_old_server_closed, p);
	if ((p->restart = malloc(sizeof *p->restart)) == NULL) {
		p->quit = true;
		app_on_end(p->app, "out of memory");
		return -1;
	}
	uv_timer_init(p->loop, p->restart);
	p->restart->data = p;
	uv_timer_start(p->restart, on_restart_poll, 10, 10);
	return 0;
}

static void
practice_quit(void *ctx)
{
	struct practice *p = ctx;

	if (p->quit)
		return;
	p->quit = true;
	if (p->started)
		session_net_ops.quit(&p->sess); /* BYE: a duel in progress is forfeited; then the server closes */
	else
		close_early(p);
}

void
practice_finish(struct practice *p)
{
	if (p->log) {
		if (fclose(p->log) != 0)
			p->log_failed = true;
		p->log = NULL;
	}
}

const struct session_ops practice_ops = {
	.send_cmd = practice_send_cmd,
	.send_chat = practice_send_chat,
	.quit = practice_quit,
	.rematch = practice_rematch,
	.replay_log = practice_replay_log,
};
