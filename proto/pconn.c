/* SPDX-License-Identifier: MIT */
/* pconn: the handshake in clear, then encrypted records of frames, per-connection deflate and message decoding. */
#include <stdlib.h>

#include <sodium.h>

#include "internal.h"
#include "pconn.h"

void
pconn_init_config(struct pconn *c, int side, const struct pconn_config *cfg)
{
	c->side = side;
	c->secure = c->joined = c->broken = false;
	c->err.code = PERR_OK;
	c->err.why[0] = '\0';
	c->bytes_in = c->bytes_out = c->payload_in = c->payload_out = c->padding_out = 0;
	c->frames_in = c->frames_out = c->records_in = c->records_out = 0;
	c->cfg = *cfg;
	c->has_id = false;
	c->e_fixed = NULL;
	memset(&c->hs, 0, sizeof c->hs);
	memset(&c->tx, 0, sizeof c->tx);
	memset(&c->rx, 0, sizeof c->rx);
	c->corked = false;
	c->rx_open = false;
	c->rx_mark = 0;
	c->rx_since = 0;
	c->scr_own = false;
	c->scr = NULL;
	c->rxb = c->ob = NULL;
	c->rx_cap = c->rx_need = c->ob_cap = 0;
	c->rx_start = c->rx_end = c->pt = c->pt_pos = c->pt_len = c->ob_len = 0;
	zstream_init(&c->z, cfg->zmode, cfg->zpar);
}

struct pconn_scratch *
pconn_scratch_new(const struct pconn_config *cfg)
{
	struct pconn_scratch *s = malloc(sizeof *s);

	if (s)
		zdeflater_init(&s->dz, cfg->zpar);
	return s;
}

void
pconn_scratch_free(struct pconn_scratch *s)
{
	if (!s)
		return;
	zdeflater_finish(&s->dz);
	free(s);
}

void
pconn_share(struct pconn *c, struct pconn_scratch *s)
{
	if (c->scr)
		return;
	c->scr = s;
	zstream_share(&c->z, &s->dz);
}

void
pconn_forget(struct pconn *c)
{
	zstream_forget(&c->z);
}

/* The scratch space, made at first need when none is shared. */
static uint8_t *
scratch(struct pconn *c, struct proto_err *e)
{
	if (!c->scr) {
		if ((c->scr = pconn_scratch_new(&c->cfg)) == NULL) {
			proto__fail(e, PERR_NOMEM, "no memory for a message");
			return NULL;
		}
		c->scr_own = true;
		zstream_share(&c->z, &c->scr->dz);
	}
	return c->scr->buf;
}

void
pconn_init(struct pconn *c, int side)
{
	struct pconn_config cfg = PCONN_CONFIG_DEFAULT;

	pconn_init_config(c, side, &cfg);
}

void
pconn_finish(struct pconn *c)
{
	if (!c)
		return;
	zstream_finish(&c->z);
	if (c->scr_own)
		pconn_scratch_free(c->scr);
	c->scr = NULL;
	c->scr_own = false;
	if (c->rxb)
		sodium_memzero(c->rxb, c->rx_cap);
	free(c->rxb);
	if (c->ob)
		sodium_memzero(c->ob, c->ob_cap);
	free(c->ob);
	c->rxb = c->ob = NULL;
	c->rx_cap = c->ob_cap = c->rx_start = c->rx_end = c->pt = c->pt_pos = c->pt_len = c->ob_len = 0;
	sodium_memzero(&c->id, sizeof c->id);
	sodium_memzero(&c->hs, sizeof c->hs);
	sodium_memzero(&c->tx, sizeof c->tx);
	sodium_memzero(&c->rx, sizeof c->rx);
}

void
pconn_set_identity(struct pconn *c, const struct noise_keypair *kp)
{
	c->id = *kp;
	c->has_id = true;
	/* Between HELLO and CHALLENGE (a server in a key rotation choosing the key the client
	 * pinned): message 2 is made with this key instead. */
	if (c->side == PCONN_SERVER && c->hs.step == 1)
		c->hs.s = *kp;
}

void
pconn_set_ephemeral(struct pconn *c, const uint8_t *sk)
{
	c->e_fixed = sk;
}

const uint8_t *
pconn_peer_key(const struct pconn *c)
{
	return c->secure ? noise_remote_static(&c->hs) : NULL;
}

