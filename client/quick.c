/* SPDX-License-Identifier: MIT */
/* quick: a question to a server of rooms before any join (`wizwar rooms`, `join --quick`, `bot --quick`). */
#include "quick.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "bot.h"
#include "cli.h"

/* What one QUICK's connection saw, for quick_pair's retry after a lost link. */
struct seen {
	bool pooled;                  /* a MATCH WAITING came: it waited in a pool when the link went */
	bool refused;                 /* the server said ERROR: its word, not a lost link */
	bool redirected;              /* sent on by REDIRECT */
	bool reached;                 /* the node asked answered inside its channel: its key in asked */
	uint8_t asked[PROTO_KEY_LEN];
	uint8_t pool[PROTO_KEY_LEN];  /* the key of the node whose pool it waited in */
	struct wire_nodes nodes;      /* the cluster's nodes, as the last NODES said (n 0: none) */
	struct wire_redirect to;      /* the last REDIRECT (when redirected): where net went on */
	bool answered;                /* the answer came from a node whose key is answered_key */
	uint8_t answered_key[PROTO_KEY_LEN];
};

struct ask {
	struct wire_msg *out;
	quick_wait_fn on_wait;
	void *ud;
	bool done;
	bool *partial;
	char *why;
	size_t whylen;
	struct seen *seen;            /* NULL: not asked */
};

static void
on_msg(void *ud, struct net *n, const struct wire_msg *m)
{
	struct seen *sn = ((struct ask *)ud)->seen;
	const uint8_t *key = net_server_key(n);

	if (sn == NULL)
		return;
	if (key && !sn->reached && !sn->redirected) {
		sn->reached = true;
		memcpy(sn->asked, key, PROTO_KEY_LEN);
	}
	if (m->type == WIRE_MATCH && m->u.match.status == MATCH_WAITING && key) {
		sn->pooled = true;
		memcpy(sn->pool, key, PROTO_KEY_LEN);
	} else if (m->type == WIRE_ERROR && m->u.error.fatal) {
		sn->refused = true;
	} else if (m->type == WIRE_REDIRECT) {
		sn->redirected = true;
		sn->to = m->u.redirect;
	} else if (m->type == WIRE_NODES) {
		sn->nodes = m->u.nodes;
	}
}

static void
on_reply(void *ud, struct net *n, const struct wire_msg *m)
{
	struct ask *a = ud;

	if (a->done)
		return;
	if (m->type == WIRE_MATCH && m->u.match.status == MATCH_WAITING) {
		if (a->on_wait)
			a->on_wait(a->ud, &m->u.match);
		return;
	}
	if (m->type == WIRE_ROOMS_PARTIAL) { /* ROOMS follows */
		if (a->partial)
			*a->partial = true;
		return;
	}
	*a->out = *m;
	a->done = true;
	if (a->seen && net_server_key(n)) {
		a->seen->answered = true;
		memcpy(a->seen->answered_key, net_server_key(n), PROTO_KEY_LEN);
	}
	net_close(n);
}

static void
on_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct ask *a = ud;

	(void)n;
	(void)code;
	/* After the answer the server says goodbye: that is not a failure. */
	if (fatal && !a->done && a->why[0] == '\0')
		snprintf(a->why, a->whylen, "%s", text);
}

static int
ask_once(const struct net_config *base, const struct wire_msg *q, quick_wait_fn on_wait, void *ud,
         struct wire_msg *out, bool *partial, char *why, size_t whylen, struct seen *seen)
{
	struct net_config nc = *base;
	struct ask a = { out, on_wait, ud, false, partial, why, whylen, seen };
	uv_loop_t loop;
	struct net *n;

