/* SPDX-License-Identifier: MIT */
/* cmd_server: `wizwar server`: a headless server of many rooms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "progress.h"
#include "text.h"
#include "store.h"

struct srvctx {
	struct server *srv;
	struct cmd_net_stopper st;
	struct cmd_net_again again; /* the command line, for the resume command */
	struct progress resume; /* --resume reading the log directory */
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
	server_close(x->srv, NULL, NULL);
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
	const char *dir = NULL, *store_file = NULL, *free_name = NULL;
	char storebuf[4200];
	long v;
	int rc;
	bool conns_given = false, resume = false, no_store = false;

	server_config_default(&cfg);
	cfg.multi = true;
	cfg.port = NET_DEFAULT_PORT;
	const char *server_usage = help_get(HELP_SERVER);
	int args = cli_args("server", server_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int r = cmd_net_server_option(argc, argv, &i, &cfg, &dir, &pw, "server");
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
		} else if (strcmp(a, "--resume") == 0) {
			resume = true;
		} else if (strcmp(a, "--store") == 0 && more) {
			store_file = argv[++i];
		} else if (strcmp(a, "--no-store") == 0) {
			no_store = true;
		} else if (strcmp(a, "--free-name") == 0 && more) {
			if (!cmd_net_text_arg(argv[++i], TEXT_NAME, "--free-name"))
				return 2;
			free_name = argv[i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, server_usage);
			return 2;
		}
	}
	if (no_store && (store_file || free_name)) {
		cli_error("--no-store with --store or --free-name: which store?\n");
		return 2;
	}
	if (!no_store && store_file == NULL) {
		if (!cli_state_dir(dirbuf, sizeof dirbuf) || cli_make_dirs(dirbuf) != 0 ||
		    (size_t)snprintf(storebuf, sizeof storebuf, "%s/server.db", dirbuf) >= sizeof storebuf) {
			cli_error("no state folder (XDG_STATE_HOME, HOME) for the store: names are not owned (--store FILE)\n");
			no_store = true;
		} else {
			store_file = storebuf;
		}
	}
	if (free_name) {
		/* Offline, and safe beside a running server on the same file: SQLite's locks order the two,
		 * and the server reads the name's owner afresh at every join. */
		bool freed;
		if (store_free_name(store_file, free_name, &freed, why, sizeof why) != 0) {
			cli_error("%s\n", why);
			return 1;
		}
		printf("%s: the name '%s' %s\n", store_file, free_name, freed ? "is free now" : "was not owned");
		return 0;
	}
	if (!no_store && !store_built) {
		cli_error("built without SQLite: names are not owned on this server\n");
		no_store = true;
	}
	cfg.store_path = no_store ? NULL : store_file;
	if (auth_init() != 0 || !cmd_net_password_get(&pw, "server", "Password for every room: ", &cfg.password) ||
	    !cmd_net_server_identity(&id, "server"))
		return 1;
	cfg.identity = &id;
	cfg.log_dir = cmd_net_log_dir(dir, dirbuf, sizeof dirbuf);
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
	}
	server_fingerprint(x.srv, fp);
	cli_error("listening on %s port %d%s; turn logs in %s; %s%s\n", server_bound(x.srv),
	        server_port(x.srv), strcmp(server_bound(x.srv), "::") == 0 ? " (IPv6 and IPv4)" : "",
	        cfg.log_dir ? cfg.log_dir : "memory", cfg.store_path ? "names owned by keys in " : "names not owned",
	        cfg.store_path ? cfg.store_path : "");
	{
		char addr[64];
		cmd_net_reachable_address(server_bound(x.srv), addr, sizeof addr);
		printf("wizwar join %s:%d#%s --new-room%s\n", addr, server_port(x.srv), fp,
		       asks_password ? " --password" : "");
		fflush(stdout);
	}
	x.again = (struct cmd_net_again){ "server", argc, argv, server_port(x.srv) };
	cmd_net_stopper_init(&x.st, &loop, stop_server, &x);
	return cmd_net_finish_loop(&loop);
}
