/* SPDX-License-Identifier: MIT */
/* fuzz_server: whole connections into a real server: two peers on loopback TCP send a script of bytes to a multi-room server. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "pconn.h"
#include "script.h"
#include "server.h"

static void
on_closed(void *ud)
{
	*(int *)ud = 1;
}

static int
connect_to(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	FUZZ_CHECK(fd >= 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FUZZ_CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Read and forget what the server sent (so its write queue never fills). */
static void
drain(int fd)
{
	uint8_t buf[65536];

	while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
		;
}

static void
put(int fd, const uint8_t *p, size_t n)
{
	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return; /* the server closed, or the socket is full: the rest is lost, as on a real link */
		p += w;
		n -= (size_t)w;
	}
}

static void
turn(uv_loop_t *loop, int times, const int fd[2])
{
	for (int i = 0; i < times; i++) {
		uv_run(loop, UV_RUN_NOWAIT);
		drain(fd[0]);
		drain(fd[1]);
	}
}

/* HELLO (asking to create room "fz") and AUTH without a password, as a client sends them. */
static void
join(int fd, const char *name)
{
	static struct pconn pc;
	static struct wire_msg m;
	uint8_t out[PCONN_FRAME_MAX];
	struct proto_err e;
	size_t len;

	pconn_init(&pc, PCONN_CLIENT);
	wire_hello_init(&m, name, "fz", ROLE_PLAYER);
	m.u.hello.create = true;
	FUZZ_CHECK(pconn_send(&pc, &m, out, sizeof out, &len, &e) == 0);
	put(fd, out, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	FUZZ_CHECK(pconn_send(&pc, &m, out, sizeof out, &len, &e) == 0);
	put(fd, out, len);
	pconn_finish(&pc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct server_config cfg;
	struct server *s;
	struct script_rec r;
	uv_loop_t loop;
	char why[200];
	int fd[2], closed = 0;
	size_t pos = 1;

	if (size < 1)
		return 0;
	FUZZ_CHECK(uv_loop_init(&loop) == 0);
	server_config_default(&cfg);
	cfg.bind = "127.0.0.1";
	cfg.multi = true;
	cfg.quiet = true;
	FUZZ_CHECK(server_create(&loop, &cfg, &s, why, sizeof why) == 0);
	fd[0] = connect_to(server_port(s));
	fd[1] = connect_to(server_port(s));
	turn(&loop, 2, fd);
	if (data[0] & SCRIPT_JOIN) {
		join(fd[0], "ann");
		turn(&loop, 3, fd);
		join(fd[1], "bea");
		turn(&loop, 3, fd);
	}
	while (script_next(data, size, &pos, &r)) {
		put(fd[r.peer], r.bytes, r.len);
		if (r.close && fd[r.peer] >= 0) {
			close(fd[r.peer]);
			fd[r.peer] = -1;
		}
		turn(&loop, r.turns, fd);
	}
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	fd[0] = fd[1] = -1;
	turn(&loop, 2, fd);
	server_close(s, on_closed, &closed);
	uv_run(&loop, UV_RUN_DEFAULT);
	FUZZ_CHECK(closed);
	FUZZ_CHECK(uv_loop_close(&loop) == 0);
	return 0;
}
