/* SPDX-License-Identifier: MIT */
/* server/noleak: every byte the server sends one player over whole duels, decoded as a client would, never tells
 * that player anything it may not know: unseen cells, an unseen opponent, unseen potions, unidentified kinds,
 * the opponent's spells, inventory or unseen steps. Checked against the true game state as each frame leaves. */
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

struct watch {
	const struct conn *conn;
	int seat;
	struct pconn dec;
	struct view shadow, before;
	bool started;
	uint64_t bytes, frames, updates, starts, cells_checked;
};

struct noleak {
	struct th *t;
	struct watch w[2];
	struct events ev;       /* of the command being sent out now */
	bool have_ev;
	bool silent[PLAYERS];   /* this player must get no UPDATE for the command being sent */
	int violations;
	char first[300];
	struct netbot a, b;
	uint64_t unseen_steps;
};

static void __attribute__((format(printf, 2, 3)))
violation(struct noleak *nl, const char *fmt, ...)
{
	va_list ap;

	if (nl->violations++ == 0) {
		va_start(ap, fmt);
		vsnprintf(nl->first, sizeof nl->first, fmt, ap);
		va_end(ap);
	}
}

static struct watch *
watch_of(struct noleak *nl, const struct conn *c, int seat)
{
	for (int i = 0; i < 2; i++)
		if (nl->w[i].conn == c)
			return &nl->w[i];
	for (int i = 0; i < 2; i++)
		if (nl->w[i].conn == NULL) {
			nl->w[i].conn = c;
			nl->w[i].seat = seat;
			pconn_init(&nl->w[i].dec, PCONN_CLIENT);
			update_blank(&nl->w[i].shadow);
			return &nl->w[i];
		}
	return NULL;
}

/* What the decoded view holds must be what the player knows in the true state. */
static void
check_view(struct noleak *nl, struct watch *w, const struct game *g)
{
	const struct view *v = &w->shadow;
	int p = w->seat, size = g->level.size;
	const struct wizard *me = &g->wiz[p], *opp = &g->wiz[1 - p];
	struct view truth;

	view_build(g, p, &truth);
	if (!update_view_equal(v, &truth))
		violation(nl, "player %d: decoded view differs from view_build", p);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			int cell = v->cell[y][x] & ~VCELL_VISIBLE;
			w->cells_checked++;
			if (cell != VCELL_UNKNOWN && me->mem[y][x] == MEM_UNKNOWN)
				violation(nl, "player %d got cell %d,%d it never saw", p, x, y);
			if (cell == VCELL_WALL && me->mem[y][x] != MEM_WALL)
				violation(nl, "player %d: cell %d,%d as wall, remembered otherwise", p, x, y);
			if (cell == VCELL_FLOOR && me->mem[y][x] != MEM_FLOOR)
				violation(nl, "player %d: cell %d,%d as floor, remembered otherwise", p, x, y);
			if ((v->cell[y][x] & VCELL_VISIBLE) && !game_sees(g, p, x, y))
				violation(nl, "player %d: cell %d,%d marked visible, not in sight", p, x, y);
			if (v->potion[y][x] && v->potion[y][x] != me->memp[y][x])
				violation(nl, "player %d: potion at %d,%d it does not know of", p, x, y);
			if ((v->cell[y][x] & VCELL_VISIBLE) && v->potion[y][x] != g->potion[y][x])
				violation(nl, "player %d: potion in sight at %d,%d is wrong", p, x, y);
		}
	bool sees_opp = game_sees(g, p, opp->x, opp->y);
	if (v->opp_state == OPP_VISIBLE && (!sees_opp || v->opp_x != opp->x || v->opp_y != opp->y))
		violation(nl, "player %d: the opponent shown where it is not seen", p);
	if (v->opp_state != OPP_VISIBLE && v->opp_state != OPP_UNKNOWN &&
	    (v->opp_x != me->opp_x || v->opp_y != me->opp_y))
		violation(nl, "player %d: the opponent's position beyond what was seen or sensed", p);
	if (v->opp_state == OPP_UNKNOWN && (v->opp_x || v->opp_y))
		violation(nl, "player %d: coordinates for an unknown opponent", p);
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		if (v->kind_of[a] != POTION_NONE && (!(me->known & (1u << a)) || v->kind_of[a] != g->kind_of[a]))
			violation(nl, "player %d: kind of appearance %d not identified by it", p, a);
	if (v->ninv != me->ninv || memcmp(v->inv, me->inv, me->ninv) != 0)
		violation(nl, "player %d: inventory is not its own", p);
	for (int i = v->ninv; i < INV_MAX; i++)
		if (v->inv[i])
			violation(nl, "player %d: stray inventory bytes", p);
	if (g->turn != p || g->result != RESULT_NONE) {
		for (int i = 0; i < SPELL_OFFERED; i++)
			if (v->offered[i] != SPELL_NONE)
				violation(nl, "player %d: sees spells offered to the opponent", p);
		if (v->steps_left)
			violation(nl, "player %d: sees the opponent's steps", p);
	}
}

