/* SPDX-License-Identifier: MIT */
/* server/ident: the client's key proven in the channel (IDENT), names owned by the first key in the store, the
 * store's migrations, and a store whose file is locked by another process not stopping the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "harness.h"
#include "store.h"

/* A fresh store path in a fresh folder. */
static void
temp_store(char *path, size_t len)
{
	char dir[] = "/tmp/wizwar-ident-XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/server.db", dir);
}

static void
temp_store_rm(const char *path)
{
	char buf[300], *slash;

	snprintf(buf, sizeof buf, "%s", path);
	unlink(path);
	snprintf(buf, sizeof buf, "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof buf, "%s-shm", path);
	unlink(buf);
	snprintf(buf, sizeof buf, "%s", path);
	if ((slash = strrchr(buf, '/')) != NULL) {
		*slash = '\0';
		rmdir(buf);
	}
}

static bool
raw_settled(void *ud)
{
	struct raw *r = ud;
	return r->closed || r->eof || r->count[WIRE_WELCOME] > 0;
}

static bool
raw_challenged(void *ud)
{
	struct raw *r = ud;
	return r->closed || r->eof || r->count[WIRE_CHALLENGE] > 0;
}

/* A raw peer with key id joins name in room (made if new); run until WELCOME or the close. */
static void
join_with(struct th *t, struct raw *r, const struct auth_ident *id, const char *name, const char *room)
{
	raw_start(t, r);
	r->id = *id;
	raw_join_as(r, name, room, true);
	th_run(t, 10000, raw_settled, r);
}

static void
expect_refused(struct raw *r, int code, const char *text)
{
	struct wire_msg err;
	int nerr = 0;

	raw_decode(r, &err, &nerr);
	cr_expect_eq(r->count[WIRE_WELCOME], 0, "a WELCOME came");
	cr_assert_geq(nerr, 1, "no ERROR before the drop");
	cr_expect_eq(err.u.error.code, code, "ERROR %d (%s), expected %d", err.u.error.code, err.u.error.text, code);
	cr_expect(err.u.error.fatal);
	cr_expect(strstr(err.u.error.text, text) != NULL, "'%s' does not say '%s'", err.u.error.text, text);
}

/* The joined connection of that name: the server's view of its key. */
static const uint8_t *
server_key_of(struct th *t, const char *name)
{
	for (struct conn *c = t->srv->conns; c; c = c->next)
		if (c->state == CONN_JOINED && strcmp(c->who.name, name) == 0)
			return conn_ident(c);
	return NULL;
}

static bool closed_flag;
static void
on_closed(void *ud)
{
	(void)ud;
	closed_flag = true;
}
static bool
is_closed(void *ud)
{
	(void)ud;
	return closed_flag;
}

/* Stop the server and start another on the same loop with the same config (its store file). */
static void
restart(struct th *t, const struct server_config *c)
{
	closed_flag = false;
	server_close(t->srv, on_closed, NULL);
	t->srv = NULL;
	th_run(t, 10000, is_closed, NULL);
	th_server(t, c);
}

Test(ident, a_name_belongs_to_the_first_key_across_restarts, .timeout = 120)
{
	static struct raw a, b, a2, b2, a3, b3;
	static struct auth_ident ka, kb;
	struct th t;
	struct server_config c;
	char path[300];
	const uint8_t *seen;
	bool owned;
	uint8_t owner[PROTO_IDENT_KEY_LEN];
	char why[300];

	/* WIZWAR_TEST_STORE: the same on a real PostgreSQL (tests/server/pgunit.sh, server/ident-pg). */
	const char *pg = getenv("WIZWAR_TEST_STORE");
	if (pg && *pg)
		snprintf(path, sizeof path, "%s", pg);
	else
		temp_store(path, sizeof path);
	auth_ident_new(&ka);
	auth_ident_new(&kb);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	c.store_path = path;
	th_server(&t, &c);
	cr_expect(server_names_owned(t.srv));

	join_with(&t, &a, &ka, "Merlin", "room-a");
	cr_assert_eq(a.count[WIRE_WELCOME], 1, "the first key could not take a free name");
	seen = server_key_of(&t, "Merlin");
	cr_assert_not_null(seen);
	cr_expect(memcmp(seen, ka.pk, PROTO_IDENT_KEY_LEN) == 0, "the server does not know the key that joined");

	/* Another key, another room, the same name in other letters' case: refused, with the reason. */
	join_with(&t, &b, &kb, "merlin", "room-b");
	expect_refused(&b, PERR_NAME_OWNED, "belongs to another player's key");
	cr_expect_eq(server_room_count(t.srv), 1, "a refused name made a room");

	/* The same key again, elsewhere: its own name. */
	join_with(&t, &a2, &ka, "Merlin", "room-c");
	cr_expect_eq(a2.count[WIRE_WELCOME], 1, "the owner could not use its name again");

	/* After a restart the store still knows. */
	restart(&t, &c);
	join_with(&t, &b2, &kb, "Merlin", "room-d");
	expect_refused(&b2, PERR_NAME_OWNED, "choose another name");
	join_with(&t, &a3, &ka, "Merlin", "room-e");
	cr_expect_eq(a3.count[WIRE_WELCOME], 1, "the owner lost its name in a restart");

	/* The operator frees it (offline, beside the running server): the other key may take it. */
	cr_assert_eq(store_name_owner(path, "MERLIN", &owned, owner, why, sizeof why), 0, "%s", why);
	cr_expect(owned && memcmp(owner, ka.pk, PROTO_IDENT_KEY_LEN) == 0);
	cr_assert_eq(store_free_name(path, "merlin", &owned, why, sizeof why), 0, "%s", why);
	cr_expect(owned, "the name was not owned");
	join_with(&t, &b3, &kb, "Merlin", "room-f");
	cr_expect_eq(b3.count[WIRE_WELCOME], 1, "a freed name could not be taken");
	cr_assert_eq(store_name_owner(path, "Merlin", &owned, owner, why, sizeof why), 0, "%s", why);
	cr_expect(owned && memcmp(owner, kb.pk, PROTO_IDENT_KEY_LEN) == 0, "the freed name is not its new key's");

	th_finish(&t);
	if (pg && *pg)
		return;
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "the store is mode %03o", (unsigned)(st.st_mode & 0777));
	temp_store_rm(path);
}

