/* SPDX-License-Identifier: MIT */
/* spect: a room's spectators: the view its players allow, made once and sent to all of them after the players, held frames, their own chat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tlog.h"

/*
 * What a spectator is shown is decided here and only here, from the views common/view.c
 * builds for the players (common/spect.c combines them); nothing a spectator sends chooses
 * it. Five rules keep the players first:
 *   - a frame is made after the players' updates of a command have been written (apply()
 *     calls spect__applied after its flush), and only at the room's tick (spect_tick_ms):
 *     a command costs the room one flag; a run of commands between ticks, one frame;
 *   - a frame is encoded once and the same payload is sealed for each spectator
 *     (pconn_send_payload: no deflate, no second encoding);
 *   - a spectator with more than spect_queued bytes waiting is dropped, never waited for:
 *     every write is libuv's, which never blocks;
 *   - whatever goes to every spectator's connection (a frame, the count, a chat line, LOBBY)
 *     goes through one queue, in slices that stop when a player's command is waiting (fan_out):
 *     none of it is written to a whole crowd in one pass;
 *   - for a moment after a command's updates are written, no frame is made and no slice sent:
 *     the player's process, woken on the server's core, runs first (players_first).
 */

static void on_tick(uv_timer_t *t);
static void sinks_gone(struct spect_room *sp);

/* A message for every spectator's connection, queued for the fan-out (fan_out). */
struct spect_item {
	struct spect_item *next;
	uint64_t seq;              /* its number in the room: a spectator that joined after it has it in its snapshot */
	int type;
	size_t len;
	uint8_t p[];
};

static void
items_free(struct spect_item **l)
{
	struct spect_item *x;

	while ((x = *l) != NULL) {
		*l = x->next;
		free(x);
	}
}

void
spect__init(struct gameroom *r)
{
	struct spect_room *sp = &r->sp;

	sp->allowed = true;
	sp->mode = SPECT_SHARED;
	uv_timer_init(r->srv->loop, &sp->timer);
	sp->timer.data = r;
	uv_timer_init(r->srv->loop, &sp->slice);
	sp->slice.data = r;
	sp->queue_tail = &sp->queue;
	r->handles += 2; /* room.c closes both with the room's timers */
}

static void
held_clear(struct spect_room *sp, bool last)
{
	for (int i = 0; i <= SPECT_DELAY_MAX; i++) {
		free(sp->held[i].buf);
		sp->held[i].buf = NULL;
		sp->held[i].len = 0;
	}
	if (!last)
		return;
	/* A fan-out under way has its own copies: it goes on. */
	free(sp->last);
	sp->last = NULL;
	sp->last_len = 0;
}

/* The messages of l from number `from` on, to c (corked by the caller). */
static void
items_send(struct conn *c, const struct spect_item *l, uint64_t from)
{
	for (; l; l = l->next)
		if (l->seq < from)
			continue;
		else if (l->type == WIRE_NODES) /* made for each (spect__nodes) */
			conn__send_nodes(c);
		else
			conn__send_payload(c, l->type, l->p, l->len);
}

void
spect__finish(struct gameroom *r)
{
	struct spect_room *sp = &r->sp;
	struct conn *c, *next;
	bool reached = sp->cursor == NULL;

	/* A room that closes while its server goes on (its players left) is gone for good: LEAVE. A
	 * spectator's client rides SHUTDOWN out as a drop and looks for the room again (net.c), which
	 * is right when the server or its node stops, and only a detour to "no room" here. What the
	 * fan-out had still to send goes first, in the same record: the end's frame, when the players
	 * leave as soon as the duel is over, had reached only the first slice. */
	for (c = sp->head; c; c = next) {
		next = c->snext;
		reached = reached || c == sp->cursor;
		c->snext = c->sprev = NULL;
		c->room = NULL;
		c->spect = false;
		if (c->queued <= r->srv->cfg.lim.spect_queued) {
			conn__cork(c);
			if (reached)
				items_send(c, sp->batch, c->spect_from);
			items_send(c, sp->queue, c->spect_from);
		}
		conn__bye(c, r->srv->closing ? r->srv->bye_reason : BYE_LEAVE);
	}
	sp->head = NULL;
	sp->cursor = NULL;
	sinks_gone(sp);
	sp->count = 0;
	items_free(&sp->batch);
	items_free(&sp->queue);
	sp->queue_tail = &sp->queue;
	held_clear(sp, true);
	uv_timer_stop(&sp->timer);
	uv_timer_stop(&sp->slice);
}

