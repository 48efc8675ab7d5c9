/* SPDX-License-Identifier: MIT */
/* server/rotate: key rotation's claims: the old key's signature verifies and nothing forged does; the real
 * network client refuses every forged KEYS from a server holding its pinned key, its pin kept, and moves on
 * an honest one; the real server answers a pinned old key under it with KEYS until the rotation's end, and
 * after it under the new key only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "harness.h"
#include "known.h"

static void
fill(uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v + i * 7);
}

Test(rotate, the_signature_verifies_and_nothing_forged_does)
{
	struct noise_keypair old, attacker;
	uint8_t h[PROTO_HASH_LEN], h2[PROTO_HASH_LEN], nk[PROTO_KEY_LEN], ed[PROTO_KEY_LEN], sig[PROTO_ROTATE_SIG_LEN];
	uint8_t aed[PROTO_KEY_LEN], asig[PROTO_ROTATE_SIG_LEN], x[PROTO_KEY_LEN], bad[PROTO_ROTATE_SIG_LEN];
	uint64_t until = 1800000000;

	cr_assert_eq(auth_init(), 0);
	for (int round = 0; round < 16; round++) {
		noise_keypair_new(&old);
		noise_keypair_new(&attacker);
		fill(h, sizeof h, (uint8_t)round);
		fill(h2, sizeof h2, (uint8_t)(round + 1));
		fill(nk, sizeof nk, (uint8_t)(round * 3));
		auth_rotate_sign(&old, h, nk, until, ed, sig);
		/* old_ed is the old X25519 key in Edwards form: libsodium maps it back to the pin. */
		cr_assert_eq(crypto_sign_ed25519_pk_to_curve25519(x, ed), 0);
		cr_assert(sodium_memcmp(x, old.pk, sizeof x) == 0);
		cr_assert(auth_rotate_verify(old.pk, h, ed, nk, until, sig));
		/* Another channel (a replay), another new key, another end, another pin: refused. */
		cr_assert_not(auth_rotate_verify(old.pk, h2, ed, nk, until, sig));
		nk[round % PROTO_KEY_LEN] ^= 1;
		cr_assert_not(auth_rotate_verify(old.pk, h, ed, nk, until, sig));
		nk[round % PROTO_KEY_LEN] ^= 1;
		cr_assert_not(auth_rotate_verify(old.pk, h, ed, nk, until + 1, sig));
		cr_assert_not(auth_rotate_verify(attacker.pk, h, ed, nk, until, sig));
		/* An attacker's own valid signature: its old_ed is not the pin. */
		auth_rotate_sign(&attacker, h, nk, until, aed, asig);
		cr_assert(auth_rotate_verify(attacker.pk, h, aed, nk, until, asig));
		cr_assert_not(auth_rotate_verify(old.pk, h, aed, nk, until, asig));
		cr_assert_not(auth_rotate_verify(old.pk, h, ed, nk, until, asig));
		/* The other Edwards point of the same Montgomery key (-A): same pin, yet the signature fails. */
		memcpy(aed, ed, sizeof aed);
		aed[31] ^= 0x80;
		cr_assert_eq(crypto_sign_ed25519_pk_to_curve25519(x, aed), 0);
		cr_assert(sodium_memcmp(x, old.pk, sizeof x) == 0);
		cr_assert_not(auth_rotate_verify(old.pk, h, aed, nk, until, sig));
		/* A flipped bit anywhere in the signature, zeros, and S + L (non-canonical): refused. */
		for (size_t i = 0; i < sizeof sig; i += 5) {
			memcpy(bad, sig, sizeof bad);
			bad[i] ^= (uint8_t)(1u << (i % 8));
			cr_assert_not(auth_rotate_verify(old.pk, h, ed, nk, until, bad), "bit of byte %zu", i);
		}
		memset(bad, 0, sizeof bad);
		cr_assert_not(auth_rotate_verify(old.pk, h, ed, nk, until, bad));
		memset(aed, 0, sizeof aed);
		cr_assert_not(auth_rotate_verify(old.pk, h, aed, nk, until, sig));
	}
}

