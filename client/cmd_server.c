/* SPDX-License-Identifier: MIT */
/* cmd_server: `wizwar server`: a headless server of many rooms. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "cluster.h"
#include "cmd_net.h"
#include "conf.h"
#include "commands_net.h"
#include "help.h"
#include "lan.h"
#include "portmap_cli.h"
#include "progress.h"
#include "srvkeys.h"
#include "store.h"
#include "text.h"
#ifdef WW_HAVE_WEB
#include "web.h"
#endif

/* What the options set, from the file and then the command line: made afresh at the start and
 * at each SIGHUP, so that a reload reads exactly what a start would. */
struct srvopts {
	struct server_config cfg;
	struct cmd_net_places pl; /* --state-dir, --log-dir */
	const char *config;   /* --config FILE */
	struct cmd_net_pw pw;
	bool conns_given, resume;
	const char *admin_path, *metrics; /* --admin-socket, --metrics */
	const char *web;      /* --web ADDR:PORT */
	const char *redis_pw_file; /* --redis-password-file FILE */
	bool metrics_public, announce, upnp;
	const char *store_file, *free_name; /* --store FILE, --free-name NAME */
	bool no_store;
	bool rotate, rotate_days_given;   /* --rotate-key, --rotate-days */
	unsigned rotate_days;
	struct proxy_cidr trusted[PROXY_TRUSTED_MAX]; /* --trusted-proxy; cfg.trusted points here */
};

/* A password key made off the loop (Argon2id takes a good part of a second and 64 MiB). */
struct derive {
	uv_work_t req;
	struct auth_key key;
	char pw[sizeof ((struct cmd_net_pw *)0)->buf];
	uint8_t salt[PROTO_PW_SALT_LEN];
	int rc;
	bool busy;
};

struct srvctx {
	struct server *srv;
	struct cmd_net_stopper st;
	uv_signal_t hup, usr1;
	struct cmd_net_again again; /* the command line, for the resume command */
	struct progress resume; /* --resume reading the log directory */
	const char *usage;
	const char *config;     /* --config FILE, or NULL */
	struct conf started;    /* the file as read at the start: what a restart-only setting is compared with */
	struct conf current;    /* the file of the last good SIGHUP (none yet: the start's) */
	struct srvopts next;    /* a reload's reading */
	struct derive derive;
	unsigned reloads;
#ifdef WW_HAVE_WEB
	struct web *web;        /* --web, or NULL */
#endif
	bool stopping;
	char state_dir[4096];   /* where server.key and server.key.old are read again at a SIGHUP; "" none */
	uint64_t old_until;     /* the rotation in force (0: none), to say only what a SIGHUP changes */
	struct lan_host lan;    /* --announce: on the LAN (lan_cmd.c) */
	struct portmap_cli map; /* --upnp: the router's forwarding of our port */
};

/* Settings a SIGHUP applies to the running server (docs/server.md, "Reloading"): the limits and
 * the password, which change nothing for a duel under way. Every other option changed in the file
 * is said to need a restart. */
static const char *const live_settings[] = {
	"max-rooms", "max-conns", "max-per-addr", "lobby-idle", "handshakes-per-min", "rooms-per-hour", "grace",
	"lobby-hold", "password", "password-file", "log-keep", NULL,
};
/* Options with no meaning in a file: one-shot commands. */
static const char *const file_refused[] = { "config", "free-name", "rotate-key", "rotate-days", NULL };

static bool
live_setting(const char *name)
{
	for (int i = 0; live_settings[i]; i++)
		if (strcmp(live_settings[i], name) == 0)
			return true;
	return false;
}

static void
opts_default(struct srvopts *o)
{
	cmd_net_password_wipe(&o->pw);
	memset(o, 0, sizeof *o);
	server_config_default(&o->cfg);
	o->cfg.multi = true;
	o->cfg.port = NET_DEFAULT_PORT;
	o->cfg.log_keep_days = SERVER_LOG_KEEP_DAYS;
	o->rotate_days = SRVKEYS_DAYS_DEFAULT;
}

