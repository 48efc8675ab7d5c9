/* SPDX-License-Identifier: MIT */
/* game: the duel's state machine: set-up, validation, commands, spells, potions, turns, hash. */
#include <string.h>

#include "fov.h"
#include "internal.h"

#define DEMOLISH_RADIUS 2
#define ALTER_TRIES 32

/* Directions, indexed by numpad digit. */
static const int8_t ddx[10] = { 0, -1, 0, 1, -1, 0, 1, -1, 0, 1 };
static const int8_t ddy[10] = { 0, 1, 1, 1, 0, 0, 0, -1, -1, -1 };
static const uint8_t all_dirs[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };

bool
dir_valid(int d)
{
	return d >= 1 && d <= 9 && d != 5;
}

int
dir_dx(int d)
{
	return dir_valid(d) ? ddx[d] : 0;
}

int
dir_dy(int d)
{
	return dir_valid(d) ? ddy[d] : 0;
}

static const char *const dir_names[10] = { "", "south-west", "south", "south-east", "west", "", "east",
	"north-west", "north", "north-east" };

const char *
dir_name(int d)
{
	return dir_valid(d) ? dir_names[d] : "";
}

int
dir_toward(int dx, int dy)
{
	/* The numpad digit of the step (sign dx, sign dy): 5 + sx - 3 sy, y growing southwards. */
	int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
	return sx == 0 && sy == 0 ? DIR_NONE : 5 + sx - 3 * sy;
}

static const char *const cmd_names[CMD_COUNT] = {
#define X(id, name) name,
	CMD_LIST(X)
#undef X
};

const char *
cmd_name(int type)
{
	return type >= 0 && type < CMD_COUNT ? cmd_names[type] : "(unknown command)";
}

int
cmd_lookup(const char *name)
{
	for (int i = 0; i < CMD_COUNT; i++)
		if (name && strcmp(cmd_names[i], name) == 0)
			return i;
	return -1;
}

static const char *const err_texts[ERR_COUNT] = {
#define X(id, text) text,
	ERR_LIST(X)
#undef X
};

const char *
err_text(int err)
{
	return err >= 0 && err < ERR_COUNT ? err_texts[err] : "unknown error";
}

void
options_default(struct options *o)
{
	o->size = LEVEL_DEFAULT;
	o->fov = true;
	o->potions = true;
}

int
options_check(const struct options *o)
{
	if (o->size < LEVEL_MIN || o->size > LEVEL_MAX || o->size % 2 == 0)
		return ERR_BAD_SIZE;
	return ERR_OK;
}

/* ---- small shared helpers ---- */

void
game__say(struct events *ev, int to, int id, int a, int b)
{
	if (ev->nmsg >= EVENTS_MSG_MAX || to == 0)
		return;
	ev->msg[ev->nmsg++] = (struct msg){ (uint16_t)id, (uint8_t)to, (uint8_t)a, (uint8_t)b };
}

static int
other(int p)
{
	return 1 - p;
}

static int
cheb(int x0, int y0, int x1, int y1)
{
	int dx = x0 > x1 ? x0 - x1 : x1 - x0;
	int dy = y0 > y1 ? y0 - y1 : y1 - y0;
	return dx > dy ? dx : dy;
}

static bool
wizard_at(const struct game *g, int x, int y)
{
	for (int p = 0; p < PLAYERS; p++)
		if (g->wiz[p].x == x && g->wiz[p].y == y)
			return true;
	return false;
}

bool
game_sees(const struct game *g, int p, int x, int y)
{
	if (!level_in(&g->level, x, y))
		return false;
	if (!g->opt.fov)
		return true;
	return fov_los(&g->level, g->wiz[p].x, g->wiz[p].y, x, y, FOV_RADIUS);
}

/* Does the opponent of p see p where it stands now? Narration to an observer hangs on this alone. */
static bool
watched(const struct game *g, int p)
{
	return game_sees(g, other(p), g->wiz[p].x, g->wiz[p].y);
}

void
game__sense(struct game *g, int p, struct events *ev)
{
	struct wizard *w = &g->wiz[p];
	const struct wizard *o = &g->wiz[other(p)];

	w->opp_known = OPPMEM_SENSED;
	w->opp_x = o->x;
	w->opp_y = o->y;
	ev->sensed |= (uint8_t)game__bit(p);
}

/* The floor squares that `ok` accepts, in row-major order: what a random square is
 * drawn from. */
typedef bool (*square_ok)(const struct game *g, int x, int y);

struct squares {
	int n;
	uint16_t at[LEVEL_MAX * LEVEL_MAX]; /* y * LEVEL_MAX + x */
};

static void
squares_find(const struct game *g, square_ok ok, struct squares *s)
{
	int size = g->level.size;

	s->n = 0;
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			if (level_floor(&g->level, x, y) && ok(g, x, y))
				s->at[s->n++] = (uint16_t)(y * LEVEL_MAX + x);
}

/* Draw one of them uniformly, by index, so the number of draws does not depend on luck,
 * and take it off the list. Returns false when there is none. Placing potions one after
 * another takes them from one list: each draw then sees exactly the squares a fresh
 * squares_find() would, since the square just filled is the only one that changed. */
static bool
squares_take(struct game *g, struct squares *s, int *ox, int *oy)
{
	if (s->n == 0)
		return false;
	int k = (int)rng_below(&g->rng, (uint32_t)s->n);
	*ox = s->at[k] % LEVEL_MAX;
	*oy = s->at[k] / LEVEL_MAX;
	memmove(&s->at[k], &s->at[k + 1], (size_t)(s->n - k - 1) * sizeof s->at[0]);
	s->n--;
	return true;
}

static bool
random_square(struct game *g, square_ok ok, int *ox, int *oy)
{
	struct squares s;

	squares_find(g, ok, &s);
	return squares_take(g, &s, ox, oy);
}

static bool
free_of_wizards(const struct game *g, int x, int y)
{
	return !wizard_at(g, x, y);
}

static bool
free_for_potion(const struct game *g, int x, int y)
{
	return g->potion[y][x] == 0 && !wizard_at(g, x, y);
}

/* Update both wizards' memories with what they see now: the rule "each wizard
 * remembers what it has seen", applied after every change. What each sees is handed
 * out in ev->sight, so the views built after this command need not compute it again. */
