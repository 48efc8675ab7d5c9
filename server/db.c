/* SPDX-License-Identifier: MIT */
/* db: which driver a target names, a target without its password, and the calls handed to the driver. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "db_internal.h"

bool
db_is_pg(const char *target)
{
	return target && (strncasecmp(target, "postgresql://", 13) == 0 || strncasecmp(target, "postgres://", 11) == 0);
}

/* A URI's user information (scheme://user:password@host/...) keeps its user; the password goes.
 * Query parameters are dropped whole: one of them may be password=. */
void
db_describe(const char *target, char *out, size_t outlen)
{
	if (!db_is_pg(target)) {
		snprintf(out, outlen, "%s", target ? target : "");
		return;
	}
	const char *rest = strstr(target, "://") + 3;
	const char *end = rest + strcspn(rest, "/?#");
	const char *at = memchr(rest, '@', (size_t)(end - rest));
	const char *colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
	size_t scheme = (size_t)(rest - target);
	size_t q = strcspn(target, "?#");

	if (colon) /* user:password@host... -> user@host... */
		snprintf(out, outlen, "%.*s%.*s%.*s", (int)scheme, target, (int)(colon - rest), rest,
		         (int)(target + q - at), at);
	else
		snprintf(out, outlen, "%.*s", (int)q, target);
}

int
db_open(const char *target, struct db **out, char *why, size_t whylen)
{
	*out = NULL;
	return db_is_pg(target) ? db__pg_open(target, out, why, whylen) : db__sqlite_open(target, out, why, whylen);
}

void
db_close(struct db *db)
{
	if (db)
		db->ops->close(db);
}

int db_dialect(const struct db *db) { return db->ops->dialect; }
const char *db_errmsg(const struct db *db) { return db->ops->errmsg(db); }
int
db_ready(struct db *db)
{
	db->retryable = false;
	return db->ops->ready(db);
}
bool db_retryable(const struct db *db) { return db->retryable; }
int db_wait(struct db *db, int ms) { return db->ops->wait(db, ms); }

int
db_exec(struct db *db, const char *sql)
{
	return db->ops->exec(db, sql);
}

int
db_begin(struct db *db)
{
	db->retryable = false;
	return db->ops->exec(db, db->ops->dialect == DB_PG ? "BEGIN ISOLATION LEVEL READ COMMITTED;" : "BEGIN IMMEDIATE;");
}

int
db_lock(struct db *db, int64_t id)
{
	struct db_stmt *st;
	int rc;

	if (db->ops->dialect != DB_PG)
		return DB_DONE;
	if ((st = db->ops->prepare(db, "SELECT pg_advisory_xact_lock(?1);")) == NULL)
		return DB_ERR;
	db->ops->bind_int64(st, 1, id);
	rc = db->ops->step(st) == DB_ROW ? DB_DONE : DB_ERR;
	db->ops->finalize(st);
	return rc;
}

int
db_commit(struct db *db)
{
	return db->ops->exec(db, "COMMIT;");
}

/* The failure being rolled back keeps its message and its retryable flag. */
void
db_rollback(struct db *db)
{
	bool r = db->retryable;

	db->ops->exec(db, "ROLLBACK;");
	db->retryable = r;
}

struct db_stmt *db_prepare(struct db *db, const char *sql) { return db->ops->prepare(db, sql); }
void db_bind_int64(struct db_stmt *st, int i, int64_t v) { st->db->ops->bind_int64(st, i, v); }
void db_bind_double(struct db_stmt *st, int i, double v) { st->db->ops->bind_double(st, i, v); }
void db_bind_text(struct db_stmt *st, int i, const char *v) { st->db->ops->bind_text(st, i, v); }
void db_bind_blob(struct db_stmt *st, int i, const void *v, size_t n) { st->db->ops->bind_blob(st, i, v, n); }
void db_bind_null(struct db_stmt *st, int i) { st->db->ops->bind_null(st, i); }
int db_step(struct db_stmt *st) { return st->db->ops->step(st); }
int64_t db_col_int64(struct db_stmt *st, int c) { return st->db->ops->col_int64(st, c); }
double db_col_double(struct db_stmt *st, int c) { return st->db->ops->col_double(st, c); }
const char *db_col_text(struct db_stmt *st, int c) { return st->db->ops->col_text(st, c); }
const void *db_col_blob(struct db_stmt *st, int c, size_t *n) { return st->db->ops->col_blob(st, c, n); }
int64_t db_changes(struct db_stmt *st) { return st->db->ops->changes(st); }

void
db_finalize(struct db_stmt *st)
{
	if (st)
		st->db->ops->finalize(st);
}
