/* SPDX-License-Identifier: MIT */
/* store: the database (db.h: SQLite or PostgreSQL) behind a queue and one thread: the schema's migrations, claims, ratings, bans, the offline tools. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "glicko.h"
#include "rated.h"
#include "store.h"

#include "db.h"

bool
store_target_is_pg(const char *target)
{
	return db_is_pg(target);
}

void
store_describe(const char *target, char *out, size_t outlen)
{
	db_describe(target, out, outlen);
}

bool
store_target_built(const char *target, char *why, size_t whylen)
{
	if (db_is_pg(target) ? db_pg_built : db_sqlite_built)
		return true;
	snprintf(why, whylen, db_is_pg(target) ? "this wizwar was built without PostgreSQL (meson option postgres): "
	                                         "--store postgresql://... cannot be used here"
	                                       : "this wizwar was built without SQLite (meson option sqlite): "
	                                         "no store file");
	return false;
}

#if WW_HAVE_SQLITE || WW_HAVE_POSTGRES

const int store_built = 1;

_Static_assert(STORE_BUSY_MS == DB_BUSY_MS, "the store's busy timeout is the db layer's");

/* A name, a ban's target, a mute's fingerprint compare without ASCII case, as SQLite's NOCASE
 * does: PostgreSQL's lower() under the "C" collation folds A-Z only, whatever the database's
 * locale, and each such column has a unique index on that expression. */
#define FOLD(x) "lower(CAST(" x " AS TEXT) COLLATE \"C\")"

/*
 * The schema, as ordered steps: step N brings a database at version N-1 to version N, in one
 * transaction with its row in schema_version, so a database is always at some whole version. A
 * step is never edited once released: a change is a new step. Each step has its text in both
 * dialects, numbered alike: the same tables, columns and constraints (BLOB is BYTEA, REAL is
 * DOUBLE PRECISION, INTEGER a BIGINT, the rowid an identity column, NOCASE a unique index on
 * FOLD()).
 */
static const struct migration {
	const char *what;
	const char *sql[DB_DIALECTS];
} migrations[] = {
	{ "keys: every client key that proved itself here",
	  { "CREATE TABLE keys ("
	    " key BLOB PRIMARY KEY CHECK (length(key) = 32)," /* the Ed25519 public key */
	    " first_seen INTEGER NOT NULL,"                   /* Unix seconds */
	    " last_seen INTEGER NOT NULL"
	    ") WITHOUT ROWID;",
	    "CREATE TABLE keys ("
	    " key BYTEA PRIMARY KEY CHECK (length(key) = 32),"
	    " first_seen BIGINT NOT NULL,"
	    " last_seen BIGINT NOT NULL"
	    ");" } },
	{ "names: each owned by the first key that used it",
	  { "CREATE TABLE names ("
	    " name TEXT PRIMARY KEY COLLATE NOCASE," /* as first claimed; ASCII case does not make another name */
	    " key BLOB NOT NULL REFERENCES keys (key),"
	    " claimed INTEGER NOT NULL,"
	    " last_used INTEGER NOT NULL"
	    ");"
	    "CREATE INDEX names_by_key ON names (key);",
	    "CREATE TABLE names ("
	    " name TEXT PRIMARY KEY,"
	    " key BYTEA NOT NULL REFERENCES keys (key),"
	    " claimed BIGINT NOT NULL,"
	    " last_used BIGINT NOT NULL"
	    ");"
	    /* First come across nodes: of two nodes inserting Ada and ADA at once, one waits on
	     * this index and then finds the other's row. */
	    "CREATE UNIQUE INDEX names_folded ON names (" FOLD("name") ");"
	    "CREATE INDEX names_by_key ON names (key);" } },
	{ "ratings and results: rated duels, each signed, and every rated key's Glicko-2 rating",
	  { "CREATE TABLE ratings ("
	    " key BLOB PRIMARY KEY REFERENCES keys (key),"
	    " rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL," /* after its last rated duel */
	    " games INTEGER NOT NULL, wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL,"
	    " last_rated INTEGER NOT NULL"                                             /* Unix seconds */
	    ") WITHOUT ROWID;"
	    "CREATE TABLE results ("
	    " seq INTEGER PRIMARY KEY,"                                  /* the order they were rated in */
	    " duel BLOB NOT NULL UNIQUE CHECK (length(duel) = 32),"      /* the seed commitment: the duel's id */
	    " time INTEGER NOT NULL,"
	    " key0 BLOB NOT NULL REFERENCES keys (key), key1 BLOB NOT NULL REFERENCES keys (key),"
	    " result INTEGER NOT NULL CHECK (result BETWEEN 0 AND 2),"   /* 0, 1: that seat won; 2: a draw */
	    " reason INTEGER NOT NULL,"                                  /* 1 killed, 2 resigned, 3 turn limit */
	    " record BLOB NOT NULL"                                      /* the signed record (proto/rated.h) */
	    ");"
	    "CREATE INDEX results_by_key0 ON results (key0, seq);"
	    "CREATE INDEX results_by_key1 ON results (key1, seq);"
	    "CREATE INDEX ratings_by_rating ON ratings (rating);",
	    "CREATE TABLE ratings ("
	    " key BYTEA PRIMARY KEY REFERENCES keys (key),"
	    " rating DOUBLE PRECISION NOT NULL, deviation DOUBLE PRECISION NOT NULL, volatility DOUBLE PRECISION NOT NULL,"
	    " games BIGINT NOT NULL, wins BIGINT NOT NULL, draws BIGINT NOT NULL, losses BIGINT NOT NULL,"
	    " last_rated BIGINT NOT NULL"
	    ");"
	    "CREATE TABLE results ("
	    " seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	    " duel BYTEA NOT NULL UNIQUE CHECK (length(duel) = 32),"
	    " time BIGINT NOT NULL,"
	    " key0 BYTEA NOT NULL REFERENCES keys (key), key1 BYTEA NOT NULL REFERENCES keys (key),"
	    " result INTEGER NOT NULL CHECK (result BETWEEN 0 AND 2),"
	    " reason INTEGER NOT NULL,"
	    " record BYTEA NOT NULL"
	    ");"
	    "CREATE INDEX results_by_key0 ON results (key0, seq);"
	    "CREATE INDEX results_by_key1 ON results (key1, seq);"
	    "CREATE INDEX ratings_by_rating ON ratings (rating);" } },
	{ "bans and mutes: an operator's, by key fingerprint, name or address range (wizwar admin)",
	  { "CREATE TABLE bans ("
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
	    ");",
	    "CREATE TABLE bans ("
	    " kind TEXT NOT NULL CHECK (kind IN ('key', 'name', 'addr')),"
	    " target TEXT NOT NULL,"
	    " created BIGINT NOT NULL,"
	    " expires BIGINT,"
	    " reason TEXT NOT NULL DEFAULT ''"
	    ");"
	    "CREATE UNIQUE INDEX bans_key ON bans (kind, " FOLD("target") ");"
	    "CREATE TABLE mutes ("
	    " fingerprint TEXT NOT NULL,"
	    " created BIGINT NOT NULL,"
	    " expires BIGINT"
	    ");"
	    "CREATE UNIQUE INDEX mutes_key ON mutes (" FOLD("fingerprint") ");" } },
	/* In a cluster on one store each node signs the duels it rates with its own key: a record
	 * is checked against its signer, not against the node asked. Rows of older builds have
	 * none (NULL): each node, when it starts, claims those whose signature is its own
	 * (adopt()); a row nobody claims goes out under the answering node's key, as before. */
	{ "signers: each rated duel's signer key (XEdDSA's A), the node that rated it",
	  { "ALTER TABLE results ADD COLUMN signer BLOB CHECK (signer IS NULL OR length(signer) = 32);",
	    "ALTER TABLE results ADD COLUMN signer BYTEA CHECK (signer IS NULL OR length(signer) = 32);" } },
};
#define NEWEST ((int)(sizeof migrations / sizeof migrations[0]))

