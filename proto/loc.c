/* SPDX-License-Identifier: MIT */
/* loc: encoding and strict decoding of the plan's location code. */
#include "internal.h"
#include "level.h"
#include "loc.h"

int
loc_format_x(int x, char *buf)
{
	if (x < 26) {
		buf[0] = (char)('a' + x);
		buf[1] = '\0';
		return 1;
	}
	buf[0] = (char)('a' + x / 26 - 1);
	buf[1] = (char)('a' + x % 26);
	buf[2] = '\0';
	return 2;
}

int
loc_encode(const struct loc *l, size_t n, char *out, size_t cap)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char tmp[12];
		int k;

		if (l[i].x >= LEVEL_MAX || l[i].y >= LEVEL_MAX || l[i].id > LOC_ID_MAX)
			return -1;
		k = loc_format_x(l[i].x, tmp);
		if (l[i].y >= 10)
			tmp[k++] = (char)('0' + l[i].y / 10);
		tmp[k++] = (char)('0' + l[i].y % 10);
		tmp[k++] = (char)('a' + l[i].id);
		if (i + 1 < n)
			tmp[k++] = ',';
		if ((size_t)k > cap - len)
			return -1;
		memcpy(out + len, tmp, (size_t)k);
		len += (size_t)k;
	}
	return (int)len;
}

static bool
lower(const char *s, size_t len, size_t pos)
{
	return pos < len && s[pos] >= 'a' && s[pos] <= 'z';
}

static bool
digit(const char *s, size_t len, size_t pos)
{
	return pos < len && s[pos] >= '0' && s[pos] <= '9';
}

int
loc_decode(const char *s, size_t len, struct loc *out, size_t cap, size_t *n, struct proto_err *e)
{
	size_t pos = 0, count = 0;

	*n = 0;
	if (len == 0)
		return 0;
	for (;;) {
		unsigned x, y;

		if (count == cap)
			return proto__fail(e, PERR_LOC, "loc: more than %zu locations", cap);
		if (!lower(s, len, pos))
			return proto__fail(e, PERR_LOC, "loc: x expected at %zu", pos);
		x = (unsigned)(s[pos++] - 'a');
		if (lower(s, len, pos))
			x = 26 * (x + 1) + (unsigned)(s[pos++] - 'a');
		if (x >= LEVEL_MAX)
			return proto__fail(e, PERR_LOC, "loc: x %u out of range", x);
		if (!digit(s, len, pos))
			return proto__fail(e, PERR_LOC, "loc: y expected at %zu", pos);
		if (s[pos] == '0' && digit(s, len, pos + 1))
			return proto__fail(e, PERR_LOC, "loc: leading zero at %zu", pos);
		y = 0;
		while (digit(s, len, pos)) {
			y = y * 10 + (unsigned)(s[pos++] - '0');
			if (y >= LEVEL_MAX)
				return proto__fail(e, PERR_LOC, "loc: y out of range at %zu", pos);
		}
		if (!lower(s, len, pos))
			return proto__fail(e, PERR_LOC, "loc: id expected at %zu", pos);
		out[count].x = (uint8_t)x;
		out[count].y = (uint8_t)y;
		out[count].id = (uint8_t)(s[pos++] - 'a');
		count++;
		if (pos == len)
			break;
		if (s[pos] != ',' || pos + 1 == len)
			return proto__fail(e, PERR_LOC, "loc: ',' expected at %zu", pos);
		pos++;
	}
	*n = count;
	return 0;
}
