/* SPDX-License-Identifier: MIT */
/* server/files: the file limit raised and the caps fitted; out of descriptors, no spinning, said once, recovered. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "server.h"

/* The server runs in a child process of its own (its file limit is its own), logging to a file.
 * It fills its descriptor table with /dev/null, then after `hold_ms` frees them again. */

struct child {
	pid_t pid;
	int port;
	char log[64];
};

static int fillers[4096];
static int nfill;

static void
on_free(uv_timer_t *t)
{
	while (nfill > 0)
		close(fillers[--nfill]);
	uv_close((uv_handle_t *)t, NULL);
}

static void
on_stop(uv_signal_t *sig, int signum)
{
	(void)signum;
	uv_stop(sig->loop);
}

static void
start_child(struct child *ch, rlim_t soft, rlim_t hard, bool fill, unsigned hold_ms)
{
	int fds[2];

	snprintf(ch->log, sizeof ch->log, "/tmp/ww_files_XXXXXX");
	int lfd = mkstemp(ch->log);
	cr_assert(lfd >= 0);
	close(lfd);
	cr_assert(pipe(fds) == 0);
	if ((ch->pid = fork()) == 0) {
		static uv_loop_t loop;
		static uv_timer_t t;
		static uv_signal_t sig;
		struct server_config c;
		struct server *s;
		struct rlimit rl = { soft, hard };
		char why[256];
		unsigned port;

		close(fds[0]);
		if (freopen(ch->log, "w", stderr) == NULL || setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(2);
		setvbuf(stderr, NULL, _IOLBF, 0);
		uv_loop_init(&loop);
		server_config_default(&c);
		c.bind = "127.0.0.1";
		c.multi = true;
		if (server_create(&loop, &c, &s, why, sizeof why) != 0)
			_exit(3);
		port = (unsigned)server_port(s);
		if (write(fds[1], &port, sizeof port) != sizeof port)
			_exit(4);
		close(fds[1]);
		if (fill) {
			int fd;
			while (nfill < (int)(sizeof fillers / sizeof fillers[0]) && (fd = open("/dev/null", O_RDONLY)) >= 0)
				fillers[nfill++] = fd;
			uv_timer_init(&loop, &t);
			uv_timer_start(&t, on_free, hold_ms, 0);
		}
		uv_signal_init(&loop, &sig);
		uv_signal_start(&sig, on_stop, SIGTERM);
		uv_run(&loop, UV_RUN_DEFAULT);
		_exit(0);
	}
	close(fds[1]);
	unsigned port;
	cr_assert(read(fds[0], &port, sizeof port) == sizeof port, "the server did not start (see %s)", ch->log);
	close(fds[0]);
	ch->port = (int)port;
}

static void
stop_child(struct child *ch)
{
	int st;

	kill(ch->pid, SIGTERM);
	waitpid(ch->pid, &st, 0);
}

static char *
read_log(const struct child *ch)
{
	static char buf[65536];
	FILE *f = fopen(ch->log, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static int
dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* 1: closed by the server (EOF or reset) within ms; 0: still open. */
static int
closed_within(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char b[64];

	if (poll(&p, 1, ms) <= 0)
		return 0;
	ssize_t n = read(fd, b, sizeof b);
	return n <= 0 ? 1 : 0;
}

static double
child_cpu(pid_t pid)
{
	clockid_t id;
	struct timespec ts;

	if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0)
		return -1;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(files, limit_raised_and_caps_fitted)
{
	struct child ch;

	/* A soft limit of 256 under a hard one of 512: raised to 512, which cannot hold the default caps. */
	start_child(&ch, 256, 512, false, 0);
	stop_child(&ch);
	char *log = read_log(&ch);
	cr_expect(strstr(log, "file limit raised from 256 to 512") != NULL, "the log: %s", log);
	cr_expect(strstr(log, "the file limit (512 open files) holds 320 connections and 160 rooms") != NULL,
	          "the caps fitted (512 - 32 spare = 480: 160 rooms, 320 connections): %s", log);
	unlink(ch.log);
}

Test(files, emfile_does_not_spin_and_recovers)
{
	struct child ch;
	int fds[64], n = 0;

	/* The child's descriptors are all taken for 1.5 s. */
	start_child(&ch, 128, 128, true, 1500);
	double t0 = mono_s(), cpu0 = child_cpu(ch.pid);
	/* 40 peers arrive while it has none to give: each is closed at accept, none hangs. */
	for (int i = 0; i < 40; i++) {
		int fd = dial(ch.port);
		if (fd >= 0)
			fds[n++] = fd;
	}
	int closed = 0;
	for (int i = 0; i < n; i++) {
		closed += closed_within(fds[i], 1000);
		close(fds[i]);
	}
	cr_expect_eq(closed, n, "%d of %d connections closed at accept", closed, n);
	/* Then keep the listener busy for the rest of the 1.5 s, and measure what it cost. */
	nanosleep(&(struct timespec){ 0, 700000000 }, NULL);
	double cpu = child_cpu(ch.pid) - cpu0;
	cr_expect(cpu < 0.5, "the loop spun: %.2f s of CPU over ~1.2 s with no descriptor to accept with", cpu);
	/* (the descriptors come back 1.5 s after the start: wait until well past it) */
	while (mono_s() - t0 < 1.9)
		nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	/* Descriptors back: a new peer is taken and kept (it waits for HELLO). */
	int fd = dial(ch.port);
	cr_assert(fd >= 0);
	cr_expect_eq(closed_within(fd, 300), 0, "a connection after the descriptors came back was closed");
	close(fd);
	stop_child(&ch);
	char *log = read_log(&ch);
	cr_expect_eq(count(log, "accept: too many open files"), 1, "said once in the 10 s window: %s", log);
	cr_expect(strstr(log, "raise the file limit") != NULL, "%s", log);
	unlink(ch.log);
}
