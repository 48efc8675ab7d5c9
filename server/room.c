/* SPDX-License-Identifier: MIT */
/* room: one duel and its lobby: two seats, the controller, options, the rules applied, views sent, timers, the log. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "internal.h"
#include "logtree.h"
#include "text.h"

static void send_lobby(struct gameroom *r);
static void arm_turn(struct gameroom *r);
static void finish(struct gameroom *r);
static int apply(struct gameroom *r, int p, const struct cmd *c, int extra_msg);
static void send_end(struct gameroom *r, int p);
static void last_drop(struct seat *st);

/* Lifecycle. */

/* The room's game lives packed (r->packed); a command, a START or an END needs it whole.
 * It is unpacked into the server's one scratch game, unless that holds it already (the
 * room that asked last: a run of commands in one room unpacks nothing), and every change
 * to it is packed again at once (game_keep), so that the packed form is always the game. A
 * pointer returned lasts until another room's game is asked for. */
static struct game *
game_of(const struct gameroom *r)
{
	struct server *s = r->srv;

	if (s->game_of != r) {
		s->gmemo.n = 0;
		if (r->packed == NULL)
			memset(&s->game, 0, sizeof s->game); /* no duel yet: as a calloc'd room had */
		else if (gpack_unpack_memo(r->packed, r->packed_len, &s->game, &s->gmemo) != 0)
			abort(); /* our own bytes: a broken invariant, not input */
		s->game_of = r;
	}
	return &s->game;
}

/* The scratch game (r's, just changed) packed again, into a buffer sized to it (grown or cut
 * in steps of 64 bytes, so that a duel reallocates it seldom). -1: out of memory, and the
 * scratch no longer counts as r's, so the game is the one packed before the change. The
 * memo (s->gmemo) describes r->packed while the scratch is r's: a grid the command left
 * as it was is copied from there, not packed again (common/gpack.h). */
static int
game_keep(struct gameroom *r)
{
	struct server *s = r->srv;
	size_t n;

	if (s->game_of != r)
		s->gmemo.n = 0; /* the memo is another room's */
	n = gpack_pack_memo(&s->game, r->packed, &s->gmemo, s->gpack);
	if (n > r->packed_cap || n + 256 < r->packed_cap) {
		size_t cap = (n + 63) & ~(size_t)63;
		uint8_t *b = realloc(r->packed, cap);
		if (b == NULL) {
			s->game_of = NULL;
			return -1;
		}
		r->packed = b;
		r->packed_cap = cap;
	}
	memcpy(r->packed, s->gpack, n);
	r->packed_len = n;
	return 0;
}

static void
on_timer_closed(uv_handle_t *h)
{
	struct gameroom *r = h->data;

	if (--r->handles == 0) {
		struct server *s = r->srv;
		if (s->game_of == r)
			s->game_of = NULL; /* asked for while dying: the scratch must not outlive the room as its */
		free(r->packed);
		free(r);
		server__unref(s);
	}
}

static void on_grace(uv_timer_t *t);
static void on_turn_time(uv_timer_t *t);

/* The server's part of the next seed, and the commitment every LOBBY carries until that duel
 * starts: made before any player's part can have arrived for it. */
static void
new_server_part(struct gameroom *r)
{
	auth_random(r->next_part, sizeof r->next_part);
	auth_seed_commit(r->next_part, r->next_commit);
}

/* Whose parts go into the next seed: every player's but the host's own seat, which the server's
 * process plays (it would see the other part first and could pick its own). */
static unsigned
seed_parts(const struct gameroom *r)
{
	unsigned bits = (1u << PLAYERS) - 1;

	if (r->host_seat >= 0)
		bits &= ~(1u << r->host_seat);
	return bits;
}

/*
 * A command's turn-log lines go to the disk at the end of the loop iteration that applied it
 * (the server's uv_check_t, after the iteration's I/O: the players' updates are written
 * first), every room with new lines in one pass, one write(2) each. A 20 ms timer a room did
 * this before: at a human pace each command was a batch of its own all the same, and its timer
 * woke the loop once more for every command (issue 29: two context switches a command where
 * a ping-pong has one). The duel's state on disk is as fresh as before, or fresher: a kill -9
 * loses at most the commands of this one iteration.
 */
static void
log_unqueue(struct gameroom *r)
{
	if (!r->log_queued)
		return;
	*r->log_pprev = r->log_next;
	if (r->log_next)
		r->log_next->log_pprev = r->log_pprev;
	r->log_next = NULL;
	r->log_pprev = NULL;
	r->log_queued = false;
}

static void
log_later(struct gameroom *r)
{
	struct server *s = r->srv;

	if (r->dying || r->log_queued)
		return;
	r->log_next = s->log_rooms;
	if (s->log_rooms)
		s->log_rooms->log_pprev = &r->log_next;
	r->log_pprev = &s->log_rooms;
	s->log_rooms = r;
	r->log_queued = true;
	server__log_soon(s);
}

void
room__log_later(struct gameroom *r)
{
	log_later(r);
}

void
room__log_flush(struct server *s)
{
	while (s->log_rooms) {
		struct gameroom *r = s->log_rooms;
		log_unqueue(r);
		tlog_write(&r->log);
	}
}

/* A write of the turn log failed (off the loop): the duel goes on, its log in memory only. */
static void
log_failed(void *ud, const char *why)
{
	struct gameroom *r = ud;

	server__event(r->srv, LOG_ERR, r->code, NULL, "%s; the rest of the duel is logged in memory only", why);
}

/* A cluster's copy of the log (cluster_tlog): each batch appended to the room's stream; after a
 * batch Redis did not take, the whole log, so that the stream never has a hole a takeover would
 * replay across. */
static void
log_mirror(void *ud, const char *text, size_t len)
{
	struct gameroom *r = ud;
	struct cluster *cl = r->srv->cluster;

	if (cl == NULL)
		return;
	/* Held in the cluster until cluster_flush, at the end of this iteration (on_log_check). */
	server__log_soon(r->srv);
	if (!r->log_gap && cluster_tlog(cl, r->code, text, len, false, &r->log_epoch))
		return;
	r->log_gap = true; /* the whole log, this batch's lines included, now if Redis takes it */
	size_t n;
	char *whole = tlog_text(&r->log, &n);
	if (whole && cluster_tlog(cl, r->code, whole, n, true, &r->log_epoch))
		r->log_gap = false;
	free(whole);
}

/* After every tlog_open: a failed write is logged; in a cluster the log so far goes to Redis, and
 * every later batch after it. */
static void
log_hooks(struct gameroom *r)
{
	r->log.report = log_failed;
	r->log.report_ud = r;
	if (r->srv->cluster) {
		r->log.mirror = log_mirror;
		r->log.mirror_ud = r;
		r->log_gap = true;
		log_mirror(r, NULL, 0);
	}
}

/* tlog_close, and the cluster's copy deleted: a duel ended, or its room gone, is not taken over. */
static void
log_close(struct gameroom *r)
{
	bool mirrored = r->log.mirror != NULL;

	tlog_close(&r->log);
	if (mirrored && r->srv->cluster)
		cluster_tlog_end(r->srv->cluster, r->code);
}

struct gameroom *
room__create(struct server *s, const char *code)
{
	struct gameroom *r = calloc(1, sizeof *r);

	if (r == NULL)
		return NULL;
	r->srv = s;
	snprintf(r->code, sizeof r->code, "%s", code);
	r->state = ROOM_LOBBY;
	r->lobby_active = r->born = server__now(s);
	r->controller = -1;
	r->host_seat = -1;
	if (s->cfg.multi) {
		options_default(&r->opt);
	} else {
		r->opt = s->cfg.opt;
		r->turn_time = s->cfg.turn_time;
		r->seed_fixed = s->cfg.seed_fixed;
		r->seed = s->cfg.seed;
	}
	new_server_part(r);
	uv_timer_init(s->loop, &r->turn_timer);
	r->turn_timer.data = r;
	for (int i = 0; i < PLAYERS; i++) {
		uv_timer_init(s->loop, &r->seat[i].grace);
		r->seat[i].grace.data = r;
	}
	r->handles = 1 + PLAYERS;
	spect__init(r);
	s->handles++;
	return r;
}