static void
remember(struct game *g, struct events *ev)
{
	int size = g->level.size;

	for (int p = 0; p < PLAYERS; p++) {
		struct wizard *w = &g->wiz[p];
		const struct wizard *o = &g->wiz[other(p)];
		struct fov_sight *s = &ev->sight[p];

		if (g->opt.fov) {
			/* Only the square of sight can hold seen cells, so only it is walked. */
			fov_sight(&g->level, w->x, w->y, s);
			for (int j = 0; j < FOV_SIDE; j++)
				for (unsigned row = s->row[j]; row; row &= row - 1) {
					int x = s->x - FOV_RADIUS + __builtin_ctz(row), y = s->y - FOV_RADIUS + j;
					w->mem[y][x] = g->level.cell[y][x] == CELL_WALL ? MEM_WALL : MEM_FLOOR;
					w->memp[y][x] = g->potion[y][x];
				}
		} else {
			for (int y = 0; y < size; y++)
				for (int x = 0; x < size; x++) {
					w->mem[y][x] = g->level.cell[y][x] == CELL_WALL ? MEM_WALL : MEM_FLOOR;
					w->memp[y][x] = g->potion[y][x];
				}
		}
		if (game__seen(g, ev, p, o->x, o->y)) {
			w->opp_known = OPPMEM_REMEMBERED;
			w->opp_x = o->x;
			w->opp_y = o->y;
		} else if (w->opp_known == OPPMEM_REMEMBERED && game__seen(g, ev, p, w->opp_x, w->opp_y)) {
			/* Looking at the square where the opponent was shows it is gone. */
			w->opp_known = OPPMEM_NONE;
		}
	}
}

static void
settle(struct game *g, struct events *ev)
{
	bool dead0 = g->wiz[0].hp <= 0, dead1 = g->wiz[1].hp <= 0;

	if (g->result != RESULT_NONE || (!dead0 && !dead1))
		return;
	g->end_reason = END_KILLED;
	if (dead0 && dead1) {
		g->result = RESULT_DRAW;
		game__say(ev, 3, MSG_DRAW, 0, 0);
	} else {
		int winner = dead0 ? 1 : 0;
		g->result = (uint8_t)(winner == 0 ? RESULT_WIN0 : RESULT_WIN1);
		game__say(ev, game__bit(winner), MSG_YOU_WIN, 0, 0);
		game__say(ev, game__bit(other(winner)), MSG_YOU_LOSE, 0, 0);
	}
	ev->result = g->result;
}

static int
hurt(struct game *g, int victim, int element, int amount, struct events *ev)
{
	struct hmsg m = { HMSG_DAMAGE, (uint8_t)element, (int16_t)amount };
	return effect__send(g, victim, m, ev);
}

static int
heal(struct game *g, int who, int amount, struct events *ev)
{
	struct hmsg m = { HMSG_HEAL, 0, (int16_t)amount };
	return effect__send(g, who, m, ev);
}

static void
mark(struct events *ev, int x, int y, int fx)
{
	ev->fx[y][x] = (uint8_t)fx;
	ev->has_fx = true;
}

/* Damage the opponent if an effect marked its square; tell the caster how it went. */
static void
strike(struct game *g, int caster, int element, int fx, int hit_msg, int miss_msg, struct events *ev)
{
	const struct wizard *o = &g->wiz[other(caster)];

	if (ev->fx[o->y][o->x] != fx) {
		game__say(ev, game__bit(caster), miss_msg, 0, 0);
		return;
	}
	if (hurt(g, other(caster), element, 1, ev) > 0)
		game__say(ev, game__bit(caster), hit_msg, 0, 0);
	else
		game__say(ev, game__bit(caster), MSG_OPP_RESISTED, element, 0);
}

/* ---- spells: one function each, one row each in `casts` ---- */

typedef void (*cast_fn)(struct game *g, int caster, int dir, struct events *ev);

/* Rays of Cold: eight rays to the edge of the dungeon, through walls. */
static void
cast_cold(struct game *g, int caster, int dir, struct events *ev)
{
	const struct wizard *w = &g->wiz[caster];

	for (int i = 0; i < 8; i++) {
		int x = w->x + ddx[all_dirs[i]], y = w->y + ddy[all_dirs[i]];
		for (; level_in(&g->level, x, y); x += ddx[all_dirs[i]], y += ddy[all_dirs[i]])
			mark(ev, x, y, FX_COLD);
	}
	strike(g, caster, ELEMENT_COLD, FX_COLD, MSG_COLD_HIT, MSG_COLD_MISS, ev);
}

bool
game_in_cone(int fx, int fy, int ox, int oy)
{
	if (fx != 0 && fy != 0)
		return ox * fx >= 0 && oy * fy >= 0; /* diagonal: its quadrant */
	int fwd = ox * fx + oy * fy;
	int side = ox * fy - oy * fx;
	return fwd >= (side < 0 ? -side : side); /* orthogonal: forward at least as far as sideways */
}

/* Fire Storm: fire floods forward over the floor, 5 to 10 steps, within a 90-degree
 * cone of the chosen direction; walls stop it. */
static void
cast_fire(struct game *g, int caster, int dir, struct events *ev)
{
	const struct wizard *w = &g->wiz[caster];
	int reach = rng_range(&g->rng, FIRE_MIN, FIRE_MAX);
	uint8_t dist[LEVEL_MAX][LEVEL_MAX];
	uint8_t qx[LEVEL_MAX * LEVEL_MAX], qy[LEVEL_MAX * LEVEL_MAX];
	int head = 0, tail = 0;

	memset(dist, 0xff, sizeof dist);
	dist[w->y][w->x] = 0;
	qx[tail] = w->x;
	qy[tail++] = w->y;
	while (head < tail) {
		int x = qx[head], y = qy[head++];
		if (dist[y][x] >= reach)
			continue;
		for (int i = 0; i < 8; i++) {
			int nx = x + ddx[all_dirs[i]], ny = y + ddy[all_dirs[i]];
			if (!level_floor(&g->level, nx, ny) || dist[ny][nx] != 0xff)
				continue;
			if (!game_in_cone(ddx[dir], ddy[dir], nx - w->x, ny - w->y))
				continue;
			dist[ny][nx] = (uint8_t)(dist[y][x] + 1);
			mark(ev, nx, ny, FX_FIRE);
			qx[tail] = (uint8_t)nx;
			qy[tail++] = (uint8_t)ny;
		}
	}
	strike(g, caster, ELEMENT_FIRE, FX_FIRE, MSG_FIRE_HIT, MSG_FIRE_MISS, ev);
}

/* Lightning Bolts: north, west, south and east until a wall; the squares beside each
 * bolt are struck as well where they are floor. */
