/* SPDX-License-Identifier: MIT */
/* lan: duels on the local network with DNS-SD over mDNS (service _wizwar._tcp), through the system's
 * avahi-daemon: a host or server announces itself, `join` and `bot` browse (docs/protocol.md, "On the LAN"). */
#ifndef WW_LAN_H
#define WW_LAN_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "auth.h"

#define LAN_SERVICE "_wizwar._tcp"
/* Bounds on what is kept of an announcement: a hostile one is cut, never trusted to be short. */
#define LAN_INSTANCE_MAX 63 /* DNS-SD's own bound on an instance name, in bytes */
#define LAN_NAME_MAX 64     /* PROTO_NAME_BYTES */
#define LAN_HOST_MAX 63
#define LAN_ADDR_MAX 63     /* an IPv6 address with its %interface */
#define LAN_FOUND_MAX 32    /* duels kept from one browse; more are counted, not listed */
#define LAN_BROWSE_MS 3000  /* how long `join` with no address looks for announcements */

/* What an announcement says (the TXT record, and the service's port). */
struct lan_info {
	bool server;        /* a `wizwar server` of rooms, not a one-room host */
	const char *name;   /* the host's player name (a server's: the machine's name) */
	int port;
	bool password;      /* a password is asked */
	bool wanted;        /* a player is still wanted (host: a seat is free) */
	const char *fp;     /* the server key's fingerprint */
};

/* One duel found, as read from the network: every string is bounded and checked here (lan_pick.c),
 * so that what is shown is printable and what is joined is well formed. */
struct lan_duel {
	char instance[LAN_INSTANCE_MAX + 1]; /* the DNS-SD instance name, unique on the link (shown cleaned) */
	char host[LAN_HOST_MAX + 1];         /* the announcing machine's mDNS name (shown cleaned) */
	char addr[LAN_ADDR_MAX + 1];         /* the address it resolved to */
	int port;
	int proto;                           /* the protocol version it speaks */
	bool server;
	char name[LAN_NAME_MAX + 1];         /* TXT name, a valid player name, or "" when the TXT's was not */
	bool password, wanted;
	char fp[AUTH_FP_LEN + 1];            /* "" when the TXT had no valid fingerprint */
	bool usable;                         /* well formed and of our protocol version: may be joined */
	char why[80];                        /* when not usable: why */
};

/* --- lan_pick.c: reading announcements and choosing one (no Avahi: always built, unit tested) --- */

/* The TXT record's strings (each "key=value", as DNS-SD has them) into d: unknown keys are skipped,
 * a repeated key keeps its first value (RFC 6763 6.4), and d->usable says whether it may be joined. */
void lan_txt_parse(struct lan_duel *d, const char *const *kv, const size_t *len, size_t n);
/* Bytes from the network as printable text: anything but printable ASCII becomes '?', cut to
 * out_len - 1 bytes. */
void lan_clean(char *out, size_t out_len, const char *in, size_t in_len);
/* Add d to the list (n of max), merging it with the same instance and fingerprint seen on another
 * interface or protocol (the first address is kept). False when the list is full. */
bool lan_list_add(struct lan_duel *list, size_t *n, size_t max, const struct lan_duel *d);
/* The usable duels called `name`: how many, and the first in *first (-1: none). */
int lan_list_named(const struct lan_duel *list, size_t n, const char *name, int *first);
/* One line of the listing of duel `d` into buf: number, name, host, waiting or full, password. */
void lan_list_line(char *buf, size_t len, int number, const struct lan_duel *d);
/* The TXT record of an announcement, as the strings avahi takes: "txtvers=1", "proto=N", ... The
 * strings point into buf. The number of strings. */
size_t lan_txt_make(const struct lan_info *in, char *buf, size_t len, const char *out[8]);

/* --- lan.c (with Avahi) or lan_none.c (without) --- */

/* Built with LAN discovery? */
bool lan_available(void);

/* An announcement on the LAN, for as long as the process runs (gone if the daemon stops; renamed "NAME #2" on a clash with another machine's). */
struct lan_ad;
/* Start announcing on `loop`. 0, or -1 with a one-line reason (no daemon, feature not built in):
 * the caller goes on without. */
WW_COLD int lan_announce_start(uv_loop_t *loop, const struct lan_info *info, struct lan_ad **out, char *why,
                               size_t whylen);
/* Say whether a player is still wanted (the TXT record is replaced only when it changes). */
void lan_announce_wanted(struct lan_ad *ad, bool wanted);
/* Withdraw the announcement and close its handles (the loop finishes closing them); NULL is fine. */
void lan_announce_stop(struct lan_ad *ad);

/* Browse the LAN on a loop of its own for at most `ms`, or, with `want` a name, until a duel of
 * that name is found and a short settling time has passed (a second one of the same name is
 * then seen too). Fills list (n of max). 0, or -1 with a one-line reason (no daemon, not built in). */
WW_COLD int lan_browse(unsigned ms, const char *want, struct lan_duel *list, size_t *n, size_t max, char *why,
                       size_t whylen);

/* --- lan_cmd.c: what the commands do with it --- */

/* join with no address (want NULL: list and ask on the terminal), `join --lan NAME` or `bot --lan NAME`
 * (want: that name, nothing asked; two of that name are refused, not guessed between): browse for at
 * most ms, then the chosen duel's "ADDR:PORT" in addr, its fingerprint in fp, whether it asks a
 * password, and in label what it is called ("the LAN announcement of NAME"). 0, or the exit status (said). */
WW_COLD int lan_choose(const char *want, unsigned ms, char *addr, size_t addrlen, char fp[AUTH_FP_LEN + 1],
                       bool *password, char *label, size_t labellen);

struct server;
struct server_config;
/* host and server --announce: the announcement of a server, kept up to date (a host's duel is
 * withdrawn while full) and withdrawn when the server closes. Caller-owned, zeroed. */
struct lan_host {
	struct server *srv;
	struct lan_ad *ad;
	uv_timer_t check;      /* check.data = this */
	bool checking;
	bool server;           /* a server of rooms: always wanted */
};
/* Before server_create: the hook (cfg->hooks.closing, and its ud) that withdraws the announcement
 * as the server closes; or lan_host_stop, called by the caller before it closes the server. */
void lan_host_hook(struct lan_host *h, struct server_config *cfg);
void lan_host_stop(struct lan_host *h);
/* After it: announce (name, password asked). A failure is said in one line on stderr, and the
 * host goes on without. */
WW_COLD void lan_host_start(struct lan_host *h, uv_loop_t *loop, struct server *srv, const char *name, bool password);

#endif
