/* SPDX-License-Identifier: MIT */
/* rcursor: a position in a recorded duel, shared by the terminal's replay viewer and the web page's (see rcursor.h). */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "rcursor.h"

static const unsigned speed_ms[RCURSOR_SPEEDS] = { 2000, 1000, 500, 250, 100, 30 };
static const char *const speed_name[RCURSOR_SPEEDS] = { "0.25x", "0.5x", "1x", "2x", "5x", "16x" };

/* ---- collecting the log ---- */

static bool
grow(struct rcursor_log *l)
{
	uint32_t cap = l->cap ? l->cap * 2 : 256;
	struct cmd *nc = realloc(l->cmd, cap * sizeof *nc);
	if (nc == NULL)
		return false;
	l->cmd = nc;
	uint8_t *nw = realloc(l->who, cap);
	if (nw == NULL)
		return false;
	l->who = nw;
	uint32_t *nt = realloc(l->turn_at, (cap + 1) * sizeof *nt);
	if (nt == NULL)
		return false;
	l->turn_at = nt;
	if (l->cap == 0)
		l->turn_at[0] = 0; /* game_init: no turn completed */
	l->cap = cap;
	return true;
}

void
rcursor_collect(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct rcursor_log *l = ud;

	(void)lineno;
	if (ev == NULL || l->oom)
		return; /* called before a command too: only what was applied counts */
	if (l->ncmd == l->cap && !grow(l)) {
		l->oom = true;
		return;
	}
	l->cmd[l->ncmd] = *c;
	l->who[l->ncmd++] = (uint8_t)p;
	l->turn_at[l->ncmd] = g->turn_no;
	if (l->ncmd % RCURSOR_CKPT == 0) {
		struct game *nk = realloc(l->ckpt, (l->nckpt + 1) * sizeof *nk);
		if (nk == NULL) {
			l->oom = true;
			return;
		}
		l->ckpt = nk;
		l->ckpt[l->nckpt++] = *g;
	}
}

void
rcursor_keep_chat(void *ud, int lineno, uint32_t cmds, int player, const char *text)
{
	struct rcursor_log *l = ud;

	(void)lineno;
	if (l->nchat == l->chatcap) {
		uint32_t cap = l->chatcap ? l->chatcap * 2 : 32;
		struct rcursor_chat *nc = realloc(l->chat, cap * sizeof *nc);
		if (nc == NULL)
			return; /* a chat line missed, the duel whole */
		l->chat = nc;
		l->chatcap = cap;
	}
	struct rcursor_chat *c = &l->chat[l->nchat++];
	c->at = cmds;
	c->p = (uint8_t)player;
	state_clean_text(c->text, sizeof c->text, text, strlen(text));
}

void
rcursor_log_finish(struct rcursor_log *l)
{
	free(l->cmd);
	free(l->who);
	free(l->turn_at);
	free(l->ckpt);
	free(l->chat);
	memset(l, 0, sizeof *l);
}

/* ---- views ---- */

static void
build_view(struct rcursor *c, const struct game *g, struct view *out)
{
	if (c->viewpoint == 2) {
		/* Everything, as a spectator sees it once a duel is over (common/spect.c). */
		spect_all(g, &c->all);
		*out = c->all.v;
	} else {
		view_build(g, c->viewpoint, out);
	}
}

static int
filter_msgs(const struct rcursor *c, const struct events *ev, struct msg *out)
{
	int n = 0;

	for (int i = 0; i < ev->nmsg; i++)
		if (c->viewpoint == 2 || (ev->msg[i].to & (1u << c->viewpoint)))
			out[n++] = ev->msg[i];
	return n;
}

/* ---- moving ---- */

uint32_t
rcursor_turn_shown(const struct rcursor *c, uint32_t pos)
{
	const struct rcursor_log *l = c->log;

	if (l->ncmd == 0)
		return 1;
	return l->turn_at[pos < l->ncmd ? pos : l->ncmd - 1] + 1;
}

void
rcursor_line(struct rcursor *c)
{
	const struct rcursor_log *l = c->log;
	const char *vp = c->viewpoint == 2 ? "all-seeing" : l->hdr.name[c->viewpoint];
	char keys[80];

	/* The page's "g turn" is its turn box (app.js focuses it); the words are the same. */
	if (c->jumping)
		snprintf(keys, sizeof keys, "Jump to turn: %s_  (Enter go, Esc cancel)", c->jump);
	else
		snprintf(keys, sizeof keys, "space play  n b step  g turn  v view  ? help");
	snprintf(c->line, sizeof c->line, "Replay: %s, %s, turn %u, command %u/%u\nView: %.24s\n%s",
	    c->pos >= l->ncmd ? "at the end" : c->playing ? "playing" : "paused", speed_name[c->speed],
	    (unsigned)rcursor_turn_shown(c, c->pos), (unsigned)c->pos, (unsigned)l->ncmd, vp, keys);
	c->st->replay_line = c->line;
}

