/* SPDX-License-Identifier: MIT */
/* cmd_selfplay: headless duels between two bots, printed turn by turn or summarised, with turn logs. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bot.h"
#include "cli.h"
#include "progress.h"
#include "help.h"
#include "commands.h"
#include "turnlog.h"
#include "view.h"

#define SELFPLAY_GAMES_MAX 1000000L


struct selfplay {
	struct options opt;
	int bots[PLAYERS];
	const char *logdir;
	bool narrate;
};

static int
parse_bots(const char *s, int bots[PLAYERS])
{
	char a[16], b[16];
	const char *comma = strchr(s, ',');

	if (comma == NULL || (size_t)(comma - s) >= sizeof a || strlen(comma + 1) >= sizeof b)
		goto bad;
	memcpy(a, s, (size_t)(comma - s));
	a[comma - s] = '\0';
	strcpy(b, comma + 1);
	if ((bots[0] = bot_level_lookup(a)) < 0 || (bots[1] = bot_level_lookup(b)) < 0)
		goto bad;
	return 0;
bad:
	cli_error("--bots takes two of random, novice, easy, normal, hard, master, as A,B (not '%s')\n", s);
	return -1;
}

static FILE *
open_log(const char *dir, uint64_t seed, const struct selfplay *sp, const struct game *g)
{
	char path[4096], buf[1024];
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, sp->opt, seed, { "", "" } };
	FILE *f;

	for (int p = 0; p < PLAYERS; p++)
		snprintf(h.name[p], sizeof h.name[p], "%s-bot-%d", bot_level_name(sp->bots[p]), p);
	if ((size_t)snprintf(path, sizeof path, "%s/selfplay-%016" PRIx64 ".log", dir, seed) >= sizeof path) {
		cli_error("log directory name too long\n");
		return NULL;
	}
	if ((f = fopen(path, "w")) == NULL) {
		cli_error("cannot write %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (turnlog_format_header(&h, game_hash(g), buf, sizeof buf) < 0 || fputs(buf, f) == EOF) {
		fclose(f);
		cli_error("cannot write %s\n", path);
		return NULL;
	}
	return f;
}

/* One duel; returns the final state hash, or 0 with a message on error. */
static int
play_one(const struct selfplay *sp, uint64_t seed, struct game *g, FILE *out)
{
	struct rng brng[PLAYERS];
	struct bot_mind mind[PLAYERS];
	struct events ev;
	struct view v;
	struct cmd c;
	char line[TURNLOG_LINE_MAX];
	FILE *log = NULL;

	if (game_init(g, &sp->opt, seed) != ERR_OK)
		return -1;
	for (int p = 0; p < PLAYERS; p++)
		rng_seed(&brng[p], rng_mix64(seed ^ (0xb07b07b07ULL + (uint64_t)p)));
	for (int p = 0; p < PLAYERS; p++)
		mind_reset(&mind[p]);
	if (sp->logdir && (log = open_log(sp->logdir, seed, sp, g)) == NULL)
		return -1;
	if (sp->narrate) {
		fprintf(out, "duel seed %" PRIu64 ": %dx%d, FoV %s, potions %s\n", seed, g->opt.size, g->opt.size,
		    g->opt.fov ? "on" : "off", g->opt.potions ? "on" : "off");
		cli_draw_level(out, g);
		cli_narrate_turn(out, g);
	}
	while (g->result == RESULT_NONE) {
		int p = g->turn;
		view_build(g, p, &v);
		bot_choose_mind(&v, sp->bots[p], &brng[p], &mind[p], &c);
		if (game_apply(g, p, &c, &ev) != ERR_OK) {
			/* The bot judged from its view; a refusal is legal play, so it passes. */
			c = (struct cmd){ CMD_PASS, 0, 0 };
			if (game_apply(g, p, &c, &ev) != ERR_OK) {
				cli_error("the rules refused a pass: a bug\n");
				abort();
			}
		}
		for (int q = 0; q < PLAYERS; q++)
			if (sp->bots[q] == BOT_MASTER) { /* what a client is told and shown of it */
				view_build_after(g, q, &ev, &v);
				mind_told(&mind[q], &v, &ev, p);
			}
		if (sp->narrate)
			cli_narrate(out, g, p, &c, &ev);
		if (log) {
			turnlog_format_cmd(p, &c, line, sizeof line);
			fputs(line, log);
			if (ev.turn_ended) {
				turnlog_format_hash(g->turn_no, game_hash(g), line, sizeof line);
				fputs(line, log);
			}
		}
	}
	if (log) {
		turnlog_format_end(g, line, sizeof line);
		fputs(line, log);
		if (fclose(log) != 0) {
			cli_error("cannot finish the log of seed %" PRIu64 "\n", seed);
			return -1;
		}
	}
	if (sp->narrate) {
		cli_draw_level(out, g);
		fprintf(out, "final HP: P1 %d, P2 %d\n", g->wiz[0].hp, g->wiz[1].hp);
	}
	return 0;
}

