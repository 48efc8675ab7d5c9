/* SPDX-License-Identifier: MIT */
/* session_net: joins the curses app to net.c: updates, chat, peer news and the end check shown; lobby by /commands. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "potion.h"
#include "server.h"
#include "recstore.h"
#include "session_net.h"
#include "summary.h"

static const char lobby_help[] =
    "/ready /wait /rematch /mirror /quit /mute /size N /fov /potions on|off /time S /control /spectators";

static void
status(struct session_net *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
status(struct session_net *s, const char *fmt, ...)
{
	char buf[300];
	va_list ap;

	if (!s->app)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	app_on_status(s->app, buf);
}

static void
ev_welcome(void *ud, struct net *n, int player, bool controller)
{
	struct session_net *s = ud;

	(void)n;
	s->me = player;
	s->joined = true;
	s->afresh = false;
	s->last_lobby[0] = '\0'; /* a new seat, or back after a drop: the lobby is said again */
	if (s->practice || !s->app) /* a WELCOME before the screen is said again once it starts */
		return;
	if (s->relinked) {
		/* Back after a drop: the same seat, or (not held any more) a new one. */
		s->relinked = false;
		status(s, "%s as player %d%s.", s->rejoined ? "Joined the room again" : "Back in the room", player + 1,
		       controller ? ", the controller" : "");
		s->rejoined = false;
		return;
	}
	status(s, "%s player %d%s.", s->welcomed++ ? "You are now" : "Joined as", player + 1,
	       controller ? ", the controller" : "");
}

/* What the duel waits for, said to this player: the same words whoever left or came. away: the
 * name of an opponent whose link dropped and whose seat the room holds, or NULL. */
static const char *
lobby_waits(const struct wire_lobby *l, int me, const char *away, bool counting, bool auto_ready)
{
	static char buf[160];
	bool mine = me >= 0 && (l->ready & (1u << me)), theirs = me >= 0 && (l->ready & (1u << (1 - me)));
	const char *them = me >= 0 && l->name[1 - me][0] ? l->name[1 - me] : "the opponent";

	if ((me < 0 || !(l->present & (1u << (1 - me)))) && away) {
		snprintf(buf, sizeof buf, mine ? "You are ready; the duel starts when %s is back and ready." :
		                                 "Type /ready to be ready when %s is back.", away);
		return buf;
	}
	if ((me < 0 || !(l->present & (1u << (1 - me)))) && auto_ready && !mine)
		return "When an opponent joins, a short countdown starts the duel (/wait holds it).";
	if (me < 0 || !(l->present & (1u << (1 - me))))
		return mine ? "You are ready; the duel starts when an opponent joins and is ready." :
		              "Type /ready to be ready when an opponent joins.";
	if (counting && !mine)
		return "A short countdown starts the duel: /wait holds it, /ready starts it now.";
	if (mine && theirs)
		return "Both are ready.";
	if (mine)
		snprintf(buf, sizeof buf, "You are ready; waiting for %s to be ready.", them);
	else if (theirs)
		snprintf(buf, sizeof buf, "%s is ready: type /ready (or /rematch) to start.", them);
	else
		snprintf(buf, sizeof buf, "The duel starts when both are ready: type /ready (or /rematch).");
	return buf;
}

/* A player's name as the screen knows it, or NULL (no screen, no such player, no name yet). */
static const char *
known_name(const struct session_net *s, int p)
{
	return s->app && p >= 0 && p < PLAYERS && s->app->st.name[p][0] ? s->app->st.name[p] : NULL;
}

/* ---- the first duel's countdown ---- */

static void
countdown_note(struct session_net *s)
{
	char buf[120];

	snprintf(buf, sizeof buf, "Duel in %d s: /wait holds it, /ready starts it now.", s->countdown_left);
	if (s->app)
		app_on_note(s->app, buf);
}

static void
on_countdown(uv_timer_t *t)
{
	struct session_net *s = t->data;

	if (--s->countdown_left > 0) {
		countdown_note(s);
		return;
	}
	uv_timer_stop(t);
	s->countdown_on = false;
	if (s->app)
		app_on_note(s->app, NULL);
	if (s->auto_ready && s->net && net_phase(s->net) == NET_LOBBY) {
		s->auto_ready = false;
		net_ready(s->net, true);
	}
}

static void
countdown_start(struct session_net *s)
{
	uv_loop_t *loop = s->app ? s->app->cfg.loop : NULL;

	if (s->countdown_on || s->quit || loop == NULL)
		return;
	if (!s->countdown_open) {
		if (uv_timer_init(loop, &s->countdown) != 0)
			return;
		s->countdown.data = s;
		s->countdown_open = true;
	}
	s->countdown_on = true;
	s->countdown_left = LOBBY_COUNTDOWN_S;
	uv_timer_start(&s->countdown, on_countdown, 1000, 1000);
	countdown_note(s);
}