static void
cast_lightning(struct game *g, int caster, int dir, struct events *ev)
{
	static const uint8_t four[4] = { DIR_N, DIR_W, DIR_S, DIR_E };
	const struct wizard *w = &g->wiz[caster];

	for (int i = 0; i < 4; i++) {
		int fx = ddx[four[i]], fy = ddy[four[i]];
		for (int x = w->x + fx, y = w->y + fy; level_floor(&g->level, x, y); x += fx, y += fy) {
			mark(ev, x, y, FX_ELEC);
			for (int s = -1; s <= 1; s += 2) {
				int sx = x + s * fy, sy = y + s * fx;
				if (level_floor(&g->level, sx, sy))
					mark(ev, sx, sy, FX_ELEC);
			}
		}
	}
	strike(g, caster, ELEMENT_ELEC, FX_ELEC, MSG_BOLT_HIT, MSG_BOLT_MISS, ev);
	game__say(ev, game__bit(other(caster)), MSG_THUNDER, 0, 0);
}

static void
know_layout(struct game *g, int p)
{
	struct wizard *w = &g->wiz[p];
	int size = g->level.size;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			w->mem[y][x] = g->level.cell[y][x] == CELL_WALL ? MEM_WALL : MEM_FLOOR;
}

static void
forget_all(struct game *g, int p)
{
	struct wizard *w = &g->wiz[p];

	memset(w->mem, MEM_UNKNOWN, sizeof w->mem);
	memset(w->memp, 0, sizeof w->memp);
	w->opp_known = OPPMEM_NONE;
}

static void
cast_mapping(struct game *g, int caster, int dir, struct events *ev)
{
	know_layout(g, caster);
	game__say(ev, game__bit(caster), MSG_MAPPED, 0, 0);
}

/* The nearest floor square to (x, y) that holds no wizard, ring by ring, rows then columns
 * within a ring: no random draw, at most one pass over the level. */
static bool
nearest_free_floor(const struct game *g, int *px, int *py)
{
	int size = g->level.size, x0 = *px, y0 = *py;

	for (int r = 1; r < size; r++)
		for (int y = y0 - r; y <= y0 + r; y++)
			for (int x = x0 - r; x <= x0 + r; x++)
				if (cheb(x, y, x0, y0) == r && level_floor(&g->level, x, y) && !wizard_at(g, x, y)) {
					*px = x;
					*py = y;
					return true;
				}
	return false;
}

/* Alter Dungeon: new layouts until one has floor under both wizards, at most ALTER_TRIES;
 * the potions on the ground are scattered again over it. Where the last try has rock
 * under a wizard (0.1% of casts at 51x51; more when both stand at even x and y, where the
 * maze never carves), that wizard is pushed to the nearest free floor square and told so:
 * bounded, cheap, and never a silent move. */
static void
cast_alter(struct game *g, int caster, int dir, struct events *ev)
{
	struct level lv;
	struct level_rooms rooms;
	uint8_t ground[LEVEL_MAX * LEVEL_MAX];
	int n = 0, size = g->level.size;
	bool found = false;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			if (g->potion[y][x])
				ground[n++] = g->potion[y][x];
	/* A layout with rock under a wizard before its dead ends are pruned is given up
	 * there, unpruned (the draws are the same); the last try is always finished, since
	 * it is kept either way. */
	int wx[PLAYERS] = { g->wiz[0].x, g->wiz[1].x }, wy[PLAYERS] = { g->wiz[0].y, g->wiz[1].y };
	for (int t = 0; t < ALTER_TRIES && !found; t++) {
		if (level_generate_unless_wall(&lv, size, &g->rng, &rooms, t < ALTER_TRIES - 1 ? PLAYERS : 0, wx, wy) != 0)
			continue;
		found = level_floor(&lv, g->wiz[0].x, g->wiz[0].y) && level_floor(&lv, g->wiz[1].x, g->wiz[1].y);
	}
	g->level = lv;
	memset(g->potion, 0, sizeof g->potion);
	bool pushed[PLAYERS] = { false, false };
	for (int p = 0; p < PLAYERS && !found; p++) {
		struct wizard *w = &g->wiz[p];
		int x = w->x, y = w->y;
		if (!level_floor(&g->level, x, y) && nearest_free_floor(g, &x, &y)) {
			w->x = (uint8_t)x;
			w->y = (uint8_t)y;
			pushed[p] = true;
		}
	}
	struct squares free;
	squares_find(g, free_for_potion, &free);
	for (int i = 0; i < n; i++) {
		int x, y;
		if (!squares_take(g, &free, &x, &y))
			break;
		g->potion[y][x] = ground[i];
	}
	forget_all(g, other(caster));
	memset(g->wiz[caster].memp, 0, sizeof g->wiz[caster].memp);
	know_layout(g, caster);
	ev->layout_changed = true;
	ev->moved = pushed[0] || pushed[1];
	game__say(ev, game__bit(caster), MSG_ALTERED, 0, 0);
	game__say(ev, game__bit(other(caster)), MSG_ALTERED_OPP, 0, 0);
	for (int p = 0; p < PLAYERS; p++)
		if (pushed[p])
			game__say(ev, game__bit(p), MSG_ALTER_MOVED, 0, 0);
}

static void
cast_identify(struct game *g, int caster, int dir, struct events *ev)
{
	struct wizard *w = &g->wiz[caster];
	int n = 0;

	for (int i = 0; i < w->ninv; i++) {
		uint8_t bit = (uint8_t)(1u << w->inv[i]);
		if (!(w->known & bit)) {
			w->known |= bit;
			n++;
		}
	}
	if (n > 0)
		game__say(ev, game__bit(caster), MSG_IDENTIFIED_N, n, 0);
	else
		game__say(ev, game__bit(caster), MSG_IDENTIFY_NONE, 0, 0);
}

/* Item Detection: each potion on the ground is sensed with even odds ("some items"). */
static void
cast_itemdetect(struct game *g, int caster, int dir, struct events *ev)
{
	struct wizard *w = &g->wiz[caster];
	int n = 0, size = g->level.size;

	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			if (g->potion[y][x] && rng_chance(&g->rng, 1, 2)) {
				w->memp[y][x] = g->potion[y][x];
				w->mem[y][x] = MEM_FLOOR;
				n++;
			}
	if (n > 0)
		game__say(ev, game__bit(caster), MSG_ITEMS_SENSED, n, 0);
	else
		game__say(ev, game__bit(caster), MSG_ITEMS_NONE, 0, 0);
}

static void
cast_lifedetect(struct game *g, int caster, int dir, struct events *ev)
{
	game__sense(g, caster, ev);
	game__say(ev, game__bit(caster), MSG_LIFE_SENSED, 0, 0);
	game__say(ev, game__bit(other(caster)), MSG_WATCHED, 0, 0);
}

static void
cast_restore(struct game *g, int caster, int dir, struct events *ev)
{
	int n = heal(g, caster, 1, ev);

	if (n > 0)
		game__say(ev, game__bit(caster), MSG_RESTORED, n, 0);
	else
		game__say(ev, game__bit(caster), MSG_FULL_HP, 0, 0);
}

