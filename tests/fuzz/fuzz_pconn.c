/* fuzz_pconn: a byte stream from a peer into a connection, cut into pieces, both sides, before and after the join. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "pconn.h"

/*
 * Input: a control byte (bit 0: we are the server; bit 1: already joined, so
 * deflated frames are inflated; bits 2-7: how many bytes to feed at a time,
 * from 1 to 64), then the bytes the peer sent. Everything is fed and every
 * message taken out until the connection wants more or breaks; a broken
 * connection must stay broken. Decoded messages must encode again.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pconn c;
	static struct wire_msg m;
	static uint8_t buf[PROTO_PAYLOAD_MAX];
	struct proto_err e;
	size_t piece, pos = 1;
	int rc = PROTO_MORE;

	if (size < 1)
		return 0;
	pconn_init(&c, data[0] & 1 ? PCONN_SERVER : PCONN_CLIENT);
	c.joined = (data[0] & 2) != 0;
	piece = 1 + (data[0] >> 2);
	while (pos < size && rc != PROTO_BROKEN) {
		size_t n = size - pos < piece ? size - pos : piece, took = pconn_feed(&c, data + pos, n);

		pos += took;
		while ((rc = pconn_next(&c, &m, &e)) == PROTO_DONE) {
			size_t len;

			FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0);
		}
		if (rc == PROTO_BROKEN) {
			FUZZ_CHECK(c.broken && e.code != PERR_OK);
			FUZZ_CHECK(pconn_next(&c, &m, &e) == PROTO_BROKEN);
		} else {
			FUZZ_CHECK(took > 0 || frame_reader_buffered(&c.rd) < PCONN_FRAME_MAX);
		}
	}
	pconn_finish(&c);
	return 0;
}
