/* SPDX-License-Identifier: MIT */
/* wire: every message of the protocol as one list, its plain C form, and payload encoding and decoding. */
#ifndef WW_WIRE_H
#define WW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "proto.h"
#include "spect.h"
#include "rated.h"
#include "update.h"

/* Who sends a message type. */
#define WIRE_C2S 1
#define WIRE_S2C 2
#define WIRE_BOTH 3

/*
 * Every message type: X(ID, code, direction, before join, least payload, most payload, member).
 * The single source of the enum, the name table, the size limits checked on
 * every frame (after inflating) and the encode/decode dispatch. Codes are in
 * ranges, as tmux numbers its messages:
 *   0x10..0x1f handshake, 0x20..0x2f lobby, 0x30..0x3f game, 0x40..0x4f control,
 *   0x50..0x5f spectators, 0x60..0x67 open rooms and pairing, 0x68..0x6f ratings, 0x70..0x77 cluster.
 * "before join" marks what may cross before the server accepts the player
 * (WELCOME); everything else before that drops the peer.
 * Don't forget to bump PROTO_VERSION if any of these change!
 */
#define WIRE_LIST(X) \
	X(HELLO,     0x10, WIRE_C2S,  1, 8,  255,               hello)     \
	X(CHALLENGE, 0x11, WIRE_S2C,  1, 8,  255,               challenge) \
	X(AUTH,      0x12, WIRE_C2S,  1, 37, 115,               auth)      \
	X(WELCOME,   0x13, WIRE_S2C,  1, 7,  39,                welcome)   \
	X(IDENT,     0x14, WIRE_C2S,  1, 96, 96,                ident)     \
	X(KEYS,      0x15, WIRE_S2C,  1, 136, 136,              keys)      \
	X(LOBBY,     0x20, WIRE_S2C,  0, 44, 172,               lobby)     \
	X(OPTIONS,   0x21, WIRE_C2S,  0, 4,  4,                 options)   \
	X(READY,     0x22, WIRE_C2S,  0, 1,  33,                ready)     \
	X(CONTROL,   0x23, WIRE_C2S,  0, 0,  0,                 none)      \
	X(REMATCH,   0x24, WIRE_C2S,  0, 33, 33,                rematch)   \
	X(START,     0x30, WIRE_S2C,  0, 37, PROTO_PAYLOAD_MAX, start)     \
	X(CMD,       0x31, WIRE_C2S,  0, 1,  2,                 cmd)       \
	X(UPDATE,    0x32, WIRE_S2C,  0, 1,  PROTO_PAYLOAD_MAX, update)    \
	X(END,       0x33, WIRE_S2C,  0, 119, 119,               end)       \
	X(LOG_CHUNK, 0x34, WIRE_S2C,  0, 2,  PROTO_LOG_CHUNK + 4, log)     \
	X(CHAT,      0x40, WIRE_BOTH, 0, 3,  PROTO_CHAT_BYTES + 2, chat)   \
	X(ERROR,     0x41, WIRE_BOTH, 1, 4,  PROTO_REASON_BYTES + 4, error) \
	X(HEARTBEAT, 0x42, WIRE_BOTH, 1, 0,  0,                 none)      \
	X(RESUME,    0x43, WIRE_C2S,  1, 54, 148,               resume)    \
	X(BYE,       0x44, WIRE_BOTH, 1, 1,  1,                 bye)       \
	X(PEER,      0x45, WIRE_S2C,  0, 4,  4,                 peer)      \
	X(SPECT_VIEW, 0x50, WIRE_S2C, 0, 5,  PROTO_FRAME_MAX,   sview)     \
	X(SPECT_CHAT, 0x51, WIRE_BOTH, 0, 2, PROTO_NAME_BYTES + PROTO_CHAT_BYTES + 2, schat) \
	X(SPECT_SET,  0x52, WIRE_C2S, 0, 3,  3,                 sset)      \
	X(SPECT_INFO, 0x53, WIRE_S2C, 0, 5,  5,                 sinfo)     \
	X(ROOMS_ASK,  0x60, WIRE_C2S, 1, 0,  0,                 none)      \
	X(ROOMS,      0x61, WIRE_S2C, 1, 1,  WIRE_ROOMS_BYTES,  rooms)     \
	X(QUICK,      0x62, WIRE_C2S, 1, 6,  6,                 quick)     \
	X(MATCH,      0x63, WIRE_S2C, 1, 10, 10 + PROTO_ROOM_BYTES, match) \
	X(RATED,      0x68, WIRE_S2C, 0, RATED_SIGNER_LEN + RATED_SIGNED_LEN, RATED_SIGNER_LEN + RATED_SIGNED_LEN, rated) \
	X(ASK,        0x69, WIRE_C2S, 1, 1,  2 + PROTO_NAME_BYTES, ask)     \
	X(RECORDS,    0x6a, WIRE_S2C, 1, 1, 1 + WIRE_RECORDS_MAX * (RATED_SIGNER_LEN + RATED_SIGNED_LEN), records) \
	X(LADDER,     0x6b, WIRE_S2C, 1, 2,  2 + WIRE_LADDER_MAX * (WIRE_LADDER_ROW + PROTO_NAME_BYTES), ladder) \
	X(REDIRECT,   0x70, WIRE_S2C, 1, 36, 35 + WIRE_REDIRECT_HOST_MAX, redirect) \
	X(NODES,      0x71, WIRE_S2C, 1, 37, 1 + WIRE_NODES_MAX * (35 + WIRE_REDIRECT_HOST_MAX), nodes) \
	X(ROOMS_PARTIAL, 0x72, WIRE_S2C, 1, 1, 1,              partial)

