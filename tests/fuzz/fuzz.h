/* SPDX-License-Identifier: MIT */
/* fuzz: what the fuzz targets share: a check that aborts (so libFuzzer reports it) and a small known view. */
#ifndef WW_FUZZ_H
#define WW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define FUZZ_CHECK(x) do { if (!(x)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #x); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A reason a decoder gives, which goes to a terminal: NUL-ended within cap, printable ASCII. */
static inline void
fuzz_printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f);
}

/* A view of a `size` level: ring walls, a room of floor, some of it seen, a potion. */
static inline void
fuzz_view(struct view *v, int size)
{
	memset(v, 0, sizeof *v);
	memset(v->kind_of, 0xff, sizeof v->kind_of);
	memset(v->offered, 0xff, sizeof v->offered);
	v->opt.size = (uint8_t)size;
	v->opt.fov = true;
	v->opt.potions = true;
	v->x = v->y = (uint8_t)(size / 2);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			int dx = x - size / 2, dy = y - size / 2;

			if (dx < -3 || dx > 3 || dy < -3 || dy > 3)
				continue;
			v->cell[y][x] = (uint8_t)((dx == -3 || dx == 3 || dy == -3 || dy == 3 ? VCELL_WALL : VCELL_FLOOR) | VCELL_VISIBLE);
		}
	v->potion[size / 2][size / 2 + 1] = 2;
}

#endif
