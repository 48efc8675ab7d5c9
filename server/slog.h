/* SPDX-License-Identifier: MIT */
/* slog: the server's log lines, written to a descriptor by a thread of their own so that a reader who stops reading never stalls the loop. */
#ifndef WW_SERVER_SLOG_H
#define WW_SERVER_SLOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>
#include <time.h>

#include "cold.h"

struct slog;

/* Lines the writer holds, at most, while its descriptor takes nothing: past this they are
 * counted and dropped, and the count is logged once there is room again. */
#define SLOG_CAP (256 * 1024)
/* How long slog_destroy waits for the held lines to go out before it gives them up. */
#define SLOG_FLUSH_MS 1000

/*
 * A line (docs/server.md, "Log lines"):
 *
 *   [<P>]YYYY-MM-DDTHH:MM:SS.mmmZ LEVEL[ room=CODE][ peer=ADDR:PORT] text
 *
 * the time in UTC, LEVEL one of error, warning, notice, info, debug (syslog's priorities 3 to
 * 7, <syslog.h>'s LOG_ERR to LOG_DEBUG), room= and peer= when the event has them (a room code
 * is letters, digits, '-' and '_'; a peer is "1.2.3.4:5678" or "[::1]:5678": neither holds a
 * space), then the event in words. "<P>", P the priority's digit, starts the line only when
 * the descriptor is the journal's stream (slog_fd_is_journal), which reads it as the line's
 * priority (sd-daemon(3)) and takes it off.
 */
/* The prefix of a line up to its text, at `now`, into out (n bytes); its length (0: did not fit). */
size_t slog_prefix(char *out, size_t n, const struct timespec *now, bool journal, int level, const char *room,
                   const char *peer);
/* "error" ... "debug"; "info" for a number out of range. */
const char *slog_level_name(int level);
/* Is fd the stream $JOURNAL_STREAM names ("DEV:INO", set by systemd for a service's stdout
 * and stderr)? Compared with fstat, so that a stderr redirected elsewhere gets no prefixes. */
bool slog_fd_is_journal(int fd);

/* A writer of lines to fd, holding at most cap bytes; NULL when no thread or memory could be
 * had. Whether fd is the journal is read once, here. */
WW_COLD struct slog *slog_create(int fd, size_t cap);
/* One line, formatted now and queued; never blocks on the descriptor (only on the writer's
 * lock, which the writer never holds while it writes). Dropped and counted when it does not fit.
 * room and peer may be NULL. */
void slog_vline(struct slog *l, int level, const char *room, const char *peer, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
/* Lines dropped so far and not yet reported. */
unsigned long slog_dropped(struct slog *l);
/* For the metrics: bytes held, not yet written (the writer's lag), and lines dropped since the start. */
void slog_stats(struct slog *l, size_t *held, unsigned long *dropped);
/* Write what is held for up to wait_ms, then stop the writer (even in the middle of a write
 * that does not return) and free it. NULL is fine. */
void slog_destroy(struct slog *l, unsigned wait_ms);

#endif
