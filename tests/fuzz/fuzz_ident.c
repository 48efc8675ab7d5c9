/* SPDX-License-Identifier: MIT */
/* fuzz_ident: IDENT's decoder and the server's check of it (auth_ident_verify) on any bytes: a hash, then a payload. */
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "fuzz.h"
#include "wire.h"

/*
 * Input: 64 bytes of handshake hash h, then IDENT's payload. The decoder takes exactly 96 bytes
 * and nothing else; what it takes re-encodes to the same bytes. The signature check then runs on
 * whatever key and signature came (small-order points, non-canonical encodings, all zeros): it may
 * refuse, never misbehave; and a signature it accepts is refused over any other h, and for any other
 * key, so a proof is good for one channel and one key only.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wire_msg m;
	static uint8_t buf[256];
	uint8_t h[PROTO_HASH_LEN], key[PROTO_IDENT_KEY_LEN];
	struct proto_err e;
	size_t len;

	if (size < PROTO_HASH_LEN)
		return 0;
	FUZZ_CHECK(auth_init() == 0);
	memcpy(h, data, PROTO_HASH_LEN);
	data += PROTO_HASH_LEN;
	size -= PROTO_HASH_LEN;
	if (wire_decode(WIRE_IDENT, data, size, &m, &e) != 0) {
		FUZZ_CHECK(size != PROTO_IDENT_KEY_LEN + PROTO_IDENT_SIG_LEN);
		return 0;
	}
	FUZZ_CHECK(size == PROTO_IDENT_KEY_LEN + PROTO_IDENT_SIG_LEN);
	FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0 && len == size && memcmp(buf, data, size) == 0);
	if (!auth_ident_verify(m.u.ident.key, h, m.u.ident.sig))
		return 0;
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	FUZZ_CHECK(!auth_ident_verify(m.u.ident.key, h, m.u.ident.sig));
	h[data[0] % PROTO_HASH_LEN] ^= (uint8_t)(1u << (data[1] % 8));
	memcpy(key, m.u.ident.key, sizeof key);
	key[data[2] % PROTO_IDENT_KEY_LEN] ^= (uint8_t)(1u << (data[3] % 8));
	FUZZ_CHECK(!auth_ident_verify(key, h, m.u.ident.sig));
	return 0;
}
