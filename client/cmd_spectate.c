/* SPDX-License-Identifier: MIT */
/* cmd_spectate: `wizwar watch SERVER [ROOM]`: a live duel in the curses client as a spectator, shown as the room allows. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "cmd_net.h"
#include "commands_ui.h"
#include "help.h"
#include "ident.h"
#include "keys.h"
#include "spect.h"
#include "text.h"
#include "ui.h"

/* A spectator never plays: the app's commands go nowhere, its chat to the other spectators. */
struct spectate {
	uv_loop_t *loop;
	struct app *app;
	struct net *net;
	struct net_config nc;
	const char *room;
	struct view view;          /* the last frame's view */
	struct wire_sinfo info;
	bool have_info, ever_joined, quitting;
	int kind_shown;            /* the kind of frame last said in the log; -1 none */
	int last_code;             /* the last error's code: PERR_SERVER (a link lost or refused) is tried again */
	char last_why[PROTO_REASON_BYTES + 64];
	uint64_t lost_at;          /* 0: not lost */
	uv_timer_t retry;
	bool retry_open;
	char line[800];
	char where[300];           /* the server watched again from after a lost link ("" before) */
	char live[360];
};

static void
update_line(struct spectate *w)
{
	char what[160] = "waiting for the room";
	const struct wire_sinfo *i = &w->info;

	if (w->have_info) /* the decoder keeps i->player to 0 or 1 */
		spect_mode_text(i->mode, i->delay, w->app->st.name[i->player], what, sizeof what);
	/* Where from, once the room was looked for again (its node died, another took it over): said
	 * here, where it stays, as well as in the log, which moves on. */
	if (w->where[0])
		snprintf(w->live, sizeof w->live, "Live; watching again from %s.", w->where);
	else
		snprintf(w->live, sizeof w->live, "Live.");
	snprintf(w->line, sizeof w->line, "Spectator%s%s: %s; %u watching\n%s\nEnter chat (spectators only)  [ ] log  ? help  Q quit",
	         w->room[0] ? " in room " : "", w->room, what, w->have_info ? (unsigned)i->count : 0u,
	         w->app->st.have_view && w->app->st.view.result == RESULT_NONE ? w->live :
	         w->app->st.have_view ? "The duel is over: everything is shown." : "No view yet.");
	w->app->st.replay_line = w->line;
}

/* ---- net events ---- */

static void
ev_welcome(void *ud, struct net *n, int player, bool controller)
{
	struct spectate *w = ud;

	(void)n;
	(void)player;
	(void)controller;
	w->lost_at = 0;
	if (!w->ever_joined) /* not again at each link back (ev_link says that) */
		app_on_status(w->app, "You watch as a spectator: the players never see your chat.");
	w->ever_joined = true;
}

static void
ev_lobby(void *ud, struct net *n, const struct wire_lobby *l)
{
	struct spectate *w = ud;

	(void)n;
	for (int p = 0; p < PLAYERS; p++)
		if (l->name[p][0])
			app_set_name(w->app, p, l->name[p]);
	update_line(w);
	app_redraw(w->app);
}

static void
ev_spect_info(void *ud, struct net *n, const struct wire_sinfo *i)
{
	struct spectate *w = ud;

	(void)n;
	w->info = *i;
	w->have_info = true;
	update_line(w);
	app_redraw(w->app);
}

static void
ev_spect_view(void *ud, struct net *n, const struct wire_sview *sv)
{
	struct spectate *w = ud;
	struct view v;
	struct proto_err e;

	/* Every frame is whole: applied to nothing, it is the view. */
	update_blank(&v);
	if (update_apply(&v, &sv->view, &e) != 0) {
		app_on_status(w->app, e.why);
		net_close(n);
		return;
	}
	if (sv->kind < SPECT_KIND_COUNT && sv->kind != w->kind_shown) {
		char buf[120];
		snprintf(buf, sizeof buf, "You see %s.", spect_kind_text(sv->kind));
		app_on_status(w->app, buf);
		w->kind_shown = sv->kind;
	}
	w->view = v;
	w->app->st.me_state = sv->me_state;
	app_on_update(w->app, &v, NULL, 0, NULL, 0);
	update_line(w);
}

