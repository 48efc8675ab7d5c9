/* SPDX-License-Identifier: MIT */
/* quick: open rooms and pairing on a multi-room server: the list of public rooms (ROOMS) and the pool of QUICK, matched in waves. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pool.h"

/*
 * A connection that sent IDENT may, instead of AUTH, ask for the list of public rooms (ROOMS_ASK:
 * one ROOMS, then the server closes) or to be paired (QUICK: it waits in the pool, CONN_POOLED, and
 * is told MATCH WAITING at every wave, then PAIRED with the code of a private room made for the two,
 * or NOBODY when its wait is over; the server closes after either). Pairing goes by the options
 * asked for and the connection's `rating` (pool.h), in waves of quick_wave_ms: pool.c makes the
 * pairs, this file the rooms and the messages. In a cluster (cluster.c) ROOMS lists every live
 * node's public rooms, and QUICK is sent on to the one node that pairs for all.
 */

/* The list is made at most once a ROOMS_CACHE_MS and every asker in between gets the same bytes:
 * at most that stale (the issue asks 2 s), and a flood of asks costs one pass over the rooms a
 * second, not one an ask (each ask already costs its handshake, which the per-address limits count). */
#define ROOMS_CACHE_MS 1000

static uint16_t
secs_since(const struct server *s, uint64_t t)
{
	uint64_t d = (server__now(s) - t) / 1000;

	return d > 0xffff ? 0xffff : (uint16_t)d;
}

/* A public room waiting for a player: in its lobby, one seat taken by a player who is there. */
static int
waiting_seat(const struct gameroom *r)
{
	int seat = -1, taken = 0;

	if (!r->listed || r->dying || r->state != ROOM_LOBBY)
		return -1;
	for (int p = 0; p < PLAYERS; p++) {
		if (r->seat[p].taken) {
			taken++;
			seat = p;
		}
	}
	return taken == 1 && r->seat[seat].conn ? seat : -1;
}

static int
cmp_born(const void *pa, const void *pb)
{
	const struct gameroom *a = *(struct gameroom *const *)pa, *b = *(struct gameroom *const *)pb;

	return a->born < b->born ? -1 : a->born > b->born;
}

/* This node's oldest WIRE_ROOMS_MAX waiting public rooms, oldest first. */
static void
local_rooms(struct server *s, struct wire_rooms *x)
{
	struct gameroom *pick[WIRE_ROOMS_MAX + 1];
	unsigned n = 0;

	/* Keep the oldest WIRE_ROOMS_MAX: an insertion into a short sorted array, one pass over the rooms. */
	for (struct gameroom *r = s->rooms; r; r = r->next) {
		if (waiting_seat(r) < 0)
			continue;
		unsigned i = n < WIRE_ROOMS_MAX ? n++ : WIRE_ROOMS_MAX;
		pick[i] = r;
		while (i > 0 && cmp_born(&pick[i - 1], &pick[i]) > 0) {
			struct gameroom *t = pick[i - 1];
			pick[i - 1] = pick[i];
			pick[i] = t;
			i--;
		}
	}
	memset(x, 0, sizeof *x);
	x->count = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		const struct gameroom *r = pick[i];
		int p = waiting_seat(r);
		struct wire_room *o = &x->room[i];
		snprintf(o->code, sizeof o->code, "%s", r->code);
		snprintf(o->name, sizeof o->name, "%s", r->seat[p].name);
		o->rating = r->seat[p].conn->rating;
		o->opt = r->opt;
		o->turn_time = (uint16_t)r->turn_time;
		o->flags = s->key.set ? WIRE_ROOM_PASSWORD : 0;
		o->waiting = secs_since(s, r->born);
	}
}

void
quick__open_rooms(void *ud, struct wire_rooms *out)
{
	local_rooms(ud, out);
}

/* Room o into x, which keeps the WIRE_ROOMS_MAX oldest, oldest first (an insertion into a short
 * sorted array: at most WIRE_ROOMS_MAX moves a room). */
static void
keep_oldest(struct wire_rooms *x, const struct wire_room *o)
{
	unsigned i;

	if (x->count == WIRE_ROOMS_MAX) {
		if (o->waiting <= x->room[WIRE_ROOMS_MAX - 1].waiting)
			return;
		i = WIRE_ROOMS_MAX - 1;
	} else {
		i = x->count++;
	}
	while (i > 0 && x->room[i - 1].waiting < o->waiting) {
		x->room[i] = x->room[i - 1];
		i--;
	}
	x->room[i] = *o;
}

