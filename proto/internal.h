/* SPDX-License-Identifier: MIT */
/* proto internal: bounded byte writer and reader shared by the files of proto/, and the error helper. */
#ifndef WW_PROTO_INTERNAL_H
#define WW_PROTO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto.h"

#if defined(__GNUC__) || defined(__clang__)
#define PROTO__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROTO__PRINTF(f, a)
#endif

/* Set e->code and a formatted reason (e may be NULL). Returns PROTO_BROKEN. */
int proto__fail(struct proto_err *e, int code, const char *fmt, ...) PROTO__PRINTF(3, 4);

/*
 * A writer into a caller's buffer. Writing past the end sets `over` and writes
 * nothing more, so a sequence of puts needs one check at the end.
 */
struct proto__w {
	uint8_t *p;
	size_t len, cap;
	bool over;
};

static inline void
proto__w_init(struct proto__w *w, uint8_t *p, size_t cap)
{
	w->p = p;
	w->len = 0;
	w->cap = cap;
	w->over = false;
}

static inline void
proto__put(struct proto__w *w, const void *src, size_t n)
{
	if (w->over || n > w->cap - w->len) {
		w->over = true;
		return;
	}
	if (n)
		memcpy(w->p + w->len, src, n);
	w->len += n;
}

static inline void
proto__put_u8(struct proto__w *w, unsigned v)
{
	uint8_t b = (uint8_t)v;
	proto__put(w, &b, 1);
}

static inline void
proto__put_u16(struct proto__w *w, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	proto__put(w, b, 2);
}

static inline void
proto__put_u32(struct proto__w *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	proto__put(w, b, 4);
}

static inline void
proto__put_u64(struct proto__w *w, uint64_t v)
{
	proto__put_u32(w, (uint32_t)(v >> 32));
	proto__put_u32(w, (uint32_t)v);
}

/* LEB128: 7 bits a byte, least significant group first, high bit = more follows. */
static inline void
proto__put_var(struct proto__w *w, uint32_t v)
{
	uint8_t b[5];
	size_t n = 0;

	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	proto__put(w, b, n);
}

/* Length-prefixed (one byte) text; the caller has checked len <= 255. */
static inline void
proto__put_str8(struct proto__w *w, const char *s, size_t len)
{
	proto__put_u8(w, (unsigned)len);
	proto__put(w, s, len);
}

/* A reader over a received payload. Every get checks the bounds. */
struct proto__r {
	const uint8_t *p;
	size_t len, pos;
};

static inline void
proto__r_init(struct proto__r *r, const uint8_t *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
}

static inline size_t
proto__r_left(const struct proto__r *r)
{
	return r->len - r->pos;
}

static inline bool
proto__get(struct proto__r *r, void *dst, size_t n)
{
	if (n > r->len - r->pos)
		return false;
	if (n)
		memcpy(dst, r->p + r->pos, n);
	r->pos += n;
	return true;
}

static inline bool
proto__get_u8(struct proto__r *r, uint8_t *v)
{
	return proto__get(r, v, 1);
}

static inline bool
proto__get_u16(struct proto__r *r, uint16_t *v)
{
	uint8_t b[2];

	if (!proto__get(r, b, 2))
		return false;
	*v = (uint16_t)(b[0] << 8 | b[1]);
	return true;
}

static inline bool
proto__get_u32(struct proto__r *r, uint32_t *v)
{
	uint8_t b[4];

	if (!proto__get(r, b, 4))
		return false;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return true;
}

static inline bool
proto__get_u64(struct proto__r *r, uint64_t *v)
{
	uint32_t hi, lo;

	if (!proto__get_u32(r, &hi) || !proto__get_u32(r, &lo))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/*
 * A varint of at most 5 bytes and 32 bits, in its shortest form: a trailing
 * zero group (non-minimal) is refused, so every value has exactly one encoding.
 * Returns 1 done, 0 truncated, -1 malformed.
 */
static inline int
proto__get_var(struct proto__r *r, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 5; i++) {
		uint8_t b;

		if (!proto__get_u8(r, &b))
			return 0;
		if (i == 4 && (b & 0xf0))
			return -1;
		x |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i > 0 && b == 0)
				return -1;
			*v = x;
			return 1;
		}
	}
	return -1;
}

/* update.c: an update's encoding inside a larger payload (UPDATE, START). */
struct update;
int update__write(struct proto__w *w, const struct update *u, struct proto_err *e);
int update__read(struct proto__r *r, struct update *u, struct proto_err *e);

#endif
