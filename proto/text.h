/* SPDX-License-Identifier: MIT */
/* text: UTF-8 from a peer (names, room codes, chat, error texts): validated, length-limited, never a control. */
#ifndef WW_TEXT_H
#define WW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Limits (bytes, code points) and what each kind allows, as in docs/protocol.md:
 *   NAME    1..16 code points, at most 64 bytes, no leading or trailing space,
 *           no zero-width characters
 *   ROOM    1..16 bytes of ASCII letters, digits, '-' and '_'
 *   CHAT    1..200 bytes
 *   REASON  0..120 bytes (ERROR texts)
 * Every kind is valid UTF-8 (shortest form, no surrogates, at most U+10FFFF)
 * without C0 and C1 controls, DEL, ESC, bidi embedding/override/isolate marks,
 * line and paragraph separators, BOM, interlinear annotation marks and
 * noncharacters: nothing that could move a terminal's cursor or reorder text.
 */
#define TEXT_KIND_LIST(X) \
	X(NAME,   "name") \
	X(ROOM,   "room") \
	X(CHAT,   "chat") \
	X(REASON, "reason")

enum text_kind {
#define X(id, name) TEXT_##id,
	TEXT_KIND_LIST(X)
#undef X
	TEXT_KIND_COUNT
};

/* Most bytes a text of this kind may have (without a NUL). */
size_t text_max_bytes(int kind);

/* May code point cp appear in a text of this kind? */
bool text_allowed(uint32_t cp, int kind);

/* Strict check, what decoders use: true when s[0..len) is exactly acceptable as it is. */
bool text_check(const char *s, size_t len, int kind);

/*
 * Make a text acceptable: copy src[0..len) to dst, dropping code points the kind
 * does not allow, trimming a name's outer spaces and cutting at the kind's limits
 * on a code point boundary. dst is always NUL-terminated (cap >= 1). Returns the
 * length written, or -1 when src is not valid UTF-8 (refused whole: nothing is
 * guessed) or when nothing acceptable is left (dst is then "").
 */
int text_clean(char *dst, size_t cap, const char *src, size_t len, int kind);

/* Decode one UTF-8 code point at s[0..len): its length (1..4), or 0 when invalid. The one
 * decoder of the program: the client's screen and key names use it too. */
size_t text_utf8_next(const uint8_t *s, size_t len, uint32_t *cp);
/* Encode code point cp into out[0..4): its length, or 0 (nothing written) when cp is no
 * Unicode scalar value (a surrogate, or past U+10FFFF). */
size_t text_utf8_put(char *out, uint32_t cp);

#endif
