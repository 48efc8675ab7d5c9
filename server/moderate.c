/* SPDX-License-Identifier: MIT */
/* moderate: bans and mutes on a running server: loaded at start, checked at each step of a handshake, applied at once to who is connected, written to the store. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int64_t
moderate__now(void)
{
	/* Wall clock, not the loop's: an expiry is a date that must mean the same after a restart. */
	return (int64_t)time(NULL);
}

static int
loaded(void *ud, const struct ban *b)
{
	return ban_add(ud, b);
}

int
moderate__open_store(struct server *s, const char *store_path, char *why, size_t whylen)
{
	if (store_open_bans(s->loop, store_path, moderate__now(), loaded, &s->bans, &s->store, why, whylen) != 0)
		return -1;
	s->bans_shared = store_target_is_pg(store_path);
	if (s->bans.n) {
		char shown[512];
		store_describe(store_path, shown, sizeof shown); /* a URI's password never reaches a log */
		server__log(s, "%u bans and mutes in force, from %s", s->bans.n, shown);
	}
	return 0;
}

/* What a connection has shown so far: its real address from the start, its key from IDENT,
 * its name from AUTH or RESUME. */
static struct ban_who
who_of(const struct conn *c)
{
	struct ban_who w = { .addr = c->real };

	if (c->state >= CONN_KNOWN && c->fp[0])
		w.fp = c->fp;
	if (c->who.name[0])
		w.name = c->who.name;
	return w;
}

bool
moderate__refuse(struct conn *c)
{
	struct server *s = c->srv;
	struct ban_who w = who_of(c);
	const struct ban *b;
	char why[PROTO_REASON_BYTES + 1];

	if (s->bans.n == 0 || (b = ban_find(&s->bans, &w, moderate__now())) == NULL)
		return false;
	ban_describe(b, why, sizeof why);
	c->banned = true;
	conn__drop(c, PERR_BANNED, why);
	return true;
}

/* A new ban: every connection it matches goes now, player, spectator or one half through its
 * handshake, each told why. Returns how many. */
static unsigned
apply(struct server *s)
{
	unsigned n = 0;

	for (struct conn *c = s->conns; c; c = c->next)
		if (c->state != CONN_CLOSING && !c->gone && moderate__refuse(c))
			n++;
	return n;
}

bool
moderate__muted(struct conn *c)
{
	struct server *s = c->srv;

	if (s->bans.n == 0 || !c->fp[0] || !ban_muted(&s->bans, c->fp, moderate__now()))
		return false;
	conn__error(c, PERR_MUTED, false, "you are muted on this server: nobody sees your chat");
	return true;
}

void
moderate__sweep(struct server *s)
{
	ban_prune(&s->bans, moderate__now());
}

static void
on_written(void *ud, int result)
{
	struct server *s = ud;

	if (result == STORE_FAILED)
		server__event(s, LOG_ERR, NULL, NULL, "the store failed to record a ban or mute: it holds until the server "
		              "stops, and will not be there after a restart");
}

static void
on_freed(void *ud, int result)
{
	struct server *s = ud;

	if (result == STORE_FAILED)
		server__event(s, LOG_ERR, NULL, NULL, "the store failed to free a name");
}

/* The store's part, or what the operator is told when there is none. */
static void
record(struct server *s, struct store_req *q, struct metrics_buf *out)
{
	if (s->store == NULL)
		metrics_buf_printf(out, "not recorded: this server has no store (--no-store, or built without SQLite): "
		                   "it holds until the server stops\n");
	else if (q == NULL)
		metrics_buf_printf(out, "not recorded: out of memory\n");
}

/* ---- bans across a cluster's nodes (docs/server.md, "Bans across nodes") ---- */

/* A command of this node's to the other nodes: published on the channel and kept in Redis's hash of
 * bans (cluster.c), where a node that was away reads it when it rejoins. */
