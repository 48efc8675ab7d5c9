/* main: the wizwar executable: one table of subcommands, each with its own --help. */
#include <stdio.h>
#include <string.h>

#include "cmd_keys.h"
#include "commands.h"
#include "commands_net.h"
#include "commands_ui.h"
#include "game.h"

#ifndef WIZWAR_VERSION
#define WIZWAR_VERSION "0.1.0"
#endif

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "practice", cmd_practice, "a duel in this terminal against a bot" },
	{ "host", cmd_host, "host a duel: a server in this process, played from this terminal" },
	{ "join", cmd_join, "join a hosted duel (or a room of a server)" },
	{ "server", cmd_server, "a headless server of many rooms" },
	{ "bot", cmd_bot, "a bot that plays over the network" },
	{ "selfplay", cmd_selfplay, "headless duels between two bots, printed or summarised" },
	{ "replay", cmd_replay, "watch a turn log, check it, or print it turn by turn" },
	{ "keys", keys_cmd, "print the key bindings in force and where they came from" },
};

#define NSUB (sizeof subcommands / sizeof subcommands[0])

static void
usage(FILE *out)
{
	fprintf(out, "usage: wizwar COMMAND [ARGS...]\n       wizwar --version\n\ncommands:\n");
	for (size_t i = 0; i < NSUB; i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'wizwar COMMAND --help' describes each command. See also wizwar(6).\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("wizwar %s (rules %d)\n", WIZWAR_VERSION, RULES_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NSUB; i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].run(argc - 2, argv + 2);
	fprintf(stderr, "wizwar: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
