/* SPDX-License-Identifier: MIT */
/* server internal: the structs of connections, rooms and the server, shared by the files of server/ only. */
#ifndef WW_SERVER_INTERNAL_H
#define WW_SERVER_INTERNAL_H

#include "cold.h"

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include <uv.h>

#include "auth.h"
#include "ban.h"
#include "game.h"
#include "gpack.h"
#include "metrics.h"
#include "pconn.h"
#include "server.h"
#include "spect.h"
#include "cluster.h"
#include "store.h"
#include "tlog.h"
#include "update.h"
#include "view.h"
#include "wire.h"

enum conn_state {
	CONN_HELLO,      /* waiting for HELLO */
	CONN_CHALLENGED, /* CHALLENGE sent, waiting for IDENT */
	CONN_KNOWN,      /* IDENT verified: the client's key is known; waiting for AUTH or RESUME */
	CONN_CLAIMING,   /* AUTH (its name claimed) or QUICK taken, the store asked for the key's rating (off the loop) */
	CONN_POOLED,     /* QUICK taken: waiting in the pool to be paired (quick.c) */
	CONN_JOINED,     /* WELCOME sent: a player in a room */
	CONN_CLOSING,    /* dropped; its last bytes are going out */
};

/* A link in one of the server's chained hash tables (server.c), with its entry's whole
 * hash: a table that doubles moves its links without hashing their keys again. */
struct hlink {
	struct hlink *next;        /* the next in its bucket */
	uint64_t hash;
};
struct htab {
	struct hlink **b;
	unsigned n;                /* buckets: 0 or a power of two */
	unsigned count;            /* links in it */
};
#define HLINK_ENTRY(l, type, member) ((type *)(void *)((char *)(l) - offsetof(type, member)))

struct addr_entry {
	struct hlink hl;           /* in server.addrs */
	uint8_t addr[16];     /* IPv4 mapped into IPv6 form; IPv6 cut to its /64 */
	unsigned conns;
	unsigned fails;
	uint64_t window_start;
	unsigned misses;          /* unknown room codes ... */
	uint64_t miss_start;      /* ... since this time */
	/* Token buckets as the time each would be full again (GCRA): handshakes started and rooms
	 * made; at or before now, full (server.c, bucket_take). */
	uint64_t hs_full, room_full;
	bool hs_said;             /* its handshakes are being refused, and the log said so */
};

/* A client key the server counts (server.c): its wrong passwords, and whether it proved the
 * password here before. Made only on a server with a password, at a key's first proof or failure. */
struct key_entry {
	struct hlink hl;           /* in server.keys */
	uint8_t key[PROTO_IDENT_KEY_LEN];
	unsigned fails;
	uint64_t window_start;
	bool proven;               /* proved the password: its address's lockout does not stop it */
};

/* One TCP peer. The struct hangs off tcp.data and timer.data; it is freed only
 * when both handles are closed. */
