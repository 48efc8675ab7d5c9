/* SPDX-License-Identifier: MIT */
/* fuzz_pconn: a byte stream from a peer into a connection, cut into pieces, both sides, in clear or inside records. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "pconn.h"

/*
 * Input: a control byte, then the peer's bytes.
 *   bit 0     we are the server (else the client)
 *   bit 1     secure: the harness first runs the handshake with fixed keys, and the
 *             rest of the input is records' plaintexts, each a u16 big-endian length
 *             and that many bytes, which the harness seals with the peer's key, so
 *             that the frames inside the records are what gets fuzzed
 *   bit 2     joined: deflated frames are inflated
 *   bits 3-7  how many bytes to feed at a time, 1 to 32
 * Everything is fed and every message taken out until the connection wants more or
 * breaks; a broken connection must stay broken. Decoded messages must encode again.
 */
static const uint8_t server_sk[32] = { 1, 2, 3 };

static void
handshake(struct pconn *srv, struct pconn *cli)
{
	static struct wire_msg m;
	static uint8_t out[PCONN_FRAME_MAX];
	uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
	size_t len;

	wire_hello_init(&m);
	FUZZ_CHECK(pconn_send(cli, &m, out, sizeof out, &len, NULL) == 0);
	pconn_feed(srv, out, len);
	FUZZ_CHECK(pconn_next(srv, &m, NULL) == PROTO_DONE);
	wire_challenge_init(&m, salt, false);
	FUZZ_CHECK(pconn_send(srv, &m, out, sizeof out, &len, NULL) == 0);
	pconn_feed(cli, out, len);
	FUZZ_CHECK(pconn_next(cli, &m, NULL) == PROTO_DONE);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pconn c, peer;
	static struct wire_msg m;
	static uint8_t buf[PROTO_PAYLOAD_MAX], rec[PCONN_FRAME_MAX];
	struct noise_keypair kp;
	struct proto_err e;
	const uint8_t *in;
	size_t piece, pos = 0, n_in;
	bool secure;
	int rc = PROTO_MORE;

	if (size < 1)
		return 0;
	secure = (data[0] & 2) != 0;
	pconn_init(&c, data[0] & 1 ? PCONN_SERVER : PCONN_CLIENT);
	pconn_init(&peer, data[0] & 1 ? PCONN_CLIENT : PCONN_SERVER);
	noise_keypair_from(&kp, server_sk);
	pconn_set_identity(data[0] & 1 ? &c : &peer, &kp);
	if (secure) {
		handshake(data[0] & 1 ? &c : &peer, data[0] & 1 ? &peer : &c);
	} else if (!(data[0] & 1)) {
		/* A client has sent its HELLO: what comes is CHALLENGE's Noise message to read. */
		size_t len;
		wire_hello_init(&m);
		FUZZ_CHECK(pconn_send(&c, &m, rec, sizeof rec, &len, NULL) == 0);
	}
	c.joined = (data[0] & 4) != 0;
	piece = 1 + (data[0] >> 3);
	data++;
	size--;
	while (pos < size && rc != PROTO_BROKEN) {
		if (secure) {
			/* The next record: seal the fuzzer's plaintext as the peer would. */
			size_t n;
			if (size - pos < 2)
				break;
			n = (size_t)data[pos] << 8 | data[pos + 1];
			pos += 2;
			if (n > size - pos)
				n = size - pos;
			if (n > PCONN_RECORD_MAX)
				n = PCONN_RECORD_MAX;
			/* Padded with zeros to its class (protocol 6); the fuzzer's own zeros try the padding rules. */
			size_t padded = pconn_padded(n);
			memcpy(rec + 2, data + pos, n);
			memset(rec + 2 + n, 0, padded - n);
			rec[0] = (uint8_t)((padded + NOISE_TAG_LEN) >> 8);
			rec[1] = (uint8_t)(padded + NOISE_TAG_LEN);
			FUZZ_CHECK(noise_seal(&peer.tx, rec + 2, padded, rec + 2) == 0);
			pos += n;
			in = rec;
			n_in = padded + 2 + NOISE_TAG_LEN;
		} else {
			in = data + pos;
			n_in = size - pos;
			pos = size;
		}
		for (size_t at = 0; at < n_in && rc != PROTO_BROKEN;) {
			size_t k = n_in - at < piece ? n_in - at : piece, took = pconn_feed(&c, in + at, k);

			at += took;
			while ((rc = pconn_next(&c, &m, &e)) == PROTO_DONE) {
				size_t len;

				FUZZ_CHECK(wire_encode(&m, buf, sizeof buf, &len, &e) == 0 || m.type == WIRE_CHALLENGE);
			}
			if (rc == PROTO_BROKEN) {
				FUZZ_CHECK(c.broken && e.code != PERR_OK);
				FUZZ_CHECK(pconn_next(&c, &m, &e) == PROTO_BROKEN);
			} else {
				FUZZ_CHECK(took > 0 || c.rx_end - c.rx_start < PCONN_RECORD_WIRE);
				if (took == 0)
					break;
			}
		}
	}
	pconn_finish(&c);
	pconn_finish(&peer);
	return 0;
}