static void
publish(struct server *s, const struct ban *b, bool lifted, int64_t when)
{
	char line[BAN_SYNC_MAX], field[BAN_SYNC_MAX];

	if (s->cluster == NULL)
		return;
	ban_sync_line(b, lifted, when, line, field);
	cluster_mod_put(s->cluster, field, line, false);
}

void
moderate__rejoin(void *ud)
{
	struct server *s = ud;
	char line[BAN_SYNC_MAX], field[BAN_SYNC_MAX];

	ban_prune(&s->bans, moderate__now());
	for (unsigned i = 0; i < s->bans.n; i++) {
		ban_sync_line(&s->bans.v[i], false, 0, line, field);
		cluster_mod_put(s->cluster, field, line, true);
	}
}

void
moderate__remote(void *ud, const char *line)
{
	struct server *s = ud;
	int64_t now = moderate__now();
	char why[160], shown[BAN_TARGET_MAX + BAN_REASON_MAX + 160];
	const struct ban *old;
	struct ban b;
	bool lifted;

	if (line == NULL) { /* the batch is over: one pass over the connections for all its bans */
		if (s->mod_apply_due) {
			unsigned n = apply(s);
			s->mod_apply_due = false;
			if (n)
				server__log(s, "cluster: %u connection%s dropped by another node's ban", n, n == 1 ? "" : "s");
		}
		return;
	}
	if (!ban_sync_parse(line, now, &b, &lifted, why, sizeof why)) {
		if (!s->bad_mod_said) /* a node trusts Redis, but what no node writes is not applied */
			server__event(s, LOG_WARNING, NULL, NULL, "cluster: a moderation line that no node writes is ignored "
			              "(%s); others are ignored silently", why);
		s->bad_mod_said = true;
		return;
	}
	/* The newest word on a target wins, wherever it was said and in whatever order it comes here;
	 * a lifting and a ban of the same second: the lifting (so that a node that missed it and
	 * puts the ban back as it rejoins does not revive it). */
	old = ban_get(&s->bans, b.kind, b.target);
	if (old && (old->created > b.created || (!lifted && old->created == b.created && old->expires == b.expires &&
	                                         strcmp(old->reason, b.reason) == 0)))
		return;
	if (lifted) {
		if (old == NULL)
			return;
		ban_remove(&s->bans, b.kind, b.target);
		server__log(s, "cluster: %s %s lifted by another node", b.kind == BAN_MUTE ? "mute of" : "ban of", b.target);
		/* A store of this node's own (SQLite) keeps the cluster's word too, for its restart; a
		 * shared one (PostgreSQL) has it from the node that lifted it. */
		if (s->store && !s->bans_shared)
			store_ban_del(s->store, b.kind, b.target, on_written, s);
		return;
	}
	if (b.expires && b.expires <= now)
		return;
	if (ban_add(&s->bans, &b) != 0) {
		server__event(s, LOG_ERR, NULL, NULL, "cluster: another node's %s %s not applied: more than %d bans and mutes",
		              b.kind == BAN_MUTE ? "mute of" : "ban of", b.target, BAN_MAX);
		return;
	}
	ban_line(&b, now, shown, sizeof shown);
	server__log(s, "cluster: %s %s, from another node", b.kind == BAN_MUTE ? "mute" : "ban", shown);
	if (s->store && !s->bans_shared)
		store_ban_put(s->store, &b, on_written, s);
	if (b.kind != BAN_MUTE)
		s->mod_apply_due = true;
}

/* ---- the admin commands (admin.c's table) ---- */

/* `bans` lists this many at most: some 200 bytes a line, well under half of ADMIN_QUEUE_MAX. */
#define BANS_SHOWN 2000

