/* SPDX-License-Identifier: MIT */
/* server/ban: the ban list's matcher (address ranges, keys, names, expiry) and its strict command parser; a real server over loopback dropping and refusing banned peers (by key, name, address and a proxy's client address) and muting a key's chat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "ban.h"
#include "harness.h"

static struct ban
parsed(int verb, const char *args, int64_t now)
{
	struct ban b;
	char why[256];

	cr_assert(ban_parse(verb, args, now, &b, why, sizeof why), "'%s' refused: %s", args, why);
	return b;
}

static void
refused(int verb, const char *args, const char *says)
{
	struct ban b;
	char why[256] = "";

	cr_expect(!ban_parse(verb, args, 1000, &b, why, sizeof why), "'%s' taken", args);
	cr_expect(strstr(why, says) != NULL, "'%s': '%s' does not say '%s'", args, why, says);
}

static void
addr(uint8_t a[16], const char *text)
{
	struct proxy_cidr c;
	char why[128];

	cr_assert(proxy_cidr_parse(text, &c, why, sizeof why), "%s", why);
	memcpy(a, c.addr, 16);
}

Test(ban, address_ranges_match_the_whole_address_v4_and_v6)
{
	struct ban_list l = { 0 };
	uint8_t a[16];
	struct ban_who w = { .addr = a };
	static const struct {
		const char *range, *in, *out;
	} cases[] = {
		{ "127.0.0.2", "127.0.0.2", "127.0.0.1" },
		{ "10.20.0.0/16", "10.20.255.1", "10.21.0.0" },
		{ "192.168.1.128/25", "192.168.1.200", "192.168.1.127" },
		{ "0.0.0.0/0", "8.8.8.8", "2001:db8::1" },       /* every IPv4 address, no IPv6 one */
		{ "2001:db8::/32", "2001:db8:ffff::1", "2001:db9::1" },
		{ "2001:db8:1:2::/64", "2001:db8:1:2:ffff::7", "2001:db8:1:3::7" },
		{ "2001:db8::7/128", "2001:db8::7", "2001:db8::6" }, /* one address: not its /64, as the limits count */
		{ "::/0", "::1", NULL },                        /* every address: IPv4 ones are mapped into it */
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[96];
		snprintf(args, sizeof args, "addr %s", cases[i].range);
		struct ban b = parsed(BAN_VERB_BAN, args, 1000);
		struct ban_list one = { 0 };
		cr_assert_eq(ban_add(&one, &b), 0);
		cr_assert_eq(ban_add(&l, &b), 0);
		addr(a, cases[i].in);
		cr_expect_not_null(ban_find(&one, &w, 1000), "%s not in %s", cases[i].in, cases[i].range);
		if (cases[i].out) {
			addr(a, cases[i].out);
			cr_expect_null(ban_find(&one, &w, 1000), "%s in %s", cases[i].out, cases[i].range);
		}
		ban_list_finish(&one);
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[96];
		snprintf(args, sizeof args, "addr %s", cases[i].range);
		struct ban b = parsed(BAN_VERB_UNBAN, args, 1000);
		cr_expect(ban_remove(&l, BAN_ADDR, b.target), "%s not removed as %s", cases[i].range, b.target);
	}
	cr_expect_eq(l.n, 0);
	/* One spelling a range: the way it was typed does not make another ban. */
	struct ban b1 = parsed(BAN_VERB_BAN, "addr 2001:DB8:0:0::/32", 1000);
	cr_expect_str_eq(b1.target, "2001:db8::/32");
	struct ban b2 = parsed(BAN_VERB_BAN, "addr 10.1.2.3", 1000);
	cr_expect_str_eq(b2.target, "10.1.2.3/32");
	/* Nothing matches what is not known yet. */
	cr_assert_eq(ban_add(&l, &b2), 0);
	struct ban_who none = { 0 };
	cr_expect_null(ban_find(&l, &none, 1000));
	ban_list_finish(&l);
}

