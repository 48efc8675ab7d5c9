/* SPDX-License-Identifier: MIT */
/* server: the listener, the handshake (HELLO, CHALLENGE, AUTH or RESUME), per-address limits and the room table. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include <sodium.h>

#include "admin.h"
#include "internal.h"
#include "logtree.h"
#include "slog.h"
#include "text.h"

#define HOST_ROOM "host"

/* What listen() is asked for: more than any kernel grants, so the backlog is the system's
 * own ceiling (Linux: net.core.somaxconn, 4096 by default since 5.4). A server that
 * restarts has all its players reconnecting within a second; with 128 the rest of the
 * SYNs were dropped and retried 1, 3 and 7 s later. */
#define LISTEN_BACKLOG 65535
/* Descriptors a server needs besides its connections and its rooms' turn logs: the
 * listener, the loop's own (epoll, its wakeup pipes, libuv's and our reserve descriptors),
 * standard streams, the key and seat files opened now and then. */
#define FD_SPARE 32
/* How often "too many open files" at accept may be logged; the rest are counted. */
#define EMFILE_LOG_MS 10000
/* Out of descriptors with no reserve to give back: accepting waits this long. */
#define ACCEPT_PAUSE_MS 100

void
server_config_default(struct server_config *c)
{
	memset(c, 0, sizeof *c);
	c->bind = NULL;
	c->port = 0;
	options_default(&c->opt);
	c->lim = (struct server_limits){
		.max_conns = SERVER_MAX_CONNS,
		.max_conns_per_addr = 16,
		.max_rooms = SERVER_MAX_ROOMS,
		.handshake_ms = 10000,
		.idle_ms = 45000,
		.heartbeat_ms = 15000,
		.record_ms = PROTO_RECORD_MS,
		.max_queued = 256 * 1024,
		.auth_fails = 5,
		.auth_window_ms = 60000,
		.room_misses = 10,
		.room_window_ms = 60000,
		.hs_burst = 30,
		.hs_every_ms = 1000,
		.room_burst = 16,
		.room_every_ms = 120000,
		.lobby_idle_ms = 600000,
		.frames_per_s = 20000,
		.inflated_per_s = 256 * 1024,
		.chat_burst = 8,
		.chat_window_ms = 10000,
		.log_chat_until = TLOG_CHAT_UNTIL,
		.grace_ms = 120000,
		.lobby_hold_ms = 30000,
		.close_ms = 2000,
		.tick_ms = 500,
		.proxy_ms = 3000,
		.spect_max = 256,
		.spect_queued = 64 * 1024,
		.spect_tick_ms = 200,
		.spect_chat_lines = 20,
		.wave_ms = 2000,
	};
}

bool
server__loop_waiting(uv_loop_t *loop)
{
	struct pollfd p = { .fd = uv_backend_fd(loop), .events = POLLIN };

	return p.fd >= 0 && poll(&p, 1, 0) > 0;
}

uint64_t
server__now(const struct server *s)
{
	return uv_now(s->loop);
}

/* A line while the server is made (before the loop serves anyone) is written at once, as
 * before: nothing waits on it yet, and a process killed right after its start keeps it. */
static void __attribute__((format(printf, 4, 0)))
log_at_once(int level, const char *room, const char *peer, const char *fmt, va_list ap)
{
	char prefix[256];
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	slog_prefix(prefix, sizeof prefix, &now, slog_fd_is_journal(STDERR_FILENO), level, room, peer);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 5, 0)))
log_line(const struct server *s, int level, const char *room, const char *peer, const char *fmt, va_list ap)
{
	if (s->cfg.quiet)
		return;
	if (s->slog)
		slog_vline(s->slog, level, room, peer, fmt, ap);
	else
		log_at_once(level, room, peer, fmt, ap);
}

void
server__log(const struct server *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(s, LOG_INFO, NULL, NULL, fmt, ap);
	va_end(ap);
}

void
server__event(const struct server *s, int level, const char *room, const char *peer, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(s, level, room, peer, fmt, ap);
	va_end(ap);
}

void
server_say(struct server *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(s, LOG_NOTICE, NULL, NULL, fmt, ap);
	va_end(ap);
}

void
server_log(struct server *s, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(s, level, NULL, NULL, fmt, ap);
	va_end(ap);
}

_Static_assert(sizeof ((struct server *)0)->hash_key == crypto_shorthash_KEYBYTES, "a SipHash key");

static uint64_t
hash_bytes(const struct server *s, const void *p, size_t n)
{
	uint8_t h[crypto_shorthash_BYTES];
	uint64_t v = 0;

	crypto_shorthash(h, p, n, s->hash_key);
	for (size_t i = 0; i < crypto_shorthash_BYTES; i++)
		v = v << 8 | h[i];
	return v;
}

/* Twice the buckets, every link moved to its new chain; on no memory the old table stays
 * (longer chains, nothing lost). */
static void
htab_grow(struct htab *t)
{
	unsigned n = t->n ? t->n * 2 : 64;
	struct hlink **b = calloc(n, sizeof *b);

	if (b == NULL)
		return;
	for (unsigned i = 0; i < t->n; i++) {
		struct hlink *l = t->b[i], *next;
		for (; l; l = next) {
			next = l->next;
			l->next = b[l->hash & (n - 1)];
			b[l->hash & (n - 1)] = l;
		}
	}
	free(t->b);
	t->b = b;
	t->n = n;
}

/* The chain a hash falls in; the table has buckets. */
static struct hlink **
htab_chain(const struct htab *t, uint64_t h)
{
	return &t->b[h & (t->n - 1)];
}

/* Make room for one more link (the table doubles when it would hold more links than
 * buckets); false: no buckets at all (no memory). */
static bool
htab_reserve(struct htab *t)
{
	if (t->count >= t->n)
		htab_grow(t);
	return t->n != 0;
}

static void
htab_add(struct htab *t, struct hlink *l, uint64_t h)
{
	struct hlink **c = htab_chain(t, h);

	l->hash = h;
	l->next = *c;
	*c = l;
	t->count++;
}

static void
htab_remove(struct htab *t, struct hlink *l)
{
	for (struct hlink **pp = htab_chain(t, l->hash); *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			l->next = NULL;
			t->count--;
			return;
		}
}

struct gameroom *
server__find_room(struct server *s, const char *code)
{
	if (!s->cfg.multi)
		return s->rooms;
	if (s->room_codes.n == 0)
		return NULL;
	uint64_t h = hash_bytes(s, code, strlen(code));
	for (struct hlink *l = *htab_chain(&s->room_codes, h); l; l = l->next) {
		struct gameroom *r = HLINK_ENTRY(l, struct gameroom, hl);
		if (l->hash == h && strcmp(r->code, code) == 0)
			return r;
	}
	return NULL;
}

struct gameroom *
server__add_room(struct server *s, const char *code)
{
	struct gameroom *r;

	if (s->nrooms >= s->cfg.lim.max_rooms)
		return NULL;
	if (!htab_reserve(&s->room_codes) || (r = room__create(s, code)) == NULL)
		return NULL;
	r->next = s->rooms;
	if (s->rooms)
		s->rooms->prev = r;
	s->rooms = r;
	htab_add(&s->room_codes, &r->hl, hash_bytes(s, r->code, strlen(r->code)));
	s->nrooms++;
	if (s->cluster)
		cluster_room_added(s->cluster, r->code);
	return r;
}

void
server__room_gone(struct server *s, struct gameroom *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else if (s->rooms == r)
		s->rooms = r->next;
	else
		return;
	nodes__room_gone(s, r);
	if (r->next)
		r->next->prev = r->prev;
	r->next = r->prev = NULL;
	htab_remove(&s->room_codes, &r->hl);
	s->nrooms--;
	if (s->cluster)
		cluster_room_gone(s->cluster, r->code);
}

/* Addresses remembered at most: four to a connection the server may hold, and some. An
 * address is remembered while it has connections, an open failure window or a bucket not yet
 * full again; a full table forgets every address with no connection (addr_forget). */
static unsigned
addrs_max(const struct server *s)
{
	return s->cfg.lim.max_conns * 4 + 1024;
}

/* An address that has nothing left to be remembered for: no connection, no open window, its
 * buckets full. */
static bool
addr_idle(const struct server *s, const struct addr_entry *a, uint64_t now)
{
	return a->conns == 0 && (a->fails == 0 || now - a->window_start >= s->cfg.lim.auth_window_ms) &&
	       (a->misses == 0 || now - a->miss_start >= s->cfg.lim.room_window_ms) && a->hs_full <= now &&
	       a->room_full <= now;
}

/* Forget idle addresses, or (all) every address with no connection: what a full table does,
 * giving up the limits of addresses not connected rather than refusing new ones. A table
 * that fills again needs as many new addresses as the cap less the connections, so a flood of
 * addresses costs this walk rarely. */
static void
addr_forget(struct server *s, bool all)
{
	uint64_t now = server__now(s);

	for (unsigned i = 0; i < s->addrs.n; i++) {
		struct hlink **pp = &s->addrs.b[i];
		while (*pp) {
			struct addr_entry *a = HLINK_ENTRY(*pp, struct addr_entry, hl);
			if (all ? a->conns == 0 : addr_idle(s, a, now)) {
				*pp = a->hl.next;
				free(a);
				s->addrs.count--;
			} else {
				pp = &a->hl.next;
			}
		}
	}
}

/* The entry of an address (made at its first connection), or NULL without memory. */
struct addr_entry *
server__addr_get(struct server *s, const uint8_t a[16])
{
	struct addr_entry *e;
	uint64_t h = hash_bytes(s, a, 16);

	if (s->addrs.n) {
		for (struct hlink *l = *htab_chain(&s->addrs, h); l; l = l->next) {
			e = HLINK_ENTRY(l, struct addr_entry, hl);
			if (l->hash == h && memcmp(e->addr, a, 16) == 0)
				return e;
		}
	}
	if (s->addrs.count >= addrs_max(s))
		addr_forget(s, true);
	if (!htab_reserve(&s->addrs) || (e = calloc(1, sizeof *e)) == NULL)
		return NULL;
	memcpy(e->addr, a, 16);
	htab_add(&s->addrs, &e->hl, h);
	return e;
}

void
server__conn_gone(struct conn *c)
{
	struct server *s = c->srv;

	if (c->gone)
		return;
	c->gone = true;
	if (c->claim) { /* its answer must not find the conn freed */
		store_cancel(c->claim);
		c->claim = NULL;
	}
	s->nconns--;
	if (c->addr)
		c->addr->conns--;
	quick__conn_gone(c);
	if (c->state == CONN_JOINED && c->room) {
		struct gameroom *r = c->room;
		c->state = CONN_CLOSING;
		room__conn_lost(r, c);
	}
	c->room = NULL;
	c->seat = -1;
}