Test(ident, without_a_store_names_are_not_owned)
{
	static struct raw a, b;
	static struct auth_ident ka, kb;
	struct th t;
	struct server_config c;

	auth_ident_new(&ka);
	auth_ident_new(&kb);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	cr_expect(!server_names_owned(t.srv));
	join_with(&t, &a, &ka, "Merlin", "room-a");
	join_with(&t, &b, &kb, "Merlin", "room-b");
	cr_expect_eq(a.count[WIRE_WELCOME], 1);
	cr_expect_eq(b.count[WIRE_WELCOME], 1, "a server with no store refused a name");
	th_finish(&t);
}

/* IDENT by hand: no_ident peers, run to their CHALLENGE, then the message given. */
static void
challenged(struct th *t, struct raw *r)
{
	raw_start(t, r);
	r->no_ident = true;
	raw_hello(r);
	th_run(t, 10000, raw_challenged, r);
	cr_assert_eq(r->count[WIRE_CHALLENGE], 1);
}

static void
send_ident(struct raw *r, const uint8_t key[PROTO_IDENT_KEY_LEN], const uint8_t sig[PROTO_IDENT_SIG_LEN])
{
	static struct wire_msg m;

	memset(&m, 0, sizeof m);
	m.type = WIRE_IDENT;
	memcpy(m.u.ident.key, key, PROTO_IDENT_KEY_LEN);
	memcpy(m.u.ident.sig, sig, PROTO_IDENT_SIG_LEN);
	raw_msg(r, &m);
}

