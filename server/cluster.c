/* SPDX-License-Identifier: MIT */
/* cluster: several server nodes sharing one Redis (--redis): node liveness, the room directory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <arpa/inet.h>
#include <sodium.h>

#include "cluster.h"

int
cluster_parse_url(const char *url, char *host, size_t hostlen, int *port, char *why, size_t whylen)
{
	const char *p = url, *colon;
	unsigned char probe[16];

	if (strncmp(p, "redis://", 8) == 0)
		p += 8;
	/* An IPv6 address in brackets, or an IPv4 address, then :PORT. */
	const char *h = p, *he;
	if (*p == '[') {
		h = p + 1;
		if ((he = strchr(h, ']')) == NULL || he[1] != ':') {
			snprintf(why, whylen, "--redis %s: give redis://[IPV6]:PORT", url);
			return -1;
		}
		colon = he + 1;
	} else {
		if ((colon = strrchr(p, ':')) == NULL) {
			snprintf(why, whylen, "--redis %s: give redis://HOST:PORT", url);
			return -1;
		}
		he = colon;
	}
	if ((size_t)(he - h) >= hostlen || he == h) {
		snprintf(why, whylen, "--redis %s: the host is empty or too long", url);
		return -1;
	}
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	/* An address, not a name: a name would be looked up by hiredis on the loop, which it would stop. */
	if (inet_pton(AF_INET, host, probe) != 1 && inet_pton(AF_INET6, host, probe) != 1) {
		snprintf(why, whylen, "--redis %s: the host must be an IP address (names are not looked up)", url);
		return -1;
	}
	char *end;
	long v = strtol(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || v < 1 || v > 65535) {
		snprintf(why, whylen, "--redis %s: the port must be 1 to 65535", url);
		return -1;
	}
	*port = (int)v;
	return 0;
}

#if WW_HAVE_REDIS

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

/* What Redis holds (docs/server.md, "A cluster"):
 *   wizwar:rooms       a hash, room code -> id of the node holding it (for a node that starts late)
 *   wizwar:events      a channel: "beat ID HOST PORT KEYHEX ROOMS", "room ID CODE", "gone ID CODE"
 *   wizwar:tlog:CODE   a stream per duel being played: its turn log, one entry (field t) a batch
 * and, on the channel, "open ID " then a ROOMS payload (proto/wire.c, decoded as strictly as a
 * client's): the node's public rooms waiting for a player, with every beat.
 * Every node caches the directory and the other nodes' open rooms from the hash and the channel,
 * so that routing a join or answering ROOMS asks nothing of Redis on the way. */
#define KEY_ROOMS "wizwar:rooms"
#define CHANNEL "wizwar:events"
#define KEY_TLOG "wizwar:tlog:"
#define TLOG_TTL_S 86400 /* a stream nobody took over (the whole cluster gone) does not stay for ever */

/* A dead node's room, claimed atomically: exactly one node finds the room still the dead node's in
 * the hash, makes it its own and gets the stream; every other node gets nil. A room with no stream
 * (waiting in its lobby: nothing to resume) leaves the directory instead. */
static const char claim_lua[] =
	"if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return false end "
	"local s = redis.call('XRANGE', KEYS[2], '-', '+') "
	"if #s == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) return false end "
	"redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) "
	"return s";

/* Another node's public open rooms, as its last "open" said (published with every beat: a node
 * that starts late, or a Redis come back, has every list within a beat, and no key to clean up). */
struct open_list {
	char id[CLUSTER_ID_LEN + 1];  /* "": a free slot (or its node is gone) */
	uint64_t at;                  /* loop ms it came */
	struct wire_rooms rooms;
};

struct entry {
	struct entry *next;
	char code[PROTO_ROOM_BYTES + 1];
	char node[CLUSTER_ID_LEN + 1]; /* "" while its dead node's room is being claimed */
	uint64_t pending;              /* ... since then (loop ms) */
};

#define BUCKETS 4096

struct cluster {
	uv_loop_t *loop;
	struct cluster_config cfg;
	char host[64];
	int port;
	char self_host[CLUSTER_HOST_MAX + 1];
	char self_id[CLUSTER_ID_LEN + 1];
	char keyhex[PROTO_KEY_LEN * 2 + 1];
	redisAsyncContext *cmd, *sub; /* one for commands, one subscribed to the channel */
	bool cmd_up, sub_conn, sub_up, stopping;
	uint64_t cmd_since, sub_since; /* when the connection attempt in flight began */
	uv_timer_t beat;              /* ticks: beats, liveness, reconnection */
	uint64_t last_beat;           /* when this node last said it is alive */
	uint64_t down_said;           /* when "Redis unreachable" was last logged */
	struct cluster_node nodes[CLUSTER_NODES_MAX];
	unsigned nnodes;
	bool too_many_said;
	bool changed;                 /* a node joined: cfg.changed is due */
	struct entry *rooms[BUCKETS]; /* the directory, by code; keyed SipHash: codes come from peers */
	uint8_t hkey[crypto_shorthash_KEYBYTES];
	struct open_list open[CLUSTER_NODES_MAX]; /* slots of the other nodes' open rooms */
	struct wire_msg scratch;      /* an open list encoded or decoded (27 KiB: off the stack) */
	uint8_t openbuf[sizeof "open " + CLUSTER_ID_LEN + WIRE_ROOMS_BYTES];
	bool bad_open_said;
	void (*done)(void *ud);
	void *done_ud;
};

