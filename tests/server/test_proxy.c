/* SPDX-License-Identifier: MIT */
/* server/proxy: the PROXY protocol v2 decoder against hostile headers, the trusted-proxy list, and a server that
 * believes a trusted proxy's header (split byte by byte, missing, broken) and refuses anyone else's. */
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "proxy.h"

static const uint8_t sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

/* A header: version/command, family, body. */
static size_t
hdr(uint8_t *out, uint8_t vc, uint8_t fam, const uint8_t *body, size_t n)
{
	memcpy(out, sig, 12);
	out[12] = vc;
	out[13] = fam;
	out[14] = (uint8_t)(n >> 8);
	out[15] = (uint8_t)n;
	if (n)
		memcpy(out + 16, body, n);
	return 16 + n;
}

/* TCP over IPv4 from a.b.c.d:port to 127.0.0.1:7727. */
static size_t
hdr4(uint8_t *out, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port)
{
	uint8_t body[12] = { a, b, c, d, 127, 0, 0, 1, (uint8_t)(port >> 8), (uint8_t)port, 0x1e, 0x2f };
	return hdr(out, 0x21, 0x11, body, sizeof body);
}

static int
dec(const uint8_t *p, size_t n, struct proxy_hdr *h, size_t *need)
{
	char why[128];
	return proxy_decode(p, n, h, need, why, sizeof why);
}

Test(proxy, an_ipv4_header_names_its_client_and_every_prefix_asks_for_more)
{
	uint8_t b[64];
	struct proxy_hdr h;
	size_t need, n = hdr4(b, 10, 1, 2, 3, 4567);

	cr_assert_eq(dec(b, n, &h, &need), PROXY_DONE);
	cr_expect(h.has_addr);
	cr_expect(!h.local);
	cr_expect_eq(h.len, 28);
	cr_expect_eq(h.src_port, 4567);
	static const uint8_t want[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 1, [14] = 2, [15] = 3 };
	cr_expect_arr_eq(h.src, want, 16);
	for (size_t k = 0; k < n; k++) {
		cr_expect_eq(dec(b, k, &h, &need), PROXY_MORE, "prefix %zu", k);
		cr_expect_eq(need, k == 0 ? 1u : k < 16 ? 16u : n, "prefix %zu: need %zu", k, need);
	}
	/* What follows the header is not the decoder's business. */
	b[n] = 0x99;
	cr_expect_eq(dec(b, n + 1, &h, &need), PROXY_DONE);
	cr_expect_eq(h.len, n);
}

Test(proxy, ipv6_local_unspec_and_unix_headers)
{
	uint8_t b[PROXY_MAX], body[216 + 7];
	struct proxy_hdr h;
	size_t need;

	memset(body, 0, sizeof body);
	body[0] = 0x20;
	body[1] = 0x01;
	body[15] = 9;
	body[32] = 0x30;
	body[33] = 0x39;
	cr_assert_eq(dec(b, hdr(b, 0x21, 0x21, body, 36), &h, &need), PROXY_DONE);
	cr_expect(h.has_addr);
	cr_expect_eq(h.src[0], 0x20);
	cr_expect_eq(h.src[15], 9);
	cr_expect_eq(h.src_port, 12345);
	/* LOCAL: a health check; whatever the family says, the proxy speaks for itself. */
	cr_assert_eq(dec(b, hdr(b, 0x20, 0x00, NULL, 0), &h, &need), PROXY_DONE);
	cr_expect(h.local && !h.has_addr);
	cr_assert_eq(dec(b, hdr(b, 0x20, 0x77, body, 5), &h, &need), PROXY_DONE);
	cr_expect(h.local);
	cr_expect_eq(h.len, 21);
	/* UNSPEC and a Unix socket: accepted, no address taken. */
	cr_assert_eq(dec(b, hdr(b, 0x21, 0x00, NULL, 0), &h, &need), PROXY_DONE);
	cr_expect(!h.has_addr);
	cr_assert_eq(dec(b, hdr(b, 0x21, 0x31, body, 216), &h, &need), PROXY_DONE);
	cr_expect(!h.has_addr);
	/* TLVs after the addresses: whole ones pass (a NOOP of 4, an empty one). */
	uint8_t v4[12 + 7 + 3] = { 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 0, 2, 0x04, 0, 4, 'a', 'b', 'c', 'd', 0x05, 0, 0 };
	cr_assert_eq(dec(b, hdr(b, 0x21, 0x11, v4, sizeof v4), &h, &need), PROXY_DONE);
	cr_expect_eq(h.src[12], 1);
}

