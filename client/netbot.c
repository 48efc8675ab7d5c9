/* SPDX-License-Identifier: MIT */
/* netbot: plays duels over the network with bot_choose() on the received view; readies, rematches, verifies. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "netbot.h"

static void
act(struct netbot *b)
{
	const struct view *v = net_view(b->net);
	struct cmd c;

	if (b->cfg.passive || b->waiting || net_phase(b->net) != NET_PLAYING || v->result != RESULT_NONE || v->turn != v->me)
		return;
	if (!b->cfg.choose || !b->cfg.choose(b->cfg.ud, b, v, &c))
		bot_choose_mind(v, b->cfg.level, &b->rng, &b->mind, &c);
	if (net_cmd(b->net, &c) == 0) {
		b->waiting = true;
		return;
	}
	/* A command the protocol cannot even carry: play a legal one instead. */
	bot_choose(v, b->cfg.level, &b->rng, &c);
	if (net_cmd(b->net, &c) == 0)
		b->waiting = true;
}

static void
on_think(uv_timer_t *t)
{
	act(t->data);
}

static void
consider(struct netbot *b)
{
	if (b->cfg.think_ms == 0) {
		act(b);
		return;
	}
	if (!b->waiting && !uv_is_active((uv_handle_t *)&b->think) && !uv_is_closing((uv_handle_t *)&b->think))
		uv_timer_start(&b->think, on_think,
		               b->cfg.think_ms + (b->cfg.jitter_ms ? rng_below(&b->pace, b->cfg.jitter_ms + 1) : 0), 0);
}

static bool
same_options(const struct options *a, const struct options *b)
{
	return a->size == b->size && a->fov == b->fov && a->potions == b->potions;
}

static void
ev_lobby(void *ud, struct net *n, const struct wire_lobby *l)
{
	struct netbot *b = ud;
	int me = net_player(n);

	if (!b->cfg.ready || net_phase(n) != NET_LOBBY || me < 0)
		return;
	/* When the opponent leaves, the server clears everyone's readiness: be ready
	 * again for whoever takes the seat next. */
	if ((l->present & 3u) != 3u)
		b->ready_sent = false;
	/* The server clears readiness when the controller sets the options (even to the same ones)
	 * and when a seat is dropped: once the room has shown this bot ready, a lobby that no
	 * longer does asks for READY again. (A lobby sent before our READY arrived shows us not
	 * ready yet, but we were never shown ready then: no second READY.) */
	if (l->ready & (1u << me))
		b->ready_seen = true;
	else if (b->ready_seen)
		b->ready_sent = b->ready_seen = false;
	if (!(l->ready & (1u << me)) && !b->ready_sent) {
		b->ready_sent = true;
		/* The options first: a duel starts at the second READY, and they change only in the lobby. */
		/* Only when they differ: OPTIONS clears every READY, even to the same options (a bot
		 * run again after a kill finds them set already). */
		if (b->cfg.opt_set && !b->opt_sent && l->controller == me) {
			b->opt_sent = true;
			if (!same_options(&l->opt, &b->cfg.opt) || l->turn_time != b->cfg.turn_time)
				net_options(n, &b->cfg.opt, b->cfg.turn_time);
		}
		if (b->cfg.spect_set && !b->spect_sent && l->controller == me) {
			b->spect_sent = true;
			net_spect_set(n, b->cfg.spect_allowed, b->cfg.spect_mode, b->cfg.spect_delay, b->cfg.spect_player);
		}
		/* A mirror after a duel that was not one: each level is played from both seats, then a
		 * new one (a mirror of a mirror would deal the same level for ever). */
		if (b->games > 0)
			net_rematch_mirror(n, b->cfg.mirror && !net_seed_mirror(n));
		else
			net_ready(n, true);
	}
}

static void
ev_start(void *ud, struct net *n, const struct view *v, bool resumed)
{
	struct netbot *b = ud;

	(void)n;
	b->waiting = false;
	b->ready_sent = b->ready_seen = false;
	mind_reset(&b->mind); /* a new duel, or one resumed after a gap it did not see: from the view again */
	b->their_turn = v->turn != v->me;
	if (b->cfg.on_start)
		b->cfg.on_start(b->cfg.ud, b, v, resumed);
	consider(b);
}

static void
ev_update(void *ud, struct net *n, const struct view *v, const struct update *u)
{
	struct netbot *b = ud;

	(void)n;
	for (int i = 0; i < u->nmsg; i++)
		mind_heard(&b->mind, &u->msg[i]); /* what the opponent's turn told it, as a person is told */
	b->told += u->nmsg;
	/* Where the opponent's spells struck, of what it saw: an update is the command of the
	 * one who had the move before it. */
	for (int i = 0; i < u->nfx && b->their_turn; i++)
		mind_saw(&b->mind, u->fx[i].x, u->fx[i].y, u->fx[i].id);
	b->shown += b->their_turn ? u->nfx : 0;
	if (b->their_turn) {
		mind_watch(&b->mind, v); /* where it walked through its sight */
		b->watched += v->opp_state == OPP_VISIBLE;
	}
	b->their_turn = v->turn != v->me;
	b->waiting = false;
	consider(b);
}

