/* SPDX-License-Identifier: MIT */
/* store: the server's database (SQLite, WAL): players' keys and the names they own, worked off the loop by one thread. */
#ifndef WW_STORE_H
#define WW_STORE_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "ban.h"
#include "proto.h"
#include "wire.h"

/*
 * One SQLite file in the server's state folder (docs/server.md, "The store"). Every statement
 * blocks (a disk, or another process holding the file's lock for up to STORE_BUSY_MS), so none
 * runs on the loop: a store owns one thread and one connection, takes requests in order from a
 * queue, and hands each answer back on the loop through a uv_async_t. Opening (and migrating)
 * blocks, once, before the server serves; the offline functions below are for commands that
 * run no loop (`wizwar server --free-name`).
 *
 * The schema has a version (the table schema_version, one row per step applied) and grows by
 * migrations: an ordered table of SQL steps in store.c, each applied in its own transaction.
 * Later features (ratings, results, bans) add their tables as further steps.
 */
#define STORE_BUSY_MS 5000 /* how long a statement waits for another holder of the file's lock */

/* 1 when built with SQLite or PostgreSQL (meson features `sqlite`, `postgres`), else 0: names are
 * then not owned. */
extern const int store_built;
/* A target's driver is built: true, or false with the reason (a URI without `postgres`, a file
 * without `sqlite`). A target is a file, or a PostgreSQL URI (postgresql://... or postgres://...). */
bool store_target_built(const char *target, char *why, size_t whylen);
bool store_target_is_pg(const char *target);
/* A target as a log line may show it: a URI without its password or its query parameters. */
void store_describe(const char *target, char *out, size_t outlen);

struct store;
struct store_req;

enum store_result {
	STORE_OK = 0,      /* done: the name is this key's (now, or already) */
	STORE_TAKEN = 1,   /* the name belongs to another key */
	STORE_FAILED = -1, /* the database failed (busy past STORE_BUSY_MS, a full disk): say so, own nothing */
};

/* Open or create the file (0600) and migrate it to the newest schema; `loop` gets the answers.
 * Blocks (run it at start). 0, or -1 with a reason (not built with SQLite, not a database, a
 * schema newer than this build's). */
WW_COLD int store_open(uv_loop_t *loop, const char *path, struct store **out, char *why, size_t whylen);
/* The same, and each ban and mute in force given to cb (non-zero stops the open: too many)
 * after those expired at `now` (Unix s) are deleted, on the store's connection before its
 * thread starts. -1 also for a row that is not a ban: refused whole, never half loaded. */
WW_COLD int store_open_bans(uv_loop_t *loop, const char *path, int64_t now,
                            int (*cb)(void *ud, const struct ban *b), void *ud, struct store **out, char *why,
                            size_t whylen);
/* Finish the request being worked (bounded by STORE_BUSY_MS), drop the rest unanswered, close
 * the file; cb(ud) once the last handle is closed and the store freed. */
void store_close(struct store *st, void (*cb)(void *ud), void *ud);

/* Claim `name` for `key`, first come first served (names compare without ASCII case), and read
 * the key's rating in the same transaction: cb(ud, result, rating) on the loop, `rating` the
 * key's row (or a new player's 1500 +- 500, `rated` false) whenever result is STORE_OK or
 * STORE_TAKEN. A NULL name claims nothing: the key is recorded and its rating read (QUICK pairs
 * by it before any name is asked for). The request lives until its answer; store_cancel (on the
 * loop, before the answer) means cb is never called. NULL: out of memory (nothing will be called). */
typedef void (*store_claim_cb)(void *ud, int result);
struct store_rating {
	double rating, deviation;
	bool rated; /* the key has a row: at least one rated duel here */
};
typedef void (*store_ident_cb)(void *ud, int result, const struct store_rating *r);
struct store_req *store_claim_name(struct store *st, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name,
                                   store_ident_cb cb, void *ud);
void store_cancel(struct store_req *q);