/* Make the cached ROOMS: the oldest WIRE_ROOMS_MAX waiting public rooms, this node's and, in a
 * cluster, every other live node's as its last beat published them (cluster_open_lists: a cache,
 * no question to Redis here), each room's wait counted on by the list's age. Kept decoded and sent
 * with conn__send, encoded for each asker (a few KiB, no deflate: before a join nothing is). */
static void
rooms_build(struct server *s)
{
	struct wire_msg *m = &s->rooms_cache;
	struct wire_rooms *x = &m->u.rooms;

	m->type = WIRE_ROOMS;
	local_rooms(s, x);
	s->rooms_cache_partial = false;
	if (s->cluster) {
		const struct wire_rooms *lists[CLUSTER_NODES_MAX];
		uint32_t age[CLUSTER_NODES_MAX];
		unsigned k = cluster_open_lists(s->cluster, lists, age, CLUSTER_NODES_MAX);
		s->rooms_cache_partial = !cluster_up(s->cluster);
		for (unsigned i = 0; i < k; i++) {
			for (unsigned j = 0; j < lists[i]->count; j++) {
				struct wire_room o = lists[i]->room[j];
				uint32_t w = o.waiting + age[i] / 1000;
				o.waiting = (uint16_t)(w > 0xffff ? 0xffff : w);
				keep_oldest(x, &o);
			}
		}
	}
	s->rooms_cache_at = server__now(s);
	s->rooms_cache_ok = true;
}

static void
rooms_answer(struct conn *c)
{
	struct server *s = c->srv;

	if (!s->cfg.multi) {
		conn__drop(c, PERR_STATE, "this is one player's hosted duel, not a server of rooms: join it");
		return;
	}
	/* Redis lost or back since the list was made: made again, so that no list is said to be
	 * whole when it is not, nor partial when it is whole. */
	bool partial = s->cluster && !cluster_up(s->cluster);
	if (!s->rooms_cache_ok || server__now(s) - s->rooms_cache_at >= ROOMS_CACHE_MS || partial != s->rooms_cache_partial)
		rooms_build(s);
	if (s->rooms_cache_partial) { /* said first: the list that follows lacks the other nodes' rooms */
		struct wire_msg *p = &s->out;
		memset(p, 0, sizeof p->type + sizeof p->u.partial);
		p->type = WIRE_ROOMS_PARTIAL;
		p->u.partial.why = ROOMS_PARTIAL_NO_DIRECTORY;
		conn__send(c, p);
	}
	conn__send(c, &s->rooms_cache);
	conn__bye(c, BYE_QUIT);
}

/* Options as one number: two players meet only when theirs are equal. */
static uint32_t
options_key(const struct options *o, uint16_t turn_time)
{
	return (uint32_t)o->size | (o->fov ? 0x100u : 0) | (o->potions ? 0x200u : 0) | ((uint32_t)turn_time << 10);
}

static void
match_send(struct conn *c, int status, uint16_t other, const char *room, uint16_t pool)
{
	struct server *s = c->srv;
	struct wire_msg *m = &s->out;

	memset(&m->u.match, 0, sizeof m->u.match);
	m->type = WIRE_MATCH;
	m->u.match.status = (uint8_t)status;
	m->u.match.rating = c->rating;
	m->u.match.other = other;
	m->u.match.waited = secs_since(s, c->pool_since);
	m->u.match.pool = pool;
	snprintf(m->u.match.room, sizeof m->u.match.room, "%s", room ? room : "");
	conn__send(c, m);
}

static void
pool_remove(struct server *s, struct conn *c)
{
	for (unsigned i = 0; i < s->npool; i++) {
		if (s->pool[i] == c) {
			s->pool[i] = s->pool[--s->npool];
			break;
		}
	}
	c->pooled = false;
	if (c->state == CONN_POOLED)
		c->state = CONN_KNOWN;
}

uint16_t
quick__rating(const struct store_rating *r)
{
	double v = r ? r->rating : POOL_RATING_DEFAULT;

	/* A hand-edited row (a NaN, a rating past any scale) is still a number the pool can sort. */
	return v >= 0 && v <= 65535 ? (uint16_t)(v + 0.5) : v > 65535 ? 65535 : (v < 0 ? 0 : POOL_RATING_DEFAULT);
}