const uint8_t *
pconn_hash(const struct pconn *c)
{
	return c->secure ? noise_hash(&c->hs) : NULL;
}

const uint16_t pconn_pad_class[PCONN_PAD_CLASSES] = { 240, 1008, 4080, PCONN_RECORD_MAX };

size_t
pconn_padded(size_t len)
{
	for (int i = 0; i < PCONN_PAD_CLASSES; i++)
		if (len <= pconn_pad_class[i])
			return pconn_pad_class[i];
	return 0; /* more than one record holds */
}

static bool
may_send(int side, int type)
{
	return wire_dir(type) & (side == PCONN_SERVER ? WIRE_S2C : WIRE_C2S);
}

/* What may cross before the handshake is done: the handshake itself, and the
 * server's refusal (a version mismatch, a full server) or goodbye. */
static bool
clear_ok(int sender, int type)
{
	if (sender == PCONN_CLIENT)
		return type == WIRE_HELLO;
	return type == WIRE_CHALLENGE || type == WIRE_ERROR || type == WIRE_BYE;
}

/* Text a peer chose (chat, names) never shares a deflate stream with a player's
 * secrets: docs/protocol.md, "Compression". */
static bool
never_deflated(int type)
{
	/* CHAT, LOBBY and SPECT_CHAT carry text a peer chose (CRIME). SPECT_VIEW and SPECT_INFO
	 * go to many spectators alike: made once, they are sealed as they are for each one
	 * (pconn_send_payload), since a deflate per spectator would cost more than the rest. */
	return type == WIRE_CHAT || type == WIRE_LOBBY || type == WIRE_SPECT_CHAT || type == WIRE_SPECT_VIEW ||
	       type == WIRE_SPECT_INFO;
}

static void
secure_now(struct pconn *c)
{
	noise_split(&c->hs, &c->tx, &c->rx);
	noise_wipe(&c->hs); /* keeps only h and the peer's public key */
	c->secure = true;
}

/* The clear payload of HELLO or CHALLENGE, with the Noise message made here. */
static int
handshake_payload(struct pconn *c, const struct wire_msg *m, size_t *plen, struct proto_err *e)
{
	uint8_t prologue[8], secret[WIRE_CHALLENGE_SECRET], *buf = c->scr->buf;
	size_t n;

	if (wire_encode(m, buf, sizeof c->scr->buf, plen, e) < 0)
		return PROTO_BROKEN;
	memcpy(prologue, buf, sizeof prologue);
	if (m->type == WIRE_HELLO) {
		if (c->hs.step != 0)
			return proto__fail(e, PERR_STATE, "send: a second HELLO");
		noise_init(&c->hs, NOISE_INITIATOR, prologue, sizeof prologue, NULL, c->e_fixed);
		return noise_write1(&c->hs, buf + 8) < 0 ? proto__fail(e, PERR_STATE, "send: HELLO") : 0;
	}
	/* CHALLENGE: message 2 after the client's message 1. */
	if (!c->has_id || c->hs.step != 1)
		return proto__fail(e, PERR_STATE, "send: CHALLENGE without %s", c->has_id ? "a HELLO" : "a server key");
	wire_challenge_secret_put(&m->u.challenge, secret);
	if (noise_write2(&c->hs, secret, sizeof secret, buf + 8, WIRE_CHALLENGE_NOISE, &n) < 0 ||
	    n != WIRE_CHALLENGE_NOISE)
		return proto__fail(e, PERR_CRYPTO, "send: CHALLENGE: the key exchange failed");
	return 0;
}

/* Seal len bytes of frames at pt into one record at out (pt may be out + 2: sealed in place),
 * padded with zeros to its class. */
static int
seal_at(struct pconn *c, const uint8_t *pt, size_t len, uint8_t *out, size_t cap, size_t *outlen, struct proto_err *e)
{
	size_t padded = pconn_padded(len), ct = padded + NOISE_TAG_LEN;

	*outlen = 0;
	if (len == 0)
		return 0;
	if (cap < 2 + ct)
		return proto__fail(e, PERR_BUFFER, "send: no room for a record");
	if (pt != out + 2)
		memmove(out + 2, pt, len);
	memset(out + 2 + len, 0, padded - len);
	if (noise_seal(&c->tx, out + 2, padded, out + 2) < 0)
		return proto__fail(e, PERR_CRYPTO, "send: the nonces are used up");
	out[0] = (uint8_t)(ct >> 8);
	out[1] = (uint8_t)ct;
	*outlen = 2 + ct;
	c->bytes_out += *outlen;
	c->padding_out += padded - len;
	c->records_out++;
	return 0;
}