static void __attribute__((format(printf, 3, 4)))
say(struct cluster *c, int level, const char *fmt, ...)
{
	char line[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (c->cfg.say)
		c->cfg.say(c->cfg.ud, level, line);
}

/* The directory. */

static struct entry **
bucket(const struct cluster *c, const char *code)
{
	uint8_t h[crypto_shorthash_BYTES];
	uint32_t v;

	crypto_shorthash(h, (const unsigned char *)code, strlen(code), c->hkey);
	memcpy(&v, h, sizeof v);
	return (struct entry **)&c->rooms[v % BUCKETS];
}

static struct entry *
dir_find(const struct cluster *c, const char *code)
{
	for (struct entry *e = *bucket(c, code); e; e = e->next)
		if (strcmp(e->code, code) == 0)
			return e;
	return NULL;
}

static void
dir_set(struct cluster *c, const char *code, const char *node)
{
	struct entry *e = dir_find(c, code);

	if (e == NULL) {
		if ((e = calloc(1, sizeof *e)) == NULL)
			return; /* not routed to: a client asking there is told the room is unknown */
		snprintf(e->code, sizeof e->code, "%s", code);
		struct entry **b = bucket(c, code);
		e->next = *b;
		*b = e;
	}
	snprintf(e->node, sizeof e->node, "%s", node);
	e->pending = 0;
}

static void
dir_del(struct cluster *c, const char *code, const char *node)
{
	for (struct entry **p = bucket(c, code); *p; p = &(*p)->next) {
		if (strcmp((*p)->code, code) == 0) {
			if (node && strcmp((*p)->node, node) != 0)
				return; /* moved since: the newer owner's entry stays */
			struct entry *e = *p;
			*p = e->next;
			free(e);
			return;
		}
	}
}

/* Each entry of node `node` (every entry: NULL), with cb(c, e) before it is removed or kept. */
static void
dir_each(struct cluster *c, const char *node, bool remove, void (*cb)(struct cluster *, struct entry *))
{
	for (size_t i = 0; i < BUCKETS; i++) {
		for (struct entry **p = &c->rooms[i]; *p;) {
			struct entry *e = *p;
			if (node && strcmp(e->node, node) != 0) {
				p = &e->next;
				continue;
			}
			if (cb)
				cb(c, e);
			if (remove) {
				*p = e->next;
				free(e);
			} else {
				p = &e->next;
			}
		}
	}
}

/* Checks on what Redis says: a node trusts Redis (docs/server.md), but a value that is not what a
 * node writes is ignored rather than used. */
static bool
valid_code(const char *s, size_t n)
{
	if (n == 0 || n > PROTO_ROOM_BYTES)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		      ch == '_'))
			return false;
	}
	return true;
}

static bool
valid_id(const char *s, size_t n)
{
	if (n != CLUSTER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

static bool
valid_host(const char *s, size_t n)
{
	unsigned char a[16];

	return n > 0 && n <= CLUSTER_HOST_MAX && (inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1);
}

/* Nodes. */

static struct cluster_node *
node_find(struct cluster *c, const char *id)
{
	for (unsigned i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].id, id) == 0)
			return &c->nodes[i];
	return NULL;
}

static bool
node_alive(const struct cluster *c, const struct cluster_node *n)
{
	return uv_now(c->loop) - n->heard < CLUSTER_DEAD_MS;
}