static void
check_update(struct noleak *nl, struct watch *w, const struct update *u, const struct game *g)
{
	int p = w->seat;

	if (nl->silent[p])
		violation(nl, "player %d: an UPDATE for a command it could not perceive", p);
	for (int i = 0; i < u->nmsg; i++) {
		bool found = false;
		for (int k = 0; nl->have_ev && k < nl->ev.nmsg; k++)
			if (nl->ev.msg[k].id == u->msg[i].id && (nl->ev.msg[k].to & (1u << p)))
				found = true;
		if (!found && u->msg[i].id != MSG_TIME_UP)
			violation(nl, "player %d: message %d not addressed to it", p, u->msg[i].id);
	}
	for (int i = 0; i < u->nfx; i++) {
		int x = u->fx[i].x, y = u->fx[i].y;
		if (!((w->before.cell[y][x] | w->shadow.cell[y][x]) & VCELL_VISIBLE))
			violation(nl, "player %d: effect at %d,%d out of its sight", p, x, y);
		if (!nl->have_ev || nl->ev.fx[y][x] != u->fx[i].id)
			violation(nl, "player %d: effect at %d,%d not in the events", p, x, y);
	}
	(void)g;
}

static void
tap(void *ud, const struct conn *c, int seat, const uint8_t *bytes, size_t n)
{
	struct noleak *nl = ud;
	struct gameroom *r = server_room(nl->t->srv, NULL);
	struct watch *w = watch_of(nl, c, seat);
	static struct wire_msg m;
	struct proto_err e;

	if (w == NULL)
		return;
	if (w->seat < 0)
		w->seat = seat;
	w->bytes += n;
	if (!w->dec.secure) {
		/* The clear CHALLENGE: from here on records, which this test reads with the key
		 * the server seals them with (looked up inside the server, as only a test may). */
		cr_assert(c->pc.secure);
		w->dec.secure = true;
		memcpy(w->dec.rx.k, c->pc.tx.k, sizeof w->dec.rx.k);
		w->dec.rx.n = 0;
		w->dec.rx.has_key = true;
		return;
	}
	for (size_t off = 0; off < n;) {
		off += pconn_feed(&w->dec, bytes + off, n - off);
		int rc;
		while ((rc = pconn_next(&w->dec, &m, &e)) == PROTO_DONE) {
			const struct game *g = room_game(r);
			w->frames++;
			switch (m.type) {
			case WIRE_START:
				update_blank(&w->shadow);
				cr_assert_eq(update_apply(&w->shadow, &m.u.start.view, &e), 0, "%s", e.why);
				w->started = true;
				w->starts++;
				check_view(nl, w, g);
				break;
			case WIRE_UPDATE:
				w->before = w->shadow;
				cr_assert_eq(update_apply(&w->shadow, &m.u.update, &e), 0, "%s", e.why);
				w->updates++;
				check_view(nl, w, g);
				check_update(nl, w, &m.u.update, g);
				break;
			case WIRE_END:
			case WIRE_LOG_CHUNK:
				if (g->result == RESULT_NONE)
					violation(nl, "END or log before the duel ended");
				break;
			default:
				break;
			}
		}
		cr_assert_neq(rc, PROTO_BROKEN, "the server's bytes do not decode: %s", e.why);
	}
}

