/* SPDX-License-Identifier: MIT */
/* server/spect: whole bot duels watched by spectators; every frame checked against the truth replayed from the commands (no leak), chat kept from players, spectators turned off, a count and a frame of one tick in one record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "harness.h"
#include "spect.h"
#include "spect_check.h"
#include "view.h"

/* The leak rule is spect_check.c's (shared with the cluster's test, xspect.sh). The truth here is the
 * commands the server applied (its `applied` hook, not the turn log the server writes), replayed with
 * common/ to the state each frame names. */

#define FRAMES_MAX 6000
#define CMDS_MAX 20000

struct watch {
	struct th *t;
	struct netbot a, b;
	struct net *spect, *spect2;
	uint8_t mode, delay, player;
	unsigned join_at;          /* the spectator joins after this many commands */
	struct cmd cmd[CMDS_MAX];
	uint8_t who[CMDS_MAX];
	unsigned ncmd;
	uint32_t live_turn;
	struct spect_frame *fr;
	unsigned nfr;
	bool spect_closed, spect2_closed, spect_started, set_sent;
	int spect_errors, spect_code;
	unsigned chats_got, chats_sent;   /* the second spectator's view of the first one's chat */
	unsigned player_spect_chat;       /* SPECT_CHAT decoded by a player: must stay 0 */
	unsigned player_chat_marker;      /* a player's CHAT carrying the spectators' words: must stay 0 */
	unsigned infos_to_players;
	uint64_t seed;
};

static void
on_spect_view(void *ud, struct net *n, const struct wire_sview *sv)
{
	struct watch *w = ud;
	struct proto_err e;
	struct spect_frame *f;
	struct wire_msg m;
	uint8_t buf[PROTO_PAYLOAD_MAX];
	size_t len = 0;

	if (n != w->spect || w->nfr >= FRAMES_MAX)
		return;
	f = &w->fr[w->nfr++];
	update_blank(&f->v);
	cr_assert_eq(update_apply(&f->v, &sv->view, &e), 0, "a frame does not apply to nothing: %s", e.why);
	f->cmds = sv->cmds;
	f->kind = sv->kind;
	f->me_state = sv->me_state;
	f->delay = sv->delay;
	f->live_turn = w->live_turn;
	m.type = WIRE_SPECT_VIEW;
	m.u.sview = *sv;
	cr_assert_eq(wire_encode(&m, buf, sizeof buf, &len, &e), 0);
	f->bytes = (uint32_t)len;
}

static void
on_spect_chat(void *ud, struct net *n, const char *name, const char *text)
{
	struct watch *w = ud;

	if (n == w->spect2 && strcmp(name, "watcher") == 0 && strstr(text, "ghost-") == text)
		w->chats_got++;
}

/* Once both spectators are in, the first one says three lines (what a ghosting friend would). */
static void
on_spect_welcome(void *ud, struct net *n, int player, bool controller)
{
	struct watch *w = ud;

	(void)n;
	(void)controller;
	cr_expect_eq(player, WELCOME_SPECTATOR);
	if (!w->spect || !w->spect2 || !net_spectator(w->spect) || !net_spectator(w->spect2))
		return;
	for (; w->chats_sent < 3; w->chats_sent++) {
		char line[64];
		snprintf(line, sizeof line, "ghost-%u: player 2 is behind the wall", w->chats_sent);
		cr_expect_eq(net_spect_chat(w->spect, line), 0);
	}
}

static void
on_spect_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct watch *w = ud;

	(void)text;
	if (n == w->spect && fatal) {
		w->spect_errors++;
		w->spect_code = code;
	}
}

static void
on_spect_closed(void *ud, struct net *n)
{
	struct watch *w = ud;

	if (n == w->spect)
		w->spect_closed = true;
	else
		w->spect2_closed = true;
}

