/* SPDX-License-Identifier: MIT */
/* cmd_rating: wizwar history, top and stats: a server's ratings asked over the encrypted channel, records checked offline. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/stat.h>

#include <sodium.h>

#include "cli.h"
#include "cmd_net.h"
#include "commands_net.h"
#include "help.h"
#include "ident.h"
#include "known.h"
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
	const char *known;   /* the known-servers file (NULL: none) */
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

/*
 * Whose records a history may hold (docs/client.md, "Rating records"). A record verifies against
 * its own signer key A, and A stands for one server key (rated_signer_server). In a cluster
 * sharing one store each node signs the duels it rates, so the node asked answers with other
 * nodes' records too. A record counts as verified only when its signer is a server this
 * machine trusts on its own: the node asked (the key of this connection's handshake), a server
 * whose fingerprint the known-servers file pins, or one whose records are kept here (it gave
 * this user a RATED over its own channel, or a node of its cluster did). A node cannot vouch
 * for a key: a hostile node could then sign "another node's" records with a key it made up.
 */
enum { SIGNERS_MAX = 64 }; /* distinct signers looked up in one history; more are all unknown */
struct signer {
	uint8_t pk[32];       /* the server key */
	char fp[AUTH_FP_LEN + 1];
	bool trusted;
	size_t used;          /* records of this history it signed (verified ones) */
};
struct signers {
	const uint8_t *asked; /* the node asked */
	const char *known;    /* the known-servers file, or NULL */
	const char *state;    /* the state folder, or NULL */
	size_t n;
	struct signer s[SIGNERS_MAX];
};

/* The row of a server key in the table (looked up the first time: the known-servers file, a
 * records file), or NULL when the table is full. */
static struct signer *
signer_row(struct signers *t, const uint8_t pk[32])
{
	char path[4200];
	struct stat st;

	for (size_t i = 0; i < t->n; i++)
		if (memcmp(t->s[i].pk, pk, 32) == 0)
			return &t->s[i];
	if (t->n == SIGNERS_MAX)
		return NULL;
	struct signer *g = &t->s[t->n++];
	memset(g, 0, sizeof *g);
	memcpy(g->pk, pk, 32);
	auth_fingerprint(pk, g->fp);
	g->trusted = sodium_memcmp(pk, t->asked, 32) == 0 || (t->known && known_has_fp(t->known, g->fp)) ||
	             (t->state && recstore_path(t->state, pk, path, sizeof path) && lstat(path, &st) == 0 &&
	              S_ISREG(st.st_mode) && st.st_uid == geteuid());
	return g;
}

/* The history: every record must be a signature, by the key it names, over a duel of this key.
 * One that is not is refused loudly, and the whole answer with it (exit 1): a server that forges
 * one record is not believed for the others. One signed by a server this machine never met is
 * said (UNKNOWN SIGNER) and not counted: 0 all verified, 1 some not, -1 refused. */
static int
show_history(const uint8_t me[PROTO_IDENT_KEY_LEN], struct signers *t, const struct recstore_entry *e, size_t n,
             bool *verified)
{
	int bad = 0, unknown = 0;

	printf("server %s\n", t->s[0].fp);
	for (size_t i = 0; i < n; i++) {
		const struct rated_rec *r = &e[i].rec;
		int p = seat_of(r, me);
		char when[32], opp[AUTH_FP_LEN + 1], id[17], by[AUTH_FP_LEN + 16] = "";
		uint8_t pk[32];
		struct signer *g = NULL;

		verified[i] = false;
		if (!rated_signer_server(e[i].signer, pk) || !rated_verify(r, e[i].signer, pk)) {
			cli_error("FORGED: record %zu does not verify against the key it names as its signer: refused\n", i + 1);
			bad++;
			continue;
		}
		if (p < 0) {
			cli_error("record %zu is a duel of other players (signed, but not yours): refused\n", i + 1);
			bad++;
			continue;
		}
		if ((g = signer_row(t, pk)) == NULL || !g->trusted) {
			char fp[AUTH_FP_LEN + 1];
			auth_fingerprint(pk, fp);
			cli_error("UNKNOWN SIGNER: record %zu is signed by the server key %s, which this machine has never met "
			          "(not in known_servers, no records of it kept): not verified\n", i + 1, fp);
			unknown++;
			continue;
		}
		verified[i] = true;
		g->used++;
		if (g != &t->s[0])
			snprintf(by, sizeof by, ", signed by %s", g->fp);
		duel_id(r, id, when);
		auth_fingerprint(r->key[1 - p], opp);
		printf("duel %s %s %s (%s) as player %d vs %s: %.0f -> %.0f (+-%.0f), opponent %.0f -> %.0f%s\n", id, when,
		       outcome(r, p), reasons[r->reason], p + 1, opp, r->before[p].rating, r->after[p].rating,
		       r->after[p].deviation, r->before[1 - p].rating, r->after[1 - p].rating, by);
	}
	if (bad) {
		cli_error("%d of %zu records refused: this server's history is not to be trusted\n", bad, n);
		return -1;
	}
	if (unknown)
		cli_error("%d of %zu records not verified: signed by servers this machine never met (a node of this "
		          "cluster you never played on?); ask that server itself once (wizwar history HOST:PORT#FINGERPRINT "
		          "pins its key) and ask again\n", unknown, n);
	return unknown ? 1 : 0;
}