int
cmd_selfplay(int argc, char **argv)
{
	static struct game g; /* large; one per process is enough here */
	struct selfplay sp = { .bots = { BOT_RANDOM, BOT_RANDOM } };
	long games = 1;
	uint64_t seed = 1, combined = 0;
	bool quiet = false;
	long wins[4] = { 0 };
	uint64_t turns = 0;

	options_default(&sp.opt);
	const char *usage = help_get(HELP_SELFPLAY);
	int args = cli_args("selfplay", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		int r = cli_game_option(argc, argv, &i, &sp.opt);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc) {
			if (!cli_int(argv[++i], 1, SELFPLAY_GAMES_MAX, "--games", &games))
				return 2;
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			if (!cli_seed(argv[++i], &seed))
				return 2;
		} else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
			sp.logdir = argv[++i];
		} else if (strcmp(argv[i], "--bots") == 0 && i + 1 < argc) {
			if (parse_bots(argv[++i], sp.bots) != 0)
				return 2;
		} else if (strcmp(argv[i], "--quiet") == 0) {
			quiet = true;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (sp.logdir && mkdir(sp.logdir, 0777) != 0 && errno != EEXIST) {
		cli_error("cannot create %s: %s\n", sp.logdir, strerror(errno));
		return 1;
	}
	sp.narrate = games == 1 && !quiet;
	struct progress pg;
	progress_init(&pg, sp.narrate ? NULL : stderr, "selfplay", "games", (uint64_t)games); /* one duel narrated: none */
	for (long i = 0; i < games; i++) {
		uint64_t s = seed + (uint64_t)i;
		if (play_one(&sp, s, &g, stdout) != 0) {
			progress_finish(&pg);
			return 1;
		}
		uint64_t h = game_hash(&g);
		combined = rng_mix64(combined ^ h);
		wins[g.result]++;
		turns += g.turn_no;
		if (!sp.narrate && (!quiet || games <= 20)) {
			progress_clear(&pg); /* stdout may be the same terminal */
			printf("game %ld seed %" PRIu64 " turns %" PRIu32 " result %s hash %016" PRIx64 "\n", i + 1, s,
			    g.turn_no, g.result == RESULT_WIN0 ? "win0" : g.result == RESULT_WIN1 ? "win1" : "draw", h);
			if (pg.out != NULL)
				fflush(stdout); /* before the progress line is drawn again */
		}
		progress_step(&pg, (uint64_t)i + 1);
	}
	progress_finish(&pg);
	/* Players counted from 1, as everywhere a person reads them. */
	printf("%ld game%s (%s vs %s): P1 won %ld, P2 won %ld, %ld drawn, %.1f turns on average\n", games,
	    games == 1 ? "" : "s",
	    bot_level_name(sp.bots[0]), bot_level_name(sp.bots[1]), wins[RESULT_WIN0], wins[RESULT_WIN1],
	    wins[RESULT_DRAW], (double)turns / (double)games);
	printf("combined hash %016" PRIx64 "\n", combined);
	return 0;
}