static void
send_auth(struct raw *r, const char *name, const char *room)
{
	static struct wire_msg m;

	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	wire_who_init(&m.u.auth.who, name, room, ROLE_PLAYER);
	m.u.auth.who.create = true;
	raw_msg(r, &m);
}

Test(ident, a_forged_replayed_or_missing_proof_is_refused, .timeout = 60)
{
	static struct raw forged, zero_h, first, replay, none, twice;
	static struct auth_ident k;
	uint8_t sig[PROTO_IDENT_SIG_LEN], h0[PROTO_HASH_LEN] = { 0 };
	struct th t;
	struct server_config c;

	auth_ident_new(&k);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);

	/* A signature of random bytes. */
	challenged(&t, &forged);
	auth_random(sig, sizeof sig);
	send_ident(&forged, k.pk, sig);
	send_auth(&forged, "forger", "r1");
	th_run(&t, 10000, raw_settled, &forged);
	expect_refused(&forged, PERR_IDENT, "does not verify");

	/* A real signature by the key, over another hash than this channel's. */
	challenged(&t, &zero_h);
	auth_ident_sign(&k, h0, sig);
	send_ident(&zero_h, k.pk, sig);
	send_auth(&zero_h, "zero", "r2");
	th_run(&t, 10000, raw_settled, &zero_h);
	expect_refused(&zero_h, PERR_IDENT, "does not verify");

	/* An IDENT good on its own connection, replayed on another (a relay, or a capture). */
	challenged(&t, &first);
	auth_ident_sign(&k, pconn_hash(&first.pc), sig);
	send_ident(&first, k.pk, sig);
	send_auth(&first, "original", "r3");
	th_run(&t, 10000, raw_settled, &first);
	cr_expect_eq(first.count[WIRE_WELCOME], 1, "the genuine IDENT was refused");
	challenged(&t, &replay);
	send_ident(&replay, k.pk, sig);
	send_auth(&replay, "replayer", "r4");
	th_run(&t, 10000, raw_settled, &replay);
	expect_refused(&replay, PERR_IDENT, "does not verify");

	/* AUTH with no IDENT: a protocol 6 join is not let in as an anonymous one. */
	challenged(&t, &none);
	send_auth(&none, "anonymous", "r5");
	th_run(&t, 10000, raw_settled, &none);
	expect_refused(&none, PERR_STATE, "expected IDENT");

	/* IDENT twice. */
	challenged(&t, &twice);
	auth_ident_sign(&k, pconn_hash(&twice.pc), sig);
	send_ident(&twice, k.pk, sig);
	send_ident(&twice, k.pk, sig);
	th_run(&t, 10000, raw_settled, &twice);
	expect_refused(&twice, PERR_STATE, "expected AUTH, RESUME or ASK");
	th_finish(&t);
}

/* ---- the store off the loop ---- */

struct busy {
	unsigned applied;          /* commands applied in the duel room */
	bool ended;
};

static void
on_applied(void *ud, struct gameroom *r, int p, const struct cmd *cmd, const struct events *ev)
{
	struct busy *b = ud;
	(void)r, (void)p, (void)cmd, (void)ev;
	b->applied++;
}

static bool
some_applied(void *ud)
{
	return ((struct busy *)ud)->applied >= 4;
}

struct until {
	uv_loop_t *loop;
	uint64_t at;
};

static bool
time_up(void *ud)
{
	struct until *u = ud;
	return uv_now(u->loop) >= u->at;
}

/* Run the loop for ms: everything it serves meanwhile goes on. */
static void
run_for(struct th *t, unsigned ms)
{
	struct until u = { &t->loop, uv_now(&t->loop) + ms };
	th_run(t, ms + 5000, time_up, &u);
}

