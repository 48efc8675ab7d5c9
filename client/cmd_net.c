/* SPDX-License-Identifier: MIT */
/* cmd_net: `wizwar host`, `join`, `server` and `bot`: argument parsing and the loops around server.c and net.c. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "app.h"
#include "auth.h"
#include "bot.h"
#include "cli.h"
#include "commands_net.h"
#include "help.h"
#include "keys.h"
#include "net.h"
#include "netbot.h"
#include "server.h"
#include "seatfile.h"
#include "session_net.h"
#include "text.h"
#include "ui.h"

static bool
is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

static const char *
default_name(const char *fallback)
{
	const char *u = getenv("USER");
	return u && u[0] ? u : fallback;
}

/* --log-dir, else $XDG_STATE_HOME/wizwar, else ~/.local/state/wizwar; created. NULL: none. */
static const char *
log_dir(const char *given, char *buf, size_t len)
{
	if (given) {
		snprintf(buf, len, "%s", given);
	} else if (!cli_state_dir(buf, len)) {
		fprintf(stderr, "wizwar: neither XDG_STATE_HOME nor HOME is set: turn logs stay in memory\n");
		return NULL;
	}
	if (cli_make_dirs(buf) != 0) {
		fprintf(stderr, "wizwar: cannot create %s: %s; turn logs stay in memory\n", buf, strerror(errno));
		return NULL;
	}
	return buf;
}

/* Where a password comes from: --password PW, --password (ask), --password-file F, or
 * WIZWAR_PASSWORD. The text is kept in one buffer, wiped at exit. */
struct pwsrc {
	const char *given;  /* on the command line */
	const char *file;
	bool ask;
	char buf[1024];
};

/* 1 if argv[*i] is a password option (advancing past its value), 0 if not, -1 on a bad one. */
static int
password_option(int argc, char **argv, int *i, struct pwsrc *pw, const char *cmd)
{
	const char *a = argv[*i];

	if (strcmp(a, "--password-file") == 0) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "wizwar %s: --password-file needs a file\n", cmd);
			return -1;
		}
		pw->file = argv[++*i];
		return 1;
	}
	if (strcmp(a, "--password") != 0)
		return 0;
	/* Alone, or before another option: ask. */
	if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0) {
		pw->ask = true;
		return 1;
	}
	pw->given = argv[++*i];
	if (pw->given[0] == '\0') {
		fprintf(stderr, "wizwar %s: an empty --password would be no password\n", cmd);
		return -1;
	}
	return 1;
}

