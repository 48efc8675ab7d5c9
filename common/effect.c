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

/* Every timed handler acts at the start of each of its wizard's next `turns` turns,
 * counting one down each time, and unlinks itself, saying so, at the end of the turn
 * that used the last one: a potion of Speed (3) gives three fast turns after the one it
 * was drunk in. The one place durations are handled. */
static enum hresult
tick(struct game *g, int who, struct link *l, const struct hmsg *m, struct events *ev, int off_msg)
{
	(void)g;
	if (m->type == HMSG_TURN_START && l->turns > 0) {
		l->turns--;
	} else if (m->type == HMSG_TURN_END && l->turns == 0) {
		game__say(ev, game__bit(who), off_msg, 0, 0);
		return H_UNLINK_CONTINUE;
	}
	return H_KEEP_CONTINUE;
}

static enum hresult
resist(int element, const struct hmsg *m, int who, struct events *ev)
{
	if (m->type == HMSG_DAMAGE && m->element == element) {
		game__say(ev, game__bit(who), MSG_RESISTED, element, 0);
		return H_KEEP_STOP;
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
	return tick(g, who, l, m, ev, MSG_FAST_OFF);
}

/* Slow: three steps fewer each turn (two instead of five); the base handler clamps at 0. */
static enum hresult
h_slow(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START)
		m->amount = (int16_t)(m->amount - SLOW_PENALTY);
	return tick(g, who, l, m, ev, MSG_SLOW_OFF);
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
	return tick(g, who, l, m, ev, MSG_REGEN_OFF);
}

static enum hresult
h_res_cold(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	enum hresult r = resist(ELEMENT_COLD, m, who, ev);
	return r == H_KEEP_STOP ? r : tick(g, who, l, m, ev, MSG_RESCOLD_OFF);
}

static enum hresult
h_res_fire(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	enum hresult r = resist(ELEMENT_FIRE, m, who, ev);
	return r == H_KEEP_STOP ? r : tick(g, who, l, m, ev, MSG_RESFIRE_OFF);
}

static enum hresult
h_res_elec(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	enum hresult r = resist(ELEMENT_ELEC, m, who, ev);
	return r == H_KEEP_STOP ? r : tick(g, who, l, m, ev, MSG_RESELEC_OFF);
}

static enum hresult
h_res_acid(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	enum hresult r = resist(ELEMENT_ACID, m, who, ev);
	return r == H_KEEP_STOP ? r : tick(g, who, l, m, ev, MSG_RESACID_OFF);
}

/* Telepathy: the opponent's position is sensed at the start of each of its wizard's turns. */
static enum hresult
h_telepathy(struct game *g, int who, struct link *l, struct hmsg *m, struct events *ev)
{
	if (m->type == HMSG_TURN_START)
		game__sense(g, who, ev);
	return tick(g, who, l, m, ev, MSG_TELEPATHY_OFF);
}

static const struct {
	const char *name;
	int on_msg;
	handler_fn fn;
} handlers[HANDLER_COUNT] = {
	[HANDLER_FAST] = { "Fast", MSG_FAST_ON, h_fast },
	[HANDLER_SLOW] = { "Slow", MSG_SLOW_ON, h_slow },
	[HANDLER_REGEN] = { "Regeneration", MSG_REGEN_ON, h_regen },
	[HANDLER_RES_COLD] = { "Resist cold", MSG_RESCOLD_ON, h_res_cold },
	[HANDLER_RES_FIRE] = { "Resist fire", MSG_RESFIRE_ON, h_res_fire },
	[HANDLER_RES_ELEC] = { "Resist lightning", MSG_RESELEC_ON, h_res_elec },
	[HANDLER_RES_ACID] = { "Resist acid", MSG_RESACID_ON, h_res_acid },
	[HANDLER_TELEPATHY] = { "Telepathy", MSG_TELEPATHY_ON, h_telepathy },
};

const char *
handler_name(int id)
{
	return id >= 0 && id < HANDLER_COUNT ? handlers[id].name : "(unknown effect)";
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
		enum hresult r = handlers[l->id].fn(g, who, l, &m, ev);
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
	game__say(ev, game__bit(who), handlers[id].on_msg, 0, 0);
}