enum wire_type {
#define X(id, code, dir, pre, min, max, member) WIRE_##id = (code),
	WIRE_LIST(X)
#undef X
};

/* ROLE_SPECTATOR joins a room to watch it (WELCOME.player is WELCOME_SPECTATOR, no token). */
enum wire_role { ROLE_PLAYER = 0, ROLE_BOT = 1, ROLE_SPECTATOR = 2 };
#define ROLE_MAX ROLE_SPECTATOR
#define WELCOME_SPECTATOR 0xff /* WELCOME.player for a spectator, who has no seat and no token */
#define HELLO_CREATE 0x80 /* in the role byte of AUTH/RESUME's "who": create the room (a multi-room server) */
#define HELLO_PUBLIC 0x40 /* with HELLO_CREATE: the room made is public (listed by ROOMS while it waits) */

/* BYE reasons: X(ID, text). */
#define BYE_LIST(X) \
	X(QUIT,     "quit") \
	X(LEAVE,    "left the room") \
	X(SHUTDOWN, "server shutting down") \
	X(IDLE,     "idle too long") \
	X(REPLACED, "the same player connected again") \
	X(PROTOCOL, "protocol error")

enum bye_reason {
#define X(id, text) BYE_##id,
	BYE_LIST(X)
#undef X
	BYE_COUNT
};

enum peer_state {
	PEER_DROPPED = 0, /* lost its connection; `seconds` left to come back */
	PEER_BACK = 1,    /* resumed */
	PEER_GONE = 2,    /* did not come back, or left */
};

#define CHAT_FROM_CLIENT 0xff /* what a client puts in CHAT.from; the server fills in the sender */
#define TURN_TIME_MAX 3600

/* HELLO and CHALLENGE travel in clear (docs/protocol.md, "Handshake"): the versions,
 * then the two messages of the Noise_NX handshake (proto/noise.h), which pconn makes
 * and checks. Everything after them is inside encrypted records. */
