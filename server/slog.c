/* SPDX-License-Identifier: MIT */
/* slog: the server's log lines, written to a descriptor by a thread of their own so that a reader who stops reading never stalls the loop. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "slog.h"

/* The longest line kept whole; a longer one is cut and ends in "...". */
#define LINE_MAX_BYTES 1024

/*
 * The loop formats a line and copies it into a ring under the lock; the writer thread takes
 * the oldest bytes, lets go of the lock, and writes them with a plain blocking write(2). A pipe
 * nobody reads (a stuck log shipper, a terminal paused with Ctrl-S) then blocks the writer,
 * never the loop: the ring fills, and further lines are counted and dropped. Setting
 * O_NONBLOCK on stderr instead would change the file description shared with the shell and
 * every other process that holds it.
 */
struct slog {
	int fd;
	bool journal;              /* fd is the journal's stream: lines start with "<N>" */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more;       /* bytes to write, or stop */
	pthread_cond_t drained;    /* the ring is empty and nothing is being written */
	char *buf;
	size_t cap, head, len;     /* the ring: len bytes from head */
	unsigned long dropped;     /* lines dropped since the last report */
	unsigned long dropped_all; /* lines dropped since the start (the metrics' count) */
	bool stop, writing;
};

/* The levels, by syslog priority: what a line says after its time. */
static const char *const level_name[] = {
	[LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info",
	[LOG_DEBUG] = "debug",
};

const char *
slog_level_name(int level)
{
	return level >= LOG_ERR && level <= LOG_DEBUG ? level_name[level] : "info";
}

bool
slog_fd_is_journal(int fd)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int used = 0;

	/* systemd sets "DEV:INO" of the stream it gave as stdout/stderr; a descriptor that is no
	 * longer that stream (redirected by a wrapper) must not get the prefixes. */
	if (js == NULL || sscanf(js, "%llu:%llu%n", &dev, &ino, &used) != 2 || js[used] != '\0')
		return false;
	return fstat(fd, &st) == 0 && (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

size_t
slog_prefix(char *out, size_t n, const struct timespec *now, bool journal, int level, const char *room,
            const char *peer)
{
	struct tm tm;
	char stamp[32];
	int k;

	if (level < LOG_ERR || level > LOG_DEBUG)
		level = LOG_INFO;
	gmtime_r(&now->tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	/* "<N>" for the journal, which takes it off and keeps N as the line's priority. */
	char pri[4] = { '<', (char)('0' + level), '>', '\0' };
	k = snprintf(out, n, "%s%s.%03ldZ %s%s%s%s%s ", journal ? pri : "", stamp, now->tv_nsec / 1000000L,
	             level_name[level], room ? " room=" : "", room ? room : "", peer ? " peer=" : "", peer ? peer : "");
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

static void
stamp_now(const struct slog *l, int level, char *out, size_t n)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	slog_prefix(out, n, &now, l->journal, level, NULL, NULL);
}

static size_t
room_left(const struct slog *l)
{
	return l->cap - l->len;
}

/* Copy n bytes in at the ring's tail; the caller checked that they fit. */
static void
ring_put(struct slog *l, const char *p, size_t n)
{
	size_t tail = (l->head + l->len) % l->cap;
	size_t first = l->cap - tail < n ? l->cap - tail : n;

	memcpy(l->buf + tail, p, first);
	memcpy(l->buf, p + first, n - first);
	l->len += n;
}

/* "N log lines dropped", said where they were dropped (in order with the lines around it). */
static size_t
dropped_note(struct slog *l, char *out, size_t n)
{
	char stamp[64];
	int k;

	stamp_now(l, LOG_WARNING, stamp, sizeof stamp);
	k = snprintf(out, n, "%s%lu log line%s dropped: the log (stderr) was not being read\n", stamp,
	             l->dropped, l->dropped == 1 ? "" : "s");
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

static void *
writer(void *arg)
{
	struct slog *l = arg;
	char note[160];

	/* Cancellable only inside write(2): slog_destroy cancels a writer stuck there, and
	 * nowhere else may it stop (it would leave the lock held). */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&l->mu);
	for (;;) {
		if (l->len == 0 && l->dropped > 0) {
			/* Drained after dropping: say how many went, with no line after them to carry it. */
			size_t n = dropped_note(l, note, sizeof note);
			if (n > 0 && n <= room_left(l)) {
				ring_put(l, note, n);
				l->dropped = 0;
			}
		}
		if (l->len == 0) {
			pthread_cond_broadcast(&l->drained);
			if (l->stop)
				break;
			pthread_cond_wait(&l->more, &l->mu);
			continue;
		}
		size_t n = l->cap - l->head < l->len ? l->cap - l->head : l->len;
		const char *p = l->buf + l->head;
		ssize_t w;
		/* The loop only appends at the tail: these bytes stay put while the lock is let go. */
		l->writing = true;
		pthread_mutex_unlock(&l->mu);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		w = write(l->fd, p, n);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		int err = errno;
		if (w < 0 && (err == EAGAIN || err == EWOULDBLOCK)) {
			/* A descriptor handed to us non-blocking: wait for it here, not in the loop. */
			struct pollfd pf = { .fd = l->fd, .events = POLLOUT };
			pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
			poll(&pf, 1, 100);
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		}
		pthread_mutex_lock(&l->mu);
		l->writing = false;
		if (w > 0) {
			l->head = (l->head + (size_t)w) % l->cap;
			l->len -= (size_t)w;
		} else if (w == 0 || (err != EINTR && err != EAGAIN && err != EWOULDBLOCK)) {
			/* Nowhere to write (closed, EPIPE): what is held is lost; nothing can say so. */
			l->head = l->len = 0;
			l->dropped = 0;
			if (l->stop)
				break;
		}
	}
	pthread_cond_broadcast(&l->drained);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

struct slog *
slog_create(int fd, size_t cap)
{
	struct slog *l = calloc(1, sizeof *l);

	if (l == NULL || cap < 2 * LINE_MAX_BYTES || (l->buf = malloc(cap)) == NULL) {
		free(l);
		return NULL;
	}
	l->fd = fd;
	l->cap = cap;
	l->journal = slog_fd_is_journal(fd);
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->more, NULL);
	pthread_cond_init(&l->drained, NULL);
	if (pthread_create(&l->thread, NULL, writer, l) != 0) {
		pthread_cond_destroy(&l->drained);
		pthread_cond_destroy(&l->more);
		pthread_mutex_destroy(&l->mu);
		free(l->buf);
		free(l);
		return NULL;
	}
	return l;
}

void
slog_vline(struct slog *l, int level, const char *room, const char *peer, const char *fmt, va_list ap)
{
	char line[LINE_MAX_BYTES], note[160];
	struct timespec now;
	size_t n, k = 0;
	int m;

	clock_gettime(CLOCK_REALTIME, &now);
	n = slog_prefix(line, sizeof line / 2, &now, l->journal, level, room, peer);
	m = vsnprintf(line + n, sizeof line - n, fmt, ap);
	if (m < 0)
		m = 0;
	if ((size_t)m >= sizeof line - n - 1) {
		/* Cut: room for "...\n" at the end. */
		n = sizeof line - 5;
		memcpy(line + n, "...", 3);
		n += 3;
	} else {
		n += (size_t)m;
	}
	line[n++] = '\n';

	pthread_mutex_lock(&l->mu);
	if (l->dropped > 0)
		k = dropped_note(l, note, sizeof note);
	if (k + n > room_left(l)) {
		l->dropped++;
		l->dropped_all++;
	} else {
		if (k > 0) {
			ring_put(l, note, k);
			l->dropped = 0;
		}
		ring_put(l, line, n);
		pthread_cond_signal(&l->more);
	}
	pthread_mutex_unlock(&l->mu);
}

unsigned long
slog_dropped(struct slog *l)
{
	unsigned long n;

	pthread_mutex_lock(&l->mu);
	n = l->dropped;
	pthread_mutex_unlock(&l->mu);
	return n;
}

void
slog_stats(struct slog *l, size_t *held, unsigned long *dropped)
{
	pthread_mutex_lock(&l->mu);
	*held = l->len;
	*dropped = l->dropped_all;
	pthread_mutex_unlock(&l->mu);
}

void
slog_destroy(struct slog *l, unsigned wait_ms)
{
	struct timespec until;
	bool done;

	if (l == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_ms / 1000;
	until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&l->mu);
	l->stop = true;
	pthread_cond_signal(&l->more);
	while ((l->len > 0 || l->writing) && pthread_cond_timedwait(&l->drained, &l->mu, &until) == 0)
		;
	done = l->len == 0 && !l->writing;
	pthread_mutex_unlock(&l->mu);
	/* Not drained in time: the writer is stuck in write(2) to a reader who does not read.
	 * What it holds is given up; a stop must not wait on a log. */
	if (!done)
		pthread_cancel(l->thread);
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->drained);
	pthread_cond_destroy(&l->more);
	pthread_mutex_destroy(&l->mu);
	free(l->buf);
	free(l);
}
