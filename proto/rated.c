/* SPDX-License-Identifier: MIT */
/* rated: rated-duel records: bytes, strict decoding, XEdDSA-style signatures by the server's X25519 key (libsodium). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "rated.h"

static void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void
put_f64(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	put_u64(p, v);
}

static double
get_f64(const uint8_t *p)
{
	uint64_t v = get_u64(p);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

/* The six numbers of a player, in record order. */
static double *
field(struct rated_rec *r, int p, int i)
{
	struct rated_rating *g = i < 3 ? &r->before[p] : &r->after[p];
	double *f[3] = { &g->rating, &g->deviation, &g->volatility };

	return f[i % 3];
}

void
rated_encode(const struct rated_rec *r, uint8_t out[RATED_REC_LEN])
{
	struct rated_rec c = *r;
	uint8_t *o = out;

	*o++ = RATED_VERSION;
	put_u64(o, r->time);
	o += 8;
	memcpy(o, r->commit, PROTO_COMMIT_LEN);
	o += PROTO_COMMIT_LEN;
	for (int p = 0; p < PLAYERS; p++, o += PROTO_IDENT_KEY_LEN)
		memcpy(o, r->key[p], PROTO_IDENT_KEY_LEN);
	*o++ = r->result;
	*o++ = r->reason;
	for (int p = 0; p < PLAYERS; p++)
		for (int i = 0; i < 6; i++, o += 8)
			put_f64(o, *field(&c, p, i));
}

/* What a Glicko-2 rating can be, with room to spare (lichess clamps far inside these). */
static bool
sane(int i, double v)
{
	static const double lo[3] = { 0, 0, 0 }, hi[3] = { 10000, 1000, 1 };

	return isfinite(v) && v >= lo[i % 3] && v <= hi[i % 3];
}

bool
rated_decode(const uint8_t *p, size_t len, struct rated_rec *r, char *why, size_t whylen)
{
	const uint8_t *q = p;

	memset(r, 0, sizeof *r);
	if (len != RATED_REC_LEN) {
		snprintf(why, whylen, "a rated record is %d bytes, not %zu", RATED_REC_LEN, len);
		return false;
	}
	if (*q++ != RATED_VERSION) {
		snprintf(why, whylen, "rated record version %u, not %d", p[0], RATED_VERSION);
		return false;
	}
	r->time = get_u64(q);
	q += 8;
	memcpy(r->commit, q, PROTO_COMMIT_LEN);
	q += PROTO_COMMIT_LEN;
	for (int s = 0; s < PLAYERS; s++, q += PROTO_IDENT_KEY_LEN)
		memcpy(r->key[s], q, PROTO_IDENT_KEY_LEN);
	r->result = *q++;
	r->reason = *q++;
	if (r->result > RATED_DRAW || r->reason < END_KILLED || r->reason > END_TURN_LIMIT) {
		snprintf(why, whylen, "rated record: result %u, reason %u out of range", r->result, r->reason);
		return false;
	}
	for (int s = 0; s < PLAYERS; s++)
		for (int i = 0; i < 6; i++, q += 8) {
			double v = get_f64(q);
			if (!sane(i, v)) {
				snprintf(why, whylen, "rated record: a rating number out of range");
				return false;
			}
			*field(r, s, i) = v;
		}
	return true;
}

void
rated_put(const struct rated_rec *r, uint8_t out[RATED_SIGNED_LEN])
{
	rated_encode(r, out);
	memcpy(out + RATED_REC_LEN, r->sig, RATED_SIG_LEN);
}

bool
rated_get(const uint8_t *p, size_t len, struct rated_rec *r, char *why, size_t whylen)
{
	if (len != RATED_SIGNED_LEN) {
		snprintf(why, whylen, "a signed rated record is %d bytes, not %zu", RATED_SIGNED_LEN, len);
		return false;
	}
	if (!rated_decode(p, RATED_REC_LEN, r, why, whylen))
		return false;
	memcpy(r->sig, p + RATED_REC_LEN, RATED_SIG_LEN);
	return true;
}

/* The X25519 secret as an Edwards scalar: clamped as X25519 clamps it (so that a*B is the point
 * whose Montgomery u is the X25519 public key), then reduced mod L. */