static void
countdown_stop(struct session_net *s)
{
	if (!s->countdown_on)
		return;
	s->countdown_on = false;
	uv_timer_stop(&s->countdown);
	if (s->app)
		app_on_note(s->app, NULL);
}

static void
on_countdown_closed(uv_handle_t *h)
{
	struct session_net *s = h->data;

	s->countdown_open = false;
}

/* On the way out: the timer's handle closes with the rest. */
static void
countdown_close(struct session_net *s)
{
	countdown_stop(s);
	if (s->countdown_open && !uv_is_closing((uv_handle_t *)&s->countdown))
		uv_close((uv_handle_t *)&s->countdown, on_countdown_closed);
}

static void
ev_lobby(void *ud, struct net *n, const struct wire_lobby *l)
{
	struct session_net *s = ud;
	int me = net_player(n);
	bool both = (l->present & 3) == 3;

	for (int p = 0; p < PLAYERS; p++)
		if (l->name[p][0] && s->app)
			app_set_name(s->app, p, l->name[p]);
	if (s->app)
		app_set_seat(s->app, me);
	if (s->app)
		app_set_turn_time(s->app, l->turn_time);
	if (net_phase(n) != NET_LOBBY)
		return;
	bool changed = s->lobby_seen && (memcmp(&s->lobby_opt, &l->opt, sizeof l->opt) != 0 || s->lobby_tt != l->turn_time);
	s->lobby_seen = true;
	s->lobby_opt = l->opt;
	s->lobby_tt = l->turn_time;
	if (s->auto_ready && me >= 0 && !(l->ready & (1u << me))) {
		if (s->practice) {
			/* Practice's bot has nothing to agree: its duel starts at once. */
			s->auto_ready = false;
			net_ready(n, true);
			return;
		}
		/* The first duel starts on its own, after a countdown that lets both read the options;
		 * a change of options (the server has unreadied both) or /wait stops it. Later duels on
		 * /rematch. */
		if (changed) {
			s->auto_ready = false;
			countdown_stop(s);
		} else if (both) {
			countdown_start(s);
		} else {
			countdown_stop(s);
		}
	}
	if (s->practice)
		return;
	char clock[40];
	if (l->turn_time)
		snprintf(clock, sizeof clock, "%u second%s a turn", (unsigned)l->turn_time, l->turn_time == 1 ? "" : "s");
	else
		snprintf(clock, sizeof clock, "no turn timer");
	const char *away = both ? NULL : known_name(s, s->away);
	char here[80];
	if (both)
		snprintf(here, sizeof here, "Both players are here.");
	else if (away)
		snprintf(here, sizeof here, "Waiting for %s to come back.", away);
	else
		snprintf(here, sizeof here, "Waiting for an opponent.");
	char line[sizeof s->last_lobby];
	snprintf(line, sizeof line, "%s%s Options: %dx%d, FoV %s, potions %s, %s. %s%s",
	         changed ? "The options changed. " : "", here,
	         l->opt.size, l->opt.size, l->opt.fov ? "on" : "off", l->opt.potions ? "on" : "off",
	         clock, l->controller == me ? "You control the options. " : "",
	         lobby_waits(l, me, away, s->countdown_on, s->auto_ready));
	/* Each lobby line once: a LOBBY that changes nothing this player is told (the other's
	 * READY during the countdown, a repeat) adds no line. */
	if (!s->app || strcmp(line, s->last_lobby) == 0)
		return; /* before the screen: session_net_start() says it */
	snprintf(s->last_lobby, sizeof s->last_lobby, "%s", line);
	status(s, "%s", line);
}

static void
ev_start(void *ud, struct net *n, const struct view *v, bool resumed)
{
	struct session_net *s = ud;

	s->started = true;
	s->played = true;
	if (!resumed)
		s->saved_now = false; /* a new duel: the log kept is the last one's */
	if (!s->app) {
		/* Before the screen (a resumed seat's snapshot comes right after WELCOME): shown
		 * by session_net_start. */
		s->early_start = true;
		s->early_resumed = resumed;
		return;
	}
	app_reset_updates(s->app);
	app_on_update(s->app, v, NULL, 0, NULL, 0);
	if (resumed)
		app_clock_resumed(s->app);
	if (s->practice && !resumed)
		return;
	if (net_seed_chosen(n)) {
		/* Said again after a resume too: a player who was away may not have seen it. */
		status(s, resumed ? "Back in the duel. The host chose this level and who moves first (--seed)."
		                  : "The duel begins. The host chose this level and who moves first (--seed): the dice are its.");
		return;
	}
	if (resumed)
		status(s, "Back in the duel.");
	else if (net_seed_mirror(n))
		status(s, "The mirror rematch begins: the last duel's level, the seats swapped.");
	else if (net_seed_mine(n))
		status(s, "The duel begins, on a seed made with your part.");
	else
		status(s, "The duel begins. The host has committed to its part of the seed.");
}

