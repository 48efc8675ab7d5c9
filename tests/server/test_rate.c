/* SPDX-License-Identifier: MIT */
/* server/rate: handshakes and new rooms limited per address (token buckets): a flood from one address is refused and leaves room for another. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

static void
setup(struct th *t, struct server_config *c)
{
	th_init(t);
	th_config(c);
	c->multi = true;
}

/* The last ERROR a raw peer got: code, fatal, saying `text`. */
static void
expect_error(struct raw *r, int code, const char *text)
{
	static struct wire_msg err;
	int nerr;

	raw_decode(r, &err, &nerr);
	cr_assert_geq(nerr, 1, "no ERROR before the drop (%zu bytes got)", r->ngot);
	cr_expect_eq(err.u.error.code, code, "ERROR %d (%s), expected %d", err.u.error.code, err.u.error.text, code);
	cr_expect(err.u.error.fatal);
	cr_expect(strstr(err.u.error.text, text) != NULL, "'%s' does not say '%s'", err.u.error.text, text);
}

struct many {
	struct raw *r;
	int n;
};

/* Every raw peer joined (WELCOME) or closed. */
static bool
all_settled(void *ud)
{
	struct many *m = ud;

	for (int i = 0; i < m->n; i++)
		if (!m->r[i].closed && m->r[i].count[WIRE_WELCOME] == 0)
			return false;
	return true;
}

/* Every raw peer got its CHALLENGE or was closed. */
static bool
all_answered(void *ud)
{
	struct many *m = ud;

	for (int i = 0; i < m->n; i++)
		if (!m->r[i].closed && m->r[i].count[WIRE_CHALLENGE] == 0)
			return false;
	return true;
}

#define FLOOD 24

/* The attack, small: one address makes rooms as fast as it can on a server of few rooms.
 * With no limit it filled them all and a player of another address was told "the server has no
 * room for another game"; here its burst is made, the rest refused with LIMIT, and the other
 * address makes its room. Joining a room is not making one: the flooding address still joins. */
Test(rate, a_room_flood_from_one_address_leaves_room_for_others)
{
	struct th t;
	struct server_config c;
	static struct raw flood[FLOOD], other, joiner;
	struct many m = { flood, FLOOD };
	char room[16];
	int made = 0, limited = 0;

	setup(&t, &c);
	c.lim.max_rooms = 12;
	c.lim.room_burst = 4;
	c.lim.room_every_ms = 60000;
	th_server(&t, &c);
	for (int i = 0; i < FLOOD; i++) {
		snprintf(room, sizeof room, "flood-%d", i);
		raw_start(&t, &flood[i]);
		raw_join_as(&flood[i], "flooder", room, true);
	}
	th_run(&t, 10000, all_settled, &m);
	for (int i = 0; i < FLOOD; i++) {
		if (flood[i].count[WIRE_WELCOME] > 0) {
			made++;
		} else {
			expect_error(&flood[i], PERR_LIMIT, "too many new rooms from your address");
			limited++;
		}
	}
	cr_expect_eq(made, 4, "%d rooms made by one address, its burst is 4", made);
	cr_expect_eq(limited, FLOOD - 4);
	cr_expect_eq(server_room_count(t.srv), 4);

	raw_start_from(&t, &other, "127.0.0.2");
	raw_join_as(&other, "other", "elsewhere", true);
	th_run(&t, 5000, all_settled, &(struct many){ &other, 1 });
	cr_expect_eq(other.count[WIRE_WELCOME], 1, "another address could not make a room");
	cr_expect_eq(server_room_count(t.srv), 5);

	/* One of the rooms made (which ones were is the order their handshakes ended in). */
	int some = 0;
	while (some < FLOOD - 1 && flood[some].count[WIRE_WELCOME] == 0)
		some++;
	snprintf(room, sizeof room, "flood-%d", some);
	raw_start(&t, &joiner);
	raw_join_as(&joiner, "second", room, false);
	th_run(&t, 5000, all_settled, &(struct many){ &joiner, 1 });
	cr_expect_eq(joiner.count[WIRE_WELCOME], 1, "joining a room counted as making one");
	th_finish(&t);
}

/* Handshakes: a burst from one address gets its CHALLENGEs, the rest are refused with LIMIT at once
 * (no HELLO read); another address is not touched; one more is let in when a token comes back. */
Test(rate, a_handshake_flood_is_refused_and_leaves_others_alone)
{
	struct th t;
	struct server_config c;
	static struct raw flood[FLOOD], other, later;
	struct many m = { flood, FLOOD };
	int answered = 0;

	setup(&t, &c);
	c.lim.hs_burst = 6;
	c.lim.hs_every_ms = 400;
	th_server(&t, &c);
	for (int i = 0; i < FLOOD; i++) {
		raw_start(&t, &flood[i]);
		raw_hello(&flood[i]);
	}
	th_run(&t, 10000, all_answered, &m);
	for (int i = 0; i < FLOOD; i++) {
		if (flood[i].count[WIRE_CHALLENGE] > 0)
			answered++;
		else
			expect_error(&flood[i], PERR_LIMIT, "too many connections from your address in a short time");
	}
	/* The burst, and at most one more if the flood took longer than a token's 400 ms. */
	cr_expect(answered >= 6 && answered <= 7, "%d handshakes of one address answered, its burst is 6", answered);

	raw_start_from(&t, &other, "127.0.0.2");
	raw_join_as(&other, "other", "elsewhere", true);
	th_run(&t, 5000, all_settled, &(struct many){ &other, 1 });
	cr_expect_eq(other.count[WIRE_WELCOME], 1, "another address was refused");

	uv_sleep(450);
	uv_update_time(&t.loop);
	raw_start(&t, &later);
	raw_hello(&later);
	th_run(&t, 5000, all_answered, &(struct many){ &later, 1 });
	cr_expect_eq(later.count[WIRE_CHALLENGE], 1, "a token did not come back");
	for (int i = 0; i < FLOOD; i++)
		raw_close(&flood[i]);
	th_finish(&t);
}

/* The buckets: a burst, then one a period; no limit at a burst of 0. */
Test(rate, the_defaults_are_on)
{
	struct server_config c;

	server_config_default(&c);
	cr_expect_eq(c.lim.hs_burst, 30);
	cr_expect_eq(c.lim.hs_every_ms, 1000);
	cr_expect_eq(c.lim.room_burst, 16);
	cr_expect_eq(c.lim.room_every_ms, 120000);
}