static void
on_beat_msg(struct cluster *c, char *rest)
{
	char *f[5], *save = NULL;
	int i = 0;

	for (char *t = strtok_r(rest, " ", &save); t && i < 5; t = strtok_r(NULL, " ", &save))
		f[i++] = t;
	if (i != 5 || strtok_r(NULL, " ", &save) != NULL)
		return;
	char *end;
	long port = strtol(f[2], &end, 10);
	if (*end || port < 1 || port > 65535)
		return;
	unsigned long rooms = strtoul(f[4], &end, 10);
	if (*end || f[4][0] == '-' || rooms > 10000000)
		return;
	uint8_t key[PROTO_KEY_LEN];
	size_t klen;
	if (!valid_id(f[0], strlen(f[0])) || !valid_host(f[1], strlen(f[1])) || strlen(f[3]) != PROTO_KEY_LEN * 2 ||
	    sodium_hex2bin(key, sizeof key, f[3], strlen(f[3]), NULL, &klen, NULL) != 0 || klen != sizeof key)
		return;
	struct cluster_node *n = node_find(c, f[0]);
	if (n == NULL) {
		if (c->nnodes == CLUSTER_NODES_MAX) {
			if (!c->too_many_said)
				say(c, LOG_WARNING, "cluster: more than %d nodes: node %s is not routed to", CLUSTER_NODES_MAX, f[0]);
			c->too_many_said = true;
			return;
		}
		n = &c->nodes[c->nnodes++];
		memset(n, 0, sizeof *n);
		snprintf(n->id, sizeof n->id, "%s", f[0]);
		if (strcmp(n->id, c->self_id) != 0)
			say(c, LOG_NOTICE, "cluster: node %s at %s port %ld joined", n->id, f[1], port);
		c->changed = true; /* told once the node's fields are in */
	}
	snprintf(n->host, sizeof n->host, "%s", f[1]);
	n->port = (int)port;
	memcpy(n->key, key, sizeof key);
	n->rooms = (unsigned)rooms;
	n->heard = uv_now(c->loop);
	if (c->changed && c->cfg.changed) {
		c->changed = false;
		c->cfg.changed(c->cfg.ud);
	}
}

/* The slot of node `id`'s open rooms: its own, else a free one or one whose node is gone. */
static struct open_list *
open_slot(struct cluster *c, const char *id)
{
	struct open_list *free_slot = NULL;

	for (unsigned i = 0; i < CLUSTER_NODES_MAX; i++) {
		struct open_list *o = &c->open[i];
		if (strcmp(o->id, id) == 0)
			return o;
		if (free_slot == NULL && (o->id[0] == '\0' || node_find(c, o->id) == NULL))
			free_slot = o;
	}
	return free_slot;
}

/* "open ID PAYLOAD": a known node's open rooms, PAYLOAD a ROOMS payload, decoded by the same strict,
 * bounded, fuzzed decoder as a client's (proto/wire.c): a Redis value that is not what a node
 * writes is dropped, said once. */
static void
on_open(struct cluster *c, const uint8_t *p, size_t n)
{
	char id[CLUSTER_ID_LEN + 1];
	struct proto_err err;
	struct open_list *o;

	if (n < CLUSTER_ID_LEN + 1 || p[CLUSTER_ID_LEN] != ' ' || !valid_id((const char *)p, CLUSTER_ID_LEN))
		return;
	memcpy(id, p, CLUSTER_ID_LEN);
	id[CLUSTER_ID_LEN] = '\0';
	/* Only a node whose beat came (so at most CLUSTER_NODES_MAX lists): a node's beat goes out
	 * before its first list, on the same connection. This node's own rooms are listed from here. */
	if (strcmp(id, c->self_id) == 0 || node_find(c, id) == NULL)
		return;
	p += CLUSTER_ID_LEN + 1;
	n -= CLUSTER_ID_LEN + 1;
	if (n > WIRE_ROOMS_BYTES || wire_decode(WIRE_ROOMS, p, n, &c->scratch, &err) != 0) {
		if (!c->bad_open_said)
			say(c, LOG_WARNING, "cluster: node %s's open rooms are not what a node writes: ignored (%s)", id,
			    n > WIRE_ROOMS_BYTES ? "too long" : err.why);
		c->bad_open_said = true;
		return;
	}
	if ((o = open_slot(c, id)) == NULL)
		return;
	snprintf(o->id, sizeof o->id, "%s", id);
	o->rooms = c->scratch.u.rooms;
	o->at = uv_now(c->loop);
}

/* One message on the channel: "beat ...", "room ID CODE", "gone ID CODE", "open ID ROOMS". */
static void
on_event(struct cluster *c, const char *s, size_t n)
{
	char buf[256], id[CLUSTER_ID_LEN + 1], code[PROTO_ROOM_BYTES + 1];

	if (n > 5 && memcmp(s, "open ", 5) == 0) { /* binary, and longer than the others */
		on_open(c, (const uint8_t *)s + 5, n - 5);
		return;
	}
	if (n >= sizeof buf || memchr(s, '\0', n))
		return;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strncmp(buf, "beat ", 5) == 0) {
		on_beat_msg(c, buf + 5);
		return;
	}
	bool add = strncmp(buf, "room ", 5) == 0;
	if (!add && strncmp(buf, "gone ", 5) != 0)
		return;
	const char *p = buf + 5, *sp = strchr(p, ' ');
	if (sp == NULL || !valid_id(p, (size_t)(sp - p)) || !valid_code(sp + 1, strlen(sp + 1)))
		return;
	memcpy(id, p, CLUSTER_ID_LEN);
	id[CLUSTER_ID_LEN] = '\0';
	snprintf(code, sizeof code, "%s", sp + 1);
	if (strcmp(id, c->self_id) == 0)
		return; /* this node's own rooms are set where they are made */
	if (add)
		dir_set(c, code, id);
	else
		dir_del(c, code, id);
}