/* Seal the corked frames, and give their buffer back. */
static int
seal(struct pconn *c, uint8_t *out, size_t cap, size_t *len, struct proto_err *e)
{
	int rc = seal_at(c, c->ob, c->ob_len, out, cap, len, e);

	if (rc == 0 && c->ob) {
		sodium_memzero(c->ob, c->ob_len);
		free(c->ob);
		c->ob = NULL;
		c->ob_len = c->ob_cap = 0;
	}
	return rc;
}

/* Room for n more corked bytes (at most one record's plaintext, which the caller checks). */
static int
ob_reserve(struct pconn *c, size_t n, struct proto_err *e)
{
	size_t cap;
	uint8_t *p;

	if (c->ob_len + n <= c->ob_cap)
		return 0;
	for (cap = c->ob_cap ? c->ob_cap : 256; cap < c->ob_len + n; cap *= 2)
		;
	if (cap > PCONN_RECORD_MAX)
		cap = PCONN_RECORD_MAX;
	if ((p = malloc(cap)) == NULL)
		return proto__fail(e, PERR_NOMEM, "send: no memory");
	if (c->ob) {
		memcpy(p, c->ob, c->ob_len);
		sodium_memzero(c->ob, c->ob_cap);
		free(c->ob);
	}
	c->ob = p;
	c->ob_cap = cap;
	return 0;
}

void
pconn_cork(struct pconn *c)
{
	c->corked = true;
}

int
pconn_flush(struct pconn *c, uint8_t *out, size_t cap, size_t *len, struct proto_err *e)
{
	c->corked = false;
	return seal(c, out, cap, len, e);
}

/* Would the frame, raw, fit in the padding its record pays for already (pconn_config's
 * fit_raw)? The record is the frames corked before it (ob_len), or this frame alone (ob_len 0:
 * the smallest class). */
static bool
fits_raw(const struct pconn *c, int type, size_t plen)
{
	uint8_t hdr[PROTO_HEADER_MAX];
	int hl = frame_header(hdr, type, false, plen);

	return hl >= 0 && c->ob_len + (size_t)hl + plen <= pconn_padded(c->ob_len);
}

/* A payload already encoded (buf, plen bytes) as one frame of `type`: deflated when that is on,
 * then sealed, or kept while corked. The secure half of pconn_send. */
static int
frame_out(struct pconn *c, int type, const uint8_t *buf, size_t plen, uint8_t *out, size_t cap, size_t *len,
          struct proto_err *e)
{
	size_t flen, used = 0, more;
	bool deflated = false;
	uint8_t *fb, hdr[PROTO_HEADER_MAX];
	int hl;

	/* The frame's payload is built at the end of out, then joins the corked frames or
	 * goes, behind its header, to out + 2 to be sealed there in place. Only the server
	 * deflates (protocol 4): a client's frames are commands and small, and a server
	 * that never inflates needs no inflate state per connection. */
	fb = out + cap - PCONN_RECORD_MAX + PROTO_HEADER_MAX;
	if (c->side == PCONN_SERVER && c->joined && plen >= c->cfg.deflate_min && !never_deflated(type) &&
	    !(c->cfg.fit_raw && fits_raw(c, type, plen))) {
		if (zstream_deflate(&c->z, buf, plen, fb, PROTO_FRAME_MAX, &flen, e) < 0)
			return PROTO_BROKEN;
		deflated = true;
		/* Per frame, a deflated payload that came out no smaller is sent as
		 * it is; a stream cannot take back what it has deflated. */
		if (c->cfg.zmode == ZSTREAM_FRAME && flen >= plen)
			deflated = false;
	}
	if (!deflated) {
		if (plen > PROTO_FRAME_MAX)
			return proto__fail(e, PERR_TOO_BIG, "send: %s of %zu bytes", wire_name(type), plen);
		memcpy(fb, buf, plen);
		flen = plen;
	}
	if ((hl = frame_header(hdr, type, deflated, flen)) < 0)
		return proto__fail(e, PERR_TOO_BIG, "send: frame of %zu bytes", flen);
	if (c->corked || c->ob_len > 0) {
		if (c->ob_len + (size_t)hl + flen > PCONN_RECORD_MAX && seal(c, out, cap - PCONN_RECORD_MAX, &used, e) < 0)
			return PROTO_BROKEN;
		if (ob_reserve(c, (size_t)hl + flen, e) < 0)
			return PROTO_BROKEN;
		memcpy(c->ob + c->ob_len, hdr, (size_t)hl);
		memcpy(c->ob + c->ob_len + hl, fb, flen);
		c->ob_len += (size_t)hl + flen;
		more = 0;
		if (!c->corked && seal(c, out + used, cap - used, &more, e) < 0)
			return PROTO_BROKEN;
	} else {
		/* out + 2 .. out + 2 + hl + flen lies below fb: out holds two records. */
		memcpy(out + 2, hdr, (size_t)hl);
		memmove(out + 2 + hl, fb, flen);
		if (seal_at(c, out + 2, (size_t)hl + flen, out, cap, &more, e) < 0)
			return PROTO_BROKEN;
	}
	c->payload_out += plen;
	c->frames_out++;
	*len = used + more;
	return 0;
}