static struct net *
spectator(struct watch *w, const char *name)
{
	struct net_config nc;
	char why[256];
	struct net *n;

	net_config_default(&nc);
	nc.host = "127.0.0.1";
	nc.port = w->t->port;
	nc.name = name;
	nc.role = ROLE_SPECTATOR;
	nc.server_key = server_public_key(w->t->srv);
	nc.verify = false;
	nc.ud = w;
	nc.ev.spect_view = on_spect_view;
	nc.ev.spect_chat = on_spect_chat;
	nc.ev.welcome = on_spect_welcome;
	nc.ev.error = on_spect_error;
	nc.ev.closed = on_spect_closed;
	n = net_create(&w->t->loop, &nc, why, sizeof why);
	cr_assert_not_null(n, "spectator: %s", why);
	return n;
}

static void
applied(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev)
{
	struct watch *w = ud;

	(void)ev;
	cr_assert_lt(w->ncmd, CMDS_MAX);
	w->cmd[w->ncmd] = *c;
	w->who[w->ncmd++] = (uint8_t)p;
	w->live_turn = room_game(r)->turn_no;
	if (w->ncmd == w->join_at && !w->spect_started) {
		w->spect_started = true;
		w->spect = spectator(w, "watcher");
		w->spect2 = spectator(w, "other");
	}
}

/* The players: the controller sets the spectators' view as soon as it has joined; both count
 * what they get that only a spectator should. */
static void
player_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct watch *w = ud;

	/* At its first LOBBY (joined by then), before its READY, which the bot sends on it. */
	if (m->type == WIRE_LOBBY && net_controller(b->net) && !w->set_sent) {
		w->set_sent = true;
		cr_assert_eq(net_spect_set(b->net, true, w->mode, w->delay, w->player), 0);
	}
	if (m->type == WIRE_SPECT_CHAT)
		w->player_spect_chat++;
	if (m->type == WIRE_CHAT && strstr(m->u.chat.text, "ghost-"))
		w->player_chat_marker++;
	if (m->type == WIRE_SPECT_INFO)
		w->infos_to_players++;
}

static bool
all_done(void *ud)
{
	struct watch *w = ud;

	return w->a.closed && w->b.closed && (!w->spect_started || (w->spect_closed && w->spect2_closed));
}

static bool
a_joined(void *ud)
{
	struct watch *w = ud;

	return w->set_sent;
}

static bool
on_ended_close(struct watch *w)
{
	/* The duel is over (both bots closed): let the spectators see the end, then leave. */
	if (w->a.closed && w->b.closed && w->spect && !w->spect_closed && w->nfr > 0 &&
	    w->fr[w->nfr - 1].kind == SPECT_KIND_ALL) {
		net_close(w->spect);
		net_close(w->spect2);
		return true;
	}
	return false;
}

static bool
ended_or_done(void *ud)
{
	struct watch *w = ud;

	on_ended_close(w);
	return all_done(w);
}

struct tally {
	unsigned frames, leaks, late_bytes, ends;
};

