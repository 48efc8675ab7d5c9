/* SPDX-License-Identifier: MIT */
/* cmd_net: what the network subcommands share (cmd_net.h): passwords, keys and trust, names, room codes,
 * seat files, signals, and the curses client that join and host run. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "app.h"
#include "cli.h"
#include "cmd_net.h"
#include "commands_ui.h"
#include "keys.h"
#include "session_net.h"
#include "text.h"
#include "ui.h"

bool
cmd_net_is_help(const char *a)
{
	return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

const char *
cmd_net_default_name(const char *fallback)
{
	const char *u = getenv("USER");
	return u && u[0] ? u : fallback;
}

bool
cmd_net_state_dir(const struct cmd_net_places *pl, char *buf, size_t len)
{
	if (pl->state_dir) {
		if ((size_t)snprintf(buf, len, "%s", pl->state_dir) >= len) {
			cli_error("--state-dir: the path is too long\n");
			return false;
		}
		return true;
	}
	if (!cli_state_dir(buf, len)) {
		cli_error("neither XDG_STATE_HOME nor HOME is set: give --state-dir DIR\n");
		return false;
	}
	return true;
}

/* A folder this process may create files in: made if need be, then checked with a file made
 * and removed (access(2) would answer for the real user, not for what open will do). */
static int
writable_dir(const char *dir)
{
	char probe[4200];
	int fd;

	if (cli_make_dirs(dir) != 0)
		return -1;
	if ((size_t)snprintf(probe, sizeof probe, "%s/.wizwar-probe-%ld", dir, (long)getpid()) >= sizeof probe) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return -1;
	close(fd);
	unlink(probe);
	return 0;
}

const char *
cmd_net_log_dir(const struct cmd_net_places *pl, bool strict, bool *bad, char *buf, size_t len)
{
	char state[4096];

	*bad = false;
	if (pl->log_dir) {
		if ((size_t)snprintf(buf, len, "%s", pl->log_dir) >= len) {
			cli_error("--log-dir: the path is too long\n");
			*bad = strict;
			return NULL;
		}
	} else {
		if (!cmd_net_state_dir(pl, state, sizeof state)) {
			cli_error("turn logs stay in memory\n");
			return NULL;
		}
		if ((size_t)snprintf(buf, len, "%s/logs", state) >= len)
			return NULL;
	}
	if (writable_dir(buf) != 0) {
		if (strict && pl->log_dir) {
			cli_error("--log-dir %s: cannot write there: %s\n", buf, strerror(errno));
			*bad = true;
		} else {
			cli_error("cannot write in %s: %s; turn logs stay in memory\n", buf, strerror(errno));
		}
		return NULL;
	}
	return buf;
}