Test(proxy, hostile_headers_are_broken_with_a_reason)
{
	uint8_t b[PROXY_MAX + 64], body[PROXY_BODY_MAX + 1] = { 0 };
	struct proxy_hdr h;
	size_t need, n;
	char why[128];

	/* Not the signature, from its first byte or its last. */
	n = hdr4(b, 1, 2, 3, 4, 5);
	b[0] = 'P';
	cr_expect_eq(proxy_decode(b, n, &h, &need, why, sizeof why), PROXY_BROKEN);
	cr_expect(strstr(why, "signature"), "%s", why);
	n = hdr4(b, 1, 2, 3, 4, 5);
	b[11] = 0x0b;
	cr_expect_eq(dec(b, 11, &h, &need), PROXY_MORE);
	cr_expect_eq(dec(b, 12, &h, &need), PROXY_BROKEN);
	/* Version 1 or 3 in the binary form, a command 2..15. */
	for (unsigned vc = 0; vc < 256; vc++) {
		n = hdr(b, (uint8_t)vc, 0x11, body, 12);
		int want = vc == 0x20 || vc == 0x21 ? PROXY_DONE : PROXY_BROKEN;
		cr_expect_eq(dec(b, n, &h, &need), want, "version/command 0x%02x", vc);
	}
	/* Every family byte: only UNSPEC, TCP4, TCP6 and a Unix stream pass (given room for each). */
	for (unsigned f = 0; f < 256; f++) {
		n = hdr(b, 0x21, (uint8_t)f, body, 216);
		int want = f == 0x00 || f == 0x11 || f == 0x21 || f == 0x31 ? PROXY_DONE : PROXY_BROKEN;
		cr_expect_eq(dec(b, n, &h, &need), want, "family 0x%02x", f);
	}
	/* Address blocks too short for their family. */
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x11, body, 11), &h, &need), PROXY_BROKEN);
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x21, body, 35), &h, &need), PROXY_BROKEN);
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x31, body, 215), &h, &need), PROXY_BROKEN);
	/* Longer than the cap: refused from the 16 bytes alone, never waited for. At the cap
	 * (the addresses and one TLV filling the rest): taken. */
	body[12] = 0x04;
	body[13] = (uint8_t)((PROXY_BODY_MAX - 15) >> 8);
	body[14] = (uint8_t)(PROXY_BODY_MAX - 15);
	n = hdr(b, 0x21, 0x11, body, PROXY_BODY_MAX);
	cr_expect_eq(dec(b, n, &h, &need), PROXY_DONE);
	b[14] = (uint8_t)((PROXY_BODY_MAX + 1) >> 8);
	b[15] = (uint8_t)(PROXY_BODY_MAX + 1);
	cr_expect_eq(proxy_decode(b, 16, &h, &need, why, sizeof why), PROXY_BROKEN);
	cr_expect(strstr(why, "more than"), "%s", why);
	b[14] = b[15] = 0xff;
	cr_expect_eq(dec(b, 16, &h, &need), PROXY_BROKEN);
	/* TLVs that run past the end, or a byte or two of one. */
	uint8_t t1[12 + 3] = { [12] = 0x04, [13] = 0, [14] = 1 };
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x11, t1, sizeof t1), &h, &need), PROXY_BROKEN);
	uint8_t t2[12 + 2] = { [12] = 0x04 };
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x11, t2, sizeof t2), &h, &need), PROXY_BROKEN);
	uint8_t t3[12 + 4] = { [12] = 0x04, [13] = 0xff, [14] = 0xff };
	cr_expect_eq(dec(b, hdr(b, 0x21, 0x11, t3, sizeof t3), &h, &need), PROXY_BROKEN);
}