/* Redis. */

static void connect_both(struct cluster *c);

static void
on_sub_reply(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data; /* NULL once stopped: a reply may come after */
	redisReply *reply = r;

	(void)ud;
	if (c == NULL || reply == NULL || reply->type != REDIS_REPLY_ARRAY || reply->elements != 3)
		return;
	redisReply **e = reply->element;
	if (e[0]->type == REDIS_REPLY_STRING && strcmp(e[0]->str, "message") == 0 && e[2]->type == REDIS_REPLY_STRING)
		on_event(c, e[2]->str, e[2]->len);
	else if (e[0]->type == REDIS_REPLY_STRING && strcmp(e[0]->str, "subscribe") == 0)
		c->sub_up = true;
}

/* The hash's entries, read once Redis answers (a node that starts late, or Redis come back). */
static void
on_rooms_read(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data; /* NULL once stopped: a reply may come after */
	redisReply *reply = r;

	(void)ud;
	if (c == NULL || reply == NULL || reply->type != REDIS_REPLY_ARRAY)
		return;
	for (size_t i = 0; i + 1 < reply->elements; i += 2) {
		redisReply *k = reply->element[i], *v = reply->element[i + 1];
		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING || !valid_code(k->str, k->len) ||
		    !valid_id(v->str, v->len) || strcmp(v->str, c->self_id) == 0)
			continue;
		dir_set(c, k->str, v->str);
	}
}

static void
ignore_reply(redisAsyncContext *ac, void *r, void *ud)
{
	(void)ac;
	(void)r;
	(void)ud;
}

static void
publish_room(struct cluster *c, struct entry *e)
{
	char msg[96];

	snprintf(msg, sizeof msg, "room %s %s", c->self_id, e->code);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "HSET %s %s %s", KEY_ROOMS, e->code, c->self_id);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
}

/* This node's open rooms, after every beat: a list that is empty is said too (its rooms went). */
static void
publish_open(struct cluster *c)
{
	struct proto_err err;
	size_t len;
	int head;

	if (c->cfg.open_rooms == NULL)
		return;
	head = snprintf((char *)c->openbuf, sizeof c->openbuf, "open %s ", c->self_id);
	memset(&c->scratch, 0, sizeof c->scratch.type + sizeof c->scratch.u.rooms);
	c->scratch.type = WIRE_ROOMS;
	c->cfg.open_rooms(c->cfg.ud, &c->scratch.u.rooms);
	if (wire_encode(&c->scratch, c->openbuf + head, sizeof c->openbuf - (size_t)head, &len, &err) != 0) {
		say(c, LOG_ERR, "cluster: this node's open rooms cannot be published: %s", err.why);
		return;
	}
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %b", CHANNEL, c->openbuf, (size_t)head + len);
}

static void
send_beat(struct cluster *c)
{
	unsigned load = c->cfg.load ? c->cfg.load(c->cfg.ud) : 0;
	char msg[256];

	snprintf(msg, sizeof msg, "beat %s %s %d %s %u", c->self_id, c->self_host, c->cfg.port, c->keyhex, load);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
	publish_open(c);
}

static void
on_cmd_connected(const redisAsyncContext *ac, int status)
{
	struct cluster *c = ac->data;

	if (c == NULL)
		return; /* stopped meanwhile */
	if (status != REDIS_OK) {
		c->cmd = NULL; /* hiredis frees a context whose connection failed */
		return;
	}
	c->cmd_up = true;
	say(c, LOG_NOTICE, "cluster: Redis %s port %d answers", c->host, c->port);
	/* Redis may have come back empty (no persistence): this node's rooms are said again. */
	dir_each(c, c->self_id, false, publish_room);
	redisAsyncCommand(c->cmd, on_rooms_read, c, "HGETALL %s", KEY_ROOMS);
	send_beat(c);
}

static void stop_check(struct cluster *c);

static void
on_cmd_disconnected(const redisAsyncContext *ac, int status)
{
	struct cluster *c = ac->data;

	(void)status;
	if (c == NULL)
		return;
	c->cmd = NULL;
	if (c->stopping) {
		c->cmd_up = false;
		stop_check(c);
		return;
	}
	if (c->cmd_up && !c->stopping)
		say(c, LOG_WARNING, "cluster: Redis %s port %d lost: duels here go on; joins routed elsewhere are refused until it is back",
		    c->host, c->port);
	c->cmd_up = false;
}

