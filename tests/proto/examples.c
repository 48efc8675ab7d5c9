/* SPDX-License-Identifier: MIT */
/* examples: the worked examples of docs/protocol.md (hex of whole frames), made by the real encoder and checked by meson test. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <sodium.h>

#include "auth.h"
#include "docblock.h"
#include "spect.h"
#include "layout.h"
#include "pconn.h"
#include "rated.h"
#include "update.h"

/* The zlib whose output the document shows. */
#define EXAMPLES_ZLIB "1.2.13"

/*
 * Usage: proto_examples [--check | --write] docs/protocol.md
 * Every frame below is produced by pconn_send() exactly as a peer sends it;
 * deflated frames are zlib's output at level 9 (another deflater may produce
 * other bytes that inflate to the same payload, and that is as good). Every
 * count in a caption is counted here, so no caption can say 5 bytes of 4.
 * After the handshake a frame travels inside an encrypted record: the examples
 * show the frame, the plaintext of its record, except in the handshake section,
 * which shows whole records made from fixed keys.
 */

static void
hex(FILE *o, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%02x%s", p[i], (i + 1) % 16 == 0 || i + 1 == n ? "\n" : " ");
}

static void
block(FILE *o, const char *title, const uint8_t *p, size_t n)
{
	fprintf(o, "%s (%zu byte%s):\n\n```\n", title, n, n == 1 ? "" : "s");
	hex(o, p, n);
	fprintf(o, "```\n\n");
}

/* The frame as sent: in clear during the handshake, else as it lies in its record's plaintext. */
static int
frame(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t *len)
{
	static uint8_t rec[PCONN_FRAME_MAX];
	struct proto_err e = { 0 };
	size_t rl;

	if (c->secure)
		pconn_cork(c);
	if (pconn_send(c, m, c->secure ? rec : out, PCONN_FRAME_MAX, len, &e) != 0) {
		fprintf(stderr, "proto_examples: %s: %s\n", wire_name(m->type), e.why);
		return -1;
	}
	if (!c->corked)
		return 0;
	*len = c->ob_len;
	memcpy(out, c->ob, c->ob_len);
	return pconn_flush(c, rec, sizeof rec, &rl, &e);
}

/* The fixed keys of the examples: 32 bytes counting up from `first`. */
static void
fixed(uint8_t k[32], int first)
{
	for (int i = 0; i < 32; i++)
		k[i] = (uint8_t)(first + i);
}

/* A server and a client through the handshake with the fixed keys, showing nothing. */
static void
secure_pair(struct pconn *srv, struct pconn *cli)
{
	static struct wire_msg m;
	static uint8_t out[PCONN_FRAME_MAX];
	static uint8_t s_sk[32], e1[32], e2[32];
	uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
	struct noise_keypair kp;
	size_t len;

	fixed(s_sk, 0x01);
	fixed(e1, 0x21);
	fixed(e2, 0x41);
	noise_keypair_from(&kp, s_sk);
	pconn_set_identity(srv, &kp);
	pconn_set_ephemeral(cli, e1);
	pconn_set_ephemeral(srv, e2);
	wire_hello_init(&m);
	pconn_send(cli, &m, out, sizeof out, &len, NULL);
	pconn_feed(srv, out, len);
	pconn_next(srv, &m, NULL);
	wire_challenge_init(&m, salt, false);
	pconn_send(srv, &m, out, sizeof out, &len, NULL);
	pconn_feed(cli, out, len);
	pconn_next(cli, &m, NULL);
}

/* A message in a record of its own: the frame (the record's plaintext), then the record as sent. */
static int
show_record(FILE *o, struct pconn *c, struct pconn *peer, const struct wire_msg *m, const char *title)
{
	static uint8_t out[PCONN_FRAME_MAX];
	static struct wire_msg got;
	struct proto_err e = { 0 };
	char caption[512];
	size_t len, pad;

	pconn_cork(c);
	if (pconn_send(c, m, out, sizeof out, &len, &e) != 0) {
		fprintf(stderr, "proto_examples: %s: %s\n", wire_name(m->type), e.why);
		return -1;
	}
	block(o, "... its frame, the record's plaintext before its padding", c->ob, c->ob_len);
	pad = pconn_padded(c->ob_len) - c->ob_len;
	snprintf(caption, sizeof caption, "%s, the frame and %zu zero bytes of padding (to %zu) sealed", title, pad,
	         pconn_padded(c->ob_len));
	if (pconn_flush(c, out, sizeof out, &len, &e) != 0)
		return -1;
	block(o, caption, out, len);
	pconn_feed(peer, out, len);
	if (pconn_next(peer, &got, &e) != PROTO_DONE) {
		fprintf(stderr, "proto_examples: the peer refused %s: %s\n", wire_name(m->type), e.why);
		return -1;
	}
	return 0;
}

/* A whole frame, its caption saying how long the payload is and whether it went raw or deflated. */
static int
show(FILE *o, struct pconn *c, const struct wire_msg *m, const char *title)
{
	static uint8_t out[PCONN_FRAME_MAX], payload[PROTO_PAYLOAD_MAX];
	char caption[512];
	size_t n, plen;

	if (frame(c, m, out, &n) != 0 || wire_encode(m, payload, sizeof payload, &plen, NULL) != 0)
		return -1;
	if (out[0] & 0x80)
		snprintf(caption, sizeof caption, "%s: a %zu-byte payload, deflated", title, plen);
	else
		snprintf(caption, sizeof caption, "%s: a %zu-byte payload, sent raw", title, plen);
	block(o, caption, out, n);
	return 0;
}


/* ---- an update, field by field ---- */

/* The update with only the fields of `mask`, and what those fields need to be consistent. */
static size_t
enc_masked(const struct update *u, uint32_t mask, uint8_t *out, size_t cap)
{
	static struct update t;
	size_t len = 0;

	t = *u;
	t.has &= mask;
	if (!(t.has & UPD_BIT(UPD_MSGS)))
		t.nmsg = 0;
	if (!(t.has & UPD_BIT(UPD_FX)))
		t.nfx = 0;
	if (!(t.has & UPD_BIT(UPD_POTIONS)))
		t.npot = 0;
	if (update_encode(&t, out, cap, &len, NULL) != 0)
		return 0;
	return len;
}

