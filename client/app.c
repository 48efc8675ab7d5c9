/* SPDX-License-Identifier: MIT */
/* app: one libuv loop for the terminal's keys, signals, the effects pause and whatever the session brings in. */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h> /* KEY_RESIZE */

#include "app.h"

#define ESC_WAIT_MS 50   /* keys.h: a lone ESC waits this long to become Meta */
#define ANIM_MS 250      /* the plan's "Pause for 250ms" */
#define UPDATE_MSG_MAX 64
#define CLOCK_TICK_MS 200 /* the clock's second changes within a fifth of a second of the true one */
#define CLOCK_WARN_S 10   /* the last seconds: the clock stands out and the bell rings once */
#define INTERRUPT_CONFIRM_MS 3000 /* a second Ctrl-C this soon after the first confirms the forfeit */
/* Readable wake-ups in a row with no key before the terminal counts as gone though it said no hangup.
 * A person's keys give a key at least every fourth wake-up (a UTF-8 character is at most four bytes,
 * each possibly its own wake-up); a terminal at EOF wakes the loop at once, again and again. */
#define IDLE_WAKES_MAX 64

/* What waits in the queue, in the order it happened: a view, a note, or the end's reveal. */
enum upd_kind { UQ_VIEW, UQ_STATUS, UQ_REVEAL };

struct app_update {
	struct app_update *next;
	int kind;                /* enum upd_kind */
	char text[STATE_NOTE_MAX]; /* UQ_STATUS: the note; UQ_REVEAL: the lines under the result */
	struct view after;       /* UQ_VIEW; UQ_REVEAL: the level with nothing hidden */
	int nmsg, nfx;
	struct msg msgs[UPDATE_MSG_MAX];
	struct fx_square fx[]; /* nfx */
};

static const int app_signals[4] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP };

static void pump(struct app *a);

/* ---- screen calls through the seam; a NULL table is the null screen ---- */

static const char *
replay_log(struct app *a)
{
	const struct session_ops *s = a->cfg.session;
	return s && s->replay_log && a->st.have_view && a->st.view.result != RESULT_NONE ? s->replay_log(a->cfg.session_ctx) :
	    NULL;
}

static void
screen_draw(struct app *a)
{
	a->st.can_replay = replay_log(a) != NULL; /* the end box offers v only where it works */
	if (a->cfg.screen && a->screen_on)
		a->cfg.screen->draw(a->cfg.screen_ctx, &a->st);
}

void
app_redraw(struct app *a)
{
	screen_draw(a);
}

/* ---- handles ---- */

static void
on_close(uv_handle_t *h)
{
	struct app *a = h->data;

	a->handles_open--;
}

static void
close_handle(struct app *a, uv_handle_t *h)
{
	if (h->data == a && !uv_is_closing(h)) {
		uv_close(h, on_close);
	}
}

/* The signal handles stay open (unreferenced: they do not keep the loop running) until
 * app_finish(): a terminal that hangs up sends SIGHUP more than once, and a second one after its
 * handle closed would kill the process with the default action before its session had flushed
 * its logs and said how to resume. */
static void
close_signals(struct app *a)
{
	for (int i = 0; i < 4; i++)
		close_handle(a, (uv_handle_t *)&a->sig[i]);
}

static void
close_all(struct app *a)
{
	if (a->poll_on)
		close_handle(a, (uv_handle_t *)&a->poll);
	a->poll_on = false;
	close_handle(a, (uv_handle_t *)&a->anim_timer);
	close_handle(a, (uv_handle_t *)&a->esc_timer);
	close_handle(a, (uv_handle_t *)&a->clock_timer);
}

void
app_quit(struct app *a, int status)
{
	if (a->quitting)
		return;
	a->quitting = true;
	a->status = status;
	close_all(a);
	if (a->cfg.session && a->cfg.session->quit)
		a->cfg.session->quit(a->cfg.session_ctx);
}

/* ---- keys ---- */