/* Into the pool, its options taken from QUICK and its rating known (the store's, or 1500). */
static void
pool_enter(struct conn *c)
{
	struct server *s = c->srv;

	/* One entry a key: a second QUICK of the same key (another window, a bot of the same key)
	 * would pair the key with itself. Checked here, once the store answered: two QUICKs of one
	 * key may both have been waiting for it. */
	for (unsigned i = 0; i < s->npool; i++) {
		if (memcmp(s->pool[i]->ident, c->ident, PROTO_IDENT_KEY_LEN) == 0) {
			conn__drop(c, PERR_STATE, "this key is already waiting for a player on this server");
			return;
		}
	}
	if (s->npool >= SERVER_POOL_MAX) {
		conn__drop(c, PERR_LIMIT, "too many players are waiting to be paired here: try again later");
		return;
	}
	s->pool[s->npool++] = c;
	c->pooled = true;
	c->state = CONN_POOLED;
	c->pool_since = server__now(s);
	server__event(s, LOG_INFO, NULL, c->peer, "waits to be paired (size %d, rating %u, %u s)", c->pool_opt.size,
	              c->rating, (unsigned)(c->pool_wait_ms / 1000));
	/* The cluster's live nodes: if this node dies with the player waiting, its client asks the
	 * others again (client/quick.c), and a client that asked this node first knows no other. */
	conn__send_nodes(c);
	match_send(c, MATCH_WAITING, 0, NULL, 1);
}

/* The store's answer: the key's rating, read on its thread (never called for a conn gone first). */
static void
on_rated(void *ud, int result, const struct store_rating *r)
{
	struct conn *c = ud;

	c->claim = NULL;
	if (c->state != CONN_CLAIMING)
		return;
	if (result != STORE_OK) {
		conn__drop(c, PERR_SERVER, "the server's store cannot answer now: try again in a moment");
		return;
	}
	c->rating = quick__rating(r);
	c->state = CONN_KNOWN;
	pool_enter(c);
}

/* A cluster pairs every QUICK on one node (cluster_pairer: the live node of the smallest id), so
 * that two players asking two nodes meet: a QUICK asked elsewhere is sent there (REDIRECT, as a join
 * is: the client says its QUICK again to that node, whose key it pins), and that node makes their
 * room on itself, where both are already connected. */
static void
send_to_pairer(struct conn *c, const struct cluster_node *n, const char *why)
{
	struct server *s = c->srv;
	struct wire_msg *m = &s->out;

	memset(m, 0, sizeof m->type + sizeof m->u.redirect);
	m->type = WIRE_REDIRECT;
	m->u.redirect.port = (uint16_t)n->port;
	memcpy(m->u.redirect.key, n->key, PROTO_KEY_LEN);
	snprintf(m->u.redirect.host, sizeof m->u.redirect.host, "%s", n->host);
	server__event(s, LOG_INFO, NULL, c->peer, "sent to node %s at %s port %d to be paired (%s)", n->id, n->host,
	              n->port, why);
	conn__send_close(c, m);
}

static void
quick_ask(struct conn *c, const struct wire_quick *q)
{
	struct server *s = c->srv;

	if (!s->cfg.multi) {
		conn__drop(c, PERR_STATE, "this is one player's hosted duel, not a server of rooms: join it");
		return;
	}
	/* Two strangers paired on a server with a password would both need it to join: pairing one
	 * who cannot with one who can would leave the second alone in the room. */
	if (s->key.set) {
		conn__drop(c, PERR_AUTH, "this server has a password: quick pairing is for open servers (join a room)");
		return;
	}
	const struct cluster_node *pn;
	if (s->cluster && (pn = cluster_pairer(s->cluster)) != NULL) {
		send_to_pairer(c, pn, "the cluster's pairing node");
		return;
	}
	c->pool_opt = q->opt;
	c->pool_turn_time = q->turn_time;
	c->pool_key = options_key(&q->opt, q->turn_time);
	c->pool_wait_ms = (uint64_t)q->wait * 1000;
	if (s->store == NULL) {
		pool_enter(c);
		return;
	}
	/* Paired by its real rating: the store reads the key's row off the loop first (CLAIMING). */
	c->state = CONN_CLAIMING;
	if ((c->claim = store_claim_name(s->store, c->ident, NULL, on_rated, c)) == NULL)
		conn__drop(c, PERR_NOMEM, "out of memory");
}

