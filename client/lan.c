/* SPDX-License-Identifier: MIT */
/* lan: DNS-SD announcements and browsing through avahi-daemon (libavahi-client), on the client's libuv loop. */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>

#include "lan.h"
#include "lan_internal.h"

/*
 * A word on blocking: avahi-client's calls (avahi_client_new, entry group changes, a new browser or
 * resolver) are D-Bus method calls to the daemon on this machine, each answered in well under a
 * millisecond over a local socket; a hung daemon would hold the loop for D-Bus's timeout (25 s), as
 * it would every program on the desktop. Everything that waits on the network (the mDNS probing and
 * announcing, the answers to a browse) comes back through the loop as events: nothing here waits for it.
 */

bool
lan_available(void)
{
	return true;
}

/* "no avahi-daemon" is what a player can act on; Avahi's own words follow. */
static void
client_why(int err, char *why, size_t whylen)
{
	if (err == AVAHI_ERR_NO_DAEMON)
		snprintf(why, whylen, "no avahi-daemon is running here (%s)", avahi_strerror(err));
	else
		snprintf(why, whylen, "avahi-daemon cannot be used: %s", avahi_strerror(err));
}

/* ------------------------------------------------------------------ announcing */

struct lan_ad {
	uv_loop_t *loop;
	struct lan_poll *lp;
	AvahiClient *client;
	AvahiEntryGroup *group;
	char *instance;        /* avahi_malloc'd: the name on the link, "NAME #2" after a clash */
	struct lan_info info;
	char name[LAN_NAME_MAX + 1], fp[AUTH_FP_LEN + 1];
	bool withdrawn;        /* the duel is full: nothing announced until a seat is free */
};

static void publish(struct lan_ad *ad, AvahiClient *c);

static void
rename_after_clash(struct lan_ad *ad)
{
	char *n = avahi_alternative_service_name(ad->instance);

	avahi_free(ad->instance);
	ad->instance = n;
}

static void
group_cb(AvahiEntryGroup *g, AvahiEntryGroupState state, void *ud)
{
	struct lan_ad *ad = ud;

	ad->group = g; /* called from inside avahi_entry_group_new, before it returns */
	if (state == AVAHI_ENTRY_GROUP_COLLISION) {
		/* Another machine on the link has the name: take "NAME #2" and try again. */
		rename_after_clash(ad);
		avahi_entry_group_reset(g);
		publish(ad, avahi_entry_group_get_client(g));
	}
}

static void
publish(struct lan_ad *ad, AvahiClient *c)
{
	char buf[512];
	const char *txt[8];
	AvahiStringList *l;
	int err;

	if (ad->withdrawn || ad->instance == NULL)
		return;
	if (ad->group == NULL && (ad->group = avahi_entry_group_new(c, group_cb, ad)) == NULL)
		return;
	if (!avahi_entry_group_is_empty(ad->group))
		return;
	l = avahi_string_list_new_from_array(txt, (int)lan_txt_make(&ad->info, buf, sizeof buf, txt));
	for (int tries = 0; tries < 10; tries++) {
		err = avahi_entry_group_add_service_strlst(ad->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0, ad->instance,
		                                           LAN_SERVICE, NULL, NULL, (uint16_t)ad->info.port, l);
		if (err != AVAHI_ERR_COLLISION)
			break;
		rename_after_clash(ad); /* one of ours, here, has the name */
	}
	avahi_string_list_free(l);
	if (err == 0)
		avahi_entry_group_commit(ad->group);
}

static void
client_cb(AvahiClient *c, AvahiClientState state, void *ud)
{
	struct lan_ad *ad = ud;

	ad->client = c; /* called from inside avahi_client_new, before it returns */
	if (state == AVAHI_CLIENT_S_RUNNING) {
		publish(ad, c);
	} else if (state == AVAHI_CLIENT_S_COLLISION || state == AVAHI_CLIENT_S_REGISTERING) {
		/* The daemon's own host name is changing: announce again once it runs. */
		if (ad->group)
			avahi_entry_group_reset(ad->group);
	}
	/* AVAHI_CLIENT_FAILURE: the daemon went away, and the announcement with it. The duel goes on;
	 * the group is freed with the client when the host stops. */
}