static void
ev_update(void *ud, struct net *n, const struct view *v, const struct update *u)
{
	struct session_net *s = ud;
	int nfx = 0;

	(void)n;
	if (!s->app)
		return;
	for (int i = 0; i < u->nfx && i < (int)(sizeof s->fx / sizeof s->fx[0]); i++)
		s->fx[nfx++] = (struct fx_square){ u->fx[i].x, u->fx[i].y, u->fx[i].id };
	app_on_update(s->app, v, u->msg, u->nmsg, s->fx, nfx);
}

static void
ev_chat(void *ud, struct net *n, int from, const char *text)
{
	struct session_net *s = ud;

	if (s->on_chat)
		s->on_chat(s->hook_ud, from, text);
	/* Muted by name: a new player in that seat is heard. */
	if (s->muted[0] && from != net_player(n) && from >= 0 && from < PLAYERS &&
	    strcmp(net_lobby(n)->name[from], s->muted) == 0) {
		s->muted_lines++;
		return;
	}
	if (s->app)
		app_on_chat(s->app, from, text);
}

/* The room's spectator options and count: the header shows how many watch. A change of the
 * options (not of the count) is said in the log. */
static void
ev_spect_info(void *ud, struct net *n, const struct wire_sinfo *i)
{
	struct session_net *s = ud;
	struct state *st;

	(void)n;
	if (s->app == NULL)
		return;
	st = &s->app->st;
	if (s->spect_told && (i->allowed != s->spect_last.allowed || i->mode != s->spect_last.mode ||
	                      i->delay != s->spect_last.delay || i->player != s->spect_last.player)) {
		if (!i->allowed)
			status(s, "Spectators are off.");
		else if (i->mode == SPECT_SHARED)
			status(s, "Spectators see only what both players know, live.");
		else if (i->mode == SPECT_DELAYED)
			status(s, "Spectators see player %u's view, %u turn%s behind.", i->player + 1u, i->delay,
			       i->delay == 1 ? "" : "s");
		else
			status(s, "Spectators see nothing until the duel is over.");
	}
	s->spect_last = *i;
	s->spect_told = true;
	st->spect_off = !i->allowed;
	st->watchers = i->count;
	app_redraw(s->app);
}

static void
ev_peer(void *ud, struct net *n, const struct wire_peer *p)
{
	struct session_net *s = ud;

	(void)n;
	const char *who = known_name(s, p->player);

	if (!who)
		who = "Your opponent";
	s->away = p->state == PEER_DROPPED && p->player < PLAYERS ? p->player : -1;
	switch (p->state) {
	case PEER_DROPPED:
		if (s->started)
			status(s, "%s lost the connection; the duel waits up to %u s for it.", who, p->seconds);
		else
			status(s, "%s lost the connection; the room holds its seat up to %u s.", who, p->seconds);
		break;
	case PEER_BACK:
		status(s, "%s is back.", who);
		break;
	default:
		status(s, "Your opponent has left; the room waits for another.");
		/* Before any duel, be ready again by ourselves for whoever comes next. */
		if (!s->played && !s->unreadied)
			s->auto_ready = true;
		break;
	}
}

/* The end's whole story, from the log the server revealed: the level, where the opponent stood and
 * what it carried, a few counts and where the log is. */
static void
reveal(struct session_net *s, struct net *n)
{
	static struct game g; /* large; one end at a time on this thread */
	struct summary sum;
	struct view *all = malloc(sizeof *all);
	uint8_t ninv = 0, inv[INV_MAX];
	const char *names[PLAYERS];
	char note[STATE_NOTE_MAX];
	size_t len, off;
	const char *log = net_end_log(n, &len);

	if (all == NULL || log == NULL || s->me < 0 || s->me >= PLAYERS ||
	    summary_from_log(log, len, &sum, &g) != 0 || g.result == RESULT_NONE) {
		free(all);
		return;
	}
	summary_reveal(&g, s->me, all, &ninv, inv);
	for (int p = 0; p < PLAYERS; p++)
		names[p] = s->app->st.name[p];
	off = summary_text(&sum, s->me, names, note, sizeof note);
	int k = snprintf(note + off, sizeof note - off, " %s carried %s", names[1 - s->me], ninv ? "" : "nothing");
	off += k > 0 && (size_t)k < sizeof note - off ? (size_t)k : 0;
	for (int i = 0; i < ninv && off + 40 < sizeof note; i++) {
		int kind = inv[i] < APPEARANCE_COUNT ? g.kind_of[inv[i]] : POTION_NONE;
		k = snprintf(note + off, sizeof note - off, "%s%s (%s)", i ? ", " : "", appearance_name(inv[i]), potion_name(kind));
		off += k > 0 && (size_t)k < sizeof note - off ? (size_t)k : 0;
	}
	if (off + 2 < sizeof note) {
		k = snprintf(note + off, sizeof note - off, ".");
		off += k > 0 ? (size_t)k : 0;
	}
	/* The path on a row of its own under the box, whole, to copy: never wrapped inside it. */
	if (s->log_path) {
		char line[sizeof s->app->st.share];
		snprintf(line, sizeof line, "Turn log: %s", s->log_path);
		app_set_share(s->app, line);
	}
	app_on_reveal(s->app, all, note);
	free(all);
}

