/* SPDX-License-Identifier: MIT */
/* server/slog: the log line's format (docs/server.md, "Log lines"): an ISO 8601 UTC time, a level, room= and peer=, and syslog priorities when stderr is the journal. */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "slog.h"

/* docs/server.md's pattern for a line, as an operator's tool would read it. */
#define LINE_RE "^(<[3-7]>)?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z " \
                "(error|warning|notice|info|debug)( room=[A-Za-z0-9_-]+)?( peer=[^ ]+)? [^\n]*\n$"

static void
expect_line(const char *line)
{
	regex_t re;

	cr_assert_eq(regcomp(&re, LINE_RE, REG_EXTENDED), 0);
	cr_expect_eq(regexec(&re, line, 0, NULL, 0), 0, "'%s' is not a log line", line);
	regfree(&re);
}

Test(slog, prefix_is_iso8601_utc_with_level_room_and_peer)
{
	/* 2026-11-27 23:15:02.123 UTC */
	struct timespec t = { 1795821302, 123456789 };
	char out[160];

	size_t n = slog_prefix(out, sizeof out, &t, false, LOG_WARNING, "ab-cd", "127.0.0.1:5555");
	cr_expect_str_eq(out, "2026-11-27T23:15:02.123Z warning room=ab-cd peer=127.0.0.1:5555 ");
	cr_expect_eq(n, strlen(out));
	slog_prefix(out, sizeof out, &t, false, LOG_DEBUG, NULL, NULL);
	cr_expect_str_eq(out, "2026-11-27T23:15:02.123Z debug ");
	slog_prefix(out, sizeof out, &t, true, LOG_ERR, NULL, "[::1]:7");
	cr_expect_str_eq(out, "<3>2026-11-27T23:15:02.123Z error peer=[::1]:7 ");
	/* A level out of range is info, never a byte out of the table. */
	slog_prefix(out, sizeof out, &t, true, 42, NULL, NULL);
	cr_expect_str_eq(out, "<6>2026-11-27T23:15:02.123Z info ");
	cr_expect_eq(slog_prefix(out, 10, &t, false, LOG_INFO, NULL, NULL), 0, "a prefix that does not fit is 0");
}

static void __attribute__((format(printf, 5, 6)))
say(struct slog *l, int level, const char *room, const char *peer, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	slog_vline(l, level, room, peer, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 6, 7)))
line_through_pipe(int level, const char *room, const char *peer, char *got, size_t len, const char *fmt, ...)
{
	int fd[2];
	va_list ap;

	cr_assert_eq(pipe(fd), 0);
	struct slog *l = slog_create(fd[1], SLOG_CAP);
	cr_assert_not_null(l);
	va_start(ap, fmt);
	slog_vline(l, level, room, peer, fmt, ap);
	va_end(ap);
	slog_destroy(l, SLOG_FLUSH_MS);
	close(fd[1]);
	ssize_t n = read(fd[0], got, len - 1);
	cr_assert_gt(n, 0);
	got[n] = '\0';
	close(fd[0]);
}

Test(slog, line_written_by_the_thread_matches_the_documented_format)
{
	char got[2048];

	unsetenv("JOURNAL_STREAM");
	line_through_pipe(LOG_NOTICE, "abcd-efgh-jkm", "10.0.0.1:40000", got, sizeof got, "duel %d starts: %s", 1, "A vs B");
	expect_line(got);
	cr_expect(strstr(got, "Z notice room=abcd-efgh-jkm peer=10.0.0.1:40000 duel 1 starts: A vs B\n") != NULL, "%s", got);
	cr_expect_neq(got[0], '<', "no priority prefix off the journal: %s", got);
}

static void
set_journal(int fd, int ino_delta)
{
	struct stat st;
	char v[64];

	cr_assert_eq(fstat(fd, &st), 0);
	snprintf(v, sizeof v, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino + (unsigned)ino_delta);
	setenv("JOURNAL_STREAM", v, 1);
}

Test(slog, journal_stream_gets_syslog_priorities)
{
	char got[2048];
	int fd[2];

	/* slog_create reads JOURNAL_STREAM against its own descriptor: make a pipe, name it, then
	 * hand slog that pipe (the one line_through_pipe makes is new: name it after the fact). */
	cr_assert_eq(pipe(fd), 0);
	set_journal(fd[1], 0);
	cr_expect(slog_fd_is_journal(fd[1]));
	cr_expect(slog_fd_is_journal(fd[0]), "both ends of a pipe are one inode");
	struct slog *l = slog_create(fd[1], SLOG_CAP);
	cr_assert_not_null(l);
	say(l, LOG_WARNING, NULL, "1.2.3.4:5", "dropped: %s", "too slow");
	slog_destroy(l, SLOG_FLUSH_MS);
	close(fd[1]);
	ssize_t n = read(fd[0], got, sizeof got - 1);
	cr_assert_gt(n, 0);
	got[n] = '\0';
	close(fd[0]);
	expect_line(got);
	cr_expect_eq(strncmp(got, "<4>", 3), 0, "a warning on the journal starts <4>: %s", got);

	/* Another stream (a stderr redirected after systemd set the variable): no prefix. */
	cr_assert_eq(pipe(fd), 0);
	set_journal(fd[1], 1);
	cr_expect_not(slog_fd_is_journal(fd[1]));
	setenv("JOURNAL_STREAM", "12:junk", 1);
	cr_expect_not(slog_fd_is_journal(fd[1]), "a malformed JOURNAL_STREAM is not the journal");
	close(fd[0]);
	close(fd[1]);
	unsetenv("JOURNAL_STREAM");
}
