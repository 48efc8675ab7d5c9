/* SPDX-License-Identifier: MIT */
/* frame: the framing of the byte stream (type, length, payload) and a bounded reader for TCP bytes. */
#ifndef WW_FRAME_H
#define WW_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/*
 * A frame is
 *   type     1 byte: the message type (0x01..0x7f) | 0x80 when the payload is deflated
 *   length   the payload's length as a 1 or 2 byte LEB128 varint, shortest form,
 *            at most PROTO_FRAME_MAX (16383)
 *   payload  length bytes
 * This header is frozen across protocol versions.
 */
#define FRAME_DEFLATED 0x80

struct frame {
	uint8_t type;            /* without FRAME_DEFLATED */
	bool deflated;
	size_t len;              /* payload bytes */
	const uint8_t *payload;  /* into the buffer parsed; valid until that buffer changes */
};

/* Write a header into out (PROTO_HEADER_MAX bytes). Returns its length, or -1
 * for a type outside 1..127 or a length over PROTO_FRAME_MAX. */
int frame_header(uint8_t out[PROTO_HEADER_MAX], int type, bool deflated, size_t len);

/* Parse the header at the front of buf: PROTO_DONE (f's type, deflated, len set;
 * *hdrlen its size), PROTO_MORE, or PROTO_BROKEN. */
int frame_parse_header(const uint8_t *buf, size_t len, struct frame *f, size_t *hdrlen, struct proto_err *e);

/* Parse a whole frame at the front of buf; *used = header + payload. */
int frame_parse(const uint8_t *buf, size_t len, struct frame *f, size_t *used, struct proto_err *e);

/* Accumulates TCP bytes and cuts them into frames. It never holds more than one
 * largest frame: a peer that sends more without it being taken out waits. */
struct frame_reader {
	/* private */
	size_t start, end; /* buffered bytes are buf[start..end) */
	uint8_t buf[PROTO_HEADER_MAX + PROTO_FRAME_MAX];
};

void frame_reader_init(struct frame_reader *r);
/* Copy in up to n bytes; returns how many were taken (fewer only when the buffer
 * is full: take frames out with frame_reader_next(), then feed the rest). */
size_t frame_reader_feed(struct frame_reader *r, const uint8_t *p, size_t n);
/* Free space to receive into directly (for a libuv alloc callback), then commit. */
uint8_t *frame_reader_space(struct frame_reader *r, size_t *n);
void frame_reader_commit(struct frame_reader *r, size_t n);
/* The header of the next frame, as soon as it is in, before its payload. */
int frame_reader_peek(const struct frame_reader *r, struct frame *f, struct proto_err *e);
/* The next whole frame: PROTO_DONE (f->payload points into the reader and stays
 * valid until the next call on it), PROTO_MORE or PROTO_BROKEN. */
int frame_reader_next(struct frame_reader *r, struct frame *f, struct proto_err *e);
size_t frame_reader_buffered(const struct frame_reader *r);

#endif
