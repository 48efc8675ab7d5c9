/* SPDX-License-Identifier: MIT */
/* srvkeys: a server's key files in its state folder: `server --rotate-key`, and the old key a rotation keeps. */
#ifndef WW_SRVKEYS_H
#define WW_SRVKEYS_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"

/* How long a rotation proves the new key with the old one by default, and at most (days). */
#define SRVKEYS_DAYS_DEFAULT 30
#define SRVKEYS_DAYS_MAX 3650

/*
 * STATE/server.key holds the key in force; during a rotation STATE/server.key.old holds the key
 * before it and when it is dropped (auth_old_key_load). `wizwar server --rotate-key` makes a new
 * key with the same password salt, keeps the old one for `days`, and says what to do next; it
 * refuses while an earlier rotation still runs (a client that pinned the key before would be
 * stranded). 0, or -1 said on stderr.
 */
WW_COLD int srvkeys_rotate(const char *dir, unsigned days);

/* The old key of a rotation still running, for the server: true and *kp, *until set. False when
 * there is none or it is over (an ended one's file is removed; `said` tells, as does a bad file). */
WW_COLD bool srvkeys_old(const char *dir, struct noise_keypair *kp, uint64_t *until, char *said, size_t saidlen);

/* "2026-12-28 02:31 UTC" */
void srvkeys_date(uint64_t t, char *buf, size_t len);

#endif
