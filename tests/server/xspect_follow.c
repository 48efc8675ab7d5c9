/* SPDX-License-Identifier: MIT */
/* xspect_follow: a player and a spectator of one duel on a cluster (xspect.sh): every frame the spectator gets, on any node, checked against the leak rule. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "netbot.h"
#include "spect.h"
#include "spect_check.h"
#include "turnlog.h"
#include "view.h"

/*
 * xspect_follow PLAYER_ADDR SPECT_ADDR ROOM MODE KNOWN_FILE
 *
 * Plays player 2 of ROOM (a network bot joining at PLAYER_ADDR, HOST:PORT) and, once the duel has
 * started, watches it as a spectator asking SPECT_ADDR, another node of the cluster, which sends it
 * by REDIRECT to the room's node. Both check the nodes' keys: on first use from KNOWN_FILE, then as
 * pinned by REDIRECT and NODES. Each frame is kept with the turn the player's own view had once the
 * loop's poll that read the frame is done (the server writes the players' updates before a
 * spectator's frame, and an update read in the same poll is taken in first). At the END the
 * player has the revealed turn log, the truth: every frame is checked against the state it names,
 * as MODE (what the room's controller chose: shared, or delayed:K:P, P counted from 1) promises,
 * with spect_check.c's rule; a delayed frame must have come when the duel was K turns on, whatever
 * node sent it. Lines on stdout (flushed) say each frame and each link back, for the script that
 * kills the room's node; the last says the verdict. Exit 0: no leak, the watch followed the room to
 * another node and saw the end; 1 otherwise.
 */

#define FRAMES_MAX 8000
#define DEADLINE_MS 60000

struct follow {
	uv_loop_t loop;
	struct netbot bot;
	struct net *spect;
	struct net_config snc;
	char host[64], shost[64];
	const char *known;
	uint8_t mode, delay, player;
	struct spect_frame *fr;
	char (*from)[64];          /* where each frame came from */
	unsigned nfr;
	unsigned backs;            /* the spectator's link came back */
	char first[64];            /* the node that first sent frames */
	bool spect_started, saw_all, spect_closed, bot_closed, done;
	char *log;
	size_t log_len;
	int bot_verified;
	char why[400];
	uv_timer_t deadline;
	uv_check_t stamp;          /* after each poll: the frames that came in it get the player's turn */
	unsigned stamped;          /* frames before this one have their live_turn */
};

static void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void
maybe_done(struct follow *f)
{
	if (f->done || !f->saw_all || f->log == NULL)
		return;
	f->done = true;
	uv_timer_stop(&f->deadline);
	if (f->spect)
		net_close(f->spect);
	netbot_stop(&f->bot);
}

/* ---- the spectator ---- */

static void
on_view(void *ud, struct net *n, const struct wire_sview *sv)
{
	struct follow *f = ud;
	struct proto_err e;
	struct spect_frame *fr;

	if (f->nfr >= FRAMES_MAX)
		return;
	fr = &f->fr[f->nfr];
	update_blank(&fr->v);
	if (update_apply(&fr->v, &sv->view, &e) != 0) {
		snprintf(f->why, sizeof f->why, "a frame does not apply to nothing: %s", e.why);
		return;
	}
	fr->cmds = sv->cmds;
	fr->kind = sv->kind;
	fr->me_state = sv->me_state;
	fr->delay = sv->delay;
	fr->live_turn = 0; /* on_stamp */
	net_server_label(n, f->from[f->nfr], sizeof f->from[0]);
	if (f->first[0] == '\0')
		snprintf(f->first, sizeof f->first, "%s", f->from[f->nfr]);
	say("frame %u turn %u from %s", f->nfr, (unsigned)fr->v.turn_no, f->from[f->nfr]);
	f->nfr++;
	if (sv->kind == SPECT_KIND_ALL) {
		f->saw_all = true;
		maybe_done(f);
	}
}

/* The frames read in this poll, stamped with the turn the player's view has after it: epoll gives
 * both sockets in one batch in no set order, and an update written before a frame may be read after
 * it in the same batch. */
