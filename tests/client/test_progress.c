/* SPDX-License-Identifier: MIT */
/* client/progress: the progress line is drawn on a terminal only, first after the delay, at most every
 * redraw interval, in place, and erased to nothing; the text says done of total, the rate, the time left. */
#define _XOPEN_SOURCE 600 /* posix_openpt, grantpt, unlockpt, ptsname */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "progress.h"

static int master = -1;
static FILE *tty;

/* A pseudo-terminal: what the program writes to its slave side, read back from the master. */
static void
open_tty(void)
{
	master = posix_openpt(O_RDWR | O_NOCTTY);
	cr_assert(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0);
	tty = fopen(ptsname(master), "w");
	cr_assert_not_null(tty);
	cr_assert(isatty(fileno(tty)));
	cr_assert_eq(fcntl(master, F_SETFL, O_NONBLOCK), 0);
}

static void
close_tty(void)
{
	if (tty)
		fclose(tty);
	if (master >= 0)
		close(master);
	tty = NULL;
	master = -1;
}

/* What was written since the last call, as one string. */
static const char *
drawn(void)
{
	static char buf[4096];
	size_t n = 0;
	ssize_t r;

	nanosleep(&(struct timespec){ 0, 10000000 }, NULL); /* the pty passes it on */
	while (n < sizeof buf - 1 && (r = read(master, buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return buf;
}

TestSuite(progress, .init = open_tty, .fini = close_tty);

Test(progress, the_text)
{
	struct progress pg;
	char line[160];

	progress_init(&pg, NULL, "selfplay", "games", 3000);
	progress_format(&pg, 10, 600, line, sizeof line);
	cr_assert_str_eq(line, "selfplay: 10 of 3000 games, 17/s, 2 min 59 s left");
	progress_format(&pg, 1500, 10000, line, sizeof line);
	cr_assert_str_eq(line, "selfplay: 1500 of 3000 games, 150/s, 10 s left");
	progress_format(&pg, 1, 5000, line, sizeof line);
	cr_assert_str_eq(line, "selfplay: 1 of 3000 games, 0.2/s, 4 h 9 min left");
	progress_format(&pg, 0, 5000, line, sizeof line);
	cr_assert_str_eq(line, "selfplay: 0 of 3000 games, 0.0/s", "no time left is guessed from nothing");
	progress_format(&pg, 3000, 20000, line, sizeof line);
	cr_assert_str_eq(line, "selfplay: 3000 of 3000 games, 150/s");
}

Test(progress, drawn_on_time_in_place_and_erased)
{
	struct progress pg;
	const char *first = "\rreplay: 100 of 1000 lines, 167/s, 5 s left";

	progress_init(&pg, tty, "replay", "lines", 1000);
	uint64_t t0 = pg.start_ms;
	progress_step_at(&pg, 50, t0 + PROGRESS_DELAY_MS - 1);
	cr_assert_str_eq(drawn(), "", "nothing before the delay: quick work prints nothing");
	progress_step_at(&pg, 100, t0 + 600);
	cr_assert_str_eq(drawn(), first);
	progress_step_at(&pg, 110, t0 + 600 + PROGRESS_REDRAW_MS - 1);
	cr_assert_str_eq(drawn(), "", "not again before the redraw interval");
	progress_step_at(&pg, 999, t0 + 600 + PROGRESS_REDRAW_MS);
	cr_assert_str_eq(drawn(), "\rreplay: 999 of 1000 lines, 1249/s, 0 s left");
	/* A shorter line covers what the longer one left, then comes back to the line's end. */
	progress_step_at(&pg, 1000, t0 + 600 + 2 * PROGRESS_REDRAW_MS);
	char want[200];
	snprintf(want, sizeof want, "\r%s%*s\r%s", "replay: 1000 of 1000 lines, 1000/s", 9, "",
	         "replay: 1000 of 1000 lines, 1000/s");
	cr_assert_str_eq(drawn(), want);
	/* Erased: spaces over it, the cursor back at the line's start. */
	progress_finish(&pg);
	snprintf(want, sizeof want, "\r%34s\r", "");
	cr_assert_str_eq(drawn(), want);
	progress_step_at(&pg, 1000, t0 + 10000);
	cr_assert_str_eq(drawn(), "", "nothing after the end");
}

Test(progress, cleared_for_a_line_of_the_caller)
{
	struct progress pg;

	progress_init(&pg, tty, "selfplay", "games", 20);
	uint64_t t0 = pg.start_ms;
	progress_step_at(&pg, 5, t0 + 1000);
	cr_assert_str_eq(drawn(), "\rselfplay: 5 of 20 games, 5.0/s, 3 s left");
	progress_clear(&pg);
	cr_assert_str_eq(drawn(), "\r                                        \r");
	progress_clear(&pg);
	cr_assert_str_eq(drawn(), "", "cleared once");
	progress_step_at(&pg, 6, t0 + 1000 + PROGRESS_REDRAW_MS);
	cr_assert_str_eq(drawn(), "\rselfplay: 6 of 20 games, 5.0/s, 3 s left", "drawn again when due");
	progress_finish(&pg);
}

Test(progress, nothing_where_it_is_no_terminal)
{
	struct progress pg;
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	progress_init(&pg, f, "selfplay", "games", 10);
	progress_step_at(&pg, 5, pg.start_ms + 5000);
	progress_step(&pg, 6);
	progress_clear(&pg);
	progress_finish(&pg);
	cr_assert_eq(ftell(f), 0, "a file gets no progress line");
	fclose(f);
}
