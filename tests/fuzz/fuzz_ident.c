/* SPDX-License-Identifier: MIT */
/* fuzz_ident: the decoders of the handshake's signed messages and their checks on any bytes: IDENT (auth_ident_verify), KEYS (auth_rotate_verify). */
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "fuzz.h"
#include "wire.h"

/*
 * Input: a selector byte (even: IDENT, odd: KEYS), 64 bytes of handshake hash h, for KEYS the 32 bytes
 * of the key the client pinned, then the message's payload. Each decoder takes its exact size and
 * nothing else; what it takes re-encodes to the same bytes. The signature check then runs on whatever
 * came (small-order points, non-canonical encodings, all zeros): it may refuse, never misbehave; and a
 * signature it accepts is refused over any other h, and for any other key (IDENT's key; KEYS's pin, or
 * its new key), so a proof is good for one channel and one key only.
 */
static void
ident(const uint8_t *h0, const uint8_t *data, size_t size)
{
	static struct wire_msg m;
	static uint8_t buf[256];
	uint8_t h[PROTO_HASH_LEN], key[PROTO_IDENT_KEY_LEN];
	struct proto_err e;
	size_t len;

	memcpy(h, h0, sizeof h);
	if (wire_decode(WIRE_IDENT, data, size, &m, &e) != 0) {
		FUZZ_CHECK(size != PROTO_IDENT_KEY_LEN + PROTO_IDENT_SIG_LEN);
		return;
	}
	FUZZ_CHECK(size == PROTO_IDENT_KEY_LEN + PROTO_IDENT_SIG_LEN);
	FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0 && len == size && memcmp(buf, data, size) == 0);
	if (!auth_ident_verify(m.u.ident.key, h, m.u.ident.sig))
		return;
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	FUZZ_CHECK(!auth_ident_verify(m.u.ident.key, h, m.u.ident.sig));
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	memcpy(key, m.u.ident.key, sizeof key);
	key[data[2] % PROTO_IDENT_KEY_LEN] ^= (uint8_t)(1u << (data[3] % 8));
	FUZZ_CHECK(!auth_ident_verify(key, h, m.u.ident.sig));
}

static void
keys(const uint8_t *h0, const uint8_t *data, size_t size)
{
	static struct wire_msg m;
	static uint8_t buf[256];
	uint8_t h[PROTO_HASH_LEN], pin[PROTO_KEY_LEN], other[PROTO_KEY_LEN];
	struct proto_err e;
	size_t len;

	if (size < PROTO_KEY_LEN)
		return;
	memcpy(h, h0, sizeof h);
	memcpy(pin, data, sizeof pin);
	data += PROTO_KEY_LEN;
	size -= PROTO_KEY_LEN;
	if (wire_decode(WIRE_KEYS, data, size, &m, &e) != 0) {
		FUZZ_CHECK(size != wire_min(WIRE_KEYS));
		return;
	}
	FUZZ_CHECK(size == wire_min(WIRE_KEYS));
	FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0 && len == size && memcmp(buf, data, size) == 0);
	const struct wire_keys *k = &m.u.keys;
	if (!auth_rotate_verify(pin, h, k->old_ed, k->new_key, k->until, k->sig))
		return;
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	FUZZ_CHECK(!auth_rotate_verify(pin, h, k->old_ed, k->new_key, k->until, k->sig));
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	memcpy(other, k->new_key, sizeof other);
	other[data[2] % PROTO_KEY_LEN] ^= (uint8_t)(1u << (data[3] % 8));
	FUZZ_CHECK(!auth_rotate_verify(pin, h, k->old_ed, other, k->until, k->sig));
	FUZZ_CHECK(!auth_rotate_verify(pin, h, k->old_ed, k->new_key, k->until ^ 1, k->sig));
	memcpy(other, pin, sizeof other);
	other[data[4] % PROTO_KEY_LEN] ^= (uint8_t)(1u << (data[5] % 8));
	FUZZ_CHECK(!auth_rotate_verify(other, h, k->old_ed, k->new_key, k->until, k->sig));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 + PROTO_HASH_LEN)
		return 0;
	FUZZ_CHECK(auth_init() == 0);
	if (data[0] % 2)
		keys(data + 1, data + 1 + PROTO_HASH_LEN, size - 1 - PROTO_HASH_LEN);
	else
		ident(data + 1, data + 1 + PROTO_HASH_LEN, size - 1 - PROTO_HASH_LEN);
	return 0;
}