static void
applied(void *ud, struct gameroom *r, int p, const struct cmd *c, const struct events *ev)
{
	struct noleak *nl = ud;
	const struct game *g = room_game(r);
	int o = 1 - p;

	(void)c;
	nl->ev = *ev;
	nl->have_ev = true;
	/* Would the other player perceive this command at all? */
	struct view now;
	view_build(g, o, &now);
	bool msgs = false, fx = false;
	for (int i = 0; i < ev->nmsg; i++)
		msgs |= (ev->msg[i].to & (1u << o)) != 0;
	for (int i = 0; i < 2; i++) {
		struct watch *w = &nl->w[i];
		if (w->conn == NULL || w->seat != o || !w->started)
			continue;
		for (int y = 0; ev->has_fx && y < g->level.size; y++)
			for (int x = 0; x < g->level.size; x++)
				if (ev->fx[y][x] && ((w->shadow.cell[y][x] | now.cell[y][x]) & VCELL_VISIBLE))
					fx = true;
		nl->silent[o] = !msgs && !fx && update_view_equal(&w->shadow, &now);
		nl->unseen_steps += nl->silent[o];
	}
	nl->silent[p] = false;
}

static bool
done(void *ud)
{
	struct noleak *nl = ud;
	return nl->a.closed && nl->b.closed;
}

static void
run_games(struct options opt, int games, uint64_t seed)
{
	static struct noleak nl;
	struct th t;
	struct server_config c;
	struct netbot_config ca, cb;

	memset(&nl, 0, sizeof nl);
	nl.t = &t;
	th_init(&t);
	th_config(&c);
	c.opt = opt;
	c.seed_fixed = true;
	c.seed = seed;
	c.hooks.ud = &nl;
	c.hooks.tap = tap;
	c.hooks.applied = applied;
	th_server(&t, &c);
	th_bot_config(&t, &ca, "watched", BOT_HARD, seed + 1, games);
	th_bot_config(&t, &cb, "other", BOT_NORMAL, seed + 2, games);
	th_bot(&t, &nl.a, &ca);
	th_bot(&t, &nl.b, &cb);
	th_run(&t, 120000, done, &nl);
	th_finish(&t);
	for (int i = 0; i < 2; i++)
		pconn_finish(&nl.w[i].dec);
	cr_expect_eq(nl.a.games, games);
	cr_expect_eq(nl.a.verified, games, "%s", nl.a.last_why);
	cr_expect_eq(nl.b.verified, games, "%s", nl.b.last_why);
	cr_assert_eq(nl.violations, 0, "%d violations; first: %s", nl.violations, nl.first);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(nl.w[i].starts, (uint64_t)games);
		cr_expect_gt(nl.w[i].updates, 10);
		cr_log_info("seat %d: %llu bytes, %llu frames, %llu updates, %llu cell checks", nl.w[i].seat,
		            (unsigned long long)nl.w[i].bytes, (unsigned long long)nl.w[i].frames,
		            (unsigned long long)nl.w[i].updates, (unsigned long long)nl.w[i].cells_checked);
	}
	if (opt.fov)
		cr_expect_gt(nl.unseen_steps, 0, "no unseen step was exercised");
}

Test(noleak, default_options)
{
	struct options o;
	options_default(&o);
	run_games(o, 4, 100);
}

Test(noleak, large_level)
{
	struct options o;
	options_default(&o);
	o.size = 51;
	run_games(o, 2, 200);
}

Test(noleak, small_no_potions)
{
	struct options o;
	options_default(&o);
	o.size = 15;
	o.potions = false;
	run_games(o, 4, 300);
}

Test(noleak, no_fov)
{
	struct options o;
	options_default(&o);
	o.fov = false;
	run_games(o, 2, 400);
}