Test(rotate, the_hint_is_what_the_fingerprint_spells)
{
	struct noise_keypair k;
	char fp[AUTH_FP_LEN + 1];
	uint8_t a[PROTO_KEY_HINT_LEN], b[PROTO_KEY_HINT_LEN];

	cr_assert_eq(auth_init(), 0);
	for (int i = 0; i < 64; i++) {
		noise_keypair_new(&k);
		auth_fingerprint(k.pk, fp);
		auth_key_hint(k.pk, a);
		cr_assert(auth_fingerprint_hint(fp, b), "%s", fp);
		cr_assert_eq(memcmp(a, b, sizeof a), 0, "%s", fp);
	}
	cr_assert_not(auth_fingerprint_hint("", b));
	cr_assert_not(auth_fingerprint_hint("abcdefghijklmnopqrstuvwxy", b));   /* 25 */
	cr_assert_not(auth_fingerprint_hint("abcdefghijklmnopqrstuvwxyz2", b)); /* 27 */
	cr_assert_not(auth_fingerprint_hint("Abcdefghijklmnopqrstuvwxya", b));  /* upper case */
	cr_assert_not(auth_fingerprint_hint("abcdefghijklmnopqrstuvwx1a", b));  /* 1: not base32 */
	cr_assert_not(auth_fingerprint_hint("abcdefghijklmnopqrstuvwxyb", b));  /* the last 2 bits set */
	cr_assert(auth_fingerprint_hint("abcdefghijklmnopqrstuvwxyq", b));
}

/* ---- a server that holds the pinned key and lies in KEYS ---- */

enum forge { HONEST, ALTERED_KEY, ATTACKERS_SIGNATURE, OTHER_CHANNEL, NEGATED_POINT };

struct forger {
	uv_tcp_t listener, peer;
	int port;
	enum forge forge;
	struct noise_keypair old, next;
	struct pconn pc;
	struct wire_msg in, out;
	uint8_t rx[65536];
	uint8_t frame[PCONN_FRAME_MAX];
	bool peer_open, sent_keys;
	int handles;
};

struct wreq {
	uv_write_t w;
	uint8_t d[];
};