struct conn {
	uv_tcp_t tcp;
	uv_timer_t timer;
	struct server *srv;
	struct conn *next, *prev;
	struct addr_entry *addr;
	char peer[96];             /* "1.2.3.4:5678", and " key=FP" once IDENT proved it: for log lines */
	int state;                 /* enum conn_state */
	int handles;               /* open handles; freed at 0 */
	bool reading;
	bool shutting;
	bool gone;                 /* taken off the server and its room */
	bool doomed;               /* its write queue overflowed: closed at the next tick, sends refused */
	bool offender;             /* dropped for breaking the protocol or a limit (a fatal ERROR other than
	                            * TIMEOUT): its client knows and does not come back, so no lobby hold */
	bool banned;               /* dropped by an operator's ban: a duel's seat is not held, it forfeits at once */
	uint64_t born, last_rx, last_tx, closing_since;
	uint64_t rx;               /* bytes read from it */
	/* From a trusted proxy, until its PROXY header is whole: the bytes so far (PROXY_MAX), how
	 * many, and how many the decoder needs; reads are sized so that none goes past the header. */
	uint8_t *px;
	size_t pxlen, pxneed;
	size_t queued;             /* bytes in uv_write requests not yet done */
	struct wire_who who;       /* CLAIMING on: from AUTH or RESUME */
	uint8_t ident[PROTO_IDENT_KEY_LEN]; /* KNOWN on: the client's long-term key, proven by IDENT */
	char fp[AUTH_FP_LEN + 1];  /* KNOWN on: its fingerprint, what bans and mutes name ("" before) */
	uint8_t real[16];          /* the client's whole address (after a trusted proxy's header), IPv4 mapped */
	struct store_req *claim;   /* CLAIMING: the store's request; cancelled if the conn goes first */
	struct gameroom *room;         /* CHALLENGED: the room asked for (one-room mode); JOINED: its room */
	int seat;                  /* JOINED: 0 or 1; else -1 (a spectator too) */
	bool spect;                /* JOINED as a spectator (spect.c): on its room's list, no seat */
	struct conn *snext, *sprev; /* that list */
	uint64_t spect_from;       /* the first of its room's spectator messages it is sent (spect.c): its snapshot
	                            * at the join holds what the ones before said */
	unsigned chat_count;
	uint64_t chat_window;
	unsigned budget_frames;    /* frames and inflated bytes in the current second */
	uint64_t budget_bytes, budget_start;
	/* The rating it is paired and listed by (pool.h): POOL_RATING_DEFAULT until the store's answer
	 * to its claim (AUTH) or its QUICK gives the key's own row, read on the store's thread; a key
	 * with no row (no rated duel here) stays at the new player's 1500. */
	uint16_t rating;
	/* POOLED (quick.c): in s->pool since pool_since, with these options (and their key), until
	 * pool_wait_ms have passed with no one found. */
	bool pooled;
	uint64_t pool_since, pool_wait_ms;
	struct options pool_opt;
	uint16_t pool_turn_time;
	uint32_t pool_key;
	struct pconn pc;
};

enum room_state {
	ROOM_LOBBY,
	ROOM_PLAYING,
};

struct seat {
	bool taken;                /* a player holds it (connected or not) */
	struct conn *conn;         /* NULL while not connected */
	char name[PROTO_NAME_BYTES + 1];
	uint8_t token[PROTO_TOKEN_MAX];
	uint8_t token_len;         /* 0: only token_hash is known (a duel resumed from its log) */
	uint8_t token_hash[32];
	bool ready, rematch, bot;
	bool mirror;               /* its REMATCH asked for a mirror: the same seed, the seats swapped */
	uint8_t part[PROTO_PART_LEN]; /* its part of the next seed, from its last READY 1 or REMATCH */
	bool reserved;             /* held for the host before it connects */
	bool keyed;                /* key is the player's (IDENT, or the log's key comment after a resume) */
	uint8_t key[PROTO_IDENT_KEY_LEN];
	bool end_pending;          /* the duel ended while it was away: its END is owed on resume */
	struct wire_msg *rated;    /* a RATED owed: the store rated its duel while it was away (malloc'd;
	                            * sent on resume, freed with the seat) */
	bool post_duel;            /* played the duel that ended last: until the next START, a drop without
	                            * BYE holds the seat (lobby_hold_ms) and owes it that END again */
	bool bye;                  /* its player said BYE: leaving on purpose, nothing is held */
	uv_timer_t grace;          /* grace.data = room */
	bool grace_on;
	uint64_t grace_until;
	bool last_valid;
	uint8_t *last;             /* the view this seat was last sent, packed to its level's size (room.c) */
	size_t last_len;
};

/* A frame held for a delayed view (spect.c): the view at the end of a turn, encoded, sent
 * once the duel is `delay` turns further on. */
struct spect_held {
	uint32_t turn_no;          /* the turns completed when it was true */
	uint8_t *buf;              /* a SPECT_VIEW payload */
	size_t len;
};