void
room__destroy(struct gameroom *r)
{
	if (r->dying)
		return;
	r->dying = true;
	log_unqueue(r); /* tlog_close below writes what waits; the struct is freed later */
	server__room_gone(r->srv, r);
	spect__finish(r);
	for (int i = 0; i < PLAYERS; i++) {
		struct conn *c = r->seat[i].conn;
		if (c) {
			c->room = NULL;
			c->seat = -1;
			r->seat[i].conn = NULL;
			conn__bye(c, r->srv->closing ? r->srv->bye_reason : BYE_SHUTDOWN);
		}
	}
	log_close(r);
	free(r->end_log);
	r->end_log = NULL;
	free(r->end_path);
	r->end_path = NULL;
	if (r->srv->game_of == r)
		r->srv->game_of = NULL; /* a room made later at the same address is not this one */
	free(r->packed);
	r->packed = NULL;
	r->packed_len = r->packed_cap = 0;
	for (int i = 0; i < PLAYERS; i++) {
		last_drop(&r->seat[i]);
		free(r->seat[i].rated);
		r->seat[i].rated = NULL;
	}
	uv_close((uv_handle_t *)&r->turn_timer, on_timer_closed);
	uv_close((uv_handle_t *)&r->sp.timer, on_timer_closed);
	uv_close((uv_handle_t *)&r->sp.slice, on_timer_closed);
	for (int i = 0; i < PLAYERS; i++)
		uv_close((uv_handle_t *)&r->seat[i].grace, on_timer_closed);
}

/* Another node took this room over while this one was not heard from (cluster.c): its players'
 * connections are closed without a word, as if this node had died, so that their clients move on to
 * the node that holds it now; the room goes without an end, its log left in playing/ as it is
 * (server --resume asks Redis before resuming it). */
void
room__lost(struct gameroom *r)
{
	for (int i = 0; i < PLAYERS; i++) {
		struct conn *c = r->seat[i].conn;
		if (c) {
			c->room = NULL;
			c->seat = -1;
			r->seat[i].conn = NULL;
			conn__close_now(c);
		}
	}
	room__destroy(r);
}

bool
room__empty(const struct gameroom *r)
{
	for (int i = 0; i < PLAYERS; i++)
		if (r->seat[i].taken)
			return false;
	return true;
}

const struct game *
room_game(const struct gameroom *r)
{
	return game_of(r);
}

bool
room_playing(const struct gameroom *r)
{
	return r->state == ROOM_PLAYING;
}

int
room_games_played(const struct gameroom *r)
{
	return r->games;
}

int
room_seats_taken(const struct gameroom *r)
{
	int n = 0;

	for (int p = 0; p < PLAYERS; p++)
		n += r->seat[p].taken;
	return n;
}

/* The view a seat was last sent is kept at its level's size: the fields around the two
 * grids, then the grids' first `size` rows of `size` cells (1.4 KiB at 25x25, where a
 * struct view, sized for the largest level, is 5 KiB). view_build zeroes the rest. */
#define GRIDS_AT offsetof(struct view, cell)
#define GRIDS_END (offsetof(struct view, potion) + sizeof ((struct view *)0)->potion)

static bool
last_put(struct seat *st, const struct view *v)
{
	size_t n = v->opt.size <= LEVEL_MAX ? v->opt.size : LEVEL_MAX;
	size_t len = GRIDS_AT + (sizeof *v - GRIDS_END) + 2 * n * n;
	uint8_t *b = st->last_len == len ? st->last : realloc(st->last, len);

	if (!b)
		return false;
	st->last = b;
	st->last_len = len;
	memcpy(b, v, GRIDS_AT);
	b += GRIDS_AT;
	memcpy(b, (const uint8_t *)v + GRIDS_END, sizeof *v - GRIDS_END);
	b += sizeof *v - GRIDS_END;
	for (size_t y = 0; y < n; y++, b += n)
		view_row_copy(b, v->cell[y], n);
	for (size_t y = 0; y < n; y++, b += n)
		view_row_copy(b, v->potion[y], n);
	return true;
}

/* The seat's last view into v, as a view zeroed then filled: every byte but the grids' is
 * copied, and the grids past the first n rows and columns are zero already unless `*side`
 * (struct server's prev_side) says a larger level's may be left there. */
static void
last_get(const struct seat *st, struct view *v, int *side)
{
	const uint8_t *b = st->last;
	size_t n;

	memcpy(v, b, GRIDS_AT);
	b += GRIDS_AT;
	memcpy((uint8_t *)v + GRIDS_END, b, sizeof *v - GRIDS_END);
	b += sizeof *v - GRIDS_END;
	n = v->opt.size <= LEVEL_MAX ? v->opt.size : LEVEL_MAX;
	if ((size_t)*side > n)
		memset((uint8_t *)v + GRIDS_AT, 0, GRIDS_END - GRIDS_AT);
	*side = (int)n;
	for (size_t y = 0; y < n; y++, b += n)
		view_row_copy(v->cell[y], b, n);
	for (size_t y = 0; y < n; y++, b += n)
		view_row_copy(v->potion[y], b, n);
}

static void
last_drop(struct seat *st)
{
	free(st->last);
	st->last = NULL;
	st->last_len = 0;
	st->last_valid = false;
}

struct game *
room__game(struct gameroom *r)
{
	return game_of(r);
}

/* Sending. */

static void
send_to(struct gameroom *r, int p, const struct wire_msg *m)
{
	if (r->seat[p].conn)
		conn__send(r->seat[p].conn, m);
}

static void
send_peer(struct gameroom *r, int to, int player, int state, unsigned seconds)
{
	struct wire_msg *m = &r->srv->out;

	m->type = WIRE_PEER;
	m->u.peer.player = (uint8_t)player;
	m->u.peer.state = (uint8_t)state;
	m->u.peer.seconds = (uint16_t)(seconds > 65535 ? 65535 : seconds);
	send_to(r, to, m);
}

static void
lobby_fill(struct gameroom *r, struct wire_msg *m)
{
	memset(&m->u.lobby, 0, sizeof m->u.lobby);
	m->type = WIRE_LOBBY;
	m->u.lobby.opt = r->opt;
	m->u.lobby.turn_time = (uint16_t)r->turn_time;
	m->u.lobby.controller = (uint8_t)(r->controller < 0 ? 0 : r->controller);
	for (int i = 0; i < PLAYERS; i++) {
		const struct seat *st = &r->seat[i];
		/* LOBBY names only connected players; a held seat shows as absent. */
		if (!st->taken || !st->conn)
			continue;
		snprintf(m->u.lobby.name[i], sizeof m->u.lobby.name[i], "%s", st->name);
		m->u.lobby.present |= (uint8_t)((st->conn != NULL) << i);
		m->u.lobby.ready |= (uint8_t)(st->ready << i);
		m->u.lobby.bots |= (uint8_t)(st->bot << i);
		m->u.lobby.rematch |= (uint8_t)(st->rematch << i);
	}
	/* During a duel, its commitment and parts; between duels, the next one's. */
	if (r->state == ROOM_PLAYING) {
		m->u.lobby.parts = r->parts;
		memcpy(m->u.lobby.commit, r->commit, sizeof r->commit);
	} else {
		m->u.lobby.parts = (uint8_t)seed_parts(r);
		memcpy(m->u.lobby.commit, r->next_commit, sizeof r->next_commit);
	}
}

void
room__lobby_fill(struct gameroom *r, struct wire_msg *m)
{
	lobby_fill(r, m);
}

void
room__lobby_to(struct gameroom *r, struct conn *c)
{
	struct wire_msg *m = &r->srv->out;

	lobby_fill(r, m);
	conn__send(c, m);
}