Test(proxy, version_1_lines)
{
	struct proxy_hdr h;
	size_t need;
	const char *l = "PROXY TCP4 192.0.2.7 198.51.100.1 56324 7727\r\nHELLO";
	size_t n = strlen(l) - 5;

	cr_assert_eq(dec((const uint8_t *)l, strlen(l), &h, &need), PROXY_DONE);
	cr_expect_eq(h.len, n);
	cr_expect(h.has_addr);
	cr_expect_eq(h.src[12], 192);
	cr_expect_eq(h.src[15], 7);
	cr_expect_eq(h.src_port, 56324);
	/* Byte by byte: one more each time, never past the CRLF. */
	for (size_t k = 0; k < n; k++) {
		cr_expect_eq(dec((const uint8_t *)l, k, &h, &need), PROXY_MORE, "prefix %zu", k);
		cr_expect_eq(need, k + 1);
	}
	l = "PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n";
	cr_assert_eq(dec((const uint8_t *)l, strlen(l), &h, &need), PROXY_DONE);
	cr_expect_eq(h.src[0], 0x20);
	cr_expect_eq(h.src[15], 1);
	l = "PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n";
	cr_assert_eq(dec((const uint8_t *)l, strlen(l), &h, &need), PROXY_DONE);
	cr_expect(!h.has_addr);
	const char *bad[] = {
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", "PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n", "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n", "PROXY TCP4 ::1 5.6.7.8 1 2\r\n", "PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
		"PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n", "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n", "PROXY TCP4 1.2.3.4\t5.6.7.8 1 2\r\n", "PROXY UNKNOWN\x01\r\n",
		"PROXY TCP6 fe80::1%lo ::1 1 2\r\n", "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n", "PROXYTCP4\r\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		/* Broken at the latest when whole: a reader that fed the prefixes sees the same. */
		int rc = dec((const uint8_t *)bad[i], strlen(bad[i]), &h, &need);
		cr_expect(rc == PROXY_BROKEN || (rc == PROXY_MORE && bad[i][strlen(bad[i]) - 2] != '\r'), "'%s' taken", bad[i]);
	}
	/* No CRLF within 107 bytes. */
	char longl[200];
	memset(longl, 'x', sizeof longl);
	memcpy(longl, "PROXY UNKNOWN ", 14);
	cr_expect_eq(dec((const uint8_t *)longl, 106, &h, &need), PROXY_MORE);
	cr_expect_eq(dec((const uint8_t *)longl, 107, &h, &need), PROXY_BROKEN);
	longl[105] = '\r';
	longl[106] = '\n';
	cr_expect_eq(dec((const uint8_t *)longl, 107, &h, &need), PROXY_DONE);
}

/* Random bytes behind a real signature: never more than asked for, never past the cap, a
 * header done only when whole. */
Test(proxy, random_headers_stay_in_bounds)
{
	uint8_t b[PROXY_MAX + 16];
	struct proxy_hdr h;
	size_t need;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 200000; i++) {
		size_t n = 12;
		memcpy(b, sig, 12);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[12] = (uint8_t)(x & 1 ? 0x21 : x >> 8);
		b[13] = (uint8_t)(x >> 16 & 1 ? 0x11 : x >> 24);
		b[14] = (uint8_t)(x >> 32 & 3);
		b[15] = (uint8_t)(x >> 40);
		for (size_t k = 16; k < sizeof b; k++)
			b[k] = (uint8_t)(x >> (k % 56));
		n = 16 + (size_t)(x >> 50) % (PROXY_MAX - 15);
		int rc = dec(b, n, &h, &need);
		cr_assert(rc == PROXY_DONE || rc == PROXY_MORE || rc == PROXY_BROKEN);
		cr_assert_leq(need, PROXY_MAX);
		if (rc == PROXY_MORE)
			cr_assert_gt(need, n);
		if (rc == PROXY_DONE)
			cr_assert_leq(h.len, n);
	}
}

