/* SPDX-License-Identifier: MIT */
/* noise: Noise_NX_25519_ChaChaPoly_BLAKE2b (revision 34) on libsodium: the symmetric state, the two messages, transport. */
#include <string.h>

#include <sodium.h>

#include "noise.h"

#define BLOCK 128 /* BLAKE2b's block, HMAC's pad length */

/* HMAC-BLAKE2b (RFC 2104) over two pieces of data. */
static void
hmac2(const uint8_t key[NOISE_HASH_LEN], const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
      uint8_t out[NOISE_HASH_LEN])
{
	uint8_t pad[BLOCK], inner[NOISE_HASH_LEN];
	crypto_generichash_state st;

	memset(pad, 0x36, sizeof pad);
	for (int i = 0; i < NOISE_HASH_LEN; i++)
		pad[i] ^= key[i];
	crypto_generichash_init(&st, NULL, 0, NOISE_HASH_LEN);
	crypto_generichash_update(&st, pad, sizeof pad);
	crypto_generichash_update(&st, a, alen);
	crypto_generichash_update(&st, b, blen);
	crypto_generichash_final(&st, inner, sizeof inner);
	memset(pad, 0x5c, sizeof pad);
	for (int i = 0; i < NOISE_HASH_LEN; i++)
		pad[i] ^= key[i];
	crypto_generichash_init(&st, NULL, 0, NOISE_HASH_LEN);
	crypto_generichash_update(&st, pad, sizeof pad);
	crypto_generichash_update(&st, inner, sizeof inner);
	crypto_generichash_final(&st, out, NOISE_HASH_LEN);
	sodium_memzero(pad, sizeof pad);
	sodium_memzero(inner, sizeof inner);
	sodium_memzero(&st, sizeof st);
}

void
noise_hmac(const uint8_t key[NOISE_HASH_LEN], const uint8_t *data, size_t len, uint8_t out[NOISE_HASH_LEN])
{
	hmac2(key, data, len, NULL, 0, out);
}

void
noise_hkdf(const uint8_t ck[NOISE_HASH_LEN], const uint8_t *ikm, size_t len, uint8_t out1[NOISE_HASH_LEN],
           uint8_t out2[NOISE_HASH_LEN])
{
	uint8_t temp[NOISE_HASH_LEN];
	static const uint8_t one = 1, two = 2;

	hmac2(ck, ikm, len, NULL, 0, temp);
	hmac2(temp, &one, 1, NULL, 0, out1);
	hmac2(temp, out1, NOISE_HASH_LEN, &two, 1, out2);
	sodium_memzero(temp, sizeof temp);
}

void
noise_keypair_new(struct noise_keypair *kp)
{
	crypto_box_keypair(kp->pk, kp->sk);
}

int
noise_keypair_from(struct noise_keypair *kp, const uint8_t sk[NOISE_KEY_LEN])
{
	memcpy(kp->sk, sk, NOISE_KEY_LEN);
	return crypto_scalarmult_base(kp->pk, kp->sk) == 0 ? 0 : -1;
}

/* ---- CipherState ---- */

static void
nonce12(uint64_t n, uint8_t out[12])
{
	/* 32 bits of zeros, then n little-endian (Noise's ChaChaPoly). */
	memset(out, 0, 4);
	for (int i = 0; i < 8; i++)
		out[4 + i] = (uint8_t)(n >> (8 * i));
}

static int
encrypt_ad(struct noise_cipher *c, const uint8_t *ad, size_t adlen, const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t nonce[12];
	unsigned long long clen;

	if (c->n == UINT64_MAX) /* reserved: the connection must end before it */
		return -1;
	nonce12(c->n, nonce);
	crypto_aead_chacha20poly1305_ietf_encrypt(out, &clen, in, len, ad, adlen, NULL, nonce, c->k);
	c->n++;
	return 0;
}

static int
decrypt_ad(struct noise_cipher *c, const uint8_t *ad, size_t adlen, const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t nonce[12];
	unsigned long long plen;

	if (len < NOISE_TAG_LEN || c->n == UINT64_MAX)
		return -1;
	nonce12(c->n, nonce);
	if (crypto_aead_chacha20poly1305_ietf_decrypt(out, &plen, NULL, in, len, ad, adlen, nonce, c->k) != 0)
		return -1;
	c->n++;
	return 0;
}