struct wire_hello {
	uint32_t magic;   /* PROTO_MAGIC */
	uint16_t proto;   /* PROTO_VERSION */
	uint16_t rules;   /* RULES_VERSION */
	uint8_t e[PROTO_KEY_LEN]; /* Noise message 1: the client's ephemeral key (pconn fills it) */
	/* After e, optional: the key this client pinned for the server (auth_key_hint: the 16 bytes its
	 * fingerprint spells), so that a server in a key rotation answers under that key (docs/protocol.md,
	 * "Key rotation"). Absent on first contact. */
	bool has_hint;
	uint8_t hint[PROTO_KEY_HINT_LEN];
};

/* What CHALLENGE carries encrypted (Noise message 2's payload): flags and the salt. */
#define WIRE_CHALLENGE_SECRET (1 + PROTO_PW_SALT_LEN)
#define WIRE_CHALLENGE_NOISE (PROTO_KEY_LEN * 2 + 16 + WIRE_CHALLENGE_SECRET + 16)

struct wire_challenge {
	uint32_t magic;
	uint16_t proto, rules;
	uint8_t noise[WIRE_CHALLENGE_NOISE]; /* Noise message 2 as sent (pconn makes and reads it) */
	/* Inside message 2, encrypted; pconn fills them on receipt and reads them to send. */
	bool password; /* the server has a password: AUTH and RESUME must prove it */
	uint8_t salt[PROTO_PW_SALT_LEN]; /* the server's own salt for crypto_pwhash */
};

/* Who joins: what HELLO used to carry in clear, now inside the channel. */
struct wire_who {
	uint8_t role;     /* enum wire_role */
	bool create;      /* a multi-room server: make the room if it does not exist (HELLO_CREATE in the role byte) */
	bool public_room; /* with create: the room made is listed while it waits (HELLO_PUBLIC); never alone */
	char name[PROTO_NAME_BYTES + 1];
	char room[PROTO_ROOM_BYTES + 1];
};

struct wire_auth {
	struct wire_who who;
	/* BLAKE2b-256 (crypto_generichash) keyed with the password key, of the handshake
	 * hash || name; all zeros when the server has no password. */
	uint8_t proof[PROTO_PROOF_LEN];
};

/* IDENT: the client's long-term Ed25519 key and its signature over the handshake hash (auth_ident_sign),
 * sent first inside the channel, before AUTH or RESUME (docs/protocol.md, "Identity"). */
struct wire_ident {
	uint8_t key[PROTO_IDENT_KEY_LEN];
	uint8_t sig[PROTO_IDENT_SIG_LEN];
};

/* KEYS: the server, in a key rotation, answering under the old key a client pinned, names its new key,
 * signed by the old one over this channel's handshake hash (auth_rotate_sign; docs/protocol.md,
 * "Key rotation"). Sent once, right after CHALLENGE, before WELCOME. */
struct wire_keys {
	uint8_t old_ed[PROTO_KEY_LEN];       /* the old key as an Ed25519 point (its Montgomery form is the pin) */
	uint8_t new_key[PROTO_KEY_LEN];      /* the new X25519 key */
	uint64_t until;                      /* Unix seconds: the old key is dropped then */
	uint8_t sig[PROTO_ROTATE_SIG_LEN];   /* Ed25519 by old_ed over AUTH_ROTATE_DOMAIN || hash || new_key || until */
};

struct wire_welcome {
	uint8_t player;       /* 0 or 1 */
	bool controller;
	bool names_owned;     /* this server gives a name to the first key that used it (a store) */
	uint8_t token_len;    /* PROTO_TOKEN_MIN..PROTO_TOKEN_MAX */
	uint8_t token[PROTO_TOKEN_MAX];
	/* The server's own figures, so that a client says them rather than guess a default:
	 * how long a seat dropped without BYE is held in the lobby (0: not held) and how long one
	 * dropped in a duel is held before it forfeits, in seconds (rounded up, as PEER's). */
	uint16_t hold;        /* 0..grace: never longer than the grace */
	uint16_t grace;       /* 1..PROTO_HOLD_MAX */
};