static void
wipe_line(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

/* The password, or NULL for none; false (said) when it cannot be had. */
static bool
password_get(struct pwsrc *pw, const char *cmd, const char *prompt, const char **out)
{
	const char *env = getenv("WIZWAR_PASSWORD");

	*out = NULL;
	if (pw->given) {
		*out = pw->given;
	} else if (pw->file) {
		FILE *f = fopen(pw->file, "r");
		if (f == NULL || fgets(pw->buf, sizeof pw->buf, f) == NULL) {
			fprintf(stderr, "wizwar %s: cannot read a password from %s: %s\n", cmd, pw->file,
			        f ? "it is empty" : strerror(errno));
			if (f)
				fclose(f);
			return false;
		}
		fclose(f);
		wipe_line(pw->buf);
		*out = pw->buf;
	} else if (pw->ask) {
		struct termios old, quiet;
		FILE *tty = fopen("/dev/tty", "r+");
		bool ok;
		if (tty == NULL) {
			fprintf(stderr, "wizwar %s: --password with no value asks on the terminal, and there is none: "
			        "use --password-file or WIZWAR_PASSWORD\n", cmd);
			return false;
		}
		fprintf(tty, "%s", prompt);
		fflush(tty);
		tcgetattr(fileno(tty), &old);
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
		ok = fgets(pw->buf, sizeof pw->buf, tty) != NULL;
		tcsetattr(fileno(tty), TCSAFLUSH, &old);
		fprintf(tty, "\n");
		fclose(tty);
		if (!ok) {
			fprintf(stderr, "wizwar %s: no password read\n", cmd);
			return false;
		}
		wipe_line(pw->buf);
		*out = pw->buf;
	} else if (env && env[0]) {
		*out = env;
	}
	if (*out && (*out)[0] == '\0') {
		fprintf(stderr, "wizwar %s: an empty password would be no password\n", cmd);
		return false;
	}
	return true;
}

static void
password_wipe(struct pwsrc *pw)
{
	sodium_memzero(pw->buf, sizeof pw->buf);
}

/* The server's long-term key: $XDG_STATE_HOME/wizwar/server.key, made on first run. */
static bool
server_identity(struct auth_identity *id, const char *cmd)
{
	char dir[4096], path[4200], why[600], fp[AUTH_FP_LEN + 1];
	bool created;

	if (!cli_state_dir(dir, sizeof dir)) {
		fprintf(stderr, "wizwar %s: neither XDG_STATE_HOME nor HOME is set: nowhere to keep the server's key\n",
		        cmd);
		return false;
	}
	if (cli_make_dirs(dir) != 0) {
		fprintf(stderr, "wizwar %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
		return false;
	}
	snprintf(path, sizeof path, "%s/server.key", dir);
	if (auth_identity_load(id, path, &created, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar %s: %s\n", cmd, why);
		return false;
	}
	auth_fingerprint(id->kp.pk, fp);
	fprintf(stderr, "wizwar %s: %s key %s, fingerprint %s\n", cmd, created ? "made a new" : "using the", path, fp);
	return true;
}

/* An address others may reach this machine at (the first non-loopback IPv4), for the join line. */
static void
reachable_address(const char *bind, char *buf, size_t len)
{
	uv_interface_address_t *ifs;
	int n;

	snprintf(buf, len, "THIS-HOST");
	if (strcmp(bind, "0.0.0.0") != 0 && strcmp(bind, "::") != 0) {
		snprintf(buf, len, strchr(bind, ':') ? "[%s]" : "%s", bind);
		return;
	}
	if (uv_interface_addresses(&ifs, &n) != 0)
		return;
	for (int i = 0; i < n; i++)
		if (!ifs[i].is_internal && ifs[i].address.address4.sin_family == AF_INET) {
			uv_ip4_name(&ifs[i].address.address4, buf, len);
			break;
		}
	uv_free_interface_addresses(ifs, n);
}

/* "HOST[:PORT][#FINGERPRINT]": the fingerprint is cut off into fp (lowercased, checked). */
static bool
split_fingerprint(char *addr, char fp[AUTH_FP_LEN + 1], bool *have, const char *cmd)
{
	char *hash = strchr(addr, '#');

	*have = false;
	if (hash == NULL)
		return true;
	*hash++ = '\0';
	if (strlen(hash) != AUTH_FP_LEN) {
		fprintf(stderr, "wizwar %s: a fingerprint is %d letters and digits, not '%s'\n", cmd, AUTH_FP_LEN, hash);
		return false;
	}
	for (int i = 0; i < AUTH_FP_LEN; i++) {
		char c = (char)(hash[i] >= 'A' && hash[i] <= 'Z' ? hash[i] - 'A' + 'a' : hash[i]);
		if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) {
			fprintf(stderr, "wizwar %s: '%s' is not a fingerprint (letters a-z and digits 2-7)\n", cmd, hash);
			return false;
		}
		fp[i] = c;
	}
	fp[AUTH_FP_LEN] = '\0';
	*have = true;
	return true;
}

/* How a client checks the server: the fingerprint given, and the known-servers file. */
static void
client_trust(struct net_config *nc, const char *fp, bool have_fp, char *known, size_t len)
{
	char dir[4096];

	if (have_fp)
		nc->fingerprint = fp;
	if (cli_state_dir(dir, sizeof dir) && cli_make_dirs(dir) == 0 &&
	    (size_t)snprintf(known, len, "%s/known_servers", dir) < len)
		nc->known_file = known;
}

static const char *const key_how_text[] = {
	[NET_KEY_PINNED] = "the server's key matches the fingerprint given",
	[NET_KEY_KNOWN] = "the server's key is the one remembered",
	[NET_KEY_NEW] = "first contact: the server's key is now remembered; check its fingerprint with the host",
};

static void
bot_key(void *ud, struct net *n, int how, const char *fp)
{
	(void)ud;
	(void)n;
	fprintf(stderr, "wizwar bot: %s (%s)\n", key_how_text[how], fp);
}

static bool
port_arg(const char *s, int *port)
{
	long v;

	if (!cli_int(s, 0, 65535, "--port", &v))
		return false;
	*port = (int)v;
	return true;
}

/* The options every command that runs a server takes (host and server): returns 1 if
 * argv[*i] was one (advancing past its value), 0 if not, -1 on a bad value (said). */
static int
server_option(int argc, char **argv, int *i, struct server_config *cfg, const char **dir, struct pwsrc *pw,
              const char *cmd)
{
	const char *a = argv[*i];
	long v;
	int r = password_option(argc, argv, i, pw, cmd);

	if (r != 0)
		return r;
	if (*i + 1 >= argc)
		return 0;
	if (strcmp(a, "--port") == 0) {
		if (!port_arg(argv[++*i], &cfg->port))
			return -1;
	} else if (strcmp(a, "--bind") == 0) {
		cfg->bind = argv[++*i];
	} else if (strcmp(a, "--log-dir") == 0) {
		*dir = argv[++*i];
	} else if (strcmp(a, "--grace") == 0) {
		if (!cli_int(argv[++*i], 1, PROTO_HOLD_MAX, "--grace", &v)) /* what WELCOME can tell a client */
			return -1;
		cfg->lim.grace_ms = (unsigned)v * 1000;
	} else if (strcmp(a, "--lobby-hold") == 0) {
		/* 0: a seat dropped in the lobby is not held; never longer than the grace (room.c cuts it) */
		if (!cli_int(argv[++*i], 0, PROTO_HOLD_MAX, "--lobby-hold", &v))
			return -1;
		cfg->lim.lobby_hold_ms = (unsigned)v * 1000;
	} else {
		return 0;
	}
	return 1;
}


static bool
text_arg(const char *s, int kind, const char *what)
{
	if (!text_check(s, strlen(s), kind)) {
		if (kind == TEXT_ROOM)
			fprintf(stderr, "wizwar: %s must be 1 to %d letters, digits, '-' or '_', not '%s'\n", what,
			        PROTO_ROOM_BYTES, s);
		else
			fprintf(stderr, "wizwar: %s must be 1 to %d printable characters without outer spaces\n", what,
			        PROTO_NAME_CHARS);
		return false;
	}
	return true;
}

/* A new room's code: 13 characters of Crockford's base32 (65 random bits: no guessing them),
 * lower case and without i, l, o, u (nothing to misread aloud), in three groups. */
static void
new_room_code(char out[PROTO_ROOM_BYTES + 1])
{
	static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
	uint8_t r[13];
	int n = 0;

	auth_random(r, sizeof r);
	for (int i = 0; i < 13; i++) {
		if (i == 4 || i == 8)
			out[n++] = '-';
		out[n++] = alphabet[r[i] & 31];
	}
	out[n] = '\0';
}

/* Where this server, room and name keep a running duel's resume token (seatfile.h), claimed
 * for as long as this process runs: another client of the same name here gets another file. */
static const char *
seat_path(const char *cmd, const struct net_config *nc, char *buf, size_t len, struct seatfile_claim *claim)
{
	char dir[4096];
	struct seatfile_key k = { nc->host, nc->port, nc->room ? nc->room : "", nc->name };

	if (!cli_state_dir(dir, sizeof dir) || cli_make_dirs(dir) != 0) {
		fprintf(stderr, "wizwar %s: no state directory: a killed client could not take its seat back\n", cmd);
		return NULL;
	}
	if (seatfile_claim(dir, &k, buf, len, claim) < 0) {
		if (errno == EBUSY)
			fprintf(stderr, "wizwar %s: %d clients named %s already play on this server and room here: "
			        "this one keeps no seat file (killed, it could not take its seat back)\n", cmd,
			        SEATFILE_SLOTS, nc->name);
		else
			fprintf(stderr, "wizwar %s: %s/seats: %s: a killed client could not take its seat back\n", cmd, dir,
			        strerror(errno));
		return NULL;
	}
	if (claim->slot > 0)
		fprintf(stderr, "wizwar %s: another client here is already %s on this server and room: this one does not "
		        "take its seat (it keeps seat file %d of that name; quit that one to take the seat over)\n", cmd,
		        nc->name, claim->slot + 1);
	return buf;
}

/* Signals for the headless commands: the first INT, TERM or HUP (a closed terminal, or a service
 * manager's stop) closes rooms and flushes turn logs, and the command exits 0. */
#define STOP_SIGNALS 3
struct stopper {
	uv_signal_t sig[STOP_SIGNALS];
	int signum;             /* the one that fired */
	void (*stop)(void *ud);
	void *ud;
	bool fired;
};

static void
on_signal(uv_signal_t *h, int signum)
{
	struct stopper *st = h->data;

	if (st->fired)
		return;
	st->fired = true;
	st->signum = signum;
	for (int i = 0; i < STOP_SIGNALS; i++)
		uv_close((uv_handle_t *)&st->sig[i], NULL);
	st->stop(st->ud);
}

static void
stopper_init(struct stopper *st, uv_loop_t *loop, void (*stop)(void *), void *ud)
{
	static const int signums[STOP_SIGNALS] = { SIGINT, SIGTERM, SIGHUP };

	st->stop = stop;
	st->ud = ud;
	st->fired = false;
	for (int i = 0; i < STOP_SIGNALS; i++) {
		uv_signal_init(loop, &st->sig[i]);
		st->sig[i].data = st;
		uv_signal_start(&st->sig[i], on_signal, signums[i]);
	}
}

static void
stopper_done(struct stopper *st)
{
	if (st->fired)
		return;
	st->fired = true;
	for (int i = 0; i < STOP_SIGNALS; i++)
		uv_close((uv_handle_t *)&st->sig[i], NULL);
}

static int
finish_loop(uv_loop_t *loop)
{
	uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop) != 0) {
		fprintf(stderr, "wizwar: internal error: a libuv handle was left open\n");
		return 1;
	}
	return 0;
}

