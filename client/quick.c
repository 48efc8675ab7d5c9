/* SPDX-License-Identifier: MIT */
/* quick: a question to a server of rooms before any join (`wizwar rooms`, `join --quick`, `bot --quick`). */
#include "quick.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bot.h"
#include "cli.h"

struct ask {
	struct wire_msg *out;
	quick_wait_fn on_wait;
	void *ud;
	bool done;
	bool *partial;
	char *why;
	size_t whylen;
};

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

int
quick_ask(const struct net_config *base, const struct wire_msg *q, quick_wait_fn on_wait, void *ud,
          struct wire_msg *out, bool *partial, char *why, size_t whylen)
{
	struct net_config nc = *base;
	struct ask a = { out, on_wait, ud, false, partial, why, whylen };
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

int
quick_pair(const struct net_config *base, const struct options *o, unsigned turn_time, unsigned wait, bool say,
           char code[PROTO_ROOM_BYTES + 1], unsigned *rating)
{
	struct wire_msg q, ans;
	char why[300];
	bool tty = isatty(STDERR_FILENO);
	int rc;

	memset(&q, 0, sizeof q);
	q.type = WIRE_QUICK;
	q.u.quick.opt = *o;
	q.u.quick.turn_time = (uint16_t)turn_time;
	q.u.quick.wait = (uint16_t)wait;
	rc = quick_ask(base, &q, say ? say_wait : NULL, &tty, &ans, NULL, why, sizeof why);
	if (say && tty)
		fputc('\n', stderr);
	if (rc != 0) {
		cli_error("%s\n", why);
		return -1;
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
