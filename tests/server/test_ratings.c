/* SPDX-License-Identifier: MIT */
/* test_ratings: the store's rating transaction: signed, checked against Glicko-2, idempotent by the duel's id. */
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

Test(ratings, one_transaction_signed_and_idempotent)
{
	char dir[] = "/tmp/wizwar-ratings-XXXXXX", path[300], why[300];
	uint8_t sk[32], pk[32];
	uv_loop_t loop;
	struct store *s;
	struct store_duel d = { 1800000000, { 0 }, { { 0 } }, RATED_WIN0, END_KILLED };
	struct rated_rec first;
	struct glicko a, b;
	struct glicko_params gp = glicko_lichess();

	cr_assert(sodium_init() >= 0);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/store.db", dir);
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
	unlink(path);
	char side[320];
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
	rmdir(dir);
}
