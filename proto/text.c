/* SPDX-License-Identifier: MIT */
/* text: strict UTF-8 validation and cleaning of every text a peer may send. */
#include <string.h>

#include <unictype.h>

#include "proto.h"
#include "text.h"

size_t
text_max_bytes(int kind)
{
	switch (kind) {
	case TEXT_NAME: return PROTO_NAME_BYTES;
	case TEXT_ROOM: return PROTO_ROOM_BYTES;
	case TEXT_CHAT: return PROTO_CHAT_BYTES;
	case TEXT_REASON: return PROTO_REASON_BYTES;
	default: return 0;
	}
}

static size_t
min_bytes(int kind)
{
	return kind == TEXT_REASON ? 0 : 1;
}

size_t
text_utf8_next(const uint8_t *s, size_t len, uint32_t *cp)
{
	uint32_t c;
	size_t n;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0; /* a continuation byte, an overlong lead (c0, c1) or past U+10FFFF (f5..ff) */
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Shortest form only, no surrogates, nothing past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

size_t
text_utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * What a text may hold is decided from Unicode properties (libunistring's tables of the
 * Unicode Character Database), not from a list typed by hand: a hand-made list let names
 * made of U+3164 HANGUL FILLER through.
 *
 * Refused in every kind: controls (Cc: C0 with ESC, DEL, C1 with CSI), format characters
 * (Cf: bidi embeddings, overrides, isolates and marks, BOM, zero widths, interlinear
 * annotation, tags) except the two join controls that emoji sequences and some scripts
 * need in chat, line and paragraph separators (Zl, Zp), surrogates and noncharacters:
 * nothing that could move a terminal's cursor or reorder text.
 */
static bool
forbidden_anywhere(uint32_t c)
{
	uint32_t bad = UC_CATEGORY_MASK_Cc | UC_CATEGORY_MASK_Cf | UC_CATEGORY_MASK_Zl | UC_CATEGORY_MASK_Zp |
	               UC_CATEGORY_MASK_Cs;

	if (c > 0x10ffff || uc_is_property_not_a_character(c))
		return true;
	return (uc_general_category(c).bitmask & bad) != 0 && !uc_is_property_join_control(c);
}

bool
text_allowed(uint32_t c, int kind)
{
	if (forbidden_anywhere(c))
		return false;
	switch (kind) {
	case TEXT_NAME:
		/* Default-ignorable characters (zero widths, joiners, fillers, variation selectors)
		 * draw as nothing and would let two names look the same. */
		return !uc_is_property_default_ignorable_code_point(c);
	case TEXT_ROOM:
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       c == '-' || c == '_';
	case TEXT_CHAT:
	case TEXT_REASON:
		return true;
	default:
		return false;
	}
}

/* A name must show something: a letter, a digit or a pictograph. Names of blanks that are
 * not spaces (U+2800 BRAILLE PATTERN BLANK, U+3000) or of marks alone are refused. */
static bool
visible(uint32_t c)
{
	return (uc_general_category(c).bitmask & (UC_CATEGORY_MASK_L | UC_CATEGORY_MASK_N)) != 0 ||
	       uc_is_property_extended_pictographic(c);
}

bool
text_check(const char *s, size_t len, int kind)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t pos = 0, cps = 0;

	if (kind < 0 || kind >= TEXT_KIND_COUNT || len < min_bytes(kind) || len > text_max_bytes(kind))
		return false;
	bool seen = false;
	while (pos < len) {
		uint32_t cp;
		size_t n = text_utf8_next(u + pos, len - pos, &cp);

		if (n == 0 || !text_allowed(cp, kind))
			return false;
		seen = seen || visible(cp);
		pos += n;
		cps++;
	}
	if (kind == TEXT_NAME && (cps > PROTO_NAME_CHARS || s[0] == ' ' || s[len - 1] == ' ' || !seen))
		return false;
	return true;
}

int
text_clean(char *dst, size_t cap, const char *src, size_t len, int kind)
{
	const uint8_t *u = (const uint8_t *)src;
	size_t pos = 0, out = 0, cps = 0, limit;

	if (cap == 0)
		return -1;
	dst[0] = '\0';
	if (kind < 0 || kind >= TEXT_KIND_COUNT)
		return -1;
	/* Refuse invalid UTF-8 as a whole: a broken sequence is a broken client. */
	for (size_t p = 0; p < len;) {
		uint32_t cp;
		size_t n = text_utf8_next(u + p, len - p, &cp);

		if (n == 0)
			return -1;
		p += n;
	}
	limit = text_max_bytes(kind);
	if (limit > cap - 1)
		limit = cap - 1;
	while (pos < len) {
		uint32_t cp;
		size_t n = text_utf8_next(u + pos, len - pos, &cp);

		pos += n;
		if (!text_allowed(cp, kind))
			continue;
		if (kind == TEXT_NAME && cp == ' ' && out == 0)
			continue;
		if (out + n > limit || (kind == TEXT_NAME && cps == PROTO_NAME_CHARS))
			break;
		memcpy(dst + out, src + pos - n, n);
		out += n;
		cps++;
	}
	if (kind == TEXT_NAME)
		while (out > 0 && dst[out - 1] == ' ')
			out--;
	dst[out] = '\0';
	if (!text_check(dst, out, kind)) {
		dst[0] = '\0';
		return -1;
	}
	return (int)out;
}