/* Every in-process spectator detached and told (a sink's gone may free it: unlinked first). */
static void
sinks_gone(struct spect_room *sp)
{
	struct spect_sink *k;

	while ((k = sp->sinks) != NULL) {
		sp->sinks = k->next;
		k->next = k->prev = NULL;
		k->room = NULL;
		sp->count--;
		if (k->gone)
			k->gone(k->ud);
	}
}

/* The same payload to every in-process spectator (a sink never blocks: it is the web page's,
 * which keeps or drops it by its own limits). */
static void
sinks_send(struct spect_room *sp, int type, const uint8_t *p, size_t len)
{
	for (struct spect_sink *k = sp->sinks, *next; k; k = next) {
		next = k->next;
		k->msg(k->ud, type, p, len);
	}
}

static void
unlink_conn(struct spect_room *sp, struct conn *c)
{
	if (c->sprev)
		c->sprev->snext = c->snext;
	else
		sp->head = c->snext;
	if (c->snext)
		c->snext->sprev = c->sprev;
	c->snext = c->sprev = NULL;
	sp->count--;
}

static void
arm(struct gameroom *r)
{
	struct spect_room *sp = &r->sp;

	if (!r->dying && !uv_is_active((uv_handle_t *)&sp->timer) && !sp->cursor)
		uv_timer_start(&sp->timer, on_tick, r->srv->cfg.lim.spect_tick_ms, 0);
}

/* ---- frames ---- */

/* Encode what s->sview holds as a SPECT_VIEW payload into s->spayload. 0 and *len, or -1. */
static int
encode(struct gameroom *r, uint8_t delay, size_t *len)
{
	struct server *s = r->srv;
	struct wire_msg *m = &s->out;

	update_blank(&s->prev);
	m->type = WIRE_SPECT_VIEW;
	m->u.sview.cmds = r->sp.cmds;
	m->u.sview.kind = s->sview.kind;
	m->u.sview.me_state = s->sview.me_state;
	m->u.sview.delay = delay;
	if (update_make(&s->prev, &s->sview.v, NULL, 0, &m->u.sview.view, &s->err) != 0 ||
	    wire_encode(m, s->spayload, sizeof s->spayload, len, &s->err) != 0) {
		server__log(s, "room %s: cannot make a spectator's frame: %s", r->code, s->err.why);
		return -1;
	}
	return 0;
}

/*
 * What a spectator may see now, as a payload in s->spayload: 0 and *len (0: nothing to show
 * yet). Once a duel is over everything is shown whatever the mode: nothing is left to hide.
 */
static int
current(struct gameroom *r, size_t *len)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	struct game *g;

	*len = 0;
	if (r->packed == NULL)
		return 0; /* no duel yet */
	g = room__game(r);
	if (g->result != RESULT_NONE) {
		spect_all(g, &s->sview);
		return encode(r, 0, len);
	}
	switch (sp->mode) {
	case SPECT_SHARED:
		view_build(g, 0, &s->sv0);
		view_build(g, 1, &s->sv1);
		spect_shared(&s->sv0, &s->sv1, &s->sview);
		return encode(r, 0, len);
	case SPECT_DELAYED: {
		/* The newest frame held that is `delay` turns old: the one of turn_no - delay. */
		if (g->turn_no < sp->delay)
			return 0;
		uint32_t want = g->turn_no - sp->delay;
		const struct spect_held *h = &sp->held[want % (SPECT_DELAY_MAX + 1)];
		if (h->buf == NULL || h->turn_no != want)
			return 0;
		memcpy(s->spayload, h->buf, h->len);
		*len = h->len;
		return 0;
	}
	default:
		return 0; /* SPECT_AFTER: nothing before the end */
	}
}

/* Keep a delayed view's frame of the turn that just ended (or the duel's start) in g. */
static void
hold_game(struct gameroom *r, const struct game *g)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	size_t len;

	if (sp->mode != SPECT_DELAYED || !sp->allowed)
		return;
	view_build(g, sp->player, &s->sv0);
	spect_of_player(&s->sv0, sp->player, &s->sview);
	if (encode(r, sp->delay, &len) != 0)
		return;
	struct spect_held *h = &sp->held[g->turn_no % (SPECT_DELAY_MAX + 1)];
	uint8_t *nb = realloc(h->buf, len);
	if (nb == NULL)
		return; /* that turn is not shown: the next one is */
	h->buf = nb;
	memcpy(h->buf, s->spayload, len);
	h->len = len;
	h->turn_no = g->turn_no;
}