struct wire_lobby {
	struct options opt;
	uint16_t turn_time;   /* seconds per turn; 0: no limit */
	uint8_t controller;   /* player index */
	uint8_t present;      /* bit p: player p is connected */
	uint8_t ready;        /* bit p: player p is ready */
	uint8_t bots;         /* bit p: player p is a bot */
	uint8_t rematch;      /* bit p: player p asked for a rematch */
	uint8_t parts;        /* bit p: player p's part goes into the seed (between duels: the next one's) */
	uint8_t commit[PROTO_COMMIT_LEN]; /* the server's commitment to its part of that seed (auth_seed_commit) */
	char name[PLAYERS][PROTO_NAME_BYTES + 1]; /* "" where absent */
};

struct wire_options {
	struct options opt;
	uint16_t turn_time;
};

/* READY 1 carries the player's fresh random part of the next seed; READY 0 carries none. */
struct wire_ready {
	bool ready;
	uint8_t part[PROTO_PART_LEN];
};

/* REMATCH: a plain or a mirror rematch (the same seed, the seats swapped), and a fresh part. */
struct wire_rematch {
	bool mirror;
	uint8_t part[PROTO_PART_LEN];
};

struct wire_start {
	bool resumed;         /* a snapshot after RESUME, not a new duel */
	bool chosen;          /* the host chose this duel's seed (host --seed): the dice are not random */
	bool mirror;          /* a mirror rematch: the last duel's seed again, the seats swapped */
	uint8_t first;        /* who moves first */
	uint16_t turn_time;
	uint8_t commit[PROTO_COMMIT_LEN]; /* the server's commitment to its part (the LOBBY's), revealed in END */
	struct update view;   /* from update_blank(): the receiver's whole view */
};

struct wire_end {
	uint8_t result;       /* enum result */
	uint8_t reason;       /* enum end_reason */
	uint64_t seed;
	uint8_t server_part[PROTO_PART_LEN];      /* what START's commitment promised */
	uint8_t parts;                            /* bit p: player p's part went into the seed */
	uint8_t part[PLAYERS][PROTO_PART_LEN];    /* those parts; zeros where the bit is clear */
	uint64_t hash;        /* game_hash() of the final state */
	uint32_t log_len;     /* bytes of turn log that follow in LOG_CHUNKs; 0: none */
};

struct wire_log {
	uint32_t offset;
	uint16_t len;         /* 1..PROTO_LOG_CHUNK */
	uint8_t data[PROTO_LOG_CHUNK];
};

struct wire_chat {
	uint8_t from;         /* player index, or CHAT_FROM_CLIENT */
	char text[PROTO_CHAT_BYTES + 1];
};

struct wire_error {
	uint16_t code;        /* enum perr, or PERR_REFUSED_BASE + enum err */
	bool fatal;           /* the sender closes the connection after it */
	char text[PROTO_REASON_BYTES + 1];
};

struct wire_resume {
	struct wire_who who;
	uint8_t token_len;
	uint8_t token[PROTO_TOKEN_MAX];
	uint8_t proof[PROTO_PROOF_LEN]; /* as AUTH's, over the handshake hash || token */
};

struct wire_bye {
	uint8_t reason;       /* enum bye_reason */
};

struct wire_peer {
	uint8_t player;
	uint8_t state;        /* enum peer_state */
	uint16_t seconds;     /* PEER_DROPPED: left to come back */
};

/* SPECT_VIEW: what a spectator is shown (common/spect.h), whole every time: the first one is the
 * snapshot a late spectator starts from, and a frame needs no earlier one. Never deflated, it is
 * one frame at most: the largest view is bounded under PROTO_FRAME_MAX (tests/proto/test_sview.c). */
struct wire_sview {
	uint32_t cmds;        /* commands of the duel applied when this was true */
	uint8_t kind;         /* enum spect_kind */
	uint8_t me_state;     /* enum opp_state: where wizard 0 is known (view.x, view.y) */
	uint8_t delay;        /* SPECT_KIND_PLAYER*: whole turns behind the duel; else 0 */
	struct update view;   /* from update_blank(), receiver 0 */
};

