/* SPDX-License-Identifier: MIT */
/* server: the authoritative wizwar server on libuv: a listener, its connections and its rooms, all in one struct. */
#ifndef WW_SERVER_H
#define WW_SERVER_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include <uv.h>

#include "auth.h"
#include "proxy.h"
#include "game.h"
#include "proto.h"

struct server;
struct gameroom;
struct conn;

/* Defaults for a public server of 5,000 duels with room to spare (docs/server.md, "Capacity"):
 * two connections a room, and some for players in the handshake or the lobby. */
#define SERVER_MAX_ROOMS 6000
#define SERVER_MAX_CONNS 12288

/* Every limit, with the defaults of server_config_default() (docs/server.md). */
struct server_limits {
	unsigned max_conns;          /* connections in all (SERVER_MAX_CONNS; lowered at start to fit the file limit) */
	unsigned max_conns_per_addr; /* from one IPv4 address or IPv6 /64 (16) */
	unsigned max_rooms;          /* rooms of a multi-room server (SERVER_MAX_ROOMS; likewise) */
	unsigned handshake_ms;       /* from accept to WELCOME (10 s) */
	unsigned idle_ms;            /* silence before a peer is dropped (45 s) */
	unsigned heartbeat_ms;       /* a HEARTBEAT after this much quiet on our side (15 s) */
	unsigned record_ms;          /* a record begun must be whole this much later (PROTO_RECORD_MS, 10 s) */
	size_t max_queued;           /* bytes written but not yet taken by the peer (256 KiB) */
	unsigned auth_fails;         /* wrong passwords from one address per window (5) ... */
	unsigned auth_window_ms;     /* ... in this window, then refused for the rest of it (60 s) */
	unsigned room_misses;        /* unknown room codes from one address per window (10) ... */
	unsigned room_window_ms;     /* ... in this window, then refused for the rest of it (60 s) */
	/* Token buckets per IPv4 address or IPv6 /64: a burst, then one more every so often; a burst
	 * of 0 is no limit. Handshakes started (each connection accepted) ... */
	unsigned hs_burst;           /* (30) */
	unsigned hs_every_ms;        /* (1000: 60 a minute) */
	/* ... and rooms made on a multi-room server. */
	unsigned room_burst;         /* (16: as many as the address may hold connections) */
	unsigned room_every_ms;      /* (120000: 30 an hour) */
	unsigned lobby_idle_ms;      /* a multi-room server's lobby with no message but HEARTBEATs is closed (10 min) */
	unsigned frames_per_s;       /* frames one connection may send per second (20000) ... */
	unsigned inflated_per_s;     /* ... and payload bytes after inflating (256 KiB) */
	unsigned chat_burst;         /* chat lines per connection per chat window (8) ... */
	unsigned chat_window_ms;     /* (10 s) */
	size_t log_chat_until;       /* a duel's chat is refused once its turn log holds this much text (2 MiB, TLOG_CHAT_UNTIL) */
	unsigned grace_ms;           /* how long a dropped player's seat is held in a duel (120 s) */
	unsigned lobby_hold_ms;      /* between duels (the first too), a seat dropped without BYE is held (30 s, at most grace_ms) */
	unsigned close_ms;           /* how long a dropped peer may take to read its last bytes (2 s) */
	unsigned tick_ms;            /* how often each connection's timeouts are checked (500 ms) */
	unsigned proxy_ms;           /* from accept to the whole PROXY header of a trusted proxy (3 s) */
	/* Spectators (server/spect.c): per room (256), the bytes one may have waiting before it is
	 * dropped as too slow (64 KiB), how often a live view goes out at most (200 ms), and chat
	 * lines of all the spectators of one room per chat window (20). */
	unsigned spect_max;
	size_t spect_queued;
	unsigned spect_tick_ms;
	unsigned spect_chat_lines;
	unsigned wave_ms;            /* quick pairing: how often the pool is matched (2 s; --pair-wave) */
};
#define SERVER_POOL_MAX 1024   /* players waiting to be paired at once (quick.c) */
#define QUICK_PEND_MAX 64      /* pairs whose room another node is making, at once (quick.c) */
#define QUICK_PEND_MS 1000     /* ... its news waited for at most this long (then made here) */
#define SERVER_WAVE_MIN_MS 100 /* --pair-wave's bounds */
#define SERVER_WAVE_MAX_MS 60000