static void
hold_turn(struct gameroom *r)
{
	hold_game(r, room__game(r));
}

static void fan_start(struct gameroom *r);

/* What is queued becomes the batch of a fan-out from the newest spectator on. */
static void
batch_take(struct spect_room *sp)
{
	sp->batch = sp->queue;
	sp->queue = NULL;
	sp->queue_tail = &sp->queue;
	sp->cursor = sp->head;
}

/* A payload for every spectator's connection, queued after what was queued before it (out of
 * memory: that message is lost to the spectators, as a dropped one). fan_start sends it. */
static void
queue_add(struct spect_room *sp, int type, const uint8_t *p, size_t len)
{
	struct spect_item *x;

	if (sp->head == NULL || (x = malloc(sizeof *x + len)) == NULL)
		return;
	*x = (struct spect_item){ NULL, sp->seq++, type, len };
	if (len)
		memcpy(x->p, p, len);
	*sp->queue_tail = x;
	sp->queue_tail = &x->next;
}

/* The same payload to every spectator: the in-process ones now, the connections in slices. */
static void
broadcast(struct gameroom *r, int type, const uint8_t *p, size_t len)
{
	sinks_send(&r->sp, type, p, len);
	queue_add(&r->sp, type, p, len);
	fan_start(r);
}

void
spect__send_all(struct gameroom *r, const struct wire_msg *m)
{
	struct server *s = r->srv;
	size_t len;

	if ((r->sp.head || r->sp.sinks) && wire_encode(m, s->spayload, sizeof s->spayload, &len, &s->err) == 0)
		broadcast(r, m->type, s->spayload, len);
}

/*
 * The batch (what was queued when this fan-out began: the tick's count and frame, a chat line,
 * LOBBY, in the order they were made, in one record: one seal and one write(2) a spectator)
 * to the spectators from sp->cursor on, at most SPECT_SLICE of them, and
 * fewer as soon as the loop has anything else to do: every SPECT_PEEK spectators the loop's own
 * poll descriptor (epoll's, uv_backend_fd) is asked without waiting whether one of its sockets
 * is ready, and if so the slice stops there. A player's command that arrives during a fan-out
 * so waits behind at most SPECT_PEEK spectators' sends (some 70 µs), not a whole slice's
 * (0.6 ms, and more when the machine is loaded), and is read, applied and written in this
 * same loop iteration's poll. The question is one poll(2) for SPECT_PEEK seals and writes: the
 * server's CPU a frame a spectator did not move measurably (docs/benchmarks.md). A spectator's own socket being ready (a chat line, an EOF, a full send buffer
 * drained) stops a slice too, which is right: that is a read too, and every slice sends to at
 * least SPECT_PEEK spectators, so a flood of such events slows the fan-out, never stalls it.
 *
 * The next slice runs a millisecond on, from a timer of its own. Not 0 ms: libuv 1.44 runs a
 * timer due "now" that a timer callback starts in the same pass, before any poll, so every
 * slice went out back to back, and a player's command waited for the whole fan-out (p99 18 ms
 * with 1,000 spectators against 1.2 ms). Not an idle handle either, which polls without waiting
 * and calls the next slice at once: it saves the sleep's context switches (7% of the server's
 * CPU at a person's pace against 2%), but on a 2-core machine the server then keeps its core
 * through the whole fan-out while the spectators' readers hold the other, and the players wait
 * for a core: own update p99 7.18x unwatched against 1.76x with the 1 ms sleep (idle machine,
 * side by side, docs/benchmarks.md). A spectator that joins meanwhile has had the frame and the
 * count as its snapshot; one that leaves moves the cursor on.
 *
 * What is queued while a batch goes out waits for the next fan-out, which begins a slice after
 * this one ends: every spectator so gets every message in the order the room made them (a chat
 * line said while a frame went out comes after that frame, to each), and a chat line or LOBBY
 * to 256 spectators, once one pass (some 2.5 ms that a player's command waited behind), stops
 * for a player's command as a frame does.
 */
#ifndef SPECT_SLICE /* knobs for bench_spect's side-by-side runs */
#define SPECT_SLICE 64
#endif
#ifndef SPECT_PEEK /* 0: never ask, every slice SPECT_SLICE long */
#define SPECT_PEEK 8
#endif



