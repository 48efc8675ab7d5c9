/* SPDX-License-Identifier: MIT */
/* cmd_host: `wizwar host`: a one-room server in this process, played from this terminal (or headless). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "lan.h"
#include "portmap_cli.h"
#include "text.h"
#ifdef WW_HAVE_WEB
#include "web.h"
#endif

static const char *
server_own_host(const char *bound)
{
	if (strcmp(bound, "::") == 0 || strcmp(bound, "0.0.0.0") == 0)
		return "localhost";
	return bound;
}

struct hostctx {
	struct server *srv;
	struct cmd_net_again again; /* the command line, for the resume command */
	struct portmap_cli map;     /* the router's forwarding of our port, unless --no-upnp */
	struct web *web;            /* --web, or NULL */
};

/* The spectators' page stops with the duel's screen (its pages watch the one room), before the
 * server closes. */
static void
stop_web(struct hostctx *x)
{
#ifdef WW_HAVE_WEB
	web_stop(x->web);
#endif
	x->web = NULL;
}

static void
stop_host(void *ud)
{
	struct hostctx *x = ud;
	const char *log = server_duel_log(x->srv);

	if (log) {
		char line[8192];
		cmd_net_resume_line(line, sizeof line, x->again.cmd, x->again.argc, x->again.argv, x->again.port, log);
		cli_error("stopped mid-duel: `%s` brings it back\n", line);
	}
	portmap_cli_stop(&x->map);
	stop_web(x);
	server_close(x->srv, NULL, NULL);
}

static void
stop_map(void *ud)
{
	portmap_cli_stop(&((struct hostctx *)ud)->map);
	stop_web(ud);
}

/*
 * `--web ADDR:PORT`: the page of `server --web` for this host's room, on this process's loop.
 * Its offscreen screen is made here, before the host's own terminal screen (ui.c allows them in
 * that order). The address said is the one given, else the join line's; a host with a password
 * lists nothing, so the room's own link is said instead (its server log is not shown). -1 and
 * why, or 0 with the words for the banner in `said`.
 */