static void
send_lobby(struct gameroom *r)
{
	struct wire_msg *m = &r->srv->out;

	lobby_fill(r, m);
	for (int to = 0; to < PLAYERS; to++)
		if (r->seat[to].conn)
			conn__send(r->seat[to].conn, m);
	/* The spectators hear who plays too (the same message, encoded once). */
	spect__send_all(r, m);
}

/* How long a seat dropped without BYE is held in the lobby, in ms: lobby_hold_ms, never longer
 * than the grace; 0 when lobby seats are not held. What room__conn_lost holds and WELCOME says. */
static unsigned
lobby_hold_ms(const struct server *s)
{
	const struct server_limits *l = &s->cfg.lim;

	return l->lobby_hold_ms < l->grace_ms ? l->lobby_hold_ms : l->grace_ms;
}

/* Seconds as the wire says a hold (WELCOME, PEER): rounded up, so that a client never counts
 * a seat lost before the server gives it up. server_create keeps the grace within a u16. */
static uint16_t
hold_secs(unsigned ms)
{
	return (uint16_t)((ms + 999) / 1000);
}

/* NODES, just before a player's WELCOME in a cluster: where to resume if this node dies. */
void
room__send_nodes(struct gameroom *r, int p)
{
	conn__send_nodes(r->seat[p].conn);
}

static void
send_welcome(struct gameroom *r, int p)
{
	struct server *s = r->srv;
	struct wire_msg *m = &s->out;
	struct seat *st = &r->seat[p];

	room__send_nodes(r, p);

	memset(&m->u.welcome, 0, sizeof m->u.welcome);
	m->type = WIRE_WELCOME;
	m->u.welcome.player = (uint8_t)p;
	m->u.welcome.controller = r->controller == p;
	m->u.welcome.names_owned = server_names_owned(s);
	m->u.welcome.token_len = st->token_len;
	memcpy(m->u.welcome.token, st->token, st->token_len);
	/* This server's own figures, every time (join, resume, control handed over, a mirror
	 * rematch): the client says them instead of a default. */
	m->u.welcome.hold = hold_secs(lobby_hold_ms(s));
	m->u.welcome.grace = hold_secs(s->cfg.lim.grace_ms);
	conn__send(st->conn, m);
}

/* The whole view, from nothing: a new duel's START or a resumed player's snapshot. */
static void
send_start(struct gameroom *r, int p, bool resumed)
{
	struct server *s = r->srv;
	struct wire_msg *m = &s->out;
	struct seat *st = &r->seat[p];

	if (!st->conn)
		return;
	update_blank(&s->prev);
	view_build(game_of(r), p, &s->view);
	m->type = WIRE_START;
	m->u.start.resumed = resumed;
	m->u.start.chosen = r->seed_chosen;
	m->u.start.mirror = r->seed_mirror;
	m->u.start.first = game_of(r)->first;
	/* After the end (a snapshot for a player who was away) the options may have changed since. */
	m->u.start.turn_time = (uint16_t)(r->state == ROOM_PLAYING ? r->turn_time : r->end_turn_time);
	memcpy(m->u.start.commit, r->commit, sizeof r->commit);
	if (update_make(&s->prev, &s->view, NULL, p, &m->u.start.view, &s->err) != 0) {
		conn__drop(st->conn, PERR_SERVER, s->err.why);
		return;
	}
	if (!last_put(st, &s->view)) {
		conn__drop(st->conn, PERR_NOMEM, "out of memory");
		return;
	}
	conn__send(st->conn, m);
	st->last_valid = true;
}

/* After every applied command: each seat gets what changed for it, and nothing at
 * all when nothing did: even an empty frame would betray an unseen step. */
static void
send_updates(struct gameroom *r, const struct events *ev)
{
	struct server *s = r->srv;
	struct wire_msg *m = &s->out;

	for (int p = 0; p < PLAYERS; p++) {
		struct seat *st = &r->seat[p];
		if (!st->conn || !st->last_valid)
			continue;
		view_build_after(game_of(r), p, ev, &s->view);
		last_get(st, &s->prev, &s->prev_side);
		m->type = WIRE_UPDATE;
		if (update_make(&s->prev, &s->view, ev, p, &m->u.update, &s->err) != 0) {
			conn__drop(st->conn, PERR_SERVER, s->err.why);
			continue;
		}
		if (!last_put(st, &s->view)) {
			conn__drop(st->conn, PERR_NOMEM, "out of memory");
			continue;
		}
		if (m->u.update.has)
			conn__send(st->conn, m);
	}
}

/* Seats. */

void
room__rated(struct gameroom *r, const struct wire_msg *m)
{
	const struct rated_rec *x = &m->u.rated.rec;

	for (int p = 0; p < PLAYERS; p++) {
		struct seat *st = &r->seat[p];
		if (!st->taken || !st->keyed || memcmp(st->key, x->key[p], sizeof st->key) != 0)
			continue;
		if (st->conn) {
			conn__send(st->conn, m);
			/* Its new rating is what its room is listed by from now on. */
			st->conn->rating = quick__rating(&(struct store_rating){ x->after[p].rating, x->after[p].deviation, true });
			continue;
		}
		/* Away (its seat held for the end, or dropped in the lobby since): sent on resume. A
		 * player that never comes back finds the record in `wizwar history`, signed all the same. */
		if (st->rated == NULL && (st->rated = malloc(sizeof *st->rated)) == NULL)
			continue; /* out of memory: history still has it */
		*st->rated = *m;
	}
}

static void
free_seat(struct gameroom *r, int p)
{
	struct seat *st = &r->seat[p];

	uv_timer_stop(&st->grace);
	memset(st->name, 0, sizeof st->name);
	st->taken = st->ready = st->rematch = st->bot = st->reserved = st->grace_on = st->last_valid = false;
	last_drop(st);
	st->end_pending = st->post_duel = st->bye = false;
	st->conn = NULL;
	memset(st->token, 0, sizeof st->token);
	st->token_len = 0;
	st->keyed = false;
	memset(st->key, 0, sizeof st->key);
	free(st->rated);
	st->rated = NULL;
	if (r->controller == p)
		r->controller = r->seat[1 - p].taken ? 1 - p : -1;
	if (r->host_seat == p)
		r->host_seat = -1;
}

/* The last duel's log is kept only while a seat is, or may yet be, owed its END: one held for it,
 * or one of its players still in the lobby (a drop without BYE would hold it). */
static void
end_release(struct gameroom *r)
{
	for (int p = 0; p < PLAYERS; p++)
		if (r->seat[p].end_pending || (r->seat[p].taken && r->seat[p].post_duel))
			return;
	free(r->end_log);
	r->end_log = NULL;
	r->end_log_len = 0;
}

static void
new_token(struct seat *st)
{
	st->token_len = PROTO_TOKEN_MAX;
	auth_random(st->token, st->token_len);
	auth_token_hash(st->token, st->token_len, st->token_hash);
}

int
room__join(struct gameroom *r, struct conn *c)
{
	struct server *s = r->srv;
	int p = -1;

	if (r->dying)
		return PERR_SERVER;
	if (c->who.role == ROLE_SPECTATOR)
		return spect__join(r, c);
	for (int i = 0; i < PLAYERS; i++)
		if (r->seat[i].taken && strcmp(r->seat[i].name, c->who.name) == 0)
			return PERR_NAME_TAKEN;
	for (int i = 0; i < PLAYERS && p < 0; i++)
		if (!r->seat[i].taken)
			p = i;
	if (p < 0 || r->state == ROOM_PLAYING)
		return PERR_ROOM_FULL;
	struct seat *st = &r->seat[p];
	st->taken = true;
	st->conn = c;
	st->bot = c->who.role == ROLE_BOT;
	st->ready = st->rematch = false;
	snprintf(st->name, sizeof st->name, "%s", c->who.name);
	if ((st->keyed = conn_ident(c) != NULL))
		memcpy(st->key, c->ident, sizeof st->key);
	new_token(st);
	if (r->controller < 0)
		r->controller = p;
	c->room = r;
	c->seat = p;
	c->state = CONN_JOINED;
	c->srv->m.welcomed++;
	r->lobby_active = server__now(s);
	/* The key is not repeated here: c->peer carries it (" key=FP") since IDENT, which comes first. */
	server__event(s, LOG_INFO, r->code, c->peer, "%s joins room %s as player %d%s", st->name, r->code, p + 1,
	            r->controller == p ? " (controller)" : "");
	send_welcome(r, p);
	send_lobby(r);
	spect__joined(r, c);
	return PERR_OK;
}

