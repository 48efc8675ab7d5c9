/* SPDX-License-Identifier: MIT */
/* test_lan: the TXT record of a LAN announcement read strictly (hostile values refused or cleaned), written
 * byte for byte, and the list of duels found: merged per service, two of one name counted. */
#include <string.h>

#include <criterion/criterion.h>

#include "lan.h"
#include "proto.h"

#define FP "abcdefghijklmnopqrstuvwxyz"

static struct lan_duel
parse(int port, const char *const *kv, size_t n)
{
	struct lan_duel d;
	size_t len[16];

	memset(&d, 0, sizeof d);
	snprintf(d.instance, sizeof d.instance, "alice");
	snprintf(d.host, sizeof d.host, "box.local");
	snprintf(d.addr, sizeof d.addr, "10.0.0.1");
	d.port = port;
	for (size_t i = 0; i < n; i++)
		len[i] = strlen(kv[i]);
	lan_txt_parse(&d, kv, len, n);
	return d;
}

#define STR(x) #x
#define XSTR(x) STR(x)

Test(lan, txt_written_is_read_back)
{
	char buf[512];
	const char *kv[8];
	struct lan_info in = { .name = "alice", .port = 7727, .password = true, .wanted = true, .fp = FP };
	size_t n = lan_txt_make(&in, buf, sizeof buf, kv);

	cr_assert_eq(n, 7);
	cr_assert_str_eq(kv[0], "txtvers=1");
	cr_assert_str_eq(kv[1], "proto=" XSTR(PROTO_VERSION));
	cr_assert_str_eq(kv[2], "kind=host");
	cr_assert_str_eq(kv[3], "name=alice");
	cr_assert_str_eq(kv[4], "pw=1");
	cr_assert_str_eq(kv[5], "wait=1");
	cr_assert_str_eq(kv[6], "fp=" FP);
	struct lan_duel d = parse(7727, kv, n);
	cr_assert(d.usable, "%s", d.why);
	cr_assert_str_eq(d.name, "alice");
	cr_assert_str_eq(d.fp, FP);
	cr_assert(d.password && d.wanted && !d.server);
	cr_assert_eq(d.proto, PROTO_VERSION);
}

Test(lan, hostile_values_are_refused)
{
	static const struct {
		const char *kv[8];
		const char *why;
	} bad[] = {
		{ { "proto=1", "kind=host", "name=a", "pw=0", "wait=1", ("fp=" FP) }, "protocol 1" },
		{ { "proto=99999999999", "kind=host", "name=a", "pw=0", "wait=1", ("fp=" FP) }, "protocol" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=hosts", "name=a", "pw=0", "wait=1", ("fp=" FP) }, "kind" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a\033[2J", "pw=0", "wait=1", ("fp=" FP) }, "name" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=", "pw=0", "wait=1", ("fp=" FP) }, "name" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=\xff\xfe", "pw=0", "wait=1", ("fp=" FP) }, "name" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=yes", "wait=1", ("fp=" FP) }, "pw or wait" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=0", "wait=", ("fp=" FP) }, "pw or wait" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=0", "wait=1", "fp=ABCDEFGHIJKLMNOPQRSTUVWXYZ" },
		  "fingerprint" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=0", "wait=1", ("fp=" FP "a") }, "fingerprint" },
		{ { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=0", "wait=1" }, "fingerprint" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = 0;
		while (n < 8 && bad[i].kv[n])
			n++;
		struct lan_duel d = parse(7727, bad[i].kv, n);
		cr_assert(!d.usable, "case %zu was taken", i);
		cr_assert(strstr(d.why, bad[i].why), "case %zu: '%s'", i, d.why);
	}
	const char *ok[] = { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=a", "pw=0", "wait=1", ("fp=" FP) };
	cr_assert(!parse(0, ok, 6).usable, "no port");
	cr_assert(parse(7727, ok, 6).usable);
}

Test(lan, first_value_of_a_key_counts_and_keys_fold_case)
{
	const char *kv[] = { ("FP=" FP), "fp=bbbbbbbbbbbbbbbbbbbbbbbbbb", ("proto=" XSTR(PROTO_VERSION)), "Kind=host",
		             "name=a", "name=mallory", "pw=0", "wait=1", "junk", "=x" };
	struct lan_duel d = parse(1, kv, 10);

	cr_assert(d.usable, "%s", d.why);
	cr_assert_str_eq(d.fp, FP);
	cr_assert_str_eq(d.name, "a");
}

Test(lan, shown_text_is_printable_and_bounded)
{
	char out[8], line[400];
	struct lan_duel d;
	const char *kv[] = { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=alice", "pw=0", "wait=1", ("fp=" FP) };

	lan_clean(out, sizeof out, "a\033[2J\nzzzzzz", 12);
	cr_assert_str_eq(out, "a?[2J?z");
	d = parse(1, kv, 6);
	memset(d.host, '\a', sizeof d.host - 1);
	d.host[sizeof d.host - 1] = '\0';
	snprintf(d.instance, sizeof d.instance, "alice \033]0;owned\a");
	lan_list_line(line, sizeof line, 1, &d);
	for (const char *p = line; *p; p++)
		cr_assert(*p >= 0x20 && *p < 0x7f, "byte %02x in '%s'", (unsigned char)*p, line);
	cr_assert(strstr(line, "alice"));
	cr_assert(strstr(line, ": waiting, key abcdefgh"), "%s", line);
}

Test(lan, list_merges_one_service_and_counts_names)
{
	struct lan_duel list[3], d;
	size_t n = 0;
	int first;
	const char *kv[] = { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=alice", "pw=0", "wait=1", ("fp=" FP) };
	const char *kv2[] = { ("proto=" XSTR(PROTO_VERSION)), "kind=host", "name=alice", "pw=0", "wait=1",
		              "fp=bbbbbbbbbbbbbbbbbbbbbbbbbb" };

	d = parse(1, kv, 6);
	cr_assert(lan_list_add(list, &n, 3, &d));
	snprintf(d.addr, sizeof d.addr, "fe80::1%%eth1"); /* the same service on another link */
	cr_assert(lan_list_add(list, &n, 3, &d));
	cr_assert_eq(n, 1);
	cr_assert_str_eq(list[0].addr, "10.0.0.1");
	cr_assert_eq(lan_list_named(list, n, "alice", &first), 1);
	cr_assert_eq(first, 0);
	d = parse(1, kv2, 6); /* the same instance name with another key: a second duel called alice */
	cr_assert(lan_list_add(list, &n, 3, &d));
	cr_assert_eq(lan_list_named(list, n, "alice", &first), 2);
	snprintf(d.instance, sizeof d.instance, "x");
	cr_assert(lan_list_add(list, &n, 3, &d));
	snprintf(d.instance, sizeof d.instance, "y");
	cr_assert(!lan_list_add(list, &n, 3, &d), "a full list takes no more");
	cr_assert_eq(lan_list_named(list, n, "bob", &first), 0);
	cr_assert_eq(first, -1);
}