Test(ban, keys_names_expiry_and_mutes)
{
	struct ban_list l = { 0 };
	const char *fp = "abcdefghijklmnopqrstuvwxyz";
	struct ban k = parsed(BAN_VERB_BAN, "key ABCDEFGHIJKLMNOPQRSTUVWXYZ --for 90s --reason cheating at cards", 1000);

	cr_expect_str_eq(k.target, fp, "a fingerprint is kept lowercase");
	cr_expect_eq(k.expires, 1090);
	cr_expect_str_eq(k.reason, "cheating at cards");
	cr_assert_eq(ban_add(&l, &k), 0);
	struct ban_who w = { .fp = fp };
	cr_expect_not_null(ban_find(&l, &w, 1089));
	cr_expect_null(ban_find(&l, &w, 1090), "in force at its expiry");
	ban_prune(&l, 1090);
	cr_expect_eq(l.n, 0, "an expired ban kept");

	struct ban n = parsed(BAN_VERB_BAN, "name Sir Mordred --reason impersonation", 1000);
	cr_expect_str_eq(n.target, "Sir Mordred");
	cr_expect_eq(n.expires, 0);
	cr_assert_eq(ban_add(&l, &n), 0);
	struct ban_who wn = { .name = "sir MORDRED" };
	cr_expect_not_null(ban_find(&l, &wn, 5000), "names compare without ASCII case, as the store owns them");
	wn.name = "Sir Mordred2";
	cr_expect_null(ban_find(&l, &wn, 5000));
	/* The same target again replaces it (a new reason), never a second row. */
	n = parsed(BAN_VERB_BAN, "name SIR MORDRED --for 1h", 1000);
	cr_assert_eq(ban_add(&l, &n), 0);
	cr_expect_eq(l.n, 1);
	cr_expect_eq(l.v[0].expires, 4600);

	struct ban m = parsed(BAN_VERB_MUTE, "abcdefghijklmnopqrstuvwxyz --for 2w", 1000);
	cr_expect_eq(m.kind, BAN_MUTE);
	cr_expect_eq(m.expires, 1000 + 14 * 86400);
	cr_assert_eq(ban_add(&l, &m), 0);
	cr_expect(ban_muted(&l, fp, 2000));
	cr_expect(!ban_muted(&l, "bbcdefghijklmnopqrstuvwxyz", 2000));
	cr_expect_null(ban_find(&l, &w, 2000), "a mute is not a ban");
	struct ban u = parsed(BAN_VERB_UNMUTE, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2000);
	cr_expect(ban_remove(&l, u.kind, u.target));
	cr_expect(!ban_muted(&l, fp, 2000));
	ban_list_finish(&l);

	/* Bounded: BAN_MAX in all, then refused (a replacement still goes in). */
	for (unsigned i = 0; i < BAN_MAX; i++) {
		struct ban b = { .kind = BAN_NAME };
		snprintf(b.target, sizeof b.target, "n%u", i);
		cr_assert_eq(ban_add(&l, &b), 0, "ban %u refused", i);
	}
	struct ban more = { .kind = BAN_NAME, .target = "one too many" }, again = { .kind = BAN_NAME, .target = "N7" };
	cr_expect_eq(ban_add(&l, &more), -1);
	cr_expect_eq(ban_add(&l, &again), 0);
	cr_expect_eq(l.n, BAN_MAX);
	ban_list_finish(&l);
}

