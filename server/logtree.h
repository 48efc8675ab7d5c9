/* SPDX-License-Identifier: MIT */
/* logtree: where a server's turn logs live (playing/ while played, YYYY/MM/DD/ once finished) and their expiry. */
#ifndef WW_LOGTREE_H
#define WW_LOGTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <uv.h>

/*
 * A log directory DIR holds:
 *   DIR/playing/NAME.log            a duel being played (or left unfinished): plain text, appended to
 *   DIR/YYYY/MM/DD/NAME.log.gz      a finished duel, compressed once, in the folder of the day it ended
 * and, from servers before this layout, NAME.log.gz in DIR itself (still resumed and read, never
 * expired). Expiry touches only the date folders: *.gz files (and a compression's *.tmp
 * leftovers) whose last change is older than the days kept, and date folders left empty.
 * Nothing else there (and nothing outside, such as the server's key when DIR is its state
 * folder) is ever removed; a symbolic link is never followed.
 */
#define LOGTREE_PLAYING "playing"

/* FN for each day folder of DIR's date tree, DIR/YYYY/MM/DD (real folders of 4, 2 and 2 digits, no
 * link followed), given its path. */
void logtree_each_day(const char *dir, void (*fn)(const char *day, void *ud), void *ud);
/* DIR/playing/NAME: false when it does not fit. */
bool logtree_playing_path(char *buf, size_t len, const char *dir, const char *name);
/* DIR/YYYY/MM/DD/BASE.gz, the day `when` in local time, BASE the last part of `plain`. */
bool logtree_done_path(char *buf, size_t len, const char *dir, time_t when, const char *plain);

struct logtree_count {
	unsigned files;   /* logs removed */
	uint64_t bytes;   /* their size */
	unsigned folders; /* empty date folders removed */
	unsigned failed;  /* removals refused (said by errno in why) */
	char why[256];
};
/* Remove from DIR's date folders what is older than `days` days before `now` (above): the
 * scan itself, run off the loop. days 0 removes nothing. */
void logtree_expire(const char *dir, unsigned days, time_t now, struct logtree_count *out);

/* The server's keeper: logtree_expire at start and every hour, in libuv's threadpool, and a
 * line through `say` (on the loop) for each scan that removed anything or failed to. */
struct logtree_keeper;
struct logtree_keeper *logtree_keeper_start(uv_loop_t *loop, const char *dir, unsigned days,
                                            void (*say)(void *ud, const char *line), void *ud);
/* Stop: no more scans and no more lines; a scan running finishes on its own. NULL is fine. */
void logtree_keeper_stop(struct logtree_keeper *k);

#endif