const char *
moderate__cmd_ban(struct server *s, int verb, const char *args, struct metrics_buf *out, char *why, size_t whylen)
{
	struct ban b;
	char line[BAN_TARGET_MAX + BAN_REASON_MAX + 160];
	int64_t now = moderate__now();

	if (!ban_parse(verb, args, now, &b, why, whylen))
		return why;
	if (verb == BAN_VERB_BAN || verb == BAN_VERB_MUTE) {
		if (ban_add(&s->bans, &b) != 0) {
			snprintf(why, whylen, "more than %d bans and mutes: unban some first", BAN_MAX);
			return why;
		}
		ban_line(&b, now, line, sizeof line);
		server__log(s, "admin: %s %s", verb == BAN_VERB_BAN ? "ban" : "mute", line);
		metrics_buf_printf(out, "%s\n", line);
		record(s, s->store ? store_ban_put(s->store, &b, on_written, s) : NULL, out);
		publish(s, &b, false, now);
		if (verb == BAN_VERB_BAN)
		{
			unsigned n = apply(s);
			metrics_buf_printf(out, "%u connection%s dropped\n", n, n == 1 ? "" : "s");
		}
		return NULL;
	}
	/* In a cluster the lifting goes to the other nodes whether this one held it or not (it may have
	 * been away when the ban was said). */
	publish(s, &b, true, now);
	if (!ban_remove(&s->bans, b.kind, b.target)) {
		if (s->store) /* it may be in the file still, say an expired one: gone from there too */
			store_ban_del(s->store, b.kind, b.target, NULL, NULL);
		if (s->cluster) {
			metrics_buf_printf(out, "no %s %s here; lifted on the cluster's other nodes\n",
			                   b.kind == BAN_MUTE ? "mute of" : "ban of", b.target);
			return NULL;
		}
		snprintf(why, whylen, "no %s %s", b.kind == BAN_MUTE ? "mute of" : "ban of", b.target);
		return why;
	}
	server__log(s, "admin: %s %s", verb == BAN_VERB_UNBAN ? "unban" : "unmute", b.target);
	metrics_buf_printf(out, "%s %s lifted\n", b.kind == BAN_MUTE ? "mute of" : "ban of", b.target);
	record(s, s->store ? store_ban_del(s->store, b.kind, b.target, on_written, s) : NULL, out);
	return NULL;
}

const char *
moderate__cmd_bans(struct server *s, const char *args, struct metrics_buf *out)
{
	int64_t now = moderate__now();
	char line[BAN_TARGET_MAX + BAN_REASON_MAX + 160];
	unsigned n = 0;

	if (args[0])
		return "bans takes no arguments";
	ban_prune(&s->bans, now);
	/* Kinds in order (key, name, addr, mute), each as set; at most BANS_SHOWN lines, so that
	 * the answer stays within what an admin client may be sent (admin.h, ADMIN_QUEUE_MAX). */
	for (int k = 0; k < BAN_KINDS; k++)
		for (unsigned i = 0; i < s->bans.n; i++)
			if (s->bans.v[i].kind == k && n++ < BANS_SHOWN) {
				ban_line(&s->bans.v[i], now, line, sizeof line);
				metrics_buf_printf(out, "%s\n", line);
			}
	if (n == 0)
		metrics_buf_printf(out, "no bans and no mutes\n");
	else if (n > BANS_SHOWN)
		metrics_buf_printf(out, "... and %u more: the store's tables hold them all (sqlite3 FILE)\n", n - BANS_SHOWN);
	return NULL;
}

const char *
moderate__cmd_free_name(struct server *s, const char *args, struct metrics_buf *out, char *why, size_t whylen)
{
	struct ban b;

	if (!ban_target(BAN_NAME, args, &b, why, whylen)) {
		if (args[0] == '\0')
			snprintf(why, whylen, "usage: free-name NAME");
		return why;
	}
	if (s->store == NULL)
		return "this server has no store: names are not owned, there is nothing to free";
	if (store_free_name_async(s->store, b.target, on_freed, s) == NULL)
		return "out of memory";
	server__log(s, "admin: free-name %s", b.target);
	/* Written in order before any later claim: the next key to use the name gets it. */
	metrics_buf_printf(out, "name '%s' is free for the next key that uses it\n", b.target);
	return NULL;
}