/* Keep the log END revealed, as practice keeps its own: SAVE_DIR/duel-SEED.log (-2, -3 ... for
 * a seed played again, cli_create_log()). Written whether or not it verified (the line that said so stays on screen): it is
 * what the server sent, to replay or to show someone. */
static void
save_log(struct session_net *s, struct net *n, const struct wire_end *e)
{
	size_t len;
	const char *log = net_end_log(n, &len);
	char path[sizeof s->saved_path]; /* s->saved_path keeps the last log kept until this one is */
	int fd = -1;

	if (s->saved && s->saved_seed == e->seed && s->saved_hash == e->hash)
		return; /* the same END again (back after a drop): kept already */
	if (s->srv && !s->practice) {
		/* `host`: its own server wrote the log; say where. */
		const char *own = server_last_log(s->srv);
		if (own && snprintf(s->saved_path, sizeof s->saved_path, "%s", own) < (int)sizeof s->saved_path) {
			s->saved++;
			s->saved_now = true;
			s->saved_seed = e->seed;
			s->saved_hash = e->hash;
		}
		return;
	}
	if (!s->save_dir || log == NULL || len == 0)
		return;
	if (cli_make_dirs(s->save_dir) != 0) {
		status(s, "The turn log is not kept: cannot create %s: %s.", s->save_dir, strerror(errno));
		return;
	}
	if ((size_t)snprintf(path, sizeof path, "%s/duel-%016" PRIx64 ".log", s->save_dir, e->seed) >= sizeof path - 8) {
		status(s, "The turn log is not kept: the log directory's name is too long.");
		return;
	}
	fd = cli_create_log(path, sizeof path);
	bool ok = fd >= 0;
	for (size_t off = 0; ok && off < len;) {
		ssize_t w = write(fd, log + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO; /* a regular file never takes nothing; say something true */
		ok = w > 0;
		off += ok ? (size_t)w : 0;
	}
	int err = errno;
	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		status(s, "The turn log is not kept: cannot write %s: %s.", path, strerror(err));
		if (fd >= 0)
			unlink(path);
		return;
	}
	memcpy(s->saved_path, path, sizeof path);
	s->saved++;
	s->saved_now = true;
	s->saved_seed = e->seed;
	s->saved_hash = e->hash;
}

static void
ev_end(void *ud, struct net *n, const struct wire_end *e, bool verified, const char *why)
{
	struct session_net *s = ud;

	unsigned kept = s->saved;
	save_log(s, n, e);
	if (s->app)
		reveal(s, n);
	s->ended_ok = verified;
	s->started = false;
	snprintf(s->last_result, sizeof s->last_result, "%s", why);
	if (verified && s->practice)
		return; /* its own server, in this process: only a failure would be news */
	/* In the log, not in the end box, and before the check's line, which must stay the
	 * nearest to the box's foot: the box covers the log's upper lines, and a path is long. */
	if (s->saved > kept) {
		status(s, "Turn log: %s", s->saved_path);
		if (s->app) {
			char line[sizeof s->saved_path + 16];
			snprintf(line, sizeof line, "Turn log: %s", s->saved_path);
			app_set_share(s->app, line);
		}
	}
	if (verified)
		status(s, "%s: %s. /rematch for another duel.", net_seed_chosen(n) ? "Host checked" : "Fair host", why);
	else
		status(s, "WARNING: the host could not be verified: %s", why);
}

/* A rated duel's ratings, under the end box (its record checked by net_msg.c against the server's key). */
static void
ev_rated(void *ud, struct net *n, const struct wire_rated *m, bool verified)
{
	struct session_net *s = ud;
	const struct rated_rec *r = &m->rec;
	int me = net_player(n);

	if (!verified || me < 0 || me >= PLAYERS) {
		status(s, "WARNING: a rating record that is not the server's signature: ignored");
		return;
	}
	/* Kept, so that `wizwar history` can later check the server still holds it (recstore.h):
	 * a few hundred bytes written once a duel. */
	char why[300], dir[4096];
	const uint8_t *pk = net_rated_key(n, m); /* its signer's: kept in that server's file */
	if (pk && recstore_keep(cli_state_dir(dir, sizeof dir) ? dir : NULL, pk, m->signer, r, why, sizeof why) < 0) {
		status(s, "WARNING: the rating record could not be kept: %s", why);
		return;
	}
	status(s, "Rated: you %.0f -> %.0f (+-%.0f), opponent %.0f -> %.0f (+-%.0f).", r->before[me].rating,
	       r->after[me].rating, r->after[me].deviation, r->before[1 - me].rating, r->after[1 - me].rating,
	       r->after[1 - me].deviation);
}