int
room__reserve(struct gameroom *r, int want, const char *name, uint8_t token[PROTO_TOKEN_MAX], size_t *len)
{
	int p = r->host_seat;

	if (p < 0 && want >= 0 && want < PLAYERS && r->state == ROOM_LOBBY)
		p = want; /* practice's mirror rematch: the person takes the seat the bot had */
	if (p < 0) {
		if (r->state == ROOM_PLAYING)
			return -1;
		for (int i = 0; i < PLAYERS && p < 0; i++)
			if (!r->seat[i].taken)
				p = i;
		if (p < 0)
			return -1;
	}
	struct seat *st = &r->seat[p];
	if (st->conn)
		return -1;
	if (!st->taken) {
		st->taken = true;
		snprintf(st->name, sizeof st->name, "%s", name);
	}
	st->reserved = true;
	new_token(st);
	r->host_seat = p;
	if (r->state == ROOM_LOBBY)
		r->controller = p;
	memcpy(token, st->token, st->token_len);
	*len = st->token_len;
	return 0;
}

int
room__resume(struct gameroom *r, struct conn *c, const struct wire_resume *m)
{
	struct server *s = r->srv;
	int p = -1;
	uint8_t h[32];

	if (r->dying)
		return PERR_RESUME;
	auth_token_hash(m->token, m->token_len, h);
	/* Both seats are compared, in constant time, whatever matches first. */
	for (int i = 0; i < PLAYERS; i++) {
		const struct seat *st = &r->seat[i];
		bool match;
		if (!st->taken)
			continue;
		if (st->token_len)
			match = st->token_len == m->token_len && auth_equal(st->token, m->token, st->token_len);
		else
			match = auth_equal(st->token_hash, h, sizeof h);
		if (match)
			p = i;
	}
	if (p < 0)
		return PERR_RESUME;
	struct seat *st = &r->seat[p];
	if (st->conn) {
		/* The token is the player: whoever shows it now is the player, and the connection
		 * that held the seat is taken to be half-open or stale (a client on a new network, a
		 * killed client's socket the kernel has not closed yet). It gets BYE "replaced" and
		 * does not come back on its own (docs/server.md, "Dropped connections"). */
		struct conn *old = st->conn;
		server__event(s, LOG_NOTICE, r->code, c->peer, "%s's seat in room %s was still held by %s: replaced", st->name,
		              r->code, old->peer);
		st->conn = NULL;
		old->room = NULL;
		old->seat = -1;
		old->state = CONN_HELLO; /* no longer a member: closing it must not touch the seat */
		conn__bye(old, BYE_REPLACED);
	}
	if (st->token_len == 0) {
		st->token_len = m->token_len;
		memcpy(st->token, m->token, m->token_len);
	}
	st->conn = c;
	st->reserved = st->bye = false;
	if (c->who.role == ROLE_BOT)
		st->bot = true;
	c->room = r;
	c->seat = p;
	c->state = CONN_JOINED;
	c->srv->m.welcomed++;
	bool held = st->grace_on;
	if (st->grace_on) {
		uv_timer_stop(&st->grace);
		st->grace_on = false;
	}
	server__event(s, LOG_INFO, r->code, c->peer, "%s is back in room %s as player %d", st->name, r->code, p + 1);
	send_welcome(r, p);
	/* START before LOBBY: a client that sees the lobby first would think it is between duels. */
	if (r->state == ROOM_PLAYING) {
		send_start(r, p, true);
	} else if (st->end_pending) {
		/* The duel ended while it was away: its final view, then END and the log (so that
		 * it can check the host), then the lobby. The room's game is still that duel's: no new
		 * one starts while this seat is held. */
		send_start(r, p, true);
		st->last_valid = false;
		send_end(r, p);
		st->end_pending = false;
		end_release(r);
		send_peer(r, 1 - p, p, PEER_BACK, 0);
	} else if (held) {
		/* Held in the lobby: the other player was told of the drop, so it is told of the return. */
		send_peer(r, 1 - p, p, PEER_BACK, 0);
	}
	if (st->rated) { /* after its END: the rating of the duel that ended while it was away */
		conn__send(c, st->rated);
		free(st->rated);
		st->rated = NULL;
	}
	send_lobby(r);
	if (r->state == ROOM_PLAYING) {
		send_peer(r, 1 - p, p, PEER_BACK, 0);
		if (game_of(r)->turn == p)
			arm_turn(r);
	}
	return PERR_OK;
}

void
room__conn_lost(struct gameroom *r, struct conn *c)
{
	struct server *s = r->srv;
	int p = c->seat;

	if (c->spect) {
		spect__conn_lost(r, c);
		return;
	}
	if (p < 0 || p >= PLAYERS || r->seat[p].conn != c)
		return;
	struct seat *st = &r->seat[p];
	st->conn = NULL;
	st->last_valid = false;
	if (r->dying)
		return;
	if (r->state == ROOM_PLAYING) {
		/* A banned player cannot come back (its key, name or address is refused): the other
		 * one is not kept waiting for the grace. The forfeit is the grace's, at the loop's
		 * next turn, not here inside the drop. */
		uint64_t ms = c->banned ? 0 : s->cfg.lim.grace_ms;
		unsigned secs = hold_secs(ms);
		if (c->banned)
			server__event(s, LOG_NOTICE, r->code, NULL, "%s is banned: the seat is not held", st->name);
		else
			server__event(s, LOG_INFO, r->code, NULL, "%s dropped; the seat is held %u s", st->name, secs);
		st->grace_on = true;
		st->grace_until = server__now(s) + ms;
		uv_timer_start(&st->grace, on_grace, ms, 0);
		send_peer(r, 1 - p, p, PEER_DROPPED, secs);
		if (game_of(r)->turn == p)
			uv_timer_stop(&r->turn_timer);
		send_lobby(r);
		return;
	}
	if (!st->bye && !c->offender && lobby_hold_ms(s) > 0) {
		/* In the lobby, before the first duel or between duels, a drop without BYE is a broken
		 * link or a killed client, not leaving: the seat (name, control, token) stays its for
		 * a while, and its client comes back with its token. (A peer dropped for breaking the
		 * protocol has been told so and does not come back.) Not its READY: the room never
		 * shows ready, nor starts a duel with, a player who is not there; a client that comes
		 * back by itself says READY again. After a duel the drop may have come just as END
		 * went out, before it was read: that END is owed to it again. */
		unsigned ms = lobby_hold_ms(s);
		server__event(s, LOG_INFO, r->code, NULL, "%s dropped %s; the seat is held %u s%s", st->name,
		            st->post_duel ? "after the duel" : "in the lobby", hold_secs(ms),
		            st->post_duel ? " for its END" : "");
		st->end_pending = st->post_duel;
		st->ready = st->rematch = false;
		st->grace_on = true;
		st->grace_until = server__now(s) + ms;
		uv_timer_start(&st->grace, on_grace, ms, 0);
		send_peer(r, 1 - p, p, PEER_DROPPED, hold_secs(ms));
		send_lobby(r);
		return;
	}
	server__event(s, LOG_INFO, r->code, NULL, "%s left", st->name);
	free_seat(r, p);
	end_release(r);
	for (int i = 0; i < PLAYERS; i++)
		r->seat[i].ready = r->seat[i].rematch = false;
	send_peer(r, 1 - p, p, PEER_GONE, 0);
	send_lobby(r);
	if (s->cfg.multi && room__empty(r))
		room__destroy(r);
}

