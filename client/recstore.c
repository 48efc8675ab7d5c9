/* SPDX-License-Identifier: MIT */
/* recstore: the signed rating records a client was given, kept per server in its state folder, read back strictly. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "recstore.h"

#define KEY_HEX (2 * 32)
#define LINE_LEN (2 * RATED_SIGNER_LEN + 1 + 2 * RATED_SIGNED_LEN) /* without its newline */
#define HEAD_LEN (sizeof RECSTORE_MAGIC - 1 + 1 + KEY_HEX)
/* The largest file a full store makes: anything bigger is not ours and is not read whole. */
#define FILE_MAX (HEAD_LEN + 1 + (size_t)RECSTORE_MAX * (LINE_LEN + 1))

bool
recstore_path(const char *state_dir, const uint8_t server_pk[32], char *buf, size_t len)
{
	char fp[AUTH_FP_LEN + 1];

	auth_fingerprint(server_pk, fp);
	return (size_t)snprintf(buf, len, "%s/records/%s", state_dir, fp) < len;
}

/* Exactly n lowercase hex digits into n / 2 bytes: the one spelling the file is written in. */
static bool
unhex(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0)
			return false;
		if (i % 2 == 0)
			out[i / 2] = (uint8_t)(v << 4);
		else
			out[i / 2] |= (uint8_t)v;
	}
	return true;
}

static void
tohex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
}

long
recstore_find(const struct recstore *rs, const uint8_t commit[PROTO_COMMIT_LEN])
{
	for (size_t i = 0; i < rs->count; i++)
		if (memcmp(rs->e[i].rec.commit, commit, PROTO_COMMIT_LEN) == 0)
			return (long)i;
	return -1;
}

int
recstore_add(struct recstore *rs, const uint8_t signer[RATED_SIGNER_LEN], const struct rated_rec *r)
{
	if (recstore_find(rs, r->commit) >= 0)
		return 0;
	if (rs->count == RECSTORE_MAX) {
		/* Bounded: the oldest goes. Ten thousand rated duels is years of play; the server's
		 * history of those is what the oldest records were kept to check, long since. */
		memmove(rs->e, rs->e + 1, (rs->count - 1) * sizeof *rs->e);
		rs->count--;
	} else {
		struct recstore_entry *e = realloc(rs->e, (rs->count + 1) * sizeof *e);
		if (e == NULL)
			return -1;
		rs->e = e;
	}
	memcpy(rs->e[rs->count].signer, signer, RATED_SIGNER_LEN);
	rs->e[rs->count].rec = *r;
	rs->count++;
	return 1;
}

void
recstore_free(struct recstore *rs)
{
	free(rs->e);
	rs->e = NULL;
	rs->count = 0;
}

int
recstore_parse(const char *path, const char *text, size_t len, struct recstore *rs, char *why, size_t whylen)
{
	uint8_t pk[32], signed_rec[RATED_SIGNED_LEN], signer[RATED_SIGNER_LEN];
	char rwhy[96];
	size_t at, line = 1;

	if (len < HEAD_LEN + 1 || memcmp(text, RECSTORE_MAGIC " ", sizeof RECSTORE_MAGIC) != 0 || text[HEAD_LEN] != '\n' ||
	    !unhex(text + sizeof RECSTORE_MAGIC, KEY_HEX, pk)) {
		snprintf(why, whylen, "%s:1: not a wizwar records file (a line '" RECSTORE_MAGIC " KEY', 64 hex digits)", path);
		return -1;
	}
	if (memcmp(pk, rs->server_pk, sizeof pk) != 0) {
		snprintf(why, whylen, "%s:1: the records of another server's key", path);
		return -1;
	}
	for (at = HEAD_LEN + 1; at < len; at += LINE_LEN + 1) {
		struct rated_rec r;
		line++;
		if (len - at < LINE_LEN + 1 || text[at + LINE_LEN] != '\n' || text[at + 2 * RATED_SIGNER_LEN] != ' ' ||
		    !unhex(text + at, 2 * RATED_SIGNER_LEN, signer) ||
		    !unhex(text + at + 2 * RATED_SIGNER_LEN + 1, 2 * RATED_SIGNED_LEN, signed_rec)) {
			snprintf(why, whylen, "%s:%zu: not a record line (the signer's key and the signed record, in hex)", path, line);
			return -1;
		}
		if (!rated_get(signed_rec, sizeof signed_rec, &r, rwhy, sizeof rwhy)) {
			snprintf(why, whylen, "%s:%zu: not a rating record: %s", path, line, rwhy);
			return -1;
		}
		if (!rated_verify(&r, signer, rs->server_pk)) {
			snprintf(why, whylen, "%s:%zu: a record that is not the server's signature (the file was changed)", path, line);
			return -1;
		}
		if (line - 1 > RECSTORE_MAX) {
			snprintf(why, whylen, "%s: more than %d records", path, RECSTORE_MAX);
			return -1;
		}
		if (recstore_find(rs, r.commit) >= 0) {
			snprintf(why, whylen, "%s:%zu: a duel recorded twice", path, line);
			return -1;
		}
		if (recstore_add(rs, signer, &r) < 0) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
	}
	return 0;
}

