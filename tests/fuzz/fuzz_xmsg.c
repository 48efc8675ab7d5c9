/* SPDX-License-Identifier: MIT */
/* fuzz_xmsg: a cluster's channel lines (server/xmsg.c: beat, room, gone, sent, make, web, mod, open) on any bytes. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "wire.h"
#include "xmsg.h"

/* The line a node writes for m (server/cluster.c's formats), with open's payload after its head:
 * a line the parser took must be exactly this, byte for byte (nothing skipped, nothing extra). */
static size_t
format(const struct xmsg *m, char *out, size_t cap)
{
	static const char *const words[] = { [XMSG_BEAT] = "beat", [XMSG_ROOM] = "room", [XMSG_GONE] = "gone",
		[XMSG_SENT] = "sent", [XMSG_MAKE] = "make", [XMSG_WEB] = "web", [XMSG_MOD] = "mod", [XMSG_OPEN] = "open" };
	char hex[PROTO_KEY_LEN * 2 + 1];
	int n = 0;

	switch (m->type) {
	case XMSG_BEAT:
		for (size_t i = 0; i < PROTO_KEY_LEN; i++)
			snprintf(hex + 2 * i, 3, "%02x", m->key[i]);
		n = snprintf(out, cap, "beat %s %s %d %s %u", m->id, m->host, m->port, hex, m->rooms);
		break;
	case XMSG_ROOM:
	case XMSG_GONE:
	case XMSG_SENT:
		n = snprintf(out, cap, "%s %s %s", words[m->type], m->id, m->code);
		break;
	case XMSG_MAKE:
		n = snprintf(out, cap, "make %s %s %s %u %d %d %u", m->id, m->to, m->code, m->opt.size, m->opt.fov ? 1 : 0,
		             m->opt.potions ? 1 : 0, m->turn_time);
		break;
	case XMSG_WEB:
		n = snprintf(out, cap, "web %s %s %d", m->id, m->host, m->port);
		break;
	case XMSG_MOD:
		n = snprintf(out, cap, "mod %s %s", m->id, m->line);
		break;
	case XMSG_OPEN:
		n = snprintf(out, cap, "open %s ", m->id);
		FUZZ_CHECK(n > 0 && (size_t)n + m->len <= cap);
		memcpy(out + n, m->payload, m->len);
		return (size_t)n + m->len;
	}
	FUZZ_CHECK(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

/*
 * What the parser takes is a line a node writes: written again from the struct, it is the very
 * bytes given; each field within its bounds; open's payload inside the input; and the answer does
 * not depend on bytes past the length given. An open line's payload then goes to the ROOMS decoder,
 * as on_open hands it on.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xmsg m, m2;
	static struct wire_msg w;
	static char again[XMSG_LINE_MAX + 100000];
	struct proto_err err;
	uint8_t *copy;

	if (xmsg_parse((const char *)data, size, &m) != 0)
		return 0;
	FUZZ_CHECK(xmsg_valid_id(m.id, strlen(m.id)));
	switch (m.type) {
	case XMSG_BEAT:
	case XMSG_WEB:
		FUZZ_CHECK(m.port >= 1 && m.port <= 65535 && xmsg_valid_host(m.host, strlen(m.host)));
		FUZZ_CHECK(m.rooms <= XMSG_ROOMS_MAX);
		break;
	case XMSG_MAKE:
		FUZZ_CHECK(xmsg_valid_id(m.to, strlen(m.to)) && m.turn_time <= 65535);
		/* fall through */
	case XMSG_ROOM:
	case XMSG_GONE:
	case XMSG_SENT:
		FUZZ_CHECK(xmsg_valid_code(m.code, strlen(m.code)));
		break;
	case XMSG_MOD:
		FUZZ_CHECK(strlen(m.line) > 0 && strlen(m.line) < sizeof m.line);
		break;
	case XMSG_OPEN:
		FUZZ_CHECK(m.payload >= data && m.payload + m.len == data + size);
		if (m.len <= WIRE_ROOMS_BYTES)
			(void)wire_decode(WIRE_ROOMS, m.payload, m.len, &w, &err);
		break;
	}
	if (m.type != XMSG_OPEN && m.type != XMSG_MOD)
		FUZZ_CHECK(size < XMSG_LINE_MAX);
	size_t n = format(&m, again, sizeof again);
	FUZZ_CHECK(n == size && memcmp(again, data, size) == 0);
	if ((copy = malloc(size + 8)) == NULL)
		return 0;
	memcpy(copy, data, size);
	memset(copy + size, ' ', 4);
	memset(copy + size + 4, '1', 4);
	FUZZ_CHECK(xmsg_parse((const char *)copy, size, &m2) == 0 && m2.type == m.type && strcmp(m2.id, m.id) == 0);
	free(copy);
	return 0;
}
