/* SPDX-License-Identifier: MIT */
/* store: SQLite behind a queue and one thread: the schema's migrations, name claims, the offline tools. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

#if WW_HAVE_SQLITE

#include <sqlite3.h>

const int store_built = 1;

/*
 * The schema, as ordered steps: step N brings a file at version N-1 to version N, in one
 * transaction with its row in schema_version, so a file is always at some whole version. A
 * step is never edited once released: a change is a new step. Later work (ratings, results,
 * bans) appends its tables here.
 */
static const struct migration {
	const char *what;
	const char *sql;
} migrations[] = {
	{ "keys: every client key that proved itself here",
	  "CREATE TABLE keys ("
	  " key BLOB PRIMARY KEY CHECK (length(key) = 32)," /* the Ed25519 public key */
	  " first_seen INTEGER NOT NULL,"                   /* Unix seconds */
	  " last_seen INTEGER NOT NULL"
	  ") WITHOUT ROWID;" },
	{ "names: each owned by the first key that used it",
	  "CREATE TABLE names ("
	  " name TEXT PRIMARY KEY COLLATE NOCASE," /* as first claimed; ASCII case does not make another name */
	  " key BLOB NOT NULL REFERENCES keys (key),"
	  " claimed INTEGER NOT NULL,"
	  " last_used INTEGER NOT NULL"
	  ");"
	  "CREATE INDEX names_by_key ON names (key);" },
	/* Step 3 is the rating branch's (ratings and results); this placeholder keeps the numbers
	 * of the steps after it, and is replaced by that step when the branches are merged. */
	{ "reserved: ratings (step 3)", "SELECT 1;" },
	{ "bans and mutes: an operator's, by key fingerprint, name or address range (wizwar admin)",
	  "CREATE TABLE bans ("
	  " kind TEXT NOT NULL CHECK (kind IN ('key', 'name', 'addr')),"
	  " target TEXT NOT NULL COLLATE NOCASE," /* a fingerprint, a name, a CIDR as `bans` prints it */
	  " created INTEGER NOT NULL,"            /* Unix seconds */
	  " expires INTEGER,"                     /* Unix seconds; NULL: never */
	  " reason TEXT NOT NULL DEFAULT '',"
	  " PRIMARY KEY (kind, target)"
	  ");"
	  "CREATE TABLE mutes ("
	  " fingerprint TEXT PRIMARY KEY COLLATE NOCASE,"
	  " created INTEGER NOT NULL,"
	  " expires INTEGER"
	  ");" },
};
#define NEWEST ((int)(sizeof migrations / sizeof migrations[0]))

int
store_schema_newest(void)
{
	return NEWEST;
}

enum store_op {
	OP_CLAIM,     /* key, name */
	OP_BAN_PUT,   /* ban: recorded, or its row replaced */
	OP_BAN_DEL,   /* ban.kind, ban.target */
	OP_FREE_NAME, /* name */
};

struct store_req {
	struct store_req *next;
	int op;                     /* enum store_op */
	store_claim_cb cb;          /* loop thread only; NULL once cancelled */
	void *ud;
	uint8_t key[PROTO_IDENT_KEY_LEN];
	char name[PROTO_NAME_BYTES + 1];
	struct ban ban;
	int result;                 /* the worker's answer */
};

struct store {
	uv_loop_t *loop;
	uv_async_t async;           /* the worker says "answers are ready" */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;                /* the worker's only, once it runs */
	struct store_req *todo, **todo_tail; /* under mu */
	struct store_req *done;     /* under mu: answered, for the loop */
	bool stop;                  /* under mu */
	unsigned pending;           /* loop thread: asked and not yet answered */
	void (*close_cb)(void *);
	void *close_ud;
};

static int64_t
now_s(void)
{
	return (int64_t)time(NULL);
}