static void
wrote(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
forger_send(struct forger *f, const struct wire_msg *m)
{
	struct proto_err e;
	size_t len;

	cr_assert_eq(pconn_send(&f->pc, m, f->frame, sizeof f->frame, &len, &e), 0, "forger: %s", e.why);
	struct wreq *r = malloc(sizeof *r + len);
	cr_assert_not_null(r);
	memcpy(r->d, f->frame, len);
	uv_buf_t b = uv_buf_init((char *)r->d, (unsigned)len);
	cr_assert_eq(uv_write(&r->w, (uv_stream_t *)&f->peer, &b, 1, wrote), 0);
}

/* After CHALLENGE, under the pinned key: KEYS as the forge says. */
static void
forger_keys(struct forger *f)
{
	struct wire_keys *k = &f->out.u.keys;
	struct noise_keypair attacker;
	uint8_t other[PROTO_HASH_LEN];
	const uint8_t *h = pconn_hash(&f->pc);

	memset(&f->out, 0, sizeof f->out);
	f->out.type = WIRE_KEYS;
	k->until = (uint64_t)time(NULL) + 86400;
	memcpy(k->new_key, f->next.pk, PROTO_KEY_LEN);
	switch (f->forge) {
	case HONEST:
		auth_rotate_sign(&f->old, h, k->new_key, k->until, k->old_ed, k->sig);
		break;
	case ALTERED_KEY: /* signed, then the new key swapped for another */
		auth_rotate_sign(&f->old, h, k->new_key, k->until, k->old_ed, k->sig);
		noise_keypair_new(&attacker);
		memcpy(k->new_key, attacker.pk, PROTO_KEY_LEN);
		break;
	case ATTACKERS_SIGNATURE: /* a valid signature, by a key that is not the pin */
		noise_keypair_new(&attacker);
		auth_rotate_sign(&attacker, h, k->new_key, k->until, k->old_ed, k->sig);
		break;
	case OTHER_CHANNEL: /* the pinned key's signature over another handshake (a replay) */
		memcpy(other, h, sizeof other);
		other[0] ^= 1;
		auth_rotate_sign(&f->old, other, k->new_key, k->until, k->old_ed, k->sig);
		break;
	case NEGATED_POINT: /* the pin's other Edwards point, with the pin's signature */
		auth_rotate_sign(&f->old, h, k->new_key, k->until, k->old_ed, k->sig);
		k->old_ed[31] ^= 0x80;
		break;
	}
	forger_send(f, &f->out);
	f->sent_keys = true;
}

static void
forger_closed(uv_handle_t *h)
{
	struct forger *f = h->data;

	f->handles--;
}

static void
forger_alloc(uv_handle_t *h, size_t sug, uv_buf_t *b)
{
	struct forger *f = h->data;

	(void)sug;
	*b = uv_buf_init((char *)f->rx, sizeof f->rx);
}

static void
forger_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct forger *f = s->data;
	const uint8_t *p = (const uint8_t *)b->base;
	struct proto_err e;
	int rc;

	if (n < 0) {
		if (f->peer_open) {
			f->peer_open = false;
			uv_close((uv_handle_t *)&f->peer, forger_closed);
		}
		return;
	}
	while (n > 0) {
		size_t k = pconn_feed(&f->pc, p, (size_t)n);
		p += k;
		n -= (ssize_t)k;
		while ((rc = pconn_next(&f->pc, &f->in, &e)) == PROTO_DONE) {
			if (f->in.type != WIRE_HELLO)
				continue; /* IDENT, AUTH: never answered (no WELCOME: the test is the KEYS) */
			cr_assert(f->in.u.hello.has_hint, "a client with a pin sends its hint");
			uint8_t want[PROTO_KEY_HINT_LEN];
			auth_key_hint(f->old.pk, want);
			cr_assert_eq(memcmp(want, f->in.u.hello.hint, sizeof want), 0, "the hint is not the pin's");
			uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
			wire_challenge_init(&f->out, salt, false);
			forger_send(f, &f->out);
			forger_keys(f);
		}
		cr_assert_neq(rc, PROTO_BROKEN, "forger: %s", e.why);
	}
}

static void
forger_accept(uv_stream_t *srv, int status)
{
	struct forger *f = srv->data;

	cr_assert_eq(status, 0);
	cr_assert_not(f->peer_open, "one client only");
	uv_tcp_init(srv->loop, &f->peer);
	f->peer.data = f;
	f->handles++;
	f->peer_open = true;
	cr_assert_eq(uv_accept(srv, (uv_stream_t *)&f->peer), 0);
	uv_read_start((uv_stream_t *)&f->peer, forger_alloc, forger_read);
}

struct case_ctx {
	struct forger f;
	struct netbot bot;
	bool rotated;
	char known[256];
};

static bool
bot_closed(void *ud)
{
	struct case_ctx *x = ud;
	return x->bot.closed;
}

static bool
moved(void *ud)
{
	struct case_ctx *x = ud;
	char label[64], fp[64], want[AUTH_FP_LEN + 1];

	if (x->bot.closed)
		return true;
	auth_fingerprint(x->f.next.pk, want);
	snprintf(label, sizeof label, "127.0.0.1:%d", x->f.port);
	return x->f.sent_keys && known_find(x->known, label, fp, sizeof fp) && strcmp(fp, want) == 0;
}