/*
 * After a command's updates are written, neither a frame nor a slice for SPECT_QUIET_US. A
 * socket's reader is woken on the writer's core (a TCP wake-up is a "sync" one: the writer is
 * expected to sleep), so a player's process woken by its UPDATE waited on the server's core for
 * a slice that the server began right after (the tick or the slice timer due at that moment):
 * 0.2 to 1.5 ms at a stretch, 64 seals and writes, when its own update had taken 0.2 (`perf sched
 * timehist`, 1,000 watching: a sixth of the bots' waits for a core were behind the server's
 * fan-out). The peek (loop_waiting) cannot see this one: the player has nothing to send yet.
 * What is put off goes at most once in a row: a player's every command within the quiet time
 * (bots at full speed) slows the fan-out by one timer a slice, never stops it.
 */
#ifndef SPECT_QUIET_US /* 0: no quiet time, the slices as before */
#define SPECT_QUIET_US 1000
#endif

/* True when what timer t runs now (cb) should wait for the quiet time's end: t is started again. */
static bool
players_first(struct spect_room *sp, uv_timer_t *t, uv_timer_cb cb)
{
	uint64_t now;

	if (SPECT_QUIET_US == 0 || sp->waited || (now = uv_hrtime()) >= sp->quiet_until) {
		sp->waited = false;
		return false;
	}
	sp->waited = true;
	/* uv's clock is in whole ms and a timer of 1 fires anywhere from 0 to 1 ms on: one more. */
	uv_timer_start(t, cb, (sp->quiet_until - now) / 1000000 + 1, 0);
	return true;
}

static void on_slice(uv_timer_t *t);

static void
fan_out(struct gameroom *r)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	int n = 0;

	if (players_first(sp, &sp->slice, on_slice))
		return;
	while (sp->cursor && n++ < SPECT_SLICE) {
		struct conn *c = sp->cursor;
		sp->cursor = c->snext;
		if (c->queued > s->cfg.lim.spect_queued) {
			conn__drop_unlogged(c, PERR_LIMIT, "a spectator too slow to keep up");
			continue;
		}
		conn__cork(c);
		items_send(c, sp->batch, c->spect_from);
		conn__flush(c);
#if SPECT_PEEK > 0
		if (n % SPECT_PEEK == 0 && sp->cursor && server__loop_waiting(s->loop))
			break;
#endif
	}
	if (sp->cursor == NULL) {
		/* This batch is out: the next one, made meanwhile, from the newest spectator, a slice on. */
		items_free(&sp->batch);
		if (sp->queue && sp->head && !sp->hold)
			batch_take(sp);
	}
	if (sp->cursor && !r->dying) {
		uv_timer_start(&sp->slice, on_slice, 1, 0);
		return;
	}
	uv_timer_stop(&sp->slice);
}

/* What is queued, from the newest spectator on, unless a fan-out is under way (what is queued goes
 * when it is done) or the players' record is not written yet (spect__release). */
static void
fan_start(struct gameroom *r)
{
	struct spect_room *sp = &r->sp;

	if (sp->cursor || sp->hold || r->dying || sp->queue == NULL)
		return;
	if (sp->head == NULL) {
		items_free(&sp->queue);
		sp->queue_tail = &sp->queue;
		return;
	}
	batch_take(sp);
	fan_out(r);
}

static void
on_slice(uv_timer_t *t)
{
	struct gameroom *r = t->data;

	if (r->dying)
		return;
	fan_out(r);
	/* A frame that came due while the last one went out waits for the next tick. */
	if (!r->sp.cursor && (r->sp.dirty || r->sp.info_dirty))
		arm(r);
}

/* Where a SPECT_VIEW payload's view begins: after its command count, a varint (its first field). */
static size_t
after_count(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len && (p[i] & 0x80))
		i++;
	return i < len ? i + 1 : len;
}

/* Make the current frame the last one when what it shows differs from it (true: fan it out). Its command
 * count alone is no news: a command that changes nothing a spectator sees (in the shared view, a
 * wizard walking where only one player knows it) sends nothing, and a thousand spectators cost
 * the server a thousand writes only when their screen changes. (The last frame, the snapshot a
 * newcomer gets, keeps the count it was made at: the view it shows is still the truth.) */
static bool
new_frame(struct gameroom *r)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	size_t len;

	sp->dirty = false;
	if (current(r, &len) != 0 || len == 0)
		return false;
	if (sp->last) {
		size_t a = after_count(sp->last, sp->last_len), b = after_count(s->spayload, len);
		if (sp->last_len - a == len - b && memcmp(sp->last + a, s->spayload + b, len - b) == 0)
			return false;
	}
	uint8_t *nb = realloc(sp->last, len);
	if (nb == NULL)
		return false; /* the next frame, then */
	sp->last = nb;
	memcpy(sp->last, s->spayload, len);
	sp->last_len = len;
	sinks_send(sp, WIRE_SPECT_VIEW, sp->last, sp->last_len);
	return true;
}

