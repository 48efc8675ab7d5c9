/* SPDX-License-Identifier: MIT */
/* tlog: writes a duel's turn log as gzip, one flushed piece per command, and reads one back to resume the duel. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>
#include <zlib.h>

#include "tlog.h"

#define TLOG_FILE_MAX (PROTO_LOG_MAX * 4u)

static void
keep(struct tlog *t, const char *s, size_t n)
{
	if (t->overflow)
		return;
	if (t->len + n > PROTO_LOG_MAX) {
		/* Too long to reveal; the disk copy goes on. */
		t->overflow = true;
		return;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->len + n + 1)
			cap *= 2;
		char *nt = realloc(t->text, cap);
		if (nt == NULL) {
			t->overflow = true;
			return;
		}
		t->text = nt;
		t->cap = cap;
	}
	memcpy(t->text + t->len, s, n);
	t->len += n;
	t->text[t->len] = '\0';
}

/* One piece of text: kept, written and flushed, so that a reader sees it whole or torn at its end. */
static void
put(struct tlog *t, const char *s, size_t n)
{
	keep(t, s, n);
	if (t->gz == NULL || t->failed || n == 0)
		return;
	if (gzwrite(t->gz, s, (unsigned)n) != (int)n || gzflush(t->gz, Z_SYNC_FLUSH) != Z_OK)
		t->failed = true;
}

