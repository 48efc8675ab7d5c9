/* SPDX-License-Identifier: MIT */
/* cmd_server: `wizwar server`: a headless server of many rooms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "lan.h"
#include "portmap_cli.h"
#include "progress.h"
#include "text.h"

struct srvctx {
	struct server *srv;
	struct cmd_net_stopper st;
	struct cmd_net_again again; /* the command line, for the resume command */
	struct progress resume; /* --resume reading the log directory */
	struct lan_host lan;    /* --announce: on the LAN (lan_cmd.c) */
	struct portmap_cli map; /* --upnp: the router's forwarding of our port */
};

/* The first call brings the total (the server counts the logs first). */
static void
resume_progress(void *ud, unsigned done, unsigned total)
{
	struct srvctx *x = ud;

	if (done <= 1)
		progress_init(&x->resume, stderr, "server --resume", "logs", total);
	progress_step(&x->resume, done);
}

static void
stop_server(void *ud)
{
	struct srvctx *x = ud;

	unsigned duels = server_duels_playing(x->srv);

	/* Through the server's log writer: a stderr nobody reads must not stop the stop. */
	if (duels) {
		char line[8192];
		cmd_net_resume_line(line, sizeof line, x->again.cmd, x->again.argc, x->again.argv, x->again.port, NULL);
		server_say(x->srv, "shutting down; %u duel%s left unfinished: `%s` brings %s back", duels,
		           duels == 1 ? "" : "s", line, duels == 1 ? "it" : "them");
	} else {
		server_say(x->srv, "shutting down");
	}
	lan_host_stop(&x->lan);
	portmap_cli_stop(&x->map);
	server_close(x->srv, NULL, NULL);
}

/* The admin socket: --admin-socket PATH (its failures stop the start), "none" for no socket,
 * or by default admin.sock in the state directory, where a failure is only said: several
 * servers may share one state directory (tests do), and a server must not fail to start for
 * want of its status socket. */
static bool
start_admin(struct server *srv, const struct cmd_net_places *pl, const char *given, char *said, size_t saidlen)
{
	char path[4200], why[600];

	if (given && strcmp(given, "none") == 0)
		return true;
	if (given == NULL) {
		if (!cmd_net_state_dir(pl, path, sizeof path - 16) || cli_make_dirs(path) != 0) {
			snprintf(said, saidlen, "no state directory: no admin socket (`wizwar status` cannot reach this server)");
			return true;
		}
		strcat(path, "/admin.sock");
	} else {
		snprintf(path, sizeof path, "%s", given);
	}
	if (server_admin_start(srv, path, why, sizeof why) != 0) {
		if (given) {
			cli_error("%s\n", why);
			return false;
		}
		snprintf(said, saidlen, "%s; running without one (give --admin-socket PATH)", why);
		return true;
	}
	snprintf(said, saidlen, "admin socket %s (`wizwar status`)", path);
	return true;
}