/*
 * A token bucket kept as one time (GCRA, the generic cell rate algorithm): *full is when the
 * bucket would be full again. Taking a token moves it on by every_ms; a bucket of `burst` tokens
 * is empty when *full is (burst - 1) * every_ms or more past the time after now. true: a token
 * taken; false: none, and *wait_ms until there is one. No clock but the loop's cached time.
 */
static bool
bucket_take(uint64_t *full, uint64_t now, unsigned burst, unsigned every_ms, uint64_t *wait_ms)
{
	uint64_t at = *full > now ? *full : now;
	uint64_t slack = (uint64_t)(burst - 1) * every_ms;

	if (burst == 0)
		return true;
	if (at - now > slack) {
		*wait_ms = at - now - slack;
		return false;
	}
	*full = at + every_ms;
	return true;
}

/* A handshake may start from this connection's address (a token of its bucket taken). false:
 * refused, the reason in why; *say when it is the first refusal since the address was last
 * let in (a flood is logged once, not once a connection). */
bool
server__may_handshake(struct server *s, struct conn *c, char *why, size_t whylen, bool *say)
{
	const struct server_limits *l = &s->cfg.lim;
	struct addr_entry *a = c->addr;
	uint64_t wait_ms;

	*say = false;
	if (a == NULL || bucket_take(&a->hs_full, server__now(s), l->hs_burst, l->hs_every_ms, &wait_ms)) {
		if (a)
			a->hs_said = false;
		return true;
	}
	snprintf(why, whylen, "too many connections from your address in a short time: try again in %u s",
	         (unsigned)((wait_ms + 999) / 1000));
	*say = !a->hs_said;
	a->hs_said = true;
	return false;
}

/*
 * Keys counted as addresses are (issue 31: once the key is known, the key is what counts): on a
 * server with a password, each key's wrong passwords have a window of their own, so a guesser
 * that moves from address to address with one key is still stopped; and a key that proved the
 * password here passes its address's lockout, so a player behind a NAT is never locked out by
 * someone else's guesses there (OpenSSH's rule: a valid credential is not locked out by others'
 * failures). A fresh key costs nothing, so the address's limit stays what stops a guesser with
 * many keys. Remembered at most as many keys as addresses; a full table forgets those with no
 * open window that never proved the password.
 */
static bool
key_idle(const struct server *s, const struct key_entry *k, uint64_t now)
{
	return !k->proven && (k->fails == 0 || now - k->window_start >= s->cfg.lim.auth_window_ms);
}

static void
key_forget(struct server *s)
{
	uint64_t now = server__now(s);

	for (unsigned i = 0; i < s->keys.n; i++) {
		struct hlink **pp = &s->keys.b[i];
		while (*pp) {
			struct key_entry *k = HLINK_ENTRY(*pp, struct key_entry, hl);
			if (key_idle(s, k, now)) {
				*pp = k->hl.next;
				free(k);
				s->keys.count--;
			} else {
				pp = &k->hl.next;
			}
		}
	}
}

/* The entry of a client key; NULL when there is none (create false), no memory or no room. */
static struct key_entry *
key_get(struct server *s, const uint8_t key[PROTO_IDENT_KEY_LEN], bool create)
{
	struct key_entry *e;
	uint64_t h = hash_bytes(s, key, PROTO_IDENT_KEY_LEN);

	if (s->keys.n) {
		for (struct hlink *l = *htab_chain(&s->keys, h); l; l = l->next) {
			e = HLINK_ENTRY(l, struct key_entry, hl);
			if (l->hash == h && memcmp(e->key, key, PROTO_IDENT_KEY_LEN) == 0)
				return e;
		}
	}
	if (!create)
		return NULL;
	if (s->keys.count >= addrs_max(s))
		key_forget(s);
	if (s->keys.count >= addrs_max(s) || !htab_reserve(&s->keys) || (e = calloc(1, sizeof *e)) == NULL)
		return NULL;
	memcpy(e->key, key, PROTO_IDENT_KEY_LEN);
	htab_add(&s->keys, &e->hl, h);
	return e;
}

/* Per-address wrong-password counting: a window opens at the first failure. */
static bool
auth_blocked(struct server *s, struct conn *c, unsigned *wait_s)
{
	struct addr_entry *a = c->addr;
	uint64_t now = server__now(s);

	if (a == NULL)
		return false;
	if (a->fails && now - a->window_start >= s->cfg.lim.auth_window_ms)
		a->fails = 0;
	if (a->fails < s->cfg.lim.auth_fails)
		return false;
	*wait_s = (unsigned)((s->cfg.lim.auth_window_ms - (now - a->window_start) + 999) / 1000);
	return true;
}

static bool
room_key_set(const struct server *s)
{
	return s->key.set;
}

void
server__auth_failed(struct server *s, struct conn *c)
{
	struct addr_entry *a = c->addr;

	struct key_entry *k = room_key_set(s) && conn_ident(c) ? key_get(s, c->ident, true) : NULL;
	uint64_t now = server__now(s);

	if (k) {
		if (k->fails && now - k->window_start >= s->cfg.lim.auth_window_ms)
			k->fails = 0;
		if (k->fails++ == 0)
			k->window_start = now;
	}
	if (a == NULL)
		return;
	if (a->fails == 0)
		a->window_start = now;
	a->fails++;
}

/* One key for every room: the one room's password, or a multi-room server's (config
 * `password`, the same for all its rooms). Without one, a multi-room server's room code
 * is what its two players share. */
static const struct auth_key *
room_key(struct server *s)
{
	return &s->key;
}

/* Refuse a locked-out address (true: dropped). Checked when a password is tried, not at
 * HELLO: a player of that address coming back with a valid resume token is let in. */
static bool
drop_if_blocked(struct server *s, struct conn *c)
{
	unsigned wait_s;
	char why[PROTO_REASON_BYTES];
	struct key_entry *k = room_key_set(s) && conn_ident(c) ? key_get(s, c->ident, false) : NULL;
	uint64_t now = server__now(s);

	/* The address's lockout first (what an operator and the tests have always seen), unless the
	 * key proved the password; then the key's own, from any address. */
	if (!(k && k->proven) && auth_blocked(s, c, &wait_s)) {
		metrics_limit_hit(&s->m, METRICS_LIM_WRONG_PASSWORDS);
		snprintf(why, sizeof why, "too many wrong passwords from your address: try again in %u s", wait_s);
		conn__drop(c, PERR_AUTH, why);
		return true;
	}
	if (k && k->fails && now - k->window_start >= s->cfg.lim.auth_window_ms)
		k->fails = 0;
	if (k && k->fails >= s->cfg.lim.auth_fails) {
		metrics_limit_hit(&s->m, METRICS_LIM_WRONG_PASSWORDS);
		snprintf(why, sizeof why, "too many wrong passwords from your key: try again in %u s",
		         (unsigned)((s->cfg.lim.auth_window_ms - (now - k->window_start) + 999) / 1000));
		conn__drop(c, PERR_AUTH, why);
		return true;
	}
	return false;
}

/* A key that proved the password: its address's lockout no longer stops it. */
static void
key_proven(struct server *s, struct conn *c)
{
	struct key_entry *k;

	if (room_key_set(s) && (k = key_get(s, c->ident, true)) != NULL)
		k->proven = true;
}

/* Unknown room codes per address: a window opens at the first; past the limit the address
 * may name no room for the rest of it (true: dropped). */
static bool
drop_if_guessing(struct server *s, struct conn *c, bool miss)
{
	struct addr_entry *a = c->addr;
	uint64_t now = server__now(s);
	const struct server_limits *l = &s->cfg.lim;
	char why[PROTO_REASON_BYTES];

	if (a == NULL)
		return false;
	if (a->misses && now - a->miss_start >= l->room_window_ms)
		a->misses = 0;
	if (miss) {
		if (a->misses == 0)
			a->miss_start = now;
		a->misses++;
	}
	if (a->misses < l->room_misses + (miss ? 1 : 0))
		return false;
	metrics_limit_hit(&s->m, METRICS_LIM_ROOM_GUESSES);
	snprintf(why, sizeof why, "too many unknown room codes from your address: try again in %u s",
	         (unsigned)((l->room_window_ms - (now - a->miss_start) + 999) / 1000));
	conn__drop(c, PERR_LIMIT, why);
	return true;
}

static void
on_hello(struct conn *c, const struct wire_hello *h)
{
	struct server *s = c->srv;
	struct wire_msg *m = &s->out;

	bool old = h->has_hint && s->old_known && auth_equal(h->hint, s->old_hint, sizeof s->old_hint);
	char fp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1];

	/* Its versions were checked, its key taken by pconn; the lockout for wrong passwords is
	 * checked when a password is tried, so that a valid resume token gets in. A client that
	 * pinned the old key of a rotation is answered under it while the rotation lasts. */
	if (old && s->has_old && (uint64_t)time(NULL) >= s->old_until) {
		auth_fingerprint(s->old_kp.pk, fp);
		server__event(s, LOG_NOTICE, NULL, NULL, "key rotation over: the old key %s is dropped", fp);
		sodium_memzero(&s->old_kp, sizeof s->old_kp);
		s->has_old = false;
	}
	if (old && !s->has_old) {
		auth_fingerprint(s->id.kp.pk, nfp);
		server__event(s, LOG_NOTICE, NULL, c->peer, "its client pinned a key this server no longer has (rotated "
		              "away); answered under the key %s, which it refuses unless its user accepts it", nfp);
		old = false;
	}
	if (old)
		pconn_set_identity(&c->pc, &s->old_kp);
	wire_challenge_init(m, s->pw_salt, room_key(s)->set);
	c->state = CONN_CHALLENGED;
	if (conn__send(c, m) != 0 || !old)
		return;
	/* The new key, signed by the old over this channel's hash: the client moves its pin. */
	m->type = WIRE_KEYS;
	memcpy(m->u.keys.new_key, s->id.kp.pk, PROTO_KEY_LEN);
	m->u.keys.until = s->old_until;
	auth_rotate_sign(&s->old_kp, pconn_hash(&c->pc), s->id.kp.pk, s->old_until, m->u.keys.old_ed, m->u.keys.sig);
	auth_fingerprint(s->old_kp.pk, fp);
	auth_fingerprint(s->id.kp.pk, nfp);
	server__event(s, LOG_INFO, NULL, c->peer, "answered under the old key %s; sent the new key %s, signed by it", fp,
	              nfp);
	conn__send(c, m);
}

/* AUTH and RESUME say who joins, inside the channel. */
static bool
take_who(struct conn *c, const struct wire_who *w)
{
	if (c->srv->cfg.multi && w->room[0] == '\0') {
		conn__drop(c, PERR_STATE, "this server holds many rooms: give a room code (--room CODE)");
		return false;
	}
	c->who = *w;
	if (w->role == ROLE_SPECTATOR)
		c->who.create = c->who.public_room = false; /* a spectator watches a room; it never makes one */
	return true;
}