static int
open_file(struct tlog *t, const char *path, char *why, size_t whylen)
{
	memset(t, 0, sizeof *t);
	if (path == NULL)
		return 0;
	if ((t->path = strdup(path)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	/* 0600: a turn log holds the chat. fchmod as well: a log being rewritten may be older and 0644. */
	errno = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && (fchmod(fd, 0600) != 0 || (t->gz = gzdopen(fd, "wb6")) == NULL)) {
		int e = errno;
		close(fd);
		errno = e;
	}
	if (t->gz == NULL) {
		snprintf(why, whylen, "cannot write %s: %s", path, errno ? strerror(errno) : "gzdopen failed");
		free(t->path);
		t->path = NULL;
		return -1;
	}
	return 0;
}

int
tlog_open(struct tlog *t, const char *path, const struct turnlog_header *h, uint64_t start_hash, const char *extra,
          char *why, size_t whylen)
{
	char buf[1024];
	int n;

	if (open_file(t, path, why, whylen) != 0)
		return -1;
	if ((n = turnlog_format_header(h, start_hash, buf, sizeof buf)) < 0) {
		snprintf(why, whylen, "cannot format the log header");
		tlog_close(t);
		return -1;
	}
	put(t, buf, (size_t)n);
	if (extra && extra[0])
		put(t, extra, strlen(extra));
	return 0;
}

int
tlog_open_prefix(struct tlog *t, const char *path, const char *prefix, size_t len, char *why, size_t whylen)
{
	char *tmp = NULL;

	if (path) {
		size_t n = strlen(path) + 5;
		if ((tmp = malloc(n)) == NULL) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		snprintf(tmp, n, "%s.tmp", path);
	}
	if (open_file(t, tmp, why, whylen) != 0) {
		free(tmp);
		return -1;
	}
	put(t, prefix, len);
	if (t->failed) {
		snprintf(why, whylen, "cannot write %s", tmp);
		tlog_close(t);
		remove(tmp);
		free(tmp);
		return -1;
	}
	/* Only a complete copy replaces the log it was read from. */
	if (tmp) {
		if (rename(tmp, path) != 0) {
			snprintf(why, whylen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
			tlog_close(t);
			remove(tmp);
			free(tmp);
			return -1;
		}
		free(t->path);
		t->path = strdup(path);
		free(tmp);
	}
	return 0;
}

void
tlog_cmd(struct tlog *t, int p, const struct cmd *c, const struct game *after, bool turn_ended)
{
	char buf[2 * TURNLOG_LINE_MAX];
	int n, m = 0;

	if ((n = turnlog_format_cmd(p, c, buf, sizeof buf)) < 0)
		return;
	if (turn_ended && (m = turnlog_format_hash(after->turn_no, game_hash(after), buf + n, sizeof buf - (size_t)n)) < 0)
		m = 0;
	put(t, buf, (size_t)(n + m));
}

void
tlog_chat(struct tlog *t, int p, const char *text)
{
	char buf[TURNLOG_LINE_MAX + 16];
	int n = turnlog_format_chat(p, text, buf, sizeof buf);

	if (n > 0)
		put(t, buf, (size_t)n);
}

void
tlog_end(struct tlog *t, const struct game *g)
{
	char buf[TURNLOG_LINE_MAX];
	int n = turnlog_format_end(g, buf, sizeof buf);

	if (n > 0)
		put(t, buf, (size_t)n);
}

void
tlog_comment(struct tlog *t, const char *text)
{
	char buf[TURNLOG_LINE_MAX];
	int n = snprintf(buf, sizeof buf, "# %s\n", text);

	if (n > 0 && (size_t)n < sizeof buf)
		put(t, buf, (size_t)n);
}

void
tlog_close(struct tlog *t)
{
	if (t->gz)
		gzclose(t->gz);
	free(t->path);
	free(t->text);
	memset(t, 0, sizeof *t);
}

/* Reading back. */

static int
read_all(const char *path, char **out, size_t *outlen, char *why, size_t whylen)
{
	gzFile f;
	size_t cap = 65536, n = 0;
	char *b;

	errno = 0;
	if ((f = gzopen(path, "rb")) == NULL) {
		snprintf(why, whylen, "cannot open %s: %s", path, errno ? strerror(errno) : "gzopen failed");
		return -1;
	}
	if ((b = malloc(cap + 1)) == NULL)
		goto nomem;
	for (;;) {
		if (n == cap) {
			if (cap >= TLOG_FILE_MAX) {
				snprintf(why, whylen, "%s is too large", path);
				goto fail;
			}
			char *nb = realloc(b, cap * 2 + 1);
			if (nb == NULL)
				goto nomem;
			b = nb;
			cap *= 2;
		}
		/* A gzip file cut short (a killed host) reads as far as its last flush:
		 * zlib reports the missing end as Z_BUF_ERROR, which is not a failure here. */
		int r = gzread(f, b + n, (unsigned)(cap - n));
		if (r < 0) {
			int e;
			const char *msg = gzerror(f, &e);
			if (e == Z_BUF_ERROR)
				break;
			snprintf(why, whylen, "cannot read %s: %s", path, msg);
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	gzclose(f);
	b[n] = '\0';
	*out = b;
	*outlen = n;
	return 0;
nomem:
	snprintf(why, whylen, "out of memory");
fail:
	gzclose(f);
	free(b);
	return -1;
}

struct scan {
	int nlines;
	uint8_t *unsettled; /* by line number: a command that ended a turn or the duel */
};

static void
scan_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct scan *s = ud;

	(void)p;
	(void)c;
	if (lineno > 0 && lineno <= s->nlines && ev)
		s->unsettled[lineno] = g->result != RESULT_NONE ? 2 : ev->turn_ended ? 1 : 0;
}

/* Exactly 2n hex digits to the end of s: nothing before, between or after. */
static bool
hex_in(const char *s, uint8_t *out, size_t n)
{
	size_t got;
	const char *end;

	return sodium_hex2bin(out, n, s, strlen(s), NULL, &got, &end) == 0 && got == n && *end == '\0';
}

static void
server_comment(struct tlog_resume *r, const char *line, size_t n)
{
	char buf[TURNLOG_LINE_MAX];
	int p, v;

	if (n >= sizeof buf)
		return;
	memcpy(buf, line, n);
	buf[n] = '\0';
	if (strncmp(buf, "# wizwar-server ", 16) != 0)
		return;
	const char *s = buf + 16;
	if (strncmp(s, "salt ", 5) == 0)
		r->old_seed = true;
	else if (strncmp(s, "seed-part ", 10) == 0)
		r->have_part = hex_in(s + 10, r->server_part, PROTO_PART_LEN);
	else if (sscanf(s, "part %d", &p) == 1 && p >= 0 && p < PLAYERS && strlen(s) > 7) {
		if (hex_in(s + 7, r->part[p], PROTO_PART_LEN))
			r->parts |= (uint8_t)(1u << p);
	} else if (strncmp(s, "seed ", 5) == 0) {
		r->seed_chosen = strcmp(s + 5, "chosen") == 0 || strcmp(s + 5, "chosen-mirror") == 0;
		r->seed_mirror = strcmp(s + 5, "mirror") == 0 || strcmp(s + 5, "chosen-mirror") == 0;
	} else if (sscanf(s, "token %d", &p) == 1 && p >= 0 && p < PLAYERS && strlen(s) > 8)
		r->have_token[p] = hex_in(s + 8, r->token_hash[p], 32);
	else if (sscanf(s, "host %d", &p) == 1 && p >= 0 && p < PLAYERS)
		r->host_seat = p;
	else if (sscanf(s, "turn-time %d", &v) == 1 && v >= 0 && v <= 3600)
		r->turn_time = v;
}

int
tlog_load(const char *path, struct tlog_resume *r, char *why, size_t whylen)
{
	struct turnlog_replay *rp = NULL;
	struct scan s = { 0, NULL };
	char *text = NULL;
	size_t len = 0, safe = 0;
	int pending = 0, lineno = 0;

	memset(r, 0, sizeof *r);
	r->host_seat = -1;
	if (read_all(path, &text, &len, why, whylen) != 0)
		return -1;
	for (size_t i = 0; i < len; i++)
		s.nlines += text[i] == '\n';
	if ((rp = malloc(sizeof *rp)) == NULL || (s.unsettled = calloc((size_t)s.nlines + 2, 1)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	if (turnlog_replay(text, len, rp, scan_cb, &s) != 0) {
		snprintf(why, whylen, "%s: line %d: %s", path, rp->line, rp->error);
		goto fail;
	}
	r->torn = rp->torn;
	/* The log stands up to its last line at rest: not between a command that
	 * ended a turn (or the duel) and that turn's hash (or the end line). */
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL)
			break;
		size_t n = (size_t)(nl - (text + pos));
		const char *line = text + pos;
		lineno++;
		if (n > 0 && line[0] == '#')
			server_comment(r, line, n);
		if (s.unsettled[lineno])
			pending = s.unsettled[lineno];
		else if (n > 0 && line[0] == '=' && pending == 1)
			pending = 0; /* a hash line settles a turn */
		else if (n > 4 && strncmp(line, "end ", 4) == 0)
			pending = 0; /* the end line settles the duel */
		pos += n + 1;
		if (!pending)
			safe = pos;
	}
	if (safe < len) {
		r->torn = true;
		if (turnlog_replay(text, safe, rp, NULL, NULL) != 0) {
			snprintf(why, whylen, "%s: line %d: %s", path, rp->line, rp->error);
			goto fail;
		}
	}
	r->hdr = rp->hdr;
	r->game = rp->game;
	r->ended = rp->ended;
	r->text = text;
	r->len = safe;
	text[safe] = '\0';
	free(rp);
	free(s.unsettled);
	return 0;
fail:
	free(rp);
	free(s.unsettled);
	free(text);
	return -1;
}

void
tlog_resume_free(struct tlog_resume *r)
{
	free(r->text);
	r->text = NULL;
}