Test(proxy, trusted_proxy_blocks)
{
	struct proxy_cidr c[4];
	char why[128];
	uint8_t a[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 20, [14] = 30, [15] = 40 };

	cr_assert(proxy_cidr_parse("10.20.0.0/16", &c[0], why, sizeof why), "%s", why);
	cr_expect(proxy_cidr_match(c, 1, a));
	a[13] = 21;
	cr_expect(!proxy_cidr_match(c, 1, a));
	cr_assert(proxy_cidr_parse("10.21.30.40", &c[1], why, sizeof why));
	cr_expect(proxy_cidr_match(c, 2, a));
	cr_assert(proxy_cidr_parse("2001:db8::/32", &c[2], why, sizeof why));
	uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 1, 2, 3 };
	cr_expect(proxy_cidr_match(&c[2], 1, v6));
	v6[3] = 0xb9;
	cr_expect(!proxy_cidr_match(&c[2], 1, v6));
	/* An IPv4 block never matches an IPv6 address outside ::ffff:0:0/96. */
	cr_assert(proxy_cidr_parse("0.0.0.0/0", &c[3], why, sizeof why));
	cr_expect(!proxy_cidr_match(&c[3], 1, v6));
	cr_expect(proxy_cidr_match(&c[3], 1, a));
	cr_assert(proxy_cidr_parse("::/0", &c[3], why, sizeof why));
	cr_expect(proxy_cidr_match(&c[3], 1, v6));
	cr_assert(proxy_cidr_parse("11.0.0.0/7", &c[3], why, sizeof why) == false); /* a host bit past /7 */
	const char *bad[] = { "", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.0/8x",
		              "::1/129", "fe80::1%lo", "10.0.0.256", "example.org", "10.0.0.0/1234",
		              "1.2.3.4/32/1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect(!proxy_cidr_parse(bad[i], &c[3], why, sizeof why), "'%s' taken", bad[i]);
}

/* ---- A real server on loopback ---- */

static bool
welcomed(void *ud)
{
	struct raw *r = ud;
	return r->count[WIRE_WELCOME] > 0 || r->closed;
}

static bool
closed(void *ud)
{
	struct raw *r = ud;
	return r->closed;
}

static void
proxy_setup(struct th *t, struct server_config *c, bool trust)
{
	static struct proxy_cidr lo;
	char why[64];

	th_init(t);
	th_config(c);
	c->multi = true;
	c->lim.proxy_ms = 300;
	cr_assert(proxy_cidr_parse("127.0.0.1", &lo, why, sizeof why));
	if (trust) {
		c->trusted = &lo;
		c->ntrusted = 1;
	}
	th_server(t, c);
}

/* The server's one connection in the handshake or joined. */
/* The address a conn's log lines name: its peer field, up to " key=FP" once the client proved its key. */
static bool
peer_is(const struct conn *c, const char *addr)
{
	size_t n = strlen(addr);
	return strncmp(c->peer, addr, n) == 0 && (c->peer[n] == '\0' || strncmp(c->peer + n, " key=", 5) == 0);
}

static struct conn *
only_conn(struct th *t)
{
	cr_assert_not_null(t->srv->conns);
	return t->srv->conns;
}

Test(proxy, a_trusted_proxys_client_is_the_peer_even_byte_by_byte)
{
	struct th t;
	struct server_config c;
	static struct raw r;
	uint8_t b[64];
	size_t n = hdr4(b, 10, 1, 2, 3, 4567);

	proxy_setup(&t, &c, true);
	raw_start(&t, &r);
	while (!r.connected)
		uv_run(&t.loop, UV_RUN_ONCE);
	/* One byte a write: the server reads no further than the header asks, and the bytes
	 * after it (the HELLO) reach the handshake whole. */
	for (size_t i = 0; i < n; i++) {
		raw_send(&r, b + i, 1);
		for (int k = 0; k < 3; k++)
			uv_run(&t.loop, UV_RUN_NOWAIT);
		usleep(1000);
	}
	raw_join(&r, "behind", "room1");
	th_run(&t, 5000, welcomed, &r);
	cr_assert_eq(r.count[WIRE_WELCOME], 1, "not joined (%d errors: %s)", r.nerrors, r.last_error.u.error.text);
	struct conn *sc = only_conn(&t);
	cr_expect(peer_is(sc, "10.1.2.3:4567"), "%s", sc->peer);
	cr_expect_eq(sc->addr->addr[12], 10);
	cr_expect_eq(sc->addr->addr[15], 3);
	cr_expect_eq(t.srv->m.proxied, 1);
	cr_expect_eq(t.srv->m.welcomed, 1);
	raw_close(&r);
	th_finish(&t);
}