Test(ban, the_command_parser_is_strict)
{
	char big[300];

	refused(BAN_VERB_BAN, "", "usage: ban key");
	refused(BAN_VERB_BAN, "key", "usage");
	refused(BAN_VERB_BAN, "user bob", "key, name or addr");
	refused(BAN_VERB_BAN, "key abc", "not a key's fingerprint");
	refused(BAN_VERB_BAN, "key abcdefghijklmnopqrstuvwxy1", "not a key's fingerprint"); /* 1 is not base32 */
	refused(BAN_VERB_BAN, "key abcdefghijklmnopqrstuvwxyz extra", "unexpected 'extra'");
	refused(BAN_VERB_BAN, "key  abcdefghijklmnopqrstuvwxyz", "usage");                 /* two spaces */
	refused(BAN_VERB_BAN, "key abcdefghijklmnopqrstuvwxyz --for 1h ", "--for: a whole number"); /* a space at the end */
	refused(BAN_VERB_UNBAN, "key abcdefghijklmnopqrstuvwxyz ", "usage");
	refused(BAN_VERB_BAN, "addr 10.0.0.1/8", "bits set past");
	refused(BAN_VERB_BAN, "addr 10.0.0.0/33", "prefix length");
	refused(BAN_VERB_BAN, "addr example.org", "not an IPv4 or IPv6");
	refused(BAN_VERB_BAN, "addr fe80::1%lo", "not an IPv4 or IPv6");
	refused(BAN_VERB_BAN, "name  --reason x", "usage");
	refused(BAN_VERB_BAN, "name \xe2\x80\xae" "x", "not a player name");
	refused(BAN_VERB_BAN, "name x --for", "unexpected");
	static const char *const bad_for[] = { "0s", "10", "10x", "-5m", "05m", "1.5h", "3651d", "99999999999999999999s",
		                               "m", "10mm", "" };
	for (size_t i = 0; i < sizeof bad_for / sizeof bad_for[0]; i++) {
		char args[96];
		snprintf(args, sizeof args, "key abcdefghijklmnopqrstuvwxyz --for %s", bad_for[i]);
		refused(BAN_VERB_BAN, args, "--for: a whole number");
	}
	refused(BAN_VERB_BAN, "key abcdefghijklmnopqrstuvwxyz --for 1h --for 2h", "--for given twice");
	/* A reason reaches a banned client's screen and the operator's terminal: no control of any
	 * kind (the admin line already has no C0 byte; C1, bidi overrides and bad UTF-8 are here). */
	refused(BAN_VERB_BAN, "name x --reason a\xc2\x9b" "2Jb", "no control characters");    /* C1 CSI */
	refused(BAN_VERB_BAN, "name x --reason a\xe2\x80\xae" "evil", "no control characters"); /* RLO */
	refused(BAN_VERB_BAN, "name x --reason \xff\xfe", "no control characters");             /* not UTF-8 */
	refused(BAN_VERB_BAN, "name x --reason ", "printable");
	memset(big, 'r', sizeof big);
	memcpy(big, "name x --reason ", 16);
	big[16 + BAN_REASON_MAX + 1] = '\0';
	refused(BAN_VERB_BAN, big, "at most 56 bytes");
	big[16 + BAN_REASON_MAX] = '\0';
	struct ban ok = parsed(BAN_VERB_BAN, big, 0);
	cr_expect_eq(strlen(ok.reason), BAN_REASON_MAX);
	memset(big, 'n', sizeof big);
	memcpy(big, "name ", 5);
	big[5 + BAN_TARGET_MAX + 1] = '\0';
	refused(BAN_VERB_BAN, big, "longer than");
	refused(BAN_VERB_UNBAN, "key abcdefghijklmnopqrstuvwxyz --reason x", "usage: unban");
	refused(BAN_VERB_MUTE, "abcdefghijklmnopqrstuvwxyz --reason x", "unexpected");
	refused(BAN_VERB_UNMUTE, "abcdefghijklmnopqrstuvwxyz --for 1h", "usage: unmute");
	refused(BAN_VERB_MUTE, "", "usage: mute");
	/* The longest ban still says its expiry and whole reason within an ERROR's 120 bytes. */
	struct ban k = parsed(BAN_VERB_BAN, "key abcdefghijklmnopqrstuvwxyz --for 3650d --reason "
	                      "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr!", 4102444800);
	char text[512];
	ban_describe(&k, text, sizeof text);
	cr_expect_leq(strlen(text), PROTO_REASON_BYTES + 0u, "%zu bytes: %s", strlen(text), text);
	cr_expect(strstr(text, "until 2109-") && strstr(text, "r!"), "%s", text);
	char dirty[BAN_REASON_MAX + 1];
	ban_reason_sanitise(dirty, sizeof dirty, "ok\x1b[2J\xc2\x9b then");
	cr_expect_str_eq(dirty, "ok[2J then", "a stored reason is cleaned");
	ban_reason_sanitise(dirty, sizeof dirty, "\xff");
	cr_expect_str_eq(dirty, "?");
}

