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
auth_identity_save(const struct auth_identity *id, const char *path, char *why, size_t whylen)
{
	char text[KEY_FILE_LEN + 2], sk[2 * NOISE_KEY_LEN + 1], salt[2 * PROTO_PW_SALT_LEN + 1];
	int n, fd;

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
	return 0;
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
	if (auth_identity_save(id, path, why, whylen) != 0)
		return -1;
	*created = true;
	return 0;
}

static const uint8_t fp_domain[] = "wizwar-fingerprint-1";

void
auth_fingerprint(const uint8_t pk[PROTO_KEY_LEN], char out[AUTH_FP_LEN + 1])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	uint8_t h[32];
	unsigned bits = 0, acc = 0;
	size_t o = 0;

	crypto_generichash(h, sizeof h, pk, PROTO_KEY_LEN, fp_domain, sizeof fp_domain - 1);
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
auth_key_hint(const uint8_t pk[PROTO_KEY_LEN], uint8_t out[PROTO_KEY_HINT_LEN])
{
	uint8_t h[32];

	crypto_generichash(h, sizeof h, pk, PROTO_KEY_LEN, fp_domain, sizeof fp_domain - 1);
	memcpy(out, h, PROTO_KEY_HINT_LEN);
}

bool
auth_fingerprint_hint(const char *fp, uint8_t out[PROTO_KEY_HINT_LEN])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned bits = 0, acc = 0;
	size_t o = 0;

	if (fp == NULL || strlen(fp) != AUTH_FP_LEN)
		return false;
	for (size_t i = 0; i < AUTH_FP_LEN; i++) {
		const char *at = fp[i] ? strchr(alphabet, fp[i]) : NULL;
		if (at == NULL)
			return false;
		acc = (acc << 5) | (unsigned)(at - alphabet);
		bits += 5;
		if (bits >= 8) {
			if (o < PROTO_KEY_HINT_LEN)
				out[o++] = (uint8_t)(acc >> (bits - 8));
			bits -= 8;
		}
		acc &= (1u << bits) - 1;
	}
	/* 26 characters are 130 bits: the last two must be zero, as auth_fingerprint writes them. */
	return o == PROTO_KEY_HINT_LEN && acc == 0;
}

/* ---- key rotation: Ed25519 signatures by an X25519 key's own scalar ---- */

#define ROTATE_MSG_LEN (sizeof AUTH_ROTATE_DOMAIN - 1 + PROTO_HASH_LEN + PROTO_KEY_LEN + 8)
#define ROTATE_NONCE "wizwar-rotate-nonce-1"

static void
rotate_message(const uint8_t hash[PROTO_HASH_LEN], const uint8_t new_pk[PROTO_KEY_LEN], uint64_t until,
               uint8_t out[ROTATE_MSG_LEN])
{
	size_t at = sizeof AUTH_ROTATE_DOMAIN - 1;

	memcpy(out, AUTH_ROTATE_DOMAIN, at);
	memcpy(out + at, hash, PROTO_HASH_LEN);
	at += PROTO_HASH_LEN;
	memcpy(out + at, new_pk, PROTO_KEY_LEN);
	at += PROTO_KEY_LEN;
	for (int i = 0; i < 8; i++)
		out[at + i] = (uint8_t)(until >> (56 - 8 * i));
}

/* SHA-512 of up to three pieces, reduced mod L (Ed25519's group order). */
static void
hash_scalar(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, const uint8_t *c, size_t clen,
            uint8_t out[crypto_core_ed25519_SCALARBYTES])
{
	uint8_t wide[crypto_hash_sha512_BYTES];
	crypto_hash_sha512_state st;

	crypto_hash_sha512_init(&st);
	crypto_hash_sha512_update(&st, a, alen);
	crypto_hash_sha512_update(&st, b, blen);
	crypto_hash_sha512_update(&st, c, clen);
	crypto_hash_sha512_final(&st, wide);
	crypto_core_ed25519_scalar_reduce(out, wide);
	sodium_memzero(wide, sizeof wide);
	sodium_memzero(&st, sizeof st);
}

void
auth_rotate_sign(const struct noise_keypair *old, const uint8_t hash[PROTO_HASH_LEN],
                 const uint8_t new_pk[PROTO_KEY_LEN], uint64_t until, uint8_t old_ed[PROTO_KEY_LEN],
                 uint8_t sig[PROTO_ROTATE_SIG_LEN])
{
	_Static_assert(PROTO_ROTATE_SIG_LEN == crypto_sign_BYTES, "an Ed25519 signature");
	uint8_t msg[ROTATE_MSG_LEN], wide[64] = { 0 }, a[32], r[32], h[32], ha[32];

	rotate_message(hash, new_pk, until, msg);
	/* a: X25519's clamped scalar, reduced mod L; a times the base point is the Edwards point whose
	 * Montgomery u is the X25519 public key (X25519's base point u = 9 is Ed25519's B). */
	memcpy(wide, old->sk, 32);
	wide[0] &= 248;
	wide[31] &= 127;
	wide[31] |= 64;
	crypto_core_ed25519_scalar_reduce(a, wide);
	crypto_scalarmult_ed25519_base_noclamp(old_ed, a);
	/* The nonce: deterministic, as RFC 8032's, from the secret and the message (a hash of them
	 * under its own prefix), so that no RNG can repeat it for two messages and the document's
	 * example is the same bytes on every run. */
	hash_scalar((const uint8_t *)ROTATE_NONCE, sizeof ROTATE_NONCE - 1, wide, 32, msg, sizeof msg, r);
	crypto_scalarmult_ed25519_base_noclamp(sig, r); /* R */
	hash_scalar(sig, 32, old_ed, 32, msg, sizeof msg, h);
	crypto_core_ed25519_scalar_mul(ha, h, a);
	crypto_core_ed25519_scalar_add(sig + 32, r, ha); /* S = r + h a */
	sodium_memzero(wide, sizeof wide);
	sodium_memzero(a, sizeof a);
	sodium_memzero(r, sizeof r);
	sodium_memzero(ha, sizeof ha);
}

