/* SPDX-License-Identifier: MIT */
/* pconn: one end of a connection as a protocol state: frames, deflate after the join, messages in and out. No I/O. */
#ifndef WW_PCONN_H
#define WW_PCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "noise.h"
#include "proto.h"
#include "wire.h"
#include "zstream.h"

enum pconn_side {
	PCONN_CLIENT = 0,
	PCONN_SERVER = 1,
};

/* Payloads shorter than this go out as they are, even after the join. Under 8 bytes
 * (a heartbeat, a short PEER) deflate makes them longer; from 8 to 31 bytes (3 in 4 of
 * the frames it deflated) it saves 1 to 1.5% of a duel's bytes, for the deflater's whole
 * cost: with thousands of connections sharing one deflater nearly every frame restarts
 * it and builds its Huffman trees, some 46,000 instructions a frame (issue 29;
 * docs/benchmarks.md, "bench_proto"). Raw frames do not touch the stream. Only the
 * server deflates: a client never does (protocol 4; docs/protocol.md, "Compression"). */
#define PCONN_DEFLATE_MIN 32

/* How a connection compresses. The protocol is ZSTREAM_STREAM with the default
 * parameters, PCONN_DEFLATE_MIN and fit_raw; other settings exist so the benchmark can
 * measure them, and both ends must then use the same.
 *
 * fit_raw: a payload that fits raw in the padding its record pays for already (the
 * frames corked before it, or a record of its own: 240 bytes, pconn_pad_class) goes raw
 * too. Deflating it would not make the record, and so the bytes on the wire, one byte
 * shorter, and nearly every frame the shared deflater takes restarts it (a hash cleared,
 * a history hashed in, Huffman trees built: some 60,000 instructions; zlib was 8% of the
 * server's user-space samples at 5,000 duels; issue 29, docs/benchmarks.md). What still
 * goes deflated: frames that would spill into a larger padding class (a layout made
 * anew, the log at END). */
struct pconn_config {
	int zmode;                   /* enum zstream_mode */
	struct zstream_params zpar;
	size_t deflate_min;
	bool fit_raw;
};
#define PCONN_CONFIG_DEFAULT ((struct pconn_config){ ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT, PCONN_DEFLATE_MIN, true })

/*
 * A connection's life (docs/protocol.md, "Handshake" and "Encrypted records"):
 *   1. In clear: the client sends HELLO (versions + Noise message 1), the server
 *      answers CHALLENGE (versions + Noise message 2, which carries the server's
 *      static key and the password flag and salt encrypted). Only HELLO,
 *      CHALLENGE, and the server's ERROR or BYE ever cross in clear.
 *   2. From then on both directions are a sequence of records: a 2-byte
 *      big-endian length, then ChaCha20-Poly1305 of one or more whole frames,
 *      padded with zeros to one of PCONN_PAD_CLASSES sizes, with the Noise
 *      transport keys and counter nonces. A record begun must end in time
 *      (pconn_stalled, PROTO_RECORD_MS).
 *   3. WELCOME (inside) joins: from then on the server's frames may be deflated,
 *      except CHAT and LOBBY, which carry text a peer chose and never share the
 *      deflate stream with a player's secrets (CRIME). The client never deflates:
 *      the server holds no inflate state (protocol 4).
 * The client must check pconn_peer_key() against the fingerprint it trusts
 * before it sends anything inside: the handshake proves only that the peer
 * holds the private half of that key.
 */

/* The plaintext of one record: frames, at most one largest frame's worth. */
#define PCONN_RECORD_MAX (PROTO_HEADER_MAX + PROTO_FRAME_MAX)
/* A record on the wire: 2 length bytes, then the sealed plaintext and its tag. */
#define PCONN_RECORD_WIRE (2 + PCONN_RECORD_MAX + NOISE_TAG_LEN)

/* The sizes a record's plaintext may have (protocol 6): its frames, then zero bytes up to
 * the first of these that holds them, so that a record's length says which of a few
 * classes it is and nothing finer (what a command was, which spell: docs/protocol.md,
 * "Padding"). The first holds every record of a duel but a few; the last, one largest frame. */
#define PCONN_PAD_CLASSES 4
extern const uint16_t pconn_pad_class[PCONN_PAD_CLASSES];
/* The plaintext size a record of len bytes of frames is padded to; 0 past PCONN_RECORD_MAX. */
size_t pconn_padded(size_t len);

/* Working space for one call at a time: a message's payload before deflate or after
 * inflate, and the deflater. Every pconn of one thread may share one (the server: one
 * for all its connections, pconn_share); a pconn not given one makes its own. */
struct pconn_scratch {
	struct zdeflater dz;
	uint8_t buf[PROTO_PAYLOAD_MAX];
};

/* What the receive buffer starts at, and shrinks back to (it grows, up to one largest
 * record, only while a record that long is arriving). */
#define PCONN_RX_MIN 512

/* About 1 KiB while idle: the buffers below are allocated as they fill and
 * given back when they empty, so a connection holds memory for what is in it. */