/* A cluster's lines (ban_sync_line): what one node writes, another parses back to the same ban. */
static void
round_trip(const struct ban *b, bool lifted, int64_t when, const char *field)
{
	char line[BAN_SYNC_MAX], f[BAN_SYNC_MAX], why[256] = "";
	struct ban got;
	bool l;

	ban_sync_line(b, lifted, when, line, f);
	cr_expect_str_eq(f, field);
	cr_assert(ban_sync_parse(line, 2000000000, &got, &l, why, sizeof why), "'%s' refused: %s", line, why);
	cr_expect_eq(l, lifted, "%s", line);
	cr_expect_eq(got.kind, b->kind, "%s", line);
	cr_expect_str_eq(got.target, b->target);
	cr_expect_eq(got.created, lifted ? when : b->created, "%s", line);
	if (!lifted) {
		cr_expect_eq(got.expires, b->expires, "%s", line);
		cr_expect_str_eq(got.reason, b->reason);
	}
}

static void
sync_refused(const char *line, const char *says)
{
	char why[256] = "";
	struct ban b;
	bool l;

	cr_expect(!ban_sync_parse(line, 2000000000, &b, &l, why, sizeof why), "'%s' taken", line);
	cr_expect(strstr(why, says) != NULL, "'%s': '%s' does not say '%s'", line, why, says);
}

Test(ban, a_clusters_lines_round_trip_and_are_strict)
{
	struct ban k = parsed(BAN_VERB_BAN, "key ABCDEFGHIJKLMNOPQRSTUVWXYZ --for 7d --reason seen cheating", 1999999000);
	struct ban n = parsed(BAN_VERB_BAN, "name Sir Mordred --reason impersonation", 1999999000);
	struct ban a = parsed(BAN_VERB_BAN, "addr 2001:DB8::/32", 1999999000);
	struct ban m = parsed(BAN_VERB_MUTE, "abcdefghijklmnopqrstuvwxyz --for 1h", 1999999000);

	round_trip(&k, false, 0, "key abcdefghijklmnopqrstuvwxyz");
	round_trip(&n, false, 0, "name sir mordred"); /* one field for a name in any case */
	round_trip(&a, false, 0, "addr 2001:db8::/32");
	round_trip(&m, false, 0, "mute abcdefghijklmnopqrstuvwxyz");
	round_trip(&k, true, 1999999500, "key abcdefghijklmnopqrstuvwxyz");
	round_trip(&n, true, 1999999500, "name sir mordred");
	round_trip(&m, true, 1999999500, "mute abcdefghijklmnopqrstuvwxyz");
	/* The longest: every field at its bound still fits a line. */
	char big[200] = "name ";
	for (int i = 0; i < 16; i++) /* 16 characters of 4 bytes: a name's 64 */
		strcat(big, "\xf0\x9d\x94\x90");
	snprintf(big + 5 + BAN_TARGET_MAX, sizeof big - 5 - BAN_TARGET_MAX, " --reason %.*s", BAN_REASON_MAX,
	         "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr");
	struct ban longest = parsed(BAN_VERB_BAN, big, 1999999000);
	longest.expires = longest.created + BAN_FOR_MAX;
	char fold[BAN_SYNC_MAX];
	snprintf(fold, sizeof fold, "name %s", longest.target);
	round_trip(&longest, false, 0, fold);

	sync_refused("ban", "neither ban nor unban");
	sync_refused("bans 1 0 key abcdefghijklmnopqrstuvwxyz", "neither ban nor unban");
	sync_refused("ban 0 0 key abcdefghijklmnopqrstuvwxyz", "not a time");
	sync_refused("ban 01 0 key abcdefghijklmnopqrstuvwxyz", "not a time");
	sync_refused("ban -5 0 key abcdefghijklmnopqrstuvwxyz", "not a time");
	sync_refused("ban 99999999999999999999 0 key abcdefghijklmnopqrstuvwxyz", "not a time");
	sync_refused("ban 2000086401 0 key abcdefghijklmnopqrstuvwxyz", "more than a day ahead");
	sync_refused("ban 1999999000 1999999000 key abcdefghijklmnopqrstuvwxyz", "not an expiry");
	sync_refused("ban 1999999000 5 key abcdefghijklmnopqrstuvwxyz", "not an expiry");
	sync_refused("ban 1000 400000000 key abcdefghijklmnopqrstuvwxyz", "not an expiry"); /* past BAN_FOR_MAX */
	sync_refused("ban 1999999000  0 key abcdefghijklmnopqrstuvwxyz", "not an expiry");
	sync_refused("ban 1999999000 0 user abcdefghijklmnopqrstuvwxyz", "not a kind");
	sync_refused("ban 1999999000 0 key abcdefghijklmnopqrstuvwxyz --for 2h", "--for in a line");
	sync_refused("ban 1999999000 0 key abc", "not a key's fingerprint");
	sync_refused("ban 1999999000 0 addr 10.0.0.1/8", "bits set past");
	sync_refused("ban 1999999000 0 name x --reason a\xc2\x9b" "2J", "no control characters");
	sync_refused("ban 1999999000 0 mute abcdefghijklmnopqrstuvwxyz --reason x", "unexpected");
	sync_refused("unban 1999999000 key abcdefghijklmnopqrstuvwxyz trailing", "usage: unban");
	sync_refused("unban 1999999000 0 key abcdefghijklmnopqrstuvwxyz", "not a kind");
	sync_refused("unban 1999999000 mute abcdefghijklmnopqrstuvwxyz --for 1h", "usage: unmute");
	char huge[BAN_SYNC_MAX + 8];
	memset(huge, 'x', sizeof huge);
	memcpy(huge, "ban 1999999000 0 name ", 22);
	huge[sizeof huge - 1] = '\0';
	sync_refused(huge, "a line longer than");
}

