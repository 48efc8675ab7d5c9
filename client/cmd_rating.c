/* SPDX-License-Identifier: MIT */
/* cmd_rating: wizwar history, top and stats: a server's ratings asked over the encrypted channel, records checked offline. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "ident.h"
#include "rated.h"
#include "recstore.h"
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

/* --skip's bound: past any history a key plays (and u32 on the wire) */
#define HISTORY_SKIP_MAX 100000000

static const char *const reasons[] = { "", "killed", "resigned", "turn limit" };

/* Which seat of r is the key `me`: 0, 1, or -1 (a duel of others). */
static int
seat_of(const struct rated_rec *r, const uint8_t me[PROTO_IDENT_KEY_LEN])
{
	return memcmp(r->key[0], me, PROTO_IDENT_KEY_LEN) == 0 ? 0 : memcmp(r->key[1], me, PROTO_IDENT_KEY_LEN) == 0 ? 1 : -1;
}

static void
duel_id(const struct rated_rec *r, char id[17], char when[32])
{
	time_t t = (time_t)r->time;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, 32, "%Y-%m-%d %H:%M:%SZ", &tm);
	sodium_bin2hex(id, 17, r->commit, 8);
}

/* The history: every record must be the server's signature over a duel of this key; one that is
 * not is refused loudly, and the whole answer with it (exit 1): a server that forges one record
 * is not believed for the others. */
static int
show_history(const uint8_t me[PROTO_IDENT_KEY_LEN], const uint8_t server_pk[32], const struct recstore_entry *e,
             size_t n, const char *fp)
{
	int bad = 0;

	printf("server %s\n", fp);
	for (size_t i = 0; i < n; i++) {
		const struct rated_rec *r = &e[i].rec;
		int p = seat_of(r, me);
		char when[32], opp[AUTH_FP_LEN + 1], id[17];

		if (!rated_verify(r, e[i].signer, server_pk)) {
			cli_error("FORGED: record %zu does not verify against the server's key %s: refused\n", i + 1, fp);
			bad++;
			continue;
		}
		if (p < 0) {
			cli_error("record %zu is a duel of other players (signed, but not yours): refused\n", i + 1);
			bad++;
			continue;
		}
		duel_id(r, id, when);
		auth_fingerprint(r->key[1 - p], opp);
		printf("duel %s %s %s (%s) as player %d vs %s: %.0f -> %.0f (+-%.0f), opponent %.0f -> %.0f\n", id, when,
		       outcome(r, p), reasons[r->reason], p + 1, opp, r->before[p].rating, r->after[p].rating,
		       r->after[p].deviation, r->before[1 - p].rating, r->after[1 - p].rating);
	}
	if (bad) {
		cli_error("%d of %zu records refused: this server's history is not to be trusted\n", bad, n);
		return 1;
	}
	return 0;
}

/* Every record this client was given by this server for the key `me` (recstore.h) must be in
 * the server's whole history, byte for byte: a server that dropped one, or signed another
 * outcome for the same duel since, is caught here. The number of records checked, or -1 (said). */
