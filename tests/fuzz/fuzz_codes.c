/* SPDX-License-Identifier: MIT */
/* fuzz_codes: the text codes (run-length layout, locations, peer text) on any bytes, with round trips. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "layout.h"
#include "loc.h"
#include "text.h"

/*
 * Input: one byte choosing the code (and a text kind), then the text. What a
 * decoder accepts must encode again and decode to the same thing; text_clean
 * must always give something text_check accepts, or refuse.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t cells[LEVEL_MAX * LEVEL_MAX], cells2[LEVEL_MAX * LEVEL_MAX];
	static struct loc locs[LEVEL_MAX * LEVEL_MAX], locs2[LEVEL_MAX * LEVEL_MAX];
	static char out[LEVEL_MAX * LEVEL_MAX * LOC_TEXT_MAX + 1];
	const char *s = (const char *)data + 1;
	size_t len, n, n2;
	int k;

	if (size < 1)
		return 0;
	len = size - 1;
	switch (data[0] % 3) {
	case 0:
		if (layout_decode(s, len, cells, sizeof cells, &n, NULL) != 0)
			return 0;
		k = layout_encode(cells, n, out, layout_bound(n));
		FUZZ_CHECK(k >= 0 && (size_t)k <= len);
		FUZZ_CHECK(layout_decode(out, (size_t)k, cells2, sizeof cells2, &n2, NULL) == 0);
		FUZZ_CHECK(n2 == n && memcmp(cells, cells2, n) == 0);
		break;
	case 1:
		if (loc_decode(s, len, locs, LEVEL_MAX * LEVEL_MAX, &n, NULL) != 0)
			return 0;
		k = loc_encode(locs, n, out, sizeof out);
		FUZZ_CHECK(k >= 0 && (size_t)k == len && memcmp(out, s, len) == 0); /* one form per list */
		FUZZ_CHECK(loc_decode(out, (size_t)k, locs2, LEVEL_MAX * LEVEL_MAX, &n2, NULL) == 0 && n2 == n);
		break;
	default: {
		int kind = (data[0] / 3) % TEXT_KIND_COUNT;
		bool ok = text_check(s, len, kind);

		k = text_clean(out, PROTO_CHAT_BYTES + 1, s, len, kind);
		if (k >= 0)
			FUZZ_CHECK(text_check(out, (size_t)k, kind) && strlen(out) == (size_t)k);
		if (ok)
			FUZZ_CHECK(k == (int)len && memcmp(out, s, len) == 0); /* clean text is left as it is */
		break;
	}
	}
	return 0;
}
