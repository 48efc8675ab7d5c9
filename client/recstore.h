/* SPDX-License-Identifier: MIT */
/* recstore: the signed rating records a client was given, kept per server (0600, bounded, strictly parsed) to check its history offline. */
#ifndef WW_RECSTORE_H
#define WW_RECSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rated.h"

/*
 * Every RATED a client receives, and every record `wizwar history` verified, is kept in
 * STATE/records/FP (STATE the state folder, FP the server's fingerprint), so that a player can
 * later check that the server's history still holds each record it was once given: a server
 * that drops or changes one is caught (docs/client.md, "Rating records"). The file is text:
 *
 *   wizwar-records-1 SERVERKEY        (the server's X25519 key, 64 lowercase hex digits)
 *   SIGNER RECORD                     (a line a record: the signer key A, 64 hex digits, then the
 *                                      signed record, 2 * RATED_SIGNED_LEN hex digits)
 *
 * in the order received. Loading is strict: a header for another key, a line of another length
 * or with other characters, a record that does not decode or does not verify against the
 * server's key, a duel twice, a file over RECSTORE_MAX lines, writable by others or not ours:
 * refused with the file, the line and why. A full file drops its oldest record for a new one.
 */
#define RECSTORE_MAX 10000
#define RECSTORE_MAGIC "wizwar-records-1"

struct recstore_entry {
	uint8_t signer[RATED_SIGNER_LEN];
	struct rated_rec rec;
};

struct recstore {
	uint8_t server_pk[32];
	size_t count;
	struct recstore_entry *e; /* count of them, oldest first (malloc'd) */
};

/* STATE/records/FP for this server's key. False when it does not fit. */
bool recstore_path(const char *state_dir, const uint8_t server_pk[32], char *buf, size_t len);
/* The file's records (no file: none). 0, or -1 with a reason naming the file and line. */
int recstore_load(const char *path, const uint8_t server_pk[32], struct recstore *rs, char *why, size_t whylen);
/* The same on a file's text (len bytes, from `path`, named in the reason): rs->server_pk set,
 * rs empty. 0, or -1 with a reason (rs then holds what came before the fault: free it). */
int recstore_parse(const char *path, const char *text, size_t len, struct recstore *rs, char *why, size_t whylen);
/* The server key a records file is for (its first line), whichever file it is: STATE/records
 * holds one a server, and `wizwar history` checks a duel it is given against the record of it
 * kept from any server. 0, or -1 with a reason (no such file, not a records file). */
int recstore_file_key(const char *path, uint8_t server_pk[32], char *why, size_t whylen);
/* The record's index, or -1: by its duel (the seed commitment). */
long recstore_find(const struct recstore *rs, const uint8_t commit[PROTO_COMMIT_LEN]);
/* Add a record (verified by the caller) unless its duel is there: 1 added, 0 there, -1 out of memory. */
int recstore_add(struct recstore *rs, const uint8_t signer[RATED_SIGNER_LEN], const struct rated_rec *r);
/* Write the whole file through a temporary one and rename, 0600 (the folders made 0700). 0 or -1 (why). */
int recstore_save(const char *path, const struct recstore *rs, char *why, size_t whylen);
void recstore_free(struct recstore *rs);
/* The file's lock (PATH.lock, flock): held from a load to its save by every writer. The
 * descriptor (close it to unlock), or -1 with a reason. */
int recstore_lock(const char *path, char *why, size_t whylen);
/* Load, add, save under the lock, in STATE/records (state_dir NULL: none, said): 1 kept, 0
 * already there, -1 with a reason. */
int recstore_keep(const char *state_dir, const uint8_t server_pk[32], const uint8_t signer[RATED_SIGNER_LEN],
                  const struct rated_rec *r, char *why, size_t whylen);

#endif
