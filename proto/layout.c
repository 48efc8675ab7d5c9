/* SPDX-License-Identifier: MIT */
/* layout: run-length text for cells (the plan's a..z / A..Z, digits for cells never seen). */
#include "internal.h"
#include "layout.h"

#define RUN_MAX 26

size_t
layout_bound(size_t cells)
{
	/* Worst case alternates single cells of known kinds: one letter each. A
	 * number is at most 4 digits for a run of at least 1000; 26 cells per
	 * letter only ever shortens. */
	return cells;
}

static int
put_run(char *out, size_t cap, size_t *len, int kind, size_t run)
{
	if (kind == 0) {
		char digits[24];
		int nd = 0;

		while (run) {
			digits[nd++] = (char)('0' + run % 10);
			run /= 10;
		}
		if ((size_t)nd > cap - *len)
			return -1;
		while (nd)
			out[(*len)++] = digits[--nd];
		return 0;
	}
	while (run) {
		size_t k = run > RUN_MAX ? RUN_MAX : run;

		if (*len >= cap)
			return -1;
		out[(*len)++] = (char)((kind == 1 ? 'a' : 'A') + (int)k - 1);
		run -= k;
	}
	return 0;
}

int
layout_encode(const uint8_t *cells, size_t n, char *out, size_t cap)
{
	size_t len = 0, i = 0;

	while (i < n) {
		size_t j = i + 1;

		if (cells[i] > 2)
			return -1;
		while (j < n && cells[j] == cells[i])
			j++;
		if (put_run(out, cap, &len, cells[i], j - i) < 0)
			return -1;
		i = j;
	}
	return (int)len;
}

int
layout_decode(const char *s, size_t len, uint8_t *cells, size_t cap, size_t *n, struct proto_err *e)
{
	size_t pos = 0, count = 0;

	while (pos < len) {
		unsigned char c = (unsigned char)s[pos];
		size_t run;
		uint8_t kind;

		if (c >= '0' && c <= '9') {
			if (c == '0')
				return proto__fail(e, PERR_LAYOUT, "layout: run of 0 or leading zero at %zu", pos);
			run = 0;
			while (pos < len && s[pos] >= '0' && s[pos] <= '9') {
				run = run * 10 + (size_t)(s[pos] - '0');
				if (run > cap - count)
					return proto__fail(e, PERR_LAYOUT, "layout: more than %zu cells", cap);
				pos++;
			}
			kind = 0; /* all its digits are read: a number is never followed by another */
		} else if (c >= 'a' && c <= 'z') {
			run = (size_t)(c - 'a') + 1;
			kind = 1;
			pos++;
		} else if (c >= 'A' && c <= 'Z') {
			run = (size_t)(c - 'A') + 1;
			kind = 2;
			pos++;
		} else {
			return proto__fail(e, PERR_LAYOUT, "layout: bad byte 0x%02x at %zu", c, pos);
		}
		if (run > cap - count)
			return proto__fail(e, PERR_LAYOUT, "layout: more than %zu cells", cap);
		memset(cells + count, kind, run);
		count += run;
	}
	*n = count;
	return 0;
}

int
layout_encode_level(const struct level *lv, char *out, size_t cap)
{
	uint8_t cells[(LEVEL_MAX - 2) * (LEVEL_MAX - 2)];
	size_t n = 0;

	if (lv->size < 3 || lv->size > LEVEL_MAX)
		return -1;
	for (int y = 1; y < lv->size - 1; y++)
		for (int x = 1; x < lv->size - 1; x++)
			cells[n++] = lv->cell[y][x] == CELL_FLOOR ? 2 : 1;
	return layout_encode(cells, n, out, cap);
}

int
layout_decode_level(const char *s, size_t len, int size, struct level *lv, struct proto_err *e)
{
	uint8_t cells[(LEVEL_MAX - 2) * (LEVEL_MAX - 2)];
	size_t n, want, i = 0;

	if (size < 3 || size > LEVEL_MAX)
		return proto__fail(e, PERR_RANGE, "layout: size %d", size);
	want = (size_t)(size - 2) * (size_t)(size - 2);
	if (layout_decode(s, len, cells, want, &n, e) < 0)
		return PROTO_BROKEN;
	if (n != want)
		return proto__fail(e, PERR_LAYOUT, "layout: %zu cells, want %zu", n, want);
	memset(lv, 0, sizeof *lv);
	lv->size = (uint8_t)size;
	for (int y = 1; y < size - 1; y++)
		for (int x = 1; x < size - 1; x++, i++) {
			if (cells[i] == 0)
				return proto__fail(e, PERR_LAYOUT, "layout: unknown cell in a whole level");
			lv->cell[y][x] = cells[i] == 2 ? CELL_FLOOR : CELL_WALL;
		}
	return 0;
}

int
layout_ring_len(int size)
{
	return size > 1 ? 4 * (size - 1) : 0;
}

void
layout_ring_point(int size, int i, int *x, int *y)
{
	int s = size - 1;

	if (i < s) {
		*x = i;
		*y = 0;
	} else if (i < 2 * s) {
		*x = s;
		*y = i - s;
	} else if (i < 3 * s) {
		*x = s - (i - 2 * s);
		*y = s;
	} else {
		*x = 0;
		*y = s - (i - 3 * s);
	}
}