/* A room's spectators and the options its players chose for them (server/spect.c). */
struct spect_room {
	struct conn *head;         /* the spectators, newest first */
	unsigned count;
	bool allowed;
	uint8_t mode, delay, player; /* enum spect_mode; SPECT_DELAYED: turns and whose view */
	uv_timer_t timer;          /* the tick that sends what changed; timer.data = room */
	bool dirty;                /* a command was applied since the last frame */
	uint32_t cmds;             /* commands of the duel applied so far (a frame says which state it shows) */
	bool info_dirty;           /* the count changed since the players were told */
	uint64_t chat_start;       /* the spectators' chat of this room: lines in this window ... */
	unsigned chat_lines;       /* ... (a line goes to every spectator: the room is limited, not only each) */
	struct spect_held held[SPECT_DELAY_MAX + 1]; /* a ring, by turn_no % (SPECT_DELAY_MAX + 1) */
	uint8_t *last;             /* the frame last sent (the snapshot a newcomer gets), a payload */
	size_t last_len;
	/* Everything the spectators' connections are sent but their snapshot (frames, counts, chat,
	 * LOBBY) goes through one queue, in slices (spect.c, fan_out): `batch` to every spectator from
	 * `cursor` on, then what was queued meanwhile, in the order it was made. */
	struct spect_item *batch;  /* the messages of the fan-out under way, in order */
	struct spect_item *queue, **queue_tail; /* made since it began: the next fan-out's */
	uint64_t seq;              /* messages made so far: the next one's number */
	struct conn *cursor;       /* the next spectator the batch goes to; NULL: no fan-out under way */
	uv_timer_t slice;          /* active while cursor is: the next slice, a millisecond on; data = room */
	struct spect_sink *sinks;  /* spectators inside the process (the web page's, server.h), counted in count */
	bool hold;                 /* a command's players' records are not written yet: spectators wait (spect__hold) */
	uint64_t quiet_until;      /* uv_hrtime: no frame made nor slice sent before it (spect.c, players_first) */
	bool waited;               /* the tick or the slice due now was put off once already: it goes */
};

struct gameroom {
	struct server *srv;
	struct gameroom *next, *prev;
	struct hlink hl;           /* in server.room_codes */
	char code[PROTO_ROOM_BYTES + 1];
	bool listed;               /* public: ROOMS lists it while one player waits in it (quick.c) */
	uint64_t born;             /* when it was made (the list's "waiting" and its order) */
	int state;                 /* enum room_state */
	int controller;            /* seat index */
	struct options opt;
	int turn_time;
	bool seed_fixed;           /* the next duel uses `seed` */
	bool seed_chosen;          /* this duel's seed was fixed by the host: START says so */
	bool seed_mirror;          /* this duel is a mirror rematch: the last duel's seed again */
	uint64_t seed;
	/* The seed both sides make (docs/protocol.md, "The seed"): the server's part for the next
	 * duel, committed to in every LOBBY before any player's part can arrive, and this duel's
	 * (or the last one's, while an END is owed): its part, its commitment, the players' parts. */
	uint8_t next_part[PROTO_PART_LEN];
	uint8_t next_commit[PROTO_COMMIT_LEN];
	uint8_t server_part[PROTO_PART_LEN];
	uint8_t commit[PROTO_COMMIT_LEN];
	uint8_t parts;             /* bit p: player p's part went into this duel's seed */
	uint8_t part[PLAYERS][PROTO_PART_LEN];
	int games;                 /* duels finished */
	uint64_t lobby_active;     /* the last message other than a HEARTBEAT from a member, or a join */
	int host_seat;             /* one-room mode: the hosting player's seat, -1 none */
	uv_timer_t turn_timer;     /* turn_timer.data = room */
	/* New turn-log lines: the room waits in the server's list for the end of the loop
	 * iteration (s->log_check), where every waiting room's lines go out in one write each. */
	struct gameroom *log_next, **log_pprev;
	bool log_queued;
	bool log_gap;              /* the cluster's copy of the log missed lines: sent whole next time */
	unsigned log_epoch;        /* ... and cluster_tlog's count of lost calls when it was last sent whole */
	int handles;               /* open timers; freed at 0 once dying */
	bool dying;
	struct tlog log;
	/* The last duel's end, kept while a seat of a player who was away then is held:
	 * its final snapshot is the room's game, its log text this copy. */
	char *end_log;
	uint32_t end_log_len;
	char *end_path;            /* the last finished duel's log on disk (NULL: in memory, or none yet) */
	int end_turn_time;
	struct seat seat[PLAYERS];
	/* The duel's game (after it, the last one's), packed to its level's size between
	 * commands (common/gpack.h): 0.4 to 1.5 KiB at 25x25 where a struct game is 15.4 KiB.
	 * room.c's game_of() unpacks it into the server's scratch. NULL before the first duel. */
	uint8_t *packed;
	size_t packed_len, packed_cap;
	struct spect_room sp;
};

