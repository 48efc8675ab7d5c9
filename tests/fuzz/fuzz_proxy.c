/* SPDX-License-Identifier: MIT */
/* fuzz_proxy: the PROXY protocol v2 decoder and the trusted-proxy block parser (server/proxy.c) on any bytes. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "proxy.h"

/*
 * Input: one byte choosing the decoder, then its bytes. A header the decoder takes is no
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