static void
ev_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct session_net *s = ud;

	if (code == PERR_RESUME && !fatal)
		s->afresh = true; /* the seat was not held: the join that follows is a new one */
	if (fatal && !s->quit) {
		s->failed = true;
		/* Gave up reconnecting: what is lost, and what to do. The grace is the server's own,
		 * from its WELCOME (a default only if none came, which a duel cannot be without). */
		bool known;
		unsigned grace = net_duel_grace_secs(n, &known);
		const char *dflt = known ? "" : " by default";
		if (!s->reconnecting)
			snprintf(s->why, sizeof s->why, "%s", text);
		else if (!s->started)
			snprintf(s->why, sizeof s->why, "%s; your seat is given up: run the same command to join the room again",
			         text);
		/* The client tried longer than the server's grace: a server that is still up has given
		 * the duel away by now (a shorter --reconnect, or a longer grace: not yet). */
		else if (net_reconnect_secs(n) >= grace)
			snprintf(s->why, sizeof s->why, "%s; a server still up has given the duel to the other player by now (it "
			         "holds a dropped seat %u s%s): run the same command to join the room again", text, grace, dflt);
		else
			snprintf(s->why, sizeof s->why, "%s; a server still up gives the duel to the other player once its grace "
			         "runs out (%u s after the loss%s): run the same command to join the room again", text, grace,
			         dflt);
		if (s->reconnecting && s->app)
			app_on_note(s->app, NULL);
	}
	if (!s->app) {
		/* Before the screen (none until joined), on stderr: the net's own word on the way there (a
		 * cluster's REDIRECT, a dead node left for the one first asked). */
		if (!fatal && code == PERR_OK)
			cli_error("%s\n", text);
		return;
	}
	if (code == PERR_RESUME && !fatal && s->reconnecting)
		return; /* the seat was given up: said when the link is up again (ev_link) */
	if (code >= PERR_REFUSED_BASE && code < PERR_REFUSED_BASE + ERR_COUNT)
		app_on_refused(s->app, code - PERR_REFUSED_BASE);
	else if (fatal)
		app_on_end(s->app, s->failed ? s->why : text);
	else
		status(s, "%s", text);
}

static void
ev_link(void *ud, struct net *n, bool up, const char *why)
{
	struct session_net *s = ud;

	s->reconnecting = !up;
	if (s->app)
		app_on_note(s->app, NULL);
	if (up) {
		s->relinked = true;
		s->rejoined = s->afresh;
		if (s->afresh)
			status(s, "Reconnected, but the server had given up your seat: you are a new player of the room.");
		else
			status(s, "Reconnected: your seat is yours again.");
		s->afresh = false;
		return;
	}
	s->hold_said = false;
	if (s->started || net_seat_hold_left(n) < 0) {
		status(s, "Connection lost (%s): reconnecting to the duel, an attempt a second for up to %u s. Q leaves.", why,
		       net_reconnect_secs(n));
		return;
	}
	/* In the lobby the seat is held for less than the client tries (docs/client.md): say both. */
	bool known;
	unsigned hold = net_lobby_hold_secs(n, &known);
	if (known && hold == 0) {
		status(s, "Connection lost (%s): reconnecting to the room, an attempt a second for up to %u s. This server "
		       "does not hold a seat dropped in the lobby: you join the room again as a new player. Q leaves.", why,
		       net_reconnect_secs(n));
		return;
	}
	status(s, "Connection lost (%s): reconnecting to the room, an attempt a second for up to %u s. %s %u s%s; "
	       "after that you join the room again as a new player. Q leaves.", why, net_reconnect_secs(n),
	       known ? "This server holds your seat" : "The server holds your seat about", hold,
	       known ? "" : " (its default)");
}

/* Each attempt on the prompt line (not the log: one a second would push everything out). */
static void
ev_retry(void *ud, struct net *n, unsigned attempt, unsigned secs_left, const char *last)
{
	struct session_net *s = ud;
	char note[STATE_STATUS_MAX];

	int hold = net_seat_hold_left(n);
	bool known;
	unsigned held = net_lobby_hold_secs(n, &known);

	if (!s->app)
		return;
	if (hold > 0) {
		/* The prompt line is one line of the side panel: what matters first. */
		snprintf(note, sizeof note, "Reconnecting: try %u, seat held %s%d s more (%s)", attempt, known ? "" : "~", hold,
		         last);
	} else if (hold == 0) {
		/* A server that holds no seat in the lobby said so at the drop (ev_link). */
		if (!s->hold_said && !(known && held == 0)) {
			s->hold_said = true;
			status(s, "Your seat has most likely been given up by now (held %s%u s): once back you join the "
			          "room again as a new player, if there is room.", known ? "" : "about ", held);
		}
		snprintf(note, sizeof note, "Rejoining: try %u, %u s left (%s)", attempt, secs_left, last);
	} else {
		snprintf(note, sizeof note, "Reconnecting: try %u, %u s left (%s)", attempt, secs_left, last);
	}
	app_on_note(s->app, note);
}

