/* SPDX-License-Identifier: MIT */
/* cluster: several server nodes sharing one Redis (--redis): node liveness, the room directory. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <arpa/inet.h>
#include <sodium.h>

#include "cluster.h"
#include "xmsg.h"

_Static_assert(XMSG_ID_LEN == CLUSTER_ID_LEN && XMSG_HOST_MAX == CLUSTER_HOST_MAX && XMSG_MOD_MAX == CLUSTER_MOD_MAX,
               "xmsg.h's bounds are the cluster's");

int
cluster_parse_url(const char *url, char *host, size_t hostlen, int *port, char *why, size_t whylen)
{
	const char *p = url, *colon;
	unsigned char probe[16];

	if (strncmp(p, "redis://", 8) == 0)
		p += 8;
	if (strchr(p, '@') != NULL) {
		snprintf(why, whylen, "--redis: no password in the URL (every user sees a command line): give it in a file "
		         "with --redis-password-file FILE");
		return -1;
	}
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

/* "ID HOST PORT", the fields of a node's "web" line: xmsg_parse's, for the web port's tests. */
int
cluster_parse_web(const char *s, char id[CLUSTER_ID_LEN + 1], char host[CLUSTER_HOST_MAX + 1], int *port)
{
	char line[XMSG_LINE_MAX];
	struct xmsg m;
	size_t n = strnlen(s, sizeof line - 4);

	if (n == sizeof line - 4)
		return -1;
	memcpy(line, "web ", 4);
	memcpy(line + 4, s, n);
	if (xmsg_parse(line, n + 4, &m) != 0 || m.type != XMSG_WEB)
		return -1;
	memcpy(id, m.id, sizeof m.id);
	memcpy(host, m.host, sizeof m.host);
	*port = m.port;
	return 0;
}

#if WW_HAVE_REDIS

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

/* What Redis holds (docs/server.md, "A cluster"):
 *   wizwar:rooms       a hash, room code -> id of the node holding it (for a node that starts late)
 *   wizwar:events      a channel: "beat ID HOST PORT KEYHEX ROOMS", "room ID CODE", "gone ID CODE",
 *                      "sent ID CODE" (a new room sent to node ID: placed there, cluster_room_place)
 *                      (and "open ID ROOMS", "web ID HOST PORT" after each beat)
 *   wizwar:tlog:CODE   a stream per duel being played: its turn log, one entry (field t) a batch
 *   wizwar:alive:ID    a node's beat, expiring CLUSTER_ALIVE_MS after it: while it lives, no node
 *                      claims that node's rooms (the fence against a node that only stalled)
 *   wizwar:taken:CODE  the node that took room CODE over, for a day: a node restarted with
 *                      --resume leaves that duel alone
 *   wizwar:salt        the cluster's password salt (hex), the first node's
 *   wizwar:bans        a hash: the newest word on each ban or mute target (server/ban.h's lines)
 * and, on the channel, "open ID " then a ROOMS payload (proto/wire.c, decoded as strictly as a
 * client's): the node's public rooms waiting for a player, with every beat; "mod ID LINE": a ban,
 * unban, mute or unmute said on node ID; "make FROM TO CODE SIZE FOV POTIONS TURN": the pairing
 * node asks node TO to make a pair's room.
 * Every node caches the directory and the other nodes' open rooms from the hash and the channel,
 * so that routing a join or answering ROOMS asks nothing of Redis on the way. */
#define KEY_ROOMS "wizwar:rooms"
#define CHANNEL "wizwar:events"
#define KEY_TLOG "wizwar:tlog:"
#define KEY_ALIVE "wizwar:alive:"
#define KEY_TAKEN "wizwar:taken:"
#define TLOG_TTL_S 86400 /* a stream nobody took over (the whole cluster gone) does not stay for ever */

/* A dead node's room, claimed atomically: exactly one node finds the room still the dead node's in
 * the hash, makes it its own and gets the stream; every other node gets nil. A room with no stream
 * (waiting in its lobby: nothing to resume) leaves the directory instead. A node whose beat key
 * still lives is not dead to Redis (it only seemed so here): 0, and the claim is asked again later.
 * KEYS: rooms, the stream, the dead node's beat key, the room's taken key; ARGV: code, dead, self. */
static const char claim_lua[] =
	"if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return false end "
	"if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end "
	"local s = redis.call('XRANGE', KEYS[2], '-', '+') "
	"if #s == 0 then redis.call('HDEL', KEYS[1], ARGV[1]) return false end "
	"redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) "
	"redis.call('SET', KEYS[4], ARGV[3], 'EX', 86400) "
	"return s";

/* Another node's public open rooms, as its last "open" said (published with every beat: a node
 * that starts late, or a Redis come back, has every list within a beat, and no key to clean up). */
struct open_list {
	char id[CLUSTER_ID_LEN + 1];  /* "": a free slot (or its node is gone) */
	uint64_t at;                  /* loop ms it came */
	struct wire_rooms rooms;
};

/* A beat: the node's key set to expire, and its line published. 1 when the key was still there;
 * 0 when it had expired (this node was not heard from: its rooms may have been claimed meanwhile,
 * and are checked before it plays on). KEYS: the beat key; ARGV: its life (ms), channel, line. */
static const char beat_lua[] =
	"local had = redis.call('EXISTS', KEYS[1]) "
	"redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) "
	"redis.call('PUBLISH', ARGV[2], ARGV[3]) "
	"return had";

/* Which of this node's rooms are not its own in the hash any more: a flat array of code, owner
 * ("" for none) pairs. KEYS: rooms; ARGV: self, then the codes. */
static const char own_lua[] =
	"local r = {} "
	"for i = 2, #ARGV do "
	"local o = redis.call('HGET', KEYS[1], ARGV[i]) "
	"if o ~= ARGV[1] then r[#r + 1] = ARGV[i] r[#r + 1] = o or '' end "
	"end return r";

/* The turn logs' batches of one loop iteration, every room's in one script call (cluster_flush),
 * each fenced as a call of its own was: appended only while its room is this node's in the hash
 * (its whole flag 1: the stream replaced by the whole log), else {code, owner} in the answer and
 * nothing of that room's written. One call a loop iteration rather than one a room: Redis parses,
 * hashes and runs one script where it did dozens (issue 34: +31 µs a command on redis-server).
 * Sent as EVALSHA once SCRIPT LOAD answered (the text is not sent again every call).
 * KEYS: rooms, then each room's stream; ARGV: self, the stream's life (s), then for each room its
 * code, whole (1/0) and text. */
static const char batch_lua[] =
	"local r = {} "
	"for i = 2, #KEYS do "
	"local a = 3 * i - 3 "
	"local o = redis.call('HGET', KEYS[1], ARGV[a]) "
	"if o ~= ARGV[1] then r[#r + 1] = ARGV[a] r[#r + 1] = o or '' "
	"else "
	"if ARGV[a + 1] == '1' then redis.call('DEL', KEYS[i]) end "
	"redis.call('XADD', KEYS[i], '*', 't', ARGV[a + 2]) "
	"if ARGV[a + 1] == '1' then redis.call('EXPIRE', KEYS[i], ARGV[2]) end "
	"end end return r";
#define BATCH_ROOMS 256        /* rooms' batches in one call; more are sent as another call */
#define BATCH_BYTES (1u << 20) /* ... and their text: past this, the call is sent and another begun */
#define SHA_HEX 40             /* SCRIPT LOAD's answer: the script's SHA-1 in hex */
#define PLACED_SLOTS 8192      /* new rooms remembered as sent between nodes (cluster_room_place) */
#define PLACED_PROBES 8
#define PLACE_MS (2 * CLUSTER_BEAT_MS) /* ... for this long: by then both nodes' beats say the loads */

/* A room of this node's said (made, or said again once Redis is back): set only where it is nobody
 * else's, else {code, owner}. KEYS: rooms; ARGV: code, self, channel, line. */
static const char put_lua[] =
	"local o = redis.call('HGET', KEYS[1], ARGV[1]) "
	"if o and o ~= ARGV[2] then return {ARGV[1], o} end "
	"redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) "
	"redis.call('PUBLISH', ARGV[3], ARGV[4]) "
	"return 1";

/* A room of this node's gone: out of the hash, and its stream deleted, only where it is not another
 * node's (a room taken over from this one is that node's to end). KEYS: rooms, the stream; ARGV:
 * code, self, hash too (1) or only the stream (0). */