/* The walk that tells everyone here a cluster's nodes again, in slices (server/nodes.c). */
struct nodes_walk {
	uv_timer_t slice;          /* active while a walk is under way: the next slice, a millisecond on; data = server */
	bool active;
	bool spect;                /* the players are told: the spectators' turn */
	struct gameroom *cursor;   /* the next room; moved on when it goes (nodes__room_gone) */
	uint64_t began;            /* uv_hrtime at the walk's start, for its log line */
	unsigned slices, players, rooms_watched, again;
};

struct server {
	uv_loop_t *loop;
	uv_tcp_t listener;
	uv_poll_t accept_poll;     /* the listener's descriptor: accepting is ours (server.c, on_acceptable) */
	uv_timer_t sweep;
	uv_timer_t accept_retry;   /* out of descriptors with no reserve: accepting paused */
	uv_timer_t tick;           /* every tick_ms: every connection's timeouts (conn__tick_all) */
	uv_check_t log_check;      /* after each loop iteration's I/O: the turn-log lines of s->log_rooms */
	struct gameroom *log_rooms; /* rooms with turn-log lines not yet written (room__log_flush) */
	int reserve_fd;            /* closed to accept (and close) when out of descriptors, then reopened */
	bool polling;
	struct server_config cfg;
	struct slog *slog;         /* the log lines' writer thread; NULL when quiet */
	char *bind, *log_dir;
	struct logtree_keeper *keeper; /* --log-keep's expiry of finished logs; NULL: kept forever */
	struct auth_identity id;   /* the long-term key and password salt */
	/* The salt passwords are derived over: id.salt, or in a cluster the one its nodes share
	 * (cluster_shared_salt), so that a player's key derived for one node proves it on every node. */
	uint8_t pw_salt[PROTO_PW_SALT_LEN];
	/* A key rotation (docs/server.md, "Key rotation"): the key before id's, proven to a client that
	 * pinned it (HELLO's hint) until old_until (Unix seconds), with KEYS naming id's, signed by it. */
	bool has_old;
	struct noise_keypair old_kp;
	uint64_t old_until;
	uint8_t old_hint[PROTO_KEY_HINT_LEN]; /* kept once the key is dropped, to say so in the log */
	bool old_known;                       /* old_hint is set */
	struct store *store;       /* names owned by keys (store.c); NULL: names are not owned */
	struct cluster *cluster;   /* the cluster's room directory (cluster.c, --redis); NULL: alone */
	char bound[48];            /* the address actually listened on */
	struct auth_key key;       /* the password key (one room's, or every room's) */
	struct auth_key old_key;   /* the one before a reload changed it: still proves a RESUME (server_set_password_key) */
	struct conn *conns;
	struct gameroom *rooms;
	/* Rooms by code and addresses by key, in chained hash tables keyed with SipHash
	 * (crypto_shorthash) under a random key: a peer chooses room codes and may choose
	 * addresses, and must not be able to make one chain hold them all. Each table
	 * doubles when it holds more entries than buckets. */
	struct htab room_codes, addrs, keys;
	uint8_t hash_key[16];
	unsigned nconns, nrooms;
	uint64_t emfile_logged;    /* when "too many open files" was last logged ... */
	unsigned emfile_count;     /* ... and the connections closed unread since */
	unsigned log_seq;
	int handles;
	bool closing;
	uint8_t bye_reason;       /* the BYE said to everyone as it closes: BYE_SHUTDOWN, or BYE_LEAVE (server_close_as) */
	void (*close_cb)(void *ud);
	void *close_ud;
	struct metrics m;          /* counters (metrics.h) */
	struct admin *admin;       /* the admin socket, or NULL */
	struct metrics_http *http; /* the --metrics endpoint, or NULL */
	struct proxy_cidr trusted[PROXY_TRUSTED_MAX];
	struct ban_list bans;      /* an operator's bans and mutes (moderate.c), loaded from the store at start */
	bool bans_shared;          /* ... from a store every node of the cluster reaches (PostgreSQL) */
	bool bad_mod_said;         /* a cluster's moderation line that did not parse was logged */
	bool mod_apply_due;        /* ... a ban came in this batch: who it matches is dropped at its end */
	unsigned ntrusted;
	/* Scratch space, large, used by one callback at a time (the loop is single-threaded). */
	struct wire_msg in, out;
	struct wire_msg nout;      /* conn__send_nodes's own, which may run in the middle of another's use of out */
	struct view view, prev;
	/* prev's grids hold bytes other than zero only in their first prev_side rows and
	 * columns (an upper bound: a memset of prev keeps it true). room.c's last_get, the one
	 * writer of grid bytes there, keeps it, and clears the grids only when a larger level's
	 * rows may be left: a view zeroed whole a seat and command was a third of apply's own
	 * time at 5,000 duels (issue 29). */
	int prev_side;
	struct proto_err err;
	uint8_t frame[PCONN_FRAME_MAX];
	/* The one game unpacked at a time: game_of's, unpacked again only when another
	 * room's game was asked for since (room.c, game_of and game_keep). */
	struct game game;
	const struct gameroom *game_of;
	uint8_t gpack[GPACK_MAX];
	struct gpack_memo gmemo; /* game_of's packed grids, for game_keep to copy those unchanged */
	/* Every connection's pconn works in this (a payload, the deflater): a connection
	 * keeps only its deflate history. Made with the first connection. */
	struct pconn_scratch *pscratch;
	/* spect.c: the spectators' frame being made (a view each side and the payload). */
	/* quick.c: the players waiting to be paired, the wave that pairs them, and the list of
	 * public rooms as last made (sent to every asker for ROOMS_CACHE_MS). */
	struct conn *pool[SERVER_POOL_MAX];
	unsigned npool;
	/* ... and the pairs whose room a less loaded node of the cluster is making, told when its
	 * news comes (or given a room here, QUICK_PEND_MS after, at a wave). */
	struct quick_pend {
		struct conn *c[2];     /* NULL once gone */
		char code[PROTO_ROOM_BYTES + 1];
		char node[CLUSTER_ID_LEN + 1];
		uint64_t at;
	} pend[QUICK_PEND_MAX];
	unsigned npend;
	uv_timer_t wave;
	struct wire_msg rooms_cache;
	uint64_t rooms_cache_at;
	bool rooms_cache_ok;
	bool rooms_cache_partial;  /* a cluster's node without Redis: its own rooms only (ROOMS_PARTIAL) */
	struct spect_view sview;
	struct view sv0, sv1;
	uint8_t spayload[PROTO_PAYLOAD_MAX];
	struct nodes_walk nodes;
};

