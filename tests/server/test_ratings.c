/* SPDX-License-Identifier: MIT */
/* test_ratings: the store's rating transaction: signed, checked against Glicko-2, idempotent by the duel's id, none lost by two stores at once, each record with its signer, a lock wait shortened (db_wait) giving up in time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "db.h"
#include "glicko.h"
#include "rated.h"
#include "store.h"
#include "store_target.h"

struct got {
	int n, result;
	struct wire_msg m;
};

static void
on_answer(void *ud, int result, const struct wire_msg *m)
{
	struct got *g = ud;

	g->n++;
	g->result = result;
	if (m)
		g->m = *m;
}

static struct got *
rate(uv_loop_t *loop, struct store *s, const struct store_duel *d)
{
	static struct got g;

	memset(&g, 0, sizeof g);
	cr_assert_not_null(store_rate(s, d, on_answer, &g));
	while (g.n == 0)
		uv_run(loop, UV_RUN_ONCE);
	return &g;
}

Test(ratings, one_transaction_signed_and_idempotent)
{
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", buf[300], why[300];
	uint8_t sk[32], pk[32];
	uv_loop_t loop;
	struct store *s;
	struct store_duel d = { 1800000000, { 0 }, { { 0 } }, RATED_WIN0, END_KILLED };
	struct rated_rec first;
	struct glicko a, b;
	struct glicko_params gp = glicko_lichess();

	cr_assert(sodium_init() >= 0);
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_init(&loop);
	cr_assert_eq(store_open(&loop, path, &s, why, sizeof why), 0, "%s", why);
	memset(sk, 0x42, sizeof sk);
	crypto_scalarmult_base(pk, sk);
	store_set_signer(s, sk);
	memset(d.commit, 0xc1, sizeof d.commit);
	memset(d.key[0], 0xa1, sizeof d.key[0]);
	memset(d.key[1], 0xb2, sizeof d.key[1]);

	struct got *g = rate(&loop, s, &d);
	cr_assert_eq(g->result, STORE_OK);
	cr_assert_eq(g->m.type, WIRE_RATED);
	first = g->m.u.rated.rec;
	cr_assert(rated_verify(&first, g->m.u.rated.signer, pk), "signed by the server's key");
	cr_assert(glicko_duel(&gp, gp.start, gp.start, 1.0, 0, &a, &b));
	cr_expect_float_eq(first.after[0].rating, a.rating, 1e-9);
	cr_expect_float_eq(first.after[1].rating, b.rating, 1e-9);
	cr_expect_float_eq(first.before[0].rating, 1500, 1e-9);

	/* The same duel again (a resumed room's end, a log rated again at a start): the first record, nothing counted. */
	d.time += 100;
	d.result = RATED_WIN1;
	g = rate(&loop, s, &d);
	cr_assert_eq(g->result, STORE_OK);
	cr_assert(memcmp(&g->m.u.rated.rec, &first, sizeof first) == 0, "the first record, unchanged");

	/* Another duel: counted, from the ratings the first left, a day later (periods widen the deviation). */
	d.commit[0] = 0x01;
	d.time = 1800000000 + 86400;
	g = rate(&loop, s, &d);
	cr_assert_eq(g->result, STORE_OK);
	cr_expect_float_eq(g->m.u.rated.rec.before[0].rating, first.after[0].rating, 1e-9);
	cr_expect_float_eq(g->m.u.rated.rec.before[1].deviation, first.after[1].deviation, 1e-9);
	struct glicko_result res = { { first.after[0].rating, first.after[0].deviation, first.after[0].volatility }, 1.0 };
	struct glicko want;
	cr_assert(glicko_update(&gp, (struct glicko){ first.after[1].rating, first.after[1].deviation, first.after[1].volatility },
	                        &res, 1, gp.periods_per_day, &want));
	cr_expect_float_eq(g->m.u.rated.rec.after[1].rating, want.rating, 1e-9);
	cr_expect_float_eq(g->m.u.rated.rec.after[1].deviation, want.deviation, 1e-9);

	/* One key on both seats: refused. */
	memcpy(d.key[1], d.key[0], sizeof d.key[1]);
	d.commit[0] = 0x02;
	g = rate(&loop, s, &d);
	cr_expect_eq(g->result, STORE_FAILED);

	/* History and the ladder. */
	struct wire_ask ask = { ASK_HISTORY, "", 0 };
	struct got h;
	memset(&h, 0, sizeof h);
	cr_assert_not_null(store_ask(s, d.key[0], &ask, on_answer, &h));
	while (h.n == 0)
		uv_run(&loop, UV_RUN_ONCE);
	cr_assert_eq(h.m.type, WIRE_RECORDS);
	cr_expect_eq(h.m.u.records.count, 2);
	cr_expect_eq(h.m.u.records.rec[0].rec.commit[0], 0x01, "newest first");
	ask.kind = ASK_TOP;
	memset(&h, 0, sizeof h);
	cr_assert_not_null(store_ask(s, d.key[0], &ask, on_answer, &h));
	while (h.n == 0)
		uv_run(&loop, UV_RUN_ONCE);
	cr_assert_eq(h.m.type, WIRE_LADDER);
	cr_expect_eq(h.m.u.ladder.count, 2);
	cr_expect_eq(h.m.u.ladder.flags, LADDER_ALL);
	cr_expect_eq(h.m.u.ladder.row[0].games, 2);
	/* No name claimed: a key's first bytes stand for it. */
	cr_expect(strcmp(h.m.u.ladder.row[0].name, "key-a1a1a1a1") == 0 || strcmp(h.m.u.ladder.row[1].name, "key-a1a1a1a1") == 0);

	/* History past a page (54): pages by ASK's skip, newest first, none twice, none left out. */
	memset(d.key[1], 0xb2, sizeof d.key[1]);
	for (int i = 0; i < 104; i++) {
		d.commit[0] = 0x10;
		d.commit[1] = (uint8_t)i;
		d.time++;
		cr_assert_eq(rate(&loop, s, &d)->result, STORE_OK);
	}
	static const struct { uint32_t skip; unsigned count; uint8_t first0, first1; } pages[] = {
		{ 0, 54, 0x10, 103 }, { 1, 54, 0x10, 102 }, { 54, 52, 0x10, 49 }, { 100, 6, 0x10, 3 }, { 104, 2, 0x01, 0xc1 }, { 106, 0, 0, 0 },
		{ 4000000000u, 0, 0, 0 },
	};
	ask.kind = ASK_HISTORY;
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		ask.skip = pages[i].skip;
		memset(&h, 0, sizeof h);
		cr_assert_not_null(store_ask(s, d.key[0], &ask, on_answer, &h));
		while (h.n == 0)
			uv_run(&loop, UV_RUN_ONCE);
		cr_assert_eq(h.m.type, WIRE_RECORDS);
		cr_expect_eq(h.m.u.records.count, pages[i].count, "skip %u: %u records", pages[i].skip, h.m.u.records.count);
		if (pages[i].count)
			cr_expect(h.m.u.records.rec[0].rec.commit[0] == pages[i].first0 && h.m.u.records.rec[0].rec.commit[1] == pages[i].first1,
			          "skip %u: the newest after them first", pages[i].skip);
	}

	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	store_target_rm(dir, path);
}