static size_t
varint_len(uint32_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* One line of an annotated dump: the bytes (shortened when long), then what they say. */
static void __attribute__((format(printf, 4, 5)))
annot(FILE *o, const uint8_t *p, size_t n, const char *fmt, ...)
{
	char bytes[64] = "", what[512];
	size_t k = 0;
	va_list ap;

	for (size_t i = 0; i < n; i++) {
		if (n > 6 && i == 3) {
			k += (size_t)snprintf(bytes + k, sizeof bytes - k, "... ");
			i = n - 3;
		}
		k += (size_t)snprintf(bytes + k, sizeof bytes - k, "%02x ", p[i]);
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	fprintf(o, "%-22s%s\n", bytes, what);
}

static const char *const lay_names[8] = { [0] = "FULL", [1] = "REVEAL", [2] = "FULL, WHOLE", [3] = "REVEAL, WHOLE",
	                                  [7] = "SIGHT" };
static const char *const vis_names[] = { "RECT", "SQUARE", "ALL", "NONE", "PREDICT" };

/* The fields by the names docs/protocol.md gives them. */
static const char *const upd_ids[UPD_COUNT] = {
#define X(id, bit, name) [bit] = #id,
	UPD_LIST(X)
#undef X
};

/* What one field's value says, in words. */
static void
field_words(const struct update *u, int f, const uint8_t *p, size_t n, char *w, size_t len)
{
	size_t k = 0;

	switch (f) {
	case UPD_POS: snprintf(w, len, "POS: x %u, y %u", u->x, u->y); return;
	case UPD_STEPS: snprintf(w, len, "STEPS: %u left", u->steps_left); return;
	case UPD_VIS:
		snprintf(w, len, "VIS: %s%s", vis_names[u->vis_mode],
		         u->vis_mode == VIS_PREDICT ? (u->vis_nfix ? ", with corrections" : ", no correction") : "");
		return;
	case UPD_LAYOUT: {
		size_t hdr = (u->lay_mode & LAY_WHOLE) ? 1 : 5;
		size_t tl = n - hdr - varint_len((uint32_t)(n - hdr - 1));

		if (u->lay_mode & LAY_WHOLE)
			k = (size_t)snprintf(w, len, "LAYOUT: %s, no rectangle; ", lay_names[u->lay_mode]);
		else
			k = (size_t)snprintf(w, len, "LAYOUT: %s, the rectangle x %u, y %u, %u wide, %u high; ",
			                     lay_names[u->lay_mode], u->lay_x, u->lay_y, u->lay_w, u->lay_h);
		snprintf(w + k, len - k, "%zu bytes of text, \"%.*s\": %u cells", tl, (int)tl, (const char *)p + n - tl,
		         u->lay_n);
		return;
	}
	case UPD_OFFERED:
		k = (size_t)snprintf(w, len, "OFFERED:");
		for (int i = 0; i < SPELL_OFFERED && k < len; i++)
			k += (size_t)snprintf(w + k, len - k, "%s %s (%u)", i ? "," : "",
			                      u->offered[i] == SPELL_NONE ? "none" : spell_name(u->offered[i]), u->offered[i]);
		return;
	case UPD_HP: snprintf(w, len, "HP %d", u->hp); return;
	case UPD_OPP_HP: snprintf(w, len, "OPP_HP %d", u->opp_hp); return;
	case UPD_INV:
		k = (size_t)snprintf(w, len, "INV: %u potions; %u slots sent:", u->ninv, u->inv_n);
		for (int i = 0; i < u->inv_n && k < len; i++)
			k += (size_t)snprintf(w + k, len - k, "%s %s (%u)", i ? "," : "", appearance_name(u->inv[i]), u->inv[i]);
		return;
	case UPD_KIND:
		k = (size_t)snprintf(w, len, "KIND:");
		for (int a = 0; a < APPEARANCE_COUNT && k < len; a++)
			if (u->kind_of[a] != POTION_NONE)
				k += (size_t)snprintf(w + k, len - k, " %s is %s (%u),", appearance_name(a),
				                      potion_name(u->kind_of[a]), u->kind_of[a]);
		snprintf(w + k, len - k, " the rest not identified");
		return;
	case UPD_OPT:
		snprintf(w, len, "OPT: %u x %u, FoV %s, potions %s", u->opt.size, u->opt.size, u->opt.fov ? "on" : "off",
		         u->opt.potions ? "on" : "off");
		return;
	case UPD_TURN:
		if (u->turn_next)
			snprintf(w, len, "TURN: player %u's, one turn more", u->turn);
		else
			snprintf(w, len, "TURN: player %u's, turn %u", u->turn, (unsigned)u->turn_no);
		return;
	case UPD_ME: snprintf(w, len, "ME: player %u", u->me); return;
	default: snprintf(w, len, "%s", upd_ids[f]); return;
	}
}

/* The payload p of n bytes (an update's, after `skip` bytes of START header) split field by field. */
static int
field_by_field(FILE *o, const struct update *u, const uint8_t *p, size_t n)
{
	static uint8_t buf[PROTO_PAYLOAD_MAX];
	char names[256] = "", words[512];
	size_t at, k = 0, prev;
	uint32_t mask = 0;

	for (int f = 0; f < UPD_COUNT; f++)
		if (u->has & UPD_BIT(f))
			k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", k ? ", " : "", upd_ids[f]);
	at = varint_len(u->has);
	annot(o, p, at, "has = 0x%x: %s", (unsigned)u->has, names);
	prev = enc_masked(u, 0, buf, sizeof buf);
	for (int f = 0; f < UPD_COUNT; f++) {
		size_t len, fl;

		if (!(u->has & UPD_BIT(f)))
			continue;
		mask |= UPD_BIT(f);
		if ((len = enc_masked(u, mask, buf, sizeof buf)) == 0)
			return -1;
		fl = len - prev - (varint_len(u->has & mask) - varint_len(u->has & (mask & ~UPD_BIT(f))));
		prev = len;
		field_words(u, f, p + at, fl, words, sizeof words);
		annot(o, p + at, fl, "%s", words);
		at += fl;
	}
	return at == n ? 0 : -1;
}

#define SHOW(c, m, title)                          \
	do {                                       \
		if (show(o, c, m, title) != 0)     \
			return -1;                 \
	} while (0)

/* The START and the step of the examples, kept for their field-by-field reading at the end. */
static struct wire_start start_msg;
static struct update step_u;
static uint8_t start_pl[PROTO_PAYLOAD_MAX], step_pl[PROTO_PAYLOAD_MAX];
static size_t start_len, step_len;

/* The START example, byte by byte. */
static int
start_by_field(FILE *o)
{
	const struct wire_start *st = &start_msg;
	const struct update *u = &st->view;
	const uint8_t *p = start_pl;
	static uint8_t cells[UPD_CELLS];
	const char *t = NULL;
	size_t n = 0, tl = 0;

	fprintf(o, "### The START above, field by field\n\n```\n");
	annot(o, p, 1, "flags: %s", st->resumed ? "a resumed player's snapshot" : "a new duel, not a resumed one");
	annot(o, p + 1, 1, "player %u moves first", st->first);
	annot(o, p + 2, 2, "%u seconds a turn", st->turn_time);
	annot(o, p + 4, PROTO_COMMIT_LEN, "the seed commitment (%d bytes)", PROTO_COMMIT_LEN);
	if (field_by_field(o, u, p + 4 + PROTO_COMMIT_LEN, start_len - 4 - PROTO_COMMIT_LEN) != 0)
		return -1;
	fprintf(o, "```\n\n");
	/* Where the layout's text is in the payload: after its mode, rectangle and length. */
	for (size_t i = 0; i + 5 < start_len; i++)
		if (start_pl[i] == u->lay_mode && start_pl[i + 1] == u->lay_x && start_pl[i + 2] == u->lay_y &&
		    start_pl[i + 3] == u->lay_w && start_pl[i + 4] == u->lay_h) {
			uint8_t b = start_pl[i + 5];
			tl = b & 0x7f;
			t = (const char *)start_pl + i + 6;
			if (b & 0x80) {
				tl |= (size_t)start_pl[i + 6] << 7;
				t++;
			}
			break;
		}
	if (!t || layout_decode(t, tl, cells, sizeof cells, &n, NULL) != 0 || n != u->lay_n)
		return -1;
	fprintf(o, "The layout's text reads row by row over the rectangle, one symbol a run (nothing was known, so "
	           "every cell of it is coded):");
	for (size_t i = 0, c = 0, runs = 0; i < tl && runs < 8; runs++) {
		size_t j = i + 1, len;
		int x = u->lay_x + (int)(c % u->lay_w), y = u->lay_y + (int)(c / u->lay_w);

		while (j < tl && t[i] >= '0' && t[i] <= '9' && t[j] >= '0' && t[j] <= '9')
			j++;
		len = t[i] >= '0' && t[i] <= '9' ? (size_t)atoi(t + i) : (size_t)((t[i] | 0x20) - 'a' + 1);
		fprintf(o, " `%.*s` %zu %s from (%d,%d)%s", (int)(j - i), t + i, len,
		        t[i] >= 'a' ? (len > 1 ? "walls" : "wall") : t[i] >= 'A' ? (len > 1 ? "floors" : "floor")
		                                                  : "never seen",
		        x, y, runs == 7 ? "" : ",");
		c += len;
		i = j;
	}
	fprintf(o, ", and so on: compare with the map. ");
	if (!(u->has & UPD_BIT(UPD_RING)))
		fprintf(o, "No RING field: none of the ring is in sight yet. ");
	if (!(u->has & UPD_BIT(UPD_TURN)) && !(u->has & UPD_BIT(UPD_ME)))
		fprintf(o, "No TURN or ME field: both are 0, as in the blank view.");
	fprintf(o, "\n\n");
	fprintf(o, "### The UPDATE above, field by field\n\n```\n");
	if (field_by_field(o, &step_u, step_pl, step_len) != 0)
		return -1;
	fprintf(o, "```\n\n");
	return 0;
}

static int
gen_examples(FILE *o)
{
	static struct wire_msg m;
	static struct pconn cli, srv, gs, gsc, fresh_c;
	static uint8_t payload[PROTO_PAYLOAD_MAX], out[PCONN_FRAME_MAX];
	static uint8_t seed_srv[PROTO_PART_LEN], seed_part[PLAYERS][PROTO_PART_LEN], seed_commit[PROTO_COMMIT_LEN];
	uint64_t seed_example = 0;
	static struct game g;
	struct options opt;
	struct view blank, v;
	size_t len;

	pconn_init(&cli, PCONN_CLIENT);
	pconn_init(&srv, PCONN_SERVER);

	fprintf(o, "### Handshake\n\n");
	{
		static uint8_t s_sk[32], e1[32], e2[32];
		uint8_t salt[PROTO_PW_SALT_LEN];
		struct noise_keypair kp;
		struct auth_key key;
		char fp[AUTH_FP_LEN + 1];

		if (sodium_init() < 0)
			return -1;
		fixed(s_sk, 0x01);
		fixed(e1, 0x21);
		fixed(e2, 0x41);
		for (int i = 0; i < PROTO_PW_SALT_LEN; i++)
			salt[i] = (uint8_t)(0xc0 + i);
		noise_keypair_from(&kp, s_sk);
		auth_fingerprint(kp.pk, fp);
		fprintf(o, "Fixed keys (X25519 secrets): the server's static key 01 02 ... 20, the client's ephemeral "
		           "21 22 ... 40, the server's ephemeral 41 42 ... 60; the server's password salt c0 c1 ... cf "
		           "and its password `old oak`.\n\n");
		block(o, "The server's static public key", kp.pk, sizeof kp.pk);
		fprintf(o, "Its fingerprint: `%s`.\n\n", fp);
		pconn_set_identity(&srv, &kp);
		pconn_set_ephemeral(&cli, e1);
		pconn_set_ephemeral(&srv, e2);
		wire_hello_init(&m);
		if (frame(&cli, &m, out, &len) != 0)
			return -1;
		block(o, "HELLO in clear: magic, versions, then Noise message 1 (the client's ephemeral public key)", out,
		      len);
		pconn_feed(&srv, out, len);
		pconn_next(&srv, &m, NULL);
		wire_challenge_init(&m, salt, true);
		if (frame(&srv, &m, out, &len) != 0)
			return -1;
		block(o, "CHALLENGE in clear: magic, versions, then Noise message 2 (the server's ephemeral key, its "
		         "static key encrypted, and encrypted the payload 01 c0 c1 ... cf: a password is needed, and the salt)",
		      out, len);
		pconn_feed(&cli, out, len);
		if (pconn_next(&cli, &m, NULL) != PROTO_DONE || !m.u.challenge.password)
			return -1;
		block(o, "The handshake hash h both ends now share", pconn_hash(&cli), PROTO_HASH_LEN);
		block(o, "Transport key client -> server (the first of Split())", cli.tx.k, NOISE_KEY_LEN);
		block(o, "Transport key server -> client", cli.rx.k, NOISE_KEY_LEN);
		{
			/* IDENT: a fixed Ed25519 seed 81 82 ... a0; Ed25519 signatures are deterministic,
			 * so the example is the same on every run. */
			uint8_t seed[AUTH_IDENT_SEED_LEN];
			struct auth_ident id;
			char ifp[AUTH_FP_LEN + 1];

			fixed(seed, 0x81);
			auth_ident_from_seed(&id, seed);
			auth_fingerprint(id.pk, ifp);
			block(o, "The client's Ed25519 public key (from the fixed seed 81 82 ... a0)", id.pk, sizeof id.pk);
			fprintf(o, "Its fingerprint (`wizwar id`): `%s`.\n\n", ifp);
			memset(&m, 0, sizeof m);
			m.type = WIRE_IDENT;
			memcpy(m.u.ident.key, id.pk, PROTO_IDENT_KEY_LEN);
			auth_ident_sign(&id, pconn_hash(&cli), m.u.ident.sig);
			auth_ident_wipe(&id);
			fprintf(o, "IDENT: that key, and its Ed25519 signature over the 14 ASCII bytes `wizwar-ident-1` "
			           "followed by h:\n\n");
			if (show_record(o, &cli, &srv, &m, "... the record on the wire: length, then, with nonce 0") != 0)
				return -1;
		}
		if (auth_key_derive(&key, "old oak", salt) != 0)
			return -1;
		block(o, "crypto_pwhash(\"old oak\", salt c0 ... cf, Argon2id, interactive limits): the password key",
		      key.k, sizeof key.k);
		memset(&m, 0, sizeof m);
		m.type = WIRE_AUTH;
		wire_who_init(&m.u.auth.who, "Merlin", "lobby", ROLE_PLAYER);
		auth_proof(&key, pconn_hash(&cli), "Merlin", 6, m.u.auth.proof);
		fprintf(o, "AUTH from \"Merlin\" to room \"lobby\" as a player, with the proof "
		           "BLAKE2b-256(key = the password key; h || \"Merlin\"):\n\n");
		if (show_record(o, &cli, &srv, &m, "... the record on the wire: length, then, with nonce 1") != 0)
			return -1;
		memset(&m, 0, sizeof m);
		m.type = WIRE_WELCOME;
		m.u.welcome.player = 1;
		m.u.welcome.controller = false;
		m.u.welcome.token_len = 16;
		for (int i = 0; i < 16; i++)
			m.u.welcome.token[i] = (uint8_t)(0xe0 + i);
		m.u.welcome.hold = 30;
		m.u.welcome.grace = 120;
		fprintf(o, "WELCOME as player 1, not controller, token e0 ... ef, a lobby seat held 30 s and a duel's 120 s "
		           "(the last frame before deflate may start):\n\n");
		if (show_record(o, &srv, &cli, &m, "... the record on the wire (the server's nonce 0): length, then") != 0)
			return -1;
		auth_key_wipe(&key);
	}
	{
		/* The server's own words: its decoder's finding on a HELLO of the next version,
		 * said from the client's side as server/conn.c says it, in clear. */
		static struct pconn old;
		struct wire_msg h;
		struct proto_err e = { 0 };
		char why[PROTO_REASON_BYTES + 1], title[200];

		wire_hello_init(&h);
		h.u.hello.proto = PROTO_VERSION + 1;
		if (wire_encode(&h, payload, sizeof payload, &len, &e) != 0 ||
		    wire_decode(WIRE_HELLO, payload, len, &h, &e) == 0 || !wire_version_refusal(&e, why, sizeof why)) {
			fprintf(stderr, "proto_examples: a HELLO of version %d was not refused as such\n", PROTO_VERSION + 1);
			return -1;
		}
		pconn_init(&old, PCONN_SERVER);
		wire_error_init(&m, e.code, true, why);
		snprintf(title, sizeof title,
		         "ERROR %d (VERSION), fatal, in clear, exactly as a server of protocol version %d answers a HELLO "
		         "of version %d",
		         e.code, PROTO_VERSION, PROTO_VERSION + 1);
		SHOW(&old, &m, title);
		pconn_finish(&old);
	}

	fprintf(o, "### Key rotation\n\n");
	{
		/* A server in a key rotation (docs/server.md, "Key rotation"): its old key is the handshake's
		 * above (01 ... 20), its new one 61 ... 80; a client that pinned the old key says so in HELLO. */
		static struct pconn rs, rc;
		static uint8_t o_sk[32], n_sk[32], e1[32], e2[32];
		uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
		struct noise_keypair oldk, newk;
		char ofp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1];

		fixed(o_sk, 0x01);
		fixed(n_sk, 0x61);
		fixed(e1, 0x21);
		fixed(e2, 0x41);
		noise_keypair_from(&oldk, o_sk);
		noise_keypair_from(&newk, n_sk);
		auth_fingerprint(oldk.pk, ofp);
		auth_fingerprint(newk.pk, nfp);
		pconn_init(&rs, PCONN_SERVER);
		pconn_init(&rc, PCONN_CLIENT);
		pconn_set_identity(&rs, &newk); /* the key in force; the old one is chosen below */
		pconn_set_ephemeral(&rc, e1);
		pconn_set_ephemeral(&rs, e2);
		fprintf(o, "The same fixed ephemeral keys; the server's old key is the static key above (`%s`), its new "
		           "key has the X25519 secret 61 62 ... 80 (`%s`); the rotation ends at 1800000000 "
		           "(2027-01-15 08:00 UTC). The client pinned the old key.\n\n", ofp, nfp);
		block(o, "The new key's public key", newk.pk, sizeof newk.pk);
		wire_hello_init(&m);
		m.u.hello.has_hint = true;
		auth_key_hint(oldk.pk, m.u.hello.hint);
		if (frame(&rc, &m, out, &len) != 0)
			return -1;
		block(o, "HELLO in clear with the hint of the pinned key: the 16 bytes its fingerprint spells, after "
		         "Noise message 1", out, len);
		pconn_feed(&rs, out, len);
		if (pconn_next(&rs, &m, NULL) != PROTO_DONE || !m.u.hello.has_hint)
			return -1;
		pconn_set_identity(&rs, &oldk); /* the hint is the old key's: answered under it */
		wire_challenge_init(&m, salt, false);
		if (frame(&rs, &m, out, &len) != 0)
			return -1;
		block(o, "CHALLENGE in clear, under the old key (no password this time)", out, len);
		pconn_feed(&rc, out, len);
		if (pconn_next(&rc, &m, NULL) != PROTO_DONE || memcmp(pconn_peer_key(&rc), oldk.pk, PROTO_KEY_LEN) != 0)
			return -1;
		block(o, "The handshake hash h", pconn_hash(&rc), PROTO_HASH_LEN);
		memset(&m, 0, sizeof m);
		m.type = WIRE_KEYS;
		memcpy(m.u.keys.new_key, newk.pk, PROTO_KEY_LEN);
		m.u.keys.until = 1800000000;
		auth_rotate_sign(&oldk, pconn_hash(&rs), newk.pk, m.u.keys.until, m.u.keys.old_ed, m.u.keys.sig);
		if (!auth_rotate_verify(oldk.pk, pconn_hash(&rc), m.u.keys.old_ed, newk.pk, m.u.keys.until, m.u.keys.sig))
			return -1;
		block(o, "The old key as an Ed25519 point: its clamped X25519 scalar times Ed25519's base point "
		         "(crypto_sign_ed25519_pk_to_curve25519 of it is the old key)", m.u.keys.old_ed, PROTO_KEY_LEN);
		fprintf(o, "KEYS, the server's first record: that point, the new key, the end, and the Ed25519 "
		           "signature by the old key of the 15 ASCII bytes `wizwar-rotate-1`, h, the new key and the end "
		           "(8 bytes, big-endian):\n\n");
		if (show_record(o, &rs, &rc, &m, "... the record on the wire: length, then, with nonce 0") != 0)
			return -1;
		pconn_finish(&rs);
		pconn_finish(&rc);
	}

	fprintf(o, "### Lobby\n\n");
	/* The seed of the section "The seed", worked with fixed parts: the server's 00..1f, player
	 * 1's 20..3f, player 0's 40..5f. Computed here with libsodium's BLAKE2b directly, and checked
	 * against the server's own auth_seed_commit / auth_seed_mix. */
	for (int i = 0; i < PROTO_PART_LEN; i++) {
		seed_srv[i] = (uint8_t)i;
		seed_part[1][i] = (uint8_t)(0x20 + i);
		seed_part[0][i] = (uint8_t)(0x40 + i);
	}
	{
		static const char ckey[] = "wizwar-seed-commit-4", skey[] = "wizwar-seed-4";
		uint8_t want[PROTO_COMMIT_LEN], in[3 * PROTO_PART_LEN], h[32];
		uint64_t seed_host = 0, seed_server = 0;

		crypto_generichash(seed_commit, sizeof seed_commit, seed_srv, PROTO_PART_LEN, (const uint8_t *)ckey,
		                   sizeof ckey - 1);
		auth_seed_commit(seed_srv, want);
		memcpy(in, seed_srv, PROTO_PART_LEN);
		memcpy(in + PROTO_PART_LEN, seed_part[1], PROTO_PART_LEN);
		crypto_generichash(h, sizeof h, in, 2 * PROTO_PART_LEN, (const uint8_t *)skey, sizeof skey - 1);
		for (int i = 0; i < 8; i++)
			seed_host = seed_host << 8 | h[i];
		memcpy(in + PROTO_PART_LEN, seed_part[0], PROTO_PART_LEN);
		memcpy(in + 2 * PROTO_PART_LEN, seed_part[1], PROTO_PART_LEN);
		crypto_generichash(h, sizeof h, in, 3 * PROTO_PART_LEN, (const uint8_t *)skey, sizeof skey - 1);
		for (int i = 0; i < 8; i++)
			seed_server = seed_server << 8 | h[i];
		if (memcmp(want, seed_commit, sizeof want) != 0 || auth_seed_mix(seed_srv, 2, seed_part) != seed_host ||
		    auth_seed_mix(seed_srv, 3, seed_part) != seed_server) {
			fprintf(stderr, "proto_examples: the seed's construction differs from the server's\n");
			return -1;
		}
		seed_example = seed_host;
		block(o, "The server's part of the seed (32 bytes; the example's, not random)", seed_srv, PROTO_PART_LEN);
		block(o, "Its commitment, BLAKE2b-256 keyed with \"wizwar-seed-commit-4\": what LOBBY and START carry",
		      seed_commit, PROTO_COMMIT_LEN);
		block(o, "Player 1's part (a joiner's: in its READY or REMATCH)", seed_part[1], PROTO_PART_LEN);
		block(o, "Player 0's part (counted only on a neutral server)", seed_part[0], PROTO_PART_LEN);
		fprintf(o, "On a `wizwar host` whose own player holds seat 0 (parts bits `02`), the seed is the first "
		           "8 bytes, big-endian, of BLAKE2b-256 keyed with `wizwar-seed-4` of the server's part then "
		           "player 1's: `%016" PRIx64 "`. On a `wizwar server` (parts bits `03`), of the server's part, "
		           "player 0's, then player 1's: `%016" PRIx64 "`.\n\n",
		           seed_host, seed_server);
	}
	memset(&m, 0, sizeof m);
	m.type = WIRE_LOBBY;
	m.u.lobby.opt = (struct options){ 25, true, true };
	m.u.lobby.turn_time = 60;
	m.u.lobby.controller = 0;
	m.u.lobby.present = 3;
	m.u.lobby.ready = 1;
	m.u.lobby.parts = 2;
	memcpy(m.u.lobby.commit, seed_commit, sizeof seed_commit);
	strcpy(m.u.lobby.name[0], "Merlin");
	strcpy(m.u.lobby.name[1], "Morgana");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "LOBBY payload: 25x25, FoV and potions on, 60 s a turn, player 0 controls, both here, player 0 ready, "
	      "player 1's part goes into the seed, the commitment above",
	      payload, len);
	SHOW(&srv, &m, "... and that LOBBY as a frame, the first of the server's deflate stream");
	memset(&m, 0, sizeof m);
	m.type = WIRE_OPTIONS;
	m.u.options.opt = (struct options){ 31, false, true };
	m.u.options.turn_time = 0;
	SHOW(&cli, &m, "OPTIONS 31x31, FoV off, potions on, no turn limit");
	m.type = WIRE_READY;
	m.u.ready.ready = true;
	memcpy(m.u.ready.part, seed_part[1], PROTO_PART_LEN);
	SHOW(&cli, &m, "READY with player 1's part above (raw, as every frame a client sends)");
	memset(&m, 0, sizeof m);
	m.type = WIRE_READY;
	SHOW(&cli, &m, "READY 0 (not ready any more: no part)");
	{
		/* On a connection of its own (a client never deflates, so nothing refers back to the READY). */
		static struct pconn rms, rmc;

		pconn_init(&rms, PCONN_SERVER);
		pconn_init(&rmc, PCONN_CLIENT);
		secure_pair(&rms, &rmc);
		rmc.joined = true;
		m.type = WIRE_REMATCH;
		m.u.rematch.mirror = true;
		memcpy(m.u.rematch.part, seed_part[1], PROTO_PART_LEN);
		SHOW(&rmc, &m, "REMATCH, a mirror, with player 1's part above (raw, as every frame a client sends)");
		pconn_finish(&rms);
		pconn_finish(&rmc);
	}

	fprintf(o, "### Game\n\n");
	m.type = WIRE_CMD;
	m.u.cmd = (struct cmd){ CMD_STEP, 0, DIR_N };
	SHOW(&cli, &m, "CMD step north (8)");
	m.u.cmd = (struct cmd){ CMD_CAST, 2, DIR_E };
	SHOW(&cli, &m, "CMD cast the third offered spell (slot 2) east (6)");
	m.u.cmd = (struct cmd){ CMD_QUAFF, 3, 0 };
	SHOW(&cli, &m, "CMD quaff inventory slot 3");
	m.u.cmd = (struct cmd){ CMD_PASS, 0, 0 };
	SHOW(&cli, &m, "CMD pass");

	/* A real duel: default options, seed 1, player 0's first view. */
	options_default(&opt);
	if (game_init(&g, &opt, 1) != ERR_OK)
		return -1;
	update_blank(&blank);
	view_build(&g, g.first, &v);
	pconn_init(&gs, PCONN_SERVER);
	pconn_init(&gsc, PCONN_CLIENT);
	secure_pair(&gs, &gsc);
	gs.joined = true;
	memset(&m, 0, sizeof m);
	m.type = WIRE_START;
	m.u.start.first = g.first;
	m.u.start.turn_time = 60;
	{
		struct rng r;

		rng_seed(&r, 7); /* a commitment is a hash: random-looking, so no deflate gain from it */
		for (int i = 0; i < PROTO_COMMIT_LEN; i++)
			m.u.start.commit[i] = (uint8_t)rng_next(&r);
	}
	if (update_make(&blank, &v, NULL, g.first, &m.u.start.view, NULL) != 0)
		return -1;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	{
		const struct update *u = &m.u.start.view;

		fprintf(o, "START for player %u, who moves first, of `game_init(options_default(), seed 1)` (25x25, FoV and "
		       "potions on): the player stands at (%u,%u); the update has fields 0x%05x, layout mode %u "
		       "(%u cells coded), visibility mode %u, %u potions known.\n\n",
		       g.first, u->x, u->y, (unsigned)u->has, u->lay_mode, u->lay_n, u->vis_mode, u->npot);
	}
	fprintf(o, "The level (`#` wall, `.` floor, `@` the player, `!` a potion, `X` and `,` wall and floor it has not "
	       "seen). The map is the whole level, drawn from the game, not from the view: it shows every potion, those on "
	       "squares the player has never seen too, while START's POTIONS field (and a client's map) has only the "
	       "potions on squares in sight:\n\n```\n");
	for (int y = 0; y < g.level.size; y++) {
		for (int x = 0; x < g.level.size; x++) {
			bool known = (v.cell[y][x] & 0x7f) != VCELL_UNKNOWN;
			char c = g.level.cell[y][x] == CELL_FLOOR ? '.' : '#';

			if (g.potion[y][x])
				c = '!';
			if (x == g.wiz[g.first].x && y == g.wiz[g.first].y)
				c = '@';
			fputc(known ? c : c == '#' ? 'X' : c == '.' ? ',' : c, o);
		}
		fputc('\n', o);
	}
	fprintf(o, "```\n\n");
	block(o, "START payload", payload, len);
	start_msg = m.u.start;
	memcpy(start_pl, payload, len);
	start_len = len;
	SHOW(&gs, &m, "START frame: it fits raw in a record's smallest padding (240 bytes), where deflating it would save no byte on the wire, so it goes raw and leaves the server's deflate stream to that player untouched");
	{
		/* The same level, whole: FoV off, as after Magic Mapping. */
		struct pconn fresh;
		struct options o2 = opt;
		static struct game g2;
		char text[LEVEL_MAX * LEVEL_MAX];
		int tl;

		o2.fov = false;
		game_init(&g2, &o2, 1);
		view_build(&g2, g2.first, &v);
		tl = layout_encode_level(&g2.level, text, sizeof text);
		fprintf(o, "The plan's run-length text of the same seed's level with FoV off (%d bytes; the edge dropped):\n\n"
		       "```\n%.*s\n```\n\n", tl, tl, text);
		if (update_make(&blank, &v, NULL, g2.first, &m.u.start.view, NULL) != 0)
			return -1;
		pconn_init(&fresh, PCONN_SERVER);
		pconn_init(&fresh_c, PCONN_CLIENT);
		secure_pair(&fresh, &fresh_c);
		fresh.joined = true;
		size_t flen;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		if (frame(&fresh, &m, out, &flen) != 0)
			return -1;
		fprintf(o, "START with FoV off carries the whole level that way: %zu bytes of payload, too long to fit "
		        "a record's smallest padding raw, so deflated: %zu bytes as a frame.\n\n", len, flen);
		block(o, "START payload with FoV off", payload, len);
		block(o, "That START frame", out, flen);
		pconn_finish(&fresh);
	}
	{
		/* The first command of that duel, and what each player is told. */
		struct view before[PLAYERS], after[PLAYERS];
		struct events ev;
		struct cmd c = { CMD_STEP, 0, 0 };
		static const uint8_t dirs[] = { DIR_N, DIR_E, DIR_S, DIR_W, DIR_NE, DIR_SE, DIR_SW, DIR_NW };
		int p = g.turn;

		for (int q = 0; q < PLAYERS; q++)
			view_build(&g, q, &before[q]);
		for (size_t i = 0; i < sizeof dirs; i++) {
			c.dir = dirs[i];
			if (game_check(&g, p, &c) == ERR_OK)
				break;
		}
		if (game_apply(&g, p, &c, &ev) != ERR_OK)
			return -1;
		for (int q = 0; q < PLAYERS; q++)
			view_build(&g, q, &after[q]);
		m.type = WIRE_UPDATE;
		update_make(&before[p], &after[p], &ev, p, &m.u.update, NULL);
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		fprintf(o, "Player %d steps %s (direction %u): the UPDATE it gets has fields 0x%x, layout mode %u, "
		       "visibility mode %u with %u corrections.\n\n",
		       p, c.dir == DIR_N ? "north" : "on", c.dir, (unsigned)m.u.update.has, m.u.update.lay_mode,
		       m.u.update.vis_mode, m.u.update.vis_nfix);
		block(o, "UPDATE payload", payload, len);
		step_u = m.u.update;
		memcpy(step_pl, payload, len);
		step_len = len;
		SHOW(&gs, &m, "UPDATE frame, to the stream that carried the first START frame above (under 32 bytes: "
		                 "raw, so the stream is left as it was)");
		update_make(&before[1 - p], &after[1 - p], &ev, 1 - p, &m.u.update, NULL);
		if (m.u.update.has != 0) {
			fprintf(stderr, "proto_examples: the other player was told of a step it cannot see\n");
			return -1;
		}
		fprintf(o, "The other player cannot see that step: nothing in its view changed (`has` would be 0), so "
		           "the server sends it no frame at all.\n\n");
	}

	fprintf(o, "### Control\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_CHAT;
	m.u.chat.from = CHAT_FROM_CLIENT;
	strcpy(m.u.chat.text, "gg");
	SHOW(&cli, &m, "CHAT \"gg\" from a client");
	m.type = WIRE_HEARTBEAT;
	SHOW(&cli, &m, "HEARTBEAT");
	m.type = WIRE_BYE;
	m.u.bye.reason = BYE_QUIT;
	SHOW(&cli, &m, "BYE quit");
	memset(&m, 0, sizeof m);
	m.type = WIRE_PEER;
	m.u.peer.player = 1;
	m.u.peer.state = PEER_DROPPED;
	m.u.peer.seconds = 120;
	SHOW(&srv, &m, "PEER: player 1 dropped, 120 s to come back");
	wire_error_init(&m, PERR_REFUSED_BASE + ERR_BLOCKED, false, err_text(ERR_BLOCKED));
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "ERROR 256 + 7 (ERR_BLOCKED), not fatal: a refused step (payload)", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_END;
	m.u.end.result = RESULT_WIN1;
	m.u.end.reason = END_KILLED;
	m.u.end.seed = seed_example;
	memcpy(m.u.end.server_part, seed_srv, PROTO_PART_LEN);
	m.u.end.parts = 2;
	memcpy(m.u.end.part[1], seed_part[1], PROTO_PART_LEN);
	m.u.end.hash = 0x0123456789abcdefULL;
	m.u.end.log_len = 9000;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "END payload: player 1 won, killed; the host's seed of the example above, its server part 00 ... 1f, "
	      "parts bits 02, player 0's part zeros, player 1's 20 ... 3f; hash 0123456789abcdef; 9000 bytes of log",
	      payload, len);

	fprintf(o, "### Spectators\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	wire_who_init(&m.u.auth.who, "Ada", "duel-1", ROLE_SPECTATOR);
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "AUTH payload of a spectator: role 2, name \"Ada\", room \"duel-1\", a proof of zeros (no password)",
	      payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_WELCOME;
	m.u.welcome.player = WELCOME_SPECTATOR;
	m.u.welcome.grace = 120;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "WELCOME payload to a spectator: player ff, no control, no token, hold 0, grace 120 s", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_SPECT_SET;
	m.u.sset = (struct wire_sset){ true, SPECT_DELAYED, 3, 1 };
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "SPECT_SET payload: spectators allowed, player 1's view 3 turns behind", payload, len);
	m.u.sset = (struct wire_sset){ false, SPECT_SHARED, 0, 0 };
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "SPECT_SET payload: /spectators off", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_SPECT_INFO;
	m.u.sinfo = (struct wire_sinfo){ true, SPECT_SHARED, 0, 0, 12 };
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "SPECT_INFO payload: allowed, the shared view, 12 watching", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_SPECT_CHAT;
	strcpy(m.u.schat.text, "gl");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "SPECT_CHAT payload from a spectator's client: no name, \"gl\"", payload, len);
	strcpy(m.u.schat.name, "Ada");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "SPECT_CHAT payload from the server to the other spectators: \"Ada\" said \"gl\"", payload, len);
	{
		/* The shared view of the duel above after its first step: what both players know. */
		struct view v0, v1, nothing;
		static struct spect_view sv;

		view_build(&g, 0, &v0);
		view_build(&g, 1, &v1);
		spect_shared(&v0, &v1, &sv);
		update_blank(&nothing);
		memset(&m, 0, sizeof m);
		m.type = WIRE_SPECT_VIEW;
		m.u.sview.cmds = 1;
		m.u.sview.kind = sv.kind;
		m.u.sview.me_state = sv.me_state;
		if (update_make(&nothing, &sv.v, NULL, 0, &m.u.sview.view, NULL) != 0)
			return -1;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		fprintf(o, "The spectators of that duel with the shared view, after its first command: both players "
		           "know of the level, where each is known to the other, both HPs: %zu bytes: `cmds` 1, kind 0 (shared), wizard 0 "
		           "state %u, delay 0, then an UPDATE payload of the whole view (fields 0x%x).\n\n",
		        len, sv.me_state, (unsigned)m.u.sview.view.has);
		block(o, "SPECT_VIEW payload", payload, len);
	}
	fprintf(o, "### Open rooms and pairing\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	wire_who_init(&m.u.auth.who, "Ada", "k3fq-9x2m-tn4pr", ROLE_PLAYER);
	m.u.auth.who.create = m.u.auth.who.public_room = true;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "AUTH payload making a public room: role 0 with create and public (c0), name \"Ada\", room "
	         "\"k3fq-9x2m-tn4pr\", a proof of zeros", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_ROOMS_ASK;
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	fprintf(o, "ROOMS_ASK has no payload (its frame is the 2 bytes `60 00`).\n\n");
	m.type = WIRE_ROOMS;
	m.u.rooms.count = 1;
	strcpy(m.u.rooms.room[0].code, "k3fq-9x2m-tn4pr");
	strcpy(m.u.rooms.room[0].name, "Ada");
	m.u.rooms.room[0].rating = 1500;
	options_default(&m.u.rooms.room[0].opt);
	m.u.rooms.room[0].turn_time = 60;
	m.u.rooms.room[0].waiting = 42;
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	block(o, "ROOMS payload: one room, \"k3fq-9x2m-tn4pr\", Ada rated 1500 waits, 25x25 with field of view and "
	         "potions, 60 s turns, no password, for 42 s", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_QUICK;
	options_default(&m.u.quick.opt);
	m.u.quick.wait = 30;
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	block(o, "QUICK payload: 25x25, field of view and potions, no turn limit, a bot offered after 30 s", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_MATCH;
	m.u.match = (struct wire_match){ MATCH_WAITING, 1500, 0, 4, 3, "" };
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	block(o, "MATCH payload: WAITING, your rating 1500, 4 s in the pool, 3 waiting with these options", payload, len);
	m.u.match = (struct wire_match){ MATCH_PAIRED, 1500, 1532, 6, 0, "7wq2-hd0c-m5xaz" };
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	block(o, "MATCH payload: PAIRED after 6 s with a player rated 1532, in the room \"7wq2-hd0c-m5xaz\"", payload, len);
	m.u.match = (struct wire_match){ MATCH_NOBODY, 1500, 0, 30, 0, "" };
	if (wire_encode(&m, payload, sizeof payload, &len, NULL) != 0)
		return -1;
	block(o, "MATCH payload: NOBODY after 30 s, your rating 1500", payload, len);
	fprintf(o, "### Rated duels\n\n");
	{
		/* Ratings: the vector of tests/proto/test_rated.c, signed by the server key 0x01..0x20. */
		static const uint8_t sk[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
		struct rated_rec rec;
		memset(&rec, 0, sizeof rec);
		rec.time = 1800000000;
		memset(rec.commit, 0xc0, sizeof rec.commit);
		memset(rec.key[0], 0xa0, sizeof rec.key[0]);
		memset(rec.key[1], 0xb1, sizeof rec.key[1]);
		rec.result = RATED_WIN0;
		rec.reason = END_KILLED;
		rec.before[0] = rec.before[1] = (struct rated_rating){ 1500, 500, 0.09 };
		rec.after[0] = (struct rated_rating){ 1662.2, 290.3, 0.09 };
		rec.after[1] = (struct rated_rating){ 1337.8, 290.3, 0.09 };
		memset(&m, 0, sizeof m);
		m.type = WIRE_RATED;
		if (rated_signer(sk, m.u.rated.signer) != 0 || rated_sign(&rec, sk) != 0)
			return -1;
		m.u.rated.rec = rec;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "RATED payload: the signer key, then the record (time 1800000000, duel id c0..., keys a0... and "
		         "b1..., player 0 won, killed; 1500 +- 500 vol 0.09 each before, 1662.2 +- 290.3 and 1337.8 +- 290.3 "
		         "after), then its signature, by the server whose X25519 secret key is 01 02 .. 20",
		      payload, len);
		memset(&m, 0, sizeof m);
		m.type = WIRE_ASK;
		m.u.ask.kind = ASK_HISTORY;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "ASK payload: my history, the newest 54", payload, len);
		m.u.ask.skip = 54;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "ASK payload: my history, the page after the newest 54 (skip 54)", payload, len);
		/* A cluster's history: the duel above, and a newer one that another node (X25519 secret
		 * key 21 22 .. 40) rated, each under its own signer. */
		static const uint8_t sk2[32] = { 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
		                                 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64 };
		struct rated_rec rec2 = rec;
		rec2.time = 1800000600;
		memset(rec2.commit, 0xc1, sizeof rec2.commit);
		rec2.result = RATED_DRAW;
		rec2.reason = END_TURN_LIMIT;
		rec2.before[0] = rec.after[0];
		rec2.before[1] = rec.after[1];
		rec2.after[0] = (struct rated_rating){ 1640.5, 240.1, 0.09 };
		rec2.after[1] = (struct rated_rating){ 1359.5, 240.1, 0.09 };
		memset(&m, 0, sizeof m);
		m.type = WIRE_RECORDS;
		m.u.records.count = 2;
		if (rated_signer(sk2, m.u.records.rec[0].signer) != 0 || rated_sign(&rec2, sk2) != 0 ||
		    rated_signer(sk, m.u.records.rec[1].signer) != 0)
			return -1;
		m.u.records.rec[0].rec = rec2;
		m.u.records.rec[1].rec = rec;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "RECORDS payload: two records, newest first: a draw at the turn limit (time 1800000600, duel id "
		         "c1..., 1662.2 and 1337.8 before, 1640.5 +- 240.1 and 1359.5 +- 240.1 after) signed by the node "
		         "whose X25519 secret key is 21 22 .. 40, then the RATED record above under its own signer (01 02 .. 20)",
		      payload, len);
		m.u.ask.skip = 0;
		m.u.ask.kind = ASK_STATS;
		strcpy(m.u.ask.name, "Ada");
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "ASK payload: the stats of \"Ada\"", payload, len);
		memset(&m, 0, sizeof m);
		m.type = WIRE_LADDER;
		m.u.ladder.flags = LADDER_ALL;
		m.u.ladder.count = 2;
		m.u.ladder.row[0] = (struct wire_ladder_row){ 0, 1662, 90, 31, 20, 1, "Ada" };
		m.u.ladder.row[1] = (struct wire_ladder_row){ LADDER_PROVISIONAL, 1338, 290, 1, 0, 0, "Bo" };
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		block(o, "LADDER payload: the whole ladder, Ada 1662 +- 90 (31 duels, 20 wins, 1 draw), then Bo, "
		         "provisional, 1338 +- 290 (1 duel, lost)", payload, len);
	}
	fprintf(o, "### Cluster\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_REDIRECT;
	m.u.redirect.port = 7727;
	for (size_t i = 0; i < PROTO_KEY_LEN; i++)
		m.u.redirect.key[i] = (uint8_t)(0x40 + i);
	strcpy(m.u.redirect.host, "10.0.0.2");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "REDIRECT payload: the room is on the node at 10.0.0.2 port 7727, whose key is 40 41 ... 5f", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_NODES;
	m.u.nodes.n = 2;
	m.u.nodes.node[0].port = 7727;
	m.u.nodes.node[1].port = 7728;
	for (size_t i = 0; i < PROTO_KEY_LEN; i++) {
		m.u.nodes.node[0].key[i] = (uint8_t)(0x40 + i);
		m.u.nodes.node[1].key[i] = (uint8_t)(0x60 + i);
	}
	strcpy(m.u.nodes.node[0].host, "10.0.0.2");
	strcpy(m.u.nodes.node[1].host, "10.0.0.3");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "NODES payload: two nodes, 10.0.0.2 port 7727 (key 40 41 ... 5f) and 10.0.0.3 port 7728 (key 60 61 ... 7f)",
	      payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_ROOMS_PARTIAL;
	m.u.partial.why = ROOMS_PARTIAL_NO_DIRECTORY;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "ROOMS_PARTIAL payload: the cluster's directory cannot be reached, the ROOMS that follows holds this node's "
	         "rooms only", payload, len);
	wire_error_init(&m, PERR_MOVING, false,
	                "room duel-1 is moving to another node (its node stopped answering): ask again in a moment");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "ERROR payload to a spectator asking for room \"duel-1\" while it moves to another node: code 112 "
	         "(MOVING), not fatal, then the connection closes", payload, len);
	pconn_finish(&cli);
	pconn_finish(&srv);
	pconn_finish(&gs);
	pconn_finish(&gsc);
	pconn_finish(&fresh_c);
	if (start_by_field(o) != 0) {
		fprintf(stderr, "proto_examples: the START or UPDATE example does not read back field by field\n");
		return -1;
	}
	return 0;
}

/* The blocks can only be compared with the zlib they were made with: another may deflate otherwise. */
static const char *
other_zlib(void)
{
	return strcmp(zlibVersion(), EXAMPLES_ZLIB) == 0 ? NULL
	                                                : "the examples were made with zlib " EXAMPLES_ZLIB
	                                                  ", whose deflate output this zlib may not repeat";
}

int
main(int argc, char **argv)
{
	static const struct docblock blocks[] = { { "examples", gen_examples } };

	return docblock_main(argc, argv, blocks, 1, other_zlib);
}