/* SPECT_CHAT: a spectator's line, to the room's other spectators only, never to a player. */
struct wire_schat {
	char name[PROTO_NAME_BYTES + 1]; /* who said it; "" from a client (the server fills it in) */
	char text[PROTO_CHAT_BYTES + 1];
};

/* SPECT_SET (a player): the room's spectator options. `allowed` 0 any player may send at any
 * time; the rest only the controller, between duels (docs/server.md, "Spectators"). */
struct wire_sset {
	bool allowed;
	uint8_t mode;         /* enum spect_mode */
	uint8_t delay;        /* SPECT_DELAYED: turns, SPECT_DELAY_MIN..MAX (which player: below) */
	uint8_t player;       /* SPECT_DELAYED: whose view (0 or 1) */
};

/* SPECT_INFO: the room's spectator options and how many watch, to players and spectators. */
struct wire_sinfo {
	bool allowed;
	uint8_t mode, delay, player;
	uint16_t count;
};

/* ROOMS: the public rooms of a server waiting for a second player, oldest first, at most
 * WIRE_ROOMS_MAX (docs/server.md, "Open rooms"). A room is listed only if its creator asked. */
#define WIRE_ROOMS_MAX 32
#define WIRE_ROOM_PASSWORD 1 /* wire_room.flags: joining needs the server's password */
struct wire_room {
	char code[PROTO_ROOM_BYTES + 1];  /* what `join --room` takes */
	char name[PROTO_NAME_BYTES + 1];  /* the waiting player's */
	uint16_t rating;                  /* the waiting player's rating on this server */
	struct options opt;
	uint16_t turn_time;
	uint8_t flags;                    /* WIRE_ROOM_* */
	uint16_t waiting;                 /* seconds since the room was made */
};
#define WIRE_ROOM_BYTES (1 + PROTO_ROOM_BYTES + 1 + PROTO_NAME_BYTES + 2 + 4 + 1 + 2)
#define WIRE_ROOMS_BYTES (1 + WIRE_ROOMS_MAX * WIRE_ROOM_BYTES)
struct wire_rooms {
	uint8_t count;                    /* 0..WIRE_ROOMS_MAX */
	struct wire_room room[WIRE_ROOMS_MAX];
};

/* QUICK: pair me with a stranger of these options (docs/server.md, "Quick pairing"); `wait`
 * seconds with no one found, the server answers MATCH NOBODY (the client offers a bot). */
#define QUICK_WAIT_MIN 1
#define QUICK_WAIT_MAX 600
struct wire_quick {
	struct options opt;
	uint16_t turn_time;
	uint16_t wait;                    /* QUICK_WAIT_MIN..QUICK_WAIT_MAX */
};

/* MATCH: the pool's answer to QUICK. WAITING at each wave (a heartbeat with news); PAIRED with
 * the code of a private room made for the two (both join it as with --room); NOBODY after the
 * wait. PAIRED and NOBODY are the last message before the server closes the connection. */
enum match_status { MATCH_WAITING = 0, MATCH_PAIRED = 1, MATCH_NOBODY = 2 };
struct wire_match {
	uint8_t status;                   /* enum match_status */
	uint16_t rating;                  /* the asker's rating on this server */
	uint16_t other;                   /* PAIRED: the other player's rating; else 0 */
	uint16_t waited;                  /* seconds in the pool */
	uint16_t pool;                    /* WAITING: players waiting with these options, the asker too; else 0 */
	char room[PROTO_ROOM_BYTES + 1];  /* PAIRED: the room; else "" */
};

/* REDIRECT (a node of a cluster, instead of WELCOME): the room lives on another node; connect there,
 * to a server whose key is `key` (the client pins it for that connection), and say the same AUTH. */
#define WIRE_REDIRECT_HOST_MAX 63
struct wire_redirect {
	uint16_t port;
	uint8_t key[PROTO_KEY_LEN];
	char host[WIRE_REDIRECT_HOST_MAX + 1]; /* an IPv4 or IPv6 address, as text */
};