static void
on_sub_connected(const redisAsyncContext *ac, int status)
{
	struct cluster *c = ac->data;

	if (c == NULL)
		return;
	if (status != REDIS_OK) {
		c->sub = NULL;
		return;
	}
	c->sub_conn = true;
	redisAsyncCommand(c->sub, on_sub_reply, c, "SUBSCRIBE %s", CHANNEL);
}

static void
on_sub_disconnected(const redisAsyncContext *ac, int status)
{
	struct cluster *c = ac->data;

	(void)status;
	if (c == NULL)
		return;
	c->sub = NULL;
	c->sub_up = c->sub_conn = false;
	if (c->stopping)
		stop_check(c);
}

static redisAsyncContext *
connect_one(struct cluster *c, redisConnectCallback *on_conn, redisDisconnectCallback *on_disc)
{
	redisAsyncContext *ac = redisAsyncConnect(c->host, c->port);

	if (ac == NULL)
		return NULL;
	if (ac->err) {
		redisAsyncFree(ac);
		return NULL;
	}
	ac->data = c;
	if (redisLibuvAttach(ac, c->loop) != REDIS_OK) {
		redisAsyncFree(ac);
		return NULL;
	}
	redisAsyncSetConnectCallback(ac, on_conn);
	redisAsyncSetDisconnectCallback(ac, on_disc);
	return ac;
}

static void drop_context(redisAsyncContext **p);

/* Connect what is not connected. An attempt still in flight after two beats is given up and made
 * again: a refused connection is not always reported through the adapter's poll. */
static void
connect_both(struct cluster *c)
{
	uint64_t now = uv_now(c->loop);

	if (c->cmd && !c->cmd_up && now - c->cmd_since >= 2 * CLUSTER_BEAT_MS)
		drop_context(&c->cmd);
	if (c->sub && !c->sub_conn && now - c->sub_since >= 2 * CLUSTER_BEAT_MS)
		drop_context(&c->sub);
	if (c->cmd == NULL) {
		c->cmd = connect_one(c, on_cmd_connected, on_cmd_disconnected);
		c->cmd_since = now;
	}
	if (c->sub == NULL) {
		c->sub = connect_one(c, on_sub_connected, on_sub_disconnected);
		c->sub_since = now;
	}
}

static void
forget_entry(struct cluster *c, struct entry *e)
{
	if (c->cmd_up)
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "HDEL %s %s", KEY_ROOMS, e->code);
}

void cluster_room_gone(struct cluster *c, const char *code);

/* A claim in flight: the reply names neither room nor node. */
struct claim {
	struct cluster *c;
	char code[PROTO_ROOM_BYTES + 1];
};

/* The claim's answer: nil (another node took it, or it had no duel), or the stream's entries, each
 * [id, [field, value, ...]]; the values of field t, in order, are the log. Every reply is freed
 * here, the NULL one that a context freed with the claim in flight gives too. */
static void
on_claimed(redisAsyncContext *ac, void *r, void *ud)
{
	struct claim *cl = ud;
	struct cluster *c = ac->data ? cl->c : NULL;
	redisReply *reply = r;
	char *text = NULL;
	size_t len = 0;
	bool bad = false;

	/* Stopping: the server is closing its rooms, and takes none; the room stays this node's in the
	 * hash, and its stream stays, until this node's beats stop and another claims it. */
	if (c == NULL || c->stopping || reply == NULL || reply->type != REDIS_REPLY_ARRAY) {
		free(cl);
		return;
	}
	for (size_t i = 0; i < reply->elements && !bad; i++) {
		redisReply *e = reply->element[i];
		if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[1]->type != REDIS_REPLY_ARRAY) {
			bad = true;
			break;
		}
		redisReply *f = e->element[1];
		for (size_t k = 0; k + 1 < f->elements; k += 2) {
			redisReply *v = f->element[k + 1];
			if (f->element[k]->type != REDIS_REPLY_STRING || strcmp(f->element[k]->str, "t") != 0)
				continue;
			if (v->type != REDIS_REPLY_STRING || len + v->len > CLUSTER_TLOG_MAX) {
				bad = true;
				break;
			}
			char *nt = realloc(text, len + v->len + 1);
			if (nt == NULL) {
				bad = true;
				break;
			}
			text = nt;
			memcpy(text + len, v->str, v->len);
			len += v->len;
			text[len] = '\0';
		}
	}
	if (bad || text == NULL) {
		say(c, LOG_ERR, "cluster: room %s claimed, but its turn log in Redis is not one a node writes: not taken over",
		    cl->code);
		cluster_room_gone(c, cl->code);
	} else if (c->cfg.takeover(c->cfg.ud, cl->code, text, len) != 0) {
		cluster_room_gone(c, cl->code); /* said by the server */
	}
	free(text);
	free(cl);
}

/* The dead node's room: claimed (the first live node to ask takes it over), or, with nobody here to
 * take it (no takeover: no log directory), forgotten as before. Until the claim is settled the room
 * is moving: a player resuming into it comes back in a moment. */
