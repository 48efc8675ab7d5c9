/* SPDX-License-Identifier: MIT */
/* proxy: a strict, bounded decoder of the PROXY protocol v2 header (haproxy's proxy-protocol.txt, 2.2) and the trusted-proxy address list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "proxy.h"

static const uint8_t sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

/* Family and transport (byte 13): what each means to a TCP server. The address block must be
 * at least `min` bytes; `tcp` rows carry a client address we use, the others (UNSPEC, a Unix
 * socket) leave the proxy's own address in place, as the spec asks of a receiver that cannot
 * use them. Datagram rows are absent: a stream from a proxy that says UDP is broken. */
struct fam_row {
	uint8_t fam;
	uint16_t min;
	bool tcp;
	const char *name;
};
static const struct fam_row fams[] = {
	{ 0x00, 0, false, "UNSPEC" },
	{ 0x11, 12, true, "TCP over IPv4" },
	{ 0x21, 36, true, "TCP over IPv6" },
	{ 0x31, 216, false, "a Unix stream socket" },
};

bool
proxy_looks_like(const uint8_t *p, size_t n)
{
	return n > 0 && memcmp(p, sig, n < sizeof sig ? n : sizeof sig) == 0;
}

/* The TLVs after the address block: each whole (type, 16-bit length, value) and nothing left
 * over. Their values are not used; their framing must still be right, or the header is broken. */
static bool
tlvs_ok(const uint8_t *p, size_t n)
{
	while (n > 0) {
		if (n < 3)
			return false;
		size_t l = (size_t)p[1] << 8 | p[2];
		if (l > n - 3)
			return false;
		p += 3 + l;
		n -= 3 + l;
	}
	return true;
}

int
proxy_decode(const uint8_t *p, size_t n, struct proxy_hdr *h, size_t *need, char *why, size_t whylen)
{
	size_t body;
	const struct fam_row *f = NULL;

	memset(h, 0, sizeof *h);
	*need = PROXY_HDR_LEN;
	if (n == 0)
		return PROXY_MORE;
	if (!proxy_looks_like(p, n)) {
		snprintf(why, whylen, "not a PROXY protocol v2 header (bad signature)");
		return PROXY_BROKEN;
	}
	if (n < PROXY_HDR_LEN)
		return PROXY_MORE;
	if (p[12] >> 4 != 2) {
		snprintf(why, whylen, "PROXY header: version %u, not 2", p[12] >> 4);
		return PROXY_BROKEN;
	}
	if ((p[12] & 0x0f) > 1) {
		snprintf(why, whylen, "PROXY header: unknown command %u", p[12] & 0x0f);
		return PROXY_BROKEN;
	}
	body = (size_t)p[14] << 8 | p[15];
	if (body > PROXY_BODY_MAX) {
		snprintf(why, whylen, "PROXY header: %zu bytes of addresses and TLVs, more than %d", body, PROXY_BODY_MAX);
		return PROXY_BROKEN;
	}
	*need = PROXY_HDR_LEN + body;
	if (n < *need)
		return PROXY_MORE;
	h->len = *need;
	/* LOCAL: the proxy speaks for itself (a health check); the spec has the receiver ignore the
	 * family and skip the block. */
	if ((p[12] & 0x0f) == 0) {
		h->local = true;
		return PROXY_DONE;
	}
	for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
		if (fams[i].fam == p[13])
			f = &fams[i];
	if (f == NULL) {
		snprintf(why, whylen, "PROXY header: family and transport 0x%02x are not TCP", p[13]);
		return PROXY_BROKEN;
	}
	if (body < f->min) {
		snprintf(why, whylen, "PROXY header: %zu bytes for %s, which needs %u", body, f->name, f->min);
		return PROXY_BROKEN;
	}
	if (!tlvs_ok(p + PROXY_HDR_LEN + f->min, body - f->min)) {
		snprintf(why, whylen, "PROXY header: a TLV runs past the header's end");
		return PROXY_BROKEN;
	}
	if (!f->tcp)
		return PROXY_DONE;
	h->has_addr = true;
	if (p[13] == 0x11) {
		h->src[10] = h->src[11] = 0xff;
		memcpy(h->src + 12, p + 16, 4);
		h->src_port = (uint16_t)(p[24] << 8 | p[25]);
	} else {
		memcpy(h->src, p + 16, 16);
		h->src_port = (uint16_t)(p[48] << 8 | p[49]);
	}
	return PROXY_DONE;
}

bool
proxy_cidr_parse(const char *s, struct proxy_cidr *out, char *why, size_t whylen)
{
	char host[64];
	const char *slash = strchr(s, '/');
	size_t hl = slash ? (size_t)(slash - s) : strlen(s);
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	unsigned max, bits;

	memset(out, 0, sizeof *out);
	if (hl == 0 || hl >= sizeof host) {
		snprintf(why, whylen, "'%s' is not an address or ADDRESS/BITS", s);
		return false;
	}
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (uv_ip4_addr(host, 0, &a4) == 0 && strchr(host, ':') == NULL) {
		out->addr[10] = out->addr[11] = 0xff;
		memcpy(out->addr + 12, &a4.sin_addr, 4);
		max = 32;
	} else if (uv_ip6_addr(host, 0, &a6) == 0 && strchr(host, '%') == NULL) {
		memcpy(out->addr, &a6.sin6_addr, 16);
		max = 128;
	} else {
		snprintf(why, whylen, "'%s' is not an IPv4 or IPv6 address", host);
		return false;
	}
	bits = max;
	if (slash) {
		const char *d = slash + 1;
		if (*d == '\0' || strlen(d) > 3 || (d[0] == '0' && d[1] != '\0')) {
			snprintf(why, whylen, "'%s': the prefix length must be 0 to %u", s, max);
			return false;
		}
		bits = 0;
		for (; *d; d++) {
			if (*d < '0' || *d > '9') {
				snprintf(why, whylen, "'%s': the prefix length must be 0 to %u", s, max);
				return false;
			}
			bits = bits * 10 + (unsigned)(*d - '0');
		}
		if (bits > max) {
			snprintf(why, whylen, "'%s': the prefix length must be 0 to %u", s, max);
			return false;
		}
	}
	out->bits = bits + (128 - max);
	for (unsigned i = out->bits; i < 128; i++)
		if (out->addr[i / 8] & (0x80 >> (i % 8))) {
			snprintf(why, whylen, "'%s': bits set past the /%u prefix", s, bits);
			return false;
		}
	return true;
}

bool
proxy_cidr_match(const struct proxy_cidr *list, unsigned n, const uint8_t addr[16])
{
	for (unsigned k = 0; k < n; k++) {
		const struct proxy_cidr *c = &list[k];
		unsigned full = c->bits / 8, rest = c->bits % 8;
		if (memcmp(c->addr, addr, full) != 0)
			continue;
		if (rest && ((c->addr[full] ^ addr[full]) & (0xff00 >> rest) & 0xff))
			continue;
		return true;
	}
	return false;
}
