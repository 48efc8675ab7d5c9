/* pconn: one end of a connection as a protocol state: frames, deflate after the join, messages in and out. No I/O. */
#ifndef WW_PCONN_H
#define WW_PCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "proto.h"
#include "wire.h"
#include "zstream.h"

enum pconn_side {
	PCONN_CLIENT = 0,
	PCONN_SERVER = 1,
};

/* Payloads shorter than this go out as they are, even after the join: a
 * command or a heartbeat would grow in deflate (docs/benchmarks.md). */
#define PCONN_DEFLATE_MIN 8

/* How a connection compresses. The protocol is ZSTREAM_STREAM with the default
 * parameters and PCONN_DEFLATE_MIN; other settings exist so the benchmark can
 * measure them, and both ends must then use the same. */
struct pconn_config {
	int zmode;                   /* enum zstream_mode */
	struct zstream_params zpar;
	size_t deflate_min;
};
#define PCONN_CONFIG_DEFAULT ((struct pconn_config){ ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT, PCONN_DEFLATE_MIN })

/*
 * The server accepts a player by sending WELCOME: from then on it may deflate
 * what it sends and inflates what it receives. The client does the same from
 * the WELCOME it receives. Before that nothing is ever inflated, and only the
 * messages marked "before join" in WIRE_LIST are accepted or sent.
 */
/* About 100 KiB, plus zlib's state once joined (about 300 KiB). */
struct pconn {
	/* read-only */
	int side;                 /* enum pconn_side */
	bool joined;              /* WELCOME sent (server) or received (client) */
	bool broken;              /* a decoding error happened: drop the peer */
	struct proto_err err;     /* the error that broke it */
	uint64_t bytes_in, bytes_out;     /* frames on the wire, headers included */
	uint64_t payload_in, payload_out; /* payload bytes before deflate / after inflate */
	uint32_t frames_in, frames_out;
	/* private */
	struct pconn_config cfg;
	struct frame_reader rd;
	struct zstream z;
	uint8_t buf[PROTO_PAYLOAD_MAX];
};

void pconn_init(struct pconn *c, int side);
void pconn_init_config(struct pconn *c, int side, const struct pconn_config *cfg);
void pconn_finish(struct pconn *c);

/* Most bytes one frame of pconn_send() may need. */
#define PCONN_FRAME_MAX (PROTO_HEADER_MAX + PROTO_FRAME_MAX)

/* Encode m as one frame (header and payload, deflated when that is on) into
 * out. 0 and *len, or PROTO_BROKEN: a message this side may not send now
 * (PERR_DIRECTION, PERR_STATE), a field the decoder would refuse, or too big;
 * nothing was sent and the connection can go on. Only a failure inside deflate
 * (PERR_ZLIB, PERR_BUFFER, PERR_TOO_BIG from the stream) leaves the stream out of
 * step: every later send then fails too, and the connection must close. */
int pconn_send(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t cap, size_t *len,
               struct proto_err *e);

/* Bytes from the peer: copy in (returns how many were taken; call pconn_next()
 * until it says PROTO_MORE, then feed the rest), or receive straight into
 * pconn_space() and pconn_commit() them. */
size_t pconn_feed(struct pconn *c, const uint8_t *p, size_t n);
uint8_t *pconn_space(struct pconn *c, size_t *n);
void pconn_commit(struct pconn *c, size_t n);

/* The next message: PROTO_DONE (m filled), PROTO_MORE (wait for bytes) or
 * PROTO_BROKEN (e filled; drop the peer: every later call says the same).
 * A frame's header is judged as soon as it arrives: an unknown type, a wrong
 * direction or an oversized frame is refused before its payload is awaited. */
int pconn_next(struct pconn *c, struct wire_msg *m, struct proto_err *e);

#endif