/* Timers. */

static void
on_grace(uv_timer_t *t)
{
	struct gameroom *r = t->data;
	struct cmd resign = { CMD_RESIGN, 0, 0 };

	if (server__fenced(r->srv)) { /* the room may be another node's now: decided within a beat */
		uv_timer_start(t, on_grace, FENCE_RETRY_MS, 0);
		return;
	}
	for (int p = 0; p < PLAYERS; p++) {
		struct seat *st = &r->seat[p];
		if (t != &st->grace)
			continue;
		st->grace_on = false;
		if (r->state == ROOM_PLAYING && game_of(r)->result == RESULT_NONE) {
			server__event(r->srv, LOG_NOTICE, r->code, NULL, "%s did not come back: forfeit", st->name);
			apply(r, p, &resign, MSG_NONE);
		} else if (st->taken && !st->conn) {
			/* Away when the duel ended, or dropped in the lobby without BYE, and not back
			 * in time: the seat is free. */
			server__event(r->srv, LOG_INFO, r->code, NULL, "%s did not come back; the seat is free", st->name);
			free_seat(r, p);
			end_release(r);
			for (int i = 0; i < PLAYERS; i++)
				r->seat[i].ready = r->seat[i].rematch = false;
			send_peer(r, 1 - p, p, PEER_GONE, 0);
			send_lobby(r);
			if (r->srv->cfg.multi && room__empty(r))
				room__destroy(r);
		}
		return;
	}
}

static void
arm_turn(struct gameroom *r)
{
	uv_timer_stop(&r->turn_timer);
	if (r->state != ROOM_PLAYING || r->turn_time <= 0 || game_of(r)->result != RESULT_NONE)
		return;
	if (!r->seat[game_of(r)->turn].conn)
		return; /* a dropped player's turn waits for it, untimed */
	uv_timer_start(&r->turn_timer, on_turn_time, (uint64_t)r->turn_time * 1000, 0);
}

static void
on_turn_time(uv_timer_t *t)
{
	struct gameroom *r = t->data;
	struct cmd pass = { CMD_PASS, 0, 0 };

	if (r->state != ROOM_PLAYING || game_of(r)->result != RESULT_NONE)
		return;
	if (server__fenced(r->srv)) { /* as on_grace */
		uv_timer_start(t, on_turn_time, FENCE_RETRY_MS, 0);
		return;
	}
	server__event(r->srv, LOG_INFO, r->code, NULL, "time is up for player %d", game_of(r)->turn + 1);
	apply(r, game_of(r)->turn, &pass, MSG_TIME_UP);
}

/* The duel. */

/* A duel's log while it plays: LOGDIR/playing/wizwar-ROOM-YYYYmmdd-HHMMSS-N.log (logtree.h). */
static bool
log_path(struct gameroom *r, char *buf, size_t len)
{
	struct server *s = r->srv;
	char stamp[32], name[128];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(name, sizeof name, "wizwar-%s-%s-%u.log", r->code, stamp, ++s->log_seq);
	return logtree_playing_path(buf, len, s->cfg.log_dir, name);
}

static void
log_extra(struct gameroom *r, char *buf, size_t len)
{
	static const char *const kinds[] = { "drawn", "chosen", "mirror", "chosen-mirror" };
	char h[2 * PROTO_PART_LEN + 1];
	size_t n = 0;

	/* The room's code, so that `server --resume` brings the duel back into the room its players
	 * will RESUME to whatever the file is called by then (docs/server.md). A one-room host's
	 * room has no code a player names (HOST_ROOM): it writes none, and `host --resume LOG`
	 * needs none. Codes were checked on the way in (TEXT_ROOM: letters, digits, '-', '_');
	 * checked again here, since a line break in one would forge lines of the log. */
	if (r->srv->cfg.multi && text_check(r->code, strlen(r->code), TEXT_ROOM))
		n += (size_t)snprintf(buf + n, len - n, "# wizwar-server room %s\n", r->code);
	sodium_bin2hex(h, sizeof h, r->server_part, sizeof r->server_part);
	n += (size_t)snprintf(buf + n, len - n, "# wizwar-server seed-part %s\n", h);
	for (int p = 0; p < PLAYERS; p++) {
		if (!((r->parts >> p) & 1))
			continue;
		sodium_bin2hex(h, sizeof h, r->part[p], sizeof r->part[p]);
		n += (size_t)snprintf(buf + n, len - n, "# wizwar-server part %d %s\n", p, h);
	}
	n += (size_t)snprintf(buf + n, len - n, "# wizwar-server seed %s\n",
	                      kinds[(r->seed_chosen ? 1 : 0) | (r->seed_mirror ? 2 : 0)]);
	for (int p = 0; p < PLAYERS; p++) {
		sodium_bin2hex(h, sizeof h, r->seat[p].token_hash, 32);
		n += (size_t)snprintf(buf + n, len - n, "# wizwar-server token %d %s\n", p, h);
	}
	/* The players' keys, so that a duel resumed after a restart is rated between them. */
	for (int p = 0; p < PLAYERS; p++) {
		if (!r->seat[p].keyed)
			continue;
		sodium_bin2hex(h, sizeof h, r->seat[p].key, sizeof r->seat[p].key);
		n += (size_t)snprintf(buf + n, len - n, "# wizwar-server key %d %s\n", p, h);
	}
	if (r->host_seat >= 0)
		n += (size_t)snprintf(buf + n, len - n, "# wizwar-server host %d\n", r->host_seat);
	n += (size_t)snprintf(buf + n, len - n, "# wizwar-server turn-time %d\n", r->turn_time);
	/* Who may watch and what, so that a resumed duel keeps the promise its players were made. */
	char words[32];
	spect__log_words(r, words, sizeof words);
	snprintf(buf + n, len - n, "# wizwar-server spectators %s\n", words);
}

/* A mirror rematch: each player takes the other's seat (and so its start and first move), with its
 * name, token and connection; the grace timers stay, as libuv handles cannot move (neither runs in
 * the lobby, where both are connected). */
static void
swap_seats(struct gameroom *r)
{
	struct seat *a = &r->seat[0], *b = &r->seat[1];
	static struct seat t; /* one room at a time, on the loop's thread */

#define SWAP(f) do { memcpy(&t.f, &a->f, sizeof t.f); memcpy(&a->f, &b->f, sizeof t.f); memcpy(&b->f, &t.f, sizeof t.f); } while (0)
	SWAP(taken); SWAP(conn); SWAP(name); SWAP(token); SWAP(token_len); SWAP(token_hash); SWAP(bot);
	SWAP(reserved); SWAP(keyed); SWAP(key); SWAP(end_pending); SWAP(last_valid); SWAP(last); SWAP(last_len);
	SWAP(rated);
#undef SWAP
	for (int p = 0; p < PLAYERS; p++)
		if (r->seat[p].conn)
			r->seat[p].conn->seat = p;
	r->controller = 1 - r->controller;
	if (r->host_seat >= 0)
		r->host_seat = 1 - r->host_seat;
	for (int p = 0; p < PLAYERS; p++)
		if (r->seat[p].conn)
			send_welcome(r, p);
	send_lobby(r); /* the names, by their new seats */
}

