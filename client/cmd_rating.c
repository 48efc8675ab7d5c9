/* SPDX-License-Identifier: MIT */
/* cmd_rating: wizwar history, top and stats: a server's ratings asked over the encrypted channel, records checked offline. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "ident.h"
#include "rated.h"
#include "text.h"

/* One question, its answer, and what was said on the way. */
struct ask_run {
	struct net *net;
	struct wire_ask ask;
	uint8_t me[PROTO_IDENT_KEY_LEN];
	uint8_t server_pk[32];
	bool have_pk, answered;
	struct wire_msg *ans;
	char why[400];
};

static void
ev_answer(void *ud, struct net *n, const struct wire_msg *m)
{
	struct ask_run *a = ud;
	const uint8_t *pk = net_server_key(n);

	if (a->answered)
		return;
	if (pk) {
		memcpy(a->server_pk, pk, sizeof a->server_pk);
		a->have_pk = true;
	}
	if ((a->ans = malloc(sizeof *a->ans)) != NULL) {
		memcpy(a->ans, m, sizeof *a->ans);
		a->answered = true;
	}
	net_close(n);
}

static void
ev_error(void *ud, struct net *n, int code, bool fatal, const char *text)
{
	struct ask_run *a = ud;

	(void)n, (void)code;
	if (fatal && !a->answered && !a->why[0])
		snprintf(a->why, sizeof a->why, "%s", text);
}

static void
ev_closed(void *ud, struct net *n)
{
	struct ask_run *a = ud;

	(void)n;
	a->net = NULL;
}

static const char *
outcome(const struct rated_rec *r, int p)
{
	double s = rated_score(r, p);

	return s == 1.0 ? "won" : s == 0.5 ? "draw" : "lost";
}

static const char *const reasons[] = { "", "killed", "resigned", "turn limit" };

/* The history: every record must be the server's signature over a duel of this key; one that is
 * not is refused loudly, and the whole answer with it (exit 1): a server that forges one record
 * is not believed for the others. */
static int
show_history(const struct ask_run *a, const char *fp)
{
	const struct wire_records *x = &a->ans->u.records;
	int bad = 0;

	printf("server %s\n", fp);
	for (unsigned i = 0; i < x->count; i++) {
		const struct rated_rec *r = &x->rec[i];
		int p = memcmp(r->key[0], a->me, PROTO_IDENT_KEY_LEN) == 0 ? 0 : memcmp(r->key[1], a->me, PROTO_IDENT_KEY_LEN) == 0 ? 1 : -1;
		char when[32], opp[AUTH_FP_LEN + 1], id[17];
		time_t t = (time_t)r->time;
		struct tm tm;

		if (!rated_verify(r, x->signer, a->server_pk)) {
			cli_error("FORGED: record %u does not verify against the server's key %s: refused\n", i + 1, fp);
			bad++;
			continue;
		}
		if (p < 0) {
			cli_error("record %u is a duel of other players (signed, but not yours): refused\n", i + 1);
			bad++;
			continue;
		}
		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%SZ", &tm);
		auth_fingerprint(r->key[1 - p], opp);
		sodium_bin2hex(id, sizeof id, r->commit, 8);
		printf("duel %s %s %s (%s) as player %d vs %s: %.0f -> %.0f (+-%.0f), opponent %.0f -> %.0f\n", id, when,
		       outcome(r, p), reasons[r->reason], p + 1, opp, r->before[p].rating, r->after[p].rating,
		       r->after[p].deviation, r->before[1 - p].rating, r->after[1 - p].rating);
	}
	if (bad) {
		cli_error("%d of %u records refused: this server's history is not to be trusted\n", bad, x->count);
		return 1;
	}
	printf("%u rated duel%s, every record signed by the server's key %s\n", x->count, x->count == 1 ? "" : "s", fp);
	return 0;
}

static void
row(int rank, const struct wire_ladder_row *o)
{
	if (rank > 0)
		printf("%4d  ", rank);
	else
		printf("      ");
	printf("%-24s %5u  +-%-4u %6" PRIu32 " %6" PRIu32 " %6" PRIu32 " %6" PRIu32 "\n", o->name, o->rating, o->deviation,
	       o->games, o->wins, o->draws, o->games - o->wins - o->draws);
}