static void
on_stamp(uv_check_t *h)
{
	struct follow *f = h->data;
	uint32_t turn = f->bot.net ? net_view(f->bot.net)->turn_no : 0;

	for (; f->stamped < f->nfr; f->stamped++)
		f->fr[f->stamped].live_turn = turn;
}

static void
on_link(void *ud, struct net *n, bool up, const char *why)
{
	struct follow *f = ud;
	char where[64];

	if (!up) {
		say("spectator lost: %s", why ? why : "?");
		return;
	}
	f->backs++;
	net_server_label(n, where, sizeof where);
	say("spectator back from %s", where);
}

static void
on_serror(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct follow *f = ud;

	(void)n;
	say("spectator %s error %d: %s", fatal ? "fatal" : "note", code, text);
	if (fatal && !f->done && f->why[0] == '\0')
		snprintf(f->why, sizeof f->why, "the spectator was cut off: %s", text);
}

static void
on_sclosed(void *ud, struct net *n)
{
	struct follow *f = ud;

	(void)n;
	f->spect = NULL;
	f->spect_closed = true;
	if (!f->done) {
		/* Cut off before the end: nothing more will come. */
		uv_timer_stop(&f->deadline);
		netbot_stop(&f->bot);
	}
}

static void
on_welcome(void *ud, struct net *n, int player, bool controller)
{
	char where[64];

	(void)ud;
	(void)player;
	(void)controller;
	net_server_label(n, where, sizeof where);
	say("watching at %s", where);
}

static void
start_spectator(struct follow *f)
{
	char why[256];

	f->spect_started = true;
	f->spect = net_create(&f->loop, &f->snc, why, sizeof why);
	if (f->spect == NULL) {
		snprintf(f->why, sizeof f->why, "spectator: %s", why);
		netbot_stop(&f->bot);
	}
}

/* ---- the player ---- */

static void
bot_start(void *ud, struct netbot *b, const struct view *v, bool resumed)
{
	struct follow *f = ud;

	(void)b;
	(void)v;
	say("player: duel %s", resumed ? "resumed" : "started");
	if (!f->spect_started)
		start_spectator(f);
}

static void
bot_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	struct follow *f = ud;
	size_t len = 0;
	const char *log = net_end_log(b->net, &len);

	(void)e;
	f->bot_verified = verified;
	say("player: duel over, %s%s", verified ? "log verified" : "NOT verified: ", verified ? "" : why);
	if (log && len && (f->log = malloc(len + 1)) != NULL) {
		memcpy(f->log, log, len);
		f->log[len] = '\0';
		f->log_len = len;
	}
	maybe_done(f);
}

static void on_deadline(uv_timer_t *t);

static void
bot_closed(void *ud, struct netbot *b)
{
	struct follow *f = ud;

	(void)b;
	f->bot_closed = true;
	/* Over: the end's frame, written after the players' record, may still be on its way (or read
	 * in the same poll, after the player's END): the spectator waits for it, at most 10 s. */
	if (!f->done && f->spect && f->log) {
		uv_timer_start(&f->deadline, on_deadline, 10000, 0);
	} else if (!f->done && f->spect) {
		uv_timer_stop(&f->deadline);
		net_close(f->spect);
	}
}

static void
on_deadline(uv_timer_t *t)
{
	struct follow *f = t->data;

	snprintf(f->why, sizeof f->why, "no end in time (%u frames)", f->nfr);
	if (f->spect)
		net_close(f->spect);
	netbot_stop(&f->bot);
}

/* ---- the check ---- */

struct cmds {
	struct cmd *cmd;
	uint8_t *who;
	unsigned n, cap;
	bool oom;
};

static void
collect(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct cmds *l = ud;

	(void)g;
	(void)ev;
	(void)lineno;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 512;
		struct cmd *nc = realloc(l->cmd, cap * sizeof *nc);
		uint8_t *nw = nc ? realloc(l->who, cap) : NULL;
		if (nc)
			l->cmd = nc;
		if (nw == NULL) {
			l->oom = true;
			return;
		}
		l->who = nw;
		l->cap = cap;
	}
	l->cmd[l->n] = *c;
	l->who[l->n++] = (uint8_t)p;
}

