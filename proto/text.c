/* SPDX-License-Identifier: MIT */
/* text: strict UTF-8 validation and cleaning of every text a peer may send. */
#include <string.h>

#include <unictype.h>
#include <unistr.h>

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

/* libunistring's decoder is as strict as the protocol asks (RFC 3629): shortest form only,
 * no surrogates, nothing past U+10FFFF; an incomplete sequence (-2) is as broken as an
 * invalid one (-1), since a text arrives whole. */
size_t
text_utf8_next(const uint8_t *s, size_t len, uint32_t *cp)
{
	ucs4_t c;
	int n;

	if (len == 0 || (n = u8_mbtoucr(&c, s, len)) <= 0)
		return 0;
	*cp = c;
	return (size_t)n;
}

size_t
text_utf8_put(char *out, uint32_t cp)
{
	int n = u8_uctomb((uint8_t *)out, cp, 4);

	return n > 0 ? (size_t)n : 0;
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
	if (u8_check(u, len) != NULL)
		return -1;
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