static void
check_duel(struct watch *w, const struct options *opt, struct tally *t)
{
	static struct game g;
	struct view v0, v1;
	char why[200] = "";
	unsigned fi = 0;

	cr_assert_eq(game_init(&g, opt, w->seed), ERR_OK);
	for (unsigned i = 0; i <= w->ncmd; i++) {
		/* The frames that show the state after i commands. */
		for (; fi < w->nfr && w->fr[fi].cmds == i; fi++) {
			const struct spect_frame *f = &w->fr[fi];
			unsigned leaks = 0;
			t->frames++;
			cr_expect_eq(f->v.turn_no, g.turn_no, "frame %u: turn %u where the state after %u commands has %u", fi,
			             f->v.turn_no, i, g.turn_no);
			cr_expect_eq(f->v.hp, g.wiz[0].hp);
			cr_expect_eq(f->v.opp_hp, g.wiz[1].hp);
			if (g.result != RESULT_NONE) {
				cr_expect_eq(f->kind, SPECT_KIND_ALL, "frame %u after the end is not everything", fi);
				leaks = spect_check_all(f, &g);
				t->ends++;
			} else if (w->mode == SPECT_SHARED) {
				cr_expect_eq(f->kind, SPECT_KIND_SHARED);
				view_build(&g, 0, &v0);
				view_build(&g, 1, &v1);
				leaks = spect_check_shared(f, &v0, &v1, why, sizeof why);
			} else if (w->mode == SPECT_DELAYED) {
				cr_expect_eq(f->kind, w->player == 0 ? SPECT_KIND_PLAYER0 : SPECT_KIND_PLAYER1);
				cr_expect_eq(f->delay, w->delay);
				/* Held on the server: when it came, the duel was `delay` turns on. */
				cr_expect_geq(f->live_turn, f->v.turn_no + w->delay, "frame of turn %u came at turn %u, delay %u",
				              f->v.turn_no, f->live_turn, w->delay);
				view_build(&g, w->player, &v0);
				leaks = spect_check_player(f, &v0, why, sizeof why);
			} else {
				leaks = 1;
				snprintf(why, sizeof why, "a frame before the end of an `after` room");
			}
			cr_expect_eq(leaks, 0, "frame %u (after %u commands, mode %u): %u leaks: %s", fi, i, w->mode, leaks, why);
			t->leaks += leaks;
			if (fi == 0)
				t->late_bytes = f->bytes;
		}
		if (i < w->ncmd)
			cr_assert_eq(game_apply(&g, w->who[i], &w->cmd[i], NULL), ERR_OK);
	}
	cr_expect_eq(fi, w->nfr, "%u frames name a state the duel never had", w->nfr - fi);
}

struct setup {
	int size;
	bool fov, potions;
	uint8_t mode, delay, player;
	unsigned join_at;
};

static void
watch_duel(const struct setup *s, uint64_t seed, struct tally *tal)
{
	static struct watch w;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&w, 0, sizeof w);
	w.fr = calloc(FRAMES_MAX, sizeof *w.fr);
	cr_assert_not_null(w.fr);
	w.t = &t;
	w.mode = s->mode;
	w.delay = s->delay;
	w.player = s->player;
	w.join_at = s->join_at;
	w.seed = seed;
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = seed;
	c.opt.size = (uint8_t)s->size;
	c.opt.fov = s->fov;
	c.opt.potions = s->potions;
	c.lim.spect_tick_ms = 1; /* a frame nearly every command: the most frames to check */
	c.hooks.ud = &w;
	c.hooks.applied = applied;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, seed + 1, 1);
	th_bot_config(&t, &cb, "bob", BOT_HARD, seed + 2, 1);
	ca.think_ms = cb.think_ms = 1;
	ca.ud = cb.ud = &w;
	ca.on_msg = cb.on_msg = player_msg;
	th_bot(&t, &w.a, &ca);
	th_run(&t, 20000, a_joined, &w);
	th_bot(&t, &w.b, &cb);
	th_run(&t, 120000, ended_or_done, &w);
	cr_expect_eq(w.a.verified, 1, "alice: %s", w.a.last_why);
	cr_expect_eq(w.b.verified, 1, "bob: %s", w.b.last_why);
	cr_assert(w.spect_started, "the duel ended before %u commands", w.join_at);
	cr_expect_eq(w.spect_errors, 0, "the spectator was refused (%d)", w.spect_code);
	cr_expect_gt(w.nfr, 0, "no frame at all");
	check_duel(&w, &c.opt, tal);
	/* Chat: the other spectator heard the lines, no player did, at any time. */
	cr_expect_eq(w.chats_got, w.chats_sent, "spectator chat: %u sent, %u heard", w.chats_sent, w.chats_got);
	cr_expect_gt(w.chats_sent, 0);
	cr_expect_eq(w.player_spect_chat, 0, "a player got SPECT_CHAT");
	cr_expect_eq(w.player_chat_marker, 0, "a player got a spectator's words in CHAT");
	cr_expect_gt(w.infos_to_players, 0, "the players were never told who watches");
	th_finish(&t);
	free(w.fr);
}