int
noise_seal(struct noise_cipher *c, const uint8_t *in, size_t len, uint8_t *out)
{
	return encrypt_ad(c, NULL, 0, in, len, out);
}

int
noise_open(struct noise_cipher *c, const uint8_t *in, size_t len, uint8_t *out)
{
	return decrypt_ad(c, NULL, 0, in, len, out);
}

/* ---- SymmetricState ---- */

static void
mix_hash(struct noise_hs *hs, const uint8_t *data, size_t len)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, NOISE_HASH_LEN);
	crypto_generichash_update(&st, hs->h, NOISE_HASH_LEN);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, hs->h, NOISE_HASH_LEN);
}

static void
mix_key(struct noise_hs *hs, const uint8_t *ikm, size_t len)
{
	uint8_t k[NOISE_HASH_LEN];

	noise_hkdf(hs->ck, ikm, len, hs->ck, k);
	memcpy(hs->c.k, k, NOISE_KEY_LEN); /* HASHLEN 64: truncated to 32 */
	hs->c.n = 0;
	hs->c.has_key = true;
	sodium_memzero(k, sizeof k);
}

/* EncryptAndHash: plain (and hashed) until a key is mixed in. */
static void
encrypt_hash(struct noise_hs *hs, const uint8_t *in, size_t len, uint8_t *out, size_t *outlen)
{
	if (hs->c.has_key) {
		encrypt_ad(&hs->c, hs->h, NOISE_HASH_LEN, in, len, out);
		*outlen = len + NOISE_TAG_LEN;
	} else {
		if (len)
			memmove(out, in, len);
		*outlen = len;
	}
	mix_hash(hs, out, *outlen);
}

static int
decrypt_hash(struct noise_hs *hs, const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t h[NOISE_HASH_LEN];

	if (!hs->c.has_key) {
		if (len)
			memmove(out, in, len);
		mix_hash(hs, in, len);
		return 0;
	}
	memcpy(h, hs->h, sizeof h);
	mix_hash(hs, in, len); /* h over the ciphertext, as the sender did */
	return decrypt_ad(&hs->c, h, sizeof h, in, len, out);
}

static int
dh_mix(struct noise_hs *hs, const uint8_t sk[NOISE_KEY_LEN], const uint8_t pk[NOISE_KEY_LEN])
{
	uint8_t shared[NOISE_KEY_LEN];

	/* libsodium refuses an all-zero result (a low-order point): so do we. */
	if (crypto_scalarmult(shared, sk, pk) != 0)
		return -1;
	mix_key(hs, shared, sizeof shared);
	sodium_memzero(shared, sizeof shared);
	return 0;
}

void
noise_init(struct noise_hs *hs, int role, const void *prologue, size_t plen, const struct noise_keypair *s,
           const uint8_t *e_fixed)
{
	memset(hs, 0, sizeof *hs);
	hs->role = role;
	_Static_assert(sizeof NOISE_NAME - 1 <= NOISE_HASH_LEN, "the name is padded, not hashed");
	memcpy(hs->h, NOISE_NAME, sizeof NOISE_NAME - 1);
	memcpy(hs->ck, hs->h, NOISE_HASH_LEN);
	mix_hash(hs, prologue, plen);
	if (s)
		hs->s = *s;
	if (e_fixed)
		noise_keypair_from(&hs->e, e_fixed);
	else
		noise_keypair_new(&hs->e);
}

int
noise_write1(struct noise_hs *hs, uint8_t out[NOISE_MSG1_LEN])
{
	size_t n;

	if (hs->role != NOISE_INITIATOR || hs->step != 0)
		return -1;
	memcpy(out, hs->e.pk, NOISE_KEY_LEN);
	mix_hash(hs, hs->e.pk, NOISE_KEY_LEN);
	encrypt_hash(hs, NULL, 0, out + NOISE_KEY_LEN, &n); /* the empty payload is hashed too */
	hs->step = 1;
	return 0;
}

