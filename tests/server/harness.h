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

#endif

/* A raw TCP peer on the loop: sends what it is told, keeps what it gets, notes EOF. */
struct raw {
	uv_tcp_t tcp;
	uv_connect_t creq;
	bool connected, eof, closed;
	uint8_t pending[70000];
	size_t npending;
	uint8_t got[200000];
	size_t ngot;
};
void raw_start(struct th *t, struct raw *r);
void raw_send(struct raw *r, const void *p, size_t n);
void raw_close(struct raw *r);
/* Decode what a raw peer got as a client would; returns messages decoded, fills the last ERROR. */
int raw_decode(const struct raw *r, struct wire_msg *last_error, int *nerrors);
/* Bytes of one frame carrying message m, encoded with no deflate. */
size_t raw_frame(const struct wire_msg *m, uint8_t *out, size_t cap);