/* Test and benchmark hooks; all optional. */
struct server_hooks {
	void *ud;
	/* Every byte written to a connection, as it is queued. seat is -1 before the join. */
	void (*tap)(void *ud, const struct conn *c, int seat, const uint8_t *bytes, size_t n);
	/* A command applied to a room's duel: its updates made, not yet written, and its log line not
	 * yet made (the updates go out right after the hook, or with END when the duel is over; the
	 * hook may close the server). */
	void (*applied)(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev);
	/* A peer dropped for a protocol or limit reason. */
	void (*dropped)(void *ud, const struct conn *c, int code, const char *why);
	/* A duel ended in a room. */
	void (*ended)(void *ud, struct gameroom *r);
	/* server_resume_dir's progress: `done` of `total` logs read, each time one is (the command
	 * draws it on a terminal; the server itself writes no progress). */
	void (*resume_progress)(void *ud, unsigned done, unsigned total);
	/* server_close has begun (once): what lives beside the server on its loop (a LAN
	 * announcement) goes with it. */
	void (*closing)(void *ud);
};

/* `wizwar server`'s --log-keep by default: a month of finished duels (docs/server.md says what it costs). */
#define SERVER_LOG_KEEP_DAYS 30

struct server_config {
	const char *bind;       /* address to listen on; NULL: every address, IPv6 and IPv4 ("::" dual-stack,
	                         * or "0.0.0.0" where there is no IPv6) */
	int port;               /* 0: any; read it back with server_port() */
	bool multi;             /* many rooms by code, created by their first player; else one room */
	const char *password;   /* the room's password (one-room mode) or every room's (multi), or NULL */
	const struct auth_identity *identity; /* its long-term key and salt; NULL: a fresh one (in-process servers) */
	const struct noise_keypair *old_key;  /* a key rotation: the key before identity's (server_set_old_key) */
	uint64_t old_until;
	struct options opt;     /* one-room mode: the first options */
	int turn_time;          /* one-room mode: seconds per turn, 0 none */
	bool seed_fixed;        /* one-room mode: use `seed` for the first duel */
	uint64_t seed;
	const char *log_dir;    /* where turn logs go (the tree of logtree.h); NULL: kept in memory only */
	unsigned log_keep_days; /* a multi-room server removes finished logs older than this; 0: never */
	const char *store_path; /* the SQLite store (store.h): a name belongs to the first key that used it;
	                         * NULL (or a build without SQLite): names are not owned */
	bool quiet;             /* no log lines on stderr */
	struct server_limits lim;
	struct server_hooks hooks;
	/* Proxies whose PROXY protocol v2 header is required and believed (--trusted-proxy): the
	 * client address it gives replaces theirs for every per-address limit and log line. A
	 * connection from any other address that starts with a PROXY header is refused. */
	const struct proxy_cidr *trusted;
	unsigned ntrusted;           /* at most PROXY_TRUSTED_MAX */
	/* A node of a cluster (multi only): the Redis its nodes share (redis://IP:PORT), and the address
	 * other nodes send clients to for this one's rooms (docs/server.md, "A cluster"). NULL: alone. */
	const char *redis;
	const char *cluster_host;
	const char *redis_password; /* Redis's AUTH (--redis-password-file), NULL none: copied by the cluster */
};

void server_config_default(struct server_config *c);

/* A line on the server's log (stderr, unless quiet), queued for its writer thread: never
 * blocks the loop, however slowly the log is read. At level notice. */
