/* SPDX-License-Identifier: MIT */
/* fuzz_keys: any bytes as a keys.conf into keys_load_buf(); what `wizwar keys` writes of the result must rebuild it. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "keys.h"
#include "text.h"

/*
 * A keys.conf is a person's file, often copied from someone else's dotfiles: any bytes. A bad
 * line is skipped with a warning, which is printed on a terminal, so each warning must be
 * UTF-8 with no control character (nor a bidi mark); every binding kept must be a valid key code, found again by keys_action.
 * And `wizwar keys` prints the bindings in force as a keys.conf that rebuilds them
 * (keys_format): loaded onto the default set it must warn of nothing and give every action
 * the same keys in the same order.
 */

/* UTF-8 with nothing that moves a terminal's cursor or reorders text (a word quoted from the file
 * may be a key such as 'é'). */
static void
printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap), l;
	uint32_t cp;

	FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i += l) {
		FUZZ_CHECK((l = text_utf8_next((const uint8_t *)s + i, n - i, &cp)) > 0);
		FUZZ_CHECK(text_allowed(cp, TEXT_CHAT));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct keys k, k2;
	static struct keys_diag d;
	static char text[1 << 16];

	keys_init(&k);
	keys_diag_init(&d);
	unsigned warned = keys_load_buf(&k, (const char *)data, size, "fuzz.conf", &d);
	FUZZ_CHECK(warned == keys_diag_count(&d) && d.n <= KEYS_DIAG_MAX);
	for (unsigned i = 0; i < d.n; i++)
		printable(d.msg[i], sizeof d.msg[i]);
	for (int a = 0; a < ACTION_COUNT; a++)
		for (unsigned i = 0; i < keys_count(&k, a); i++) {
			int code = keys_get(&k, a, i)->code;
			FUZZ_CHECK(keys_code_valid(code) && keys_action(&k, code) == a);
		}

	size_t n = keys_format(&k, text, sizeof text);
	FUZZ_CHECK(n < sizeof text && strlen(text) == n);
	keys_init(&k2);
	keys_diag_init(&d);
	FUZZ_CHECK(keys_load_buf(&k2, text, n, "formatted", &d) == 0);
	for (int a = 0; a < ACTION_COUNT; a++) {
		FUZZ_CHECK(keys_count(&k2, a) == keys_count(&k, a));
		for (unsigned i = 0; i < keys_count(&k, a); i++)
			FUZZ_CHECK(keys_get(&k2, a, i)->code == keys_get(&k, a, i)->code);
	}
	return 0;
}
