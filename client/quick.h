/* SPDX-License-Identifier: MIT */
/* quick: a question to a server of rooms before any join: its public rooms (ROOMS_ASK) or a stranger to play (QUICK). */
#ifndef WW_QUICK_H
#define WW_QUICK_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

#include "net.h"
#include "wire.h"

/* Each MATCH WAITING while the pool looks (NULL: quiet). */
typedef void (*quick_wait_fn)(void *ud, const struct wire_match *m);

/* Ask `q` (ROOMS_ASK or QUICK) of the server `base` names (its host, port, trust, key; not its
 * room nor seat), on a loop of its own, and wait for the answer: ROOMS, or the MATCH that ends a
 * QUICK (PAIRED or NOBODY), in *out; *partial (if not NULL) says whether a ROOMS_PARTIAL came
 * first (a cluster's node listing only its own rooms). 0, or -1 with the reason in why. */
WW_COLD int quick_ask(const struct net_config *base, const struct wire_msg *q, quick_wait_fn on_wait, void *ud,
                      struct wire_msg *out, bool *partial, char *why, size_t whylen);

/* A cluster's node to join the paired room through, when it is not the server first asked: the
 * cluster's pairing node that answered PAIRED (the server first asked REDIRECTed the QUICK there,
 * and may not have heard of the room yet), or, when the pairing node died with the player waiting
 * there, the node NODES named that paired it (docs/server.md, "Quick pairing across nodes"). */
struct quick_via {
	bool moved;                               /* false: join through the server first asked */
	char host[WIRE_REDIRECT_HOST_MAX + 1];    /* an IP address, from REDIRECT or NODES */
	int port;
	uint8_t key[PROTO_KEY_LEN];               /* pinned: NODES came inside a checked channel */
};

/* How long a player who waited in a pool tries again after its link to the pool is lost (the
 * pairing node killed: the others stop sending QUICK there 1.6 s after its last beat), in ms. */
#define QUICK_RETRY_FOR_MS 10000
#define QUICK_RETRY_EVERY_MS 250

/* QUICK with these options: wait in the server's pool (a line on stderr as it looks, `say`) until
 * paired (0, and the room's code in code) or not (1: nobody in `wait` seconds; *rating is this
 * player's rating there either way), or -1 (said on stderr). A link lost while waiting (a cluster's
 * pairing node died) is tried again, every QUICK_RETRY_EVERY_MS for QUICK_RETRY_FOR_MS: through the
 * node first asked, or, when that was the one lost, the other nodes NODES named; *via says where
 * to join: the node that paired it (NULL: not told, the server first asked). */
WW_COLD int quick_pair(const struct net_config *base, const struct options *o, unsigned turn_time, unsigned wait,
                       bool say, char code[PROTO_ROOM_BYTES + 1], unsigned *rating, struct quick_via *via);

/* The join of the paired room goes through via's node when that is not the server first asked (its
 * key pinned: known-servers and fingerprint are for the server first asked); else nothing changes. */
WW_COLD void quick_join_via(struct net_config *nc, const struct quick_via *via);

/* The built-in bot offered to a player of this rating when nobody came (enum bot_level). */
int quick_bot_level(unsigned rating);

/* ROOMS as a table on stdout, with the line that joins each; `server` as typed; `partial`: a line
 * first says the list is only that node's (ROOMS_PARTIAL). */
WW_COLD void quick_print_rooms(const struct wire_rooms *r, const char *server, bool partial);

#endif
