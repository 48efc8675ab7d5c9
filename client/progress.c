/* SPDX-License-Identifier: MIT */
/* progress: one line on stderr that says how far long work has come, shown only on a terminal. */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

uint64_t
progress_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
progress_init(struct progress *pg, FILE *out, const char *who, const char *unit, uint64_t total)
{
	memset(pg, 0, sizeof *pg);
	/* A terminal only: in a pipe or a file a line redrawn with '\r' is noise. */
	pg->out = out != NULL && isatty(fileno(out)) ? out : NULL;
	pg->who = who;
	pg->unit = unit;
	pg->total = total;
	pg->start_ms = progress_now_ms();
}

/* "12 s", "3 min 20 s", "2 h 5 min": a person reads the largest unit first. */
static void
duration(uint64_t s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%" PRIu64 " s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 " min %" PRIu64 " s", s / 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 " h %" PRIu64 " min", s / 3600, s / 60 % 60);
}

void
progress_format(const struct progress *pg, uint64_t done, uint64_t elapsed_ms, char *buf, size_t len)
{
	char left[64] = "";
	double rate = elapsed_ms > 0 ? (double)done * 1000.0 / (double)elapsed_ms : 0.0;

	if (done > 0 && done < pg->total) {
		char d[48];
		/* At the rate so far: work of even size (games, commands, files) makes it steady. */
		duration((uint64_t)((double)elapsed_ms * (double)(pg->total - done) / (double)done / 1000.0 + 0.5), d,
		         sizeof d);
		snprintf(left, sizeof left, ", %s left", d);
	}
	snprintf(buf, len, "%s: %" PRIu64 " of %" PRIu64 " %s, %.*f/s%s", pg->who, done, pg->total, pg->unit,
	         rate < 10 ? 1 : 0, rate, left);
}

void
progress_step_at(struct progress *pg, uint64_t done, uint64_t now_ms)
{
	char line[160];

	if (pg->out == NULL || now_ms - pg->start_ms < PROGRESS_DELAY_MS ||
	    (pg->drawn_ms != 0 && now_ms - pg->drawn_ms < PROGRESS_REDRAW_MS))
		return;
	progress_format(pg, done, now_ms - pg->start_ms, line, sizeof line);
	int n = (int)strlen(line);
	/* Spaces over what a longer line before left, then back: no terminal capability needed. */
	fprintf(pg->out, "\r%s%*s", line, pg->width > n ? pg->width - n : 0, "");
	if (pg->width > n)
		fprintf(pg->out, "\r%s", line);
	fflush(pg->out);
	pg->width = n;
	pg->drawn_ms = now_ms;
}

void
progress_step(struct progress *pg, uint64_t done)
{
	if (pg->out != NULL)
		progress_step_at(pg, done, progress_now_ms());
}

void
progress_clear(struct progress *pg)
{
	if (pg->out == NULL || pg->width == 0)
		return;
	fprintf(pg->out, "\r%*s\r", pg->width, "");
	fflush(pg->out);
	pg->width = 0; /* drawn again at the next step that is due */
}

void
progress_finish(struct progress *pg)
{
	progress_clear(pg);
	pg->out = NULL;
}