/* NODES (a node of a cluster, just before a player's or a spectator's WELCOME): the cluster's live
 * nodes, this one included, each as REDIRECT names one. A client whose node's connection drops
 * resumes (a spectator: watches again) on the next of them, pinning the key given here (the node it
 * trusted vouches for each, inside its channel). */
#define WIRE_NODES_MAX 8
struct wire_nodes {
	uint8_t n; /* 1..WIRE_NODES_MAX */
	struct wire_redirect node[WIRE_NODES_MAX];
};

/* ROOMS_PARTIAL (a node of a cluster, just before ROOMS): the list that follows lacks the other
 * nodes' rooms, and why. */
enum rooms_partial_why { ROOMS_PARTIAL_NO_DIRECTORY = 1 }; /* Redis cannot be reached: this node's rooms only */
#define ROOMS_PARTIAL_MAX ROOMS_PARTIAL_NO_DIRECTORY
struct wire_partial {
	uint8_t why; /* enum rooms_partial_why */
};

/* RATED: after END of a rated duel, its signed record (proto/rated.h) and the server's signer key. */
struct wire_rated {
	uint8_t signer[RATED_SIGNER_LEN];
	struct rated_rec rec;
};

/* ASK: a question for the server's ratings, instead of AUTH (after IDENT; the answer, then BYE). */
enum ask_kind { ASK_HISTORY = 1, ASK_TOP = 2, ASK_STATS = 3 };
struct wire_ask {
	uint8_t kind;         /* enum ask_kind */
	char name[PROTO_NAME_BYTES + 1]; /* ASK_STATS: whose; else "" */
	uint32_t skip;        /* ASK_HISTORY: how many of the newest records to leave out (a page further back) */
};

/* RECORDS: the asking key's rated duels, newest first, each signed and each with its own signer
 * key (ASK_HISTORY's answer): in a cluster sharing one store, a record is signed by the node that
 * rated it, not by the node asked (docs/protocol.md, "Rated duels"). An entry is RATED's payload.
 * A page is at most 54: RECORDS crosses before any join, so it is never deflated and must fit one
 * frame's payload as sent (1 + 54 x 299 = 16,147 of PROTO_FRAME_MAX's 16,383; 55 would not). */
#define WIRE_RECORDS_MAX 54
_Static_assert(1 + WIRE_RECORDS_MAX * (RATED_SIGNER_LEN + RATED_SIGNED_LEN) <= PROTO_FRAME_MAX,
               "a page of RECORDS must fit one frame undeflated");
_Static_assert(1 + (WIRE_RECORDS_MAX + 1) * (RATED_SIGNER_LEN + RATED_SIGNED_LEN) > PROTO_FRAME_MAX,
               "a page of RECORDS is as long as one frame allows");
struct wire_records {
	uint8_t count;
	struct wire_rated rec[WIRE_RECORDS_MAX]; /* each: its signer key, its signed record */
};

/* LADDER: players' ratings (ASK_TOP: the ladder, established players then provisional ones;
 * ASK_STATS: the one named, or none). A row: flags, rating, deviation (both rounded), duels, wins,
 * draws, name. */
#define WIRE_LADDER_MAX 60
#define WIRE_LADDER_ROW 17    /* the fixed bytes of a row, before its name */
#define LADDER_PROVISIONAL 1  /* a row's flag: deviation 110 or more */
#define LADDER_ALL 1          /* LADDER.flags (ASK_TOP): every rated player is in it */
struct wire_ladder_row {
	uint8_t flags;
	uint16_t rating, deviation;
	uint32_t games, wins, draws;
	char name[PROTO_NAME_BYTES + 1];
};
struct wire_ladder {
	uint8_t flags;
	uint8_t count;
	struct wire_ladder_row row[WIRE_LADDER_MAX];
};

