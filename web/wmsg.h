/* SPDX-License-Identifier: MIT */
/* wmsg: the decoder of a web page's message (docs/protocol.md, "The web page"); pure, fuzzed (tests/fuzz/fuzz_webmsg.c). */
#ifndef WW_WMSG_H
#define WW_WMSG_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

#define WEB_ID_MAX 120
#define WEB_MAC_HEX 32 /* a link's MAC: 16 bytes of HMAC-SHA-512-256, in hex */

struct wmsg {
	char t[16], room[PROTO_ROOM_BYTES + 1], id[WEB_ID_MAX + 1], key[WEB_MAC_HEX + 1], k[4];
	long turn;      /* 0 to 999999999 */
	bool has_turn;
};

/* One message of len bytes (not NUL-ended): an object of the keys t, room, id, key and k
 * (strings of printable ASCII, escapes \" and \\ only, each within its field) and turn (up
 * to 9 digits); nothing else, nothing after it. False for anything else. */
bool wmsg_parse(const char *s, size_t len, struct wmsg *m);

/* A browser's Origin header (NUL-ended): "http://" or "https://", then HOST[:PORT], HOST a name or an
 * IPv4 address or an IPv6 one in brackets, PORT 1 to 65535 (80 or 443 when none), nothing after. The
 * authority (what follows "://", within origin), the host (without brackets, at most hostlen - 1
 * bytes) and the port; false for anything else ("null", a path, a user). */
bool wmsg_origin(const char *origin, const char **authority, char *host, size_t hostlen, int *port);

#endif