static int
start_game(struct gameroom *r)
{
	struct server *s = r->srv;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, r->opt, 0, { "", "" } };
	char path[4096], why[256], extra[1024];
	bool mirror;
	int err;

	free(r->end_log);
	r->end_log = NULL;
	r->end_log_len = 0;
	for (int p = 0; p < PLAYERS; p++)
		r->seat[p].end_pending = r->seat[p].post_duel = false;
	mirror = r->games > 0 && r->seat[0].rematch && r->seat[0].mirror && r->seat[1].rematch && r->seat[1].mirror;
	if (mirror) {
		server__event(s, LOG_INFO, r->code, NULL, "a mirror rematch: seed %016" PRIx64 " again, the seats swapped", r->seed);
		swap_seats(r);
	}
	r->seat[0].mirror = r->seat[1].mirror = false;
	/* This duel takes the part committed to in the LOBBYs its players answered. */
	memcpy(r->server_part, r->next_part, sizeof r->server_part);
	memcpy(r->commit, r->next_commit, sizeof r->commit);
	r->parts = 0;
	memset(r->part, 0, sizeof r->part);
	r->seed_mirror = mirror;
	if (mirror) {
		/* The last duel's seed (and whether the host chose it) again: both asked for it. */
	} else if (r->seed_fixed) {
		r->seed_chosen = true;
	} else {
		r->seed_chosen = false;
		r->parts = (uint8_t)seed_parts(r);
		for (int p = 0; p < PLAYERS; p++)
			if ((r->parts >> p) & 1)
				memcpy(r->part[p], r->seat[p].part, sizeof r->part[p]);
		r->seed = auth_seed_mix(r->server_part, r->parts, r->part);
	}
	r->seed_fixed = false;
	new_server_part(r);
	if ((err = game_init(game_of(r), &r->opt, r->seed)) != ERR_OK || game_keep(r) != 0) {
		s->game_of = NULL; /* the last duel's game, still packed, is the room's */
		server__event(s, LOG_ERR, r->code, NULL, "cannot start: %s", err != ERR_OK ? err_text(err) : "out of memory");
		return -1;
	}
	h.seed = r->seed;
	for (int p = 0; p < PLAYERS; p++) {
		/* A protocol name may have 64 bytes, a log's 63: cut on a code point boundary. */
		size_t n = strlen(r->seat[p].name);
		if (n > sizeof h.name[p] - 1)
			n = sizeof h.name[p] - 1;
		while (n > 0 && ((uint8_t)r->seat[p].name[n] & 0xc0) == 0x80)
			n--;
		memcpy(h.name[p], r->seat[p].name, n);
		h.name[p][n] = '\0';
		r->seat[p].ready = r->seat[p].rematch = false;
	}
	log_extra(r, extra, sizeof extra);
	bool on_disk = s->cfg.log_dir && log_path(r, path, sizeof path);
	if (tlog_open(&r->log, s->loop, on_disk ? path : NULL, &h, game_hash(game_of(r)), extra, why,
	              sizeof why) != 0) {
		server__event(s, LOG_ERR, r->code, NULL, "%s; the duel is logged in memory only", why);
		tlog_open(&r->log, s->loop, NULL, &h, game_hash(game_of(r)), extra, why, sizeof why);
	}
	log_hooks(r);
	r->state = ROOM_PLAYING;
	s->m.duels_started++;
	server__event(s, LOG_NOTICE, r->code, NULL, "duel %d starts: %s vs %s, %dx%d%s%s%s", r->games + 1, r->seat[0].name,
	            r->seat[1].name, r->opt.size, r->opt.size, r->opt.fov ? "" : ", no FoV",
	            r->opt.potions ? "" : ", no potions", r->log.path ? "" : " (log in memory)");
	if (r->log.path)
		server__event(s, LOG_INFO, r->code, NULL, "turn log %s", r->log.path);
	for (int p = 0; p < PLAYERS; p++)
		send_start(r, p, false);
	spect__started(r);
	arm_turn(r);
	return 0;
}

static void
maybe_start(struct gameroom *r)
{
	for (int p = 0; p < PLAYERS; p++)
		if (!r->seat[p].taken || !r->seat[p].conn || !r->seat[p].ready)
			return;
	start_game(r);
}

static void
flush_all(struct conn *const to[PLAYERS])
{
	for (int q = 0; q < PLAYERS; q++)
		if (to[q])
			conn__flush(to[q]);
}

/* Apply a command for player p (from its client, its timer or its forfeit) and tell
 * both players what they may know of it. Returns ERR_OK or the refusal. */
static int
apply(struct gameroom *r, int p, const struct cmd *c, int extra_msg)
{
	struct server *s = r->srv;
	struct events ev;
	int err;

	if ((err = game_apply(game_of(r), p, c, &ev)) != ERR_OK)
		return err;
	if (game_keep(r) != 0) {
		/* The game stays as it was before this command, which nobody has seen or logged:
		 * both players are dropped, to come back (RESUME) to it and send their command again. */
		server__event(s, LOG_ERR, r->code, NULL, "out of memory for the game; both players dropped");
		for (int q = 0; q < PLAYERS; q++)
			if (r->seat[q].conn)
				conn__drop(r->seat[q].conn, PERR_NOMEM, "out of memory on the server");
		return ERR_OK;
	}
	if (extra_msg != MSG_NONE && ev.nmsg < EVENTS_MSG_MAX)
		ev.msg[ev.nmsg++] = (struct msg){ (uint16_t)extra_msg, (uint8_t)(1u << p), 0, 0 };
	/* Everything this command sends a player (its UPDATE, and at the end END, the log,
	 * LOBBY) goes out as one record in one write: one packet, one tag. A conn is freed
	 * only in a close callback, so these stay valid even if finish() closes the room. */
	struct conn *to[PLAYERS];
	for (int q = 0; q < PLAYERS; q++)
		if ((to[q] = r->seat[q].conn) != NULL)
			conn__cork(to[q]);
	send_updates(r, &ev);
	if (s->cfg.hooks.applied)
		s->cfg.hooks.applied(s->cfg.hooks.ud, r, p, c, &ev);
	/* The hook may have closed the server (a test's kill): then the room is done. */
	bool over = !r->dying && game_of(r)->result != RESULT_NONE;
	/* A duel that goes on: the updates are written now, and only then comes the log's
	 * bookkeeping (its line, the turn's hash) and the turn timer. The last command's
	 * record also carries END, the log and LOBBY, which need its line: it waits for them. */
	if (!over)
		flush_all(to);
	if (!r->dying) {
		tlog_cmd(&r->log, p, c, game_of(r), ev.turn_ended); /* in memory: END reveals it */
		spect__applied(r, &ev); /* after the players' updates: a flag, and a frame at the tick */
	}
	if (over) {
		/* The end's spectator traffic (the whole truth to each, LOBBY to each: a thousand
		 * writes) after the players' record, not before it. */
		spect__hold(r);
		finish(r);
		flush_all(to);
		spect__release(r);
	} else if (!r->dying && ev.turn_ended) {
		arm_turn(r);
	}
	/* The lines go to the disk at the end of this loop iteration (log_unqueue's comment):
	 * no disk I/O between a command and its updates. */
	log_later(r);
	return ERR_OK;
}

static void
send_end(struct gameroom *r, int p)
{
	struct wire_msg *m = &r->srv->out;
	uint32_t total = r->end_log ? r->end_log_len : 0;

	if (!r->seat[p].conn)
		return;
	m->type = WIRE_END;
	m->u.end.result = game_of(r)->result;
	m->u.end.reason = game_of(r)->end_reason;
	m->u.end.seed = r->seed;
	memcpy(m->u.end.server_part, r->server_part, sizeof r->server_part);
	m->u.end.parts = r->parts;
	memcpy(m->u.end.part, r->part, sizeof r->part);
	m->u.end.hash = game_hash(game_of(r));
	m->u.end.log_len = total;
	send_to(r, p, m);
	for (uint32_t off = 0; off < total && r->seat[p].conn;) {
		uint32_t n = total - off > PROTO_LOG_CHUNK ? PROTO_LOG_CHUNK : total - off;
		m->type = WIRE_LOG_CHUNK;
		m->u.log.offset = off;
		m->u.log.len = (uint16_t)n;
		memcpy(m->u.log.data, r->end_log + off, n);
		send_to(r, p, m);
		off += n;
	}
}

/* A duel that counts for the ladder (docs/server.md, "Ratings"): on a server with a store, between
 * two keyed players, two keys (one key on both seats rates nothing). Every end counts: played
 * out, resigned, or forfeited by leaving or by the grace running out. */