static int
fail(sqlite3 *db, char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

/* The file opened, 0600 when made, with the settings every connection uses. */
static int
db_open(const char *path, sqlite3 **out, char *why, size_t whylen)
{
	sqlite3 *db = NULL;
	int fd;

	/* Made by us first, so that SQLite never creates it with the umask's mode: it holds which
	 * key played under which name, which is nobody else's business on this machine. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		fail(db, why, whylen, path);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, STORE_BUSY_MS);
	sqlite3_extended_result_codes(db, 1);
	/* WAL: readers (sqlite3 FILE, an operator's query) never stop the server's writes, nor it
	 * theirs; synchronous=NORMAL in WAL loses no committed transaction to a killed process,
	 * only to a power cut the last few, which names can afford. */
	if (sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		fail(db, why, whylen, path);
		sqlite3_close(db);
		return -1;
	}
	*out = db;
	return 0;
}

static int
version_of(sqlite3 *db, int *version)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_exec(db,
	                 "CREATE TABLE IF NOT EXISTS schema_version ("
	                 " version INTEGER PRIMARY KEY, applied INTEGER NOT NULL, what TEXT NOT NULL);",
	                 NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(version), 0) FROM schema_version;", -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Bring the file to `to`, one step and one transaction at a time. */
static int
migrate(sqlite3 *db, const char *path, int to, char *why, size_t whylen)
{
	int v;

	if (version_of(db, &v) != 0)
		return fail(db, why, whylen, path);
	if (v > NEWEST) {
		snprintf(why, whylen, "%s has schema version %d, newer than this wizwar's %d: use a newer wizwar", path, v,
		         NEWEST);
		return -1;
	}
	for (; v < to; v++) {
		sqlite3_stmt *st = NULL;
		bool ok = sqlite3_exec(db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) == SQLITE_OK;
		ok = ok && sqlite3_exec(db, migrations[v].sql, NULL, NULL, NULL) == SQLITE_OK;
		ok = ok && sqlite3_prepare_v2(db, "INSERT INTO schema_version (version, applied, what) VALUES (?, ?, ?);", -1,
		                              &st, NULL) == SQLITE_OK;
		if (ok) {
			sqlite3_bind_int(st, 1, v + 1);
			sqlite3_bind_int64(st, 2, now_s());
			sqlite3_bind_text(st, 3, migrations[v].what, -1, SQLITE_STATIC);
			ok = sqlite3_step(st) == SQLITE_DONE;
		}
		sqlite3_finalize(st);
		ok = ok && sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL) == SQLITE_OK;
		if (!ok) {
			char what[96];
			snprintf(what, sizeof what, "%s: migration to schema version %d", path, v + 1);
			fail(db, why, whylen, what);
			sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
			return -1;
		}
	}
	return 0;
}

/* The claim, in one transaction: the key is recorded (or seen again), then the name is its own
 * if nobody has it, or already its own; else taken. */
