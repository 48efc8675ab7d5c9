/* SPDX-License-Identifier: MIT */
/* proto: the constants of the wizwar wire protocol, its error codes and the error record decoders fill. */
#ifndef WW_PROTO_H
#define WW_PROTO_H

#include <stddef.h>
#include <stdint.h>

/*
 * The protocol version. Don't forget to bump PROTO_VERSION if anything in
 * docs/protocol.md changes: a frame, a message type, a field, a limit. A new
 * ERROR code alone needs no bump: a receiver that does not know one acts on the
 * ERROR's fatal bit and shows its text, which every version does.
 * Peers of different versions refuse each other at HELLO with an ERROR naming
 * both versions; the frame header, HELLO's first 8 bytes, CHALLENGE's first 8
 * bytes and ERROR are frozen so that this refusal is readable by every version.
 */
#define PROTO_VERSION 7 /* 7: spectators (SPECT_* messages 0x50..0x5f, the spectator role, WELCOME without a seat), and the client proves a long-term key (IDENT) before AUTH or RESUME, a name may belong to a key; 6: records are padded to a few sizes, and one begun must end within PROTO_RECORD_MS; 5: WELCOME carries the server's lobby hold and duel grace; 4: the seed is drawn from the server's committed part and the players' parts, and a client never deflates; 3: UPDATE messages carry their argument count; 2 is the encrypted handshake */

/* "WZWR": the first four payload bytes of HELLO and CHALLENGE. */
#define PROTO_MAGIC 0x575a5752u
#define PROTO_MAGIC_LEN 4

/* A frame is type (1 byte) + payload length (a 1 or 2 byte varint) + payload. */
#define PROTO_FRAME_MAX 16383     /* payload bytes as sent: the most two varint bytes carry */
#define PROTO_HEADER_MAX 3
#define PROTO_PAYLOAD_MAX 65535   /* payload bytes after inflating: the inflate limit of any frame */

/* A record (or a clear frame) that has begun to arrive must be whole this many ms later, or
 * the link is dropped (RECORD): heartbeats cannot keep a link alive that waits for bytes
 * which never come, as after a length prefix raised on the way (docs/protocol.md, "Records"). */
#define PROTO_RECORD_MS 10000

/* Text limits (see text.h). */
#define PROTO_NAME_CHARS 16       /* code points in a player name */
#define PROTO_NAME_BYTES 64
#define PROTO_ROOM_BYTES 16       /* room code: ASCII letters, digits, '-', '_' */
#define PROTO_CHAT_BYTES 200
#define PROTO_REASON_BYTES 120    /* ERROR text */

#define PROTO_NONCE_LEN 32
#define PROTO_KEY_LEN 32          /* an X25519 public key */
#define PROTO_HASH_LEN 64         /* the Noise handshake hash (BLAKE2b) */
#define PROTO_PW_SALT_LEN 16      /* crypto_pwhash_SALTBYTES */
#define PROTO_PROOF_LEN 32
#define PROTO_IDENT_KEY_LEN 32    /* a client's Ed25519 public key (crypto_sign_PUBLICKEYBYTES) */
#define PROTO_IDENT_SIG_LEN 64    /* an Ed25519 signature (crypto_sign_BYTES) */
#define PROTO_KEY_HINT_LEN 16     /* the bytes a key's fingerprint spells: HELLO's hint of the key a client pinned */
#define PROTO_ROTATE_SIG_LEN 64   /* KEYS: an Ed25519 signature by the old key (auth_rotate_sign) */
#define PROTO_TOKEN_MIN 16
#define PROTO_TOKEN_MAX 32
#define PROTO_COMMIT_LEN 32
#define PROTO_PART_LEN 32       /* a random part of a duel's seed: the server's, or a player's */
#define PROTO_LOG_CHUNK 8192      /* turn-log bytes in one LOG_CHUNK */
#define PROTO_LOG_MAX (1u << 22)  /* a whole turn log */
/* A seat's hold in seconds, as WELCOME (lobby hold and grace) and PEER (seconds left) carry it: a u16.
 * A server accepts no grace longer than this (about 18 h), so that every figure it sends is its own. */