static bool
rated(const struct gameroom *r)
{
	return r->srv->store != NULL && r->srv->cfg.multi && r->seat[0].keyed && r->seat[1].keyed &&
	       memcmp(r->seat[0].key, r->seat[1].key, sizeof r->seat[0].key) != 0;
}

static void
finish(struct gameroom *r)
{
	struct server *s = r->srv;
	static const char *const res[] = { "none", "player 1 wins", "player 2 wins", "a draw" };
	bool rate = rated(r);

	uv_timer_stop(&r->turn_timer);
	tlog_end(&r->log, game_of(r));
	server__event(s, LOG_NOTICE, r->code, NULL, "duel over after %" PRIu32 " turns: %s", game_of(r)->turn_no,
	            res[game_of(r)->result & 3]);
	/* The log text is revealed at END, now and to a player who comes back later. */
	free(r->end_log);
	r->end_log = NULL;
	r->end_log_len = 0;
	size_t n;
	if ((r->end_log = tlog_text_players(&r->log, &n)) != NULL)
		r->end_log_len = (uint32_t)n;
	r->end_turn_time = r->turn_time;
	/* Compressed, off the loop, into the day's folder of the log tree (logtree.h) once the
	 * log is closed below; a log resumed from elsewhere (host --resume PATH, no log
	 * directory) goes beside its plain file, as PATH.gz. */
	free(r->end_path);
	r->end_path = NULL;
	if (r->log.path) {
		char keep[4400];
		if (s->cfg.log_dir && logtree_done_path(keep, sizeof keep, s->cfg.log_dir, time(NULL), r->log.path))
			r->end_path = strdup(keep);
		else if ((r->end_path = malloc(strlen(r->log.path) + 4)) != NULL)
			sprintf(r->end_path, "%s.gz", r->log.path);
		if (r->end_path == NULL || tlog_keep_as(&r->log, r->end_path) != 0) {
			free(r->end_path); /* out of memory: not said; the plain log stays */
			r->end_path = NULL;
		}
	}
	for (int p = 0; p < PLAYERS; p++)
		send_end(r, p);
	spect__ended(r);
	/* A rated duel: its log stays plain in playing/ until the result is in the store (killed
	 * before that, the server rates it again at its next start: server_resume_dir), and the
	 * store is asked only once the end line is written (tlog_close writes what is left at
	 * once): a result the store has is always one the log on disk has. The duel's id makes a
	 * second rating of the same duel count nothing. */
	struct store_duel d;
	char *plain = NULL;
	if (rate) {
		static const uint8_t results[] = { [RESULT_WIN0] = RATED_WIN0, [RESULT_WIN1] = RATED_WIN1, [RESULT_DRAW] = RATED_DRAW };
		memset(&d, 0, sizeof d);
		d.time = (int64_t)time(NULL);
		d.reason = game_of(r)->end_reason;
		memcpy(d.commit, r->commit, sizeof d.commit);
		for (int p = 0; p < PLAYERS; p++)
			memcpy(d.key[p], r->seat[p].key, sizeof d.key[p]);
		d.result = results[game_of(r)->result & 3];
		r->log.hold = r->log.path != NULL && r->end_path != NULL && (plain = strdup(r->log.path)) != NULL;
	}
	log_close(r);
	if (rate) {
		server__rate(s, r->code, &d, plain, plain ? r->end_path : NULL);
		free(plain);
	}
	r->state = ROOM_LOBBY;
	r->lobby_active = server__now(s);
	r->games++;
	s->m.duels_finished++;
	for (int p = 0; p < PLAYERS; p++) {
		struct seat *st = &r->seat[p];
		st->ready = st->rematch = false;
		last_drop(st);
		st->post_duel = st->taken;
		if (st->conn) /* the next duel's frames have little to refer back to: free its history */
			pconn_forget(&st->conn->pc);
		if (!st->taken || st->conn)
			continue;
		if (st->grace_on) {
			/* Away when the duel ended and still within its grace: the seat, its token
			 * and its END wait for it (room__resume) until the grace runs out. */
			st->end_pending = true;
			server__event(s, LOG_INFO, r->code, NULL, "%s is away; its seat is held for the end", st->name);
		} else {
			/* Forfeited: the seat is free again. */
			free_seat(r, p);
			send_peer(r, 1 - p, p, PEER_GONE, 0);
		}
	}
	end_release(r);
	if (s->cfg.hooks.ended)
		s->cfg.hooks.ended(s->cfg.hooks.ud, r);
	send_lobby(r);
	if (s->cfg.multi && room__empty(r))
		room__destroy(r);
}

/* Messages from a member. */

static void
on_cmd(struct gameroom *r, struct conn *c, const struct cmd *cmd)
{
	int err;

	if (r->state != ROOM_PLAYING) {
		conn__error(c, PERR_STATE, false, "no duel is being played");
		return;
	}
	if ((err = apply(r, c->seat, cmd, MSG_NONE)) != ERR_OK)
		conn__error(c, PERR_REFUSED_BASE + err, false, "%s", err_text(err));
}

static void
on_chat(struct gameroom *r, struct conn *c, const struct wire_chat *m)
{
	struct server *s = r->srv;
	struct wire_msg *out = &s->out;
	uint64_t now = server__now(s);

	if (now - c->chat_window >= s->cfg.lim.chat_window_ms) {
		c->chat_window = now;
		c->chat_count = 0;
	}
	if (++c->chat_count > s->cfg.lim.chat_burst) {
		metrics_limit_hit(&s->m, METRICS_LIM_CHAT);
		conn__error(c, PERR_LIMIT, false, "too many chat lines: wait a few seconds");
		return;
	}
	/* A muted key's line reaches nobody, not even the turn log (which spectators and replays
	 * show); its sender is told, so that a mute is never a silent trick. */
	if (moderate__muted(c))
		return;
	if (r->state == ROOM_PLAYING) {
		/* A duel's log holds all that was said in it, up to a cap (tlog.h, TLOG_CHAT_UNTIL): past
		 * it the line is refused, not said unlogged, so that the log stays whole. */
		if (tlog_chat_full(&r->log, s->cfg.lim.log_chat_until)) {
			conn__error(c, PERR_LIMIT, false, "this duel's turn log is full of chat (%zu KiB): no more chat until "
			            "the duel ends", s->cfg.lim.log_chat_until >> 10);
			return;
		}
		tlog_chat(&r->log, c->seat, m->text);
	}
	out->type = WIRE_CHAT;
	out->u.chat.from = (uint8_t)c->seat;
	snprintf(out->u.chat.text, sizeof out->u.chat.text, "%s", m->text);
	for (int p = 0; p < PLAYERS; p++)
		send_to(r, p, out);
	log_later(r);
}