/* A decoded message: a tag and plain data (no pointers), about 19 KiB (a RECORDS of 54 records is the largest): keep it off small stacks. */
struct wire_msg {
	uint8_t type; /* enum wire_type */
	union {
		struct wire_hello hello;
		struct wire_challenge challenge;
		struct wire_auth auth;
		struct wire_welcome welcome;
		struct wire_ident ident;
		struct wire_keys keys;
		struct wire_lobby lobby;
		struct wire_options options;
		struct wire_ready ready;
		struct wire_rematch rematch;
		struct wire_start start;
		struct cmd cmd;
		struct update update;
		struct wire_end end;
		struct wire_log log;
		struct wire_chat chat;
		struct wire_error error;
		struct wire_resume resume;
		struct wire_bye bye;
		struct wire_peer peer;
		struct wire_sview sview;
		struct wire_schat schat;
		struct wire_sset sset;
		struct wire_sinfo sinfo;
		struct wire_redirect redirect;
		struct wire_nodes nodes;
		struct wire_partial partial;
		struct wire_rated rated;
		struct wire_ask ask;
		struct wire_records records;
		struct wire_ladder ladder;
		struct wire_rooms rooms;
		struct wire_quick quick;
		struct wire_match match;
		uint8_t none; /* CONTROL, HEARTBEAT: no payload */
	} u;
};

const char *wire_name(int type);       /* "?" when unknown */
bool wire_known(int type);
int wire_dir(int type);                /* WIRE_C2S / WIRE_S2C / WIRE_BOTH; 0 unknown */
bool wire_before_join(int type);
size_t wire_min(int type);
size_t wire_max(int type);
const char *bye_text(int reason);

/* Encode m's payload (no frame header). 0 and *len, or PROTO_BROKEN: a field
 * out of range or text not clean (the decoder would refuse it), or cap too small. */
int wire_encode(const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len, struct proto_err *e);

/* Decode a payload of the given type. 0 or PROTO_BROKEN with e filled. HELLO and
 * CHALLENGE check magic and versions first, so a peer of another version gets
 * PERR_MAGIC, PERR_VERSION or PERR_RULES with both versions in e->why. It sets the
 * first wire_decoded_size(type) bytes of m (the type and the union's member for it,
 * zeroed first) and leaves the rest as it was: a CMD of 2 bytes does not zero the
 * 20 KiB of an UPDATE. */
int wire_decode(int type, const uint8_t *p, size_t len, struct wire_msg *m, struct proto_err *e);
size_t wire_decoded_size(int type); /* 0 when unknown */

/* Fill m as a HELLO / CHALLENGE of this build (magic and versions set; pconn adds the Noise parts). */
void wire_hello_init(struct wire_msg *m);
void wire_challenge_init(struct wire_msg *m, const uint8_t salt[PROTO_PW_SALT_LEN], bool password);
/* Fill a wire_who (name and room cleaned). */
void wire_who_init(struct wire_who *w, const char *name, const char *room, int role);
/* CHALLENGE's encrypted part: flags, salt. 0 or PROTO_BROKEN (bad flags, wrong length). */
int wire_challenge_secret_put(const struct wire_challenge *c, uint8_t out[WIRE_CHALLENGE_SECRET]);
int wire_challenge_secret_get(struct wire_challenge *c, const uint8_t *p, size_t len, struct proto_err *e);
/* Fill m as an ERROR; text is cleaned (controls dropped, cut to the limit). */
void wire_error_init(struct wire_msg *m, int code, bool fatal, const char *text);
/* Verify the fixed first bytes of a HELLO or CHALLENGE. 0 or PROTO_BROKEN. */
int wire_check_versions(uint32_t magic, uint16_t proto, uint16_t rules, struct proto_err *e);
/* The text of the fatal ERROR a server answers a HELLO of another version with, from
 * the client's side ("version mismatch: the server has protocol version 3, your client
 * 4"), when e is wire_check_versions()' PERR_VERSION or PERR_RULES; else false. */
bool wire_version_refusal(const struct proto_err *e, char *buf, size_t len);

#endif
