/* session_local: game_apply() in process, a bot on a libuv timer, and a turn log flushed after every turn. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "bot.h"
#include "session_local.h"

static void __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* mkdir -p, for $XDG_STATE_HOME/wizwar and the like. */
static int
make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -1;
		buf[i] = c;
	}
	return 0;
}

static void
log_line(struct session_local *s, const char *line, int n)
{
	if (s->log == NULL || n < 0)
		return;
	if (fputs(line, s->log) == EOF)
		s->log_failed = true;
}

static void
log_flush(struct session_local *s)
{
	if (s->log && fflush(s->log) != 0)
		s->log_failed = true;
}

int
session_local_init(struct session_local *s, uv_loop_t *loop, const struct session_local_config *cfg,
    char *err, size_t errlen)
{
	struct turnlog_header h;
	char line[TURNLOG_LINE_MAX];
	int rc;

	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->seed = cfg->seed;
	s->level = cfg->bot_level;
	s->bot_ms = cfg->bot_ms ? cfg->bot_ms : SESSION_BOT_MS;
	if ((rc = game_init(&s->game, &cfg->opt, cfg->seed)) != ERR_OK) {
		fail(err, errlen, "cannot set up the duel: %s", err_text(rc));
		return -1;
	}
	/* The person is player 0, the bot player 1; who moves first the seed decides. */
	s->me = 0;
	s->bot = 1;
	rng_seed(&s->rng, rng_mix64(cfg->seed ^ 0xb07b07b07ULL ^ (uint64_t)s->bot));
	if (cfg->name && cfg->name[0])
		state_clean_text(s->name[0], sizeof s->name[0], cfg->name, strlen(cfg->name));
	if (s->name[0][0] == '\0')
		snprintf(s->name[0], sizeof s->name[0], "you");
	snprintf(s->name[1], sizeof s->name[1], "%s bot", bot_level_name(s->level));
	if (cfg->log_dir == NULL)
		return 0;
	if (make_dirs(cfg->log_dir) != 0) {
		fail(err, errlen, "cannot create %s: %s", cfg->log_dir, strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(s->log_path, sizeof s->log_path, "%s/practice-%016" PRIx64 ".log", cfg->log_dir,
	        cfg->seed) >= sizeof s->log_path) {
		fail(err, errlen, "the log directory's name is too long");
		return -1;
	}
	if ((s->log = fopen(s->log_path, "w")) == NULL) {
		fail(err, errlen, "cannot write %s: %s", s->log_path, strerror(errno));
		s->log_path[0] = '\0';
		return -1;
	}
	memset(&h, 0, sizeof h);
	h.format = TURNLOG_FORMAT;
	h.rules = RULES_VERSION;
	h.opt = cfg->opt;
	h.seed = cfg->seed;
	memcpy(h.name, s->name, sizeof h.name);
	rc = turnlog_format_header(&h, game_hash(&s->game), line, sizeof line);
	if (rc < 0) {
		fail(err, errlen, "cannot write the turn log's header");
		fclose(s->log);
		s->log = NULL;
		return -1;
	}
	log_line(s, line, rc);
	log_flush(s);
	return 0;
}

/* Give the person what they may know of this command: their view, their messages, the effects
 * on squares they saw before or see after. */
static void
deliver(struct session_local *s, const struct events *ev)
{
	struct fx_square fx[STATE_FX_MAX];
	struct msg msgs[EVENTS_MSG_MAX];
	struct view after;
	int nmsg = 0, nfx = 0, size = s->game.opt.size;

	view_build(&s->game, s->me, &after);
	for (int i = 0; ev && i < ev->nmsg; i++)
		if (ev->msg[i].to & (1u << s->me))
			msgs[nmsg++] = ev->msg[i];
	for (int y = 0; ev && ev->has_fx && y < size; y++)
		for (int x = 0; x < size; x++)
			if (ev->fx[y][x] && ((s->seen.cell[y][x] | after.cell[y][x]) & VCELL_VISIBLE))
				fx[nfx++] = (struct fx_square){ (uint8_t)x, (uint8_t)y, ev->fx[y][x] };
	s->seen = after;
	app_on_update(s->app, &after, msgs, nmsg, fx, nfx);
}

static void
record(struct session_local *s, int p, const struct cmd *c, const struct events *ev)
{
	char line[TURNLOG_LINE_MAX];

	log_line(s, line, turnlog_format_cmd(p, c, line, sizeof line));
	/* A command that ended a turn is followed by the state's hash, even when it ended the duel. */
	if (ev->turn_ended)
		log_line(s, line, turnlog_format_hash(s->game.turn_no, game_hash(&s->game), line, sizeof line));
	if (s->game.result != RESULT_NONE)
		log_line(s, line, turnlog_format_end(&s->game, line, sizeof line));
	/* Flushed after every command, so a crash or a kill loses nothing already played. */
	log_flush(s);
}

static void on_bot(uv_timer_t *t);

static void
schedule_bot(struct session_local *s)
{
	if (s->quit || !s->timer_open || s->game.result != RESULT_NONE || s->game.turn != s->bot)
		return;
	uv_timer_start(&s->timer, on_bot, s->bot_ms, 0);
}

static void
on_bot(uv_timer_t *t)
{
	struct session_local *s = t->data;
	struct events ev;
	struct view v;
	struct cmd c;

	if (s->quit || s->game.result != RESULT_NONE || s->game.turn != s->bot)
		return;
	view_build(&s->game, s->bot, &v);
	bot_choose(&v, s->level, &s->rng, &c);
	if (game_apply(&s->game, s->bot, &c, &ev) != ERR_OK) {
		/* The bot judged from its view alone; a refusal is legal play, so it passes. */
		c = (struct cmd){ CMD_PASS, 0, 0 };
		if (game_apply(&s->game, s->bot, &c, &ev) != ERR_OK)
			return;
	}
	record(s, s->bot, &c, &ev);
	deliver(s, &ev);
	schedule_bot(s);
}

static void
on_timer_close(uv_handle_t *h)
{
	struct session_local *s = h->data;

	s->timer_open = false;
}

void
session_local_start(struct session_local *s, struct app *app)
{
	s->app = app;
	app_set_name(app, s->me, s->name[s->me]);
	app_set_name(app, s->bot, s->name[s->bot]);
	uv_timer_init(s->loop, &s->timer);
	s->timer.data = s;
	s->timer_open = true;
	memset(&s->seen, 0, sizeof s->seen);
	char note[STATE_TEXT_MAX];
	snprintf(note, sizeof note, "Practice against the %s (seed %" PRIu64 "). ? shows the keys.", s->name[s->bot],
	    s->seed);
	app_on_status(app, note);
	deliver(s, NULL);
	schedule_bot(s);
}

static int
local_send_cmd(void *ctx, const struct cmd *c)
{
	struct session_local *s = ctx;
	struct events ev;
	int err;

	if (s->quit)
		return -1;
	err = game_apply(&s->game, s->me, c, &ev);
	if (err != ERR_OK) {
		app_on_refused(s->app, err);
		return -1;
	}
	record(s, s->me, c, &ev);
	deliver(s, &ev);
	schedule_bot(s);
	return 0;
}

static int
local_send_chat(void *ctx, const char *utf8)
{
	struct session_local *s = ctx;
	char clean[STATE_CHAT_MAX + 1], line[TURNLOG_LINE_MAX];

	if (s->quit || state_clean_text(clean, sizeof clean, utf8, strlen(utf8)) == 0)
		return -1;
	/* A server echoes chat to both players; here the echo is immediate. The log keeps it too. */
	log_line(s, line, turnlog_format_chat(s->me, clean, line, sizeof line));
	log_flush(s);
	app_on_chat(s->app, s->me, clean);
	return 0;
}

static void
local_quit(void *ctx)
{
	struct session_local *s = ctx;

	if (s->quit)
		return;
	s->quit = true;
	if (s->timer_open && !uv_is_closing((uv_handle_t *)&s->timer)) {
		uv_timer_stop(&s->timer);
		uv_close((uv_handle_t *)&s->timer, on_timer_close);
	}
}

void
session_local_finish(struct session_local *s)
{
	if (s->log) {
		if (fclose(s->log) != 0)
			s->log_failed = true;
		s->log = NULL;
	}
}

const struct session_ops session_local_ops = {
	.send_cmd = local_send_cmd,
	.send_chat = local_send_chat,
	.quit = local_quit,
};