/* The code a client would make (unguessable: 13 random characters of 32), not a room here. */
static void
new_code(struct server *s, char code[PROTO_ROOM_BYTES + 1])
{
	static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
	uint8_t rnd[13];

	do {
		int n = 0;
		auth_random(rnd, sizeof rnd);
		for (int i = 0; i < 13; i++) {
			if (i == 4 || i == 8)
				code[n++] = '-';
			code[n++] = alphabet[rnd[i] & 31];
		}
		code[n] = '\0';
	} while (server__find_room(s, code));
}

/* A private room for a pair, the options they asked for. NULL: the server is full. */
static struct gameroom *
pair_room(struct server *s, const struct conn *a)
{
	char code[PROTO_ROOM_BYTES + 1];
	struct gameroom *r;

	new_code(s, code);
	if ((r = server__add_room(s, code)) == NULL)
		return NULL;
	r->opt = a->pool_opt;
	r->turn_time = a->pool_turn_time;
	return r;
}

/* ---- a pair's room on a less loaded node of the cluster ----
 *
 * The pairing node is one node (cluster_pairer), and making every pair's room on it would load it
 * alone. When another node that beat lately holds two rooms fewer (cluster_pair_node, as a new room
 * goes), the pair's room is made there: this node publishes "make" for it, that node makes the room
 * and says it as any room ("room ID CODE"), and only when that news is back here are the two told
 * MATCH PAIRED, so that every node already routes the code there when they join it through the
 * node they first asked. News not back within QUICK_PEND_MS (that node full, dying, Redis lost):
 * the room is made here under a fresh code, at the next wave. */

/* A pair waiting for its room: out of the pool's array, still CONN_POOLED (HEARTBEAT or BYE). */
static void
pool_take(struct server *s, struct conn *c)
{
	for (unsigned i = 0; i < s->npool; i++) {
		if (s->pool[i] == c) {
			s->pool[i] = s->pool[--s->npool];
			break;
		}
	}
	c->pooled = false;
}

static bool
pend_live(const struct conn *c)
{
	return c && c->state == CONN_POOLED && !c->doomed;
}

/* The pend's pair told their room (each still there), and the pend gone. */
static void
pend_tell(struct server *s, unsigned i, const char *code)
{
	struct quick_pend *p = &s->pend[i];
	uint16_t rating[2];

	for (int k = 0; k < 2; k++) /* read before either is told: telling one closes it */
		rating[k] = pend_live(p->c[k]) ? p->c[k]->rating : 0;
	for (int k = 0; k < 2; k++) {
		struct conn *c = p->c[k];
		if (!pend_live(c))
			continue;
		match_send(c, MATCH_PAIRED, rating[1 - k], code, 0);
		conn__bye(c, BYE_QUIT);
	}
	s->pend[i] = s->pend[--s->npend];
}

/* A pend one of whose players went meanwhile (its link lost: a client that waited in a pool asks
 * again, into the pool, and may take --bot-after's bot there): the other goes back into the pool,
 * its wait counted from when it came, rather than be told PAIRED into a room where nobody comes
 * (it waited there alone until its lobby's idle limit). A pend with nobody left just goes. true:
 * the pend is gone. */
static bool
pend_half(struct server *s, unsigned i)
{
	struct quick_pend *p = &s->pend[i];

	if (pend_live(p->c[0]) && pend_live(p->c[1]))
		return false;
	for (int k = 0; k < 2; k++) {
		struct conn *c = p->c[k];
		if (!pend_live(c))
			continue;
		if (s->npool < SERVER_POOL_MAX) {
			s->pool[s->npool++] = c;
			c->pooled = true;
			server__event(s, LOG_INFO, p->code, c->peer, "the other player of the pair left before their room "
			              "was made: back in the pool");
		} else {
			match_send(c, MATCH_NOBODY, 0, NULL, 0);
			conn__bye(c, BYE_QUIT);
		}
	}
	s->pend[i] = s->pend[--s->npend];
	return true;
}

/* Pends whose news did not come in time: a room here, under a fresh code (the other node may still
 * make the first one: it then waits empty until its lobby's idle limit). */