static void
run_set(const struct setup *sets, size_t n, unsigned rounds)
{
	struct tally t = { 0 };

	for (unsigned r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			struct tally one = { 0 };
			watch_duel(&sets[i], 1000 + r * 97 + i * 13, &one);
			cr_expect_leq(one.late_bytes, 8192, "a late spectator's first frame has %u bytes", one.late_bytes);
			cr_expect_eq(one.ends, 1, "the end was shown %u times", one.ends);
			t.frames += one.frames;
			t.leaks += one.leaks;
		}
	cr_expect_eq(t.leaks, 0);
	cr_log_info("spect: %zu duels, %u frames checked, %u leaks", n * rounds, t.frames, t.leaks);
}

/* Every option set: sizes, FoV, potions, each view; spectators join late (after a few commands). */
static const struct setup sets[] = {
	{ 25, true, true, SPECT_SHARED, 0, 0, 6 },
	{ 15, true, false, SPECT_SHARED, 0, 0, 3 },
	{ 51, true, true, SPECT_SHARED, 0, 0, 10 },
	{ 25, false, true, SPECT_SHARED, 0, 0, 4 },
	{ 25, true, true, SPECT_DELAYED, 2, 0, 5 },
	{ 21, false, true, SPECT_DELAYED, 1, 1, 5 },
	{ 25, true, true, SPECT_AFTER, 0, 0, 2 },
};

Test(spect, leaks_over_whole_duels, .timeout = 600)
{
	/* WIZWAR_SPECT_ROUNDS (the slow suite): the same option sets over more seeds. */
	const char *e = getenv("WIZWAR_SPECT_ROUNDS");
	unsigned rounds = e ? (unsigned)strtoul(e, NULL, 10) : 1;

	run_set(sets, sizeof sets / sizeof sets[0], rounds ? rounds : 1);
}

/* ---- a flood of spectators ---- */

struct flood {
	struct th *t;
	struct netbot a, b;
	struct net *n[4];
	bool closed[4];
	int code[4];
	unsigned chats_heard, limits, slow_dropped, welcomed;
	bool chatted;
};

static int
flood_index(struct flood *f, struct net *n)
{
	for (int i = 0; i < 4; i++)
		if (f->n[i] == n)
			return i;
	return -1;
}

static void
flood_welcome(void *ud, struct net *n, int player, bool controller)
{
	struct flood *f = ud;

	(void)n;
	(void)player;
	(void)controller;
	/* Once the three are in, the first says more lines than a room's spectators may. */
	if (++f->welcomed == 3 && !f->chatted) {
		f->chatted = true;
		for (int i = 0; i < 6; i++) {
			char line[32];
			snprintf(line, sizeof line, "line %d", i);
			net_spect_chat(f->n[0], line);
		}
	}
}

static void
flood_chat(void *ud, struct net *n, const char *name, const char *text)
{
	struct flood *f = ud;

	(void)name;
	(void)text;
	if (n == f->n[1])
		f->chats_heard++;
}

static void
flood_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct flood *f = ud;
	int i = flood_index(f, n);

	(void)text;
	if (fatal && i >= 0)
		f->code[i] = code;
	if (!fatal && code == PERR_LIMIT && i == 0)
		f->limits++;
}

static void
flood_closed(void *ud, struct net *n)
{
	struct flood *f = ud;
	int i = flood_index(f, n);

	if (i >= 0)
		f->closed[i] = true;
}

static void
flood_dropped(void *ud, const struct conn *c, int code, const char *why)
{
	struct flood *f = ud;

	(void)c;
	if (code == PERR_LIMIT && strstr(why, "too slow"))
		f->slow_dropped++;
}

/* A slow link for every spectator: the server's send buffer to it made small (4 KiB), so that
 * what the one that never reads leaves unread is queued by the server soon, not by the kernel. */