/* ---- a real server ---- */

static bool
settled(void *ud)
{
	struct raw *r = ud;
	return r->closed || r->eof || r->count[WIRE_WELCOME] > 0;
}

static bool
gone(void *ud)
{
	struct raw *r = ud;
	return r->closed || r->eof;
}

static void
join(struct th *t, struct raw *r, const char *src, const struct auth_ident *id, const char *name, const char *room)
{
	if (src)
		raw_start_from(t, r, src);
	else
		raw_start(t, r);
	r->id = *id;
	raw_join_as(r, name, room, true);
	th_run(t, 10000, settled, r);
}

/* joined: it was in a room when the ban came (else it is refused before WELCOME). */
static void
expect_banned(struct raw *r, const char *text, bool joined)
{
	struct wire_msg err;
	int nerr = 0;

	raw_decode(r, &err, &nerr);
	cr_expect_eq(r->count[WIRE_WELCOME], joined, "WELCOMEs: %d", r->count[WIRE_WELCOME]);
	cr_assert_geq(nerr, 1, "no ERROR before the drop");
	cr_expect_eq(err.u.error.code, PERR_BANNED, "ERROR %d (%s)", err.u.error.code, err.u.error.text);
	cr_expect(err.u.error.fatal);
	cr_expect(strstr(err.u.error.text, text) != NULL, "'%s' does not say '%s'", err.u.error.text, text);
}

/* The admin command's handler as the socket calls it, with the line "FMT" where %s is arg. */
static const char *
admin(struct th *t, int verb, const char *fmt, const char *arg)
{
	static char why[256], args[256];
	struct metrics_buf out = { .max = 65536 };

	const char *at = strstr(fmt, "%s");
	cr_assert_not_null(at);
	snprintf(args, sizeof args, "%.*s%s%s", (int)(at - fmt), fmt, arg, at + 2);
	const char *err = moderate__cmd_ban(t->srv, verb, args, &out, why, sizeof why);
	metrics_buf_free(&out);
	return err;
}

