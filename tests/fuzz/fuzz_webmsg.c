/* SPDX-License-Identifier: MIT */
/* fuzz_webmsg: the decoders of the web page's input (web/wmsg.c: its messages, a browser's Origin; a node's "web" line) on any bytes. */
#include <stdint.h>
#include <string.h>

#include "cluster.h"
#include "fuzz.h"
#include "wmsg.h"

/* The same bytes as a header or a Redis line (NUL-ended): an Origin the web port lets through only
 * with a host of a host's letters and a port in range; a node's "web" line only with an id, an IP
 * address and a port in range. */
static void
lines(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), host[CLUSTER_HOST_MAX + 1], id[CLUSTER_ID_LEN + 1];
	const char *a;
	int port;

	if (s == NULL)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (wmsg_origin(s, &a, host, sizeof host, &port)) {
		if (port < 1 || port > 65535 || strnlen(host, sizeof host) == sizeof host || host[0] == '\0' ||
		    a < s || a > s + size)
			__builtin_trap();
	}
	if (cluster_parse_web(s, id, host, &port) == 0) {
		if (port < 1 || port > 65535 || strlen(id) != CLUSTER_ID_LEN || strnlen(host, sizeof host) == sizeof host)
			__builtin_trap();
	}
	free(s);
}

/*
 * A message the decoder takes holds only what a page may send: each string field NUL-ended
 * within its array and of printable ASCII, a turn within 9 digits; and taking it never
 * depends on bytes past its length.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wmsg m;
	char *copy;

	lines(data, size);
	if (!wmsg_parse((const char *)data, size, &m))
		return 0;
	const char *fields[] = { m.t, m.room, m.id, m.key, m.k };
	size_t caps[] = { sizeof m.t, sizeof m.room, sizeof m.id, sizeof m.key, sizeof m.k };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		size_t n = strnlen(fields[i], caps[i]);
		if (n == caps[i])
			__builtin_trap();
		for (size_t k = 0; k < n; k++)
			if (fields[i][k] < 0x20 || fields[i][k] > 0x7e)
				__builtin_trap();
	}
	if (m.has_turn && (m.turn < 0 || m.turn > 999999999))
		__builtin_trap();
	/* The same bytes with garbage after them, told the same length: the same answer. */
	if ((copy = malloc(size + 8)) == NULL)
		return 0;
	memcpy(copy, data, size);
	memset(copy + size, '}', 8);
	struct wmsg m2;
	if (!wmsg_parse(copy, size, &m2) || memcmp(&m, &m2, sizeof m) != 0)
		__builtin_trap();
	free(copy);
	return 0;
}
