/* SPDX-License-Identifier: MIT */
/* proxy: a strict, bounded decoder of the PROXY protocol header, v2 (binary) and v1 (text) (haproxy's proxy-protocol.txt), and the trusted-proxy address list. */
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

static const char v1_sig[6] = { 'P', 'R', 'O', 'X', 'Y', ' ' };

static bool
prefix_of(const uint8_t *p, size_t n, const void *whole, size_t len)
{
	return n > 0 && memcmp(p, whole, n < len ? n : len) == 0;
}

bool
proxy_looks_like(const uint8_t *p, size_t n)
{
	return prefix_of(p, n, sig, sizeof sig) || prefix_of(p, n, v1_sig, sizeof v1_sig);
}

/* A port of a v1 line: 0 to 65535 in decimal, no sign, no leading zero. */
static bool
v1_port(const char *s, uint16_t *out)
{
	unsigned long v = 0;

	if (s[0] == '\0' || strlen(s) > 5 || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

/*
 * Version 1, the text form (haproxy's proxy-protocol.txt, 2.1; what nginx's stream module
 * sends): "PROXY TCP4|TCP6 SRC DST SPORT DPORT\r\n" with single spaces, or "PROXY UNKNOWN" and
 * anything up to the CRLF; 107 bytes at most. Its length is known only at its end, so more is
 * asked for a byte at a time: a reader never takes a byte past the CRLF.
 */
#define V1_MAX 107

static int
decode_v1(const uint8_t *p, size_t n, struct proxy_hdr *h, size_t *need, char *why, size_t whylen)
{
	char line[V1_MAX + 1], *f[7];
	const uint8_t *cr = NULL;
	int nf = 0;

	for (size_t i = 0; i + 1 < n && i + 1 < V1_MAX; i++)
		if (p[i] == '\r' && p[i + 1] == '\n') {
			cr = p + i;
			break;
		}
	if (cr == NULL) {
		if (n >= V1_MAX) {
			snprintf(why, whylen, "PROXY v1 line: no CRLF within %d bytes", V1_MAX);
			return PROXY_BROKEN;
		}
		for (size_t i = 0; i < n; i++)
			if (p[i] < 0x20 && !(p[i] == '\r' && i + 1 == n)) {
				snprintf(why, whylen, "PROXY v1 line: a control byte");
				return PROXY_BROKEN;
			}
		*need = n + 1;
		return PROXY_MORE;
	}
	size_t len = (size_t)(cr - p);
	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x20) {
			snprintf(why, whylen, "PROXY v1 line: a control byte");
			return PROXY_BROKEN;
		}
	memcpy(line, p, len);
	line[len] = '\0';
	h->len = len + 2;
	*need = h->len;
	if (strncmp(line, "PROXY UNKNOWN", 13) == 0)
		return PROXY_DONE; /* the proxy could not tell: its own address stays */
	for (char *s = line; nf < 7; nf++) {
		f[nf] = s;
		if ((s = strchr(s, ' ')) == NULL) {
			nf++;
			break;
		}
		*s++ = '\0';
	}
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	uint16_t sport, dport;
	bool v4 = nf == 6 && strcmp(f[1], "TCP4") == 0, v6 = nf == 6 && strcmp(f[1], "TCP6") == 0;
	if (!(v4 || v6) || !v1_port(f[4], &sport) || !v1_port(f[5], &dport) ||
	    (v4 && (uv_ip4_addr(f[2], 0, &a4) != 0 || uv_ip4_addr(f[3], 0, &a4) != 0 || strchr(f[2], ':'))) ||
	    (v6 && (uv_ip6_addr(f[3], 0, &a6) != 0 || uv_ip6_addr(f[2], 0, &a6) != 0 || strchr(f[2], '%') ||
	            strchr(f[3], '%')))) {
		snprintf(why, whylen, "PROXY v1 line: not 'PROXY TCP4|TCP6 SRC DST SPORT DPORT' nor 'PROXY UNKNOWN'");
		return PROXY_BROKEN;
	}
	h->has_addr = true;
	h->src_port = sport;
	if (v4) {
		uv_ip4_addr(f[2], 0, &a4);
		h->src[10] = h->src[11] = 0xff;
		memcpy(h->src + 12, &a4.sin_addr, 4);
	} else {
		memcpy(h->src, &a6.sin6_addr, 16);
	}
	return PROXY_DONE;
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
	/* Nothing yet: one byte says which version (v1's shortest line is 15 bytes, shorter than
	 * v2's fixed part, so 16 may not be asked for before the first byte is known). */
	if (n == 0) {
		*need = 1;
		return PROXY_MORE;
	}
	if (prefix_of(p, n, v1_sig, sizeof v1_sig)) {
		if (n < sizeof v1_sig) {
			*need = n + 1;
			return PROXY_MORE;
		}
		return decode_v1(p, n, h, need, why, whylen);
	}
	if (!prefix_of(p, n, sig, sizeof sig)) {
		snprintf(why, whylen, "not a PROXY protocol header (bad signature)");
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
