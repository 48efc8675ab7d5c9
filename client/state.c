/* SPDX-License-Identifier: MIT */
/* state: the client model: updates in the plan's "After Turn" order, the log by rounds, and keys to requests. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curses.h> /* KEY_* codes only: keys arrive as curses reports them; nothing here draws */

#include "potion.h"
#include "state.h"
#include "text.h"

void
state_init(struct state *st, const struct keys *keys)
{
	memset(st, 0, sizeof *st);
	st->keys = keys;
	st->mode = MODE_NORMAL;
	snprintf(st->name[0], sizeof st->name[0], "player 1");
	snprintf(st->name[1], sizeof st->name[1], "player 2");
	st->clock_left = -1;
	st->seat = -1;
	st->me_state = OPP_VISIBLE;
	st->watchers = -1;
}

/* ---- peer text ---- */

/* The protocol's decoder and character rules: the screen shows what the protocol would accept. */
size_t
state_utf8_next(const char *str, size_t len, uint32_t *cp)
{
	return text_utf8_next((const uint8_t *)str, len, cp);
}

const char *
state_article(const char *word)
{
	/* The words shown after an article are the appearances' colours and the potions' names: a
	 * leading vowel letter is enough for them (no "hour" or "unicorn" among them). */
	return word && word[0] && strchr("aeiouAEIOU", word[0]) ? "an" : "a";
}

bool
state_printable(uint32_t cp)
{
	return text_allowed(cp, TEXT_CHAT);
}

size_t
state_clean_text(char *dst, size_t cap, const char *src, size_t len)
{
	size_t out = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = state_utf8_next(src + i, len - i, &cp);
		if (n == 0) {
			cp = 0xfffd; /* a broken byte is shown as such, never passed on */
			n = 1;
		}
		i += n;
		if (!state_printable(cp))
			continue;
		char enc[4];
		size_t m = text_utf8_put(enc, cp);
		if (out + m > cap - 1)
			break;
		memcpy(dst + out, enc, m);
		out += m;
	}
	dst[out] = '\0';
	return out;
}

void
state_set_name(struct state *st, int player, const char *name)
{
	if (player < 0 || player >= PLAYERS)
		return;
	st->named[player] = name != NULL && state_clean_text(st->name[player], sizeof st->name[player], name, strlen(name)) > 0;
	if (!st->named[player])
		snprintf(st->name[player], sizeof st->name[player], "player %d", player + 1); /* people count from 1 */
}

void
state_set_seat(struct state *st, int player)
{
	st->seat = player >= 0 && player < PLAYERS ? player : -1;
}

/* ---- the log ---- */

uint32_t
state_round(const struct state *st)
{
	return st->have_view ? st->view.turn_no / 2 : 0;
}

static struct log_entry *
log_push(struct state *st, int kind, uint32_t round)
{
	struct log_entry *e;

	if (st->log_count == STATE_LOG_MAX) {
		st->log_start = (st->log_start + 1) % STATE_LOG_MAX;
		st->log_count--;
	}
	e = &st->log[(st->log_start + st->log_count++) % STATE_LOG_MAX];
	memset(e, 0, sizeof *e);
	e->kind = (uint8_t)kind;
	e->round = round;
	return e;
}

static void
log_msg_round(struct state *st, const struct msg *m, int from, uint32_t round)
{
	struct log_entry *e = log_push(st, LOG_GAME, round);

	e->msg = *m;
	e->from = (uint8_t)(from == 1);
}

void
state_log_msg(struct state *st, const struct msg *m, int from)
{
	log_msg_round(st, m, from, state_round(st));
}

void
state_log_chat(struct state *st, int from, const char *text, size_t len)
{
	char clean[STATE_CHAT_MAX + 1];

	if (state_clean_text(clean, sizeof clean, text, len) == 0)
		return;
	struct log_entry *e = log_push(st, LOG_CHAT, state_round(st));
	e->from = (uint8_t)(from == 1);
	memcpy(e->text, clean, strlen(clean) + 1);
}

void
state_log_system(struct state *st, const char *fmt, ...)
{
	struct log_entry *e = log_push(st, LOG_SYSTEM, state_round(st));
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
}

void
state_log_clear(struct state *st)
{
	st->log_start = st->log_count = 0;
	st->log_scroll = 0;
}