static void
chats_at(struct rcursor *c, uint32_t at)
{
	const struct rcursor_log *l = c->log;

	for (uint32_t i = 0; i < l->nchat; i++)
		if (l->chat[i].at == at)
			state_log_chat(c->st, l->chat[i].p, l->chat[i].text, strlen(l->chat[i].text));
}

void
rcursor_chats(struct rcursor *c)
{
	chats_at(c, c->pos);
}

static void
from_copy(struct rcursor *c, uint32_t k)
{
	if (k == 0)
		game_init(&c->game, &c->log->hdr.opt, c->log->hdr.seed);
	else
		c->game = c->log->ckpt[k - 1];
}

void
rcursor_seek(struct rcursor *c, uint32_t target)
{
	const struct rcursor_log *l = c->log;
	struct state *st = c->st;
	struct msg msgs[EVENTS_MSG_MAX];
	uint32_t k;

	if (target > l->ncmd)
		target = l->ncmd;
	if (c->on_seek)
		c->on_seek(c->on_seek_ud);
	/* Where the target is, to know which round's messages to show. */
	k = target / RCURSOR_CKPT;
	if (k > l->nckpt)
		k = l->nckpt;
	from_copy(c, k);
	for (uint32_t i = k * RCURSOR_CKPT; i < target; i++)
		game_apply(&c->game, l->who[i], &l->cmd[i], NULL);
	uint32_t round = c->game.turn_no / 2, want = round > 0 ? 2 * (round - 1) : 0;
	/* Back to a copy from before the previous round began. */
	while (k > 0 && l->ckpt[k - 1].turn_no > want)
		k--;
	uint32_t from = k * RCURSOR_CKPT;
	from_copy(c, k);
	state_log_clear(st);
	st->have_view = false;
	build_view(c, &c->game, &c->scratch);
	state_apply(st, &c->scratch, NULL, 0, NULL, 0);
	chats_at(c, from);
	for (uint32_t i = from; i < target; i++) {
		game_apply(&c->game, l->who[i], &l->cmd[i], &c->ev);
		build_view(c, &c->game, &c->scratch);
		state_apply(st, &c->scratch, msgs, filter_msgs(c, &c->ev, msgs), NULL, 0);
		chats_at(c, i + 1);
	}
	c->pos = target;
	c->last = st->view;
	if (st->mode != MODE_HELP)
		st->mode = state_base_mode(st);
	rcursor_line(c);
}

void
rcursor_init(struct rcursor *c, const struct rcursor_log *log, struct state *st, int viewpoint, int speed)
{
	memset(c, 0, sizeof *c);
	c->log = log;
	c->st = st;
	c->viewpoint = viewpoint;
	c->speed = speed < 0 ? 0 : speed >= RCURSOR_SPEEDS ? RCURSOR_SPEEDS - 1 : speed;
	st->allseeing = viewpoint == 2;
	for (int p = 0; p < PLAYERS; p++)
		state_set_name(st, p, log->hdr.name[p]);
	rcursor_seek(c, 0);
}

bool
rcursor_advance(struct rcursor *c, struct rcursor_step *s)
{
	const struct rcursor_log *l = c->log;
	int size = c->game.opt.size;

	if (c->pos >= l->ncmd)
		return false;
	if (game_apply(&c->game, l->who[c->pos], &l->cmd[c->pos], &c->ev) != ERR_OK)
		return false; /* the log replayed exactly once already; cannot happen */
	c->pos++;
	build_view(c, &c->game, &s->v);
	s->nfx = 0;
	for (int y = 0; c->ev.has_fx && y < size; y++)
		for (int x = 0; x < size; x++)
			if (c->ev.fx[y][x] && ((c->last.cell[y][x] | s->v.cell[y][x]) & VCELL_VISIBLE) && s->nfx < STATE_FX_MAX)
				s->fx[s->nfx++] = (struct fx_square){ (uint8_t)x, (uint8_t)y, c->ev.fx[y][x] };
	c->last = s->v;
	s->nmsg = filter_msgs(c, &c->ev, s->msgs);
	if (c->pos >= l->ncmd)
		c->playing = false;
	rcursor_line(c);
	return true;
}

