/* SPDX-License-Identifier: MIT */
/* proxy: a strict, bounded decoder of the PROXY protocol header, v2 (binary) and v1 (text) (haproxy's proxy-protocol.txt), and the trusted-proxy address list. */
#ifndef WW_SERVER_PROXY_H
#define WW_SERVER_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fixed part: the 12-byte signature, version and command, family and protocol, and the
 * length of what follows. */
#define PROXY_HDR_LEN 16
/* What may follow it, at most: the largest address block (two AF_UNIX paths, 216 bytes) and
 * room for the TLVs a proxy adds (haproxy's unique id, SSL facts, a CRC); a longer header is
 * refused rather than buffered. */
#define PROXY_BODY_MAX 512
#define PROXY_MAX (PROXY_HDR_LEN + PROXY_BODY_MAX)
/* Trusted proxies at most (--trusted-proxy given more often is refused). */
#define PROXY_TRUSTED_MAX 32

/* The decoder's three answers (style.md, 9). */
enum { PROXY_BROKEN = -1, PROXY_MORE = 0, PROXY_DONE = 1 };

struct proxy_hdr {
	bool local;          /* the LOCAL command (a proxy's own health check): keep the real peer */
	bool has_addr;       /* a PROXY command over TCP/IPv4 or TCP/IPv6: src is the client */
	uint8_t src[16];     /* the client's address, IPv4 mapped into IPv6 form (::ffff:a.b.c.d) */
	uint16_t src_port;
	size_t len;          /* the whole header's length in bytes */
};

/*
 * Decode the header at the start of p (n bytes read so far). PROXY_DONE: *h filled, the header
 * is h->len bytes; PROXY_MORE: *need is how many bytes in all are needed before it can say
 * more (v2: 16, then the whole header; v1: one more, until its CRLF; a reader never has to
 * read past it); PROXY_BROKEN: why says what is wrong. Nothing but the header is looked at.
 */
int proxy_decode(const uint8_t *p, size_t n, struct proxy_hdr *h, size_t *need, char *why, size_t whylen);

/* Whether the first bytes (n of them, any n) may be the start of a header (v2 or v1):
 * what a server says to a peer it does not trust that sends one. */
bool proxy_looks_like(const uint8_t *p, size_t n);

/* An address block: IPv4 mapped into IPv6 form, and how many leading bits must match. */
struct proxy_cidr {
	uint8_t addr[16];
	unsigned bits;       /* 0..128 (an IPv4 /n is stored as /96+n) */
};

/* "1.2.3.4", "1.2.3.0/24", "::1", "2001:db8::/32": true and *out, or false with why (host bits
 * set beyond the prefix are refused: "10.0.0.1/8" is most likely a typing error). */
bool proxy_cidr_parse(const char *s, struct proxy_cidr *out, char *why, size_t whylen);
/* addr (16 bytes, IPv4 mapped) is in one of the n blocks. */
bool proxy_cidr_match(const struct proxy_cidr *list, unsigned n, const uint8_t addr[16]);

#endif