static const char drop_lua[] =
	"local o = redis.call('HGET', KEYS[1], ARGV[1]) "
	"if o and o ~= ARGV[2] then return {ARGV[1], o} end "
	"if ARGV[3] == '1' then redis.call('HDEL', KEYS[1], ARGV[1]) end "
	"redis.call('DEL', KEYS[2]) "
	"return 1";

/* The cluster's password salt: the first node's, kept (hex). KEYS: wizwar:salt; ARGV: this node's. */
static const char salt_lua[] =
	"redis.call('SET', KEYS[1], ARGV[1], 'NX') "
	"return redis.call('GET', KEYS[1])";
#define KEY_SALT "wizwar:salt"

/* server --resume: the room's owner in the hash, and the node that took it over if one did. */
static const char owner_lua[] =
	"return {redis.call('HGET', KEYS[1], ARGV[1]) or '', redis.call('GET', KEYS[2]) or ''}";

/* Bans across nodes: the hash wizwar:bans holds, for each target ("KIND TARGET"), the newest word on
 * it, a ban ("ban CREATED ...") or its lifting ("unban WHEN ..."); a word is set, and published as
 * "mod ID LINE", only when it is newer than the one there (ARGV[6] 1: or as new, a live command; 0:
 * strictly newer, a node putting its bans back as it rejoins). KEYS: the hash; ARGV: field, line,
 * channel, message. */
#define KEY_BANS "wizwar:bans"
static const char mod_lua[] =
	"local function t(v) return tonumber(string.match(v, '^%a+ (%d+)')) or 0 end "
	"local old = redis.call('HGET', KEYS[1], ARGV[1]) "
	"if old == ARGV[2] then return 0 end "
	"if old then local a, b = t(old), t(ARGV[2]) "
	"if a > b or (a == b and ARGV[5] == '0') then return 0 end end "
	"redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) "
	"redis.call('PUBLISH', ARGV[3], ARGV[4]) "
	"return 1";
/* What no node needs any more: a lifting older than a day (a node away longer than that misses it),
 * a ban past its expiry. KEYS: the hash; ARGV: now (Unix s). */
static const char mod_prune_lua[] =
	"local now, n = tonumber(ARGV[1]), 0 "
	"local all = redis.call('HGETALL', KEYS[1]) "
	"for i = 1, #all, 2 do local v = all[i + 1] "
	"local w = tonumber(string.match(v, '^unban (%d+) ')) "
	"local e = tonumber(string.match(v, '^ban %d+ (%d+) ')) "
	"if (w and w + 86400 < now) or (e and e ~= 0 and e <= now) or (not w and not e) then "
	"redis.call('HDEL', KEYS[1], all[i]) n = n + 1 end end "
	"return n";
#define MOD_READ_MAX (2 * 10000) /* lines of the hash taken at a rejoin: BAN_MAX bans and their liftings */

struct entry {
	struct entry *next;
	char code[PROTO_ROOM_BYTES + 1];
	char node[CLUSTER_ID_LEN + 1]; /* "" while its dead node's room is being claimed */
	uint64_t pending;              /* ... since then (loop ms) */
	bool reclaim;                  /* its node's beat key still lived at the claim: asked again */
	bool loading;                  /* claimed here, its duel being rebuilt off the loop: moving */
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
	redisContext *sync;           /* server --resume's questions, before serving (blocking) */
	char password[CLUSTER_PASSWORD_MAX + 1]; /* "" none; wiped at the end */
	bool cmd_up, sub_conn, sub_up, stopping;
	uint64_t cmd_since, sub_since; /* when the connection attempt in flight began */
	uv_timer_t beat;              /* ticks: beats, liveness, reconnection */
	uint64_t last_beat;           /* when this node last said it is alive */
	uint64_t down_said;           /* when "Redis unreachable" was last logged */
	/* The fence: the monotonic time (ms) each beat in flight was sent, oldest first (replies come
	 * in order); the send time of the newest beat Redis answered; a lapse being settled. */
	uint64_t beat_sent[8];
	unsigned beat_head, beat_n;
	uint64_t acked;
	bool fenced;                  /* a beat found this node's key expired: rooms checked before play */
	bool beaten;                  /* a beat of this connection was answered */
	bool checking;                /* ... the check (own_lua) in flight */
	uint64_t fence_beat;          /* the send time of the beat that began the check */
	unsigned reclaims;            /* entries waiting to be claimed again */
	bool auth_said;
	bool beat_err_said;
	bool lapse_said;              /* the lapse below was said (once a lapse) */
	uint64_t last_tick;           /* monotonic ms of the last tick (on_beat) */
	uint64_t stall_at;            /* ... of the first tick after a stall of this node's own loop */
	bool stalled;                 /* since then, no beat sent after it was answered */
	bool have_salt;
	char salthex[PROTO_PW_SALT_LEN * 2 + 1];
	struct cluster_node nodes[CLUSTER_NODES_MAX];
	/* ... and, beside each, the rooms its last two beats said and what this node sent it between
	 * them: how fast it makes rooms of its own (cluster_least_loaded). */
	struct {
		unsigned beat;     /* rooms its last beat said */
		unsigned sent;     /* new rooms this node sent it since */
		unsigned rate;     /* rooms a second it made of its own between its last two beats */
		bool missed;       /* it missed a beat, said (on_beat): no new room goes there until it beats */
	} load[CLUSTER_NODES_MAX];
	unsigned nnodes;
	bool too_many_said;
	bool changed;                 /* a node joined: cfg.changed is due */
	struct entry *rooms[BUCKETS]; /* the directory, by code; keyed SipHash: codes come from peers */
	uint8_t hkey[crypto_shorthash_KEYBYTES];
	struct open_list open[CLUSTER_NODES_MAX]; /* slots of the other nodes' open rooms */
	struct wire_msg scratch;      /* an open list encoded or decoded (27 KiB: off the stack) */
	uint8_t openbuf[sizeof "open " + CLUSTER_ID_LEN + WIRE_ROOMS_BYTES];
	bool bad_open_said;
	bool bad_mod_said;
	struct xmsg msg;              /* the channel's line being read (on_event) */
	/* The turn logs' batches of this loop iteration (cluster_tlog), sent as one call of batch_lua
	 * (batch_send): each room's code and whole flag, its text at off in tbuf. */
	struct {
		char code[PROTO_ROOM_BYTES + 1];
		bool whole;
		size_t off, len;
	} batch[BATCH_ROOMS];
	unsigned nbatch;
	char *tbuf;
	size_t tlen, tcap;
	char key[BATCH_ROOMS][sizeof KEY_TLOG + PROTO_ROOM_BYTES]; /* the call's arguments, built to send */
	const char *argv[6 + 4 * BATCH_ROOMS];
	size_t argvlen[6 + 4 * BATCH_ROOMS];
	char sha[SHA_HEX + 1];  /* batch_lua's SHA-1 once Redis loaded it; "" until then: EVAL */
	/* Counts the batches Redis did not apply (the connection lost with them in flight, an error):
	 * a room whose last whole log went before the latest such loss sends its whole log next
	 * (cluster_tlog), so that no stream keeps a hole a takeover would replay across. */
	unsigned epoch;
	bool in_flush, write_held; /* cluster_flush writes itself: hiredis's poll for writable is held */
	bool batch_err_said;       /* a refused call said (once a connection) */
	/* New rooms sent from one node to another in the last PLACE_MS (cluster_room_place), by code's
	 * hash; a slot taken by another code is overwritten (a room forgotten costs at most a hop). */
	struct placed {
		char code[PROTO_ROOM_BYTES + 1];
		bool here;    /* sent here by another node, or sent away by this one and come back */
		uint64_t at;  /* loop ms */
	} placed[PLACED_SLOTS];
	char web_host[CLUSTER_HOST_MAX + 1]; /* this node's web page (cluster_set_web); web_port 0: none */
	int web_port;
	/* The web pages "web" lines named, newest first, a dead node's kept: a page loaded from a node
	 * that died comes to the others with that node's origin (cluster_web_origin). */
	struct { char host[CLUSTER_HOST_MAX + 1]; int port; } web_seen[CLUSTER_NODES_MAX];
	unsigned nweb_seen;
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
	e->loading = false;
}

