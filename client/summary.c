/* SPDX-License-Identifier: MIT */
/* summary: replays a finished duel's log for the end screen: the truth of the level and a few counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "turnlog.h"

struct tally {
	struct summary *s;
	int hp[PLAYERS];
};

static void
step_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct tally *t = ud;

	(void)ev;
	(void)lineno;
	if (p >= 0 && p < PLAYERS && c) {
		t->s->casts[p] += c->type == CMD_CAST;
		t->s->drunk[p] += c->type == CMD_DRINK || c->type == CMD_QUAFF;
		t->s->steps[p] += c->type == CMD_STEP;
	}
	for (int q = 0; q < PLAYERS; q++) {
		int d = g->wiz[q].hp - t->hp[q];
		if (d < 0)
			t->s->damage_taken[q] -= d;
		else
			t->s->healed[q] += d;
		t->hp[q] = g->wiz[q].hp;
	}
}

int
summary_from_log(const char *log, size_t len, struct summary *s, struct game *final)
{
	struct turnlog_replay *rp = malloc(sizeof *rp);
	struct tally t = { s, { WIZARD_HP, WIZARD_HP } };
	int rc = -1;

	memset(s, 0, sizeof *s);
	if (rp == NULL || log == NULL)
		goto out;
	if (turnlog_replay(log, len, rp, step_cb, &t) != 0)
		goto out;
	/* A duel ends inside a turn: the one it ended in counts. */
	s->turns = rp->game.turn_no + (rp->game.result != RESULT_NONE && rp->game.end_reason != END_TURN_LIMIT);
	if (final)
		*final = rp->game;
	rc = 0;
out:
	free(rp);
	return rc;
}

void
summary_reveal(const struct game *g, int p, struct view *v, uint8_t *opp_ninv, uint8_t opp_inv[INV_MAX])
{
	const struct wizard *o = &g->wiz[1 - p];

	view_build(g, p, v);
	for (int y = 0; y < g->level.size; y++)
		for (int x = 0; x < g->level.size; x++) {
			v->cell[y][x] = (uint8_t)((g->level.cell[y][x] == CELL_FLOOR ? VCELL_FLOOR : VCELL_WALL) | VCELL_VISIBLE);
			v->potion[y][x] = g->potion[y][x];
		}
	v->opp_state = OPP_VISIBLE;
	v->opp_x = o->x;
	v->opp_y = o->y;
	memcpy(v->kind_of, g->kind_of, sizeof v->kind_of);
	*opp_ninv = o->ninv;
	memcpy(opp_inv, o->inv, INV_MAX);
}

static int
plural(char *buf, size_t len, int n, const char *one, const char *many)
{
	return snprintf(buf, len, "%d %s", n, n == 1 ? one : many);
}

size_t
summary_text(const struct summary *s, int me, const char *const names[PLAYERS], char *buf, size_t len)
{
	size_t off = 0;
	char a[32], b[32], c[32], d[32];

	(void)a;
	int n;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	plural(a, sizeof a, (int)((s->turns + 1) / 2), "round", "rounds");
	plural(b, sizeof b, (int)s->turns, "turn", "turns");
	n = snprintf(buf, len, "%s (%s).", a, b);
	off = n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
	for (int k = 0; k < PLAYERS && off < len - 1; k++) {
		int p = k == 0 ? me : 1 - me; /* mine first */
		plural(c, sizeof c, s->casts[p], "spell", "spells");
		plural(d, sizeof d, s->drunk[p], "potion", "potions");
		n = snprintf(buf + off, len - off, " %s: lost %d HP, regained %d, cast %s, drank %s.", names[p],
		    s->damage_taken[p], s->healed[p], c, d);
		off += n < 0 ? 0 : (size_t)n >= len - off ? len - off - 1 : (size_t)n;
	}
	return off;
}