static void
claim_entry(struct cluster *c, struct entry *e)
{
	struct claim *cl;
	char key[sizeof KEY_TLOG + PROTO_ROOM_BYTES];

	/* A node that takes nothing over leaves the hash to those that do: its HDEL could come before
	 * their claim, which would then find the room nobody's. */
	if (c->cfg.takeover == NULL || (cl = calloc(1, sizeof *cl)) == NULL) {
		e->node[0] = '\0';
		e->pending = uv_now(c->loop);
		return;
	}
	cl->c = c;
	snprintf(cl->code, sizeof cl->code, "%s", e->code);
	snprintf(key, sizeof key, KEY_TLOG "%s", e->code);
	if (redisAsyncCommand(c->cmd, on_claimed, cl, "EVAL %s 2 %s %s %s %s %s", claim_lua, KEY_ROOMS, key, e->code,
	                      e->node, c->self_id) != REDIS_OK)
		free(cl);
	e->node[0] = '\0';
	e->pending = uv_now(c->loop);
}


static void
drop_context(redisAsyncContext **p)
{
	redisAsyncContext *ac = *p;

	*p = NULL;
	if (ac) {
		ac->data = NULL; /* its callbacks, run by the free, see no cluster */
		redisAsyncFree(ac);
	}
}

/* Rooms whose claim did not make them anyone's (a lobby's, or the winner's news lost): gone. */
static bool
pending_expired(const struct cluster *c, const struct entry *e)
{
	return e->node[0] == '\0' && uv_now(c->loop) - e->pending >= CLUSTER_DEAD_MS;
}

static void
sweep_pending(struct cluster *c)
{
	for (size_t i = 0; i < BUCKETS; i++)
		for (struct entry **p = &c->rooms[i]; *p;) {
			struct entry *e = *p;
			if (pending_expired(c, e)) {
				*p = e->next;
				free(e);
			} else {
				p = &e->next;
			}
		}
}

static void
on_beat(uv_timer_t *t)
{
	struct cluster *c = t->data;

	if (c->stopping) { /* the deadline of cluster_stop: Redis did not take our last words in time */
		drop_context(&c->cmd);
		drop_context(&c->sub);
		stop_check(c);
		return;
	}
	if (!c->cmd_up || !c->sub_up) {
		if (uv_now(c->loop) - c->down_said >= 30000 && !(c->cmd_up && !c->sub_up)) {
			c->down_said = uv_now(c->loop);
			say(c, LOG_WARNING, "cluster: Redis %s port %d does not answer: trying again every second", c->host,
			    c->port);
		}
		connect_both(c);
		if (!c->cmd_up)
			return;
	}
	if (uv_now(c->loop) - c->last_beat >= CLUSTER_BEAT_MS - CLUSTER_TICK_MS / 2) {
		c->last_beat = uv_now(c->loop);
		send_beat(c);
	}
	/* A node not heard from is gone: its rooms are claimed by the live nodes (the first to ask takes
	 * each over from its stream: claim_entry), a room without a duel leaves the directory. Looked at
	 * every tick, so that a takeover starts within CLUSTER_TICK_MS of CLUSTER_DEAD_MS. */
	for (unsigned i = 0; i < c->nnodes;) {
		struct cluster_node *n = &c->nodes[i];
		if (strcmp(n->id, c->self_id) != 0 && !node_alive(c, n)) {
			say(c, LOG_NOTICE, "cluster: node %s at %s port %d not heard from for %d ms: its rooms are taken over or forgotten",
			    n->id, n->host, n->port, CLUSTER_DEAD_MS);
			dir_each(c, n->id, false, claim_entry);
			c->nodes[i] = c->nodes[--c->nnodes];
			c->changed = true;
			continue;
		}
		i++;
	}
	sweep_pending(c);
	if (c->changed && c->cfg.changed) {
		c->changed = false;
		c->cfg.changed(c->cfg.ud);
	}
}

