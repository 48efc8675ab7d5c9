/* SPDX-License-Identifier: MIT */
/* noise: the Noise_NX_25519_ChaChaPoly_BLAKE2b handshake and its transport ciphers, from libsodium's primitives. No I/O. */
#ifndef WW_NOISE_H
#define WW_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Noise Protocol Framework (revision 34, noiseprotocol.org), pattern NX:
 *     -> e
 *     <- e, ee, s, es
 * The client (initiator) stays anonymous; the server (responder) sends its
 * static key encrypted and proves it holds it (es). After the second message
 * both ends Split() into two transport ciphers. Every primitive is libsodium's:
 * X25519 (crypto_scalarmult), ChaCha20-Poly1305 IETF with Noise's nonce layout
 * (crypto_aead_chacha20poly1305_ietf_*), BLAKE2b-512 (crypto_generichash) in
 * Noise's HMAC/HKDF. Checked against an independent implementation
 * (tests/proto/noise_interop.py, python3-dissononce).
 */
#define NOISE_NAME "Noise_NX_25519_ChaChaPoly_BLAKE2b"
#define NOISE_KEY_LEN 32   /* DHLEN, and a cipher key */
#define NOISE_HASH_LEN 64  /* HASHLEN of BLAKE2b */
#define NOISE_TAG_LEN 16
#define NOISE_MSG1_LEN NOISE_KEY_LEN /* e, and an empty payload */
/* e, the static key encrypted, then the payload encrypted. */
#define NOISE_MSG2_LEN(payload) (NOISE_KEY_LEN + NOISE_KEY_LEN + NOISE_TAG_LEN + (payload) + NOISE_TAG_LEN)

struct noise_keypair {
	uint8_t sk[NOISE_KEY_LEN];
	uint8_t pk[NOISE_KEY_LEN];
};

/* One direction of transport: a key and a 64-bit counter nonce. */
struct noise_cipher {
	uint8_t k[NOISE_KEY_LEN];
	uint64_t n;
	bool has_key;
};

enum noise_role { NOISE_INITIATOR = 0, NOISE_RESPONDER = 1 };

struct noise_hs {
	int role;
	int step;                  /* messages done: 0, 1, 2 (then split) */
	uint8_t h[NOISE_HASH_LEN];
	uint8_t ck[NOISE_HASH_LEN];
	struct noise_cipher c;     /* the handshake's CipherState */
	struct noise_keypair e, s; /* s: the responder's static key */
	uint8_t re[NOISE_KEY_LEN], rs[NOISE_KEY_LEN];
	bool has_rs;
};

/* A fresh key pair from randombytes, or the pair of a given secret (tests, examples). */
void noise_keypair_new(struct noise_keypair *kp);
int noise_keypair_from(struct noise_keypair *kp, const uint8_t sk[NOISE_KEY_LEN]);

/* Start a handshake. The responder passes its static key pair; the initiator NULL.
 * `e_fixed` is a fixed ephemeral secret for test vectors only; NULL: a fresh one. */
void noise_init(struct noise_hs *hs, int role, const void *prologue, size_t plen, const struct noise_keypair *s,
                const uint8_t *e_fixed);

/* Initiator: message 1 (NOISE_MSG1_LEN bytes). Responder: read it. 0 or -1. */
int noise_write1(struct noise_hs *hs, uint8_t out[NOISE_MSG1_LEN]);
int noise_read1(struct noise_hs *hs, const uint8_t *in, size_t len);

/* Responder: message 2 carrying `payload` encrypted. Initiator: read it, decrypting the
 * payload into out (len - NOISE_MSG2_LEN(0) bytes). Both then split into tx/rx.
 * 0 or -1 (a bad length, a low-order key, or a failed tag: the peer is not who it claims,
 * or someone changed the bytes). */
int noise_write2(struct noise_hs *hs, const uint8_t *payload, size_t plen, uint8_t *out, size_t cap, size_t *outlen);
int noise_read2(struct noise_hs *hs, const uint8_t *in, size_t len, uint8_t *payload, size_t cap, size_t *plen);

/* After message 2: the two transport ciphers of this side, and the handshake hash
 * (a value both ends share and nobody else can make: proofs are bound to it). */
void noise_split(struct noise_hs *hs, struct noise_cipher *tx, struct noise_cipher *rx);
const uint8_t *noise_hash(const struct noise_hs *hs);
/* Initiator, after message 2: the responder's static public key. */
const uint8_t *noise_remote_static(const struct noise_hs *hs);
void noise_wipe(struct noise_hs *hs);

/* Transport: seal / open one message with ad empty and the next nonce.
 * Seal writes len + NOISE_TAG_LEN bytes; open writes len - NOISE_TAG_LEN. 0 or -1. */
int noise_seal(struct noise_cipher *c, const uint8_t *in, size_t len, uint8_t *out);
int noise_open(struct noise_cipher *c, const uint8_t *in, size_t len, uint8_t *out);

/* HMAC-BLAKE2b and HKDF as Noise defines them (exposed for tests). */
void noise_hmac(const uint8_t key[NOISE_HASH_LEN], const uint8_t *data, size_t len, uint8_t out[NOISE_HASH_LEN]);
void noise_hkdf(const uint8_t ck[NOISE_HASH_LEN], const uint8_t *ikm, size_t len, uint8_t out1[NOISE_HASH_LEN],
                uint8_t out2[NOISE_HASH_LEN]);

#endif
