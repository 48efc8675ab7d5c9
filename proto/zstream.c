/* SPDX-License-Identifier: MIT */
/* zstream: raw deflate per connection (sync-flushed frames) or per frame, inflation bounded. */
#include <stdlib.h>

#include "internal.h"
#include "zstream.h"

static const uint8_t sync_tail[4] = { 0x00, 0x00, 0xff, 0xff };

void
zdeflater_init(struct zdeflater *d, struct zstream_params par)
{
	d->par = par;
	d->serials = d->frames = d->restarts = 0;
	for (int i = 0; i < ZDEFLATER_SLOTS; i++)
		d->slot[i] = (struct zdeflater_slot){ .on = false };
}

/* The slot holding stream `serial`'s state, or NULL. */
static struct zdeflater_slot *
slot_of(struct zdeflater *d, uint64_t serial)
{
	for (int i = 0; serial && i < ZDEFLATER_SLOTS; i++)
		if (d->slot[i].user == serial)
			return &d->slot[i];
	return NULL;
}

void
zdeflater_finish(struct zdeflater *d)
{
	if (!d)
		return;
	for (int i = 0; i < ZDEFLATER_SLOTS; i++) {
		if (d->slot[i].on)
			deflateEnd(&d->slot[i].s);
		d->slot[i].on = false;
		d->slot[i].user = 0;
	}
}

void
zstream_init(struct zstream *z, int mode, struct zstream_params par)
{
	memset(z, 0, sizeof *z);
	z->mode = mode;
	z->par = par;
}

void
zstream_share(struct zstream *z, struct zdeflater *d)
{
	if (!z->dz)
		z->dz = d;
}

void
zstream_forget(struct zstream *z)
{
	if (z->dz_own)
		return; /* its own deflater holds the window, and costs the same either way */
	free(z->hist);
	z->hist = NULL;
	z->hist_len = z->hist_cap = 0;
	struct zdeflater_slot *k = z->dz ? slot_of(z->dz, z->serial) : NULL;
	if (k)
		k->user = 0;
}

void
zstream_finish(struct zstream *z)
{
	if (!z)
		return;
	if (z->dz_own) {
		zdeflater_finish(z->dz);
		free(z->dz);
	} else if (z->dz) {
		struct zdeflater_slot *k = slot_of(z->dz, z->serial);
		if (k)
			k->user = 0;
	}
	z->dz = NULL;
	z->dz_own = false;
	free(z->hist);
	z->hist = NULL;
	z->hist_len = z->hist_cap = 0;
	if (z->rx_on)
		inflateEnd(&z->rx);
	z->rx_on = false;
}

/* The deflater's slot for this stream, its zlib state made: the slot the stream left, or
 * else (an unused one first, then) the one used longest ago, reset, with this stream's
 * history as its dictionary. NULL on failure. */
static struct zdeflater_slot *
tx_start(struct zstream *z, struct proto_err *e)
{
	struct zdeflater *d;
	struct zdeflater_slot *k;
	int rc;

	if (!z->dz) {
		if ((z->dz = malloc(sizeof *z->dz)) == NULL) {
			proto__fail(e, PERR_NOMEM, "deflate: no memory");
			return NULL;
		}
		zdeflater_init(z->dz, z->par);
		z->dz_own = true;
	}
	d = z->dz;
	if (z->serial == 0)
		z->serial = ++d->serials;
	d->frames++;
	if ((k = slot_of(d, z->serial)) != NULL) {
		k->used = d->frames;
		return k;
	}
	/* A state made and free (FRAME mode leaves it so) before any other: a deflater of
	 * one stream never makes a second. */
	k = &d->slot[0];
	for (int i = 1; i < ZDEFLATER_SLOTS; i++) {
		struct zdeflater_slot *c = &d->slot[i];
		bool c_free = c->on && c->user == 0, k_free = k->on && k->user == 0;
		if (c_free != k_free ? c_free : c->used < k->used)
			k = c;
	}
	if (!k->on) {
		memset(&k->s, 0, sizeof k->s);
		rc = deflateInit2(&k->s, d->par.level, Z_DEFLATED, -d->par.wbits, d->par.memlevel, Z_DEFAULT_STRATEGY);
		if (rc != Z_OK) {
			proto__fail(e, rc == Z_MEM_ERROR ? PERR_NOMEM : PERR_ZLIB, "deflateInit2: %d", rc);
			return NULL;
		}
		k->on = true;
	} else if ((rc = deflateReset(&k->s)) != Z_OK) {
		k->user = 0;
		proto__fail(e, PERR_ZLIB, "deflateReset: %d", rc);
		return NULL;
	}
	k->user = 0;
	k->used = d->frames;
	d->restarts++;
	/* Only the history's last (window - 261) bytes: zlib refers at most its window less
	 * MIN_LOOKAHEAD (262) bytes back (deflate.h's MAX_DIST), and the window's first
	 * position is its "no match" (NIL), so the older bytes never change a byte of the
	 * output, while a whole window's dictionary makes zlib clear its hash table a second
	 * time (deflateReset has just done it): 0.85x the instructions of a restart with a
	 * full history. Any inflater reads the result (a deflater may always refer less far
	 * back); tests/proto/test_zstream.c checks that it is the bytes of a stream never
	 * restarted. */
	size_t reach = ((size_t)1 << d->par.wbits) - 261, dict = z->hist_len < reach ? z->hist_len : reach;
	if (z->mode == ZSTREAM_STREAM && dict > 0 &&
	    (rc = deflateSetDictionary(&k->s, z->hist + z->hist_len - dict, (uInt)dict)) != Z_OK) {
		proto__fail(e, PERR_ZLIB, "deflateSetDictionary: %d", rc);
		return NULL;
	}
	k->user = z->serial;
	return k;
}