/* The statements whose text differs by dialect: a case-folded comparison, an upsert's target. */
enum {
	SQL_NAME_TOUCH,  /* claim: the name's last use, if it is this key's */
	SQL_NAME_STATS,  /* ASK_STATS: a name's ladder row */
	SQL_NAME_FREE,
	SQL_NAME_OWNER,
	SQL_BAN_PUT,
	SQL_BAN_DEL,
	SQL_MUTE_PUT,
	SQL_MUTE_DEL,
	SQL_COUNT
};
static const char *const sql_text[SQL_COUNT][DB_DIALECTS] = {
	[SQL_NAME_TOUCH] = { "UPDATE names SET last_used = ?3 WHERE name = ?1 AND key = ?2;",
	                     "UPDATE names SET last_used = ?3 WHERE " FOLD("name") " = " FOLD("?1") " AND key = ?2;" },
	[SQL_NAME_STATS] = { "SELECT r.rating, r.deviation, r.games, r.wins, r.draws, n.name, r.key"
	                     " FROM names n JOIN ratings r ON r.key = n.key WHERE n.name = ?1;",
	                     "SELECT r.rating, r.deviation, r.games, r.wins, r.draws, n.name, r.key"
	                     " FROM names n JOIN ratings r ON r.key = n.key WHERE " FOLD("n.name") " = " FOLD("?1") ";" },
	[SQL_NAME_FREE] = { "DELETE FROM names WHERE name = ?1;",
	                    "DELETE FROM names WHERE " FOLD("name") " = " FOLD("?1") ";" },
	[SQL_NAME_OWNER] = { "SELECT key FROM names WHERE name = ?1;",
	                     "SELECT key FROM names WHERE " FOLD("name") " = " FOLD("?1") ";" },
	[SQL_BAN_PUT] = { "INSERT OR REPLACE INTO bans (kind, target, created, expires, reason) VALUES (?1, ?2, ?3, ?4, ?5);",
	                  "INSERT INTO bans (kind, target, created, expires, reason) VALUES (?1, ?2, ?3, ?4, ?5)"
	                  " ON CONFLICT (kind, (" FOLD("target") ")) DO UPDATE SET target = excluded.target,"
	                  " created = excluded.created, expires = excluded.expires, reason = excluded.reason;" },
	[SQL_BAN_DEL] = { "DELETE FROM bans WHERE kind = ?1 AND target = ?2;",
	                  "DELETE FROM bans WHERE kind = ?1 AND " FOLD("target") " = " FOLD("?2") ";" },
	[SQL_MUTE_PUT] = { "INSERT OR REPLACE INTO mutes (fingerprint, created, expires) VALUES (?2, ?3, ?4);",
	                   "INSERT INTO mutes (fingerprint, created, expires) VALUES (?2, ?3, ?4)"
	                   " ON CONFLICT ((" FOLD("fingerprint") ")) DO UPDATE SET fingerprint = excluded.fingerprint,"
	                   " created = excluded.created, expires = excluded.expires;" },
	[SQL_MUTE_DEL] = { "DELETE FROM mutes WHERE fingerprint = ?2;",
	                   "DELETE FROM mutes WHERE " FOLD("fingerprint") " = " FOLD("?2") ";" },
};

static struct db_stmt *
prepare(struct db *db, int which)
{
	return db_prepare(db, sql_text[which][db_dialect(db)]);
}

/* How often a request that met another node's transaction (a unique violation, a deadlock) or a
 * lost connection runs again before it fails: each run sees the other's commit. */
#define STORE_RETRIES 8

int
store_schema_newest(void)
{
	return NEWEST;
}

enum req_kind {
	REQ_CLAIM,     /* key, name */
	REQ_RATE,      /* duel */
	REQ_ASK,       /* key, ask */
	REQ_BAN_PUT,   /* ban: recorded, or its row replaced */
	REQ_BAN_DEL,   /* ban.kind, ban.target */
	REQ_FREE_NAME, /* name */
	REQ_ADOPT,     /* the rows without a signer that this node's key signed: given its signer */
};

struct store_req {
	struct store_req *next;
	int kind;                   /* enum req_kind */
	store_claim_cb cb;          /* loop thread only; all NULL once cancelled */
	store_answer_cb acb;
	store_ident_cb icb;         /* REQ_CLAIM */
	struct store_rating rating; /* REQ_CLAIM: the worker's answer */
	void *ud;
	uint8_t key[PROTO_IDENT_KEY_LEN];
	char name[PROTO_NAME_BYTES + 1];
	struct store_duel duel;     /* REQ_RATE */
	struct wire_ask ask;        /* REQ_ASK */
	struct wire_msg *ans;       /* REQ_RATE, REQ_ASK: the worker's answer (malloc'd), freed after acb */
	struct ban ban;             /* REQ_BAN_PUT, REQ_BAN_DEL */
	uint64_t asked;             /* uv_hrtime() when asked: a player's request has STORE_BUSY_MS from then */
	int result;                 /* the worker's answer */
	char why[STORE_WHY_BYTES];  /* the worker's: why it is STORE_FAILED */
};

struct store {
	uv_loop_t *loop;
	uv_async_t async;           /* the worker says "answers are ready" */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct db *db;              /* the worker's only, once it runs */
	struct store_req *todo, **todo_tail; /* under mu */
	struct store_req *done;     /* under mu: answered, for the loop */
	bool stop;                  /* under mu */
	unsigned pending;           /* loop thread: asked and not yet answered */
	const char *why;            /* loop thread: the failed answer being handed out (store_why) */
	void (*close_cb)(void *);
	void *close_ud;
	bool signer_set;            /* set before the first request; read by the worker only after */
	uint8_t signer_sk[32];
	uint8_t signer[RATED_SIGNER_LEN];
};

