/* SPDX-License-Identifier: MIT */
/* cmd_join: `wizwar join`: the curses client on someone's host or a room of a server. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "lan.h"
#include "ident.h"
#include "quick.h"
#include "text.h"
#include "bot.h"
#include "commands_ui.h"

/* Nobody was found to pair with: offer the built-in bot of the player's strength, here. The
 * bot plays in this process as `wizwar practice` does (a local duel, not rated): the server
 * runs no bots, and a network bot of ours would be this player playing itself. */
static int
offer_bot(unsigned wait, unsigned rating, const struct options *o)
{
	char size[8], answer[16];
	const char *level = bot_level_name(quick_bot_level(rating));
	char *args[8];
	int n = 0;

	fprintf(stderr, "Nobody to pair with came in %u s. Play the %s bot here instead, for your rating of %u "
	        "(a practice duel, not rated)? [Y/n] ", wait, level, rating);
	fflush(stderr);
	if (fgets(answer, sizeof answer, stdin) == NULL || (answer[0] != '\n' && answer[0] != 'y' && answer[0] != 'Y'))
		return 1;
	snprintf(size, sizeof size, "%d", o->size);
	args[n++] = (char *)"--bot";
	args[n++] = (char *)level;
	args[n++] = (char *)"--size";
	args[n++] = size;
	if (!o->fov)
		args[n++] = (char *)"--no-fov";
	if (!o->potions)
		args[n++] = (char *)"--no-potions";
	args[n] = NULL;
	return cmd_practice(n, args);
}

int
cmd_join(int argc, char **argv)
{
	struct net_config nc;
	static struct cmd_net_pw pw;
	uv_loop_t loop;
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	char seatbuf[4200], code[PROTO_ROOM_BYTES + 1], banner[300], share[400];
	struct seatfile_claim claim = { -1, -1 };
	const char *addr = NULL, *preset = NULL, *dir = NULL, *key_file = NULL;
	static char lan_addr[LAN_ADDR_MAX + 16], lan_label[LAN_NAME_MAX + 40]; /* kept by nc */
	static struct auth_ident ident;
	char dirbuf[4096];
	bool have_fp, keep_logs = true;
	struct cmd_net_room room;
	int r;

	cmd_net_room_init(&room);
	net_config_default(&nc);
	nc.name = cmd_net_default_name("guest");
	const char *join_usage = help_get(HELP_JOIN);
	int args = cli_args("join", join_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if ((r = cmd_net_password_option(argc, argv, &i, &pw, "join")) < 0)
			return 2;
		if (r > 0)
			continue;
		if ((r = cmd_net_room_option(argc, argv, &i, &room)) < 0)
			return 2;
		if (r > 0)
			continue;
		if (cmd_net_is_help(a)) {
			fputs(join_usage, stdout);
			return 0;
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!cmd_net_text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			nc.name = argv[i];
		} else if (strcmp(a, "--key") == 0 && more) {
			key_file = argv[++i];
		} else if (strcmp(a, "--log-dir") == 0 && more) {
			dir = argv[++i];
		} else if (strcmp(a, "--no-log") == 0) {
			keep_logs = false;
		} else if (strcmp(a, "--reconnect") == 0 && more) {
			long v;
			if (!cli_int(argv[++i], 1, 86400, "--reconnect", &v))
				return 2;
			nc.reconnect_for_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--keys") == 0 && more) {
			if (!cmd_net_keys_arg(argv[++i], "join"))
				return 2;
			preset = argv[i];
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, join_usage);
			return 2;
		}
	}
	bool lan_pw = false;
	const char *lan = room.lan;
	if (addr && lan) {
		cli_error("an address or --lan NAME, not both\n");
		return 2;
	}
	if (!cmd_net_room_check(&room, false))
		return 2;
	nc.room = room.room;
	/* No address: the duels announced on the LAN; the fingerprint announced is pinned as a typed one. */
	if (addr == NULL) {
		if (!cmd_net_have_terminal("join"))
			return 1;
		if ((r = lan_choose(lan, LAN_BROWSE_MS, lan_addr, sizeof lan_addr, fp, &lan_pw, lan_label, sizeof lan_label)))
			return r;
		addr = lan_addr;
		nc.fingerprint_from = lan_label;
		if (lan_pw && !pw.given && !pw.file && !getenv("WIZWAR_PASSWORD"))
			pw.ask = true;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (nc.fingerprint_from)
		have_fp = true; /* lan_choose's */
	else if (!cmd_net_split_fingerprint(addrbuf, fp, &have_fp, "join"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 2;
	}
	nc.host = host;
	if (!cmd_net_have_terminal("join"))
		return 1;
	if (auth_init() != 0 || !ident_get(key_file, IDENT_PLAYER, &ident) ||
	    !cmd_net_password_get(&pw, "join", "Password: ", &nc.password))
		return 1;
	nc.ident = &ident; /* net_create copies it */
	cmd_net_client_trust(&nc, fp, have_fp, known, sizeof known);
	banner[0] = share[0] = '\0';
	struct quick_via via; /* outlives the block: the join may go through its host */
	if (room.quick) {
		unsigned rating = 0;
		r = quick_pair(&nc, &room.opt, (unsigned)room.turn_time, (unsigned)room.bot_after, true, code, &rating,
		               &via);
		if (r < 0)
			return 1;
		if (r > 0) {
			cmd_net_password_wipe(&pw);
			return offer_bot((unsigned)room.bot_after, rating, &room.opt);
		}
		nc.room = code;
		quick_join_via(&nc, &via);
		snprintf(banner, sizeof banner, "Paired with a stranger in the private room %s.", code);
	}
	if (room.new_room) {
		cmd_net_new_room_code(code);
		nc.room = code;
		nc.create_room = true;
		nc.public_room = room.public_room;
		snprintf(banner, sizeof banner, "New room %s: the other player runs `wizwar join %s --room %s`.", code, addr,
		         code);
		/* addr as typed: its #FINGERPRINT, when given, with it. */
		snprintf(share, sizeof share, "wizwar join %s --room %s%s", addr, code, nc.password ? " --password" : "");
	}
	nc.seat_file = cmd_net_seat_path("join", &nc, seatbuf, sizeof seatbuf, &claim);
	/* seat_path said it on stderr, before the screen: a refusal of the name ends it at once. */
	if (claim.slot > 0 && !banner[0])
		snprintf(banner, sizeof banner, "Another wizwar here is already %s on this server and room: this one "
		         "does not take its seat (quit that one to take the seat over).", nc.name);
	if (uv_loop_init(&loop) != 0) {
		seatfile_release(nc.seat_file, &claim);
		return 1;
	}
	/* The directory is made when the first log is kept; failing that is said on the screen. */
	const char *save_dir = NULL;
	if (keep_logs && dir)
		save_dir = dir;
	else if (keep_logs && cli_state_dir(dirbuf, sizeof dirbuf))
		save_dir = dirbuf;
	else if (keep_logs)
		cli_error("neither XDG_STATE_HOME nor HOME is set: the turn logs are not kept "
		        "(--log-dir DIR keeps them there)\n");
	r = cmd_net_run_curses(&loop, &nc, NULL, banner[0] ? banner : NULL, share[0] ? share : NULL, preset, save_dir, NULL);
	cmd_net_password_wipe(&pw);
	seatfile_release(nc.seat_file, &claim);
	return r;
}
