/* SPDX-License-Identifier: MIT */
/* fuzz_lan: a LAN announcement from anyone on the link (its DNS-SD TXT record, instance and host names) into lan_pick.c. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "lan.h"
#include "proto.h"
#include "text.h"

/*
 * Anyone on the LAN can announce a wizwar duel, so every string of an announcement is a peer's
 * bytes: the TXT record (RFC 6763: "key=value" strings), the instance name and the host name
 * avahi resolves. Input: one byte for the port, then strings as DNS has them (a length byte,
 * then that many bytes): the instance, the host, then the TXT record's strings. The parse must
 * keep a duel it calls usable well formed (our protocol, a player's name, a fingerprint, a
 * port), say why in printable ASCII when not, list it in a line with no control character, and
 * a usable one's record written again (lan_txt_make) must read back the same.
 */

/* No C0 or C1 control, no DEL: the line goes to a terminal (a usable name may be UTF-8). */
static void
no_controls(const char *s)
{
	for (size_t i = 0; s[i]; i++) {
		unsigned char b = (unsigned char)s[i];
		FUZZ_CHECK(b >= 0x20 && b != 0x7f);
		FUZZ_CHECK(!(b == 0xc2 && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f));
	}
}

static bool
fp_ok(const char *fp)
{
	if (strlen(fp) != AUTH_FP_LEN)
		return false;
	for (size_t i = 0; i < AUTH_FP_LEN; i++)
		if (!((fp[i] >= 'a' && fp[i] <= 'z') || (fp[i] >= '2' && fp[i] <= '7')))
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lan_duel d, e;
	const char *kv[32];
	size_t len[32], n = 0, at = 1;
	char line[512], buf[512];

	if (size < 1)
		return 0;
	memset(&d, 0, sizeof d);
	d.port = data[0] < 250 ? 1 + data[0] * 263 : data[0] == 250 ? 0 : 65535 + (data[0] - 250);
	snprintf(d.addr, sizeof d.addr, "fe80::1%%eth0");
	for (int s = 0; at < size && n < 32; s++) {
		size_t l = data[at++];
		if (l > size - at)
			l = size - at;
		if (s == 0 || s == 1) { /* as lan.c takes them from avahi: bounded, NUL-ended */
			char *to = s == 0 ? d.instance : d.host;
			size_t cap = s == 0 ? sizeof d.instance : sizeof d.host;
			size_t k = l < cap - 1 ? l : cap - 1;
			memcpy(to, data + at, k);
			to[k] = '\0';
		} else {
			kv[n] = (const char *)data + at;
			len[n++] = l;
		}
		at += l;
	}
	lan_txt_parse(&d, kv, len, n);
	if (d.usable) {
		FUZZ_CHECK(d.proto == PROTO_VERSION && d.port > 0 && d.port <= 65535);
		FUZZ_CHECK(text_check(d.name, strlen(d.name), TEXT_NAME) && fp_ok(d.fp));
	} else {
		FUZZ_CHECK(d.why[0] != '\0');
		fuzz_printable(d.why, sizeof d.why);
	}
	lan_list_line(line, sizeof line, 1, &d);
	no_controls(line);
	if (d.usable) {
		/* Written again as a host writes it, and read back: the same duel. */
		struct lan_info in = { d.server, d.name, d.port, d.password, d.wanted, d.fp };
		size_t m = lan_txt_make(&in, buf, sizeof buf, kv);
		for (size_t i = 0; i < m; i++)
			len[i] = strlen(kv[i]);
		memset(&e, 0, sizeof e);
		e.port = d.port;
		lan_txt_parse(&e, kv, len, m);
		FUZZ_CHECK(e.usable && e.server == d.server && e.password == d.password && e.wanted == d.wanted);
		FUZZ_CHECK(strcmp(e.name, d.name) == 0 && strcmp(e.fp, d.fp) == 0);
	}
	return 0;
}
