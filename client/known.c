/* SPDX-License-Identifier: MIT */
/* known: a small text file of "host:port fingerprint" lines, checked and appended to, never trusted blindly. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "known.h"

#define LINE_MAX_LEN 512

/* Rewrite the file with `name`'s line set to fp: a new file beside it, then renamed over it.
 * The new file is made by mkstemp (O_CREAT|O_EXCL, a name nobody can guess, 0600), as
 * OpenSSH writes known_hosts: a fixed "PATH.tmp" opened with O_TRUNC followed a symlink
 * planted there and overwrote whatever it pointed to. */
static int
rewrite(const char *path, const char *name, const char *fp, char *why, size_t whylen)
{
	char tmp[4200], line[LINE_MAX_LEN];
	FILE *in, *out = NULL;
	int fd = -1;
	bool done = false;
	size_t nl = strlen(name);

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
		snprintf(why, whylen, "cannot rewrite %s: the name is too long", path);
		return -1;
	}
	if ((in = fopen(path, "r")) == NULL || (fd = mkstemp(tmp)) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
	    (out = fdopen(fd, "w")) == NULL) {
		snprintf(why, whylen, "cannot rewrite %s: %s", path, strerror(errno));
		if (in)
			fclose(in);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	while (fgets(line, sizeof line, in)) {
		if (!done && strncmp(line, name, nl) == 0 && line[nl] == ' ') {
			fprintf(out, "%s %s\n", name, fp);
			done = true;
		} else {
			fputs(line, out);
		}
	}
	if (!done)
		fprintf(out, "%s %s\n", name, fp);
	fclose(in);
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		snprintf(why, whylen, "cannot rewrite %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
known_check(const char *path, const char *name, const char *fp, bool replace, char *old_fp, size_t old_len,
            int *line, char *why, size_t whylen)
{
	char buf[LINE_MAX_LEN];
	size_t nl = strlen(name);
	FILE *f;
	int n = 0;

	*line = 0;
	if (old_len)
		old_fp[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(buf, sizeof buf, f)) {
			char *p;
			n++;
			if (buf[0] == '#' || strncmp(buf, name, nl) != 0 || buf[nl] != ' ')
				continue;
			p = buf + nl + 1;
			p[strcspn(p, " \t\r\n")] = '\0';
			fclose(f);
			if (strcmp(p, fp) == 0)
				return KNOWN_MATCH;
			snprintf(old_fp, old_len, "%s", p);
			*line = n;
			if (!replace)
				return KNOWN_CHANGED;
			return rewrite(path, name, fp, why, whylen) == 0 ? KNOWN_MATCH : KNOWN_ERROR;
		}
		fclose(f);
	} else if (errno != ENOENT) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return KNOWN_ERROR;
	}
	{
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd < 0 || (f = fdopen(fd, "a")) == NULL) {
			snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return KNOWN_ERROR;
		}
		fprintf(f, "%s %s\n", name, fp);
		if (fclose(f) != 0) {
			snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
			return KNOWN_ERROR;
		}
	}
	return replace ? KNOWN_MATCH : KNOWN_NEW;
}

bool
known_find(const char *path, const char *name, char *fp, size_t len)
{
	char buf[LINE_MAX_LEN];
	size_t nl = strlen(name);
	FILE *f = fopen(path, "r");
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(buf, sizeof buf, f)) {
		char *p;
		if (buf[0] == '#' || strncmp(buf, name, nl) != 0 || buf[nl] != ' ')
			continue;
		p = buf + nl + 1;
		p[strcspn(p, " \t\r\n")] = '\0';
		snprintf(fp, len, "%s", p);
		found = true;
	}
	fclose(f);
	return found;
}

bool
known_has_fp(const char *path, const char *fp)
{
	char buf[LINE_MAX_LEN];
	FILE *f = fopen(path, "r");
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(buf, sizeof buf, f)) {
		char *p = strchr(buf, ' ');
		if (buf[0] == '#' || p == NULL)
			continue;
		p++;
		p[strcspn(p, " \t\r\n")] = '\0';
		found = strcmp(p, fp) == 0;
	}
	fclose(f);
	return found;
}