Test(ban, a_ban_drops_who_is_connected_and_refuses_by_key_name_and_address, .timeout = 60)
{
	static struct raw a, b, a2, m, far, near;
	static struct auth_ident ka, kb, km, kf, kn;
	struct th t;
	struct server_config c;
	char fp[AUTH_FP_LEN + 1];

	auth_ident_new(&ka);
	auth_ident_new(&kb);
	auth_ident_new(&km);
	auth_ident_new(&kf);
	auth_ident_new(&kn);
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);

	join(&t, &a, NULL, &ka, "Alice", "room-a");
	join(&t, &b, NULL, &kb, "Bob", "room-a");
	cr_assert_eq(a.count[WIRE_WELCOME] + b.count[WIRE_WELCOME], 2);
	auth_fingerprint(ka.pk, fp);
	cr_assert_null(admin(&t, BAN_VERB_BAN, "key %s --for 1h --reason seen cheating", fp));
	th_run(&t, 5000, gone, &a);
	expect_banned(&a, "seen cheating", true);
	cr_expect(strstr(a.last_error.u.error.text, "until ") && strstr(a.last_error.u.error.text, "(key)"),
	          "%s", a.last_error.u.error.text);
	cr_expect(!b.closed && !b.eof && b.nerrors == 0, "the other player was dropped too");
	/* Back again, under another name: its key is refused at IDENT, before any name. */
	join(&t, &a2, NULL, &ka, "Alicia", "room-b");
	expect_banned(&a2, "seen cheating", false);

	cr_assert_null(admin(&t, BAN_VERB_BAN, "name %s --reason impersonation", "mallory"));
	join(&t, &m, NULL, &km, "Mallory", "room-c");
	expect_banned(&m, "(name)", false);

	/* An address ban matches the whole address: 127.0.0.2 is refused, 127.0.0.1 is not. */
	cr_assert_null(admin(&t, BAN_VERB_BAN, "addr %s", "127.0.0.2/32"));
	join(&t, &far, "127.0.0.2", &kf, "Faraway", "room-d");
	expect_banned(&far, "(address)", false);
	join(&t, &near, NULL, &kn, "Nearby", "room-d");
	cr_expect_eq(near.count[WIRE_WELCOME], 1, "127.0.0.1 refused by a ban of 127.0.0.2 (%s)",
	             near.last_error.u.error.text);

	/* Lifted: the key comes back. */
	cr_assert_null(admin(&t, BAN_VERB_UNBAN, "key %s", fp));
	cr_expect_not_null(admin(&t, BAN_VERB_UNBAN, "key %s", fp), "a second unban found something");
	static struct raw a3;
	join(&t, &a3, NULL, &ka, "Alice", "room-e");
	cr_expect_eq(a3.count[WIRE_WELCOME], 1, "an unbanned key refused (%s)", a3.last_error.u.error.text);
	th_finish(&t);
}

Test(ban, an_address_ban_matches_the_client_a_trusted_proxy_names, .timeout = 30)
{
	static struct raw banned, other;
	static struct proxy_cidr lo;
	struct th t;
	struct server_config c;
	char why[64];
	const char *h1 = "PROXY TCP4 203.0.113.9 127.0.0.1 40000 8000\r\n";
	const char *h2 = "PROXY TCP4 198.51.100.1 127.0.0.1 40001 8000\r\n";

	th_init(&t);
	th_config(&c);
	c.multi = true;
	cr_assert(proxy_cidr_parse("127.0.0.1", &lo, why, sizeof why));
	c.trusted = &lo;
	c.ntrusted = 1;
	th_server(&t, &c);
	cr_assert_null(admin(&t, BAN_VERB_BAN, "addr %s --reason spam from this network", "203.0.113.0/24"));
	raw_start(&t, &banned);
	while (!banned.connected)
		uv_run(&t.loop, UV_RUN_ONCE);
	raw_send(&banned, h1, strlen(h1));
	th_run(&t, 5000, gone, &banned);
	expect_banned(&banned, "spam from this network", false);
	/* The proxy itself (127.0.0.1) is not what is banned: another client through it joins. */
	raw_start(&t, &other);
	while (!other.connected)
		uv_run(&t.loop, UV_RUN_ONCE);
	raw_send(&other, h2, strlen(h2));
	raw_join(&other, "Through", "room-p");
	th_run(&t, 5000, settled, &other);
	cr_expect_eq(other.count[WIRE_WELCOME], 1, "not joined: %s", other.last_error.u.error.text);
	raw_close(&other);
	th_finish(&t);
}

static bool
both_chats(void *ud)
{
	struct raw *r = ud; /* r[0] the muted, r[1] the other */
	return (r[0].nerrors >= 1 && r[0].count[WIRE_CHAT] >= 1 && r[1].count[WIRE_CHAT] >= 1) || r[0].closed ||
	       r[1].closed;
}

