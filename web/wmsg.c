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


bool
wmsg_origin(const char *origin, const char **authority, char *host, size_t hostlen, int *port)
{
	const char *a, *he, *p;
	long v;

	if (strncmp(origin, "http://", 7) == 0)
		a = origin + 7, v = 80;
	else if (strncmp(origin, "https://", 8) == 0)
		a = origin + 8, v = 443;
	else
		return false;
	if (a[0] == '[') {
		if ((he = strchr(a, ']')) == NULL)
			return false;
		p = he + 1;
		a++;
	} else {
		he = p = a + strcspn(a, ":");
	}
	if (he == a || (size_t)(he - a) >= hostlen)
		return false;
	for (const char *c = a; c < he; c++) /* a host's letters, digits, '.', '-' (and ':' in brackets) */
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
		      *c == '-' || (*c == ':' && a[-1] == '[')))
			return false;
	if (*p == ':') {
		v = 0;
		p++;
		for (int i = 0; p[i]; i++) {
			if (p[i] < '0' || p[i] > '9' || i == 5 || (i == 0 && p[i] == '0'))
				return false;
			v = v * 10 + (p[i] - '0');
		}
		if (v < 1 || v > 65535)
			return false;
	} else if (*p) {
		return false;
	}
	memcpy(host, a, (size_t)(he - a));
	host[he - a] = '\0';
	*authority = origin + (origin[4] == 's' ? 8 : 7);
	*port = (int)v;
	return true;
}
