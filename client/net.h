/* SPDX-License-Identifier: MIT */
/* net: the client's end of the wizwar protocol on libuv: join, lobby, play, chat, resume after a drop, verify the host. */
#ifndef WW_NET_H
#define WW_NET_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "auth.h"
#include "game.h"
#include "pconn.h"
#include "update.h"
#include "view.h"
#include "wire.h"

enum net_phase {
	NET_CONNECTING,   /* resolving, connecting, handshaking */
	NET_LOBBY,        /* joined; no duel being played */
	NET_PLAYING,      /* a duel: START received, END not yet */
	NET_RECONNECTING, /* the link dropped, in a duel or in the lobby; resuming with the token */
	NET_CLOSED,       /* given up, or closed; no more events but `closed` */
};

struct net;

enum net_key_how {
	NET_KEY_PINNED,  /* the key given, or the fingerprint given */
	NET_KEY_KNOWN,   /* the one remembered in the known-servers file */
	NET_KEY_NEW,     /* first contact: now remembered */
	NET_KEY_ROTATED, /* KEYS: the pinned key signed a new one, now pinned (and remembered) */
};

/* Every callback is optional; `ud` is net_config.ud. */
struct net_events {
	void (*welcome)(void *ud, struct net *n, int player, bool controller);
	void (*lobby)(void *ud, struct net *n, const struct wire_lobby *l);
	/* A new duel, or after a resume the whole view again. */
	void (*start)(void *ud, struct net *n, const struct view *v, bool resumed);
	/* The view after one command, with the messages and effects for this player. */
	void (*update)(void *ud, struct net *n, const struct view *v, const struct update *u);
	void (*chat)(void *ud, struct net *n, int from, const char *text);
	void (*peer)(void *ud, struct net *n, const struct wire_peer *p);
	/* The duel ended. verified: the seed matched its commitment and the revealed log
	 * replays to every view this player was shown; otherwise `why` says what did not. */
	void (*end)(void *ud, struct net *n, const struct wire_end *e, bool verified, const char *why);
	/* An ERROR from the server (a refused command has code PERR_REFUSED_BASE + err and is
	 * not fatal), or a local failure (code PERR_SERVER, fatal) such as a connection refused. */
	void (*error)(void *ud, struct net *n, int code, bool fatal, const char *text);
	/* The link to the server went down (why: the reason; reconnecting, in a duel or in the lobby)
	 * or came back (why: NULL). */
	void (*link)(void *ud, struct net *n, bool up, const char *why);
	/* Reconnecting: attempt number `attempt` starts now, `secs_left` before giving up; `last` is
	 * what the loss or the attempt before said. */
	void (*retry)(void *ud, struct net *n, unsigned attempt, unsigned secs_left, const char *last);
	/* Everything is closed; n is freed right after this returns. */
	void (*closed)(void *ud, struct net *n);
	/* The server's key was checked: how (enum net_key_how) and its fingerprint. */
	void (*key)(void *ud, struct net *n, int how, const char *fingerprint);
	/* Spectators (a spectator's client, role ROLE_SPECTATOR): a frame of the view the room
	 * allows, a line from another spectator; both roles: the room's spectator options and count. */
	void (*spect_view)(void *ud, struct net *n, const struct wire_sview *v);
	void (*spect_chat)(void *ud, struct net *n, const char *name, const char *text);
	void (*spect_info)(void *ud, struct net *n, const struct wire_sinfo *i);
	/* A rated duel's record (after END), checked against the server's key or a node's of its
	 * cluster this client met (net_rated_key): verified false means it is none's signature
	 * (shown as such, never kept). */
	void (*rated)(void *ud, struct net *n, const struct wire_rated *r, bool verified);
	/* The answer to an ASK (RECORDS or LADDER); the server then says BYE. */
	void (*answer)(void *ud, struct net *n, const struct wire_msg *m);
	/* Tests: every byte received, and every message decoded. */
	void (*rx)(void *ud, struct net *n, const uint8_t *bytes, size_t len);
	void (*msg)(void *ud, struct net *n, const struct wire_msg *m);
	/* A query's answer (net_config.query): ROOMS, or each MATCH. */
	void (*reply)(void *ud, struct net *n, const struct wire_msg *m);
};