static bool
start_metrics(struct server *srv, const char *addr, bool public_ok, char *said, size_t saidlen)
{
	char why[600];

	if (server_metrics_start(srv, addr, public_ok, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return false;
	}
	snprintf(said, saidlen, "metrics on %s (port %d), GET /metrics", addr, server_metrics_port(srv));
	return true;
}

int
cmd_server(int argc, char **argv)
{
	struct server_config cfg;
	static struct srvctx x;
	static struct cmd_net_pw pw;
	static struct auth_identity id;
	uv_loop_t loop;
	char dirbuf[4096], why[300], fp[AUTH_FP_LEN + 1];
	struct cmd_net_places pl = { NULL, NULL };
	long v;
	int rc;
	bool conns_given = false, resume = false, metrics_public = false, announce = false, upnp = false;
	const char *admin_path = NULL, *metrics = NULL;
	static struct proxy_cidr trusted[PROXY_TRUSTED_MAX];
	unsigned methods = 0;

	server_config_default(&cfg);
	cfg.multi = true;
	cfg.port = NET_DEFAULT_PORT;
	cfg.log_keep_days = SERVER_LOG_KEEP_DAYS;
	const char *server_usage = help_get(HELP_SERVER);
	int args = cli_args("server", server_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int r = cmd_net_server_option(argc, argv, &i, &cfg, &pl, &pw, "server");
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (cmd_net_is_help(a)) {
			fputs(server_usage, stdout);
			return 0;
		} else if (strcmp(a, "--max-rooms") == 0 && more) {
			if (!cli_int(argv[++i], 1, 100000, "--max-rooms", &v))
				return 2;
			cfg.lim.max_rooms = (unsigned)v;
			if (!conns_given)
				cfg.lim.max_conns = cfg.lim.max_rooms * 2 + 64;
		} else if (strcmp(a, "--max-conns") == 0 && more) {
			if (!cli_int(argv[++i], 1, 1000000, "--max-conns", &v))
				return 2;
			cfg.lim.max_conns = (unsigned)v;
			conns_given = true;
		} else if (strcmp(a, "--lobby-idle") == 0 && more) {
			if (!cli_int(argv[++i], 1, 86400, "--lobby-idle", &v))
				return 2;
			cfg.lim.lobby_idle_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--max-per-addr") == 0 && more) {
			if (!cli_int(argv[++i], 1, 100000, "--max-per-addr", &v))
				return 2;
			cfg.lim.max_conns_per_addr = (unsigned)v;
		} else if (strcmp(a, "--handshakes-per-min") == 0 && more) {
			/* A burst of half a minute's worth; 0: no limit (tests and benchmarks on one address). */
			if (!cli_int(argv[++i], 0, 60000, "--handshakes-per-min", &v))
				return 2;
			cfg.lim.hs_burst = (unsigned)(v + 1) / 2;
			cfg.lim.hs_every_ms = v ? (unsigned)(60000 / v) : 0;
		} else if (strcmp(a, "--rooms-per-hour") == 0 && more) {
			/* A burst of at most 16 (the connections an address may hold); 0: no limit. */
			if (!cli_int(argv[++i], 0, 360000, "--rooms-per-hour", &v))
				return 2;
			cfg.lim.room_burst = v < 16 ? (unsigned)v : 16;
			cfg.lim.room_every_ms = v ? (unsigned)(3600000 / v) : 0;
		} else if (strcmp(a, "--log-keep") == 0 && more) {
			/* 0: kept forever; at most a hundred years, which no operator means as a number of days */
			if (!cli_int(argv[++i], 0, 36500, "--log-keep", &v))
				return 2;
			cfg.log_keep_days = (unsigned)v;
		} else if (strcmp(a, "--upnp") == 0) {
			upnp = true;
		} else if (strcmp(a, "--resume") == 0) {
			resume = true;
		} else if (strcmp(a, "--admin-socket") == 0 && more) {
			admin_path = argv[++i];
		} else if (strcmp(a, "--metrics") == 0 && more) {
			metrics = argv[++i];
		} else if (strcmp(a, "--metrics-public") == 0) {
			metrics_public = true;
		} else if (strcmp(a, "--trusted-proxy") == 0 && more) {
			if (cfg.ntrusted == PROXY_TRUSTED_MAX) {
				cli_error("--trusted-proxy: at most %d\n", PROXY_TRUSTED_MAX);
				return 2;
			}
			if (!proxy_cidr_parse(argv[++i], &trusted[cfg.ntrusted], why, sizeof why)) {
				cli_error("--trusted-proxy: %s\n", why);
				return 2;
			}
			cfg.trusted = trusted;
			cfg.ntrusted++;
		} else if (strcmp(a, "--announce") == 0) {
			announce = true;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, server_usage);
			return 2;
		}
	}
	bool bad_dir;
	/* An operator's --log-dir that cannot be written is refused at once, before a password is
	 * asked or a key made, not found out at the first duel. */
	cfg.log_dir = cmd_net_log_dir(&pl, true, &bad_dir, dirbuf, sizeof dirbuf);
	if (bad_dir)
	if (upnp && !portmap_cli_methods(&methods))
		return 2;
	if (auth_init() != 0 || !cmd_net_password_get(&pw, "server", "Password for every room: ", &cfg.password) ||
	    !cmd_net_server_identity(&id, &pl, "server"))
		return 1;
	cfg.identity = &id;
	if (uv_loop_init(&loop) != 0)
		return 1;
	progress_init(&x.resume, NULL, "server --resume", "logs", 0);
	if (resume) {
		cfg.hooks.ud = &x;
		cfg.hooks.resume_progress = resume_progress;
	}
	rc = server_create(&loop, &cfg, &x.srv, why, sizeof why);
	bool asks_password = cfg.password != NULL; /* the join line says so, as host's does */
	cmd_net_password_wipe(&pw);
	sodium_memzero(&id, sizeof id);
	if (rc != 0) {
		cli_error("%s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	if (resume) {
		/* Before the loop runs: no player can reach a room before its duel is back. */
		int n = server_resume_dir(x.srv, why, sizeof why);
		progress_finish(&x.resume);
		if (n < 0) {
			cli_error("--resume: %s\n", why);
			server_close(x.srv, NULL, NULL);
			cmd_net_finish_loop(&loop);
			return 1;
		}
		cli_error("%d unfinished duel%s brought back from %s\n", n, n == 1 ? "" : "s",
		        cfg.log_dir);
	} else if (cfg.log_dir && server_tidy_logs(x.srv, why, sizeof why) < 0) {
		cli_error("%s\n", why); /* the logs are left as they are; the server runs */
	}
	/* Said after the "listening on" line, which scripts read first for the port. */
	char admin_said[4300] = "", metrics_said[700] = "";
	if (!start_admin(x.srv, &pl, admin_path, admin_said, sizeof admin_said) ||
	    (metrics && !start_metrics(x.srv, metrics, metrics_public, metrics_said, sizeof metrics_said))) {
		server_close(x.srv, NULL, NULL);
		cmd_net_finish_loop(&loop);
		return 1;
	}
	server_fingerprint(x.srv, fp);
	char keep[64] = "";
	if (cfg.log_dir && cfg.log_keep_days)
		snprintf(keep, sizeof keep, ", finished ones kept %u day%s", cfg.log_keep_days,
		         cfg.log_keep_days == 1 ? "" : "s");
	else if (cfg.log_dir)
		snprintf(keep, sizeof keep, ", kept forever");
	cli_error("listening on %s port %d%s; turn logs in %s%s\n", server_bound(x.srv),
	        server_port(x.srv), strcmp(server_bound(x.srv), "::") == 0 ? " (IPv6 and IPv4)" : "",
	        cfg.log_dir ? cfg.log_dir : "memory", keep);
	if (admin_said[0])
		cli_error("%s\n", admin_said);
	if (metrics_said[0])
		cli_error("%s\n", metrics_said);
	{
		char addr[64];
		cmd_net_reachable_address(server_bound(x.srv), addr, sizeof addr);
		printf("wizwar join %s:%d#%s --new-room%s\n", addr, server_port(x.srv), fp,
		       asks_password ? " --password" : "");
		fflush(stdout);
	}
	if (announce) {
		/* Under this machine's name: a server has no player's name to show. */
		char host[LAN_NAME_MAX + 1] = "";
		if (gethostname(host, sizeof host - 1) != 0 || !text_check(host, strlen(host), TEXT_NAME))
			snprintf(host, sizeof host, "server");
		x.lan.server = true;
		lan_host_start(&x.lan, &loop, x.srv, host, asks_password);
	}
	x.again = (struct cmd_net_again){ "server", argc, argv, server_port(x.srv) };
	x.map = (struct portmap_cli){ .srv = x.srv, .tail = asks_password ? " --new-room --password" : " --new-room" };
	memcpy(x.map.fp, fp, sizeof fp);
	if (upnp)
		portmap_cli_start(&x.map, &loop, methods); /* never waited for: it serves meanwhile */
	cmd_net_stopper_init(&x.st, &loop, stop_server, &x);
	return cmd_net_finish_loop(&loop);
}