/* Keep the last window's worth of what this stream deflated (a shared deflater only:
 * its own keeps the window itself), in a buffer grown as it fills. */
static int
remember(struct zstream *z, const uint8_t *in, size_t n, struct proto_err *e)
{
	size_t w = (size_t)1 << z->dz->par.wbits, keep, cap;

	if (z->dz_own)
		return 0;
	if (n >= w) {
		in += n - w;
		n = w;
	}
	keep = z->hist_len + n > w ? w - n : z->hist_len;
	if (keep + n > z->hist_cap) {
		uint8_t *p;
		for (cap = z->hist_cap ? z->hist_cap : 256; cap < keep + n; cap *= 2)
			;
		if (cap > w)
			cap = w;
		if ((p = realloc(z->hist, cap)) == NULL)
			return proto__fail(e, PERR_NOMEM, "deflate: no memory for the history");
		z->hist = p;
		z->hist_cap = cap;
	}
	memmove(z->hist, z->hist + z->hist_len - keep, keep);
	memcpy(z->hist + keep, in, n);
	z->hist_len = keep + n;
	return 0;
}

static int
rx_start(struct zstream *z, struct proto_err *e)
{
	int rc;

	if (z->rx_on)
		return 0;
	memset(&z->rx, 0, sizeof z->rx);
	rc = inflateInit2(&z->rx, -15);
	if (rc != Z_OK)
		return proto__fail(e, rc == Z_MEM_ERROR ? PERR_NOMEM : PERR_ZLIB, "inflateInit2: %d", rc);
	z->rx_on = true;
	return 0;
}

int
zstream_deflate(struct zstream *z, const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                size_t *outlen, struct proto_err *e)
{
	struct zdeflater *d;
	struct zdeflater_slot *k;
	size_t total;
	int rc;

	if (z->tx_broken)
		return proto__fail(e, PERR_ZLIB, "deflate: stream already broken");
	if (n > PROTO_PAYLOAD_MAX || cap > UINT32_MAX)
		return proto__fail(e, PERR_TOO_BIG, "deflate: %zu bytes", n);
	if ((k = tx_start(z, e)) == NULL) {
		z->tx_broken = z->mode == ZSTREAM_STREAM;
		return PROTO_BROKEN;
	}
	d = z->dz;
	k->s.next_in = (Bytef *)(uintptr_t)in;
	k->s.avail_in = (uInt)n;
	if (z->mode == ZSTREAM_FRAME) {
		k->s.next_out = out;
		k->s.avail_out = (uInt)cap;
		rc = deflate(&k->s, Z_FINISH);
		*outlen = cap - k->s.avail_out;
		k->user = 0; /* every frame starts afresh */
		if (rc != Z_STREAM_END)
			return proto__fail(e, rc == Z_OK || rc == Z_BUF_ERROR ? PERR_BUFFER : PERR_ZLIB,
			                   "deflate: %d", rc);
		return 0;
	}
	/* STREAM: one call flushes everything when there is room enough, which a
	 * scratch buffer a little over the largest frame guarantees for any frame
	 * that may be sent at all. The 4-byte tail of the flush is not sent. */
	k->s.next_out = d->out;
	k->s.avail_out = (uInt)sizeof d->out;
	rc = deflate(&k->s, Z_SYNC_FLUSH);
	if (rc != Z_OK || k->s.avail_in != 0 || k->s.avail_out == 0) {
		z->tx_broken = true;
		k->user = 0;
		return proto__fail(e, rc == Z_OK ? PERR_TOO_BIG : PERR_ZLIB, "deflate: %d, frame over %d bytes", rc,
		                   PROTO_FRAME_MAX);
	}
	total = sizeof d->out - k->s.avail_out;
	if (total < sizeof sync_tail || memcmp(d->out + total - sizeof sync_tail, sync_tail, sizeof sync_tail)) {
		z->tx_broken = true;
		k->user = 0;
		return proto__fail(e, PERR_ZLIB, "deflate: no sync tail");
	}
	total -= sizeof sync_tail;
	if (total > cap || remember(z, in, n, e) < 0) {
		z->tx_broken = true;
		k->user = 0;
		return total > cap ? proto__fail(e, PERR_BUFFER, "deflate: %zu bytes for %zu", total, cap) : PROTO_BROKEN;
	}
	memcpy(out, d->out, total);
	*outlen = total;
	return 0;
}