static void
ev_closed(void *ud, struct net *n)
{
	struct session_net *s = ud;

	(void)n;
	s->net = NULL;
	countdown_close(s);
	if (!s->quit && !s->failed) {
		s->failed = true;
		snprintf(s->why, sizeof s->why, "the connection is closed");
	}
	if (!s->quit && s->app)
		app_on_end(s->app, "the connection is closed");
}

void
session_net_events(struct session_net *s, struct net_config *cfg)
{
	memset(&cfg->ev, 0, sizeof cfg->ev);
	cfg->ud = s;
	cfg->ev.welcome = ev_welcome;
	cfg->ev.lobby = ev_lobby;
	cfg->ev.start = ev_start;
	cfg->ev.update = ev_update;
	cfg->ev.chat = ev_chat;
	cfg->ev.peer = ev_peer;
	cfg->ev.spect_info = ev_spect_info;
	cfg->ev.end = ev_end;
	cfg->ev.rated = ev_rated;
	cfg->ev.error = ev_error;
	cfg->ev.link = ev_link;
	cfg->ev.retry = ev_retry;
	s->away = -1;
	cfg->ev.closed = ev_closed;
	s->auto_ready = true;
}

bool
session_net_wait_join(struct session_net *s, uv_loop_t *loop)
{
	while (s->net && !s->joined)
		uv_run(loop, UV_RUN_ONCE);
	if (s->joined && s->net)
		return true;
	if (!s->why[0])
		snprintf(s->why, sizeof s->why, "the connection is closed");
	return false;
}

void
session_net_start(struct session_net *s, struct app *app, struct net *net, struct server *srv)
{
	s->app = app;
	s->net = net;
	s->srv = srv;
	if (s->practice)
		return;
	if (app)
		app->st.lobby_help = lobby_help; /* ? lists them too */
	if (net && net_player(net) >= 0) {
		/* Joined before the screen started: say now what was said then. */
		status(s, "Chat with Enter. Lobby commands: %s", lobby_help);
		ev_welcome(s, net, net_player(net), net_controller(net));
		if (net_lobby(net)->present)
			ev_lobby(s, net, net_lobby(net));
		if (s->early_start && net_phase(net) == NET_PLAYING)
			ev_start(s, net, net_view(net), s->early_resumed);
		return;
	}
	status(s, "Connecting... Chat with Enter. Lobby commands: %s", lobby_help);
}

/* The lobby's commands, as `?` lists them. */
static const char *const lobby_list[] = {
	"/ready          ready for the duel (it starts when both are)",
	"/unready        not ready after all",
	"/wait           hold the first duel's countdown (then /ready)",
	"/rematch        ready for another duel",
	"/mirror         ready for the same level again, the seats swapped (once both ask)",
	"/size N         the controller: level side, odd, 15 to 51",
	"/fov on|off     the controller: field of view",
	"/potions on|off the controller: potions on the level",
	"/time SECS      the controller: seconds per turn, 0 to 3600 (0: no limit)",
	"/control        the controller: hand control of the options over",
	"/mute           hide the other player's chat (/unmute shows it again)",
	"/spectators off either player, any time: no spectators (those watching go)",
	"/spectators shared|after|delayed K [1|2]  the controller, between duels: what they see",
	"/quit           leave (a duel in progress is forfeited)",
};

static bool
on_off(const char *word, const char *arg, bool *out, char *why, size_t whylen)
{
	if (strcmp(arg, "on") == 0)
		*out = true;
	else if (strcmp(arg, "off") == 0)
		*out = false;
	else {
		snprintf(why, whylen, "/%s takes on or off, not '%s'", word, arg);
		return false;
	}
	return true;
}

/* Options typed in the lobby, checked with the command line's own words (cli.c). False: why says. */
static bool
lobby_option(const char *word, const char *arg, const char *rest, struct options *o, int *tt, char *why,
             size_t whylen)
{
	const char *what = strcmp(word, "size") == 0 ? "/size" : "/time";
	long v;
	int size;

	if (rest[0]) {
		snprintf(why, whylen, "/%s takes one word, not '%s %s'", word, arg, rest);
		return false;
	}
	if (strcmp(word, "fov") == 0)
		return on_off(word, arg, &o->fov, why, whylen);
	if (strcmp(word, "potions") == 0)
		return on_off(word, arg, &o->potions, why, whylen);
	if (strcmp(word, "size") == 0) {
		if (!cli_size_why(arg[0] ? arg : NULL, what, &size, why, whylen))
			return false;
		o->size = (uint8_t)size;
		return true;
	}
	if (!cli_int_why(arg[0] ? arg : NULL, 0, TURN_TIME_MAX, what, &v, why, whylen))
		return false;
	*tt = (int)v;
	return true;
}