/*
 * Two stores on one database (two nodes of a cluster on one PostgreSQL; two connections on one file)
 * rate duels of the same key at once, each its own queue and thread: none is lost, and each record
 * starts from the rating the one before it left (a lost update would start two from the same).
 */
static void
on_many(void *ud, int result, const struct wire_msg *m)
{
	int *left = ud;

	cr_expect_eq(result, STORE_OK);
	cr_expect(m && m->type == WIRE_RATED);
	(*left)--;
}

Test(ratings, two_stores_rating_one_key_at_once_lose_nothing, .timeout = 120)
{
	enum { EACH = 24 };
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", buf[300], why[300];
	uint8_t sk[32];
	uv_loop_t loop;
	struct store *s[2];
	int left = 2 * EACH;

	cr_assert(sodium_init() >= 0);
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_init(&loop);
	memset(sk, 0x43, sizeof sk);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(store_open(&loop, path, &s[i], why, sizeof why), 0, "%s", why);
		store_set_signer(s[i], sk);
	}
	for (int n = 0; n < EACH; n++)
		for (int i = 0; i < 2; i++) {
			struct store_duel d = { 1800000000 + n, { 0 }, { { 0 } }, (uint8_t)(n % 3), END_KILLED };
			memset(d.commit, 0xd0 + i, sizeof d.commit);
			d.commit[1] = (uint8_t)n;
			memset(d.key[0], 0x5a, sizeof d.key[0]);       /* the key both rate */
			memset(d.key[1], 0x60 + 2 * n + i, sizeof d.key[1]); /* a new opponent each time */
			cr_assert_not_null(store_rate(s[i], &d, on_many, &left));
		}
	while (left > 0)
		uv_run(&loop, UV_RUN_ONCE);

	/* The key's history, oldest last: each record's "before" is the "after" of the one rated before it. */
	struct wire_ask ask = { ASK_HISTORY, "", 0 };
	struct got h;
	uint8_t k[PROTO_IDENT_KEY_LEN];
	memset(k, 0x5a, sizeof k);
	memset(&h, 0, sizeof h);
	cr_assert_not_null(store_ask(s[0], k, &ask, on_answer, &h));
	while (h.n == 0)
		uv_run(&loop, UV_RUN_ONCE);
	cr_assert_eq(h.m.type, WIRE_RECORDS);
	cr_assert_eq(h.m.u.records.count, 2 * EACH, "every duel recorded once");
	for (int i = 0; i + 1 < 2 * EACH; i++) {
		const struct rated_rec *newer = &h.m.u.records.rec[i].rec, *older = &h.m.u.records.rec[i + 1].rec;
		cr_expect(newer->before[0].rating == older->after[0].rating &&
		              newer->before[0].deviation == older->after[0].deviation,
		          "record %d starts from %.6f, not from the %.6f the one before it left: an update was lost", i,
		          newer->before[0].rating, older->after[0].rating);
	}
	ask.kind = ASK_TOP;
	memset(&h, 0, sizeof h);
	cr_assert_not_null(store_ask(s[1], k, &ask, on_answer, &h));
	while (h.n == 0)
		uv_run(&loop, UV_RUN_ONCE);
	bool seen = false;
	for (unsigned i = 0; i < h.m.u.ladder.count; i++)
		if (strcmp(h.m.u.ladder.row[i].name, "key-5a5a5a5a") == 0) {
			cr_expect_eq(h.m.u.ladder.row[i].games, 2 * EACH);
			seen = true;
		}
	cr_expect(seen, "the key is on the ladder");
	for (int i = 0; i < 2; i++)
		store_close(s[i], NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	store_target_rm(dir, path);
}

