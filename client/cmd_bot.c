/* SPDX-License-Identifier: MIT */
/* cmd_bot: `wizwar bot`: a bot that plays over the network, headless. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "cli.h"
#include "ident.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "lan.h"
#include "netbot.h"
#include "spect.h"
#include "rated.h"
#include "recstore.h"
#include "quick.h"
#include "text.h"

struct botctx {
	struct netbot bot;
	struct cmd_net_stopper st;
	int status;
	const char *new_room; /* --new-room: the code, until it is said */
};

static void
bot_end(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why)
{
	static const char *const res[] = { "unfinished", "player 1 wins", "player 2 wins", "a draw" };
	int me = net_player(b->net);
	bool won = (e->result == RESULT_WIN0 && me == 0) || (e->result == RESULT_WIN1 && me == 1);

	(void)ud;
	printf("duel %d: %s (%s), seed %016" PRIx64 ": %s%s\n", b->games, res[e->result & 3],
	       e->result == RESULT_DRAW ? "draw" : won ? "won" : "lost", e->seed, verified ? "" : "NOT VERIFIED: ", why);
	fflush(stdout);
}

static void
bot_start(void *ud, struct netbot *b, const struct view *v, bool resumed)
{
	(void)ud;
	(void)b;
	/* Said on stderr: a killed bot run again (its seat file) is back where the duel is. */
	if (resumed)
		cli_error("back in the duel at turn %" PRIu32 "\n", v->turn_no);
}

static void
bot_closed(void *ud, struct netbot *b)
{
	struct botctx *x = ud;

	/* Stopped by a signal, a bot has not failed for a warning it had before its first duel
	 * (a seat the server had forgotten, say): only being cut off, or errors and no duel
	 * when it ended by itself, count. */
	if ((b->errors && b->games == 0 && !x->st.fired) || b->cut_off)
		x->status = 1;
	if (b->unverified)
		x->status = 1;
	cmd_net_stopper_done(&x->st);
}

/* The room asked for exists once the server has taken us: only then is its code worth
 * passing on (a player told earlier could arrive first and find no room). */
static void
bot_msg(void *ud, struct netbot *b, const struct wire_msg *m)
{
	struct botctx *x = ud;

	if (m->type == WIRE_RATED) {
		/* The rated duel's ratings, before and after, checked against the server's key. */
		const struct rated_rec *r = &m->u.rated.rec;
		const uint8_t *pk = net_rated_key(b->net, &m->u.rated); /* its signer's: kept in that server's file */
		int me = net_player(b->net);
		bool ok = pk && me >= 0 && me < PLAYERS;
		if (!ok) {
			cli_error("a rated record that is not the server's signature: ignored\n");
			return;
		}
		char why[300], dir[4096];
		if (recstore_keep(cli_state_dir(dir, sizeof dir) ? dir : NULL, pk, m->u.rated.signer, r, why, sizeof why) < 0)
			cli_error("the rating record could not be kept: %s\n", why);
		printf("rated: %.0f -> %.0f (+-%.0f), opponent %.0f -> %.0f (+-%.0f)\n", r->before[me].rating,
		       r->after[me].rating, r->after[me].deviation, r->before[1 - me].rating, r->after[1 - me].rating,
		       r->after[1 - me].deviation);
		fflush(stdout);
		return;
	}
	if (m->type == WIRE_WELCOME && x->new_room) {
		printf("room %s: the other player joins with --room %s\n", x->new_room, x->new_room);
		fflush(stdout);
		x->new_room = NULL;
	}
}

static void
stop_bot(void *ud)
{
	struct botctx *x = ud;

	/* A closed terminal is a dropped connection, not leaving: the seat is held and its seat
	 * file kept for the same command to take it back. */
	if (x->st.signum == SIGHUP)
		netbot_abandon(&x->bot);
	else
		netbot_stop(&x->bot);
}

static void
bot_key(void *ud, struct net *n, int how, const char *fp)
{
	(void)ud;
	(void)n;
	cli_error("%s (%s)\n", cmd_net_key_how(how), fp);
}

