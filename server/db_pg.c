/* SPDX-License-Identifier: MIT */
/* db_pg: db.h's driver for PostgreSQL through libpq, the store a cluster's nodes share. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

#if WW_HAVE_POSTGRES

#include <libpq-fe.h>

const int db_pg_built = 1;

struct pg {
	struct db base;
	PGconn *h;
	char msg[256]; /* the last failure, one line */
};

struct pg_stmt {
	struct db_stmt base;
	char *sql;                   /* ?N rewritten to $N */
	int n;                       /* parameters: the highest $N */
	bool used[DB_PARAMS];        /* $N appears in the SQL */
	char *val[DB_PARAMS];        /* text, or a blob's bytes (fmt 1); NULL: SQL NULL */
	int len[DB_PARAMS], fmt[DB_PARAMS];
	PGresult *res;               /* once run */
	int row;                     /* the current row of res */
	int64_t changes;
	unsigned char *blob;         /* the last column read as a blob, unescaped */
};

#define PG(db) ((struct pg *)(db))
#define PS(st) ((struct pg_stmt *)(st))

/* libpq's notices (CREATE TABLE IF NOT EXISTS's "skipping") would go to stderr: a server's
 * output is its log lines only. */
static void
quiet(void *arg, const char *message)
{
	(void)arg, (void)message;
}

/* The message as one line: libpq's end with a newline and may hold several. */
static void
say(struct pg *db, const char *what, const char *msg)
{
	size_t n;

	snprintf(db->msg, sizeof db->msg, "%s%s%s", what ? what : "", what ? ": " : "", msg && *msg ? msg : "failed");
	for (n = 0; db->msg[n]; n++)
		if (db->msg[n] == '\n' || db->msg[n] == '\r')
			db->msg[n] = ' ';
	while (n > 0 && db->msg[n - 1] == ' ')
		db->msg[--n] = '\0';
}

/* A failed result: its message, and whether the transaction may pass if run again. A lost
 * connection is one too: db_ready makes it again first. */
static int
failed(struct pg *db, PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	static const char *const again[] = {
		"40001", /* serialization_failure: another node's transaction touched the same rows */
		"40P01", /* deadlock_detected */
		"23505", /* unique_violation: another node inserted the same key, name or duel first */
	};

	if (PQstatus(db->h) != CONNECTION_OK) {
		say(db, "the connection to PostgreSQL is lost", PQerrorMessage(db->h));
		db->base.retryable = true;
		return DB_ERR;
	}
	say(db, NULL, res ? PQresultErrorMessage(res) : PQerrorMessage(db->h));
	for (size_t i = 0; state && i < sizeof again / sizeof again[0]; i++)
		if (strcmp(state, again[i]) == 0)
			db->base.retryable = true;
	return DB_ERR;
}

static void
pg_close(struct db *db)
{
	PQfinish(PG(db)->h);
	free(db);
}

static const char *
pg_errmsg(const struct db *db)
{
	return ((const struct pg *)db)->msg;
}

/* PQreset blocks for at most the connection's connect_timeout: on the store's thread only. */
static int
pg_ready(struct db *db)
{
	if (PQstatus(PG(db)->h) == CONNECTION_OK)
		return 0;
	PQreset(PG(db)->h);
	if (PQstatus(PG(db)->h) == CONNECTION_OK)
		return 0;
	say(PG(db), "PostgreSQL is unreachable", PQerrorMessage(PG(db)->h));
	return -1;
}

static int
pg_exec(struct db *db, const char *sql)
{
	PGresult *res = PQexec(PG(db)->h, sql);
	ExecStatusType s = PQresultStatus(res);
	int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? DB_DONE : failed(PG(db), res);

	PQclear(res);
	return rc;
}

