/* SPDX-License-Identifier: MIT */
/* fuzz_ident: the decoders of signed things and their checks on any bytes: IDENT (auth_ident_verify), KEYS (auth_rotate_verify), a client's records file (recstore_parse). */
#include <stdint.h>
#include <string.h>

#include "auth.h"
#include "fuzz.h"
#include "recstore.h"
#include "wire.h"

/*
 * Input: a selector byte (modulo 3: 0 IDENT, 1 KEYS, 2 a records file), 64 bytes of handshake hash h, for KEYS the 32 bytes
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

/* A client's records file (client/recstore.h): the hash's first 32 bytes are the server's key, the
 * rest the file's text. Parsed or refused with a reason; what it takes is within its bound, and every
 * record it keeps verifies against that key, once. */
static void
records(const uint8_t *h, const uint8_t *data, size_t size)
{
	static struct recstore rs;
	char why[300];

	memset(&rs, 0, sizeof rs);
	memcpy(rs.server_pk, h, sizeof rs.server_pk);
	why[0] = '\0';
	if (recstore_parse("fuzz", (const char *)data, size, &rs, why, sizeof why) != 0) {
		FUZZ_CHECK(why[0] != '\0');
	} else {
		FUZZ_CHECK(rs.count <= RECSTORE_MAX);
		for (size_t i = 0; i < rs.count; i++) {
			FUZZ_CHECK(rated_verify(&rs.e[i].rec, rs.e[i].signer, rs.server_pk));
			FUZZ_CHECK(recstore_find(&rs, rs.e[i].rec.commit) == (long)i);
		}
	}
	recstore_free(&rs);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 + PROTO_HASH_LEN)
		return 0;
	FUZZ_CHECK(auth_init() == 0);
	static void (*const run[])(const uint8_t *, const uint8_t *, size_t) = { ident, keys, records };
	run[data[0] % 3](data + 1, data + 1 + PROTO_HASH_LEN, size - 1 - PROTO_HASH_LEN);
	return 0;
}