int
lan_announce_start(uv_loop_t *loop, const struct lan_info *info, struct lan_ad **out, char *why, size_t whylen)
{
	struct lan_ad *ad = calloc(1, sizeof *ad);
	int err;

	*out = NULL;
	if (ad == NULL || (ad->lp = lan_poll_create(loop)) == NULL) {
		free(ad);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	ad->loop = loop;
	ad->info = *info;
	snprintf(ad->name, sizeof ad->name, "%s", info->name);
	snprintf(ad->fp, sizeof ad->fp, "%s", info->fp);
	ad->info.name = ad->name;
	ad->info.fp = ad->fp;
	ad->instance = avahi_strdup(info->name);
	/* Without NO_FAIL: no daemon now is said now, in one line, and the host goes on without. */
	/* The callback may run inside avahi_client_new: what it returns is what counts. */
	ad->client = avahi_client_new(lan_poll_api(ad->lp), 0, client_cb, ad, &err);
	if (ad->client == NULL) {
		client_why(err, why, whylen);
		avahi_free(ad->instance);
		lan_poll_destroy(ad->lp);
		free(ad);
		return -1;
	}
	*out = ad;
	return 0;
}

void
lan_announce_wanted(struct lan_ad *ad, bool wanted)
{
	if (ad == NULL || ad->withdrawn == !wanted)
		return;
	/* A full duel is withdrawn rather than shown as full: nobody can join it, and a listing of
	 * what can be joined is what a player looks for. It comes back when a seat is free. */
	ad->withdrawn = !wanted;
	if (!wanted && ad->group)
		avahi_entry_group_reset(ad->group);
	else if (wanted && avahi_client_get_state(ad->client) == AVAHI_CLIENT_S_RUNNING)
		publish(ad, ad->client);
}

void
lan_announce_stop(struct lan_ad *ad)
{
	if (ad == NULL)
		return;
	/* Freeing the group withdraws the service: the daemon sends its goodbye (TTL 0) at once. */
	if (ad->group)
		avahi_entry_group_free(ad->group);
	avahi_client_free(ad->client);
	lan_poll_destroy(ad->lp);
	avahi_free(ad->instance);
	free(ad);
}

/* ------------------------------------------------------------------ browsing */

#define RESOLVERS_MAX 64 /* resolvers started in one browse: a flood of announcements is not followed further */
#define SETTLE_MS 500    /* with a name wanted, how long after it is found others are still listened for */

struct browse {
	uv_loop_t loop;
	struct lan_poll *lp;
	AvahiClient *client;
	AvahiServiceBrowser *sb;
	uv_timer_t deadline, settle;
	bool settling, failed;
	int resolvers;
	const char *want;
	struct lan_duel *list;
	size_t *n, max;
	char *why;
	size_t whylen;
};

static void
browse_end(struct browse *b)
{
	uv_stop(&b->loop);
}

static void
on_deadline(uv_timer_t *t)
{
	browse_end(t->data);
}

static void
txt_read(struct lan_duel *d, AvahiStringList *txt)
{
	const char *kv[32];
	size_t len[32], n = 0;

	for (AvahiStringList *l = txt; l && n < 32; l = avahi_string_list_get_next(l)) {
		kv[n] = (const char *)avahi_string_list_get_text(l);
		len[n++] = avahi_string_list_get_size(l);
	}
	lan_txt_parse(d, kv, len, n);
}

static void
resolve_cb(AvahiServiceResolver *r, AvahiIfIndex iface, AvahiProtocol proto, AvahiResolverEvent event, const char *name,
           const char *type, const char *domain, const char *host, const AvahiAddress *a, uint16_t port,
           AvahiStringList *txt, AvahiLookupResultFlags flags, void *ud)
{
	struct browse *b = ud;
	struct lan_duel d;
	char addr[AVAHI_ADDRESS_STR_MAX], ifname[IF_NAMESIZE];

	if (event == AVAHI_RESOLVER_FOUND) {
		memset(&d, 0, sizeof d);
		snprintf(d.instance, sizeof d.instance, "%s", name);
		snprintf(d.host, sizeof d.host, "%s", host ? host : "?");
		avahi_address_snprint(addr, sizeof addr, a);
		/* A link-local IPv6 address is reached through the interface it was seen on. */
		if (a->proto == AVAHI_PROTO_INET6 && strncmp(addr, "fe80:", 5) == 0 && if_indextoname((unsigned)iface, ifname))
			snprintf(d.addr, sizeof d.addr, "%s%%%s", addr, ifname);
		else
			snprintf(d.addr, sizeof d.addr, "%s", addr);
		d.port = port;
		txt_read(&d, txt);
		lan_list_add(b->list, b->n, b->max, &d);
		int first;
		if (b->want && !b->settling && lan_list_named(b->list, *b->n, b->want, &first) > 0) {
			b->settling = true;
			uv_timer_start(&b->settle, on_deadline, SETTLE_MS, 0);
		}
	}
	avahi_service_resolver_free(r);
}

static void
browse_cb(AvahiServiceBrowser *sb, AvahiIfIndex iface, AvahiProtocol proto, AvahiBrowserEvent event, const char *name,
          const char *type, const char *domain, AvahiLookupResultFlags flags, void *ud)
{
	struct browse *b = ud;

	if (event == AVAHI_BROWSER_NEW) {
		if (b->resolvers >= RESOLVERS_MAX)
			return;
		if (avahi_service_resolver_new(b->client, iface, proto, name, type, domain, AVAHI_PROTO_UNSPEC, 0, resolve_cb,
		                               b))
			b->resolvers++;
	} else if (event == AVAHI_BROWSER_REMOVE) {
		/* Withdrawn (the host stopped, or its duel is full): no longer to be joined. */
		for (size_t i = 0; i < *b->n; i++)
			if (strncmp(b->list[i].instance, name, LAN_INSTANCE_MAX) == 0) {
				memmove(&b->list[i], &b->list[i + 1], (*b->n - i - 1) * sizeof b->list[i]);
				(*b->n)--;
				i--;
			}
	} else if (event == AVAHI_BROWSER_FAILURE) {
		snprintf(b->why, b->whylen, "browsing the LAN failed: %s", avahi_strerror(avahi_client_errno(b->client)));
		b->failed = true;
		browse_end(b);
	}
}

static void
browse_client_cb(AvahiClient *c, AvahiClientState state, void *ud)
{
	struct browse *b = ud;

	b->client = c;
	if (state == AVAHI_CLIENT_FAILURE && !b->failed) {
		client_why(avahi_client_errno(c), b->why, b->whylen);
		b->failed = true;
		browse_end(b);
	}
}

static void
close_timer(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, NULL);
}

