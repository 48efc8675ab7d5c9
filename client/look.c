/* SPDX-License-Identifier: MIT */
/* look: what the player knows of one square, said in words (the look cursor's line; NetHack's ;, DCSS's x). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "look.h"

/* The effects' words, from the rules' own list (FX_LIST: fire, lightning, acid, sonic, magic). */
static const char *const fx_words[FX_COUNT] = {
#define X(id, name) name,
	FX_LIST(X)
#undef X
};

struct out {
	char *buf;
	size_t len, at;
};

static void
put(struct out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void
put(struct out *o, const char *fmt, ...)
{
	if (o->at >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->at = o->at + (size_t)n < o->len ? o->at + (size_t)n : o->len - 1;
}

/* "3 north-east": how far and which way from me, in moves (a diagonal step is one move). */
static void
where(struct out *o, const struct view *v, int x, int y)
{
	int dx = x - v->x, dy = y - v->y, ax = abs(dx), ay = abs(dy);
	int steps = ax > ay ? ax : ay;
	if (steps == 0)
		return;
	put(o, " (%d %s)", steps, dir_name(dir_toward(dx, dy)));
}

size_t
look_text(const struct state *st, int x, int y, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	const struct view *v = &st->view;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (!st->have_view || x < 0 || y < 0 || x >= v->opt.size || y >= v->opt.size)
		return 0;
	uint8_t c = v->cell[y][x];
	bool seen = (c & VCELL_VISIBLE) != 0;
	bool me = x == v->x && y == v->y && !st->allseeing;

	/* Who stands there first: that is what the eye goes to. */
	if (me)
		put(&o, "You, HP %d. ", v->hp);
	if (v->opp_state != OPP_UNKNOWN && x == v->opp_x && y == v->opp_y) {
		const char *who = st->allseeing ? st->name[1] : st->name[!v->me];
		if (v->opp_state == OPP_VISIBLE)
			put(&o, "%s, in sight, HP %d. ", who, v->opp_hp);
		else if (v->opp_state == OPP_SENSED)
			put(&o, "%s, sensed here this turn (not seen: Take Life needs sight). ", who);
		else
			put(&o, "%s was last known here and may have moved. ", who);
	}
	switch (c & ~VCELL_VISIBLE) {
	case VCELL_WALL:
		put(&o, "A wall");
		break;
	case VCELL_FLOOR:
		put(&o, "Floor");
		break;
	default:
		put(&o, "Unknown: you have not seen this square");
		break;
	}
	if ((c & ~VCELL_VISIBLE) != VCELL_UNKNOWN)
		put(&o, seen ? ", in view" : ", remembered (out of view now)");
	if (!me)
		where(&o, v, x, y);
	put(&o, ".");
	if (v->potion[y][x]) {
		int a = v->potion[y][x] - 1;
		const char *word = appearance_name(a);
		if (seen)
			put(&o, " %s %s potion", state_article(word)[1] ? "An" : "A", word);
		else
			put(&o, " You saw %s %s potion here", state_article(word), word);
		if (v->kind_of[a] != POTION_NONE)
			put(&o, ": %s.", potion_name(v->kind_of[a]));
		else
			put(&o, ", not identified.");
	}
	/* The effects of the last update that touched this square (drawn as * a moment ago). */
	for (int k = 0; k < st->nfx; k++)
		if (st->fx[k].x == x && st->fx[k].y == y && st->fx[k].fx < FX_COUNT) {
			put(&o, " Struck by %s a moment ago.", fx_words[st->fx[k].fx]);
			break;
		}
	return o.at;
}
