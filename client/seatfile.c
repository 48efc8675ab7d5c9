/* SPDX-License-Identifier: MIT */
/* seatfile: a seat's resume token on disk from a duel's START until the player leaves: one small text file per seat, 0600. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "auth.h"
#include "seatfile.h"

/* The key as one line: what the file must name again to be used. */
static int
key_text(const struct seatfile_key *k, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s %d %s %s", k->host, k->port, k->room && k->room[0] ? k->room : "-", k->name);
	return n > 0 && (size_t)n < len ? n : -1;
}

bool
seatfile_path(const char *state_dir, const struct seatfile_key *k, char *buf, size_t len)
{
	char key[512];
	uint8_t h[32];
	char hexs[33];
	int n;

	if (state_dir == NULL || key_text(k, key, sizeof key) < 0)
		return false;
	/* A hash, not the key itself: a host name or a player's name is no file name. */
	auth_token_hash((const uint8_t *)key, strlen(key), h);
	sodium_bin2hex(hexs, sizeof hexs, h, 16);
	n = snprintf(buf, len, "%s/seats/%s", state_dir, hexs);
	return n > 0 && (size_t)n < len;
}

/* Lock PATH.lock without waiting: its descriptor, -1 with errno EWOULDBLOCK when another
 * client holds it, or another errno. The file locked must still be the one at PATH.lock: a
 * releaser unlinks it before unlocking, and a lock on an unlinked file would claim nothing. */
static int
lock_file(const char *path)
{
	char lock[4300];
	struct stat held, there;

	if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (fstat(fd, &held) == 0 && stat(lock, &there) == 0 && held.st_dev == there.st_dev &&
		    held.st_ino == there.st_ino)
			return fd;
		close(fd); /* released and unlinked between our open and our lock: the new file */
	}
	errno = EAGAIN;
	return -1;
}

int
seatfile_claim(const char *state_dir, const struct seatfile_key *k, char *buf, size_t len,
               struct seatfile_claim *claim)
{
	char dir[4200];
	size_t base;

	claim->fd = claim->slot = -1;
	if (!seatfile_path(state_dir, k, buf, len) ||
	    (size_t)snprintf(dir, sizeof dir, "%s/seats", state_dir) >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	base = strlen(buf);
	for (int slot = 0; slot < SEATFILE_SLOTS; slot++) {
		if (slot > 0 && (size_t)snprintf(buf + base, len - base, "-%d", slot) >= len - base) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd = lock_file(buf);
		if (fd >= 0) {
			claim->fd = fd;
			claim->slot = slot;
			return fd;
		}
		if (errno != EWOULDBLOCK)
			return -1;
	}
	buf[base] = '\0';
	errno = EBUSY;
	return -1;
}

void
seatfile_release(const char *path, struct seatfile_claim *claim)
{
	char lock[4300];

	if (claim->fd < 0)
		return;
	if (path && (size_t)snprintf(lock, sizeof lock, "%s.lock", path) < sizeof lock)
		unlink(lock);
	close(claim->fd);
	claim->fd = claim->slot = -1;
}

/* Lower-case hex digits into bytes, up to max; the count, the end of the digits taken in
 * *end. The file is ours, written in lower case: anything else ends the digits. */
static size_t
unhex_bytes(const char *t, uint8_t *out, size_t max, const char **end)
{
	size_t n = strspn(t, "0123456789abcdef") / 2, got = 0;

	if (n > max)
		n = max;
	if (sodium_hex2bin(out, max, t, 2 * n, NULL, &got, end) != 0)
		got = 0; /* cannot happen: an even count of digits, and room for them */
	return got;
}

bool
seatfile_load(const char *path, const struct seatfile_key *k, struct seatfile_seat *seat)
{
	char key[512], buf[1024], want[600];
	struct stat st;
	ssize_t got;
	int fd;
	const char *t;
	size_t n = 0;

	memset(seat, 0, sizeof *seat);
	if (path == NULL || key_text(k, key, sizeof key) < 0)
		return false;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	/* Somebody else's file, or one others may read, is not trusted with a seat. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
		close(fd);
		return false;
	}
	got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	snprintf(want, sizeof want, "wizwar-seat 2\nkey %s\ntoken ", key);
	if (strncmp(buf, want, strlen(want)) != 0)
		return false;
	n = unhex_bytes(buf + strlen(want), seat->token, PROTO_TOKEN_MAX, &t);
	if (n < PROTO_TOKEN_MIN || strncmp(t, "\ncommit ", 8) != 0)
		return false;
	if (strncmp(t + 8, "-\n", 2) == 0) {
		t += 9; /* "commit -": between duels */
	} else if (unhex_bytes(t + 8, seat->commit, PROTO_COMMIT_LEN, &t) == PROTO_COMMIT_LEN) {
		seat->has_commit = true;
	} else {
		return false;
	}
	/* "part HEX" (the part this client sent) or "part -" (none known), then "parts BITS". */
	if (strncmp(t, "\npart -\n", 8) == 0) {
		t += 7;
	} else if (strncmp(t, "\npart ", 6) == 0 &&
	           unhex_bytes(t + 6, seat->part, PROTO_PART_LEN, &t) == PROTO_PART_LEN) {
		seat->have_part = true;
	} else {
		return false;
	}
	if (strncmp(t, "\nparts ", 7) != 0 || t[7] < '0' || t[7] > '3' || strcmp(t + 8, "\n") != 0)
		return false;
	seat->part_bits = (uint8_t)(t[7] - '0');
	seat->token_len = n;
	return true;
}

int
seatfile_save(const char *path, const struct seatfile_key *k, const struct seatfile_seat *seat)
{
	size_t len = seat->token_len;
	char key[512], tmp[4200], dir[4200], text[1024];
	size_t n;
	int fd, saved;
	char *slash;

	if (path == NULL || len > PROTO_TOKEN_MAX || key_text(k, key, sizeof key) < 0 ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
		errno = EINVAL;
		return -1;
	}
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
	}
	/* The longest file fits: 2 x 96 hex digits and a key of at most 511 bytes. */
	n = (size_t)snprintf(text, sizeof text, "wizwar-seat 2\nkey %s\ntoken ", key);
	n += strlen(sodium_bin2hex(text + n, sizeof text - n, seat->token, len));
	n += (size_t)snprintf(text + n, sizeof text - n, "\ncommit %s", seat->has_commit ? "" : "-");
	if (seat->has_commit)
		n += strlen(sodium_bin2hex(text + n, sizeof text - n, seat->commit, PROTO_COMMIT_LEN));
	n += (size_t)snprintf(text + n, sizeof text - n, "\npart ");
	if (seat->have_part)
		n += strlen(sodium_bin2hex(text + n, sizeof text - n, seat->part, PROTO_PART_LEN));
	n += (size_t)snprintf(text + n, sizeof text - n, "%s\nparts %u\n", seat->have_part ? "" : "-",
	                      (unsigned)(seat->part_bits & 3));
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (fchmod(fd, 0600) != 0 || write(fd, text, n) != (ssize_t)n || fsync(fd) != 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		return -1;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

void
seatfile_remove(const char *path)
{
	if (path)
		unlink(path);
}