int
pconn_send(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len,
           struct proto_err *e)
{
	size_t plen;
	uint8_t *buf;
	int hl;

	*len = 0;
	if (!wire_known(m->type))
		return proto__fail(e, PERR_TYPE, "send: type 0x%02x", m->type);
	if (!may_send(c->side, m->type))
		return proto__fail(e, PERR_DIRECTION, "send: %s is not sent by the %s", wire_name(m->type),
		                   c->side == PCONN_SERVER ? "server" : "client");
	if (!c->joined && !wire_before_join(m->type))
		return proto__fail(e, PERR_STATE, "send: %s before the join", wire_name(m->type));
	if (c->secure == clear_ok(c->side, m->type) && !(c->secure && (m->type == WIRE_ERROR || m->type == WIRE_BYE)))
		return proto__fail(e, PERR_STATE, "send: %s %s the handshake", wire_name(m->type),
		                   c->secure ? "after" : "before");
	if (cap < PCONN_FRAME_MAX)
		return proto__fail(e, PERR_BUFFER, "send: no room");
	if ((buf = scratch(c, e)) == NULL)
		return PROTO_BROKEN;
	if (!c->secure) {
		if ((m->type == WIRE_HELLO || m->type == WIRE_CHALLENGE) ? handshake_payload(c, m, &plen, e) < 0
		                                                          : wire_encode(m, buf, sizeof c->scr->buf, &plen, e) < 0)
			return PROTO_BROKEN;
		if ((hl = frame_header(out, m->type, false, plen)) < 0)
			return proto__fail(e, PERR_TOO_BIG, "send: frame of %zu bytes", plen);
		memcpy(out + hl, buf, plen);
		*len = (size_t)hl + plen;
		c->bytes_out += *len;
		c->payload_out += plen;
		c->frames_out++;
		if (m->type == WIRE_CHALLENGE)
			secure_now(c);
		return 0;
	}
	if (wire_encode(m, buf, sizeof c->scr->buf, &plen, e) < 0)
		return PROTO_BROKEN;
	if (frame_out(c, m->type, buf, plen, out, cap, len, e) < 0)
		return PROTO_BROKEN;
	if (c->side == PCONN_SERVER && m->type == WIRE_WELCOME)
		c->joined = true;
	return 0;
}

int
pconn_send_payload(struct pconn *c, int type, const uint8_t *payload, size_t plen, uint8_t *out, size_t cap,
                   size_t *len, struct proto_err *e)
{
	*len = 0;
	if (!wire_known(type) || !may_send(c->side, type) || !c->secure || !c->joined || wire_before_join(type))
		return proto__fail(e, PERR_STATE, "send: %s as a payload", wire_name(type));
	if (plen < wire_min(type) || plen > wire_max(type))
		return proto__fail(e, PERR_TOO_BIG, "send: %s of %zu bytes", wire_name(type), plen);
	if (cap < PCONN_FRAME_MAX)
		return proto__fail(e, PERR_BUFFER, "send: no room");
	return frame_out(c, type, payload, plen, out, cap, len, e);
}