/* The records kept here from one server key (recstore.h: its file) for the key `me`, against the
 * history asked for: a duel in both must be there byte for byte, under the same signer (a node
 * that re-signed another outcome, with its own key or any other, is caught: CHANGED); with
 * `complete` (the history is whole and this signer's records are in it: the node asked's own,
 * or a signer of some record it gave) every record kept must be in it (MISSING). The number of
 * records checked, or -1 (said). */
static long
check_kept(const struct recstore *kept, const uint8_t me[PROTO_IDENT_KEY_LEN], const struct recstore_entry *e, size_t n,
           bool complete)
{
	uint8_t a[RATED_SIGNED_LEN], b[RATED_SIGNED_LEN];
	long checked = 0, bad = 0;

	for (size_t i = 0; i < kept->count; i++) {
		const struct rated_rec *r = &kept->e[i].rec;
		char id[17], when[32];
		size_t j;

		if (seat_of(r, me) < 0)
			continue; /* another key's of this machine */
		for (j = 0; j < n && memcmp(e[j].rec.commit, r->commit, PROTO_COMMIT_LEN) != 0; j++)
			;
		if (j == n && !complete)
			continue;
		checked++;
		duel_id(r, id, when);
		if (j == n) {
			cli_error("MISSING: duel %s of %s, whose record this server gave you, is not in its history now\n", id, when);
			bad++;
			continue;
		}
		rated_put(r, a);
		rated_put(&e[j].rec, b);
		if (memcmp(a, b, sizeof a) != 0 || memcmp(kept->e[i].signer, e[j].signer, RATED_SIGNER_LEN) != 0) {
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

/* The records file of one server key: checked against the history (check_kept: pass 0), or,
 * for a signer of this history that this machine trusts, given its verified records (pass 1,
 * such as a duel that ended while this player was away: docs/client.md, "Rating records").
 * Under the file's lock, one file at a time. 0, or -1 said. */
static int
keep_file(int pass, const char *path, const uint8_t pk[32], bool mine, bool whole, const uint8_t me[PROTO_IDENT_KEY_LEN],
          const struct recstore_entry *got, const bool *verified, size_t n)
{
	char why[400];
	struct recstore kept;
	int lock, rc = -1;
	bool added = false;

	if ((lock = recstore_lock(path, why, sizeof why)) < 0) {
		cli_error("%s\n", why);
		return -1;
	}
	if (recstore_load(path, pk, &kept, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		close(lock);
		return -1;
	}
	if (pass == 0) {
		long checked = check_kept(&kept, me, got, n, mine && whole);
		if (checked < 0)
			goto out;
		if (mine && whole)
			printf("all %ld record%s kept here (%s) are in it, as given\n", checked, checked == 1 ? "" : "s", path);
	}
	for (size_t i = 0; pass == 1 && mine && i < n; i++) {
		uint8_t spk[32];
		if (!verified[i] || !rated_signer_server(got[i].signer, spk) || memcmp(spk, pk, 32) != 0)
			continue;
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
	rc = 0;
out:
	recstore_free(&kept);
	close(lock);
	return rc;
}

/* How many other servers' records files a history checks its duels against: past that, the rest are not read. */
#define KEPT_FILES_MAX 256

/* Every records file in STATE/records: the node asked's and each trusted signer's of this history
 * (`mine`: checked whole and added to), and every other server's (a duel it gave that this
 * history holds otherwise is CHANGED). Pass 0 checks them all, pass 1 adds: nothing is added
 * from a history one of the files refutes (a record a node re-signed, kept, would make the
 * next history against the honest record CHANGED). 0, or -1 said. */
static int
keep_pass(int pass, const char *dir, const struct signers *t, bool whole, const uint8_t me[PROTO_IDENT_KEY_LEN],
          const struct recstore_entry *got, const bool *verified, size_t n)
{
	char rdir[4200], path[4200 + AUTH_FP_LEN], why[400];
	bool done[SIGNERS_MAX] = { false };
	unsigned files = 0;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(rdir, sizeof rdir, "%s/records", dir);
	if ((d = opendir(rdir)) != NULL) {
		while (rc == 0 && files < KEPT_FILES_MAX && (de = readdir(d)) != NULL) {
			uint8_t pk[32];
			struct stat st;
			if (strlen(de->d_name) != AUTH_FP_LEN || strchr(de->d_name, '.'))
				continue; /* a lock, a temporary file */
			if ((size_t)snprintf(path, sizeof path, "%.4100s/%s", rdir, de->d_name) >= sizeof path ||
			    lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			if (recstore_file_key(path, pk, why, sizeof why) != 0) {
				cli_error("%s\n", why);
				rc = -1;
				break;
			}
			files++;
			bool mine = false;
			for (size_t i = 0; i < t->n; i++)
				if (memcmp(t->s[i].pk, pk, 32) == 0 && t->s[i].trusted && (i == 0 || t->s[i].used)) {
					mine = done[i] = true;
				}
			rc = keep_file(pass, path, pk, mine, whole, me, got, verified, n);
		}
		closedir(d);
	}
	/* A signer trusted here whose file is not made yet (the node asked, met first now). */
	for (size_t i = 0; rc == 0 && i < t->n; i++)
		if (!done[i] && t->s[i].trusted && (i == 0 || t->s[i].used)) {
			if (!recstore_path(dir, t->s[i].pk, path, sizeof path)) {
				cli_error("no state folder to keep records in (set HOME or XDG_STATE_HOME)\n");
				return -1;
			}
			rc = keep_file(pass, path, t->s[i].pk, true, whole, me, got, verified, n);
		}
	return rc;
}

static int
keep_all(const char *dir, const struct signers *t, bool whole, const uint8_t me[PROTO_IDENT_KEY_LEN],
         const struct recstore_entry *got, const bool *verified, size_t n)
{
	for (int pass = 0; pass < 2; pass++)
		if (keep_pass(pass, dir, t, whole, me, got, verified, n) != 0)
			return -1;
	return 0;
}

/* --all: at most this many pages (a connection each) */
#define HISTORY_PAGES_MAX (RECSTORE_MAX / WIRE_RECORDS_MAX + 1)

/* history: the pages asked for, shown and checked; the records kept, and those kept checked
 * against the history when it is whole: the node asked's, and each other signer's whose records
 * it holds (a store the cluster shares holds every record its nodes signed). */
static int
history(uv_loop_t *loop, struct net_config *nc, struct ask_run *a, uint32_t skip, bool all, const char *server)
{
	struct recstore_entry *got = NULL;
	static struct signers t;
	bool *verified = NULL;
	size_t n = 0, fetched = 0;
	bool whole = false, full = false;
	char dir[4096];
	int status = 1, shown;

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
			for (j = 0; j < n && memcmp(got[j].rec.commit, x->rec[i].rec.commit, PROTO_COMMIT_LEN) != 0; j++)
				;
			if (j < n)
				continue;
			memcpy(got[n].signer, x->rec[i].signer, RATED_SIGNER_LEN);
			got[n++].rec = x->rec[i].rec;
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
	if ((verified = calloc(n + 1, sizeof *verified)) == NULL) {
		cli_error("out of memory\n");
		goto out;
	}
	bool have_dir = cli_state_dir(dir, sizeof dir);
	memset(&t, 0, sizeof t);
	t.asked = a->server_pk;
	t.known = a->known;
	t.state = have_dir ? dir : NULL;
	signer_row(&t, a->server_pk); /* row 0: the node asked */
	if ((shown = show_history(a->me, &t, got, n, verified)) < 0)
		goto out;
	size_t others = 0;
	for (size_t i = 1; i < t.n; i++)
		others += t.s[i].used;
	const char *which = shown ? "every record shown" : "every record";
	if (skip)
		printf("%zu rated duel%s after the newest %" PRIu32 ", ", n, n == 1 ? "" : "s", skip);
	else
		printf("%zu rated duel%s, ", n, n == 1 ? "" : "s");
	if (others == 0) {
		printf("%s signed by the server's key %s\n", which, t.s[0].fp);
	} else {
		printf("%s signed by a server key this machine trusts: %zu by the server's key %s", which, t.s[0].used,
		       t.s[0].fp);
		for (size_t i = 1; i < t.n; i++)
			if (t.s[i].used)
				printf(", %zu by %s", t.s[i].used, t.s[i].fp);
		printf("\n");
	}
	if (full)
		printf("older ones: wizwar history %s --skip %zu (or --all)\n", server, (size_t)skip + fetched);
	if (!have_dir) {
		cli_error("no state folder to keep records in (set HOME or XDG_STATE_HOME)\n");
		goto out;
	}
	if (keep_all(dir, &t, whole, a->me, got, verified, n) != 0)
		goto out;
	status = shown ? 1 : 0;
out:
	free(a->ans);
	a->ans = NULL;
	free(got);
	free(verified);
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
	a.known = nc.known_file;
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