static void
flood_tap(void *ud, const struct conn *c, int seat, const uint8_t *bytes, size_t n)
{
	uv_os_fd_t fd;
	int small = 4096;

	(void)ud;
	(void)seat;
	(void)bytes;
	(void)n;
	if (c->spect && uv_fileno((const uv_handle_t *)&c->tcp, &fd) == 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
}

static bool
flood_done(void *ud)
{
	struct flood *f = ud;

	if (f->a.closed && f->b.closed && f->closed[3]) {
		for (int i = 0; i < 3; i++)
			if (!f->closed[i] && f->n[i])
				net_close(f->n[i]);
		return f->closed[0] && f->closed[1] && f->closed[2];
	}
	return false;
}

static bool
three_in(void *ud)
{
	struct flood *f = ud;

	return f->welcomed >= 3;
}

static bool
slow_in(void *ud)
{
	return ((struct raw *)ud)->count[WIRE_WELCOME & 0x7f] > 0;
}

static bool
flood_started(void *ud)
{
	struct flood *f = ud;

	return f->welcomed >= 3 && f->closed[3];
}

Test(spect, a_spectator_flood_is_bounded, .timeout = 300)
{
	static struct flood f;
	static struct raw slow;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&f, 0, sizeof f);
	memset(&slow, 0, sizeof slow);
	f.t = &t;
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 77;
	c.opt.size = 51;
	c.opt.fov = false; /* the whole level in every frame: large ones, for the slow reader */
	c.lim.spect_max = 4;
	c.lim.spect_chat_lines = 4;
	c.lim.spect_queued = 2048;
	c.lim.spect_tick_ms = 1;
	c.hooks.ud = &f;
	c.hooks.dropped = flood_dropped;
	c.hooks.tap = flood_tap;
	th_server(&t, &c);
	/* A spectator that joins and then reads nothing, with a small receive buffer. */
	raw_start_small(&t, &slow);
	slow.deaf = slow.spectator = true;
	raw_join_as(&slow, "slow", "host", false);
	/* In (its WELCOME read, then nothing more) before the others connect: one of the four the cap
	 * lets in. */
	th_run(&t, 20000, slow_in, &slow);
	for (int i = 0; i < 4; i++) {
		struct net_config nc;
		char why[256];
		static char name[4][16];
		net_config_default(&nc);
		snprintf(name[i], sizeof name[i], "w%d", i);
		nc.host = "127.0.0.1";
		nc.port = t.port;
		nc.name = name[i];
		nc.role = ROLE_SPECTATOR;
		nc.server_key = server_public_key(t.srv);
		nc.verify = false;
		nc.ud = &f;
		nc.ev.welcome = flood_welcome;
		nc.ev.spect_chat = flood_chat;
		nc.ev.error = flood_error;
		nc.ev.closed = flood_closed;
		/* The fourth once the three (and the slow one) are in: it is the one over the cap. */
		if (i == 3)
			th_run(&t, 20000, three_in, &f);
		cr_assert_not_null(f.n[i] = net_create(&t.loop, &nc, why, sizeof why), "%s", why);
	}
	th_run(&t, 20000, flood_started, &f);
	/* Then the duel, watched. */
	/* Random bots: a long duel, many frames for the slow one to leave unread. */
	th_bot_config(&t, &ca, "alice", BOT_RANDOM, 5, 1);
	th_bot_config(&t, &cb, "bob", BOT_RANDOM, 6, 1);
	ca.think_ms = cb.think_ms = 1;
	th_bot(&t, &f.a, &ca);
	th_bot(&t, &f.b, &cb);
	cr_expect_eq(f.welcomed, 3);
	cr_expect(f.closed[3], "a fifth watcher was let in");
	cr_expect_eq(f.code[3], PERR_ROOM_FULL, "the one over the cap: code %d", f.code[3]);
	th_run(&t, 120000, flood_done, &f);
	cr_expect_eq(f.a.verified, 1, "alice: %s", f.a.last_why);
	cr_expect_eq(f.b.verified, 1, "bob: %s", f.b.last_why);
	cr_expect_eq(f.chats_heard, 4, "the room's spectators said %u lines, 4 allowed", f.chats_heard);
	cr_expect_eq(f.limits, 2, "%u lines refused, 2 expected", f.limits);
	cr_expect_eq(f.slow_dropped, 1, "the spectator that does not read was not dropped");
	raw_close(&slow);
	th_finish(&t);
}

