/* SPDX-License-Identifier: MIT */
/* frame: headers, whole-frame parsing and the bounded stream reader. */
#include "frame.h"
#include "internal.h"

int
frame_header(uint8_t out[PROTO_HEADER_MAX], int type, bool deflated, size_t len)
{
	if (type < 1 || type > 0x7f || len > PROTO_FRAME_MAX)
		return -1;
	out[0] = (uint8_t)(type | (deflated ? FRAME_DEFLATED : 0));
	if (len < 0x80) {
		out[1] = (uint8_t)len;
		return 2;
	}
	out[1] = (uint8_t)(0x80 | (len & 0x7f));
	out[2] = (uint8_t)(len >> 7);
	return 3;
}

int
frame_parse_header(const uint8_t *buf, size_t len, struct frame *f, size_t *hdrlen, struct proto_err *e)
{
	size_t plen;

	if (len < 2)
		return PROTO_MORE;
	if ((buf[0] & 0x7f) == 0)
		return proto__fail(e, PERR_TYPE, "frame: type 0x%02x", buf[0]);
	if (buf[1] & 0x80) {
		if (len < 3)
			return PROTO_MORE;
		if (buf[2] & 0x80)
			return proto__fail(e, PERR_FRAME_SIZE, "frame: length over %d", PROTO_FRAME_MAX);
		if (buf[2] == 0)
			return proto__fail(e, PERR_VARINT, "frame: length not in shortest form");
		plen = (size_t)(buf[1] & 0x7f) | (size_t)buf[2] << 7;
		*hdrlen = 3;
	} else {
		plen = buf[1];
		*hdrlen = 2;
	}
	f->type = buf[0] & 0x7f;
	f->deflated = (buf[0] & FRAME_DEFLATED) != 0;
	f->len = plen;
	f->payload = NULL;
	return PROTO_DONE;
}

int
frame_parse(const uint8_t *buf, size_t len, struct frame *f, size_t *used, struct proto_err *e)
{
	size_t hdr;
	int rc = frame_parse_header(buf, len, f, &hdr, e);

	if (rc != PROTO_DONE)
		return rc;
	if (len - hdr < f->len)
		return PROTO_MORE;
	f->payload = buf + hdr;
	*used = hdr + f->len;
	return PROTO_DONE;
}

void
frame_reader_init(struct frame_reader *r)
{
	r->start = r->end = 0;
}

static void
compact(struct frame_reader *r)
{
	if (r->start == 0)
		return;
	memmove(r->buf, r->buf + r->start, r->end - r->start);
	r->end -= r->start;
	r->start = 0;
}

uint8_t *
frame_reader_space(struct frame_reader *r, size_t *n)
{
	compact(r);
	*n = sizeof r->buf - r->end;
	return r->buf + r->end;
}

void
frame_reader_commit(struct frame_reader *r, size_t n)
{
	if (n > sizeof r->buf - r->end)
		n = sizeof r->buf - r->end; /* never past the buffer, whatever the caller says */
	r->end += n;
}

size_t
frame_reader_feed(struct frame_reader *r, const uint8_t *p, size_t n)
{
	size_t room;
	uint8_t *dst = frame_reader_space(r, &room);

	if (n > room)
		n = room;
	memcpy(dst, p, n);
	r->end += n;
	return n;
}

int
frame_reader_peek(const struct frame_reader *r, struct frame *f, struct proto_err *e)
{
	size_t hdr;

	return frame_parse_header(r->buf + r->start, r->end - r->start, f, &hdr, e);
}

int
frame_reader_next(struct frame_reader *r, struct frame *f, struct proto_err *e)
{
	size_t used;
	int rc = frame_parse(r->buf + r->start, r->end - r->start, f, &used, e);

	if (rc != PROTO_DONE)
		return rc;
	r->start += used;
	if (r->start == r->end)
		r->start = r->end = 0;
	return PROTO_DONE;
}

size_t
frame_reader_buffered(const struct frame_reader *r)
{
	return r->end - r->start;
}