/* Take Life: one hit point from an opponent in sight, to the caster. Drain has no resistance. */
static void
cast_takelife(struct game *g, int caster, int dir, struct events *ev)
{
	const struct wizard *o = &g->wiz[other(caster)];

	if (!game_sees(g, caster, o->x, o->y)) {
		game__say(ev, game__bit(caster), MSG_TAKELIFE_FAIL, 0, 0);
		return;
	}
	mark(ev, o->x, o->y, FX_MAGIC);
	if (hurt(g, other(caster), ELEMENT_DRAIN, 1, ev) > 0) {
		heal(g, caster, 1, ev);
		game__say(ev, game__bit(caster), MSG_TOOK_LIFE, 0, 0);
		game__say(ev, game__bit(other(caster)), MSG_SOUL_TAKEN, 0, 0);
	}
}

/* Mirror Earth: the level, its potions and both wizards flip; the caster knows the new
 * layout, the opponent forgets all it knew. */
static void
cast_mirror(struct game *g, int caster, int dir, struct events *ev)
{
	int how = rng_range(&g->rng, MIRROR_H, MIRROR_BOTH), size = g->level.size;
	struct wizard *c = &g->wiz[caster];

	level_mirror_grid(g->level.cell, size, how);
	level_mirror_grid(g->potion, size, how);
	level_mirror_grid(c->memp, size, how);
	for (int p = 0; p < PLAYERS; p++) {
		int x = g->wiz[p].x, y = g->wiz[p].y;
		level_mirror_point(size, how, &x, &y);
		g->wiz[p].x = (uint8_t)x;
		g->wiz[p].y = (uint8_t)y;
	}
	if (c->opp_known) {
		int x = c->opp_x, y = c->opp_y;
		level_mirror_point(size, how, &x, &y);
		c->opp_x = (uint8_t)x;
		c->opp_y = (uint8_t)y;
	}
	know_layout(g, caster);
	forget_all(g, other(caster));
	ev->layout_changed = true;
	ev->moved = true;
	game__say(ev, game__bit(caster), MSG_MIRRORED, 0, 0);
	game__say(ev, game__bit(other(caster)), MSG_MIRRORED_OPP, 0, 0);
}

static void cast_spell(struct game *g, int caster, int spell, int dir, struct events *ev);

/* Random: any other spell, negative ones included; a direction is drawn if it needs one. */
static void
cast_random(struct game *g, int caster, int dir, struct events *ev)
{
	int spell = (int)rng_below(&g->rng, SPELL_COUNT - 1);

	if (spell >= SPELL_RANDOM)
		spell++;
	if (spell_takes_dir(spell))
		dir = all_dirs[rng_below(&g->rng, 8)];
	else
		dir = DIR_NONE;
	game__say(ev, game__bit(caster), MSG_RANDOM_IS, spell, 0);
	cast_spell(g, caster, spell, dir, ev);
}

static bool
touches_floor(const struct level *lv, int x, int y)
{
	for (int i = 0; i < 8; i++)
		if (level_floor(lv, x + ddx[all_dirs[i]], y + ddy[all_dirs[i]]))
			return true;
	return false;
}

static void
rock_destroyed(struct game *g, int caster, int n, int msg, struct events *ev)
{
	if (n == 0) {
		game__say(ev, game__bit(caster), MSG_NOTHING_HAPPENS, 0, 0);
		return;
	}
	ev->layout_changed = true;
	game__say(ev, game__bit(caster), msg, n, 0);
	game__say(ev, game__bit(other(caster)), MSG_HEAR_ROCK, 0, 0);
}

/* Demolition: each wall within two squares crumbles with even odds, nearest ring first,
 * and only where it touches floor, so no unreachable pocket of floor is ever made. */
static void
cast_demolish(struct game *g, int caster, int dir, struct events *ev)
{
	const struct wizard *w = &g->wiz[caster];
	int n = 0;

	for (int r = 1; r <= DEMOLISH_RADIUS; r++)
		for (int y = w->y - r; y <= w->y + r; y++)
			for (int x = w->x - r; x <= w->x + r; x++) {
				if (cheb(x, y, w->x, w->y) != r || !level_in(&g->level, x, y))
					continue;
				if (level_edge(&g->level, x, y) || g->level.cell[y][x] != CELL_WALL)
					continue;
				if (!rng_chance(&g->rng, 1, 2) || !touches_floor(&g->level, x, y))
					continue;
				g->level.cell[y][x] = CELL_FLOOR;
				mark(ev, x, y, FX_MAGIC);
				n++;
			}
	rock_destroyed(g, caster, n, MSG_DEMOLISHED, ev);
}

/* Navigate: straight passages north, west, south and east to the edge. */
static void
cast_navigate(struct game *g, int caster, int dir, struct events *ev)
{
	static const uint8_t four[4] = { DIR_N, DIR_W, DIR_S, DIR_E };
	const struct wizard *w = &g->wiz[caster];
	int n = 0;

	for (int i = 0; i < 4; i++)
		for (int x = w->x + ddx[four[i]], y = w->y + ddy[four[i]]; !level_edge(&g->level, x, y);
		    x += ddx[four[i]], y += ddy[four[i]]) {
			if (g->level.cell[y][x] == CELL_WALL) {
				g->level.cell[y][x] = CELL_FLOOR;
				mark(ev, x, y, FX_MAGIC);
				n++;
			}
		}
	rock_destroyed(g, caster, n, MSG_NAVIGATED, ev);
}

static void
cast_create(struct game *g, int caster, int dir, struct events *ev)
{
	int want = rng_range(&g->rng, 1, 3), n = 0;

	if (!g->opt.potions) {
		game__say(ev, game__bit(caster), MSG_NOTHING_HAPPENS, 0, 0);
		return;
	}
	struct squares free;
	squares_find(g, free_for_potion, &free);
	for (; n < want; n++) {
		int x, y;
		if (!squares_take(g, &free, &x, &y))
			break;
		g->potion[y][x] = (uint8_t)(1 + rng_below(&g->rng, APPEARANCE_COUNT));
	}
	game__say(ev, game__bit(caster), n ? MSG_CREATED : MSG_NOTHING_HAPPENS, n, 0);
}

static void
teleport(struct game *g, int p, struct events *ev)
{
	struct wizard *w = &g->wiz[p];
	int x, y;

	mark(ev, w->x, w->y, FX_MAGIC);
	if (random_square(g, free_of_wizards, &x, &y)) {
		w->x = (uint8_t)x;
		w->y = (uint8_t)y;
	}
	ev->moved = true;
}

static void
cast_blink(struct game *g, int caster, int dir, struct events *ev)
{
	teleport(g, caster, ev);
	game__say(ev, game__bit(caster), MSG_BLINKED, 0, 0);
}