int
lan_browse(unsigned ms, const char *want, struct lan_duel *list, size_t *n, size_t max, char *why, size_t whylen)
{
	struct browse b;
	int err, rc = 0;

	memset(&b, 0, sizeof b);
	*n = 0;
	b.want = want;
	b.list = list;
	b.n = n;
	b.max = max;
	b.why = why;
	b.whylen = whylen;
	/* A loop of its own: the browse is over before the duel's loop starts. */
	if (uv_loop_init(&b.loop) != 0 || (b.lp = lan_poll_create(&b.loop)) == NULL) {
		snprintf(why, whylen, "cannot start an event loop");
		return -1;
	}
	b.client = avahi_client_new(lan_poll_api(b.lp), 0, browse_client_cb, &b, &err);
	if (b.client == NULL) {
		client_why(err, why, whylen);
		rc = -1;
	} else if ((b.sb = avahi_service_browser_new(b.client, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, LAN_SERVICE, NULL, 0,
	                                             browse_cb, &b)) == NULL) {
		snprintf(why, whylen, "cannot browse the LAN: %s", avahi_strerror(avahi_client_errno(b.client)));
		rc = -1;
	} else {
		uv_timer_init(&b.loop, &b.deadline);
		uv_timer_init(&b.loop, &b.settle);
		b.deadline.data = b.settle.data = &b;
		uv_timer_start(&b.deadline, on_deadline, ms, 0);
		uv_run(&b.loop, UV_RUN_DEFAULT);
		close_timer(&b.deadline);
		close_timer(&b.settle);
		rc = b.failed ? -1 : 0;
	}
	/* Freeing the client frees its browser and the resolvers still running. */
	if (b.client)
		avahi_client_free(b.client);
	lan_poll_destroy(b.lp);
	uv_run(&b.loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&b.loop) != 0)
		snprintf(why, whylen, "internal error: a handle of the LAN browse was left open");
	return rc;
}