static void
handle_key(struct app *a, int code)
{
	struct state_out out;
	int action;

	if (code == KEY_RESIZE) {
		/* resizeterm() (after SIGWINCH) queues this: the size is known already, only repaint. */
		if (a->cfg.screen)
			a->cfg.screen->invalidate(a->cfg.screen_ctx);
		return;
	}
	action = a->cfg.keys ? keys_action(a->cfg.keys, code) : ACTION_NONE;
	if (a->cfg.on_key) {
		a->cfg.on_key(a->cfg.on_key_ud, action, code);
		return;
	}
	state_key(&a->st, action, code, &out);
	if (out.redraw && a->cfg.screen)
		a->cfg.screen->invalidate(a->cfg.screen_ctx);
	switch (out.kind) {
	case OUT_CMD:
		if (a->cfg.session && a->cfg.session->send_cmd(a->cfg.session_ctx, &out.cmd) != 0 && a->cfg.screen)
			a->cfg.screen->flash(a->cfg.screen_ctx);
		break;
	case OUT_CHAT:
		if (a->cfg.session)
			a->cfg.session->send_chat(a->cfg.session_ctx, out.chat);
		break;
	case OUT_QUIT:
		if (out.resign && a->cfg.session)
			a->cfg.session->send_cmd(a->cfg.session_ctx, &out.cmd);
		app_quit(a, 0);
		break;
	case OUT_REPLAY: {
		/* The viewer runs once this app has closed (its caller asks app_replay_path()). */
		const char *log = replay_log(a);
		if (log && strlen(log) < sizeof a->replay) {
			snprintf(a->replay, sizeof a->replay, "%s", log);
			app_quit(a, 0);
		} else {
			state_log_system(&a->st, "No turn log of this duel to replay.");
		}
		break;
	}
	case OUT_REMATCH:
		if (!a->cfg.session || !a->cfg.session->rematch || a->cfg.session->rematch(a->cfg.session_ctx, out.mirror) != 0) {
			if (!a->cfg.session || !a->cfg.session->rematch)
				state_log_system(&a->st, "No rematch here.");
			a->st.status[0] = '\0';
		}
		break;
	case OUT_NONE:
		break;
	}
}

/* Keys wait in a queue while effects are on screen, so that none is lost during the pause. */
void
app_key(struct app *a, int code)
{
	if (code == APP_NOKEY || code == KEYS_NONE)
		return;
	if (a->kcount == sizeof a->keyq / sizeof a->keyq[0])
		return; /* someone is leaning on the keyboard: drop the excess */
	a->keyq[(a->khead + a->kcount++) % (sizeof a->keyq / sizeof a->keyq[0])] = code;
	pump(a);
}

static void
on_esc_timer(uv_timer_t *t)
{
	struct app *a = t->data;

	if (a->esc_pending) {
		a->esc_pending = false;
		app_key(a, 27);
	}
}

/* Reads every key waiting; returns how many codes the screen gave (0: the wake-up brought none). */
static unsigned
read_keys(struct app *a)
{
	unsigned got = 0;
	int code;

	if (!a->cfg.screen)
		return 0;
	while (!a->quitting && (code = a->cfg.screen->read_key(a->cfg.screen_ctx)) != APP_NOKEY) {
		got++;
		if (code == KEYS_NONE)
			continue;
		if (a->esc_pending) {
			/* ESC then a key within the wait: Alt+key, as terminals send it. */
			a->esc_pending = false;
			uv_timer_stop(&a->esc_timer);
			int m = keys_meta(code);
			app_key(a, m != KEYS_NONE ? m : code);
			continue;
		}
		if (code == 27) {
			a->esc_pending = true;
			uv_timer_start(&a->esc_timer, on_esc_timer, ESC_WAIT_MS, 0);
			continue;
		}
		app_key(a, code);
	}
	return got;
}

/* The terminal hung up: poll(2) says so at once, without waiting (POLLHUP once the other end
 * closed, POLLERR/POLLNVAL once the kernel hung the line up). */
