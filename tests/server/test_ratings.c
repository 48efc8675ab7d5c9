/* SPDX-License-Identifier: MIT */
/* test_ratings: the store's rating transaction: signed, checked against Glicko-2, idempotent by the duel's id, none lost by two stores at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "glicko.h"
#include "rated.h"
#include "store.h"

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

/* The store under test: WIZWAR_TEST_STORE (a PostgreSQL URI: tests/server/pgunit.sh starts one, a fresh
 * database for each run) or a new SQLite file in `dir`. The same tests, either driver. */
static const char *
target(char *dir, char *path, size_t len)
{
	const char *pg = getenv("WIZWAR_TEST_STORE");

	if (pg && *pg)
		return pg;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/store.db", dir);
	return path;
}

static void
target_rm(const char *dir, const char *path)
{
	char side[320];

	if (strcmp(path, getenv("WIZWAR_TEST_STORE") ? getenv("WIZWAR_TEST_STORE") : "") == 0)
		return;
	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
	rmdir(dir);
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
	const char *path = target(dir, buf, sizeof buf);
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
	cr_expect_eq(h.m.u.records.rec[0].commit[0], 0x01, "newest first");
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

	/* History past a page (60): pages by ASK's skip, newest first, none twice, none left out. */
	memset(d.key[1], 0xb2, sizeof d.key[1]);
	for (int i = 0; i < 104; i++) {
		d.commit[0] = 0x10;
		d.commit[1] = (uint8_t)i;
		d.time++;
		cr_assert_eq(rate(&loop, s, &d)->result, STORE_OK);
	}
	static const struct { uint32_t skip; unsigned count; uint8_t first0, first1; } pages[] = {
		{ 0, 60, 0x10, 103 }, { 1, 60, 0x10, 102 }, { 60, 46, 0x10, 43 }, { 100, 6, 0x10, 3 }, { 104, 2, 0x01, 0xc1 }, { 106, 0, 0, 0 },
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
			cr_expect(h.m.u.records.rec[0].commit[0] == pages[i].first0 && h.m.u.records.rec[0].commit[1] == pages[i].first1,
			          "skip %u: the newest after them first", pages[i].skip);
	}

	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	target_rm(dir, path);
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
	const char *path = target(dir, buf, sizeof buf);
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
		const struct rated_rec *newer = &h.m.u.records.rec[i], *older = &h.m.u.records.rec[i + 1];
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
	target_rm(dir, path);
}