/* Every frame against the state after its cmds commands of the final log. 0 leaks, or more. */
static unsigned
check(struct follow *f, unsigned *checked)
{
	static struct turnlog_replay rp;
	static struct game g;
	struct cmds l = { 0 };
	struct view v0, v1;
	unsigned leaks = 0;
	char why[200];

	*checked = 0;
	if (turnlog_replay(f->log, f->log_len, &rp, collect, &l) != 0 || l.oom) {
		snprintf(f->why, sizeof f->why, "the revealed log does not replay: %s", rp.error);
		free(l.cmd);
		free(l.who);
		return 1;
	}
	if (game_init(&g, &rp.hdr.opt, rp.hdr.seed) != ERR_OK) {
		snprintf(f->why, sizeof f->why, "the log's game does not start");
		return 1;
	}
	for (unsigned i = 0; i <= l.n; i++) {
		for (unsigned k = 0; k < f->nfr; k++) {
			const struct spect_frame *fr = &f->fr[k];
			unsigned n = 0;
			if (fr->cmds != i)
				continue;
			(*checked)++;
			why[0] = '\0';
			if (fr->v.turn_no != g.turn_no) {
				n++;
				snprintf(why, sizeof why, "turn %u where the state after %u commands has %u", fr->v.turn_no, i,
				         g.turn_no);
			} else if (g.result != RESULT_NONE) {
				n = fr->kind == SPECT_KIND_ALL ? spect_check_all(fr, &g) : 1;
				snprintf(why, sizeof why, "the end is not the whole truth");
			} else if (fr->kind == SPECT_KIND_ALL) {
				n = 1;
				snprintf(why, sizeof why, "everything shown before the end");
			} else if (f->mode == SPECT_SHARED) {
				view_build(&g, 0, &v0);
				view_build(&g, 1, &v1);
				n = (fr->kind != SPECT_KIND_SHARED) + spect_check_shared(fr, &v0, &v1, why, sizeof why);
			} else {
				view_build(&g, f->player, &v0);
				n = (fr->kind != (f->player == 0 ? SPECT_KIND_PLAYER0 : SPECT_KIND_PLAYER1)) + (fr->delay != f->delay) +
				    spect_check_player(fr, &v0, why, sizeof why);
				/* Held on the server until the duel was `delay` turns further on: on the node that
				 * took it over too (its held frames are replayed from the log). */
				if (fr->live_turn < fr->v.turn_no + f->delay) {
					n++;
					snprintf(why, sizeof why, "the frame of turn %u came at turn %u, delay %u", fr->v.turn_no,
					         fr->live_turn, f->delay);
				}
			}
			if (n) {
				if (leaks == 0)
					say("frame %u (after %u commands, from %s): %u leaks: %s", k, i, f->from[k], n, why);
				leaks += n;
			}
		}
		if (i < l.n && game_apply(&g, l.who[i], &l.cmd[i], NULL) != ERR_OK) {
			snprintf(f->why, sizeof f->why, "command %u of the log does not apply", i);
			leaks++;
			break;
		}
	}
	if (*checked != f->nfr) {
		say("%u frames name a state the duel never had", f->nfr - *checked);
		leaks += f->nfr - *checked;
	}
	free(l.cmd);
	free(l.who);
	return leaks;
}

