/* SPDX-License-Identifier: MIT */
/* cmd_net: what the network subcommands (cmd_host.c, cmd_join.c, cmd_server.c, cmd_bot.c) share: passwords,
 * the server's key and the client's trust, names, room codes, seat files, signals, and the curses client. */
#ifndef WW_CMD_NET_H
#define WW_CMD_NET_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "auth.h"
#include "net.h"
#include "seatfile.h"
#include "server.h"

bool cmd_net_is_help(const char *a);  /* --help or -h */
const char *cmd_net_default_name(const char *fallback); /* $USER, else fallback */
/* Where a command that runs a server keeps things: --state-dir (the server's key; by default
 * $XDG_STATE_HOME/wizwar, else ~/.local/state/wizwar) and --log-dir (turn logs; by default
 * STATE/logs). NULL: not given. */
struct cmd_net_places {
	const char *log_dir, *state_dir;
};
/* The state folder: --state-dir, else the default above; false (said) when there is none. */
bool cmd_net_state_dir(const struct cmd_net_places *pl, char *buf, size_t len);
/* The log folder, created. NULL: none, logs in memory (said). `strict`: a --log-dir given
 * that cannot be created or written is an error (said, and *bad set) rather than a duel
 * logged in memory only. */
const char *cmd_net_log_dir(const struct cmd_net_places *pl, bool strict, bool *bad, char *buf, size_t len);

/* Where a password comes from: --password PW, --password (ask), --password-file F, or
 * WIZWAR_PASSWORD. The text is kept in one buffer, wiped at exit. */
struct cmd_net_pw {
	const char *given;  /* on the command line */
	const char *file;
	bool ask;
	char buf[1024];
};

/* 1 if argv[*i] is a password option (advancing past its value), 0 if not, -1 on a bad one. */
int cmd_net_password_option(int argc, char **argv, int *i, struct cmd_net_pw *pw, const char *cmd);
/* The password, or NULL for none; false (said) when it cannot be had. */
bool cmd_net_password_get(struct cmd_net_pw *pw, const char *cmd, const char *prompt, const char **out);
void cmd_net_password_wipe(struct cmd_net_pw *pw);

/* The server's long-term key: STATE/server.key (cmd_net_state_dir), made on first run. */
bool cmd_net_server_identity(struct auth_identity *id, const struct cmd_net_places *pl, const char *cmd);
/* An address others may reach this machine at (the first non-loopback IPv4), for the join line. */
void cmd_net_reachable_address(const char *bind, char *buf, size_t len);
/* "HOST[:PORT][#FINGERPRINT]": the fingerprint is cut off into fp (lowercased, checked). */
bool cmd_net_split_fingerprint(char *addr, char fp[AUTH_FP_LEN + 1], bool *have, const char *cmd);
/* How a client checks the server: the fingerprint given, and the known-servers file. */
void cmd_net_client_trust(struct net_config *nc, const char *fp, bool have_fp, char *known, size_t len);
/* What a net_config.ev.key event's `how` (enum net_key_how) means, in words. */
const char *cmd_net_key_how(int how);
/* The options every command that runs a server takes (host and server): returns 1 if
 * argv[*i] was one (advancing past its value), 0 if not, -1 on a bad value (said). */
int cmd_net_server_option(int argc, char **argv, int *i, struct server_config *cfg, struct cmd_net_places *pl,
                          struct cmd_net_pw *pw, const char *cmd);
/* A name (TEXT_NAME) or room code (TEXT_ROOM) from the command line; false (said) when not one. */
bool cmd_net_text_arg(const char *s, int kind, const char *what);

/* Which room a client takes on a server: the options `join` and `bot` share (docs/server.md, "Open
 * rooms and quick pairing"), parsed in one place so that both say the same about them. */