/* One option, from the command line or the file: 1 taken (advancing *i past its value), 0 not
 * one of this command's, -1 a bad value (said). */
static int
take_option(int argc, char **argv, int *i, struct srvopts *o)
{
	const char *a = argv[*i];
	bool more = *i + 1 < argc;
	long v;
	int r = cmd_net_server_option(argc, argv, i, &o->cfg, &o->pl, &o->pw, "server");

	if (r != 0)
		return r;
	if (strcmp(a, "--config") == 0 && more) {
		o->config = argv[++*i];
	} else if (strcmp(a, "--max-rooms") == 0 && more) {
		if (!cli_int(argv[++*i], 1, 100000, "--max-rooms", &v))
			return -1;
		o->cfg.lim.max_rooms = (unsigned)v;
		if (!o->conns_given)
			o->cfg.lim.max_conns = o->cfg.lim.max_rooms * 2 + 64;
	} else if (strcmp(a, "--max-conns") == 0 && more) {
		if (!cli_int(argv[++*i], 1, 1000000, "--max-conns", &v))
			return -1;
		o->cfg.lim.max_conns = (unsigned)v;
		o->conns_given = true;
	} else if (strcmp(a, "--lobby-idle") == 0 && more) {
		if (!cli_int(argv[++*i], 1, 86400, "--lobby-idle", &v))
			return -1;
		o->cfg.lim.lobby_idle_ms = (unsigned)v * 1000;
	} else if (strcmp(a, "--pair-wave") == 0 && more) {
		/* Quick pairing's wave: under 100 ms a wave pairs the first two who come, not the nearest
		 * ratings; past a minute a player waits too long for its first answer. */
		if (!cli_int(argv[++*i], SERVER_WAVE_MIN_MS, SERVER_WAVE_MAX_MS, "--pair-wave", &v))
			return -1;
		o->cfg.lim.wave_ms = (unsigned)v;
	} else if (strcmp(a, "--max-per-addr") == 0 && more) {
		if (!cli_int(argv[++*i], 1, 100000, "--max-per-addr", &v))
			return -1;
		o->cfg.lim.max_conns_per_addr = (unsigned)v;
	} else if (strcmp(a, "--handshakes-per-min") == 0 && more) {
		/* A burst of half a minute's worth; 0: no limit (tests and benchmarks on one address). */
		if (!cli_int(argv[++*i], 0, 60000, "--handshakes-per-min", &v))
			return -1;
		o->cfg.lim.hs_burst = (unsigned)(v + 1) / 2;
		o->cfg.lim.hs_every_ms = v ? (unsigned)(60000 / v) : 0;
	} else if (strcmp(a, "--rooms-per-hour") == 0 && more) {
		/* A burst of at most 16 (the connections an address may hold); 0: no limit. */
		if (!cli_int(argv[++*i], 0, 360000, "--rooms-per-hour", &v))
			return -1;
		o->cfg.lim.room_burst = v < 16 ? (unsigned)v : 16;
		o->cfg.lim.room_every_ms = v ? (unsigned)(3600000 / v) : 0;
	} else if (strcmp(a, "--log-keep") == 0 && more) {
		/* 0: kept forever; at most a hundred years, which no operator means as a number of days */
		if (!cli_int(argv[++*i], 0, 36500, "--log-keep", &v))
			return -1;
		o->cfg.log_keep_days = (unsigned)v;
	} else if (strcmp(a, "--rotate-key") == 0) {
		o->rotate = true;
	} else if (strcmp(a, "--rotate-days") == 0 && more) {
		if (!cli_int(argv[++*i], 1, SRVKEYS_DAYS_MAX, "--rotate-days", &v))
			return -1;
		o->rotate_days = (unsigned)v;
		o->rotate_days_given = true;
	} else if (strcmp(a, "--resume") == 0) {
		o->resume = true;
	} else if (strcmp(a, "--upnp") == 0) {
		o->upnp = true;
	} else if (strcmp(a, "--announce") == 0) {
		o->announce = true;
	} else if (strcmp(a, "--store") == 0 && more) {
		o->store_file = argv[++*i];
	} else if (strcmp(a, "--no-store") == 0) {
		o->no_store = true;
	} else if (strcmp(a, "--free-name") == 0 && more) {
		if (!cmd_net_text_arg(argv[++*i], TEXT_NAME, "--free-name"))
			return -1;
		o->free_name = argv[*i];
	} else if (strcmp(a, "--admin-socket") == 0 && more) {
		o->admin_path = argv[++*i];
	} else if (strcmp(a, "--metrics") == 0 && more) {
		o->metrics = argv[++*i];
	} else if (strcmp(a, "--web") == 0 && more) {
		o->web = argv[++*i];
	} else if (strcmp(a, "--redis") == 0 && more) {
		char host[64], why[300];
		int port;
		if (cluster_parse_url(argv[++*i], host, sizeof host, &port, why, sizeof why) != 0) {
			cli_error("%s\n", why);
			return -1;
		}
		o->cfg.redis = argv[*i];
	} else if (strcmp(a, "--redis-password-file") == 0 && more) {
		o->redis_pw_file = argv[++*i];
	} else if (strcmp(a, "--cluster-host") == 0 && more) {
		if (strlen(argv[++*i]) > CLUSTER_HOST_MAX) {
			cli_error("--cluster-host: at most %d characters\n", CLUSTER_HOST_MAX);
			return -1;
		}
		o->cfg.cluster_host = argv[*i];
	} else if (strcmp(a, "--metrics-public") == 0) {
		o->metrics_public = true;
	} else if (strcmp(a, "--trusted-proxy") == 0 && more) {
		char why[300];
		if (o->cfg.ntrusted == PROXY_TRUSTED_MAX) {
			cli_error("--trusted-proxy: at most %d\n", PROXY_TRUSTED_MAX);
			return -1;
		}
		if (!proxy_cidr_parse(argv[++*i], &o->trusted[o->cfg.ntrusted], why, sizeof why)) {
			cli_error("--trusted-proxy: %s\n", why);
			return -1;
		}
		o->cfg.trusted = o->trusted;
		o->cfg.ntrusted++;
	} else {
		return 0;
	}
	return 1;
}

