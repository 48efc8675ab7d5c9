/* SPDX-License-Identifier: MIT */
/* spawn: start the real `wizwar server` for a network benchmark and read where it listens, one copy for all. */
#ifndef WIZWAR_BENCH_SPAWN_H
#define WIZWAR_BENCH_SPAWN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SPAWN_ARGS_MAX 16

/* `WIZWAR server --bind 127.0.0.1 --port 0 --log-dir LOGS ARGS...` in a child, its state
 * (the server's key) under STATE (XDG_STATE_HOME), its stderr to ERRPATH. The server prints
 * how to join it first, "wizwar join 127.0.0.1:PORT#FINGERPRINT --new-room": the port and
 * the fingerprint are read from that. Returns the child's pid, or -1 with the reason on
 * stderr (the child, if any, is left to the caller's kill). */
static inline pid_t
spawn_wizwar(const char *wizwar, const char *logs, const char *state, const char *errpath, const char *const *args,
             int nargs, int *port, char *fp, size_t fplen)
{
	char line[512], *p;
	int fds[2];
	pid_t pid;
	FILE *f;

	if (nargs > SPAWN_ARGS_MAX || pipe(fds) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		/* Every player of a benchmark is on 127.0.0.1: the per-address rate limits are off. */
		const char *av[13 + SPAWN_ARGS_MAX] = { wizwar, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", logs,
		                                        "--handshakes-per-min", "0", "--rooms-per-hour", "0" };
		int ac = 12;
		close(fds[0]);
		dup2(fds[1], 1);
		close(fds[1]);
		if (freopen(errpath, "w", stderr) == NULL)
			_exit(126);
		setenv("XDG_STATE_HOME", state, 1);
		for (int k = 0; k < nargs; k++)
			av[ac++] = args[k];
		av[ac] = NULL;
		execv(wizwar, (char *const *)av);
		perror(wizwar);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0 || (f = fdopen(fds[0], "r")) == NULL) {
		close(fds[0]);
		return -1;
	}
	if (fgets(line, sizeof line, f) == NULL || (p = strstr(line, "127.0.0.1:")) == NULL ||
	    sscanf(p, "127.0.0.1:%d#", port) != 1 || (p = strchr(p, '#')) == NULL) {
		fprintf(stderr, "the server did not say where it listens (see %s)\n", errpath);
		fclose(f);
		return -1;
	}
	snprintf(fp, fplen, "%.*s", (int)strcspn(p + 1, " \n"), p + 1);
	fclose(f); /* the server writes nothing more to stdout; a closed pipe is fine */
	return pid;
}

#endif