/* /mute and /unmute: the other player's chat, hidden here only (it still reaches the server and
 * its turn log, and the other player is not told). By name, so that a new player is heard. */
static void
mute(struct session_net *s, const struct wire_lobby *l, bool on)
{
	int me = net_player(s->net);
	const char *other = me == 0 || me == 1 ? l->name[1 - me] : "";

	if (!on) {
		if (!s->muted[0]) {
			status(s, "Nobody is muted.");
			return;
		}
		status(s, "Chat from %s is shown again (%u line%s hidden meanwhile).", s->muted, s->muted_lines,
		       s->muted_lines == 1 ? " was" : "s were");
		s->muted[0] = '\0';
		s->muted_lines = 0;
		return;
	}
	if (!other[0]) {
		status(s, "Nobody else is here to mute.");
		return;
	}
	snprintf(s->muted, sizeof s->muted, "%s", other);
	s->muted_lines = 0;
	status(s, "Chat from %s is hidden from now on (/unmute shows it again).", s->muted);
}

/* /spectators off | shared | after | delayed K [1|2]: the room's spectator options (the server
 * says who may: anyone turns them off, the controller sets the rest between duels). */
static void
spectators(struct session_net *s, const char *arg, const char *rest, const char *text)
{
	long k = 0, who = 1;
	char w3[16] = "";
	int mode;

	if (strcmp(arg, "off") == 0 && !rest[0]) {
		net_spect_set(s->net, false, SPECT_SHARED, 0, 0);
		return;
	}
	if ((strcmp(arg, "shared") == 0 || strcmp(arg, "on") == 0) && !rest[0]) {
		mode = SPECT_SHARED;
	} else if (strcmp(arg, "after") == 0 && !rest[0]) {
		mode = SPECT_AFTER;
	} else if (strcmp(arg, "delayed") == 0) {
		char why[160];
		sscanf(text, "%*s %*s %*s %15s", w3);
		if (!cli_int_why(rest[0] ? rest : NULL, SPECT_DELAY_MIN, SPECT_DELAY_MAX, "/spectators delayed", &k, why,
		                 sizeof why) ||
		    (w3[0] && !cli_int_why(w3, 1, PLAYERS, "/spectators delayed K", &who, why, sizeof why))) {
			status(s, "%s", why);
			return;
		}
		mode = SPECT_DELAYED;
	} else {
		status(s, "/spectators takes off, shared, after, or delayed K [1|2] (K turns, player 1 or 2), "
		          "not '%s%s%s'", arg, rest[0] ? " " : "", rest);
		return;
	}
	net_spect_set(s->net, true, mode, mode == SPECT_DELAYED ? (int)k : 0, mode == SPECT_DELAYED ? (int)who - 1 : 0);
}

bool
session_net_command(struct session_net *s, const char *text)
{
	const struct wire_lobby *l;
	struct options o;
	int tt;
	char word[32] = "", arg[64] = "", rest[64] = "", why[200];

	if (s->practice)
		return false;
	if (strcmp(text, "?") == 0) {
		for (size_t i = 0; i < sizeof lobby_list / sizeof lobby_list[0]; i++)
			status(s, "%s", lobby_list[i]);
		return true;
	}
	if (text[0] != '/')
		return false;
	if (s->net == NULL) {
		status(s, "Not connected.");
		return true;
	}
	l = net_lobby(s->net);
	o = l->opt;
	tt = l->turn_time;
	sscanf(text + 1, "%31s %63s %63s", word, arg, rest);
	if (strcmp(word, "ready") == 0) {
		s->unreadied = false;
		s->auto_ready = false;
		countdown_stop(s);
		net_ready(s->net, true);
	} else if (strcmp(word, "unready") == 0) {
		s->auto_ready = false;
		s->unreadied = true;
		countdown_stop(s);
		net_ready(s->net, false);
	} else if (strcmp(word, "wait") == 0) {
		bool held = s->auto_ready || s->countdown_on;
		s->auto_ready = false;
		countdown_stop(s);
		if (l->ready & (1u << net_player(s->net))) {
			s->unreadied = true;
			net_ready(s->net, false);
		}
		status(s, "%s Type /ready when you are.", held ? "You hold the start." : "The duel waits for you.");
	} else if (strcmp(word, "rematch") == 0) {
		net_rematch(s->net);
		status(s, "You ask for a rematch.");
	} else if (strcmp(word, "mirror") == 0) {
		net_rematch_mirror(s->net, true);
		status(s, "You ask for a mirror rematch: the same level, the seats swapped, if your opponent asks "
		          "for one too (/mirror, or m at the end); a plain /rematch from it deals a new level.");
	} else if (strcmp(word, "control") == 0) {
		net_control(s->net);
	} else if (strcmp(word, "size") == 0 || strcmp(word, "fov") == 0 || strcmp(word, "potions") == 0 ||
	           strcmp(word, "time") == 0) {
		if (!lobby_option(word, arg, rest, &o, &tt, why, sizeof why)) {
			status(s, "%s", why);
			return true;
		}
		s->auto_ready = false;
		countdown_stop(s);
		net_options(s->net, &o, tt);
	} else if (strcmp(word, "spectators") == 0) {
		spectators(s, arg, rest, text);
	} else if (strcmp(word, "mute") == 0 || strcmp(word, "unmute") == 0) {
		mute(s, l, strcmp(word, "mute") == 0);
	} else if (strcmp(word, "quit") == 0) {
		if (s->app)
			app_quit(s->app, 0);
	} else {
		status(s, "No lobby command /%s: ? lists them.", word);
	}
	return true;
}