Test(ident, a_locked_store_does_not_stop_the_loop, .timeout = 120)
{
	static struct netbot p1, p2;
	static struct raw waiter, late;
	static struct auth_ident kw;
	static struct busy bz;
	struct netbot_config b1, b2;
	struct th t;
	struct server_config c;
	char path[300];
	sqlite3 *db;
	unsigned before;

	temp_store(path, sizeof path);
	auth_ident_new(&kw);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	c.store_path = path;
	c.hooks.ud = &bz;
	c.hooks.applied = on_applied;
	c.lim.handshake_ms = 60000; /* the waiter waits for the store, not for this limit */
	th_server(&t, &c);
	th_bot_config(&t, &b1, "Ada", BOT_NORMAL, 1, 0);
	th_bot_config(&t, &b2, "Bo", BOT_NORMAL, 2, 0);
	b1.net.room = b2.net.room = "duel";
	b1.think_ms = b2.think_ms = 5;
	th_bot(&t, &p1, &b1);
	th_bot(&t, &p2, &b2);
	th_run(&t, 30000, some_applied, &bz);
	cr_assert_geq(bz.applied, 4, "the duel did not start");

	/* Another process's view of the file (as `sqlite3 FILE` would hold it): a write lock that
	 * the store's claim must wait for. */
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	/* The store may be writing (a rating of a duel that just ended): wait for it, as a person
	 * running sqlite3 would. (This blocks the test's loop, the server's too, for that write.) */
	sqlite3_busy_timeout(db, 2 * STORE_BUSY_MS);
	cr_assert_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO keys VALUES (zeroblob(32), 0, 0);", NULL, NULL, NULL),
	             SQLITE_OK, "%s", sqlite3_errmsg(db));
	raw_start(&t, &waiter);
	waiter.id = kw;
	raw_join_as(&waiter, "Waiter", "other", true);
	before = bz.applied;
	run_for(&t, 1500);
	cr_expect_eq(waiter.count[WIRE_WELCOME], 0, "joined while the store was locked");
	cr_expect(!waiter.closed && !waiter.eof, "the waiter was dropped");
	/* The claim waits in the store (with, if the other room's duel ended meanwhile, its rating). */
	cr_expect_geq(store_pending(t.srv->store), 1, "the claim is not waiting in the store");
	cr_expect_gt(bz.applied, before + 4, "the other room's duel stopped while the store waited (%u commands)",
	             bz.applied - before);
	cr_log_info("%u commands applied in another room while the store was locked", bz.applied - before);
	cr_assert_eq(sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL), SQLITE_OK);
	th_run(&t, 10000, raw_settled, &waiter);
	cr_expect_eq(waiter.count[WIRE_WELCOME], 1, "the waiter was not let in once the lock went");

	/* Held past the store's busy timeout: a clear refusal, the loop still serving. */
	cr_assert_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO keys VALUES (zeroblob(32), 0, 0);", NULL, NULL, NULL),
	             SQLITE_OK, "%s", sqlite3_errmsg(db));
	raw_start(&t, &late);
	raw_join_as(&late, "Late", "third", true);
	before = bz.applied;
	th_run(&t, STORE_BUSY_MS + 5000, raw_settled, &late);
	expect_refused(&late, PERR_SERVER, "store cannot answer");
	cr_expect_gt(bz.applied, before, "the other room's duel stopped");
	sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
	sqlite3_close(db);
	netbot_stop(&p1);
	netbot_stop(&p2);
	th_finish(&t);
	temp_store_rm(path);
}

/* A player's request is answered within the busy timeout of its asking, even behind an
 * operator's write that spends its own whole timeout on the lock first (a rating at a duel's
 * end does the same): without that bound a join behind it waited twice as long. */
struct asked {
	uv_loop_t *loop;
	struct store *s;
	uint64_t at[2];     /* when answered, ms since the start */
	int result[2];      /* [0] the operator's write, [1] the claim */
	char why[300];
	uint64_t start;
	unsigned answered;
};