/* A cluster's node sends a client whose room is elsewhere (or, for a new room, a node holding
 * fewer rooms) there: REDIRECT, with the node's address and key, then the connection closes. */
static bool
redirect_if_elsewhere(struct conn *c, bool create)
{
	struct server *s = c->srv;
	const struct cluster_node *n;

	if (s->cluster == NULL || server__find_room(s, c->who.room) != NULL)
		return false;
	bool made_there = false;
	if ((n = cluster_room_node(s->cluster, c->who.room)) == NULL && create && c->who.create &&
	    !cluster_room_placed_here(s->cluster, c->who.room))
		made_there = (n = cluster_least_loaded(s->cluster, s->nrooms)) != NULL;
	if (n == NULL)
		return false;
	if (made_there) {
		cluster_room_sent(s->cluster, n);
		cluster_room_place(s->cluster, n, c->who.room);
	}
	struct wire_msg *m = &s->out;
	m->type = WIRE_REDIRECT;
	m->u.redirect.port = (uint16_t)n->port;
	memcpy(m->u.redirect.key, n->key, PROTO_KEY_LEN);
	snprintf(m->u.redirect.host, sizeof m->u.redirect.host, "%s", n->host);
	server__event(s, LOG_INFO, c->who.room, c->peer, "sent to node %s at %s port %d (%s)", n->id, n->host, n->port,
	              made_there ? "a new room, and fewer rooms there" : "its room is there");
	conn__send_close(c, m);
	return true;
}

static struct gameroom *
room_for(struct conn *c, bool create, int *code, unsigned *retry_s)
{
	struct server *s = c->srv;
	struct gameroom *r = server__find_room(s, c->who.room);

	if (r == NULL && create && s->cfg.multi && c->who.create) {
		const struct server_limits *l = &s->cfg.lim;
		uint64_t full = c->addr ? c->addr->room_full : 0, wait_ms;
		/* A token is spent only on a room made, so the bucket is tried on a copy first. */
		if (c->addr && !bucket_take(&full, server__now(s), l->room_burst, l->room_every_ms, &wait_ms)) {
			*code = PERR_LIMIT;
			metrics_limit_hit(&s->m, METRICS_LIM_ROOM_RATE);
			*retry_s = (unsigned)((wait_ms + 999) / 1000);
			return NULL;
		}
		if ((r = server__add_room(s, c->who.room)) == NULL) {
			*code = PERR_ROOM_FULL;
			metrics_limit_hit(&s->m, METRICS_LIM_ROOMS_FULL);
			return NULL;
		}
		if (c->addr)
			c->addr->room_full = full;
		r->listed = c->who.public_room;
		server__event(s, LOG_INFO, r->code, c->peer, "room %s created (%s)", r->code, r->listed ? "public" : "private");
	}
	if (r == NULL)
		*code = create ? PERR_NO_ROOM : PERR_RESUME;
	return r;
}

/* IDENT: the client's long-term key, proven over this channel's handshake hash. A signature
 * made for another channel (a replay), by another key, or over anything else does not verify. */
static void
on_ident(struct conn *c, const struct wire_ident *m)
{
	if (!auth_ident_verify(m->key, pconn_hash(&c->pc), m->sig)) {
		conn__drop(c, PERR_IDENT, "your key's proof does not verify for this connection");
		return;
	}
	memcpy(c->ident, m->key, PROTO_IDENT_KEY_LEN);
	auth_fingerprint(c->ident, c->fp);
	c->state = CONN_KNOWN;
	/* From now on every log line of this connection names the client's key after its address
	 * (docs/server.md, "Log lines"): the peer field is what every line of a connection is given. */
	size_t n = strlen(c->peer);
	if (n < sizeof c->peer)
		snprintf(c->peer + n, sizeof c->peer - n, " key=%s", c->fp);
	/* The key, not the address, is what a ban names once it is known (issue 31). */
	moderate__refuse(c);
}

static void join_room(struct conn *c);

/* ---- ratings (docs/server.md, "Ratings") ---- */

/* A rated duel waiting for the store: where its players are, and its held log. */
struct rating_job {
	struct server *s;
	char code[PROTO_ROOM_BYTES + 1];
	char *plain, *keep;
};

static void
rate_done(void *ud, int result, const struct wire_msg *m)
{
	struct rating_job *j = ud;
	struct server *s = j->s;
	struct gameroom *r;

	if (result != STORE_OK || m == NULL) {
		/* The log stays plain in playing/: the next start rates it again. */
		server__event(s, LOG_ERR, j->code, NULL, "the duel's rating could not be recorded now (%s); its log %s waits in "
		              "playing/ for the next start", *store_why(s->store) ? store_why(s->store) : "no answer",
		              j->plain ? j->plain : "(in memory: lost)");
	} else {
		const struct rated_rec *x = &m->u.rated.rec;
		server__event(s, LOG_INFO, j->code, NULL, "rated: %.0f -> %.0f, %.0f -> %.0f", x->before[0].rating,
		              x->after[0].rating, x->before[1].rating, x->after[1].rating);
		/* Its players, if still in the room (a rematch may have begun: the same keys); one
		 * away is sent it when it comes back. */
		if ((r = server__find_room(s, j->code)) != NULL)
			room__rated(r, m);
		if (j->plain && j->keep)
			tlog_keep_later(s->loop, j->plain, j->keep);
	}
	free(j->plain);
	free(j->keep);
	free(j);
}

void
server__rate(struct server *s, const char *code, const struct store_duel *d, const char *plain, const char *keep)
{
	struct rating_job *j = calloc(1, sizeof *j);

	if (j == NULL || (plain && (j->plain = strdup(plain)) == NULL) || (keep && (j->keep = strdup(keep)) == NULL) ||
	    s->store == NULL) {
		server__event(s, LOG_ERR, code, NULL, "out of memory: the duel is not rated now");
		if (j) {
			free(j->plain);
			free(j->keep);
		}
		free(j);
		return;
	}
	j->s = s;
	snprintf(j->code, sizeof j->code, "%s", code);
	/* On the store's thread: one transaction; the answer comes back on the loop. Never cancelled:
	 * closing the store drops it unanswered, and the log waits in playing/. */
	if (store_rate(s->store, d, rate_done, j) == NULL) {
		free(j->plain);
		free(j->keep);
		free(j);
	}
}

/* The answer to an ASK: sent, then the connection ends (an ASK is its only question). */
static void
on_asked(void *ud, int result, const struct wire_msg *m)
{
	struct conn *c = ud;

	c->claim = NULL;
	if (c->state != CONN_CLAIMING)
		return;
	if (result != STORE_OK || m == NULL) {
		server__event(c->srv, LOG_WARNING, NULL, c->peer, "the store failed: %s", store_why(c->srv->store));
		conn__drop(c, PERR_SERVER, "the server's store cannot answer now: try again in a moment");
		return;
	}
	conn__send(c, m);
	conn__bye(c, BYE_QUIT);
}

static void
on_ask(struct conn *c, const struct wire_ask *a)
{
	struct server *s = c->srv;

	if (s->store == NULL || !s->cfg.multi) {
		conn__drop(c, PERR_SERVER, "this server keeps no ratings (it has no store)");
		return;
	}
	c->state = CONN_CLAIMING;
	if ((c->claim = store_ask(s->store, c->ident, a, on_asked, c)) == NULL)
		conn__drop(c, PERR_NOMEM, "out of memory");
}

/* The store's answer to a name claim, on the loop (never called for a conn that went first:
 * server__conn_gone cancels it). */
static void
on_claimed(void *ud, int result, const struct store_rating *rating)
{
	struct conn *c = ud;
	char why[PROTO_REASON_BYTES + PROTO_NAME_BYTES]; /* cut to PROTO_REASON_BYTES by wire_error_init */

	c->claim = NULL;
	if (c->state != CONN_CLAIMING)
		return;
	/* The key's real rating, before its public room can be listed (ROOMS shows it). */
	c->rating = quick__rating(rating);
	if (result == STORE_TAKEN) {
		snprintf(why, sizeof why, "the name '%s' belongs to another player's key here: choose another name",
		         c->who.name);
		conn__drop(c, PERR_NAME_OWNED, why);
		return;
	}
	if (result != STORE_OK) {
		server__event(c->srv, LOG_WARNING, NULL, c->peer, "the store failed: %s", store_why(c->srv->store));
		conn__drop(c, PERR_SERVER, "the server's store cannot answer now: try again in a moment");
		return;
	}
	join_room(c);
}

static void
on_auth(struct conn *c, const struct wire_auth *a)
{
	struct server *s = c->srv;

	if (!take_who(c, &a->who) || moderate__refuse(c))
		return;
	if (drop_if_blocked(s, c))
		return;
	if (!auth_check(room_key(s), pconn_hash(&c->pc), c->who.name, strlen(c->who.name), a->proof)) {
		server__auth_failed(s, c);
		conn__drop(c, PERR_AUTH, "wrong password");
		return;
	}
	key_proven(s, c);
	if (s->cfg.multi && drop_if_guessing(s, c, false))
		return;
	if (s->store == NULL) {
		join_room(c);
		return;
	}
	/* The name must be this key's before WELCOME; the store answers off the loop, and the
	 * conn waits (CLAIMING) with every other connection still served meanwhile. */
	c->state = CONN_CLAIMING;
	if ((c->claim = store_claim_name(s->store, c->ident, c->who.name, on_claimed, c)) == NULL)
		conn__drop(c, PERR_NOMEM, "out of memory");
}

/* Someone asking for a room that is moving to another node (its node stopped answering and the
 * cluster is taking it over): no WELCOME yet, and no refusal (no such room, unknown token), which
 * would end a watch or a seat in the middle of a takeover. It is told MOVING, not fatal, and the
 * connection closes. A spectator (who has no seat to RESUME: it comes back by AUTH) asks again in a
 * moment, also on its first ask (a new `wizwar watch`, which knows no other node yet); a player
 * resuming keeps its token and comes back in a moment (to this node or the next it knows), by when
 * the room has its new node. A client that does not know the code shows the text and takes the close
 * as a lost link, as it did when this close was silent. Held here until the room lands instead, a
 * client would wait without a word for as long as the takeover takes, against its own and this
 * server's handshake limits. */