static void
cast_blinkall(struct game *g, int caster, int dir, struct events *ev)
{
	teleport(g, caster, ev);
	teleport(g, other(caster), ev);
	game__say(ev, game__bit(caster), MSG_BLINKED_ALL, 0, 0);
	game__say(ev, game__bit(other(caster)), MSG_TELEPORTED, 0, 0);
}

/* Each potion in `w`'s pack shatters with odds num/den; returns how many did. */
static int
shatter_pack(struct game *g, struct wizard *w, uint32_t num, uint32_t den)
{
	int kept = 0, lost = 0;

	for (int i = 0; i < w->ninv; i++) {
		if (rng_chance(&g->rng, num, den))
			lost++;
		else
			w->inv[kept++] = w->inv[i];
	}
	w->ninv = (uint8_t)kept;
	return lost;
}

/* Scream: a sonic boom of radius 4. Potions on the ground within it shatter with even
 * odds, the caster's own with odds 1/3, the opponent's with even odds if within it.
 * The caster is told how many of the shattered ground potions it saw: one out of its
 * sight would otherwise betray a potion it could not know of. */
static void
cast_scream(struct game *g, int caster, int dir, struct events *ev)
{
	struct wizard *w = &g->wiz[caster], *o = &g->wiz[other(caster)];
	int n = 0, lost;

	for (int y = w->y - SCREAM_RADIUS; y <= w->y + SCREAM_RADIUS; y++)
		for (int x = w->x - SCREAM_RADIUS; x <= w->x + SCREAM_RADIUS; x++) {
			if (!level_in(&g->level, x, y))
				continue;
			mark(ev, x, y, FX_SONIC);
			if (g->potion[y][x] && rng_chance(&g->rng, 1, 2)) {
				g->potion[y][x] = 0;
				n += game_sees(g, caster, x, y);
			}
		}
	game__say(ev, game__bit(caster), MSG_SCREAMED, n, 0);
	if ((lost = shatter_pack(g, w, 1, 3)) > 0)
		game__say(ev, game__bit(caster), MSG_SHATTERED, lost, 0);
	if (cheb(w->x, w->y, o->x, o->y) <= SCREAM_RADIUS) {
		game__say(ev, game__bit(other(caster)), MSG_SCREAM_NEAR, 0, 0);
		if ((lost = shatter_pack(g, o, 1, 2)) > 0)
			game__say(ev, game__bit(other(caster)), MSG_SHATTERED, lost, 0);
	} else {
		game__say(ev, game__bit(other(caster)), MSG_SCREAM_FAR, 0, 0);
	}
}

/* Forgetfulness: each remembered square out of sight is forgotten with even odds. */
static void
cast_forget(struct game *g, int caster, int dir, struct events *ev)
{
	struct wizard *w = &g->wiz[caster];
	struct fov_sight s;
	int size = g->level.size;

	/* What the caster sees now, once, rather than a line of sight per remembered square.
	 * The memory update at the end of the command computes it again: by then the turn's
	 * end may have moved the wizards or changed the level, so this one is not reused. */
	if (g->opt.fov)
		fov_sight(&g->level, w->x, w->y, &s);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++) {
			if (w->mem[y][x] == MEM_UNKNOWN || !g->opt.fov || fov_seen(&s, x, y))
				continue;
			if (rng_chance(&g->rng, 1, 2)) {
				w->mem[y][x] = MEM_UNKNOWN;
				w->memp[y][x] = 0;
			}
		}
	if (w->opp_known && g->opt.fov && !fov_seen(&s, w->opp_x, w->opp_y))
		w->opp_known = OPPMEM_NONE;
	game__say(ev, game__bit(caster), MSG_FORGOT, 0, 0);
}

/* Acid Rain: 1 acid damage on the caster's square and the eight around it. */
static void
cast_acidrain(struct game *g, int caster, int dir, struct events *ev)
{
	const struct wizard *w = &g->wiz[caster], *o = &g->wiz[other(caster)];

	for (int y = w->y - 1; y <= w->y + 1; y++)
		for (int x = w->x - 1; x <= w->x + 1; x++)
			if (level_in(&g->level, x, y))
				mark(ev, x, y, FX_ACID);
	game__say(ev, game__bit(caster), MSG_ACID_RAINS, 0, 0);
	game__say(ev, game__bit(other(caster)), MSG_HEAR_RAIN, 0, 0);
	hurt(g, caster, ELEMENT_ACID, 1, ev);
	if (cheb(w->x, w->y, o->x, o->y) > 1)
		return;
	/* Told like every other damage spell: hit, or resisted. */
	if (hurt(g, other(caster), ELEMENT_ACID, 1, ev) > 0)
		game__say(ev, game__bit(caster), MSG_ACID_HIT, 0, 0);
	else
		game__say(ev, game__bit(caster), MSG_OPP_RESISTED, ELEMENT_ACID, 0);
}

static const cast_fn casts[SPELL_COUNT] = {
	[SPELL_COLD] = cast_cold,
	[SPELL_FIRE] = cast_fire,
	[SPELL_LIGHTNING] = cast_lightning,
	[SPELL_MAPPING] = cast_mapping,
	[SPELL_ALTER] = cast_alter,
	[SPELL_IDENTIFY] = cast_identify,
	[SPELL_ITEMDETECT] = cast_itemdetect,
	[SPELL_LIFEDETECT] = cast_lifedetect,
	[SPELL_RESTORE] = cast_restore,
	[SPELL_TAKELIFE] = cast_takelife,
	[SPELL_MIRROR] = cast_mirror,
	[SPELL_RANDOM] = cast_random,
	[SPELL_DEMOLISH] = cast_demolish,
	[SPELL_NAVIGATE] = cast_navigate,
	[SPELL_CREATE] = cast_create,
	[SPELL_BLINK] = cast_blink,
	[SPELL_BLINKALL] = cast_blinkall,
	[SPELL_SCREAM] = cast_scream,
	[SPELL_FORGET] = cast_forget,
	[SPELL_ACIDRAIN] = cast_acidrain,
};

static void
cast_spell(struct game *g, int caster, int spell, int dir, struct events *ev)
{
	ev->spell = (uint8_t)spell; /* Random's inner cast comes later and wins: its effect is what shows */
	casts[spell](g, caster, dir, ev);
}

/* ---- potions: one function per kind of effect ---- */

typedef void (*drink_fn)(struct game *g, int p, const struct potion_info *pi, struct events *ev);

static void
drink_heal(struct game *g, int p, const struct potion_info *pi, struct events *ev)
{
	int n = heal(g, p, pi->arg, ev);

	game__say(ev, game__bit(p), n ? MSG_RESTORED : MSG_FULL_HP, n, 0);
}

static void
drink_harm(struct game *g, int p, const struct potion_info *pi, struct events *ev)
{
	hurt(g, p, ELEMENT_POISON, pi->arg, ev);
}

