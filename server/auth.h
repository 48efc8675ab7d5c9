/* SPDX-License-Identifier: MIT */
/* auth: the server's and client's cryptography, all from libsodium: password keys, proofs, tokens, seed commitments. */
#ifndef WW_AUTH_H
#define WW_AUTH_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "game.h"
#include "proto.h"

#define AUTH_KEY_LEN 32

/*
 * A password never crosses the wire, not even inside the encrypted channel.
 * Both sides turn it into a key with crypto_pwhash (Argon2id, interactive
 * limits) over the server's own random salt (kept with its long-term key, sent
 * encrypted in CHALLENGE). A join proves the key with BLAKE2b-256 keyed by it
 * over the Noise handshake hash and the player's name (AUTH), or the hash and
 * the resume token (RESUME); the server compares in constant time. A proof is
 * good for one channel only and travels inside it (docs/server.md).
 */
struct auth_key {
	bool set; /* false: no password, proofs are all zeros and not checked */
	uint8_t salt[PROTO_PW_SALT_LEN];
	uint8_t k[AUTH_KEY_LEN];
};

/* sodium_init(); 0 or -1. Safe to call many times. */
int auth_init(void);

/* Derive the key of a password under a salt; NULL or "" gives an unset key. 0 or -1 (out of memory). */
int auth_key_derive(struct auth_key *k, const char *password, const uint8_t salt[PROTO_PW_SALT_LEN]);
void auth_key_wipe(struct auth_key *k);

/* proof = BLAKE2b-256(key; hash || data), hash the handshake's. All zeros for an unset key. */
void auth_proof(const struct auth_key *k, const uint8_t hash[PROTO_HASH_LEN], const void *data, size_t len,
                uint8_t out[PROTO_PROOF_LEN]);
/* Does `proof` prove k over hash || data? Constant time. True for an unset key. */
bool auth_check(const struct auth_key *k, const uint8_t hash[PROTO_HASH_LEN], const void *data, size_t len,
                const uint8_t proof[PROTO_PROOF_LEN]);

/* A server's long-term identity: its Noise static key and its password salt. */
struct auth_identity {
	struct noise_keypair kp;
	uint8_t salt[PROTO_PW_SALT_LEN];
};

/* A fresh identity (an in-process server: practice, tests). */
void auth_identity_new(struct auth_identity *id);
/* Load the identity kept at path, or make one there (0600, its directory 0700) when
 * there is none; *created says which. 0, or -1 with a reason (a file that is not one,
 * readable by others, or not writable). */
WW_COLD int auth_identity_load(struct auth_identity *id, const char *path, bool *created, char *why, size_t whylen);

/* A key's fingerprint: the first 16 bytes of BLAKE2b-256("wizwar-fingerprint-1"; pk), in
 * lowercase base32 (RFC 4648, no padding): 26 characters, safe in a URL fragment. */
#define AUTH_FP_LEN 26
void auth_fingerprint(const uint8_t pk[PROTO_KEY_LEN], char out[AUTH_FP_LEN + 1]);
/* The 16 bytes a fingerprint spells (HELLO's hint of the key a client pinned), from the key or from
 * the fingerprint's 26 characters (false: not a fingerprint). */
void auth_key_hint(const uint8_t pk[PROTO_KEY_LEN], uint8_t out[PROTO_KEY_HINT_LEN]);
bool auth_fingerprint_hint(const char *fp, uint8_t out[PROTO_KEY_HINT_LEN]);

/*
 * Key rotation (docs/protocol.md, "Key rotation"): the server's old X25519 key signs its new one
 * over this channel's handshake hash, so that a client that pinned the old key can move its pin.
 * The signature is Ed25519 with the old X25519 key's own scalar (the idea of Signal's XEdDSA):
 * old_ed is that scalar times Ed25519's base point, whose Montgomery form is the old X25519 public
 * key, so that a client checks crypto_sign_ed25519_pk_to_curve25519(old_ed) against its pin and then
 * the signature with libsodium's crypto_sign_verify_detached. The message signed:
 *   AUTH_ROTATE_DOMAIN || handshake hash (64) || new key (32) || until (8, big-endian Unix seconds)
 * so that it is good for this one channel and never a signature of anything else.
 */
#define AUTH_ROTATE_DOMAIN "wizwar-rotate-1"
void auth_rotate_sign(const struct noise_keypair *old, const uint8_t hash[PROTO_HASH_LEN],
                      const uint8_t new_pk[PROTO_KEY_LEN], uint64_t until, uint8_t old_ed[PROTO_KEY_LEN],
                      uint8_t sig[PROTO_ROTATE_SIG_LEN]);