struct cluster *
cluster_start(uv_loop_t *loop, const struct cluster_config *cfg, char *why, size_t whylen)
{
	struct cluster *c;

	unsigned char probe[16];
	if (strlen(cfg->id) != CLUSTER_ID_LEN || strlen(cfg->host) > CLUSTER_HOST_MAX ||
	    (inet_pton(AF_INET, cfg->host, probe) != 1 && inet_pton(AF_INET6, cfg->host, probe) != 1)) {
		snprintf(why, whylen, "--cluster-host %s: give the IP address clients reach this node at (a name is not "
		         "sent: clients would have to look it up)", cfg->host);
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (cluster_parse_url(cfg->url, c->host, sizeof c->host, &c->port, why, whylen) != 0) {
		free(c);
		return NULL;
	}
	c->loop = loop;
	c->cfg = *cfg;
	snprintf(c->self_host, sizeof c->self_host, "%s", cfg->host);
	snprintf(c->self_id, sizeof c->self_id, "%s", cfg->id);
	sodium_bin2hex(c->keyhex, sizeof c->keyhex, cfg->key, PROTO_KEY_LEN);
	randombytes_buf(c->hkey, sizeof c->hkey);
	uv_timer_init(loop, &c->beat);
	c->beat.data = c;
	uv_timer_start(&c->beat, on_beat, CLUSTER_TICK_MS, CLUSTER_TICK_MS);
	connect_both(c);
	return c;
}

static void
on_beat_closed(uv_handle_t *h)
{
	struct cluster *c = h->data;
	void (*done)(void *) = c->done;
	void *ud = c->done_ud;

	dir_each(c, NULL, true, NULL);
	free(c);
	if (done)
		done(ud);
}

/* Stopped once both connections are gone: the struct goes with the timer. */
static void
stop_check(struct cluster *c)
{
	if (c->cmd == NULL && c->sub == NULL && !uv_is_closing((uv_handle_t *)&c->beat)) {
		uv_timer_stop(&c->beat);
		uv_close((uv_handle_t *)&c->beat, on_beat_closed);
	}
}

void
cluster_stop(struct cluster *c, void (*done)(void *ud), void *ud)
{
	c->stopping = true;
	c->done = done;
	c->done_ud = ud;
	/* This node's rooms leave the directory (its players are told it stops; nobody else should be
	 * sent here): queued before the disconnect, which waits for their replies. A Redis that does
	 * not answer within the deadline is left (the others forget this node's rooms anyway, when its
	 * beats stop). */
	if (c->cmd_up) {
		dir_each(c, c->self_id, false, forget_entry);
		redisAsyncDisconnect(c->cmd);
	} else {
		drop_context(&c->cmd);
	}
	if (c->sub_conn)
		redisAsyncDisconnect(c->sub);
	else
		drop_context(&c->sub);
	uv_timer_start(&c->beat, on_beat, 1000, 0);
	stop_check(c);
}

bool
cluster_up(const struct cluster *c)
{
	return c->cmd_up && c->sub_up;
}

void
cluster_room_added(struct cluster *c, const char *code)
{
	dir_set(c, code, c->self_id);
	struct entry *e = dir_find(c, code);
	if (e && c->cmd_up)
		publish_room(c, e);
}

void
cluster_room_gone(struct cluster *c, const char *code)
{
	dir_del(c, code, c->self_id);
	if (c->cmd_up) {
		char msg[96];

		snprintf(msg, sizeof msg, "gone %s %s", c->self_id, code);
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "HDEL %s %s", KEY_ROOMS, code);
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
	}
}

const struct cluster_node *
cluster_room_node(const struct cluster *c, const char *code)
{
	const struct entry *e = dir_find(c, code);

	if (e == NULL || strcmp(e->node, c->self_id) == 0)
		return NULL;
	for (unsigned i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].id, e->node) == 0)
			return node_alive(c, &c->nodes[i]) ? &c->nodes[i] : NULL;
	return NULL;
}

bool
cluster_room_moving(const struct cluster *c, const char *code)
{
	const struct entry *e = dir_find(c, code);

	if (e == NULL || strcmp(e->node, c->self_id) == 0)
		return false;
	if (e->node[0] == '\0')
		return !pending_expired(c, e);
	for (unsigned i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].id, e->node) == 0)
			return uv_now(c->loop) - c->nodes[i].heard >= CLUSTER_STALE_MS;
	return false;
}

bool
cluster_tlog(struct cluster *c, const char *code, const char *text, size_t len, bool whole)
{
	char key[sizeof KEY_TLOG + PROTO_ROOM_BYTES];

	if (!c->cmd_up)
		return false;
	snprintf(key, sizeof key, KEY_TLOG "%s", code);
	/* Queued in hiredis's buffer, written when the loop next polls the socket: one XADD for the
	 * batch of lines the room's log hands the disk in this loop iteration. */
	if (whole)
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "DEL %s", key);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "XADD %s * t %b", key, text, len);
	if (whole)
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "EXPIRE %s %d", key, TLOG_TTL_S);
	return true;
}

void
cluster_flush(struct cluster *c)
{
	/* A non-blocking write of hiredis's buffer (what the adapter does when the socket is writable);
	 * what the socket does not take now waits for the poll as before. */
	if (c->cmd_up && c->cmd)
		redisAsyncHandleWrite(c->cmd);
}

void
cluster_tlog_end(struct cluster *c, const char *code)
{
	if (c->cmd_up)
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "DEL " KEY_TLOG "%s", code);
}

unsigned
cluster_list(const struct cluster *c, struct cluster_node *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nnodes && n < max; i++)
		if (node_alive(c, &c->nodes[i]) && uv_now(c->loop) - c->nodes[i].heard < CLUSTER_STALE_MS)
			out[n++] = c->nodes[i];
	return n;
}