static int
start_web(struct hostctx *x, uv_loop_t *loop, const char *arg, const char *join_addr, char *said, size_t len)
{
#ifdef WW_HAVE_WEB
	char why[300], host[80], frag[400] = "";
	const char *colon = strrchr(arg, ':');
	struct server_room_info room;

	if (web_start(loop, x->srv, arg, &x->web, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return -1;
	}
	web_list_own(x->web);
	if (colon && colon > arg && !(colon - arg == 2 && arg[0] == '[') && (size_t)(colon - arg) < sizeof host &&
	    strncmp(arg, "0.0.0.0:", 8) != 0 && strncmp(arg, "[::]:", 5) != 0)
		snprintf(host, sizeof host, "%.*s", (int)(colon - arg), arg);
	else
		snprintf(host, sizeof host, "%s", join_addr);
	if (server_private(x->srv) && server_rooms_list(x->srv, &room, 1) == 1)
		web_room_fragment(x->web, room.code, frag, sizeof frag);
	snprintf(said, len, " Spectators' web page: http://%s:%d/%s", host, web_port(x->web), frag);
	return 0;
#else
	(void)x;
	(void)loop;
	(void)arg;
	(void)join_addr;
	(void)said;
	(void)len;
	cli_error("--web: this wizwar was built without libwebsockets (meson option websockets)\n");
	return -1;
#endif
}

int
cmd_host(int argc, char **argv)
{
	struct server_config cfg;
	struct server *srv;
	struct net_config nc;
	struct cmd_net_stopper st;
	static struct cmd_net_pw pw;
	struct cmd_net_places pl = { NULL, NULL };
	static struct auth_identity id;
	uv_loop_t loop;
	char dirbuf[4096], why[300], share[200], addr[64], fp[AUTH_FP_LEN + 1];
	int rc;
	const char *resume = NULL, *name = cmd_net_default_name("host"), *preset = NULL, *web = NULL;
	char web_said[600] = "";
	bool headless = false, announce = true, upnp = true;
	static struct lan_host lan; /* the duel's DNS-SD announcement (lan_cmd.c) */
	static char banner[1400]; /* with the router's answer, when it comes before the screen */
	unsigned methods = 0;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	long v;

	server_config_default(&cfg);
	cfg.port = NET_DEFAULT_PORT;
	const char *host_usage = help_get(HELP_HOST);
	int args = cli_args("host", host_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int r = cli_game_option(argc, argv, &i, &cfg.opt);
		if (r == 0)
			r = cmd_net_server_option(argc, argv, &i, &cfg, &pl, &pw, "host");
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (cmd_net_is_help(a)) {
			fputs(host_usage, stdout);
			return 0;
		} else if (strcmp(a, "--seed") == 0 && more) {
			if (!cli_seed(argv[++i], &cfg.seed))
				return 2;
			cfg.seed_fixed = true;
		} else if (strcmp(a, "--turn-time") == 0 && more) {
			if (!cli_int(argv[++i], 0, TURN_TIME_MAX, "--turn-time", &v))
				return 2;
			cfg.turn_time = (int)v;
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!cmd_net_text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			name = argv[i];
		} else if (strcmp(a, "--resume") == 0 && more) {
			resume = argv[++i];
		} else if (strcmp(a, "--web") == 0 && more) {
			web = argv[++i];
		} else if (strcmp(a, "--no-announce") == 0) {
			announce = false;
		} else if (strcmp(a, "--no-upnp") == 0) {
			upnp = false;
		} else if (strcmp(a, "--headless") == 0) {
			headless = true;
		} else if (strcmp(a, "--keys") == 0 && more) {
			if (!cmd_net_keys_arg(argv[++i], "host"))
				return 2;
			preset = argv[i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, host_usage);
			return 2;
		}
	}
	if (upnp && !portmap_cli_methods(&methods))
		return 2;
	if (!text_check(name, strlen(name), TEXT_NAME))
		name = "host";
	if (!headless && !cmd_net_have_terminal("host"))
		return 1;
	cfg.quiet = !headless; /* the server's log lines would write over the screen */
	if (auth_init() != 0 || !cmd_net_password_get(&pw, "host", "Password for the other player: ", &cfg.password) ||
	    !cmd_net_server_identity(&id, &pl, "host"))
		return 1;
	cfg.identity = &id;
	bool bad_dir;
	cfg.log_dir = cmd_net_log_dir(&pl, false, &bad_dir, dirbuf, sizeof dirbuf); /* a player's process: logs in memory rather than no duel */
	if (announce)
		lan_host_hook(&lan, &cfg);
	if (uv_loop_init(&loop) != 0)
		return 1;
	rc = server_create(&loop, &cfg, &srv, why, sizeof why);
	sodium_memzero(&id, sizeof id);
	if (rc != 0) {
		cli_error("%s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	if (resume && server_resume_log(srv, resume, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		server_close(srv, NULL, NULL);
		cmd_net_finish_loop(&loop);
		return 1;
	}
	server_fingerprint(srv, fp);
	cmd_net_reachable_address(server_bound(srv), addr, sizeof addr);
	static struct hostctx x;
	x.srv = srv;
	if (web && start_web(&x, &loop, web, addr, web_said, sizeof web_said) != 0) {
		server_close(srv, NULL, NULL);
		cmd_net_finish_loop(&loop);
		return 1;
	}
	snprintf(banner, sizeof banner, "Hosting on port %d: the other player runs `wizwar join %s:%d#%s%s`.%s",
	         server_port(srv), addr, server_port(srv), fp, cfg.password ? " --password" : "", web_said);
	cli_error("%s\n", banner);
	/* The line to copy, alone on stdout (and again when the screen closes). */
	snprintf(share, sizeof share, "wizwar join %s:%d#%s%s", addr, server_port(srv), fp, cfg.password ? " --password" : "");
	printf("%s\n", share);
	fflush(stdout);
	if (announce)
		lan_host_start(&lan, &loop, srv, name, cfg.password != NULL);
	x.again = (struct cmd_net_again){ "host", argc, argv, server_port(srv) };
	x.map = (struct portmap_cli){ .srv = srv, .screen = !headless, .tail = cfg.password ? " --password" : "",
	                              .share = share, .share_len = sizeof share, .banner = banner,
	                              .banner_len = sizeof banner };
	memcpy(x.map.fp, fp, sizeof fp);
	if (upnp)
		portmap_cli_start(&x.map, &loop, methods); /* never waited for: the LAN plays meanwhile */
	if (headless) {
		cmd_net_password_wipe(&pw);
		cmd_net_stopper_init(&st, &loop, stop_host, &x);
		return cmd_net_finish_loop(&loop);
	}
	if (server_reserve_host(srv, name, token, &token_len) != 0) {
		cli_error("no seat for the host\n");
		portmap_cli_stop(&x.map);
		stop_web(&x);
		server_close(srv, NULL, NULL);
		cmd_net_finish_loop(&loop);
		return 1;
	}
	net_config_default(&nc);
	/* Our own client goes where the server listens: "localhost" (each of its addresses in
	 * turn) for every address, else the address given. */
	nc.host = server_own_host(server_bound(srv));
	nc.port = server_port(srv);
	nc.name = name;
	nc.password = cfg.password;
	nc.server_key = server_public_key(srv); /* its own server: nothing to ask */
	nc.token = token;
	nc.token_len = token_len;
	cmd_net_curses_on_close(stop_map, &x);
	rc = cmd_net_run_curses(&loop, &nc, srv, banner, share, preset, NULL, &x.again); /* the server keeps the log (--log-dir) */
	cmd_net_password_wipe(&pw);
	return rc;
}