struct cmd_net_room {
	const char *room;    /* --room CODE, checked; NULL none */
	const char *lan;     /* --lan NAME, checked; NULL none */
	bool new_room;       /* --new-room */
	bool public_room;    /* --public (with --new-room) */
	bool quick;          /* --quick */
	struct options opt;  /* --size, --no-fov, --no-potions: the duel --quick asks for (bot: or --new-room makes) */
	long turn_time;      /* --turn-time SECS, as opt */
	long bot_after;      /* --bot-after SECS, for --quick */
	const char *game_opt;  /* the first of --size, --no-fov, --no-potions, --turn-time given; NULL none */
	bool bot_after_given;  /* --bot-after */
};
void cmd_net_room_init(struct cmd_net_room *rc);
/* 1 if argv[*i] is a room option (advancing past its value), 0 if not, -1 on a bad one (said). */
int cmd_net_room_option(int argc, char **argv, int *i, struct cmd_net_room *rc);
/* False (said) when the room options given together mean nothing, or would be ignored: the game
 * options apply with --quick, and with --new-room when the command sets them on the room it makes
 * (new_room_opts: `bot`, which sends them as the room's controller); a room joined keeps its own. */
bool cmd_net_room_check(const struct cmd_net_room *rc, bool new_room_opts);
/* A new room's code: 13 characters of Crockford's base32 (65 random bits: no guessing them),
 * lower case and without i, l, o, u (nothing to misread aloud), in three groups. */
void cmd_net_new_room_code(char out[PROTO_ROOM_BYTES + 1]);
/* Where this server, room and name keep a running duel's resume token (seatfile.h), claimed
 * for as long as this process runs: another client of the same name here gets another file. */
const char *cmd_net_seat_path(const char *cmd, const struct net_config *nc, char *buf, size_t len,
                              struct seatfile_claim *claim);

/* The command line that brings back what this `host` or `server` runs, every option as given
 * (argv: the command's arguments as its loop read them), shell-quoted: --port the port bound now
 * (so that --port 0 comes back where its players reconnect), a password given on the command line
 * asked for instead (never printed), then --resume LOG (host) or --resume (server, log NULL).
 * Cut short with "..." only past len. */
void cmd_net_resume_line(char *buf, size_t len, const char *cmd, int argc, char **argv, int port, const char *log);
/* What cmd_net_resume_line needs, kept for when a duel is left unfinished. */
struct cmd_net_again {
	const char *cmd;
	int argc;
	char **argv;
	int port;
};

/* Signals for the headless commands: the first INT, TERM or HUP (a closed terminal, or a service
 * manager's stop) closes rooms and flushes turn logs, and the command exits 0. */
#define STOP_SIGNALS 3
struct cmd_net_stopper {
	uv_signal_t sig[STOP_SIGNALS];
	int nsig;
	int signum;             /* the one that fired */
	void (*stop)(void *ud);
	void *ud;
	bool fired;
};
void cmd_net_stopper_init(struct cmd_net_stopper *st, uv_loop_t *loop, void (*stop)(void *), void *ud);
/* The same on the signals given (at most STOP_SIGNALS): `wizwar server` stops on INT and TERM, and
 * reloads on HUP (a service manager's reload, not a closed terminal: it has none). */
void cmd_net_stopper_init_on(struct cmd_net_stopper *st, uv_loop_t *loop, void (*stop)(void *), void *ud,
                             const int *signums, int n);
void cmd_net_stopper_done(struct cmd_net_stopper *st);
/* Run the loop to its end and close it: 0, or 1 (said) when a handle was left open. */
int cmd_net_finish_loop(uv_loop_t *loop);

/* join and host: the curses client on a network session (srv: host's own server, or NULL; share:
 * the command the other player runs, on a row of its own in the lobby and on stdout again when
 * the screen closes, or NULL; again: host's command line, for the resume command it prints when
 * a duel is left unfinished). The exit status of the command. */
int cmd_net_run_curses(uv_loop_t *loop, struct net_config *nc, struct server *srv, const char *banner,
                       const char *share, const char *preset, const char *save_dir,
                       const struct cmd_net_again *again);
/* host's port mapping beside the curses client (portmap.c): fn(ud) runs once when the host's own server
 * is about to close (the player quits, a signal, or the client could not start), and
 * cmd_net_curses_show puts a status line (and a new share row, if not NULL) on the screen; false
 * while there is no screen yet. */
void cmd_net_curses_on_close(void (*fn)(void *ud), void *ud);
bool cmd_net_curses_show(const char *status, const char *share);
/* --keys PRESET: one of keys.c's presets (keys.conf still applies on top), else said, false. */
bool cmd_net_keys_arg(const char *name, const char *cmd);
/* join and host need a terminal on stdin and stdout; false (said) when there is none. */
bool cmd_net_have_terminal(const char *cmd);

#endif