static long
check_kept(const struct recstore *kept, const uint8_t me[PROTO_IDENT_KEY_LEN], const struct recstore_entry *e, size_t n)
{
	uint8_t a[RATED_SIGNED_LEN], b[RATED_SIGNED_LEN];
	long checked = 0, bad = 0;

	for (size_t i = 0; i < kept->count; i++) {
		const struct rated_rec *r = &kept->e[i].rec;
		char id[17], when[32];
		size_t j;

		if (seat_of(r, me) < 0)
			continue; /* another key's of this machine */
		checked++;
		for (j = 0; j < n && memcmp(e[j].rec.commit, r->commit, PROTO_COMMIT_LEN) != 0; j++)
			;
		duel_id(r, id, when);
		if (j == n) {
			cli_error("MISSING: duel %s of %s, whose record this server gave you, is not in its history now\n", id, when);
			bad++;
			continue;
		}
		rated_put(r, a);
		rated_put(&e[j].rec, b);
		if (memcmp(a, b, sizeof a) != 0) {
			cli_error("CHANGED: duel %s of %s is in the server's history with another record than the one it gave you\n",
			          id, when);
			bad++;
		}
	}
	if (bad) {
		cli_error("%ld of the %ld records kept here are not in the server's history as given: this server's history "
		          "is not to be trusted\n", bad, checked);
		return -1;
	}
	return checked;
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

/* One question over its own connection (an ASK is a connection's only request): 0 with a->ans
 * (the caller frees it), or -1 said on stderr. */
static int
ask_once(uv_loop_t *loop, struct net_config *nc, struct ask_run *a)
{
	char why[300];

	a->answered = false;
	a->ans = NULL;
	a->why[0] = '\0';
	if ((a->net = net_create(loop, nc, why, sizeof why)) == NULL) {
		cli_error("%s\n", why);
		return -1;
	}
	uv_run(loop, UV_RUN_DEFAULT);
	if (!a->answered) {
		cli_error("%s\n", a->why[0] ? a->why : "no answer from the server");
		return -1;
	}
	return 0;
}

/* --all: at most this many pages (a connection each) */
#define HISTORY_PAGES_MAX (RECSTORE_MAX / WIRE_RECORDS_MAX)

/* history: the pages asked for, shown and checked; the records kept, and those kept checked
 * against the history when it is whole. */
static int
history(uv_loop_t *loop, struct net_config *nc, struct ask_run *a, uint32_t skip, bool all, const char *server)
{
	struct recstore_entry *got = NULL;
	struct recstore kept;
	size_t n = 0, fetched = 0;
	bool whole = false, full = false;
	char fp[AUTH_FP_LEN + 1], dir[4096], path[4200], why[400];
	int status = 1, lock = -1;

	memset(&kept, 0, sizeof kept);
	for (unsigned page = 0; page < HISTORY_PAGES_MAX; page++) {
		a->ask.skip = skip + (uint32_t)fetched;
		if (ask_once(loop, nc, a) != 0)
			goto out;
		const struct wire_records *x = &a->ans->u.records;
		struct recstore_entry *more = realloc(got, (n + x->count + 1) * sizeof *got);
		if (more == NULL) {
			cli_error("out of memory\n");
			goto out;
		}
		got = more;
		fetched += x->count;
		for (unsigned i = 0; i < x->count; i++) {
			/* A duel rated between two pages shifts the later ones by one: it comes twice. */
			size_t j;
			for (j = 0; j < n && memcmp(got[j].rec.commit, x->rec[i].commit, PROTO_COMMIT_LEN) != 0; j++)
				;
			if (j < n)
				continue;
			memcpy(got[n].signer, x->signer, RATED_SIGNER_LEN);
			got[n++].rec = x->rec[i];
		}
		full = x->count == WIRE_RECORDS_MAX;
		free(a->ans);
		a->ans = NULL;
		if (!full) {
			whole = skip == 0;
			break;
		}
		if (!all)
			break;
	}
	auth_fingerprint(a->server_pk, fp);
	if (show_history(a->me, a->server_pk, got, n, fp) != 0)
		goto out;
	if (skip)
		printf("%zu rated duel%s after the newest %" PRIu32 ", every record signed by the server's key %s\n", n,
		       n == 1 ? "" : "s", skip, fp);
	else
		printf("%zu rated duel%s, every record signed by the server's key %s\n", n, n == 1 ? "" : "s", fp);
	if (full)
		printf("older ones: wizwar history %s --skip %zu (or --all)\n", server, (size_t)skip + fetched);
	/* The records kept on this machine for this server: checked when the history is whole, and
	 * the server's own (each verified above) added, such as a duel that ended while this
	 * player was away (docs/client.md, "Rating records"). */
	if (!cli_state_dir(dir, sizeof dir) || !recstore_path(dir, a->server_pk, path, sizeof path)) {
		cli_error("no state folder to keep records in (set HOME or XDG_STATE_HOME)\n");
		goto out;
	}
	if ((lock = recstore_lock(path, why, sizeof why)) < 0 || recstore_load(path, a->server_pk, &kept, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		goto out;
	}
	if (whole) {
		long checked = check_kept(&kept, a->me, got, n);
		if (checked < 0)
			goto out;
		printf("all %ld record%s kept here (%s) are in it, as given\n", checked, checked == 1 ? "" : "s", path);
	}
	bool added = false;
	for (size_t i = 0; i < n; i++) {
		int r = recstore_add(&kept, got[i].signer, &got[i].rec);
		if (r < 0) {
			cli_error("out of memory\n");
			goto out;
		}
		added |= r > 0;
	}
	if (added && recstore_save(path, &kept, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		goto out;
	}
	status = 0;
out:
	free(a->ans);
	a->ans = NULL;
	free(got);
	recstore_free(&kept);
	if (lock >= 0)
		close(lock);
	return status;
}

static int
run(const char *cmd, int kind, enum help_id help, int argc, char **argv)
{
	static struct ask_run a;
	static struct auth_ident ident;
	static struct net_config nc;
	const char *usage = help_get(help), *addr = NULL, *name = NULL, *key_file = NULL;
	char host[256], why[300], addrbuf[512], fp[AUTH_FP_LEN + 1], known[4200];
	bool have_fp, all = false;
	long skip = 0;
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
		} else if (kind == ASK_HISTORY && strcmp(s, "--skip") == 0 && i + 1 < argc) {
			if (!cli_int(argv[++i], 0, HISTORY_SKIP_MAX, "--skip", &skip))
				return 2;
		} else if (kind == ASK_HISTORY && strcmp(s, "--all") == 0) {
			all = true;
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
	if (kind == ASK_HISTORY) {
		status = history(&loop, &nc, &a, (uint32_t)skip, all, addr);
	} else if (ask_once(&loop, &nc, &a) == 0) {
		auth_fingerprint(a.server_pk, fp);
		status = show_ladder(&a, name);
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