/* The history a key's of `s`: its RECORDS. */
static struct got *
history_of(uv_loop_t *loop, struct store *s, uint8_t fill)
{
	static struct got h;
	struct wire_ask ask = { ASK_HISTORY, "", 0 };
	uint8_t k[PROTO_IDENT_KEY_LEN];

	memset(k, fill, sizeof k);
	memset(&h, 0, sizeof h);
	cr_assert_not_null(store_ask(s, k, &ask, on_answer, &h));
	while (h.n == 0)
		uv_run(loop, UV_RUN_ONCE);
	cr_assert_eq(h.m.type, WIRE_RECORDS);
	return &h;
}

/* Does a record verify against the server key whose secret is sk, through its own signer? */
static bool
signed_by(const struct wire_rated *r, const uint8_t sk[32])
{
	uint8_t pk[32], signer[RATED_SIGNER_LEN];

	cr_assert_eq(crypto_scalarmult_base(pk, sk), 0);
	cr_assert_eq(rated_signer(sk, signer), 0);
	return memcmp(r->signer, signer, sizeof signer) == 0 && rated_verify(&r->rec, r->signer, pk);
}

/*
 * Two nodes of a cluster on one store, each its own key (schema step 5): each record keeps the
 * signer of the node that rated it, a history asked of either node names each record's own
 * signer, and a duel rated again by the other node (a takeover) is answered with the first
 * node's record under the first node's signer. Rows an older build wrote have no signer: each
 * node claims, when it starts, those its key signed, and only those.
 */