const struct log_entry *
state_log_get(const struct state *st, unsigned i)
{
	return i < st->log_count ? &st->log[(st->log_start + i) % STATE_LOG_MAX] : NULL;
}

const struct log_entry *
state_log_visible(const struct state *st, unsigned i)
{
	uint32_t round = state_round(st), oldest = round > 0 ? round - 1 : 0;
	unsigned first = st->log_count;

	/* Entries are in time order, so those shown are a suffix. */
	while (first > 0 && state_log_get(st, first - 1)->round >= oldest)
		first--;
	return state_log_get(st, first + i);
}

size_t
state_log_text(const struct state *st, const struct log_entry *e, char *buf, size_t len)
{
	int n;

	if (len == 0)
		return 0;
	switch (e->kind) {
	case LOG_GAME:
		if (st->allseeing) {
			/* A spectator sees everyone's messages: say whose. */
			n = snprintf(buf, len, "%s: ", e->msg.to == 3 ? "both" : st->name[e->msg.to == 2]);
			if (n < 0 || (size_t)n >= len)
				return strlen(buf);
			return (size_t)n + msg_format(&e->msg, buf + n, len - (size_t)n);
		}
		n = (int)msg_format(&e->msg, buf, len);
		/* What I know of the potion my opponent drank: the kinds are fixed for the duel. */
		if (e->msg.id == MSG_OPP_DRINKS && st->have_view && e->msg.a < APPEARANCE_COUNT &&
		    st->view.kind_of[e->msg.a] != POTION_NONE && (size_t)n > 0 && buf[n - 1] == '.') {
			int m = snprintf(buf + n - 1, len - (size_t)n + 1, ": %s.", potion_name(st->view.kind_of[e->msg.a]));
			n = m < 0 ? n : (size_t)(n - 1 + m) >= len ? (int)len - 1 : n - 1 + m;
		}
		return (size_t)n;
	case LOG_CHAT:
		n = snprintf(buf, len, "<%s> %s", st->name[e->from], e->text);
		break;
	default:
		n = snprintf(buf, len, "%s", e->text);
		break;
	}
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* ---- updates ---- */

bool
state_my_turn(const struct state *st)
{
	return st->have_view && st->view.result == RESULT_NONE && st->view.turn == st->view.me;
}

enum state_mode
state_base_mode(const struct state *st)
{
	return st->have_view && st->view.result != RESULT_NONE ? MODE_OVER : MODE_NORMAL;
}

void
state_update_begin(struct state *st, const struct view *after, const struct fx_square *fx, int nfx)
{
	if (!st->have_view) {
		/* The very first view: there is no older layout to show effects over. */
		st->prev = *after;
	} else {
		st->prev = st->view;
	}
	if (nfx > STATE_FX_MAX)
		nfx = STATE_FX_MAX;
	if (nfx > 0 && fx)
		memcpy(st->fx, fx, (size_t)nfx * sizeof *fx);
	st->nfx = nfx > 0 && fx ? nfx : 0;
	st->anim = st->nfx > 0;
}

static void
note(struct state *st, uint32_t round, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void
note(struct state *st, uint32_t round, const char *fmt, ...)
{
	struct log_entry *e = log_push(st, LOG_NOTE, round);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
}

static bool
has_msg(const struct msg *msgs, int nmsg, int id)
{
	for (int i = 0; i < nmsg; i++)
		if (msgs[i].id == id)
			return true;
	return false;
}

uint32_t
state_round_of(uint32_t turn_no)
{
	return turn_no / 2 + 1;
}

bool
state_i_moved_first(const struct state *st)
{
	const struct view *v = &st->view;

	/* Turns alternate from the first mover: even turn numbers are its. */
	return st->have_view && ((v->turn_no % 2 == 0) == (v->turn == v->me));
}

int
state_effect_turns(const struct state *st, int h)
{
	const struct view *v = &st->view;

	if (h < 0 || h >= HANDLER_COUNT || !(v->intrinsics & INTRINSIC(h)))
		return 0;
	/* The rules count the turn starts still to come; on my own move this turn is one more. */
	return v->turns_left[h] + (state_my_turn(st) ? 1 : 0);
}

/* The effects' words, from the rules' own list (FX_LIST). */
static const char *const fx_words[FX_COUNT] = {
#define X(id, name) name,
	FX_LIST(X)
#undef X
};

/*
 * Hurt on the opponent's move: where the player saw the effect, from this update's effect
 * squares (the server sends only those the player sees, so nothing here is more than the
 * view holds). Said as a place, never as where the caster stands: a ray seen only to the
 * north-east may have come from behind a wall to the south-west.
 */
static void
hit_seen(struct state *st, const struct view *old, uint32_t round)
{
	int n = 0, off_line = 0, fx = FX_NONE;
	unsigned dirs = 0;
	for (int k = 0; k < st->nfx; k++) {
		int dx = st->fx[k].x - old->x, dy = st->fx[k].y - old->y;
		if (dx == 0 && dy == 0)
			continue;
		n++;
		if (fx == FX_NONE && st->fx[k].fx < FX_COUNT)
			fx = st->fx[k].fx;
		if (dx == 0 || dy == 0 || dx == dy || dx == -dy)
			dirs |= 1u << dir_toward(dx, dy);
		else
			off_line++;
	}
	if (n == 0 || fx == FX_NONE)
		return; /* only my own square, or nothing: the view holds no more than the hit */
	int first = 0, count = 0;
	for (int d = 1; d <= 9; d++)
		if (dirs & (1u << d)) {
			first = first ? first : d;
			count++;
		}
	if (off_line == 0 && count == 1)
		note(st, round, "You saw the %s to your %s.", fx_words[fx], dir_name(first));
	else if (off_line == 0 && count == 2 && (dirs & (1u << (10 - first))))
		note(st, round, "You saw the %s along the %s to %s line through you.", fx_words[fx], dir_name(first),
		    dir_name(10 - first));
	else
		note(st, round, "You saw the %s on %d squares around you (; looks at them until the next move).",
		    fx_words[fx], n);
}

/* What a player sees happen that the rules do not say in words: the opponent's HP (public),
 * what lies underfoot, who moves first, a new duel. Only from the two views. */
static void
narrate(struct state *st, const struct view *old, bool had_view, uint32_t round)
{
	const struct view *v = &st->view;
	const char *opp = st->allseeing ? NULL : st->name[1 - v->me];

	bool rematch = had_view && old->result != RESULT_NONE && v->result == RESULT_NONE;
	if (!had_view || rematch) {
		/* A replay viewer seeking starts again from no view: only a rematch is a new duel. */
		if (rematch)
			note(st, state_round(st), "---- A new duel begins (duel %u) ----", (unsigned)(++st->duels + 1));
		if (v->turn_no == 0 && v->result == RESULT_NONE) {
			if (st->allseeing)
				note(st, state_round(st), "%s moves first.", st->name[v->turn]);
			else if (v->turn == v->me)
				note(st, state_round(st), "You move first.");
			else
				note(st, state_round(st), "%s moves first.", opp);
		}
		return;
	}
	if (opp && v->opp_hp != old->opp_hp) {
		if (v->opp_hp < old->opp_hp)
			note(st, round, "%s is hurt: HP %d/%d.", opp, v->opp_hp, WIZARD_HP);
		else
			note(st, round, "%s looks healthier: HP %d/%d.", opp, v->opp_hp, WIZARD_HP);
	}
	if (st->allseeing || v->result != RESULT_NONE)
		return;
	if (v->hp < old->hp && old->turn != v->me)
		hit_seen(st, old, round);
	int a = v->potion[v->y][v->x];
	if (a != 0 && (v->x != old->x || v->y != old->y || old->potion[v->y][v->x] != a)) {
		int kind = a - 1 < APPEARANCE_COUNT ? v->kind_of[a - 1] : POTION_NONE;
		note(st, round, "You stand on %s %s potion: %s.", state_article(appearance_name(a - 1)), appearance_name(a - 1),
		    kind != POTION_NONE ? potion_name(kind) : "unknown");
	}
}

void
state_update_end(struct state *st, const struct view *after, const struct msg *msgs, int nmsg)
{
	/* Messages belong to the turn in which they happened, the one before this update. */
	uint32_t round = st->prev.turn_no / 2;
	bool had_view = st->have_view;
	bool was_over = had_view && st->view.result != RESULT_NONE;
	bool time_up = has_msg(msgs, nmsg, MSG_TIME_UP);
	struct view old = st->view;

	st->view = *after;
	st->have_view = true;
	st->anim = false; /* the effects stay in fx[] until the next update: look tells them */
	if (was_over && after->result == RESULT_NONE) {
		/* A rematch: nothing of the last duel's end stays on screen. */
		if (st->mode == MODE_OVER || st->mode == MODE_QUIT)
			st->mode = MODE_NORMAL;
		st->over_hidden = false;
		st->over_note[0] = '\0';
		st->revealed = false;
		st->status[0] = '\0';
		st->log_scroll = 0;
		was_over = false;
	}
	if (had_view && (old.turn != after->turn || old.turn_no != after->turn_no))
		st->status[0] = '\0'; /* "It is not your turn" is stale once the turn has passed */
	/* The timer passed my turn: say so first, not after "You end your turn", which I did not do. */
	if (time_up)
		for (int i = 0; i < nmsg; i++)
			if (msgs[i].id == MSG_TIME_UP)
				log_msg_round(st, &msgs[i], st->view.me, round);
	for (int i = 0; i < nmsg; i++)
		if (!(time_up && (msgs[i].id == MSG_TIME_UP || msgs[i].id == MSG_WAITED)))
			log_msg_round(st, &msgs[i], st->view.me, round);
	narrate(st, &old, had_view, round);
	st->log_scroll = 0;
	/* A prompt that only makes sense on my move closes when the move has passed. */
	if ((st->mode == MODE_DIRECTION || st->mode == MODE_INVENTORY) && !state_my_turn(st))
		st->mode = state_base_mode(st);
	if (!was_over && st->view.result != RESULT_NONE) {
		if (st->mode != MODE_CHAT && st->mode != MODE_HELP && st->mode != MODE_HISTORY && st->mode != MODE_DESCRIBE)
			st->mode = MODE_OVER;
		st->status[0] = '\0';
	}
}

void
state_reveal(struct state *st, const struct view *all, const char *note)
{
	if (!st->have_view || all->result == RESULT_NONE)
		return;
	st->view = *all;
	st->prev = *all;
	st->revealed = true;
	snprintf(st->over_note, sizeof st->over_note, "%s", note ? note : "");
	if (st->mode == MODE_NORMAL)
		st->mode = MODE_OVER;
}

void
state_apply(struct state *st, const struct view *after, const struct msg *msgs, int nmsg,
    const struct fx_square *fx, int nfx)
{
	state_update_begin(st, after, fx, nfx);
	state_update_end(st, after, msgs, nmsg);
}

size_t
state_result_text(const struct state *st, char *buf, size_t len)
{
	const struct view *v = &st->view;
	int n;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (!st->have_view || v->result == RESULT_NONE)
		return 0;
	if (v->result == RESULT_DRAW) {
		n = snprintf(buf, len, "%s", v->end_reason == END_TURN_LIMIT ?
		    "The duel is a draw: the turn limit was reached." : "Both wizards fall: the duel is a draw.");
	} else {
		int winner = v->result == RESULT_WIN0 ? 0 : 1;
		bool resigned = v->end_reason == END_RESIGNED, limit = v->end_reason == END_TURN_LIMIT;
		if (st->allseeing)
			n = snprintf(buf, len, "%s wins: %s %s.", st->name[winner], st->name[1 - winner],
			    resigned ? "forfeits" : limit ? "has less HP at the turn limit" : "is dead");
		else if (winner == v->me)
			n = snprintf(buf, len, "%s", resigned ? "You win: your opponent forfeits." :
			    limit ? "You win: more HP at the turn limit." : "You win: your opponent is dead!");
		else
			n = snprintf(buf, len, "%s", resigned ? "You lose: you forfeited the duel." :
			    limit ? "You lose: less HP at the turn limit." : "You lose: you are dead.");
	}
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* ---- keys ---- */

static void
say(struct state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void
say(struct state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->status, sizeof st->status, fmt, ap);
	va_end(ap);
}

void
state_refused(struct state *st, int err)
{
	const char *t = err_text(err);

	/* err_text is lower case for logs; the status line reads as a sentence. */
	say(st, "%c%s.", t[0] >= 'a' && t[0] <= 'z' ? t[0] - 'a' + 'A' : t[0], t + 1);
}

bool
state_chat_insert(struct state *st, uint32_t cp)
{
	char enc[4];
	size_t n;

	if (!state_printable(cp))
		return false;
	n = text_utf8_put(enc, cp);
	if (st->chat_len + n > STATE_CHAT_MAX)
		return false;
	memcpy(st->chat + st->chat_len, enc, n);
	st->chat_len += n;
	st->chat[st->chat_len] = '\0';
	return true;
}

void
state_chat_backspace(struct state *st)
{
	/* Back over continuation bytes to the start of the last code point. */
	while (st->chat_len > 0) {
		unsigned char c = (unsigned char)st->chat[--st->chat_len];
		if ((c & 0xc0) != 0x80)
			break;
	}
	st->chat[st->chat_len] = '\0';
}

static bool
is_enter(int raw)
{
	return raw == '\n' || raw == '\r' || raw == KEY_ENTER;
}

static bool
is_backspace(int raw)
{
	return raw == KEY_BACKSPACE || raw == 127 || raw == 8;
}

/* The code point a key types, or 0 when it types nothing. */
static uint32_t
text_of(int raw)
{
	if (raw >= 0x20 && raw < 0x7f)
		return (uint32_t)raw;
	if (raw > 0 && (raw & KEYS_META) == 0 && (raw & KEYS_WCHAR)) {
		uint32_t cp = (uint32_t)raw & ~(uint32_t)KEYS_WCHAR;
		return state_printable(cp) ? cp : 0;
	}
	return 0;
}

static void
key_chat(struct state *st, int action, int raw, struct state_out *out)
{
	uint32_t cp = text_of(raw);

	if (is_enter(raw) || (cp == 0 && action == ACTION_CHAT)) {
		if (st->chat_len > 0) {
			out->kind = OUT_CHAT;
			memcpy(out->chat, st->chat, st->chat_len + 1);
		}
		st->chat_len = 0;
		st->chat[0] = '\0';
		st->mode = state_base_mode(st);
	} else if (raw == 27 || (cp == 0 && (action == ACTION_CANCEL || action == ACTION_END_TURN))) {
		/* The plan's Del closes the chat prompt; so does Escape. What was typed is dropped. */
		st->chat_len = 0;
		st->chat[0] = '\0';
		st->mode = state_base_mode(st);
	} else if (is_backspace(raw)) {
		state_chat_backspace(st);
	} else if (raw == 21) { /* ^U, as in a shell */
		st->chat_len = 0;
		st->chat[0] = '\0';
	} else if (cp != 0) {
		if (!state_chat_insert(st, cp))
			say(st, "A chat line holds at most %d bytes.", STATE_CHAT_MAX);
	}
}

/* The numpad digit of a direction key, whatever the bindings say: a prompt reads 1-9 too. */
static int
digit_dir(int raw)
{
	return raw >= '1' && raw <= '9' && raw != '5' ? raw - '0' : DIR_NONE;
}

static bool
need_turn(struct state *st)
{
	if (!st->have_view) {
		say(st, "The duel has not started yet.");
		return false;
	}
	if (st->view.result != RESULT_NONE) {
		say(st, "The duel is over.");
		return false;
	}
	if (st->view.turn != st->view.me) {
		say(st, "It is not your turn: wait for %s.", st->name[1 - st->view.me]);
		return false;
	}
	return true;
}

static void
send_cmd(struct state_out *out, int type, int arg, int dir)
{
	out->kind = OUT_CMD;
	out->cmd = (struct cmd){ (uint8_t)type, (uint8_t)arg, (uint8_t)dir };
}

static void
key_step(struct state *st, int dir, struct state_out *out)
{
	const struct view *v = &st->view;
	int x = v->x + dir_dx(dir), y = v->y + dir_dy(dir);

	if (!need_turn(st))
		return;
	if (v->steps_left == 0) {
		say(st, "No steps left: cast, drink, pick up or end the turn.");
		return;
	}
	if (x < 0 || y < 0 || x >= v->opt.size || y >= v->opt.size || (v->cell[y][x] & ~VCELL_VISIBLE) == VCELL_WALL) {
		say(st, "A wall blocks the way.");
		return;
	}
	if (v->opp_state == OPP_VISIBLE && v->opp_x == x && v->opp_y == y) {
		say(st, "The other wizard stands there.");
		return;
	}
	send_cmd(out, CMD_STEP, 0, dir);
}

static void
key_cast(struct state *st, int slot, struct state_out *out)
{
	int spell;

	if (!need_turn(st))
		return;
	spell = st->view.offered[slot];
	if (spell == SPELL_NONE) {
		say(st, "No spell is offered in slot %d.", slot + 1);
		return;
	}
	if (spell_takes_dir(spell)) {
		st->mode = MODE_DIRECTION;
		st->dir_slot = (uint8_t)slot;
		return;
	}
	send_cmd(out, CMD_CAST, slot, DIR_NONE);
}

static void
key_normal(struct state *st, int action, int raw, struct state_out *out)
{
	const struct view *v = &st->view;
	int dir = keys_dir(action);

	if (dir != DIR_NONE) {
		key_step(st, dir, out);
		return;
	}
	switch (action) {
	case ACTION_CAST_1:
	case ACTION_CAST_2:
	case ACTION_CAST_3:
		key_cast(st, action - ACTION_CAST_1, out);
		break;
	case ACTION_DRINK:
		if (!need_turn(st))
			break;
		if (v->potion[v->y][v->x] == 0)
			say(st, "There is no potion here.");
		else
			send_cmd(out, CMD_DRINK, 0, 0);
		break;
	case ACTION_PICKUP:
		if (!need_turn(st))
			break;
		if (v->potion[v->y][v->x] == 0)
			say(st, "There is no potion here.");
		else if (v->ninv >= INV_MAX)
			say(st, "You cannot carry more than %d potions.", INV_MAX);
		else
			send_cmd(out, CMD_PICKUP, 0, 0);
		break;
	case ACTION_INVENTORY:
		if (!need_turn(st))
			break;
		if (v->ninv == 0)
			say(st, "You carry no potions.");
		else
			st->mode = MODE_INVENTORY;
		break;
	case ACTION_END_TURN:
		if (need_turn(st))
			send_cmd(out, CMD_PASS, 0, 0);
		break;
	case ACTION_CHAT:
		st->mode = MODE_CHAT;
		break;
	case ACTION_HELP:
		st->mode = MODE_HELP;
		break;
	case ACTION_LOG_UP:
		st->log_scroll += STATE_LOG_PAGE;
		break;
	case ACTION_LOG_DOWN:
		st->log_scroll = st->log_scroll > STATE_LOG_PAGE ? st->log_scroll - STATE_LOG_PAGE : 0;
		break;
	case ACTION_HISTORY:
		st->mode = MODE_HISTORY;
		st->log_scroll = 0;
		break;
	case ACTION_DESCRIBE:
		st->mode = MODE_DESCRIBE;
		break;
	case ACTION_LOOK:
		if (!st->have_view)
			break;
		st->mode = MODE_LOOK;
		st->look_x = st->view.x;
		st->look_y = st->view.y;
		break;
	case ACTION_REDRAW:
		out->redraw = true;
		break;
	case ACTION_CANCEL:
		break;
	case ACTION_QUIT:
		if (st->mode == MODE_OVER || !st->have_view || st->offline)
			out->kind = OUT_QUIT;
		else {
			st->mode = MODE_QUIT;
			st->quit_by_interrupt = false;
		}
		break;
	default:
		if (raw != KEYS_NONE) {
			char name[KEYS_NAME_MAX];
			say(st, "%s does nothing here; ? lists the keys.", keys_label(raw, name, sizeof name)[0] ? name : "That key");
		}
		break;
	}
}

void
state_key(struct state *st, int action, int raw, struct state_out *out)
{
	memset(out, 0, sizeof *out);
	out->kind = OUT_NONE;
	if (raw == KEY_RESIZE)
		return;
	st->status[0] = '\0';
	switch (st->mode) {
	case MODE_CHAT:
		key_chat(st, action, raw, out);
		return;
	case MODE_HELP:
		/* ? again turns to how fighting works (not in the replay viewer, whose help is its own). */
		if (st->help_page == 0 && !st->help_text && (action == ACTION_HELP || raw == '?')) {
			st->help_page = 1;
			return;
		}
		st->help_page = 0;
		st->mode = state_base_mode(st);
		return;
	case MODE_DESCRIBE:
		st->mode = state_base_mode(st);
		return;
	case MODE_HISTORY:
		/* Page-wise, as a pager: back with [ or PgUp, forward with ] or PgDn; anything else closes. */
		if (action == ACTION_LOG_UP || raw == KEY_PPAGE || raw == 'b')
			st->log_scroll += STATE_LOG_PAGE * 2;
		else if (action == ACTION_LOG_DOWN || raw == KEY_NPAGE || raw == ' ')
			st->log_scroll = st->log_scroll > STATE_LOG_PAGE * 2 ? st->log_scroll - STATE_LOG_PAGE * 2 : 0;
		else {
			st->mode = state_base_mode(st);
			st->log_scroll = 0;
		}
		return;
	case MODE_QUIT:
		if (raw == 'y' || raw == 'Y') {
			out->kind = OUT_QUIT;
			out->resign = st->have_view && st->view.result == RESULT_NONE;
			out->cmd = (struct cmd){ CMD_RESIGN, 0, 0 };
		} else if (raw == 'r' || raw == 'R') {
			if (st->have_view && st->view.result == RESULT_NONE)
				send_cmd(out, CMD_RESIGN, 0, 0);
			st->mode = state_base_mode(st);
		} else {
			st->mode = state_base_mode(st);
			say(st, "The duel goes on.");
		}
		return;
	case MODE_DIRECTION: {
		int dir = keys_dir(action);
		if (dir == DIR_NONE)
			dir = digit_dir(raw);
		st->mode = state_base_mode(st);
		if (dir == DIR_NONE) {
			say(st, "Cast cancelled.");
			return;
		}
		if (need_turn(st))
			send_cmd(out, CMD_CAST, st->dir_slot, dir);
		return;
	}
	case MODE_LOOK: {
		/* Move keys (and the digits, as for a direction) move the cursor over the inside of the
		 * level; anything else puts it away. Nothing is sent: looking is free, on any turn. */
		int dir = keys_dir(action);
		if (dir == DIR_NONE)
			dir = digit_dir(raw);
		if (dir == DIR_NONE) {
			st->mode = state_base_mode(st);
			return;
		}
		int x = st->look_x + dir_dx(dir), y = st->look_y + dir_dy(dir), size = st->view.opt.size;
		if (x >= 1 && y >= 1 && x < size - 1 && y < size - 1) {
			st->look_x = (uint8_t)x;
			st->look_y = (uint8_t)y;
		}
		return;
	}
	case MODE_INVENTORY:
		st->mode = state_base_mode(st);
		if (raw >= '1' && raw <= '9') {
			int slot = raw - '1';
			if (!need_turn(st))
				return;
			if (slot >= st->view.ninv)
				say(st, "No potion in slot %d.", slot + 1);
			else
				send_cmd(out, CMD_QUAFF, slot, 0);
		}
		return;
	case MODE_NORMAL:
	case MODE_OVER:
		if (st->mode == MODE_OVER && (raw == 'q' || raw == 'Q')) {
			/* Over, q leaves whatever it is bound to: there is nothing left to drink. */
			out->kind = OUT_QUIT;
			return;
		}
		if (st->mode == MODE_OVER && !st->offline && (raw == 'r' || raw == 'm')) {
			/* Over, r and m ask for the next duel whatever they are bound to: nothing else is left. */
			out->kind = OUT_REMATCH;
			out->mirror = raw == 'm';
			say(st, raw == 'm' ? "Mirror rematch asked: the same level, the seats swapped." : "Rematch asked.");
			return;
		}
		if (st->mode == MODE_OVER && raw == 'v' && st->can_replay) {
			/* Over, v replays the duel all-seeing, whatever v is bound to: the log explains it. */
			out->kind = OUT_REPLAY;
			return;
		}
		if (st->mode == MODE_OVER && (raw == 27 || action == ACTION_CANCEL)) {
			st->over_hidden = !st->over_hidden; /* the box, away and back: the map and log are whole */
			return;
		}
		if (st->mode == MODE_OVER && action != ACTION_CHAT && action != ACTION_HELP && action != ACTION_QUIT &&
		    action != ACTION_HISTORY && action != ACTION_DESCRIBE && action != ACTION_LOOK &&
		    action != ACTION_LOG_UP && action != ACTION_LOG_DOWN && action != ACTION_REDRAW) {
			say(st, "The duel is over: Q leaves, r rematch, m mirror.");
			return;
		}
		key_normal(st, action, raw, out);
		return;
	}
}