static int
net_send_cmd(void *ctx, const struct cmd *c)
{
	struct session_net *s = ctx;

	if (s->net == NULL || net_phase(s->net) != NET_PLAYING)
		return -1;
	return net_cmd(s->net, c);
}

static int
net_send_chat(void *ctx, const char *utf8)
{
	struct session_net *s = ctx;

	if (session_net_command(s, utf8))
		return 0;
	if (s->net == NULL)
		return -1;
	return net_chat(s->net, utf8);
}

static void
on_wind_closed(uv_handle_t *h)
{
	struct session_net *s = h->data;

	s->wind_open = false;
}

static void
close_srv(struct session_net *s)
{
	if (s->wind_open && !uv_is_closing((uv_handle_t *)&s->wind)) {
		uv_timer_stop(&s->wind);
		uv_close((uv_handle_t *)&s->wind, on_wind_closed);
	}
	if (s->srv_closing)
		return;
	s->srv_closing = true;
	if (s->on_settled)
		s->on_settled(s->hook_ud);
	/* The host's person leaving (Q, /quit, Ctrl-C) closes the room for good: the joiner is told so
	 * and does not wait to reconnect. Ended otherwise (SIGTERM, SIGHUP, a failure) the host may be
	 * started again (`host --resume` in a duel): a shutdown, which the joiner rides out. */
	int st = s->app ? s->app->status : 0;
	bool leave = st == 0 || st == 128 + SIGINT;
	const char *log = leave ? NULL : server_duel_log(s->srv);
	if (log)
		snprintf(s->resume_log, sizeof s->resume_log, "%s", log);
	server_close_as(s->srv, leave ? BYE_LEAVE : BYE_SHUTDOWN, NULL, NULL);
}

/* Our BYE is on its way to our own server: close the server once it has taken it. */
static void
on_wind(uv_timer_t *t)
{
	struct session_net *s = t->data;
	struct gameroom *r = server_room(s->srv, NULL);

	if (s->net == NULL && !(r && room_playing(r)))
		close_srv(s);
	else if (uv_now(t->loop) - s->wind_since >= SESSION_WIND_MS)
		close_srv(s);
}

static void
net_quit(void *ctx)
{
	struct session_net *s = ctx;

	if (s->quit)
		return;
	s->quit = true;
	countdown_close(s);
	/* A closed terminal is a dropped connection, not a resignation: the seat is held and the
	 * same command run again takes it back. */
	if (s->net && s->app && s->app->status == 128 + SIGHUP)
		net_abandon(s->net);
	else if (s->net)
		net_close(s->net);
	if (s->srv && !s->srv_closing) {
		uv_loop_t *loop = s->app ? s->app->cfg.loop : NULL;
		if (loop == NULL || uv_timer_init(loop, &s->wind) != 0) {
			close_srv(s);
			return;
		}
		s->wind.data = s;
		s->wind_open = true;
		s->wind_since = uv_now(loop);
		uv_timer_start(&s->wind, on_wind, 0, 5);
	}
}

/* r at the end: /rematch (a new seed); m: /mirror (this seed again, the seats swapped, once both ask). */
static int
net_rematch_op(void *ctx, bool mirror)
{
	struct session_net *s = ctx;

	if (s->net == NULL || net_phase(s->net) != NET_LOBBY) {
		status(s, "No rematch now: the duel is not over, or the connection is gone.");
		return -1;
	}
	return session_net_command(s, mirror ? "/mirror" : "/rematch") ? 0 : -1;
}

static const char *
net_replay_log(void *ctx)
{
	struct session_net *s = ctx;

	if (s->practice)
		return s->log_path;
	return s->saved_now ? s->saved_path : NULL;
}

const struct session_ops session_net_ops = {
	.send_cmd = net_send_cmd,
	.send_chat = net_send_chat,
	.quit = net_quit,
	.rematch = net_rematch_op,
	.replay_log = net_replay_log,
};
