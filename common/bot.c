/* bot: players that choose a command from a view alone. */
#include <string.h>

#include "bot.h"

static const char *const level_names[BOT_LEVEL_COUNT] = { "random", "easy", "normal", "hard" };

const char *
bot_level_name(int level)
{
	return level >= 0 && level < BOT_LEVEL_COUNT ? level_names[level] : "(unknown)";
}

int
bot_level_lookup(const char *name)
{
	for (int i = 0; i < BOT_LEVEL_COUNT; i++)
		if (name && strcmp(level_names[i], name) == 0)
			return i;
	return -1;
}

static const uint8_t dirs8[8] = { DIR_N, DIR_NE, DIR_E, DIR_SE, DIR_S, DIR_SW, DIR_W, DIR_NW };

/* Can I step that way, as far as I can tell? Adjacent squares are always in sight,
 * so for a step the view is never stale. */
static bool
step_ok(const struct view *v, int d)
{
	int x = v->x + dir_dx(d), y = v->y + dir_dy(d);

	if (x < 0 || y < 0 || x >= v->opt.size || y >= v->opt.size)
		return false;
	if ((v->cell[y][x] & ~VCELL_VISIBLE) != VCELL_FLOOR)
		return false;
	return !(v->opp_state == OPP_VISIBLE && v->opp_x == x && v->opp_y == y);
}

static int
pick_step(const struct view *v, struct rng *r)
{
	uint8_t ok[8];
	int n = 0;

	for (int i = 0; i < 8; i++)
		if (step_ok(v, dirs8[i]))
			ok[n++] = dirs8[i];
	return n ? ok[rng_below(r, (uint32_t)n)] : DIR_NONE;
}

/* Random: three steps in four while steps are left, then an action at random,
 * weighted towards casting so that random duels end. */
static void
choose_random(const struct view *v, struct rng *r, struct cmd *out)
{
	bool potion_here = v->potion[v->y][v->x] != 0;
	int d;

	if (v->steps_left > 0 && rng_chance(r, 3, 4) && (d = pick_step(v, r)) != DIR_NONE) {
		*out = (struct cmd){ CMD_STEP, 0, (uint8_t)d };
		return;
	}
	int roll = (int)rng_below(r, 12);
	if (roll < 7) {
		int slot = (int)rng_below(r, SPELL_OFFERED);
		int dir = spell_takes_dir(v->offered[slot]) ? dirs8[rng_below(r, 8)] : DIR_NONE;
		*out = (struct cmd){ CMD_CAST, (uint8_t)slot, (uint8_t)dir };
	} else if (roll < 8 && potion_here) {
		*out = (struct cmd){ CMD_DRINK, 0, 0 };
	} else if (roll < 10 && potion_here && v->ninv < INV_MAX) {
		*out = (struct cmd){ CMD_PICKUP, 0, 0 };
	} else if (roll < 11 && v->ninv > 0) {
		*out = (struct cmd){ CMD_QUAFF, (uint8_t)rng_below(r, v->ninv), 0 };
	} else {
		*out = (struct cmd){ CMD_PASS, 0, 0 };
	}
}

typedef void (*choose_fn)(const struct view *v, struct rng *r, struct cmd *out);

/* One row per level. Until the stronger levels are written, they play at random. */
static const choose_fn choosers[BOT_LEVEL_COUNT] = {
	[BOT_RANDOM] = choose_random,
	[BOT_EASY] = choose_random,
	[BOT_NORMAL] = choose_random,
	[BOT_HARD] = choose_random,
};

void
bot_choose(const struct view *v, int level, struct rng *rng, struct cmd *out)
{
	if (level < 0 || level >= BOT_LEVEL_COUNT)
		level = BOT_RANDOM;
	choosers[level](v, rng, out);
}
