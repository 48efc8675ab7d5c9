/* SPDX-License-Identifier: MIT */
/* auth: libsodium behind a small seam: Argon2id password keys, BLAKE2b proofs and commitments, random bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"

int
auth_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

int
auth_key_derive(struct auth_key *k, const char *password, const uint8_t salt[PROTO_PW_SALT_LEN])
{
	_Static_assert(PROTO_PW_SALT_LEN == crypto_pwhash_SALTBYTES, "salt length");
	memset(k, 0, sizeof *k);
	memcpy(k->salt, salt, PROTO_PW_SALT_LEN);
	if (password == NULL || password[0] == '\0')
		return 0;
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
auth_proof(const struct auth_key *k, const uint8_t hash[PROTO_HASH_LEN], const void *data, size_t len,
           uint8_t out[PROTO_PROOF_LEN])
{
	crypto_generichash_state st;

	if (!k->set) {
		memset(out, 0, PROTO_PROOF_LEN);
		return;
	}
	crypto_generichash_init(&st, k->k, sizeof k->k, PROTO_PROOF_LEN);
	crypto_generichash_update(&st, hash, PROTO_HASH_LEN);
	crypto_generichash_update(&st, data, len);
	crypto_generichash_final(&st, out, PROTO_PROOF_LEN);
	sodium_memzero(&st, sizeof st);
}

bool
auth_check(const struct auth_key *k, const uint8_t hash[PROTO_HASH_LEN], const void *data, size_t len,
           const uint8_t proof[PROTO_PROOF_LEN])
{
	uint8_t want[PROTO_PROOF_LEN];
	bool ok;

	if (!k->set)
		return true;
	auth_proof(k, hash, data, len, want);
	ok = sodium_memcmp(want, proof, PROTO_PROOF_LEN) == 0;
	sodium_memzero(want, sizeof want);
	return ok;
}

void
auth_identity_new(struct auth_identity *id)
{
	noise_keypair_new(&id->kp);
	randombytes_buf(id->salt, sizeof id->salt);
}

/* The file: one line, "wizwar-key-1 SECRET SALT\n", both in lowercase hex. */
#define KEY_MAGIC "wizwar-key-1"
#define KEY_FILE_LEN (sizeof KEY_MAGIC - 1 + 1 + 2 * NOISE_KEY_LEN + 1 + 2 * PROTO_PW_SALT_LEN + 1)

static int
parse_identity(struct auth_identity *id, const char *text, size_t len)
{
	const char *p = text + sizeof KEY_MAGIC;
	uint8_t sk[NOISE_KEY_LEN];
	size_t n;
	int rc = -1;

	if (len != KEY_FILE_LEN || memcmp(text, KEY_MAGIC " ", sizeof KEY_MAGIC) != 0 || text[len - 1] != '\n' ||
	    p[2 * NOISE_KEY_LEN] != ' ')
		return -1;
	if (sodium_hex2bin(sk, sizeof sk, p, 2 * NOISE_KEY_LEN, NULL, &n, NULL) == 0 && n == sizeof sk &&
	    sodium_hex2bin(id->salt, sizeof id->salt, p + 2 * NOISE_KEY_LEN + 1, 2 * PROTO_PW_SALT_LEN, NULL, &n,
	                   NULL) == 0 && n == sizeof id->salt)
		rc = noise_keypair_from(&id->kp, sk);
	sodium_memzero(sk, sizeof sk);
	return rc;
}

int
auth_identity_load(struct auth_identity *id, const char *path, bool *created, char *why, size_t whylen)
{
	char text[KEY_FILE_LEN + 2];
	struct stat st;
	ssize_t got;
	int fd;

	*created = false;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			snprintf(why, whylen, "%s is not a regular file", path);
			return -1;
		}
		if (st.st_mode & 077) {
			close(fd);
			snprintf(why, whylen, "%s is readable by others (mode %03o): chmod 600 it, or remove it for a new key",
			         path, (unsigned)(st.st_mode & 0777));
			return -1;
		}
		got = read(fd, text, sizeof text);
		close(fd);
		if (got < 0 || parse_identity(id, text, (size_t)got) != 0) {
			sodium_memzero(text, sizeof text);
			snprintf(why, whylen, "%s is not a wizwar server key (remove it to make a new one)", path);
			return -1;
		}
		sodium_memzero(text, sizeof text);
		return 0;
	}
	if (errno != ENOENT) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	auth_identity_new(id);
	{
		char sk[2 * NOISE_KEY_LEN + 1], salt[2 * PROTO_PW_SALT_LEN + 1];
		int n;
		sodium_bin2hex(sk, sizeof sk, id->kp.sk, sizeof id->kp.sk);
		sodium_bin2hex(salt, sizeof salt, id->salt, sizeof id->salt);
		n = snprintf(text, sizeof text, KEY_MAGIC " %s %s\n", sk, salt);
		sodium_memzero(sk, sizeof sk);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
		    write(fd, text, (size_t)n) != n || fsync(fd) != 0) {
			snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(path);
			}
			sodium_memzero(text, sizeof text);
			return -1;
		}
		close(fd);
		sodium_memzero(text, sizeof text);
	}
	*created = true;
	return 0;
}

