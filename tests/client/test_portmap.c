/* SPDX-License-Identifier: MIT */
/* client/portmap: which router addresses are public (a private one means carrier-grade NAT), and WIZWAR_PORTMAP's
 * values. The mapping itself is tested against a real miniupnpd in namespaces (test_portmap.sh). */
#include <criterion/criterion.h>

#include "portmap.h"

Test(portmap, private_and_shared_addresses_are_not_public)
{
	static const char *const not_public[] = {
		"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254", "192.168.1.1", "100.64.0.1",
		"100.127.255.254", "127.0.0.1", "169.254.3.4", "0.0.0.0", "192.0.0.9", "192.0.2.1", "198.51.100.7",
		"203.0.113.5", "198.18.0.1", "198.19.255.1", "224.0.0.1", "239.255.255.250", "255.255.255.255",
		"240.0.0.1",
		/* not an IPv4 address at all: a router's garbage is never taken for a public address */
		"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "11.77.0.1 ", "::1", "01.2.3.4x",
	};
	static const char *const public[] = {
		"11.77.0.1", "1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0",
		"192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "203.0.114.1", "223.255.255.254",
	};

	for (size_t i = 0; i < sizeof not_public / sizeof not_public[0]; i++)
		cr_expect(portmap_private4(not_public[i]), "'%s' taken for a public address", not_public[i]);
	for (size_t i = 0; i < sizeof public / sizeof public[0]; i++)
		cr_expect(!portmap_private4(public[i]), "'%s' taken for a private one", public[i]);
}

Test(portmap, methods_by_name)
{
	unsigned m = 0;

	cr_expect(portmap_methods_parse("upnp", &m) && m == PORTMAP_UPNP);
	cr_expect(portmap_methods_parse("natpmp", &m) && m == PORTMAP_NATPMP);
	cr_expect(portmap_methods_parse("both", &m) && m == (PORTMAP_UPNP | PORTMAP_NATPMP));
	m = 7;
	cr_expect(!portmap_methods_parse("UPNP", &m) && m == 7);
	cr_expect(!portmap_methods_parse("", &m));
	cr_expect(!portmap_methods_parse("upnp,natpmp", &m));
}
