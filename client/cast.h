/* SPDX-License-Identifier: MIT */
/* cast: asciicast v3 (docs.asciinema.org/manual/asciicast/v3): a header line, then one event a line. */
#ifndef WW_CAST_H
#define WW_CAST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The header line: {"version": 3, "term": {"cols", "rows", "type"}, "title"}. The title is any
 * bytes (a player's name is in it): escaped as a JSON string, invalid UTF-8 as U+FFFD. */
void cast_header(FILE *out, int cols, int rows, const char *term, const char *title);
/* One event: [interval, "code", "data"], the interval in seconds since the previous event (v3's
 * intervals are relative), written from milliseconds with three decimals. */
void cast_event(FILE *out, uint32_t interval_ms, char code, const char *data, size_t len);
/* A JSON string's body: control characters, '"' and '\\' escaped; bytes that are not UTF-8 as U+FFFD. */
void cast_json_string(FILE *out, const char *s, size_t len);

#endif