const struct cluster_node *
cluster_least_loaded(const struct cluster *c, unsigned mine)
{
	const struct cluster_node *best = NULL;

	for (unsigned i = 0; i < c->nnodes; i++) {
		const struct cluster_node *n = &c->nodes[i];
		if (strcmp(n->id, c->self_id) == 0 || !node_alive(c, n))
			continue;
		if (n->rooms + 1 < mine && (best == NULL || n->rooms < best->rooms))
			best = n;
	}
	return best;
}

/* The node's load is its last beat's, up to a second old: without counting the rooms sent since,
 * two nodes that both get new rooms between beats send each other every one of them, back and
 * forth, and make about two a beat (bench_cluster saw 80 duels take 15 s). Its next beat says
 * the truth again. */
void
cluster_room_sent(struct cluster *c, const struct cluster_node *to)
{
	struct cluster_node *n = node_find(c, to->id);

	if (n)
		n->rooms++;
}

unsigned
cluster_nodes(const struct cluster *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nnodes; i++)
		n += node_alive(c, &c->nodes[i]);
	return n;
}

/* A node that beat lately: one that missed a beat is not listed, nor paired through. */
static bool
node_fresh(const struct cluster *c, const struct cluster_node *n)
{
	return uv_now(c->loop) - n->heard < CLUSTER_STALE_MS;
}

static const struct cluster_node *
node_find_const(const struct cluster *c, const char *id)
{
	for (unsigned i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].id, id) == 0)
			return &c->nodes[i];
	return NULL;
}

unsigned
cluster_open_lists(const struct cluster *c, const struct wire_rooms **lists, uint32_t *age_ms, unsigned max)
{
	unsigned k = 0;

	if (!cluster_up(c))
		return 0;
	for (unsigned i = 0; i < CLUSTER_NODES_MAX && k < max; i++) {
		const struct open_list *o = &c->open[i];
		const struct cluster_node *n;
		if (o->id[0] == '\0' || (n = node_find_const(c, o->id)) == NULL || !node_fresh(c, n))
			continue;
		uint64_t age = uv_now(c->loop) - o->at;
		lists[k] = &o->rooms;
		age_ms[k] = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
		k++;
	}
	return k;
}

const struct cluster_node *
cluster_pairer(const struct cluster *c)
{
	const struct cluster_node *best = NULL;
	const char *min = c->self_id;

	if (!cluster_up(c))
		return NULL;
	for (unsigned i = 0; i < c->nnodes; i++) {
		const struct cluster_node *n = &c->nodes[i];
		if (node_fresh(c, n) && strcmp(n->id, min) < 0) {
			min = n->id;
			best = n;
		}
	}
	return best;
}

#else /* no hiredis: a node alone */

struct cluster {
	int unused;
};

struct cluster *
cluster_start(uv_loop_t *loop, const struct cluster_config *cfg, char *why, size_t whylen)
{
	(void)loop;
	(void)cfg;
	snprintf(why, whylen, "--redis: this wizwar was built without Redis (meson feature redis, hiredis)");
	return NULL;
}

void
cluster_stop(struct cluster *c, void (*done)(void *ud), void *ud)
{
	(void)c;
	if (done)
		done(ud);
}

bool
cluster_up(const struct cluster *c)
{
	(void)c;
	return false;
}

void
cluster_room_added(struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
}

void
cluster_room_gone(struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
}

const struct cluster_node *
cluster_room_node(const struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
	return NULL;
}

const struct cluster_node *
cluster_least_loaded(const struct cluster *c, unsigned mine)
{
	(void)c;
	(void)mine;
	return NULL;
}

void
cluster_room_sent(struct cluster *c, const struct cluster_node *to)
{
	(void)c;
	(void)to;
}

unsigned
cluster_nodes(const struct cluster *c)
{
	(void)c;
	return 0;
}

unsigned
cluster_open_lists(const struct cluster *c, const struct wire_rooms **lists, uint32_t *age_ms, unsigned max)
{
	(void)c;
	(void)lists;
	(void)age_ms;
	(void)max;
	return 0;
}

const struct cluster_node *
cluster_pairer(const struct cluster *c)
{
	(void)c;
	return NULL;
}

bool
cluster_room_moving(const struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
	return false;
}

bool
cluster_tlog(struct cluster *c, const char *code, const char *text, size_t len, bool whole)
{
	(void)c;
	(void)code;
	(void)text;
	(void)len;
	(void)whole;
	return false;
}

void
cluster_tlog_end(struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
}

unsigned
cluster_list(const struct cluster *c, struct cluster_node *out, unsigned max)
{
	(void)c;
	(void)out;
	(void)max;
	return 0;
}

void
cluster_flush(struct cluster *c)
{
	(void)c;
}

#endif
