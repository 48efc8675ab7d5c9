/* cmd_net: `wizwar host`, `join`, `server` and `bot`: argument parsing and the loops around server.c and net.c. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "auth.h"
#include "bot.h"
#include "cli.h"
#include "commands_net.h"
#include "keys.h"
#include "net.h"
#include "netbot.h"
#include "server.h"
#include "seatfile.h"
#include "session_net.h"
#include "text.h"
#include "ui.h"

static const char host_usage[] =
    "usage: wizwar host [--port P] [--bind ADDR] [--password PW] [--size N] [--no-fov]\n"
    "                   [--no-potions] [--seed S] [--turn-time SECS] [--name NAME]\n"
    "                   [--log-dir DIR] [--resume LOG] [--grace SECS] [--headless]\n"
    "\n"
    "Hosts a duel: a server for one game in this process, played from this terminal. You are\n"
    "the controller: the options are yours (and the other player's after you hand control\n"
    "over with /control at the chat prompt). The other player runs `wizwar join HOST:PORT`.\n"
    "\n"
    "  --port P          TCP port to listen on (default 7727; 0 picks a free one)\n"
    "  --bind ADDR       listen on ADDR only, and connect your own client to it (default:\n"
    "                    every address, IPv6 and IPv4)\n"
    "  --password PW     players must know it; it never crosses the wire\n"
    "  --size N          level side, odd, 15 to 51 (default 25)\n"
    "  --no-fov          both wizards see the whole level\n"
    "  --no-potions      no potions on the level nor in inventories\n"
    "  --seed S          the first duel's seed (default: random, committed to at the start)\n"
    "  --turn-time SECS  a turn not ended in time passes (0 to 3600; default 0, no limit)\n"
    "  --name NAME       your name (default: $USER, else host)\n"
    "  --log-dir DIR     where turn logs go (default $XDG_STATE_HOME/wizwar)\n"
    "  --resume LOG      bring back the duel of LOG (a host killed mid-duel); players reconnect\n"
    "  --grace SECS      how long a dropped player's seat is held (default 120)\n"
    "  --headless        no terminal: serve the room only; the first to join controls it\n";

static const char join_usage[] =
    "usage: wizwar join HOST[:PORT] [--password PW] [--name NAME] [--room CODE | --new-room]\n"
    "\n"
    "Joins a duel hosted with `wizwar host` (or a room of `wizwar server` with --room).\n"
    "\n"
    "  HOST[:PORT]     the host's name or address, and port (default 7727); [v6addr]:PORT too\n"
    "  --password PW   the host's password, if it set one\n"
    "  --name NAME     your name, 1 to 16 characters (default: $USER, else guest)\n"
    "  --room CODE     an existing room of a `wizwar server` (letters, digits, '-', '_', up to 16)\n"
    "  --new-room      ask a `wizwar server` for a new room (you control it); its code is shown\n"
    "                  to pass on to the other player\n"
    "\n"
    "At the chat prompt (Enter): /ready, /rematch, /quit; the controller also /size N,\n"
    "/fov on|off, /potions on|off, /time SECS and /control; ? lists them. A dropped connection\n"
    "is resumed by itself for two minutes; while a duel runs its resume token is kept in\n"
    "$XDG_STATE_HOME/wizwar/seats (0600), so if this client is killed or its terminal closed,\n"
    "the same command again takes the seat back. At the end the host reveals the seed and the\n"
    "turn log, and this client checks that they replay to everything it was shown.\n"
    "Exit status: 0, 1 when the join fails (the reason on stderr) or the duel is cut off,\n"
    "2 for bad arguments.\n";

static const char server_usage[] =
    "usage: wizwar server [--port P] [--bind ADDR] [--password PW] [--log-dir DIR]\n"
    "                     [--max-rooms N] [--max-per-addr N] [--lobby-idle SECS] [--grace SECS]\n"
    "\n"
    "A headless server of many rooms, for players who cannot open a port. A room is made for a\n"
    "player who asks, `wizwar join THIS:PORT --new-room`, with a code to share; the other joins\n"
    "with `--room CODE`. Unknown codes are refused (10 a minute per address, then none); a\n"
    "lobby with nothing but heartbeats for 10 minutes is closed. Runs until interrupted.\n"
    "\n"
    "  --port P          TCP port (default 7727)\n"
    "  --bind ADDR       listen on ADDR only (default: every address, IPv6 and IPv4)\n"
    "  --password PW     every room asks for it (it never crosses the wire); without it\n"
    "                    the room code is the only secret\n"
    "  --log-dir DIR     where turn logs go (default $XDG_STATE_HOME/wizwar)\n"
    "  --max-rooms N     rooms at once (default 256)\n"
    "  --max-per-addr N  connections from one IPv4 address or IPv6 /64 (default 16)\n"
    "  --lobby-idle SECS close a lobby with nothing but heartbeats after SECS (default 600)\n"
    "  --grace SECS      how long a dropped player's seat is held (default 120)\n";

static const char bot_usage[] =
    "usage: wizwar bot HOST[:PORT] [--room CODE | --new-room] [--level easy|normal|hard|random]\n"
    "                  [--password PW] [--name NAME] [--games N] [--think MS] [--seed S]\n"
    "\n"
    "A bot player over the network. It decides on the view the server sends it, as a person\n"
    "would: it is never told more. It says ready, plays, asks for a rematch and verifies the\n"
    "host after each duel, printing one line per duel.\n"
    "\n"
    "  --room CODE     an existing room of a `wizwar server`\n"
    "  --new-room      ask the server for a new room; prints `room CODE: ...` first\n"
    "  --level L       random, easy, normal, hard or master (default normal)\n"
    "  --password PW   the host's password\n"
    "  --name NAME     default: LEVEL-bot\n"
    "  --games N       duels to play, then leave (default 0: until the server closes)\n"
    "  --think MS      pause before each command (default 250)\n"
    "  --seed S        the bot's own random seed (default: random)\n"
    "\n"
    "While a duel runs the resume token is kept in $XDG_STATE_HOME/wizwar/seats: the same\n"
    "command run again after a kill takes the seat back (and says at which turn).\n";

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
server_option(int argc, char **argv, int *i, struct server_config *cfg, const char **dir, const char *cmd)
{
	const char *a = argv[*i];
	long v;

	if (*i + 1 >= argc)
		return 0;
	if (strcmp(a, "--port") == 0) {
		if (!port_arg(argv[++*i], &cfg->port))
			return -1;
	} else if (strcmp(a, "--bind") == 0) {
		cfg->bind = argv[++*i];
	} else if (strcmp(a, "--password") == 0) {
		cfg->password = argv[++*i];
		if (cfg->password[0] == '\0') {
			fprintf(stderr, "wizwar %s: an empty --password would be no password\n", cmd);
			return -1;
		}
	} else if (strcmp(a, "--log-dir") == 0) {
		*dir = argv[++*i];
	} else if (strcmp(a, "--grace") == 0) {
		if (!cli_int(argv[++*i], 1, 86400, "--grace", &v))
			return -1;
		cfg->lim.grace_ms = (unsigned)v * 1000;
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

/* Where this server, room and name keep a running duel's resume token (seatfile.h). */
static const char *
seat_path(const struct net_config *nc, char *buf, size_t len)
{
	char dir[4096];
	struct seatfile_key k = { nc->host, nc->port, nc->room ? nc->room : "", nc->name };

	if (!cli_state_dir(dir, sizeof dir) || cli_make_dirs(dir) != 0 || !seatfile_path(dir, &k, buf, len)) {
		fprintf(stderr, "wizwar: no state directory: a killed client could not take its seat back\n");
		return NULL;
	}
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

	fprintf(stderr, "wizwar server: shutting down\n");
	server_close(x->srv, NULL, NULL);
}