static void
info_fill(struct gameroom *r, struct wire_msg *m)
{
	struct spect_room *sp = &r->sp;

	memset(&m->u.sinfo, 0, sizeof m->u.sinfo);
	m->type = WIRE_SPECT_INFO;
	m->u.sinfo.allowed = sp->allowed;
	m->u.sinfo.mode = sp->mode;
	m->u.sinfo.delay = sp->mode == SPECT_DELAYED ? sp->delay : 0;
	m->u.sinfo.player = sp->mode == SPECT_DELAYED ? sp->player : 0;
	m->u.sinfo.count = (uint16_t)(sp->count > 65535 ? 65535 : sp->count);
}

void
spect__info_to(struct gameroom *r, struct conn *c)
{
	struct wire_msg *m = &r->srv->out;

	info_fill(r, m);
	conn__send(c, m);
}

/* A player who joins hears the spectator options only when there is something to say: someone
 * watches, or the room left the defaults (allowed, shared). A room nobody watches sends its
 * players nothing about spectators, as a protocol 6 room did. */
void
spect__joined(struct gameroom *r, struct conn *c)
{
	const struct spect_room *sp = &r->sp;

	if (sp->count > 0 || !sp->allowed || sp->mode != SPECT_SHARED)
		spect__info_to(r, c);
}

static void
info_players(struct gameroom *r)
{
	for (int p = 0; p < PLAYERS; p++)
		if (r->seat[p].conn)
			spect__info_to(r, r->seat[p].conn);
}

/* The options changed: everyone hears them (the count too). */
static void
info_all(struct gameroom *r)
{
	struct server *s = r->srv;
	size_t len;

	info_players(r);
	info_fill(r, &s->out);
	if (wire_encode(&s->out, s->spayload, sizeof s->spayload, &len, &s->err) == 0)
		broadcast(r, WIRE_SPECT_INFO, s->spayload, len);
	r->sp.info_dirty = false;
}

static void
on_tick(uv_timer_t *t)
{
	struct gameroom *r = t->data;
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;

	if (r->dying || players_first(sp, &sp->timer, on_tick))
		return;
	/* Everyone hears the count at most once a tick, however fast spectators come and go: the
	 * players at once, the spectators with the tick's frame, in the same record (fan_out, when
	 * no fan-out is under way: arm() waits for its end). */
	if (sp->info_dirty) {
		size_t len;
		sp->info_dirty = false;
		info_players(r);
		info_fill(r, &s->out);
		if (wire_encode(&s->out, s->spayload, sizeof s->spayload, &len, &s->err) == 0) {
			sinks_send(sp, WIRE_SPECT_INFO, s->spayload, len);
			queue_add(sp, WIRE_SPECT_INFO, s->spayload, len);
		}
	}
	if (sp->dirty && (sp->head || sp->sinks) && new_frame(r))
		queue_add(sp, WIRE_SPECT_VIEW, sp->last, sp->last_len);
	fan_start(r);
}

/* ---- the room's events ---- */

void
spect__started(struct gameroom *r)
{
	struct spect_room *sp = &r->sp;

	held_clear(sp, true);
	sp->cmds = 0;
	hold_turn(r);
	sp->dirty = true;
	if (sp->head || sp->sinks)
		arm(r);
}

void
spect__applied(struct gameroom *r, const struct events *ev)
{
	struct spect_room *sp = &r->sp;

	sp->cmds++;
	if (sp->head) /* only connections' fan-outs wait (players_first): no clock read for a room nobody watches */
		sp->quiet_until = uv_hrtime() + SPECT_QUIET_US * 1000ull; /* its players' updates are written */
	if (ev->turn_ended)
		hold_turn(r);
	sp->dirty = true;
	if (sp->head || sp->sinks)
		arm(r);
}

void
spect__ended(struct gameroom *r)
{
	/* Right away, not at the tick (in slices, as every frame, after a fan-out under way and once
	 * the players' record is written: spect__release). A room that closes with its duel sends
	 * what is left of it before its BYE (spect__finish). */
	if ((r->sp.head || r->sp.sinks) && new_frame(r)) { /* now: the game is the room's only until finish is done */
		queue_add(&r->sp, WIRE_SPECT_VIEW, r->sp.last, r->sp.last_len);
		fan_start(r);
	}
	held_clear(&r->sp, false);
}