int
noise_read1(struct noise_hs *hs, const uint8_t *in, size_t len)
{
	if (hs->role != NOISE_RESPONDER || hs->step != 0 || len != NOISE_MSG1_LEN)
		return -1;
	memcpy(hs->re, in, NOISE_KEY_LEN);
	mix_hash(hs, hs->re, NOISE_KEY_LEN);
	decrypt_hash(hs, in + NOISE_KEY_LEN, 0, NULL);
	hs->step = 1;
	return 0;
}

int
noise_write2(struct noise_hs *hs, const uint8_t *payload, size_t plen, uint8_t *out, size_t cap, size_t *outlen)
{
	size_t n, at = 0;

	if (hs->role != NOISE_RESPONDER || hs->step != 1 || cap < NOISE_MSG2_LEN(plen))
		return -1;
	memcpy(out, hs->e.pk, NOISE_KEY_LEN);                             /* e */
	mix_hash(hs, hs->e.pk, NOISE_KEY_LEN);
	at = NOISE_KEY_LEN;
	if (dh_mix(hs, hs->e.sk, hs->re) < 0)                             /* ee */
		return -1;
	encrypt_hash(hs, hs->s.pk, NOISE_KEY_LEN, out + at, &n);          /* s */
	at += n;
	if (dh_mix(hs, hs->s.sk, hs->re) < 0)                             /* es */
		return -1;
	encrypt_hash(hs, payload, plen, out + at, &n);
	at += n;
	*outlen = at;
	hs->step = 2;
	return 0;
}

int
noise_read2(struct noise_hs *hs, const uint8_t *in, size_t len, uint8_t *payload, size_t cap, size_t *plen)
{
	size_t at;

	if (hs->role != NOISE_INITIATOR || hs->step != 1 || len < NOISE_MSG2_LEN(0) ||
	    len - NOISE_MSG2_LEN(0) > cap)
		return -1;
	memcpy(hs->re, in, NOISE_KEY_LEN);                                /* e */
	mix_hash(hs, hs->re, NOISE_KEY_LEN);
	at = NOISE_KEY_LEN;
	if (dh_mix(hs, hs->e.sk, hs->re) < 0)                             /* ee */
		return -1;
	if (decrypt_hash(hs, in + at, NOISE_KEY_LEN + NOISE_TAG_LEN, hs->rs) < 0) /* s */
		return -1;
	hs->has_rs = true;
	at += NOISE_KEY_LEN + NOISE_TAG_LEN;
	if (dh_mix(hs, hs->e.sk, hs->rs) < 0)                             /* es */
		return -1;
	if (decrypt_hash(hs, in + at, len - at, payload) < 0)
		return -1;
	*plen = len - at - NOISE_TAG_LEN;
	hs->step = 2;
	return 0;
}

void
noise_split(struct noise_hs *hs, struct noise_cipher *tx, struct noise_cipher *rx)
{
	uint8_t k1[NOISE_HASH_LEN], k2[NOISE_HASH_LEN];
	struct noise_cipher *c1 = hs->role == NOISE_INITIATOR ? tx : rx;
	struct noise_cipher *c2 = hs->role == NOISE_INITIATOR ? rx : tx;

	noise_hkdf(hs->ck, NULL, 0, k1, k2);
	memcpy(c1->k, k1, NOISE_KEY_LEN);
	memcpy(c2->k, k2, NOISE_KEY_LEN);
	c1->n = c2->n = 0;
	c1->has_key = c2->has_key = true;
	sodium_memzero(k1, sizeof k1);
	sodium_memzero(k2, sizeof k2);
}

const uint8_t *
noise_hash(const struct noise_hs *hs)
{
	return hs->h;
}

const uint8_t *
noise_remote_static(const struct noise_hs *hs)
{
	return hs->has_rs ? hs->rs : NULL;
}

void
noise_wipe(struct noise_hs *hs)
{
	uint8_t h[NOISE_HASH_LEN], rs[NOISE_KEY_LEN];
	bool has_rs = hs->has_rs;
	int role = hs->role, step = hs->step;

	/* Keep only what is public and still asked for: h and the remote static key. */
	memcpy(h, hs->h, sizeof h);
	memcpy(rs, hs->rs, sizeof rs);
	sodium_memzero(hs, sizeof *hs);
	memcpy(hs->h, h, sizeof h);
	memcpy(hs->rs, rs, sizeof rs);
	hs->has_rs = has_rs;
	hs->role = role;
	hs->step = step;
}
