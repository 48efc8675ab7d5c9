/* SPDX-License-Identifier: MIT */
/* slog: the server's log lines, written to a descriptor by a thread of their own so that a reader who stops reading never stalls the loop. */
#ifndef WW_SERVER_SLOG_H
#define WW_SERVER_SLOG_H

#include <stdarg.h>
#include <stddef.h>

#include "cold.h"

struct slog;

/* Lines the writer holds, at most, while its descriptor takes nothing: past this they are
 * counted and dropped, and the count is logged once there is room again. */
#define SLOG_CAP (256 * 1024)
/* How long slog_destroy waits for the held lines to go out before it gives them up. */
#define SLOG_FLUSH_MS 1000

/* A writer of lines "WHO HH:MM:SS: text" to fd, holding at most cap bytes; NULL when no thread
 * or memory could be had. */
WW_COLD struct slog *slog_create(int fd, const char *who, size_t cap);
/* One line, formatted now and queued; never blocks on the descriptor (only on the writer's
 * lock, which the writer never holds while it writes). Dropped and counted when it does not fit. */
void slog_vline(struct slog *l, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Lines dropped so far and not yet reported. */
unsigned long slog_dropped(struct slog *l);
/* For the metrics: bytes held, not yet written (the writer's lag), and lines dropped since the start. */
void slog_stats(struct slog *l, size_t *held, unsigned long *dropped);
/* Write what is held for up to wait_ms, then stop the writer (even in the middle of a write
 * that does not return) and free it. NULL is fine. */
void slog_destroy(struct slog *l, unsigned wait_ms);

#endif