static void
dir_del(struct cluster *c, const char *code, const char *node)
{
	for (struct entry **p = bucket(c, code); *p; p = &(*p)->next) {
		if (strcmp((*p)->code, code) == 0) {
			if (node && strcmp((*p)->node, node) != 0 && !(*p)->loading)
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

/* A node that beat lately: one that missed a beat is not listed, nor sent new rooms or pairs. */
static bool
node_fresh(const struct cluster *c, const struct cluster_node *n)
{
	return uv_now(c->loop) - n->heard < CLUSTER_STALE_MS;
}

/* "beat ID HOST PORT KEYHEX ROOMS" (xmsg_parse): a node is alive, where, its key and its load. */
static void
on_beat_msg(struct cluster *c, const struct xmsg *m)
{
	unsigned long rooms = m->rooms;

	struct cluster_node *n = node_find(c, m->id);
	if (n == NULL) {
		if (c->nnodes == CLUSTER_NODES_MAX) {
			if (!c->too_many_said)
				say(c, LOG_WARNING, "cluster: more than %d nodes: node %s is not routed to", CLUSTER_NODES_MAX, m->id);
			c->too_many_said = true;
			return;
		}
		memset(&c->load[c->nnodes], 0, sizeof c->load[0]); /* a dead node's, left there when it was dropped */
		n = &c->nodes[c->nnodes++];
		memset(n, 0, sizeof *n);
		snprintf(n->id, sizeof n->id, "%s", m->id);
		if (strcmp(n->id, c->self_id) != 0)
			say(c, LOG_NOTICE, "cluster: node %s at %s port %d joined", n->id, m->host, m->port);
		c->changed = true; /* told once the node's fields are in */
	}
	snprintf(n->host, sizeof n->host, "%s", m->host);
	n->port = m->port;
	memcpy(n->key, m->key, sizeof n->key);
	uint64_t now = uv_now(c->loop), dt = now - n->heard;
	unsigned k = (unsigned)(n - c->nodes), was = c->load[k].beat + c->load[k].sent;
	/* Its own rooms a second: its growth that this node did not send it (n->heard 0: the first beat). */
	c->load[k].rate = n->heard && dt > 0 && dt <= CLUSTER_STALE_MS && rooms > was
	                          ? (unsigned)((rooms - was) * 1000 / dt) : 0;
	c->load[k].beat = (unsigned)rooms;
	c->load[k].sent = 0;
	if (c->load[k].missed) {
		c->load[k].missed = false;
		say(c, LOG_INFO, "cluster: node %s at %s port %d beats again, %" PRIu64 " ms after its last beat", n->id, n->host,
		    n->port, dt);
	}
	n->rooms = (unsigned)rooms;
	n->heard = now;
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
on_open(struct cluster *c, const struct xmsg *m)
{
	const char *id = m->id;
	const uint8_t *p = m->payload;
	size_t n = m->len;
	struct proto_err err;
	struct open_list *o;

	/* Only a node whose beat came (so at most CLUSTER_NODES_MAX lists): a node's beat goes out
	 * before its first list, on the same connection. This node's own rooms are listed from here. */
	if (strcmp(id, c->self_id) == 0 || node_find(c, id) == NULL)
		return;
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

/* The fence. */

static uint64_t
mono_ms(void)
{
	return uv_hrtime() / 1000000u;
}

/* Room `code`, this node's here, is `owner`'s in Redis ("" nobody's): dropped here (its players
 * move on to the node that holds it), and routed to its owner from now on. */
static void
lost_room(struct cluster *c, const char *code, const char *owner)
{
	char cd[PROTO_ROOM_BYTES + 1], id[CLUSTER_ID_LEN + 1];
	const struct entry *e = dir_find(c, code);

	if (e == NULL || strcmp(e->node, c->self_id) != 0)
		return; /* not this node's here (dropped already) */
	snprintf(cd, sizeof cd, "%s", code); /* the entry goes while the server drops the room */
	snprintf(id, sizeof id, "%s", xmsg_valid_id(owner, strlen(owner)) ? owner : "");
	if (c->cfg.lost)
		c->cfg.lost(c->cfg.ud, cd);
	dir_del(c, cd, c->self_id);
	if (id[0] && strcmp(id, c->self_id) != 0)
		dir_set(c, cd, id);
}

/* The answer of a fenced write (batch_lua, put_lua, drop_lua) or of own_lua: 1 (done), or pairs of
 * code and owner, each a room of this node's that is another's now. */
static void
on_fenced(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	(void)ud;
	if (c == NULL || c->stopping || reply == NULL || reply->type != REDIS_REPLY_ARRAY)
		return;
	for (size_t i = 0; i + 1 < reply->elements; i += 2) {
		redisReply *k = reply->element[i], *v = reply->element[i + 1];
		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING || !xmsg_valid_code(k->str, k->len) ||
		    (v->len && !xmsg_valid_id(v->str, v->len)))
			continue;
		lost_room(c, k->str, v->str);
	}
}

/* Bans across nodes. */

static void ignore_reply(redisAsyncContext *ac, void *r, void *ud);

/* "mod ID LINE": another node's ban, unban, mute or unmute, applied here at once. The line has no
 * control byte (xmsg_mod_line); the server then parses it strictly (ban_sync_parse). */
static void
on_mod(struct cluster *c, const struct xmsg *m)
{
	if (c->cfg.mod == NULL || strcmp(m->id, c->self_id) == 0)
		return; /* this node's own: applied where it was made */
	c->cfg.mod(c->cfg.ud, m->line);
	c->cfg.mod(c->cfg.ud, NULL);
}

/* The hash of bans, read as this node (re)joins, after it put its own back: each line applied here
 * as if it had just been published (the server keeps the newest word on each target). */
static void
on_mods_read(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data; /* NULL once stopped: a reply may come after */
	redisReply *reply = r;
	char line[CLUSTER_MOD_MAX];
	unsigned bad = 0;

	(void)ud;
	if (c == NULL || c->stopping || c->cfg.mod == NULL || reply == NULL || reply->type != REDIS_REPLY_ARRAY)
		return;
	for (size_t i = 0; i + 1 < reply->elements && i / 2 < MOD_READ_MAX; i += 2) {
		redisReply *v = reply->element[i + 1];
		if (v->type != REDIS_REPLY_STRING || !xmsg_mod_line(v->str, v->len, line, sizeof line)) {
			bad++;
			continue;
		}
		c->cfg.mod(c->cfg.ud, line);
	}
	c->cfg.mod(c->cfg.ud, NULL);
	if (bad || reply->elements / 2 > MOD_READ_MAX)
		say(c, LOG_WARNING, "cluster: %u lines of " KEY_BANS " are not what a node writes, or past %d: ignored",
		    bad + (unsigned)(reply->elements / 2 > MOD_READ_MAX ? reply->elements / 2 - MOD_READ_MAX : 0),
		    MOD_READ_MAX);
}

/* Redis answers again: this node's bans go back (a Redis come back empty, or bans made here while
 * it was away), the stale words go, then the cluster's are read. In this order on one connection. */
static void
mods_rejoin(struct cluster *c)
{
	if (c->cfg.mod == NULL)
		return;
	if (c->cfg.mod_rejoin)
		c->cfg.mod_rejoin(c->cfg.ud);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "EVAL %s 1 %s %lld", mod_prune_lua, KEY_BANS, (long long)time(NULL));
	redisAsyncCommand(c->cmd, on_mods_read, NULL, "HGETALL %s", KEY_BANS);
}

/* Quick pairing's rooms on the least loaded node. */

/* "make FROM TO CODE SIZE FOV POTIONS TURN": the pairing node asks node TO for a pair's room. Only
 * this node's are taken; the server checks the options as a client's. */
static void
on_make(struct cluster *c, const struct xmsg *m)
{
	if (c->cfg.make_room == NULL || strcmp(m->id, c->self_id) == 0 || strcmp(m->to, c->self_id) != 0)
		return;
	c->cfg.make_room(c->cfg.ud, m->code, &m->opt, m->turn_time);
}

static void load_script(struct cluster *c);

/* The answer of a call of batch_lua: the rooms another node holds now (on_fenced), or, where the
 * call was not applied, the epoch moved on: every room's next batch is its whole log. */
static void
on_batch(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	if (c == NULL || c->stopping)
		return;
	if (reply == NULL || reply->type == REDIS_REPLY_ERROR) {
		c->epoch++;
		/* Redis's script cache emptied under this connection (SCRIPT FLUSH): EVAL until loaded again. */
		if (reply && reply->str && strncmp(reply->str, "NOSCRIPT", 8) == 0) {
			if (c->sha[0]) { /* the first of the calls in flight refused */
				c->sha[0] = '\0';
				load_script(c);
				say(c, LOG_NOTICE, "cluster: Redis %s port %d lost the turn logs' script (NOSCRIPT): loaded again, "
				    "and every duel's whole log sent again", c->host, c->port);
			}
		} else if (reply && !c->batch_err_said) { /* once a connection */
			c->batch_err_said = true;
			say(c, LOG_WARNING, "cluster: Redis %s port %d refused a call of the turn logs: %.120s; every duel's whole "
			    "log sent again", c->host, c->port, reply->str ? reply->str : "");
		}
		return;
	}
	on_fenced(ac, r, ud);
}

static void
on_script(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	(void)ud;
	if (c == NULL || reply == NULL || reply->type != REDIS_REPLY_STRING || reply->len != SHA_HEX ||
	    strspn(reply->str, "0123456789abcdef") != SHA_HEX)
		return;
	memcpy(c->sha, reply->str, SHA_HEX + 1);
}

/* batch_lua into Redis's script cache: sent first on every connection (a Redis restarted has an
 * empty cache), so that an EVALSHA queued after it on the same connection finds it. */
static void
load_script(struct cluster *c)
{
	if (c->cmd)
		redisAsyncCommand(c->cmd, on_script, NULL, "SCRIPT LOAD %s", batch_lua);
}

/* The batches cluster_tlog holds, as one call (or nothing, with the epoch moved on, when Redis is
 * not there to take it), queued in hiredis's buffer: cluster_flush, or the poll, writes it. Every
 * command that touches a stream of this node's calls this first (drop_room): order kept. */
static void
batch_send(struct cluster *c)
{
	unsigned n = c->nbatch, k = 0;
	char nkeys[16], ttl[16];

	if (n == 0)
		return;
	c->nbatch = 0;
	c->tlen = 0;
	if (!c->cmd_up || c->cmd == NULL) {
		c->epoch++;
		return;
	}
#define ARG(s, l) (c->argv[k] = (s), c->argvlen[k++] = (l))
	snprintf(nkeys, sizeof nkeys, "%u", n + 1);
	snprintf(ttl, sizeof ttl, "%d", TLOG_TTL_S);
	if (c->sha[0]) {
		ARG("EVALSHA", 7);
		ARG(c->sha, SHA_HEX);
	} else {
		ARG("EVAL", 4);
		ARG(batch_lua, sizeof batch_lua - 1);
	}
	ARG(nkeys, strlen(nkeys));
	ARG(KEY_ROOMS, sizeof KEY_ROOMS - 1);
	for (unsigned i = 0; i < n; i++) {
		int l = snprintf(c->key[i], sizeof c->key[i], KEY_TLOG "%s", c->batch[i].code);
		ARG(c->key[i], (size_t)l);
	}
	ARG(c->self_id, strlen(c->self_id));
	ARG(ttl, strlen(ttl));
	for (unsigned i = 0; i < n; i++) {
		ARG(c->batch[i].code, strlen(c->batch[i].code));
		ARG(c->batch[i].whole ? "1" : "0", 1);
		ARG(c->tbuf + c->batch[i].off, c->batch[i].len);
	}
#undef ARG
	if (redisAsyncCommandArgv(c->cmd, on_batch, NULL, (int)k, c->argv, c->argvlen) != REDIS_OK)
		c->epoch++;
	if (c->tcap > 2 * BATCH_BYTES) { /* a whole log's room given back */
		free(c->tbuf);
		c->tbuf = NULL;
		c->tcap = 0;
	}
}

/* Admission in a burst: each node sees the others' loads a beat old, so two nodes that both made
 * new rooms since the last beats each found the other the less loaded, and a new room went back
 * and forth between them until a beat settled it (bench_cluster: ~7% of 10,000 joins sent on 4
 * times). A new room sent on is remembered as placed, here for the node that sent it away and,
 * through the channel ("sent ID CODE"), on the node it went to: either makes it when its player
 * comes rather than send it on again, so a join is sent on at most once, twice where its player
 * comes to the new node before the channel's message does. */
static struct placed *
placed_find(const struct cluster *c, const char *code, bool add)
{
	uint8_t h[crypto_shorthash_BYTES];
	uint32_t v;
	struct placed *p, *old = NULL;
	uint64_t now = uv_now(c->loop);

	crypto_shorthash(h, (const unsigned char *)code, strlen(code), c->hkey);
	memcpy(&v, h, sizeof v);
	/* PLACED_PROBES slots from the hash's: its own, else (add) a free or lapsed one, else the oldest. */
	for (unsigned i = 0; i < PLACED_PROBES; i++) {
		p = (struct placed *)&c->placed[(v + i) % PLACED_SLOTS];
		if (strcmp(p->code, code) == 0 && now - p->at < PLACE_MS)
			return p;
		if (old == NULL || now - p->at >= PLACE_MS || p->at < old->at)
			if (old == NULL || now - old->at < PLACE_MS)
				old = p;
	}
	return add ? old : NULL;
}

static void
place(struct cluster *c, const char *code)
{
	struct placed *p = placed_find(c, code, true);

	snprintf(p->code, sizeof p->code, "%s", code);
	p->here = true;
	p->at = uv_now(c->loop);
}

/* host:port to the front of the web pages seen (the oldest falls off a full list). */
static void
web_seen(struct cluster *c, const char *host, int port)
{
	unsigned i, max = sizeof c->web_seen / sizeof c->web_seen[0];

	for (i = 0; i < c->nweb_seen; i++)
		if (c->web_seen[i].port == port && strcmp(c->web_seen[i].host, host) == 0)
			break;
	if (i == c->nweb_seen)
		i = c->nweb_seen < max ? c->nweb_seen++ : max - 1;
	memmove(&c->web_seen[1], &c->web_seen[0], i * sizeof c->web_seen[0]);
	snprintf(c->web_seen[0].host, sizeof c->web_seen[0].host, "%s", host);
	c->web_seen[0].port = port;
}

/* "web ID HOST PORT": a known node's web page. Only a node whose beat came (a node's beat goes out
 * before its "web" line, on the same connection), so at most CLUSTER_NODES_MAX of them. */
static void
on_web(struct cluster *c, const struct xmsg *m)
{
	struct cluster_node *n;

	if ((n = node_find(c, m->id)) == NULL)
		return;
	snprintf(n->web_host, sizeof n->web_host, "%s", m->host);
	n->web_port = m->port;
	web_seen(c, m->host, m->port);
}

/* One message on the channel, parsed by xmsg_parse (strict: a line no node writes is ignored). */
static void
on_event(struct cluster *c, const char *s, size_t n)
{
	struct xmsg *m = &c->msg;

	if (xmsg_parse(s, n, m) != 0) {
		/* Said once: a moderation line refused (a ban that would not reach this node); an open list
		 * whose payload does not decode is said by on_open, with the node it names. */
		if (n > 4 && memcmp(s, "mod ", 4) == 0 && !c->bad_mod_said) {
			c->bad_mod_said = true;
			say(c, LOG_WARNING, "cluster: a moderation line on the channel is not what a node writes: ignored");
		}
		return;
	}
	switch (m->type) {
	case XMSG_OPEN:
		on_open(c, m);
		return;
	case XMSG_MOD:
		on_mod(c, m);
		return;
	case XMSG_BEAT:
		on_beat_msg(c, m);
		return;
	case XMSG_MAKE:
		on_make(c, m);
		return;
	case XMSG_WEB:
		on_web(c, m);
		return;
	case XMSG_SENT: /* another node sent new room CODE to node ID (cluster_room_place) */
		if (strcmp(m->id, c->self_id) == 0)
			place(c, m->code);
		return;
	case XMSG_ROOM:
	case XMSG_GONE:
		break;
	}
	if (strcmp(m->id, c->self_id) == 0)
		return; /* this node's own rooms are set where they are made */
	if (m->type == XMSG_ROOM) {
		const struct entry *e = dir_find(c, m->code);
		/* Another node made one of this node's rooms its own: it claimed it while this node was
		 * not heard from. (A node makes a new room under a fresh random code.) */
		if (e && strcmp(e->node, c->self_id) == 0) {
			lost_room(c, m->code, m->id);
			return;
		}
		dir_set(c, m->code, m->id);
		if (c->cfg.room_news)
			c->cfg.room_news(c->cfg.ud, m->code, m->id);
	} else {
		dir_del(c, m->code, m->id);
	}
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
		if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING || !xmsg_valid_code(k->str, k->len) ||
		    !xmsg_valid_id(v->str, v->len) || strcmp(v->str, c->self_id) == 0)
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

/* Said only where the room is nobody else's: a room another node took over while Redis was away
 * from this one is dropped here instead (on_fenced). */
static void
publish_room(struct cluster *c, struct entry *e)
{
	char msg[96];

	snprintf(msg, sizeof msg, "room %s %s", c->self_id, e->code);
	redisAsyncCommand(c->cmd, on_fenced, NULL, "EVAL %s 1 %s %s %s %s %s", put_lua, KEY_ROOMS, e->code, c->self_id,
	                  CHANNEL, msg);
}

/* After a lapse: which of this node's rooms another node claimed meanwhile. The beat that found the
 * lapse renewed this node's key first, so no claim can come after this check; every claim that came
 * before it shows in the hash. Until its answer this node plays nothing (cluster_lapsed). */
static void on_checked(redisAsyncContext *ac, void *r, void *ud);

static void
start_check(struct cluster *c)
{
	size_t n = 0, cap = 16;
	const char **argv = malloc(cap * sizeof *argv);

	if (argv == NULL)
		return; /* asked again at the next beat: fenced stays */
	argv[n++] = "EVAL";
	argv[n++] = own_lua;
	argv[n++] = "1";
	argv[n++] = KEY_ROOMS;
	argv[n++] = c->self_id;
	for (size_t i = 0; i < BUCKETS; i++) {
		for (struct entry *e = c->rooms[i]; e; e = e->next) {
			if (strcmp(e->node, c->self_id) != 0)
				continue;
			if (n == cap) {
				const char **na = realloc(argv, cap * 2 * sizeof *argv);
				if (na == NULL) {
					free(argv);
					return;
				}
				argv = na;
				cap *= 2;
			}
			argv[n++] = e->code;
		}
	}
	if (redisAsyncCommandArgv(c->cmd, on_checked, NULL, (int)n, argv, NULL) == REDIS_OK)
		c->checking = true;
	free(argv);
}

static void
on_checked(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	if (c == NULL)
		return;
	c->checking = false;
	if (reply == NULL || reply->type != REDIS_REPLY_ARRAY)
		return; /* Redis lost meanwhile, or broken: asked again after the next beat */
	unsigned lost = (unsigned)(reply->elements / 2);
	bool lapse = c->fenced;
	on_fenced(ac, r, ud);
	if (lapse) {
		c->fenced = false;
		c->acked = c->fence_beat;
		if (c->stalled && c->acked >= c->stall_at)
			c->stalled = false;
		say(c, LOG_WARNING, "cluster: this node was not heard from for over %d ms (stopped, or stalled): %u of its "
		    "rooms were taken over meanwhile and are dropped here; it plays the others on", CLUSTER_ALIVE_MS, lost);
	} else if (lost) {
		say(c, LOG_WARNING, "cluster: %u of this node's rooms were taken over while Redis was away from it: dropped "
		    "here", lost);
	}
}

static void
on_beat_reply(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	(void)ud;
	if (c == NULL || c->beat_n == 0)
		return;
	uint64_t sent = c->beat_sent[c->beat_head];
	c->beat_head = (c->beat_head + 1) % (sizeof c->beat_sent / sizeof c->beat_sent[0]);
	c->beat_n--;
	if (reply == NULL || reply->type != REDIS_REPLY_INTEGER) {
		if (reply && reply->type == REDIS_REPLY_ERROR && !c->beat_err_said) {
			c->beat_err_said = true;
			say(c, LOG_ERR, "cluster: Redis refused this node's beat: %s", reply->str);
		}
		return;
	}
	bool first = !c->beaten;
	c->beaten = true;
	if (reply->integer == 0 && !c->fenced && !first) {
		c->fenced = true;
		c->fence_beat = sent;
	}
	if (!c->fenced) {
		/* The first beat of a connection finds the key expired when the node starts or Redis was
		 * away: nobody could claim without Redis, so nothing is fenced, but the rooms are checked
		 * (a node cut off from Redis alone may have lost some). */
		c->acked = sent;
		if (c->stalled && sent >= c->stall_at)
			c->stalled = false;
		if (reply->integer == 0 && !c->checking && !c->stopping)
			start_check(c);
		return;
	}
	/* Fenced: the check starts after this beat, which renewed the key, so it sees every claim made
	 * before it (one in flight started after an earlier beat, whose time it keeps). */
	if (!c->checking && !c->stopping) {
		c->fence_beat = sent;
		start_check(c);
	}
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

/* This node's web page, after every beat, on its own line: a node that does not know "web" ignores
 * it, and the beat's fields stay what they were. */
static void
publish_web(struct cluster *c)
{
	char msg[sizeof "web " + CLUSTER_ID_LEN + CLUSTER_HOST_MAX + 16];

	if (c->web_port <= 0)
		return;
	snprintf(msg, sizeof msg, "web %s %s %d", c->self_id, c->web_host, c->web_port);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
}

static void
send_beat(struct cluster *c)
{
	unsigned load = c->cfg.load ? c->cfg.load(c->cfg.ud) : 0;
	const size_t q = sizeof c->beat_sent / sizeof c->beat_sent[0];
	char msg[256], key[sizeof KEY_ALIVE + CLUSTER_ID_LEN];

	if (c->beat_n == q)
		return; /* Redis has not answered the last beats: the lease runs out (cluster_lapsed) */
	snprintf(msg, sizeof msg, "beat %s %s %d %s %u", c->self_id, c->self_host, c->cfg.port, c->keyhex, load);
	snprintf(key, sizeof key, KEY_ALIVE "%s", c->self_id);
	if (redisAsyncCommand(c->cmd, on_beat_reply, NULL, "EVAL %s 1 %s %d %s %s", beat_lua, key, CLUSTER_ALIVE_MS,
	                      CHANNEL, msg) != REDIS_OK)
		return;
	c->beat_sent[(c->beat_head + c->beat_n) % q] = mono_ms();
	c->beat_n++;
	publish_open(c);
	publish_web(c);
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
	/* Back after Redis was away: the duels went on meanwhile (nobody could claim a room without
	 * Redis), and go on; the first beat tells whether this node's key expired, and if so its rooms
	 * are checked then. */
	c->acked = mono_ms();
	c->beat_n = 0;
	c->checking = false;
	c->beaten = false;
	if (!c->auth_said) /* else said at every try: the refusal was said once */
		say(c, LOG_NOTICE, "cluster: Redis %s port %d answers", c->host, c->port);
	load_script(c);
	c->batch_err_said = false;
	if (c->have_salt) /* a Redis come back empty: the salt this node uses is the cluster's again */
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "SET " KEY_SALT " %s NX", c->salthex);
	/* Redis may have come back empty (no persistence): this node's rooms are said again. */
	dir_each(c, c->self_id, false, publish_room);
	redisAsyncCommand(c->cmd, on_rooms_read, c, "HGETALL %s", KEY_ROOMS);
	send_beat(c);
	mods_rejoin(c);
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
	c->beat_n = 0;
	c->checking = false;
	if (c->stopping) {
		c->cmd_up = false;
		stop_check(c);
		return;
	}
	if (c->cmd_up && !c->stopping && !c->auth_said)
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

/* AUTH refused after the start (the password changed on Redis since): said once; the connection is
 * dropped, so that the node goes on as with Redis away (its duels played, no lease to keep), trying
 * again every second. */
static void
on_auth(redisAsyncContext *ac, void *r, void *ud)
{
	struct cluster *c = ac->data;
	redisReply *reply = r;

	(void)ud;
	if (reply == NULL || reply->type != REDIS_REPLY_ERROR)
		return;
	if (c && !c->auth_said) {
		c->auth_said = true;
		say(c, LOG_ERR, "cluster: Redis %s port %d refused the password of --redis-password-file: %s; trying again "
		    "every second, its duels going on here", c->host, c->port, reply->str);
	}
	redisAsyncDisconnect(ac);
}

/* hiredis's libuv adapter starts its poll again at every read and every command queued, and each
 * uv_poll_start is an epoll_ctl(2) or two: on the turn logs' path, a few system calls a loop
 * iteration for nothing. These wrappers change the poll only when its events change, and while
 * cluster_flush writes the buffer itself they do not ask for writable at all (it is asked only if
 * the socket did not take everything). */
static struct cluster *
ev_cluster(void *privdata)
{
	redisLibuvEvents *p = privdata;

	return p->context ? p->context->data : NULL;
}

/* hiredis 0.14's adapter ignores a poll error: Redis killed with a command of ours still unread
 * resets the connection (EPOLLERR), libuv stops the poll and says UV_EBADF, and the context is
 * never read again nor disconnected: the node neither says Redis lost nor connects again, its
 * beats stop and the other nodes take it for dead (server/xroom: 1 run in 18 under load). Newer
 * hiredis reads and writes on an error, so that the failure shows; so does this, and a connected
 * context still standing after that is freed (its disconnect callback runs, and connect_both makes
 * a new one; one still connecting is given up by connect_both after two beats). */
static void
ev_poll(uv_poll_t *handle, int status, int events)
{
	redisLibuvEvents *p = handle->data;
	int ev = status ? p->events : events;

	if (p->context != NULL && (ev & UV_READABLE))
		redisAsyncHandleRead(p->context);
	if (p->context != NULL && (ev & UV_WRITABLE))
		redisAsyncHandleWrite(p->context);
	if (status != 0 && p->context != NULL && (p->context->c.flags & REDIS_CONNECTED))
		redisAsyncFree(p->context);
}

static void
ev_set(redisLibuvEvents *p, int events)
{
	p->events = events;
	if (events)
		uv_poll_start(&p->handle, events, ev_poll);
	else
		uv_poll_stop(&p->handle);
}

static void
ev_add_read(void *privdata)
{
	redisLibuvEvents *p = privdata;

	if ((p->events & UV_READABLE) && uv_is_active((uv_handle_t *)&p->handle))
		return;
	ev_set(p, p->events | UV_READABLE);
}

static void
ev_del_read(void *privdata)
{
	redisLibuvEvents *p = privdata;

	ev_set(p, p->events & ~UV_READABLE);
}

static void
ev_add_write(void *privdata)
{
	redisLibuvEvents *p = privdata;
	struct cluster *c = ev_cluster(privdata);

	if (c && c->in_flush && c->cmd == p->context) {
		c->write_held = true;
		return;
	}
	if ((p->events & UV_WRITABLE) && uv_is_active((uv_handle_t *)&p->handle))
		return;
	ev_set(p, p->events | UV_WRITABLE);
}

static void
ev_del_write(void *privdata)
{
	redisLibuvEvents *p = privdata;
	struct cluster *c = ev_cluster(privdata);

	if (c && c->in_flush && c->cmd == p->context)
		c->write_held = false;
	if (!(p->events & UV_WRITABLE))
		return;
	ev_set(p, p->events & ~UV_WRITABLE);
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
	ac->ev.addRead = ev_add_read;
	ac->ev.delRead = ev_del_read;
	ac->ev.addWrite = ev_add_write;
	ac->ev.delWrite = ev_del_write;
	redisAsyncSetConnectCallback(ac, on_conn);
	redisAsyncSetDisconnectCallback(ac, on_disc);
	/* The password first: hiredis sends what is queued in order once connected. */
	if (c->password[0])
		redisAsyncCommand(ac, on_auth, NULL, "AUTH %s", c->password);
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

/* Room `code` out of the hash (hash: true) and its stream deleted, where it is not another node's. */
static void
drop_room(struct cluster *c, const char *code, bool hash)
{
	char key[sizeof KEY_TLOG + PROTO_ROOM_BYTES];

	snprintf(key, sizeof key, KEY_TLOG "%s", code);
	batch_send(c); /* the room's last lines before its stream goes, not after */
	redisAsyncCommand(c->cmd, on_fenced, NULL, "EVAL %s 2 %s %s %s %s %d", drop_lua, KEY_ROOMS, key, code,
	                  c->self_id, hash ? 1 : 0);
}

static void
forget_entry(struct cluster *c, struct entry *e)
{
	if (c->cmd_up)
		drop_room(c, e->code, true);
}

void cluster_room_gone(struct cluster *c, const char *code);

/* A claim in flight: the reply names neither room nor node. */
struct claim {
	struct cluster *c;
	char code[PROTO_ROOM_BYTES + 1];
	char dead[CLUSTER_ID_LEN + 1];
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
	if (c != NULL && !c->stopping && reply != NULL && reply->type == REDIS_REPLY_INTEGER && reply->integer == 0) {
		/* The node's beat key lives: it is not dead to Redis, only silent here. Its room stays
		 * its own, and is claimed again at a later beat if it stays silent (on_beat). */
		struct entry *e = dir_find(c, cl->code);
		if (e && e->node[0] == '\0') {
			snprintf(e->node, sizeof e->node, "%s", cl->dead);
			e->pending = 0;
			e->reclaim = true;
			c->reclaims++;
		}
		free(cl);
		return;
	}
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
	} else {
		int rc = c->cfg.takeover(c->cfg.ud, cl->code, text, len);
		struct entry *e;
		if (rc < 0)
			cluster_room_gone(c, cl->code); /* said by the server */
		else if (rc > 0 && (e = dir_find(c, cl->code)) != NULL && e->node[0] == '\0')
			e->loading = true; /* moving until the server has it */
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
	char key[sizeof KEY_TLOG + PROTO_ROOM_BYTES], alive[sizeof KEY_ALIVE + CLUSTER_ID_LEN],
		taken[sizeof KEY_TAKEN + PROTO_ROOM_BYTES];

	/* A node that takes nothing over leaves the hash to those that do: its HDEL could come before
	 * their claim, which would then find the room nobody's. */
	if (c->cfg.takeover == NULL || (cl = calloc(1, sizeof *cl)) == NULL) {
		e->node[0] = '\0';
		e->pending = uv_now(c->loop);
		return;
	}
	cl->c = c;
	snprintf(cl->code, sizeof cl->code, "%s", e->code);
	snprintf(cl->dead, sizeof cl->dead, "%s", e->node);
	snprintf(key, sizeof key, KEY_TLOG "%s", e->code);
	snprintf(alive, sizeof alive, KEY_ALIVE "%s", e->node);
	snprintf(taken, sizeof taken, KEY_TAKEN "%s", e->code);
	if (redisAsyncCommand(c->cmd, on_claimed, cl, "EVAL %s 4 %s %s %s %s %s %s %s", claim_lua, KEY_ROOMS, key, alive,
	                      taken, e->code, e->node, c->self_id) != REDIS_OK)
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
	return e->node[0] == '\0' && !e->loading && uv_now(c->loop) - e->pending >= CLUSTER_DEAD_MS;
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

/* Rooms whose claim found their node's beat key alive: claimed again, once a beat, while their node
 * is still not heard from here; left to it once it is. */
static void
reclaim(struct cluster *c)
{
	c->reclaims = 0;
	for (size_t i = 0; i < BUCKETS; i++) {
		for (struct entry *e = c->rooms[i]; e; e = e->next) {
			if (!e->reclaim)
				continue;
			struct cluster_node *n = node_find(c, e->node);
			if (n && node_alive(c, n)) {
				e->reclaim = false;
				continue;
			}
			e->reclaim = false;
			claim_entry(c, e); /* its answer marks it again if the key still lives */
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
	uint64_t now = mono_ms();
	if (now - c->last_tick > CLUSTER_STALL_MS) { /* this node's own loop did not run: stopped, stalled */
		c->stalled = true;
		c->stall_at = now;
	}
	c->last_tick = now;
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
	if (cluster_lapsed(c) && !c->lapse_said) {
		c->lapse_said = true;
		say(c, LOG_WARNING, "cluster: this node's loop stopped, and no beat of it was answered by Redis for %" PRIu64
		    " ms: its rooms play nothing until one is", mono_ms() - c->acked);
	} else if (!cluster_lapsed(c)) {
		c->lapse_said = false;
	}
	bool beat = uv_now(c->loop) - c->last_beat >= CLUSTER_BEAT_MS - CLUSTER_TICK_MS / 2;
	if (beat) {
		c->last_beat = uv_now(c->loop);
		send_beat(c);
		if (c->reclaims)
			reclaim(c);
	}
	/* A node not heard from is gone: its rooms are claimed by the live nodes (the first to ask takes
	 * each over from its stream: claim_entry), a room without a duel leaves the directory. Looked at
	 * every tick, so that a takeover starts within CLUSTER_TICK_MS of CLUSTER_DEAD_MS. */
	for (unsigned i = 0; i < c->nnodes;) {
		struct cluster_node *n = &c->nodes[i];
		if (strcmp(n->id, c->self_id) != 0 && node_alive(c, n) && !node_fresh(c, n) && !c->load[i].missed) {
			c->load[i].missed = true;
			say(c, LOG_INFO, "cluster: node %s at %s port %d missed a beat (%" PRIu64 " ms since its last): no new "
			    "room goes there until it beats again", n->id, n->host, n->port, uv_now(c->loop) - n->heard);
		}
		if (strcmp(n->id, c->self_id) != 0 && !node_alive(c, n)) {
			say(c, LOG_NOTICE, "cluster: node %s at %s port %d not heard from for %d ms: its rooms are taken over or forgotten",
			    n->id, n->host, n->port, CLUSTER_DEAD_MS);
			dir_each(c, n->id, false, claim_entry);
			c->nodes[i] = c->nodes[--c->nnodes];
			c->load[i] = c->load[c->nnodes];
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

/* A blocking connection (at start, and for server --resume's questions: before anything is
 * served), authenticated. NULL when Redis does not answer within a second. */
static redisContext *
sync_connect(struct cluster *c)
{
	struct timeval tv = { 1, 0 };
	redisContext *rc = redisConnectWithTimeout(c->host, c->port, tv);

	if (rc == NULL || rc->err) {
		redisFree(rc);
		return NULL;
	}
	redisSetTimeout(rc, tv);
	return rc;
}

/* The password, asked of a Redis that answers at the start: a wrong one, or none given to a Redis
 * that wants one, stops the start with the reason (a Redis that does not answer is waited for, as
 * before). -1 with the reason, else 0. */
static int
probe_redis(struct cluster *c, char *why, size_t whylen)
{
	redisContext *rc = sync_connect(c);
	redisReply *r = NULL;
	int ret = 0;

	if (rc == NULL)
		return 0;
	if (c->password[0]) {
		r = redisCommand(rc, "AUTH %s", c->password);
		if (r == NULL) { /* accepted the connection, and answers nothing: waited for, as one that refuses */
			redisFree(rc);
			return 0;
		}
		if (r->type == REDIS_REPLY_ERROR) {
			snprintf(why, whylen, "--redis: Redis %s port %d refused the password of --redis-password-file: %s",
			         c->host, c->port, r->str);
			ret = -1;
		}
		freeReplyObject(r);
		r = NULL;
	}
	if (ret == 0 && (r = redisCommand(rc, "PING")) != NULL && r->type == REDIS_REPLY_ERROR) {
		if (strncmp(r->str, "NOAUTH", 6) == 0)
			snprintf(why, whylen, "--redis: Redis %s port %d asks a password: give it in a file with "
			         "--redis-password-file FILE", c->host, c->port);
		else
			snprintf(why, whylen, "--redis: Redis %s port %d: %s", c->host, c->port, r->str);
		ret = -1;
	}
	freeReplyObject(r);
	redisFree(rc);
	return ret;
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
	c->cfg.password = NULL; /* its copy is c->password */
	if (cfg->password && snprintf(c->password, sizeof c->password, "%s", cfg->password) >= (int)sizeof c->password) {
		snprintf(why, whylen, "--redis-password-file: the password is longer than %d bytes", CLUSTER_PASSWORD_MAX);
		sodium_memzero(c->password, sizeof c->password);
		free(c);
		return NULL;
	}
	if (probe_redis(c, why, whylen) != 0) {
		sodium_memzero(c->password, sizeof c->password);
		free(c);
		return NULL;
	}
	c->acked = c->last_tick = mono_ms();
	c->cfg.salt = NULL;
	if ((c->have_salt = cfg->salt != NULL))
		sodium_bin2hex(c->salthex, sizeof c->salthex, cfg->salt, PROTO_PW_SALT_LEN);
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
	cluster_resume_done(c);
	sodium_memzero(c->password, sizeof c->password);
	free(c->tbuf);
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
		batch_send(c);
		dir_each(c, c->self_id, false, forget_entry);
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "DEL " KEY_ALIVE "%s", c->self_id);
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
		drop_room(c, code, true);
		redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
	}
}

/* Fenced, or past the lease after this node's own loop stopped (a tick missed for over a second, seen
 * by a tick since, or now by a callback that runs before the next tick: the first ones after a wake).
 * A node whose loop runs while Redis is only slow plays on, as with Redis away: the beat Redis answers
 * next says whether its key expired meanwhile, and if so it is fenced then. */
bool
cluster_lapsed(const struct cluster *c)
{
	if (c->fenced)
		return true;
	if (!c->cmd_up)
		return false;
	uint64_t now = mono_ms();
	return now - c->acked > CLUSTER_LEASE_MS && (c->stalled || now - c->last_tick > CLUSTER_STALL_MS);
}

int
cluster_resume_owner(struct cluster *c, const char *code, char *owner, char *why, size_t whylen)
{
	char taken[sizeof KEY_TAKEN + PROTO_ROOM_BYTES];
	redisReply *r;
	int ret = 1;

	owner[0] = '\0';
	if (c->sync == NULL && (c->sync = sync_connect(c)) != NULL && c->password[0]) {
		r = redisCommand(c->sync, "AUTH %s", c->password);
		freeReplyObject(r); /* a refusal shows in the question's answer */
	}
	snprintf(taken, sizeof taken, KEY_TAKEN "%s", code);
	if (c->sync == NULL || (r = redisCommand(c->sync, "EVAL %s 2 %s %s %s", owner_lua, KEY_ROOMS, taken, code)) == NULL) {
		snprintf(why, whylen, "Redis %s port %d does not answer", c->host, c->port);
		cluster_resume_done(c);
		return -1;
	}
	if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
	    r->element[1]->type != REDIS_REPLY_STRING) {
		snprintf(why, whylen, "Redis %s port %d: %s", c->host, c->port,
		         r->type == REDIS_REPLY_ERROR ? r->str : "an answer no node writes");
		ret = -1;
	} else {
		for (int k = 0; k < 2; k++) {
			const redisReply *v = r->element[k];
			if (v->len && xmsg_valid_id(v->str, v->len) && strcmp(v->str, c->self_id) != 0) {
				snprintf(owner, CLUSTER_ID_LEN + 1, "%s", v->str);
				ret = 0;
			}
		}
	}
	freeReplyObject(r);
	return ret;
}

void
cluster_resume_done(struct cluster *c)
{
	if (c->sync)
		redisFree(c->sync);
	c->sync = NULL;
}

void
cluster_shared_salt(const char *url, const char *password, const uint8_t *own, uint8_t *out)
{
	struct cluster *c = calloc(1, sizeof *c);
	char why[300], hex[PROTO_PW_SALT_LEN * 2 + 1];
	redisReply *r = NULL;
	size_t n;

	memcpy(out, own, PROTO_PW_SALT_LEN);
	if (c == NULL || cluster_parse_url(url, c->host, sizeof c->host, &c->port, why, sizeof why) != 0 ||
	    (password && snprintf(c->password, sizeof c->password, "%s", password) >= (int)sizeof c->password) ||
	    (c->sync = sync_connect(c)) == NULL)
		goto out;
	if (c->password[0] && (r = redisCommand(c->sync, "AUTH %s", c->password)) == NULL)
		goto out; /* no answer in a second: not asked again */
	freeReplyObject(r);
	sodium_bin2hex(hex, sizeof hex, own, PROTO_PW_SALT_LEN);
	r = redisCommand(c->sync, "EVAL %s 1 %s %s", salt_lua, KEY_SALT, hex);
	/* Anything but a salt as a node writes it is ignored: this node's own is used. */
	if (r && r->type == REDIS_REPLY_STRING && r->len == sizeof hex - 1 &&
	    sodium_hex2bin(out, PROTO_PW_SALT_LEN, r->str, r->len, NULL, &n, NULL) == 0 && n == PROTO_PW_SALT_LEN)
		goto out;
	memcpy(out, own, PROTO_PW_SALT_LEN);
out:
	freeReplyObject(r);
	if (c) {
		cluster_resume_done(c);
		sodium_memzero(c->password, sizeof c->password);
	}
	free(c);
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
cluster_tlog(struct cluster *c, const char *code, const char *text, size_t len, bool whole, unsigned *epoch)
{
	if (!c->cmd_up)
		return false;
	/* Held until cluster_flush at the end of this loop iteration (after the rooms' file writes):
	 * every room's batch of the iteration then goes in one call (batch_lua), fenced per room. */
	if (c->nbatch == BATCH_ROOMS || (c->nbatch && c->tlen + len > BATCH_BYTES))
		batch_send(c);
	if (!whole && *epoch != c->epoch)
		return false; /* a call with this room's lines in it was lost since its whole log went */
	if (c->tlen + len > c->tcap) {
		size_t cap = c->tcap ? c->tcap : 64u << 10;
		while (cap < c->tlen + len)
			cap *= 2;
		char *nb = realloc(c->tbuf, cap);
		if (nb == NULL)
			return false;
		c->tbuf = nb;
		c->tcap = cap;
	}
	if (len)
		memcpy(c->tbuf + c->tlen, text, len);
	snprintf(c->batch[c->nbatch].code, sizeof c->batch[c->nbatch].code, "%s", code);
	c->batch[c->nbatch].whole = whole;
	c->batch[c->nbatch].off = c->tlen;
	c->batch[c->nbatch].len = len;
	c->nbatch++;
	c->tlen += len;
	if (whole)
		*epoch = c->epoch;
	return true;
}

void
cluster_flush(struct cluster *c)
{
	if (!c->cmd_up || c->cmd == NULL) {
		batch_send(c);
		return;
	}
	/* The iteration's one call, and a non-blocking write of hiredis's buffer (what the adapter does
	 * when the socket is writable) with the poll for writable held (ev_add_write): asked only for
	 * what the socket did not take now. */
	c->in_flush = true;
	c->write_held = false;
	batch_send(c);
	redisAsyncHandleWrite(c->cmd);
	c->in_flush = false;
	if (c->write_held && c->cmd && c->cmd->ev.data)
		ev_add_write(c->cmd->ev.data);
	c->write_held = false;
}

void
cluster_tlog_end(struct cluster *c, const char *code)
{
	if (c->cmd_up)
		drop_room(c, code, false);
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

/* Only among the nodes that beat lately, not one that missed a beat: it may be dead (a node killed
 * counts as alive for CLUSTER_DEAD_MS), and a client sent there by REDIRECT loses seconds: refused
 * (killed) or no answer in 4 s (stopped), it comes back here a second later (client/net.c,
 * NET_FALLBACKS_MAX). A node that only beat late loses a beat's new rooms. */
static const struct cluster_node *
least_loaded(const struct cluster *c, unsigned mine)
{
	const struct cluster_node *best = NULL;

	unsigned best_est = 0;
	uint64_t now = uv_now(c->loop);

	/* Its load now: its last beat's, the rooms sent it since, and the rooms it made of its own since
	 * at the pace it made them before (in a burst both nodes make rooms, and a node that took the
	 * other's beat for its load now sent it nearly every new room: bench_cluster, 0.9 REDIRECTs a
	 * duel). A margin of 1 in 32 besides: two nodes within it keep their new rooms. */
	for (unsigned i = 0; i < c->nnodes; i++) {
		const struct cluster_node *n = &c->nodes[i];
		if (strcmp(n->id, c->self_id) == 0 || !node_alive(c, n) || !node_fresh(c, n))
			continue;
		uint64_t age = now - n->heard; /* under CLUSTER_STALE_MS: fresh */
		unsigned est = n->rooms + (unsigned)((uint64_t)c->load[i].rate * age / 1000);
		if (est + 1 + mine / 32 < mine && (best == NULL || est < best_est)) {
			best = n;
			best_est = est;
		}
	}
	return best;
}

const struct cluster_node *
cluster_least_loaded(const struct cluster *c, unsigned mine)
{
	return least_loaded(c, mine);
}

/* A pair waits for its room's news from there: a node that missed a beat is not asked (the pair
 * would wait QUICK_PEND_MS for nothing). */
const struct cluster_node *
cluster_pair_node(const struct cluster *c, unsigned mine)
{
	return least_loaded(c, mine);
}

/* The node's load is its last beat's, up to a second old: without counting the rooms sent since,
 * two nodes that both get new rooms between beats send each other every one of them, back and
 * forth, and make about two a beat (bench_cluster saw 80 duels take 15 s). Its next beat says
 * the truth again. */
void
cluster_room_sent(struct cluster *c, const struct cluster_node *to)
{
	struct cluster_node *n = node_find(c, to->id);

	if (n) {
		n->rooms++;
		c->load[n - c->nodes].sent++;
	}
}

void
cluster_room_place(struct cluster *c, const struct cluster_node *to, const char *code)
{
	char msg[96];

	place(c, code); /* its player back here: made here */
	if (!c->cmd_up)
		return;
	snprintf(msg, sizeof msg, "sent %s %s", to->id, code);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg);
}

bool
cluster_room_placed_here(const struct cluster *c, const char *code)
{
	const struct placed *p = placed_find(c, code, false);

	return p && p->here;
}

unsigned
cluster_nodes(const struct cluster *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nnodes; i++)
		n += node_alive(c, &c->nodes[i]);
	return n;
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

void
cluster_mod_put(struct cluster *c, const char *field, const char *line, bool rejoin)
{
	char msg[sizeof "mod " + CLUSTER_ID_LEN + CLUSTER_MOD_MAX];

	if (!c->cmd_up)
		return;
	snprintf(msg, sizeof msg, "mod %s %s", c->self_id, line);
	redisAsyncCommand(c->cmd, ignore_reply, NULL, "EVAL %s 1 %s %s %s %s %s %d", mod_lua, KEY_BANS, field, line,
	                  CHANNEL, msg, rejoin ? 0 : 1);
}

bool
cluster_make_room(struct cluster *c, const struct cluster_node *to, const char *code, const struct options *o,
                  unsigned turn_time)
{
	char msg[160];

	if (!cluster_up(c))
		return false;
	snprintf(msg, sizeof msg, "make %s %s %s %u %d %d %u", c->self_id, to->id, code, o->size, o->fov ? 1 : 0,
	         o->potions ? 1 : 0, turn_time);
	return redisAsyncCommand(c->cmd, ignore_reply, NULL, "PUBLISH %s %s", CHANNEL, msg) == REDIS_OK;
}

void
cluster_set_web(struct cluster *c, const char *host, int port)
{
	snprintf(c->web_host, sizeof c->web_host, "%s", host);
	c->web_port = port;
	web_seen(c, host, port);
	/* This node's own entry too: it is listed before its own first "web" line comes back. */
	struct cluster_node *n = node_find(c, c->self_id);
	if (n) {
		snprintf(n->web_host, sizeof n->web_host, "%s", host);
		n->web_port = port;
	}
}

unsigned
cluster_web_list(const struct cluster *c, struct cluster_node *out, unsigned max)
{
	unsigned n = 0;
	bool self = false;

	for (unsigned i = 0; i < c->nnodes && n < max; i++) {
		const struct cluster_node *k = &c->nodes[i];
		bool me = strcmp(k->id, c->self_id) == 0;
		if (k->web_port > 0 && (me || (node_alive(c, k) && node_fresh(c, k)))) {
			out[n++] = *k;
			self = self || me;
		}
	}
	/* Before its own first beat came back (or with Redis away) this node is not in its list. */
	if (!self && c->web_port > 0 && n < max) {
		memset(&out[n], 0, sizeof out[n]);
		snprintf(out[n].id, sizeof out[n].id, "%s", c->self_id);
		snprintf(out[n].web_host, sizeof out[n].web_host, "%s", c->web_host);
		out[n].web_port = c->web_port;
		n++;
	}
	return n;
}

bool
cluster_web_origin(const struct cluster *c, const char *host, int port)
{
	for (unsigned i = 0; i < c->nweb_seen; i++)
		if (c->web_seen[i].port == port && strcmp(c->web_seen[i].host, host) == 0)
			return true;
	return false;
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

bool
cluster_lapsed(const struct cluster *c)
{
	(void)c;
	return false;
}

int
cluster_resume_owner(struct cluster *c, const char *code, char *owner, char *why, size_t whylen)
{
	(void)c;
	(void)code;
	owner[0] = '\0';
	snprintf(why, whylen, "no Redis in this build");
	return -1;
}

void
cluster_resume_done(struct cluster *c)
{
	(void)c;
}

void
cluster_shared_salt(const char *url, const char *password, const uint8_t *own, uint8_t *out)
{
	(void)url;
	(void)password;
	memcpy(out, own, PROTO_PW_SALT_LEN);
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

const struct cluster_node *
cluster_pair_node(const struct cluster *c, unsigned mine)
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

void
cluster_room_place(struct cluster *c, const struct cluster_node *to, const char *code)
{
	(void)c;
	(void)to;
	(void)code;
}

bool
cluster_room_placed_here(const struct cluster *c, const char *code)
{
	(void)c;
	(void)code;
	return false;
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
cluster_tlog(struct cluster *c, const char *code, const char *text, size_t len, bool whole, unsigned *epoch)
{
	(void)epoch;
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

void
cluster_mod_put(struct cluster *c, const char *field, const char *line, bool rejoin)
{
	(void)c;
	(void)field;
	(void)line;
	(void)rejoin;
}

bool
cluster_make_room(struct cluster *c, const struct cluster_node *to, const char *code, const struct options *o,
                  unsigned turn_time)
{
	(void)c;
	(void)to;
	(void)code;
	(void)o;
	(void)turn_time;
	return false;
}

void
cluster_set_web(struct cluster *c, const char *host, int port)
{
	(void)c;
	(void)host;
	(void)port;
}

unsigned
cluster_web_list(const struct cluster *c, struct cluster_node *out, unsigned max)
{
	(void)c;
	(void)out;
	(void)max;
	return 0;
}

bool
cluster_web_origin(const struct cluster *c, const char *host, int port)
{
	(void)c;
	(void)host;
	(void)port;
	return false;
}

#endif