/* --spectators off | shared | after | delayed:K[:P]: what /spectators says, in one word. */
static bool
spectators_arg(const char *w, struct netbot_config *bc)
{
	long k = 0, p = 1;
	char extra;

	bc->spect_set = true;
	bc->spect_allowed = strcmp(w, "off") != 0;
	bc->spect_delay = bc->spect_player = 0;
	if (strcmp(w, "off") == 0 || strcmp(w, "shared") == 0) {
		bc->spect_mode = SPECT_SHARED;
	} else if (strcmp(w, "after") == 0) {
		bc->spect_mode = SPECT_AFTER;
	} else if ((sscanf(w, "delayed:%ld:%ld%c", &k, &p, &extra) == 2 || sscanf(w, "delayed:%ld%c", &k, &extra) == 1) &&
	           k >= SPECT_DELAY_MIN && k <= SPECT_DELAY_MAX && p >= 1 && p <= PLAYERS) {
		bc->spect_mode = SPECT_DELAYED;
		bc->spect_delay = (int)k;
		bc->spect_player = (int)p - 1; /* people count players from 1 */
	} else {
		cli_error("--spectators takes off, shared, after or delayed:K[:P] (K %d to %d turns, player 1 or 2), not '%s'\n",
		          SPECT_DELAY_MIN, SPECT_DELAY_MAX, w);
		return false;
	}
	return true;
}