static void
scalar_of(const uint8_t sk[32], uint8_t a[32])
{
	uint8_t wide[64] = { 0 };

	memcpy(wide, sk, 32);
	wide[0] &= 248;
	wide[31] &= 127;
	wide[31] |= 64;
	crypto_core_ed25519_scalar_reduce(a, wide);
	sodium_memzero(wide, sizeof wide);
}

int
rated_signer(const uint8_t x25519_sk[32], uint8_t signer[RATED_SIGNER_LEN])
{
	uint8_t a[32];
	int rc;

	scalar_of(x25519_sk, a);
	rc = crypto_scalarmult_ed25519_base_noclamp(signer, a);
	sodium_memzero(a, sizeof a);
	return rc == 0 ? 0 : -1;
}

int
rated_sign(struct rated_rec *r, const uint8_t x25519_sk[32])
{
	uint8_t m[sizeof RATED_DOMAIN - 1 + RATED_REC_LEN];
	uint8_t a[32], A[32], nonce[64], rr[32], R[32], h[64], hr[32], s[32];
	crypto_hash_sha512_state st;
	int rc = -1;

	memcpy(m, RATED_DOMAIN, sizeof RATED_DOMAIN - 1);
	rated_encode(r, m + sizeof RATED_DOMAIN - 1);
	scalar_of(x25519_sk, a);
	if (crypto_scalarmult_ed25519_base_noclamp(A, a) != 0)
		goto out;
	/* r = H(secret; message) mod L: deterministic, as Ed25519's own nonce, and secret. */
	crypto_generichash(nonce, sizeof nonce, m, sizeof m, x25519_sk, 32);
	crypto_core_ed25519_scalar_reduce(rr, nonce);
	if (crypto_scalarmult_ed25519_base_noclamp(R, rr) != 0)
		goto out;
	/* s = r + SHA-512(R || A || M) * a mod L: Ed25519's equation, which crypto_sign_verify_detached checks. */
	crypto_hash_sha512_init(&st);
	crypto_hash_sha512_update(&st, R, 32);
	crypto_hash_sha512_update(&st, A, 32);
	crypto_hash_sha512_update(&st, m, sizeof m);
	crypto_hash_sha512_final(&st, h);
	crypto_core_ed25519_scalar_reduce(hr, h);
	crypto_core_ed25519_scalar_mul(s, hr, a);
	crypto_core_ed25519_scalar_add(s, s, rr);
	memcpy(r->sig, R, 32);
	memcpy(r->sig + 32, s, 32);
	rc = 0;
out:
	sodium_memzero(a, sizeof a);
	sodium_memzero(nonce, sizeof nonce);
	sodium_memzero(rr, sizeof rr);
	return rc;
}

bool
rated_verify(const struct rated_rec *r, const uint8_t signer[RATED_SIGNER_LEN], const uint8_t server_pk[32])
{
	uint8_t m[sizeof RATED_DOMAIN - 1 + RATED_REC_LEN], u[32];

	/* The signer must be the server's own key seen on the other curve (A or -A map to the same u). */
	if (crypto_sign_ed25519_pk_to_curve25519(u, signer) != 0 || sodium_memcmp(u, server_pk, 32) != 0)
		return false;
	memcpy(m, RATED_DOMAIN, sizeof RATED_DOMAIN - 1);
	rated_encode(r, m + sizeof RATED_DOMAIN - 1);
	return crypto_sign_verify_detached(r->sig, m, sizeof m, signer) == 0;
}

bool
rated_signer_server(const uint8_t signer[RATED_SIGNER_LEN], uint8_t server_pk[32])
{
	return crypto_sign_ed25519_pk_to_curve25519(server_pk, signer) == 0;
}

const uint8_t *
rated_signed_by(const struct rated_rec *r, const uint8_t signer[RATED_SIGNER_LEN], const uint8_t (*keys)[32], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rated_verify(r, signer, keys[i]))
			return keys[i];
	return NULL;
}

double
rated_score(const struct rated_rec *r, int p)
{
	if (r->result == RATED_DRAW)
		return 0.5;
	return (int)r->result == p ? 1.0 : 0.0;
}