static void
ev_end(void *ud, struct net *n, const struct wire_end *e, bool verified, const char *why)
{
	struct netbot *b = ud;
	int me = net_player(n);

	if (b->games < 4) {
		b->seed[b->games] = e->seed;
		b->player[b->games] = me;
	}
	b->games++;
	if (e->result == RESULT_DRAW)
		b->draws++;
	else if ((e->result == RESULT_WIN0 && me == 0) || (e->result == RESULT_WIN1 && me == 1))
		b->wins++;
	else
		b->losses++;
	if (verified)
		b->verified++;
	else
		b->unverified++;
	snprintf(b->last_why, sizeof b->last_why, "%s", why);
	if (!b->cfg.quiet && !verified)
		cli_error("the host could not be verified: %s\n", why);
	if (b->cfg.on_end)
		b->cfg.on_end(b->cfg.ud, b, e, verified, why);
	b->ready_sent = b->ready_seen = false;
	if (b->cfg.games > 0 && b->games >= b->cfg.games) {
		netbot_stop(b);
		return;
	}
	ev_lobby(b, n, net_lobby(n));
}

static void
ev_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct netbot *b = ud;

	b->last_error = code;
	if (code >= PERR_REFUSED_BASE) {
		/* Judged from the view alone, a refusal is legal play: pass instead. */
		b->refused++;
		b->waiting = false;
		const struct view *v = net_view(n);
		if (net_phase(n) == NET_PLAYING && v->turn == v->me && v->result == RESULT_NONE) {
			struct cmd pass = { CMD_PASS, 0, 0 };
			if (net_cmd(n, &pass) == 0)
				b->waiting = true;
		}
		return;
	}
	b->errors++;
	/* Cut off: the session ended under the bot, not because it was stopped nor because it had
	 * played its --games. With --games 0 (until stopped) every such end is one. */
	if (fatal && !b->stopping && (b->cfg.games == 0 || b->games < b->cfg.games))
		b->cut_off = true;
	snprintf(b->last_why, sizeof b->last_why, "%s", text);
	if (!b->cfg.quiet)
		cli_error("%s%s\n", fatal ? "" : "warning: ", text);
}

/* A lost link is taken back by net.c (in a duel and in the lobby alike); said on stderr. */
static void
ev_link(void *ud, struct net *n, bool up, const char *why)
{
	struct netbot *b = ud;

	if (up)
		b->links_back++;
	else
		b->links_lost++;
	if (b->cfg.quiet)
		return;
	bool known;
	unsigned hold = net_lobby_hold_secs(n, &known);

	if (up)
		cli_error("reconnected\n");
	else if (net_seat_hold_left(n) >= 0 && known && hold == 0)
		cli_error("connection lost (%s): reconnecting, an attempt a second for up to %u s; this "
		        "server holds no seat dropped in the lobby, so the bot joins the room again as a new player\n", why,
		        net_reconnect_secs(n));
	else if (net_seat_hold_left(n) >= 0)
		cli_error("connection lost (%s): reconnecting, an attempt a second for up to %u s; the "
		        "lobby seat is held %s%u s, then the bot joins the room again as a new player\n", why,
		        net_reconnect_secs(n), known ? "" : "about ", hold);
	else
		cli_error("connection lost (%s): reconnecting, an attempt a second for up to %u s\n", why,
		        net_reconnect_secs(n));
}

static void
ev_msg(void *ud, struct net *n, const struct wire_msg *m)
{
	struct netbot *b = ud;

	(void)n;
	if (b->cfg.on_msg)
		b->cfg.on_msg(b->cfg.ud, b, m);
}

static void
ev_rx(void *ud, struct net *n, const uint8_t *p, size_t len)
{
	struct netbot *b = ud;

	(void)n;
	if (b->cfg.on_rx)
		b->cfg.on_rx(b->cfg.ud, b, p, len);
}

static void done(struct netbot *b);
static void
on_think_closed(uv_handle_t *h)
{
	done(h->data);
}

static void
done(struct netbot *b)
{
	if (--b->handles > 0)
		return;
	b->closed = true;
	if (b->cfg.on_closed)
		b->cfg.on_closed(b->cfg.ud, b);
}

static void
ev_closed(void *ud, struct net *n)
{
	struct netbot *b = ud;

	(void)n;
	b->net = NULL;
	if (!uv_is_closing((uv_handle_t *)&b->think))
		uv_close((uv_handle_t *)&b->think, on_think_closed);
	done(b);
}

int
netbot_start(struct netbot *b, uv_loop_t *loop, const struct netbot_config *cfg, char *why, size_t whylen)
{
	struct net_config nc = cfg->net;

	memset(b, 0, sizeof *b);
	b->cfg = *cfg;
	b->loop = loop;
	rng_seed(&b->rng, cfg->seed);
	rng_seed(&b->pace, ~cfg->seed);
	nc.ud = b;
	memset(&nc.ev, 0, sizeof nc.ev);
	nc.ev.lobby = ev_lobby;
	nc.ev.start = ev_start;
	nc.ev.update = ev_update;
	nc.ev.end = ev_end;
	nc.ev.error = ev_error;
	nc.ev.link = ev_link;
	nc.ev.closed = ev_closed;
	nc.ev.msg = ev_msg;
	nc.ev.rx = ev_rx;
	nc.ev.key = cfg->net.ev.key; /* how the server's key was checked: passed through (ud: the netbot) */
	if ((b->net = net_create(loop, &nc, why, whylen)) == NULL)
		return -1;
	uv_timer_init(loop, &b->think);
	b->think.data = b;
	b->handles = 2;
	return 0;
}

void
netbot_stop(struct netbot *b)
{
	b->stopping = true;
	if (!uv_is_closing((uv_handle_t *)&b->think))
		uv_close((uv_handle_t *)&b->think, on_think_closed);
	if (b->net)
		net_close(b->net);
}

void
netbot_abandon(struct netbot *b)
{
	b->stopping = true;
	if (!uv_is_closing((uv_handle_t *)&b->think))
		uv_close((uv_handle_t *)&b->think, on_think_closed);
	if (b->net)
		net_abandon(b->net);
}