struct pconn {
	/* read-only */
	int side;                 /* enum pconn_side */
	bool secure;              /* the handshake is done: records both ways */
	bool joined;              /* WELCOME sent (server) or received (client) */
	bool broken;              /* a decoding error happened: drop the peer */
	struct proto_err err;     /* the error that broke it */
	uint64_t bytes_in, bytes_out;     /* bytes on the wire, record and frame headers and tags included */
	uint64_t payload_in, payload_out; /* payload bytes before deflate / after inflate */
	uint64_t padding_out;     /* zero bytes of padding sealed (within bytes_out) */
	uint32_t frames_in, frames_out;
	uint32_t records_in, records_out;
	/* private */
	struct pconn_config cfg;
	bool has_id;
	struct noise_keypair id;  /* the server's static key */
	const uint8_t *e_fixed;   /* tests and examples only: a fixed ephemeral secret */
	struct noise_hs hs;
	struct noise_cipher tx, rx;
	bool corked;
	bool scr_own;
	struct pconn_scratch *scr; /* shared, or its own made at first need */
	uint8_t *rxb;             /* bytes from the peer: rxb[rx_start..rx_end) not yet taken */
	size_t rx_cap, rx_need;   /* rx_need: what the record or frame under way needs in all */
	size_t rx_start, rx_end;
	size_t pt, pt_pos, pt_len; /* the open record's frames, decrypted in place: rxb[pt + pt_pos .. pt + pt_len) */
	bool rx_open;             /* part of a record or clear frame is held (pconn_stalled) ... */
	uint32_t rx_mark;         /* ... since frames_in + records_in was this ... */
	uint64_t rx_since;        /* ... and this time */
	uint8_t *ob;              /* corked frames waiting for pconn_flush() */
	size_t ob_len, ob_cap;
	struct zstream z;
};

void pconn_init(struct pconn *c, int side);
void pconn_init_config(struct pconn *c, int side, const struct pconn_config *cfg);
void pconn_finish(struct pconn *c);
/* Scratch space several pconns may share (one thread). NULL when out of memory. */
struct pconn_scratch *pconn_scratch_new(const struct pconn_config *cfg);
void pconn_scratch_free(struct pconn_scratch *s);
/* Use s (not owned; it must outlive c) before the first message. */
void pconn_share(struct pconn *c, struct pconn_scratch *s);
/* Give back the deflate history (a shared deflater's): later frames refer back to nothing
 * sent before this point. For a quiet time, such as between duels; always safe for the peer. */
void pconn_forget(struct pconn *c);

/* The server's long-term key (before the first message; or again after HELLO and before
 * CHALLENGE, to answer under another key). Copied; wiped by pconn_finish. */
void pconn_set_identity(struct pconn *c, const struct noise_keypair *kp);
/* Tests and the document's examples: a fixed ephemeral secret (32 bytes, kept by reference). */
void pconn_set_ephemeral(struct pconn *c, const uint8_t *sk);
/* Once secure: the peer's static key (the client's view of the server; NULL on the
 * server) and the handshake hash both ends share, to bind proofs to this channel. */
const uint8_t *pconn_peer_key(const struct pconn *c);
const uint8_t *pconn_hash(const struct pconn *c);

/* Most bytes one call of pconn_send() or pconn_flush() may write. */
#define PCONN_FRAME_MAX (2 * PCONN_RECORD_WIRE)

/* Encode m as one frame (deflated when that is on). In clear (HELLO, CHALLENGE,
 * ERROR, BYE before the handshake is done) the frame goes to out as it is; once
 * secure it is sealed in a record, or, while corked, kept for pconn_flush().
 * 0 and *len (the bytes to write now, possibly 0), or PROTO_BROKEN: a message this
 * side may not send now (PERR_DIRECTION, PERR_STATE), a field the decoder would
 * refuse, or too big; nothing was sent and the connection can go on. A failure
 * inside deflate leaves the stream out of step: every later send then fails too,
 * and the connection must close. */
int pconn_send(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len,
               struct proto_err *e);
/* The same for a payload already encoded (wire_encode), once the peer has joined: what goes
 * alike to many peers is encoded once (a spectator's frame). Never deflated unless the type
 * may be; 0 and *len, or PROTO_BROKEN. */
int pconn_send_payload(struct pconn *c, int type, const uint8_t *payload, size_t plen, uint8_t *out, size_t cap,
                       size_t *len, struct proto_err *e);
/* Cork: keep frames to seal several in one record (one tag for all), until flush. */
void pconn_cork(struct pconn *c);
/* Seal what is kept into one record (nothing when nothing is) and uncork. 0 and *len, or PROTO_BROKEN. */
int pconn_flush(struct pconn *c, uint8_t *out, size_t cap, size_t *len, struct proto_err *e);

/* Bytes from the peer: copy in (returns how many were taken; call pconn_next()
 * until it says PROTO_MORE, then feed the rest), or receive straight into
 * pconn_space() and pconn_commit() them. */
size_t pconn_feed(struct pconn *c, const uint8_t *p, size_t n);
uint8_t *pconn_space(struct pconn *c, size_t *n);
void pconn_commit(struct pconn *c, size_t n);

/* The next message: PROTO_DONE (m filled), PROTO_MORE (wait for bytes) or
 * PROTO_BROKEN (e filled; drop the peer: every later call says the same).
 * A clear frame's header is judged as soon as it arrives (an unknown type, a wrong
 * direction or an oversized frame is refused before its payload is awaited), a
 * record's length likewise, and every frame inside a record is judged the same way.
 * On the client, a CHALLENGE that returns has been verified as Noise message 2:
 * check pconn_peer_key() before sending anything. */
int pconn_next(struct pconn *c, struct wire_msg *m, struct proto_err *e);

/* A record (or a clear frame) begun and not finished: call after pconn_next() said
 * PROTO_MORE and from a timer, with the time in ms. True when the one under way began
 * limit_ms ago or more (PROTO_RECORD_MS): the caller drops the link, since the peer's
 * later bytes, its heartbeats too, only go into a record that may never end. The clock
 * is the caller's: pconn does no I/O. */
bool pconn_stalled(struct pconn *c, uint64_t now, uint64_t limit_ms);

#endif
