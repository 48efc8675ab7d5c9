/* SPDX-License-Identifier: MIT */
/* harness: scenario building for the rules tests (see harness.h). */
#include <criterion/criterion.h>

#include <string.h>

#include "bot.h"
#include "fov.h"
#include "harness.h"
#include "internal.h"

void
harness_options(struct options *o, int size, bool fov, bool potions)
{
	options_default(o);
	o->size = (uint8_t)size;
	o->fov = fov;
	o->potions = potions;
}

void
harness_remember(struct game *g)
{
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	int size = g->level.size;

	for (int p = 0; p < PLAYERS; p++) {
		struct wizard *w = &g->wiz[p];
		const struct wizard *o = &g->wiz[1 - p];

		if (g->opt.fov)
			fov_compute(&g->level, w->x, w->y, FOV_RADIUS, vis);
		else
			memset(vis, 1, sizeof vis);
		for (int y = 0; y < size; y++)
			for (int x = 0; x < size; x++)
				if (vis[y][x]) {
					w->mem[y][x] = g->level.cell[y][x] == CELL_WALL ? MEM_WALL : MEM_FLOOR;
					w->memp[y][x] = g->potion[y][x];
				}
		if (vis[o->y][o->x]) {
			w->opp_known = OPPMEM_REMEMBERED;
			w->opp_x = o->x;
			w->opp_y = o->y;
		}
	}
}

void
harness_setup_opt(struct game *g, const char *const *map, int size, bool fov, bool potions, uint64_t seed)
{
	struct options o;
	bool placed[PLAYERS] = { false, false };

	harness_options(&o, size, fov, potions);
	cr_assert_eq(game_init(g, &o, seed), ERR_OK, "harness: game_init refused size %d", size);
	memset(g->level.cell, CELL_WALL, sizeof g->level.cell);
	memset(g->potion, 0, sizeof g->potion);
	for (int y = 0; map[y] != NULL; y++) {
		cr_assert(y < size, "harness: map taller than %d", size);
		for (int x = 0; map[y][x] != '\0'; x++) {
			char c = map[y][x];
			cr_assert(x < size, "harness: map row %d wider than %d", y, size);
			if (c == '#')
				continue;
			g->level.cell[y][x] = CELL_FLOOR;
			if (c == '0' || c == '1') {
				g->wiz[c - '0'].x = (uint8_t)x;
				g->wiz[c - '0'].y = (uint8_t)y;
				placed[c - '0'] = true;
			} else if (c >= 'a' && c <= 'e') {
				g->potion[y][x] = (uint8_t)(c - 'a' + 1);
			} else {
				cr_assert_eq(c, '.', "harness: unknown map character '%c'", c);
			}
		}
	}
	cr_assert(placed[0] && placed[1], "harness: the map must place both wizards");
	for (int a = 0; a < APPEARANCE_COUNT; a++)
		g->kind_of[a] = (uint8_t)a;
	for (int p = 0; p < PLAYERS; p++) {
		struct wizard *w = &g->wiz[p];
		w->hp = WIZARD_HP;
		w->ninv = 0;
		memset(w->inv, 0, sizeof w->inv);
		w->known = 0;
		w->intrinsics = 0;
		memset(&w->chain, 0, sizeof w->chain);
		w->opp_known = OPPMEM_NONE;
		w->opp_x = w->opp_y = 0;
		memset(w->mem, MEM_UNKNOWN, sizeof w->mem);
		memset(w->memp, 0, sizeof w->memp);
	}
	g->first = 0;
	g->turn = 0;
	g->turn_no = 0;
	g->steps_left = STEPS_PER_TURN;
	g->result = RESULT_NONE;
	g->end_reason = END_NONE;
	harness_offer(g, SPELL_COLD, SPELL_LIGHTNING, SPELL_MAPPING);
	harness_remember(g);
}

void
harness_setup(struct game *g, const char *const *map, uint64_t seed)
{
	harness_setup_opt(g, map, LEVEL_MIN, true, true, seed);
}

void
harness_offer(struct game *g, int s0, int s1, int s2)
{
	g->offered[0] = (uint8_t)s0;
	g->offered[1] = (uint8_t)s1;
	g->offered[2] = (uint8_t)s2;
}

void
harness_bind(struct game *g, int appearance, int kind)
{
	g->kind_of[appearance] = (uint8_t)kind;
}