/* Does sig prove, by the key `pinned`, new_pk over this hash and until? False for anything else:
 * an old_ed that is not pinned's, a bad signature, a small-order or non-canonical point. */
bool auth_rotate_verify(const uint8_t pinned[PROTO_KEY_LEN], const uint8_t hash[PROTO_HASH_LEN],
                        const uint8_t old_ed[PROTO_KEY_LEN], const uint8_t new_pk[PROTO_KEY_LEN], uint64_t until,
                        const uint8_t sig[PROTO_ROTATE_SIG_LEN]);

/* The key kept beside the new one while a rotation lasts ("wizwar-oldkey-1 SECRET UNTIL\n"). Load:
 * 0 (*until set), 1 there is none, -1 with a reason. Save: made afresh (0600) or replaced. */
WW_COLD int auth_old_key_load(struct noise_keypair *kp, uint64_t *until, const char *path, char *why, size_t whylen);
WW_COLD int auth_old_key_save(const struct noise_keypair *kp, uint64_t until, const char *path, char *why,
                              size_t whylen);
/* Write id to path, which must not exist yet (0600). 0 or -1 with a reason. */
WW_COLD int auth_identity_save(const struct auth_identity *id, const char *path, char *why, size_t whylen);

/*
 * A client's long-term identity (issue 31): an Ed25519 key pair (crypto_sign). The client proves it
 * inside the channel with IDENT: a signature over AUTH_IDENT_DOMAIN || the Noise handshake hash, so
 * the proof is good for this one channel (the hash binds both ephemerals and the server's key) and
 * never a signature over anything else this key signs. Its fingerprint is auth_fingerprint() of the
 * public key, as a server's is.
 */
#define AUTH_IDENT_DOMAIN "wizwar-ident-1"
#define AUTH_IDENT_SEED_LEN 32
struct auth_ident {
	uint8_t pk[PROTO_IDENT_KEY_LEN];
	uint8_t sk[64]; /* crypto_sign_SECRETKEYBYTES: the seed then the public key */
};
/* A fresh key pair, or the pair of a 32-byte seed (the key file holds the seed). */
void auth_ident_new(struct auth_ident *id);
void auth_ident_from_seed(struct auth_ident *id, const uint8_t seed[AUTH_IDENT_SEED_LEN]);
void auth_ident_seed(const struct auth_ident *id, uint8_t seed[AUTH_IDENT_SEED_LEN]);
void auth_ident_wipe(struct auth_ident *id);
void auth_ident_sign(const struct auth_ident *id, const uint8_t hash[PROTO_HASH_LEN], uint8_t sig[PROTO_IDENT_SIG_LEN]);
/* Does sig prove pk over this handshake hash? False for a bad signature, a small-order or
 * non-canonical key (libsodium refuses them). */
bool auth_ident_verify(const uint8_t pk[PROTO_IDENT_KEY_LEN], const uint8_t hash[PROTO_HASH_LEN],
                       const uint8_t sig[PROTO_IDENT_SIG_LEN]);

/* Unpredictable bytes (nonces, tokens, salts, seeds). */
void auth_random(void *buf, size_t n);
uint64_t auth_random64(void);

/* The seed both sides make (docs/protocol.md, "The seed"). The server's commitment to its
 * part: BLAKE2b-256 keyed with "wizwar-seed-commit-4", of the part. */
void auth_seed_commit(const uint8_t part[PROTO_PART_LEN], uint8_t out[PROTO_COMMIT_LEN]);
bool auth_seed_commit_check(const uint8_t part[PROTO_PART_LEN], const uint8_t commit[PROTO_COMMIT_LEN]);
/* The duel's seed: the first 8 bytes, big-endian, of BLAKE2b-256 keyed with "wizwar-seed-4", of the
 * server's part followed by the part of each player p whose bit is set in `parts`, in seat order. */
uint64_t auth_seed_mix(const uint8_t server_part[PROTO_PART_LEN], unsigned parts,
                       const uint8_t part[PLAYERS][PROTO_PART_LEN]);

/* A short fingerprint of a token, kept in turn logs so that players can resume into a
 * restarted host without the log ever holding the token itself. */
void auth_token_hash(const uint8_t *token, size_t len, uint8_t out[32]);

/* Constant-time equality of two equal-length buffers. */
bool auth_equal(const void *a, const void *b, size_t n);

#endif
