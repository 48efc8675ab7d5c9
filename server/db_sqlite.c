/* SPDX-License-Identifier: MIT */
/* db_sqlite: db.h's driver for one SQLite file (WAL), the single node's store. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_internal.h"

#if WW_HAVE_SQLITE

#include <sqlite3.h>

const int db_sqlite_built = 1;

struct lite {
	struct db base;
	sqlite3 *h;
};

struct lite_stmt {
	struct db_stmt base;
	sqlite3_stmt *h;
	int64_t changes;
};

#define H(db) (((struct lite *)(db))->h)
#define S(st) (((struct lite_stmt *)(st))->h)

static void
lite_close(struct db *db)
{
	sqlite3_close(H(db));
	free(db);
}

static const char *
lite_errmsg(const struct db *db)
{
	return sqlite3_errmsg(((const struct lite *)db)->h);
}

static int
lite_ready(struct db *db)
{
	(void)db;
	return 0;
}

static int
lite_exec(struct db *db, const char *sql)
{
	return sqlite3_exec(H(db), sql, NULL, NULL, NULL) == SQLITE_OK ? DB_DONE : DB_ERR;
}

static struct db_stmt *
lite_prepare(struct db *db, const char *sql)
{
	struct lite_stmt *st = calloc(1, sizeof *st);

	if (st == NULL)
		return NULL;
	st->base.db = db;
	if (sqlite3_prepare_v2(H(db), sql, -1, &st->h, NULL) != SQLITE_OK) {
		free(st);
		return NULL;
	}
	return &st->base;
}

static void lite_bind_int64(struct db_stmt *st, int i, int64_t v) { sqlite3_bind_int64(S(st), i, v); }
static void lite_bind_double(struct db_stmt *st, int i, double v) { sqlite3_bind_double(S(st), i, v); }
static void lite_bind_text(struct db_stmt *st, int i, const char *v) { sqlite3_bind_text(S(st), i, v, -1, SQLITE_STATIC); }
static void lite_bind_null(struct db_stmt *st, int i) { sqlite3_bind_null(S(st), i); }

static void
lite_bind_blob(struct db_stmt *st, int i, const void *v, size_t n)
{
	sqlite3_bind_blob(S(st), i, v, (int)n, SQLITE_STATIC);
}

static int
lite_step(struct db_stmt *st)
{
	switch (sqlite3_step(S(st))) {
	case SQLITE_ROW:
		return DB_ROW;
	case SQLITE_DONE:
		((struct lite_stmt *)st)->changes = sqlite3_changes(H(st->db));
		return DB_DONE;
	default:
		return DB_ERR;
	}
}

static int64_t lite_col_int64(struct db_stmt *st, int c) { return sqlite3_column_int64(S(st), c); }
static double lite_col_double(struct db_stmt *st, int c) { return sqlite3_column_double(S(st), c); }
static const char *lite_col_text(struct db_stmt *st, int c) { return (const char *)sqlite3_column_text(S(st), c); }

static const void *
lite_col_blob(struct db_stmt *st, int c, size_t *n)
{
	const void *p = sqlite3_column_blob(S(st), c);

	*n = (size_t)sqlite3_column_bytes(S(st), c);
	return p;
}

static int64_t lite_changes(struct db_stmt *st) { return ((struct lite_stmt *)st)->changes; }

static void
lite_finalize(struct db_stmt *st)
{
	sqlite3_finalize(S(st));
	free(st);
}

static int
lite_wait(struct db *db, int ms)
{
	return sqlite3_busy_timeout(H(db), ms) == SQLITE_OK ? 0 : -1;
}

static const struct db_ops lite_ops = {
	.dialect = DB_SQLITE,
	.close = lite_close,
	.errmsg = lite_errmsg,
	.ready = lite_ready,
	.wait = lite_wait,
	.exec = lite_exec,
	.prepare = lite_prepare,
	.bind_int64 = lite_bind_int64,
	.bind_double = lite_bind_double,
	.bind_text = lite_bind_text,
	.bind_blob = lite_bind_blob,
	.bind_null = lite_bind_null,
	.step = lite_step,
	.col_int64 = lite_col_int64,
	.col_double = lite_col_double,
	.col_text = lite_col_text,
	.col_blob = lite_col_blob,
	.changes = lite_changes,
	.finalize = lite_finalize,
};

/* The file opened, 0600 when made, with the settings every connection uses. */
int
db__sqlite_open(const char *path, struct db **out, char *why, size_t whylen)
{
	struct lite *db;
	sqlite3 *h = NULL;
	int fd;

	/* Made by us first, so that SQLite never creates it with the umask's mode: it holds which
	 * key played under which name, which is nobody else's business on this machine. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(h, DB_BUSY_MS);
	sqlite3_extended_result_codes(h, 1);
	/* WAL: readers (sqlite3 FILE, an operator's query) never stop the server's writes, nor it
	 * theirs; synchronous=NORMAL in WAL loses no committed transaction to a killed process,
	 * only to a power cut the last few, which names can afford. */
	if (sqlite3_exec(h, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", NULL, NULL,
	                 NULL) != SQLITE_OK)
		goto fail;
	if ((db = calloc(1, sizeof *db)) == NULL) {
		snprintf(why, whylen, "out of memory");
		sqlite3_close(h);
		return -1;
	}
	db->base.ops = &lite_ops;
	db->h = h;
	*out = &db->base;
	return 0;
fail:
	snprintf(why, whylen, "%s: %s", path, h ? sqlite3_errmsg(h) : "out of memory");
	sqlite3_close(h);
	return -1;
}

#else

const int db_sqlite_built = 0;

int
db__sqlite_open(const char *path, struct db **out, char *why, size_t whylen)
{
	(void)path;
	*out = NULL;
	snprintf(why, whylen, "this wizwar was built without SQLite (meson option sqlite): no store file");
	return -1;
}

#endif