struct net_config {
	const char *host;           /* name or address */
	int port;
	const char *name;
	const char *room;           /* "" or NULL for a one-room host */
	const char *password;       /* NULL: none */
	const struct auth_key *key; /* a key already derived, used when its salt is the server's */
	/* How the server's key is checked, first that is set (none set: the join is refused):
	 * the exact key (an in-process server), a fingerprint (from "ADDR#FP"; with
	 * known_file too, that file's entry is set to it), or trust on first use with
	 * known_file. After the first join the key is pinned for every reconnection. */
	const uint8_t *server_key;
	const char *fingerprint;
	const char *fingerprint_from; /* where it came from, for a refusal: NULL "the join line" (kept: static) */
	const char *known_file;
	/* The client's long-term key (ident.h), proven to the server by IDENT at every connection;
	 * NULL: a fresh key made for this net alone (in-process games, tests): the server sees a
	 * new player each run. Copied: the caller's may go. */
	const struct auth_ident *ident;
	/* Not NULL: ask the server this (ASK, instead of joining a room) and take its one answer. */
	const struct wire_ask *ask;
	int role;                   /* enum wire_role */
	const uint8_t *token;       /* join by RESUME with this token (the host's own seat) */
	size_t token_len;
	/* The seat file (seatfile.h) of this server, room and name, or NULL. From the join on
	 * the resume token is kept there; a file left by a killed run is used at the start to
	 * take its seat back (or, when the server no longer knows it, deleted before joining
	 * afresh); it is deleted when the seat is left on purpose (BYE) or lost for good. */
	const char *seat_file;
	bool create_room;           /* a multi-room server: create the room if it does not exist */
	bool public_room;           /* ... and list it (`wizwar rooms`) while it waits for a player */
	unsigned connect_ms;        /* a connection attempt and its handshake (10 s) */
	unsigned reconnect_ms;      /* between attempts after a drop (1 s) */
	unsigned reconnect_for_ms;  /* how long to keep trying (130 s) */
	unsigned heartbeat_ms;      /* 15 s */
	unsigned idle_ms;           /* silence before the link counts as dropped (45 s) */
	unsigned record_ms;         /* a record begun must be whole this much later (PROTO_RECORD_MS, 10 s) */
	bool verify;                /* check the revealed seed and log at the end (true) */
	/* A question to a server of rooms instead of a join (ROOMS_ASK or QUICK, copied): sent after
	 * IDENT in place of AUTH; its answers come to ev.reply, and a lost link is not tried again. */
	const struct wire_msg *query;
	struct net_events ev;
	void *ud;
};

WW_COLD void net_config_default(struct net_config *c);

/* Start connecting. NULL on bad arguments (a message in why). */
WW_COLD struct net *net_create(uv_loop_t *loop, const struct net_config *cfg, char *why, size_t whylen);
/* Leave: BYE to the server (a duel in progress is forfeited), close everything; `closed` follows. */
void net_close(struct net *n);
/* Go without a word (a closed terminal): to the server a dropped connection, whose seat is held
 * for its grace; the seat file stays, so the same command run again takes the seat back. */
void net_abandon(struct net *n);
/* True when the token came from a seat file left by an earlier run (so far). */
bool net_resuming_seat(const struct net *n);
/* The server now connected to (or tried), as "HOST:PORT": a cluster's node after a REDIRECT or a
 * takeover is not the one the command line named. */
void net_server_label(const struct net *n, char *buf, size_t len);
/* How long a lost link is tried again before giving up (reconnect_for_ms), in seconds. */
unsigned net_reconnect_secs(const struct net *n);
/* How long the server holds a seat dropped in the lobby, in seconds (0: not held): NET_LOBBY_HOLD_MS
 * (a server's default) until a WELCOME has given this server's own (*known). */
