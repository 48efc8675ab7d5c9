/* SPDX-License-Identifier: MIT */
/* logtree: the log directory's layout by date, and the expiry of finished logs, scanned off the loop. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logtree.h"

#define KEEPER_EVERY_MS (3600u * 1000u)

bool
logtree_playing_path(char *buf, size_t len, const char *dir, const char *name)
{
	return (size_t)snprintf(buf, len, "%s/" LOGTREE_PLAYING "/%s", dir, name) < len;
}

bool
logtree_done_path(char *buf, size_t len, const char *dir, time_t when, const char *plain)
{
	const char *base = strrchr(plain, '/');
	struct tm tm;

	base = base ? base + 1 : plain;
	if (localtime_r(&when, &tm) == NULL)
		return false;
	return (size_t)snprintf(buf, len, "%s/%04d/%02d/%02d/%s.gz", dir, tm.tm_year + 1900, tm.tm_mon + 1,
	                        tm.tm_mday, base) < len;
}

/* A date folder's name: exactly `digits` digits. */
static bool
digits_only(const char *s, size_t digits)
{
	size_t n = strlen(s);

	if (n != digits)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

static void
failed(struct logtree_count *out, const char *path)
{
	int e = errno;
	size_t n = strlen(path);

	/* The reason names the file by its last part only: what fits, the errno whole. */
	if (out->failed++ == 0)
		snprintf(out->why, sizeof out->why, "cannot remove %.*s: %s", n > 160 ? 160 : (int)n,
		         n > 160 ? path + n - 160 : path, strerror(e));
}

/* One day folder's old logs, then the folder if that left it empty. `stamp` is its date as
 * YYYYMMDD: a folder is removed only when its day is before `keep_from` (two days before the
 * cut-off), so that a duel ending now never finds its day's folder gone under it. */
static void
expire_day(const char *path, time_t cut, long stamp, long keep_from, struct logtree_count *out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char f[4400];
	struct stat st;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!ends_with(e->d_name, ".gz") && !ends_with(e->d_name, ".tmp"))
			continue;
		if ((size_t)snprintf(f, sizeof f, "%s/%s", path, e->d_name) >= sizeof f)
			continue;
		if (lstat(f, &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime >= cut)
			continue;
		if (unlink(f) != 0) {
			failed(out, f);
			continue;
		}
		out->files++;
		out->bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	if (stamp < keep_from && rmdir(path) == 0)
		out->folders++;
}

/* The folders under `path` named by `digits` digits, as real folders (no link followed). */
static void
each_folder(const char *path, size_t digits, void (*fn)(const char *sub, long num, void *ud), void *ud)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char sub[4400];
	struct stat st;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!digits_only(e->d_name, digits))
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= sizeof sub)
			continue;
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			fn(sub, strtol(e->d_name, NULL, 10), ud);
	}
	closedir(d);
}

struct walk {
	time_t cut;
	long keep_from;  /* YYYYMMDD */
	long year, month;
	struct logtree_count *out;
};

static void
on_day(const char *sub, long day, void *ud)
{
	struct walk *w = ud;

	expire_day(sub, w->cut, w->year * 10000 + w->month * 100 + day, w->keep_from, w->out);
}

static void
on_month(const char *sub, long month, void *ud)
{
	struct walk *w = ud;

	w->month = month;
	each_folder(sub, 2, on_day, w);
	if ((w->year * 100 + month) * 100 + 31 < w->keep_from && rmdir(sub) == 0)
		w->out->folders++;
}

static void
on_year(const char *sub, long year, void *ud)
{
	struct walk *w = ud;

	w->year = year;
	each_folder(sub, 2, on_month, w);
	if (year * 10000 + 1231 < w->keep_from && rmdir(sub) == 0)
		w->out->folders++;
}

struct days {
	void (*fn)(const char *day, void *ud);
	void *ud;
};

static void
each_day_d(const char *sub, long n, void *ud)
{
	const struct days *x = ud;

	(void)n;
	x->fn(sub, x->ud);
}

static void
each_day_m(const char *sub, long n, void *ud)
{
	(void)n;
	each_folder(sub, 2, each_day_d, ud);
}

