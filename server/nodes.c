/* SPDX-License-Identifier: MIT */
/* nodes: a cluster's nodes changed: NODES to every player and spectator here, in slices that let the players' commands in between. */
#include "internal.h"

/*
 * When a node joins or dies, everyone in a room here learns the nodes again (cluster_changed): a
 * duel begun before a node joined can resume there, a spectator follows its duel there. Sent in
 * one pass that was a seal and a write a connection, all in one callback: 5,000 duels' 10,000
 * players stalled the loop 170 to 220 ms (release, X), in which no player's command was answered,
 * and their spectators would add to it (docs/benchmarks.md). So a walk over the rooms, from a
 * cursor kept here:
 *   - first every room's players, then every room's spectators (the players go first);
 *   - at most NODES_SLICE sends a slice, and fewer as soon as the loop has a socket ready (a peek
 *     every NODES_PEEK sends, as spect.c's fan-out does): a player's command waits behind at most
 *     NODES_PEEK sends, and is read in this same iteration's poll;
 *   - the next slice a millisecond on, from a timer, as the spectators' fan-out's: with an idle
 *     handle instead (the next slice at once, after a poll that does not wait) a walk was over
 *     sooner (0.3 to 0.5 s against 0.9 to 1.3 at 10,000 players) but the server kept its core
 *     throughout, was preempted in the middle of slices (the longest 5.5 to 6.6 ms against 1.3 and
 *     4.4), and on this 2-core box the players' own updates in the walk's second were no better for it
 *     (docs/benchmarks.md, `bench_cluster --join`);
 *   - each connection is sent the nodes as they are when its turn comes (conn__send_nodes). If they
 *     change again mid-walk the walk starts again from the head, which is enough: whoever was told
 *     already is told the newer list again;
 *   - a room that goes mid-walk moves the cursor on (nodes__room_gone); a room made meanwhile is
 *     put at the head, behind the cursor, and a connection that joins or resumes meanwhile is told
 *     the nodes by its own join (send_welcome, spect__join): neither misses the list;
 *   - a room's spectators are given NODES through the room's own queue (spect__nodes), in that
 *     room's slices after what was queued before it; a room that many watch costs this walk one
 *     item queued and the room's first slice.
 */

#ifndef NODES_SLICE /* a knob for side-by-side runs */
#define NODES_SLICE 64
#endif
#define NODES_PEEK 8

static void on_slice(uv_timer_t *t);

void
nodes__init(struct server *s)
{
	uv_timer_init(s->loop, &s->nodes.slice);
	s->nodes.slice.data = s;
}

void
nodes__changed(struct server *s)
{
	struct nodes_walk *w = &s->nodes;

	if (s->closing)
		return;
	w->again += w->cursor != NULL || w->spect;
	w->cursor = s->rooms;
	w->spect = false;
	if (!w->active) {
		w->active = true;
		w->began = uv_hrtime();
		w->slices = w->players = w->rooms_watched = w->again = 0;
		uv_timer_start(&w->slice, on_slice, 0, 0);
	}
}

void
nodes__room_gone(struct server *s, struct gameroom *r)
{
	if (s->nodes.cursor == r)
		s->nodes.cursor = r->next;
}

static void
done(struct server *s, struct nodes_walk *w)
{
	w->active = false;
	w->cursor = NULL;
	w->spect = false;
	uv_timer_stop(&w->slice);
	server__event(s, LOG_INFO, NULL, NULL,
	              "cluster: the nodes told to %u players and the spectators of %u rooms in %u slices, %.1f ms%s",
	              w->players, w->rooms_watched, w->slices, (double)(uv_hrtime() - w->began) / 1e6,
	              w->again ? " (the nodes changed meanwhile: told again from the first room)" : "");
}

static void
on_slice(uv_timer_t *t)
{
	struct server *s = t->data;
	struct nodes_walk *w = &s->nodes;
	unsigned n = 0, peeked = 0;

	w->slices++;
	while (n < NODES_SLICE) {
		struct gameroom *r = w->cursor;
		if (r == NULL) {
			if (w->spect || (w->cursor = s->rooms) == NULL) {
				done(s, w);
				return;
			}
			w->spect = true; /* the players are told: the spectators now */
			continue;
		}
		w->cursor = r->next;
		if (w->spect) {
			if (r->sp.head == NULL)
				continue;
			/* Its first slice goes now (spect.c's fan-out, of the same size as these): counted so. */
			n += r->sp.count < NODES_SLICE ? r->sp.count : NODES_SLICE;
			w->rooms_watched++;
			spect__nodes(r);
		} else {
			for (int p = 0; p < PLAYERS; p++)
				if (r->seat[p].conn) {
					room__send_nodes(r, p);
					n++;
					w->players++;
				}
		}
		if (n / NODES_PEEK > peeked) {
			peeked = n / NODES_PEEK;
			if (server__loop_waiting(s->loop))
				break;
		}
	}
	uv_timer_start(&w->slice, on_slice, 1, 0);
}

void
nodes__close(struct server *s, uv_close_cb cb)
{
	s->nodes.cursor = NULL;
	s->nodes.active = false;
	uv_close((uv_handle_t *)&s->nodes.slice, cb);
}
