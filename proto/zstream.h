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

/* What the protocol uses: level 9, a 32 KiB window, memLevel 8. */
#define ZSTREAM_PARAMS_DEFAULT ((struct zstream_params){ 9, 15, 8 })

struct zstream {
	/* private */
	int mode;
	struct zstream_params par;
	bool tx_on, rx_on;   /* zlib state allocated, lazily, at the first frame */
	/* A failure left that direction's stream out of step: close the connection. Two flags:
	 * a peer's bad deflate data breaks only what we read, so the fatal ERROR that says
	 * so can still be deflated and sent. */
	bool tx_broken, rx_broken;
	z_stream tx, rx;
	uint8_t txbuf[PROTO_FRAME_MAX + 64]; /* STREAM: a frame's deflate output, before its tail is cut */
};

void zstream_init(struct zstream *z, int mode, struct zstream_params par);
void zstream_finish(struct zstream *z);

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