/* 1 if argv[*i] is a password option (advancing past its value), 0 if not, -1 on a bad one. */
int
cmd_net_password_option(int argc, char **argv, int *i, struct cmd_net_pw *pw, const char *cmd)
{
	const char *a = argv[*i];

	if (strcmp(a, "--password-file") == 0) {
		if (*i + 1 >= argc) {
			cli_error("--password-file needs a file\n");
			return -1;
		}
		pw->file = argv[++*i];
		return 1;
	}
	/* Its value is optional, so given only as --password=PW (getopt's rule, cli_args); alone, it asks. */
	if (strcmp(a, "--password") == 0) {
		pw->ask = true;
		return 1;
	}
	if (strncmp(a, "--password=", 11) != 0)
		return 0;
	pw->given = a + 11;
	if (pw->given[0] == '\0') {
		cli_error("an empty --password would be no password\n");
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
bool
cmd_net_password_get(struct cmd_net_pw *pw, const char *cmd, const char *prompt, const char **out)
{
	const char *env = getenv("WIZWAR_PASSWORD");

	*out = NULL;
	if (pw->given) {
		*out = pw->given;
	} else if (pw->file) {
		FILE *f = fopen(pw->file, "r");
		if (f == NULL || fgets(pw->buf, sizeof pw->buf, f) == NULL) {
			cli_error("cannot read a password from %s: %s\n", pw->file,
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
			cli_error("--password with no value asks on the terminal, and there is none: "
			        "use --password-file or WIZWAR_PASSWORD\n");
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
			cli_error("no password read\n");
			return false;
		}
		wipe_line(pw->buf);
		*out = pw->buf;
	} else if (env && env[0]) {
		*out = env;
	}
	if (*out && (*out)[0] == '\0') {
		cli_error("an empty password would be no password\n");
		return false;
	}
	return true;
}

void
cmd_net_password_wipe(struct cmd_net_pw *pw)
{
	sodium_memzero(pw->buf, sizeof pw->buf);
}

/* The server's long-term key: STATE/server.key, made on first run. */
bool
cmd_net_server_identity(struct auth_identity *id, const struct cmd_net_places *pl, const char *cmd)
{
	char dir[4096], path[4200], why[600], fp[AUTH_FP_LEN + 1];
	bool created;

	if (!cmd_net_state_dir(pl, dir, sizeof dir))
		return false;
	if (cli_make_dirs(dir) != 0) {
		cli_error("cannot create %s: %s\n", dir, strerror(errno));
		return false;
	}
	snprintf(path, sizeof path, "%s/server.key", dir);
	if (auth_identity_load(id, path, &created, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return false;
	}
	auth_fingerprint(id->kp.pk, fp);
	cli_error("%s key %s, fingerprint %s\n", created ? "made a new" : "using the", path, fp);
	return true;
}

/* An address others may reach this machine at (the first non-loopback IPv4), for the join line. */
void
cmd_net_reachable_address(const char *bind, char *buf, size_t len)
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
bool
cmd_net_split_fingerprint(char *addr, char fp[AUTH_FP_LEN + 1], bool *have, const char *cmd)
{
	char *hash = strchr(addr, '#');

	*have = false;
	if (hash == NULL)
		return true;
	*hash++ = '\0';
	if (strlen(hash) != AUTH_FP_LEN) {
		cli_error("a fingerprint is %d letters and digits, not '%s'\n", AUTH_FP_LEN, hash);
		return false;
	}
	for (int i = 0; i < AUTH_FP_LEN; i++) {
		char c = (char)(hash[i] >= 'A' && hash[i] <= 'Z' ? hash[i] - 'A' + 'a' : hash[i]);
		if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) {
			cli_error("'%s' is not a fingerprint (letters a-z and digits 2-7)\n", hash);
			return false;
		}
		fp[i] = c;
	}
	fp[AUTH_FP_LEN] = '\0';
	*have = true;
	return true;
}

/* How a client checks the server: the fingerprint given, and the known-servers file. */
void
cmd_net_client_trust(struct net_config *nc, const char *fp, bool have_fp, char *known, size_t len)
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
	[NET_KEY_ROTATED] = "the server moved to a new key, signed by the key pinned here: the new one is pinned now",
};

const char *
cmd_net_key_how(int how)
{
	return how >= 0 && how < (int)(sizeof key_how_text / sizeof key_how_text[0]) ? key_how_text[how] : "?";
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
int
cmd_net_server_option(int argc, char **argv, int *i, struct server_config *cfg, struct cmd_net_places *pl,
                      struct cmd_net_pw *pw, const char *cmd)
{
	const char *a = argv[*i];
	long v;
	int r = cmd_net_password_option(argc, argv, i, pw, cmd);

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
		if (argv[++*i][0] == '\0') {
			cli_error("--log-dir needs a folder, not an empty word\n");
			return -1;
		}
		pl->log_dir = argv[*i];
	} else if (strcmp(a, "--state-dir") == 0) {
		if (argv[++*i][0] == '\0') {
			cli_error("--state-dir needs a folder, not an empty word\n");
			return -1;
		}
		pl->state_dir = argv[*i];
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


/* Append one word to buf, quoted for a POSIX shell where it needs it ('...', a ' as '\''). */
static void
shell_word(char *buf, size_t len, size_t *off, const char *w)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-#";
	bool plain = w[0] != '\0' && w[0] != '#' && w[strspn(w, safe)] == '\0';
	int k;

	k = snprintf(buf + *off, len - *off, " %s", plain ? w : "'");
	*off += k > 0 && (size_t)k < len - *off ? (size_t)k : len - *off - 1;
	for (const char *c = w; !plain && *c; c++) {
		k = snprintf(buf + *off, len - *off, "%s", *c == '\'' ? "'\\''" : (char[]){ *c, '\0' });
		*off += k > 0 && (size_t)k < len - *off ? (size_t)k : len - *off - 1;
	}
	if (!plain) {
		k = snprintf(buf + *off, len - *off, "'");
		*off += k > 0 && (size_t)k < len - *off ? (size_t)k : len - *off - 1;
	}
}

void
cmd_net_resume_line(char *buf, size_t len, const char *cmd, int argc, char **argv, int port, const char *log)
{
	size_t off = 0;
	bool ask = false;
	char num[16];
	int k = snprintf(buf, len, "wizwar %s", cmd);

	if (len == 0)
		return;
	off = k > 0 && (size_t)k < len ? (size_t)k : len - 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool value = i + 1 < argc;
		if (strcmp(a, "--resume") == 0) {
			i += log && value; /* host's takes the log; server's is a flag */
			continue;
		}
		if (strcmp(a, "--port") == 0 && value) {
			i++;
			continue;
		}
		if (strcmp(a, "--password") == 0 || strncmp(a, "--password=", 11) == 0) {
			/* Its value (only ever --password=PW, cli_args) is never printed: the command asks for it. */
			ask = true;
			continue;
		}
		shell_word(buf, len, &off, a);
	}
	snprintf(num, sizeof num, "%d", port);
	shell_word(buf, len, &off, "--port");
	shell_word(buf, len, &off, num);
	if (ask)
		shell_word(buf, len, &off, "--password");
	shell_word(buf, len, &off, "--resume");
	if (log)
		shell_word(buf, len, &off, log);
	if (off + 1 >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

bool
cmd_net_text_arg(const char *s, int kind, const char *what)
{
	if (!text_check(s, strlen(s), kind)) {
		if (kind == TEXT_ROOM)
			cli_error("%s must be 1 to %d letters, digits, '-' or '_', not '%s'\n", what,
			        PROTO_ROOM_BYTES, s);
		else
			cli_error("%s must be 1 to %d printable characters without outer spaces\n", what,
			        PROTO_NAME_CHARS);
		return false;
	}
	return true;
}

void
cmd_net_room_init(struct cmd_net_room *rc)
{
	memset(rc, 0, sizeof *rc);
	options_default(&rc->opt);
	rc->bot_after = 30;
}

int
cmd_net_room_option(int argc, char **argv, int *i, struct cmd_net_room *rc)
{
	const char *a = argv[*i];
	bool more = *i + 1 < argc;
	int r;

	if (strcmp(a, "--new-room") == 0)
		rc->new_room = true;
	else if (strcmp(a, "--public") == 0)
		rc->public_room = true;
	else if (strcmp(a, "--quick") == 0)
		rc->quick = true;
	else if ((r = cli_game_option(argc, argv, i, &rc->opt)) != 0) {
		if (r > 0 && rc->game_opt == NULL)
			rc->game_opt = a; /* named when refused: cmd_net_room_check */
		return r < 0 ? -1 : 1;
	} else if (!more)
		return 0; /* the options below take a value: the caller says it is missing */
	else if (strcmp(a, "--room") == 0) {
		if (!cmd_net_text_arg(argv[++*i], TEXT_ROOM, "--room"))
			return -1;
		rc->room = argv[*i];
	} else if (strcmp(a, "--lan") == 0) {
		if (!cmd_net_text_arg(argv[++*i], TEXT_NAME, "--lan"))
			return -1;
		rc->lan = argv[*i];
	} else if (strcmp(a, "--turn-time") == 0) {
		if (!cli_int(argv[++*i], 0, TURN_TIME_MAX, "--turn-time", &rc->turn_time))
			return -1;
		if (rc->game_opt == NULL)
			rc->game_opt = a;
	} else if (strcmp(a, "--bot-after") == 0) {
		if (!cli_int(argv[++*i], QUICK_WAIT_MIN, QUICK_WAIT_MAX, "--bot-after", &rc->bot_after))
			return -1;
		rc->bot_after_given = true;
	} else
		return 0;
	return 1;
}

bool
cmd_net_room_check(const struct cmd_net_room *rc, bool new_room_opts)
{
	if (rc->new_room && rc->room) {
		cli_error("--room or --new-room, not both\n");
		return false;
	}
	if (rc->public_room && !rc->new_room) {
		cli_error("--public makes a new room public: give --new-room too\n");
		return false;
	}
	if (rc->quick && (rc->new_room || rc->room || rc->lan)) {
		cli_error("--quick finds a room: not with --room, --new-room or --lan\n");
		return false;
	}
	/* Refused rather than ignored: a duel of other options than asked is found out only on the board. */
	if (rc->bot_after_given && !rc->quick) {
		cli_error("--bot-after is how long --quick waits to be paired: give --quick too\n");
		return false;
	}
	if (rc->game_opt && !rc->quick && !(rc->new_room && new_room_opts)) {
		if (new_room_opts)
			cli_error("%s is an option of the room made (--new-room) or paired by (--quick): a room joined "
			          "keeps the options its controller set\n", rc->game_opt);
		else
			cli_error("%s is an option to be paired by (--quick): a room joined keeps the options its "
			          "controller set, and a room you make (--new-room) takes them in its lobby (/size, "
			          "/fov, /potions, /time)\n", rc->game_opt);
		return false;
	}
	return true;
}

/* A new room's code: 13 characters of Crockford's base32 (65 random bits: no guessing them),
 * lower case and without i, l, o, u (nothing to misread aloud), in three groups. */
void
cmd_net_new_room_code(char out[PROTO_ROOM_BYTES + 1])
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
const char *
cmd_net_seat_path(const char *cmd, const struct net_config *nc, char *buf, size_t len, struct seatfile_claim *claim)
{
	char dir[4096];
	struct seatfile_key k = { nc->host, nc->port, nc->room ? nc->room : "", nc->name };

	if (!cli_state_dir(dir, sizeof dir) || cli_make_dirs(dir) != 0) {
		cli_error("no state directory: a killed client could not take its seat back\n");
		return NULL;
	}
	if (seatfile_claim(dir, &k, buf, len, claim) < 0) {
		if (errno == EBUSY)
			cli_error("%d clients named %s already play on this server and room here: "
			        "this one keeps no seat file (killed, it could not take its seat back)\n",
			        SEATFILE_SLOTS, nc->name);
		else
			cli_error("%s/seats: %s: a killed client could not take its seat back\n", dir,
			        strerror(errno));
		return NULL;
	}
	if (claim->slot > 0)
		cli_error("another client here is already %s on this server and room: this one does not "
		        "take its seat (it keeps seat file %d of that name; quit that one to take the seat over)\n",
		        nc->name, claim->slot + 1);
	return buf;
}

static void
on_signal(uv_signal_t *h, int signum)
{
	struct cmd_net_stopper *st = h->data;

	if (st->fired)
		return;
	st->fired = true;
	st->signum = signum;
	for (int i = 0; i < st->nsig; i++)
		uv_close((uv_handle_t *)&st->sig[i], NULL);
	st->stop(st->ud);
}

void
cmd_net_stopper_init(struct cmd_net_stopper *st, uv_loop_t *loop, void (*stop)(void *), void *ud)
{
	static const int signums[STOP_SIGNALS] = { SIGINT, SIGTERM, SIGHUP };

	cmd_net_stopper_init_on(st, loop, stop, ud, signums, STOP_SIGNALS);
}

void
cmd_net_stopper_init_on(struct cmd_net_stopper *st, uv_loop_t *loop, void (*stop)(void *), void *ud,
                        const int *signums, int n)
{
	st->stop = stop;
	st->ud = ud;
	st->fired = false;
	st->nsig = n < STOP_SIGNALS ? n : STOP_SIGNALS;
	for (int i = 0; i < st->nsig; i++) {
		uv_signal_init(loop, &st->sig[i]);
		st->sig[i].data = st;
		uv_signal_start(&st->sig[i], on_signal, signums[i]);
	}
}

void
cmd_net_stopper_done(struct cmd_net_stopper *st)
{
	if (st->fired)
		return;
	st->fired = true;
	for (int i = 0; i < st->nsig; i++)
		uv_close((uv_handle_t *)&st->sig[i], NULL);
}

int
cmd_net_finish_loop(uv_loop_t *loop)
{
	uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop) != 0) {
		cli_error("internal error: a libuv handle was left open\n");
		return 1;
	}
	return 0;
}

/* join and host: the curses client on a network session. */

static struct app *key_app; /* for the key check's line, which comes once the app runs */
static void (*own_close)(void *ud); /* cmd_net_curses_on_close */
static void *own_close_ud;

void
cmd_net_curses_on_close(void (*fn)(void *ud), void *ud)
{
	own_close = fn;
	own_close_ud = ud;
}

bool
cmd_net_curses_show(const char *status, const char *share)
{
	if (key_app == NULL)
		return false;
	if (share)
		app_set_share(key_app, share);
	app_on_status(key_app, status);
	return true;
}

static void
close_own(void *ud)
{
	(void)ud;
	if (own_close)
		own_close(own_close_ud);
	own_close = NULL;
}

static void
curses_key(void *ud, struct net *n, int how, const char *fp)
{
	char line[200];

	(void)ud;
	(void)n;
	snprintf(line, sizeof line, "Encrypted: %s (%s).", cmd_net_key_how(how), fp);
	/* A rotation comes before the join, so before the screen: said on stderr too, to be kept. */
	if (how == NET_KEY_ROTATED)
		cli_error("%s (%s)\n", cmd_net_key_how(how), fp);
	if (key_app)
		app_on_status(key_app, line);
}

int
cmd_net_run_curses(uv_loop_t *loop, struct net_config *nc, struct server *srv, const char *banner, const char *share,
           const char *preset, const char *save_dir, const struct cmd_net_again *again)
{
	static struct session_net sess;
	struct keys keys;
	struct keys_diag diag;
	struct ui ui;
	struct app *app;
	char keypath[4096], why[300];
	static char replay[4200]; /* v at the end: the log to watch once the duel screen has closed */
	int status;

	replay[0] = '\0';
	memset(&sess, 0, sizeof sess);
	sess.save_dir = save_dir;
	keys_diag_init(&diag);
	keys_setup_preset(&keys, preset, keypath, sizeof keypath, &diag); /* the preset was checked (keys_arg) */
	session_net_events(&sess, nc);
	sess.on_settled = close_own; /* before the server closes */
	nc->ev.key = curses_key;
	if ((sess.net = net_create(loop, nc, why, sizeof why)) == NULL) {
		cli_error("%s\n", why);
		close_own(NULL);
		if (srv)
			server_close(srv, NULL, NULL);
		return cmd_net_finish_loop(loop) ? 1 : 2;
	}
	/* No screen before the server has taken us: a join that cannot start says why and exits 1. */
	if (!session_net_wait_join(&sess, loop)) {
		cli_error("%s\n", sess.why);
		if (sess.net)
			net_close(sess.net);
		close_own(NULL);
		if (srv)
			server_close(srv, NULL, NULL);
		cmd_net_finish_loop(loop);
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
		cli_error("cannot start the terminal\n");
		free(app);
		net_close(sess.net);
		close_own(NULL);
		if (srv)
			server_close(srv, NULL, NULL);
		cmd_net_finish_loop(loop);
		return 1;
	}
	for (unsigned i = 0; i < diag.n; i++)
		app_on_status(app, diag.msg[i]);
	key_app = app;
	/* The line to share comes first: it must be on screen before anything the lobby says. */
	if (banner)
		app_on_status(app, banner);
	if (share)
		app_set_share(app, share);
	session_net_start(&sess, app, sess.net, srv);
	status = app_run(app);
	key_app = NULL;
	app_finish(app);
	if (app_replay_path(app))
		snprintf(replay, sizeof replay, "%s", app_replay_path(app));
	free(app);
	if (share)
		printf("%s\n", share); /* again, whole, where the screen was: to copy after all */
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
		cli_error("%s\n", sess.why);
		if (status == 0)
			status = 1;
	} else if (status == 128 + SIGHUP && srv == NULL) {
		cli_error("the terminal closed; the seat is held: run the same command again to take it back\n");
	}
	if (sess.resume_log[0]) {
		char line[8192];
		if (again)
			cmd_net_resume_line(line, sizeof line, again->cmd, again->argc, again->argv, again->port, sess.resume_log);
		else
			snprintf(line, sizeof line, "wizwar host --resume %s", sess.resume_log);
		cli_error("the duel is left unfinished: `%s` brings it back\n", line);
	}
	if (uv_loop_close(loop) != 0)
		cli_error("internal error: a libuv handle was left open\n");
	if (replay[0] && status == 0) {
		/* v at the end: the duel just played, all-seeing, in the replay viewer. */
		char *argv_replay[] = { replay, NULL };
		return cmd_watch(1, argv_replay);
	}
	return status;
}

/* --keys PRESET: one of keys.c's presets (keys.conf still applies on top), else said, false. */
bool
cmd_net_keys_arg(const char *name, const char *cmd)
{
	static struct keys k; /* a scratch set, only to check the name */

	if (keys_preset(&k, name))
		return true;
	cli_error("--keys takes");
	for (int i = 0; keys_preset_name(i) != NULL; i++)
		fprintf(stderr, "%s %s", i == 0 ? "" : keys_preset_name(i + 1) ? "," : " or", keys_preset_name(i));
	fprintf(stderr, ", not '%s'\n", name);
	return false;
}

bool
cmd_net_have_terminal(const char *cmd)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("needs a terminal (`wizwar bot` plays headless)\n");
		return false;
	}
	return true;
}