bool
auth_rotate_verify(const uint8_t pinned[PROTO_KEY_LEN], const uint8_t hash[PROTO_HASH_LEN],
                   const uint8_t old_ed[PROTO_KEY_LEN], const uint8_t new_pk[PROTO_KEY_LEN], uint64_t until,
                   const uint8_t sig[PROTO_ROTATE_SIG_LEN])
{
	uint8_t msg[ROTATE_MSG_LEN], u[crypto_scalarmult_curve25519_BYTES];

	/* old_ed must be the pinned key: its Montgomery form is pinned (old_ed and -old_ed both are;
	 * a signature under either needs the pinned key's scalar). */
	if (crypto_sign_ed25519_pk_to_curve25519(u, old_ed) != 0 || sodium_memcmp(u, pinned, sizeof u) != 0)
		return false;
	rotate_message(hash, new_pk, until, msg);
	return crypto_sign_verify_detached(sig, msg, sizeof msg, old_ed) == 0;
}

/* The old key's file: one line, "wizwar-oldkey-1 SECRET UNTIL\n", SECRET in lowercase hex, UNTIL
 * decimal Unix seconds (an operator may end a rotation early by writing a smaller number). */
#define OLD_MAGIC "wizwar-oldkey-1"
#define OLD_FILE_MAX (sizeof OLD_MAGIC + 2 * NOISE_KEY_LEN + 1 + 20 + 1)

int
auth_old_key_load(struct noise_keypair *kp, uint64_t *until, const char *path, char *why, size_t whylen)
{
	char text[OLD_FILE_MAX + 2];
	uint8_t sk[NOISE_KEY_LEN];
	struct stat st;
	ssize_t got;
	size_t n, len;
	int fd, rc = -1;
	const char *p = text + sizeof OLD_MAGIC;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		close(fd);
		snprintf(why, whylen, "%s is not a regular file of mode 600", path);
		return -1;
	}
	got = read(fd, text, sizeof text - 1);
	close(fd);
	len = got > 0 ? (size_t)got : 0;
	text[len] = '\0';
	if (len > sizeof OLD_MAGIC + 2 * NOISE_KEY_LEN + 1 && len <= OLD_FILE_MAX && text[len - 1] == '\n' &&
	    memcmp(text, OLD_MAGIC " ", sizeof OLD_MAGIC) == 0 && p[2 * NOISE_KEY_LEN] == ' ' &&
	    sodium_hex2bin(sk, sizeof sk, p, 2 * NOISE_KEY_LEN, NULL, &n, NULL) == 0 && n == sizeof sk) {
		const char *d = p + 2 * NOISE_KEY_LEN + 1;
		uint64_t v = 0;
		size_t digits = 0;
		for (; *d >= '0' && *d <= '9' && digits < 20; d++, digits++)
			v = v * 10 + (uint64_t)(*d - '0');
		if (digits > 0 && digits < 20 && *d == '\n' && d[1] == '\0' && noise_keypair_from(kp, sk) == 0) {
			*until = v;
			rc = 0;
		}
	}
	sodium_memzero(sk, sizeof sk);
	sodium_memzero(text, sizeof text);
	if (rc != 0)
		snprintf(why, whylen, "%s is not a wizwar old key (\"" OLD_MAGIC " SECRET UNTIL\")", path);
	return rc;
}

int
auth_old_key_save(const struct noise_keypair *kp, uint64_t until, const char *path, char *why, size_t whylen)
{
	char text[OLD_FILE_MAX + 2], sk[2 * NOISE_KEY_LEN + 1], tmp[4200];
	int n, fd;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
		snprintf(why, whylen, "cannot write %s: the name is too long", path);
		return -1;
	}
	sodium_bin2hex(sk, sizeof sk, kp->sk, sizeof kp->sk);
	n = snprintf(text, sizeof text, OLD_MAGIC " %s %llu\n", sk, (unsigned long long)until);
	sodium_memzero(sk, sizeof sk);
	/* mkstemp: 0600, a name nobody guesses; then renamed over any older one. */
	bool ok = (fd = mkstemp(tmp)) >= 0 && write(fd, text, (size_t)n) == n && fsync(fd) == 0;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		sodium_memzero(text, sizeof text);
		return -1;
	}
	sodium_memzero(text, sizeof text);
	return 0;
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