void
auth_fingerprint(const uint8_t pk[PROTO_KEY_LEN], char out[AUTH_FP_LEN + 1])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	static const uint8_t domain[] = "wizwar-fingerprint-1";
	uint8_t h[32];
	unsigned bits = 0, acc = 0;
	size_t o = 0;

	crypto_generichash(h, sizeof h, pk, PROTO_KEY_LEN, domain, sizeof domain - 1);
	for (size_t i = 0; i < 16; i++) {
		acc = (acc << 8) | h[i];
		bits += 8;
		while (bits >= 5) {
			out[o++] = alphabet[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits)
		out[o++] = alphabet[(acc << (5 - bits)) & 31];
	out[o] = '\0';
}

void
auth_ident_new(struct auth_ident *id)
{
	_Static_assert(sizeof id->sk == crypto_sign_SECRETKEYBYTES, "ed25519 secret key");
	_Static_assert(PROTO_IDENT_KEY_LEN == crypto_sign_PUBLICKEYBYTES, "ed25519 public key");
	_Static_assert(PROTO_IDENT_SIG_LEN == crypto_sign_BYTES, "ed25519 signature");
	crypto_sign_keypair(id->pk, id->sk);
}

void
auth_ident_from_seed(struct auth_ident *id, const uint8_t seed[AUTH_IDENT_SEED_LEN])
{
	_Static_assert(AUTH_IDENT_SEED_LEN == crypto_sign_SEEDBYTES, "ed25519 seed");
	crypto_sign_seed_keypair(id->pk, id->sk, seed);
}

void
auth_ident_seed(const struct auth_ident *id, uint8_t seed[AUTH_IDENT_SEED_LEN])
{
	crypto_sign_ed25519_sk_to_seed(seed, id->sk);
}

void
auth_ident_wipe(struct auth_ident *id)
{
	sodium_memzero(id, sizeof *id);
}

/* The signed message: the domain, then the hash; nothing of it is secret. */
static void
ident_message(const uint8_t hash[PROTO_HASH_LEN], uint8_t out[sizeof AUTH_IDENT_DOMAIN - 1 + PROTO_HASH_LEN])
{
	memcpy(out, AUTH_IDENT_DOMAIN, sizeof AUTH_IDENT_DOMAIN - 1);
	memcpy(out + sizeof AUTH_IDENT_DOMAIN - 1, hash, PROTO_HASH_LEN);
}

void
auth_ident_sign(const struct auth_ident *id, const uint8_t hash[PROTO_HASH_LEN], uint8_t sig[PROTO_IDENT_SIG_LEN])
{
	uint8_t msg[sizeof AUTH_IDENT_DOMAIN - 1 + PROTO_HASH_LEN];

	ident_message(hash, msg);
	crypto_sign_detached(sig, NULL, msg, sizeof msg, id->sk);
}

bool
auth_ident_verify(const uint8_t pk[PROTO_IDENT_KEY_LEN], const uint8_t hash[PROTO_HASH_LEN],
                  const uint8_t sig[PROTO_IDENT_SIG_LEN])
{
	uint8_t msg[sizeof AUTH_IDENT_DOMAIN - 1 + PROTO_HASH_LEN];

	ident_message(hash, msg);
	return crypto_sign_verify_detached(sig, msg, sizeof msg, pk) == 0;
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

/* The keys make each hash its own domain: a commitment is never a seed's hash, nor a token's. */
void
auth_seed_commit(const uint8_t part[PROTO_PART_LEN], uint8_t out[PROTO_COMMIT_LEN])
{
	static const uint8_t domain[] = "wizwar-seed-commit-4";

	crypto_generichash(out, PROTO_COMMIT_LEN, part, PROTO_PART_LEN, domain, sizeof domain - 1);
}

bool
auth_seed_commit_check(const uint8_t part[PROTO_PART_LEN], const uint8_t commit[PROTO_COMMIT_LEN])
{
	uint8_t want[PROTO_COMMIT_LEN];

	auth_seed_commit(part, want);
	return sodium_memcmp(want, commit, PROTO_COMMIT_LEN) == 0;
}

uint64_t
auth_seed_mix(const uint8_t server_part[PROTO_PART_LEN], unsigned parts, const uint8_t part[PLAYERS][PROTO_PART_LEN])
{
	static const uint8_t domain[] = "wizwar-seed-4";
	crypto_generichash_state st;
	uint8_t out[32];
	uint64_t seed = 0;

	crypto_generichash_init(&st, domain, sizeof domain - 1, sizeof out);
	crypto_generichash_update(&st, server_part, PROTO_PART_LEN);
	for (int p = 0; p < PLAYERS; p++)
		if ((parts >> p) & 1)
			crypto_generichash_update(&st, part[p], PROTO_PART_LEN);
	crypto_generichash_final(&st, out, sizeof out);
	for (int i = 0; i < 8; i++)
		seed = seed << 8 | out[i];
	return seed;
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