static bool
room_moving(struct conn *c, const char *who)
{
	struct server *s = c->srv;
	struct wire_msg *m = &s->out;
	char why[PROTO_REASON_BYTES + 1];

	if (s->cluster == NULL || server__find_room(s, c->who.room) != NULL || !cluster_room_moving(s->cluster, c->who.room))
		return false;
	server__event(s, LOG_INFO, c->who.room, c->peer, "%s a room that is moving to another node: "
	              "told MOVING and closed, to come back in a moment", who);
	snprintf(why, sizeof why, "room %s is moving to another node (its node stopped answering): ask again in a moment",
	         c->who.room);
	wire_error_init(m, PERR_MOVING, false, why);
	conn__send_close(c, m);
	return true;
}

/* AUTH accepted (its name this key's, where names are owned): the room, made or found, then the seat. */
static void
join_room(struct conn *c)
{
	struct server *s = c->srv;
	struct gameroom *r;
	int code = PERR_OK;
	unsigned retry_s = 0;
	char why[PROTO_REASON_BYTES];

	if (c->who.role == ROLE_SPECTATOR && room_moving(c, "a spectator of"))
		return;
	if (redirect_if_elsewhere(c, true))
		return;
	if ((r = room_for(c, true, &code, &retry_s)) == NULL) {
		if (code == PERR_NO_ROOM && s->cluster && !cluster_up(s->cluster)) {
			snprintf(why, sizeof why, "no room '%s' on this node, and the cluster's directory cannot be reached "
			         "now: try again in a moment", c->who.room);
			conn__drop(c, PERR_SERVER, why);
			return;
		}
		if (code == PERR_NO_ROOM) {
			if (drop_if_guessing(s, c, true))
				return;
			snprintf(why, sizeof why, "no room '%s' on this server (to make a new room: --new-room)", c->who.room);
		} else if (code == PERR_LIMIT) {
			snprintf(why, sizeof why, "too many new rooms from your address: try again in %u s", retry_s);
		} else {
			snprintf(why, sizeof why, "the server has no room for another game");
		}
		conn__drop(c, code, why);
		return;
	}
	if ((code = room__join(r, c)) != PERR_OK) {
		conn__drop(c, code, proto_strerror(code));
		if (s->cfg.multi && room__empty(r))
			room__destroy(r);
	}
}

static void
on_resume(struct conn *c, const struct wire_resume *m)
{
	struct server *s = c->srv;
	struct gameroom *r;
	int code = PERR_OK;

	if (!take_who(c, &m->who) || moderate__refuse(c))
		return;
	/* A seat's token is its secret: a player who joined under the password before a reload
	 * changed it (server_set_password_key) takes its seat back with that one. */
	if (!auth_check(room_key(s), pconn_hash(&c->pc), m->token, m->token_len, m->proof) &&
	    !(s->old_key.set && auth_check(&s->old_key, pconn_hash(&c->pc), m->token, m->token_len, m->proof))) {
		if (drop_if_blocked(s, c))
			return;
		server__auth_failed(s, c);
		conn__drop(c, PERR_AUTH, "wrong password");
		return;
	}
	key_proven(s, c);
	/* An unknown token is not counted as a wrong guess: a token is 32 random bytes that
	 * nobody guesses, and the clients of a server restarted without --resume each come back
	 * with one, several behind one address (a NAT), which must not lock that address out. */
	unsigned retry_s;

	if (room_moving(c, "resuming into"))
		return;
	if (redirect_if_elsewhere(c, false))
		return;
	if ((r = room_for(c, false, &code, &retry_s)) == NULL || (code = room__resume(r, c, m)) != PERR_OK)
		conn__drop(c, PERR_RESUME, "unknown or expired resume token");
}

void
server__handle(struct conn *c, const struct wire_msg *m)
{
	/* A node that was not heard from (stopped, stalled) may have lost this player's room to
	 * another node: nothing of it is played here until its beat says (cluster_lapsed), not even a
	 * message read before the stall. The link is closed as a dead node's would be: the client tries
	 * the other nodes, which send it to the room's node (this one again if it still holds it). */
	if ((c->state == CONN_JOINED || c->state == CONN_KNOWN) && m->type != WIRE_HEARTBEAT && server__fenced(c->srv)) {
		server__event(c->srv, LOG_INFO, c->room ? c->room->code : NULL, c->peer,
		              "closed: this node is settling whether its rooms are still its own");
		conn__close_now(c);
		return;
	}
	switch (m->type) {
	case WIRE_HEARTBEAT:
		return;
	case WIRE_BYE:
		if (c->state == CONN_JOINED && c->room)
			room__message(c->room, c, m);
		conn__close_now(c);
		return;
	case WIRE_ERROR:
		server__event(c->srv, LOG_INFO, c->room ? c->room->code : NULL, c->peer, "says: %s (%s)", proto_strerror(m->u.error.code), m->u.error.text);
		if (m->u.error.fatal)
			conn__close_now(c);
		return;
	default:
		break;
	}
	switch (c->state) {
	case CONN_HELLO:
		if (m->type == WIRE_HELLO)
			on_hello(c, &m->u.hello);
		else
			conn__drop(c, PERR_STATE, "expected HELLO");
		return;
	case CONN_CHALLENGED:
		/* Protocol 7: the key first, always; an AUTH without it is an older client's or a downgrade's. */
		if (m->type == WIRE_IDENT)
			on_ident(c, &m->u.ident);
		else
			conn__drop(c, PERR_STATE, "expected IDENT (the client's key) first");
		return;
	case CONN_KNOWN:
		if (m->type == WIRE_AUTH)
			on_auth(c, &m->u.auth);
		else if (m->type == WIRE_RESUME)
			on_resume(c, &m->u.resume);
		else if (m->type == WIRE_ASK)
			on_ask(c, &m->u.ask);
		else if (m->type == WIRE_ROOMS_ASK || m->type == WIRE_QUICK)
			quick__message(c, m);
		else
			conn__drop(c, PERR_STATE, "expected AUTH, RESUME or ASK (or ROOMS_ASK or QUICK on a server of rooms)");
		return; /* welcomed is counted where the state becomes JOINED (a claim may end later, off the loop) */
	case CONN_CLAIMING:
		conn__drop(c, PERR_STATE, "message not expected before WELCOME");
		return;
	case CONN_POOLED:
		quick__message(c, m);
		return;
	case CONN_JOINED:
		if (m->type == WIRE_HELLO || m->type == WIRE_AUTH || m->type == WIRE_RESUME || m->type == WIRE_IDENT) {
			conn__drop(c, PERR_STATE, "already joined");
			return;
		}
		if (m->type == WIRE_CMD)
			metrics_command(&c->srv->m, server__now(c->srv));
		room__message(c->room, c, m);
		return;
	default:
		return;
	}
}

static int
reserve_open(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* Out of descriptors (EMFILE, ENFILE): the listener stays readable and a level-triggered
 * poll would wake the loop for it forever. The reserve descriptor, kept open for this,
 * is closed so that one accept can succeed: every pending connection is taken and closed
 * (its peer sees the connection closed), and the reserve opened again. Said once per
 * EMFILE_LOG_MS with how many were closed since, so a flood cannot fill the log. With no
 * reserve to give back (it could not be opened again) accepting pauses for
 * ACCEPT_PAUSE_MS instead. */
static void on_accept_retry(uv_timer_t *t);

static void
shed(struct server *s, int lfd, int err)
{
	uint64_t now = server__now(s);
	unsigned n = 0;
	int fd;

	if (s->reserve_fd >= 0) {
		close(s->reserve_fd);
		s->reserve_fd = -1;
		for (;;) {
			if ((fd = accept(lfd, NULL, NULL)) >= 0) {
				close(fd);
				n++;
			} else if (errno != EINTR && errno != ECONNABORTED) {
				break;
			}
		}
		s->reserve_fd = reserve_open();
	}
	if (n == 0) {
		uv_poll_stop(&s->accept_poll);
		uv_timer_start(&s->accept_retry, on_accept_retry, ACCEPT_PAUSE_MS, 0);
	}
	s->emfile_count += n;
	s->m.limits[METRICS_LIM_NO_FILES] += n;
	if (s->emfile_logged != 0 && now - s->emfile_logged < EMFILE_LOG_MS)
		return;
	server__event(s, LOG_WARNING, NULL, NULL, "accept: %s: %u connection%s closed unread since the last report; raise the file limit "
	            "(ulimit -n) or lower --max-conns", uv_strerror(uv_translate_sys_error(err)), s->emfile_count,
	            s->emfile_count == 1 ? "" : "s");
	s->emfile_logged = now ? now : 1;
	s->emfile_count = 0;
}

static void
on_acceptable(uv_poll_t *p, int status, int events)
{
	struct server *s = p->data;
	uv_os_fd_t lfd;
	int fd;

	(void)events;
	if (status < 0 || uv_fileno((uv_handle_t *)&s->listener, &lfd) != 0)
		return;
	/* Everything pending: a restart's players arrive at once, and each costs little here. */
	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) >= 0) {
			fcntl(fd, F_SETFD, FD_CLOEXEC);
			if (conn__start(s, fd) != 0) {
				close(fd);
				server__event(s, LOG_ERR, NULL, NULL, "accept: out of memory");
			}
			if (s->closing)
				return;
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE)
			shed(s, lfd, errno);
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			server__event(s, LOG_ERR, NULL, NULL, "accept: %s", uv_strerror(uv_translate_sys_error(errno)));
		return;
	}
}

static void
on_accept_retry(uv_timer_t *t)
{
	struct server *s = t->data;

	if (s->reserve_fd < 0)
		s->reserve_fd = reserve_open();
	if (!s->closing)
		uv_poll_start(&s->accept_poll, UV_READABLE, on_acceptable);
}

/* A multi-room server: raise the soft limit on open files to the hard one (a service
 * manager's default soft limit is often 1,024, far below what thousands of players need),
 * and fit the caps into what it allows: each connection holds a socket and each playing
 * room its turn log, open for appending for the whole duel (tlog.h): a full server holds
 * two connections and a log to a room. FD_SPARE holds the rest: the listener, the reserve,
 * libuv's own, and what the threadpool opens for a moment (a finished log's compression
 * reads one file and writes another, the expiry's scan holds four folders: 8 + 4 with
 * libuv's 4 threads; a UV_THREADPOOL_SIZE far above that wants a larger margin). Said on
 * the log either way. */