/* wizwar server */

struct srvctx {
	struct server *srv;
	struct stopper st;
};

static void
stop_server(void *ud)
{
	struct srvctx *x = ud;

	unsigned duels = server_duels_playing(x->srv);

	/* Through the server's log writer: a stderr nobody reads must not stop the stop. */
	if (duels)
		server_say(x->srv, "shutting down; %u duel%s left unfinished: `wizwar server --resume` "
		           "brings %s back", duels, duels == 1 ? "" : "s", duels == 1 ? "it" : "them");
	else
		server_say(x->srv, "shutting down");
	server_close(x->srv, NULL, NULL);
}

int
cmd_server(int argc, char **argv)
{
	struct server_config cfg;
	static struct srvctx x;
	static struct pwsrc pw;
	static struct auth_identity id;
	uv_loop_t loop;
	char dirbuf[4096], why[300], fp[AUTH_FP_LEN + 1];
	const char *dir = NULL;
	long v;
	int rc;
	bool conns_given = false, resume = false;

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
		int r = server_option(argc, argv, &i, &cfg, &dir, &pw, "server");
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (is_help(a)) {
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
		} else {
			fprintf(stderr, "wizwar server: unknown or incomplete argument '%s'\n%s", a, server_usage);
			return 2;
		}
	}
	if (auth_init() != 0 || !password_get(&pw, "server", "Password for every room: ", &cfg.password) ||
	    !server_identity(&id, "server"))
		return 1;
	cfg.identity = &id;
	cfg.log_dir = log_dir(dir, dirbuf, sizeof dirbuf);
	if (uv_loop_init(&loop) != 0)
		return 1;
	rc = server_create(&loop, &cfg, &x.srv, why, sizeof why);
	bool asks_password = cfg.password != NULL; /* the join line says so, as host's does */
	password_wipe(&pw);
	sodium_memzero(&id, sizeof id);
	if (rc != 0) {
		fprintf(stderr, "wizwar server: %s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	if (resume) {
		/* Before the loop runs: no player can reach a room before its duel is back. */
		int n = server_resume_dir(x.srv, why, sizeof why);
		if (n < 0) {
			fprintf(stderr, "wizwar server: --resume: %s\n", why);
			server_close(x.srv, NULL, NULL);
			finish_loop(&loop);
			return 1;
		}
		fprintf(stderr, "wizwar server: %d unfinished duel%s brought back from %s\n", n, n == 1 ? "" : "s",
		        cfg.log_dir);
	}
	server_fingerprint(x.srv, fp);
	fprintf(stderr, "wizwar server: listening on %s port %d%s; turn logs in %s\n", server_bound(x.srv),
	        server_port(x.srv), strcmp(server_bound(x.srv), "::") == 0 ? " (IPv6 and IPv4)" : "",
	        cfg.log_dir ? cfg.log_dir : "memory");
	{
		char addr[64];
		reachable_address(server_bound(x.srv), addr, sizeof addr);
		printf("wizwar join %s:%d#%s --new-room%s\n", addr, server_port(x.srv), fp,
		       asks_password ? " --password" : "");
		fflush(stdout);
	}
	stopper_init(&x.st, &loop, stop_server, &x);
	return finish_loop(&loop);
}