/*
 * A tick that has both a new count and a new frame for the spectators sends them in one record:
 * one seal and one write(2) a spectator, not two (spect.c, fan_out). A raw spectator watches a
 * duel whose every move changes the frame (no field of view); a second one comes and goes
 * mid-duel, so the count changes twice. The raw one notes, for each record after its join
 * snapshot (the record with LOBBY), whether it carried SPECT_INFO, SPECT_VIEW or both.
 */
struct batch {
	struct th *t;
	struct netbot a, b;
	struct raw w;
	struct net *x;
	bool x_closed;
	unsigned views;          /* SPECT_VIEWs the raw spectator got */
	uint32_t rec;            /* the record the last message came in */
	bool rec_info, rec_view, rec_lobby;
	unsigned both, info_alone; /* records after the snapshot: INFO with VIEW; INFO alone */
	uint16_t counts[8];      /* the counts SPECT_INFO told it, in order */
	unsigned ncounts;
};

static void
batch_record_done(struct batch *b)
{
	if (b->rec_info && !b->rec_lobby)
		b->rec_view ? b->both++ : b->info_alone++;
	b->rec_info = b->rec_view = b->rec_lobby = false;
}

static void
batch_x_closed(void *ud, struct net *n)
{
	(void)n;
	((struct batch *)ud)->x_closed = true;
}

static void
batch_msg(struct raw *r, const struct wire_msg *m)
{
	struct batch *b = r->ud;

	if (r->pc.records_in != b->rec) {
		batch_record_done(b);
		b->rec = r->pc.records_in;
	}
	if (m->type == WIRE_LOBBY)
		b->rec_lobby = true;
	if (m->type == WIRE_SPECT_INFO) {
		b->rec_info = true;
		if (b->ncounts < 8)
			b->counts[b->ncounts++] = m->u.sinfo.count;
	}
	if (m->type != WIRE_SPECT_VIEW)
		return;
	b->rec_view = true;
	/* Mid-duel: a second spectator comes (the count goes to 2), then goes (back to 1). */
	if (++b->views == 3) {
		struct net_config nc;
		char why[256];
		net_config_default(&nc);
		nc.host = "127.0.0.1";
		nc.port = b->t->port;
		nc.name = "x";
		nc.role = ROLE_SPECTATOR;
		nc.server_key = server_public_key(b->t->srv);
		nc.verify = false;
		nc.ud = b;
		nc.ev.closed = batch_x_closed;
		cr_assert_not_null(b->x = net_create(&b->t->loop, &nc, why, sizeof why), "%s", why);
	}
	if (b->views == 8 && b->x)
		net_close(b->x);
}

static bool
batch_w_in(void *ud)
{
	return ((struct batch *)ud)->w.count[WIRE_WELCOME & 0x7f] > 0;
}

static bool
batch_done(void *ud)
{
	struct batch *b = ud;

	return b->a.closed && b->b.closed && (b->x == NULL || b->x_closed);
}

