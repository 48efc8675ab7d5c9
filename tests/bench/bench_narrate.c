/* SPDX-License-Identifier: MIT */
/* bench_narrate: the time from an opponent's command to its narration on the person's screen, over loopback. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bot.h"
#include "netbot.h"
#include "server.h"
#include "session_net.h"

/*
 * One process, one loop, as `wizwar host` with a remote bot: a one-room server on 127.0.0.1 (FoV off,
 * so the opponent is always in sight), a network bot that decides with bot_choose() and notes the
 * clock just before it sends a drink, pick-up or cast, and the person: the real app and network
 * session, on a screen whose draw() notes the clock when the narration first shows. The person ends
 * its turns at once and asks for a rematch after each duel. A cast whose effect is in sight is shown
 * after the plan's 250 ms effects pause, so casts are reported apart.
 */

#define SAMPLES 100

enum { K_DRINK, K_PICKUP, K_CAST, K_COUNT };
static const char *const kind_name[K_COUNT] = { "drink or quaff", "pick up", "cast" };

struct bench {
	uv_loop_t *loop;
	struct server *srv;
	struct netbot bot;
	struct session_net sess;
	struct app app;
	uint64_t sent_at;       /* the opponent's last narrated command, 0 when none is pending */
	int sent_kind;
	unsigned seen_log;      /* log entries already looked at */
	uint32_t passed_turn;   /* the turn I last ended, + 1 */
	bool rematch_asked, done;
	uint64_t started_at;
	double ms[K_COUNT][SAMPLES];
	int n[K_COUNT];
	int total;
};

static int
kind_of_cmd(int type)
{
	switch (type) {
	case CMD_DRINK:
	case CMD_QUAFF:
		return K_DRINK;
	case CMD_PICKUP:
		return K_PICKUP;
	case CMD_CAST:
		return K_CAST;
	default:
		return -1;
	}
}

static bool
choose(void *ud, struct netbot *b, const struct view *v, struct cmd *out)
{
	struct bench *x = ud;

	bot_choose(v, BOT_RANDOM, &b->rng, out);
	int k = kind_of_cmd(out->type);
	if (k >= 0) {
		x->sent_kind = k;
		x->sent_at = uv_hrtime();
	}
	return true;
}

static void
finish(struct bench *x)
{
	if (x->done)
		return;
	x->done = true;
	app_quit(&x->app, 0);
	netbot_stop(&x->bot);
	server_close(x->srv, NULL, NULL);
}

/* The screen: nothing is drawn, but each draw is when the person would see the state. */
static void
scr_draw(void *ctx, const struct state *st)
{
	struct bench *x = ctx;
	const struct log_entry *e;

	while ((e = state_log_get(st, x->seen_log)) != NULL) {
		x->seen_log++;
		if (e->kind != LOG_GAME || x->sent_at == 0)
			continue;
		if (e->msg.id == MSG_OPP_DRINKS || e->msg.id == MSG_OPP_PICKS_UP || e->msg.id == MSG_OPP_CASTS ||
		    e->msg.id == MSG_OPP_CASTS_SEEN) {
			if (x->n[x->sent_kind] < SAMPLES)
				x->ms[x->sent_kind][x->n[x->sent_kind]++] = (double)(uv_hrtime() - x->sent_at) / 1e6;
			x->sent_at = 0;
			if (++x->total >= SAMPLES) {
				finish(x);
				return;
			}
		}
	}
}

static int scr_start(void *ctx) { (void)ctx; return 0; }
static void scr_stop(void *ctx) { (void)ctx; }
static void scr_nop(void *ctx) { (void)ctx; }
static int scr_key(void *ctx) { (void)ctx; return APP_NOKEY; }

static const struct screen_ops bench_screen = {
	.start = scr_start, .stop = scr_stop, .draw = scr_draw, .resize = scr_nop, .invalidate = scr_nop,
	.read_key = scr_key, .flash = scr_nop,
};

