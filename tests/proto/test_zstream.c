/* SPDX-License-Identifier: MIT */
/* Tests for zstream: both modes round trip, inflation is bounded, and bad or cut deflate data is refused. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "zstream.h"

static uint8_t in[70000], out[70000], back[70000];

static size_t
sample(int i, struct rng *r)
{
	size_t n = 1 + rng_below(r, i % 5 == 0 ? 5000 : 200);

	for (size_t k = 0; k < n; k++)
		in[k] = i % 3 ? (uint8_t)"abcabcabd"[(k + (size_t)i) % 9] : (uint8_t)rng_next(r);
	return n;
}

static void
roundtrip_mode(int mode)
{
	struct zstream tx, rx;
	struct rng r;

	zstream_init(&tx, mode, ZSTREAM_PARAMS_DEFAULT);
	zstream_init(&rx, mode, ZSTREAM_PARAMS_DEFAULT);
	rng_seed(&r, 7);
	for (int i = 0; i < 300; i++) {
		size_t n = sample(i, &r), z, m;
		struct proto_err e = { 0 };

		cr_assert_eq(zstream_deflate(&tx, in, n, out, sizeof out, &z, &e), 0, "%s", e.why);
		cr_assert_eq(zstream_inflate(&rx, out, z, back, n, &m, &e), 0, "frame %d: %s", i, e.why);
		cr_assert_eq(m, n);
		cr_assert(memcmp(in, back, n) == 0);
	}
	zstream_finish(&tx);
	zstream_finish(&rx);
}

Test(zstream, stream_round_trip)
{
	roundtrip_mode(ZSTREAM_STREAM);
}

Test(zstream, frame_round_trip)
{
	roundtrip_mode(ZSTREAM_FRAME);
}

Test(zstream, stream_refers_back)
{
	struct zstream tx;
	size_t z1, z2;

	memset(in, 0, 200);
	for (int i = 0; i < 200; i++)
		in[i] = (uint8_t)(i * 7 + i / 3);
	zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 200, out, sizeof out, &z1, NULL), 0);
	cr_assert_eq(zstream_deflate(&tx, in, 200, out, sizeof out, &z2, NULL), 0);
	cr_assert_lt(z2, z1 / 4, "the second copy is a back-reference (%zu then %zu)", z1, z2);
	zstream_finish(&tx);
}

static void
bomb(int mode)
{
	struct zstream tx, rx;
	struct proto_err e;
	size_t z, m;

	memset(in, 'x', sizeof in);
	zstream_init(&tx, mode, ZSTREAM_PARAMS_DEFAULT);
	zstream_init(&rx, mode, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, PROTO_PAYLOAD_MAX, out, sizeof out, &z, NULL), 0);
	cr_assert_lt(z, 200);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, 1000, &m, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_INFLATE_LIMIT, "%s", e.why);
	/* Exactly the limit is fine. */
	zstream_finish(&rx);
	zstream_init(&rx, mode, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, PROTO_PAYLOAD_MAX, &m, &e), 0, "%s", e.why);
	cr_assert_eq(m, PROTO_PAYLOAD_MAX);
	zstream_finish(&tx);
	zstream_finish(&rx);
}

Test(zstream, inflation_is_bounded_stream)
{
	bomb(ZSTREAM_STREAM);
}

Test(zstream, inflation_is_bounded_frame)
{
	bomb(ZSTREAM_FRAME);
}

Test(zstream, limit_hit_exactly_at_a_boundary)
{
	struct zstream tx, rx;
	struct proto_err e;
	size_t z, m;

	/* 100 bytes out for a limit of 99: refused even when the input ends just there. */
	memset(in, 'q', 100);
	zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	zstream_init(&rx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 100, out, sizeof out, &z, NULL), 0);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, 99, &m, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_INFLATE_LIMIT);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, 1000, &m, &e), PROTO_BROKEN, "a broken stream stays broken");
	zstream_finish(&tx);
	zstream_finish(&rx);
}

