/* SPDX-License-Identifier: MIT */
/* tests/server harness: a server and headless network players on one libuv loop, over real loopback TCP. */
#ifndef WW_TEST_SERVER_HARNESS_H
#define WW_TEST_SERVER_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "internal.h" /* server/internal.h: tests look inside rooms */
#include "net.h"
#include "netbot.h"
#include "server.h"

struct th {
	uv_loop_t loop;
	struct server *srv;
	int port;
	uv_timer_t watchdog;
	bool timed_out;
	bool srv_closed;
};

/* A config with short, test-friendly limits on 127.0.0.1 port 0, quiet. */
void th_config(struct server_config *c);
/* The long-term key every test server shares (made once per process). */
const struct auth_identity *th_identity(void);
void th_init(struct th *t);
void th_server(struct th *t, const struct server_config *c);
/* A bot player; games 0 plays until stopped. */
void th_bot_config(struct th *t, struct netbot_config *bc, const char *name, int level, uint64_t seed, int games);
void th_bot(struct th *t, struct netbot *b, const struct netbot_config *bc);
/* Run until the loop has nothing left, or until `stop` returns true, or ms pass (a failure). */
void th_run(struct th *t, unsigned ms, bool (*stop)(void *ud), void *ud);
/* Close the server (if any), drain the loop, and check that nothing is left open. */
void th_finish(struct th *t);
/* Raw TCP helpers for hostile tests: connect a socket (blocking) to the server. */
int th_raw_connect(int port);

/* A raw TCP peer on the loop: sends what it is told, keeps what it gets, notes EOF.
 * It also reads what it gets as a client would (its own pconn), so that it can go
 * through the encrypted handshake: raw_hello() sends HELLO (and then it is secure),
 * every CHALLENGE is answered with IDENT (its key `id`, unless no_ident),
 * raw_join() also answers CHALLENGE with AUTH; raw_msg() sends a message through
 * the channel (in clear before it is secure, which the server refuses for most). */
struct raw {
	uv_tcp_t tcp;
	uv_connect_t creq;
	bool connected, eof, closed;
	bool join, deaf;           /* answer CHALLENGE with AUTH; deaf: stop reading once WELCOME came */
	bool sent_auth;            /* join: the AUTH has gone out */
	bool create;               /* AUTH asks a multi-room server to make the room */
	bool spectator;            /* AUTH with the spectator's role */
	bool no_ident;             /* do not send IDENT after CHALLENGE (tests of its refusal) */
	struct auth_ident id;      /* the key IDENT proves (a fresh one per raw_start; tests may set it) */
	char name[PROTO_NAME_BYTES + 1], room[PROTO_ROOM_BYTES + 1];
	bool broken;               /* what it got stopped decoding */
	int nmsgs, nerrors;
	int count[128];            /* messages got, by type */
	struct wire_msg last_error, in;
	uint8_t pending[70000];
	size_t npending;
	uint8_t got[200000];
	size_t ngot;
	uint8_t frame[PCONN_FRAME_MAX];
	struct pconn pc;
	/* Optional: each message as it is decoded (pc.records_in: the record it came in). */
	void (*on_msg)(struct raw *r, const struct wire_msg *m);
	void *ud;
};
void raw_start(struct th *t, struct raw *r);
/* The same with a small receive buffer (a peer that does not read fills up soon). */
void raw_start_small(struct th *t, struct raw *r);
/* The same from another source address of this machine (127.0.0.2: another address). */
void raw_start_from(struct th *t, struct raw *r, const char *src);
void raw_send(struct raw *r, const void *p, size_t n);
void raw_hello(struct raw *r);
void raw_join(struct raw *r, const char *name, const char *room);
/* The same, saying whether the room is to be created (raw_join asks for it). */
void raw_join_as(struct raw *r, const char *name, const char *room, bool create);
/* Plain bytes of whole frames, sealed as one record (the handshake must be done). */
void raw_sealed(struct raw *r, const void *plain, size_t n);
void raw_msg(struct raw *r, const struct wire_msg *m);
void raw_close(struct raw *r);
/* What a raw peer got, decoded as a client would: messages decoded, the last ERROR. */
int raw_decode(const struct raw *r, struct wire_msg *last_error, int *nerrors);
/* Bytes of one clear frame carrying message m, encoded with no deflate. */
size_t raw_frame(const struct wire_msg *m, uint8_t *out, size_t cap);

#endif