/* The real client (a bot's netbot over net.c, a known-servers file pinning the old key) meets the forger. */
static void
meet(enum forge forge)
{
	struct th t;
	struct netbot_config bc;
	static struct case_ctx x;
	char label[64], fp[64], ofp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1];
	FILE *k;

	memset(&x, 0, sizeof x);
	cr_assert_eq(auth_init(), 0);
	th_init(&t);
	struct forger *f = &x.f;
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof got;
	f->forge = forge;
	noise_keypair_new(&f->old);
	noise_keypair_new(&f->next);
	pconn_init(&f->pc, PCONN_SERVER);
	pconn_set_identity(&f->pc, &f->old);
	uv_tcp_init(&t.loop, &f->listener);
	f->listener.data = f;
	f->handles = 1;
	uv_ip4_addr("127.0.0.1", 0, &a);
	cr_assert_eq(uv_tcp_bind(&f->listener, (struct sockaddr *)&a, 0), 0);
	cr_assert_eq(uv_listen((uv_stream_t *)&f->listener, 4, forger_accept), 0);
	uv_tcp_getsockname(&f->listener, (struct sockaddr *)&got, &len);
	f->port = t.port = ntohs(((struct sockaddr_in *)&got)->sin_port);

	auth_fingerprint(f->old.pk, ofp);
	auth_fingerprint(f->next.pk, nfp);
	snprintf(x.known, sizeof x.known, "/tmp/wizwar-rotate-known-%d-%d", (int)getpid(), (int)forge);
	snprintf(label, sizeof label, "127.0.0.1:%d", f->port);
	cr_assert_not_null(k = fopen(x.known, "w"));
	fprintf(k, "%s %s\n", label, ofp);
	fclose(k);

	th_bot_config(&t, &bc, "pinned", BOT_RANDOM, 3, 1);
	bc.net.server_key = NULL; /* the pin comes from the known-servers file, as a `wizwar bot`'s */
	bc.net.known_file = x.known;
	bc.net.reconnect_for_ms = 0;
	th_bot(&t, &x.bot, &bc);
	if (forge == HONEST) {
		th_run(&t, 10000, moved, &x);
		cr_assert(known_find(x.known, label, fp, sizeof fp));
		cr_assert_str_eq(fp, nfp, "an honest rotation did not move the pin");
		netbot_stop(&x.bot);
		th_run(&t, 10000, bot_closed, &x);
	} else {
		th_run(&t, 10000, bot_closed, &x);
		cr_assert(x.f.sent_keys);
		cr_assert_eq(x.bot.last_error, PERR_HOSTKEY, "error %d: %s", x.bot.last_error, x.bot.last_why);
		cr_assert(strstr(x.bot.last_why, "REFUSED A KEY CHANGE"), "%s", x.bot.last_why);
		cr_assert(strstr(x.bot.last_why, nfp) || forge == ALTERED_KEY, "%s", x.bot.last_why);
		cr_assert(known_find(x.known, label, fp, sizeof fp));
		cr_assert_str_eq(fp, ofp, "a forged rotation moved the pin");
	}
	if (f->peer_open)
		uv_close((uv_handle_t *)&f->peer, forger_closed);
	uv_close((uv_handle_t *)&f->listener, forger_closed);
	th_finish(&t);
	pconn_finish(&f->pc);
	unlink(x.known);
}

Test(rotate, an_honest_rotation_moves_the_pin, .timeout = 60) { meet(HONEST); }
Test(rotate, a_new_key_changed_after_signing_is_refused, .timeout = 60) { meet(ALTERED_KEY); }
Test(rotate, a_signature_by_another_key_is_refused, .timeout = 60) { meet(ATTACKERS_SIGNATURE); }
Test(rotate, a_signature_for_another_channel_is_refused, .timeout = 60) { meet(OTHER_CHANNEL); }
Test(rotate, the_pins_other_edwards_point_is_refused, .timeout = 60) { meet(NEGATED_POINT); }

/* ---- the real server ---- */