static int64_t
now_s(void)
{
	return (int64_t)time(NULL);
}

static int
fail(struct db *db, char *why, size_t whylen, const char *what)
{
	snprintf(why, whylen, "%s: %s", what, db ? db_errmsg(db) : "out of memory");
	return -1;
}

static int
version_of(struct db *db, int *version)
{
	struct db_stmt *st;
	int rc;

	if (db_exec(db, "CREATE TABLE IF NOT EXISTS schema_version ("
	                " version INTEGER PRIMARY KEY, applied BIGINT NOT NULL, what TEXT NOT NULL);") != DB_DONE)
		return -1;
	if ((st = db_prepare(db, "SELECT coalesce(max(version), 0) FROM schema_version;")) == NULL)
		return -1;
	rc = db_step(st);
	*version = rc == DB_ROW ? (int)db_col_int64(st, 0) : -1;
	db_finalize(st);
	return rc == DB_ROW ? 0 : -1;
}

/* Any number, so long as no other program locks it in the same database. */
#define PG_MIGRATE_LOCK "7714380213"

/* Bring the database to `to`, one step and one transaction at a time. Several nodes may start at
 * once against one PostgreSQL: a session advisory lock lets one migrate while the others wait,
 * and each step reads the version again inside its transaction (READ COMMITTED there, so the
 * read sees what the lock's last holder committed). */
static int
migrate(struct db *db, const char *path, int to, char *why, size_t whylen)
{
	bool pg = db_dialect(db) == DB_PG;
	int v, rc = 0;

	if (pg && db_exec(db, "SELECT pg_advisory_lock(" PG_MIGRATE_LOCK ");") != DB_DONE)
		return fail(db, why, whylen, path);
	if (version_of(db, &v) != 0) {
		rc = fail(db, why, whylen, path);
		goto out;
	}
	if (v > NEWEST) {
		snprintf(why, whylen, "%s has schema version %d, newer than this wizwar's %d: use a newer wizwar", path, v,
		         NEWEST);
		rc = -1;
		goto out;
	}
	for (; v < to; v++) {
		struct db_stmt *st = NULL;
		bool ok = db_exec(db, pg ? "BEGIN;" : "BEGIN IMMEDIATE;") == DB_DONE;
		ok = ok && db_exec(db, migrations[v].sql[db_dialect(db)]) == DB_DONE;
		ok = ok && (st = db_prepare(db, "INSERT INTO schema_version (version, applied, what) VALUES (?1, ?2, ?3);")) != NULL;
		if (ok) {
			db_bind_int64(st, 1, v + 1);
			db_bind_int64(st, 2, now_s());
			db_bind_text(st, 3, migrations[v].what);
			ok = db_step(st) == DB_DONE;
		}
		db_finalize(st);
		ok = ok && db_commit(db) == DB_DONE;
		if (!ok) {
			char what[600];
			snprintf(what, sizeof what, "%s: migration to schema version %d", path, v + 1);
			fail(db, why, whylen, what);
			db_rollback(db);
			rc = -1;
			goto out;
		}
	}
out:
	if (pg)
		db_exec(db, "SELECT pg_advisory_unlock(" PG_MIGRATE_LOCK ");");
	return rc;
}

/* The target opened (a file made 0600, or a connection) and, for a server or an offline command,
 * migrated to the newest schema; `shown` is the target without a password, for messages. */
static int
open_target(const char *target, struct db **out, char *why, size_t whylen)
{
	char shown[512];

	db_describe(target, shown, sizeof shown);
	if (db_open(target, out, why, whylen) != 0)
		return -1;
	if (migrate(*out, shown, NEWEST, why, whylen) != 0) {
		db_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static int rating_of(struct db *db, const uint8_t key[PROTO_IDENT_KEY_LEN], struct glicko *g, int64_t *last);

/* The end of a write transaction: COMMIT when it went well, else ROLLBACK (the failure kept). */
static int
finish(struct db *db, int result)
{
	if (result == STORE_FAILED) {
		db_rollback(db);
		return result;
	}
	if (db_commit(db) != DB_DONE) {
		db_rollback(db);
		return STORE_FAILED;
	}
	return result;
}

/* The claim, in one transaction: the key is recorded (or seen again), its rating read (what the
 * pool pairs it by and `rooms` shows), then the name is its own if nobody has it, or already its
 * own; else taken. No name: the key and its rating only. */
static int
claim(struct db *db, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, struct store_rating *out)
{
	struct glicko g;
	int64_t last;
	struct db_stmt *st = NULL;
	int64_t now = now_s();
	int result = STORE_FAILED;

	if (db_begin(db) != DB_DONE)
		return STORE_FAILED;
	if ((st = db_prepare(db, "INSERT INTO keys (key, first_seen, last_seen) VALUES (?1, ?2, ?2)"
	                         " ON CONFLICT (key) DO UPDATE SET last_seen = excluded.last_seen;")) == NULL)
		goto out;
	db_bind_blob(st, 1, key, PROTO_IDENT_KEY_LEN);
	db_bind_int64(st, 2, now);
	if (db_step(st) != DB_DONE)
		goto out;
	db_finalize(st);
	st = NULL;
	if (rating_of(db, key, &g, &last) != 0)
		goto out;
	*out = (struct store_rating){ g.rating, g.deviation, last > 0 };
	if (name == NULL) {
		result = STORE_OK;
		goto out;
	}
	/* ON CONFLICT DO NOTHING: the name becomes this key's only if nobody has it (without ASCII
	 * case), then one write says whose it is. */
	if ((st = db_prepare(db, "INSERT INTO names (name, key, claimed, last_used) VALUES (?1, ?2, ?3, ?3)"
	                         " ON CONFLICT DO NOTHING;")) == NULL)
		goto out;
	db_bind_text(st, 1, name);
	db_bind_blob(st, 2, key, PROTO_IDENT_KEY_LEN);
	db_bind_int64(st, 3, now);
	if (db_step(st) != DB_DONE)
		goto out;
	db_finalize(st);
	if ((st = prepare(db, SQL_NAME_TOUCH)) == NULL)
		goto out;
	db_bind_text(st, 1, name);
	db_bind_blob(st, 2, key, PROTO_IDENT_KEY_LEN);
	db_bind_int64(st, 3, now);
	if (db_step(st) != DB_DONE)
		goto out;
	result = db_changes(st) == 1 ? STORE_OK : STORE_TAKEN;
out:
	db_finalize(st);
	return finish(db, result);
}

/* ---- ratings (schema step 3) ---- */

static struct wire_msg *
answer(struct store_req *q, int type)
{
	if (q->ans == NULL && (q->ans = malloc(sizeof *q->ans)) == NULL)
		return NULL;
	memset(q->ans, 0, sizeof *q->ans);
	q->ans->type = (uint8_t)type;
	return q->ans;
}

/* A row's signer column into `out`: the key stored, or this node's for a row of an older build
 * that no node claimed (NULL). False for a column of another length (a hand-edited database:
 * the row is left out rather than sent under a key that cannot be its). */
static bool
signer_of(const struct store *s, struct db_stmt *st, int col, uint8_t out[RATED_SIGNER_LEN])
{
	size_t n = 0;
	const void *b = db_col_blob(st, col, &n);

	if (b == NULL) {
		memcpy(out, s->signer, RATED_SIGNER_LEN);
		return true;
	}
	if (n != RATED_SIGNER_LEN)
		return false;
	memcpy(out, b, RATED_SIGNER_LEN);
	return true;
}

/* A result already recorded for this duel: its record and its signer (a row of an older build
 * that no node claimed: this node's). 1 found, 0 not, -1 failed. */
static int
recorded(struct store *s, const uint8_t commit[PROTO_COMMIT_LEN], struct wire_rated *out)
{
	struct db_stmt *st;
	char why[96];
	int rc = -1, step;

	if ((st = db_prepare(s->db, "SELECT record, signer FROM results WHERE duel = ?1;")) == NULL)
		return -1;
	db_bind_blob(st, 1, commit, PROTO_COMMIT_LEN);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step == DB_ROW) {
		size_t n;
		const void *b = db_col_blob(st, 0, &n);
		rc = rated_get(b, n, &out->rec, why, sizeof why) && signer_of(s, st, 1, out->signer) ? 1 : -1;
	}
	db_finalize(st);
	return rc;
}

/* A key's rating now, and when it was last rated (0 and the new player's rating: never). */
static int
rating_of(struct db *db, const uint8_t key[PROTO_IDENT_KEY_LEN], struct glicko *g, int64_t *last)
{
	struct db_stmt *st;
	int step;

	if ((st = db_prepare(db, "SELECT rating, deviation, volatility, last_rated FROM ratings WHERE key = ?1;")) == NULL)
		return -1;
	db_bind_blob(st, 1, key, PROTO_IDENT_KEY_LEN);
	step = db_step(st);
	if (step == DB_ROW) {
		*g = (struct glicko){ db_col_double(st, 0), db_col_double(st, 1), db_col_double(st, 2) };
		*last = db_col_int64(st, 3);
	} else {
		*g = glicko_lichess().start;
		*last = 0;
	}
	db_finalize(st);
	return step == DB_ROW || step == DB_DONE ? 0 : -1;
}

/* A key's lock id (db_lock): its first 8 bytes, a random public key's (two keys sharing them only
 * wait for each other). */
static int64_t
key_lock_id(const uint8_t key[PROTO_IDENT_KEY_LEN])
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | key[i];
	return (int64_t)v;
}