/* Free space at the end of rxb, grown to hold `want` bytes in all (at most one largest record). */
static uint8_t *
space_for(struct pconn *c, size_t want, size_t *n)
{
	/* Bytes already taken go, unless the open record's frames still lie among them. */
	if (c->rx_start > 0 && c->pt_pos >= c->pt_len) {
		memmove(c->rxb, c->rxb + c->rx_start, c->rx_end - c->rx_start);
		c->rx_end -= c->rx_start;
		c->rx_start = 0;
	}
	if (want < PCONN_RX_MIN)
		want = PCONN_RX_MIN;
	if (want > PCONN_RECORD_WIRE)
		want = PCONN_RECORD_WIRE;
	if (c->rx_cap < want) {
		uint8_t *p = realloc(c->rxb, want);
		if (p) {
			c->rxb = p;
			c->rx_cap = want;
		}
	}
	*n = c->rx_cap - c->rx_end;
	return c->rxb ? c->rxb + c->rx_end : NULL;
}

/* The caller holds the bytes already: take as many as one largest record allows. */
size_t
pconn_feed(struct pconn *c, const uint8_t *p, size_t n)
{
	size_t room, want = c->rx_end - c->rx_start + n;
	uint8_t *d = space_for(c, want > c->rx_need ? want : c->rx_need, &room);

	if (n > room)
		n = room;
	if (n == 0)
		return 0;
	memcpy(d, p, n);
	pconn_commit(c, n);
	return n;
}

/* A socket's read: room for the record or frame under way, or a small buffer. */
uint8_t *
pconn_space(struct pconn *c, size_t *n)
{
	return space_for(c, c->rx_need, n);
}

void
pconn_commit(struct pconn *c, size_t n)
{
	if (n > c->rx_cap - c->rx_end)
		n = c->rx_cap - c->rx_end;
	c->rx_end += n;
}

/* Nothing from the peer is waiting: give the receive buffer back. */
static void
rx_idle(struct pconn *c)
{
	if (c->rx_start < c->rx_end || c->pt_pos < c->pt_len || !c->rxb)
		return;
	sodium_memzero(c->rxb, c->rx_end);
	free(c->rxb);
	c->rxb = NULL;
	c->rx_cap = c->rx_start = c->rx_end = c->rx_need = c->pt = c->pt_pos = c->pt_len = 0;
}

static int
broken(struct pconn *c, struct proto_err *e)
{
	c->broken = true;
	if (e)
		c->err = *e;
	return PROTO_BROKEN;
}

/* zlib's deflateBound() for any settings (its conservative form), plus the sync flush that
 * ends every frame: docs/protocol.md, "Frames". */
static size_t
deflated_max(size_t n)
{
	return n + ((n + 7) >> 3) + ((n + 63) >> 6) + 5 + 12;
}

/* A frame's header, before its payload is looked at. */
static int
judge(struct pconn *c, const struct frame *f, struct proto_err *e)
{
	int sender = c->side == PCONN_SERVER ? PCONN_CLIENT : PCONN_SERVER;

	if (!wire_known(f->type))
		return proto__fail(e, PERR_TYPE, "unknown message type 0x%02x", f->type);
	if (may_send(c->side, f->type) && wire_dir(f->type) != WIRE_BOTH)
		/* What this side sends, the peer must not (unless both may): said of the sender. */
		return proto__fail(e, PERR_DIRECTION, "%s is not sent by the %s", wire_name(f->type),
		                   sender == PCONN_SERVER ? "server" : "client");
	if (!c->secure && !clear_ok(sender, f->type))
		return proto__fail(e, PERR_STATE, "%s before the handshake", wire_name(f->type));
	if (c->secure && (f->type == WIRE_HELLO || f->type == WIRE_CHALLENGE))
		return proto__fail(e, PERR_STATE, "%s after the handshake", wire_name(f->type));
	if (!c->joined && !wire_before_join(f->type))
		return proto__fail(e, PERR_STATE, "%s before the join", wire_name(f->type));
	if (f->deflated && !c->joined)
		return proto__fail(e, PERR_EARLY_DEFLATE, "deflated %s before the join", wire_name(f->type));
	if (f->deflated && sender == PCONN_CLIENT)
		return proto__fail(e, PERR_STATE, "deflated %s: a client never deflates (protocol 4)", wire_name(f->type));
	if (f->deflated && never_deflated(f->type))
		return proto__fail(e, PERR_STATE, "deflated %s: peer text is never deflated", wire_name(f->type));
	if (!f->deflated && (f->len < wire_min(f->type) || f->len > wire_max(f->type)))
		return proto__fail(e, PERR_FRAME_SIZE, "%s: %zu bytes, allowed %zu..%zu", wire_name(f->type), f->len,
		                   wire_min(f->type), wire_max(f->type));
	/* A deflated payload is never much longer than the most its type inflates to (zlib's
	 * deflateBound, plus the sync flush): more is padding, such as a flood of empty
	 * blocks that would cost inflate time and pass as a HEARTBEAT. */
	if (f->deflated && f->len > deflated_max(wire_max(f->type)))
		return proto__fail(e, PERR_FRAME_SIZE, "deflated %s: %zu bytes, allowed %zu", wire_name(f->type), f->len,
		                   deflated_max(wire_max(f->type)));
	return 0;
}