static void
ev_spect_chat(void *ud, struct net *n, const char *name, const char *text)
{
	struct spectate *w = ud;
	char buf[PROTO_NAME_BYTES + PROTO_CHAT_BYTES + 8];

	(void)n;
	snprintf(buf, sizeof buf, "<%s> %s", name, text);
	app_on_status(w->app, buf);
}

static void
ev_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct spectate *w = ud;

	(void)n;
	if (fatal) {
		/* Said once, by app_on_end when the link has closed (or a note while it is tried again). */
		w->last_code = code;
		snprintf(w->last_why, sizeof w->last_why, "%s", text);
		return;
	}
	app_on_status(w->app, text);
}

static void
ev_key(void *ud, struct net *n, int how, const char *fingerprint)
{
	struct spectate *w = ud;
	char buf[300];

	(void)n;
	snprintf(buf, sizeof buf, "%s (%s)", cmd_net_key_how(how), fingerprint);
	app_on_status(w->app, buf);
}

/* The link dropped and came back (net.c looks for the room again by itself: the same server, or
 * in a cluster the nodes it named, where the node that took the duel over sends a fresh view). */
static void
ev_link(void *ud, struct net *n, bool up, const char *why)
{
	struct spectate *w = ud;
	char buf[400], where[300];

	if (!up) {
		snprintf(buf, sizeof buf, "Connection lost (%s): looking for the room again...", why ? why : "?");
		app_on_status(w->app, buf);
		return;
	}
	net_server_label(n, where, sizeof where);
	snprintf(w->where, sizeof w->where, "%s", where);
	snprintf(buf, sizeof buf, "Watching again, from %s.", where);
	update_line(w);
	app_on_status(w->app, buf);
}

static void connect_now(struct spectate *w);

static void
on_retry(uv_timer_t *t)
{
	struct spectate *w = t->data;

	if (!w->quitting && w->net == NULL)
		connect_now(w);
}

static void
ev_closed(void *ud, struct net *n)
{
	struct spectate *w = ud;
	uint64_t now = uv_now(w->loop);

	(void)n;
	w->net = NULL;
	if (w->quitting)
		return;
	/* A link lost or refused (a server restarting, with --resume bringing its rooms back) is
	 * tried again, once a second, for --reconnect; a refusal (no spectators, no such room, a
	 * wrong password or key) is not. */
	if (w->ever_joined && w->last_code == PERR_SERVER) {
		if (w->lost_at == 0)
			w->lost_at = now;
		if (now - w->lost_at < w->nc.reconnect_for_ms) {
			app_on_note(w->app, "connection lost: trying again...");
			w->last_code = PERR_OK;
			uv_timer_start(&w->retry, on_retry, w->nc.reconnect_ms, 0);
			return;
		}
	}
	app_on_end(w->app, w->last_why[0] ? w->last_why : "the connection closed");
}

static void
connect_now(struct spectate *w)
{
	char why[300];

	w->nc.ud = w;
	w->nc.ev = (struct net_events){
		.welcome = ev_welcome, .lobby = ev_lobby, .error = ev_error, .closed = ev_closed, .key = ev_key, .link = ev_link,
		.spect_view = ev_spect_view, .spect_chat = ev_spect_chat, .spect_info = ev_spect_info,
	};
	if ((w->net = net_create(w->loop, &w->nc, why, sizeof why)) == NULL) {
		app_on_end(w->app, why);
		return;
	}
}

/* ---- the session seam ---- */

static int
send_cmd(void *ctx, const struct cmd *c)
{
	(void)ctx;
	(void)c;
	return 0; /* a spectator has no wizard: keys that would move one do nothing */
}

static int
send_chat(void *ctx, const char *utf8)
{
	struct spectate *w = ctx;

	if (w->net == NULL || !net_spectator(w->net))
		return -1;
	return net_spect_chat(w->net, utf8);
}

static void
on_retry_closed(uv_handle_t *h)
{
	struct spectate *w = h->data;

	w->retry_open = false;
}

static void
quit(void *ctx)
{
	struct spectate *w = ctx;

	w->quitting = true;
	if (w->retry_open && !uv_is_closing((uv_handle_t *)&w->retry))
		uv_close((uv_handle_t *)&w->retry, on_retry_closed);
	if (w->net)
		net_close(w->net);
}

