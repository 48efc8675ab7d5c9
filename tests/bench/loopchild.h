/* SPDX-License-Identifier: MIT */
/* loopchild: a benchmark's server in a child process of its own, on a libuv loop of its own, one copy for all. */
#ifndef WIZWAR_BENCH_LOOPCHILD_H
#define WIZWAR_BENCH_LOOPCHILD_H

#include <stdlib.h>
#include <unistd.h>
#include <sys/types.h>

#include <uv.h>

/* Starts the child's server on LOOP (listening, on 127.0.0.1) and returns its port, or -1. */
typedef int (*loopchild_serve)(uv_loop_t *loop, void *ud);

/* Forks a child that runs SERVE on a fresh loop, tells this process the port through a pipe,
 * and runs the loop until it ends (or the benchmark kills it). A server in a process of its
 * own, as a real one is: its CPU is measured apart, and the benchmark's own clients never
 * share its loop. Returns the child's pid; exits if the child does not start. */
static inline pid_t
loopchild_spawn(loopchild_serve serve, void *ud, int *port)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		exit(1);
	if ((pid = fork()) == 0) {
		uv_loop_t loop;
		int p;

		close(fds[0]);
		uv_loop_init(&loop);
		if ((p = serve(&loop, ud)) < 0 || write(fds[1], &p, sizeof p) != sizeof p)
			_exit(1);
		close(fds[1]);
		uv_run(&loop, UV_RUN_DEFAULT);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], port, sizeof *port) != sizeof *port)
		exit(1);
	close(fds[0]);
	return pid;
}

/* A bare listener for loopchild_spawn's SERVE: LS on 127.0.0.1, an ephemeral port, BACKLOG
 * deep, ON_CONN for each connection. Returns the port, or -1. */
static inline int
loopchild_listen(uv_loop_t *loop, uv_tcp_t *ls, int backlog, uv_connection_cb on_conn)
{
	struct sockaddr_in sa;
	struct sockaddr_storage got;
	int len = sizeof got;

	uv_tcp_init(loop, ls);
	uv_ip4_addr("127.0.0.1", 0, &sa);
	if (uv_tcp_bind(ls, (const struct sockaddr *)&sa, 0) != 0 || uv_listen((uv_stream_t *)ls, backlog, on_conn) != 0 ||
	    uv_tcp_getsockname(ls, (struct sockaddr *)&got, &len) != 0)
		return -1;
	return ntohs(((struct sockaddr_in *)&got)->sin_port);
}

#endif
