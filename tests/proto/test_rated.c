/* SPDX-License-Identifier: MIT */
/* test_rated: rated records' bytes and signatures: fixed vectors, libsodium's own verifier, forgeries refused, the signer found among a cluster's keys. */
#include <criterion/criterion.h>
#include <string.h>

#include <sodium.h>

#include "rated.h"

/* The vectors, made by this code once and kept (a change is a change of the format). */
#define VECTOR_SIGNER "cfe058a4a189ee7230e43a1347ea1a7eef01f3557991a7fd3cec8915fd290aec"
#define VECTOR_SIG "844d887832b6afe67a5db7fc46f68f00fa2b971955a0ad79c318d7664cce18e377811ac0dab29417b08123e06c06386f4cce22df37d4a21f16a2488bb244ed08"

/* The server key of the vectors: X25519 secret 0x01..0x20. */
static const uint8_t sk[32] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,
};

static struct rated_rec
vector_rec(void)
{
	struct rated_rec r;

	memset(&r, 0, sizeof r);
	r.time = 1800000000;
	memset(r.commit, 0xc0, sizeof r.commit);
	memset(r.key[0], 0xa0, sizeof r.key[0]);
	memset(r.key[1], 0xb1, sizeof r.key[1]);
	r.result = RATED_WIN0;
	r.reason = END_KILLED;
	r.before[0] = (struct rated_rating){ 1500, 500, 0.09 };
	r.before[1] = (struct rated_rating){ 1500, 500, 0.09 };
	r.after[0] = (struct rated_rating){ 1662.2, 290.3, 0.09 };
	r.after[1] = (struct rated_rating){ 1337.8, 290.3, 0.09 };
	return r;
}

static void
hex(const uint8_t *p, size_t n, char *out)
{
	sodium_bin2hex(out, 2 * n + 1, p, n);
}

Test(rated, bytes_are_the_documented_layout)
{
	struct rated_rec r = vector_rec(), back;
	uint8_t b[RATED_REC_LEN];
	char why[128];

	rated_encode(&r, b);
	cr_assert_eq(b[0], 1);
	cr_assert_eq(b[1], 0x00);
	cr_assert_eq(b[5], 0x6b); /* 1800000000 = 0x6b49d200 */
	cr_assert_eq(b[8], 0x00);
	cr_assert_eq(b[9], 0xc0);
	cr_assert_eq(b[41], 0xa0);
	cr_assert_eq(b[73], 0xb1);
	cr_assert_eq(b[105], 0);
	cr_assert_eq(b[106], 1);
	/* 1500.0 as binary64: 0x4097700000000000 */
	static const uint8_t f1500[8] = { 0x40, 0x97, 0x70, 0, 0, 0, 0, 0 };
	cr_assert(memcmp(b + 107, f1500, 8) == 0);
	cr_assert(rated_decode(b, sizeof b, &back, why, sizeof why), "%s", why);
	cr_assert_eq(back.after[1].rating, 1337.8);
	cr_assert_eq(back.time, r.time);
}

/* The signature is deterministic: these are the bytes docs/protocol.md shows. A change here is a
 * change of the signed format (bump RATED_DOMAIN). */
Test(rated, signature_vector)
{
	struct rated_rec r = vector_rec();
	uint8_t A[32], pk[32];
	char h[129];

	cr_assert_eq(sodium_init() >= 0, true);
	cr_assert_eq(rated_signer(sk, A), 0);
	cr_assert_eq(rated_sign(&r, sk), 0);
	crypto_scalarmult_base(pk, sk);
	hex(A, 32, h);
	cr_assert_str_eq(h, VECTOR_SIGNER);
	hex(r.sig, 64, h);
	cr_assert_str_eq(h, VECTOR_SIG);
	cr_assert(rated_verify(&r, A, pk));
}

Test(rated, verifies_with_plain_ed25519)
{
	struct rated_rec r = vector_rec();
	uint8_t A[32], m[sizeof RATED_DOMAIN - 1 + RATED_REC_LEN], u[32], pk[32];

	cr_assert_eq(sodium_init() >= 0, true);
	rated_signer(sk, A);
	rated_sign(&r, sk);
	memcpy(m, RATED_DOMAIN, sizeof RATED_DOMAIN - 1);
	rated_encode(&r, m + sizeof RATED_DOMAIN - 1);
	/* Any Ed25519 verifier accepts it, and the signer is the server's X25519 key on the other curve. */
	cr_assert_eq(crypto_sign_verify_detached(r.sig, m, sizeof m, A), 0);
	cr_assert_eq(crypto_sign_ed25519_pk_to_curve25519(u, A), 0);
	crypto_scalarmult_base(pk, sk);
	cr_assert(memcmp(u, pk, 32) == 0);
}

