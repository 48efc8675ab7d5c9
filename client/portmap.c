/* SPDX-License-Identifier: MIT */
/* portmap: ask the home router to forward the server's TCP port (UPnP-IGD, then NAT-PMP), off the loop.
 *
 * miniupnpc and libnatpmp block (SSDP discovery, HTTP/SOAP to the router, UDP retries), so every call
 * into them runs in a uv_queue_work job on libuv's thread pool, one job at a time: the job owns the
 * struct's library state while it runs, and its after-callback (on the loop) reads the result, reports
 * it and decides the next job. The host plays on the LAN from the start; a router that answers late,
 * or never, only delays the report. Each job is bounded: discovery waits cfg.wait_ms for each method,
 * NAT-PMP's retries are cut at the same deadline, and miniupnpc's HTTP calls carry its own socket
 * timeouts (a few seconds).
 *
 * Everything a router says is hostile input: the external address is parsed with inet_pton and judged
 * (a private or shared one means the router is itself behind NAT), the port and lease are range-checked,
 * and a lease too short to be meant is renewed no more often than every MIN_RENEW_MS. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include "portmap.h"

#ifdef WW_HAVE_UPNP
#include <miniupnpc/miniupnpc.h>
#include <miniupnpc/upnpcommands.h>
#include <miniupnpc/upnperrors.h>
#endif
#ifdef WW_HAVE_NATPMP
#include <natpmp.h>
#endif

#define DEFAULT_LEASE_S 3600u
#define DEFAULT_WAIT_MS 2000u
#define MIN_RENEW_MS 10000u  /* a hostile or broken router's 1 s lease is not a reason to spin */
#define RETRY_MS 30000u      /* after a failed renewal */
#define UPNP_ONLY_PERMANENT 725 /* OnlyPermanentLeasesSupported: ask again with lease 0 */

enum job { JOB_MAP, JOB_RENEW, JOB_UNMAP };

struct portmap {
	uv_loop_t *loop;
	struct portmap_config cfg;
	uv_work_t work;
	uv_timer_t renew;
	bool busy;          /* a job is queued or running: its fields below are the worker's */
	bool stopping;
	bool timer_open;
	bool mapped;        /* the router holds our mapping (to remove at the end) */
	bool lost;          /* the last renewal failed (reported once) */
	enum job job;
	bool ok;            /* the last job's outcome */
	int method;         /* the one that mapped: PORTMAP_UPNP or PORTMAP_NATPMP */
	unsigned granted_s; /* the lease granted, 0: until removed */
	struct portmap_report rep;
#ifdef WW_HAVE_UPNP
	struct UPNPUrls urls;
	struct IGDdatas data;
	bool have_urls;
	char lanaddr[64];
#endif
};

unsigned
portmap_methods(void)
{
	unsigned m = 0;
#ifdef WW_HAVE_UPNP
	m |= PORTMAP_UPNP;
#endif
#ifdef WW_HAVE_NATPMP
	m |= PORTMAP_NATPMP;
#endif
	return m;
}

bool
portmap_methods_parse(const char *s, unsigned *out)
{
	static const struct { const char *name; unsigned m; } names[] = {
		{ "upnp", PORTMAP_UPNP }, { "natpmp", PORTMAP_NATPMP }, { "both", PORTMAP_UPNP | PORTMAP_NATPMP },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].m;
			return true;
		}
	return false;
}

/* Ranges no one on the internet can reach this host at (RFC 6890's table, less the global ones). */
static const struct { uint32_t net; int bits; } not_public[] = {
	{ 0x00000000u, 8 },  /* 0/8 "this network" */
	{ 0x0a000000u, 8 },  /* 10/8 private */
	{ 0x64400000u, 10 }, /* 100.64/10 shared: carrier-grade NAT */
	{ 0x7f000000u, 8 },  /* loopback */
	{ 0xa9fe0000u, 16 }, /* link-local */
	{ 0xac100000u, 12 }, /* 172.16/12 private */
	{ 0xc0000000u, 24 }, /* 192.0.0/24 IETF protocol assignments */
	{ 0xc0000200u, 24 }, /* 192.0.2/24 documentation */
	{ 0xc0a80000u, 16 }, /* 192.168/16 private */
	{ 0xc6120000u, 15 }, /* 198.18/15 benchmarking */
	{ 0xc6336400u, 24 }, /* 198.51.100/24 documentation */
	{ 0xcb007100u, 24 }, /* 203.0.113/24 documentation */
	{ 0xe0000000u, 3 },  /* multicast, reserved, broadcast */
};