static const struct session_ops spectate_session = { .send_cmd = send_cmd, .send_chat = send_chat, .quit = quit };

int
cmd_spectate(int argc, char **argv)
{
	static struct spectate w;
	static struct cmd_net_pw pw;
	const char *addr = NULL, *preset = NULL, *usage = help_get(HELP_SPECTATE);
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	bool have_fp;
	struct keys keys;
	struct ui ui;
	struct app *app;
	uv_loop_t loop;
	int r, status = 1;

	memset(&w, 0, sizeof w);
	net_config_default(&w.nc);
	w.nc.role = ROLE_SPECTATOR;
	w.nc.name = cmd_net_default_name("guest");
	w.nc.verify = false;
	w.room = "";
	w.kind_shown = -1;
	const char *room = NULL;
	int args = cli_args2("watch", usage, &argc, &argv, &addr, &room);
	if (args >= 0)
		return args;
	if (room) {
		if (!cmd_net_text_arg(room, TEXT_ROOM, "ROOM"))
			return 2;
		w.room = room;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if ((r = cmd_net_password_option(argc, argv, &i, &pw, "watch")) < 0)
			return 2;
		if (r > 0)
			continue;
		if (cmd_net_is_help(a)) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!cmd_net_text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			w.nc.name = argv[i];
		} else if (strcmp(a, "--reconnect") == 0 && more) {
			long v;
			if (!cli_int(argv[++i], 1, 86400, "--reconnect", &v))
				return 2;
			w.nc.reconnect_for_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--keys") == 0 && more) {
			if (!cmd_net_keys_arg(argv[++i], "watch"))
				return 2;
			preset = argv[i];
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else if (a[0] != '-' && !w.room[0]) {
			if (!cmd_net_text_arg(a, TEXT_ROOM, "ROOM"))
				return 2;
			w.room = a;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, usage);
			return 2;
		}
	}
	if (addr == NULL) {
		cli_error("whose duel? (HOST[:PORT] [ROOM])\n%s", usage);
		return 2;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (!cmd_net_split_fingerprint(addrbuf, fp, &have_fp, "watch"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &w.nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 2;
	}
	w.nc.host = host;
	w.nc.room = w.room;
	if (!cmd_net_have_terminal("watch"))
		return 1;
	/* The person's own key, as `join` proves it: a server with a store gives a name to the first key
	 * that used it, so a key made anew for each connection would lose the name at the first
	 * reconnection (a server restarted with --resume refused the spectator it had just had). */
	static struct auth_ident ident;
	if (auth_init() != 0 || !ident_get(NULL, IDENT_PLAYER, &ident) ||
	    !cmd_net_password_get(&pw, "watch", "Password: ", &w.nc.password))
		return 1;
	w.nc.ident = &ident; /* net_create copies it, at every connection */
	cmd_net_client_trust(&w.nc, fp, have_fp, known, sizeof known);
	setlocale(LC_ALL, "");
	keys_init(&keys);
	if (preset)
		keys_preset(&keys, preset);
	if (uv_loop_init(&loop) != 0)
		return 1;
	if ((app = malloc(sizeof *app)) == NULL)
		goto out_loop;
	ui_init(&ui, &keys);
	struct app_config ac = {
		.loop = &loop, .keys = &keys, .screen = &ui_screen_ops, .screen_ctx = &ui,
		.session = &spectate_session, .session_ctx = &w, .input_fd = STDIN_FILENO,
	};
	if (app_init(app, &ac) != 0) {
		cli_error("cannot start the terminal\n");
		free(app);
		goto out_loop;
	}
	w.loop = &loop;
	w.app = app;
	app->st.allseeing = true;
	app->st.spectator = true;
	app->st.help_text = usage;
	uv_timer_init(&loop, &w.retry);
	w.retry.data = &w;
	w.retry_open = true;
	update_line(&w);
	connect_now(&w);
	app_redraw(app);
	status = app_run(app);
	app_finish(app);
	free(app);
out_loop:
	cmd_net_password_wipe(&pw);
	if (cmd_net_finish_loop(&loop) != 0)
		status = status ? status : 1;
	return status;
}
