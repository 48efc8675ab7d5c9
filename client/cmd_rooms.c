/* SPDX-License-Identifier: MIT */
/* cmd_rooms: `wizwar rooms SERVER`: the public rooms of a server waiting for a player. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "ident.h"
#include "quick.h"

int
cmd_rooms(int argc, char **argv)
{
	struct net_config nc;
	static struct auth_ident ident;
	static struct wire_msg q, ans; /* 20 KiB each */
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	const char *addr = NULL, *key_file = NULL;
	bool have_fp, partial;

	net_config_default(&nc);
	const char *usage = help_get(HELP_ROOMS);
	int args = cli_args("rooms", usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (cmd_net_is_help(a)) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--key") == 0 && i + 1 < argc) {
			key_file = argv[++i];
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, usage);
			return 2;
		}
	}
	if (addr == NULL) {
		cli_error("which server? (HOST[:PORT][#FINGERPRINT])\n%s", usage);
		return 2;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (!cmd_net_split_fingerprint(addrbuf, fp, &have_fp, "rooms"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 2;
	}
	nc.host = host;
	nc.name = "rooms"; /* not sent: a query has no AUTH */
	if (auth_init() != 0 || !ident_get(key_file, IDENT_PLAYER, &ident))
		return 1;
	nc.ident = &ident;
	cmd_net_client_trust(&nc, fp, have_fp, known, sizeof known);
	q.type = WIRE_ROOMS_ASK;
	if (quick_ask(&nc, &q, NULL, NULL, &ans, &partial, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 1;
	}
	quick_print_rooms(&ans.u.rooms, addr, partial);
	return 0;
}
