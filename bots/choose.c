/* SPDX-License-Identifier: MIT */
/* choose: the bots' one way in: which chooser plays each level (bot.c's five, master.c's search). */
#include <string.h>

#include "bot.h"
#include "botint.h"

/* The levels' names, as --bot, --level and turn logs spell them. */
static const char *const level_names[BOT_LEVEL_COUNT] = { "random", "easy", "normal", "hard", "master",
	"novice" };

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

/* The ladder, weakest first, as docs/bots.md measures it (novice is numbered last but plays
 * between random and easy). */
static const int level_next[BOT_LEVEL_COUNT] = {
	[BOT_RANDOM] = BOT_NOVICE, [BOT_NOVICE] = BOT_EASY, [BOT_EASY] = BOT_NORMAL,
	[BOT_NORMAL] = BOT_HARD, [BOT_HARD] = BOT_MASTER, [BOT_MASTER] = -1,
};

int
bot_level_next(int level)
{
	return level >= 0 && level < BOT_LEVEL_COUNT ? level_next[level] : -1;
}

/* Master: see master.c. */
static void
choose_master(const struct view *v, struct rng *r, struct cmd *out)
{
	bot_master_choose(v, r, bot_master_budget(v->opt.size), out);
}

typedef void (*choose_fn)(const struct view *v, struct rng *r, struct cmd *out);

static const choose_fn choosers[BOT_LEVEL_COUNT] = {
	[BOT_RANDOM] = bot__choose_random,
	[BOT_EASY] = bot__choose_easy,
	[BOT_NORMAL] = bot__choose_normal,
	[BOT_HARD] = bot__choose_hard,
	[BOT_MASTER] = choose_master,
	[BOT_NOVICE] = bot__choose_novice,
};

void
bot_choose_mind(const struct view *v, int level, struct rng *rng, struct bot_mind *mind, struct cmd *out)
{
	/* Only master reads a mind: the others are not slowed by keeping one. */
	if (!mind || level != BOT_MASTER || v->turn != v->me || v->result != RESULT_NONE) {
		bot_choose(v, level, rng, out);
		return;
	}
	mind_observe(mind, v);
	bot_master_choose_mind(v, mind, rng, bot_master_budget(v->opt.size), out);
	mind_acted(mind, v, out);
}

void
bot_choose(const struct view *v, int level, struct rng *rng, struct cmd *out)
{
	if (level < 0 || level >= BOT_LEVEL_COUNT)
		level = BOT_RANDOM;
	/* Not my move (or the duel is over): nothing I could do would be accepted but this. */
	if (v->turn != v->me || v->result != RESULT_NONE) {
		*out = (struct cmd){ CMD_PASS, 0, 0 };
		return;
	}
	choosers[level](v, rng, out);
}