static void
drink_intrinsic(struct game *g, int p, const struct potion_info *pi, struct events *ev)
{
	effect__link(g, p, pi->arg, pi->turns, ev);
}

static void
drink_spell(struct game *g, int p, const struct potion_info *pi, struct events *ev)
{
	int dir = spell_takes_dir(pi->arg) ? all_dirs[rng_below(&g->rng, 8)] : DIR_NONE;

	cast_spell(g, p, pi->arg, dir, ev);
}

static const drink_fn drinks[] = {
	[PEFFECT_HEAL] = drink_heal,
	[PEFFECT_HARM] = drink_harm,
	[PEFFECT_INTRINSIC] = drink_intrinsic,
	[PEFFECT_SPELL] = drink_spell,
};

/* Drinking identifies the kind for the drinker, then it acts. */
static void
drink(struct game *g, int p, int appearance, struct events *ev)
{
	const struct potion_info *pi = potion_info(g->kind_of[appearance]);

	g->wiz[p].known |= (uint8_t)(1u << appearance);
	if (watched(g, p))
		game__say(ev, game__bit(other(p)), MSG_OPP_DRINKS, appearance, 0);
	game__say(ev, game__bit(p), MSG_DRANK, appearance, 0);
	game__say(ev, game__bit(p), MSG_IT_WAS, g->kind_of[appearance], 0);
	drinks[pi->effect](g, p, pi, ev);
}

/* ---- turns ---- */

static bool
offerable(const struct game *g, int spell)
{
	if (spell_class_of(spell) == SPELL_NEGATIVE)
		return false;
	/* Without potions these three could only ever say "nothing happens". */
	if (!g->opt.potions && (spell == SPELL_CREATE || spell == SPELL_IDENTIFY || spell == SPELL_ITEMDETECT))
		return false;
	/* Without FoV every wizard already sees the whole level, its potions and the other wizard. */
	if (!g->opt.fov && (spell == SPELL_MAPPING || spell == SPELL_LIFEDETECT || spell == SPELL_ITEMDETECT))
		return false;
	return true;
}

/* How often each offerable spell is drawn, in tickets: every spell OFFER_TICKETS but those
 * listed here. The plan fixes what each spell does, not how often it is offered. At even odds
 * a hard bot never offered Take Life won only 20% against one that was, so it holds one ticket
 * in three; then one never offered Restoration won only 28%, so it holds two (docs/rules.md,
 * "What each spell and potion is worth": no spell's absence may move hard against hard more
 * than 20 points). */
#define OFFER_TICKETS 3
static const struct {
	uint8_t spell, tickets;
} offer_rare[] = {
	{ SPELL_TAKELIFE, 1 },
	{ SPELL_RESTORE, 2 },
};

int
game_offer_tickets(int spell)
{
	for (size_t i = 0; i < sizeof offer_rare / sizeof offer_rare[0]; i++)
		if (offer_rare[i].spell == spell)
			return offer_rare[i].tickets;
	return OFFER_TICKETS;
}

/* Three distinct spells, each draw by tickets among those not drawn yet (one rng_below()
 * a slot, as before the weights). */
void
game_draw_offer(struct game *g)
{
	uint8_t pool[SPELL_COUNT];
	int n = 0, total = 0;

	for (int s = 0; s < SPELL_COUNT; s++)
		if (offerable(g, s)) {
			pool[n++] = (uint8_t)s;
			total += game_offer_tickets(s);
		}
	for (int i = 0; i < SPELL_OFFERED; i++) {
		int t = (int)rng_below(&g->rng, (uint32_t)total), j = i;
		while (t >= game_offer_tickets(pool[j]))
			t -= game_offer_tickets(pool[j++]);
		uint8_t s = pool[j];
		pool[j] = pool[i];
		pool[i] = s;
		total -= game_offer_tickets(s);
		g->offered[i] = s;
	}
}

static void
turn_start(struct game *g, struct events *ev)
{
	struct wizard *w = &g->wiz[g->turn];
	struct hmsg m = { HMSG_TURN_START, 0, STEPS_PER_TURN };

	/* What was sensed last turn may be stale now. */
	if (w->opp_known == OPPMEM_SENSED)
		w->opp_known = OPPMEM_REMEMBERED;
	effect__send(g, g->turn, m, ev);
	/* The end phase: nobody can hide any more, so the duel is decided before the limit. */
	if (g->turn_no >= game_end_phase(g->opt.size)) {
		if (g->turn_no < game_end_phase(g->opt.size) + PLAYERS)
			game__say(ev, game__bit(g->turn), MSG_END_PHASE, 0, 0);
		game__sense(g, g->turn, ev);
	}
	game_draw_offer(g);
}

uint32_t
game_end_phase(int size)
{
	return (uint32_t)(END_PHASE_PER_SIDE * size);
}

/* At the limit the wizard with more HP wins, so that the one behind gains nothing by
 * stalling; equal HP is a draw. */
static void
turn_limit(struct game *g, struct events *ev)
{
	int hp0 = g->wiz[0].hp, hp1 = g->wiz[1].hp;

	g->end_reason = END_TURN_LIMIT;
	if (hp0 == hp1) {
		g->result = RESULT_DRAW;
		/* No count in the message: TURN_LIMIT does not fit its byte, and a clamped
		 * count told the players "255 turns have passed" after 1000. */
		game__say(ev, 3, MSG_TURN_LIMIT, 0, 0);
	} else {
		int winner = hp0 > hp1 ? 0 : 1;
		const struct wizard *w = &g->wiz[winner], *o = &g->wiz[other(winner)];
		g->result = (uint8_t)(winner == 0 ? RESULT_WIN0 : RESULT_WIN1);
		game__say(ev, game__bit(winner), MSG_LIMIT_WIN, w->hp, o->hp);
		game__say(ev, game__bit(other(winner)), MSG_LIMIT_LOSE, o->hp, w->hp);
	}
	ev->result = g->result;
}

static void
turn_end(struct game *g, struct events *ev)
{
	struct hmsg m = { HMSG_TURN_END, 0, 0 };

	effect__send(g, g->turn, m, ev);
	ev->turn_ended = true;
	settle(g, ev);
	if (g->result != RESULT_NONE)
		return;
	g->turn_no++;
	if (g->turn_no >= TURN_LIMIT) {
		turn_limit(g, ev);
		return;
	}
	g->turn = (uint8_t)other(g->turn);
	turn_start(g, ev);
	settle(g, ev);
}

/* ---- commands: validation first, then one function per command type ---- */

typedef void (*do_fn)(struct game *g, int p, const struct cmd *c, struct events *ev);

