/* SPDX-License-Identifier: MIT */
/* fuzz_decode: any payload of any type into wire_decode(); what it accepts must re-encode and decode the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "update.h"
#include "wire.h"

/*
 * Input: one byte of message type, then the payload. An accepted message is
 * encoded again (which must succeed: decoders and encoders refuse the same
 * things) and decoded again (which must give the same struct). An UPDATE or
 * START is also applied to a blank view and to a small known view: apply may
 * refuse, never misbehave.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wire_msg m, again;
	static uint8_t buf[PROTO_PAYLOAD_MAX];
	struct proto_err e;
	size_t len;

	if (size < 1)
		return 0;
	if (wire_decode(data[0], data + 1, size - 1, &m, &e) != 0) {
		FUZZ_CHECK(e.code != PERR_OK && memchr(e.why, '\0', sizeof e.why));
		return 0;
	}
	FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0);
	FUZZ_CHECK(wire_decode(data[0], buf, len, &again, &e) == 0);
	FUZZ_CHECK(memcmp(&m, &again, wire_decoded_size(data[0])) == 0); /* what a decode of that type sets */
	if (m.type == WIRE_UPDATE || m.type == WIRE_START || m.type == WIRE_SPECT_VIEW) {
		const struct update *u = m.type == WIRE_UPDATE ? &m.u.update :
		                         m.type == WIRE_START ? &m.u.start.view : &m.u.sview.view;
		struct view v;

		update_blank(&v);
		(void)update_apply(&v, u, &e);
		fuzz_view(&v, 25);
		(void)update_apply(&v, u, &e);
	}
	return 0;
}
