/* SPDX-License-Identifier: MIT */
/* fuzz_proxy: the PROXY protocol v2 decoder, the trusted-proxy block parser (server/proxy.c), the admin socket's ban and mute commands and a cluster's moderation lines (server/ban.c) on any bytes. */
#include <stdint.h>
#include <string.h>

#include "ban.h"
#include "fuzz.h"
#include "proto.h"
#include "proxy.h"
#include "text.h"

/* An admin line's arguments (as admin.c hands them over: no C0 byte, under its line cap), for
 * one of the four verbs: what parses has a canonical target that parses again to itself, a
 * reason that is clean REASON text, an expiry after its start, and a description that fits an
 * ERROR whole. */
static void
ban_line_fuzz(const uint8_t *p, size_t n)
{
	char s[600], why[256], text[256];
	struct ban b, again;

	if (n < 1 || n >= sizeof s)
		return;
	memcpy(s, p + 1, n - 1);
	s[n - 1] = '\0';
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return;
	if (!ban_parse(p[0] & 3, s, 1000000, &b, why, sizeof why)) {
		FUZZ_CHECK(why[0] != '\0');
		return;
	}
	FUZZ_CHECK(b.kind < BAN_KINDS);
	FUZZ_CHECK(strlen(b.target) <= BAN_TARGET_MAX && strlen(b.reason) <= BAN_REASON_MAX);
	FUZZ_CHECK(b.reason[0] == '\0' || text_check(b.reason, strlen(b.reason), TEXT_REASON));
	FUZZ_CHECK(b.expires == 0 || (b.expires > 1000000 && b.expires <= 1000000 + BAN_FOR_MAX));
	FUZZ_CHECK(ban_target(b.kind, b.target, &again, why, sizeof why));
	FUZZ_CHECK(strcmp(again.target, b.target) == 0);
	ban_describe(&b, text, sizeof text);
	FUZZ_CHECK(strlen(text) <= PROTO_REASON_BYTES);
}

/* A cluster's moderation line from Redis (any bytes but NUL, within the channel's bound): what parses
 * is written back by ban_sync_line to a line that parses to the same ban. */
static void
sync_line_fuzz(const uint8_t *p, size_t n)
{
	char s[BAN_SYNC_MAX + 16], why[256], line[BAN_SYNC_MAX], field[BAN_SYNC_MAX];
	struct ban b, again;
	bool lifted, l2;

	if (n >= sizeof s || memchr(p, '\0', n))
		return;
	memcpy(s, p, n);
	s[n] = '\0';
	if (!ban_sync_parse(s, 2000000000, &b, &lifted, why, sizeof why)) {
		FUZZ_CHECK(why[0] != '\0');
		return;
	}
	FUZZ_CHECK(b.kind < BAN_KINDS && b.created >= 1 && b.created <= 2000000000 + BAN_SYNC_SKEW);
	FUZZ_CHECK(b.expires == 0 || (b.expires > b.created && b.expires <= b.created + BAN_FOR_MAX));
	ban_sync_line(&b, lifted, b.created, line, field);
	FUZZ_CHECK(ban_sync_parse(line, 2000000000, &again, &l2, why, sizeof why));
	FUZZ_CHECK(l2 == lifted && again.kind == b.kind && strcmp(again.target, b.target) == 0);
	FUZZ_CHECK(again.created == b.created && again.expires == b.expires && strcmp(again.reason, b.reason) == 0);
}

/*
 * Input: one byte choosing the decoder (bit 2: a cluster's moderation line; bit 1: a ban command,
 * its verb in the next byte; else
 * bit 0: a block; else a header), then its bytes. A header the decoder takes is no
 * longer than the input or the cap, and every shorter prefix of it asks for more (never
 * broken: a reader that feeds it byte by byte gets the same answer); more is asked for only
 * past what was given, never past the cap. A block that parses matches its own address.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_hdr h, h2;
	size_t need, need2;
	char why[256];

	if (size < 1)
		return 0;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	if (data[0] & 4) {
		sync_line_fuzz(p, n);
		return 0;
	}
	if (data[0] & 2) {
		ban_line_fuzz(p, n);
		return 0;
	}
	if (data[0] & 1) {
		char s[80];
		struct proxy_cidr c;
		if (n >= sizeof s)
			return 0;
		memcpy(s, p, n);
		s[n] = '\0';
		if (!proxy_cidr_parse(s, &c, why, sizeof why))
			return 0;
		FUZZ_CHECK(c.bits <= 128);
		FUZZ_CHECK(proxy_cidr_match(&c, 1, c.addr));
		return 0;
	}
	int rc = proxy_decode(p, n, &h, &need, why, sizeof why);
	FUZZ_CHECK(rc == PROXY_DONE || rc == PROXY_MORE || rc == PROXY_BROKEN);
	FUZZ_CHECK(need <= PROXY_MAX);
	if (rc == PROXY_MORE)
		FUZZ_CHECK(need > n);
	if (rc != PROXY_DONE)
		return 0;
	FUZZ_CHECK(h.len >= 15 && h.len <= n && h.len <= PROXY_MAX);
	FUZZ_CHECK(!(h.local && h.has_addr));
	for (size_t k = 0; k < h.len; k++) {
		int r2 = proxy_decode(p, k, &h2, &need2, why, sizeof why);
		FUZZ_CHECK(r2 == PROXY_MORE);
		FUZZ_CHECK(need2 > k && need2 <= h.len);
	}
	FUZZ_CHECK(proxy_decode(p, h.len, &h2, &need2, why, sizeof why) == PROXY_DONE);
	FUZZ_CHECK(memcmp(&h, &h2, sizeof h) == 0);
	return 0;
}