static void
do_step(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	struct wizard *w = &g->wiz[p];

	w->x = (uint8_t)(w->x + ddx[c->dir]);
	w->y = (uint8_t)(w->y + ddy[c->dir]);
	g->steps_left--;
	ev->moved = true;
}

/* Did the observer see any square the last cast marked with an effect? The server shows an
 * effect on squares seen before or after the command; naming the spell needs only one of them,
 * seen after (a subset of what it was shown). */
static bool
effect_seen(const struct game *g, int observer, const struct events *ev)
{
	if (!ev->has_fx)
		return false;
	for (int y = 0; y < g->level.size; y++)
		for (int x = 0; x < g->level.size; x++)
			if (ev->fx[y][x] && game_sees(g, observer, x, y))
				return true;
	return false;
}

static void
do_cast(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	int spell = g->offered[c->arg];
	bool seen = watched(g, p);
	int at;

	game__say(ev, game__bit(p), MSG_CAST, spell, 0);
	/* The observer's line goes before the effects' own messages ("You are hurt..."); its
	 * argument is known only once the spell has acted, so the slot is kept and filled after. */
	at = ev->nmsg;
	if (seen)
		game__say(ev, game__bit(other(p)), MSG_OPP_CASTS, 0, 0);
	cast_spell(g, p, spell, c->dir, ev);
	if (seen && at < ev->nmsg && effect_seen(g, other(p), ev))
		ev->msg[at] = (struct msg){ MSG_OPP_CASTS_SEEN, (uint8_t)game__bit(other(p)), ev->spell, 0 };
	settle(g, ev);
}

static void
do_drink(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	struct wizard *w = &g->wiz[p];
	int a = g->potion[w->y][w->x] - 1;

	g->potion[w->y][w->x] = 0;
	drink(g, p, a, ev);
	settle(g, ev);
}

static void
do_quaff(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	struct wizard *w = &g->wiz[p];
	int a = w->inv[c->arg];

	for (int i = c->arg; i + 1 < w->ninv; i++)
		w->inv[i] = w->inv[i + 1];
	w->ninv--;
	drink(g, p, a, ev);
	settle(g, ev);
}

static void
do_pickup(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	struct wizard *w = &g->wiz[p];
	int a = g->potion[w->y][w->x] - 1;

	g->potion[w->y][w->x] = 0;
	w->inv[w->ninv++] = (uint8_t)a;
	game__say(ev, game__bit(p), MSG_PICKED_UP, a, 0);
	if (watched(g, p))
		game__say(ev, game__bit(other(p)), MSG_OPP_PICKS_UP, a, 0);
}

static void
do_pass(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	game__say(ev, game__bit(p), MSG_WAITED, 0, 0);
}

static void
do_resign(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	g->result = (uint8_t)(p == 0 ? RESULT_WIN1 : RESULT_WIN0);
	g->end_reason = END_RESIGNED;
	ev->result = g->result;
	game__say(ev, game__bit(p), MSG_YOU_RESIGNED, 0, 0);
	game__say(ev, game__bit(other(p)), MSG_OPP_RESIGNED, 0, 0);
}

static const struct {
	do_fn fn;
	bool ends_turn;
} doers[CMD_COUNT] = {
	[CMD_STEP] = { do_step, false },
	[CMD_CAST] = { do_cast, true },
	[CMD_DRINK] = { do_drink, true },
	[CMD_QUAFF] = { do_quaff, true },
	[CMD_PICKUP] = { do_pickup, true },
	[CMD_PASS] = { do_pass, true },
	[CMD_RESIGN] = { do_resign, false },
};

/* A command with neither argument nor direction must carry zeros in both: a strict
 * decoder of the log and of the wire is simpler when the rules are strict too. */
static int
check_bare(const struct cmd *c)
{
	if (c->dir != DIR_NONE)
		return ERR_NO_DIRECTION;
	if (c->arg != 0)
		return ERR_STRAY_ARGUMENT;
	return ERR_OK;
}

int
game_check(const struct game *g, int p, const struct cmd *c)
{
	const struct wizard *w;

	if (g->result != RESULT_NONE)
		return ERR_GAME_OVER;
	if (p < 0 || p >= PLAYERS)
		return ERR_BAD_PLAYER;
	if (c->type >= CMD_COUNT)
		return ERR_BAD_COMMAND;
	if (c->type == CMD_RESIGN)
		return check_bare(c);
	if (g->turn != p)
		return ERR_NOT_YOUR_TURN;
	w = &g->wiz[p];
	switch (c->type) {
	case CMD_STEP: {
		if (c->arg != 0)
			return ERR_STRAY_ARGUMENT;
		if (!dir_valid(c->dir))
			return ERR_BAD_DIRECTION;
		if (g->steps_left == 0)
			return ERR_NO_STEPS;
		int x = w->x + ddx[c->dir], y = w->y + ddy[c->dir];
		if (!level_floor(&g->level, x, y))
			return ERR_BLOCKED;
		if (g->wiz[other(p)].x == x && g->wiz[other(p)].y == y)
			return ERR_OCCUPIED;
		return ERR_OK;
	}
	case CMD_CAST:
		if (c->arg >= SPELL_OFFERED)
			return ERR_BAD_SPELL;
		if (spell_takes_dir(g->offered[c->arg]))
			return c->dir == DIR_NONE ? ERR_NEEDS_DIRECTION : dir_valid(c->dir) ? ERR_OK : ERR_BAD_DIRECTION;
		return c->dir == DIR_NONE ? ERR_OK : ERR_NO_DIRECTION;
	case CMD_DRINK:
	case CMD_PICKUP: {
		int bare = check_bare(c);
		if (bare != ERR_OK)
			return bare;
		if (g->potion[w->y][w->x] == 0)
			return ERR_NO_POTION_HERE;
		if (c->type == CMD_PICKUP && w->ninv >= INV_MAX)
			return ERR_INVENTORY_FULL;
		return ERR_OK;
	}
	case CMD_QUAFF:
		if (c->dir != DIR_NONE)
			return ERR_NO_DIRECTION;
		return c->arg < w->ninv ? ERR_OK : ERR_BAD_SLOT;
	default:
		return check_bare(c);
	}
}

int
game_apply(struct game *g, int p, const struct cmd *c, struct events *ev)
{
	struct events scratch;
	int err = game_check(g, p, c);

	if (err != ERR_OK)
		return err;
	if (ev == NULL)
		ev = &scratch;
	memset(ev, 0, sizeof *ev);
	doers[c->type].fn(g, p, c, ev);
	if (doers[c->type].ends_turn && g->result == RESULT_NONE)
		turn_end(g, ev);
	ev->result = g->result;
	remember(g, ev);
	return ERR_OK;
}

/* ---- set-up ---- */

