/* SPDX-License-Identifier: MIT */
/* known: the servers this user has met and their key fingerprints (trust on first use, as OpenSSH's known_hosts). */
#ifndef WW_KNOWN_H
#define WW_KNOWN_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

enum known_result {
	KNOWN_MATCH = 0,   /* the file holds this name with this fingerprint */
	KNOWN_NEW = 1,     /* first contact: the pair was added */
	KNOWN_CHANGED = 2, /* the file holds another fingerprint for this name: refuse */
	KNOWN_ERROR = -1,  /* the file cannot be read or written (why says) */
};

/*
 * The file: one server a line, "NAME FINGERPRINT", NAME being "host:port" as typed
 * ("[v6]:port" for an IPv6 address); '#' lines are comments. Check `fp` for
 * `name`: on first contact add the line (the file is made 0600). *line is the line
 * number of a changed entry. With `replace`, a different entry is rewritten to fp
 * instead (the user gave the new fingerprint on purpose) and KNOWN_MATCH returned.
 */
WW_COLD int known_check(const char *path, const char *name, const char *fp, bool replace, char *old_fp, size_t old_len,
                int *line, char *why, size_t whylen);

/* The fingerprint the file holds for `name` into fp (AUTH_FP_LEN + 1 bytes or more): true when
 * there is one; false when there is none or the file cannot be read. */
WW_COLD bool known_find(const char *path, const char *name, char *fp, size_t len);
/* Whether any line of the file holds `fp`, whatever its name: a server this user met and pinned
 * (`wizwar history` trusts the records such a server signed). False when none or unreadable. */
WW_COLD bool known_has_fp(const char *path, const char *fp);

#endif
