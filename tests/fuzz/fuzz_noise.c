/* SPDX-License-Identifier: MIT */
/* fuzz_noise: the Noise decoders on hostile bytes: message 1 to a server, message 2 to a client, a record to either. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "noise.h"

/*
 * Input: a control byte (0: the bytes are message 1 for a responder; 1: message 2
 * for an initiator that sent a real message 1; 2: a transport message for a split
 * pair), then the bytes. Nothing may crash or read out of bounds; a forged message 2
 * or record must never open.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t sk[32] = { 9 }, e1[32] = { 7 }, e2[32] = { 5 };
	static struct noise_hs ini, resp;
	static uint8_t out[70000];
	struct noise_keypair s;
	struct noise_cipher tx, rx;
	uint8_t m1[NOISE_MSG1_LEN];
	size_t n;

	if (size < 1)
		return 0;
	noise_keypair_from(&s, sk);
	noise_init(&ini, NOISE_INITIATOR, "p", 1, NULL, e1);
	noise_init(&resp, NOISE_RESPONDER, "p", 1, &s, e2);
	switch (data[0] % 3) {
	case 0:
		if (noise_read1(&resp, data + 1, size - 1) == 0)
			FUZZ_CHECK(size - 1 == NOISE_MSG1_LEN);
		break;
	case 1:
		FUZZ_CHECK(noise_write1(&ini, m1) == 0);
		FUZZ_CHECK(noise_read2(&ini, data + 1, size - 1, out, sizeof out, &n) != 0);
		break;
	default:
		FUZZ_CHECK(noise_write1(&ini, m1) == 0 && noise_read1(&resp, m1, sizeof m1) == 0);
		FUZZ_CHECK(noise_write2(&resp, NULL, 0, out, sizeof out, &n) == 0);
		FUZZ_CHECK(noise_read2(&ini, out, n, out, sizeof out, &n) == 0);
		noise_split(&ini, &tx, &rx);
		if (size - 1 <= sizeof out)
			FUZZ_CHECK(noise_open(&rx, data + 1, size - 1, out) != 0);
		break;
	}
	return 0;
}