/* The file's settings, each error said with its file and line (cli_error_at). 0 or -1. */
static int
take_file(struct srvopts *o, struct conf *c)
{
	char where[sizeof c->path + 16];
	int rc = 0;

	for (int i = 0; i < c->argc && rc == 0; i++) {
		snprintf(where, sizeof where, "%s:%d", c->path, c->argline[i]);
		cli_error_at(where);
		int r = take_option(c->argc, c->argv, &i, o);
		if (r == 0)
			cli_error("no setting '%s' in a configuration file\n", c->argv[i] + 2);
		rc = r > 0 ? 0 : -1;
	}
	cli_error_at(NULL);
	return rc;
}

/* The command line, over what the file set: it wins. 0, 1 for --help (printed), or -1 (said). */
static int
take_command_line(struct srvopts *o, int argc, char **argv, const char *usage)
{
	/* A password given here replaces the file's, whichever way each gives it. */
	if (cli_has_option(argc, argv, "--password") || cli_has_option(argc, argv, "--password-file")) {
		cmd_net_password_wipe(&o->pw);
		memset(&o->pw, 0, sizeof o->pw);
	}
	for (int i = 0; i < argc; i++) {
		if (cmd_net_is_help(argv[i])) {
			fputs(usage, stdout);
			return 1;
		}
		int r = take_option(argc, argv, &i, o);
		if (r < 0)
			return -1;
		if (r == 0) {
			cli_error("unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return -1;
		}
	}
	return 0;
}

/* Redis's password (--redis-password-file): the file's first line, never on the command line, which
 * ps shows to every user. false (said) when it cannot be had. */
static bool
read_redis_password(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, (int)len, f) != NULL;

	if (f)
		fclose(f);
	if (!ok) {
		cli_error("--redis-password-file %s: %s\n", path, f ? "it is empty" : strerror(errno));
		return false;
	}
	size_t n = strcspn(buf, "\r\n");
	bool whole = buf[n] != '\0' || n + 1 < len; /* a newline, or the file's end before the buffer's */
	buf[n] = '\0';
	if (n == 0 || n > CLUSTER_PASSWORD_MAX || !whole) {
		cli_error("--redis-password-file %s: its first line must be the password, 1 to %d bytes\n", path,
		          CLUSTER_PASSWORD_MAX);
		sodium_memzero(buf, len);
		return false;
	}
	return true;
}

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
	x->stopping = true;
	lan_host_stop(&x->lan);
	portmap_cli_stop(&x->map);
	uv_close((uv_handle_t *)&x->hup, NULL);
	uv_close((uv_handle_t *)&x->usr1, NULL);