	why[0] = '\0';
	if (partial)
		*partial = false;
	nc.query = q;
	nc.room = NULL;
	nc.seat_file = NULL;
	nc.token = NULL;
	nc.token_len = 0;
	nc.create_room = false;
	nc.verify = false;
	memset(&nc.ev, 0, sizeof nc.ev);
	nc.ev.key = base->ev.key;
	nc.ev.reply = on_reply;
	nc.ev.error = on_error;
	nc.ev.msg = on_msg;
	nc.ud = &a;
	if (uv_loop_init(&loop) != 0) {
		snprintf(why, whylen, "cannot start an event loop");
		return -1;
	}
	if ((n = net_create(&loop, &nc, why, whylen)) == NULL) {
		uv_loop_close(&loop);
		return -1;
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	if (a.done)
		return 0;
	if (why[0] == '\0')
		snprintf(why, whylen, "the server closed the connection without an answer");
	return -1;
}

int
quick_ask(const struct net_config *base, const struct wire_msg *q, quick_wait_fn on_wait, void *ud,
          struct wire_msg *out, bool *partial, char *why, size_t whylen)
{
	return ask_once(base, q, on_wait, ud, out, partial, why, whylen, NULL);
}

/* Rating bands for the bot offered, from the weakest up: a player below `below` gets `level`. */
static const struct {
	unsigned below;
	int level;
} bands[] = {
	{ 1300, BOT_EASY },
	{ 1600, BOT_NORMAL },
	{ 1900, BOT_HARD },
	{ 65536, BOT_MASTER },
};

int
quick_bot_level(unsigned rating)
{
	for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
		if (rating < bands[i].below)
			return bands[i].level;
	return BOT_MASTER;
}

void
quick_print_rooms(const struct wire_rooms *r, const char *server, bool partial)
{
	/* A cluster's node that cannot reach Redis knows only its own rooms: said first, so that an
	 * empty or short list is not taken for the whole cluster's. */
	if (partial)
		printf("partial list: %s is a node of a cluster whose directory cannot be reached now: only its own rooms\n",
		       server);
	if (r->count == 0) {
		printf("no public room is waiting for a player on %s\n", server);
		return;
	}
	printf("%-16s %-16s %6s %4s %3s %7s %5s %8s %7s\n", "ROOM", "PLAYER", "RATING", "SIZE", "FOV", "POTIONS",
	       "TURN", "PASSWORD", "WAITING");
	for (unsigned i = 0; i < r->count; i++) {
		const struct wire_room *o = &r->room[i];
		char turn[16];
		if (o->turn_time)
			snprintf(turn, sizeof turn, "%us", o->turn_time);
		else
			snprintf(turn, sizeof turn, "-");
		printf("%-16s %-16s %6u %4d %3s %7s %5s %8s %6us\n", o->code, o->name, o->rating, o->opt.size,
		       o->opt.fov ? "yes" : "no", o->opt.potions ? "yes" : "no", turn,
		       o->flags & WIRE_ROOM_PASSWORD ? "yes" : "no", o->waiting);
	}
	printf("join one with: wizwar join %s --room ROOM%s\n", server,
	       r->room[0].flags & WIRE_ROOM_PASSWORD ? " --password" : "");
}

static void
say_wait(void *ud, const struct wire_match *m)
{
	bool tty = *(const bool *)ud;

	/* On a terminal one line, rewritten; elsewhere (a log) a line a wave. */
	fprintf(stderr, "%swaiting for a player: %u s, %u waiting with these options%s", tty ? "\r" : "", m->waited,
	        m->pool, tty ? "   " : "\n");
	fflush(stderr);
}

static uint64_t
now_ms(void)
{
	return uv_hrtime() / 1000000u;
}

/* The next node NODES named after `*i`, not the one whose key is `lost`; false: none. */
static bool
next_node(const struct seen *sn, const uint8_t *lost, int *i)
{
	for (int k = 1; k <= sn->nodes.n; k++) {
		int j = (*i + k) % sn->nodes.n;
		if (memcmp(sn->nodes.node[j].key, lost, PROTO_KEY_LEN) != 0) {
			*i = j;
			return true;
		}
	}
	return false;
}

int
quick_pair(const struct net_config *base, const struct options *o, unsigned turn_time, unsigned wait, bool say,
           char code[PROTO_ROOM_BYTES + 1], unsigned *rating, struct quick_via *via)
{
	struct wire_msg q, ans;
	struct net_config nc = *base;
	struct seen sn;
	char why[300];
	bool tty = isatty(STDERR_FILENO), retrying = false;
	uint8_t lost[PROTO_KEY_LEN];
	uint64_t start = now_ms(), lost_at = 0;
	int node = -1, rc;

	memset(&q, 0, sizeof q);
	memset(&sn, 0, sizeof sn);
	if (via)
		memset(via, 0, sizeof *via);
	q.type = WIRE_QUICK;
	q.u.quick.opt = *o;
	q.u.quick.turn_time = (uint16_t)turn_time;
	q.u.quick.wait = (uint16_t)wait;
	for (;;) {
		sn.pooled = sn.refused = sn.redirected = sn.reached = sn.answered = false;
		rc = ask_once(&nc, &q, say ? say_wait : NULL, &tty, &ans, NULL, why, sizeof why, &sn);
		if (rc == 0)
			break;
		/* A link lost while waiting in a pool: the cluster's pairing node died (or stopped). Its
		 * players are paired by the next node as soon as the others see it gone, so they ask again
		 * rather than give up; anything the server said itself (an ERROR) is its answer. */
		uint64_t t = now_ms();
		if (sn.pooled) {
			retrying = true;
			lost_at = t;
			memcpy(lost, sn.pool, PROTO_KEY_LEN);
			if (say)
				fprintf(stderr, "%sthe link to the pool was lost (%s): asking again\n", tty ? "\n" : "", why);
		}
		if (!retrying || sn.refused || t - lost_at >= QUICK_RETRY_FOR_MS || (wait && t - start >= wait * 1000ull)) {
			if (say && tty)
				fputc('\n', stderr);
			cli_error("%s\n", why);
			return -1;
		}
		/* The node asked sends QUICK on to the pairing node it knows: asked again, until it knows
		 * the new one. When the node asked is the one lost (it paired itself), or cannot be
		 * reached, the next node NODES named is asked instead. */
		bool lost_here = !sn.reached || memcmp(sn.asked, lost, PROTO_KEY_LEN) == 0;
		if (lost_here && next_node(&sn, lost, &node)) {
			nc.host = sn.nodes.node[node].host;
			nc.port = sn.nodes.node[node].port;
			nc.server_key = sn.nodes.node[node].key;
			nc.fingerprint = NULL;
			nc.known_file = NULL;
		}
		if (wait)
			q.u.quick.wait = (uint16_t)(wait - (t - start) / 1000 > 0 ? wait - (t - start) / 1000 : 1);
		uv_sleep(QUICK_RETRY_EVERY_MS);
	}
	if (say && tty)
		fputc('\n', stderr);
	/* Sent on to the cluster's pairing node: the pair's room is joined through it, not through
	 * the node first asked. That one learns of the room only when the room's news comes through
	 * Redis, which may be after the join's handshake on a loaded machine ("no room with that
	 * code": one player left alone in the room); the pairing node made the room or heard of it
	 * before it said PAIRED. Only the node that answered, its key the one REDIRECT pinned. */
	if (sn.redirected && sn.answered && memcmp(sn.answered_key, sn.to.key, PROTO_KEY_LEN) == 0 && via) {
		via->moved = true;
		snprintf(via->host, sizeof via->host, "%s", sn.to.host);
		via->port = sn.to.port;
		memcpy(via->key, sn.to.key, PROTO_KEY_LEN);
	} else if (node >= 0 && via) {
		via->moved = true;
		snprintf(via->host, sizeof via->host, "%s", sn.nodes.node[node].host);
		via->port = sn.nodes.node[node].port;
		memcpy(via->key, sn.nodes.node[node].key, PROTO_KEY_LEN);
	}
	*rating = ans.u.match.rating;
	if (ans.u.match.status != MATCH_PAIRED)
		return 1;
	snprintf(code, PROTO_ROOM_BYTES + 1, "%s", ans.u.match.room);
	if (say)
		fprintf(stderr, "paired after %u s with a player of rating %u (yours: %u), in room %s\n", ans.u.match.waited,
		        ans.u.match.other, ans.u.match.rating, code);
	return 0;
}

void
quick_join_via(struct net_config *nc, const struct quick_via *via)
{
	if (!via->moved)
		return;
	nc->host = via->host;
	nc->port = via->port;
	nc->server_key = via->key;
	nc->fingerprint = NULL;
	nc->known_file = NULL;
}
