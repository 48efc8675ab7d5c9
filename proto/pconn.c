/* pconn: frames, per-connection deflate and message decoding for one end of a connection. */
#include "internal.h"
#include "pconn.h"

void
pconn_init_config(struct pconn *c, int side, const struct pconn_config *cfg)
{
	c->side = side;
	c->joined = false;
	c->broken = false;
	c->err.code = PERR_OK;
	c->err.why[0] = '\0';
	c->bytes_in = c->bytes_out = c->payload_in = c->payload_out = 0;
	c->frames_in = c->frames_out = 0;
	c->cfg = *cfg;
	frame_reader_init(&c->rd);
	zstream_init(&c->z, cfg->zmode, cfg->zpar);
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
	if (c)
		zstream_finish(&c->z);
}

static bool
may_send(int side, int type)
{
	return wire_dir(type) & (side == PCONN_SERVER ? WIRE_S2C : WIRE_C2S);
}

int
pconn_send(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len,
           struct proto_err *e)
{
	size_t plen, flen;
	bool deflated = false;
	uint8_t hdr[PROTO_HEADER_MAX];
	int hl;

	if (!wire_known(m->type))
		return proto__fail(e, PERR_TYPE, "send: type 0x%02x", m->type);
	if (!may_send(c->side, m->type))
		return proto__fail(e, PERR_DIRECTION, "send: %s is not sent by the %s", wire_name(m->type),
		                   c->side == PCONN_SERVER ? "server" : "client");
	if (!c->joined && !wire_before_join(m->type))
		return proto__fail(e, PERR_STATE, "send: %s before the join", wire_name(m->type));
	if (cap < PROTO_HEADER_MAX)
		return proto__fail(e, PERR_BUFFER, "send: no room");
	if (wire_encode(m, c->buf, sizeof c->buf, &plen, e) < 0)
		return PROTO_BROKEN;
	if (c->joined && plen >= c->cfg.deflate_min) {
		size_t room = cap - PROTO_HEADER_MAX;

		if (room > PROTO_FRAME_MAX)
			room = PROTO_FRAME_MAX;
		if (zstream_deflate(&c->z, c->buf, plen, out + PROTO_HEADER_MAX, room, &flen, e) < 0)
			return PROTO_BROKEN;
		deflated = true;
		/* Per frame, a deflated payload that came out no smaller is sent as
		 * it is; a stream cannot take back what it has deflated. */
		if (c->cfg.zmode == ZSTREAM_FRAME && flen >= plen)
			deflated = false;
	}
	if (!deflated) {
		if (plen > PROTO_FRAME_MAX)
			return proto__fail(e, PERR_TOO_BIG, "send: %s of %zu bytes", wire_name(m->type), plen);
		if (plen > cap - PROTO_HEADER_MAX)
			return proto__fail(e, PERR_BUFFER, "send: %zu bytes", plen);
		memcpy(out + PROTO_HEADER_MAX, c->buf, plen);
		flen = plen;
	}
	hl = frame_header(hdr, m->type, deflated, flen);
	if (hl < 0)
		return proto__fail(e, PERR_TOO_BIG, "send: frame of %zu bytes", flen);
	memmove(out + hl, out + PROTO_HEADER_MAX, flen);
	memcpy(out, hdr, (size_t)hl);
	*len = (size_t)hl + flen;
	c->bytes_out += *len;
	c->payload_out += plen;
	c->frames_out++;
	if (c->side == PCONN_SERVER && m->type == WIRE_WELCOME)
		c->joined = true;
	return 0;
}

size_t
pconn_feed(struct pconn *c, const uint8_t *p, size_t n)
{
	return frame_reader_feed(&c->rd, p, n);
}

uint8_t *
pconn_space(struct pconn *c, size_t *n)
{
	return frame_reader_space(&c->rd, n);
}

void
pconn_commit(struct pconn *c, size_t n)
{
	frame_reader_commit(&c->rd, n);
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

int
pconn_next(struct pconn *c, struct wire_msg *m, struct proto_err *e)
{
	struct proto_err local;
	struct frame f;
	size_t plen;
	int rc;

	if (!e)
		e = &local;
	if (c->broken) {
		*e = c->err;
		return PROTO_BROKEN;
	}
	rc = frame_reader_peek(&c->rd, &f, e);
	if (rc != PROTO_DONE)
		return rc == PROTO_MORE ? PROTO_MORE : broken(c, e);
	if (!wire_known(f.type)) {
		proto__fail(e, PERR_TYPE, "unknown message type 0x%02x", f.type);
		return broken(c, e);
	}
	if (may_send(c->side, f.type)) {
		/* What this side sends, the peer must not (unless both may). */
		if (wire_dir(f.type) != WIRE_BOTH) {
			proto__fail(e, PERR_DIRECTION, "%s is not sent by the %s", wire_name(f.type),
			            c->side == PCONN_SERVER ? "server" : "client");
			return broken(c, e);
		}
	}
	if (!c->joined && !wire_before_join(f.type)) {
		proto__fail(e, PERR_STATE, "%s before the join", wire_name(f.type));
		return broken(c, e);
	}
	if (f.deflated && !c->joined) {
		proto__fail(e, PERR_EARLY_DEFLATE, "deflated %s before the join", wire_name(f.type));
		return broken(c, e);
	}
	if (!f.deflated && (f.len < wire_min(f.type) || f.len > wire_max(f.type))) {
		proto__fail(e, PERR_FRAME_SIZE, "%s: %zu bytes, allowed %zu..%zu", wire_name(f.type), f.len,
		            wire_min(f.type), wire_max(f.type));
		return broken(c, e);
	}
	/* A deflated payload is never much longer than the most its type inflates to (zlib's
	 * deflateBound, plus the sync flush): more is padding, such as a flood of empty
	 * blocks that would cost inflate time and pass as a HEARTBEAT. */
	if (f.deflated && f.len > deflated_max(wire_max(f.type))) {
		proto__fail(e, PERR_FRAME_SIZE, "deflated %s: %zu bytes, allowed %zu", wire_name(f.type), f.len,
		            deflated_max(wire_max(f.type)));
		return broken(c, e);
	}
	rc = frame_reader_next(&c->rd, &f, e);
	if (rc != PROTO_DONE)
		return rc == PROTO_MORE ? PROTO_MORE : broken(c, e);
	c->bytes_in += f.len + (f.len < 0x80 ? 2 : 3);
	c->frames_in++;
	if (f.deflated) {
		if (zstream_inflate(&c->z, f.payload, f.len, c->buf, wire_max(f.type), &plen, e) < 0)
			return broken(c, e);
		rc = wire_decode(f.type, c->buf, plen, m, e);
	} else {
		plen = f.len;
		rc = wire_decode(f.type, f.payload, f.len, m, e);
	}
	if (rc < 0)
		return broken(c, e);
	c->payload_in += plen;
	if (c->side == PCONN_CLIENT && m->type == WIRE_WELCOME)
		c->joined = true;
	return PROTO_DONE;
}
