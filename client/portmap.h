/* SPDX-License-Identifier: MIT */
/* portmap: ask the home router to forward the server's TCP port (UPnP-IGD, then NAT-PMP), off the loop. */
#ifndef WW_PORTMAP_H
#define WW_PORTMAP_H

#include <stdbool.h>

#include <uv.h>

/* The ways to ask, as bits; portmap_methods() says which this build has. */
enum { PORTMAP_UPNP = 1, PORTMAP_NATPMP = 2 };

/* What a request came to, as reported once (and again only if a renewal fails). */
enum portmap_state {
	PORTMAP_MAPPED,   /* forwarded, and the router's address is a public one */
	PORTMAP_PRIVATE,  /* forwarded, but the router's own address is private or shared (carrier-grade NAT) */
	PORTMAP_NONE,     /* no router answered, or it refused */
	PORTMAP_LOST,     /* a renewal failed: the mapping may lapse */
};

struct portmap_report {
	enum portmap_state state;
	const char *method;      /* "UPnP-IGD" or "NAT-PMP" (MAPPED, PRIVATE, LOST) */
	char external[48];       /* the router's external IPv4 address, checked (MAPPED, PRIVATE) */
	int external_port;       /* the port outside players connect to */
	unsigned lease_s;        /* the lease granted (0: until removed) */
	char why[400];           /* NONE, LOST: what each method answered, in words */
};

struct portmap_config {
	int port;                /* the TCP port the server listens on, asked for outside too */
	unsigned methods;        /* PORTMAP_UPNP | PORTMAP_NATPMP */
	unsigned lease_s;        /* the lease asked for (default 3600 s); renewed at half of what is granted */
	unsigned wait_ms;        /* how long each method waits for a router (default 2000 ms) */
	void (*report)(void *ud, const struct portmap_report *r); /* on the loop */
	void *ud;
};

/* The methods this build has (meson options upnp and natpmp), 0 for none. */
unsigned portmap_methods(void);
/* "upnp", "natpmp" or "both" (WIZWAR_PORTMAP, for tests and routers that answer one badly);
 * false for anything else. */
bool portmap_methods_parse(const char *s, unsigned *out);
/* The address is one the internet cannot reach (RFC 1918, 100.64/10, loopback, link-local,
 * documentation and benchmark ranges, 0/8, multicast and above): a router giving it is itself
 * behind another NAT. */
bool portmap_private4(const char *dotted);

/* Start asking, on a worker thread; the report comes on the loop. NULL when out of memory. */
struct portmap *portmap_start(uv_loop_t *loop, const struct portmap_config *cfg);
/* Stop renewing and remove the mapping (on a worker thread, bounded: a few seconds at most);
 * the loop runs until that is done, and pm is freed then. Accepts NULL. */
void portmap_stop(struct portmap *pm);

#endif