void
room__message(struct gameroom *r, struct conn *c, const struct wire_msg *m)
{
	int p = c->seat;
	bool lobby = r->state == ROOM_LOBBY;

	if (c->spect) {
		/* A spectator keeps no lobby alive and reaches no player. */
		spect__message(r, c, m);
		return;
	}
	r->lobby_active = server__now(r->srv);
	switch (m->type) {
	case WIRE_SPECT_SET:
		spect__set(r, c, &m->u.sset);
		return;
	case WIRE_CMD:
		on_cmd(r, c, &m->u.cmd);
		return;
	case WIRE_CHAT:
		on_chat(r, c, &m->u.chat);
		return;
	case WIRE_OPTIONS:
		if (r->controller != p) {
			conn__error(c, PERR_NOT_CONTROLLER, false, "only the controller sets the options");
		} else if (!lobby) {
			conn__error(c, PERR_STATE, false, "options change only between duels");
		} else if (options_check(&m->u.options.opt) != ERR_OK || m->u.options.turn_time > TURN_TIME_MAX) {
			conn__error(c, PERR_BAD_OPTIONS, false, "%s", err_text(options_check(&m->u.options.opt)));
		} else {
			r->opt = m->u.options.opt;
			r->turn_time = m->u.options.turn_time;
			for (int i = 0; i < PLAYERS; i++)
				r->seat[i].ready = r->seat[i].rematch = false;
			send_lobby(r);
		}
		return;
	case WIRE_READY:
	case WIRE_REMATCH:
		if (!lobby) {
			conn__error(c, PERR_STATE, false, "a duel is being played");
			return;
		}
		if (m->type == WIRE_REMATCH) {
			r->seat[p].ready = r->seat[p].rematch = true;
			r->seat[p].mirror = m->u.rematch.mirror;
			memcpy(r->seat[p].part, m->u.rematch.part, PROTO_PART_LEN);
		} else {
			r->seat[p].ready = m->u.ready.ready;
			if (!m->u.ready.ready)
				r->seat[p].rematch = false;
			else
				memcpy(r->seat[p].part, m->u.ready.part, PROTO_PART_LEN);
		}
		send_lobby(r);
		maybe_start(r);
		return;
	case WIRE_CONTROL:
		if (r->controller != p) {
			conn__error(c, PERR_NOT_CONTROLLER, false, "only the controller can hand over control");
		} else if (!lobby) {
			conn__error(c, PERR_STATE, false, "control changes hands only between duels");
		} else if (!r->seat[1 - p].taken) {
			conn__error(c, PERR_STATE, false, "there is nobody to hand control to");
		} else {
			r->controller = 1 - p;
			for (int i = 0; i < PLAYERS; i++)
				if (r->seat[i].conn)
					send_welcome(r, i);
			send_lobby(r);
		}
		return;
	case WIRE_BYE:
		/* Leaving on purpose: its connection's close holds nothing (room__conn_lost). */
		r->seat[p].bye = true;
		/* Leaving in the middle of a duel is a forfeit. */
		if (r->state == ROOM_PLAYING && game_of(r)->result == RESULT_NONE) {
			struct cmd resign = { CMD_RESIGN, 0, 0 };
			apply(r, p, &resign, MSG_NONE);
		}
		return;
	default:
		conn__drop(c, PERR_STATE, "message not expected now");
		return;
	}
}

/* A multi-room server's lobby where nobody did anything but HEARTBEATs for lobby_idle_ms is
 * closed: its players are told why, and the code is free again. Called by the server's sweep. */
void
room__sweep_idle(struct server *s)
{
	uint64_t now = server__now(s);
	unsigned mins = (s->cfg.lim.lobby_idle_ms + 59999) / 60000;
	struct gameroom *r = s->rooms, *next;
	char why[PROTO_REASON_BYTES];

	if (!s->cfg.multi)
		return;
	for (; r; r = next) {
		next = r->next;
		if (r->dying || r->state != ROOM_LOBBY || now - r->lobby_active < s->cfg.lim.lobby_idle_ms)
			continue;
		for (int p = 0; p < PLAYERS; p++) {
			struct conn *c = r->seat[p].conn;
			if (c == NULL)
				continue;
			r->seat[p].conn = NULL;
			c->room = NULL;
			c->seat = -1;
			c->state = CONN_HELLO; /* no longer a member: its close must not touch the room */
			if (s->cfg.lim.lobby_idle_ms >= 60000)
				snprintf(why, sizeof why, "nothing but heartbeats for %u min: the room is closed", mins);
			else
				snprintf(why, sizeof why, "nothing but heartbeats for %u s: the room is closed",
				         (s->cfg.lim.lobby_idle_ms + 999) / 1000);
			conn__drop(c, PERR_TIMEOUT, why);
		}
		server__event(s, LOG_INFO, r->code, NULL, "the lobby was idle; closed");
		room__destroy(r);
	}
}

/* Resuming a duel from its log. */

/* How many commands a resumed log holds, for the spectators' frames (cold: once per resume; a
 * replay of the whole log: a takeover counts them off the loop). */
uint32_t
room__log_commands(const char *text, size_t len)
{
	struct turnlog_replay *t = malloc(sizeof *t);
	uint32_t n = 0;

	if (t != NULL && turnlog_replay(text, len, t, NULL, NULL) == 0)
		n = t->commands;
	free(t);
	return n;
}

int
room__load(struct gameroom *r, const char *path, char *why, size_t whylen)
{
	struct tlog_resume *lr = calloc(1, sizeof *lr);
	int rc = -1;

	if (lr == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (tlog_load(path, lr, why, whylen) == 0)
		rc = room__load_parsed(r, path, lr, room__log_commands(lr->text, lr->len), why, whylen);
	tlog_resume_free(lr);
	free(lr);
	return rc;
}

int
room__load_parsed(struct gameroom *r, const char *path, struct tlog_resume *lr, uint32_t cmds, char *why, size_t whylen)
{
	struct server *s = r->srv;
	int rc = -1;

	if (lr->ended || lr->game.result != RESULT_NONE) {
		snprintf(why, whylen, "%s: that duel is over; nothing to resume", path);
		goto out;
	}
	if (lr->old_seed && !lr->have_part) {
		snprintf(why, whylen, "%s: written before protocol 4 (a seed the players cannot check now); "
		         "`wizwar replay` still shows it", path);
		goto out;
	}
	if (!lr->have_part || !lr->have_token[0] || !lr->have_token[1]) {
		snprintf(why, whylen, "%s: not a server's log (no resume data in it)", path);
		goto out;
	}
	/* A multi-room server's room is the one the log's comment names (server_resume_dir chose
	 * it so; the file may have changed since). A one-room host has one room, whatever it says. */
	if (s->cfg.multi && lr->room.kind == TLOG_ROOM_BAD) {
		snprintf(why, whylen, "%s: %s", path, lr->room.why);
		goto out;
	}
	if (s->cfg.multi && lr->room.kind == TLOG_ROOM_OK && strcmp(lr->room.code, r->code) != 0) {
		snprintf(why, whylen, "%s: written for another room than %s", path, r->code);
		goto out;
	}
	if (tlog_open_prefix(&r->log, s->loop, path, lr->text, lr->len, why, whylen) != 0)
		goto out;
	*game_of(r) = lr->game;
	if (game_keep(r) != 0) {
		snprintf(why, whylen, "out of memory");
		tlog_close(&r->log);
		goto out;
	}
	log_hooks(r);
	r->sp.cmds = cmds;
	r->opt = lr->hdr.opt;
	r->seed = lr->hdr.seed;
	r->seed_fixed = false;
	/* The duel goes on with the promise its START made, and tells again how its seed was made. */
	memcpy(r->server_part, lr->server_part, sizeof r->server_part);
	auth_seed_commit(r->server_part, r->commit);
	r->parts = lr->parts;
	memcpy(r->part, lr->part, sizeof r->part);
	r->seed_chosen = lr->seed_chosen;
	r->seed_mirror = lr->seed_mirror;
	r->turn_time = lr->turn_time;
	r->host_seat = lr->host_seat;
	spect__resumed(r, lr);
	r->controller = lr->host_seat >= 0 ? lr->host_seat : 0;
	r->state = ROOM_PLAYING;
	for (int p = 0; p < PLAYERS; p++) {
		struct seat *st = &r->seat[p];
		st->taken = true;
		snprintf(st->name, sizeof st->name, "%s", lr->hdr.name[p]);
		st->token_len = 0;
		memcpy(st->token_hash, lr->token_hash[p], 32);
		if ((st->keyed = lr->have_key[p]))
			memcpy(st->key, lr->key[p], sizeof st->key);
		st->grace_on = true;
		st->grace_until = server__now(s) + s->cfg.lim.grace_ms;
		uv_timer_start(&st->grace, on_grace, s->cfg.lim.grace_ms, 0);
	}
	server__event(s, LOG_NOTICE, r->code, NULL, "resumed %s at turn %" PRIu32 "%s; waiting %u s for the players", path, game_of(r)->turn_no,
	            lr->torn ? " (a torn last command was dropped)" : "", (s->cfg.lim.grace_ms + 999) / 1000);
	rc = 0;
out:
	return rc;
}
