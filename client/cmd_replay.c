/* SPDX-License-Identifier: MIT */
/* cmd_replay: check a turn log, or narrate it as text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "help.h"
#include "commands.h"
#include "commands_ui.h"
#include "turnlog.h"

#define REPLAY_FILE_MAX (64u << 20) /* a 1000-turn duel is well under a megabyte */


static void
narrate(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	cli_narrate(ud, g, p, c, ev);
}

int
cmd_replay(int argc, char **argv)
{
	struct turnlog_replay *r;
	const char *path = NULL;
	bool text = false;
	char *buf;
	size_t len;
	int rc;

	/* Without --check or --text, `replay LOG` is the interactive viewer, whose usage
	 * (and --help) covers both forms. */
	if (!cli_has_option(argc, argv, "--check") && !cli_has_option(argc, argv, "--text"))
		return cmd_watch(argc, argv);
	const char *usage = help_get(HELP_REPLAY);
	int args = cli_args("replay", usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if ((strcmp(argv[i], "--check") == 0 || strcmp(argv[i], "--text") == 0) && i + 1 < argc && !path) {
			text = argv[i][2] == 't';
			path = argv[++i];
		} else {
			fprintf(stderr, "wizwar replay: unknown or incomplete argument '%s'\n%s", argv[i], usage);
			return 2;
		}
	}
	if (path == NULL) {
		fputs(usage, stderr);
		return 2;
	}
	if (cli_read_file(path, REPLAY_FILE_MAX, &buf, &len) != 0)
		return 1;
	if ((r = malloc(sizeof *r)) == NULL) {
		free(buf);
		fprintf(stderr, "wizwar: out of memory\n");
		return 1;
	}
	rc = turnlog_replay(buf, len, r, text ? narrate : NULL, stdout);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", path, r->error);
	} else {
		printf("%s: replays exactly: %" PRIu32 " command%s, %" PRIu32 " turn%s, %" PRIu32 " hash%s checked, %s%s\n",
		    path, r->commands, r->commands == 1 ? "" : "s", r->game.turn_no, r->game.turn_no == 1 ? "" : "s",
		    r->hashes_checked, r->hashes_checked == 1 ? "" : "es",
		    r->ended ? "finished" : "unfinished (the log stops before the duel ended)",
		    r->torn ? "; a torn last line was dropped" : "");
	}
	free(r);
	free(buf);
	return rc == 0 ? 0 : 1;
}