uint64_t server__now(const struct server *s);
/* Has the loop anything waiting: a socket ready (a player's command first of all)? Its poll
 * descriptor is readable then (epoll's and kqueue's both are); false where it has none. What a
 * fan-out in slices (spect.c, nodes.c) asks every few sends, without waiting. */
bool server__loop_waiting(uv_loop_t *loop);
/* A node of a cluster that may have lost its rooms to another (cluster_lapsed): no move, timeout or
 * forfeit is played until that is settled; a timer asks again after FENCE_RETRY_MS. */
bool server__fenced(const struct server *s);
#define FENCE_RETRY_MS 100
/* A log line (slog.h's format): its level (<syslog.h>'s LOG_ERR to LOG_DEBUG), the room's code
 * and the peer's address when the event has them (NULL when not), and the event in words. */
void server__event(const struct server *s, int level, const char *room, const char *peer, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The same at level info with no room or peer. */
void server__log(const struct server *s, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
struct gameroom *server__find_room(struct server *s, const char *code);
/* Record a rated duel's result in the store (off the loop), then send each of its players still in
 * room `code` its RATED, and move the held log `plain` to `keep` (either NULL: none). */
void room__rated(struct gameroom *r, const struct wire_msg *m); /* a RATED to its players: sent, or kept for one away */
void server__rate(struct server *s, const char *code, const struct store_duel *d, const char *plain, const char *keep);
struct addr_entry *server__addr_get(struct server *s, const uint8_t addr16[16]);
bool server__may_handshake(struct server *s, struct conn *c, char *why, size_t whylen, bool *say);
struct gameroom *server__add_room(struct server *s, const char *code);
void server__room_gone(struct server *s, struct gameroom *r);
void server__handle(struct conn *c, const struct wire_msg *m);
void server__conn_gone(struct conn *c);
void server__unref(struct server *s);
void server__auth_failed(struct server *s, struct conn *c);

/* A connection on an accepted descriptor; -1: not taken (the caller closes it). */
int conn__start(struct server *s, int fd);
void conn__addr_key(const struct sockaddr *sa, uint8_t addr16[16], char *host, size_t hostlen, int *port);
int conn__send(struct conn *c, const struct wire_msg *m);
void conn__send_nodes(struct conn *c); /* NODES to one connection, in a cluster */
/* A payload already encoded (the same frame to many spectators): 0, or -1 (not sent). */
int conn__send_payload(struct conn *c, int type, const uint8_t *payload, size_t len);
void conn__cork(struct conn *c);
int conn__flush(struct conn *c);
void conn__error(struct conn *c, int code, bool fatal, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
void conn__drop(struct conn *c, int code, const char *why);
/* The same without a log line (a flood's refusals, said once by the caller). */
void conn__drop_unlogged(struct conn *c, int code, const char *why);
/* Send m, then close once it is written (a REDIRECT: the client goes elsewhere). */
void conn__send_close(struct conn *c, const struct wire_msg *m);
void conn__bye(struct conn *c, int reason);
void conn__close_now(struct conn *c);
void conn__tick_all(struct server *s);

struct gameroom *room__create(struct server *s, const char *code);
void room__destroy(struct gameroom *r);
void room__lost(struct gameroom *r);      /* taken over by another node: closed without an end */
/* The log_check's pass: every waiting room's turn-log lines, one write a room. */
void room__log_flush(struct server *s);
void room__send_nodes(struct gameroom *r, int p); /* NODES to seat p's player, in a cluster */
/* A line was added to the room's turn log outside a command (spect.c): written at the log's next turn. */
void room__log_later(struct gameroom *r);
/* A room has turn-log lines: write them at the end of this loop iteration. */
void server__log_soon(struct server *s);
int room__join(struct gameroom *r, struct conn *c);
int room__resume(struct gameroom *r, struct conn *c, const struct wire_resume *m);
void room__message(struct gameroom *r, struct conn *c, const struct wire_msg *m);
void room__conn_lost(struct gameroom *r, struct conn *c);
int room__reserve(struct gameroom *r, int want, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *len);
WW_COLD int room__load(struct gameroom *r, const char *path, char *why, size_t whylen);
/* room__load's two halves: a log read and replayed (tlog_load, room__log_commands: pure, run off the
 * loop by a takeover), then the room made from it on the loop. */
struct tlog_resume;
WW_COLD int room__load_parsed(struct gameroom *r, const char *path, struct tlog_resume *lr, uint32_t cmds, char *why,
                              size_t whylen);
uint32_t room__log_commands(const char *text, size_t len);
bool room__empty(const struct gameroom *r);
/* game_of() for spect.c: the room's game, unpacked into the server's scratch. */
struct game *room__game(struct gameroom *r);

/* Moderation (moderate.c): an operator's bans and mutes. */
int64_t moderate__now(void);
/* store_open, with the bans and mutes it holds loaded into s->bans. */
WW_COLD int moderate__open_store(struct server *s, const char *store_path, char *why, size_t whylen);
/* A banned connection is dropped with the ban's reason and expiry (true); checked at accept
 * (its address), IDENT (its key) and AUTH or RESUME (its name). */
bool moderate__refuse(struct conn *c);
/* A muted key's chat: the sender is told, nothing is delivered (true). */
bool moderate__muted(struct conn *c);
/* The cluster's (cluster.h: mod, mod_rejoin): another node's moderation line applied here, and this
 * node's bans put back into Redis as it rejoins. */
void moderate__remote(void *ud, const char *line);
void moderate__rejoin(void *ud);
void moderate__sweep(struct server *s);
const char *moderate__cmd_ban(struct server *s, int verb, const char *args, struct metrics_buf *out, char *why,
                              size_t whylen);
const char *moderate__cmd_bans(struct server *s, const char *args, struct metrics_buf *out);
const char *moderate__cmd_free_name(struct server *s, const char *args, struct metrics_buf *out, char *why,
                                    size_t whylen);

/* Spectators (spect.c). */
void spect__init(struct gameroom *r);      /* in room__create: one more handle (the tick) */
void spect__finish(struct gameroom *r);    /* in room__destroy: every spectator is told BYE */
int spect__join(struct gameroom *r, struct conn *c); /* PERR_OK, or why not */
void spect__message(struct gameroom *r, struct conn *c, const struct wire_msg *m);
void spect__conn_lost(struct gameroom *r, struct conn *c);
void spect__set(struct gameroom *r, struct conn *c, const struct wire_sset *m); /* a player's SPECT_SET */
void spect__started(struct gameroom *r);   /* a duel began (START sent to the players) */
void spect__applied(struct gameroom *r, const struct events *ev); /* after the players' updates went */
void spect__ended(struct gameroom *r);     /* the duel is over: everything may be shown */
void spect__hold(struct gameroom *r);      /* the players' corked records go first: spectators' sends wait ... */
void spect__release(struct gameroom *r);   /* ... until now (after the players' flush) */
void spect__info_to(struct gameroom *r, struct conn *c); /* SPECT_INFO to one connection */
void spect__joined(struct gameroom *r, struct conn *c);  /* a player joined: SPECT_INFO if there is news */
/* The turn log's comment on the options: "off", "shared", "after" or "delayed K P" into buf. */
void spect__log_words(const struct gameroom *r, char *buf, size_t len);
/* A duel resumed from its log (room__resume_log): the options its comments give back, and a
 * delayed view's frames of the last turns, replayed from the log, so that nothing is shown
 * sooner than promised and nothing is missing. */
struct tlog_resume;
WW_COLD void spect__resumed(struct gameroom *r, const struct tlog_resume *lr);
void spect__send_all(struct gameroom *r, const struct wire_msg *m); /* encoded once, to every spectator */
/* A cluster's nodes changed: NODES to every spectator's connection, in the room's slices. */
void spect__nodes(struct gameroom *r);

/* Everyone here told a cluster's nodes again when they change, in slices (nodes.c). */
void nodes__init(struct server *s);        /* in server_create: one more handle (the slice timer) */
void nodes__changed(struct server *s);     /* the cluster's nodes changed: a walk from the first room */
void nodes__room_gone(struct server *s, struct gameroom *r); /* before r leaves the server's list */
void nodes__close(struct server *s, uv_close_cb cb);
void room__lobby_to(struct gameroom *r, struct conn *c); /* LOBBY to one connection */
void room__lobby_fill(struct gameroom *r, struct wire_msg *m); /* the LOBBY a spectator gets */

/* Open rooms and pairing (quick.c). */
void quick__init(struct server *s);                 /* in server_create: one more handle (the wave) */
void quick__message(struct conn *c, const struct wire_msg *m); /* ROOMS_ASK or QUICK after IDENT; else drops */
void quick__conn_gone(struct conn *c);              /* out of the pool */
uint16_t quick__rating(const struct store_rating *r); /* a store's rating as the pool's (rounded, bounded) */
void quick__wave(struct server *s);                 /* one wave: pair, tell the rest (the timer's; fuzz_server's) */
void quick__open_rooms(void *ud, struct wire_rooms *out); /* this node's public open rooms (a cluster's beat) */
/* A cluster's (cluster.h: make_room, room_news): a pair's room made here for the pairing node, and a
 * room another node said it made (a pending pair's, told then). */
void quick__make_room(void *ud, const char *code, const struct options *o, unsigned turn_time);
void quick__room_news(void *ud, const char *code, const char *node);
void room__sweep_idle(struct server *s);

#endif
