/* SPDX-License-Identifier: MIT */
/* test_wmsg: the web port's strict decoders of what a browser and a cluster say: a browser's Origin (web/wmsg.c), a node's "web" line (server/cluster.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "cluster.h"
#include "wmsg.h"

static bool
origin(const char *o, char *host, int *port, const char **auth)
{
	return wmsg_origin(o, auth, host, 64, port);
}

Test(wmsg, an_origin_is_a_scheme_a_host_and_a_port_only)
{
	char host[64];
	const char *a;
	int port;

	cr_assert(origin("http://127.0.0.1:8080", host, &port, &a));
	cr_assert_str_eq(host, "127.0.0.1");
	cr_assert_eq(port, 8080);
	cr_assert_str_eq(a, "127.0.0.1:8080");
	cr_assert(origin("https://wizwar.example", host, &port, &a));
	cr_assert_str_eq(host, "wizwar.example");
	cr_assert_eq(port, 443);
	cr_assert(origin("http://[2001:db8::1]:81", host, &port, &a));
	cr_assert_str_eq(host, "2001:db8::1");
	cr_assert_eq(port, 81);
	cr_assert_str_eq(a, "[2001:db8::1]:81");
	cr_assert(origin("http://[::1]", host, &port, &a));
	cr_assert_eq(port, 80);
	/* Everything a page of ours never has: refused whole. */
	static const char *const bad[] = {
		"null", "", "file://", "ws://127.0.0.1:80", "http://", "http://:80", "http://127.0.0.1:",
		"http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:080", "http://127.0.0.1:123456",
		"http://127.0.0.1:80/", "http://127.0.0.1/path", "http://user@127.0.0.1", "http://[::1", "http://[]:80",
		"http://[::1]x", "http://a b", "http://127.0.0.1:80:80", "http://a:b:80", "HTTP://127.0.0.1",
		"http://x.example:+80", "http://x.example: 80",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_not(origin(bad[i], host, &port, &a), "took '%s'", bad[i]);
	/* A host longer than the caller's buffer is refused, not cut. */
	char longo[200];
	memset(longo, 'a', sizeof longo);
	memcpy(longo, "http://", 7);
	longo[sizeof longo - 1] = '\0';
	cr_assert_not(origin(longo, host, &port, &a));
}

Test(wmsg, a_nodes_web_line_is_an_id_an_ip_address_and_a_port)
{
	char id[CLUSTER_ID_LEN + 1], host[CLUSTER_HOST_MAX + 1];
	int port;

	cr_assert_eq(cluster_parse_web("abcdefghijklmnopqrstuvwxyz 127.0.0.1 8080", id, host, &port), 0);
	cr_assert_str_eq(id, "abcdefghijklmnopqrstuvwxyz");
	cr_assert_str_eq(host, "127.0.0.1");
	cr_assert_eq(port, 8080);
	cr_assert_eq(cluster_parse_web("abcdefghijklmnopqrstuvwxy2 2001:db8::1 1", id, host, &port), 0);
	cr_assert_str_eq(host, "2001:db8::1");
	static const char *const bad[] = {
		"", "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz 127.0.0.1", "abcdefghijklmnopqrstuvwxyz 127.0.0.1 ",
		"abcdefghijklmnopqrstuvwxyz 127.0.0.1 0", "abcdefghijklmnopqrstuvwxyz 127.0.0.1 65536",
		"abcdefghijklmnopqrstuvwxyz 127.0.0.1 08080", "abcdefghijklmnopqrstuvwxyz 127.0.0.1 80 x",
		"abcdefghijklmnopqrstuvwxyz 127.0.0.1  80", "abcdefghijklmnopqrstuvwxyz wizwar.example 80",
		"abcdefghijklmnopqrstuvwxyz [::1] 80", "ABCDEFGHIJKLMNOPQRSTUVWXYZ 127.0.0.1 80",
		"abcdefghijklmnopqrstuvwxy 127.0.0.1 80", "abcdefghijklmnopqrstuvwxyza 127.0.0.1 80",
		"abcdefghijklmnopqrstuvwxyz  127.0.0.1 80", "abcdefghijklmnopqrstuvwxyz 127.0.0.1 -80",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_neq(cluster_parse_web(bad[i], id, host, &port), 0, "took '%s'", bad[i]);
}