static int
claim(sqlite3 *db, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name)
{
	sqlite3_stmt *st = NULL;
	int64_t now = now_s();
	int result = STORE_FAILED, rc;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK)
		return STORE_FAILED;
	if (sqlite3_prepare_v2(db,
	                       "INSERT INTO keys (key, first_seen, last_seen) VALUES (?1, ?2, ?2)"
	                       " ON CONFLICT (key) DO UPDATE SET last_seen = excluded.last_seen;",
	                       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_blob(st, 1, key, PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	/* INSERT OR IGNORE: the name becomes this key's only if nobody has it (NOCASE), then one
	 * read says whose it is. */
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO names (name, key, claimed, last_used) VALUES (?1, ?2, ?3, ?3);",
	                       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, key, PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "UPDATE names SET last_used = ?3 WHERE name = ?1 AND key = ?2;", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, key, PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	result = sqlite3_changes(db) == 1 ? STORE_OK : STORE_TAKEN;
out:
	sqlite3_finalize(st);
	rc = sqlite3_exec(db, result == STORE_FAILED ? "ROLLBACK;" : "COMMIT;", NULL, NULL, NULL);
	if (rc != SQLITE_OK && result != STORE_FAILED) {
		sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
		result = STORE_FAILED;
	}
	return result;
}

/* An operator's decision, one statement (its own transaction). The SQL a kind's: a row of
 * `bans`, or of `mutes`. */
static int
moderate(sqlite3 *db, const struct store_req *q)
{
	static const char *const sql[2][2] = {
		{ "INSERT OR REPLACE INTO bans (kind, target, created, expires, reason) VALUES (?1, ?2, ?3, ?4, ?5);",
		  "DELETE FROM bans WHERE kind = ?1 AND target = ?2;" },
		{ "INSERT OR REPLACE INTO mutes (fingerprint, created, expires) VALUES (?2, ?3, ?4);",
		  "DELETE FROM mutes WHERE fingerprint = ?2;" },
	};
	static const char *const kind[BAN_KINDS] = { [BAN_KEY] = "key", [BAN_NAME] = "name", [BAN_ADDR] = "addr" };
	const struct ban *b = &q->ban;
	sqlite3_stmt *st = NULL;
	int rc = STORE_FAILED;
	const char *text = q->op == OP_FREE_NAME ? "DELETE FROM names WHERE name = ?1;"
	                                         : sql[b->kind == BAN_MUTE][q->op == OP_BAN_DEL];

	if (sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK)
		return STORE_FAILED;
	if (q->op == OP_FREE_NAME) {
		sqlite3_bind_text(st, 1, q->name, -1, SQLITE_STATIC);
	} else {
		if (b->kind != BAN_MUTE)
			sqlite3_bind_text(st, 1, kind[b->kind], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, b->target, -1, SQLITE_STATIC);
		if (q->op == OP_BAN_PUT) {
			sqlite3_bind_int64(st, 3, b->created);
			if (b->expires)
				sqlite3_bind_int64(st, 4, b->expires);
			else
				sqlite3_bind_null(st, 4);
			if (b->kind != BAN_MUTE)
				sqlite3_bind_text(st, 5, b->reason, -1, SQLITE_STATIC);
		}
	}
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = sqlite3_changes(db) > 0 ? STORE_OK : STORE_TAKEN; /* TAKEN: nothing was there */
	sqlite3_finalize(st);
	return rc;
}

static void *
worker(void *arg)
{
	struct store *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->todo == NULL && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->todo == NULL)
			break;
		struct store_req *q = s->todo;
		s->todo = q->next;
		if (s->todo == NULL)
			s->todo_tail = &s->todo;
		bool stopping = s->stop;
		pthread_mutex_unlock(&s->mu);
		/* Once stopping, a claim is dropped (its connection is gone), but an operator's ban,
		 * mute or freed name, answered "ok" already, is still written. */
		if (q->op == OP_CLAIM)
			q->result = stopping ? STORE_FAILED : claim(s->db, q->key, q->name);
		else
			q->result = moderate(s->db, q);
		pthread_mutex_lock(&s->mu);
		q->next = s->done;
		s->done = q;
		uv_async_send(&s->async);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* On the loop: the answers, oldest first. */
static void
on_answers(uv_async_t *a)
{
	struct store *s = a->data;
	struct store_req *q, *rev = NULL;

	pthread_mutex_lock(&s->mu);
	q = s->done;
	s->done = NULL;
	pthread_mutex_unlock(&s->mu);
	while (q) { /* the list is newest first */
		struct store_req *n = q->next;
		q->next = rev;
		rev = q;
		q = n;
	}
	while (rev) {
		struct store_req *n = rev->next;
		s->pending--;
		if (rev->cb)
			rev->cb(rev->ud, rev->result);
		free(rev);
		rev = n;
	}
}

static void
on_closed(uv_handle_t *h)
{
	struct store *s = h->data;
	void (*cb)(void *) = s->close_cb;
	void *ud = s->close_ud;

	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
	if (cb)
		cb(ud);
}

static int load_bans(sqlite3 *db, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud,
                     char *why, size_t whylen);

int
store_open(uv_loop_t *loop, const char *path, struct store **out, char *why, size_t whylen)
{
	return store_open_bans(loop, path, 0, NULL, NULL, out, why, whylen);
}

int
store_open_bans(uv_loop_t *loop, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud,
                struct store **out, char *why, size_t whylen)
{
	struct store *s;

	*out = NULL;
	if ((s = calloc(1, sizeof *s)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (db_open(path, &s->db, why, whylen) != 0 || migrate(s->db, path, NEWEST, why, whylen) != 0 ||
	    (cb && load_bans(s->db, path, now, cb, ud, why, whylen) != 0)) {
		sqlite3_close(s->db);
		free(s);
		return -1;
	}
	s->loop = loop;
	s->todo_tail = &s->todo;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	uv_async_init(loop, &s->async, on_answers);
	s->async.data = s;
	if (pthread_create(&s->thread, NULL, worker, s) != 0) {
		snprintf(why, whylen, "cannot start the store's thread");
		sqlite3_close(s->db);
		s->db = NULL;
		uv_close((uv_handle_t *)&s->async, on_closed); /* frees s; no callback is set */
		return -1;
	}
	*out = s;
	return 0;
}

void
store_close(struct store *s, void (*cb)(void *ud), void *ud)
{
	struct store_req *q;

	if (s == NULL) {
		if (cb)
			cb(ud);
		return;
	}
	s->close_cb = cb;
	s->close_ud = ud;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	/* The worker ends once its queue is empty: claims are dropped unworked, an operator's
	 * writes (a handful, each one statement) are done; each waits STORE_BUSY_MS at worst. */
	pthread_join(s->thread, NULL);
	sqlite3_close(s->db);
	for (int i = 0; i < 2; i++) {
		q = i == 0 ? s->todo : s->done;
		while (q) {
			struct store_req *n = q->next;
			free(q);
			q = n;
		}
	}
	s->todo = s->done = NULL;
	uv_close((uv_handle_t *)&s->async, on_closed);
}

static struct store_req *
req_new(int op, store_claim_cb cb, void *ud)
{
	struct store_req *q = calloc(1, sizeof *q);

	if (q) {
		q->op = op;
		q->cb = cb;
		q->ud = ud;
	}
	return q;
}

static void
enqueue(struct store *s, struct store_req *q)
{
	pthread_mutex_lock(&s->mu);
	*s->todo_tail = q;
	s->todo_tail = &q->next;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	s->pending++;
}

struct store_req *
store_ban_put(struct store *s, const struct ban *b, store_claim_cb cb, void *ud)
{
	struct store_req *q = req_new(OP_BAN_PUT, cb, ud);

	if (q) {
		q->ban = *b;
		enqueue(s, q);
	}
	return q;
}

struct store_req *
store_ban_del(struct store *s, int kind, const char *target, store_claim_cb cb, void *ud)
{
	struct store_req *q = req_new(OP_BAN_DEL, cb, ud);

	if (q) {
		q->ban.kind = (uint8_t)kind;
		snprintf(q->ban.target, sizeof q->ban.target, "%s", target);
		enqueue(s, q);
	}
	return q;
}

struct store_req *
store_free_name_async(struct store *s, const char *name, store_claim_cb cb, void *ud)
{
	struct store_req *q = req_new(OP_FREE_NAME, cb, ud);

	if (q) {
		snprintf(q->name, sizeof q->name, "%s", name);
		enqueue(s, q);
	}
	return q;
}

/* At the start: every ban and mute in force, each given to cb; those expired are deleted. On
 * the worker's own connection before its thread runs (store_open_bans): a second connection of
 * this process would open and close the file, and a close() of any descriptor drops every
 * POSIX lock this process holds on it, the worker connection's too (another process could
 * then take the file as unused and remove the WAL under it). */
static int
load_bans(sqlite3 *db, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud, char *why,
          size_t whylen)
{
	static const char *const kinds[] = { [BAN_KEY] = "key", [BAN_NAME] = "name", [BAN_ADDR] = "addr" };
	sqlite3_stmt *st = NULL;
	int rc = -1, step = SQLITE_DONE;
	bool said = false;

	if (sqlite3_prepare_v2(db, "DELETE FROM bans WHERE expires IS NOT NULL AND expires <= ?1;", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "DELETE FROM mutes WHERE expires IS NOT NULL AND expires <= ?1;", -1, &st, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, now);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
	                       "SELECT kind, target, created, coalesce(expires, 0), reason FROM bans"
	                       " UNION ALL SELECT 'mute', fingerprint, created, coalesce(expires, 0), '' FROM mutes"
	                       " ORDER BY 3;",
	                       -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0), *t = (const char *)sqlite3_column_text(st, 1);
		const char *r = (const char *)sqlite3_column_text(st, 4);
		struct ban b = { .created = sqlite3_column_int64(st, 2), .expires = sqlite3_column_int64(st, 3) };
		int kind = BAN_MUTE;
		char bad[BAN_REASON_MAX + 1];
		for (int i = 0; i < BAN_MUTE; i++)
			if (k && strcmp(k, kinds[i]) == 0)
				kind = i;
		/* A row is checked as a command's argument is: the file is the operator's, and
		 * `sqlite3 FILE` may have written anything into it. */
		if (t == NULL || strlen(t) > BAN_TARGET_MAX || !ban_target(kind, t, &b, bad, sizeof bad)) {
			snprintf(why, whylen, "%s: a row of %s whose target is not one ('%.40s')", path,
			         kind == BAN_MUTE ? "mutes" : k ? k : "?", t ? t : "");
			said = true;
			goto out;
		}
		ban_reason_sanitise(b.reason, sizeof b.reason, r ? r : "");
		if (cb(ud, &b) != 0) {
			snprintf(why, whylen, "%s: more than %d bans and mutes, or out of memory", path, BAN_MAX);
			said = true;
			goto out;
		}
	}
	if (step == SQLITE_DONE)
		rc = 0;
out:
	if (rc != 0 && !said)
		fail(db, why, whylen, path);
	sqlite3_finalize(st);
	return rc;
}

struct store_req *
store_claim_name(struct store *s, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, store_claim_cb cb,
                 void *ud)
{
	struct store_req *q = req_new(OP_CLAIM, cb, ud);

	if (q == NULL)
		return NULL;
	memcpy(q->key, key, PROTO_IDENT_KEY_LEN);
	snprintf(q->name, sizeof q->name, "%s", name);
	pthread_mutex_lock(&s->mu);
	*s->todo_tail = q;
	s->todo_tail = &q->next;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	s->pending++;
	return q;
}

void
store_cancel(struct store_req *q)
{
	if (q)
		q->cb = NULL;
}

unsigned
store_pending(const struct store *s)
{
	return s ? s->pending : 0;
}

/* ---- offline ---- */

static int
offline_open(const char *path, sqlite3 **db, char *why, size_t whylen)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (db_open(path, db, why, whylen) != 0)
		return -1;
	if (migrate(*db, path, NEWEST, why, whylen) != 0) {
		sqlite3_close(*db);
		return -1;
	}
	return 0;
}

int
store_free_name(const char *path, const char *name, bool *freed, char *why, size_t whylen)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	*freed = false;
	if (offline_open(path, &db, why, whylen) != 0)
		return -1;
	if (sqlite3_prepare_v2(db, "DELETE FROM names WHERE name = ?1;", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_DONE) {
			*freed = sqlite3_changes(db) > 0;
			rc = 0;
		}
	}
	if (rc != 0)
		fail(db, why, whylen, path);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int
store_name_owner(const char *path, const char *name, bool *owned, uint8_t key[PROTO_IDENT_KEY_LEN], char *why,
                 size_t whylen)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	*owned = false;
	if (offline_open(path, &db, why, whylen) != 0)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT key FROM names WHERE name = ?1;", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		step = sqlite3_step(st);
		if (step == SQLITE_ROW && sqlite3_column_bytes(st, 0) == PROTO_IDENT_KEY_LEN) {
			memcpy(key, sqlite3_column_blob(st, 0), PROTO_IDENT_KEY_LEN);
			*owned = true;
			rc = 0;
		} else if (step == SQLITE_DONE) {
			rc = 0;
		}
	}
	if (rc != 0)
		fail(db, why, whylen, path);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int
store_schema_version(const char *path, int *version, char *why, size_t whylen)
{
	sqlite3 *db;
	int rc;

	if (db_open(path, &db, why, whylen) != 0)
		return -1;
	rc = version_of(db, version) == 0 ? 0 : fail(db, why, whylen, path);
	sqlite3_close(db);
	return rc;
}

int
store_migrate_to(const char *path, int version, char *why, size_t whylen)
{
	sqlite3 *db;
	int rc;

	if (version < 0 || version > NEWEST) {
		snprintf(why, whylen, "no schema version %d", version);
		return -1;
	}
	if (db_open(path, &db, why, whylen) != 0)
		return -1;
	rc = migrate(db, path, version, why, whylen);
	sqlite3_close(db);
	return rc;
}

#else /* !WW_HAVE_SQLITE: names are not owned; the server says so (docs/server.md) */

const int store_built = 0;

static int
not_built(char *why, size_t whylen)
{
	snprintf(why, whylen, "this wizwar was built without SQLite (meson option sqlite): no store, names are not owned");
	return -1;
}

int store_schema_newest(void) { return 0; }

int
store_open(uv_loop_t *loop, const char *path, struct store **out, char *why, size_t whylen)
{
	(void)loop;
	(void)path;
	*out = NULL;
	return not_built(why, whylen);
}

void
store_close(struct store *st, void (*cb)(void *ud), void *ud)
{
	(void)st;
	if (cb)
		cb(ud);
}

struct store_req *
store_claim_name(struct store *st, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, store_claim_cb cb,
                 void *ud)
{
	(void)st, (void)key, (void)name, (void)cb, (void)ud;
	return NULL;
}

void store_cancel(struct store_req *q) { (void)q; }

struct store_req *
store_ban_put(struct store *st, const struct ban *b, store_claim_cb cb, void *ud)
{
	(void)st, (void)b, (void)cb, (void)ud;
	return NULL;
}

struct store_req *
store_ban_del(struct store *st, int kind, const char *target, store_claim_cb cb, void *ud)
{
	(void)st, (void)kind, (void)target, (void)cb, (void)ud;
	return NULL;
}

struct store_req *
store_free_name_async(struct store *st, const char *name, store_claim_cb cb, void *ud)
{
	(void)st, (void)name, (void)cb, (void)ud;
	return NULL;
}

int
store_open_bans(uv_loop_t *loop, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud,
                struct store **out, char *why, size_t whylen)
{
	(void)loop, (void)path, (void)now, (void)cb, (void)ud;
	*out = NULL;
	return not_built(why, whylen);
}
unsigned store_pending(const struct store *st) { (void)st; return 0; }

int
store_free_name(const char *path, const char *name, bool *freed, char *why, size_t whylen)
{
	(void)path, (void)name;
	*freed = false;
	return not_built(why, whylen);
}

int
store_name_owner(const char *path, const char *name, bool *owned, uint8_t key[PROTO_IDENT_KEY_LEN], char *why,
                 size_t whylen)
{
	(void)path, (void)name, (void)key;
	*owned = false;
	return not_built(why, whylen);
}

int
store_schema_version(const char *path, int *version, char *why, size_t whylen)
{
	(void)path;
	*version = 0;
	return not_built(why, whylen);
}

int
store_migrate_to(const char *path, int version, char *why, size_t whylen)
{
	(void)path, (void)version;
	return not_built(why, whylen);
}

#endif