static void
pend_expire(struct server *s, uint64_t now)
{
	for (unsigned i = 0; i < s->npend;) {
		struct quick_pend *p = &s->pend[i];
		if (now - p->at < QUICK_PEND_MS) {
			i++;
			continue;
		}
		if (pend_half(s, i)) /* one or both gone meanwhile: no room for them */
			continue;
		struct gameroom *r = pair_room(s, p->c[0]);
		server__event(s, LOG_WARNING, r ? r->code : p->code, NULL, "node %s did not make the pair's room %s in %d ms: %s",
		              p->node, p->code, QUICK_PEND_MS,
		              r ? "made here instead" : "no room here either: the pair goes back into the pool");
		if (r) {
			pend_tell(s, i, r->code);
			continue;
		}
		for (int k = 0; k < 2; k++) /* the next wave pairs them again */
			if (pend_live(p->c[k]) && s->npool < SERVER_POOL_MAX) {
				s->pool[s->npool++] = p->c[k];
				p->c[k]->pooled = true;
			}
		s->pend[i] = s->pend[--s->npend];
	}
}

/* The pair's room asked of a node that holds two rooms fewer than this one, if there is one. */
static bool
pair_elsewhere(struct server *s, struct conn *a, struct conn *b, uint64_t now)
{
	const struct cluster_node *to;
	struct quick_pend *p;

	if (s->cluster == NULL || s->npend >= QUICK_PEND_MAX ||
	    (to = cluster_pair_node(s->cluster, s->nrooms + s->npend)) == NULL)
		return false;
	p = &s->pend[s->npend];
	new_code(s, p->code);
	if (!cluster_make_room(s->cluster, to, p->code, &a->pool_opt, a->pool_turn_time))
		return false;
	cluster_room_sent(s->cluster, to);
	snprintf(p->node, sizeof p->node, "%s", to->id);
	p->c[0] = a;
	p->c[1] = b;
	p->at = now;
	s->npend++;
	server__event(s, LOG_INFO, p->code, NULL, "paired %s (%u) with %s (%u) after %u s and %u s; their room asked of "
	              "node %s at %s port %d (fewer rooms there)", a->peer, a->rating, b->peer, b->rating,
	              (unsigned)((now - a->pool_since) / 1000), (unsigned)((now - b->pool_since) / 1000), to->id, to->host,
	              to->port);
	pool_take(s, a);
	pool_take(s, b);
	return true;
}

void
quick__room_news(void *ud, const char *code, const char *node)
{
	struct server *s = ud;

	for (unsigned i = 0; i < s->npend; i++)
		if (strcmp(s->pend[i].code, code) == 0 && strcmp(s->pend[i].node, node) == 0) {
			if (!pend_half(s, i))
				pend_tell(s, i, code);
			return;
		}
}

void
quick__make_room(void *ud, const char *code, const struct options *o, unsigned turn_time)
{
	struct server *s = ud;
	struct gameroom *r;

	/* What a client could not ask (a server with a password pairs nobody), or options no client
	 * may choose, is not made: a node trusts Redis, but checks what it is given. */
	if (!s->cfg.multi || s->key.set || options_check(o) != ERR_OK || turn_time > TURN_TIME_MAX ||
	    server__find_room(s, code))
		return;
	if ((r = server__add_room(s, code)) == NULL) {
		metrics_limit_hit(&s->m, METRICS_LIM_ROOMS_FULL);
		server__event(s, LOG_WARNING, code, NULL, "a pair's room asked by the pairing node not made: this server holds "
		              "--max-rooms");
		return;
	}
	r->opt = *o;
	r->turn_time = turn_time;
	server__event(s, LOG_INFO, code, NULL, "made for a pair by the cluster's pairing node (size %d)", o->size);
}