unsigned net_lobby_hold_secs(const struct net *n, bool *known);
/* How long the server holds a seat dropped in a duel before it forfeits (its grace), in seconds:
 * NET_DUEL_GRACE_MS (a server's default) until a WELCOME has given this server's own (*known). */
unsigned net_duel_grace_secs(const struct net *n, bool *known);
/* Reconnecting after a drop in the lobby: the seconds of that hold left (0: over, the seat is most
 * likely given up and the client will join the room again as a new player); -1 otherwise. */
int net_seat_hold_left(const struct net *n);

int net_send(struct net *n, const struct wire_msg *m); /* 0, or -1 when not joined */
/* The server's X25519 key, once the handshake has checked it (NULL before). */
const uint8_t *net_server_key(const struct net *n);
/* The server key whose signature a RATED carries (its signer key A): this connection's, or, in a
 * cluster, a node's this client finished a handshake with earlier in this run (a duel taken
 * over after its first node rated it is answered with that node's record); never a key a node
 * only named. NULL: none of them, or the signature does not verify. */
const uint8_t *net_rated_key(const struct net *n, const struct wire_rated *r);
int net_cmd(struct net *n, const struct cmd *c);
int net_chat(struct net *n, const char *text);
int net_options(struct net *n, const struct options *o, int turn_time);
int net_ready(struct net *n, bool ready);
int net_control(struct net *n);
/* A player: the room's spectator options (allowed false: off, and those watching go). */
int net_spect_set(struct net *n, bool allowed, int mode, int delay, int player);
/* A spectator: a line to the other spectators (never to a player). */
int net_spect_chat(struct net *n, const char *text);
/* Joined as a spectator (WELCOME said so). */
bool net_spectator(const struct net *n);
int net_rematch(struct net *n);
/* A mirror rematch: the same seed with the seats swapped, when both players ask for one (a plain
 * rematch from either gives a new seed). */
int net_rematch_mirror(struct net *n, bool mirror);

/* Read-only state. */
int net_phase(const struct net *n);
int net_player(const struct net *n);        /* -1 before WELCOME */
bool net_seed_chosen(const struct net *n);  /* this duel's seed was chosen by the host (host --seed) */
bool net_seed_mirror(const struct net *n);  /* this duel is a mirror rematch: the last duel's seed again */
/* This duel's seed is to be made with the part this client sent (the server said so before the
 * part went out); false for the host's own seat, a chosen or mirror seed, or a client run again
 * without its seat file. */
bool net_seed_mine(const struct net *n);
bool net_controller(const struct net *n);
const struct view *net_view(const struct net *n);
const struct wire_lobby *net_lobby(const struct net *n);
/* The turn log the server revealed at the end, during the `end` event only (NULL otherwise). */
const char *net_end_log(const struct net *n, size_t *len);
void *net_ud(const struct net *n);
/* The connection's socket, or -1 before it has one: for a benchmark that stamps arrivals. */
int net_fd(const struct net *n);
/* Bytes on the wire, both ways, headers included. */
void net_bytes(const struct net *n, uint64_t *in, uint64_t *out);

/* A hash of every field of a view (not its padding): what the end-of-duel check compares. */
uint64_t net_view_hash(const struct view *v);

/* Split "HOST[:PORT]" ("[v6]:PORT" too). 0, or -1 with a message in why. */
WW_COLD int net_parse_hostport(const char *s, char *host, size_t hostlen, int *port, int default_port, char *why,
                       size_t whylen);

#define NET_DEFAULT_PORT 7727
#define NET_ADDRS_MAX 8         /* addresses of one name tried in turn */
#define NET_ADDR_WAIT_MS 3000   /* an address that neither answers nor refuses: the next one after this */
/* A server's defaults (server_limits.lobby_hold_ms, .grace_ms): what a client assumes before WELCOME. */
#define NET_LOBBY_HOLD_MS 30000
#define NET_DUEL_GRACE_MS 120000

#endif