/* The person: end my turn at once; after a duel, ask for another. */
static void
on_idle(uv_timer_t *h)
{
	struct bench *x = h->data;
	struct state *st = &x->app.st;

	if (x->done) {
		uv_close((uv_handle_t *)h, NULL);
		return;
	}
	if (x->started_at == 0)
		x->started_at = uv_now(x->loop);
	if (uv_now(x->loop) - x->started_at > 60000) {
		fprintf(stderr, "bench_narrate: 60 s and %d samples; the person's phase %d, mode %d\n", x->total,
		    x->sess.net ? net_phase(x->sess.net) : -1, st->mode);
		finish(x);
		return;
	}
	if (state_my_turn(st) && x->passed_turn != st->view.turn_no + 1 && !x->app.animating) {
		x->passed_turn = st->view.turn_no + 1;
		app_key(&x->app, '.');
	}
	if (st->mode == MODE_OVER && !x->rematch_asked) {
		x->rematch_asked = true;
		app_key(&x->app, 'r');
	}
	if (st->mode != MODE_OVER)
		x->rematch_asked = false;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int
main(void)
{
	static struct bench x;
	uv_loop_t loop;
	uv_timer_t idle; /* the person looks at its screen every 2 ms */
	struct server_config sc;
	struct netbot_config bc;
	struct net_config nc;
	struct keys keys;
	char why[300];

	uv_loop_init(&loop);
	x.loop = &loop;
	server_config_default(&sc);
	sc.bind = "127.0.0.1";
	sc.port = 0;
	sc.multi = false;
	sc.quiet = true;
	sc.opt.fov = false;
	sc.seed_fixed = true;
	sc.seed = 11;
	if (server_create(&loop, &sc, &x.srv, why, sizeof why) != 0) {
		fprintf(stderr, "bench_narrate: %s\n", why);
		return 1;
	}

	keys_init(&keys);
	struct app_config ac = { .loop = &loop, .keys = &keys, .screen = &bench_screen, .screen_ctx = &x,
		.session = &session_net_ops, .session_ctx = &x.sess, .input_fd = -1 };
	if (app_init(&x.app, &ac) != 0)
		return 1;
	net_config_default(&nc);
	nc.host = "127.0.0.1";
	nc.port = server_port(x.srv);
	nc.name = "person";
	nc.server_key = server_public_key(x.srv); /* the server made here: its key is known */
	session_net_events(&x.sess, &nc);
	if ((x.sess.net = net_create(&loop, &nc, why, sizeof why)) == NULL) {
		fprintf(stderr, "bench_narrate: %s\n", why);
		return 1;
	}
	session_net_start(&x.sess, &x.app, x.sess.net, NULL);

	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	bc.net.host = "127.0.0.1";
	bc.net.port = server_port(x.srv);
	bc.net.name = "opponent";
	bc.net.server_key = server_public_key(x.srv);
	bc.net.role = ROLE_BOT;
	bc.level = BOT_RANDOM;
	bc.seed = 7;
	bc.ready = true;
	bc.quiet = true;
	bc.ud = &x;
	bc.choose = choose;
	if (netbot_start(&x.bot, &loop, &bc, why, sizeof why) != 0) {
		fprintf(stderr, "bench_narrate: %s\n", why);
		return 1;
	}
	uv_timer_init(&loop, &idle);
	idle.data = &x;
	uv_timer_start(&idle, on_idle, 2, 2);
	app_run(&x.app);
	app_finish(&x.app);
	uv_run(&loop, UV_RUN_DEFAULT);

	printf("time from the opponent's command to its narration on screen (loopback, FoV off, %d samples)\n",
	    x.total);
	printf("%-16s %6s %9s %9s %9s\n", "action", "n", "median", "p90", "max");
	for (int k = 0; k < K_COUNT; k++) {
		int n = x.n[k];
		if (n == 0)
			continue;
		qsort(x.ms[k], (size_t)n, sizeof x.ms[k][0], cmp);
		printf("%-16s %6d %7.2f ms %7.2f ms %7.2f ms\n", kind_name[k], n, x.ms[k][n / 2], x.ms[k][n * 9 / 10],
		    x.ms[k][n - 1]);
	}
	if (uv_loop_close(&loop) != 0)
		fprintf(stderr, "bench_narrate: a handle was left open\n");
	return x.total >= 20 ? 0 : 1;
}
