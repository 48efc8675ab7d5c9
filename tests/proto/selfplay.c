/* SPDX-License-Identifier: MIT */
/* selfplay: the lead's selfplay loop, with both players' views handed to a callback around every command. */
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "selfplay.h"

long
selfplay_run(const struct options *opt, uint64_t seed, int bot_level, selfplay_cb cb, void *ud)
{
	struct game *g = malloc(sizeof *g);
	struct view *v = malloc(4 * sizeof *v); /* before[2], after[2] */
	struct events *ev = malloc(sizeof *ev);
	struct rng brng;
	long n = 0;

	if (!g || !v || !ev || game_init(g, opt, seed) != ERR_OK) {
		free(g);
		free(v);
		free(ev);
		return -1;
	}
	rng_seed(&brng, seed ^ SELFPLAY_BOT_KEY);
	for (int p = 0; p < PLAYERS; p++)
		view_build(g, p, &v[p]);
	cb(ud, g, NULL, v, NULL, NULL, -1);
	while (!g->result) {
		struct cmd c;
		int mover = g->turn;

		bot_choose(&v[mover], bot_level, &brng, &c);
		if (game_apply(g, mover, &c, ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			if (game_apply(g, mover, &c, ev) != ERR_OK)
				abort();
		}
		for (int p = 0; p < PLAYERS; p++)
			view_build(g, p, &v[2 + p]);
		cb(ud, g, v, v + 2, ev, &c, mover);
		memcpy(v, v + 2, 2 * sizeof *v);
		n++;
	}
	free(g);
	free(v);
	free(ev);
	return n;
}