int
cmd_bot(int argc, char **argv)
{
	struct netbot_config bc;
	static struct botctx x;
	static struct cmd_net_pw pw;
	uv_loop_t loop;
	char host[256], why[300], namebuf[64], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	const char *key_file = NULL;
	static struct auth_ident ident;
	char seatbuf[4200], code[PROTO_ROOM_BYTES + 1];
	struct seatfile_claim claim = { -1, -1 };
	const char *addr = NULL;
	static char lan_addr[LAN_ADDR_MAX + 16], lan_label[LAN_NAME_MAX + 40]; /* kept by bc.net */
	bool lan_pw = false;
	bool have_seed = false, have_fp;
	struct cmd_net_room room;
	long v;
	int r;

	cmd_net_room_init(&room);
	memset(&bc, 0, sizeof bc);
	net_config_default(&bc.net);
	bc.net.role = ROLE_BOT;
	bc.level = BOT_NORMAL;
	bc.think_ms = 250;
	bc.ready = true;
	const char *bot_usage = help_get(HELP_BOT);
	int args = cli_args("bot", bot_usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if ((r = cmd_net_password_option(argc, argv, &i, &pw, "bot")) < 0)
			return 2;
		if (r > 0)
			continue;
		if ((r = cmd_net_room_option(argc, argv, &i, &room)) < 0)
			return 2;
		if (r > 0)
			continue;
		if (cmd_net_is_help(a)) {
			fputs(bot_usage, stdout);
			return 0;
		} else if (strcmp(a, "--level") == 0 && more) {
			if ((bc.level = bot_level_lookup(argv[++i])) < 0) {
				cli_error("--level takes random, novice, easy, normal, hard or master, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--name") == 0 && more) {
			if (!cmd_net_text_arg(argv[++i], TEXT_NAME, "--name"))
				return 2;
			bc.net.name = argv[i];
		} else if (strcmp(a, "--games") == 0 && more) {
			if (!cli_int(argv[++i], 0, 1000000, "--games", &v))
				return 2;
			bc.games = (int)v;
		} else if (strcmp(a, "--think") == 0 && more) {
			if (!cli_int(argv[++i], 0, 60000, "--think", &v))
				return 2;
			bc.think_ms = (unsigned)v;
		} else if (strcmp(a, "--seed") == 0 && more) {
			if (!cli_seed(argv[++i], &bc.seed))
				return 2;
			have_seed = true;
		} else if (strcmp(a, "--reconnect") == 0 && more) {
			if (!cli_int(argv[++i], 1, 86400, "--reconnect", &v))
				return 2;
			bc.net.reconnect_for_ms = (unsigned)v * 1000;
		} else if (strcmp(a, "--mirror") == 0) {
			bc.mirror = true;
		} else if (strcmp(a, "--spectators") == 0 && more) {
			if (!spectators_arg(argv[++i], &bc))
				return 2;
		} else if (strcmp(a, "--key") == 0 && more) {
			key_file = argv[++i];
		} else if (a[0] != '-' && addr == NULL) {
			addr = a;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", a, bot_usage);
			return 2;
		}
	}
	const char *lan = room.lan;
	if (addr == NULL && lan == NULL) {
		cli_error("which server? (HOST[:PORT], or --lan NAME)\n%s", bot_usage);
		return 2;
	}
	if (addr && lan) {
		cli_error("an address or --lan NAME, not both\n");
		return 2;
	}
	if (!cmd_net_room_check(&room, true))
		return 2;
	bc.net.room = room.room;
	if (lan) {
		if ((r = lan_choose(lan, LAN_BROWSE_MS, lan_addr, sizeof lan_addr, fp, &lan_pw, lan_label, sizeof lan_label)))
			return r;
		addr = lan_addr;
		bc.net.fingerprint_from = lan_label;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (lan)
		have_fp = true; /* lan_choose's */
	else if (!cmd_net_split_fingerprint(addrbuf, fp, &have_fp, "bot"))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &bc.net.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 2;
	}
	bc.net.host = host;
	if (!cmd_net_password_get(&pw, "bot", "Password: ", &bc.net.password))
		return 1;
	cmd_net_client_trust(&bc.net, fp, have_fp, known, sizeof known);
	bc.net.ev.key = bot_key;
	if (bc.net.name == NULL) {
		snprintf(namebuf, sizeof namebuf, "%s-bot", bot_level_name(bc.level));
		bc.net.name = namebuf;
	}
	if (auth_init() != 0 || !ident_get(key_file, IDENT_BOT, &ident))
		return 1;
	bc.net.ident = &ident; /* net_create copies it */
	struct quick_via via; /* outlives the block: the join may go through its host */
	if (room.quick) {
		unsigned rating = 0;
		/* Each wave's WAITING a line on stderr, as join says it: a bot's log shows how it waited. */
		r = quick_pair(&bc.net, &room.opt, (unsigned)room.turn_time, (unsigned)room.bot_after, true, code, &rating,
		               &via);
		if (r < 0)
			return 1;
		if (r > 0) {
			cli_error("nobody to pair with came in %ld s (rating %u)\n", room.bot_after, rating);
			return 3;
		}
		printf("paired: room %s\n", code);
		fflush(stdout);
		bc.net.room = code;
		quick_join_via(&bc.net, &via);
	}
	if (room.new_room) {
		cmd_net_new_room_code(code);
		bc.net.room = code;
		bc.net.create_room = true;
		bc.net.public_room = room.public_room;
		x.new_room = code; /* said once the server has made it: bot_msg */
		/* AUTH carries no options: the bot, the room's controller, sets them in its first lobby. */
		bc.opt_set = room.game_opt != NULL;
		bc.opt = room.opt;
		bc.turn_time = (int)room.turn_time;
	}
	bc.on_msg = bot_msg; /* the room's code (--new-room), a rated duel's ratings */
	bc.net.seat_file = cmd_net_seat_path("bot", &bc.net, seatbuf, sizeof seatbuf, &claim);
	if (!have_seed)
		bc.seed = auth_random64();
	bc.ud = &x;
	bc.on_end = bot_end;
	bc.on_start = bot_start;
	bc.on_closed = bot_closed;
	if (uv_loop_init(&loop) != 0) {
		seatfile_release(bc.net.seat_file, &claim);
		return 1;
	}
	r = netbot_start(&x.bot, &loop, &bc, why, sizeof why);
	cmd_net_password_wipe(&pw); /* net keeps its own copy, wiped when it closes */
	if (r != 0) {
		cli_error("%s\n", why);
		uv_loop_close(&loop);
		seatfile_release(bc.net.seat_file, &claim);
		return 2;
	}
	cmd_net_stopper_init(&x.st, &loop, stop_bot, &x);
	int rc = cmd_net_finish_loop(&loop);
	seatfile_release(bc.net.seat_file, &claim);
	return rc ? rc : x.status;
}
