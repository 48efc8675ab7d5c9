/* SPDX-License-Identifier: MIT */
/* loc: the plan's letter code for locations ("h7f": x as letters, y in digits, then an id letter). */
#ifndef WW_LOC_H
#define WW_LOC_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/*
 * One location is  x  y  id :
 *   x   0..25 as 'a'..'z'; past 26 columns two letters, counting on like a
 *       spreadsheet's columns: 26 = "aa", 27 = "ab", ... 50 = "ay"
 *   y   decimal, no leading zero ("0", "7", "12")
 *   id  one letter, 'a' + the value (a potion's appearance + 1, an effect's id)
 * Several are joined by ','. "" is the empty list. x and y are below LEVEL_MAX.
 */
struct loc {
	uint8_t x, y;
	uint8_t id; /* 0..25 */
};

#define LOC_ID_MAX 25
#define LOC_TEXT_MAX 6 /* "ay50z," */

/* Write n locations. Returns the length (no NUL) or -1 (a field out of range, cap too small). */
int loc_encode(const struct loc *l, size_t n, char *out, size_t cap);

/* Read at most cap locations; *n receives how many. 0, or PROTO_BROKEN with e filled (PERR_LOC). */
int loc_decode(const char *s, size_t len, struct loc *out, size_t cap, size_t *n, struct proto_err *e);

/* x as letters into buf (at least 3 bytes, NUL-terminated); returns its length. */
int loc_format_x(int x, char *buf);

#endif
