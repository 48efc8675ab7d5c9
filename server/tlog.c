/* SPDX-License-Identifier: MIT */
/* tlog: appends a duel's turn log as plain text while it plays, compresses it once when it ends, and reads one back to resume. */
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

#include "spect.h"
#include "text.h"
#include "tlog.h"

#define TLOG_FILE_MAX (PROTO_LOG_MAX * 4u)

/*
 * The log kept in memory for END is its lines as records, rendered to text only then
 * (tlog_text): a command is 5 bytes where its line is 9 to 14, a hash 13 where its line is
 * about 22, and these are most of a duel's log, which grows with every command for the
 * whole duel. Records: 'C' p type arg dir (turnlog_format_cmd); 'H' turn (4 bytes) hash
 * (8 bytes), both little-endian (turnlog_format_hash); 'T' length (4 bytes) and the text
 * itself (the header, comments, chat, the end line, a resumed log's prefix). t->len
 * counts the text they render to.
 */
enum { REC_CMD = 'C', REC_HASH = 'H', REC_TEXT = 'T' };

static bool
room_for(struct tlog *t, size_t rn, size_t textlen)
{
	if (t->overflow)
		return false;
	if (t->len + textlen > PROTO_LOG_MAX) {
		/* Too long to reveal; the disk copy goes on. */
		t->overflow = true;
		return false;
	}
	if (t->rlen + rn > t->rcap) {
		size_t cap = t->rcap ? t->rcap : 512;
		while (cap < t->rlen + rn)
			cap *= 2;
		uint8_t *nr = realloc(t->rec, cap);
		if (nr == NULL) {
			t->overflow = true;
			return false;
		}
		t->rec = nr;
		t->rcap = cap;
	}
	t->len += textlen;
	return true;
}