static void
fit_file_limit(struct server *s)
{
	struct server_limits *l = &s->cfg.lim;
	struct rlimit rl;
	rlim_t was, need;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	was = rl.rlim_cur;
	if (rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			rl.rlim_cur = was;
	}
	need = (rlim_t)l->max_conns + l->max_rooms + FD_SPARE;
	if (rl.rlim_cur != was)
		server__event(s, LOG_NOTICE, NULL, NULL, "file limit raised from %llu to %llu (the hard limit)", (unsigned long long)was,
		            (unsigned long long)rl.rlim_cur);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return;
	/* Two connections and one log to a room, as a full server has them. */
	unsigned rooms = rl.rlim_cur > FD_SPARE + 3 ? (unsigned)((rl.rlim_cur - FD_SPARE) / 3) : 1;
	if (l->max_rooms > rooms)
		l->max_rooms = rooms;
	unsigned conns = rl.rlim_cur > FD_SPARE + l->max_rooms + 1 ? (unsigned)(rl.rlim_cur - FD_SPARE - l->max_rooms) : 1;
	if (l->max_conns > conns)
		l->max_conns = conns;
	server__event(s, LOG_WARNING, NULL, NULL, "the file limit (%llu open files) holds %u connections and %u rooms: raise the hard limit "
	            "(ulimit -Hn, LimitNOFILE=) for more", (unsigned long long)rl.rlim_cur, l->max_conns, l->max_rooms);
}

/* Forget addresses with nothing left to be remembered for (addr_idle). */
static void
on_sweep(uv_timer_t *t)
{
	struct server *s = t->data;

	room__sweep_idle(s);
	addr_forget(s, false);
	key_forget(s);
	moderate__sweep(s);
}

static void
on_log_check(uv_check_t *h)
{
	struct server *s = h->data;

	room__log_flush(s);
	if (s->cluster)
		cluster_flush(s->cluster);
	uv_check_stop(h); /* started again by the next room with lines (server__log_soon) */
}

void
server__log_soon(struct server *s)
{
	if (!s->closing && !uv_is_active((uv_handle_t *)&s->log_check))
		uv_check_start(&s->log_check, on_log_check);
}

static void
on_tick(uv_timer_t *t)
{
	conn__tick_all(t->data);
}