#ifdef WW_HAVE_WEB
	web_stop(x->web); /* its pages are spectators of the server's rooms: closed first */
	x->web = NULL;
#endif
	server_close(x->srv, NULL, NULL);
}

/* On libuv's thread pool: touches nothing but its own struct derive. */
static void
derive_work(uv_work_t *req)
{
	struct srvctx *x = req->data;
	struct derive *d = &x->derive;

	d->rc = auth_key_derive(&d->key, d->pw, d->salt);
}

static void
derive_done(uv_work_t *req, int status)
{
	struct srvctx *x = req->data;
	struct derive *d = &x->derive;

	sodium_memzero(d->pw, sizeof d->pw);
	if (!x->stopping) {
		if (status != 0 || d->rc != 0)
			server_log(x->srv, LOG_ERR, "reload: cannot derive the new password key (out of memory); the "
			           "password is unchanged");
		else if (server_set_password_key(x->srv, &d->key))
			server_log(x->srv, LOG_NOTICE, "reload: the password changed: joins need the new one from now on; "
			           "a player of a running duel takes its seat back with either");
	}
	auth_key_wipe(&d->key);
	d->busy = false;
}

/* Which password the reloaded options give, read now (a password file again): *skip when the
 * command line gives one (it wins), else *pw (NULL: none). False (said into the capture) when it
 * cannot be had. */
static bool
reload_password_get(struct srvctx *x, struct srvopts *o, const char **pw, bool *skip)
{
	*pw = NULL;
	*skip = cli_has_option(x->again.argc, x->again.argv, "--password") ||
	        cli_has_option(x->again.argc, x->again.argv, "--password-file");
	return *skip || cmd_net_password_get(&o->pw, "server", "", pw);
}

/* The password in force: none at once, another once derived off the loop. */
static void
reload_password_apply(struct srvctx *x, const char *pw)
{
	if (pw == NULL) {
		struct auth_key none;
		auth_key_derive(&none, NULL, server_password_salt(x->srv));
		if (server_set_password_key(x->srv, &none))
			server_log(x->srv, LOG_NOTICE, "reload: the password is gone: rooms ask for none from now on");
		return;
	}
	struct derive *d = &x->derive;
	snprintf(d->pw, sizeof d->pw, "%s", pw);
	memcpy(d->salt, server_password_salt(x->srv), sizeof d->salt);
	d->req.data = x;
	d->busy = true;
	if (uv_queue_work(x->st.sig[0].loop, &d->req, derive_work, derive_done) != 0) {
		sodium_memzero(d->pw, sizeof d->pw);
		d->busy = false;
		server_log(x->srv, LOG_ERR, "reload: cannot start deriving the password key; the password is unchanged");
	}
}

/* Append ", NAME" (or "NAME" first) to a list being built for a log line. */
static void
list_add(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
}

static bool
same_value(const struct conf_setting *a, const struct conf_setting *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->value == NULL || b->value == NULL)
		return a->value == b->value;
	return strcmp(a->value, b->value) == 0;
}

/* Names set in either file whose values differ, each once. */
static void
changed_names(const struct conf *a, const struct conf *b, const char **out, int *n, int max)
{
	const struct conf *both[2] = { a, b };

	*n = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < both[k]->n; i++) {
			const char *name = both[k]->set[i].name;
			bool seen = false;
			for (int j = 0; j < *n; j++)
				seen |= strcmp(out[j], name) == 0;
			if (!seen && *n < max && !same_value(conf_get(a, name), conf_get(b, name)))
				out[(*n)++] = name;
		}
}

