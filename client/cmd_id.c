/* SPDX-License-Identifier: MIT */
/* cmd_id: `wizwar id`: the fingerprint of this player's key (or the bots'), made on first use. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "ident.h"

int
cmd_id(int argc, char **argv)
{
	static struct auth_ident id;
	const char *key_file = NULL;
	char path[4200], fp[AUTH_FP_LEN + 1];
	int kind = IDENT_PLAYER;

	const char *id_usage = help_get(HELP_ID);
	int args = cli_args("id", id_usage, &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (cmd_net_is_help(a)) {
			fputs(id_usage, stdout);
			return 0;
		} else if (strcmp(a, "--bot") == 0) {
			kind = IDENT_BOT;
		} else if (strcmp(a, "--key") == 0 && i + 1 < argc) {
			key_file = argv[++i];
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, id_usage);
			return 2;
		}
	}
	if (key_file && kind == IDENT_BOT) {
		cli_error("--bot or --key, not both\n");
		return 2;
	}
	if (!ident_get(key_file, kind, &id))
		return 1;
	if (key_file)
		snprintf(path, sizeof path, "%s", key_file);
	else
		ident_path(kind, path, sizeof path);
	auth_fingerprint(id.pk, fp);
	auth_ident_wipe(&id);
	printf("fingerprint %s\nfile %s\n", fp, path);
	return 0;
}
