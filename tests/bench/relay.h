/* SPDX-License-Identifier: MIT */
/* relay: a bare libuv relay, the baseline the network benchmarks measure the server against, one copy for all. */
#ifndef WIZWAR_BENCH_RELAY_H
#define WIZWAR_BENCH_RELAY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "loopchild.h"

/*
 * What a server costs that does nothing but move a duel's bytes: one libuv loop (run in a
 * child by loopchild_spawn), TCP_NODELAY, connections paired in the order it accepts them;
 * for each message of CMD_LEN bytes read from one of a pair, one write of REPLY_LEN bytes to
 * each of the two, the sender first, with uv_try_write (queued only when the socket is
 * full), as the wizwar server writes a command's updates. A reply begins with the message's
 * first 8 bytes, so that a sender can tell its own. No rules, no keys, no turn log.
 * bench_net's ping-pong (one pair, back to back) and bench_relay (thousands of pairs at a
 * human pace) both use it.
 */
struct relay_cfg {
	size_t cmd_len, reply_len; /* each at least 8 */
};

struct relay__conn {
	uv_tcp_t tcp;
	struct relay__conn *peer;
	size_t have;
	uint8_t buf[]; /* 2 x cmd_len */
};

static struct {
	struct relay_cfg cfg;
	uint8_t *reply;
	struct relay__conn *waiting; /* accepted, the second of its pair not yet */
	uv_tcp_t ls;
} relay__;

static void
relay__alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	struct relay__conn *c = h->data;

	(void)suggested;
	*b = uv_buf_init((char *)c->buf + c->have, (unsigned)(2 * relay__.cfg.cmd_len - c->have));
}

static void
relay__written(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
relay__send(struct relay__conn *to, const uint8_t *tag)
{
	size_t len = relay__.cfg.reply_len, off;
	uv_buf_t b;
	int n;

	if (to == NULL || uv_is_closing((uv_handle_t *)&to->tcp))
		return;
	memcpy(relay__.reply, tag, 8);
	b = uv_buf_init((char *)relay__.reply, (unsigned)len);
	if ((n = uv_try_write((uv_stream_t *)&to->tcp, &b, 1)) == (int)len)
		return;
	/* The rest queued, copied: the one reply buffer is reused at once. */
	off = n > 0 ? (size_t)n : 0;
	uv_write_t *w = malloc(sizeof *w + len - off);
	if (w == NULL)
		exit(1);
	memcpy((uint8_t *)(w + 1), relay__.reply + off, len - off);
	b = uv_buf_init((char *)(w + 1), (unsigned)(len - off));
	if (uv_write(w, (uv_stream_t *)&to->tcp, &b, 1, relay__written) != 0)
		free(w);
}

static void
relay__read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct relay__conn *c = st->data;
	size_t at = 0, cmd = relay__.cfg.cmd_len;

	(void)b;
	if (n < 0) {
		if (c->peer)
			c->peer->peer = NULL;
		uv_close((uv_handle_t *)st, NULL); /* the run is over: the process exits soon */
		return;
	}
	c->have += (size_t)n;
	while (c->have - at >= cmd) {
		relay__send(c, c->buf + at);
		relay__send(c->peer, c->buf + at);
		at += cmd;
	}
	memmove(c->buf, c->buf + at, c->have - at);
	c->have -= at;
}

static void
relay__accept(uv_stream_t *ls, int status)
{
	struct relay__conn *c = calloc(1, sizeof *c + 2 * relay__.cfg.cmd_len);

	if (status != 0 || c == NULL)
		exit(1);
	uv_tcp_init(ls->loop, &c->tcp);
	c->tcp.data = c;
	if (uv_accept(ls, (uv_stream_t *)&c->tcp) != 0)
		exit(1);
	uv_tcp_nodelay(&c->tcp, 1);
	if (relay__.waiting) {
		c->peer = relay__.waiting;
		relay__.waiting->peer = c;
		relay__.waiting = NULL;
	} else
		relay__.waiting = c;
	uv_read_start((uv_stream_t *)&c->tcp, relay__alloc, relay__read);
}

/* loopchild_spawn's SERVE: UD is a const struct relay_cfg *. Returns the port, or -1. */
static int
relay_serve(uv_loop_t *loop, void *ud)
{
	relay__.cfg = *(const struct relay_cfg *)ud;
	if (relay__.cfg.cmd_len < 8 || relay__.cfg.reply_len < 8 ||
	    (relay__.reply = calloc(1, relay__.cfg.reply_len)) == NULL)
		return -1;
	return loopchild_listen(loop, &relay__.ls, 4096, relay__accept);
}

#endif