int
cmd_server(int argc, char **argv)
{
	struct server_config cfg;
	struct srvctx x;
	uv_loop_t loop;
	char dirbuf[4096], why[300];
	const char *dir = NULL;
	long v;

	server_config_default(&cfg);
	cfg.multi = true;
	cfg.port = NET_DEFAULT_PORT;
	int args = cli_args("server", server_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int r = server_option(argc, argv, &i, &cfg, &dir, "server");
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
			cfg.lim.max_conns = cfg.lim.max_rooms * 2 + 64;
		} else if (strcmp(a, "--lobby-idle") == 0 && more) {
			if (!cli_int(argv[++i], 1, 86400, "--lobby-idle", &v))
				return 2;
			cfg.lim.lobby_idle_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--max-per-addr") == 0 && more) {
			if (!cli_int(argv[++i], 1, 100000, "--max-per-addr", &v))
				return 2;
			cfg.lim.max_conns_per_addr = (unsigned)v;
		} else {
			fprintf(stderr, "wizwar server: unknown or incomplete argument '%s'\n%s", a, server_usage);
			return 2;
		}
	}
	cfg.log_dir = log_dir(dir, dirbuf, sizeof dirbuf);
	if (uv_loop_init(&loop) != 0)
		return 1;
	if (server_create(&loop, &cfg, &x.srv, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar server: %s\n", why);
		uv_loop_close(&loop);
		return 1;
	}
	fprintf(stderr, "wizwar server: listening on %s port %d%s; turn logs in %s\n", server_bound(x.srv),
	        server_port(x.srv), strcmp(server_bound(x.srv), "::") == 0 ? " (IPv6 and IPv4)" : "",
	        cfg.log_dir ? cfg.log_dir : "memory");
	stopper_init(&x.st, &loop, stop_server, &x);
	return finish_loop(&loop);
}

/* wizwar bot */

struct botctx {
	struct netbot bot;
	struct stopper st;
	int status;
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

