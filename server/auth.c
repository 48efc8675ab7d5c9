/* auth: libsodium behind a small seam: Argon2id password keys, BLAKE2b proofs and commitments, random bytes. */
#include <string.h>

#include <sodium.h>

#include "auth.h"

/* Changing this string changes every key: it is part of the protocol. */
static const char salt_text[] = "wizwar-pw-salt-1";

int
auth_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

int
auth_key_derive(struct auth_key *k, const char *password)
{
	uint8_t salt[crypto_pwhash_SALTBYTES];

	memset(k, 0, sizeof *k);
	if (password == NULL || password[0] == '\0')
		return 0;
	_Static_assert(sizeof salt_text - 1 == crypto_pwhash_SALTBYTES, "salt length");
	memcpy(salt, salt_text, sizeof salt);
	if (crypto_pwhash(k->k, sizeof k->k, password, strlen(password), salt, crypto_pwhash_OPSLIMIT_INTERACTIVE,
	                  crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) != 0)
		return -1;
	k->set = true;
	return 0;
}

void
auth_key_wipe(struct auth_key *k)
{
	sodium_memzero(k, sizeof *k);
}

void
auth_proof(const struct auth_key *k, const uint8_t nonce[PROTO_NONCE_LEN], const void *data, size_t len,
           uint8_t out[PROTO_PROOF_LEN])
{
	crypto_generichash_state st;

	if (!k->set) {
		memset(out, 0, PROTO_PROOF_LEN);
		return;
	}
	crypto_generichash_init(&st, k->k, sizeof k->k, PROTO_PROOF_LEN);
	crypto_generichash_update(&st, nonce, PROTO_NONCE_LEN);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, out, PROTO_PROOF_LEN);
	sodium_memzero(&st, sizeof st);
}

bool
auth_check(const struct auth_key *k, const uint8_t nonce[PROTO_NONCE_LEN], const void *data, size_t len,
           const uint8_t proof[PROTO_PROOF_LEN])
{
	uint8_t want[PROTO_PROOF_LEN];
	bool ok;

	if (!k->set)
		return true;
	auth_proof(k, nonce, data, len, want);
	ok = sodium_memcmp(want, proof, PROTO_PROOF_LEN) == 0;
	sodium_memzero(want, sizeof want);
	return ok;
}

void
auth_random(void *buf, size_t n)
{
	randombytes_buf(buf, n);
}

uint64_t
auth_random64(void)
{
	uint64_t v;

	randombytes_buf(&v, sizeof v);
	return v;
}

void
auth_commit(uint64_t seed, const uint8_t salt[PROTO_SALT_LEN], uint8_t out[PROTO_COMMIT_LEN])
{
	uint8_t in[8 + PROTO_SALT_LEN];

	for (int i = 0; i < 8; i++)
		in[i] = (uint8_t)(seed >> (56 - 8 * i));
	memcpy(in + 8, salt, PROTO_SALT_LEN);
	crypto_generichash(out, PROTO_COMMIT_LEN, in, sizeof in, NULL, 0);
}

bool
auth_commit_check(uint64_t seed, const uint8_t salt[PROTO_SALT_LEN], const uint8_t commit[PROTO_COMMIT_LEN])
{
	uint8_t want[PROTO_COMMIT_LEN];

	auth_commit(seed, salt, want);
	return sodium_memcmp(want, commit, PROTO_COMMIT_LEN) == 0;
}

void
auth_token_hash(const uint8_t *token, size_t len, uint8_t out[32])
{
	static const uint8_t domain[] = "wizwar-resume-token-1";

	crypto_generichash(out, 32, token, len, domain, sizeof domain - 1);
}

bool
auth_equal(const void *a, const void *b, size_t n)
{
	return sodium_memcmp(a, b, n) == 0;
}