struct pinned {
	struct netbot bot;
	char known[256], label[64];
	const char *want; /* the fingerprint to wait for in the file */
};

static bool
pin_is(void *ud)
{
	struct pinned *p = ud;
	char fp[64];

	return p->bot.closed || (known_find(p->known, p->label, fp, sizeof fp) && strcmp(fp, p->want) == 0 &&
	                         p->bot.net && net_player(p->bot.net) >= 0);
}

static bool
pinned_closed(void *ud)
{
	return ((struct pinned *)ud)->bot.closed;
}

/* A bot whose known-servers file pins `fp` for the server. */
static void
pinned_bot(struct th *t, struct pinned *p, const char *name, const char *fp, int n)
{
	struct netbot_config bc;
	FILE *k;

	memset(p, 0, sizeof *p);
	snprintf(p->known, sizeof p->known, "/tmp/wizwar-rotate-srv-%d-%d", (int)getpid(), n);
	snprintf(p->label, sizeof p->label, "127.0.0.1:%d", t->port);
	cr_assert_not_null(k = fopen(p->known, "w"));
	fprintf(k, "%s %s\n", p->label, fp);
	fclose(k);
	th_bot_config(t, &bc, name, BOT_RANDOM, 3, 1);
	bc.net.server_key = NULL;
	bc.net.known_file = p->known;
	bc.net.reconnect_for_ms = 0;
	th_bot(t, &p->bot, &bc);
}

/* The server answers a client that pinned the old key under it (KEYS: the client moves to the new
 * key and joins); once the rotation's time is past, under the new key only, and the old key is gone
 * from memory at that first handshake: the client is refused, its pin kept. */
Test(rotate, the_server_proves_the_new_key_until_the_end_then_drops_the_old, .timeout = 60)
{
	struct th t;
	struct server_config c;
	static struct auth_identity cur;
	static struct noise_keypair old;
	static struct pinned a, b;
	char ofp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1], fp[64];

	cr_assert_eq(auth_init(), 0);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	auth_identity_new(&cur);
	noise_keypair_new(&old);
	c.identity = &cur;
	c.old_key = &old;
	c.old_until = (uint64_t)time(NULL) + 3600;
	th_server(&t, &c);
	auth_fingerprint(old.pk, ofp);
	auth_fingerprint(cur.kp.pk, nfp);

	pinned_bot(&t, &a, "early", ofp, 1);
	a.want = nfp;
	th_run(&t, 10000, pin_is, &a);
	cr_assert_not(a.bot.closed, "%s", a.bot.last_why);
	cr_assert(known_find(a.known, a.label, fp, sizeof fp));
	cr_assert_str_eq(fp, nfp, "the pin did not move to the new key");
	cr_assert(t.srv->has_old);
	netbot_stop(&a.bot);
	th_run(&t, 10000, pinned_closed, &a);

	/* The end of the rotation passes (the clock is the wall's: the end is moved instead). */
	t.srv->old_until = (uint64_t)time(NULL) - 1;
	pinned_bot(&t, &b, "late", ofp, 2);
	th_run(&t, 10000, pinned_closed, &b);
	cr_assert_eq(b.bot.last_error, PERR_HOSTKEY, "%d: %s", b.bot.last_error, b.bot.last_why);
	cr_assert(strstr(b.bot.last_why, "THE SERVER'S KEY HAS CHANGED"), "%s", b.bot.last_why);
	cr_assert(strstr(b.bot.last_why, nfp), "%s", b.bot.last_why);
	cr_assert_not(t.srv->has_old, "the old key was not dropped at its end");
	cr_assert(sodium_is_zero(t.srv->old_kp.sk, sizeof t.srv->old_kp.sk), "the old secret was not wiped");
	cr_assert(known_find(b.known, b.label, fp, sizeof fp));
	cr_assert_str_eq(fp, ofp, "a refused client's pin changed");
	th_finish(&t);
	unlink(a.known);
	unlink(b.known);
}