/* The names changed from `from` to `to` that SIGHUP applies (live) or not, listed in `into`, or in
 * `kept` when the command line gives them (it wins); both lists len bytes. */
static void
list_changes(const struct srvctx *x, const struct conf *from, const struct conf *to, bool live, char *into,
             char *kept, size_t len)
{
	const char *names[2 * CONF_MAX_SETTINGS];
	char opt[64];
	int n;

	changed_names(from, to, names, &n, 2 * CONF_MAX_SETTINGS);
	for (int i = 0; i < n; i++) {
		if (live_setting(names[i]) != live)
			continue;
		snprintf(opt, sizeof opt, "--%s", names[i]);
		list_add(cli_has_option(x->again.argc, x->again.argv, opt) ? kept : into, len, names[i]);
	}
}

/* The rotation in force (server.key.old), applied and said when it is not the one running. */
static void
apply_old_key(struct srvctx *x, bool at_start)
{
	struct noise_keypair old;
	uint64_t until = 0;
	char said[800];
	bool has = srvkeys_old(x->state_dir, &old, &until, said, sizeof said);

	if (!has)
		until = 0;
	if (until != x->old_until || (at_start && said[0]) || (!has && said[0])) {
		server_set_old_key(x->srv, has ? &old : NULL, until);
		if (said[0])
			server_log(x->srv, has ? LOG_NOTICE : LOG_WARNING, "%s", said);
		else if (x->old_until)
			server_log(x->srv, LOG_NOTICE, "key rotation ended: the old key is dropped");
		x->old_until = until;
	}
	sodium_memzero(&old, sizeof old);
}

/* SIGHUP, with or without --config: the key files again (a `server --rotate-key` since), read
 * and applied on the loop (two short files). */
static void
reload_keys(struct srvctx *x)
{
	static struct auth_identity id;
	char path[4200], why[600], fp[AUTH_FP_LEN + 1];
	bool created;
	struct stat st;

	if (x->state_dir[0] == '\0')
		return;
	snprintf(path, sizeof path, "%s/server.key", x->state_dir);
	/* Never made here: a key gone from under a running server is the operator's to explain. */
	if (stat(path, &st) != 0) {
		server_log(x->srv, LOG_WARNING, "reload: %s is gone: the key in force stays", path);
	} else if (auth_identity_load(&id, path, &created, why, sizeof why) != 0) {
		server_log(x->srv, LOG_WARNING, "reload: %s; the key in force stays", why);
	} else if (!auth_equal(id.kp.pk, server_public_key(x->srv), PROTO_KEY_LEN)) {
		if (server_set_identity(x->srv, &id, why, sizeof why) != 0) {
			server_log(x->srv, LOG_WARNING, "reload: not applied: %s", why);
		} else {
			auth_fingerprint(id.kp.pk, fp);
			server_log(x->srv, LOG_NOTICE, "reload: the server's key is now %s (from %s); connections under "
			           "way keep theirs", fp, path);
		}
	}
	sodium_memzero(&id, sizeof id);
	apply_old_key(x, false);
}

/* SIGHUP: read the file again and apply what can change under running duels; a file that does not
 * read or parse changes nothing. Everything is said on the log. On the loop: the file is at most
 * CONF_MAX_BYTES, a password file one line. */