static int
show_ladder(const struct ask_run *a, const char *name)
{
	const struct wire_ladder *x = &a->ans->u.ladder;
	int rank = 0;
	bool prov_said = false;

	if (a->ask.kind == ASK_STATS && x->count == 0) {
		cli_error("%s has no rated duel on this server\n", name);
		return 1;
	}
	printf("rank  %-24s %5s  %-6s %6s %6s %6s %6s\n", "name", "rating", "dev", "duels", "wins", "draws", "losses");
	for (unsigned i = 0; i < x->count; i++) {
		const struct wire_ladder_row *o = &x->row[i];
		if (o->flags & LADDER_PROVISIONAL) {
			if (!prov_said && a->ask.kind == ASK_TOP)
				printf("provisional (deviation 110 or more: too few duels to rank yet):\n");
			prov_said = true;
			row(0, o);
		} else {
			row(++rank, o);
		}
	}
	if (a->ask.kind == ASK_TOP && x->count == 0)
		printf("(no rated duel yet)\n");
	else if (a->ask.kind == ASK_TOP && !(x->flags & LADDER_ALL))
		printf("(the best established and provisional players only: %u shown)\n", x->count);
	return 0;
}

static int
run(const char *cmd, int kind, enum help_id help, int argc, char **argv)
{
	static struct ask_run a;
	static struct auth_ident ident;
	static struct net_config nc;
	const char *usage = help_get(help), *addr = NULL, *name = NULL, *key_file = NULL;
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	bool have_fp;
	uv_loop_t loop;
	int status = 1;

	memset(&a, 0, sizeof a);
	net_config_default(&nc);
	int args = kind == ASK_STATS ? cli_args2(cmd, usage, &argc, &argv, &addr, &name)
	                             : cli_args(cmd, usage, &argc, &argv, &addr);
	if (args >= 0)
		return args;
	if (name && !cmd_net_text_arg(name, TEXT_NAME, "NAME"))
		return 2;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (cmd_net_is_help(s)) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(s, "--key") == 0 && i + 1 < argc) {
			key_file = argv[++i];
		} else if (s[0] != '-' && addr == NULL) {
			addr = s;
		} else if (s[0] != '-' && kind == ASK_STATS && name == NULL) {
			if (!cmd_net_text_arg(s, TEXT_NAME, "NAME"))
				return 2;
			name = s;
		} else {
			cli_error("unknown or incomplete argument '%s'\n%s", s, usage);
			return 2;
		}
	}
	if (addr == NULL || (kind == ASK_STATS && name == NULL)) {
		cli_error("%s\n%s", kind == ASK_STATS ? "which server and whose stats? (HOST[:PORT] NAME)" : "which server? (HOST[:PORT])",
		          usage);
		return 2;
	}
	snprintf(addrbuf, sizeof addrbuf, "%s", addr);
	if (!cmd_net_split_fingerprint(addrbuf, fp, &have_fp, cmd))
		return 2;
	if (net_parse_hostport(addrbuf, host, sizeof host, &nc.port, NET_DEFAULT_PORT, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return 2;
	}
	if (auth_init() != 0 || !ident_get(key_file, IDENT_PLAYER, &ident))
		return 1;
	memcpy(a.me, ident.pk, sizeof a.me);
	a.ask.kind = (uint8_t)kind;
	if (name)
		snprintf(a.ask.name, sizeof a.ask.name, "%s", name);
	nc.host = host;
	nc.name = "asker";
	nc.room = "";
	nc.ident = &ident;
	nc.ask = &a.ask;
	nc.reconnect_for_ms = 0;
	cmd_net_client_trust(&nc, fp, have_fp, known, sizeof known);
	nc.ud = &a;
	nc.ev = (struct net_events){ .error = ev_error, .closed = ev_closed, .answer = ev_answer };
	if (uv_loop_init(&loop) != 0)
		return 1;
	if ((a.net = net_create(&loop, &nc, why, sizeof why)) == NULL) {
		cli_error("%s\n", why);
	} else {
		uv_run(&loop, UV_RUN_DEFAULT);
		if (!a.answered) {
			cli_error("%s\n", a.why[0] ? a.why : "no answer from the server");
		} else {
			auth_fingerprint(a.server_pk, fp);
			status = kind == ASK_HISTORY ? show_history(&a, fp) : show_ladder(&a, name);
		}
	}
	free(a.ans);
	auth_ident_wipe(&ident);
	if (cmd_net_finish_loop(&loop) != 0)
		status = status ? status : 1;
	return status;
}

int
cmd_history(int argc, char **argv)
{
	return run("history", ASK_HISTORY, HELP_HISTORY, argc, argv);
}

int
cmd_top(int argc, char **argv)
{
	return run("top", ASK_TOP, HELP_TOP, argc, argv);
}

int
cmd_stats(int argc, char **argv)
{
	return run("stats", ASK_STATS, HELP_STATS, argc, argv);
}
