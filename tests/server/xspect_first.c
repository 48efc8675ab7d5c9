/* SPDX-License-Identifier: MIT */
/* xspect_first: new spectators asking a cluster's node for a room while it moves to another node (xspect.sh): each must watch the duel to its end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "net.h"
#include "spect.h"

/*
 * xspect_first HOST:PORT ROOM KNOWN_FILE COUNT STEP_MS
 *
 * Waits for SIGUSR1 (the script sends it once the room's node has missed a beat: the room is
 * moving), then starts COUNT spectators of ROOM, one every STEP_MS, each a first ask of HOST:PORT
 * (it knows no other node: a new `wizwar watch`), its key on first use from KNOWN_FILE. Each must
 * be welcomed and see the duel's end (the frame that shows everything), whatever it was told on
 * the way. One line a spectator on stdout says what it was told (MOVING, a note, a refusal) and
 * what it saw; the last says how many were told MOVING. Exit 0: every spectator saw the end;
 * 1 otherwise (a spectator cut off: before the fix, one told nothing but a closed link).
 */

#define SPECT_MAX 16
#define DEADLINE_MS 60000

struct first;

struct watcher {
	struct first *f;
	int i;
	struct net *net;
	struct net_config nc;
	bool moving, welcomed, saw_all, closed;
	unsigned frames;
	char where[64];
	char why[400];
};

struct first {
	uv_loop_t loop;
	uv_signal_t go;
	uv_timer_t step, deadline;
	char host[64];
	int port;
	const char *room, *known;
	int count, started, open;
	unsigned step_ms;
	struct watcher w[SPECT_MAX];
};

static void
stop_all(struct first *f)
{
	uv_timer_stop(&f->step);
	uv_timer_stop(&f->deadline);
	if (!uv_is_closing((uv_handle_t *)&f->go))
		uv_close((uv_handle_t *)&f->go, NULL);
	for (int i = 0; i < f->started; i++)
		if (f->w[i].net)
			net_close(f->w[i].net);
}

static void
on_welcome(void *ud, struct net *n, int player, bool controller)
{
	struct watcher *w = ud;

	(void)player;
	(void)controller;
	w->welcomed = true;
	net_server_label(n, w->where, sizeof w->where);
}

static void
on_view(void *ud, struct net *n, const struct wire_sview *sv)
{
	struct watcher *w = ud;

	(void)n;
	w->frames++;
	if (sv->kind == SPECT_KIND_ALL && !w->saw_all) {
		w->saw_all = true;
		net_close(w->net);
	}
}

static void
on_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct watcher *w = ud;

	(void)n;
	if (code == PERR_MOVING && !fatal)
		w->moving = true;
	printf("spectator %d %s %d: %s\n", w->i, fatal ? "refused" : "told", code, text);
	fflush(stdout);
	if (fatal && w->why[0] == '\0')
		snprintf(w->why, sizeof w->why, "%s", text);
}

static void
on_closed(void *ud, struct net *n)
{
	struct watcher *w = ud;
	struct first *f = w->f;

	(void)n;
	w->net = NULL;
	w->closed = true;
	printf("spectator %d: %s%s, %u frames%s%s%s\n", w->i, w->moving ? "told MOVING, " : "",
	       w->welcomed ? "welcomed" : "never welcomed", w->frames, w->saw_all ? ", saw the end" : ", no end",
	       w->where[0] ? " at " : "", w->where);
	fflush(stdout);
	if (--f->open == 0 && f->started == f->count)
		stop_all(f);
}

static void
start_one(struct first *f)
{
	struct watcher *w = &f->w[f->started];
	char why[256];

	w->f = f;
	w->i = f->started++;
	net_config_default(&w->nc);
	w->nc.host = f->host;
	w->nc.port = f->port;
	w->nc.name = "newcomer";
	w->nc.room = f->room;
	w->nc.role = ROLE_SPECTATOR;
	w->nc.known_file = f->known;
	w->nc.verify = false;
	w->nc.reconnect_for_ms = 30000;
	w->nc.ud = w;
	w->nc.ev.welcome = on_welcome;
	w->nc.ev.spect_view = on_view;
	w->nc.ev.error = on_error;
	w->nc.ev.closed = on_closed;
	if ((w->net = net_create(&f->loop, &w->nc, why, sizeof why)) == NULL) {
		snprintf(w->why, sizeof w->why, "%s", why);
		w->closed = true;
		return;
	}
	f->open++;
}

static void
on_step(uv_timer_t *t)
{
	struct first *f = t->data;

	start_one(f);
	if (f->started == f->count)
		uv_timer_stop(t);
}

static void
on_go(uv_signal_t *s, int sig)
{
	struct first *f = s->data;

	(void)sig;
	uv_signal_stop(s);
	uv_timer_start(&f->step, on_step, 0, f->step_ms);
}

static void
on_deadline(uv_timer_t *t)
{
	struct first *f = t->data;

	printf("deadline: %d of %d spectators started, %d still open\n", f->started, f->count, f->open);
	stop_all(f);
}

int
main(int argc, char **argv)
{
	static struct first f;
	const char *colon;

	if (argc != 6) {
		fprintf(stderr, "usage: xspect_first HOST:PORT ROOM KNOWN_FILE COUNT STEP_MS\n");
		return 2;
	}
	colon = strrchr(argv[1], ':');
	f.count = atoi(argv[4]);
	f.step_ms = (unsigned)atoi(argv[5]);
	if (colon == NULL || (size_t)(colon - argv[1]) >= sizeof f.host || f.count < 1 || f.count > SPECT_MAX) {
		fprintf(stderr, "xspect_first: HOST:PORT, and 1 to %d spectators\n", SPECT_MAX);
		return 2;
	}
	memcpy(f.host, argv[1], (size_t)(colon - argv[1]));
	f.port = atoi(colon + 1);
	f.room = argv[2];
	f.known = argv[3];
	if (uv_loop_init(&f.loop) != 0)
		return 1;
	uv_signal_init(&f.loop, &f.go);
	f.go.data = &f;
	uv_signal_start(&f.go, on_go, SIGUSR1);
	uv_timer_init(&f.loop, &f.step);
	f.step.data = &f;
	uv_timer_init(&f.loop, &f.deadline);
	f.deadline.data = &f;
	uv_timer_start(&f.deadline, on_deadline, DEADLINE_MS, 0);
	printf("ready\n");
	fflush(stdout);
	uv_run(&f.loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&f.step, NULL);
	uv_close((uv_handle_t *)&f.deadline, NULL);
	uv_run(&f.loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&f.loop) != 0) {
		printf("FAIL: a libuv handle was left open\n");
		return 1;
	}

	int moving = 0, noend = 0;
	for (int i = 0; i < f.started; i++) {
		moving += f.w[i].moving;
		if (!f.w[i].saw_all && noend++ == 0)
			printf("FAIL: spectator %d saw no end: %s\n", i, f.w[i].why[0] ? f.w[i].why : "cut off without a word");
	}
	printf("%d of %d spectators started, %d told MOVING, %d without the end\n", f.started, f.count, moving, noend);
	int bad = noend || f.started < f.count;
	return bad ? 1 : 0;
}
