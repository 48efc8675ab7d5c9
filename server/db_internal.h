/* SPDX-License-Identifier: MIT */
/* db's drivers: the table of functions each fills in, behind db.h's one API (db.c dispatches). */
#ifndef WW_DB_INTERNAL_H
#define WW_DB_INTERNAL_H

#include "db.h"

struct db_ops {
	int dialect;
	void (*close)(struct db *db);
	const char *(*errmsg)(const struct db *db);
	int (*ready)(struct db *db);
	int (*wait)(struct db *db, int ms);
	int (*exec)(struct db *db, const char *sql);
	struct db_stmt *(*prepare)(struct db *db, const char *sql);
	void (*bind_int64)(struct db_stmt *st, int i, int64_t v);
	void (*bind_double)(struct db_stmt *st, int i, double v);
	void (*bind_text)(struct db_stmt *st, int i, const char *v);
	void (*bind_blob)(struct db_stmt *st, int i, const void *v, size_t n);
	void (*bind_null)(struct db_stmt *st, int i);
	int (*step)(struct db_stmt *st);
	int64_t (*col_int64)(struct db_stmt *st, int c);
	double (*col_double)(struct db_stmt *st, int c);
	const char *(*col_text)(struct db_stmt *st, int c);
	const void *(*col_blob)(struct db_stmt *st, int c, size_t *n);
	int64_t (*changes)(struct db_stmt *st);
	void (*finalize)(struct db_stmt *st);
};

/* Each driver's connection and statement begin with these. */
struct db {
	const struct db_ops *ops;
	bool retryable; /* the last failure may pass if its transaction runs again (db_retryable) */
};
struct db_stmt {
	struct db *db;
};

/* The drivers' openers: -1 with a reason when not built. */
int db__sqlite_open(const char *path, struct db **out, char *why, size_t whylen);
int db__pg_open(const char *uri, struct db **out, char *why, size_t whylen);

#endif
