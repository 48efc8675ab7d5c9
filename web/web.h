/* SPDX-License-Identifier: MIT */
/* web: `server --web ADDR:PORT`: the spectators' web page and its websocket, libwebsockets on the server's own libuv loop. */
#ifndef WW_WEB_H
#define WW_WEB_H

#include "cold.h"

#include <stddef.h>

#include <uv.h>

#include "server.h"

/* Limits of the web port (docs/server.md, threat model): per address and in all. */
#define WEB_CONNS_MAX 256     /* connections of every kind at once (libwebsockets' own table) */
#define WEB_SOCKETS_PER_ADDR 8 /* websockets from one address at once */
#define WEB_MSG_MAX 256       /* bytes of one message from a page; more closes it */
#define WEB_MSG_RATE 40       /* messages a page may send a second; more closes it */
#define WEB_REPLAYS_AT_ONCE 4 /* finished logs read at once (off the loop); more wait their turn */

struct web;

/* Serve the page on "ADDR:PORT", "[V6]:PORT" or "PORT" (every address) for server s, on its
 * loop. 0 and *out, or -1 with why. */
WW_COLD int web_start(uv_loop_t *loop, struct server *s, const char *addr, struct web **out, char *why, size_t whylen);
int web_port(const struct web *w);
/* List only the duels this process finishes from now on (`host --web`), not every finished log
 * of the server's log folder (`server --web`). */
void web_list_own(struct web *w);
/* Close every page and the port; the loop runs on to let libwebsockets close its handles. NULL is fine. */
void web_stop(struct web *w);

/* The link that plays finished log `path` (under the server's log directory): its fragment
 * "#r=ID.MAC", or false (not in the log tree). And a room's live page, "#w=ROOM.MAC". */
bool web_replay_fragment(const struct web *w, const char *path, char *out, size_t len);
bool web_room_fragment(const struct web *w, const char *room, char *out, size_t len);

#endif