static void
put_le(uint8_t *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get_le(const uint8_t *b, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static void
keep_text(struct tlog *t, const char *s, size_t n)
{
	if (n == 0 || !room_for(t, 5 + n, n))
		return;
	t->rec[t->rlen] = REC_TEXT;
	put_le(t->rec + t->rlen + 1, n, 4);
	memcpy(t->rec + t->rlen + 5, s, n);
	t->rlen += 5 + n;
}

char *
tlog_text(const struct tlog *t, size_t *len)
{
	char *out;
	size_t at = 0;

	if (t->overflow || (out = malloc(t->len + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < t->rlen;) {
		const uint8_t *r = t->rec + i;
		int n = -1;
		if (r[0] == REC_CMD) {
			struct cmd c = { r[2], r[3], r[4] };
			n = turnlog_format_cmd(r[1], &c, out + at, t->len + 1 - at);
			i += 5;
		} else if (r[0] == REC_HASH) {
			n = turnlog_format_hash((uint32_t)get_le(r + 1, 4), get_le(r + 5, 8), out + at, t->len + 1 - at);
			i += 13;
		} else {
			size_t k = (size_t)get_le(r + 1, 4);
			if (k <= t->len - at) {
				memcpy(out + at, r + 5, k);
				n = (int)k;
			}
			i += 5 + k;
		}
		if (n < 0) {
			free(out);
			return NULL;
		}
		at += (size_t)n;
	}
	if (at != t->len) {
		free(out);
		return NULL;
	}
	out[at] = '\0';
	*len = at;
	return out;
}

char *
tlog_text_players(const struct tlog *t, size_t *len)
{
	static const char tag[] = "\n# wizwar-server room ";
	char *text = tlog_text(t, len), *at, *end;

	/* The header's first line comes before any comment, and no other line starts with '#'
	 * (chat is "chat P TEXT", one line): the tag is the comment itself, written once. */
	if (text == NULL || (at = strstr(text, tag)) == NULL)
		return text;
	end = strchr(at + 1, '\n');
	size_t cut = end ? (size_t)(end - at) : strlen(at);
	memmove(at, at + cut, *len - (size_t)(at - text) - cut + 1);
	*len -= cut;
	return text;
}

/* Every byte of data to fd; 0, or an errno. */
static int
write_all(int fd, const char *data, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, data, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		data += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The parent folders of path, made 0700 (the log tree by date: logtree.h). */
static int
make_parents(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		int bad = mkdir(buf, 0700) != 0 && errno != EEXIST;
		buf[i] = '/';
		if (bad)
			return -1;
	}
	return 0;
}

/* Create (truncate) path for appending, 0600: a turn log holds the chat. fchmod as well: a
 * file being rewritten may be older and 0644. A missing folder (playing/, removed by hand
 * while the server runs) is made again. The descriptor, or -1 with errno set. */
static int
create_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 && errno == ENOENT && make_parents(path) == 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0 && fchmod(fd, 0600) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
tlog_save(const char *path, const char *text, size_t len, char *why, size_t whylen)
{
	int fd = create_log(path), e;

	if (fd < 0) {
		snprintf(why, whylen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	e = write_all(fd, text, len);
	if (close(fd) != 0 && e == 0)
		e = errno;
	if (e != 0) {
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(e));
		unlink(path);
		return -1;
	}
	return 0;
}

/* A write failed: say so once, keep the rest of the duel in memory only. */
static void
fail(struct tlog *t, const char *why)
{
	if (t->failed)
		return;
	t->failed = true;
	if (t->has_fd)
		close(t->fd);
	t->has_fd = false;
	t->plen = 0;
	if (t->report)
		t->report(t->report_ud, why);
}

/*
 * A finished duel's log, compressed once: the plain file read whole, deflated at level 9 as
 * one gzip member into TO.tmp, which is renamed to TO, and then the plain file removed. Run
 * in libuv's threadpool, once a duel. A process killed meanwhile leaves the plain log (an
 * `end` line in it), perhaps TO as well: both read as the same finished duel, and `server
 * --resume` compresses such a leftover again (server.c). Failing leaves the plain log,
 * which every reader reads as well: nothing is lost, only the bytes are not saved.
 */
struct tlog_keeper {
	uv_work_t work;
	char *from, *to;
};

static int
keep_file(const char *from, const char *to)
{
	struct stat st;
	char *text = NULL, tmp[4200];
	uint8_t *gz = NULL;
	z_stream z;
	int fd, rc = -1;
	size_t n = 0;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", to) >= sizeof tmp)
		return -1;
	if ((fd = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > TLOG_FILE_MAX ||
	    (text = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, text + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	size_t cap = deflateBound(&z, (uLong)n);
	if ((gz = malloc(cap)) != NULL) {
		z.next_in = (Bytef *)text;
		z.avail_in = (uInt)n;
		z.next_out = gz;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END)
			rc = 0;
	}
	size_t gzlen = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != 0)
		goto out;
	rc = -1;
	if (make_parents(tmp) != 0 || (fd = create_log(tmp)) < 0)
		goto out;
	int e = write_all(fd, (const char *)gz, gzlen);
	if (close(fd) != 0 || e != 0 || rename(tmp, to) != 0) {
		unlink(tmp);
		goto out;
	}
	unlink(from);
	rc = 0;
out:
	free(gz);
	free(text);
	return rc;
}

static void
keep_work(uv_work_t *w)
{
	struct tlog_keeper *k = w->data;

	keep_file(k->from, k->to);
}

static void
keep_done(uv_work_t *w, int status)
{
	struct tlog_keeper *k = w->data;

	(void)status;
	free(k->from);
	free(k->to);
	free(k);
}

void
tlog_keep_later(uv_loop_t *loop, const char *from, const char *to)
{
	struct tlog_keeper *k = calloc(1, sizeof *k);

	if (k == NULL || (k->from = strdup(from)) == NULL || (k->to = strdup(to)) == NULL) {
		if (k)
			free(k->from);
		free(k);
		return; /* the plain log stays, readable as it is */
	}
	k->work.data = k;
	if (loop == NULL || uv_queue_work(loop, &k->work, keep_work, keep_done) != 0) {
		keep_work(&k->work);
		keep_done(&k->work, 0);
	}
}

/* One piece of text (a command with its hash line, a chat line, the end line), queued
 * for the disk whole, so that a write never splits it. The callers keep it in memory. */
static void
put(struct tlog *t, const char *s, size_t n)
{
	t->total += n;
	if ((!t->has_fd && t->mirror == NULL) || n == 0)
		return;
	if (t->plen + n > t->pcap) {
		size_t cap = t->pcap ? t->pcap : 256;
		while (cap < t->plen + n)
			cap *= 2;
		char *np = realloc(t->pend, cap);
		if (np == NULL) {
			fail(t, "out of memory for the turn log");
			return;
		}
		t->pend = np;
		t->pcap = cap;
	}
	memcpy(t->pend + t->plen, s, n);
	t->plen += n;
}

void
tlog_write(struct tlog *t)
{
	char why[320];
	int e;

	if (t->plen == 0)
		return;
	if (t->mirror)
		t->mirror(t->mirror_ud, t->pend, t->plen);
	if (!t->has_fd) {
		t->plen = 0;
		return;
	}
	/* One write(2) on the loop: it copies the lines into the page cache and returns; no open,
	 * no compression, no thread. A disk that blocks a write (a full NFS server) would block
	 * the loop here: docs/server.md says to keep logs on a local disk. */
	if ((e = write_all(t->fd, t->pend, t->plen)) != 0) {
		snprintf(why, sizeof why, "cannot write %s: %s", t->path, strerror(e));
		fail(t, why);
		return;
	}
	t->plen = 0;
}

static int
set_path(struct tlog *t, uv_loop_t *loop, const char *path, char *why, size_t whylen)
{
	memset(t, 0, sizeof *t);
	t->loop = loop;
	if (path && (t->path = strdup(path)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

int
tlog_open(struct tlog *t, uv_loop_t *loop, const char *path, const struct turnlog_header *h, uint64_t start_hash,
          const char *extra, char *why, size_t whylen)
{
	char buf[1024];
	int n;

	if (set_path(t, loop, path, why, whylen) != 0)
		return -1;
	if ((n = turnlog_format_header(h, start_hash, buf, sizeof buf)) < 0) {
		snprintf(why, whylen, "cannot format the log header");
		tlog_close(t);
		return -1;
	}
	if (t->path) {
		/* The file is made and its header written at once, before START goes out: a host
		 * killed at any moment of a duel leaves a log to resume from. */
		if ((t->fd = create_log(t->path)) < 0) {
			snprintf(why, whylen, "cannot create %s: %s", t->path, strerror(errno));
			tlog_close(t);
			return -1;
		}
		t->has_fd = true;
	}
	keep_text(t, buf, (size_t)n);
	put(t, buf, (size_t)n);
	if (extra && extra[0]) {
		keep_text(t, extra, strlen(extra));
		put(t, extra, strlen(extra));
	}
	tlog_write(t);
	if (t->failed) {
		snprintf(why, whylen, "cannot write %s", path);
		tlog_close(t);
		return -1;
	}
	return 0;
}

int
tlog_open_prefix(struct tlog *t, uv_loop_t *loop, const char *path, const char *prefix, size_t len, char *why,
                 size_t whylen)
{
	if (set_path(t, loop, NULL, why, whylen) != 0)
		return -1;
	keep_text(t, prefix, len);
	t->total = len;
	if (path == NULL)
		return 0;
	/* A gzip log (a finished one never comes here; an unfinished one is from before logs were
	 * plain while played) goes on as plain text beside it, without its ".gz". */
	size_t pn = strlen(path);
	bool gz = pn > 3 && strcmp(path + pn - 3, ".gz") == 0;
	char *plain = malloc(pn + 1), *tmp = malloc(pn + 5);
	int fd = -1, e = 0;
	if (plain == NULL || tmp == NULL) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	memcpy(plain, path, pn + 1);
	if (gz)
		plain[pn - 3] = '\0';
	snprintf(tmp, pn + 5, "%s.tmp", plain);
	/* Only a complete copy replaces the log it was read from. */
	if ((fd = create_log(tmp)) < 0 || (e = write_all(fd, prefix, len)) != 0) {
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(fd < 0 ? errno : e));
		goto fail;
	}
	if (rename(tmp, plain) != 0) {
		snprintf(why, whylen, "cannot rename %s to %s: %s", tmp, plain, strerror(errno));
		goto fail;
	}
	if (gz)
		unlink(path); /* its whole text is in the plain copy now */
	free(tmp);
	t->path = plain;
	t->fd = fd;
	t->has_fd = true;
	return 0;
fail:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(plain);
	free(tmp);
	tlog_close(t);
	return -1;
}

int
tlog_keep_as(struct tlog *t, const char *path)
{
	char *k = path ? strdup(path) : NULL;

	if (path && k == NULL)
		return -1;
	free(t->keep);
	t->keep = k;
	return 0;
}

void
tlog_cmd(struct tlog *t, int p, const struct cmd *c, const struct game *after, bool turn_ended)
{
	char buf[2 * TURNLOG_LINE_MAX];
	int n, m = 0;

	uint64_t h = turn_ended ? game_hash(after) : 0;

	if ((n = turnlog_format_cmd(p, c, buf, sizeof buf)) < 0)
		return;
	if (turn_ended && (m = turnlog_format_hash(after->turn_no, h, buf + n, sizeof buf - (size_t)n)) < 0)
		m = 0;
	if (room_for(t, 5 + (m > 0 ? 13 : 0), (size_t)(n + m))) {
		uint8_t *r = t->rec + t->rlen;
		r[0] = REC_CMD;
		r[1] = (uint8_t)p;
		r[2] = c->type;
		r[3] = c->arg;
		r[4] = c->dir;
		if (m > 0) {
			r[5] = REC_HASH;
			put_le(r + 6, after->turn_no, 4);
			put_le(r + 10, h, 8);
		}
		t->rlen += 5 + (m > 0 ? 13 : 0);
	}
	put(t, buf, (size_t)(n + m));
}

void
tlog_chat(struct tlog *t, int p, const char *text)
{
	char buf[TURNLOG_LINE_MAX + 16];
	int n = turnlog_format_chat(p, text, buf, sizeof buf);

	if (n > 0) {
		keep_text(t, buf, (size_t)n);
		put(t, buf, (size_t)n);
	}
}

bool
tlog_chat_full(const struct tlog *t, size_t until)
{
	return t->total >= until;
}

void
tlog_end(struct tlog *t, const struct game *g)
{
	char buf[TURNLOG_LINE_MAX];
	int n = turnlog_format_end(g, buf, sizeof buf);

	if (n > 0) {
		keep_text(t, buf, (size_t)n);
		put(t, buf, (size_t)n);
		t->ended = true;
	}
}

void
tlog_comment(struct tlog *t, const char *text)
{
	char buf[TURNLOG_LINE_MAX];
	int n = snprintf(buf, sizeof buf, "# %s\n", text);

	if (n > 0 && (size_t)n < sizeof buf) {
		keep_text(t, buf, (size_t)n);
		put(t, buf, (size_t)n);
	}
}

void
tlog_close(struct tlog *t)
{
	tlog_write(t);
	if (t->has_fd && close(t->fd) != 0)
		t->failed = true;
	/* A finished duel is compressed once, off the loop; an unfinished one (the server
	 * stopping mid-duel) stays plain, to be resumed. */
	if (t->path && t->ended && !t->failed && !t->hold) {
		if (t->keep)
			tlog_keep_later(t->loop, t->path, t->keep);
		else {
			size_t n = strlen(t->path) + 4;
			char *to = malloc(n);
			if (to) {
				snprintf(to, n, "%s.gz", t->path);
				tlog_keep_later(t->loop, t->path, to);
			}
			free(to);
		}
	}
	free(t->pend);
	free(t->path);
	free(t->keep);
	free(t->rec);
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

/* "off", "shared", "after" or "delayed K P", exactly (as room.c writes them); anything else is
 * ignored, and the options stay what an earlier comment (or the default) made them. */
static void
spect_comment(struct tlog_resume *r, const char *s)
{
	char again[32];
	int k, p, used = 0;

	if (strcmp(s, "off") == 0) {
		r->spect_allowed = false;
	} else if (strcmp(s, "shared") == 0 || strcmp(s, "after") == 0) {
		r->spect_allowed = true;
		r->spect_mode = s[0] == 's' ? SPECT_SHARED : SPECT_AFTER;
		r->spect_delay = r->spect_player = 0;
	} else if (sscanf(s, "delayed %d %d%n", &k, &p, &used) == 2 && s[used] == '\0' && k >= SPECT_DELAY_MIN &&
	           k <= SPECT_DELAY_MAX && p >= 0 && p < PLAYERS &&
	           /* the one spelling room.c writes: no sign, no zeros or spaces more */
	           snprintf(again, sizeof again, "delayed %d %d", k, p) > 0 && strcmp(again, s) == 0) {
		r->spect_allowed = true;
		r->spect_mode = SPECT_DELAYED;
		r->spect_delay = (uint8_t)k;
		r->spect_player = (uint8_t)p;
	} else {
		return;
	}
	r->have_spect = true;
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
	else if (sscanf(s, "key %d", &p) == 1 && p >= 0 && p < PLAYERS && strlen(s) > 6)
		r->have_key[p] = hex_in(s + 6, r->key[p], PROTO_IDENT_KEY_LEN);
	else if (sscanf(s, "host %d", &p) == 1 && p >= 0 && p < PLAYERS)
		r->host_seat = p;
	else if (sscanf(s, "turn-time %d", &v) == 1 && v >= 0 && v <= 3600)
		r->turn_time = v;
	else if (strncmp(s, "spectators ", 11) == 0)
		spect_comment(r, s + 11);
}

/*
 * A room comment, "# wizwar-server room CODE": line is one whole line without its '\n' (a '\r'
 * before it is dropped, as turnlog readers do). The first such comment names the room. A code
 * that is not a room code (TEXT_ROOM, as a client's --room is checked), or a second comment
 * naming another room, makes the room unknown for good: `server --resume` refuses such a log
 * rather than guess which room its players will come back to. The reason names the line,
 * never the bytes, which may be anything. Other comments ("# wizwar-server roomy") are not this.
 */
static void
room_line(struct tlog_room *rm, const char *line, size_t n, int lineno)
{
	static const char tag[] = "# wizwar-server room";
	const size_t t = sizeof tag - 1;
	const char *code;
	size_t len;

	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (rm->kind == TLOG_ROOM_BAD || n < t || memcmp(line, tag, t) != 0 || (n > t && line[t] != ' '))
		return;
	code = n > t ? line + t + 1 : "";
	len = n > t ? n - t - 1 : 0;
	if (!text_check(code, len, TEXT_ROOM)) {
		rm->kind = TLOG_ROOM_BAD;
		snprintf(rm->why, sizeof rm->why, "line %d: a room comment whose code is not a room code "
		         "(1 to %d letters, digits, '-' or '_')", lineno, PROTO_ROOM_BYTES);
	} else if (rm->kind == TLOG_ROOM_OK && (strlen(rm->code) != len || memcmp(rm->code, code, len) != 0)) {
		rm->kind = TLOG_ROOM_BAD;
		snprintf(rm->why, sizeof rm->why, "line %d: a second room comment, naming another room", lineno);
	} else {
		rm->kind = TLOG_ROOM_OK;
		memcpy(rm->code, code, len);
		rm->code[len] = '\0';
	}
}

int
tlog_peek(const char *path, struct tlog_peek *pk, char *why, size_t whylen)
{
	char *text = NULL, *end;
	size_t len = 0;
	int lineno = 0;

	memset(pk, 0, sizeof *pk);
	if (read_all(path, &text, &len, why, whylen) != 0)
		return -1;
	end = strncmp(text, "end ", 4) == 0 ? text : strstr(text, "\nend ");
	pk->ended = end && strchr(end + 1, '\n') != NULL; /* the line whole, not torn */
	/* Whole lines only, as tlog_load reads them: a torn last line says nothing. */
	for (size_t pos = 0; pos < len;) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		if (nl == NULL)
			break;
		lineno++;
		if (line[0] == '#')
			room_line(&pk->room, line, (size_t)(nl - line), lineno);
		pos += (size_t)(nl - line) + 1;
	}
	free(text);
	return 0;
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
		snprintf(why, whylen, "%s: %s", path, rp->error); /* the error names its line */
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
		if (n > 0 && line[0] == '#') {
			server_comment(r, line, n);
			room_line(&r->room, line, n, lineno);
		}
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
			snprintf(why, whylen, "%s: %s", path, rp->error); /* the error names its line */
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