	if (b->errors && b->games == 0)
		x->status = 1;
	if (b->unverified)
		x->status = 1;
	stopper_done(&x->st);
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
	uv_loop_t loop;
	char host[256], why[300], namebuf[64], seatbuf[4200], code[PROTO_ROOM_BYTES + 1];
	const char *addr = NULL;
	bool have_seed = false, new_room = false;
	long v;

	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	bc.net.role = ROLE_BOT;
	bc.level = BOT_NORMAL;
	bc.think_ms = 250;
	bc.ready = true;
	int args = cli_args("bot", bot_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
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
		} else if (strcmp(a, "--password") == 0 && more) {
			bc.net.password = argv[++i];
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
	if (net_parse_hostport(addr, host, sizeof host, &bc.net.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar bot: %s\n", why);
		return 2;
	}
	bc.net.host = host;
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
		printf("room %s: the other player joins with --room %s\n", code, code);
		fflush(stdout);
	}
	bc.net.seat_file = seat_path(&bc.net, seatbuf, sizeof seatbuf);
	if (!have_seed)
		bc.seed = auth_random64();
	bc.ud = &x;
	bc.on_end = bot_end;
	bc.on_start = bot_start;
	bc.on_closed = bot_closed;
	if (uv_loop_init(&loop) != 0)
		return 1;
	if (netbot_start(&x.bot, &loop, &bc, why, sizeof why) != 0) {
		fprintf(stderr, "wizwar bot: %s\n", why);
		uv_loop_close(&loop);
		return 2;
	}
	stopper_init(&x.st, &loop, stop_bot, &x);
	int rc = finish_loop(&loop);
	return rc ? rc : x.status;
}

/* wizwar join and wizwar host: the curses client on a network session. */

static int
run_curses(uv_loop_t *loop, struct net_config *nc, struct server *srv, const char *banner)
{
	static struct session_net sess;
	struct keys keys;
	struct keys_diag diag;
	struct ui ui;
	struct app *app;
	char keypath[4096], why[300];
	int status;

	memset(&sess, 0, sizeof sess);
	keys_diag_init(&diag);
	keys_setup(&keys, keypath, sizeof keypath, &diag);
	session_net_events(&sess, nc);
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
	session_net_start(&sess, app, sess.net, srv);
	if (banner)
		app_on_status(app, banner);
	status = app_run(app);
	app_finish(app);
	free(app);
	if (sess.last_result[0])
		printf("Last duel: %s%s\n", sess.ended_ok ? "" : "NOT VERIFIED: ", sess.last_result);
	if (sess.failed) {
		/* The session ended under us (the server went, the link could not come back). */
		fprintf(stderr, "wizwar: %s\n", sess.why);
		if (status == 0)
			status = 1;
	} else if (status == 128 + SIGHUP && srv == NULL) {
		fprintf(stderr, "wizwar: the terminal closed; the seat is held: run the same command again to take it back\n");
	}
	if (uv_loop_close(loop) != 0)
		fprintf(stderr, "wizwar: internal error: a libuv handle was left open\n");
	return status;
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
	uv_loop_t loop;
	char host[256], why[300], seatbuf[4200], code[PROTO_ROOM_BYTES + 1], banner[300];
	const char *addr = NULL;
	bool new_room = false;

	net_config_default(&nc);
	nc.name = default_name("guest");
	int args = cli_args("join", join_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (is_help(a)) {
			fputs(join_usage, stdout);
			return 0;
		} else if (strcmp(a, "--password") == 0 && more) {
			nc.password = argv[++i];
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
	if (net_parse_hostport(addr, host, sizeof host, &nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
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
	if (auth_init() != 0)
		return 1;
	banner[0] = '\0';
	if (new_room) {
		new_room_code(code);
		nc.room = code;
		nc.create_room = true;
		snprintf(banner, sizeof banner, "New room %s: the other player runs `wizwar join %s --room %s`.", code, addr,
		         code);
	}
	nc.seat_file = seat_path(&nc, seatbuf, sizeof seatbuf);
	if (uv_loop_init(&loop) != 0)
		return 1;
	return run_curses(&loop, &nc, NULL, banner[0] ? banner : NULL);
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
	server_close(ud, NULL, NULL);
}

int
cmd_host(int argc, char **argv)
{
	struct server_config cfg;
	struct server *srv;
	struct net_config nc;
	struct stopper st;
	uv_loop_t loop;
	char dirbuf[4096], why[300], banner[300];
	const char *dir = NULL, *resume = NULL, *name = default_name("host");
	bool headless = false;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	long v;

	server_config_default(&cfg);
	cfg.port = NET_DEFAULT_PORT;
	int args = cli_args("host", host_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		int r = cli_game_option(argc, argv, &i, &cfg.opt);
		if (r == 0)
			r = server_option(argc, argv, &i, &cfg, &dir, "host");
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
	cfg.log_dir = log_dir(dir, dirbuf, sizeof dirbuf);
	if (uv_loop_init(&loop) != 0)
		return 1;
	if (server_create(&loop, &cfg, &srv, why, sizeof why) != 0) {
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
	snprintf(banner, sizeof banner, "Hosting on port %d: the other player runs `wizwar join THIS-HOST:%d%s`.",
	         server_port(srv), server_port(srv), cfg.password ? " --password ..." : "");
	fprintf(stderr, "wizwar host: %s\n", banner);
	if (headless) {
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
	nc.token = token;
	nc.token_len = token_len;
	return run_curses(&loop, &nc, srv, banner);
}