/*
 * A command that ends the duel corks its players' records (UPDATE, END, the log, LOBBY: one
 * record, apply() in room.c) while finish() makes what the spectators get too: the end's frame
 * and LOBBY, a write to each of them. Held, those wait until the players' record is written:
 * with a thousand spectators the last command's own update waited behind 1,064 spectators'
 * sends (some 10 ms of the server's CPU).
 * What each spectator gets, and in which order, is unchanged: the end's frame, then LOBBY, in
 * slices (fan_out).
 */
void
spect__hold(struct gameroom *r)
{
	r->sp.hold = true;
}

void
spect__release(struct gameroom *r)
{
	if (!r->sp.hold)
		return;
	r->sp.hold = false;
	fan_start(r); /* nothing when the room closed meanwhile: spect__finish sent it with BYE */
}

/* ---- spectators ---- */

int
spect__join(struct gameroom *r, struct conn *c)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	struct wire_msg *m = &s->out;
	size_t len;

	if (r->dying)
		return PERR_SERVER;
	if (!sp->allowed)
		return PERR_NO_SPECTATORS;
	if (sp->count >= s->cfg.lim.spect_max)
		return PERR_ROOM_FULL;
	c->room = r;
	c->seat = -1;
	c->spect = true;
	c->state = CONN_JOINED;
	c->srv->m.welcomed++;
	c->sprev = NULL;
	c->spect_from = sp->seq; /* what is queued now, its snapshot below holds */
	c->snext = sp->head;
	if (sp->head)
		sp->head->sprev = c;
	sp->head = c;
	sp->count++;
	sp->info_dirty = true;
	arm(r);
	server__log(s, "%s: %s watches room %s (%u watching)", c->peer, c->who.name, r->code, sp->count);
	/* In a cluster, the nodes first, as a player gets them: a spectator whose node dies looks
	 * for the room on them (the node that takes the duel over), with each node's key pinned. */
	conn__send_nodes(c);
	memset(&m->u.welcome, 0, sizeof m->u.welcome);
	m->type = WIRE_WELCOME;
	m->u.welcome.player = WELCOME_SPECTATOR;
	m->u.welcome.grace = (uint16_t)((s->cfg.lim.grace_ms + 999) / 1000);
	conn__send(c, m);
	/* Who plays (names, options), the room's spectator options, then the view at once: a late
	 * spectator's first frame is the current state in one message, not a replay. */
	conn__cork(c);
	room__lobby_to(r, c);
	spect__info_to(r, c);
	if (sp->last && !sp->dirty) {
		conn__send_payload(c, WIRE_SPECT_VIEW, sp->last, sp->last_len);
	} else if (current(r, &len) == 0 && len > 0) {
		conn__send_payload(c, WIRE_SPECT_VIEW, s->spayload, len);
	}
	conn__flush(c);
	return PERR_OK;
}

/* Through the queue, as everything a crowd is sent: in slices that stop for a player's command, after
 * what was queued before it. An item with no payload: each spectator is sent the nodes as they are
 * when its turn comes (items_send), and NODES, a message of the handshake too, is not one that
 * pconn_send_payload takes. Not to the in-process spectators: a web page's spectator follows its own
 * server, not a cluster's nodes. One that joins after this gets the nodes at its join (spect__join). */
void
spect__nodes(struct gameroom *r)
{
	queue_add(&r->sp, WIRE_NODES, NULL, 0);
	fan_start(r);
}

void
spect__conn_lost(struct gameroom *r, struct conn *c)
{
	if (!c->spect)
		return;
	if (r->sp.cursor == c)
		r->sp.cursor = c->snext;
	unlink_conn(&r->sp, c);
	c->spect = false;
	r->sp.info_dirty = true;
	arm(r);
}

