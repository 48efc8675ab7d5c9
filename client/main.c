/* SPDX-License-Identifier: MIT */
/* main: the wizwar executable: one table of subcommands, each with its own --help. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_keys.h"
#include "commands.h"
#include "commands_net.h"
#include "commands_ui.h"
#include "game.h"
#include "proto.h"

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "tutorial", cmd_tutorial, "a first duel, guided step by step, against the novice bot" },
	{ "practice", cmd_practice, "a duel in this terminal against a bot" },
	{ "host", cmd_host, "host a duel: a server in this process, played from this terminal" },
	{ "join", cmd_join, "join a hosted duel (or a room of a server), or be paired with a stranger" },
	{ "rooms", cmd_rooms, "the public rooms of a server waiting for a player" },
	{ "server", cmd_server, "a headless server of many rooms" },
	{ "status", cmd_status, "how a running server is doing, through its admin socket" },
	{ "admin", cmd_admin, "ban, mute, free a name on a running server, through its admin socket" },
	{ "bot", cmd_bot, "a bot that plays over the network" },
	{ "watch", cmd_spectate, "watch a live duel as a spectator, as its players allow" },
	{ "id", cmd_id, "the fingerprint of your key, which owns your names on a server" },
	{ "history", cmd_history, "your rated duels on a server, each checked against the server's key" },
	{ "top", cmd_top, "a server's rating ladder" },
	{ "stats", cmd_stats, "one player's rating on a server" },
	{ "selfplay", cmd_selfplay, "headless duels between two bots, printed or summarised" },
	{ "replay", cmd_replay, "watch a turn log, check it, or print it turn by turn" },
	{ "keys", keys_cmd, "print the key bindings in force and where they came from" },
};

#define NSUB (sizeof subcommands / sizeof subcommands[0])

static void
usage(FILE *out)
{
	fprintf(out, "usage: wizwar COMMAND [ARGS...]\n       wizwar help [COMMAND]\n       wizwar --version\n\ncommands:\n");
	for (size_t i = 0; i < NSUB; i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'wizwar COMMAND --help' (or 'wizwar help COMMAND') describes each command. Options follow\n"
	    "getopt_long's rules: --opt VALUE or --opt=VALUE, an optional value only as --opt=VALUE\n"
	    "(--password=PW), a prefix that names one option alone (--see for --seed), -- before an\n"
	    "operand that starts with '-'. Errors read 'wizwar COMMAND: ...'; exit status 0, 1 when the\n"
	    "work failed, 2 for bad arguments. See also wizwar(6).\n");
}

static const struct subcommand *
lookup(const char *name)
{
	for (size_t i = 0; i < NSUB; i++)
		if (strcmp(name, subcommands[i].name) == 0)
			return &subcommands[i];
	return NULL;
}

/* Output that could not be written is a failure, not a success: `wizwar keys > /dev/full`
 * must not exit 0. Everything on stdout goes through stdio, so one check at the end sees it. */
static int
close_stdout(int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;

	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		e = errno;
	}
	if (!failed)
		return status;
	if (e)
		cli_error("cannot write the output: %s\n", strerror(e));
	else
		cli_error("cannot write the output\n");
	return status ? status : 1;
}

static int
run(int argc, char **argv)
{
	const struct subcommand *sc;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		cli_version(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		/* `wizwar help join` is `wizwar join --help`. */
		static char help_arg[] = "--help";
		char *help_argv[] = { help_arg, NULL };
		if (argc > 3 || (sc = lookup(argv[2])) == NULL) {
			fprintf(stderr, argc > 3 ? "wizwar help: one command at a time\n\n" : "wizwar help: no command '%s'\n\n",
			        argv[2]);
			usage(stderr);
			return 2;
		}
		return sc->run(1, help_argv);
	}
	if ((sc = lookup(argv[1])) != NULL)
		return sc->run(argc - 2, argv + 2);
	cli_error("unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}

int
main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
