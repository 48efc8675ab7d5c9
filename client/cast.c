/* SPDX-License-Identifier: MIT */
/* cast: writes asciicast v3, the format asciinema and asciinema-player read. */
#include <inttypes.h>
#include <string.h>

#include "cast.h"
#include "text.h"

void
cast_json_string(FILE *out, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n;
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(out, "\\%c", p[i]);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(out, "\\u%04x", p[i]);
			i++;
		} else if (p[i] < 0x80) {
			fputc(p[i], out);
			i++;
		} else if ((n = text_utf8_next(p + i, len - i, &cp)) > 0) {
			fwrite(p + i, 1, n, out);
			i += n;
		} else {
			/* JSON is UTF-8: a stray byte would make the whole cast unreadable. */
			fputs("\\ufffd", out);
			i++;
		}
	}
}

void
cast_header(FILE *out, int cols, int rows, const char *term, const char *title)
{
	fprintf(out, "{\"version\": 3, \"term\": {\"cols\": %d, \"rows\": %d, \"type\": \"", cols, rows);
	cast_json_string(out, term, strlen(term));
	fputs("\"}, \"title\": \"", out);
	cast_json_string(out, title, strlen(title));
	fputs("\"}\n", out);
}

void
cast_event(FILE *out, uint32_t interval_ms, char code, const char *data, size_t len)
{
	fprintf(out, "[%" PRIu32 ".%03" PRIu32 ", \"%c\", \"", interval_ms / 1000, interval_ms % 1000, code);
	cast_json_string(out, data, len);
	fputs("\"]\n", out);
}