bool
portmap_private4(const char *dotted)
{
	struct in_addr a;

	if (inet_pton(AF_INET, dotted, &a) != 1)
		return true;
	uint32_t h = ntohl(a.s_addr);
	for (size_t i = 0; i < sizeof not_public / sizeof not_public[0]; i++)
		if ((h >> (32 - not_public[i].bits)) == (not_public[i].net >> (32 - not_public[i].bits)))
			return true;
	return false;
}

/* Worker side. */

#if defined(WW_HAVE_UPNP) || defined(WW_HAVE_NATPMP)
static void why_add(struct portmap *pm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
why_add(struct portmap *pm, const char *fmt, ...)
{
	size_t n = strlen(pm->rep.why);
	va_list ap;

	if (n + 3 >= sizeof pm->rep.why)
		return;
	if (n > 0) {
		memcpy(pm->rep.why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(pm->rep.why + n, sizeof pm->rep.why - n, fmt, ap);
	va_end(ap);
}

/* The router's word for its address, kept only if it is a dotted IPv4 address. */
static bool
take_external(struct portmap *pm, const char *said)
{
	struct in_addr a;

	if (inet_pton(AF_INET, said, &a) != 1)
		return false;
	inet_ntop(AF_INET, &a, pm->rep.external, sizeof pm->rep.external);
	return true;
}
#endif

#ifdef WW_HAVE_UPNP
static int
upnp_add(struct portmap *pm)
{
	char port[8], lease[16];
	int r;

	snprintf(port, sizeof port, "%d", pm->cfg.port);
	snprintf(lease, sizeof lease, "%u", pm->granted_s);
	r = UPNP_AddPortMapping(pm->urls.controlURL, pm->data.first.servicetype, port, port, pm->lanaddr, "wizwar",
	                        "TCP", NULL, lease);
	if (r == UPNP_ONLY_PERMANENT && pm->granted_s != 0) {
		pm->granted_s = 0; /* removed at the end, and by nothing else: the router cannot do better */
		r = UPNP_AddPortMapping(pm->urls.controlURL, pm->data.first.servicetype, port, port, pm->lanaddr,
		                        "wizwar", "TCP", NULL, "0");
	}
	return r;
}

static bool
upnp_map(struct portmap *pm)
{
	/* upnpDiscover() would wait its delay once for each of four types in turn where nobody answers:
	 * ask for a gateway of either version (an IGDv2 answers for v1 too) and any root device, within
	 * wait_ms in all. */
	static const char *const types[] = { "urn:schemas-upnp-org:device:InternetGatewayDevice:1",
	                                     "upnp:rootdevice", NULL };
	int err = 0, r;
	char ext[40] = "";
	struct UPNPDev *devs = upnpDiscoverDevices((const char *const *)types, (int)pm->cfg.wait_ms / 2, NULL, NULL,
	                                           0, 0, 2, &err, 0);

	if (devs == NULL) {
		why_add(pm, "UPnP-IGD: no router answered in %.1f s", pm->cfg.wait_ms / 1000.0);
		return false;
	}
#if MINIUPNPC_API_VERSION >= 18
	r = UPNP_GetValidIGD(devs, &pm->urls, &pm->data, pm->lanaddr, sizeof pm->lanaddr, NULL, 0);
#else
	r = UPNP_GetValidIGD(devs, &pm->urls, &pm->data, pm->lanaddr, sizeof pm->lanaddr);
#endif
	freeUPNPDevlist(devs);
	if (r == 0) {
		why_add(pm, "UPnP-IGD: devices answered, none of them a router");
		return false;
	}
	pm->have_urls = true;
	if (r != 1) {
		why_add(pm, "UPnP-IGD: %s", r == 2 ? "the router says it is not connected" :
		        "a UPnP device answered, not a router");
		return false;
	}
	r = UPNP_GetExternalIPAddress(pm->urls.controlURL, pm->data.first.servicetype, ext);
	ext[sizeof ext - 1] = '\0';
	if (r != 0 || !take_external(pm, ext)) {
		why_add(pm, "UPnP-IGD: the router did not give its external address (%s)", r ? strupnperror(r) : "not IPv4");
		return false;
	}
	pm->granted_s = pm->cfg.lease_s;
	r = upnp_add(pm);
	if (r != 0) {
		const char *e = strupnperror(r);
		why_add(pm, "UPnP-IGD: the router refused port %d (%s)", pm->cfg.port, e ? e : "no reason");
		return false;
	}
	pm->rep.external_port = pm->cfg.port;
	pm->rep.method = "UPnP-IGD";
	return true;
}

static bool
upnp_unmap(struct portmap *pm)
{
	char port[8];

	snprintf(port, sizeof port, "%d", pm->cfg.port);
	return UPNP_DeletePortMapping(pm->urls.controlURL, pm->data.first.servicetype, port, "TCP", NULL) == 0;
}
#endif

#ifdef WW_HAVE_NATPMP
static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The answer to the request just sent, of the type expected; libnatpmp's own retries (up to 9,
 * doubling from 250 ms: over a minute) are cut at the deadline. */
static int
natpmp_wait(natpmp_t *n, natpmpresp_t *resp, unsigned type, uint64_t deadline)
{
	for (;;) {
		struct timeval tv;
		fd_set fds;
		uint64_t now = now_ms();

		if (now >= deadline)
			return NATPMP_TRYAGAIN;
		FD_ZERO(&fds);
		FD_SET(n->s, &fds);
		if (getnatpmprequesttimeout(n, &tv) < 0)
			return NATPMP_ERR_NOPENDINGREQ;
		uint64_t wait = (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
		if (wait > deadline - now)
			wait = deadline - now;
		tv.tv_sec = (time_t)(wait / 1000);
		tv.tv_usec = (suseconds_t)(wait % 1000 * 1000);
		if (select(n->s + 1, &fds, NULL, NULL, &tv) < 0 && errno != EINTR)
			return NATPMP_ERR_RECVFROM;
		int r = readnatpmpresponseorretry(n, resp);
		if (r == NATPMP_TRYAGAIN)
			continue;
		if (r == 0 && resp->type != type)
			continue; /* a stray answer to something else */
		return r;
	}
}

/* Map (lifetime > 0) or remove (0) the port; the address is asked for first when `ask_addr`. */
static int
natpmp_request(struct portmap *pm, uint32_t lifetime, bool ask_addr, natpmpresp_t *resp, char *gw, size_t gwlen)
{
	natpmp_t n;
	uint64_t deadline = now_ms() + pm->cfg.wait_ms;
	int r;

	if ((r = initnatpmp(&n, 0, 0)) < 0)
		return r;
	inet_ntop(AF_INET, &n.gateway, gw, (socklen_t)gwlen);
	if (ask_addr) {
		if ((r = sendpublicaddressrequest(&n)) < 0 ||
		    (r = natpmp_wait(&n, resp, NATPMP_RESPTYPE_PUBLICADDRESS, deadline)) != 0)
			goto out;
		char ext[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &resp->pnu.publicaddress.addr, ext, sizeof ext);
		if (!take_external(pm, ext)) {
			r = NATPMP_ERR_INVALIDARGS;
			goto out;
		}
		deadline = now_ms() + pm->cfg.wait_ms; /* it answers: as long again for the mapping */
	}
	if ((r = sendnewportmappingrequest(&n, NATPMP_PROTOCOL_TCP, (uint16_t)pm->cfg.port,
	                                   lifetime ? (uint16_t)pm->cfg.port : 0, lifetime)) < 0)
		goto out;
	r = natpmp_wait(&n, resp, NATPMP_RESPTYPE_TCPPORTMAPPING, deadline);
out:
	closenatpmp(&n);
	return r;
}

/* What the gateway did, after "NAT-PMP: the gateway A.B.C.D ". */
static const char *
natpmp_why(int r)
{
	static const struct { int code; const char *text; } texts[] = {
		{ NATPMP_TRYAGAIN, "did not answer in time" },
		{ NATPMP_ERR_NOGATEWAYSUPPORT, "does not answer it (nothing listens there)" },
		{ NATPMP_ERR_RECVFROM, "does not answer it (nothing listens there)" },
		{ NATPMP_ERR_NOTAUTHORIZED, "refused (not authorized)" },
		{ NATPMP_ERR_NETWORKFAILURE, "says its own network is down" },
		{ NATPMP_ERR_OUTOFRESOURCES, "is out of mappings" },
		{ NATPMP_ERR_UNSUPPORTEDOPCODE, "does not support mappings" },
		{ NATPMP_ERR_UNSUPPORTEDVERSION, "speaks another version" },
		{ NATPMP_ERR_INVALIDARGS, "gave an answer that makes no sense" },
	};

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (texts[i].code == r)
			return texts[i].text;
	return "failed";
}

static bool
natpmp_map(struct portmap *pm, bool first)
{
	natpmpresp_t resp;
	char gw[INET_ADDRSTRLEN] = "the gateway";
	int r = natpmp_request(pm, pm->cfg.lease_s, first, &resp, gw, sizeof gw);

	if (r == NATPMP_ERR_CANNOTGETGATEWAY) {
		why_add(pm, "NAT-PMP: no default gateway");
		return false;
	}
	if (r != 0) {
		why_add(pm, "NAT-PMP: the gateway %s %s", gw, natpmp_why(r));
		return false;
	}
	if (resp.pnu.newportmapping.mappedpublicport == 0 || resp.pnu.newportmapping.privateport != pm->cfg.port) {
		why_add(pm, "NAT-PMP: %s answered with a mapping of another port", gw);
		return false;
	}
	pm->rep.external_port = resp.pnu.newportmapping.mappedpublicport;
	pm->granted_s = resp.pnu.newportmapping.lifetime;
	pm->rep.method = "NAT-PMP";
	return true;
}

static bool
natpmp_unmap(struct portmap *pm)
{
	natpmpresp_t resp;
	char gw[INET_ADDRSTRLEN];

	return natpmp_request(pm, 0, false, &resp, gw, sizeof gw) == 0;
}
#endif

static void
do_map(struct portmap *pm)
{
#ifdef WW_HAVE_UPNP
	if ((pm->cfg.methods & PORTMAP_UPNP) && upnp_map(pm)) {
		pm->method = PORTMAP_UPNP;
		return;
	}
#endif
#ifdef WW_HAVE_NATPMP
	if ((pm->cfg.methods & PORTMAP_NATPMP) && natpmp_map(pm, true)) {
		pm->method = PORTMAP_NATPMP;
		return;
	}
#endif
	pm->method = 0;
}

static void
on_work(uv_work_t *w)
{
	struct portmap *pm = w->data;

	pm->rep.why[0] = '\0';
	switch (pm->job) {
	case JOB_MAP:
		do_map(pm);
		pm->ok = pm->method != 0;
		return;
	case JOB_RENEW:
	case JOB_UNMAP:
		pm->ok = false;
#ifdef WW_HAVE_UPNP
		if (pm->method == PORTMAP_UPNP) {
			pm->ok = pm->job == JOB_RENEW ? upnp_add(pm) == 0 : upnp_unmap(pm);
			if (!pm->ok && pm->job == JOB_RENEW)
				why_add(pm, "UPnP-IGD: the router refused to renew port %d", pm->cfg.port);
		}
#endif
#ifdef WW_HAVE_NATPMP
		if (pm->method == PORTMAP_NATPMP)
			pm->ok = pm->job == JOB_RENEW ? natpmp_map(pm, false) : natpmp_unmap(pm);
#endif
		return;
	}
}

/* Loop side. */

static void after_work(uv_work_t *w, int status);

static void
queue(struct portmap *pm, enum job job)
{
	pm->job = job;
	pm->busy = true;
	if (uv_queue_work(pm->loop, &pm->work, on_work, after_work) != 0)
		pm->busy = false;
}

static void
on_timer_closed(uv_handle_t *h)
{
	struct portmap *pm = h->data;

	pm->timer_open = false;
	if (!pm->busy) {
#ifdef WW_HAVE_UPNP
		if (pm->have_urls)
			FreeUPNPUrls(&pm->urls);
#endif
		free(pm);
	}
}

static void
finish(struct portmap *pm)
{
	if (pm->timer_open && !uv_is_closing((uv_handle_t *)&pm->renew))
		uv_close((uv_handle_t *)&pm->renew, on_timer_closed);
}

static void
on_renew(uv_timer_t *t)
{
	struct portmap *pm = t->data;

	if (!pm->busy && !pm->stopping)
		queue(pm, JOB_RENEW);
}

static void
schedule(struct portmap *pm, uint64_t ms)
{
	if (ms < MIN_RENEW_MS)
		ms = MIN_RENEW_MS;
	uv_timer_start(&pm->renew, on_renew, ms, 0);
}

static void
after_work(uv_work_t *w, int status)
{
	struct portmap *pm = w->data;

	pm->busy = false;
	if (status != 0)
		pm->ok = false;
	if (pm->job == JOB_MAP && pm->ok)
		pm->mapped = true;
	if (pm->job == JOB_UNMAP)
		pm->mapped = false;
	if (pm->stopping) {
		if (pm->mapped && pm->job != JOB_UNMAP)
			queue(pm, JOB_UNMAP);
		if (!pm->busy)
			finish(pm);
		return;
	}
	pm->rep.lease_s = pm->granted_s;
	if (pm->job == JOB_MAP) {
		pm->rep.state = !pm->ok ? PORTMAP_NONE : portmap_private4(pm->rep.external) ? PORTMAP_PRIVATE : PORTMAP_MAPPED;
		pm->cfg.report(pm->cfg.ud, &pm->rep);
	} else if (pm->job == JOB_RENEW && pm->ok != !pm->lost) {
		/* Said when it changes only: a renewal that fails, and the next one that works. */
		pm->lost = !pm->ok;
		pm->rep.state = pm->lost ? PORTMAP_LOST : portmap_private4(pm->rep.external) ? PORTMAP_PRIVATE : PORTMAP_MAPPED;
		pm->cfg.report(pm->cfg.ud, &pm->rep);
	}
	if (pm->mapped && pm->granted_s > 0)
		schedule(pm, pm->ok ? (uint64_t)pm->granted_s * 500 : RETRY_MS);
}

struct portmap *
portmap_start(uv_loop_t *loop, const struct portmap_config *cfg)
{
	struct portmap *pm = calloc(1, sizeof *pm);

	if (pm == NULL)
		return NULL;
	pm->loop = loop;
	pm->cfg = *cfg;
	if (pm->cfg.lease_s == 0)
		pm->cfg.lease_s = DEFAULT_LEASE_S;
	if (pm->cfg.wait_ms == 0)
		pm->cfg.wait_ms = DEFAULT_WAIT_MS;
	pm->cfg.methods &= portmap_methods();
	pm->work.data = pm;
	uv_timer_init(loop, &pm->renew);
	pm->renew.data = pm;
	pm->timer_open = true;
	/* The renewal timer alone never holds the loop open: the server does, and whoever closes the
	 * server calls portmap_stop. A job in flight does hold it, so a removal is always finished. */
	uv_unref((uv_handle_t *)&pm->renew);
	queue(pm, JOB_MAP);
	if (!pm->busy) {
		pm->rep.state = PORTMAP_NONE;
		snprintf(pm->rep.why, sizeof pm->rep.why, "cannot start a worker");
		cfg->report(cfg->ud, &pm->rep);
	}
	return pm;
}

void
portmap_stop(struct portmap *pm)
{
	if (pm == NULL || pm->stopping)
		return;
	pm->stopping = true;
	if (pm->timer_open)
		uv_timer_stop(&pm->renew);
	if (pm->busy)
		return; /* after_work removes the mapping, then finishes */
	if (pm->mapped)
		queue(pm, JOB_UNMAP);
	if (!pm->busy)
		finish(pm);
}
