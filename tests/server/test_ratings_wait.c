/* SPDX-License-Identifier: MIT */
/* test_ratings_wait: the store's lock waits and retries (server/store.c work()): a player's request shortened by its queueing, the ratings after it given their whole wait back (after a retry out of time too), retries after serialization failures and a lost connection. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "db.h"
#include "store.h"
#include "store_target.h"

/*
 * Every test holds, on a connection of its own, the lock a rating needs (SQLite: the file's write
 * lock, BEGIN IMMEDIATE; PostgreSQL: the key's advisory lock, server/store.c key_lock_id) for a
 * measured time, and reads when the store answers. The durations below are the test's knobs:
 *
 * QUEUE_MS  how long a first rating holds the queue, so that a claim behind it is shortened to
 *           STORE_BUSY_MS - QUEUE_MS or less (far more than the 100 ms slack, and with 1 s to spare
 *           for a loaded machine's late wake-up before nothing would be left at all);
 * HOLD_MS   how long the lock is held against the rating after it: more than twice what a
 *           shortened wait left on the connection would give it, well under its own 5 s.
 */
#define QUEUE_MS 4000
#define HOLD_MS 2200
_Static_assert(HOLD_MS > 2 * (STORE_BUSY_MS - QUEUE_MS), "a shortened wait gives up before the hold ends");
_Static_assert(HOLD_MS < STORE_BUSY_MS / 2, "a rating's whole wait outlasts the hold");

/* The paths a retry takes need a failure that may pass when run again: PostgreSQL's alone. A
 * skipped test leaves no SQLite folder behind. */
static void
pg_only(const char *dir, const char *path)
{
	if (db_is_pg(path))
		return;
	store_target_rm(dir, path);
	cr_skip_test("PostgreSQL only (server/ratings-wait-pg): SQLite never retries a request");
}

static void
on_tick(uv_timer_t *t)
{
	*(bool *)t->data = true;
}

