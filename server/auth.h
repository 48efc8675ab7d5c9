/* auth: the server's and client's cryptography, all from libsodium: password keys, proofs, tokens, seed commitments. */
#ifndef WW_AUTH_H
#define WW_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define AUTH_KEY_LEN 32

/*
 * A password never crosses the wire. Both sides turn it into a key with
 * crypto_pwhash (Argon2id, interactive limits) over a fixed, versioned salt
 * (CHALLENGE has no salt field: see docs/server.md), once per process. A join
 * then proves the key with BLAKE2b-256 keyed by it over the server's fresh
 * nonce and the player's name (AUTH), or over the nonce and the resume token
 * (RESUME), and the server compares in constant time (sodium_memcmp).
 */
struct auth_key {
	bool set; /* false: no password, proofs are all zeros and not checked */
	uint8_t k[AUTH_KEY_LEN];
};

/* sodium_init(); 0 or -1. Safe to call many times. */
int auth_init(void);

/* Derive the key of a password; NULL or "" gives an unset key. 0 or -1 (out of memory). */
int auth_key_derive(struct auth_key *k, const char *password);
void auth_key_wipe(struct auth_key *k);

/* proof = BLAKE2b-256(key; nonce || data). All zeros for an unset key. */
void auth_proof(const struct auth_key *k, const uint8_t nonce[PROTO_NONCE_LEN], const void *data, size_t len,
                uint8_t out[PROTO_PROOF_LEN]);
/* Does `proof` prove k over nonce || data? Constant time. True for an unset key. */
bool auth_check(const struct auth_key *k, const uint8_t nonce[PROTO_NONCE_LEN], const void *data, size_t len,
                const uint8_t proof[PROTO_PROOF_LEN]);

/* Unpredictable bytes (nonces, tokens, salts, seeds). */
void auth_random(void *buf, size_t n);
uint64_t auth_random64(void);

/* The fair-host commitment: BLAKE2b-256(seed as 8 big-endian bytes || salt). */
void auth_commit(uint64_t seed, const uint8_t salt[PROTO_SALT_LEN], uint8_t out[PROTO_COMMIT_LEN]);
bool auth_commit_check(uint64_t seed, const uint8_t salt[PROTO_SALT_LEN], const uint8_t commit[PROTO_COMMIT_LEN]);

/* A short fingerprint of a token, kept in turn logs so that players can resume into a
 * restarted host without the log ever holding the token itself. */
void auth_token_hash(const uint8_t *token, size_t len, uint8_t out[32]);

/* Constant-time equality of two equal-length buffers. */
bool auth_equal(const void *a, const void *b, size_t n);

#endif
