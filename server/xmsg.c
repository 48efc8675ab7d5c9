/* SPDX-License-Identifier: MIT */
/* xmsg: a cluster's lines on the channel wizwar:events, parsed into a struct: strict, bounded, pure. */
#include <string.h>

#include <arpa/inet.h>

#include "xmsg.h"

/* Any Redis client may publish on the channel (docs/server.md's threat model): a node trusts Redis,
 * but a line that is not exactly what a node writes is refused whole rather than half used. */

bool
xmsg_valid_code(const char *s, size_t n)
{
	if (n == 0 || n > PROTO_ROOM_BYTES)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		      ch == '_'))
			return false;
	}
	return true;
}

bool
xmsg_valid_id(const char *s, size_t n)
{
	if (n != XMSG_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

bool
xmsg_valid_host(const char *s, size_t n)
{
	unsigned char a[16];

	return n > 0 && n <= XMSG_HOST_MAX && strlen(s) == n &&
	       (inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1);
}

bool
xmsg_mod_line(const char *s, size_t n, char *out, size_t cap)
{
	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) /* a NUL too */
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

#define FIELDS_MAX 7

/* The line's fields after its word: exactly `want`, each non-empty, one space between them, none
 * before or after. */
static bool
split(const char *s, size_t n, int want, const char *f[FIELDS_MAX], size_t fl[FIELDS_MAX])
{
	int k = 0;
	size_t i = 0;

	while (k < want) {
		size_t start = i;
		while (i < n && s[i] != ' ')
			i++;
		if (i == start)
			return false; /* empty: a space doubled, leading or trailing, or the line ended */
		f[k] = s + start;
		fl[k++] = i - start;
		if (i == n)
			break;
		i++; /* the one space */
	}
	return k == want && i == n && s[n - 1] != ' ';
}

/* A whole number of the field, at most `max`: no sign, no leading zero, no space; -1 when not. */
static long
number(const char *s, size_t n, long max)
{
	long v = 0;

	if (n == 0 || (s[0] == '0' && n > 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || (v = v * 10 + (s[i] - '0')) > max)
			return -1;
	}
	return v;
}

static int
hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* A node writes its key in lower-case hex (sodium_bin2hex): exactly that. */
static bool
key_of(const char *s, size_t n, uint8_t key[PROTO_KEY_LEN])
{
	if (n != PROTO_KEY_LEN * 2)
		return false;
	for (size_t i = 0; i < PROTO_KEY_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static bool
id_of(const char *s, size_t n, char out[XMSG_ID_LEN + 1])
{
	if (!xmsg_valid_id(s, n))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

static bool
code_of(const char *s, size_t n, char out[PROTO_ROOM_BYTES + 1])
{
	if (!xmsg_valid_code(s, n))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* An address and a port, the fields of "beat" and "web". */
static bool
addr_of(const char *h, size_t hn, const char *p, size_t pn, struct xmsg *m)
{
	long port;

	if (hn == 0 || hn > XMSG_HOST_MAX)
		return false;
	memcpy(m->host, h, hn);
	m->host[hn] = '\0';
	if (!xmsg_valid_host(m->host, hn) || (port = number(p, pn, 65535)) < 1)
		return false;
	m->port = (int)port;
	return true;
}

/* Each text line's fields, after its word and its space. */
static bool
parse_beat(const char **f, const size_t *fl, struct xmsg *m)
{
	long rooms = number(f[4], fl[4], XMSG_ROOMS_MAX);

	if (rooms < 0 || !id_of(f[0], fl[0], m->id) || !addr_of(f[1], fl[1], f[2], fl[2], m) ||
	    !key_of(f[3], fl[3], m->key))
		return false;
	m->rooms = (unsigned)rooms;
	return true;
}

static bool
parse_code(const char **f, const size_t *fl, struct xmsg *m)
{
	return id_of(f[0], fl[0], m->id) && code_of(f[1], fl[1], m->code);
}

static bool
parse_make(const char **f, const size_t *fl, struct xmsg *m)
{
	long v[4];

	if (!id_of(f[0], fl[0], m->id) || !id_of(f[1], fl[1], m->to) || !code_of(f[2], fl[2], m->code))
		return false;
	for (int k = 0; k < 4; k++)
		if ((v[k] = number(f[3 + k], fl[3 + k], k == 0 ? 255 : k == 3 ? 65535 : 1)) < 0)
			return false;
	m->opt.size = (uint8_t)v[0];
	m->opt.fov = v[1] == 1;
	m->opt.potions = v[2] == 1;
	m->turn_time = (unsigned)v[3];
	return true;
}

static bool
parse_web(const char **f, const size_t *fl, struct xmsg *m)
{
	return id_of(f[0], fl[0], m->id) && addr_of(f[1], fl[1], f[2], fl[2], m);
}

/* The text lines, a row each: the word, its type, how many fields follow it, their parser. */
static const struct {
	const char *word;
	enum xmsg_type type;
	int fields;
	bool (*parse)(const char **f, const size_t *fl, struct xmsg *m);
} lines[] = {
	{ "beat", XMSG_BEAT, 5, parse_beat },
	{ "room", XMSG_ROOM, 2, parse_code },
	{ "gone", XMSG_GONE, 2, parse_code },
	{ "sent", XMSG_SENT, 2, parse_code },
	{ "make", XMSG_MAKE, 7, parse_make },
	{ "web", XMSG_WEB, 3, parse_web },
};

/* "WORD ID " then the rest: open's binary payload, mod's line (both may be longer than a text line). */
static bool
head(const char *s, size_t n, const char *word, struct xmsg *m, const char **rest, size_t *rn)
{
	size_t w = strlen(word);

	if (n < w + 1 + XMSG_ID_LEN + 1 || memcmp(s, word, w) != 0 || s[w] != ' ' || s[w + 1 + XMSG_ID_LEN] != ' ' ||
	    !id_of(s + w + 1, XMSG_ID_LEN, m->id))
		return false;
	*rest = s + w + 1 + XMSG_ID_LEN + 1;
	*rn = n - (w + 1 + XMSG_ID_LEN + 1);
	return true;
}

int
xmsg_parse(const char *s, size_t n, struct xmsg *m)
{
	const char *f[FIELDS_MAX], *rest;
	size_t fl[FIELDS_MAX], rn;

	memset(m, 0, sizeof *m);
	if (n >= 5 && memcmp(s, "open ", 5) == 0) {
		if (!head(s, n, "open", m, &rest, &rn))
			return -1;
		m->type = XMSG_OPEN;
		m->payload = (const uint8_t *)rest;
		m->len = rn;
		return 0;
	}
	if (n >= 4 && memcmp(s, "mod ", 4) == 0) {
		if (!head(s, n, "mod", m, &rest, &rn) || !xmsg_mod_line(rest, rn, m->line, sizeof m->line))
			return -1;
		m->type = XMSG_MOD;
		return 0;
	}
	if (n >= XMSG_LINE_MAX || memchr(s, '\0', n))
		return -1;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		size_t w = strlen(lines[i].word);
		if (n <= w || memcmp(s, lines[i].word, w) != 0 || s[w] != ' ')
			continue;
		if (!split(s + w + 1, n - w - 1, lines[i].fields, f, fl) || !lines[i].parse(f, fl, m))
			return -1;
		m->type = lines[i].type;
		return 0;
	}
	return -1;
}
