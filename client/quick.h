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

/* QUICK with these options: wait in the server's pool (a line on stderr as it looks, `say`) until
 * paired (0, and the room's code in code) or not (1: nobody in `wait` seconds; *rating is this
 * player's rating there either way), or -1 (said on stderr). */
WW_COLD int quick_pair(const struct net_config *base, const struct options *o, unsigned turn_time, unsigned wait,
                       bool say, char code[PROTO_ROOM_BYTES + 1], unsigned *rating);

/* The built-in bot offered to a player of this rating when nobody came (enum bot_level). */
int quick_bot_level(unsigned rating);

/* ROOMS as a table on stdout, with the line that joins each; `server` as typed; `partial`: a line
 * first says the list is only that node's (ROOMS_PARTIAL). */
WW_COLD void quick_print_rooms(const struct wire_rooms *r, const char *server, bool partial);

#endif
