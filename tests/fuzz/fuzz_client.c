/* SPDX-License-Identifier: MIT */
/* fuzz_client: a whole connection into the real client (net.c): a scripted server on loopback TCP answers its HELLO. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "net.h"
#include "pconn.h"
#include "script.h"

struct fz {
	struct net *n;
	int closed;
};

static void
ev_closed(void *ud, struct net *n)
{
	struct fz *f = ud;
	(void)n;
	f->closed = 1;
	f->n = NULL;
}

static void
put(int fd, const uint8_t *p, size_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void
turn(uv_loop_t *loop, int times, int fd)
{
	uint8_t buf[65536];

	for (int i = 0; i < times; i++) {
		uv_run(loop, UV_RUN_NOWAIT);
		while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
			;
	}
}

/* CHALLENGE (no password) and WELCOME (player 0, the controller), as a server sends them. */
static void
welcome(int fd)
{
	static struct pconn pc;
	static struct wire_msg m;
	static const uint8_t nonce[PROTO_NONCE_LEN];
	uint8_t out[PCONN_FRAME_MAX];
	struct proto_err e;
	size_t len;

	pconn_init(&pc, PCONN_SERVER);
	wire_challenge_init(&m, nonce, false);
	FUZZ_CHECK(pconn_send(&pc, &m, out, sizeof out, &len, &e) == 0);
	put(fd, out, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_WELCOME;
	m.u.welcome.player = 0;
	m.u.welcome.controller = 1;
	m.u.welcome.token_len = PROTO_TOKEN_MIN;
	memset(m.u.welcome.token, 0x5a, PROTO_TOKEN_MIN);
	FUZZ_CHECK(pconn_send(&pc, &m, out, sizeof out, &len, &e) == 0);
	put(fd, out, len);
	pconn_finish(&pc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz f;
	struct net_config cfg;
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	struct script_rec r;
	uv_loop_t loop;
	char why[200];
	int lfd, fd = -1;
	size_t pos = 1;

	if (size < 1)
		return 0;
	memset(&f, 0, sizeof f);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	FUZZ_CHECK(lfd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FUZZ_CHECK(bind(lfd, (struct sockaddr *)&a, sizeof a) == 0 && listen(lfd, 4) == 0);
	FUZZ_CHECK(getsockname(lfd, (struct sockaddr *)&a, &alen) == 0);
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	net_config_default(&cfg);
	cfg.host = "127.0.0.1";
	cfg.port = ntohs(a.sin_port);
	cfg.name = "fz";
	cfg.ud = &f;
	cfg.ev.closed = ev_closed;
	cfg.reconnect_for_ms = 0; /* a lost link is not tried again: one connection per input */
	f.n = net_create(&loop, &cfg, why, sizeof why);
	FUZZ_CHECK(f.n != NULL);
	for (int i = 0; i < 1000 && fd < 0; i++) {
		uv_run(&loop, UV_RUN_NOWAIT);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			uv_sleep(1);
	}
	FUZZ_CHECK(fd >= 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	turn(&loop, 2, fd);
	if (data[0] & SCRIPT_JOIN) {
		welcome(fd);
		turn(&loop, 3, fd);
	}
	while (script_next(data, size, &pos, &r)) {
		put(fd, r.bytes, r.len);
		if (r.close && fd >= 0) {
			close(fd);
			fd = -1;
		}
		turn(&loop, r.turns, fd);
	}
	if (fd >= 0)
		close(fd);
	close(lfd);
	turn(&loop, 2, -1);
	if (f.n)
		net_close(f.n);
	uv_run(&loop, UV_RUN_DEFAULT);
	FUZZ_CHECK(f.closed);
	FUZZ_CHECK(uv_loop_close(&loop) == 0);
	return 0;
}