Test(zstream, garbage_and_cut_data)
{
	struct zstream tx, rx;
	struct proto_err e;
	size_t z, m;
	const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0x12 };

	zstream_init(&rx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_inflate(&rx, junk, sizeof junk, back, 1000, &m, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_ZLIB);
	zstream_finish(&rx);

	/* A frame cut short does not end at a flush point. */
	for (int i = 0; i < 3000; i++)
		in[i] = (uint8_t)(i * i >> 3);
	zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 3000, out, sizeof out, &z, NULL), 0);
	for (size_t cut = 1; cut < z; cut += 1 + z / 40) {
		zstream_init(&rx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		cr_assert_eq(zstream_inflate(&rx, out, cut, back, sizeof back, &m, &e), PROTO_BROKEN, "cut at %zu of %zu", cut, z);
		zstream_finish(&rx);
	}
	zstream_finish(&tx);

	/* The peer may not end its stream (a final block). */
	zstream_init(&tx, ZSTREAM_FRAME, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 100, out, sizeof out, &z, NULL), 0);
	zstream_init(&rx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, sizeof back, &m, &e), PROTO_BROKEN);
	zstream_finish(&rx);
	/* Per frame: bytes after the end of the stream, and a stream without its end. */
	zstream_init(&rx, ZSTREAM_FRAME, ZSTREAM_PARAMS_DEFAULT);
	out[z] = 0;
	cr_assert_eq(zstream_inflate(&rx, out, z + 1, back, sizeof back, &m, &e), PROTO_BROKEN);
	cr_assert_eq(zstream_inflate(&rx, out, z - 1, back, sizeof back, &m, &e), PROTO_BROKEN);
	cr_assert_eq(zstream_inflate(&rx, out, z, back, sizeof back, &m, &e), 0, "a good frame after bad ones");
	cr_assert_eq(zstream_inflate(&rx, junk, sizeof junk, back, sizeof back, &m, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_ZLIB);
	zstream_finish(&rx);
	zstream_finish(&tx);
}

Test(zstream, deflate_into_too_small_a_buffer)
{
	struct zstream tx;
	struct rng r;
	struct proto_err e;
	size_t z;

	rng_seed(&r, 1);
	for (int i = 0; i < 1000; i++)
		in[i] = (uint8_t)rng_next(&r);
	zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 1000, out, 100, &z, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_BUFFER);
	cr_assert_eq(zstream_deflate(&tx, in, 10, out, sizeof out, &z, &e), PROTO_BROKEN, "the stream is out of step now");
	zstream_finish(&tx);
	zstream_init(&tx, ZSTREAM_FRAME, ZSTREAM_PARAMS_DEFAULT);
	cr_assert_eq(zstream_deflate(&tx, in, 1000, out, 100, &z, &e), PROTO_BROKEN);
	cr_assert_eq(zstream_deflate(&tx, in, 10, out, sizeof out, &z, &e), 0, "per frame, the next one is fine");
	cr_assert_eq(zstream_deflate(&tx, in, PROTO_PAYLOAD_MAX + 1, out, sizeof out, &z, &e), PROTO_BROKEN);
	zstream_finish(&tx);
	zstream_finish(NULL);
}

