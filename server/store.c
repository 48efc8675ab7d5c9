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

#include <sodium.h>

#include "glicko.h"
#include "rated.h"
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
	{ "ratings and results: rated duels, each signed, and every rated key's Glicko-2 rating",
	  "CREATE TABLE ratings ("
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
	  "CREATE INDEX ratings_by_rating ON ratings (rating);" },
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

enum req_kind {
	REQ_CLAIM,     /* key, name */
	REQ_RATE,      /* duel */
	REQ_ASK,       /* key, ask */
	REQ_BAN_PUT,   /* ban: recorded, or its row replaced */
	REQ_BAN_DEL,   /* ban.kind, ban.target */
	REQ_FREE_NAME, /* name */
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

static int rating_of(sqlite3 *db, const uint8_t key[PROTO_IDENT_KEY_LEN], struct glicko *g, int64_t *last);

/* The claim, in one transaction: the key is recorded (or seen again), its rating read (what the
 * pool pairs it by and `rooms` shows), then the name is its own if nobody has it, or already its
 * own; else taken. No name: the key and its rating only. */
static int
claim(sqlite3 *db, const uint8_t key[PROTO_IDENT_KEY_LEN], const char *name, struct store_rating *out)
{
	struct glicko g;
	int64_t last;
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
	st = NULL;
	if (rating_of(db, key, &g, &last) != 0)
		goto out;
	*out = (struct store_rating){ g.rating, g.deviation, last > 0 };
	if (name == NULL) {
		result = STORE_OK;
		goto out;
	}
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

/* ---- ratings (schema step 3) ---- */

static bool
step_done(sqlite3_stmt *st)
{
	return sqlite3_step(st) == SQLITE_DONE;
}

static struct wire_msg *
answer(struct store_req *q, int type)
{
	if (q->ans == NULL && (q->ans = malloc(sizeof *q->ans)) == NULL)
		return NULL;
	memset(q->ans, 0, sizeof *q->ans);
	q->ans->type = (uint8_t)type;
	return q->ans;
}

/* A result already recorded for this duel: its record. 1 found, 0 not, -1 failed. */
static int
recorded(sqlite3 *db, const uint8_t commit[PROTO_COMMIT_LEN], struct rated_rec *rec)
{
	sqlite3_stmt *st = NULL;
	char why[96];
	int rc = -1, step;

	if (sqlite3_prepare_v2(db, "SELECT record FROM results WHERE duel = ?1;", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_blob(st, 1, commit, PROTO_COMMIT_LEN, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_DONE)
		rc = 0;
	else if (step == SQLITE_ROW)
		rc = rated_get(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), rec, why, sizeof why) ? 1 : -1;
	sqlite3_finalize(st);
	return rc;
}

/* A key's rating now, and when it was last rated (0 and the new player's rating: never). */
static int
rating_of(sqlite3 *db, const uint8_t key[PROTO_IDENT_KEY_LEN], struct glicko *g, int64_t *last)
{
	sqlite3_stmt *st = NULL;
	int step;

	if (sqlite3_prepare_v2(db, "SELECT rating, deviation, volatility, last_rated FROM ratings WHERE key = ?1;", -1, &st,
	                       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_blob(st, 1, key, PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*g = (struct glicko){ sqlite3_column_double(st, 0), sqlite3_column_double(st, 1), sqlite3_column_double(st, 2) };
		*last = sqlite3_column_int64(st, 3);
	} else {
		*g = glicko_lichess().start;
		*last = 0;
	}
	sqlite3_finalize(st);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : -1;
}

static int
rate(struct store *s, struct store_req *q)
{
	sqlite3 *db = s->db;
	const struct store_duel *d = &q->duel;
	struct glicko_params gp = glicko_lichess();
	struct glicko g[PLAYERS], out[PLAYERS];
	int64_t last[PLAYERS];
	struct wire_msg *m;
	struct rated_rec *rec;
	sqlite3_stmt *st = NULL;
	uint8_t blob[RATED_SIGNED_LEN];
	int result = STORE_FAILED, found;

	if (!s->signer_set || memcmp(d->key[0], d->key[1], PROTO_IDENT_KEY_LEN) == 0 || (m = answer(q, WIRE_RATED)) == NULL)
		return STORE_FAILED;
	memcpy(m->u.rated.signer, s->signer, RATED_SIGNER_LEN);
	rec = &m->u.rated.rec;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) != SQLITE_OK)
		return STORE_FAILED;
	/* Idempotent: a duel id seen before is answered with its first record and counts nothing. */
	if ((found = recorded(db, d->commit, rec)) != 0) {
		result = found > 0 ? STORE_OK : STORE_FAILED;
		goto out;
	}
	for (int p = 0; p < PLAYERS; p++) {
		if (sqlite3_prepare_v2(db, "INSERT INTO keys (key, first_seen, last_seen) VALUES (?1, ?2, ?2)"
		                           " ON CONFLICT (key) DO NOTHING;", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_blob(st, 1, d->key[p], PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, d->time);
		if (!step_done(st))
			goto out;
		sqlite3_finalize(st);
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
	if (sqlite3_prepare_v2(db, "INSERT INTO results (duel, time, key0, key1, result, reason, record)"
	                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_blob(st, 1, d->commit, PROTO_COMMIT_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, d->time);
	sqlite3_bind_blob(st, 3, d->key[0], PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, d->key[1], PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, d->result);
	sqlite3_bind_int(st, 6, d->reason);
	sqlite3_bind_blob(st, 7, blob, sizeof blob, SQLITE_STATIC);
	if (!step_done(st))
		goto out;
	for (int p = 0; p < PLAYERS; p++) {
		double sc = rated_score(rec, p);
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_prepare_v2(db, "INSERT INTO ratings (key, rating, deviation, volatility, games, wins, draws, losses,"
		                           " last_rated) VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8) ON CONFLICT (key) DO UPDATE SET"
		                           " rating = ?2, deviation = ?3, volatility = ?4, games = games + 1, wins = wins + ?5,"
		                           " draws = draws + ?6, losses = losses + ?7, last_rated = ?8;", -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_blob(st, 1, d->key[p], PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
		sqlite3_bind_double(st, 2, out[p].rating);
		sqlite3_bind_double(st, 3, out[p].deviation);
		sqlite3_bind_double(st, 4, out[p].volatility);
		sqlite3_bind_int(st, 5, sc == 1.0);
		sqlite3_bind_int(st, 6, sc == 0.5);
		sqlite3_bind_int(st, 7, sc == 0.0);
		sqlite3_bind_int64(st, 8, d->time);
		if (!step_done(st))
			goto out;
	}
	result = STORE_OK;
out:
	sqlite3_finalize(st);
	if (sqlite3_exec(db, result == STORE_OK ? "COMMIT;" : "ROLLBACK;", NULL, NULL, NULL) != SQLITE_OK &&
	    result == STORE_OK) {
		sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
		result = STORE_FAILED;
	}
	return result;
}

/* A ladder row from a statement's columns: rating, deviation, games, wins, draws, name, key. */
static void
ladder_row(sqlite3_stmt *st, struct wire_ladder_row *o)
{
	double r = sqlite3_column_double(st, 0), dev = sqlite3_column_double(st, 1);
	const unsigned char *name = sqlite3_column_text(st, 5);

	o->rating = (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r + 0.5);
	o->deviation = (uint16_t)(dev < 0 ? 0 : dev > 65535 ? 65535 : dev + 0.5);
	o->flags = dev >= glicko_lichess().provisional ? LADDER_PROVISIONAL : 0;
	o->games = (uint32_t)sqlite3_column_int64(st, 2);
	o->wins = (uint32_t)sqlite3_column_int64(st, 3);
	o->draws = (uint32_t)sqlite3_column_int64(st, 4);
	if (o->wins > o->games || o->draws > o->games - o->wins)
		o->wins = o->draws = 0; /* a hand-edited file: the row still goes out, the encoder would refuse it */
	if (name != NULL && strlen((const char *)name) <= PROTO_NAME_BYTES)
		snprintf(o->name, sizeof o->name, "%s", name);
	else { /* a freed name: the key's first bytes stand for it */
		const uint8_t *k = sqlite3_column_blob(st, 6);
		if (k && sqlite3_column_bytes(st, 6) == PROTO_IDENT_KEY_LEN)
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
	sqlite3 *db = s->db;
	sqlite3_stmt *st = NULL;
	struct wire_msg *m;
	char why[96];
	int rc;

	if (q->ask.kind == ASK_HISTORY) {
		if ((m = answer(q, WIRE_RECORDS)) == NULL)
			return STORE_FAILED;
		memcpy(m->u.records.signer, s->signer, RATED_SIGNER_LEN);
		/* A page: the newest WIRE_RECORDS_MAX after the `skip` newest (OFFSET walks the index
		 * by key; a history of thousands is a few milliseconds on the store's thread). */
		if (sqlite3_prepare_v2(db, "SELECT record FROM results WHERE key0 = ?1 OR key1 = ?1 ORDER BY seq DESC"
		                           " LIMIT ?2 OFFSET ?3;", -1, &st, NULL) != SQLITE_OK)
			return STORE_FAILED;
		sqlite3_bind_blob(st, 1, q->key, PROTO_IDENT_KEY_LEN, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, WIRE_RECORDS_MAX);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)q->ask.skip);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct rated_rec *x = &m->u.records.rec[m->u.records.count];
			/* A record the file holds broken is left out; the client checks the rest's signatures. */
			if (rated_get(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), x, why, sizeof why))
				m->u.records.count++;
		}
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? STORE_OK : STORE_FAILED;
	}
	if ((m = answer(q, WIRE_LADDER)) == NULL)
		return STORE_FAILED;
	if (q->ask.kind == ASK_STATS) {
		if (sqlite3_prepare_v2(db, "SELECT r.rating, r.deviation, r.games, r.wins, r.draws, n.name, r.key"
		                           " FROM names n JOIN ratings r ON r.key = n.key WHERE n.name = ?1;",
		                       -1, &st, NULL) != SQLITE_OK)
			return STORE_FAILED;
		sqlite3_bind_text(st, 1, q->ask.name, -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(st)) == SQLITE_ROW)
			ladder_row(st, &m->u.ladder.row[m->u.ladder.count++]);
		sqlite3_finalize(st);
		return rc == SQLITE_ROW || rc == SQLITE_DONE ? STORE_OK : STORE_FAILED;
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
		if (sqlite3_prepare_v2(db, parts[i], -1, &st, NULL) != SQLITE_OK)
			return STORE_FAILED;
		sqlite3_bind_double(st, 1, glicko_lichess().provisional);
		sqlite3_bind_int(st, 2, limits[i]);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			ladder_row(st, &m->u.ladder.row[m->u.ladder.count++]);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return STORE_FAILED;
	}
	shown = m->u.ladder.count;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM ratings;", -1, &st, NULL) != SQLITE_OK)
		return STORE_FAILED;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) <= (sqlite3_int64)shown)
		m->u.ladder.flags = LADDER_ALL;
	sqlite3_finalize(st);
	return STORE_OK;
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
	const char *text = q->kind == REQ_FREE_NAME ? "DELETE FROM names WHERE name = ?1;"
	                                            : sql[b->kind == BAN_MUTE][q->kind == REQ_BAN_DEL];

	if (sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK)
		return STORE_FAILED;
	if (q->kind == REQ_FREE_NAME) {
		sqlite3_bind_text(st, 1, q->name, -1, SQLITE_STATIC);
	} else {
		if (b->kind != BAN_MUTE)
			sqlite3_bind_text(st, 1, kind[b->kind], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, b->target, -1, SQLITE_STATIC);
		if (q->kind == REQ_BAN_PUT) {
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

static int
work(struct store *s, struct store_req *q, bool stopping)
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
	default:
		return stopping ? STORE_FAILED : claim(s->db, q->key, q->name[0] ? q->name : NULL, &q->rating); /* its connection is gone */
	}
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
	/* The worker ends once its queue is empty: claims and questions are dropped unworked, results
	 * and an operator's writes (a handful, each one statement) are done; each waits STORE_BUSY_MS
	 * at worst. */
	pthread_join(s->thread, NULL);
	sqlite3_close(s->db);
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

void
store_set_signer(struct store *s, const uint8_t x25519_sk[32])
{
	memcpy(s->signer_sk, x25519_sk, 32);
	s->signer_set = rated_signer(x25519_sk, s->signer) == 0;
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
