/* SPDX-License-Identifier: MIT */
/* xmsg: a cluster's lines on the channel wizwar:events, parsed into a struct: strict, bounded, pure. */
#ifndef WIZWAR_XMSG_H
#define WIZWAR_XMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "proto.h"

/* cluster.h's CLUSTER_ID_LEN, CLUSTER_HOST_MAX and CLUSTER_MOD_MAX (checked equal in cluster.c): the
 * parser stands below the cluster, which includes it, not beside it. */
#define XMSG_ID_LEN 26    /* a node's id: its key's fingerprint */
#define XMSG_HOST_MAX 63  /* an address a node says */
#define XMSG_MOD_MAX 256  /* a moderation line, its NUL included */

/* A line other than "open" and "mod" is at most this long (its NUL not counted: at most
 * XMSG_LINE_MAX - 1 bytes); a node's longest, a beat, is under 200. */
#define XMSG_LINE_MAX 256
#define XMSG_ROOMS_MAX 10000000 /* a beat's room count: more is no node's */

/* What a node publishes (server/cluster.c writes each; docs/server.md, "A cluster"). */
enum xmsg_type {
	XMSG_BEAT, /* "beat ID HOST PORT KEYHEX ROOMS": node ID is alive at HOST:PORT, key, load */
	XMSG_ROOM, /* "room ID CODE": node ID made room CODE */
	XMSG_GONE, /* "gone ID CODE": ... closed it */
	XMSG_SENT, /* "sent ID CODE": a node sent new room CODE to node ID (REDIRECT) */
	XMSG_MAKE, /* "make ID TO CODE SIZE FOV POTIONS TURN": pairing node ID asks node TO for a pair's room */
	XMSG_WEB,  /* "web ID HOST PORT": node ID's spectators' web page */
	XMSG_MOD,  /* "mod ID LINE": a ban, unban, mute or unmute made on node ID (server/ban.h's line) */
	XMSG_OPEN, /* "open ID " then a ROOMS payload (binary): node ID's public rooms waiting */
};

struct xmsg {
	enum xmsg_type type;
	char id[XMSG_ID_LEN + 1];     /* every type: the node the line names first */
	char to[XMSG_ID_LEN + 1];     /* make */
	char code[PROTO_ROOM_BYTES + 1]; /* room, gone, sent, make */
	char host[XMSG_HOST_MAX + 1]; /* beat, web: an IP address */
	int port;                        /* beat, web: 1 to 65535 */
	uint8_t key[PROTO_KEY_LEN];      /* beat */
	unsigned rooms;                  /* beat: at most XMSG_ROOMS_MAX */
	struct options opt;              /* make: bounded (size <= 255, fov and potions 0 or 1), not checked as
	                                  * a client's OPTIONS: the server does that (cluster_config.make_room) */
	unsigned turn_time;              /* make: at most 65535 */
	char line[XMSG_MOD_MAX];      /* mod: the line, no control byte (still to be parsed: ban_sync_parse) */
	const uint8_t *payload;          /* open: the ROOMS payload, inside the parsed bytes (wire_decode it) */
	size_t len;                      /* ... its length: at most WIRE_ROOMS_BYTES */
};

/* The line of `n` bytes (not NUL-ended; may hold any byte) into *m: 0, or -1 for anything a node does
 * not write: an unknown word, a field missing or one too many, a space doubled, leading or trailing, a
 * number with a sign, a leading zero or out of range, an id, code, host or key not of their kind, a
 * line too long. No I/O and no state: fuzzed by tests/fuzz/fuzz_xmsg.c. */
int xmsg_parse(const char *s, size_t n, struct xmsg *m);

/* The checks of a single field, shared with the cluster's other readers (Redis's replies). */
bool xmsg_valid_id(const char *s, size_t n);   /* a node id: XMSG_ID_LEN of a-z 0-9 */
bool xmsg_valid_code(const char *s, size_t n); /* a room code: 1 to PROTO_ROOM_BYTES of A-Z a-z 0-9 - _ */
bool xmsg_valid_host(const char *s, size_t n); /* an IPv4 or IPv6 address, NUL-ended at n */
/* A moderation line as text into out (cap bytes), or false: empty, too long, a NUL or a control byte. */
bool xmsg_mod_line(const char *s, size_t n, char *out, size_t cap);

#endif