static int
decode(struct pconn *c, const struct frame *f, struct wire_msg *m, struct proto_err *e)
{
	size_t plen;
	int rc;

	c->frames_in++;
	if (f->deflated) {
		uint8_t *buf = scratch(c, e);
		if (!buf || zstream_inflate(&c->z, f->payload, f->len, buf, wire_max(f->type), &plen, e) < 0)
			return PROTO_BROKEN;
		rc = wire_decode(f->type, buf, plen, m, e);
	} else {
		plen = f->len;
		rc = wire_decode(f->type, f->payload, f->len, m, e);
	}
	if (rc < 0)
		return PROTO_BROKEN;
	c->payload_in += plen;
	if (c->side == PCONN_CLIENT && m->type == WIRE_WELCOME)
		c->joined = true;
	return PROTO_DONE;
}

/* The Noise part of a clear HELLO (server) or CHALLENGE (client) just decoded. */
static int
handshake_in(struct pconn *c, const struct frame *f, struct wire_msg *m, struct proto_err *e)
{
	uint8_t secret[WIRE_CHALLENGE_SECRET];
	size_t n;

	if (m->type == WIRE_HELLO) {
		if (!c->has_id)
			return proto__fail(e, PERR_SERVER, "this server has no key");
		if (c->hs.step != 0)
			return proto__fail(e, PERR_STATE, "a second HELLO");
		noise_init(&c->hs, NOISE_RESPONDER, f->payload, 8, &c->id, c->e_fixed);
		if (noise_read1(&c->hs, m->u.hello.e, sizeof m->u.hello.e) < 0)
			return proto__fail(e, PERR_CRYPTO, "HELLO: bad key exchange");
		return 0;
	}
	if (m->type != WIRE_CHALLENGE)
		return 0;
	if (c->hs.step != 1)
		return proto__fail(e, PERR_STATE, "CHALLENGE before HELLO");
	if (noise_read2(&c->hs, m->u.challenge.noise, sizeof m->u.challenge.noise, secret, sizeof secret, &n) < 0)
		return proto__fail(e, PERR_CRYPTO, "the server's handshake does not verify");
	if (wire_challenge_secret_get(&m->u.challenge, secret, n, e) < 0)
		return PROTO_BROKEN;
	secure_now(c);
	return 0;
}

static int
next_clear(struct pconn *c, struct wire_msg *m, struct proto_err *e)
{
	struct frame f;
	size_t used;
	int rc;

	rc = frame_parse_header(c->rxb + c->rx_start, c->rx_end - c->rx_start, &f, &used, e);
	if (rc != PROTO_DONE)
		return rc;
	if (judge(c, &f, e) < 0)
		return PROTO_BROKEN;
	c->rx_need = used + f.len;
	rc = frame_parse(c->rxb + c->rx_start, c->rx_end - c->rx_start, &f, &used, e);
	if (rc != PROTO_DONE)
		return rc;
	c->rx_need = 0;
	c->rx_start += used;
	c->bytes_in += used;
	if (decode(c, &f, m, e) < 0 || handshake_in(c, &f, m, e) < 0)
		return PROTO_BROKEN;
	return PROTO_DONE;
}

/* The open record's padding: zeros to its end, after at least one frame. */
static int
padding(struct pconn *c, struct proto_err *e)
{
	const uint8_t *p = c->rxb + c->pt;

	if (c->pt_pos == 0)
		return proto__fail(e, PERR_RECORD, "a record with no frame");
	for (size_t i = c->pt_pos; i < c->pt_len; i++)
		if (p[i] != 0)
			return proto__fail(e, PERR_RECORD, "a record's padding is not all zero");
	c->pt_pos = c->pt_len;
	return 0;
}