/* Run the loop for ms: the store's answers meanwhile are heard. */
static void
run_for(uv_loop_t *loop, unsigned ms)
{
	uv_timer_t t;
	bool fired = false;

	uv_update_time(loop); /* the test's own blocking statements since the last run: ms from now, not from then */
	uv_timer_init(loop, &t);
	t.data = &fired;
	uv_timer_start(&t, on_tick, ms, 0);
	while (!fired)
		uv_run(loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

/* One request's answer: its result, when it came (ms after its asking) and why it failed. */
struct ans {
	uv_loop_t *loop;
	struct store *s;
	uint64_t asked;
	int n, result;
	uint64_t ms;
	char why[STORE_WHY_BYTES];
};

static void
heard(struct ans *a, int result)
{
	a->n++;
	a->result = result;
	a->ms = (uv_hrtime() - a->asked) / 1000000u;
	snprintf(a->why, sizeof a->why, "%s", store_why(a->s));
}

static void on_rated(void *ud, int result, const struct wire_msg *m) { (void)m, heard(ud, result); }
static void on_claimed(void *ud, int result, const struct store_rating *r) { (void)r, heard(ud, result); }

/* Until a's answer has come: bounded (twice the busy timeout: no request here may take longer). */
static void
wait_answer(uv_loop_t *loop, struct ans *a, const char *what)
{
	uint64_t t0 = uv_hrtime();

	while (a->n == 0 && uv_hrtime() - t0 < 2 * STORE_BUSY_MS * 1000000ull)
		run_for(loop, 10);
	cr_assert_eq(a->n, 1, "%s: no answer within %d ms", what, 2 * STORE_BUSY_MS);
}

static void
ask_rate(struct store *s, uv_loop_t *loop, uint8_t k0, uint8_t k1, uint8_t duel, struct ans *a)
{
	struct store_duel d = { 1800000000 + duel, { 0 }, { { 0 } }, RATED_WIN0, END_KILLED };

	memset(d.commit, duel, sizeof d.commit);
	memset(d.key[0], k0, sizeof d.key[0]);
	memset(d.key[1], k1, sizeof d.key[1]);
	*a = (struct ans){ .loop = loop, .s = s, .asked = uv_hrtime() };
	cr_assert_not_null(store_rate(s, &d, on_rated, a));
}

static void
ask_claim(struct store *s, uv_loop_t *loop, uint8_t k, const char *name, struct ans *a)
{
	uint8_t key[PROTO_IDENT_KEY_LEN];

	memset(key, k, sizeof key);
	*a = (struct ans){ .loop = loop, .s = s, .asked = uv_hrtime() };
	cr_assert_not_null(store_claim_name(s, key, name, on_claimed, a));
}

/* The lock a rating of a key filled with `k` takes first: SQLite's BEGIN IMMEDIATE holds the whole
 * file; PostgreSQL's rating takes the key's advisory lock (store.c key_lock_id: its first 8 bytes). */
static void
hold(struct db *holder, uint8_t k)
{
	uint64_t id = 0;

	for (int i = 0; i < 8; i++)
		id = id << 8 | k;
	cr_assert_eq(db_begin(holder), DB_DONE, "%s", db_errmsg(holder));
	cr_assert_eq(db_lock(holder, (int64_t)id), DB_DONE, "%s", db_errmsg(holder));
}

/* A store open on path with a signer, its start's work (the claim of unsigned rows) done. */
static struct store *
open_store(uv_loop_t *loop, const char *path)
{
	struct store *s;
	char why[300];
	uint8_t sk[32];

	cr_assert(sodium_init() >= 0);
	cr_assert_eq(store_open(loop, path, &s, why, sizeof why), 0, "%s", why);
	memset(sk, 0x44, sizeof sk);
	store_set_signer(s, sk);
	while (store_pending(s) > 0)
		run_for(loop, 5);
	return s;
}

static void
close_store(uv_loop_t *loop, struct store *s)
{
	store_close(s, NULL, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(loop), 0);
}

/* A statement of the test's own, on its own connection: DB_DONE or an assertion. */
static void
sql(struct db *db, const char *text)
{
	cr_assert_eq(db_exec(db, text), DB_DONE, "%s: %s", text, db_errmsg(db));
}

/* An integer the query's one row holds. */
static int64_t
sql_int(struct db *db, const char *text)
{
	struct db_stmt *st = db_prepare(db, text);
	int64_t v;

	cr_assert_not_null(st, "%s: %s", text, db_errmsg(db));
	int rc = db_step(st);
	cr_assert_eq(rc, DB_ROW, "%s: %s", text, rc == DB_DONE ? "no row" : db_errmsg(db));
	v = db_col_int64(st, 0);
	db_finalize(st);
	return v;
}

/*
 * PostgreSQL: a real serialization failure (SQLSTATE 40001) for the store's insert of chosen keys,
 * raised by a trigger of the test's database: a key in `fail_plan` fails its first `fails` inserts,
 * each after `sleep_ms` (pg_sleep: not a lock, so no lock_timeout ends it). The sequence counts
 * every insert of a planned key, failed or not, and is not rolled back with them: the store's tries.
 */
static void
plan_setup(struct db *ctl)
{
	sql(ctl, "CREATE SEQUENCE fail_tries;"
	         "CREATE TABLE fail_plan (key BYTEA PRIMARY KEY, fails BIGINT NOT NULL, sleep_ms BIGINT NOT NULL);"
	         "CREATE FUNCTION fail_planned() RETURNS trigger LANGUAGE plpgsql AS $$"
	         " DECLARE p fail_plan;"
	         " BEGIN"
	         "  SELECT * INTO p FROM fail_plan WHERE key = NEW.key;"
	         "  IF FOUND THEN"
	         "   IF nextval('fail_tries') <= p.fails THEN"
	         "    PERFORM pg_sleep(p.sleep_ms / 1000.0);"
	         "    RAISE EXCEPTION 'a serialization failure planned by the test' USING ERRCODE = 'serialization_failure';"
	         "   END IF;"
	         "  END IF;"
	         "  RETURN NEW;"
	         " END $$;"
	         "CREATE TRIGGER fail_planned BEFORE INSERT ON keys FOR EACH ROW EXECUTE FUNCTION fail_planned();");
}

static void
plan(struct db *ctl, uint8_t k, int64_t fails, int64_t sleep_ms)
{
	uint8_t key[PROTO_IDENT_KEY_LEN];
	struct db_stmt *st = db_prepare(ctl, "INSERT INTO fail_plan VALUES (?1, ?2, ?3)"
	                                     " ON CONFLICT (key) DO UPDATE SET fails = ?2, sleep_ms = ?3;");

	cr_assert_not_null(st, "%s", db_errmsg(ctl));
	memset(key, k, sizeof key);
	db_bind_blob(st, 1, key, sizeof key);
	db_bind_int64(st, 2, fails);
	db_bind_int64(st, 3, sleep_ms);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(ctl));
	db_finalize(st);
	sql(ctl, "ALTER SEQUENCE fail_tries RESTART;");
}

static int64_t
tries(struct db *ctl)
{
	return sql_int(ctl, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM fail_tries;");
}

/* The rating after a shortened request: the lock held HOLD_MS against it, it must wait that out
 * (its whole busy timeout is the connection's again) and be recorded. */
static void
expect_whole_wait(uv_loop_t *loop, struct store *s, struct db *holder, uint8_t duel, const char *after)
{
	struct ans r;

	hold(holder, 0xa1);
	ask_rate(s, loop, 0xa1, duel, duel, &r);
	run_for(loop, HOLD_MS);
	cr_expect_eq(r.n, 0, "the rating was answered (%d, %s) at %llu ms, while the lock was held", r.result, r.why,
	             (unsigned long long)r.ms);
	db_rollback(holder);
	wait_answer(loop, &r, "the rating after the held lock");
	cr_log_info("the rating after %s: %s at %llu ms (%s)", after, r.result == STORE_OK ? "recorded" : "FAILED",
	            (unsigned long long)r.ms, r.why);
	cr_expect_eq(r.result, STORE_OK,
	             "after %s the rating gave up on a lock held %d ms (%s): the claim's shortened wait stayed on the"
	             " connection", after, HOLD_MS, r.why);
	cr_expect_geq(r.ms, HOLD_MS - 50, "answered before the lock went");
}

/*
 * A claim queued QUEUE_MS behind a rating that waits on a held lock runs with what is left of its
 * own 5 s (its statements' lock wait shortened: SQLite's busy timeout, PostgreSQL's lock_timeout),
 * and succeeds; the rating after it gets its whole wait back.
 */
Test(wait, a_claim_shortened_by_its_queueing_leaves_the_rating_after_it_its_whole_wait, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_t loop;
	struct db *holder;
	struct ans first, claim;

	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &holder, why, sizeof why), 0, "%s", why);

	hold(holder, 0xa1);
	ask_rate(s, &loop, 0xa1, 0xb1, 0x01, &first);
	ask_claim(s, &loop, 0xc1, "Cleo", &claim);
	run_for(&loop, QUEUE_MS);
	cr_expect_eq(claim.n, 0, "the claim was answered while the rating ahead of it waited");
	db_rollback(holder);
	wait_answer(&loop, &first, "the first rating");
	wait_answer(&loop, &claim, "the claim");
	cr_log_info("first rating %d at %llu ms; claim %d at %llu ms (%s)", first.result, (unsigned long long)first.ms,
	            claim.result, (unsigned long long)claim.ms, claim.why);
	cr_expect_eq(claim.result, STORE_OK, "the claim failed: %s", claim.why);
	cr_expect_geq(claim.ms, QUEUE_MS, "the claim did not wait in the queue");

	expect_whole_wait(&loop, s, holder, 0x02, "a shortened claim");
	db_close(holder);
	close_store(&loop, s);
	store_target_rm(dir, path);
}