static void
on_chat(struct gameroom *r, struct conn *c, const struct wire_schat *in)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	struct wire_msg *out = &s->out;
	uint64_t now = server__now(s);
	size_t len;

	if (now - c->chat_window >= s->cfg.lim.chat_window_ms) {
		c->chat_window = now;
		c->chat_count = 0;
	}
	if (++c->chat_count > s->cfg.lim.chat_burst) {
		conn__error(c, PERR_LIMIT, false, "too many chat lines: wait a few seconds");
		return;
	}
	if (moderate__muted(c)) /* as a player's chat (room.c) */
		return;
	/* A line goes to every spectator: the room as a whole says only so many per window. */
	if (now - sp->chat_start >= s->cfg.lim.chat_window_ms) {
		sp->chat_start = now;
		sp->chat_lines = 0;
	}
	if (++sp->chat_lines > s->cfg.lim.spect_chat_lines) {
		conn__error(c, PERR_LIMIT, false, "the spectators' chat is busy: wait a few seconds");
		return;
	}
	memset(&out->u.schat, 0, sizeof out->u.schat);
	out->type = WIRE_SPECT_CHAT;
	snprintf(out->u.schat.name, sizeof out->u.schat.name, "%s", c->who.name);
	snprintf(out->u.schat.text, sizeof out->u.schat.text, "%s", in->text);
	if (wire_encode(out, s->spayload, sizeof s->spayload, &len, &s->err) != 0)
		return;
	/* Only the spectators' list: a player's connection is never on it. */
	broadcast(r, WIRE_SPECT_CHAT, s->spayload, len);
}

void
spect__message(struct gameroom *r, struct conn *c, const struct wire_msg *m)
{
	switch (m->type) {
	case WIRE_SPECT_CHAT:
		on_chat(r, c, &m->u.schat);
		return;
	case WIRE_BYE:
		return; /* server__handle closes it */
	default:
		conn__drop(c, PERR_STATE, "a spectator may only chat with other spectators");
		return;
	}
}

void
spect__set(struct gameroom *r, struct conn *c, const struct wire_sset *m)
{
	struct server *s = r->srv;
	struct spect_room *sp = &r->sp;
	int p = c->seat;

	if (!m->allowed) {
		/* Either player, at any time: the spectators go at once. In a duel the log says so, so
		 * that the duel resumed from it keeps them out. */
		struct conn *x, *next;
		if (sp->allowed && r->state == ROOM_PLAYING) {
			tlog_comment(&r->log, "wizwar-server spectators off");
			room__log_later(r);
		}
		sp->allowed = false;
		server__log(s, "room %s: %s turns spectators off", r->code, r->seat[p].name);
		for (x = sp->head; x; x = next) {
			next = x->snext;
			conn__drop_unlogged(x, PERR_NO_SPECTATORS, "the players turned spectators off");
		}
		sinks_gone(sp);
		held_clear(sp, true);
		info_all(r);
		return;
	}
	if (r->controller != p) {
		conn__error(c, PERR_NOT_CONTROLLER, false, "only the controller lets spectators in or sets their view");
		return;
	}
	if (r->state != ROOM_LOBBY) {
		/* A view changed during a duel could add up to more than either one. */
		conn__error(c, PERR_STATE, false, "the spectators' view changes only between duels");
		return;
	}
	sp->allowed = true;
	sp->mode = m->mode;
	sp->delay = m->mode == SPECT_DELAYED ? m->delay : 0;
	sp->player = m->mode == SPECT_DELAYED ? m->player : 0;
	held_clear(sp, true);
	server__log(s, "room %s: spectators %s", r->code,
	            sp->mode == SPECT_SHARED ? "see what both players know" :
	            sp->mode == SPECT_DELAYED ? "see one player's view, delayed" : "see the duel once it is over");
	info_all(r);
}

/* ---- the turn log ---- */

void
spect__log_words(const struct gameroom *r, char *buf, size_t len)
{
	const struct spect_room *sp = &r->sp;

	if (!sp->allowed)
		snprintf(buf, len, "off");
	else if (sp->mode == SPECT_DELAYED)
		snprintf(buf, len, "delayed %u %u", (unsigned)sp->delay, (unsigned)sp->player);
	else
		snprintf(buf, len, "%s", sp->mode == SPECT_AFTER ? "after" : "shared");
}

/* The delayed view's frames of the turns the log holds, as spect__applied kept them while the
 * duel was first played: the ring keeps the last SPECT_DELAY_MAX + 1 turns. */
struct rehold {
	struct gameroom *r;
	uint32_t from; /* turns before this one are too old to be shown again */
	uint32_t cmds; /* commands replayed: the frame says which state it shows */
};

static void
rehold_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct rehold *rh = ud;

	(void)p, (void)c, (void)lineno;
	rh->cmds++;
	if (ev != NULL && ev->turn_ended && g->turn_no >= rh->from) {
		rh->r->sp.cmds = rh->cmds;
		hold_game(rh->r, g);
	}
}