static void
reload(struct srvctx *x)
{
	static struct conf nc;
	char why[2048], cmdline_kept[512] = "", applied[512] = "", restart[512] = "";

	reload_keys(x);
	if (x->config == NULL) {
		server_log(x->srv, LOG_NOTICE, "SIGHUP: started without --config, so there is no file to read again; "
		           "nothing changed");
		return;
	}
	if (x->derive.busy) {
		server_log(x->srv, LOG_WARNING, "reload: the last one is still deriving the password key; nothing "
		           "changed: send SIGHUP again in a moment");
		return;
	}
	if (conf_read(&nc, x->config, x->usage, file_refused, why, sizeof why) != 0) {
		server_log(x->srv, LOG_WARNING, "reload: %s; nothing changed", why);
		return;
	}
	struct srvopts *o = &x->next;
	const char *pw = NULL;
	bool pw_skip = true;
	opts_default(o);
	/* Everything read and checked before anything is applied: a mistake changes nothing. */
	cli_error_capture(why, sizeof why);
	int rc = take_file(o, &nc) == 0 && take_command_line(o, x->again.argc, x->again.argv, x->usage) == 0 &&
	         reload_password_get(x, o, &pw, &pw_skip) ? 0 : -1;
	cli_error_capture(NULL, 0);
	if (rc == 0 && server_set_limits(x->srv, &o->cfg.lim, why, sizeof why) != 0)
		rc = -1;
	if (rc != 0) {
		cmd_net_password_wipe(&o->pw);
		why[strcspn(why, "\n")] = '\0';
		server_log(x->srv, LOG_WARNING, "reload: %s; nothing changed", why);
		conf_free(&nc);
		return;
	}
	if (!pw_skip)
		reload_password_apply(x, pw);
	cmd_net_password_wipe(&o->pw);
	int kept = server_set_log_keep(x->srv, o->cfg.log_keep_days, why, sizeof why);
	if (kept > 0 && o->cfg.log_keep_days)
		server_log(x->srv, LOG_NOTICE, "reload: finished turn logs are kept %u day%s from now on (a scan runs now)",
		           o->cfg.log_keep_days, o->cfg.log_keep_days == 1 ? "" : "s");
	else if (kept > 0)
		server_log(x->srv, LOG_NOTICE, "reload: finished turn logs are kept forever from now on");
	else if (kept < 0 && conf_get(&nc, "log-keep"))
		server_log(x->srv, LOG_WARNING, "reload: log-keep not applied: %s", why);
	/* Live settings against the last applied file; the others against the file the server
	 * started with, which is what runs until a restart. */
	list_changes(x, x->reloads ? &x->current : &x->started, &nc, true, applied, cmdline_kept, sizeof applied);
	list_changes(x, &x->started, &nc, false, restart, cmdline_kept, sizeof restart);
	x->reloads++;
	server_log(x->srv, LOG_NOTICE, "reloaded %s: applied: %s; not applied, they need a restart: %s; the command "
	           "line's value kept: %s", x->config, applied[0] ? applied : "none", restart[0] ? restart : "none",
	           cmdline_kept[0] ? cmdline_kept : "none");
	conf_free(&x->current);
	x->current = nc;
	memset(&nc, 0, sizeof nc);
}

/* SIGUSR1: one status line (docs/server.md, "Signals"). */
static void
status_line(struct srvctx *x)
{
	const struct server_limits *l = server_get_limits(x->srv);

	server_log(x->srv, LOG_NOTICE, "status: %u connection%s, %u room%s, %u duel%s under way; max-conns %u, "
	           "max-rooms %u, max-per-addr %u; %u reload%s since the start", server_conn_count(x->srv),
	           server_conn_count(x->srv) == 1 ? "" : "s", server_room_count(x->srv),
	           server_room_count(x->srv) == 1 ? "" : "s", server_duels_playing(x->srv),
	           server_duels_playing(x->srv) == 1 ? "" : "s", l->max_conns, l->max_rooms, l->max_conns_per_addr,
	           x->reloads, x->reloads == 1 ? "" : "s");
}

