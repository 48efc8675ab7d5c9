/* SPDX-License-Identifier: MIT */
/* cmd_status: `wizwar status` and `wizwar admin`: one line of the admin protocol to a running server's admin socket, its answer printed. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "admin.h"
#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"

/* A server answers at once; one that does not within this is stuck or not a server. */
#define STATUS_WAIT_MS 5000
/* An answer larger than this is not a server's (the largest, `metrics`, is some 5 KB). */
#define STATUS_ANSWER_MAX (ADMIN_QUEUE_MAX)

static int
connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		cli_error("%s: the path is too long for a socket\n", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		cli_error("socket: %s\n", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		cli_error("no server answers on %s: %s%s\n", path, strerror(errno),
		          errno == ENOENT || errno == ECONNREFUSED ? " (is `wizwar server` running, as this user?)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

static long
ms_left(const struct timespec *until)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (until->tv_sec - now.tv_sec) * 1000 + (until->tv_nsec - now.tv_nsec) / 1000000;
}

/* Send the line, read the answer up to its last line ("ok" or "error: ..."), print the data
 * lines without their "- ". 0 ok, 1 an error or no answer. */
static int
ask(int fd, const char *line)
{
	char *buf = malloc(STATUS_ANSWER_MAX + 1);
	size_t len = 0, off = 0;
	struct timespec until;
	int rc = 1;

	if (buf == NULL)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += STATUS_WAIT_MS / 1000;
	size_t n = strlen(line);
	if (write(fd, line, n) != (ssize_t)n || write(fd, "\n", 1) != 1) {
		cli_error("the admin socket: %s\n", strerror(errno));
		goto out;
	}
	for (;;) {
		char *nl;
		while ((nl = memchr(buf + off, '\n', len - off)) != NULL) {
			*nl = '\0';
			const char *l = buf + off;
			off = (size_t)(nl - buf) + 1;
			if (strncmp(l, "- ", 2) == 0) {
				/* The server checks what it says (a ban's reason is clean text); a socket
				 * that is not one must still not move this terminal's cursor. */
				for (char *q = (char *)l + 2; *q; q++)
					if ((unsigned char)*q < 0x20 || *q == 0x7f)
						*q = '?';
				printf("%s\n", l + 2);
			} else if (strcmp(l, "ok") == 0) {
				rc = 0;
				goto out;
			} else if (strncmp(l, "error: ", 7) == 0) {
				cli_error("the server says: %s\n", l + 7);
				goto out;
			} else {
				cli_error("not an admin socket's answer: '%.80s'\n", l);
				goto out;
			}
		}
		long left = ms_left(&until);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			cli_error("no answer within %d s\n", STATUS_WAIT_MS / 1000);
			goto out;
		}
		if (len == STATUS_ANSWER_MAX) {
			cli_error("an answer longer than %d bytes\n", STATUS_ANSWER_MAX);
			goto out;
		}
		ssize_t got = read(fd, buf + len, STATUS_ANSWER_MAX - len);
		if (got <= 0) {
			cli_error("the server closed the admin socket before it answered\n");
			goto out;
		}
		len += (size_t)got;
	}
out:
	free(buf);
	return rc;
}

/* The socket's path: --socket, or --state-dir's admin.sock, or the default state directory's. */
static bool
socket_path(const char *dir, const char *sock, char *path, size_t len)
{
	if (sock) {
		snprintf(path, len, "%s", sock);
	} else if (dir) {
		snprintf(path, len, "%s/admin.sock", dir);
	} else if (cli_state_dir(path, len - 16)) {
		strcat(path, "/admin.sock");
	} else {
		cli_error("no state directory (XDG_STATE_HOME or HOME): give --admin-socket PATH\n");
		return false;
	}
	return true;
}

/* `wizwar admin [--admin-socket PATH | --state-dir DIR] COMMAND ARGS...`: the words joined by
 * single spaces into one admin line (a ban's --reason runs to the line's end, so it may have
 * spaces). The server parses it strictly; here only what cannot make a line is refused. */
int
cmd_admin(int argc, char **argv)
{
	const char *usage = help_get(HELP_ADMIN);
	const char *dir = NULL, *sock = NULL;
	char path[4200], line[ADMIN_LINE_MAX];
	size_t len = 0;
	int fd, rc, i = 0, k = 0;
	char **cmd;

	/* The options are those before the command's first word; after it, "--for" and "--reason"
	 * are the admin line's own, for the server to parse, not getopt's. */
	while (k < argc && argv[k][0] == '-')
		k += (strcmp(argv[k], "--admin-socket") == 0 || strcmp(argv[k], "--socket") == 0 ||
		      strcmp(argv[k], "--state-dir") == 0) && k + 1 < argc ? 2 : 1;
	cmd = argv + k;
	int ncmd = argc - k;
	argc = k;
	int args = cli_args("admin", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (cmd_net_is_help(a)) {
			fputs(usage, stdout);
			return 0;
		} else if ((strcmp(a, "--admin-socket") == 0 || strcmp(a, "--socket") == 0) && more) {
			sock = argv[++i];
		} else if (strcmp(a, "--state-dir") == 0 && more) {
			dir = argv[++i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, usage);
			return 2;
		}
	}
	if (ncmd == 0) {
		cli_error("which command? (ban, unban, bans, mute, unmute, free-name; `wizwar admin help`)\n%s", usage);
		return 2;
	}
	if (dir && sock) {
		cli_error("give --state-dir or --admin-socket, not both\n");
		return 2;
	}
	for (i = 0; i < ncmd; i++) {
		size_t n = strlen(cmd[i]);
		for (size_t b = 0; b < n; b++)
			if ((unsigned char)cmd[i][b] < 0x20 || cmd[i][b] == 0x7f) {
				cli_error("'%s' argument %d has a control character (a newline, a tab, an escape)\n", cmd[0], i);
				return 2;
			}
		if (n == 0 || len + n + 1 >= sizeof line) {
			cli_error(n == 0 ? "an empty argument\n" : "the command is longer than %d bytes\n", ADMIN_LINE_MAX - 1);
			return 2;
		}
		if (len)
			line[len++] = ' ';
		memcpy(line + len, cmd[i], n);
		len += n;
	}
	line[len] = '\0';
	if (!socket_path(dir, sock, path, sizeof path))
		return 1;
	if ((fd = connect_to(path)) < 0)
		return 1;
	rc = ask(fd, line);
	close(fd);
	return rc;
}

int
cmd_status(int argc, char **argv)
{
	const char *usage = help_get(HELP_STATUS);
	const char *dir = NULL, *sock = NULL, *line = "status";
	char path[4200];
	int fd, rc;

	int args = cli_args("status", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (cmd_net_is_help(a)) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--state-dir") == 0 && more) {
			dir = argv[++i];
		} else if (strcmp(a, "--socket") == 0 && more) {
			sock = argv[++i];
		} else if (strcmp(a, "--prometheus") == 0) {
			line = "metrics";
		} else if (strcmp(a, "--command") == 0 && more) {
			line = argv[++i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, usage);
			return 2;
		}
	}
	if (dir && sock) {
		cli_error("give --state-dir or --socket, not both\n");
		return 2;
	}
	if (strlen(line) >= ADMIN_LINE_MAX || strchr(line, '\n')) {
		cli_error("--command: one line of less than %d bytes\n", ADMIN_LINE_MAX);
		return 2;
	}
	if (sock) {
		snprintf(path, sizeof path, "%s", sock);
	} else if (dir) {
		snprintf(path, sizeof path, "%s/admin.sock", dir);
	} else if (cli_state_dir(path, sizeof path - 16)) {
		strcat(path, "/admin.sock");
	} else {
		cli_error("no state directory (XDG_STATE_HOME or HOME): give --socket PATH\n");
		return 1;
	}
	if ((fd = connect_to(path)) < 0)
		return 1;
	rc = ask(fd, line);
	close(fd);
	return rc;
}