/* wizwar bot */

struct botctx {
	struct netbot bot;
	struct stopper st;
	int status;
	const char *new_room; /* --new-room: the code, until it is said */
};

static void
bot_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	static const char *const res[] = { "unfinished", "player 1 wins", "player 2 wins", "a draw" };
	int me = net_player(b->net);
	bool won = (e->result == RESULT_WIN0 && me == 0) || (e->result == RESULT_WIN1 && me == 1);

	(void)ud;
	printf("duel %d: %s (%s), seed %016" PRIx64 ": %s%s\n", b->games, res[e->result & 3],
	       e->result == RESULT_DRAW ? "draw" : won ? "won" : "lost", e->seed, verified ? "" : "NOT VERIFIED: ", why);
	fflush(stdout);
}

static void
bot_start(void *ud, struct netbot *b, const struct view *v, bool resumed)
{
	(void)ud;
	(void)b;
	/* Said on stderr: a killed bot run again (its seat file) is back where the duel is. */
	if (resumed)
		fprintf(stderr, "wizwar bot: back in the duel at turn %" PRIu32 "\n", v->turn_no);
}

static void
bot_closed(void *ud, struct netbot *b)
{
	struct botctx *x = ud;

	/* Stopped by a signal, a bot has not failed for a warning it had before its first duel
	 * (a seat the server had forgotten, say): only being cut off, or errors and no duel
	 * when it ended by itself, count. */
	if ((b->errors && b->games == 0 && !x->st.fired) || b->cut_off)
		x->status = 1;
	if (b->unverified)
		x->status = 1;
	stopper_done(&x->st);
}