/* Two nodes rating duels of the same key at once: each transaction first takes both keys' locks
 * (in ascending order: no deadlock), so the second reads the rating the first wrote and neither
 * update is lost; the same duel rated by two nodes (a takeover) finds the first's record. SQLite's
 * BEGIN IMMEDIATE holds the file's write lock throughout. */
static int
rate(struct store *s, struct store_req *q)
{
	struct db *db = s->db;
	const struct store_duel *d = &q->duel;
	struct glicko_params gp = glicko_lichess();
	struct glicko g[PLAYERS], out[PLAYERS];
	int64_t last[PLAYERS];
	struct wire_msg *m;
	struct rated_rec *rec;
	struct db_stmt *st = NULL;
	uint8_t blob[RATED_SIGNED_LEN];
	int result = STORE_FAILED, found;

	if (!s->signer_set || memcmp(d->key[0], d->key[1], PROTO_IDENT_KEY_LEN) == 0 || (m = answer(q, WIRE_RATED)) == NULL)
		return STORE_FAILED;
	memcpy(m->u.rated.signer, s->signer, RATED_SIGNER_LEN);
	rec = &m->u.rated.rec;
	int64_t lk[2] = { key_lock_id(d->key[0]), key_lock_id(d->key[1]) };
	if (db_begin(db) != DB_DONE)
		return STORE_FAILED;
	if (db_lock(db, lk[0] < lk[1] ? lk[0] : lk[1]) != DB_DONE || db_lock(db, lk[0] < lk[1] ? lk[1] : lk[0]) != DB_DONE)
		return finish(db, STORE_FAILED);
	/* Idempotent: a duel id seen before is answered with its first record, under the key of
	 * the node that signed it (another node's, after a takeover), and counts nothing. */
	if ((found = recorded(s, d->commit, &m->u.rated)) != 0) {
		result = found > 0 ? STORE_OK : STORE_FAILED;
		goto out;
	}
	for (int p = 0; p < PLAYERS; p++) {
		if ((st = db_prepare(db, "INSERT INTO keys (key, first_seen, last_seen) VALUES (?1, ?2, ?2)"
		                         " ON CONFLICT (key) DO NOTHING;")) == NULL)
			goto out;
		db_bind_blob(st, 1, d->key[p], PROTO_IDENT_KEY_LEN);
		db_bind_int64(st, 2, d->time);
		if (db_step(st) != DB_DONE)
			goto out;
		db_finalize(st);
		st = NULL;
		if (rating_of(db, d->key[p], &g[p], &last[p]) != 0)
			goto out;
	}
	memset(rec, 0, sizeof *rec);
	rec->time = (uint64_t)d->time;
	memcpy(rec->commit, d->commit, PROTO_COMMIT_LEN);
	memcpy(rec->key, d->key, sizeof rec->key);
	rec->result = d->result;
	rec->reason = d->reason;
	for (int p = 0; p < PLAYERS; p++) {
		/* Rating periods from the time since this player's own last rated duel, as lichess
		 * counts them (none for a new player): a long pause widens the deviation first. */
		double periods = last[p] > 0 && d->time > last[p] ? (double)(d->time - last[p]) / 86400.0 * gp.periods_per_day : 0;
		struct glicko_result res = { g[1 - p], rated_score(rec, p) };
		if (!glicko_update(&gp, g[p], &res, 1, periods, &out[p]))
			goto out;
		rec->before[p] = (struct rated_rating){ g[p].rating, g[p].deviation, g[p].volatility };
		rec->after[p] = (struct rated_rating){ out[p].rating, out[p].deviation, out[p].volatility };
	}
	if (rated_sign(rec, s->signer_sk) != 0)
		goto out;
	rated_put(rec, blob);
	if ((st = db_prepare(db, "INSERT INTO results (duel, time, key0, key1, result, reason, record, signer)"
	                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8);")) == NULL)
		goto out;
	db_bind_blob(st, 1, d->commit, PROTO_COMMIT_LEN);
	db_bind_int64(st, 2, d->time);
	db_bind_blob(st, 3, d->key[0], PROTO_IDENT_KEY_LEN);
	db_bind_blob(st, 4, d->key[1], PROTO_IDENT_KEY_LEN);
	db_bind_int64(st, 5, d->result);
	db_bind_int64(st, 6, d->reason);
	db_bind_blob(st, 7, blob, sizeof blob);
	db_bind_blob(st, 8, s->signer, RATED_SIGNER_LEN);
	if (db_step(st) != DB_DONE)
		goto out;
	for (int p = 0; p < PLAYERS; p++) {
		double sc = rated_score(rec, p);
		db_finalize(st);
		st = NULL;
		if ((st = db_prepare(db, "INSERT INTO ratings (key, rating, deviation, volatility, games, wins, draws, losses,"
		                         " last_rated) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8) ON CONFLICT (key) DO UPDATE SET"
		                         " rating = ?2, deviation = ?3, volatility = ?4, games = ratings.games + 1,"
		                         " wins = ratings.wins + ?5, draws = ratings.draws + ?6, losses = ratings.losses + ?7,"
		                         " last_rated = ?8;")) == NULL)
			goto out;
		db_bind_blob(st, 1, d->key[p], PROTO_IDENT_KEY_LEN);
		db_bind_double(st, 2, out[p].rating);
		db_bind_double(st, 3, out[p].deviation);
		db_bind_double(st, 4, out[p].volatility);
		db_bind_int64(st, 5, sc == 1.0);
		db_bind_int64(st, 6, sc == 0.5);
		db_bind_int64(st, 7, sc == 0.0);
		db_bind_int64(st, 8, d->time);
		if (db_step(st) != DB_DONE)
			goto out;
	}
	result = STORE_OK;
out:
	db_finalize(st);
	return finish(db, result);
}

/* Rows of older builds carry no signer (schema step 5 added the column). Those whose signature
 * is this node's key's are given its signer, in transactions of ADOPT_BATCH rows: each is
 * verified (one Ed25519 check, tens of microseconds), so a store of a million rows takes this
 * thread a minute without holding a lock that long. Rows another node signed are left for it to
 * claim when it starts; a node in a cluster claims only what it really signed. */
#define ADOPT_BATCH 256
static int
adopt(struct store *s)
{
	struct db *db = s->db;
	uint8_t pk[32];
	int64_t after = 0, mine[ADOPT_BATCH];

	if (!s->signer_set || crypto_scalarmult_base(pk, s->signer_sk) != 0)
		return STORE_FAILED;
	for (;;) {
		struct db_stmt *st;
		int seen = 0, n = 0, step = DB_DONE, result = STORE_FAILED;
		char why[96];

		if (db_begin(db) != DB_DONE)
			return STORE_FAILED;
		if ((st = db_prepare(db, "SELECT seq, record FROM results WHERE signer IS NULL AND seq > ?1 ORDER BY seq"
		                         " LIMIT ?2;")) == NULL)
			return finish(db, STORE_FAILED);
		db_bind_int64(st, 1, after);
		db_bind_int64(st, 2, ADOPT_BATCH);
		while (seen < ADOPT_BATCH && (step = db_step(st)) == DB_ROW) {
			struct rated_rec r;
			size_t len;
			const void *b = db_col_blob(st, 1, &len);
			after = db_col_int64(st, 0);
			seen++;
			if (rated_get(b, len, &r, why, sizeof why) && rated_verify(&r, s->signer, pk))
				mine[n++] = after;
		}
		db_finalize(st);
		if (step == DB_ERR)
			return finish(db, STORE_FAILED);
		for (int i = 0; i < n; i++) {
			if ((st = db_prepare(db, "UPDATE results SET signer = ?1 WHERE seq = ?2 AND signer IS NULL;")) == NULL)
				return finish(db, STORE_FAILED);
			db_bind_blob(st, 1, s->signer, RATED_SIGNER_LEN);
			db_bind_int64(st, 2, mine[i]);
			step = db_step(st);
			db_finalize(st);
			if (step != DB_DONE)
				return finish(db, STORE_FAILED);
		}
		result = finish(db, STORE_OK);
		if (result != STORE_OK || seen < ADOPT_BATCH)
			return result;
	}
}

/* A ladder row from a statement's columns: rating, deviation, games, wins, draws, name, key. */
static void
ladder_row(struct db_stmt *st, struct wire_ladder_row *o)
{
	double r = db_col_double(st, 0), dev = db_col_double(st, 1);
	const char *name = db_col_text(st, 5);

	o->rating = (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r + 0.5);
	o->deviation = (uint16_t)(dev < 0 ? 0 : dev > 65535 ? 65535 : dev + 0.5);
	o->flags = dev >= glicko_lichess().provisional ? LADDER_PROVISIONAL : 0;
	o->games = (uint32_t)db_col_int64(st, 2);
	o->wins = (uint32_t)db_col_int64(st, 3);
	o->draws = (uint32_t)db_col_int64(st, 4);
	if (o->wins > o->games || o->draws > o->games - o->wins)
		o->wins = o->draws = 0; /* a hand-edited database: the row still goes out, the encoder would refuse it */
	if (name != NULL && strlen(name) <= PROTO_NAME_BYTES) {
		snprintf(o->name, sizeof o->name, "%s", name);
	} else { /* a freed name: the key's first bytes stand for it */
		size_t n;
		const uint8_t *k = db_col_blob(st, 6, &n);
		if (k && n == PROTO_IDENT_KEY_LEN)
			snprintf(o->name, sizeof o->name, "key-%02x%02x%02x%02x", k[0], k[1], k[2], k[3]);
		else
			snprintf(o->name, sizeof o->name, "key-?");
	}
}

#define LADDER_COLS \
	"SELECT r.rating, r.deviation, r.games, r.wins, r.draws," \
	" (SELECT n.name FROM names n WHERE n.key = r.key ORDER BY n.last_used DESC LIMIT 1), r.key FROM ratings r"

static int
ask(struct store *s, struct store_req *q)
{
	struct db *db = s->db;
	struct db_stmt *st;
	struct wire_msg *m;
	char why[96];
	int rc = DB_DONE;

	if (q->ask.kind == ASK_HISTORY) {
		if ((m = answer(q, WIRE_RECORDS)) == NULL)
			return STORE_FAILED;
		/* A page: the newest WIRE_RECORDS_MAX after the `skip` newest (OFFSET walks the index
		 * by key; a history of thousands is a few milliseconds on the store's thread). */
		if ((st = db_prepare(db, "SELECT record, signer FROM results WHERE key0 = ?1 OR key1 = ?1 ORDER BY seq DESC"
		                         " LIMIT ?2 OFFSET ?3;")) == NULL)
			return STORE_FAILED;
		db_bind_blob(st, 1, q->key, PROTO_IDENT_KEY_LEN);
		db_bind_int64(st, 2, WIRE_RECORDS_MAX);
		db_bind_int64(st, 3, (int64_t)q->ask.skip);
		/* Bounded here too, not only by LIMIT: a hostile PostgreSQL may send any number of rows. */
		while (m->u.records.count < WIRE_RECORDS_MAX && (rc = db_step(st)) == DB_ROW) {
			struct wire_rated *x = &m->u.records.rec[m->u.records.count];
			size_t n;
			const void *b = db_col_blob(st, 0, &n);
			/* A record the database holds broken is left out; the client checks the rest's
			 * signatures, each against its own signer. */
			if (rated_get(b, n, &x->rec, why, sizeof why) && signer_of(s, st, 1, x->signer))
				m->u.records.count++;
		}
		db_finalize(st);
		return rc == DB_DONE || rc == DB_ROW ? STORE_OK : STORE_FAILED;
	}
	if ((m = answer(q, WIRE_LADDER)) == NULL)
		return STORE_FAILED;
	if (q->ask.kind == ASK_STATS) {
		if ((st = prepare(db, SQL_NAME_STATS)) == NULL)
			return STORE_FAILED;
		db_bind_text(st, 1, q->ask.name);
		if ((rc = db_step(st)) == DB_ROW)
			ladder_row(st, &m->u.ladder.row[m->u.ladder.count++]);
		db_finalize(st);
		return rc == DB_ROW || rc == DB_DONE ? STORE_OK : STORE_FAILED;
	}
	/* The ladder: established players by rating, then the provisional ones apart. */
	static const char *const parts[] = {
		LADDER_COLS " WHERE r.deviation < ?1 ORDER BY r.rating DESC LIMIT ?2;",
		LADDER_COLS " WHERE r.deviation >= ?1 ORDER BY r.rating DESC LIMIT ?2;",
	};
	static const int limits[] = { STORE_TOP_ESTABLISHED, STORE_TOP_PROVISIONAL };
	_Static_assert(STORE_TOP_ESTABLISHED + STORE_TOP_PROVISIONAL <= WIRE_LADDER_MAX, "the ladder fits a LADDER");
	unsigned shown = 0;
	for (int i = 0; i < 2; i++) {
		if ((st = db_prepare(db, parts[i])) == NULL)
			return STORE_FAILED;
		db_bind_double(st, 1, glicko_lichess().provisional);
		db_bind_int64(st, 2, limits[i]);
		unsigned most = m->u.ladder.count + (unsigned)limits[i];
		while (m->u.ladder.count < most && (rc = db_step(st)) == DB_ROW)
			ladder_row(st, &m->u.ladder.row[m->u.ladder.count++]);
		db_finalize(st);
		if (rc == DB_ERR)
			return STORE_FAILED;
	}
	shown = m->u.ladder.count;
	if ((st = db_prepare(db, "SELECT count(*) FROM ratings;")) == NULL)
		return STORE_FAILED;
	if (db_step(st) == DB_ROW && db_col_int64(st, 0) <= (int64_t)shown)
		m->u.ladder.flags = LADDER_ALL;
	db_finalize(st);
	return STORE_OK;
}

/* An operator's decision, one statement (its own transaction). The SQL a kind's: a row of
 * `bans`, or of `mutes`. */
static int
moderate(struct db *db, const struct store_req *q)
{
	static const int sql[2][2] = { { SQL_BAN_PUT, SQL_BAN_DEL }, { SQL_MUTE_PUT, SQL_MUTE_DEL } };
	static const char *const kind[BAN_KINDS] = { [BAN_KEY] = "key", [BAN_NAME] = "name", [BAN_ADDR] = "addr" };
	const struct ban *b = &q->ban;
	struct db_stmt *st;
	int rc = STORE_FAILED;

	if ((st = prepare(db, q->kind == REQ_FREE_NAME ? SQL_NAME_FREE : sql[b->kind == BAN_MUTE][q->kind == REQ_BAN_DEL])) ==
	    NULL)
		return STORE_FAILED;
	if (q->kind == REQ_FREE_NAME) {
		db_bind_text(st, 1, q->name);
	} else {
		if (b->kind != BAN_MUTE)
			db_bind_text(st, 1, kind[b->kind]);
		db_bind_text(st, 2, b->target);
		if (q->kind == REQ_BAN_PUT) {
			db_bind_int64(st, 3, b->created);
			if (b->expires)
				db_bind_int64(st, 4, b->expires);
			else
				db_bind_null(st, 4);
			if (b->kind != BAN_MUTE)
				db_bind_text(st, 5, b->reason);
		}
	}
	if (db_step(st) == DB_DONE)
		rc = db_changes(st) > 0 ? STORE_OK : STORE_TAKEN; /* TAKEN: nothing was there */
	db_finalize(st);
	return rc;
}

static int
work_once(struct store *s, struct store_req *q, bool stopping)
{
	switch (q->kind) {
	case REQ_RATE:
		return rate(s, q); /* at a stop too: a result is worth its few milliseconds */
	case REQ_ASK:
		return stopping ? STORE_FAILED : ask(s, q);
	case REQ_BAN_PUT:
	case REQ_BAN_DEL:
	case REQ_FREE_NAME:
		return moderate(s->db, q); /* answered "ok" already: written even at a stop */
	case REQ_ADOPT:
		return stopping ? STORE_FAILED : adopt(s); /* the next start claims the rest */
	default:
		return stopping ? STORE_FAILED : claim(s->db, q->key, q->name[0] ? q->name : NULL, &q->rating); /* its connection is gone */
	}
}

/* A player's request (a claim at the door, a question) is answered within STORE_BUSY_MS of its
 * asking, whatever was ahead of it in the queue: a rating or an operator's write held up by
 * another holder of the lock spends its own whole busy timeout, and a claim behind it would
 * otherwise wait twice that. Its statements wait only what is left; with nothing left it is
 * refused unrun. Ratings and operators' writes keep the whole timeout: they are worth the wait.
 * Less queueing than the slack keeps the connection's timeout (a PostgreSQL round trip saved). */
#define STORE_WAIT_SLACK_MS 100

static int
left_ms(const struct store_req *q)
{
	uint64_t waited = (uv_hrtime() - q->asked) / 1000000u;

	if (q->kind != REQ_CLAIM && q->kind != REQ_ASK)
		return STORE_BUSY_MS;
	return waited >= STORE_BUSY_MS ? 0 : STORE_BUSY_MS - (int)waited;
}

/* A request, run again while it failed for a reason that another run may not meet (another
 * node's transaction, a connection lost and made again): bounded by STORE_RETRIES, each
 * connection attempt by its connect timeout. */
static int
work(struct store *s, struct store_req *q, bool stopping)
{
	int result = STORE_FAILED, left = STORE_BUSY_MS;
	bool shortened = false;

	for (int tries = 0; tries <= STORE_RETRIES; tries++) {
		/* What is left is counted again after db_ready: making a lost connection again may take
		 * up to its connect timeout of it. With nothing left the try is not run (and `left` is
		 * never 0 below: PostgreSQL's lock_timeout 0 would be no limit at all); the connection's
		 * own wait is put back after the loop if an earlier try shortened it. */
		if ((left = left_ms(q)) == 0 || db_ready(s->db) != 0 || (left = left_ms(q)) == 0)
			break;
		if (left < STORE_BUSY_MS - STORE_WAIT_SLACK_MS)
			shortened |= db_wait(s->db, left) == 0;
		result = work_once(s, q, stopping);
		if (result != STORE_FAILED || !db_retryable(s->db))
			break;
	}
	if (result == STORE_FAILED && left == 0)
		snprintf(q->why, sizeof q->why,
		         "no answer within %d ms of the request (the requests ahead of it, or making the connection again,"
		         " held the store)", STORE_BUSY_MS);
	else if (result == STORE_FAILED)
		snprintf(q->why, sizeof q->why, "%s", db_errmsg(s->db));
	if (shortened)
		db_wait(s->db, DB_BUSY_MS);
	return result;
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
			break; /* stopped, with nothing left to do */
		struct store_req *q = s->todo;
		s->todo = q->next;
		if (s->todo == NULL)
			s->todo_tail = &s->todo;
		bool stopping = s->stop;
		pthread_mutex_unlock(&s->mu);
		q->result = work(s, q, stopping);
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
		s->why = rev->result == STORE_FAILED ? rev->why : NULL;
		if (rev->cb)
			rev->cb(rev->ud, rev->result);
		else if (rev->icb)
			rev->icb(rev->ud, rev->result, &rev->rating);
		else if (rev->acb)
			rev->acb(rev->ud, rev->result, rev->result == STORE_OK ? rev->ans : NULL);
		free(rev->ans);
		free(rev);
		rev = n;
	}
	s->why = NULL;
}

static void
on_closed(uv_handle_t *h)
{
	struct store *s = h->data;
	void (*cb)(void *) = s->close_cb;
	void *ud = s->close_ud;

	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	sodium_memzero(s->signer_sk, sizeof s->signer_sk);
	free(s);
	if (cb)
		cb(ud);
}

static int load_bans(struct db *db, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud,
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
	char shown[512];

	db_describe(path, shown, sizeof shown);
	if (open_target(path, &s->db, why, whylen) != 0 || (cb && load_bans(s->db, shown, now, cb, ud, why, whylen) != 0)) {
		db_close(s->db);
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
		db_close(s->db);
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
	/* The worker ends once its queue is empty: claims and questions are dropped unworked, results
	 * and an operator's writes (a handful, each one statement) are done; each waits STORE_BUSY_MS
	 * at worst. */
	pthread_join(s->thread, NULL);
	db_close(s->db);
	for (int i = 0; i < 2; i++) {
		q = i == 0 ? s->todo : s->done;
		while (q) {
			struct store_req *n = q->next;
			/* A result's caller owns what its answer frees (the server's rating job) and is
			 * never cancelled: it hears the end, recorded or not. Claims and questions were
			 * cancelled by their connections; an operator's writes need no answer. */
			if (q->kind == REQ_RATE && q->acb)
				q->acb(q->ud, i == 0 ? STORE_FAILED : q->result, i == 0 || q->result != STORE_OK ? NULL : q->ans);
			free(q->ans);
			free(q);
			q = n;
		}
	}
	s->todo = s->done = NULL;
	uv_close((uv_handle_t *)&s->async, on_closed);
}

static void
enqueue(struct store *s, struct store_req *q)
{
	q->asked = uv_hrtime();
	pthread_mutex_lock(&s->mu);
	*s->todo_tail = q;
	s->todo_tail = &q->next;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	s->pending++;
}

struct store_req *
store_claim_name(struct store *s, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, store_ident_cb cb,
                 void *ud)
{
	struct store_req *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->kind = REQ_CLAIM;
	q->icb = cb;
	q->ud = ud;
	memcpy(q->key, key, PROTO_IDENT_KEY_LEN);
	snprintf(q->name, sizeof q->name, "%s", name ? name : ""); /* "": no name (a name is never empty) */
	enqueue(s, q);
	return q;
}

static struct store_req *
req_new(int kind, store_claim_cb cb, void *ud)
{
	struct store_req *q = calloc(1, sizeof *q);

	if (q) {
		q->kind = kind;
		q->cb = cb;
		q->ud = ud;
	}
	return q;
}

struct store_req *
store_ban_put(struct store *s, const struct ban *b, store_claim_cb cb, void *ud)
{
	struct store_req *q = req_new(REQ_BAN_PUT, cb, ud);

	if (q) {
		q->ban = *b;
		enqueue(s, q);
	}
	return q;
}

struct store_req *
store_ban_del(struct store *s, int kind, const char *target, store_claim_cb cb, void *ud)
{
	struct store_req *q = req_new(REQ_BAN_DEL, cb, ud);

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
	struct store_req *q = req_new(REQ_FREE_NAME, cb, ud);

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
load_bans(struct db *db, const char *path, int64_t now, int (*cb)(void *ud, const struct ban *b), void *ud, char *why,
          size_t whylen)
{
	static const char *const kinds[] = { [BAN_KEY] = "key", [BAN_NAME] = "name", [BAN_ADDR] = "addr" };
	static const char *const expire[] = { "DELETE FROM bans WHERE expires IS NOT NULL AND expires <= ?1;",
		                              "DELETE FROM mutes WHERE expires IS NOT NULL AND expires <= ?1;" };
	struct db_stmt *st = NULL;
	int rc = -1, step = DB_DONE;
	bool said = false;

	for (int i = 0; i < 2; i++) {
		if ((st = db_prepare(db, expire[i])) == NULL)
			goto out;
		db_bind_int64(st, 1, now);
		if (db_step(st) != DB_DONE)
			goto out;
		db_finalize(st);
		st = NULL;
	}
	if ((st = db_prepare(db, "SELECT kind, target, created, coalesce(expires, 0), reason FROM bans"
	                         " UNION ALL SELECT 'mute', fingerprint, created, coalesce(expires, 0), '' FROM mutes"
	                         " ORDER BY 3;")) == NULL)
		goto out;
	while ((step = db_step(st)) == DB_ROW) {
		const char *k = db_col_text(st, 0), *t = db_col_text(st, 1);
		const char *r = db_col_text(st, 4);
		struct ban b = { .created = db_col_int64(st, 2), .expires = db_col_int64(st, 3) };
		int kind = BAN_MUTE;
		char bad[BAN_REASON_MAX + 1];
		for (int i = 0; i < BAN_MUTE; i++)
			if (k && strcmp(k, kinds[i]) == 0)
				kind = i;
		/* A row is checked as a command's argument is: the database is the operator's, and
		 * `sqlite3 FILE` or psql may have written anything into it. */
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
	if (step == DB_DONE)
		rc = 0;
out:
	if (rc != 0 && !said)
		fail(db, why, whylen, path);
	db_finalize(st);
	return rc;
}

void
store_set_signer(struct store *s, const uint8_t x25519_sk[32])
{
	struct store_req *q;

	memcpy(s->signer_sk, x25519_sk, 32);
	s->signer_set = rated_signer(x25519_sk, s->signer) == 0;
	/* First in the queue: the rows of older builds this key signed get their signer before any
	 * history is asked for (without an answer: a failure leaves them for the next start). */
	if (s->signer_set && (q = req_new(REQ_ADOPT, NULL, NULL)) != NULL)
		enqueue(s, q);
}

struct store_req *
store_rate(struct store *s, const struct store_duel *d, store_answer_cb cb, void *ud)
{
	struct store_req *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->kind = REQ_RATE;
	q->acb = cb;
	q->ud = ud;
	q->duel = *d;
	enqueue(s, q);
	return q;
}

struct store_req *
store_ask(struct store *s, const uint8_t key[PROTO_IDENT_KEY_LEN], const struct wire_ask *a, store_answer_cb cb,
          void *ud)
{
	struct store_req *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->kind = REQ_ASK;
	q->acb = cb;
	q->ud = ud;
	memcpy(q->key, key, PROTO_IDENT_KEY_LEN);
	q->ask = *a;
	enqueue(s, q);
	return q;
}

void
store_cancel(struct store_req *q)
{
	if (q) {
		q->cb = NULL;
		q->acb = NULL;
		q->icb = NULL;
	}
}

unsigned
store_pending(const struct store *s)
{
	return s ? s->pending : 0;
}

/* ---- offline ---- */

/* A file must be there already (a typo makes no new store); a PostgreSQL database is reached. */
static int
offline_open(const char *target, struct db **db, char *why, size_t whylen)
{
	struct stat st;

	if (!db_is_pg(target) && stat(target, &st) != 0) {
		snprintf(why, whylen, "%s: %s", target, strerror(errno));
		return -1;
	}
	return open_target(target, db, why, whylen);
}

/* A failure's message names the target without its password. */
static int
offline_fail(struct db *db, const char *target, char *why, size_t whylen)
{
	char shown[512];

	db_describe(target, shown, sizeof shown);
	return fail(db, why, whylen, shown);
}

int
store_free_name(const char *path, const char *name, bool *freed, char *why, size_t whylen)
{
	struct db *db;
	struct db_stmt *st;
	int rc = -1;

	*freed = false;
	if (offline_open(path, &db, why, whylen) != 0)
		return -1;
	if ((st = prepare(db, SQL_NAME_FREE)) != NULL) {
		db_bind_text(st, 1, name);
		if (db_step(st) == DB_DONE) {
			*freed = db_changes(st) > 0;
			rc = 0;
		}
	}
	if (rc != 0)
		offline_fail(db, path, why, whylen);
	db_finalize(st);
	db_close(db);
	return rc;
}

int
store_name_owner(const char *path, const char *name, bool *owned, uint8_t key[PROTO_IDENT_KEY_LEN], char *why,
                 size_t whylen)
{
	struct db *db;
	struct db_stmt *st;
	int rc = -1, step;

	*owned = false;
	if (offline_open(path, &db, why, whylen) != 0)
		return -1;
	if ((st = prepare(db, SQL_NAME_OWNER)) != NULL) {
		db_bind_text(st, 1, name);
		step = db_step(st);
		size_t n = 0;
		const void *k = step == DB_ROW ? db_col_blob(st, 0, &n) : NULL;
		if (k && n == PROTO_IDENT_KEY_LEN) {
			memcpy(key, k, PROTO_IDENT_KEY_LEN);
			*owned = true;
			rc = 0;
		} else if (step == DB_DONE) {
			rc = 0;
		}
	}
	if (rc != 0)
		offline_fail(db, path, why, whylen);
	db_finalize(st);
	db_close(db);
	return rc;
}

int
store_schema_version(const char *path, int *version, char *why, size_t whylen)
{
	struct db *db;
	int rc;

	if (db_open(path, &db, why, whylen) != 0)
		return -1;
	rc = version_of(db, version) == 0 ? 0 : offline_fail(db, path, why, whylen);
	db_close(db);
	return rc;
}

int
store_migrate_to(const char *path, int version, char *why, size_t whylen)
{
	struct db *db;
	char shown[512];
	int rc;

	if (version < 0 || version > NEWEST) {
		snprintf(why, whylen, "no schema version %d", version);
		return -1;
	}
	if (db_open(path, &db, why, whylen) != 0)
		return -1;
	db_describe(path, shown, sizeof shown);
	rc = migrate(db, shown, version, why, whylen);
	db_close(db);
	return rc;
}

const char *
store_why(const struct store *s)
{
	return s && s->why ? s->why : "";
}

#else /* neither SQLite nor PostgreSQL: names are not owned; the server says so (docs/server.md) */

const int store_built = 0;

static int
not_built(char *why, size_t whylen)
{
	snprintf(why, whylen, "this wizwar was built without SQLite and PostgreSQL (meson options sqlite, postgres): no store, names are not owned");
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
store_claim_name(struct store *st, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, store_ident_cb cb,
                 void *ud)
{
	(void)st, (void)key, (void)name, (void)cb, (void)ud;
	return NULL;
}

void store_cancel(struct store_req *q) { (void)q; }
void store_set_signer(struct store *st, const uint8_t x25519_sk[32]) { (void)st, (void)x25519_sk; }

struct store_req *
store_rate(struct store *st, const struct store_duel *d, store_answer_cb cb, void *ud)
{
	(void)st, (void)d, (void)cb, (void)ud;
	return NULL;
}

struct store_req *
store_ask(struct store *st, const uint8_t key[PROTO_IDENT_KEY_LEN], const struct wire_ask *a, store_answer_cb cb,
          void *ud)
{
	(void)st, (void)key, (void)a, (void)cb, (void)ud;
	return NULL;
}
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
const char *store_why(const struct store *st) { (void)st; return ""; }

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
