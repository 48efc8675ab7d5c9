/* SPDX-License-Identifier: MIT */
/* progress: one line on stderr that says how far long work has come, shown only on a terminal. */
#ifndef WW_PROGRESS_H
#define WW_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * "selfplay: 1200 of 3000 games, 160/s, 11 s left", redrawn in place (a carriage return,
 * no cursor motion, so any terminal shows it) at most every PROGRESS_REDRAW_MS, first after
 * PROGRESS_DELAY_MS: quick work prints nothing. Nothing at all unless `out` is a terminal: a
 * pipe or a file gets no progress lines. progress_finish() erases the line, leaving the
 * cursor where it found it; progress_clear() does the same for a caller about to print a
 * line of its own on the same terminal (the next step draws it again).
 */
#define PROGRESS_DELAY_MS 500
#define PROGRESS_REDRAW_MS 200

struct progress {
	FILE *out;          /* stderr, or NULL when it is no terminal */
	const char *who;    /* the command: "selfplay" */
	const char *unit;   /* what is counted, plural: "games" */
	uint64_t total;
	uint64_t start_ms;  /* CLOCK_MONOTONIC */
	uint64_t drawn_ms;  /* when it was last drawn, 0 before the first draw */
	int width;          /* columns the line on screen takes, 0 when none is */
};

void progress_init(struct progress *pg, FILE *out, const char *who, const char *unit, uint64_t total);
/* `done` of the total are done: redraw, if it is time. */
void progress_step(struct progress *pg, uint64_t done);
/* The same with the time given (milliseconds of CLOCK_MONOTONIC): what tests drive. */
void progress_step_at(struct progress *pg, uint64_t done, uint64_t now_ms);
void progress_clear(struct progress *pg);
void progress_finish(struct progress *pg);
/* The line for `done` of the total after `elapsed_ms`, into buf: what progress_step draws. */
void progress_format(const struct progress *pg, uint64_t done, uint64_t elapsed_ms, char *buf, size_t len);
uint64_t progress_now_ms(void);

#endif