static void
each_day_y(const char *sub, long n, void *ud)
{
	(void)n;
	each_folder(sub, 2, each_day_m, ud);
}

void
logtree_each_day(const char *dir, void (*fn)(const char *day, void *ud), void *ud)
{
	struct days x = { fn, ud };

	each_folder(dir, 4, each_day_y, &x);
}

void
logtree_expire(const char *dir, unsigned days, time_t now, struct logtree_count *out)
{
	struct walk w;
	struct tm tm;
	time_t from;

	memset(out, 0, sizeof *out);
	if (days == 0)
		return;
	w.cut = now - (time_t)days * 86400;
	from = w.cut - 2 * 86400;
	if (localtime_r(&from, &tm) == NULL)
		return;
	w.keep_from = (tm.tm_year + 1900L) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
	w.out = out;
	each_folder(dir, 4, on_year, &w);
}

/* The keeper: a timer on the loop, a scan in the threadpool. */

struct keeper_scan {
	uv_work_t work;
	struct logtree_keeper *k; /* NULL once the keeper stopped: the scan frees itself */
	char *dir;
	unsigned days;
	time_t now;
	struct logtree_count count;
};

struct logtree_keeper {
	uv_timer_t timer;
	char *dir;
	unsigned days;
	void (*say)(void *ud, const char *line);
	void *ud;
	struct keeper_scan *scan; /* the one running, at most one */
};

static void
scan_work(uv_work_t *w)
{
	struct keeper_scan *sc = w->data;

	logtree_expire(sc->dir, sc->days, sc->now, &sc->count);
}

static void
scan_done(uv_work_t *w, int status)
{
	struct keeper_scan *sc = w->data;
	struct logtree_keeper *k = sc->k;
	char line[512];

	(void)status;
	if (k) {
		k->scan = NULL;
		if (sc->count.files || sc->count.failed) {
			snprintf(line, sizeof line, "turn logs: %u finished duel%s older than %u day%s removed "
			         "(%" PRIu64 " KiB)%s%s", sc->count.files, sc->count.files == 1 ? "" : "s", sc->days,
			         sc->days == 1 ? "" : "s", (sc->count.bytes + 1023) / 1024, sc->count.failed ? "; " : "",
			         sc->count.why);
			k->say(k->ud, line);
		}
	}
	free(sc->dir);
	free(sc);
}

static void
on_keeper_timer(uv_timer_t *t)
{
	struct logtree_keeper *k = t->data;
	struct keeper_scan *sc;

	if (k->scan) /* the last one still runs (a slow disk): the next hour's will do */
		return;
	if ((sc = calloc(1, sizeof *sc)) == NULL || (sc->dir = strdup(k->dir)) == NULL) {
		free(sc);
		return;
	}
	sc->k = k;
	sc->days = k->days;
	sc->now = time(NULL);
	sc->work.data = sc;
	if (uv_queue_work(t->loop, &sc->work, scan_work, scan_done) != 0) {
		free(sc->dir);
		free(sc);
		return;
	}
	k->scan = sc;
}

struct logtree_keeper *
logtree_keeper_start(uv_loop_t *loop, const char *dir, unsigned days, void (*say)(void *ud, const char *line),
                     void *ud)
{
	struct logtree_keeper *k;

	if (days == 0 || dir == NULL || (k = calloc(1, sizeof *k)) == NULL)
		return NULL;
	if ((k->dir = strdup(dir)) == NULL) {
		free(k);
		return NULL;
	}
	k->days = days;
	k->say = say;
	k->ud = ud;
	uv_timer_init(loop, &k->timer);
	k->timer.data = k;
	/* The first scan at once (a server started after a long stop has the most to remove). */
	uv_timer_start(&k->timer, on_keeper_timer, 0, KEEPER_EVERY_MS);
	return k;
}

static void
keeper_closed(uv_handle_t *h)
{
	struct logtree_keeper *k = h->data;

	free(k->dir);
	free(k);
}

void
logtree_keeper_stop(struct logtree_keeper *k)
{
	if (k == NULL)
		return;
	if (k->scan)
		k->scan->k = NULL;
	uv_close((uv_handle_t *)&k->timer, keeper_closed);
}