static bool
input_hung_up(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Nothing more can be typed: the terminal closed under us (its window, tmux, an ssh link). As
 * SIGHUP: the session takes it for a dropped connection, not for leaving, so a network seat is held
 * for the same command to take back, and the caller says so once the screen is down. Without this a
 * terminal at EOF or hung up keeps the fd readable, and the loop would spin on it for good (a read
 * there gives no key), which is what a SIGHUP that never came (the terminal's shell ignores it, or
 * survives it) left behind. */
static void
terminal_lost(struct app *a)
{
	app_quit(a, 128 + SIGHUP);
}

static void
on_poll(uv_poll_t *p, int status, int events)
{
	struct app *a = p->data;

	if (status < 0 || (events & UV_DISCONNECT)) {
		terminal_lost(a);
		return;
	}
	if (read_keys(a) > 0 || a->quitting) {
		a->idle_wakes = 0;
		return;
	}
	if (input_hung_up(a->cfg.input_fd) || ++a->idle_wakes >= IDLE_WAKES_MAX)
		terminal_lost(a);
}

/* Ctrl-C in a running duel asks as Q does, since leaving forfeits it; a second Ctrl-C within
 * INTERRUPT_CONFIRM_MS says yes (a person who means it presses it twice, and a script's signal
 * still ends the program). Anywhere else (the lobby, the end, a replay) it leaves at once.
 * Returns true when the program should leave now. */
static bool
interrupt_confirms(struct app *a)
{
	struct state *st = &a->st;
	uint64_t now = uv_now(a->cfg.loop);

	if (a->cfg.on_key || !st->have_view || st->view.result != RESULT_NONE || st->offline || st->allseeing)
		return true;
	if (st->mode == MODE_QUIT && st->quit_by_interrupt && now - a->interrupt_at <= INTERRUPT_CONFIRM_MS)
		return true;
	st->mode = MODE_QUIT;
	st->quit_by_interrupt = true;
	a->interrupt_at = now;
	if (!a->animating)
		screen_draw(a);
	return false;
}

static void
on_signal(uv_signal_t *s, int signum)
{
	struct app *a = s->data;

	switch (signum) {
	case SIGWINCH:
		if (a->cfg.screen) {
			a->cfg.screen->resize(a->cfg.screen_ctx);
			/* resizeterm() queued a KEY_RESIZE; read it now so it does not linger. */
			read_keys(a);
		}
		screen_draw(a);
		break;
	case SIGINT:
		if (!interrupt_confirms(a))
			break;
		app_quit(a, 130);
		break;
	default:
		app_quit(a, 128 + signum);
		break;
	}
}

/* ---- the visible clock ---- */

static void
clock_update(struct app *a)
{
	struct state *st = &a->st;
	int left = -1;

	if (a->st.turn_time > 0 && st->have_view && st->view.result == RESULT_NONE && !st->offline) {
		uint64_t now = uv_now(a->cfg.loop);
		/* clock_started: the first view's turn (0 on a new duel, any after a resume) is a new
		 * turn too, whatever clock_turn held before. */
		if (!a->clock_started || st->view.turn_no != a->clock_turn) {
			a->clock_started = true;
			a->clock_turn = st->view.turn_no;
			a->turn_began = now;
			a->clock_warned = false;
			a->clock_unknown = false;
		}
		uint64_t spent = (now - a->turn_began) / 1000;
		left = spent >= (uint64_t)st->turn_time ? 0 : st->turn_time - (int)spent;
		if (a->clock_unknown)
			left = STATE_CLOCK_UNKNOWN;
		if (left <= CLOCK_WARN_S && !a->clock_warned && state_my_turn(st)) {
			a->clock_warned = true;
			if (a->cfg.screen && a->screen_on)
				a->cfg.screen->flash(a->cfg.screen_ctx);
		}
	} else if (st->have_view && st->view.result != RESULT_NONE) {
		a->clock_started = false; /* a rematch's turn 0 is a new turn even after a duel ended at 0 */
	}
	st->clock_left = left;
}

static void
on_clock(uv_timer_t *t)
{
	struct app *a = t->data;
	int before = a->st.clock_left;

	clock_update(a);
	if (a->st.clock_left != before && !a->animating)
		screen_draw(a);
}

void
app_clock_resumed(struct app *a)
{
	struct state *st = &a->st;

	/* The server gives a player who comes back on its own turn the whole turn again, and lets
	 * the other's turn run on from when it began, which this client did not see. */
	a->clock_started = true;
	a->clock_turn = st->have_view ? st->view.turn_no : 0;
	a->turn_began = uv_now(a->cfg.loop);
	a->clock_warned = false;
	a->clock_unknown = st->have_view && !state_my_turn(st);
	clock_update(a);
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_set_turn_time(struct app *a, int seconds)
{
	int before = a->st.clock_left;

	a->st.turn_time = seconds > 0 ? seconds : 0;
	if (a->clock_timer.data != a || a->quitting)
		return;
	if (a->st.turn_time > 0)
		uv_timer_start(&a->clock_timer, on_clock, CLOCK_TICK_MS, CLOCK_TICK_MS);
	else
		uv_timer_stop(&a->clock_timer);
	clock_update(a);
	/* Drawn now: the ticks redraw only when the figure changes, and a clock that comes with the
	 * LOBBY after a resumed START ("?s" from the start) would not change again until the turn ends. */
	if (a->st.clock_left != before && !a->pumping && !a->animating)
		screen_draw(a);
}

/* ---- updates: the plan's "After Turn" ---- */

static void
update_free(struct app_update *u)
{
	free(u);
}

static void
on_anim_timer(uv_timer_t *t)
{
	struct app *a = t->data;
	struct app_update *u = a->cur;

	/* Steps 6-10: HP, the new layout, items, positions, then the messages. */
	a->cur = NULL;
	a->animating = false;
	if (u) {
		state_update_end(&a->st, &u->after, u->msgs, u->nmsg);
		clock_update(a);
		update_free(u);
	}
	pump(a);
}

/* Take queued updates and keys in order until an effects pause starts or both queues are empty. */
static void
pump(struct app *a)
{
	if (a->pumping)
		return; /* a key's command may bring its update back at once: the loop below takes it */
	a->pumping = true;
	while (!a->quitting && !a->animating) {
		if (a->uhead) {
			struct app_update *u = a->uhead;
			a->uhead = u->next;
			if (a->uhead == NULL)
				a->utail = NULL;
			if (u->kind == UQ_STATUS) {
				state_log_system(&a->st, "%s", u->text);
				update_free(u);
				continue;
			}
			if (u->kind == UQ_REVEAL) {
				state_reveal(&a->st, &u->after, u->text);
				update_free(u);
				continue;
			}
			/* Steps 2-4: the old layout and items with the new effects over them. */
			state_update_begin(&a->st, &u->after, u->fx, u->nfx);
			if (a->st.anim && a->anim_timer.data == a) {
				a->cur = u;
				a->animating = true;
				screen_draw(a);
				/* Step 5: the pause, on a timer: the loop goes on serving the socket. */
				uv_timer_start(&a->anim_timer, on_anim_timer, a->cfg.anim_ms, 0);
				break;
			}
			state_update_end(&a->st, &u->after, u->msgs, u->nmsg);
			clock_update(a);
			update_free(u);
			continue;
		}
		if (a->kcount > 0) {
			int code = a->keyq[a->khead];
			a->khead = (a->khead + 1) % (sizeof a->keyq / sizeof a->keyq[0]);
			a->kcount--;
			handle_key(a, code);
			continue;
		}
		break;
	}
	a->pumping = false;
	if (a->cfg.on_state)
		a->cfg.on_state(a->cfg.on_state_ud, &a->st);
	if (!a->animating)
		screen_draw(a);
}

static void
enqueue(struct app *a, struct app_update *u)
{
	if (a->utail)
		a->utail->next = u;
	else
		a->uhead = u;
	a->utail = u;
	pump(a);
}

void
app_on_update(struct app *a, const struct view *after, const struct msg *msgs, int nmsg,
    const struct fx_square *fx, int nfx)
{
	struct app_update *u;

	if (nfx < 0 || fx == NULL)
		nfx = 0;
	if (nfx > STATE_FX_MAX)
		nfx = STATE_FX_MAX;
	if (nmsg < 0 || msgs == NULL)
		nmsg = 0;
	if (nmsg > UPDATE_MSG_MAX)
		nmsg = UPDATE_MSG_MAX;
	u = malloc(sizeof *u + (size_t)nfx * sizeof u->fx[0]);
	if (u == NULL) {
		/* Without memory for the pause, show the new state at once rather than lose it. */
		state_apply(&a->st, after, msgs, nmsg, NULL, 0);
		screen_draw(a);
		return;
	}
	u->next = NULL;
	u->kind = UQ_VIEW;
	u->text[0] = '\0';
	u->after = *after;
	u->nmsg = nmsg;
	u->nfx = nfx;
	if (nmsg)
		memcpy(u->msgs, msgs, (size_t)nmsg * sizeof *msgs);
	if (nfx)
		memcpy(u->fx, fx, (size_t)nfx * sizeof *fx);
	enqueue(a, u);
}

/* A note or the reveal behind the updates still queued: told in the order things happened. */
static bool
queue_after_updates(struct app *a, int kind, const char *text, const struct view *v)
{
	struct app_update *u;

	if (!a->uhead && !a->animating && kind == UQ_STATUS)
		return false;
	if ((u = malloc(sizeof *u)) == NULL)
		return false;
	memset(u, 0, sizeof *u);
	u->kind = kind;
	snprintf(u->text, sizeof u->text, "%s", text ? text : "");
	if (v)
		u->after = *v;
	enqueue(a, u);
	return true;
}

void
app_on_reveal(struct app *a, const struct view *all, const char *note)
{
	if (!queue_after_updates(a, UQ_REVEAL, note, all)) {
		state_reveal(&a->st, all, note);
		if (!a->pumping && !a->animating)
			screen_draw(a);
	}
}

void
app_reset_updates(struct app *a)
{
	struct app_update *u;

	if (a->animating)
		uv_timer_stop(&a->anim_timer);
	a->animating = false;
	a->st.anim = false;
	a->st.nfx = 0;
	if (a->cur)
		update_free(a->cur);
	a->cur = NULL;
	while ((u = a->uhead) != NULL) {
		a->uhead = u->next;
		update_free(u);
	}
	a->utail = NULL;
}

void
app_set_anim_ms(struct app *a, unsigned ms)
{
	a->cfg.anim_ms = ms ? ms : ANIM_MS;
}

void
app_set_name(struct app *a, int player, const char *name)
{
	state_set_name(&a->st, player, name);
	screen_draw(a);
}

void
app_set_share(struct app *a, const char *text)
{
	state_clean_text(a->st.share, sizeof a->st.share, text ? text : "", text ? strlen(text) : 0);
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_set_seat(struct app *a, int player)
{
	state_set_seat(&a->st, player);
}

void
app_on_chat(struct app *a, int from, const char *text)
{
	state_log_chat(&a->st, from, text, strlen(text));
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_on_status(struct app *a, const char *text)
{
	char clean[STATE_TEXT_MAX];

	/* A status may carry a peer's words (an error reason): clean it like chat. */
	state_clean_text(clean, sizeof clean, text, strlen(text));
	if (queue_after_updates(a, UQ_STATUS, clean, NULL))
		return;
	state_log_system(&a->st, "%s", clean);
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_on_note(struct app *a, const char *text)
{
	state_clean_text(a->st.status, sizeof a->st.status, text ? text : "", text ? strlen(text) : 0);
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_on_refused(struct app *a, int err)
{
	state_refused(&a->st, err);
	if (!a->pumping && !a->animating)
		screen_draw(a);
}

void
app_on_end(struct app *a, const char *why)
{
	a->st.offline = true;
	if (why && why[0])
		app_on_status(a, why);
	else if (!a->pumping && !a->animating)
		screen_draw(a);
}

/* ---- life cycle ---- */

int
app_init(struct app *a, const struct app_config *cfg)
{
	memset(a, 0, sizeof *a);
	a->cfg = *cfg;
	if (a->cfg.anim_ms == 0)
		a->cfg.anim_ms = ANIM_MS;
	state_init(&a->st, cfg->keys);
	if (a->cfg.screen) {
		if (a->cfg.screen->start(a->cfg.screen_ctx) != 0)
			return -1;
		a->screen_on = true;
	}
	uv_timer_init(a->cfg.loop, &a->anim_timer);
	a->anim_timer.data = a;
	uv_timer_init(a->cfg.loop, &a->esc_timer);
	a->esc_timer.data = a;
	uv_timer_init(a->cfg.loop, &a->clock_timer);
	a->clock_timer.data = a;
	a->handles_open += 3;
	for (int i = 0; i < 4; i++) {
		uv_signal_init(a->cfg.loop, &a->sig[i]);
		a->sig[i].data = a;
		a->handles_open++;
		uv_signal_start(&a->sig[i], on_signal, app_signals[i]);
		uv_unref((uv_handle_t *)&a->sig[i]);
	}
	if (a->cfg.input_fd >= 0 && a->cfg.screen) {
		if (uv_poll_init(a->cfg.loop, &a->poll, a->cfg.input_fd) == 0) {
			a->poll.data = a;
			a->poll_on = true;
			a->handles_open++;
			uv_poll_start(&a->poll, UV_READABLE | UV_DISCONNECT, on_poll);
		}
	}
	screen_draw(a);
	return 0;
}

int
app_run(struct app *a)
{
	uv_run(a->cfg.loop, UV_RUN_DEFAULT);
	return a->status;
}

void
app_finish(struct app *a)
{
	struct app_update *u;

	if (!a->quitting) {
		/* Not left through app_quit(): close what is still open and let the closes finish. */
		a->quitting = true;
		close_all(a);
	}
	close_signals(a);
	if (a->handles_open > 0)
		uv_run(a->cfg.loop, UV_RUN_DEFAULT);
	/* The terminal is gone: its further hangups mean nothing, and the caller has logs to close. */
	if (a->status == 128 + SIGHUP)
		signal(SIGHUP, SIG_IGN);
	if (a->cur)
		update_free(a->cur);
	a->cur = NULL;
	while ((u = a->uhead) != NULL) {
		a->uhead = u->next;
		update_free(u);
	}
	a->utail = NULL;
	if (a->screen_on && a->cfg.screen)
		a->cfg.screen->stop(a->cfg.screen_ctx);
	a->screen_on = false;
}

const char *
app_replay_path(const struct app *a)
{
	return a->replay[0] ? a->replay : NULL;
}