/* The machine can make IPv6 sockets at all. */
static bool
have_ipv6(void)
{
	int fd = socket(AF_INET6, SOCK_STREAM, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Bind and listen: the address given, or by default "::" with IPV6_V6ONLY off (IPv6 and
 * IPv4 on one socket), or "0.0.0.0" where the machine has no IPv6. */
static int
listen_on(struct server *s, struct sockaddr_storage *given)
{
	struct sockaddr_storage any;
	int rc, port;
	uv_os_fd_t fd;

	if (s->bind) {
		snprintf(s->bound, sizeof s->bound, "%s", s->bind);
		any = *given;
	} else if (have_ipv6()) {
		snprintf(s->bound, sizeof s->bound, "::");
		uv_ip6_addr("::", s->cfg.port, (struct sockaddr_in6 *)&any);
	} else {
		snprintf(s->bound, sizeof s->bound, "0.0.0.0");
		uv_ip4_addr("0.0.0.0", s->cfg.port, (struct sockaddr_in *)&any);
	}
	if ((rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&any, 0)) != 0)
		return rc;
	/* libuv keeps a failed bind's EADDRINUSE for uv_listen, and listen() on an unbound socket
	 * would pick a port of its own: check that the socket has the port asked for. */
	if ((port = server_port(s)) <= 0 || (s->cfg.port != 0 && port != s->cfg.port))
		return UV_EADDRINUSE;
	/* Accepting is ours (on_acceptable), not uv_listen's, so that running out of
	 * descriptors is seen and said (shed). */
	if ((rc = uv_fileno((uv_handle_t *)&s->listener, &fd)) != 0)
		return rc;
	if (listen(fd, LISTEN_BACKLOG) != 0)
		return uv_translate_sys_error(errno);
	if ((rc = uv_poll_init_socket(s->loop, &s->accept_poll, fd)) != 0)
		return rc;
	s->accept_poll.data = s;
	s->handles++;
	s->polling = true;
	return uv_poll_start(&s->accept_poll, UV_READABLE, on_acceptable);
}

static void
keeper_say(void *ud, const char *line)
{
	server__log(ud, "%s", line);
}

static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static unsigned
cluster_load(void *ud)
{
	const struct server *s = ud;

	return s->nrooms;
}

static void
cluster_say(void *ud, int level, const char *line)
{
	server__event(ud, level, NULL, NULL, "%s", line);
}

/* The cluster's nodes changed: every player here learns them again, so that a duel begun before a
 * node joined can resume there, and every spectator, to follow a takeover. Once per node joined or
 * gone, in slices (nodes.c). */
static void
cluster_changed(void *ud)
{
	nodes__changed(ud);
}

/* A dead node's duel, claimed here (cluster.c): its log from Redis goes to playing/ as this node's
 * own, and is resumed from there as `server --resume` resumes a log (the rules replay it, the seats
 * wait a grace for their players' tokens). Writing the file and replaying the log (twice: the duel,
 * and its commands counted for the spectators) run off the loop (uv_queue_work): a 1,000-turn duel
 * costs about 50 ms of CPU a replay, and a node may take many duels over at once. The room is made
 * on the loop once they are done; until then the directory says it is moving (its players are
 * asked to come back in a moment). */
struct takeover {
	uv_work_t req;
	struct server *s;
	char code[PROTO_ROOM_BYTES + 1];
	char path[4400];
	char *text;                /* the log from Redis (the worker's until done) */
	size_t len;
	struct tlog_resume lr;     /* ... read back and replayed */
	uint32_t cmds;
	int rc;
	char why[400];
	uint64_t began;            /* uv_hrtime at the claim */
	uint64_t work_ns;          /* the worker's time */
};

static void
takeover_work(uv_work_t *req)
{
	struct takeover *t = req->data;
	uint64_t t0 = uv_hrtime();

	t->rc = -1;
	if (tlog_save(t->path, t->text, t->len, t->why, sizeof t->why) != 0)
		goto out;
	if (tlog_load(t->path, &t->lr, t->why, sizeof t->why) != 0) {
		unlink(t->path);
		goto out;
	}
	t->cmds = room__log_commands(t->lr.text, t->lr.len);
	t->rc = 0;
out:
	t->work_ns = uv_hrtime() - t0;
}

static void
takeover_done(uv_work_t *req, int status)
{
	struct takeover *t = req->data;
	struct server *s = t->s;
	struct gameroom *r = NULL;

	if (s->closing || status != 0) { /* stopping: the log stays in playing/ for --resume */
		if (s->cluster)
			cluster_room_gone(s->cluster, t->code);
		goto out;
	}
	if (t->rc != 0) {
		server__event(s, LOG_ERR, t->code, NULL, "a dead node's duel in room %s not taken over: %s", t->code, t->why);
		cluster_room_gone(s->cluster, t->code);
		goto out;
	}
	if (server__find_room(s, t->code) != NULL || (r = server__add_room(s, t->code)) == NULL) {
		server__event(s, LOG_WARNING, t->code, NULL, "a dead node's duel in room %s not taken over: no room for "
		              "another game (%u rooms)", t->code, s->nrooms);
		unlink(t->path);
		if (server__find_room(s, t->code) == NULL)
			cluster_room_gone(s->cluster, t->code);
		goto out;
	}
	if (room__load_parsed(r, t->path, &t->lr, t->cmds, t->why, sizeof t->why) != 0) {
		room__destroy(r);
		unlink(t->path);
		server__event(s, LOG_WARNING, t->code, NULL, "a dead node's duel in room %s not taken over: %s", t->code, t->why);
		goto out;
	}
	server__event(s, LOG_NOTICE, t->code, NULL, "took room %s over from a dead node (%.1f ms to read and replay its "
	              "log, off the loop; %.1f ms from the claim)", t->code, (double)t->work_ns / 1e6,
	              (double)(uv_hrtime() - t->began) / 1e6);
out:
	tlog_resume_free(&t->lr);
	free(t->text);
	free(t);
	server__unref(s);
}

static int
cluster_takeover(void *ud, const char *code, const char *text, size_t len)
{
	struct server *s = ud;
	char name[128], stamp[32];
	struct takeover *t;
	struct tm tm;
	time_t now = time(NULL);

	if (server__find_room(s, code) != NULL) {
		server__event(s, LOG_WARNING, code, NULL, "a dead node's duel in room %s not taken over: a room of that code "
		              "is here already", code);
		return 0; /* the directory says this node, which holds a room of that code */
	}
	if ((t = calloc(1, sizeof *t)) == NULL || (t->text = malloc(len + 1)) == NULL) {
		free(t);
		server__event(s, LOG_ERR, code, NULL, "a dead node's duel in room %s not taken over: out of memory", code);
		return -1;
	}
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	t->len = len;
	t->s = s;
	t->began = uv_hrtime();
	t->req.data = t;
	snprintf(t->code, sizeof t->code, "%s", code);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(name, sizeof name, "wizwar-%s-%s-%u.log", code, stamp, ++s->log_seq);
	if (!logtree_playing_path(t->path, sizeof t->path, s->cfg.log_dir, name) ||
	    uv_queue_work(s->loop, &t->req, takeover_work, takeover_done) != 0) {
		server__event(s, LOG_ERR, code, NULL, "a dead node's duel in room %s not taken over: %s", code,
		              t->path[0] ? "no worker thread" : "its log's path is too long");
		free(t->text);
		free(t);
		return -1;
	}
	s->handles++; /* the server is freed only once the worker is done */
	return 1;
}

/* One of this node's rooms was taken over by another node while this one was not heard from. */
static void
cluster_lost(void *ud, const char *code)
{
	struct server *s = ud;
	struct gameroom *r = server__find_room(s, code);

	if (r == NULL)
		return;
	server__event(s, LOG_WARNING, code, NULL, "room %s lost: another node took it over while this node was not heard "
	              "from; its players are sent on", code);
	room__lost(r);
}

bool
server__fenced(const struct server *s)
{
	return s->cluster && cluster_lapsed(s->cluster);
}

/* Join the cluster (--redis): this node's rooms go into the directory as they are made. */
static int
start_cluster(struct server *s, uv_loop_t *loop, char *why, size_t whylen)
{
	char fp[AUTH_FP_LEN + 1];
	const char *host = s->cfg.cluster_host ? s->cfg.cluster_host : s->bind;

	if (host == NULL || strcmp(host, "::") == 0 || strcmp(host, "0.0.0.0") == 0) {
		snprintf(why, whylen, "--redis: give --cluster-host, the address other nodes send clients to");
		return -1;
	}
	server_fingerprint(s, fp);
	struct cluster_config cc = {
		.url = s->cfg.redis, .password = s->cfg.redis_password, .host = host, .lost = cluster_lost,
		.salt = s->pw_salt, .port = server_port(s), .key = server_public_key(s), .id = fp,
		.load = cluster_load, .say = cluster_say, .ud = s,
		.takeover = s->cfg.log_dir ? cluster_takeover : NULL, .changed = cluster_changed,
		.open_rooms = quick__open_rooms,
		.mod = moderate__remote, .mod_rejoin = moderate__rejoin,
		.make_room = quick__make_room, .room_news = quick__room_news,
	};
	if ((s->cluster = cluster_start(loop, &cc, why, whylen)) == NULL)
		return -1;
	s->handles++;
	return 0;
}

int
server_create(uv_loop_t *loop, const struct server_config *cfg, struct server **out, char *why, size_t whylen)
{
	struct server *s;
	struct sockaddr_storage ss;
	int rc;
	uint64_t sweep_ms;

	*out = NULL;
	/* A peer that vanished must cost us an EPIPE, never the process. */
	signal(SIGPIPE, SIG_IGN);
	if (auth_init() != 0) {
		snprintf(why, whylen, "libsodium cannot start");
		return -1;
	}
	if (!cfg->multi && options_check(&cfg->opt) != ERR_OK) {
		snprintf(why, whylen, "%s", err_text(options_check(&cfg->opt)));
		return -1;
	}
	if (cfg->turn_time < 0 || cfg->turn_time > TURN_TIME_MAX) {
		snprintf(why, whylen, "the turn time must be 0 to %d seconds", TURN_TIME_MAX);
		return -1;
	}
	/* WELCOME and PEER say the grace in a u16 of seconds: a longer one could not be told. */
	if (cfg->lim.grace_ms < 1 || cfg->lim.grace_ms > PROTO_HOLD_MAX * 1000u) {
		snprintf(why, whylen, "the grace must be 1 to %d seconds", PROTO_HOLD_MAX);
		return -1;
	}
	if ((s = calloc(1, sizeof *s)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	s->loop = loop;
	s->cfg = *cfg;
	s->m.started_ms = uv_now(loop);
	if (cfg->ntrusted > PROXY_TRUSTED_MAX) {
		snprintf(why, whylen, "at most %d trusted proxies", PROXY_TRUSTED_MAX);
		free(s);
		return -1;
	}
	if (cfg->ntrusted)
		memcpy(s->trusted, cfg->trusted, cfg->ntrusted * sizeof s->trusted[0]);
	s->ntrusted = cfg->ntrusted;
	s->cfg.trusted = NULL;
	crypto_shorthash_keygen(s->hash_key);
	if (cfg->multi) /* a one-room host needs a few descriptors, and its process is a player's too */
		fit_file_limit(s);
	s->bind = dup_or_null(cfg->bind);
	s->log_dir = dup_or_null(cfg->log_dir);
	s->cfg.bind = s->bind;
	s->cfg.log_dir = s->log_dir;
	s->cfg.password = NULL; /* only its key is kept */
	s->cfg.identity = NULL;
	if (cfg->identity)
		s->id = *cfg->identity;
	else
		auth_identity_new(&s->id);
	s->cfg.old_key = NULL;
	if (cfg->old_key)
		server_set_old_key(s, cfg->old_key, cfg->old_until);
	/* A cluster's nodes derive over one salt (docs/server.md, "A cluster"): asked of Redis here,
	 * blocking for a second at most, before anything is served; this node's own if Redis does not
	 * answer (a player resuming here from another node then derives its key again: slower, not
	 * refused). */
	memcpy(s->pw_salt, s->id.salt, sizeof s->pw_salt);
	if (cfg->redis && cfg->multi)
		cluster_shared_salt(cfg->redis, cfg->redis_password, s->id.salt, s->pw_salt);
	if (auth_key_derive(&s->key, cfg->password, s->pw_salt) != 0) {
		snprintf(why, whylen, "cannot derive the password key (out of memory)");
		goto fail_mem;
	}
	if (s->bind && uv_ip4_addr(s->bind, cfg->port, (struct sockaddr_in *)&ss) != 0 &&
	    uv_ip6_addr(s->bind, cfg->port, (struct sockaddr_in6 *)&ss) != 0) {
		snprintf(why, whylen, "cannot listen on '%s': not an IP address", s->bind);
		goto fail_mem;
	}
	uv_tcp_init(loop, &s->listener);
	uv_timer_init(loop, &s->sweep);
	uv_timer_init(loop, &s->accept_retry);
	uv_timer_init(loop, &s->tick);
	uv_check_init(loop, &s->log_check);
	s->log_check.data = s;
	s->listener.data = s;
	s->sweep.data = s;
	s->accept_retry.data = s;
	s->tick.data = s;
	quick__init(s);
	nodes__init(s);
	s->handles = 7;
	s->reserve_fd = reserve_open();
	if ((rc = listen_on(s, &ss)) != 0) {
		snprintf(why, whylen, "cannot listen on %s port %d: %s", s->bind ? s->bind : "any address", cfg->port,
		         uv_strerror(rc));
		server_close(s, NULL, NULL);
		return -1;
	}
	/* Opening and migrating block once, here, before anything is served; from now on the
	 * store's work runs on its own thread (store.h). */
	s->cfg.store_path = NULL;
	if (cfg->store_path) {
		if (moderate__open_store(s, cfg->store_path, why, whylen) != 0) {
			server_close(s, NULL, NULL);
			return -1;
		}
		store_set_signer(s->store, s->id.kp.sk); /* rated records are signed by the server's own key */
		s->handles++;
	}
	/* Often enough that an idle lobby goes within a tenth of its limit (tests use short ones). */
	sweep_ms = cfg->lim.lobby_idle_ms / 10 < 10000 ? cfg->lim.lobby_idle_ms / 10 : 10000;
	if (sweep_ms < 50)
		sweep_ms = 50;
	uv_timer_start(&s->sweep, on_sweep, sweep_ms, sweep_ms);
	uv_timer_start(&s->tick, on_tick, cfg->lim.tick_ms, cfg->lim.tick_ms);
	if (!cfg->multi && server__add_room(s, HOST_ROOM) == NULL) {
		snprintf(why, whylen, "out of memory");
		server_close(s, NULL, NULL);
		return -1;
	}
	/* From now on log lines go through a writer thread: a stderr nobody reads must not stall
	 * the loop. */
	if (!cfg->quiet && (s->slog = slog_create(STDERR_FILENO, SLOG_CAP)) == NULL) {
		snprintf(why, whylen, "cannot start the log writer (no thread or memory)");
		server_close(s, NULL, NULL);
		return -1;
	}
	if (cfg->redis && cfg->multi && start_cluster(s, loop, why, whylen) != 0) {
		server_close(s, NULL, NULL);
		return -1;
	}
	/* Finished logs older than --log-keep days go, scanned off the loop at start and hourly. */
	if (cfg->multi && s->log_dir && cfg->log_keep_days > 0)
		s->keeper = logtree_keeper_start(loop, s->log_dir, cfg->log_keep_days, keeper_say, s);
	*out = s;
	return 0;
fail_mem:
	auth_key_wipe(&s->key);
	sodium_memzero(&s->id, sizeof s->id);
	sodium_memzero(&s->old_kp, sizeof s->old_kp);
	free(s->bind);
	free(s->log_dir);
	free(s);
	return -1;
}

int
server_set_limits(struct server *s, const struct server_limits *lim, char *why, size_t whylen)
{
	uint64_t sweep_ms;

	if (lim->grace_ms < 1 || lim->grace_ms > PROTO_HOLD_MAX * 1000u) {
		snprintf(why, whylen, "the grace must be 1 to %d seconds", PROTO_HOLD_MAX);
		return -1;
	}
	bool idle_changed = lim->lobby_idle_ms != s->cfg.lim.lobby_idle_ms;
	s->cfg.lim = *lim;
	if (s->cfg.multi)
		fit_file_limit(s);
	/* The sweep's period follows the lobby's idle limit (server_create). */
	if (idle_changed) {
		sweep_ms = lim->lobby_idle_ms / 10 < 10000 ? lim->lobby_idle_ms / 10 : 10000;
		if (sweep_ms < 50)
			sweep_ms = 50;
		uv_timer_start(&s->sweep, on_sweep, sweep_ms, sweep_ms);
	}
	return 0;
}

const struct server_limits *
server_get_limits(const struct server *s)
{
	return &s->cfg.lim;
}

int
server_set_identity(struct server *s, const struct auth_identity *id, char *why, size_t whylen)
{
	if (!auth_equal(id->salt, s->id.salt, sizeof id->salt)) {
		snprintf(why, whylen, "the key file's password salt is not the running server's (a key made by hand?): "
		         "restart the server to use it");
		return -1;
	}
	s->id = *id;
	return 0;
}

void
server_set_old_key(struct server *s, const struct noise_keypair *old, uint64_t until)
{
	sodium_memzero(&s->old_kp, sizeof s->old_kp);
	s->has_old = false;
	if (old == NULL)
		return; /* its hint stays: a client still pinning it is said in the log */
	s->old_kp = *old;
	s->old_until = until;
	s->has_old = true;
	auth_key_hint(old->pk, s->old_hint);
	s->old_known = true;
}

int
server_set_log_keep(struct server *s, unsigned days, char *why, size_t whylen)
{
	if (!s->cfg.multi || s->log_dir == NULL) {
		snprintf(why, whylen, "no log directory: there are no turn logs to keep");
		return -1;
	}
	if (days == s->cfg.log_keep_days)
		return 0;
	logtree_keeper_stop(s->keeper);
	s->keeper = NULL;
	s->cfg.log_keep_days = days;
	/* A new keeper scans at once: a shorter keeping takes effect now, not in an hour. */
	if (days > 0)
		s->keeper = logtree_keeper_start(s->loop, s->log_dir, days, keeper_say, s);
	return 1;
}

bool
server_set_password_key(struct server *s, const struct auth_key *k)
{
	if (k->set == s->key.set && (!k->set || sodium_memcmp(k->k, s->key.k, sizeof k->k) == 0))
		return false;
	auth_key_wipe(&s->old_key);
	s->old_key = s->key;
	s->key = *k;
	return true;
}

const uint8_t *
server_password_salt(const struct server *s)
{
	return s->pw_salt;
}

const char *
server_bound(const struct server *s)
{
	return s->bound;
}

int
server_port(const struct server *s)
{
	struct sockaddr_storage ss;
	int len = sizeof ss;

	if (uv_tcp_getsockname(&s->listener, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

const uint8_t *
server_public_key(const struct server *s)
{
	return s->id.kp.pk;
}

bool
server_names_owned(const struct server *s)
{
	return s->store != NULL;
}

void
server_fingerprint(const struct server *s, char out[AUTH_FP_LEN + 1])
{
	auth_fingerprint(s->id.kp.pk, out);
}

int
server_reserve_host(struct server *s, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *token_len)
{
	if (s->cfg.multi || s->rooms == NULL)
		return -1;
	return room__reserve(s->rooms, -1, name, token, token_len);
}

int
server_reserve_seat(struct server *s, int seat, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *token_len)
{
	if (s->cfg.multi || s->rooms == NULL)
		return -1;
	return room__reserve(s->rooms, seat, name, token, token_len);
}

int
server_resume_log(struct server *s, const char *path, char *why, size_t whylen)
{
	if (s->cfg.multi || s->rooms == NULL) {
		snprintf(why, whylen, "only a one-room server resumes a log");
		return -1;
	}
	return room__load(s->rooms, path, why, whylen);
}

/* The room code in a multi-room server's log name, "wizwar-CODE-YYYYMMDD-HHMMSS-N.log" while
 * played, ".log.gz" from before logs were plain while played (log_path in room.c), into code;
 * false for any other name. Only a log without a room comment (one written before the
 * comment) is placed by its name. */
static bool
log_name_code(const char *name, char code[PROTO_ROOM_BYTES + 1])
{
	size_t n = strlen(name), end;
	const char *suffix = n > 7 && strcmp(name + n - 7, ".log.gz") == 0 ? ".log.gz" : ".log";
	int dashes = 0;

	if (n < 7 + strlen(suffix) || strncmp(name, "wizwar-", 7) != 0 ||
	    strcmp(name + n - strlen(suffix), suffix) != 0)
		return false;
	end = n - strlen(suffix);
	/* Back over "-N", "-HHMMSS" and "-YYYYMMDD": digits each. */
	while (dashes < 3 && end > 7) {
		size_t d = end;
		while (d > 7 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d == end || name[d - 1] != '-')
			return false;
		end = d - 1;
		dashes++;
	}
	if (dashes < 3 || end <= 7 || !text_check(name + 7, end - 7, TEXT_ROOM))
		return false; /* what no client could have named its room */
	memcpy(code, name + 7, end - 7);
	code[end - 7] = '\0';
	return true;
}

/* A name a turn log may have: the server's suffix (".log", or ".log.gz" from before logs were
 * plain while played), whatever a hand made of the rest (and not a rewrite's PATH.tmp, which
 * tlog_open_prefix renames over its log or removes). The name is
 * printed ("not resumed: ..."), so it must be text a terminal shows as it is (TEXT_CHAT: no
 * control, no escape, no bidi mark), as the names the server writes always were. */
static bool
log_name(const char *name)
{
	size_t n = strlen(name);

	return ((n > 7 && strcmp(name + n - 7, ".log.gz") == 0) || (n > 4 && strcmp(name + n - 4, ".log") == 0)) &&
	       text_check(name, n, TEXT_CHAT);
}

#define RESUME_WITHIN_S (24 * 3600)

struct found_log {
	char name[256];
	int where;                            /* its folder: resume_dirs */
	bool stale;                           /* not to be resumed: left a day ago, or not --resume */
	char code[PROTO_ROOM_BYTES + 1];      /* its room: the comment's, else the name's */
	char name_code[PROTO_ROOM_BYTES + 1]; /* the name's, "" when it names none */
	bool ended;
	time_t mtime;
};

/* By room code, and a code's newest log first. */
static int
by_code_newest_first(const void *a, const void *b)
{
	const struct found_log *x = a, *y = b;
	int c = strcmp(x->code, y->code);
	return c ? c : x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : strcmp(y->name, x->name);
}

/*
 * Which room a log is of, into f->code; false when it is none of this server's rooms' (left as it
 * is, said only when its room comment is broken). The log's room comment is its room: the
 * file's name is only where the server first wrote it, and an operator who renamed or copied
 * the file by hand changed the name, not the duel, whose players will RESUME to the room they
 * were in. A log without the comment (written before it) is placed by its name, as it always
 * was; one that cannot be read, too, so that room__load says why when it is its room's newest.
 */
static bool
place_log(struct server *s, const char *path, struct found_log *f)
{
	struct tlog_peek pk;
	char why[300];
	bool named = log_name_code(f->name, f->name_code);

	if (!named)
		f->name_code[0] = '\0';
	if (tlog_peek(path, &pk, why, sizeof why) != 0) {
		f->ended = false;
		memcpy(f->code, f->name_code, sizeof f->code);
		return named;
	}
	f->ended = pk.ended;
	switch (pk.room.kind) {
	case TLOG_ROOM_OK:
		memcpy(f->code, pk.room.code, sizeof f->code);
		return true;
	case TLOG_ROOM_BAD:
		/* A finished duel has nothing to resume, broken or not. */
		if (!pk.ended)
			server__event(s, LOG_WARNING, NULL, NULL, "not resumed: %s: %s", path, pk.room.why);
		return false;
	default:
		/* No comment, and named for the one-room host's room: a `wizwar host`'s log (host and
		 * server share the default log directory), which no player of this server would RESUME
		 * to, and which `host --resume` brings back. Every log of this server's own rooms has
		 * carried the comment since it was added, a room named "host" too. */
		if (named && strcmp(f->name_code, HOST_ROOM) == 0) {
			if (!pk.ended)
				server__event(s, LOG_WARNING, NULL, NULL, "not resumed: %s: a one-room host's duel (`wizwar host --resume` brings it back)", path);
			return false;
		}
		memcpy(f->code, f->name_code, sizeof f->code);
		return named;
	}
}

/* Where server --resume looks: the duels being played (logtree.h), and the log directory itself,
 * where logs were kept before the tree (flat, each a gzip file also while played). */
static bool rate_log(struct server *s, const char *path, const char *to, time_t mtime);

static const char *const resume_dirs[] = { LOGTREE_PLAYING, "" };
#define RESUME_DIRS (sizeof resume_dirs / sizeof resume_dirs[0])

static void
resume_path(const struct server *s, const struct found_log *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s%s", s->cfg.log_dir, resume_dirs[f->where], resume_dirs[f->where][0] ? "/" : "",
	         f->name);
}

/* A node of a cluster restarted with --resume resumes only the duels no other node took over while
 * it was dead (the claim leaves wizwar:taken:CODE, and the room its new node's in wizwar:rooms):
 * Redis is asked, blocking, before anything is served. 1 taken (said), 0 this node's, -1 Redis cannot
 * be asked: the start stops (resuming a duel another node may be playing is what must not happen). */
static int
resume_taken(struct server *s, const struct found_log *f, const char *path, char *why, size_t whylen)
{
	char owner[CLUSTER_ID_LEN + 1], rwhy[300];
	int k = cluster_resume_owner(s->cluster, f->code, owner, rwhy, sizeof rwhy);

	if (k < 0) {
		snprintf(why, whylen, "which duels other nodes took over cannot be asked (%s): start again once Redis "
		         "answers, or without --resume (the logs are then put away, not resumed)", rwhy);
		return -1;
	}
	if (k == 0)
		server__event(s, LOG_NOTICE, f->code, NULL, "not resumed: %s: room %s was taken over by node %s", path,
		              f->code, owner);
	return k == 0;
}

static int
scan_logs(struct server *s, bool resume, char *why, size_t whylen)
{
	struct found_log *found = NULL;
	size_t n = 0, cap = 0;
	int resumed = 0;
	struct dirent *e;
	time_t now = time(NULL);
	DIR *d[RESUME_DIRS];
	unsigned total = 0, seen = 0, put_away = 0;

	if (!s->cfg.multi || s->cfg.log_dir == NULL) {
		snprintf(why, whylen, "only a multi-room server with a log directory resumes its duels");
		return -1;
	}
	for (size_t k = 0; k < RESUME_DIRS; k++) {
		char dir[4200];
		snprintf(dir, sizeof dir, "%s/%s", s->cfg.log_dir, resume_dirs[k]);
		/* The log directory itself must be there; playing/ only once a duel was played. */
		if ((d[k] = opendir(dir)) == NULL && (resume_dirs[k][0] == '\0' || errno != ENOENT)) {
			snprintf(why, whylen, "%s: %s", dir, strerror(errno));
			while (k-- > 0)
				if (d[k])
					closedir(d[k]);
			return -1;
		}
		/* The logs counted first, for the progress hook: reading many takes a while. */
		while (d[k] && s->cfg.hooks.resume_progress && (e = readdir(d[k])) != NULL)
			total += log_name(e->d_name);
		if (d[k])
			rewinddir(d[k]);
	}
	for (size_t k = 0; k < RESUME_DIRS; k++) {
		while (d[k] && (e = readdir(d[k])) != NULL) {
			char path[4400];
			struct stat st;
			if (!log_name(e->d_name) || strlen(e->d_name) >= sizeof found->name)
				continue;
			if (s->cfg.hooks.resume_progress && seen < total)
				s->cfg.hooks.resume_progress(s->cfg.hooks.ud, ++seen, total);
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct found_log *f = realloc(found, ncap * sizeof *f);
				if (f == NULL)
					break;
				found = f;
				cap = ncap;
			}
			snprintf(found[n].name, sizeof found[n].name, "%s", e->d_name);
			found[n].where = (int)k;
			resume_path(s, &found[n], path, sizeof path);
			/* A duel left for more than a day is not waited for: its players have long gone
			 * (and every finished log need not be read again at each start). In playing/ it
			 * is put away (below) once known to be this server's. */
			if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
			    (k != 0 && (!resume || now - st.st_mtime > RESUME_WITHIN_S)))
				continue;
			found[n].mtime = st.st_mtime;
			/* Each log is read once here, whole (most are finished duels, known by their `end`
			 * line without a replay), for its room: a room's logs are known only once read. */
			if (!place_log(s, path, &found[n]))
				continue;
			found[n].stale = !resume || now - st.st_mtime > RESUME_WITHIN_S;
			n++;
		}
		if (d[k])
			closedir(d[k]);
	}
	/* Only a room's newest log can be its duel under way: an older unfinished one of the
	 * same code (a room made again after an earlier stop, or a copy) stays as it is. */
	if (n > 1)
		qsort(found, n, sizeof *found, by_code_newest_first);
	for (size_t i = 0; i < n; i++) {
		char path[4400], lwhy[300];
		struct gameroom *r;
		resume_path(s, &found[i], path, sizeof path);
		if (resume && s->cluster && !found[i].stale && !found[i].ended &&
		    !(i > 0 && strcmp(found[i].code, found[i - 1].code) == 0)) {
			int k = resume_taken(s, &found[i], path, why, whylen);
			if (k < 0) {
				free(found);
				return -1;
			}
			found[i].stale = k > 0; /* put away below, as a duel not to be resumed */
		}
		/* playing/ keeps only the duels of this process: a log of this server's there that
		 * is not resumed (finished but not yet compressed when the server was killed, an
		 * older log of a room, one left more than a day, every one without --resume) is put
		 * away into the tree, compressed, where `wizwar replay` still reads it and --log-keep
		 * expires it; so that it is never taken for its room's newest duel later, when the
		 * newer ones have left playing/. */
		if (found[i].where == 0 && (found[i].stale || found[i].ended ||
		                            (i > 0 && strcmp(found[i].code, found[i - 1].code) == 0))) {
			char to[4400];
			if (logtree_done_path(to, sizeof to, s->cfg.log_dir, found[i].mtime, path)) {
				if (!(found[i].ended && rate_log(s, path, to, found[i].mtime)))
					tlog_keep_later(s->loop, path, to);
				put_away++;
			}
			continue;
		}
		if (found[i].stale)
			continue;
		if (i > 0 && strcmp(found[i].code, found[i - 1].code) == 0)
			continue; /* an older log of the room just seen */
		if (found[i].ended)
			continue; /* most logs: a finished duel */
		if ((r = server__add_room(s, found[i].code)) == NULL) {
			server__event(s, LOG_WARNING, NULL, NULL, "resuming: no room for another game (%u rooms); %s left as it is", s->nrooms, path);
			break;
		}
		if (room__load(r, path, lwhy, sizeof lwhy) != 0) {
			room__destroy(r);
			if (strstr(lwhy, "that duel is over") == NULL)
				server__event(s, LOG_WARNING, NULL, NULL, "not resumed: %s", lwhy);
			continue;
		}
		/* Said, since the operator may not expect it: the comment won over the name. */
		if (found[i].name_code[0] && strcmp(found[i].name_code, found[i].code) != 0)
			server__event(s, LOG_NOTICE, found[i].code, NULL, "%s is named for room %s; its room comment says %s",
			              found[i].name, found[i].name_code, found[i].code);
		resumed++;
	}
	free(found);
	if (s->cluster)
		cluster_resume_done(s->cluster);
	if (put_away)
		server__log(s, "%u turn log%s left in %s/" LOGTREE_PLAYING " and not resumed put away into the tree by date",
		            put_away, put_away == 1 ? "" : "s", s->cfg.log_dir);
	return resumed;
}

/* A finished duel's log left in playing/ (a rated one waits there until its result is in the
 * store, and a kill may have come first): rated now, and put away once the store has it. The
 * store counts a duel once, by its id, whether or not it had it. true: the rating was asked for
 * (it moves the log); false: not a rated duel's log. Reads the file, at start, before serving. */
static bool
rate_log(struct server *s, const char *path, const char *to, time_t mtime)
{
	static const uint8_t results[] = { [RESULT_WIN0] = RATED_WIN0, [RESULT_WIN1] = RATED_WIN1, [RESULT_DRAW] = RATED_DRAW };
	struct tlog_resume *lr;
	struct store_duel d;
	char why[300];
	bool ok = false;

	if (s->store == NULL || (lr = calloc(1, sizeof *lr)) == NULL)
		return false;
	if (tlog_load(path, lr, why, sizeof why) == 0 && lr->ended && lr->game.result != RESULT_NONE && lr->have_part &&
	    lr->have_key[0] && lr->have_key[1] && memcmp(lr->key[0], lr->key[1], PROTO_IDENT_KEY_LEN) != 0 &&
	    lr->room.kind == TLOG_ROOM_OK) {
		memset(&d, 0, sizeof d);
		d.time = (int64_t)mtime;
		auth_seed_commit(lr->server_part, d.commit);
		memcpy(d.key, lr->key, sizeof d.key);
		d.result = results[lr->game.result & 3];
		d.reason = lr->game.end_reason;
		server__rate(s, lr->room.code, &d, path, to);
		ok = true;
	}
	tlog_resume_free(lr);
	free(lr);
	return ok;
}

int
server_resume_dir(struct server *s, char *why, size_t whylen)
{
	return scan_logs(s, true, why, whylen);
}

int
server_tidy_logs(struct server *s, char *why, size_t whylen)
{
	return scan_logs(s, false, why, whylen);
}

struct gameroom *
server_room(struct server *s, const char *code)
{
	return server__find_room(s, code ? code : "");
}

unsigned
server_room_count(const struct server *s)
{
	return s->nrooms;
}

unsigned
server_conn_count(const struct server *s)
{
	return s->nconns;
}

unsigned
server_duels_playing(const struct server *s)
{
	unsigned n = 0;

	for (const struct gameroom *r = s->rooms; r; r = r->next)
		n += room_playing(r);
	return n;
}

const char *
server_duel_log(struct server *s)
{
	const struct gameroom *r = s->cfg.multi ? NULL : s->rooms;

	return r && r->state == ROOM_PLAYING ? r->log.path : NULL;
}

const char *
server_last_log(struct server *s)
{
	const struct gameroom *r = s->cfg.multi ? NULL : s->rooms;

	return r ? r->end_path : NULL;
}

/* Closing: every connection and room goes, then the two handles, then the struct.
 * s->handles counts the listener, its timers, and every connection and room
 * whose memory is not yet freed. */
void
server__unref(struct server *s)
{
	if (--s->handles == 0) {
		void (*cb)(void *) = s->close_cb;
		void *ud = s->close_ud;
		for (unsigned i = 0; i < s->addrs.n; i++) {
			struct hlink *l = s->addrs.b[i];
			while (l) {
				struct hlink *n = l->next;
				free(HLINK_ENTRY(l, struct addr_entry, hl));
				l = n;
			}
		}
		for (unsigned i = 0; i < s->keys.n; i++) {
			struct hlink *l = s->keys.b[i];
			while (l) {
				struct hlink *n = l->next;
				free(HLINK_ENTRY(l, struct key_entry, hl));
				l = n;
			}
		}
		free(s->keys.b);
		free(s->addrs.b);
		ban_list_finish(&s->bans);
		free(s->room_codes.b);
		if (s->reserve_fd >= 0)
			close(s->reserve_fd);
		auth_key_wipe(&s->key);
		auth_key_wipe(&s->old_key);
		sodium_memzero(&s->id, sizeof s->id);
		sodium_memzero(&s->old_kp, sizeof s->old_kp);
		pconn_scratch_free(s->pscratch);
		free(s->bind);
		free(s->log_dir);
		/* Its last lines (the stop, the rooms closed) go out if the log is read; a log
		 * nobody reads costs the stop SLOG_FLUSH_MS at most. */
		slog_destroy(s->slog, SLOG_FLUSH_MS);
		free(s);
		if (cb)
			cb(ud);
	}
}

static void
on_idle_free(uv_handle_t *h)
{
	server__unref(h->data);
}

static void
on_store_closed(void *ud)
{
	server__unref(ud);
}

void
server_close(struct server *s, void (*cb)(void *ud), void *ud)
{
	server_close_as(s, BYE_SHUTDOWN, cb, ud);
}

void
server_close_as(struct server *s, int reason, void (*cb)(void *ud), void *ud)
{
	if (s == NULL || s->closing)
		return;
	s->bye_reason = (uint8_t)reason;
	s->closing = true;
	s->close_cb = cb;
	s->close_ud = ud;
	admin_close(s->admin);
	metrics_http_close(s->http);
	s->admin = NULL;
	s->http = NULL;
	logtree_keeper_stop(s->keeper);
	s->keeper = NULL;
	if (s->cfg.hooks.closing)
		s->cfg.hooks.closing(s->cfg.hooks.ud);
	while (s->rooms)
		room__destroy(s->rooms);
	for (struct conn *c = s->conns; c; c = c->next) {
		if (c->state != CONN_CLOSING)
			conn__bye(c, s->bye_reason);
		conn__close_now(c);
	}
	if (s->cluster) { /* after the rooms: each left the directory as it went */
		struct cluster *cl = s->cluster;
		s->cluster = NULL;
		cluster_stop(cl, on_store_closed, s);
	}
	if (s->store) { /* after the conns: each cancelled its claim as it went */
		struct store *st = s->store;
		s->store = NULL;
		store_close(st, on_store_closed, s);
	}
	if (s->polling)
		uv_close((uv_handle_t *)&s->accept_poll, on_idle_free);
	uv_close((uv_handle_t *)&s->listener, on_idle_free);
	uv_close((uv_handle_t *)&s->sweep, on_idle_free);
	uv_close((uv_handle_t *)&s->accept_retry, on_idle_free);
	uv_close((uv_handle_t *)&s->tick, on_idle_free);
	uv_close((uv_handle_t *)&s->log_check, on_idle_free);
	uv_close((uv_handle_t *)&s->wave, on_idle_free);
	nodes__close(s, on_idle_free);
}

int
server_admin_start(struct server *s, const char *path, char *why, size_t whylen)
{
	if (s->admin) {
		snprintf(why, whylen, "the admin socket is already open");
		return -1;
	}
	return admin_start(s, path, &s->admin, why, whylen);
}

int
server_metrics_start(struct server *s, const char *addr, bool public_ok, char *why, size_t whylen)
{
	struct sockaddr_storage sa;
	bool loopback;

	if (s->http) {
		snprintf(why, whylen, "the metrics endpoint is already open");
		return -1;
	}
	if (!metrics_parse_addr(addr, &sa, &loopback, why, whylen))
		return -1;
	if (!loopback && !public_ok) {
		snprintf(why, whylen, "--metrics %s: not a loopback address; the metrics tell anyone who can reach them "
		         "how busy the server is: give --metrics-public to serve them there anyway", addr);
		return -1;
	}
	if (metrics_http_start(s, (const struct sockaddr *)&sa, &s->http, why, whylen) != 0)
		return -1;
	if (!loopback)
		server__log(s, "warning: metrics served on %s, not a loopback address (--metrics-public)", addr);
	return 0;
}

int
server_metrics_port(const struct server *s)
{
	return s->http ? metrics_http_port(s->http) : -1;
}

bool
server_private(const struct server *s)
{
	return room_key_set(s);
}

const char *
server_log_dir(const struct server *s)
{
	return s->log_dir;
}

void
server_link_key(const struct server *s, uint8_t out[32])
{
	/* A key of its own for this one use (BLAKE2b keyed by the long-term secret): a link's MAC
	 * says nothing of that secret, and no other use of it can be made to sign a link. */
	static const char what[] = "wizwar web replay links v1";
	static const char what_cluster[] = "wizwar web links of a cluster v1";
	/* A private cluster's nodes share no secret key, but every node has the password key (one
	 * password, one salt: wizwar:salt), and a link made by one node must open on the node that
	 * takes its room over. Whoever could make a link so already holds what `wizwar watch` of
	 * that room asks: the password, and the room's code, which the link names. */
	if (s->cluster && s->key.set)
		crypto_generichash(out, 32, (const uint8_t *)what_cluster, sizeof what_cluster - 1, s->key.k, sizeof s->key.k);
	else
		crypto_generichash(out, 32, (const uint8_t *)what, sizeof what - 1, s->id.kp.sk, sizeof s->id.kp.sk);
}

struct cluster *
server_cluster(const struct server *s)
{
	return s->cluster;
}

const char *
server_cluster_host(const struct server *s)
{
	return s->cfg.cluster_host ? s->cfg.cluster_host : s->bind;
}
