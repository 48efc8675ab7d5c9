/* SPDX-License-Identifier: MIT */
/* server/auth: passwords proved without crossing the wire, wrong guesses limited per address, versions named. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct pair {
	struct netbot a, b;
};

static bool
closed(void *ud)
{
	return ((struct netbot *)ud)->closed;
}

static bool
pair_closed(void *ud)
{
	struct pair *p = ud;
	return p->a.closed && p->b.closed;
}

static bool
joined(void *ud)
{
	struct netbot *b = ud;
	return b->closed || (b->net && net_player(b->net) >= 0);
}

static bool
closed_raw_pred(void *ud)
{
	return ((struct raw *)ud)->closed;
}

/* Does `needle` occur in the bytes? */
static bool
contains(const uint8_t *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return true;
	return false;
}

struct wiretap {
	uint8_t bytes[1 << 20];
	size_t n;
};

static void
on_rx(void *ud, struct netbot *b, const uint8_t *p, size_t n)
{
	struct wiretap *w = ud;
	(void)b;
	if (w->n + n <= sizeof w->bytes) {
		memcpy(w->bytes + w->n, p, n);
		w->n += n;
	}
}

Test(auth, password_game_and_wrong_guesses)
{
	static struct pair ok;
	static struct netbot bad[4];
	static struct wiretap tap;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb, cw;
	const char *pw = "correct horse battery";

	th_init(&t);
	th_config(&c);
	c.password = pw;
	c.lim.auth_fails = 3;
	/* A window far longer than four tries take, even on a loaded machine where each costs a
	 * second of Argon2id (a 1.5 s window ran out before the fourth try there); then it is
	 * shortened on the running server (as a reload would) to see the lockout end. */
	c.lim.auth_window_ms = 60000;
	th_server(&t, &c);

	/* Three wrong passwords from 127.0.0.1, then even the right one is refused for a while. */
	for (int i = 0; i < 4; i++) {
		th_bot_config(&t, &cw, "guesser", BOT_RANDOM, 1, 1);
		cw.net.password = i < 3 ? "wrong" : pw;
		th_bot(&t, &bad[i], &cw);
		th_run(&t, 10000, closed, &bad[i]);
		cr_expect_eq(bad[i].last_error, PERR_AUTH, "attempt %d: error %d (%s)", i, bad[i].last_error, bad[i].last_why);
		if (i == 3)
			cr_expect(strstr(bad[i].last_why, "too many") != NULL, "%s", bad[i].last_why);
	}
	/* No password at all: told before anything is sent. */
	{
		static struct netbot none;
		th_bot_config(&t, &cw, "forgetful", BOT_RANDOM, 1, 1);
		th_bot(&t, &none, &cw);
		th_run(&t, 10000, closed, &none);
		cr_expect(strstr(none.last_why, "password") != NULL, "%s", none.last_why);
	}
	/* After the window, the right password plays a whole duel; the password never crossed the wire. */
	{
		struct server_limits lim = *server_get_limits(t.srv);
		char why[200];
		lim.auth_window_ms = 300;
		cr_assert_eq(server_set_limits(t.srv, &lim, why, sizeof why), 0, "%s", why);
	}
	uv_sleep(400);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 2, 1);
	ca.net.password = cb.net.password = pw;
	ca.ud = &tap;
	ca.on_rx = on_rx;
	th_bot(&t, &ok.a, &ca);
	th_bot(&t, &ok.b, &cb);
	th_run(&t, 60000, pair_closed, &ok);
	cr_expect_eq(ok.a.verified, 1, "%s", ok.a.last_why);
	cr_expect_eq(ok.b.verified, 1, "%s", ok.b.last_why);
	cr_expect_gt(tap.n, 0);
	cr_expect(!contains(tap.bytes, tap.n, pw));
	cr_expect(!contains(tap.bytes, tap.n, "correct"));
	th_finish(&t);
}

Test(auth, version_mismatch_names_both)
{
	struct th t;
	struct server_config c;
	static struct raw r[2];
	static struct wire_msg m, err;
	uint8_t f[512];
	int nerr;

	/* The version before this one (whose WELCOME had no hold nor grace: its client would take
	 * this server's WELCOME for a broken one) and one far ahead. */
	const int theirs[] = { PROTO_VERSION - 1, PROTO_VERSION + 98 };

	th_init(&t);
	th_config(&c);
	th_server(&t, &c);
	for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++) {
		raw_start(&t, &r[i]);
		wire_hello_init(&m);
		m.u.hello.proto = (uint16_t)theirs[i];
		raw_send(&r[i], f, raw_frame(&m, f, sizeof f));
		th_run(&t, 5000, closed_raw_pred, &r[i]);
		raw_decode(&r[i], &err, &nerr);
		cr_assert_eq(nerr, 1, "version %d", theirs[i]);
		cr_expect_eq(err.u.error.code, PERR_VERSION);
		cr_expect(err.u.error.fatal);
		/* Exactly the text docs/protocol.md shows (its example is made by wire_version_refusal()). */
		char want[PROTO_REASON_BYTES + 1];
		snprintf(want, sizeof want, "version mismatch: the server has protocol version %d, your client %d",
		         PROTO_VERSION, theirs[i]);
		cr_expect_str_eq(err.u.error.text, want);
	}
	th_finish(&t);
}