void
quick__wave(struct server *s)
{
	uint64_t now = server__now(s);
	struct pool_entry *e;
	struct pool_pair *pairs;
	size_t n, k;

	/* A member dropped since (a write queue overflowed, closing) is no one to pair: it leaves
	 * the pool here rather than be paired into a room the other would wait in alone. */
	for (unsigned i = 0; i < s->npool;) {
		struct conn *c = s->pool[i];
		if (c->state != CONN_POOLED || c->doomed)
			pool_remove(s, c);
		else
			i++;
	}
	/* Another node pairs now (one with a smaller id joined, or Redis came back): who waits here goes
	 * there, rather than wait in a pool nobody else asks. */
	const struct cluster_node *pn;
	if (s->npool > 0 && s->cluster && (pn = cluster_pairer(s->cluster)) != NULL) {
		while (s->npool > 0) {
			struct conn *c = s->pool[0];
			pool_remove(s, c);
			send_to_pairer(c, pn, "the cluster's pairing node now");
		}
	}
	pend_expire(s, now);
	n = s->npool;
	if (n == 0)
		return;
	e = malloc(n * sizeof *e);
	pairs = malloc((n / 2 + 1) * sizeof *pairs);
	if (e == NULL || pairs == NULL) {
		free(e);
		free(pairs);
		return; /* the next wave tries again */
	}
	for (size_t i = 0; i < n; i++) {
		const struct conn *c = s->pool[i];
		e[i] = (struct pool_entry){ c->pool_key, c->rating, (uint32_t)((now - c->pool_since) / 1000) };
	}
	k = pool_match(e, n, pairs);
	/* The pool's array is changed only after the pairs are read: indices stay valid until then. */
	struct conn **was = malloc(n * sizeof *was);
	if (was == NULL) {
		free(e);
		free(pairs);
		return;
	}
	memcpy(was, s->pool, n * sizeof *was);
	for (size_t i = 0; i < k; i++) {
		struct conn *a = was[pairs[i].a], *b = was[pairs[i].b];
		if (pair_elsewhere(s, a, b, now))
			continue;
		struct gameroom *r = pair_room(s, a);
		if (r == NULL) {
			metrics_limit_hit(&s->m, METRICS_LIM_ROOMS_FULL);
			break; /* the server holds --max-rooms: they wait for the next wave */
		}
		server__event(s, LOG_INFO, r->code, NULL, "paired %s (%u) with %s (%u) after %u s and %u s", a->peer,
		              a->rating, b->peer, b->rating, (unsigned)((now - a->pool_since) / 1000),
		              (unsigned)((now - b->pool_since) / 1000));
		pool_remove(s, a);
		pool_remove(s, b);
		match_send(a, MATCH_PAIRED, b->rating, r->code, 0);
		match_send(b, MATCH_PAIRED, a->rating, r->code, 0);
		conn__bye(a, BYE_QUIT);
		conn__bye(b, BYE_QUIT);
	}
	/* Who is left: NOBODY when its wait is over, else how many wait with its options. */
	for (size_t i = 0; i < n; i++) {
		struct conn *c = was[i];
		if (!c->pooled)
			continue;
		if (now - c->pool_since >= c->pool_wait_ms) {
			pool_remove(s, c);
			server__event(s, LOG_INFO, NULL, c->peer, "nobody to pair with after %u s",
			              (unsigned)((now - c->pool_since) / 1000));
			match_send(c, MATCH_NOBODY, 0, NULL, 0);
			conn__bye(c, BYE_QUIT);
			continue;
		}
		unsigned same = 0;
		for (size_t j = 0; j < s->npool; j++)
			same += s->pool[j]->pool_key == c->pool_key;
		match_send(c, MATCH_WAITING, 0, NULL, (uint16_t)(same > 0xffff ? 0xffff : same));
	}
	free(was);
	free(e);
	free(pairs);
}

static void
on_wave(uv_timer_t *t)
{
	quick__wave(t->data);
}

void
quick__init(struct server *s)
{
	uv_timer_init(s->loop, &s->wave);
	s->wave.data = s;
	if (s->cfg.multi)
		uv_timer_start(&s->wave, on_wave, s->cfg.lim.wave_ms, s->cfg.lim.wave_ms);
}

void
quick__conn_gone(struct conn *c)
{
	struct server *s = c->srv;

	if (c->pooled)
		pool_remove(s, c);
	for (unsigned i = 0; i < s->npend; i++)
		for (int k = 0; k < 2; k++)
			if (s->pend[i].c[k] == c)
				s->pend[i].c[k] = NULL;
}

void
quick__message(struct conn *c, const struct wire_msg *m)
{
	if (m->type == WIRE_ROOMS_ASK)
		rooms_answer(c);
	else if (m->type == WIRE_QUICK)
		quick_ask(c, &m->u.quick);
	else
		conn__drop(c, PERR_STATE, "waiting to be paired: only HEARTBEAT or BYE now");
}