Test(rated, forgeries_refused)
{
	struct rated_rec r = vector_rec(), f;
	uint8_t A[32], pk[32], other_sk[32], other_pk[32], other_A[32];

	cr_assert_eq(sodium_init() >= 0, true);
	rated_signer(sk, A);
	rated_sign(&r, sk);
	crypto_scalarmult_base(pk, sk);
	cr_assert(rated_verify(&r, A, pk));
	/* One changed byte anywhere in the record, or in the signature. */
	for (size_t i = 0; i < RATED_SIGNED_LEN; i++) {
		uint8_t b[RATED_SIGNED_LEN];
		char why[128];
		rated_put(&r, b);
		b[i] ^= 0x01;
		if (rated_get(b, sizeof b, &f, why, sizeof why))
			cr_assert(!rated_verify(&f, A, pk), "byte %zu changed still verifies", i);
	}
	/* A winner swapped, a rating raised. */
	f = r;
	f.result = RATED_WIN1;
	cr_assert(!rated_verify(&f, A, pk));
	f = r;
	f.after[0].rating += 1;
	cr_assert(!rated_verify(&f, A, pk));
	/* Signed by another server: valid under its own signer, refused against this server's key. */
	memset(other_sk, 0x77, sizeof other_sk);
	rated_signer(other_sk, other_A);
	f = r;
	rated_sign(&f, other_sk);
	crypto_scalarmult_base(other_pk, other_sk);
	cr_assert(rated_verify(&f, other_A, other_pk));
	cr_assert(!rated_verify(&f, other_A, pk));
	cr_assert(!rated_verify(&f, A, pk));
	/* This server's signature with another signer key claimed. */
	cr_assert(!rated_verify(&r, other_A, pk));
}

Test(rated, decoder_strict)
{
	struct rated_rec r = vector_rec(), f;
	uint8_t b[RATED_REC_LEN];
	char why[128];

	rated_encode(&r, b);
	cr_assert(!rated_decode(b, sizeof b - 1, &f, why, sizeof why));
	b[0] = 2;
	cr_assert(!rated_decode(b, sizeof b, &f, why, sizeof why));
	rated_encode(&r, b);
	b[105] = 3;
	cr_assert(!rated_decode(b, sizeof b, &f, why, sizeof why));
	rated_encode(&r, b);
	b[106] = 0;
	cr_assert(!rated_decode(b, sizeof b, &f, why, sizeof why));
	rated_encode(&r, b);
	memset(b + 107, 0xff, 8); /* a NaN rating */
	cr_assert(!rated_decode(b, sizeof b, &f, why, sizeof why));
	rated_encode(&r, b);
	b[107] = 0xc0; /* a negative rating */
	cr_assert(!rated_decode(b, sizeof b, &f, why, sizeof why));
}

/* A RATED's signer among the keys a client trusts for it (this connection's, its cluster's
 * nodes'): the one that signed, whichever place it has; a signer field that names another
 * node, or a node that is not among them, finds none. */
Test(rated, signer_found_among_a_clusters_keys)
{
	uint8_t keys[3][32], node_sk[3][32], signer[3][RATED_SIGNER_LEN];
	struct rated_rec r = vector_rec();

	cr_assert(sodium_init() >= 0);
	for (int i = 0; i < 3; i++) {
		memset(node_sk[i], 0x51 + i, 32);
		cr_assert_eq(crypto_scalarmult_base(keys[i], node_sk[i]), 0);
		cr_assert_eq(rated_signer(node_sk[i], signer[i]), 0);
	}
	cr_assert_eq(rated_sign(&r, node_sk[1]), 0); /* node 1 rated it */
	cr_expect_eq(rated_signed_by(&r, signer[1], (const uint8_t (*)[32])keys, 3), keys[1]);
	cr_expect_eq(rated_signed_by(&r, signer[1], (const uint8_t (*)[32])keys + 1, 2), keys[1]);
	cr_expect_null(rated_signed_by(&r, signer[1], (const uint8_t (*)[32])keys, 1), "node 1 not among them");
	cr_expect_null(rated_signed_by(&r, signer[0], (const uint8_t (*)[32])keys, 3), "a signer that did not sign");
	cr_expect_null(rated_signed_by(&r, signer[1], (const uint8_t (*)[32])keys, 0));
	uint8_t pk[32];
	cr_assert(rated_signer_server(signer[2], pk));
	cr_expect_eq(memcmp(pk, keys[2], 32), 0, "a signer maps to its server's key");
}
