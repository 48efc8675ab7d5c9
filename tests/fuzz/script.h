/* SPDX-License-Identifier: MIT */
/* script: one fuzz input as a script of bytes for the peers of one connection (as curl-fuzzer does). */
#ifndef WW_FUZZ_SCRIPT_H
#define WW_FUZZ_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz.h"
#include "pconn.h"

/*
 * Input: a flags byte, then records.
 *
 * The flags say how far the harness takes each connection before the script starts, with real
 * pconn ends and the real Noise handshake (so the fuzzer reaches what is behind the encryption):
 *   0                  nothing: the script's bytes are the clear handshake (HELLO, CHALLENGE);
 *   SCRIPT_SECURE      the handshake is done (the peer's key checked) but nobody joined: the
 *                      script speaks inside the channel before the join (AUTH, RESUME, WELCOME);
 *   SCRIPT_JOIN        handshake and join (AUTH then WELCOME): the script starts in the lobby.
 *   SCRIPT_IDENT       (fuzz_server, with SCRIPT_SECURE) the handshake and IDENT, a key for each
 *                      peer: the script speaks where AUTH, ROOMS_ASK or QUICK may come, and a
 *                      wave of quick pairing runs after each record.
 *
 * Each record is [tag][len][len bytes]: the bytes go to peer (tag & 1). Once that peer's channel
 * is secure they are the plaintext of one record, sealed with its transport key (a 2-byte length,
 * then ChaCha20-Poly1305), unless tag & SCRIPT_RAW, which sends them as they are (a clear frame,
 * a forged or cut record). With tag & SCRIPT_MORE the bytes wait and open the peer's next sealed
 * record, so that a record may carry frames longer than one script record (up to PCONN_RECORD_MAX).
 * The peer is then closed when tag & 2, and the loop turns 1 + (tag >> 2 & 7) times before the
 * next record. A record cut short sends what there is.
 */
#define SCRIPT_JOIN 1
#define SCRIPT_SECURE 2
#define SCRIPT_IDENT 4
#define SCRIPT_RAW 0x20
#define SCRIPT_MORE 0x40

struct script_rec {
	int peer;
	int close;
	int turns;
	int raw;
	int more;
	const uint8_t *bytes;
	size_t len;
};

/* The next record at *pos; 0 when the input is used up. */
static inline int
script_next(const uint8_t *data, size_t size, size_t *pos, struct script_rec *r)
{
	size_t n;
	uint8_t tag;

	if (*pos + 2 > size)
		return 0;
	tag = data[*pos];
	r->peer = tag & 1;
	r->close = (tag & 2) != 0;
	r->turns = 1 + (tag >> 2 & 7);
	r->raw = (tag & SCRIPT_RAW) != 0;
	r->more = (tag & SCRIPT_MORE) != 0;
	n = data[*pos + 1];
	*pos += 2;
	if (n > size - *pos)
		n = size - *pos;
	r->bytes = data + *pos;
	r->len = n;
	*pos += n;
	return 1;
}

/*
 * The harness's end of one TCP connection: a real pconn (the client's for fuzz_server, the
 * server's with its identity for fuzz_client) that does the handshake, decodes all that comes
 * (until it breaks; then what comes is drained unread, so the other side never blocks), and
 * seals the script's bytes into records with its transport key.
 */
struct script_peer {
	int fd;                       /* -1: closed */
	struct pconn pc;
	int count[128];               /* messages got, by type */
	size_t nmore;                 /* plaintext waiting for the next record (SCRIPT_MORE) */
	uint8_t more[PCONN_RECORD_MAX];
	uint8_t out[PCONN_FRAME_MAX];
	struct wire_msg in;
};

static inline void
script_peer_init(struct script_peer *p, int fd, int side)
{
	p->fd = fd;
	pconn_init(&p->pc, side);
	memset(p->count, 0, sizeof p->count);
	p->nmore = 0;
}

static inline void
script_peer_finish(struct script_peer *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	pconn_finish(&p->pc);
}

/* Write all of it, or what the socket takes: the rest is lost, as on a real link. */
static inline void
script_put(int fd, const uint8_t *b, size_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, b, n);
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

/* Read what came (the socket is non-blocking) and decode it. */
static inline void
script_peer_read(struct script_peer *p)
{
	uint8_t buf[16384];
	ssize_t got;

	while (p->fd >= 0 && (got = read(p->fd, buf, sizeof buf)) > 0) {
		const uint8_t *b = buf;
		size_t n = (size_t)got;

		while (n > 0 && !p->pc.broken) {
			size_t k = pconn_feed(&p->pc, b, n);
			b += k;
			n -= k;
			while (pconn_next(&p->pc, &p->in, NULL) == PROTO_DONE)
				p->count[p->in.type & 0x7f]++;
		}
	}
}

/* A message through the channel (the harness's own part of the handshake). */
static inline void
script_peer_msg(struct script_peer *p, const struct wire_msg *m)
{
	struct proto_err e;
	size_t len;

	if (pconn_send(&p->pc, m, p->out, sizeof p->out, &len, &e) != 0) {
		fprintf(stderr, "script: %s: %s\n", wire_name(m->type), e.why);
		abort();
	}
	script_put(p->fd, p->out, len);
}

/* One script record: sealed once the channel is secure (as raw_sealed does in tests/server), else as it is. */
static inline void
script_peer_send(struct script_peer *p, const struct script_rec *r)
{
	size_t n = r->len;

	if (r->raw || !p->pc.secure) {
		script_put(p->fd, r->bytes, r->len);
		return;
	}
	if (n > sizeof p->more - p->nmore)
		n = sizeof p->more - p->nmore;
	memcpy(p->more + p->nmore, r->bytes, n);
	p->nmore += n;
	if (r->more)
		return;
	/* Padded with zeros to its class, as every record is (protocol 6): past the length check. */
	size_t padded = pconn_padded(p->nmore);
	memset(p->more + p->nmore, 0, padded - p->nmore);
	p->out[0] = (uint8_t)((padded + NOISE_TAG_LEN) >> 8);
	p->out[1] = (uint8_t)(padded + NOISE_TAG_LEN);
	FUZZ_CHECK(noise_seal(&p->pc.tx, p->more, padded, p->out + 2) == 0);
	script_put(p->fd, p->out, 2 + padded + NOISE_TAG_LEN);
	p->nmore = 0;
}

#endif
