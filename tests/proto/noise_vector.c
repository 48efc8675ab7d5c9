/* SPDX-License-Identifier: MIT */
/* noise_vector: one Noise_NX handshake and two transport messages from given keys, for a second implementation to check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "game.h"
#include "noise.h"
#include "proto.h"

/*
 * Usage: noise_vector S_SK E_INIT E_RESP PROLOGUE PAYLOAD PING PONG   (all hex)
 * Prints msg1, msg2, the payload as read back, h, and PING sealed by the initiator
 * and PONG by the responder, one "name hex" a line. tests/proto/noise_interop.py
 * runs it against python3-dissononce, an independent implementation.
 */
static size_t
unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n;

	if (sodium_hex2bin(out, cap, s, strlen(s), NULL, &n, NULL) != 0) {
		fprintf(stderr, "noise_vector: bad hex '%s'\n", s);
		exit(2);
	}
	return n;
}

static void
show(const char *name, const uint8_t *p, size_t n)
{
	printf("%s ", name);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

int
main(int argc, char **argv)
{
	static struct noise_hs ini, resp;
	struct noise_keypair s;
	struct noise_cipher itx, irx, rtx, rrx;
	uint8_t ssk[32], e1[32], e2[32], pro[256], pay[256], got[256], ping[256], pong[256];
	uint8_t m1[NOISE_MSG1_LEN], m2[NOISE_MSG2_LEN(256)], c1[256 + 16], c2[256 + 16], back[256];
	size_t np, npay, nping, npong, n2, ngot;

	if (argc == 2 && strcmp(argv[1], "--versions") == 0) {
		printf("%d %d\n", PROTO_VERSION, RULES_VERSION);
		return 0;
	}
	if (argc != 8 || sodium_init() < 0)
		return 2;
	unhex(argv[1], ssk, 32);
	unhex(argv[2], e1, 32);
	unhex(argv[3], e2, 32);
	np = unhex(argv[4], pro, sizeof pro);
	npay = unhex(argv[5], pay, sizeof pay);
	nping = unhex(argv[6], ping, sizeof ping);
	npong = unhex(argv[7], pong, sizeof pong);
	noise_keypair_from(&s, ssk);
	noise_init(&ini, NOISE_INITIATOR, pro, np, NULL, e1);
	noise_init(&resp, NOISE_RESPONDER, pro, np, &s, e2);
	if (noise_write1(&ini, m1) || noise_read1(&resp, m1, sizeof m1) ||
	    noise_write2(&resp, pay, npay, m2, sizeof m2, &n2) || noise_read2(&ini, m2, n2, got, sizeof got, &ngot))
		return 1;
	show("msg1", m1, sizeof m1);
	show("msg2", m2, n2);
	show("payload", got, ngot);
	show("h", noise_hash(&ini), NOISE_HASH_LEN);
	if (memcmp(noise_hash(&ini), noise_hash(&resp), NOISE_HASH_LEN) != 0)
		return 1;
	noise_split(&ini, &itx, &irx);
	noise_split(&resp, &rtx, &rrx);
	noise_seal(&itx, ping, nping, c1);
	noise_seal(&rtx, pong, npong, c2);
	show("ping", c1, nping + 16);
	show("pong", c2, npong + 16);
	if (noise_open(&rrx, c1, nping + 16, back) || memcmp(back, ping, nping) ||
	    noise_open(&irx, c2, npong + 16, back) || memcmp(back, pong, npong))
		return 1;
	return 0;
}