void
spect__resumed(struct gameroom *r, const struct tlog_resume *lr)
{
	struct spect_room *sp = &r->sp;

	held_clear(sp, true);
	if (lr->have_spect) {
		sp->allowed = lr->spect_allowed;
		sp->mode = lr->spect_mode;
		sp->delay = lr->spect_delay;
		sp->player = lr->spect_player;
	}
	if (!sp->allowed || sp->mode != SPECT_DELAYED)
		return;
	/* The frames are replayed from the log (cold: once per resume), the start's too. */
	struct turnlog_replay *rp = malloc(sizeof *rp);
	struct game *g0 = malloc(sizeof *g0);
	struct rehold rh = { r, lr->game.turn_no > sp->delay ? lr->game.turn_no - sp->delay : 0, 0 };
	uint32_t cmds = sp->cmds;
	if (rp != NULL && g0 != NULL && game_init(g0, &lr->hdr.opt, lr->hdr.seed) == ERR_OK) {
		sp->cmds = 0;
		if (rh.from == 0)
			hold_game(r, g0);
		if (turnlog_replay(lr->text, lr->len, rp, rehold_cb, &rh) != 0)
			held_clear(sp, false); /* it replayed in tlog_load: cannot happen; show nothing rather than less */
	}
	sp->cmds = cmds;
	free(g0);
	free(rp);
}

/* ---- spectators inside the process (server.h, struct spect_sink) ---- */

int
server_spect_attach(struct server *s, const char *code, struct spect_sink *k)
{
	struct gameroom *r = s->cfg.multi ? server__find_room(s, code) : s->rooms;
	struct spect_room *sp;
	struct wire_msg *m = &s->out;
	size_t len;

	if (r == NULL || r->dying)
		return PERR_NO_ROOM;
	sp = &r->sp;
	if (!sp->allowed)
		return PERR_NO_SPECTATORS;
	if (sp->count >= s->cfg.lim.spect_max)
		return PERR_ROOM_FULL;
	k->room = r;
	k->prev = NULL;
	k->next = sp->sinks;
	if (sp->sinks)
		sp->sinks->prev = k;
	sp->sinks = k;
	sp->count++;
	sp->info_dirty = true;
	arm(r);
	/* What spect__join sends a spectator's connection, in its order: who plays, the options,
	 * the view at once. */
	room__lobby_fill(r, m);
	if (wire_encode(m, s->spayload, sizeof s->spayload, &len, &s->err) == 0)
		k->msg(k->ud, WIRE_LOBBY, s->spayload, len);
	info_fill(r, m);
	if (wire_encode(m, s->spayload, sizeof s->spayload, &len, &s->err) == 0)
		k->msg(k->ud, WIRE_SPECT_INFO, s->spayload, len);
	if (sp->last && !sp->dirty)
		k->msg(k->ud, WIRE_SPECT_VIEW, sp->last, sp->last_len);
	else if (current(r, &len) == 0 && len > 0)
		k->msg(k->ud, WIRE_SPECT_VIEW, s->spayload, len);
	return PERR_OK;
}

void
server_spect_detach(struct spect_sink *k)
{
	struct gameroom *r = k->room;

	if (r == NULL)
		return;
	if (k->prev)
		k->prev->next = k->next;
	else
		r->sp.sinks = k->next;
	if (k->next)
		k->next->prev = k->prev;
	k->next = k->prev = NULL;
	k->room = NULL;
	r->sp.count--;
	r->sp.info_dirty = true;
	arm(r);
}

unsigned
server_rooms_list(struct server *s, struct server_room_info *out, unsigned max)
{
	unsigned n = 0;

	for (struct gameroom *r = s->rooms; r && n < max; r = r->next) {
		struct server_room_info *i = &out[n];
		if (r->dying)
			continue;
		memset(i, 0, sizeof *i);
		snprintf(i->code, sizeof i->code, "%s", r->code);
		for (int p = 0; p < PLAYERS; p++)
			if (r->seat[p].taken && r->seat[p].conn)
				snprintf(i->name[p], sizeof i->name[p], "%s", r->seat[p].name);
		i->playing = r->state == ROOM_PLAYING;
		i->allowed = r->sp.allowed;
		i->mode = r->sp.mode;
		i->delay = r->sp.mode == SPECT_DELAYED ? r->sp.delay : 0;
		i->player = r->sp.mode == SPECT_DELAYED ? r->sp.player : 0;
		i->watching = r->sp.count;
		i->turn = i->playing && r->packed ? room__game(r)->turn_no : 0;
		n++;
	}
	return n;
}

const char *
server_room_end_path(struct server *s, const char *code)
{
	struct gameroom *r = s->cfg.multi ? server__find_room(s, code) : s->rooms;

	return r ? r->end_path : NULL;
}