/* Whether the store recorded a key filled with k (a claim that ran records its key first). */
static int64_t
key_rows(struct db *db, uint8_t k)
{
	uint8_t key[PROTO_IDENT_KEY_LEN];
	struct db_stmt *st = db_prepare(db, "SELECT count(*) FROM keys WHERE key = ?1;");
	int64_t n;

	cr_assert_not_null(st, "%s", db_errmsg(db));
	memset(key, k, sizeof key);
	db_bind_blob(st, 1, key, sizeof key);
	cr_assert_eq(db_step(st), DB_ROW, "%s", db_errmsg(db));
	n = db_col_int64(st, 0);
	db_finalize(st);
	return n;
}

/*
 * A rating waits its whole 5 s for a held lock and gives up; a claim queued behind it and a second
 * rating (which gets the lock when it goes, 300 ms later) has nothing left: it is refused unrun
 * with the queue's reason, its key not even recorded.
 */
Test(wait, a_claim_queued_past_its_time_is_refused_unrun_behind_ratings_that_wait_their_whole_time, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_t loop;
	struct db *holder;
	struct ans first, second, claim;

	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &holder, why, sizeof why), 0, "%s", why);

	hold(holder, 0xa1);
	ask_rate(s, &loop, 0xa1, 0xb1, 0x01, &first);
	ask_rate(s, &loop, 0xa1, 0xb2, 0x02, &second);
	ask_claim(s, &loop, 0xc1, "Cleo", &claim);
	run_for(&loop, STORE_BUSY_MS + 300);
	wait_answer(&loop, &first, "the first rating"); /* held until it gave up, however late its thread began it */
	db_rollback(holder);
	wait_answer(&loop, &second, "the second rating");
	wait_answer(&loop, &claim, "the claim");
	cr_log_info("first rating %d at %llu ms (%s); second %d at %llu ms; claim %d at %llu ms (%s)", first.result,
	            (unsigned long long)first.ms, first.why, second.result, (unsigned long long)second.ms, claim.result,
	            (unsigned long long)claim.ms, claim.why);
	cr_expect_eq(first.result, STORE_FAILED, "the first rating went through a held lock");
	cr_expect_geq(first.ms, STORE_BUSY_MS - 50, "the first rating did not wait its whole %d ms", STORE_BUSY_MS);
	cr_expect_eq(second.result, STORE_OK, "the second rating, its lock free at %d ms: %s", STORE_BUSY_MS + 300,
	             second.why);
	cr_expect_eq(claim.result, STORE_FAILED, "the claim passed with no time left");
	cr_expect(strstr(claim.why, "no answer within") != NULL, "the claim's reason: '%s'", claim.why);
	cr_expect_eq(key_rows(holder, 0xc1), 0, "the claim ran: its key is recorded");
	db_close(holder);
	close_store(&loop, s);
	store_target_rm(dir, path);
}