/* Bind five of the kinds a duel draws (potion_drawn()) to the five appearances: a partial
 * Fisher-Yates shuffle of them, in the rules' order. */
static void
bind_kinds(struct game *g)
{
	uint8_t pool[POTION_KIND_COUNT];
	int n = 0;

	for (int k = 0; k < POTION_KIND_COUNT; k++)
		if (potion_drawn(k))
			pool[n++] = (uint8_t)k;
	for (int i = 0; i < APPEARANCE_COUNT; i++) {
		int j = i + (int)rng_below(&g->rng, (uint32_t)(n - i));
		uint8_t t = pool[i];
		pool[i] = pool[j];
		pool[j] = t;
		g->kind_of[i] = pool[i];
	}
}

static void
place_in_room(struct game *g, const struct room *r, struct wizard *w)
{
	w->x = (uint8_t)(r->x + (int)rng_below(&g->rng, r->w));
	w->y = (uint8_t)(r->y + (int)rng_below(&g->rng, r->h));
}

int
game_init(struct game *g, const struct options *o, uint64_t seed)
{
	struct level_rooms rooms;
	struct events ev;
	int err = options_check(o);

	if (err != ERR_OK)
		return err;
	memset(g, 0, sizeof *g);
	memset(&ev, 0, sizeof ev);
	g->opt = *o;
	g->seed = seed;
	rng_seed(&g->rng, seed);
	if (level_generate(&g->level, o->size, &g->rng, &rooms) != 0 || rooms.n < 2)
		return ERR_BAD_SIZE;
	bind_kinds(g);

	/* Two different rooms; each wizard on a random square of its own. */
	int r0 = (int)rng_below(&g->rng, (uint32_t)rooms.n);
	int r1 = (int)rng_below(&g->rng, (uint32_t)(rooms.n - 1));
	if (r1 >= r0)
		r1++;
	place_in_room(g, &rooms.room[r0], &g->wiz[0]);
	place_in_room(g, &rooms.room[r1], &g->wiz[1]);
	for (int p = 0; p < PLAYERS; p++) {
		g->wiz[p].hp = WIZARD_HP;
		g->wiz[p].opp_x = g->wiz[p].opp_y = 0;
	}

	if (o->potions) {
		int n = level_floor_count(&g->level) / POTION_DIVISOR;
		if (n < 1)
			n = 1;
		struct squares free;
		squares_find(g, free_for_potion, &free);
		for (int i = 0; i < n; i++) {
			int x, y;
			if (!squares_take(g, &free, &x, &y))
				break;
			g->potion[y][x] = (uint8_t)(1 + rng_below(&g->rng, APPEARANCE_COUNT));
		}
		for (int p = 0; p < PLAYERS; p++) {
			struct wizard *w = &g->wiz[p];
			int a = (int)rng_below(&g->rng, APPEARANCE_COUNT);
			int b = (int)rng_below(&g->rng, APPEARANCE_COUNT - 1);
			if (b >= a)
				b++;
			w->inv[0] = (uint8_t)a;
			w->inv[1] = (uint8_t)b;
			w->ninv = START_POTIONS;
			w->known = (uint8_t)((1u << a) | (1u << b));
		}
	}
	g->first = (uint8_t)rng_below(&g->rng, PLAYERS);
	g->turn = g->first;
	turn_start(g, &ev);
	remember(g, &ev);
	return ERR_OK;
}

/* ---- hash ---- */

struct fnv {
	uint64_t h;
};

static void
fnv_bytes(struct fnv *f, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		f->h ^= b[i];
		f->h *= 0x100000001b3ULL;
	}
}

static void
fnv_u64(struct fnv *f, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	fnv_bytes(f, b, 8);
}

/* FNV-1a's prime to the 8th power: eight zero bytes hashed, (h ^ 0) * P eight times. */
#define FNV_PRIME8 0x1efac7090aef4a21ULL

/* The same FNV-1a over each row, a word of 8 cells at a time: a word of zeros (a wall's
 * run, the potions and what is not yet remembered: most of a turn's 3 KB) is one multiply
 * by P^8, any other word 8 steps unrolled. The value is fnv_bytes's, byte for byte
 * (tests/common/test_rules.c compares them): it is in every turn log. */
static void
fnv_grid(struct fnv *f, const uint8_t grid[LEVEL_MAX][LEVEL_MAX], int size)
{
	uint64_t h = f->h;

	for (int y = 0; y < size; y++) {
		const uint8_t *row = grid[y];
		int x = 0;
		for (; x + 8 <= size; x += 8) {
			uint64_t w;
			memcpy(&w, row + x, sizeof w); /* zero or not in any byte order */
			if (w == 0) {
				h *= FNV_PRIME8;
				continue;
			}
			for (int k = 0; k < 8; k++) { /* a byte read, a xor, a multiply each */
				h ^= row[x + k];
				h *= 0x100000001b3ULL;
			}
		}
		for (; x < size; x++) {
			h ^= row[x];
			h *= 0x100000001b3ULL;
		}
	}
	f->h = h;
}

/* Field by field, integers little-endian, grids row by row within the level: padding
 * and the unused part of the arrays never reach the hash. */
uint64_t
game_hash(const struct game *g)
{
	struct fnv f = { 0xcbf29ce484222325ULL };
	int size = g->level.size;

	fnv_u64(&f, RULES_VERSION);
	fnv_u64(&f, (uint64_t)g->opt.size | (uint64_t)g->opt.fov << 8 | (uint64_t)g->opt.potions << 16);
	fnv_u64(&f, g->seed);
	for (int i = 0; i < 4; i++)
		fnv_u64(&f, g->rng.s[i]);
	fnv_grid(&f, g->level.cell, size);
	fnv_grid(&f, g->potion, size);
	fnv_bytes(&f, g->kind_of, sizeof g->kind_of);
	for (int p = 0; p < PLAYERS; p++) {
		const struct wizard *w = &g->wiz[p];
		uint8_t head[8] = { w->x, w->y, (uint8_t)w->hp, w->ninv, w->known, w->opp_known, w->opp_x, w->opp_y };
		fnv_bytes(&f, head, sizeof head);
		fnv_bytes(&f, w->inv, w->ninv);
		fnv_u64(&f, w->intrinsics);
		fnv_bytes(&f, &w->chain.n, 1);
		for (int i = 0; i < w->chain.n; i++)
			fnv_bytes(&f, &w->chain.link[i], 2);
		fnv_grid(&f, w->mem, size);
		fnv_grid(&f, w->memp, size);
	}
	uint8_t tail[5] = { g->first, g->turn, g->steps_left, g->result, g->end_reason };
	fnv_bytes(&f, tail, sizeof tail);
	fnv_u64(&f, g->turn_no);
	fnv_bytes(&f, g->offered, sizeof g->offered);
	return f.h;
}