static void
on_ban_answer(void *ud, int result)
{
	struct asked *a = ud;
	a->result[0] = result;
	a->at[0] = uv_now(a->loop) - a->start;
	a->answered++;
}

static void
on_claim_answer(void *ud, int result, const struct store_rating *r)
{
	struct asked *a = ud;
	(void)r;
	a->result[1] = result;
	a->at[1] = uv_now(a->loop) - a->start;
	snprintf(a->why, sizeof a->why, "%s", store_why(a->s));
	a->answered++;
}

Test(store, a_claim_waits_the_busy_timeout_from_its_asking_not_behind_others, .timeout = 60)
{
	static struct asked a;
	struct ban b = { .kind = BAN_NAME, .target = "mallory", .created = 1 };
	uint8_t key[PROTO_IDENT_KEY_LEN] = { 7 };
	char path[300], why[300];
	uv_loop_t loop;
	struct store *s;
	sqlite3 *db;

	temp_store(path, sizeof path);
	uv_loop_init(&loop);
	cr_assert_eq(store_open(&loop, path, &s, why, sizeof why), 0, "%s", why);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO keys VALUES (zeroblob(32), 0, 0);", NULL, NULL, NULL),
	             SQLITE_OK, "%s", sqlite3_errmsg(db));
	a.loop = &loop;
	a.s = s;
	uv_update_time(&loop);
	a.start = uv_now(&loop);
	cr_assert_not_null(store_ban_put(s, &b, on_ban_answer, &a));
	cr_assert_not_null(store_claim_name(s, key, "Waiter", on_claim_answer, &a));
	while (a.answered < 2)
		uv_run(&loop, UV_RUN_ONCE);
	cr_log_info("the write answered at %llu ms, the claim at %llu ms (%s)", (unsigned long long)a.at[0],
	            (unsigned long long)a.at[1], a.why);
	cr_expect_eq(a.result[0], STORE_FAILED, "the write went through a held lock");
	cr_expect_geq(a.at[0], STORE_BUSY_MS - 50, "the operator's write did not wait its whole busy timeout");
	cr_expect_eq(a.result[1], STORE_FAILED, "the claim went through a held lock");
	/* Answered at STORE_BUSY_MS from its asking, give or take the loop's wake-up; the old
	 * queue answered it at twice that. */
	cr_expect_lt(a.at[1], STORE_BUSY_MS + STORE_BUSY_MS / 2, "the claim waited its own timeout behind the write's");
	sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
	sqlite3_close(db);
	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	temp_store_rm(path);
}

/* ---- migrations ---- */