/* The tail a stream frame leaves off may itself straddle the end of the buffer. */
Test(zstream, tail_spills_past_cap)
{
	struct rng r;

	rng_seed(&r, 3);
	for (int i = 0; i < 500; i++)
		in[i] = (uint8_t)rng_next(&r);
	for (size_t cap = 495; cap < 520; cap++) {
		struct zstream tx, rx;
		struct proto_err e = { 0 };
		size_t z, m, full;
		int rc;

		zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		cr_assert_eq(zstream_deflate(&tx, in, 500, out, sizeof out, &full, NULL), 0);
		zstream_finish(&tx);
		zstream_init(&tx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		rc = zstream_deflate(&tx, in, 500, out, cap, &z, &e);
		if (cap >= full) {
			cr_assert_eq(rc, 0, "cap %zu, frame %zu: %s", cap, full, e.why);
			cr_assert_eq(z, full);
			zstream_init(&rx, ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
			cr_assert_eq(zstream_inflate(&rx, out, z, back, 500, &m, NULL), 0);
			cr_assert(m == 500 && memcmp(in, back, 500) == 0);
			zstream_finish(&rx);
		} else {
			cr_assert_eq(rc, PROTO_BROKEN, "cap %zu, frame %zu", cap, full);
		}
		zstream_finish(&tx);
	}
}

/* Three streams through one shared deflater, their frames interleaved as a server's
 * connections' are, each read by an inflater of its own with the full 32 KiB window:
 * every frame comes back exact, a repeat within the window still costs little after
 * the deflater served another stream in between, and a stream that forgot its history
 * goes on (the sender may restart with no dictionary at any flush point). */
Test(zstream, shared_deflater_keeps_each_stream_whole)
{
	struct zdeflater d;
	struct zstream tx[3], rx[3];
	struct rng r;
	size_t w = (size_t)1 << ZSTREAM_PARAMS_DEFAULT.wbits, z1, z2, m;

	zdeflater_init(&d, ZSTREAM_PARAMS_DEFAULT);
	for (int s = 0; s < 3; s++) {
		zstream_init(&tx[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		zstream_share(&tx[s], &d);
		zstream_init(&rx[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	}
	rng_seed(&r, 11);
	for (int i = 0; i < 600; i++) {
		int s = (int)rng_below(&r, 3);
		size_t n = sample(i, &r), z;
		struct proto_err e = { 0 };

		if (i == 300)
			zstream_forget(&tx[1]);
		cr_assert_eq(zstream_deflate(&tx[s], in, n, out, sizeof out, &z, &e), 0, "%s", e.why);
		cr_assert_eq(zstream_inflate(&rx[s], out, z, back, n, &m, &e), 0, "frame %d of stream %d: %s", i, s, e.why);
		cr_assert_eq(m, n);
		cr_assert(memcmp(in, back, n) == 0, "frame %d of stream %d", i, s);
		cr_assert_leq(tx[s].hist_len, w);
		cr_assert_leq(tx[s].hist_cap, w, "the history never grows past one window");
	}
	/* A 200-byte payload, another stream's frame, then the same payload again. */
	for (int i = 0; i < 200; i++)
		in[i] = (uint8_t)(i * 13 + i / 5);
	cr_assert_eq(zstream_deflate(&tx[0], in, 200, out, sizeof out, &z1, NULL), 0);
	cr_assert_eq(zstream_inflate(&rx[0], out, z1, back, 200, &m, NULL), 0);
	cr_assert_eq(zstream_deflate(&tx[2], in + 50, 100, out, sizeof out, &z2, NULL), 0);
	cr_assert_eq(zstream_inflate(&rx[2], out, z2, back, 100, &m, NULL), 0);
	cr_assert_eq(zstream_deflate(&tx[0], in, 200, out, sizeof out, &z2, NULL), 0);
	cr_assert_lt(z2, z1 / 4, "a back-reference through the dictionary (%zu then %zu)", z1, z2);
	cr_assert_eq(zstream_inflate(&rx[0], out, z2, back, 200, &m, NULL), 0);
	cr_assert(memcmp(in, back, 200) == 0);
	for (int s = 0; s < 3; s++) {
		zstream_finish(&tx[s]);
		zstream_finish(&rx[s]);
	}
	zdeflater_finish(&d);
}

/* A room's command sends its two players a frame each, one after the other: with the
 * server's one deflater, two streams taking turns restart none after their first frames
 * (each keeps a state of its own), while a third stream takes the state used longest ago
 * and its owner restarts from its history; every frame still comes back exact. */
Test(zstream, two_streams_taking_turns_restart_nothing)
{
	struct zdeflater d;
	struct zstream tx[3], rx[3];
	struct rng r;
	size_t z, m;

	zdeflater_init(&d, ZSTREAM_PARAMS_DEFAULT);
	for (int s = 0; s < 3; s++) {
		zstream_init(&tx[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		zstream_share(&tx[s], &d);
		zstream_init(&rx[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	}
	rng_seed(&r, 12);
	for (int i = 0; i < 400; i++) {
		int s = i < 300 ? i % 2 : i % 3;
		size_t n = sample(i, &r);
		struct proto_err e = { 0 };

		cr_assert_eq(zstream_deflate(&tx[s], in, n, out, sizeof out, &z, &e), 0, "%s", e.why);
		cr_assert_eq(zstream_inflate(&rx[s], out, z, back, n, &m, &e), 0, "frame %d of stream %d: %s", i, s, e.why);
		cr_assert(m == n && memcmp(in, back, n) == 0, "frame %d of stream %d", i, s);
		if (i == 299)
			cr_assert_eq(d.restarts, 2, "two streams in turn: %llu restarts", (unsigned long long)d.restarts);
	}
	cr_assert_gt(d.restarts, 50, "three streams in turn on two states restart");
	for (int s = 0; s < 3; s++) {
		zstream_finish(&tx[s]);
		zstream_finish(&rx[s]);
	}
	zdeflater_finish(&d);
}

/* A restart (deflateReset, then the stream's history as the dictionary, of which zlib needs
 * only the last window - 261 bytes) sends exactly the bytes of the same stream deflated
 * by a state of its own that never restarted: three streams on the server's two states,
 * taking turns at random, against three deflaters of their own. The data repeats with
 * periods around 1,787 bytes (the furthest zlib refers back in a 2 KiB window, and one
 * less and one more), text-like runs and random bytes, frames of 1 to 3,000 bytes. */
Test(zstream, a_restart_sends_the_bytes_of_a_stream_never_restarted)
{
	static uint8_t block[3][4096], out2[70000];
	struct zdeflater d;
	struct zstream tx[3], own[3];
	struct rng r;
	size_t at[3] = { 0, 0, 0 }, period[3] = { 1786, 1787, 1788 };

	if (strstr(zlibVersion(), "zlib-ng"))
		cr_skip_test("another deflate: its bytes are its own (the wire stays valid; examples.c skips too)");
	rng_seed(&r, 13);
	for (int s = 0; s < 3; s++)
		for (size_t k = 0; k < sizeof block[s]; k++)
			block[s][k] = k % 7 == 0 ? (uint8_t)rng_next(&r) : (uint8_t)"wizard duel "[k % 12];
	zdeflater_init(&d, ZSTREAM_PARAMS_DEFAULT);
	for (int s = 0; s < 3; s++) {
		zstream_init(&tx[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
		zstream_share(&tx[s], &d);
		zstream_init(&own[s], ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT);
	}
	for (int i = 0; i < 1500; i++) {
		int s = (int)rng_below(&r, 3);
		size_t n = 1 + rng_below(&r, i % 10 == 0 ? 3000 : 120), z1, z2;
		struct proto_err e = { 0 };

		if (i % 50 == 49)
			period[s] = 1786 + rng_below(&r, 3);
		for (size_t k = 0; k < n; k++, at[s]++)
			in[k] = block[s][at[s] % period[s]];
		cr_assert_eq(zstream_deflate(&tx[s], in, n, out, sizeof out, &z1, &e), 0, "%s", e.why);
		cr_assert_eq(zstream_deflate(&own[s], in, n, out2, sizeof out2, &z2, &e), 0, "%s", e.why);
		cr_assert(z1 == z2 && memcmp(out, out2, z1) == 0, "frame %d of stream %d (%zu bytes): %zu bytes restarted, %zu never",
		          i, s, n, z1, z2);
	}
	cr_assert_gt(d.restarts, 500, "the shared states restarted (%llu)", (unsigned long long)d.restarts);
	for (int s = 0; s < 3; s++) {
		zstream_finish(&tx[s]);
		zstream_finish(&own[s]);
	}
	zdeflater_finish(&d);
}
