/* SPDX-License-Identifier: MIT */
/* wmsg: the web page's messages to the server: one flat JSON object of short ASCII strings and a number, strictly. */
#include <string.h>

#include "wmsg.h"

/* A JSON string at *p (after its opening quote) into out: plain printable ASCII and the
 * escapes \" and \\ only (nothing a page sends needs more). */
static bool
jstr(const char **p, const char *end, char *out, size_t len)
{
	size_t n = 0;

	while (*p < end && **p != '"') {
		char c = *(*p)++;
		if (c == '\\') {
			if (*p == end || (**p != '"' && **p != '\\'))
				return false;
			c = *(*p)++;
		}
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e || n + 1 >= len)
			return false;
		out[n++] = c;
	}
	if (*p == end)
		return false;
	(*p)++;
	out[n] = '\0';
	return true;
}

static void
ws(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
		(*p)++;
}

bool
wmsg_parse(const char *s, size_t len, struct wmsg *m)
{
	const char *p = s, *end = s + len;
	char key[16], val[WEB_ID_MAX + 1];

	memset(m, 0, sizeof *m);
	ws(&p, end);
	if (p == end || *p++ != '{')
		return false;
	ws(&p, end);
	if (p < end && *p == '}')
		return false;
	for (;;) {
		ws(&p, end);
		if (p == end || *p++ != '"' || !jstr(&p, end, key, sizeof key))
			return false;
		ws(&p, end);
		if (p == end || *p++ != ':')
			return false;
		ws(&p, end);
		if (p < end && *p == '"') {
			p++;
			if (!jstr(&p, end, val, sizeof val))
				return false;
			struct { const char *name; char *to; size_t len; } f[] = {
				{ "t", m->t, sizeof m->t }, { "room", m->room, sizeof m->room }, { "id", m->id, sizeof m->id },
				{ "key", m->key, sizeof m->key }, { "k", m->k, sizeof m->k },
			};
			bool known = false;
			for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
				if (strcmp(key, f[i].name) == 0) {
					if (strlen(val) >= f[i].len)
						return false;
					strcpy(f[i].to, val);
					known = true;
				}
			if (!known)
				return false;
		} else if (strcmp(key, "turn") == 0) {
			long v = 0;
			int digits = 0;
			while (p < end && *p >= '0' && *p <= '9' && digits < 9) {
				v = v * 10 + (*p++ - '0');
				digits++;
			}
			if (digits == 0 || (p < end && *p >= '0' && *p <= '9'))
				return false;
			m->turn = v;
			m->has_turn = true;
		} else {
			return false;
		}
		ws(&p, end);
		if (p == end)
			return false;
		if (*p == '}') {
			p++;
			ws(&p, end);
			return p == end;
		}
		if (*p++ != ',')
			return false;
	}
}

