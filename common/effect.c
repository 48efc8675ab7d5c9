/* SPDX-License-Identifier: MIT */
/* effect: the handler chain of each wizard (see effect.h for the model). */
#include <stddef.h>

#include "internal.h"

typedef enum hresult (*handler_fn)(struct game *g, int who, struct link *l, struct hmsg *m,
    struct events *ev);

static const char *const element_names[ELEMENT_COUNT] = {
#define X(id, name) name,
	ELEMENT_LIST(X)
#undef X
};

const char *
element_name(int e)
{
	return e >= 0 && e < ELEMENT_COUNT ? element_names[e] : "(unknown element)";
}

/* Each row of HANDLER_LIST: its name, its messages, the element it stops. */
static const struct {
	const char *name;
	int on_msg, off_msg;
	int resists;
} rows[HANDLER_COUNT] = {
#define X(id, name, on, off, resists) { name, on, off, resists },
	HANDLER_LIST(X)
#undef X
};

/* Every timed handler acts at the start of each of its wizard's next `turns` turns,
 * counting one down each time, and unlinks itself, saying so, at the end of the turn
 * that used the last one: a potion of Speed (3) gives three fast turns after the one it
 * was drunk in. The one place durations are handled. */
static enum hresult
tick(int who, struct link *l, const struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START && l->turns > 0) {
		l->turns--;
	} else if (m->type == HMSG_TURN_END && l->turns == 0) {
		game__say(ev, game__bit(who), rows[l->id].off_msg, 0, 0);
		return H_UNLINK_CONTINUE;
	}
	return H_KEEP_CONTINUE;
}

/* Fast: a second set of steps each turn. Fast and Slow add and subtract rather than
 * multiply, so that together they give the same 7 steps whichever was drunk first. */
static enum hresult
h_fast(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START)
		m->amount = (int16_t)(m->amount + STEPS_PER_TURN);
	return tick(who, l, m, ev);
}

/* Slow: three steps fewer each turn (two instead of five); the base handler clamps at 0. */
static enum hresult
h_slow(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START)
		m->amount = (int16_t)(m->amount - SLOW_PENALTY);
	return tick(who, l, m, ev);
}

/* Regeneration: one hit point at the start of each of its wizard's turns. */
static enum hresult
h_regen(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START) {
		struct hmsg heal = { HMSG_HEAL, 0, 1 };
		if (effect__send(g, who, heal, ev) > 0)
			game__say(ev, game__bit(who), MSG_REGENERATED, 0, 0);
	}
	return tick(who, l, m, ev);
}

/* A resistance: stops damage of the element its row names before the base handler. */
static enum hresult
h_resist(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_DAMAGE && m->element == rows[l->id].resists) {
		game__say(ev, game__bit(who), MSG_RESISTED, m->element, 0);
		return H_KEEP_STOP;
	}
	return tick(who, l, m, ev);
}

/* Telepathy: the opponent's position is sensed at the start of each of its wizard's turns. */
static enum hresult
h_telepathy(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START)
		game__sense(g, who, ev);
	return tick(who, l, m, ev);
}

static const handler_fn handlers[HANDLER_COUNT] = {
	[HANDLER_FAST] = h_fast,
	[HANDLER_SLOW] = h_slow,
	[HANDLER_REGEN] = h_regen,
	[HANDLER_RES_COLD] = h_resist,
	[HANDLER_RES_FIRE] = h_resist,
	[HANDLER_RES_ELEC] = h_resist,
	[HANDLER_RES_ACID] = h_resist,
	[HANDLER_TELEPATHY] = h_telepathy,
};

const char *
handler_name(int id)
{
	return id >= 0 && id < HANDLER_COUNT ? rows[id].name : "(unknown effect)";
}

static void
recompute_intrinsics(struct wizard *w)
{
	w->intrinsics = 0;
	for (int i = 0; i < w->chain.n; i++)
		w->intrinsics |= INTRINSIC(w->chain.link[i].id);
}

/* The base handler: always last, never linked, applies what reaches it. */
static int
base(struct game *g, int who, const struct hmsg *m, struct events *ev)
{
	struct wizard *w = &g->wiz[who];

	switch (m->type) {
	case HMSG_DAMAGE:
		if (m->amount <= 0)
			return 0;
		w->hp = (int8_t)(w->hp - m->amount);
		ev->hp_changed |= (uint8_t)game__bit(who);
		game__say(ev, game__bit(who), MSG_HURT, m->element, m->amount);
		return m->amount;
	case HMSG_HEAL: {
		int room = WIZARD_HP - w->hp;
		int n = m->amount < room ? m->amount : room;
		if (n <= 0)
			return 0;
		w->hp = (int8_t)(w->hp + n);
		ev->hp_changed |= (uint8_t)game__bit(who);
		return n;
	}
	case HMSG_TURN_START:
		g->steps_left = (uint8_t)(m->amount < 0 ? 0 : m->amount);
		return m->amount;
	default:
		return 0;
	}
}

int
effect__send(struct game *g, int who, struct hmsg m, struct events *ev)
{
	struct chain *c = &g->wiz[who].chain;
	bool unlinked = false;
	int i = 0;

	/* Walk by index: a handler may unlink itself, and one may send a nested message
	 * (Regeneration heals through the chain), which never links or unlinks. */
	while (i < c->n) {
		struct link *l = &c->link[i];
		enum hresult r = handlers[l->id](g, who, l, &m, ev);
		bool stop = r == H_KEEP_STOP || r == H_UNLINK_STOP;

		if (r == H_UNLINK_CONTINUE || r == H_UNLINK_STOP) {
			for (int j = i; j + 1 < c->n; j++)
				c->link[j] = c->link[j + 1];
			c->n--;
			unlinked = true;
		} else {
			i++;
		}
		if (stop) {
			if (unlinked)
				recompute_intrinsics(&g->wiz[who]);
			return 0;
		}
	}
	if (unlinked)
		recompute_intrinsics(&g->wiz[who]);
	return base(g, who, &m, ev);
}

void
effect__link(struct game *g, int who, int id, int turns, struct events *ev)
{
	struct wizard *w = &g->wiz[who];

	for (int i = 0; i < w->chain.n; i++) {
		if (w->chain.link[i].id == id) {
			if (w->chain.link[i].turns < turns)
				w->chain.link[i].turns = (uint8_t)turns;
			game__say(ev, game__bit(who), MSG_ALREADY_ACTIVE, 0, 0);
			return;
		}
	}
	/* CHAIN_MAX is one per handler id, so there is always room here. */
	w->chain.link[w->chain.n++] = (struct link){ (uint8_t)id, (uint8_t)turns };
	recompute_intrinsics(w);
	game__say(ev, game__bit(who), rows[id].on_msg, 0, 0);
}