bool
rcursor_show_step(struct rcursor *c)
{
	struct rcursor_step *s = malloc(sizeof *s); /* 13 KiB: not on the loop's stack */

	if (s == NULL || !rcursor_advance(c, s)) {
		free(s);
		return false;
	}
	state_apply(c->st, &s->v, s->msgs, s->nmsg, NULL, 0);
	rcursor_chats(c);
	free(s);
	return true;
}

void
rcursor_goto_turn(struct rcursor *c, uint32_t n)
{
	const struct rcursor_log *l = c->log;
	uint32_t pos = 0;

	while (pos < l->ncmd && l->turn_at[pos] + 1 < n)
		pos++;
	c->playing = false;
	rcursor_seek(c, pos);
}

unsigned
rcursor_speed_ms(const struct rcursor *c)
{
	return speed_ms[c->speed];
}

unsigned
rcursor_delay_ms(const struct rcursor *c)
{
	return c->playing && c->pos < c->log->ncmd ? speed_ms[c->speed] : 0;
}

unsigned
rcursor_anim_ms(const struct rcursor *c)
{
	return speed_ms[c->speed] < 250 ? speed_ms[c->speed] : 250;
}

/* ---- keys ---- */

/* A key while a turn is typed after "g": digits, Backspace, Enter to go there, anything else
 * (Esc) to give up. */
static void
jump_key(struct rcursor *c, int key)
{
	size_t n = strlen(c->jump);

	if (key >= '0' && key <= '9') {
		if (n < RCURSOR_JUMP_DIGITS && !(n == 0 && key == '0')) {
			c->jump[n] = (char)key;
			c->jump[n + 1] = '\0';
		}
		return;
	}
	if ((key == KEY_BACKSPACE || key == 127 || key == 8) && n > 0) {
		c->jump[n - 1] = '\0';
		return;
	}
	c->jumping = false;
	if ((key == '\r' || key == '\n' || key == KEY_ENTER) && n > 0)
		rcursor_goto_turn(c, (uint32_t)strtoul(c->jump, NULL, 10));
}

/* The terminal's other names of the viewer's keys. */
static const struct { int key, is; } alias[] = {
	{ KEY_RIGHT, 'n' }, { KEY_LEFT, 'b' }, { KEY_HOME, '0' }, { KEY_END, 'e' }, { '=', '+' }, { '_', '-' },
};

enum rcursor_key
rcursor_key(struct rcursor *c, int key)
{
	struct state *st = c->st;

	if (st->mode == MODE_HELP) {
		st->mode = state_base_mode(st);
		return RCURSOR_KEY_DONE;
	}
	if (c->jumping) {
		jump_key(c, key);
		rcursor_line(c);
		return RCURSOR_KEY_DONE;
	}
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (key == alias[i].key)
			key = alias[i].is;
	switch (key) {
	case ' ':
		c->playing = !c->playing && c->pos < c->log->ncmd;
		break;
	case 'n':
		c->playing = false;
		rcursor_line(c);
		return RCURSOR_KEY_STEP;
	case 'b':
		c->playing = false;
		rcursor_seek(c, c->pos > 0 ? c->pos - 1 : 0);
		break;
	case '0':
		c->playing = false;
		rcursor_seek(c, 0);
		break;
	case 'e':
		c->playing = false;
		rcursor_seek(c, c->log->ncmd);
		break;
	case '+':
		c->speed = c->speed + 1 < RCURSOR_SPEEDS ? c->speed + 1 : RCURSOR_SPEEDS - 1;
		break;
	case '-':
		c->speed = c->speed > 0 ? c->speed - 1 : 0;
		break;
	case 'g':
		c->playing = false;
		c->jumping = true;
		c->jump[0] = '\0';
		break;
	case 'v':
		c->viewpoint = (c->viewpoint + 1) % 3;
		st->allseeing = c->viewpoint == 2;
		rcursor_seek(c, c->pos);
		break;
	case '[':
		st->log_scroll += 3;
		break;
	case ']':
		st->log_scroll = st->log_scroll > 3 ? st->log_scroll - 3 : 0;
		break;
	case '?':
		st->mode = MODE_HELP;
		break;
	default:
		return RCURSOR_KEY_NONE;
	}
	rcursor_line(c);
	return RCURSOR_KEY_DONE;
}