Test(proxy, a_trusted_proxys_v1_line_names_the_client)
{
	struct th t;
	struct server_config c;
	static struct raw r;
	const char *l = "PROXY TCP4 10.9.8.7 127.0.0.1 4000 7727\r\n";

	proxy_setup(&t, &c, true);
	raw_start(&t, &r);
	raw_send(&r, l, strlen(l));
	raw_join(&r, "nginxed", "room1");
	th_run(&t, 5000, welcomed, &r);
	cr_assert_eq(r.count[WIRE_WELCOME], 1, "not joined (%d errors: %s)", r.nerrors, r.last_error.u.error.text);
	cr_expect(peer_is(only_conn(&t), "10.9.8.7:4000"), "%s", only_conn(&t)->peer);
	cr_expect_eq(t.srv->m.proxied, 1);
	raw_close(&r);
	th_finish(&t);
}

Test(proxy, a_local_header_keeps_the_proxys_own_address)
{
	struct th t;
	struct server_config c;
	static struct raw r;
	uint8_t b[64];

	proxy_setup(&t, &c, true);
	raw_start(&t, &r);
	raw_send(&r, b, hdr(b, 0x20, 0x00, NULL, 0));
	raw_join(&r, "check", "room1");
	th_run(&t, 5000, welcomed, &r);
	cr_assert_eq(r.count[WIRE_WELCOME], 1);
	cr_expect_eq(strncmp(only_conn(&t)->peer, "127.0.0.1:", 10), 0, "%s", only_conn(&t)->peer);
	cr_expect_eq(t.srv->m.proxied, 0);
	raw_close(&r);
	th_finish(&t);
}

Test(proxy, a_trusted_proxy_must_send_the_header_whole_and_in_time)
{
	struct th t;
	struct server_config c;
	static struct raw r1, r2, r3;
	uint8_t b[64];

	proxy_setup(&t, &c, true);
	/* No header at all: the HELLO is not a header. */
	raw_start(&t, &r1);
	raw_hello(&r1);
	th_run(&t, 5000, closed, &r1);
	cr_expect_eq(r1.last_error.u.error.code, PERR_STATE, "%s", r1.last_error.u.error.text);
	/* Half a header, then silence: dropped at proxy_ms, not at the handshake's 10 s. */
	raw_start(&t, &r2);
	raw_send(&r2, b, hdr4(b, 1, 2, 3, 4, 5) - 4);
	uint64_t t0 = uv_now(&t.loop);
	th_run(&t, 5000, closed, &r2);
	cr_expect_eq(r2.last_error.u.error.code, PERR_TIMEOUT, "%s", r2.last_error.u.error.text);
	cr_expect_lt(uv_now(&t.loop) - t0, 2000);
	/* A UDP header on a stream. */
	raw_start(&t, &r3);
	uint8_t body[12] = { 0 };
	raw_send(&r3, b, hdr(b, 0x21, 0x12, body, 12));
	th_run(&t, 5000, closed, &r3);
	cr_expect_eq(r3.last_error.u.error.code, PERR_STATE);
	cr_expect_eq(t.srv->m.failed[METRICS_FAIL_PROXY], 3);
	cr_expect_eq(t.srv->m.proxied, 0);
	th_finish(&t);
}

Test(proxy, a_header_from_anyone_else_is_a_bad_handshake)
{
	struct th t;
	struct server_config c;
	static struct raw r;
	uint8_t b[64];

	proxy_setup(&t, &c, false);
	raw_start(&t, &r);
	raw_send(&r, b, hdr4(b, 10, 1, 2, 3, 4567));
	raw_hello(&r);
	th_run(&t, 5000, closed, &r);
	cr_expect_eq(r.count[WIRE_WELCOME], 0);
	cr_expect_eq(r.last_error.u.error.code, PERR_STATE);
	cr_expect(strstr(r.last_error.u.error.text, "not a trusted proxy"), "%s", r.last_error.u.error.text);
	cr_expect_eq(t.srv->m.failed[METRICS_FAIL_PROXY], 1);
	th_finish(&t);
}