static int
parse_addr(const char *a, char *host, size_t len, int *port)
{
	const char *c = strrchr(a, ':');

	if (c == NULL || (size_t)(c - a) >= len)
		return -1;
	memcpy(host, a, (size_t)(c - a));
	host[c - a] = '\0';
	*port = atoi(c + 1);
	return *port > 0 && *port < 65536 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static struct follow f;
	struct netbot_config bc;
	unsigned k, p;
	char why[256];

	if (argc != 6) {
		fprintf(stderr, "usage: xspect_follow PLAYER_HOST:PORT SPECT_HOST:PORT ROOM shared|delayed:K:P KNOWN_FILE\n");
		return 2;
	}
	memset(&f, 0, sizeof f);
	f.known = argv[5];
	if (strcmp(argv[4], "shared") == 0) {
		f.mode = SPECT_SHARED;
	} else if (sscanf(argv[4], "delayed:%u:%u", &k, &p) == 2 && k >= 1 && k <= SPECT_DELAY_MAX && p >= 1 &&
	           p <= PLAYERS) {
		f.mode = SPECT_DELAYED;
		f.delay = (uint8_t)k;
		f.player = (uint8_t)(p - 1);
	} else {
		fprintf(stderr, "xspect_follow: MODE is shared or delayed:K:P, not %s\n", argv[4]);
		return 2;
	}
	f.fr = calloc(FRAMES_MAX, sizeof *f.fr);
	f.from = calloc(FRAMES_MAX, sizeof *f.from);
	if (f.fr == NULL || f.from == NULL || uv_loop_init(&f.loop) != 0)
		return 1;

	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	if (parse_addr(argv[1], f.host, sizeof f.host, &bc.net.port) != 0 ||
	    parse_addr(argv[2], f.shost, sizeof f.shost, &f.snc.port) != 0) {
		fprintf(stderr, "xspect_follow: give addresses as HOST:PORT\n");
		return 2;
	}
	bc.net.host = f.host;
	bc.net.name = "follower";
	bc.net.room = argv[3];
	bc.net.known_file = f.known;
	bc.net.reconnect_ms = 250;
	bc.net.reconnect_for_ms = 30000;
	bc.level = BOT_NORMAL;
	bc.seed = 77;
	bc.games = 1;
	bc.think_ms = 40; /* as the other players in xspect.sh: see there */
	bc.ready = true;
	bc.quiet = true;
	bc.ud = &f;
	bc.on_start = bot_start;
	bc.on_end = bot_end;
	bc.on_closed = bot_closed;

	int sport = f.snc.port;
	net_config_default(&f.snc);
	f.snc.host = f.shost;
	f.snc.port = sport;
	f.snc.name = "watcher";
	f.snc.room = argv[3];
	f.snc.role = ROLE_SPECTATOR;
	f.snc.known_file = f.known;
	f.snc.verify = false;
	f.snc.reconnect_ms = 250;
	f.snc.reconnect_for_ms = 30000;
	f.snc.ud = &f;
	f.snc.ev.spect_view = on_view;
	f.snc.ev.link = on_link;
	f.snc.ev.error = on_serror;
	f.snc.ev.closed = on_sclosed;
	f.snc.ev.welcome = on_welcome;

	uv_timer_init(&f.loop, &f.deadline);
	f.deadline.data = &f;
	uv_timer_start(&f.deadline, on_deadline, DEADLINE_MS, 0);
	uv_check_init(&f.loop, &f.stamp);
	f.stamp.data = &f;
	uv_check_start(&f.stamp, on_stamp);
	uv_unref((uv_handle_t *)&f.stamp); /* it keeps nothing running */
	if (netbot_start(&f.bot, &f.loop, &bc, why, sizeof why) != 0) {
		fprintf(stderr, "xspect_follow: %s\n", why);
		return 1;
	}
	uv_run(&f.loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&f.deadline, NULL);
	uv_close((uv_handle_t *)&f.stamp, NULL);
	uv_run(&f.loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&f.loop) != 0) {
		say("FAIL: a libuv handle was left open");
		return 1;
	}

	unsigned moved = 0, checked = 0, leaks;
	for (unsigned i = 0; i < f.nfr; i++)
		moved += strcmp(f.from[i], f.first) != 0;
	if (f.why[0] || f.log == NULL || !f.saw_all) {
		say("FAIL: %s", f.why[0] ? f.why : f.log == NULL ? "the player saw no end" : "the spectator saw no end");
		return 1;
	}
	leaks = check(&f, &checked);
	say("%u frames checked (%u from a node after the first, %s), %u links back, %u leaks, player's log %s", checked,
	    moved, f.first, f.backs, leaks, f.bot_verified ? "verified" : "NOT verified");
	free(f.log);
	free(f.fr);
	free(f.from);
	if (leaks || f.why[0] || !f.bot_verified) {
		say("FAIL: %s", f.why[0] ? f.why : leaks ? "leaks" : "the player's fair-host check failed");
		return 1;
	}
	if (moved == 0 || f.backs == 0) {
		say("FAIL: the spectator never watched from another node");
		return 1;
	}
	say("ok");
	return 0;
}