#define PROTO_HOLD_MAX 65535

/*
 * Error codes: X(ID, number, text). They are the codes of ERROR messages, so
 * the numbers are part of the protocol. 1..99 are what a decoder finds wrong
 * with a peer's bytes, 100..199 what a server refuses. A refused game command
 * is PERR_REFUSED_BASE + its enum err (common/game.h), sent in a non-fatal
 * ERROR; those texts are err_text()'s.
 */
#define PERR_LIST(X) \
	X(OK,             0,  "ok") \
	X(TRUNCATED,      1,  "message truncated") \
	X(TRAILING,       2,  "trailing bytes after the message") \
	X(FRAME_SIZE,     3,  "frame larger than allowed for its type") \
	X(TYPE,           4,  "unknown message type") \
	X(DIRECTION,      5,  "message type not sent in this direction") \
	X(MAGIC,          6,  "not a wizwar peer (bad magic)") \
	X(VERSION,        7,  "protocol version mismatch") \
	X(RULES,          8,  "rules version mismatch") \
	X(VARINT,         9,  "bad varint") \
	X(RANGE,          10, "field out of range") \
	X(TEXT,           11, "text is not clean UTF-8 within its limit") \
	X(LAYOUT,         12, "bad layout code") \
	X(LOC,            13, "bad location code") \
	X(ZLIB,           14, "bad deflate data") \
	X(INFLATE_LIMIT,  15, "deflate data inflates past its limit") \
	X(EARLY_DEFLATE,  16, "compressed frame before the join was accepted") \
	X(BUFFER,         17, "output buffer too small") \
	X(TOO_BIG,        18, "message too large to send") \
	X(UPDATE,         19, "update does not fit the view it is applied to") \
	X(NOMEM,          20, "out of memory") \
	X(CRYPTO,         21, "the handshake or an encrypted record does not verify") \
	X(RECORD,         22, "bad encrypted record length") \
	X(HOSTKEY,        23, "the server's key is not the one expected") \
	X(IDENT,          24, "the client's key proof does not verify") \
	X(AUTH,           100, "authentication failed") \
	X(ROOM_FULL,      101, "the room is full") \
	X(NAME_TAKEN,     102, "that name is in use in this room") \
	X(NOT_CONTROLLER, 103, "only the controller may do that") \
	X(STATE,          104, "message not expected now") \
	X(TIMEOUT,        105, "the peer was silent too long") \
	X(RESUME,         106, "unknown or expired resume token") \
	X(BAD_OPTIONS,    107, "options refused") \
	X(SERVER,         108, "server error") \
	X(LIMIT,          109, "too much, too fast: a rate limit") \
	X(NO_ROOM,        110, "no room with that code") \
	X(NO_SPECTATORS,  111, "the players of this room do not allow spectators") \
	X(MOVING,         112, "the room is moving to another node: ask again in a moment") \
	X(NAME_OWNED,     120, "that name belongs to another player's key on this server") \
	X(BANNED,         130, "banned from this server by its operator") \
	X(MUTED,          131, "muted on this server by its operator: chat is not delivered")

enum perr {
#define X(id, num, text) PERR_##id = (num),
	PERR_LIST(X)
#undef X
};
#define PERR_REFUSED_BASE 256 /* + enum err: a game command was refused; not fatal */

/* Text for a code (any int: unknown codes give a placeholder, never NULL). */
const char *proto_strerror(int code);

/* What a decoder found wrong: a code and a short reason with the detail (which
 * field, which versions). Filled on every failure; `why` is always NUL-terminated. */
struct proto_err {
	int code;
	char why[96];
};

/* Decoders answer one of three things (MAngband's 1 / 0 / -1). */
#define PROTO_DONE 1
#define PROTO_MORE 0
#define PROTO_BROKEN (-1)

#endif