/*
 * The retry out of time (e942aab): a claim queued QUEUE_MS, shortened, meets a serialization failure
 * after its time is gone (the trigger sleeps past it): it is refused with the queue's reason without
 * another try, and the connection's wait is put back, so the rating after it still waits its whole
 * 5 s. (Before e942aab that path returned early and the rating gave up at the claim's leftover.)
 */
Test(wait, a_claim_retried_out_of_its_time_leaves_the_rating_after_it_its_whole_wait, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_t loop;
	struct db *holder, *ctl;
	struct ans first, claim;

	pg_only(dir, path);
	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &holder, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_open(path, &ctl, why, sizeof why), 0, "%s", why);
	plan_setup(ctl);
	/* Past what the claim has left: STORE_BUSY_MS - QUEUE_MS at most. */
	plan(ctl, 0xc1, 1000, STORE_BUSY_MS - QUEUE_MS + 200);

	hold(holder, 0xa1);
	ask_rate(s, &loop, 0xa1, 0xb1, 0x01, &first);
	ask_claim(s, &loop, 0xc1, "Cleo", &claim);
	run_for(&loop, QUEUE_MS);
	db_rollback(holder);
	wait_answer(&loop, &first, "the first rating");
	wait_answer(&loop, &claim, "the claim");
	cr_log_info("first rating %d at %llu ms; claim %d at %llu ms (%s)", first.result, (unsigned long long)first.ms,
	            claim.result, (unsigned long long)claim.ms, claim.why);
	cr_expect_eq(claim.result, STORE_FAILED, "the claim passed a failure planned for every try");
	cr_expect_eq(tries(ctl), 1, "the claim was tried %lld times, not once: its time was gone after the first",
	             (long long)tries(ctl));
	cr_expect(strstr(claim.why, "no answer within") != NULL, "the claim's reason: '%s'", claim.why);

	expect_whole_wait(&loop, s, holder, 0x02, "a claim retried out of its time");
	db_close(ctl);
	db_close(holder);
	close_store(&loop, s);
	store_target_rm(dir, path);
}

/*
 * Serialization failures (PostgreSQL: another node's transaction; here the trigger's, a real
 * SQLSTATE 40001 through libpq) are tried again: a claim and a rating that fail once pass on their
 * second try; a claim that fails every time is given up after 1 + 8 tries with PostgreSQL's reason.
 */