static struct db_stmt *
pg_prepare(struct db *db, const char *sql)
{
	struct pg_stmt *st = calloc(1, sizeof *st);
	size_t o = 0;

	if (st == NULL || (st->sql = malloc(strlen(sql) + 1)) == NULL) {
		free(st);
		say(PG(db), NULL, "out of memory");
		return NULL;
	}
	st->base.db = db;
	/* ?N -> $N: the same length. Our SQL has no '?' in a literal. */
	for (const char *p = sql; *p; p++) {
		if (*p == '?') {
			char *end;
			long i = strtol(p + 1, &end, 10);
			if (end == p + 1 || i < 1 || i > DB_PARAMS) {
				say(PG(db), "a parameter that is not ?1 to ?16", sql);
				free(st->sql);
				free(st);
				return NULL;
			}
			st->used[i - 1] = true;
			if (i > st->n)
				st->n = (int)i;
			st->sql[o++] = '$';
			continue;
		}
		st->sql[o++] = *p;
	}
	st->sql[o] = '\0';
	return &st->base;
}

static void
put(struct db_stmt *st, int i, const void *v, size_t n, int fmt)
{
	struct pg_stmt *s = PS(st);

	if (i < 1 || i > DB_PARAMS)
		return;
	free(s->val[i - 1]);
	s->val[i - 1] = NULL;
	if (v && (s->val[i - 1] = malloc(n + 1)) != NULL) {
		memcpy(s->val[i - 1], v, n);
		s->val[i - 1][n] = '\0';
	}
	s->len[i - 1] = (int)n;
	s->fmt[i - 1] = fmt;
}

static void
pg_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	char b[24];
	put(st, i, b, (size_t)snprintf(b, sizeof b, "%lld", (long long)v), 0);
}

static void
pg_bind_double(struct db_stmt *st, int i, double v)
{
	char b[40];
	put(st, i, b, (size_t)snprintf(b, sizeof b, "%.17g", v), 0); /* 17 digits: the same double back */
}

static void pg_bind_text(struct db_stmt *st, int i, const char *v) { put(st, i, v, v ? strlen(v) : 0, 0); }
static void pg_bind_blob(struct db_stmt *st, int i, const void *v, size_t n) { put(st, i, v ? v : "", n, 1); }
static void pg_bind_null(struct db_stmt *st, int i) { put(st, i, NULL, 0, 0); }

static int
pg_step(struct db_stmt *st)
{
	struct pg_stmt *s = PS(st);

	if (s->res == NULL) {
		/* A parameter the SQL skips (a mute's row binds no ?1) has no type to infer: text. */
		Oid types[DB_PARAMS] = { 0 };
		for (int i = 0; i < s->n; i++)
			types[i] = s->used[i] ? 0 : 25 /* TEXTOID */;
		s->res = PQexecParams(PG(st->db)->h, s->sql, s->n, types, (const char *const *)s->val, s->len, s->fmt, 0);
		switch (PQresultStatus(s->res)) {
		case PGRES_COMMAND_OK:
			s->changes = strtoll(PQcmdTuples(s->res), NULL, 10);
			s->row = 0;
			return DB_DONE;
		case PGRES_TUPLES_OK:
			s->row = -1;
			break;
		default:
			return failed(PG(st->db), s->res);
		}
	}
	if (PQresultStatus(s->res) != PGRES_TUPLES_OK)
		return PQresultStatus(s->res) == PGRES_COMMAND_OK ? DB_DONE : DB_ERR;
	return ++s->row < PQntuples(s->res) ? DB_ROW : DB_DONE;
}

static const char *
cell(struct db_stmt *st, int c)
{
	struct pg_stmt *s = PS(st);

	if (s->res == NULL || s->row < 0 || s->row >= PQntuples(s->res) || c < 0 || c >= PQnfields(s->res) ||
	    PQgetisnull(s->res, s->row, c))
		return NULL;
	return PQgetvalue(s->res, s->row, c);
}

static int64_t
pg_col_int64(struct db_stmt *st, int c)
{
	const char *v = cell(st, c);
	return v ? strtoll(v, NULL, 10) : 0;
}

static double
pg_col_double(struct db_stmt *st, int c)
{
	const char *v = cell(st, c);
	return v ? strtod(v, NULL) : 0;
}

static const char *pg_col_text(struct db_stmt *st, int c) { return cell(st, c); }