/* The room asked for exists once the server has taken us: only then is its code worth
 * passing on (a player told earlier could arrive first and find no room). */
static void
bot_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct botctx *x = ud;

	(void)b;
	if (m->type == WIRE_WELCOME && x->new_room) {
		printf("room %s: the other player joins with --room %s\n", x->new_room, x->new_room);
		fflush(stdout);
		x->new_room = NULL;
	}
}

static void
stop_bot(void *ud)
{
	struct botctx *x = ud;

	/* A closed terminal is a dropped connection, not leaving: the seat is held and its seat
	 * file kept for the same command to take it back. */
	if (x->st.signum == SIGHUP)
		netbot_abandon(&x->bot);
	else
		netbot_stop(&x->bot);
}

int
cmd_bot(int argc, char **argv)
{
	struct netbot_config bc;
	static struct botctx x;
	static struct pwsrc pw;
	uv_loop_t loop;
	char host[256], why[300], namebuf[64], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	char seatbuf[4200], code[PROTO_ROOM_BYTES + 1];
	struct seatfile_claim claim = { -1, -1 };
	const char *addr = NULL;
	bool have_seed = false, have_fp, new_room = false;
	long v;
	int r;

	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	bc.net.role = ROLE_BOT;
	bc.level = BOT_NORMAL;
	bc.think_ms = 250;
	bc.ready = true;
	const char *bot_usage = help_get(HELP_BOT);
	int args = cli_args("bot", bot_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if ((r = password_option(argc, argv, &i, &pw, "bot")) < 0)
			return 2;
		if (r > 0)
			continue;
		if (is_help(a)) {
			fputs(bot_usage, stdout);
			return 0;
		} else if (strcmp(a, "--room") == 0 && more) {
			if (!text_arg(argv[++i], TEXT_ROOM, "--room"))
				return 2;
			bc.net.room = argv[i];
		} else if (strcmp(a, "--new-room") == 0) {
			new_room = true;
		} else if (strcmp(a, "--level") == 0 && more) {
			if ((bc.level = bot_level_lookup(argv[++i])) < 0) {
				fprintf(stderr, "wizwar bot: --level takes random, easy, normal, hard or master, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			bc.net.name = argv[i];
		} else if (strcmp(a, "--games") == 0 && more) {
			if (!cli_int(argv[++i], 0, 1000000, "--games", &v))
				return 2;
			bc.games = (int)v;
		} else if (strcmp(a, "--think") == 0 && more) {
			if (!cli_int(argv[++i], 0, 60000, "--think", &v))
				return 2;
			bc.think_ms = (unsigned)v;
		} else if (strcmp(a, "--seed") == 0 && more) {
			if (!cli_seed(argv[++i], &bc.seed))
				return 2;
			have_seed = true;
		} else if (strcmp(a, "--reconnect") == 0 && more) {
			if (!cli_int(argv[++i], 1, 86400, "--reconnect", &v))
				return 2;
			bc.net.reconnect_for_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--mirror") == 0) {
			bc.mirror = true;
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else {
			fprintf(stderr, "wizwar bot: unknown or incomplete argument '%s'\n%s", a, bot_usage);
			return 2;
		}
	}
	if (addr == NULL) {
		fprintf(stderr, "wizwar bot: which server? (HOST[:PORT])\n%s", bot_usage);
		return 2;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (!split_fingerprint(addrbuf, fp, &have_fp, "bot"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &bc.net.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar bot: %s\n", why);
		return 2;
	}
	bc.net.host = host;
	if (!password_get(&pw, "bot", "Password: ", &bc.net.password))
		return 1;
	client_trust(&bc.net, fp, have_fp, known, sizeof known);
	bc.net.ev.key = bot_key;
	if (bc.net.name == NULL) {
		snprintf(namebuf, sizeof namebuf, "%s-bot", bot_level_name(bc.level));
		bc.net.name = namebuf;
	}
	if (auth_init() != 0)
		return 1;
	if (new_room && bc.net.room) {
		fprintf(stderr, "wizwar bot: --room or --new-room, not both\n");
		return 2;
	}
	if (new_room) {
		new_room_code(code);
		bc.net.room = code;
		bc.net.create_room = true;
		x.new_room = code; /* said once the server has made it: bot_msg */
		bc.on_msg = bot_msg;
	}
	bc.net.seat_file = seat_path("bot", &bc.net, seatbuf, sizeof seatbuf, &claim);
	if (!have_seed)
		bc.seed = auth_random64();
	bc.ud = &x;
	bc.on_end = bot_end;
	bc.on_start = bot_start;
	bc.on_closed = bot_closed;
	if (uv_loop_init(&loop) != 0) {
		seatfile_release(bc.net.seat_file, &claim);
		return 1;
	}
	r = netbot_start(&x.bot, &loop, &bc, why, sizeof why);
	password_wipe(&pw); /* net keeps its own copy, wiped when it closes */
	if (r != 0) {
		fprintf(stderr, "wizwar bot: %s\n", why);
		uv_loop_close(&loop);
		seatfile_release(bc.net.seat_file, &claim);
		return 2;
	}
	stopper_init(&x.st, &loop, stop_bot, &x);
	int rc = finish_loop(&loop);
	seatfile_release(bc.net.seat_file, &claim);
	return rc ? rc : x.status;
}

/* wizwar join and wizwar host: the curses client on a network session. */

static struct app *key_app; /* for the key check's line, which comes once the app runs */

static void
curses_key(void *ud, struct net *n, int how, const char *fp)
{
	char line[200];

	(void)ud;
	(void)n;
	snprintf(line, sizeof line, "Encrypted: %s (%s).", key_how_text[how], fp);
	if (key_app)
		app_on_status(key_app, line);
}

static int
run_curses(uv_loop_t *loop, struct net_config *nc, struct server *srv, const char *banner, const char *preset,
           const char *save_dir)
{
	static struct session_net sess;
	struct keys keys;
	struct keys_diag diag;
	struct ui ui;
	struct app *app;
	char keypath[4096], why[300];
	int status;

	memset(&sess, 0, sizeof sess);
	sess.save_dir = save_dir;
	keys_diag_init(&diag);
	keys_setup_preset(&keys, preset, keypath, sizeof keypath, &diag); /* the preset was checked (keys_arg) */
	session_net_events(&sess, nc);
	nc->ev.key = curses_key;
	if ((sess.net = net_create(loop, nc, why, sizeof why)) == NULL) {
		fprintf(stderr, "wizwar: %s\n", why);
		if (srv)
			server_close(srv, NULL, NULL);
		return finish_loop(loop) ? 1 : 2;
	}
	/* No screen before the server has taken us: a join that cannot start says why and exits 1. */
	if (!session_net_wait_join(&sess, loop)) {
		fprintf(stderr, "wizwar: %s\n", sess.why);
		if (sess.net)
			net_close(sess.net);
		if (srv)
			server_close(srv, NULL, NULL);
		finish_loop(loop);
		return 1;
	}
	if ((app = malloc(sizeof *app)) == NULL)
		return 1;
	setlocale(LC_ALL, "");
	ui_init(&ui, &keys);
	struct app_config ac = {
		.loop = loop, .keys = &keys, .screen = &ui_screen_ops, .screen_ctx = &ui,
		.session = &session_net_ops, .session_ctx = &sess, .input_fd = STDIN_FILENO,
	};
	if (app_init(app, &ac) != 0) {
		fprintf(stderr, "wizwar: cannot start the terminal\n");
		free(app);
		net_close(sess.net);
		if (srv)
			server_close(srv, NULL, NULL);
		finish_loop(loop);
		return 1;
	}
	for (unsigned i = 0; i < diag.n; i++)
		app_on_status(app, diag.msg[i]);
	key_app = app;
	/* The line to share comes first: it must be on screen before anything the lobby says. */
	if (banner)
		app_on_status(app, banner);
	session_net_start(&sess, app, sess.net, srv);
	status = app_run(app);
	key_app = NULL;
	app_finish(app);
	free(app);
	if (sess.last_result[0])
		printf("Last duel: %s%s\n", sess.ended_ok ? "" : "NOT VERIFIED: ", sess.last_result);
	if (sess.saved == 1)
		printf("Turn log: %s\n", sess.saved_path);
	else if (sess.saved > 1 && save_dir)
		printf("Turn logs: %u kept in %s, the last %s\n", sess.saved, save_dir, sess.saved_path);
	else if (sess.saved > 1)
		printf("Turn log of the last duel: %s\n", sess.saved_path);
	if (sess.failed) {
		/* The session ended under us (the server went, the link could not come back). */
		fprintf(stderr, "wizwar: %s\n", sess.why);
		if (status == 0)
			status = 1;
	} else if (status == 128 + SIGHUP && srv == NULL) {
		fprintf(stderr, "wizwar: the terminal closed; the seat is held: run the same command again to take it back\n");
	}
	if (sess.resume_log[0])
		fprintf(stderr, "wizwar host: the duel is left unfinished: `wizwar host --resume %s` brings it back\n",
		        sess.resume_log);
	if (uv_loop_close(loop) != 0)
		fprintf(stderr, "wizwar: internal error: a libuv handle was left open\n");
	return status;
}

/* --keys PRESET: one of keys.c's presets (keys.conf still applies on top), else said, false. */
static bool
keys_arg(const char *name, const char *cmd)
{
	static struct keys k; /* a scratch set, only to check the name */

	if (keys_preset(&k, name))
		return true;
	fprintf(stderr, "wizwar %s: --keys takes", cmd);
	for (int i = 0; keys_preset_name(i) != NULL; i++)
		fprintf(stderr, "%s %s", i == 0 ? "" : keys_preset_name(i + 1) ? "," : " or", keys_preset_name(i));
	fprintf(stderr, ", not '%s'\n", name);
	return false;
}

static bool
have_terminal(const char *cmd)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "wizwar %s: needs a terminal (`wizwar bot` plays headless)\n", cmd);
		return false;
	}
	return true;
}

int
cmd_join(int argc, char **argv)
{
	struct net_config nc;
	static struct pwsrc pw;
	uv_loop_t loop;
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	char seatbuf[4200], code[PROTO_ROOM_BYTES + 1], banner[300];
	struct seatfile_claim claim = { -1, -1 };
	const char *addr = NULL, *preset = NULL, *dir = NULL;
	char dirbuf[4096];
	bool have_fp, new_room = false, keep_logs = true;
	int r;

	net_config_default(&nc);
	nc.name = default_name("guest");
	const char *join_usage = help_get(HELP_JOIN);
	int args = cli_args("join", join_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if ((r = password_option(argc, argv, &i, &pw, "join")) < 0)
			return 2;
		if (r > 0)
			continue;
		if (is_help(a)) {
			fputs(join_usage, stdout);
			return 0;
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			nc.name = argv[i];
		} else if (strcmp(a, "--room") == 0 && more) {
			if (!text_arg(argv[++i], TEXT_ROOM, "--room"))
				return 2;
			nc.room = argv[i];
		} else if (strcmp(a, "--new-room") == 0) {
			new_room = true;
		} else if (strcmp(a, "--log-dir") == 0 && more) {
			dir = argv[++i];
		} else if (strcmp(a, "--no-log") == 0) {
			keep_logs = false;
		} else if (strcmp(a, "--reconnect") == 0 && more) {
			long v;
			if (!cli_int(argv[++i], 1, 86400, "--reconnect", &v))
				return 2;
			nc.reconnect_for_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--keys") == 0 && more) {
			if (!keys_arg(argv[++i], "join"))
				return 2;
			preset = argv[i];
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else {
			fprintf(stderr, "wizwar join: unknown or incomplete argument '%s'\n%s", a, join_usage);
			return 2;
		}
	}
	if (addr == NULL) {
		fprintf(stderr, "wizwar join: whose game? (HOST[:PORT])\n%s", join_usage);
		return 2;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (!split_fingerprint(addrbuf, fp, &have_fp, "join"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar join: %s\n", why);
		return 2;
	}
	nc.host = host;
	if (new_room && nc.room) {
		fprintf(stderr, "wizwar join: --room or --new-room, not both\n");
		return 2;
	}
	if (!have_terminal("join"))
		return 1;
	if (auth_init() != 0 || !password_get(&pw, "join", "Password: ", &nc.password))
		return 1;
	client_trust(&nc, fp, have_fp, known, sizeof known);
	banner[0] = '\0';
	if (new_room) {
		new_room_code(code);
		nc.room = code;
		nc.create_room = true;
		snprintf(banner, sizeof banner, "New room %s: the other player runs `wizwar join %s --room %s`.", code, addr,
		         code);
	}
	nc.seat_file = seat_path("join", &nc, seatbuf, sizeof seatbuf, &claim);
	/* seat_path said it on stderr, before the screen: a refusal of the name ends it at once. */
	if (claim.slot > 0 && !banner[0])
		snprintf(banner, sizeof banner, "Another wizwar here is already %s on this server and room: this one "
		         "does not take its seat (quit that one to take the seat over).", nc.name);
	if (uv_loop_init(&loop) != 0) {
		seatfile_release(nc.seat_file, &claim);
		return 1;
	}
	/* The directory is made when the first log is kept; failing that is said on the screen. */
	const char *save_dir = NULL;
	if (keep_logs && dir)
		save_dir = dir;
	else if (keep_logs && cli_state_dir(dirbuf, sizeof dirbuf))
		save_dir = dirbuf;
	else if (keep_logs)
		fprintf(stderr, "wizwar join: neither XDG_STATE_HOME nor HOME is set: the turn logs are not kept "
		        "(--log-dir DIR keeps them there)\n");
	r = run_curses(&loop, &nc, NULL, banner[0] ? banner : NULL, preset, save_dir);
	password_wipe(&pw);
	seatfile_release(nc.seat_file, &claim);
	return r;
}

static const char *
server_own_host(const char *bound)
{
	if (strcmp(bound, "::") == 0 || strcmp(bound, "0.0.0.0") == 0)
		return "localhost";
	return bound;
}

static void
stop_host(void *ud)
{
	const char *log = server_duel_log(ud);

	if (log)
		fprintf(stderr, "wizwar host: stopped mid-duel: `wizwar host --headless --resume %s` brings it back\n", log);
	server_close(ud, NULL, NULL);
}

int
cmd_host(int argc, char **argv)
{
	struct server_config cfg;
	struct server *srv;
	struct net_config nc;
	struct stopper st;
	static struct pwsrc pw;
	static struct auth_identity id;
	uv_loop_t loop;
	char dirbuf[4096], why[300], banner[400], addr[64], fp[AUTH_FP_LEN + 1];
	int rc;
	const char *dir = NULL, *resume = NULL, *name = default_name("host"), *preset = NULL;
	bool headless = false;
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
			r = server_option(argc, argv, &i, &cfg, &dir, &pw, "host");
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (is_help(a)) {
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
			if (!text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			name = argv[i];
		} else if (strcmp(a, "--resume") == 0 && more) {
			resume = argv[++i];
		} else if (strcmp(a, "--headless") == 0) {
			headless = true;
		} else if (strcmp(a, "--keys") == 0 && more) {
			if (!keys_arg(argv[++i], "host"))
				return 2;
			preset = argv[i];
		} else {
			fprintf(stderr, "wizwar host: unknown or incomplete argument '%s'\n%s", a, host_usage);
			return 2;
		}
	}
	if (!text_check(name, strlen(name), TEXT_NAME))
		name = "host";
	if (!headless && !have_terminal("host"))
		return 1;
	cfg.quiet = !headless; /* the server's log lines would write over the screen */
	if (auth_init() != 0 || !password_get(&pw, "host", "Password for the other player: ", &cfg.password) ||
	    !server_identity(&id, "host"))
		return 1;
	cfg.identity = &id;
	cfg.log_dir = log_dir(dir, dirbuf, sizeof dirbuf);
	if (uv_loop_init(&loop) != 0)
		return 1;
	rc = server_create(&loop, &cfg, &srv, why, sizeof why);
	sodium_memzero(&id, sizeof id);
	if (rc != 0) {
		fprintf(stderr, "wizwar host: %s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	if (resume && server_resume_log(srv, resume, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar host: %s\n", why);
		server_close(srv, NULL, NULL);
		finish_loop(&loop);
		return 1;
	}
	server_fingerprint(srv, fp);
	reachable_address(server_bound(srv), addr, sizeof addr);
	snprintf(banner, sizeof banner, "Hosting on port %d: the other player runs `wizwar join %s:%d#%s%s`.",
	         server_port(srv), addr, server_port(srv), fp, cfg.password ? " --password" : "");
	fprintf(stderr, "wizwar host: %s\n", banner);
	/* The line to copy, alone on stdout. */
	printf("wizwar join %s:%d#%s%s\n", addr, server_port(srv), fp, cfg.password ? " --password" : "");
	fflush(stdout);
	if (headless) {
		password_wipe(&pw);
		stopper_init(&st, &loop, stop_host, srv);
		return finish_loop(&loop);
	}
	if (server_reserve_host(srv, name, token, &token_len) != 0) {
		fprintf(stderr, "wizwar host: no seat for the host\n");
		server_close(srv, NULL, NULL);
		finish_loop(&loop);
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
	rc = run_curses(&loop, &nc, srv, banner, preset, NULL); /* the server keeps the log (--log-dir) */
	password_wipe(&pw);
	return rc;
}