static int
next_inner(struct pconn *c, struct wire_msg *m, struct proto_err *e)
{
	struct frame f;
	size_t used;
	int rc;

	rc = frame_parse(c->rxb + c->pt + c->pt_pos, c->pt_len - c->pt_pos, &f, &used, e);
	if (rc == PROTO_MORE)
		return proto__fail(e, PERR_TRUNCATED, "a frame cut by the end of its record");
	if (rc != PROTO_DONE || judge(c, &f, e) < 0)
		return PROTO_BROKEN;
	c->pt_pos += used;
	rc = decode(c, &f, m, e);
	if (rc == PROTO_DONE && c->pt_pos < c->pt_len && c->rxb[c->pt + c->pt_pos] == 0) {
		/* The padding goes with the last frame, so that the record is done with and its
		 * bytes can go; a bad one breaks the connection from the next call on. */
		struct proto_err pe;
		if (padding(c, &pe) < 0) {
			c->broken = true;
			c->err = pe;
		}
	}
	return rc;
}

int
pconn_next(struct pconn *c, struct wire_msg *m, struct proto_err *e)
{
	struct proto_err local;
	size_t avail, len;
	int rc;

	if (!e)
		e = &local;
	if (c->broken) {
		*e = c->err;
		return PROTO_BROKEN;
	}
	for (;;) {
		if (c->pt_pos < c->pt_len && c->rxb[c->pt + c->pt_pos] == 0) {
			/* Type 0 is no message: the padding, zeros to the record's end. */
			if (padding(c, e) < 0)
				return broken(c, e);
			continue;
		}
		if (c->pt_pos < c->pt_len) {
			rc = next_inner(c, m, e);
			return rc == PROTO_BROKEN ? broken(c, e) : rc;
		}
		if (c->rx_start == c->rx_end) {
			rx_idle(c);
			return PROTO_MORE;
		}
		if (!c->secure) {
			rc = next_clear(c, m, e);
			return rc == PROTO_BROKEN ? broken(c, e) : rc;
		}
		avail = c->rx_end - c->rx_start;
		if (avail < 2)
			return PROTO_MORE;
		len = (size_t)c->rxb[c->rx_start] << 8 | c->rxb[c->rx_start + 1];
		/* A padded plaintext and its tag: one of a few lengths, judged before the record is awaited. */
		if (len < NOISE_TAG_LEN || pconn_padded(len - NOISE_TAG_LEN) != len - NOISE_TAG_LEN) {
			proto__fail(e, PERR_RECORD, "a record of %zu bytes (allowed %d, %d, %d or %d)", len,
			            pconn_pad_class[0] + NOISE_TAG_LEN, pconn_pad_class[1] + NOISE_TAG_LEN,
			            pconn_pad_class[2] + NOISE_TAG_LEN, pconn_pad_class[3] + NOISE_TAG_LEN);
			return broken(c, e);
		}
		if (avail < 2 + len) {
			c->rx_need = 2 + len;
			return PROTO_MORE;
		}
		/* Decrypted in place: its frames are taken from rxb before anything moves it. */
		if (noise_open(&c->rx, c->rxb + c->rx_start + 2, len, c->rxb + c->rx_start + 2) < 0) {
			proto__fail(e, PERR_CRYPTO, "a record does not verify: changed on the way, or not from the peer");
			return broken(c, e);
		}
		c->pt = c->rx_start + 2;
		c->rx_start += 2 + len;
		c->rx_need = 0;
		c->bytes_in += 2 + len;
		c->records_in++;
		c->pt_pos = 0;
		c->pt_len = len - NOISE_TAG_LEN;
	}
}

bool
pconn_stalled(struct pconn *c, uint64_t now, uint64_t limit_ms)
{
	/* Each record or frame taken moves the mark: a stream of records that each end in the
	 * next read is not one record stalled. */
	uint32_t mark = c->frames_in + c->records_in;

	if (c->broken || c->rx_start >= c->rx_end || c->pt_pos < c->pt_len) {
		c->rx_open = false;
		return false;
	}
	if (!c->rx_open || c->rx_mark != mark) {
		c->rx_open = true;
		c->rx_mark = mark;
		c->rx_since = now;
	}
	return now - c->rx_since >= limit_ms;
}