/* A rated duel's row as a build before schema step 5 wrote it: no signer column. */
static void
insert_unsigned_row(struct db *db, const struct rated_rec *r)
{
	uint8_t blob[RATED_SIGNED_LEN];
	struct db_stmt *st = db_prepare(db, "INSERT INTO results (duel, time, key0, key1, result, reason, record)"
	                                    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);");

	cr_assert_not_null(st, "%s", db_errmsg(db));
	rated_put(r, blob);
	db_bind_blob(st, 1, r->commit, sizeof r->commit);
	db_bind_int64(st, 2, (int64_t)r->time);
	db_bind_blob(st, 3, r->key[0], PROTO_IDENT_KEY_LEN);
	db_bind_blob(st, 4, r->key[1], PROTO_IDENT_KEY_LEN);
	db_bind_int64(st, 5, r->result);
	db_bind_int64(st, 6, r->reason);
	db_bind_blob(st, 7, blob, sizeof blob);
	cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(db));
	db_finalize(st);
}

Test(ratings, each_record_keeps_the_signer_of_the_node_that_rated_it, .timeout = 120)
{
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", buf[300], why[300];
	uint8_t sk[2][32];
	uv_loop_t loop;
	struct store *s[2];
	struct store_duel d = { 1800001000, { 0 }, { { 0 } }, RATED_WIN1, END_RESIGNED };

	cr_assert(sodium_init() >= 0);
	const char *path = store_target(dir, buf, sizeof buf);
	uv_loop_init(&loop);
	for (int i = 0; i < 2; i++) {
		memset(sk[i], 0x71 + i, sizeof sk[i]);
		cr_assert_eq(store_open(&loop, path, &s[i], why, sizeof why), 0, "%s", why);
		store_set_signer(s[i], sk[i]);
	}
	memset(d.key[0], 0x7a, sizeof d.key[0]);
	memset(d.key[1], 0x7b, sizeof d.key[1]);
	for (int i = 0; i < 2; i++) { /* duel 0 rated by node 0, duel 1 by node 1 */
		memset(d.commit, 0xe0 + i, sizeof d.commit);
		d.time++;
		struct got *g = rate(&loop, s[i], &d);
		cr_assert_eq(g->result, STORE_OK);
		cr_expect(signed_by(&g->m.u.rated, sk[i]), "node %d's RATED is its own signature", i);
	}
	/* Node 1 rates duel 0 again (it took the room over after node 0 rated it): node 0's record. */
	memset(d.commit, 0xe0, sizeof d.commit);
	struct got *g = rate(&loop, s[1], &d);
	cr_assert_eq(g->result, STORE_OK);
	cr_expect(signed_by(&g->m.u.rated, sk[0]), "a duel rated again is answered under its first signer");
	for (int i = 0; i < 2; i++) {
		struct got *h = history_of(&loop, s[i], 0x7a);
		cr_assert_eq(h->m.u.records.count, 2);
		cr_expect(signed_by(&h->m.u.records.rec[0], sk[1]) && signed_by(&h->m.u.records.rec[1], sk[0]),
		          "node %d's history: each record under the signer of the node that rated it", i);
	}

	/* Rows of an older build: no signer. Duel 2 signed with node 0's key, duel 3 with node 1's. */
	struct db *db;
	cr_assert_eq(db_open(path, &db, why, sizeof why), 0, "%s", why);
	for (int i = 0; i < 2; i++) {
		struct rated_rec r;
		memset(&r, 0, sizeof r);
		r.time = 1800002000 + (uint64_t)i;
		memset(r.commit, 0xe2 + i, sizeof r.commit);
		memcpy(r.key, d.key, sizeof r.key);
		r.result = RATED_DRAW;
		r.reason = END_TURN_LIMIT;
		for (int p = 0; p < PLAYERS; p++)
			r.before[p] = r.after[p] = (struct rated_rating){ 1500, 350, 0.06 };
		cr_assert_eq(rated_sign(&r, sk[i]), 0);
		insert_unsigned_row(db, &r);
	}
	/* Before anyone claims them: each goes out under the answering node's key (as an older build
	 * sent every record), so node 0's own verifies and node 1's does not. */
	struct got *h = history_of(&loop, s[0], 0x7a);
	cr_assert_eq(h->m.u.records.count, 4);
	cr_expect(signed_by(&h->m.u.records.rec[1], sk[0]), "duel 2 under node 0's key");
	cr_expect(!signed_by(&h->m.u.records.rec[0], sk[0]) && !signed_by(&h->m.u.records.rec[0], sk[1]),
	          "duel 3, unclaimed, under node 0's key: it does not verify");
	/* Node 0 restarts (its store opened again): it claims duel 2, not duel 3. */
	store_close(s[0], NULL, NULL);
	cr_assert_eq(store_open(&loop, path, &s[0], why, sizeof why), 0, "%s", why);
	store_set_signer(s[0], sk[0]);
	h = history_of(&loop, s[0], 0x7a); /* after the claim: it is first in the queue */
	cr_expect(signed_by(&h->m.u.records.rec[1], sk[0]), "duel 2 claimed by node 0");
	struct db_stmt *st = db_prepare(db, "SELECT count(*) FROM results WHERE signer IS NULL;");
	cr_assert_eq(db_step(st), DB_ROW);
	cr_expect_eq(db_col_int64(st, 0), 1, "node 0 claimed only the row its key signed");
	db_finalize(st);
	/* Node 1 restarts: it claims duel 3; both nodes' histories now verify throughout. */
	store_close(s[1], NULL, NULL);
	cr_assert_eq(store_open(&loop, path, &s[1], why, sizeof why), 0, "%s", why);
	store_set_signer(s[1], sk[1]);
	for (int i = 1; i >= 0; i--) {
		h = history_of(&loop, s[i], 0x7a);
		cr_assert_eq(h->m.u.records.count, 4);
		for (int j = 0; j < 4; j++)
			cr_expect(signed_by(&h->m.u.records.rec[j], sk[0]) || signed_by(&h->m.u.records.rec[j], sk[1]),
			          "node %d's history, record %d: verifies against its own signer", i, j);
	}
	st = db_prepare(db, "SELECT count(*) FROM results WHERE signer IS NULL;");
	cr_assert_eq(db_step(st), DB_ROW);
	cr_expect_eq(db_col_int64(st, 0), 0, "every row has its signer");
	db_finalize(st);
	db_close(db);
	for (int i = 0; i < 2; i++)
		store_close(s[i], NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	store_target_rm(dir, path);
}

/* A store of schema version 4 (an older build's) holding a rated duel: opened by this build it
 * gains the signer column (step 5), and the row, whose signature is this node's, gets its
 * signer: the history answers it under that signer, and the database says so. */
Test(ratings, a_version_4_store_is_migrated_and_its_rows_claimed, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", buf[300], why[300];
	uint8_t sk[32], signer[RATED_SIGNER_LEN];
	uv_loop_t loop;
	struct store *s;
	struct db *db;
	struct rated_rec r;
	int v;

	cr_assert(sodium_init() >= 0);
	const char *path = store_target(dir, buf, sizeof buf);
	cr_assert_eq(store_migrate_to(path, 4, why, sizeof why), 0, "%s", why);
	memset(sk, 0x91, sizeof sk);
	cr_assert_eq(rated_signer(sk, signer), 0);
	memset(&r, 0, sizeof r);
	r.time = 1800003000;
	memset(r.commit, 0xf4, sizeof r.commit);
	memset(r.key[0], 0x94, sizeof r.key[0]);
	memset(r.key[1], 0x95, sizeof r.key[1]);
	r.result = RATED_WIN0;
	r.reason = END_KILLED;
	for (int p = 0; p < PLAYERS; p++)
		r.before[p] = r.after[p] = (struct rated_rating){ 1500, 350, 0.06 };
	cr_assert_eq(rated_sign(&r, sk), 0);
	cr_assert_eq(db_open(path, &db, why, sizeof why), 0, "%s", why);
	struct db_stmt *st;
	for (int p = 0; p < PLAYERS; p++) { /* the two players, as a claim wrote them */
		st = db_prepare(db, "INSERT INTO keys VALUES (?1, 1, 1);");
		db_bind_blob(st, 1, r.key[p], PROTO_IDENT_KEY_LEN);
		cr_assert_eq(db_step(st), DB_DONE, "%s", db_errmsg(db));
		db_finalize(st);
	}
	insert_unsigned_row(db, &r); /* step 4's columns only: what an older build wrote */
	db_close(db);

	uv_loop_init(&loop);
	cr_assert_eq(store_open(&loop, path, &s, why, sizeof why), 0, "%s", why);
	cr_assert_eq(store_schema_version(path, &v, why, sizeof why), 0, "%s", why);
	cr_expect_eq(v, 5);
	store_set_signer(s, sk);
	struct got *h = history_of(&loop, s, 0x94);
	cr_assert_eq(h->m.u.records.count, 1);
	cr_expect(signed_by(&h->m.u.records.rec[0], sk));
	cr_assert_eq(db_open(path, &db, why, sizeof why), 0, "%s", why);
	st = db_prepare(db, "SELECT signer FROM results;");
	cr_assert_eq(db_step(st), DB_ROW, "%s", db_errmsg(db));
	size_t n = 0;
	const void *got = db_col_blob(st, 0, &n);
	cr_expect(got && n == RATED_SIGNER_LEN && memcmp(got, signer, n) == 0, "the row has its signer");
	db_finalize(st);
	db_close(db);
	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	store_target_rm(dir, path);
}

/* db_wait: a statement waits for a held lock only as long as it is told, then fails; told
 * DB_BUSY_MS again it waits that long again (the store shortens a player's request by what it
 * waited in the queue). SQLite's busy timeout, PostgreSQL's lock_timeout. */
Test(ratings, a_shortened_wait_gives_up_on_a_held_lock_in_time, .timeout = 60)
{
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", buf[300], why[300];
	struct db *holder, *waiter;
	uint64_t t0, ms;

	const char *path = store_target(dir, buf, sizeof buf);
	cr_assert_eq(db_open(path, &holder, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_open(path, &waiter, why, sizeof why), 0, "%s", why);
	cr_assert_eq(db_begin(holder), DB_DONE, "%s", db_errmsg(holder));
	cr_assert_eq(db_lock(holder, 42), DB_DONE, "%s", db_errmsg(holder));
	cr_assert_eq(db_wait(waiter, 300), 0, "%s", db_errmsg(waiter));
	t0 = uv_hrtime();
	int rc = db_begin(waiter);
	if (rc == DB_DONE)
		rc = db_lock(waiter, 42);
	ms = (uv_hrtime() - t0) / 1000000u;
	cr_expect_eq(rc, DB_ERR, "the held lock was taken");
	cr_log_info("gave up after %llu ms: %s", (unsigned long long)ms, db_errmsg(waiter));
	cr_expect_geq(ms, 250, "gave up before its 300 ms");
	cr_expect_lt(ms, DB_BUSY_MS / 2, "waited its whole default timeout, not the 300 ms it was told");
	db_rollback(waiter);
	cr_assert_eq(db_wait(waiter, DB_BUSY_MS), 0, "%s", db_errmsg(waiter));
	db_rollback(holder);
	cr_assert_eq(db_begin(waiter), DB_DONE, "%s", db_errmsg(waiter));
	cr_assert_eq(db_lock(waiter, 42), DB_DONE, "%s", db_errmsg(waiter));
	db_rollback(waiter);
	db_close(waiter);
	db_close(holder);
	store_target_rm(dir, path);
}