Test(spect, a_count_and_a_frame_share_a_record, .timeout = 120)
{
	static struct batch b;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&b, 0, sizeof b);
	b.t = &t;
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 78;
	c.opt.fov = false; /* every move changes what a spectator sees */
	c.lim.spect_tick_ms = 20;
	th_server(&t, &c);
	raw_start(&t, &b.w);
	b.w.spectator = true;
	b.w.on_msg = batch_msg;
	b.w.ud = &b;
	raw_join_as(&b.w, "w", "host", false);
	th_run(&t, 20000, batch_w_in, &b);
	th_bot_config(&t, &ca, "alice", BOT_RANDOM, 7, 1);
	th_bot_config(&t, &cb, "bob", BOT_RANDOM, 8, 1);
	ca.think_ms = cb.think_ms = 5;
	th_bot(&t, &b.a, &ca);
	th_bot(&t, &b.b, &cb);
	th_run(&t, 60000, batch_done, &b);
	batch_record_done(&b);
	cr_assert_not_null(b.x, "the duel ended before the second spectator came (%u frames)", b.views);
	cr_expect(b.ncounts >= 3 && b.counts[b.ncounts - 2] == 2 && b.counts[b.ncounts - 1] == 1,
	          "the counts told: %u of them, the last two %u, %u", b.ncounts, b.ncounts >= 2 ? b.counts[b.ncounts - 2] : 0,
	          b.ncounts >= 1 ? b.counts[b.ncounts - 1] : 0);
	cr_expect(b.both >= 1, "no count went with a frame: %u records with the count alone", b.info_alone);
	raw_close(&b.w);
	th_finish(&t);
}

/*
 * The players go first (spect.c). A fan-out under way stops as soon as the loop has something to
 * read: a player who speaks while a frame goes to a hundred spectators is heard and answered after
 * at most SPECT_PEEK (8) more of them, not after the rest of the slice (62 of its 64). So too while
 * a spectator's chat line goes to the others (once written to all of them in one pass: the
 * player's line waited for 98). And the command that ends the duel writes its players' record
 * (UPDATE, END, the log, LOBBY) before any spectator gets the end's frame or LOBBY; and when the
 * room closes as its players leave at the end, every spectator still gets the end's frame (with
 * its BYE: 0 to 24 of the 100 did when the fan-out was cut there).
 */
#define FIRST_N 100

struct first {
	struct th *t;
	struct netbot a, b;
	struct net *n[FIRST_N];
	int welcomed, closed;
	bool playing, ended;
	int state;               /* 0: not yet; 1: the chat line sent mid-fan-out; 2: a player written to since */
	unsigned run, after;     /* spectators written to since a player was; of them, since the line was sent */
	unsigned players_seen;   /* once the duel is over: bit p when player p's record was written */
	unsigned early;          /* ... and spectators written to before both were */
	bool chat, chatted;      /* the fan-out is a spectator's chat line, said at the first command */
	int saw_end;             /* spectators that got the end's frame (the room closes as the players leave) */
};

static void
first_tap(void *ud, const struct conn *c, int seat, const uint8_t *bytes, size_t n)
{
	struct first *f = ud;

	(void)c, (void)bytes, (void)n;
	if (f->ended) {
		if (seat >= 0)
			f->players_seen |= 1u << seat;
		else if (f->players_seen != 3)
			f->early++;
		return;
	}
	if (!f->playing)
		return;
	if (seat >= 0) {
		if (f->state == 1)
			f->state = 2;
		f->run = 0;
		return;
	}
	f->run++;
	if (f->state == 1) {
		f->after++;
	} else if (f->state == 0 && f->run == 2) {
		/* The second spectator of a fan-out: the player's line is in the server's socket
		 * when this returns (loopback), with the rest of the slice still to go. */
		cr_assert_eq(net_chat(f->a.net, "now"), 0);
		f->state = 1;
	}
}

static void
first_applied(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev)
{
	struct first *f = ud;

	(void)p, (void)c, (void)ev;
	f->playing = true;
	if (f->chat && !f->chatted) {
		f->chatted = true;
		cr_assert_eq(net_spect_chat(f->n[0], "gl"), 0);
	}
	if (room_game(r)->result != RESULT_NONE)
		f->ended = true;
}

static void
first_welcome(void *ud, struct net *n, int player, bool controller)
{
	(void)n, (void)player, (void)controller;
	((struct first *)ud)->welcomed++;
}

static void
first_view(void *ud, struct net *n, const struct wire_sview *v)
{
	(void)n;
	if (v->kind == SPECT_KIND_ALL)
		((struct first *)ud)->saw_end++;
}

