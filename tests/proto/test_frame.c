/* SPDX-License-Identifier: MIT */
/* Tests for frame: headers in their shortest form, limits, and the reader over any split of the byte stream. */
#include <criterion/criterion.h>

#include <string.h>

#include "frame.h"

Test(frame, header_forms)
{
	uint8_t h[PROTO_HEADER_MAX];

	cr_assert_eq(frame_header(h, 0x31, false, 1), 2);
	cr_assert(h[0] == 0x31 && h[1] == 0x01);
	cr_assert_eq(frame_header(h, 0x32, true, 127), 2);
	cr_assert(h[0] == 0xb2 && h[1] == 0x7f);
	cr_assert_eq(frame_header(h, 0x32, true, 128), 3);
	cr_assert(h[0] == 0xb2 && h[1] == 0x80 && h[2] == 0x01);
	cr_assert_eq(frame_header(h, 0x30, false, PROTO_FRAME_MAX), 3);
	cr_assert(h[1] == 0xff && h[2] == 0x7f);
	cr_assert_eq(frame_header(h, 0x30, false, PROTO_FRAME_MAX + 1), -1);
	cr_assert_eq(frame_header(h, 0, false, 0), -1);
	cr_assert_eq(frame_header(h, 0x80, false, 0), -1);
}

Test(frame, parse_every_length)
{
	static uint8_t buf[PROTO_HEADER_MAX + PROTO_FRAME_MAX];

	for (size_t len = 0; len <= PROTO_FRAME_MAX; len += (len < 300 ? 1 : 997)) {
		struct frame f;
		size_t used, hl = (size_t)frame_header(buf, 0x40, len & 1, len);

		memset(buf + hl, 0xab, len);
		cr_assert_eq(frame_parse(buf, hl + len, &f, &used, NULL), PROTO_DONE);
		cr_assert(f.type == 0x40 && f.deflated == (len & 1) && f.len == len && used == hl + len);
		cr_assert(f.payload == buf + hl);
		/* Every prefix asks for more. */
		for (size_t cut = 0; cut < hl + len; cut += 1 + cut / 4)
			cr_assert_eq(frame_parse(buf, cut, &f, &used, NULL), PROTO_MORE, "len %zu cut %zu", len, cut);
	}
}

Test(frame, broken_headers)
{
	struct frame f;
	struct proto_err e;
	size_t used;
	const uint8_t type0[] = { 0x00, 0x00 }, type80[] = { 0x80, 0x00 };
	const uint8_t long3[] = { 0x30, 0x80, 0x80, 0x01 };   /* a third varint byte: over the maximum */
	const uint8_t nonmin[] = { 0x30, 0x85, 0x00 };        /* 5 in two bytes */

	cr_assert_eq(frame_parse(type0, sizeof type0, &f, &used, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TYPE);
	cr_assert_eq(frame_parse(type80, sizeof type80, &f, &used, &e), PROTO_BROKEN);
	cr_assert_eq(frame_parse(long3, sizeof long3, &f, &used, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_FRAME_SIZE);
	cr_assert_eq(frame_parse(nonmin, sizeof nonmin, &f, &used, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_VARINT);
	cr_assert_eq(frame_parse(type0, sizeof type0, &f, &used, NULL), PROTO_BROKEN, "NULL error record is fine");
}

/* Three frames fed in pieces of every size come out whole and in order. */
Test(frame, reader_any_split)
{
	uint8_t stream[400];
	size_t n = 0;
	const size_t lens[3] = { 0, 130, 7 };

	for (int i = 0; i < 3; i++) {
		n += (size_t)frame_header(stream + n, 0x41 + i, false, lens[i]);
		for (size_t k = 0; k < lens[i]; k++)
			stream[n++] = (uint8_t)(i * 50 + k);
	}
	for (size_t piece = 1; piece <= n; piece++) {
		struct frame_reader *r = malloc(sizeof *r);
		int got = 0;

		frame_reader_init(r);
		for (size_t pos = 0; pos < n;) {
			size_t take = piece < n - pos ? piece : n - pos;
			struct frame f;

			cr_assert_eq(frame_reader_feed(r, stream + pos, take), take);
			pos += take;
			while (frame_reader_next(r, &f, NULL) == PROTO_DONE) {
				cr_assert_eq(f.type, 0x41 + got);
				cr_assert_eq(f.len, lens[got]);
				for (size_t k = 0; k < f.len; k++)
					cr_assert_eq(f.payload[k], (uint8_t)(got * 50 + k));
				got++;
			}
		}
		cr_assert_eq(got, 3, "piece %zu", piece);
		cr_assert_eq(frame_reader_buffered(r), 0);
		free(r);
	}
}

Test(frame, reader_cap_and_direct_receive)
{
	struct frame_reader *r = malloc(sizeof *r);
	static uint8_t big[2 * (PROTO_HEADER_MAX + PROTO_FRAME_MAX)];
	size_t hl = (size_t)frame_header(big, 0x32, true, PROTO_FRAME_MAX), total = hl + PROTO_FRAME_MAX, room;
	struct frame f;
	uint8_t *space;

	memset(big + hl, 0x5a, PROTO_FRAME_MAX);
	frame_header(big + total, 0x42, false, 0);
	frame_reader_init(r);
	/* The reader takes at most one largest frame; the rest waits for it to be taken out. */
	cr_assert_eq(frame_reader_feed(r, big, total + 2), total);
	cr_assert_eq(frame_reader_feed(r, big + total, 2), 0);
	cr_assert_eq(frame_reader_peek(r, &f, NULL), PROTO_DONE);
	cr_assert_eq(f.len, PROTO_FRAME_MAX);
	cr_assert_eq(frame_reader_next(r, &f, NULL), PROTO_DONE);
	cr_assert(f.deflated && f.len == PROTO_FRAME_MAX);
	space = frame_reader_space(r, &room);
	cr_assert_geq(room, 2);
	memcpy(space, big + total, 2);
	frame_reader_commit(r, 2);
	cr_assert_eq(frame_reader_next(r, &f, NULL), PROTO_DONE);
	cr_assert(f.type == 0x42 && f.len == 0);
	cr_assert_eq(frame_reader_next(r, &f, NULL), PROTO_MORE);
	/* A commit past the space is clamped, never written beyond. */
	frame_reader_space(r, &room);
	frame_reader_commit(r, room + 100);
	cr_assert_eq(frame_reader_buffered(r), room);
	free(r);
}
