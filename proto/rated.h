/* SPDX-License-Identifier: MIT */
/* rated: a rated duel's record, its exact bytes, and its signature by the server's key (made and checked on both sides). */
#ifndef WW_RATED_H
#define WW_RATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "proto.h"

/*
 * A rated duel's record (docs/protocol.md, "Rated duels"): what the server signs when it rates a
 * duel, and what a player keeps and checks offline. Big-endian, RATED_REC_LEN bytes:
 *
 *   u8 version (1) | u64 time (Unix seconds the result was recorded) | commit[32] (the duel's seed
 *   commitment: the duel's id) | key0[32] | key1[32] (the players' Ed25519 keys, seat order) |
 *   u8 result (0: player 0 won, 1: player 1 won, 2: a draw) | u8 reason (enum end_reason) |
 *   for player 0 then player 1: rating, deviation, volatility before, then the same after, each an
 *   IEEE 754 binary64 (its bits as a u64).
 *
 * The signature is an Ed25519 signature over RATED_DOMAIN || the record, by the server's Noise
 * static key itself, used on the Edwards curve as XEdDSA does (Signal's "XEdDSA and VXEdDSA"): its
 * X25519 secret scalar a signs, and the signer's key A = a*B goes with the records. A verifier
 * needs nothing but the server's X25519 key (its fingerprint): A must map to that key on the
 * Montgomery curve (crypto_sign_ed25519_pk_to_curve25519), and the signature must verify under A
 * (crypto_sign_verify_detached). No second key to keep, rotate or lose.
 */
#define RATED_DOMAIN "wizwar-rated-1"
#define RATED_VERSION 1
#define RATED_REC_LEN 203
#define RATED_SIG_LEN 64
#define RATED_SIGNED_LEN (RATED_REC_LEN + RATED_SIG_LEN)
#define RATED_SIGNER_LEN 32

enum rated_result { RATED_WIN0 = 0, RATED_WIN1 = 1, RATED_DRAW = 2 };

struct rated_rating {
	double rating, deviation, volatility;
};

struct rated_rec {
	uint64_t time;
	uint8_t commit[PROTO_COMMIT_LEN];
	uint8_t key[PLAYERS][PROTO_IDENT_KEY_LEN];
	uint8_t result;                           /* enum rated_result */
	uint8_t reason;                           /* enum end_reason */
	struct rated_rating before[PLAYERS], after[PLAYERS];
	uint8_t sig[RATED_SIG_LEN];
};

/* The record's bytes (without the signature). */
void rated_encode(const struct rated_rec *r, uint8_t out[RATED_REC_LEN]);
/* Strict: the version, result and reason in range, every number finite and within what a
 * Glicko-2 rating can be. true, or false with a reason. */
bool rated_decode(const uint8_t *p, size_t len, struct rated_rec *r, char *why, size_t whylen);
/* The record and its signature (RATED_SIGNED_LEN bytes) and back. */
void rated_put(const struct rated_rec *r, uint8_t out[RATED_SIGNED_LEN]);
bool rated_get(const uint8_t *p, size_t len, struct rated_rec *r, char *why, size_t whylen);

/* The signer's key A from the server's X25519 secret key (32 bytes). 0, or -1 (a secret whose
 * point is the identity: never a real key). */
int rated_signer(const uint8_t x25519_sk[32], uint8_t signer[RATED_SIGNER_LEN]);
/* Sign r (fills r->sig). Deterministic: the nonce is BLAKE2b-512 keyed by the secret of the
 * message. 0, or -1 as rated_signer. */
int rated_sign(struct rated_rec *r, const uint8_t x25519_sk[32]);
/* Does r carry a signature by the server whose X25519 public key is `server_pk`, through the
 * signer key `signer`? Any other key, byte or signature: false. */
bool rated_verify(const struct rated_rec *r, const uint8_t signer[RATED_SIGNER_LEN], const uint8_t server_pk[32]);

/* The X25519 key (the server's public key, whose fingerprint a client pins) that a signer key A
 * stands for: A's Montgomery u. False for bytes that are no Edwards point (no server's). Which
 * server signed a record, when records of several (a cluster's nodes) come together. */
bool rated_signer_server(const uint8_t signer[RATED_SIGNER_LEN], uint8_t server_pk[32]);

/* Of n server keys (keys[i], 32 bytes each), the one whose signature r carries through `signer`,
 * or NULL: a client's trust for a RATED is "this connection's key, or a node's it finished a
 * handshake with in this run" (client/net.c), and nothing else verifies. */
const uint8_t *rated_signed_by(const struct rated_rec *r, const uint8_t signer[RATED_SIGNER_LEN],
                               const uint8_t (*keys)[32], size_t n);

/* The outcome seen by player p: 1 a win, 0.5 a draw, 0 a loss. */
double rated_score(const struct rated_rec *r, int p);

#endif