static void
first_closed(void *ud, struct net *n)
{
	struct first *f = ud;

	for (int i = 0; i < FIRST_N; i++)
		if (f->n[i] == n)
			f->n[i] = NULL; /* freed once this returns */
	f->closed++;
}

static bool
first_in(void *ud)
{
	return ((struct first *)ud)->welcomed == FIRST_N;
}

static bool
first_done(void *ud)
{
	struct first *f = ud;

	return f->a.closed && f->b.closed;
}

static bool
first_room(void *ud)
{
	struct server_room_info i;

	return server_rooms_list(((struct th *)ud)->srv, &i, 1) == 1;
}

static bool
first_gone(void *ud)
{
	return ((struct first *)ud)->closed == FIRST_N;
}

static void
players_first(bool chat)
{
	static struct first f;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&f, 0, sizeof f);
	f.t = &t;
	f.chat = chat;
	th_init(&t);
	th_config(&c);
	c.seed_fixed = true;
	c.seed = 79;
	c.opt.fov = false; /* every move changes what a spectator sees: a fan-out each tick */
	/* With the chat line, no frame before the end: the line's fan-out is the only one. */
	c.lim.spect_tick_ms = chat ? 600000 : 20;
	c.lim.max_conns_per_addr = FIRST_N + 8;
	c.multi = true; /* the room closes once its players leave, as soon as the duel is over */
	c.hooks.ud = &f;
	c.hooks.tap = first_tap;
	c.hooks.applied = first_applied;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "alice", BOT_NORMAL, 9, 1);
	th_bot_config(&t, &cb, "bob", BOT_NORMAL, 10, 1);
	ca.net.room = cb.net.room = "room-f";
	ca.think_ms = cb.think_ms = 2;
	th_bot(&t, &f.a, &ca); /* she makes the room, which the spectators then join */
	th_run(&t, 10000, first_room, &t);
	for (int i = 0; i < FIRST_N; i++) {
		struct net_config nc;
		char why[256];
		static char name[FIRST_N][8];
		net_config_default(&nc);
		snprintf(name[i], sizeof name[i], "s%d", i);
		nc.host = "127.0.0.1";
		nc.port = t.port;
		nc.name = name[i];
		nc.room = "room-f";
		nc.role = ROLE_SPECTATOR;
		nc.server_key = server_public_key(t.srv);
		nc.verify = false;
		nc.ud = &f;
		nc.ev.welcome = first_welcome;
		nc.ev.spect_view = first_view;
		nc.ev.closed = first_closed;
		cr_assert_not_null(f.n[i] = net_create(&t.loop, &nc, why, sizeof why), "%s", why);
	}
	th_run(&t, 30000, first_in, &f);
	th_bot(&t, &f.b, &cb);
	th_run(&t, 60000, first_done, &f);
	cr_assert_eq(f.state, 2, "the line was %s", f.state == 0 ? "never sent: no fan-out reached a second spectator" :
	                                        "sent, and no player was written to after it");
	cr_assert(!chat || f.chatted, "no spectator's chat line was said");
	cr_expect_leq(f.after, 8, "a player's line waited for %u spectators' writes (at most 8)", f.after);
	cr_expect_eq(f.players_seen, 3u, "the players' last records: %#x", f.players_seen);
	cr_expect_eq(f.early, 0, "%u spectators' writes of the end went before the players' last records", f.early);
	/* The players leave at the end, and the room closes with the fan-out of its end under way:
	 * what it had left goes with each spectator's BYE. */
	th_run(&t, 20000, first_gone, &f);
	cr_expect_eq(f.saw_end, FIRST_N, "%d of %d spectators got the end's frame", f.saw_end, FIRST_N);
	for (int i = 0; i < FIRST_N; i++)
		if (f.n[i])
			net_close(f.n[i]);
	th_run(&t, 20000, first_gone, &f);
	th_finish(&t);
}

Test(spect, the_players_go_before_the_spectators, .timeout = 120)
{
	players_first(false);
}

Test(spect, the_players_go_before_the_spectators_chat, .timeout = 120)
{
	players_first(true);
}