/* A multi-room server with a password (config `password`): every room asks for it; a wrong
 * one creates no room; without one, the room code alone lets anyone in (checked below too). */
Test(auth, multi_room_password)
{
	static struct pair ok;
	static struct netbot wrong, none, open_a;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb, cw;
	const char *pw = "shared by the club";

	th_init(&t);
	th_config(&c);
	c.multi = true;
	c.password = pw;
	th_server(&t, &c);
	th_bot_config(&t, &cw, "guesser", BOT_RANDOM, 1, 1);
	cw.net.room = "club-1";
	cw.net.password = "wrong";
	th_bot(&t, &wrong, &cw);
	th_run(&t, 10000, closed, &wrong);
	cr_expect_eq(wrong.last_error, PERR_AUTH, "error %d (%s)", wrong.last_error, wrong.last_why);
	th_bot_config(&t, &cw, "forgetful", BOT_RANDOM, 1, 1);
	cw.net.room = "club-2";
	th_bot(&t, &none, &cw);
	th_run(&t, 10000, closed, &none);
	cr_expect(strstr(none.last_why, "password") != NULL, "%s", none.last_why);
	cr_expect_eq(server_room_count(t.srv), 0, "a refused player left a room behind");
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 2, 1);
	ca.net.room = cb.net.room = "club-3";
	ca.net.password = cb.net.password = pw;
	th_bot(&t, &ok.a, &ca);
	th_bot(&t, &ok.b, &cb);
	th_run(&t, 60000, pair_closed, &ok);
	cr_expect_eq(ok.a.verified, 1, "%s", ok.a.last_why);
	cr_expect_eq(ok.b.verified, 1, "%s", ok.b.last_why);
	th_finish(&t);

	/* Without a password (the default), the room code is the only secret: no proof is checked. */
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	th_bot_config(&t, &cw, "anyone", BOT_RANDOM, 1, 1);
	cw.net.room = "open";
	cw.net.password = "whatever";
	cw.ready = false;
	th_bot(&t, &open_a, &cw);
	th_run(&t, 10000, joined, &open_a);
	cr_expect_eq(open_a.errors, 0, "%s", open_a.last_why);
	netbot_stop(&open_a);
	th_run(&t, 10000, closed, &open_a);
	th_finish(&t);
}

/* Resume tokens are 32 random bytes: nobody guesses one, so an unknown one is refused
 * (106) and not counted against the address. The clients of a server restarted without
 * --resume each come back with one, several behind one address (a NAT, a household): they
 * must not lock that address out of joining, with or without a password ("too many wrong
 * passwords" where there is none was the old answer). */
Test(auth, unknown_resume_tokens_lock_nobody_out)
{
	static struct pair ok;
	static struct netbot stale[5];
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb, cw;
	uint8_t token[PROTO_TOKEN_MAX];

	th_init(&t);
	th_config(&c);
	c.lim.auth_fails = 3;
	c.lim.auth_window_ms = 60000;
	th_server(&t, &c);
	for (int i = 0; i < 5; i++) {
		memset(token, 0xa0 + i, sizeof token);
		th_bot_config(&t, &cw, "stale", BOT_RANDOM, 1, 1);
		cw.net.token = token;
		cw.net.token_len = sizeof token;
		th_bot(&t, &stale[i], &cw);
		th_run(&t, 10000, closed, &stale[i]);
		cr_expect_eq(stale[i].last_error, PERR_RESUME, "stale token %d: error %d (%s)", i, stale[i].last_error,
		    stale[i].last_why);
	}
	/* Within the window, past the limit of wrong guesses: the address still joins and plays. */
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 2, 1);
	th_bot(&t, &ok.a, &ca);
	th_bot(&t, &ok.b, &cb);
	th_run(&t, 60000, pair_closed, &ok);
	cr_expect_eq(ok.a.verified, 1, "%s", ok.a.last_why);
	cr_expect_eq(ok.b.verified, 1, "%s", ok.b.last_why);
	th_finish(&t);
}