void server_say(struct server *s, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The same at `level`, a syslog priority (<syslog.h>'s LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO,
 * LOG_DEBUG): docs/server.md, "Log lines". */
void server_log(struct server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Create and start listening. 0, or -1 with a reason. */
WW_COLD int server_create(uv_loop_t *loop, const struct server_config *cfg, struct server **out, char *why, size_t whylen);
int server_port(const struct server *s);
/* The server's public key (what a client pins) and its fingerprint. */
const uint8_t *server_public_key(const struct server *s);
void server_fingerprint(const struct server *s, char out[AUTH_FP_LEN + 1]);
/* A reload (SIGHUP, docs/server.md): the limits in force from now on, checked as server_create
 * checks them and fitted to the file limit again; connections and rooms there are stay (a lower
 * cap refuses new ones only). 0, or -1 with a reason, nothing changed. */
WW_COLD int server_set_limits(struct server *s, const struct server_limits *lim, char *why, size_t whylen);
const struct server_limits *server_get_limits(const struct server *s);
/* The password key for every join from now on (auth_key_derive over server_password_salt's salt,
 * which the caller does off the loop: Argon2id takes a while). The key before stays good for a
 * RESUME, so that a player of a running duel still takes its seat back. False when k is the key
 * in force (nothing changed). */
WW_COLD bool server_set_password_key(struct server *s, const struct auth_key *k);
const uint8_t *server_password_salt(const struct server *s);
/* A key rotation (docs/server.md, "Key rotation"): the server's key from now on (its salt must be
 * the one in force: passwords are derived over it), and the key before it, which a client that
 * pinned it is answered under until `until` (Unix seconds), with KEYS naming the new one signed by
 * the old; NULL: none. A connection already under way keeps the key it was answered under.
 * server_set_identity: -1 with a reason (another salt), nothing changed. */
WW_COLD int server_set_identity(struct server *s, const struct auth_identity *id, char *why, size_t whylen);
WW_COLD void server_set_old_key(struct server *s, const struct noise_keypair *old, uint64_t until);
/* The log keeping (SIGHUP): finished logs older than `days` go (0: kept forever), the first scan
 * at once. 1 changed, 0 the same, -1 with a reason (no log directory, a one-room server). */
WW_COLD int server_set_log_keep(struct server *s, unsigned days, char *why, size_t whylen);
/* The address it listens on, as bound ("::" when dual-stack). */
const char *server_bound(const struct server *s);

/* One-room mode: hold a seat for the hosting player (the controller), who then joins
 * by RESUME with the token given here (PROTO_TOKEN_MAX bytes). The seat is held
 * until the first time its connection drops in the lobby. 0, or -1 (seat taken). */
int server_reserve_host(struct server *s, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *token_len);
/* The same for a given seat (0 or 1) of a room in its lobby: practice's mirror rematch. */
int server_reserve_seat(struct server *s, int seat, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *token_len);

/* One-room mode, before anyone joins: bring back the duel of a turn log; its players
 * come back with their resume tokens (the host's seat through server_reserve_host,
 * called after this). The log is continued in place. 0, or -1 with a reason. */
int server_resume_log(struct server *s, const char *path, char *why, size_t whylen);

/* Multi-room mode, before anyone joins: bring back every unfinished duel in the log
 * directory written in the last 24 hours (a server stopped or killed mid-duel), each in a room of its code, the newest log
 * of a code only; each waits the grace for its players (who reconnect by themselves, or run
 * the same command again). Logs that cannot be resumed are logged and left as they are.
 * The number resumed, or -1 with a reason (no log directory, not multi-room). */
WW_COLD int server_resume_dir(struct server *s, char *why, size_t whylen);
/* Multi-room mode without --resume, before anyone joins: the logs a server of this log directory
 * left in playing/ (logtree.h) are put away into the tree, compressed, as unfinished duels
 * nobody will resume (a one-room host's are left). 0, or -1 with a reason. */
WW_COLD int server_tidy_logs(struct server *s, char *why, size_t whylen);

/* Stop listening, say BYE to everyone and close every handle; cb runs when the
 * last one is closed, and s is freed after it. */
void server_close(struct server *s, void (*cb)(void *ud), void *ud);
/* The same, saying BYE with `reason`: BYE_SHUTDOWN (what server_close says: the process is stopping,
 * and may be started again, so clients reconnect) or BYE_LEAVE (a host's own player left on purpose:
 * the room is closed for good, and clients do not come back). */
void server_close_as(struct server *s, int reason, void (*cb)(void *ud), void *ud);

/* The local admin socket (`wizwar status`) at path, on the server's loop, closed with it: 0,
 * or -1 with why (the folder not this user's own, another server answering there, ...). */
WW_COLD int server_admin_start(struct server *s, const char *path, char *why, size_t whylen);
/* The Prometheus endpoint on "ADDR:PORT", "[V6]:PORT" or "PORT" (127.0.0.1). An address
 * other than loopback is refused unless public_ok (then the log warns). 0, or -1 with why. */
WW_COLD int server_metrics_start(struct server *s, const char *addr, bool public_ok, char *why, size_t whylen);
/* The endpoint's port (port 0 asked: the one given), or -1 when there is none. */
int server_metrics_port(const struct server *s);

/* Read-only views for tests and the benchmark. */
struct gameroom *server_room(struct server *s, const char *code); /* one-room mode: code ignored */
unsigned server_room_count(const struct server *s);
unsigned server_conn_count(const struct server *s);
/* Rooms with a duel under way (a stop leaves their logs unfinished, for server_resume_dir). */
unsigned server_duels_playing(const struct server *s);
/* The room's game (kept packed): the server's scratch copy of it, valid until another
 * room's game is asked for (a command in another room, room_game() of another room). */
const struct game *room_game(const struct gameroom *r);
bool room_playing(const struct gameroom *r);
int room_games_played(const struct gameroom *r);
/* Seats held by a player, connected or not (0 to PLAYERS): a host's LAN announcement says whether one is free. */
int room_seats_taken(const struct gameroom *r);
/* One-room mode: the turn log on disk of the duel under way, which `host --resume` would
 * bring back; NULL when no duel is under way, its log is in memory, or not one-room. */
const char *server_duel_log(struct server *s);
/* One-room mode: the turn log on disk of the last duel that ended (from its END on, until
 * the next one ends); NULL when none has, its log was in memory, or not one-room. */
const char *server_last_log(struct server *s);
int conn_seat(const struct conn *c);
/* The client's long-term key, proven by IDENT before AUTH or RESUME (every joined connection has one). */
const uint8_t *conn_ident(const struct conn *c);
/* Whether names are owned here (a store is open). */
bool server_names_owned(const struct server *s);

/*
 * A spectator inside the process (the web page's, web/web.c): it is sent exactly the messages a
 * spectator's connection is (LOBBY, SPECT_INFO, SPECT_VIEW, as encoded payloads, the same bytes),
 * so it can never be shown more than a terminal spectator. It counts as a spectator of the room
 * (the players see it in their count; the room's spect_max holds it too).
 */
struct spect_sink {
	void (*msg)(void *ud, int type, const uint8_t *payload, size_t len);
	void (*gone)(void *ud); /* the room closed, or its players turned spectators off: detached */
	void *ud;
	/* private */
	struct spect_sink *next, *prev;
	struct gameroom *room;
};
/* Watch room `code` (one-room mode: the room): PERR_OK, or why not (no such room, no spectators,
 * full). The room's current state is sent at once, as to a spectator who joins. */
int server_spect_attach(struct server *s, const char *code, struct spect_sink *k);
void server_spect_detach(struct spect_sink *k); /* attached or not */

/* A room as a list of rooms shows it (the web page's list): no more than any spectator may know. */
struct server_room_info {
	char code[PROTO_ROOM_BYTES + 1];
	char name[PLAYERS][PROTO_NAME_BYTES + 1]; /* connected players; "" none */
	bool playing;
	bool allowed;           /* spectators allowed */
	uint8_t mode, delay, player; /* enum spect_mode, as SPECT_INFO */
	unsigned watching;
	uint32_t turn;          /* the duel's turn number (0 in the lobby) */
};
/* Up to max rooms, in the server's order: how many were written. */
unsigned server_rooms_list(struct server *s, struct server_room_info *out, unsigned max);
/* The finished log of room `code`'s last duel on disk (NULL: none, or kept in memory). */
const char *server_room_end_path(struct server *s, const char *code);
/* Every room needs a password here: its rooms are private (the web page lists none). */
bool server_private(const struct server *s);
/* Where finished turn logs are (logtree.h), or NULL. */
const char *server_log_dir(const struct server *s);
/* A 32-byte key for the web page's links, derived from the server's long-term secret key (so
 * links outlive a restart with the same key, and nobody without that key can make one); a private
 * cluster node's from the password key its nodes share, so that the node that takes a room over
 * checks the link another node gave (docs/server.md, "A cluster"). */
void server_link_key(const struct server *s, uint8_t out[32]);
/* The web page across a cluster's nodes (web/web.c): the cluster (NULL: alone), and the address
 * other nodes send clients to (--cluster-host, else --bind's). */
struct cluster;
struct cluster *server_cluster(const struct server *s);
const char *server_cluster_host(const struct server *s);

#endif