Test(wait, serialization_failures_are_tried_again_at_most_8_times, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_t loop;
	struct db *ctl;
	struct ans a;

	pg_only(dir, path);
	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &ctl, why, sizeof why), 0, "%s", why);
	plan_setup(ctl);

	plan(ctl, 0xc1, 1, 0);
	ask_claim(s, &loop, 0xc1, "Cleo", &a);
	wait_answer(&loop, &a, "the claim failing once");
	cr_expect_eq(a.result, STORE_OK, "a claim failing once: %s", a.why);
	cr_expect_eq(tries(ctl), 2, "a claim failing once was tried %lld times", (long long)tries(ctl));

	plan(ctl, 0xa1, 1, 0);
	ask_rate(s, &loop, 0xa1, 0xb1, 0x01, &a);
	wait_answer(&loop, &a, "the rating failing once");
	cr_expect_eq(a.result, STORE_OK, "a rating failing once: %s", a.why);
	cr_expect_eq(tries(ctl), 2, "a rating failing once was tried %lld times", (long long)tries(ctl));

	plan(ctl, 0xd1, 1000, 0);
	ask_claim(s, &loop, 0xd1, "Dora", &a);
	wait_answer(&loop, &a, "the claim failing always");
	cr_log_info("a claim failing always: %d at %llu ms (%s)", a.result, (unsigned long long)a.ms, a.why);
	cr_expect_eq(a.result, STORE_FAILED, "a claim failing every time passed");
	cr_expect_eq(tries(ctl), 9, "a claim failing every time was tried %lld times, not 1 + 8", (long long)tries(ctl));
	cr_expect(strstr(a.why, "serialization failure planned by the test") != NULL, "the reason: '%s'", a.why);
	cr_expect_eq(sql_int(ctl, "SELECT count(*) FROM names WHERE name = 'Dora';"), 0, "a failed claim owns the name");

	db_close(ctl);
	close_store(&loop, s);
	store_target_rm(dir, path);
}

/*
 * A lost connection (the claim's backend ended by pg_terminate_backend while it waits for another
 * transaction's row) is made again and the claim run again on it, within its 5 s: a claim queued
 * behind a rating (so shortened) gets the name once the other transaction is gone.
 */
Test(wait, a_claim_whose_connection_is_lost_is_answered_on_a_new_one_in_its_time, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_t loop;
	struct db *holder, *rows, *ctl;
	struct ans first, claim;
	struct db_stmt *st;
	uint8_t other[PROTO_IDENT_KEY_LEN];
	int64_t pid = 0;

	pg_only(dir, path);
	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &holder, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_open(path, &rows, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_open(path, &ctl, why, sizeof why), 0, "%s", why);

	/* Another node inserting the name Dora, not committed yet: the claim of DORA waits for it. */
	memset(other, 0xd2, sizeof other);
	cr_assert_eq(db_begin(rows), DB_DONE, "%s", db_errmsg(rows));
	st = db_prepare(rows, "INSERT INTO keys VALUES (?1, 1, 1);");
	db_bind_blob(st, 1, other, sizeof other);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(rows));
	db_finalize(st);
	st = db_prepare(rows, "INSERT INTO names VALUES ('Dora', ?1, 1, 1);");
	db_bind_blob(st, 1, other, sizeof other);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(rows));
	db_finalize(st);

	hold(holder, 0xa1);
	ask_rate(s, &loop, 0xa1, 0xb1, 0x01, &first);
	ask_claim(s, &loop, 0xc1, "DORA", &claim);
	run_for(&loop, 300); /* queued past the 100 ms slack: the claim is shortened */
	db_rollback(holder);
	wait_answer(&loop, &first, "the first rating");
	cr_expect_eq(first.result, STORE_OK, "%s", first.why);
	/* The store's backend waiting on a lock: the claim, on the other transaction's row. */
	for (int i = 0; i < 300 && pid == 0 && claim.n == 0; i++) {
		st = db_prepare(ctl, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
		                     " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid();");
		cr_assert_not_null(st, "%s", db_errmsg(ctl));
		if (db_step(st) == DB_ROW)
			pid = db_col_int64(st, 0);
		db_finalize(st);
		if (pid == 0)
			run_for(&loop, 10);
	}
	cr_assert_neq(pid, 0, "the claim never waited for the other transaction (answered: %d, %s)", claim.n, claim.why);
	/* Its end waited for (PostgreSQL 14's timeout argument), so that the other transaction is not
	 * gone first and the claim through on its old connection. */
	st = db_prepare(ctl, "SELECT pg_terminate_backend(?1, 5000);");
	db_bind_int64(st, 1, pid);
	cr_assert_eq(db_step(st), DB_ROW, "%s", db_errmsg(ctl));
	db_finalize(st);
	db_rollback(rows); /* the other node gives up its insert: the name is free */
	wait_answer(&loop, &claim, "the claim");
	cr_log_info("the claim, its backend %lld ended: %d at %llu ms (%s)", (long long)pid, claim.result,
	            (unsigned long long)claim.ms, claim.why);
	cr_expect_eq(claim.result, STORE_OK, "the claim after a lost connection: %s", claim.why);
	cr_expect_lt(claim.ms, STORE_BUSY_MS, "answered past its 5 s");
	cr_expect_eq(sql_int(ctl, "SELECT get_byte(key, 0) FROM names WHERE lower(name) = 'dora';"), 0xc1,
	             "the name is not the claiming key's");

	db_close(ctl);
	db_close(rows);
	db_close(holder);
	close_store(&loop, s);
	store_target_rm(dir, path);
}