int
recstore_file_key(const char *path, uint8_t server_pk[32], char *why, size_t whylen)
{
	char head[HEAD_LEN + 1];
	int fd;
	ssize_t got;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	got = read(fd, head, sizeof head);
	close(fd);
	if (got != (ssize_t)sizeof head || memcmp(head, RECSTORE_MAGIC " ", sizeof RECSTORE_MAGIC) != 0 ||
	    head[HEAD_LEN] != '\n' || !unhex(head + sizeof RECSTORE_MAGIC, KEY_HEX, server_pk)) {
		snprintf(why, whylen, "%s:1: not a wizwar records file (a line '" RECSTORE_MAGIC " KEY', 64 hex digits)", path);
		return -1;
	}
	return 0;
}

int
recstore_load(const char *path, const uint8_t server_pk[32], struct recstore *rs, char *why, size_t whylen)
{
	struct stat st;
	char *text = NULL;
	int fd, rc = -1;

	memset(rs, 0, sizeof *rs);
	memcpy(rs->server_pk, server_pk, sizeof rs->server_pk);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is not a file", path);
	} else if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		/* Another user's, or one others may write: its records may be anyone's. */
		snprintf(why, whylen, "%s is writable by others or not yours (mode %03o): refused", path,
		         (unsigned)(st.st_mode & 0777));
	} else if ((size_t)st.st_size > FILE_MAX) {
		snprintf(why, whylen, "%s: %lld bytes, more than %d records can be", path, (long long)st.st_size, RECSTORE_MAX);
	} else if ((text = malloc((size_t)st.st_size + 1)) == NULL) {
		snprintf(why, whylen, "out of memory");
	} else {
		ssize_t got = read(fd, text, (size_t)st.st_size);
		if (got != (ssize_t)st.st_size)
			snprintf(why, whylen, "cannot read %s", path);
		else
			rc = recstore_parse(path, text, (size_t)got, rs, why, whylen);
	}
	close(fd);
	free(text);
	if (rc != 0)
		recstore_free(rs);
	return rc;
}

/* The folder of `path` and its parent, 0700 (the state folder may not exist yet). */
static int
make_dirs(const char *path, char *why, size_t whylen)
{
	char dir[4200];
	char *slash;

	snprintf(dir, sizeof dir, "%s", path);
	for (int up = 0; up < 2; up++) {
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
			return 0;
		*slash = '\0';
	}
	for (int down = 0; down < 2; down++) {
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			snprintf(why, whylen, "cannot make %s: %s", dir, strerror(errno));
			return -1;
		}
		dir[strlen(dir)] = '/'; /* the next level down */
	}
	return 0;
}

int
recstore_save(const char *path, const struct recstore *rs, char *why, size_t whylen)
{
	char tmp[4200], line[LINE_LEN + 1];
	uint8_t signed_rec[RATED_SIGNED_LEN];
	FILE *f;
	int fd;

	if (make_dirs(path, why, whylen) != 0)
		return -1;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
		snprintf(why, whylen, "%s: path too long", path);
		return -1;
	}
	if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0600) != 0 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(why, whylen, "cannot write next to %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	tohex(rs->server_pk, 32, line);
	fprintf(f, RECSTORE_MAGIC " %.*s\n", KEY_HEX, line);
	for (size_t i = 0; i < rs->count; i++) {
		tohex(rs->e[i].signer, RATED_SIGNER_LEN, line);
		line[2 * RATED_SIGNER_LEN] = ' ';
		rated_put(&rs->e[i].rec, signed_rec);
		tohex(signed_rec, sizeof signed_rec, line + 2 * RATED_SIGNER_LEN + 1);
		fprintf(f, "%.*s\n", LINE_LEN, line);
	}
	/* Written whole or not at all: the rename replaces the old file only with a complete one. */
	bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
recstore_lock(const char *path, char *why, size_t whylen)
{
	char lp[4300];
	int fd;

	if (make_dirs(path, why, whylen) != 0)
		return -1;
	snprintf(lp, sizeof lp, "%s.lock", path);
	if ((fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 || flock(fd, LOCK_EX) != 0) {
		snprintf(why, whylen, "cannot lock %s: %s", lp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
recstore_keep(const char *state_dir, const uint8_t server_pk[32], const uint8_t signer[RATED_SIGNER_LEN],
              const struct rated_rec *r, char *why, size_t whylen)
{
	char path[4200];
	struct recstore rs;
	int rc;

	if (state_dir == NULL || !recstore_path(state_dir, server_pk, path, sizeof path)) {
		snprintf(why, whylen, "no state folder to keep the record in (set HOME or XDG_STATE_HOME)");
		return -1;
	}
	/* Two clients of this user given records by one server at once (two duels, a bot and a
	 * player) would each write the file over the other's: one at a time, by a lock beside it. */
	int lock = recstore_lock(path, why, whylen);
	if (lock < 0)
		return -1;
	if (recstore_load(path, server_pk, &rs, why, whylen) != 0) {
		close(lock);
		return -1;
	}
	rc = recstore_add(&rs, signer, r);
	if (rc < 0)
		snprintf(why, whylen, "out of memory");
	else if (rc > 0 && recstore_save(path, &rs, why, whylen) != 0)
		rc = -1;
	recstore_free(&rs);
	close(lock); /* and its lock with it */
	return rc;
}
