/* SPDX-License-Identifier: MIT */
/* db: the thin database layer under the store: one API, two drivers (SQLite's file, PostgreSQL through libpq). */
#ifndef WW_DB_H
#define WW_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * server/store.c writes its logic once against this; db_sqlite.c and db_pg.c carry it out. A
 * `target` is a file path (SQLite), or a PostgreSQL URI (postgresql://... or postgres://...).
 * Every call blocks (a disk, a lock, a network round trip): only the store's own thread and
 * the offline commands call it, never the event loop. A connection is used by one thread.
 *
 * SQL is written with SQLite's numbered parameters, ?1 ?2 ...; the PostgreSQL driver rewrites
 * them to $1 $2 .... Where the dialects differ (DDL, a case-folded comparison) the caller
 * picks the text by db_dialect().
 */
enum db_dialect { DB_SQLITE = 0, DB_PG = 1, DB_DIALECTS };

enum db_rc {
	DB_DONE = 0,    /* the statement ran to its end */
	DB_ROW = 1,     /* a row is there to read */
	DB_ERR = -1,    /* failed: db_errmsg says why */
};

#define DB_PARAMS 16    /* the most parameters a statement binds */
#define DB_BUSY_MS 5000 /* how long a statement waits for a lock (SQLite's busy timeout, PostgreSQL's lock_timeout) */

struct db;
struct db_stmt;

/* 1 when built with the driver (meson features `sqlite`, `postgres`). */
extern const int db_sqlite_built, db_pg_built;

/* Whether `target` names a PostgreSQL database rather than a file. */
bool db_is_pg(const char *target);
/* `target` as logs and messages may show it: a URI without its password (never written out). */
void db_describe(const char *target, char *out, size_t outlen);

/* Open: a file (made 0600 first, WAL) or a connection (its settings in db_pg.c). 0, or -1 with a
 * reason (which never holds a password). */
int db_open(const char *target, struct db **out, char *why, size_t whylen);
void db_close(struct db *db); /* NULL: nothing */
int db_dialect(const struct db *db);
const char *db_errmsg(const struct db *db);

/* Before each request: the retryable flag cleared, and the connection usable, or made again (PostgreSQL: a lost server, a restart; bounded by
 * its connect timeout). 0, or -1 with db_errmsg. SQLite: always 0. */
int db_ready(struct db *db);
/* How long the statements from now on wait for a lock (DB_BUSY_MS when opened): SQLite's busy
 * timeout, PostgreSQL's lock_timeout (a round trip; a connection made again has DB_BUSY_MS).
 * 0, or -1 with db_errmsg. */
int db_wait(struct db *db, int ms);
/* The last failure was one that the same transaction, run again from its start, may not meet
 * (PostgreSQL: a serialization failure, a deadlock, a unique violation by a concurrent
 * transaction). Cleared by db_ready and db_begin. */
bool db_retryable(const struct db *db);

/* Statements without parameters or rows (DDL, several separated by ';'). DB_DONE or DB_ERR. */
int db_exec(struct db *db, const char *sql);
/* A write transaction: SQLite's BEGIN IMMEDIATE (the file's write lock at once: one writer at a
 * time), PostgreSQL's READ COMMITTED (each statement sees what others committed before it; a
 * unique index makes a concurrent insert wait for the other's end). */
int db_begin(struct db *db);
/* Inside a transaction: until it ends, no other connection's transaction holds the same `id`
 * (PostgreSQL's pg_advisory_xact_lock; SQLite: nothing, BEGIN IMMEDIATE holds the whole file).
 * Ids taken in ascending order never deadlock. DB_DONE or DB_ERR. */
int db_lock(struct db *db, int64_t id);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/* A statement and its parameters (1-based, as in the SQL). Values are copied or must live until
 * the first db_step. NULL: failed (db_errmsg). */
struct db_stmt *db_prepare(struct db *db, const char *sql);
void db_bind_int64(struct db_stmt *st, int i, int64_t v);
void db_bind_double(struct db_stmt *st, int i, double v);
void db_bind_text(struct db_stmt *st, int i, const char *v);
void db_bind_blob(struct db_stmt *st, int i, const void *v, size_t n);
void db_bind_null(struct db_stmt *st, int i);
/* DB_ROW, DB_DONE or DB_ERR. */
int db_step(struct db_stmt *st);
/* The current row's columns (0-based); valid until the next step. NULL text or blob: SQL NULL. */
int64_t db_col_int64(struct db_stmt *st, int c);
double db_col_double(struct db_stmt *st, int c);
const char *db_col_text(struct db_stmt *st, int c);
const void *db_col_blob(struct db_stmt *st, int c, size_t *n);
/* Rows the last statement that wrote changed. */
int64_t db_changes(struct db_stmt *st);
void db_finalize(struct db_stmt *st); /* NULL: nothing */

#endif