static void
on_signal(uv_signal_t *h, int signum)
{
	struct srvctx *x = h->data;

	if (x->stopping)
		return;
	if (signum == SIGHUP)
		reload(x);
	else
		status_line(x);
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
	static struct srvctx x;
	static struct srvopts o;
	static struct auth_identity id;
	uv_loop_t loop;
	char dirbuf[4096], why[2048], fp[AUTH_FP_LEN + 1];
	int rc;

	/* Until the loop's handlers take them (uv_signal_start, below), HUP and USR1 are ignored, not
	 * fatal: a `systemctl reload` during a slow start (a password key, --resume reading many logs)
	 * must not kill the server, and the file is being read anyway. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	x.usage = help_get(HELP_SERVER);
	int args = cli_args("server", x.usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	/* The command line once alone, for --help, its errors and --config; then the file, and the
	 * command line again over it. */
	opts_default(&o);
	if ((rc = take_command_line(&o, argc, argv, x.usage)) != 0)
		return rc > 0 ? 0 : 2;
	x.config = o.config;
	opts_default(&o);
	if (x.config != NULL) {
		if (conf_read(&x.started, x.config, x.usage, file_refused, why, sizeof why) != 0) {
			cli_error("%s\n", why);
			return 2;
		}
		if (take_file(&o, &x.started) != 0)
			return 2;
	}
	if (take_command_line(&o, argc, argv, x.usage) != 0)
		return 2;
	struct server_config cfg = o.cfg;
	bool bad_dir;
	unsigned methods = 0;
	/* An operator's --log-dir that cannot be written is refused at once, before a password is
	 * asked or a key made, not found out at the first duel. */
	cfg.log_dir = cmd_net_log_dir(&o.pl, true, &bad_dir, dirbuf, sizeof dirbuf);
	if (bad_dir)
		return 2;
	if (o.upnp && !portmap_cli_methods(&methods))
		return 2;
	static char storebuf[4200];
	const char *store_file = o.store_file;
	bool no_store = o.no_store;
	if (no_store && (store_file || o.free_name)) {
		cli_error("--no-store with --store or --free-name: which store?\n");
		return 2;
	}
	if (!no_store && store_file == NULL) {
		char sd[4096];
		if (!cmd_net_state_dir(&o.pl, sd, sizeof sd) || cli_make_dirs(sd) != 0 ||
		    (size_t)snprintf(storebuf, sizeof storebuf, "%s/server.db", sd) >= sizeof storebuf) {
			cli_error("no state folder (XDG_STATE_HOME, HOME, --state-dir) for the store: names are not owned "
			          "(--store FILE)\n");
			no_store = true;
		} else {
			store_file = storebuf;
		}
	}
	if (o.free_name) {
		/* Offline, and safe beside a running server on the same store: SQLite's locks (or
		 * PostgreSQL's transactions) order the two, and the server reads the name's owner afresh
		 * at every join. */
		bool freed;
		char shown[512];
		if (store_free_name(store_file, o.free_name, &freed, why, sizeof why) != 0) {
			cli_error("%s\n", why);
			return 1;
		}
		store_describe(store_file, shown, sizeof shown);
		printf("%s: the name '%s' %s\n", shown, o.free_name, freed ? "is free now" : "was not owned");
		return 0;
	}
	if (o.rotate_days_given && !o.rotate) {
		cli_error("--rotate-days without --rotate-key\n");
		return 2;
	}
	if (o.rotate) {
		/* Offline: the key files only; a running server takes them at its SIGHUP. */
		char sd[4096];
		if (!cmd_net_state_dir(&o.pl, sd, sizeof sd))
			return 1;
		return srvkeys_rotate(sd, o.rotate_days) == 0 ? 0 : 1;
	}
	if (!no_store && store_target_is_pg(store_file) && !store_target_built(store_file, why, sizeof why)) {
		/* A node meant to share a cluster's names and ratings must not run with a store of its own. */
		cli_error("%s\n", why);
		return 2;
	}
	if (!no_store && !store_target_built(store_file, why, sizeof why)) {
		/* Said at once only to who asked for a store; the start line says "names not owned" anyway. */
		if (o.store_file)
			cli_error("built without SQLite: names are not owned on this server (--store %s ignored)\n", o.store_file);
		no_store = true;
	}
	cfg.store_path = no_store ? NULL : store_file;
	char redis_pw[CLUSTER_PASSWORD_MAX + 2];
	if (o.redis_pw_file && !read_redis_password(o.redis_pw_file, redis_pw, sizeof redis_pw))
		return 1;
	cfg.redis_password = o.redis_pw_file ? redis_pw : NULL;
	if (auth_init() != 0 || !cmd_net_password_get(&o.pw, "server", "Password for every room: ", &cfg.password) ||
	    !cmd_net_server_identity(&id, &o.pl, "server"))
		return 1;
	cfg.identity = &id;
	if (uv_loop_init(&loop) != 0)
		return 1;
	progress_init(&x.resume, NULL, "server --resume", "logs", 0);
	if (o.resume) {
		cfg.hooks.ud = &x;
		cfg.hooks.resume_progress = resume_progress;
	}
	rc = server_create(&loop, &cfg, &x.srv, why, sizeof why);
	sodium_memzero(redis_pw, sizeof redis_pw); /* the cluster keeps its own copy */
	cfg.redis_password = NULL;
	bool asks_password = cfg.password != NULL; /* the join line says so, as host's does */
	cmd_net_password_wipe(&o.pw);
	sodium_memzero(&id, sizeof id);
	if (rc != 0) {
		cli_error("%s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	if (o.resume) {
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
	if (!start_admin(x.srv, &o.pl, o.admin_path, admin_said, sizeof admin_said) ||
	    (o.metrics && !start_metrics(x.srv, o.metrics, o.metrics_public, metrics_said, sizeof metrics_said))) {
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
	char store_shown[512]; /* a URI without its password: the log line is anybody's who reads the journal */
	store_describe(cfg.store_path ? cfg.store_path : "", store_shown, sizeof store_shown);
	server_log(x.srv, LOG_NOTICE, "listening on %s port %d%s; turn logs in %s%s; %s%s%s%s", server_bound(x.srv),
	           server_port(x.srv), strcmp(server_bound(x.srv), "::") == 0 ? " (IPv6 and IPv4)" : "",
	           cfg.log_dir ? cfg.log_dir : "memory", keep,
	           cfg.store_path ? "names owned by keys in " : "names not owned", cfg.store_path ? store_shown : "",
	           x.config ? "; settings from " : "", x.config ? x.config : "");
	if (admin_said[0])
		server_log(x.srv, LOG_NOTICE, "%s", admin_said);
	if (metrics_said[0])
		server_log(x.srv, LOG_NOTICE, "%s", metrics_said);
	if (o.web) {
#ifdef WW_HAVE_WEB
		if (web_start(&loop, x.srv, o.web, &x.web, why, sizeof why) != 0) {
			cli_error("%s\n", why);
			server_close(x.srv, NULL, NULL);
			cmd_net_finish_loop(&loop);
			return 1;
		}
		server_log(x.srv, LOG_NOTICE, "web page on %s port %d: http://HOST:%d/", o.web, web_port(x.web),
		           web_port(x.web));
#else
		cli_error("--web: this wizwar was built without libwebsockets (meson option websockets)\n");
		server_close(x.srv, NULL, NULL);
		cmd_net_finish_loop(&loop);
		return 1;
#endif
	}
	if (cmd_net_state_dir(&o.pl, x.state_dir, sizeof x.state_dir))
		apply_old_key(&x, true); /* before the loop runs: no client is answered before it */
	else
		x.state_dir[0] = '\0';
	{
		char addr[64];
		cmd_net_reachable_address(server_bound(x.srv), addr, sizeof addr);
		printf("wizwar join %s:%d#%s --new-room%s\n", addr, server_port(x.srv), fp,
		       asks_password ? " --password" : "");
		fflush(stdout);
	}
	if (o.announce) {
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
	if (o.upnp)
		portmap_cli_start(&x.map, &loop, methods); /* never waited for: it serves meanwhile */
	/* INT and TERM stop; HUP reloads the file, USR1 logs a status line (a service manager's
	 * signals: docs/server.md, "Signals"). */
	static const int stop_on[] = { SIGINT, SIGTERM };
	cmd_net_stopper_init_on(&x.st, &loop, stop_server, &x, stop_on, 2);
	uv_signal_init(&loop, &x.hup);
	uv_signal_init(&loop, &x.usr1);
	x.hup.data = x.usr1.data = &x;
	uv_signal_start(&x.hup, on_signal, SIGHUP);
	uv_signal_start(&x.usr1, on_signal, SIGUSR1);
	rc = cmd_net_finish_loop(&loop);
	conf_free(&x.started);
	conf_free(&x.current);
	return rc;
}