/*
 * PostgreSQL slow to take a connection (a stopped or overloaded server, a slow network: here its
 * postmaster stopped, WIZWAR_TEST_PG_PID from pgunit.sh, so that a new connection waits while the
 * backends running go on): a claim whose connection is lost is made again, which takes STALL_MS, and
 * what is left of its 5 s is counted after that. Its name is held by another transaction throughout,
 * so it waits its lock to the end of its 5 s and no longer: before, it waited a whole 5 s from the
 * connection's return, 5 s + STALL_MS from its asking.
 */
#define STALL_MS 2500

/* A child of its own sends SIGCONT after ms, so that the postmaster runs again even if the test dies. */
static pid_t
stall_postmaster(pid_t pm, unsigned ms)
{
	pid_t c;

	cr_assert_eq(kill(pm, SIGSTOP), 0, "cannot stop the postmaster %d", (int)pm);
	if ((c = fork()) == 0) {
		struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		kill(pm, SIGCONT);
		_exit(0);
	}
	if (c < 0)
		kill(pm, SIGCONT);
	cr_assert_gt(c, 0, "fork");
	return c;
}

Test(wait, a_claim_made_to_wait_for_its_connection_gets_only_the_rest_of_its_time, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-wait-XXXXXX", buf[300], why[300];
	const char *path = store_target(dir, buf, sizeof buf);
	const char *pm = getenv("WIZWAR_TEST_PG_PID");
	uv_loop_t loop;
	struct db *rows, *ctl;
	struct db_stmt *st;
	struct ans claim;
	uint8_t other[PROTO_IDENT_KEY_LEN];
	int status;

	pg_only(dir, path);
	if (pm == NULL || atoi(pm) <= 1)
		cr_skip_test("no WIZWAR_TEST_PG_PID: the PostgreSQL is not this test run's own (pgunit.sh gives it)");
	uv_loop_init(&loop);
	struct store *s = open_store(&loop, path);
	cr_assert_eq(db_open(path, &rows, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_open(path, &ctl, why, sizeof why), 0, "%s", why);

	/* Another node's uncommitted Eve: the claim of EVE waits for it until its own time is up. */
	memset(other, 0xe2, sizeof other);
	cr_assert_eq(db_begin(rows), DB_DONE, "%s", db_errmsg(rows));
	st = db_prepare(rows, "INSERT INTO keys VALUES (?1, 1, 1);");
	db_bind_blob(st, 1, other, sizeof other);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(rows));
	db_finalize(st);
	st = db_prepare(rows, "INSERT INTO names VALUES ('Eve', ?1, 1, 1);");
	db_bind_blob(st, 1, other, sizeof other);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(rows));
	db_finalize(st);

	/* The store's connection (the one idle client backend: `rows` is in a transaction) ended. */
	cr_assert_eq(sql_int(ctl, "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
	                          " WHERE datname = current_database() AND backend_type = 'client backend'"
	                          " AND state = 'idle' AND pid <> pg_backend_pid();"),
	             1, "not one store connection ended");
	pid_t cont = stall_postmaster(atoi(pm), STALL_MS);
	ask_claim(s, &loop, 0xc1, "EVE", &claim);
	wait_answer(&loop, &claim, "the claim");
	cr_assert_eq(waitpid(cont, &status, 0), cont);
	cr_log_info("the claim, its connection made again in %d ms: %d at %llu ms (%s)", STALL_MS, claim.result,
	            (unsigned long long)claim.ms, claim.why);
	cr_expect_eq(claim.result, STORE_FAILED, "the claim got a name another transaction holds: %s", claim.why);
	cr_expect_geq(claim.ms, STALL_MS, "the connection was not made again while the postmaster was stopped");
	cr_expect_lt(claim.ms, STORE_BUSY_MS + STALL_MS / 2,
	             "answered at %llu ms: it waited for its lock %d ms from the connection's return, not the rest of"
	             " its own %d ms", (unsigned long long)claim.ms, STORE_BUSY_MS, STORE_BUSY_MS);
	db_rollback(rows);
	db_close(ctl);
	db_close(rows);
	close_store(&loop, s);
	store_target_rm(dir, path);
}
