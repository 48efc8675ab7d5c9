/* SPDX-License-Identifier: MIT */
/* admin: the local admin socket, a line protocol on a Unix stream socket (0600, owner-only) with a table of commands. */
#ifndef WW_SERVER_ADMIN_H
#define WW_SERVER_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

struct server;
struct admin;

/*
 * The protocol (docs/server.md, "The admin socket"): a client writes one command a line,
 * "NAME[ ARGS]\n", at most ADMIN_LINE_MAX bytes with its newline, printable text (UTF-8 allowed,
 * no control characters; a "\r" before the newline is ignored). The server answers each line
 * with any number of data lines, each "- TEXT", then exactly one last line: "ok", or
 * "error: REASON". Lines are answered in order; the client may send several before reading.
 * A line too long is answered with an error and the connection closed.
 */
#define ADMIN_LINE_MAX 512
/* Clients at once; more are told "error: busy" and closed. */
#define ADMIN_CLIENTS_MAX 8
/* A client silent this long is closed. */
#define ADMIN_IDLE_MS 30000
/* Answers written and not yet read by a client, at most; past it the client is closed. */
#define ADMIN_QUEUE_MAX (1024 * 1024)

/*
 * One command: a row of admin.c's table `commands[]`. To add one (a ban, a mute), add its
 * handler and one row; `help` lists it. run() gets the server and the arguments (the rest of
 * the line after the name and its space, "" when none; already checked for length and
 * control characters, nothing else), appends data lines ("text\n" each; the "- " is added) to
 * out, and returns NULL for "ok" or the reason for "error: REASON". It runs on the loop: it
 * must not block (a disk or a database goes through the threadpool, and the command answers
 * what it started, not what it finished).
 */
struct admin_command {
	const char *name;
	const char *args;                /* its arguments for `help`, "" when none */
	const char *help;                /* one line */
	const char *(*run)(struct server *s, const char *args, struct metrics_buf *out);
};

/* Listen on path (which must not exist, or be a stale socket of a stopped server): 0, or -1
 * with why. The folder must be a directory of this user's, writable by nobody else. */
int admin_start(struct server *s, const char *path, struct admin **out, char *why, size_t whylen);
/* Close every client and the socket, and remove its file. NULL is fine. */
void admin_close(struct admin *a);

#endif