Test(store, migrations_from_empty_and_from_the_version_before)
{
	char path[300], why[300];
	int v;
	sqlite3 *db;
	sqlite3_stmt *st;
	uv_loop_t loop;
	struct store *s;
	FILE *f;

	cr_assert_geq(store_schema_newest(), 2, "one step at least before the newest, to test");
	uv_loop_init(&loop);

	/* An empty file: every step. */
	temp_store(path, sizeof path);
	cr_assert_eq(store_open(&loop, path, &s, why, sizeof why), 0, "%s", why);
	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(store_schema_version(path, &v, why, sizeof why), 0, "%s", why);
	cr_expect_eq(v, store_schema_newest());
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode;", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
	temp_store_rm(path);

	/* A file at the version before, with data: brought up, the data kept. */
	temp_store(path, sizeof path);
	cr_assert_eq(store_migrate_to(path, store_schema_newest() - 1, why, sizeof why), 0, "%s", why);
	cr_assert_eq(store_schema_version(path, &v, why, sizeof why), 0);
	cr_expect_eq(v, store_schema_newest() - 1);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "INSERT INTO keys VALUES (randomblob(32), 1, 2);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	cr_assert_eq(store_open(&loop, path, &s, why, sizeof why), 0, "%s", why);
	store_close(s, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(store_schema_version(path, &v, why, sizeof why), 0);
	cr_expect_eq(v, store_schema_newest());
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM keys WHERE first_seen = 1;", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int(st, 0), 1, "the migration lost a row");
	sqlite3_finalize(st);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM schema_version;", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int(st, 0), store_schema_newest(), "one row per step applied");
	sqlite3_finalize(st);

	/* A file from a newer wizwar: refused, not changed. */
	cr_assert_eq(sqlite3_exec(db, "INSERT INTO schema_version VALUES (999, 0, 'from the future');", NULL, NULL, NULL),
	             SQLITE_OK);
	sqlite3_close(db);
	cr_expect_neq(store_open(&loop, path, &s, why, sizeof why), 0);
	cr_expect(strstr(why, "newer") != NULL, "%s", why);
	temp_store_rm(path);

	/* Not a database at all. */
	temp_store(path, sizeof path);
	cr_assert_not_null(f = fopen(path, "w"));
	fputs("this is not a database, but a file of text long enough to have a header of its own\n", f);
	fclose(f);
	cr_expect_neq(store_open(&loop, path, &s, why, sizeof why), 0);
	cr_log_info("%s", why);
	temp_store_rm(path);
	cr_assert_eq(uv_loop_close(&loop), 0);
}

/* ---- wrong passwords counted per key too ---- */

static void
auth_with(struct th *t, struct raw *r, const char *src, const struct auth_ident *id, const char *name, bool right)
{
	static struct wire_msg m;

	if (src)
		raw_start_from(t, r, src);
	else
		raw_start(t, r);
	r->id = *id;
	raw_hello(r);
	th_run(t, 10000, raw_challenged, r);
	cr_assert_eq(r->count[WIRE_CHALLENGE], 1);
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	wire_who_init(&m.u.auth.who, name, "pw-room", ROLE_PLAYER);
	m.u.auth.who.create = true;
	if (right)
		auth_proof(&t->srv->key, pconn_hash(&r->pc), name, strlen(name), m.u.auth.proof);
	else
		auth_random(m.u.auth.proof, PROTO_PROOF_LEN);
	raw_msg(r, &m);
	th_run(t, 10000, raw_settled, r);
}

Test(ident, a_proven_key_passes_its_address_lockout_and_a_guessing_key_is_stopped_anywhere, .timeout = 60)
{
	static struct raw player, guess[3], stranger, back, moved;
	static struct auth_ident kp, kg, ks;
	struct th t;
	struct server_config c;

	auth_ident_new(&kp);
	auth_ident_new(&kg);
	auth_ident_new(&ks);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	c.password = "old oak";
	c.lim.auth_fails = 2;
	c.lim.auth_window_ms = 60000;
	th_server(&t, &c);

	auth_with(&t, &player, NULL, &kp, "Nimue", true);
	cr_assert_eq(player.count[WIRE_WELCOME], 1, "the password was refused");
	/* Someone else behind the same address guesses: the address is locked out. */
	for (int i = 0; i < 2; i++) {
		auth_with(&t, &guess[i], NULL, &kg, "Guesser", false);
		expect_refused(&guess[i], PERR_AUTH, "wrong password");
	}
	auth_with(&t, &stranger, NULL, &ks, "Stranger", true);
	expect_refused(&stranger, PERR_AUTH, "too many wrong passwords from your address");
	/* The player who proved the password is not locked out by those guesses. */
	auth_with(&t, &back, NULL, &kp, "Nimue-again", true); /* Nimue is still in the room */
	cr_expect_eq(back.count[WIRE_WELCOME], 1, "a proven key was locked out by another key's guesses");
	/* The guessing key, moved to another address, is stopped there too, even with the right password. */
	auth_with(&t, &moved, "127.0.0.2", &kg, "Guesser", true);
	expect_refused(&moved, PERR_AUTH, "too many wrong passwords from your key");
	th_finish(&t);
}