int
zstream_inflate(struct zstream *z, const uint8_t *in, size_t n, uint8_t *out, size_t limit,
                size_t *outlen, struct proto_err *e)
{
	size_t got;
	int rc;

	if (z->rx_broken)
		return proto__fail(e, PERR_ZLIB, "inflate: stream already broken");
	if (n > UINT32_MAX || limit > UINT32_MAX)
		return proto__fail(e, PERR_TOO_BIG, "inflate: %zu bytes", n);
	if (rx_start(z, e) < 0)
		return PROTO_BROKEN;
	z->rx.next_out = out;
	z->rx.avail_out = (uInt)limit;
	if (z->mode == ZSTREAM_FRAME) {
		inflateReset(&z->rx);
		z->rx.next_in = (Bytef *)(uintptr_t)in;
		z->rx.avail_in = (uInt)n;
		rc = inflate(&z->rx, Z_FINISH);
		if (rc == Z_STREAM_END && z->rx.avail_in == 0) {
			*outlen = limit - z->rx.avail_out;
			return 0;
		}
		if (rc == Z_STREAM_END)
			return proto__fail(e, PERR_ZLIB, "inflate: %u bytes after the end", z->rx.avail_in);
		if (z->rx.avail_out == 0 && (rc == Z_OK || rc == Z_BUF_ERROR))
			return proto__fail(e, PERR_INFLATE_LIMIT, "inflate: more than %zu bytes", limit);
		return proto__fail(e, PERR_ZLIB, "inflate: %d%s", rc,
		                   rc == Z_BUF_ERROR || rc == Z_OK ? " (cut short)" : "");
	}
	/* STREAM: the frame, then the tail the sender left off. */
	for (int part = 0; part < 2; part++) {
		z->rx.next_in = part ? (Bytef *)(uintptr_t)sync_tail : (Bytef *)(uintptr_t)in;
		z->rx.avail_in = part ? (uInt)sizeof sync_tail : (uInt)n;
		while (z->rx.avail_in > 0) {
			rc = inflate(&z->rx, Z_BLOCK);
			if (rc == Z_STREAM_END) {
				z->rx_broken = true;
				return proto__fail(e, PERR_ZLIB, "inflate: the peer ended its stream");
			}
			if (rc == Z_BUF_ERROR) {
				/* No progress with input left: only a full output does that. */
				z->rx_broken = true;
				return proto__fail(e, PERR_INFLATE_LIMIT, "inflate: more than %zu bytes", limit);
			}
			if (rc != Z_OK) {
				z->rx_broken = true;
				return proto__fail(e, PERR_ZLIB, "inflate: %d (%s)", rc, z->rx.msg ? z->rx.msg : "?");
			}
		}
	}
	/* Nothing may remain: everything up to the flush point is out, and the
	 * inflater waits, byte-aligned, at the start of the next block: with
	 * Z_BLOCK, zlib reports that as data_type 128 (no bits left over, not in
	 * a last block). */
	got = limit - z->rx.avail_out;
	if (z->rx.avail_in != 0 || z->rx.data_type != 128) {
		z->rx_broken = true;
		return proto__fail(e, PERR_ZLIB, "inflate: frame does not end at a flush point");
	}
	if (z->rx.avail_out == 0) {
		uint8_t probe;

		z->rx.next_out = &probe;
		z->rx.avail_out = 1;
		inflate(&z->rx, Z_BLOCK);
		if (z->rx.avail_out == 0) {
			z->rx_broken = true;
			return proto__fail(e, PERR_INFLATE_LIMIT, "inflate: more than %zu bytes", limit);
		}
		z->rx.avail_out = 0;
	}
	*outlen = got;
	return 0;
}