/* bytea comes as text ("\x..." hex): unescaped into the statement's one buffer. */
static const void *
pg_col_blob(struct db_stmt *st, int c, size_t *n)
{
	const char *v = cell(st, c);

	*n = 0;
	PQfreemem(PS(st)->blob);
	PS(st)->blob = NULL;
	if (v == NULL || (PS(st)->blob = PQunescapeBytea((const unsigned char *)v, n)) == NULL)
		return NULL;
	return PS(st)->blob;
}

static int64_t pg_changes(struct db_stmt *st) { return PS(st)->changes; }

static void
pg_finalize(struct db_stmt *st)
{
	struct pg_stmt *s = PS(st);

	for (int i = 0; i < DB_PARAMS; i++)
		free(s->val[i]);
	PQclear(s->res);
	PQfreemem(s->blob);
	free(s->sql);
	free(s);
}

static int
pg_wait(struct db *db, int ms)
{
	char sql[48];

	snprintf(sql, sizeof sql, "SET lock_timeout = %d;", ms);
	return pg_exec(db, sql) == DB_DONE ? 0 : -1;
}

static const struct db_ops pg_ops = {
	.dialect = DB_PG,
	.close = pg_close,
	.errmsg = pg_errmsg,
	.ready = pg_ready,
	.wait = pg_wait,
	.exec = pg_exec,
	.prepare = pg_prepare,
	.bind_int64 = pg_bind_int64,
	.bind_double = pg_bind_double,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_null = pg_bind_null,
	.step = pg_step,
	.col_int64 = pg_col_int64,
	.col_double = pg_col_double,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.changes = pg_changes,
	.finalize = pg_finalize,
};

int
db__pg_open(const char *uri, struct db **out, char *why, size_t whylen)
{
	/* Our defaults first: the URI (expanded in dbname's place) overrides any it names. A
	 * connection, a lock and a dead peer each wait a bounded time, so a request fails with a
	 * reason rather than holding the store's queue: connect_timeout (s), lock_timeout and
	 * tcp_user_timeout (ms), keepalives for a link that went quiet. */
	static const char *const keys[] = { "connect_timeout", "keepalives", "keepalives_idle", "tcp_user_timeout",
		                            "application_name", "client_encoding", "options", "dbname", NULL };
	char busy[160], tcp[16], shown[512];
	const char *vals[sizeof keys / sizeof keys[0]];
	struct pg *db;

	snprintf(busy, sizeof busy, "-c lock_timeout=%d -c statement_timeout=%d -c bytea_output=hex -c TimeZone=UTC",
	         DB_BUSY_MS, 6 * DB_BUSY_MS);
	snprintf(tcp, sizeof tcp, "%d", 2 * DB_BUSY_MS);
	vals[0] = "5";
	vals[1] = "1";
	vals[2] = "10";
	vals[3] = tcp;
	vals[4] = "wizwar";
	vals[5] = "UTF8";
	vals[6] = busy;
	vals[7] = uri;
	vals[8] = NULL;
	db_describe(uri, shown, sizeof shown);
	if ((db = calloc(1, sizeof *db)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	db->base.ops = &pg_ops;
	db->h = PQconnectdbParams(keys, vals, 1);
	if (db->h == NULL || PQstatus(db->h) != CONNECTION_OK) {
		/* libpq's message names the host and the user, never the password. */
		say(db, NULL, db->h ? PQerrorMessage(db->h) : "out of memory");
		snprintf(why, whylen, "%s: %s", shown, db->msg);
		PQfinish(db->h);
		free(db);
		return -1;
	}
	PQsetNoticeProcessor(db->h, quiet, NULL);
	*out = &db->base;
	return 0;
}

#else

const int db_pg_built = 0;

int
db__pg_open(const char *uri, struct db **out, char *why, size_t whylen)
{
	(void)uri;
	*out = NULL;
	snprintf(why, whylen, "this wizwar was built without PostgreSQL (meson option postgres): --store postgresql:// "
	                      "cannot be used; a file (--store FILE) can");
	return -1;
}

#endif