/* An operator's writes (`wizwar admin`), in order with the claims; cb(ud, result) on the loop
 * (may be NULL): STORE_OK done, STORE_TAKEN nothing was there to delete or free, STORE_FAILED.
 * Unlike a claim, each is still written when the store closes. NULL: out of memory. */
struct store_req *store_ban_put(struct store *st, const struct ban *b, store_claim_cb cb, void *ud);
struct store_req *store_ban_del(struct store *st, int kind, const char *target, store_claim_cb cb, void *ud);
struct store_req *store_free_name_async(struct store *st, const char *name, store_claim_cb cb, void *ud);

/* Why the request whose callback is running failed (STORE_FAILED): the database's message, for
 * the server's log (never a password); "" otherwise. Loop thread, during a callback only. */
#define STORE_WHY_BYTES 256
const char *store_why(const struct store *st);

/* Requests waiting or being worked (tests). */
unsigned store_pending(const struct store *st);

/* The server's X25519 secret key, which signs rated records (proto/rated.h); set once, after
 * store_open and before any request. Without it nothing is rated. It also queues, first, the
 * claim of the rows an older build stored without a signer (schema step 5) whose signature is
 * this key's: they get its signer key. */
void store_set_signer(struct store *st, const uint8_t x25519_sk[32]);

/*
 * A rated duel's end, recorded in one transaction (schema step 3): both ratings read (a new key
 * is 1500 +- 500), each widened by the rating periods since its own last rated duel (lichess's
 * 0.21436 a day), both updated (Glicko-2, server/glicko.h), the signed record and the new
 * ratings written. The duel's id is its seed commitment: a duel already recorded (a resumed
 * room's end, a log rated again at a restart) is not counted again; the answer is then the
 * record made the first time. cb(ud, result, msg): STORE_OK with a RATED message, or
 * STORE_FAILED (msg NULL). The same lifetime rules as store_claim_name.
 */
struct store_duel {
	int64_t time;                              /* Unix seconds of the end */
	uint8_t commit[PROTO_COMMIT_LEN];
	uint8_t key[PLAYERS][PROTO_IDENT_KEY_LEN];
	uint8_t result, reason;                    /* enum rated_result, enum end_reason */
};
typedef void (*store_answer_cb)(void *ud, int result, const struct wire_msg *m);
struct store_req *store_rate(struct store *st, const struct store_duel *d, store_answer_cb cb, void *ud);
/* A question (ASK) from the key `key`: its own signed records (RECORDS, each with the signer key
 * stored with it: the node that rated it), the ladder or a name's
 * row (LADDER). cb(ud, STORE_OK, the answer) or (ud, STORE_FAILED, NULL). */
struct store_req *store_ask(struct store *st, const uint8_t key[PROTO_IDENT_KEY_LEN], const struct wire_ask *a,
                            store_answer_cb cb, void *ud);
/* How many players of the ladder ASK_TOP shows: established ones, then provisional ones. */
#define STORE_TOP_ESTABLISHED 40
#define STORE_TOP_PROVISIONAL 20

/* Offline, on a file no loop holds open (or one a running server holds: SQLite's locks keep
 * both right). Free a name: *freed says whether it was owned. 0, or -1 with a reason. */
WW_COLD int store_free_name(const char *path, const char *name, bool *freed, char *why, size_t whylen);
/* Who owns a name: *owned, and its key. 0, or -1 with a reason. */
WW_COLD int store_name_owner(const char *path, const char *name, bool *owned, uint8_t key[PROTO_IDENT_KEY_LEN],
                             char *why, size_t whylen);
/* The schema version of a file (0: empty), and the newest this build knows. */
WW_COLD int store_schema_version(const char *path, int *version, char *why, size_t whylen);
int store_schema_newest(void);
/* Tests: create or migrate a file to `version` exactly (an older schema, to test the migrations). */
WW_COLD int store_migrate_to(const char *path, int version, char *why, size_t whylen);

#endif