static void
say(struct raw *r, const char *text)
{
	static struct wire_msg m;

	memset(&m, 0, sizeof m);
	m.type = WIRE_CHAT;
	m.u.chat.from = CHAT_FROM_CLIENT;
	snprintf(m.u.chat.text, sizeof m.u.chat.text, "%s", text);
	raw_msg(r, &m);
}

static bool
heard_again(void *ud)
{
	struct raw *r = ud;
	return r->count[WIRE_CHAT] >= 2 || r->closed;
}

static void
spect_say(struct raw *r, const char *text)
{
	static struct wire_msg m;

	memset(&m, 0, sizeof m);
	m.type = WIRE_SPECT_CHAT;
	snprintf(m.u.schat.text, sizeof m.u.schat.text, "%s", text);
	raw_msg(r, &m);
}

static bool
spect_heard(void *ud)
{
	struct raw *r = ud; /* r[0] the muted spectator, r[1] the other */
	return (r[0].nerrors >= 1 && r[0].count[WIRE_SPECT_CHAT] >= 1) || r[0].closed || r[1].closed;
}

Test(ban, a_muted_keys_chat_reaches_no_player_and_no_spectator, .timeout = 60)
{
	static struct raw p[2], s[2];
	static struct auth_ident kp[2], ks[2];
	struct th t;
	struct server_config c;
	char fp[AUTH_FP_LEN + 1], sfp[AUTH_FP_LEN + 1];

	for (int i = 0; i < 2; i++) {
		auth_ident_new(&kp[i]);
		auth_ident_new(&ks[i]);
	}
	th_init(&t);
	th_config(&c);
	c.multi = true;
	th_server(&t, &c);
	join(&t, &p[0], NULL, &kp[0], "Loud", "room-m");
	join(&t, &p[1], NULL, &kp[1], "Quiet", "room-m");
	cr_assert_eq(p[0].count[WIRE_WELCOME] + p[1].count[WIRE_WELCOME], 2);
	auth_fingerprint(kp[0].pk, fp);
	cr_assert_null(admin(&t, BAN_VERB_MUTE, "%s --for 1h", fp));
	say(&p[0], "you will not hear this");
	say(&p[1], "hello");
	th_run(&t, 5000, both_chats, p);
	cr_expect_eq(p[1].count[WIRE_CHAT], 1, "the other player got the muted line (%d chats)", p[1].count[WIRE_CHAT]);
	cr_expect_eq(p[0].count[WIRE_CHAT], 1, "the muted player did not get the other's line");
	cr_expect_eq(p[0].last_error.u.error.code, PERR_MUTED, "%s", p[0].last_error.u.error.text);
	cr_expect(!p[0].last_error.u.error.fatal, "a mute drops the player");
	cr_expect(strstr(p[0].last_error.u.error.text, "muted") != NULL);
	/* Lifted: it is heard again. */
	cr_assert_null(admin(&t, BAN_VERB_UNMUTE, "%s", fp));
	say(&p[0], "now you hear me");
	th_run(&t, 5000, heard_again, &p[1]);
	cr_expect_eq(p[1].count[WIRE_CHAT], 2);

	/* Spectators: a muted one's line goes to no other spectator. */
	for (int i = 0; i < 2; i++) {
		raw_start(&t, &s[i]);
		s[i].id = ks[i];
		s[i].spectator = true;
		raw_join_as(&s[i], i ? "Watcher" : "Heckler", "room-m", false);
		th_run(&t, 10000, settled, &s[i]);
		cr_assert_eq(s[i].count[WIRE_WELCOME], 1, "spectator %d: %s", i, s[i].last_error.u.error.text);
	}
	auth_fingerprint(ks[0].pk, sfp);
	cr_assert_null(admin(&t, BAN_VERB_MUTE, "%s", sfp));
	spect_say(&s[0], "boo");
	spect_say(&s[1], "nice move");
	th_run(&t, 5000, spect_heard, s);
	cr_expect_eq(s[0].last_error.u.error.code, PERR_MUTED, "%s", s[0].last_error.u.error.text);
	cr_expect_eq(s[1].count[WIRE_SPECT_CHAT], 1, "the other spectator got the muted line");
	for (int i = 0; i < 2; i++) {
		raw_close(&p[i]);
		raw_close(&s[i]);
	}
	th_finish(&t);
}
