/* SPDX-License-Identifier: MIT */
/* zstream: zlib deflate/inflate for frame payloads, with every inflation bounded. */
#ifndef WW_ZSTREAM_H
#define WW_ZSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "proto.h"

/*
 * Two ways to deflate frames; the protocol uses ZSTREAM_STREAM (docs/benchmarks.md
 * has the measurement that chose it), ZSTREAM_FRAME stays for that measurement.
 *   STREAM  one raw deflate stream per direction of a connection; every frame
 *           is flushed with Z_SYNC_FLUSH and the flush's 00 00 ff ff tail is
 *           not sent (the receiver appends it again, as RFC 7692 does). Later
 *           frames refer back to earlier ones, so a turn update costs little.
 *   FRAME   every frame is a complete raw deflate stream on its own.
 * Either way the data is raw deflate (RFC 1951): no zlib header or checksum;
 * TCP already checks the bytes and the decoders check every field.
 */
enum zstream_mode {
	ZSTREAM_STREAM = 0,
	ZSTREAM_FRAME = 1,
};

struct zstream_params {
	int level;     /* 1..9 */
	int wbits;     /* 9..15: the sender's window; the receiver always accepts 15 */
	int memlevel;  /* 1..9 */
};

/* What the reference sender uses: level 9, a 2 KiB window, memLevel 5. A duel's whole
 * stream is a few kilobytes: the small window costs 0.1% of a duel's bytes and keeps a
 * connection's history at 2 KiB (docs/benchmarks.md, "Memory per duel"). */
#define ZSTREAM_PARAMS_DEFAULT ((struct zstream_params){ 9, 11, 5 })

/*
 * A deflater: zlib's state and the scratch its output goes to. Streams may share one
 * (the server has one for all its connections; the loop runs one callback at a time).
 * In STREAM mode each stream keeps the last window's worth of bytes it deflated; a
 * deflater that last served another stream starts again from them (deflateReset, then
 * deflateSetDictionary): the peer's inflater holds those bytes in its window, so to it
 * the output is the same stream going on. So a connection costs its history (at most
 * one window, 2 KiB by default), not a deflate state of its own.
 *
 * It holds ZDEFLATER_SLOTS zlib states, each made at its first use, each left with the
 * stream it served last; a frame takes the state its stream left (no restart) or the one
 * used longest ago. A room's command sends both players a frame, one after the other:
 * with two states, a room played back to back restarts none, where one state restarted
 * for every frame (the restart, clearing the hash table and hashing the history in
 * again, cost more than deflating the frame: issue 29). Another 30 KiB for the server.
 */
#define ZDEFLATER_SLOTS 2

struct zdeflater_slot {
	bool on;               /* zlib state allocated, lazily, at its first frame */
	uint64_t user;         /* the serial of the stream its state belongs to; 0: none */
	uint64_t used;         /* when it last served a frame (the deflater's count of frames) */
	z_stream s;
};

struct zdeflater {
	/* private */
	struct zstream_params par;
	uint64_t serials;      /* streams that have used it */
	uint64_t frames;       /* frames it has deflated */
	uint64_t restarts;     /* states made or reset for another stream (read by the tests) */
	struct zdeflater_slot slot[ZDEFLATER_SLOTS];
	uint8_t out[PROTO_FRAME_MAX + 64]; /* STREAM: a frame's deflate output, before its tail is cut */
};

void zdeflater_init(struct zdeflater *d, struct zstream_params par);
void zdeflater_finish(struct zdeflater *d);

struct zstream {
	/* private */
	int mode;
	struct zstream_params par;
	bool rx_on;          /* zlib state allocated, lazily, at the first frame */
	/* A failure left that direction's stream out of step: close the connection. Two flags:
	 * a peer's bad deflate data breaks only what we read, so the fatal ERROR that says
	 * so can still be deflated and sent. */
	bool tx_broken, rx_broken;
	struct zdeflater *dz;  /* shared (zstream_share) or its own, made at the first frame */
	bool dz_own;
	uint64_t serial;       /* this stream's number with dz; 0 until its first frame */
	uint8_t *hist;         /* STREAM with a shared deflater: the last bytes deflated, at most a window */
	size_t hist_len, hist_cap;
	z_stream rx;
};

void zstream_init(struct zstream *z, int mode, struct zstream_params par);
void zstream_finish(struct zstream *z);
/* Deflate with d (not owned; it must outlive z) instead of a deflater of z's own. Before the first frame. */
void zstream_share(struct zstream *z, struct zdeflater *d);
/* Forget the history (a shared deflater's stream only): later frames refer back to
 * nothing before this point, which costs bytes but no memory. Always safe for the peer. */
void zstream_forget(struct zstream *z);

/* Deflate one frame's payload. 0 and *outlen, or PROTO_BROKEN (PERR_BUFFER when
 * cap is too small, PERR_NOMEM, PERR_ZLIB); after a failure in STREAM mode the
 * stream is out of step with the peer's and the connection must close. */
int zstream_deflate(struct zstream *z, const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                    size_t *outlen, struct proto_err *e);

/* Inflate one frame's payload into at most `limit` bytes: more is refused
 * (PERR_INFLATE_LIMIT), as is bad data (PERR_ZLIB) and data that does not end
 * exactly at a flush point (STREAM) or at the end of the stream (FRAME). */
int zstream_inflate(struct zstream *z, const uint8_t *in, size_t n, uint8_t *out, size_t limit,
                    size_t *outlen, struct proto_err *e);

#endif