void
harness_give(struct game *g, int p, int appearance)
{
	struct wizard *w = &g->wiz[p];

	cr_assert(w->ninv < INV_MAX, "harness: inventory full");
	w->inv[w->ninv++] = (uint8_t)appearance;
}

void
harness_put(struct game *g, int x, int y, int appearance)
{
	cr_assert(level_floor(&g->level, x, y), "harness: potion at (%d,%d) not on floor", x, y);
	g->potion[y][x] = (uint8_t)(appearance + 1);
}

void
harness_place(struct game *g, int p, int x, int y)
{
	cr_assert(level_floor(&g->level, x, y), "harness: wizard at (%d,%d) not on floor", x, y);
	g->wiz[p].x = (uint8_t)x;
	g->wiz[p].y = (uint8_t)y;
}

void
harness_reseed(struct game *g, uint64_t seed)
{
	rng_seed(&g->rng, seed);
}

void
harness_turn(struct game *g, int p)
{
	g->turn = (uint8_t)p;
	g->steps_left = STEPS_PER_TURN;
}

int
harness_do(struct game *g, int p, int type, int arg, int dir, struct events *ev)
{
	struct cmd c = { (uint8_t)type, (uint8_t)arg, (uint8_t)dir };

	return game_apply(g, p, &c, ev);
}

int
harness_cast(struct game *g, int p, int spell, int dir, struct events *ev)
{
	g->offered[0] = (uint8_t)spell;
	return harness_do(g, p, CMD_CAST, 0, spell_takes_dir(spell) ? dir : DIR_NONE, ev);
}

void
harness_pass(struct game *g, int p, struct events *ev)
{
	int err = harness_do(g, p, CMD_PASS, 0, 0, ev);

	cr_assert_eq(err, ERR_OK, "harness: player %d could not pass: %s", p, err_text(err));
}

int
harness_msgs(const struct events *ev, int id, int to)
{
	int n = 0;

	for (int i = 0; i < ev->nmsg; i++)
		n += ev->msg[i].id == id && ev->msg[i].to == to;
	return n;
}

const struct msg *
harness_msg_for(const struct events *ev, int id, int p)
{
	for (int i = 0; i < ev->nmsg; i++)
		if (ev->msg[i].id == id && (ev->msg[i].to & (1 << p)))
			return &ev->msg[i];
	return NULL;
}

int
harness_msgs_for(const struct events *ev, int p)
{
	int n = 0;

	for (int i = 0; i < ev->nmsg; i++)
		n += (ev->msg[i].to & (1 << p)) != 0 && !harness_narration(ev->msg[i].id);
	return n;
}

bool
harness_narration(int id)
{
	return id == MSG_OPP_DRINKS || id == MSG_OPP_PICKS_UP || id == MSG_OPP_CASTS || id == MSG_OPP_CASTS_SEEN;
}

int
harness_potions(const struct game *g)
{
	int n = 0;

	for (int y = 0; y < g->level.size; y++)
		for (int x = 0; x < g->level.size; x++)
			n += g->potion[y][x] != 0;
	return n;
}

int
harness_fx(const struct events *ev, int fx)
{
	int n = 0;

	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++)
			n += ev->fx[y][x] == fx;
	return n;
}

void
harness_bots_init(struct harness_bots *b, uint64_t seed)
{
	/* As `wizwar selfplay` seeds its bots, so the duels here are the ones it plays. */
	for (int p = 0; p < PLAYERS; p++)
		rng_seed(&b->rng[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
	b->refusals = 0;
}

void
harness_bots_step(struct harness_bots *b, struct game *g, struct cmd *c, struct events *ev)
{
	struct view v;
	int p = g->turn;

	view_build(g, p, &v);
	bot_choose(&v, BOT_RANDOM, &b->rng[p], c);
	if (game_apply(g, p, c, ev) != ERR_OK) {
		b->refusals++;
		*c = (struct cmd){ CMD_PASS, 0, 0 };
		cr_assert_eq(game_apply(g, p, c, ev), ERR_OK, "the rules refused a pass");
	}
}

const char *const harness_room_map[] = {
	"###############",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#......0......#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#............1#",
	"###############",
	NULL,
};

const char *const harness_pocket_map[] = {
	"###############",
	"#0#...........#",
	"###...........#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#.............#",
	"#............1#",
	"###############",
	NULL,
};
