/* SPDX-License-Identifier: MIT */
/* cmd_replay: check a turn log, or narrate it as text. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "progress.h"
#include "help.h"
#include "logtree.h"
#include "commands.h"
#include "commands_ui.h"
#include "state.h"
#include "turnlog.h"

#define REPLAY_FILE_MAX (64u << 20) /* a 1000-turn duel is well under a megabyte */


/* --text: the commands narrated, and the chat said between them, each line where the
 * log has it. A chat text is a peer's: cleaned (state_clean_text()) before the terminal. */
struct chat_said {
	int lineno;
	uint8_t p;
	char text[TURNLOG_LINE_MAX];
};

struct text_replay {
	FILE *out;
	struct chat_said *chat;
	size_t n, cap, shown;
};

static void
keep_chat(void *ud, int lineno, uint32_t cmds, int player, const char *text)
{
	struct text_replay *t = ud;

	(void)cmds;
	if (t->n == t->cap) { /* doubled: a hostile log may hold a hundred thousand chat lines */
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct chat_said *grown = realloc(t->chat, cap * sizeof *t->chat);
		if (grown == NULL)
			return;
		t->chat = grown;
		t->cap = cap;
	}
	t->chat[t->n].lineno = lineno;
	t->chat[t->n].p = (uint8_t)player;
	state_clean_text(t->chat[t->n].text, sizeof t->chat[t->n].text, text, strlen(text));
	t->n++;
}

/* The chat of the lines before `lineno` not yet shown. */
static void
show_chat(struct text_replay *t, int lineno)
{
	for (; t->shown < t->n && t->chat[t->shown].lineno < lineno; t->shown++)
		fprintf(t->out, "  P%d says: %s\n", t->chat[t->shown].p + 1, t->chat[t->shown].text);
}

static void
narrate(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct text_replay *t = ud;

	show_chat(t, lineno);
	cli_narrate(t->out, g, p, c, ev);
}

/* --text's header: who played, the options, the seed and the rules, then the first turn's
 * mover and offered spells, read from the log's own header (through its `start` line,
 * replayed alone, so the set-up is checked as the whole log's is). Printed after the chat
 * said before `start`; nothing when the header does not replay (the replay then says why). */
static void
print_header(struct text_replay *t, const char *text, size_t len)
{
	struct turnlog_replay *h;
	struct turnlog_line l;
	char why[128], name[TURNLOG_NAME_MAX];
	int lineno = 0;
	size_t pos = 0;

	for (;;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL)
			return;
		size_t n = (size_t)(nl - (text + pos));
		lineno++;
		if (turnlog_parse_line(text + pos, n, &l, why, sizeof why) != 0)
			return;
		pos += n + 1;
		if (l.kind == TL_START)
			break;
	}
	if ((h = malloc(sizeof *h)) == NULL)
		return;
	if (turnlog_replay(text, pos, h, NULL, NULL) == 0) {
		show_chat(t, lineno);
		for (int p = 0; p < PLAYERS; p++) {
			state_clean_text(name, sizeof name, h->hdr.name[p], strlen(h->hdr.name[p]));
			fprintf(t->out, "P%d: %s\n", p + 1, name);
		}
		fprintf(t->out, "size %d, fov %s, potions %s, seed 0x%016" PRIx64 ", rules %d\n", h->hdr.opt.size,
		    h->hdr.opt.fov ? "on" : "off", h->hdr.opt.potions ? "on" : "off", h->hdr.seed, h->hdr.rules);
		cli_narrate_turn(t->out, &h->game);
	}
	free(h);
}

/* --check: how far the replay has come, in lines of the log (a long log's commands are many). */
static void
check_step(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	(void)g, (void)p, (void)c, (void)ev;
	progress_step(ud, (uint64_t)lineno);
}

/* --list: the turn logs of a directory, newest first, a line each, from their text alone
 * (not replayed: a listing of many logs stays quick; --check proves one). */
struct listed {
	char name[256];
	time_t mtime;
	char what[400]; /* its description, or why it could not be read */
};

static int
newest_first(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool
is_log_name(const char *n)
{
	size_t k = strlen(n);

	return (k > 4 && strcmp(n + k - 4, ".log") == 0) || (k > 7 && strcmp(n + k - 7, ".log.gz") == 0);
}

/* A file name as the terminal may see it: what is not plain ASCII shown as '?' (a name is
 * anyone's bytes; an escape in it must not reach the terminal). */
static void
put_name(const char *n)
{
	for (; *n; n++)
		putchar((unsigned char)*n >= 0x20 && (unsigned char)*n < 0x7f ? *n : '?');
}

static void
describe_log(const char *text, size_t len, char *out, size_t outlen)
{
	struct turnlog_line l;
	char name[PLAYERS][TURNLOG_NAME_MAX] = { "player 1", "player 2" }, why[200];
	int size = 0, result = RESULT_NONE, reason = 0, lineno = 0;
	uint32_t turns = 0;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		lineno++;
		if (!nl) /* a torn last line: what came before counts */
			break;
		if (turnlog_parse_line(text + at, n, &l, why, sizeof why) != 0) {
			snprintf(out, outlen, "not a turn log: line %d: %s", lineno, why);
			return;
		}
		if (l.kind == TL_PLAYER && l.player >= 0 && l.player < PLAYERS)
			snprintf(name[l.player], sizeof name[l.player], "%.*s", (int)sizeof name[l.player] - 1, l.text);
		else if (l.kind == TL_OPTIONS)
			size = l.opt.size;
		else if (l.kind == TL_HASH)
			turns = l.turn;
		else if (l.kind == TL_END) {
			result = l.result;
			reason = l.reason;
		}
		at += n + 1;
	}
	if (lineno == 0 || size == 0) {
		snprintf(out, outlen, "not a turn log: no header");
		return;
	}
	static const char *const how[] = { "", "", " by forfeit", " at the turn limit" }; /* none, killed, ... */
	int k = snprintf(out, outlen, "%s vs %s, %dx%d: ", name[0], name[1], size, size);
	if (k < 0 || (size_t)k >= outlen)
		return;
	if (result == RESULT_WIN0 || result == RESULT_WIN1)
		snprintf(out + k, outlen - (size_t)k, "%s won%s, %" PRIu32 " turn%s", name[result == RESULT_WIN1],
		         reason > 0 && reason < 4 ? how[reason] : "", turns, turns == 1 ? "" : "s");
	else if (result == RESULT_DRAW)
		snprintf(out + k, outlen - (size_t)k, "a draw%s, %" PRIu32 " turn%s", reason > 0 && reason < 4 ? how[reason] : "",
		         turns, turns == 1 ? "" : "s");
	else
		snprintf(out + k, outlen - (size_t)k, "unfinished, %" PRIu32 " turn%s", turns, turns == 1 ? "" : "s");
}

/* The logs found so far. */
struct found {
	struct listed *all;
	size_t n, cap;
};

/* The logs of DIR/SUB ("" for DIR itself) into f, each named by its path under DIR. */
static void
collect(const char *dir, const char *sub, struct found *f)
{
	char path[4096], name[sizeof f->all->name];
	struct dirent *de;
	DIR *d;

	if ((size_t)snprintf(path, sizeof path, "%s%s%s", dir, *sub ? "/" : "", sub) >= sizeof path ||
	    (d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (!is_log_name(de->d_name) ||
		    (size_t)snprintf(name, sizeof name, "%s%s%s", sub, *sub ? "/" : "", de->d_name) >= sizeof name ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path || stat(path, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (f->n == f->cap) {
			size_t more = f->cap ? f->cap * 2 : 64;
			struct listed *grown = realloc(f->all, more * sizeof *f->all);
			if (grown == NULL)
				break;
			f->all = grown;
			f->cap = more;
		}
		snprintf(f->all[f->n].name, sizeof f->all[f->n].name, "%s", name);
		f->all[f->n++].mtime = st.st_mtime;
	}
	closedir(d);
}

/* A day folder of a date tree under the listing's folder (logtree_each_day): its logs, named by
 * their path under that folder. */
struct tree {
	const char *dir;
	struct found *f;
};

static void
on_day(const char *day, void *ud)
{
	const struct tree *t = ud;

	collect(t->dir, day + strlen(t->dir) + 1, t->f);
}

static int
list_logs(const char *dir)
{
	struct found f = { NULL, 0, 0 };
	struct listed *all;
	size_t n;
	char path[4096];
	DIR *d = opendir(dir);

	if (d == NULL) {
		cli_error("cannot read %s: %s\n", dir, strerror(errno));
		return 1;
	}
	closedir(d);
	/* The folder's own logs, and the finished duels of the date tree in it or in its logs/ (a
	 * host's: $XDG_STATE_HOME/wizwar/logs/YYYY/MM/DD). */
	struct tree t = { dir, &f };
	collect(dir, "", &f);
	logtree_each_day(dir, on_day, &t);
	if ((size_t)snprintf(path, sizeof path, "%s/logs", dir) < sizeof path)
		logtree_each_day(path, on_day, &t);
	all = f.all;
	n = f.n;
	if (n == 0) {
		printf("No turn logs in %s.\n", dir);
		free(all);
		return 0;
	}
	qsort(all, n, sizeof *all, newest_first);
	/* Every log is read before the list is printed, with a progress line while a big folder
	 * is read: the list then comes whole, never mixed with the progress line. */
	struct progress pg;
	progress_init(&pg, stderr, "replay --list", "logs", n);
	for (size_t i = 0; i < n; i++) {
		char *buf, why[300];
		size_t len;
		snprintf(path, sizeof path, "%s/%s", dir, all[i].name);
		if (cli_read_file_why(path, "it", REPLAY_FILE_MAX, &buf, &len, why, sizeof why) != 0) {
			snprintf(all[i].what, sizeof all[i].what, "%s", why);
		} else {
			describe_log(buf, len, all[i].what, sizeof all[i].what);
			free(buf);
		}
		progress_step(&pg, i + 1);
	}
	progress_finish(&pg);
	printf("Turn logs in %s, newest first (`wizwar replay FILE` to watch one):\n", dir);
	for (size_t i = 0; i < n; i++) {
		char when[32];
		struct tm tm;
		if (localtime_r(&all[i].mtime, &tm) == NULL || strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm) == 0)
			snprintf(when, sizeof when, "?");
		printf("%s  ", when);
		put_name(all[i].name);
		printf("\n    %s\n", all[i].what);
	}
	free(all);
	return 0;
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
	if (!cli_has_option(argc, argv, "--check") && !cli_has_option(argc, argv, "--text") &&
	    !cli_has_option(argc, argv, "--list"))
		return cmd_watch(argc, argv);
	const char *usage = help_get(HELP_REPLAY), *operand = NULL, *list = NULL;
	bool listing = false;
	int args = cli_args("replay", usage, &argc, &argv, &operand);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strncmp(argv[i], "--list", 6) == 0 && (argv[i][6] == '\0' || argv[i][6] == '=') && !listing) {
			listing = true; /* its directory as --list=DIR, or as the operand */
			list = argv[i][6] == '=' ? argv[i] + 7 : NULL;
		} else if ((strcmp(argv[i], "--check") == 0 || strcmp(argv[i], "--text") == 0) && !path) {
			text = argv[i][2] == 't';
			path = argv[++i];
		} else {
			cli_error("'%s' twice, or with another of --check, --text and --list\n%s",
			        argv[i], usage);
			return 2;
		}
	}
	if (listing && path == NULL) {
		char dir[4096];
		if (list != NULL && operand != NULL) {
			cli_error("--list takes one directory at most, not also '%s'\n", operand);
			return 2;
		}
		if (list == NULL)
			list = operand;
		if (list != NULL)
			return list_logs(list);
		if (!cli_state_dir(dir, sizeof dir)) {
			cli_error("neither XDG_STATE_HOME nor HOME is set: name the directory\n");
			return 2;
		}
		return list_logs(dir);
	}
	if (listing) {
		cli_error("--list goes alone, not with --check or --text\n");
		return 2;
	}
	if (operand != NULL) {
		cli_error("--%s takes one LOG, not also '%s'\n", text ? "text" : "check", operand);
		return 2;
	}
	if (path == NULL) {
		fputs(usage, stderr);
		return 2;
	}
	if (cli_read_file(path, REPLAY_FILE_MAX, &buf, &len) != 0)
		return 1;
	if ((r = malloc(sizeof *r)) == NULL) {
		free(buf);
		cli_error("out of memory\n");
		return 1;
	}
	struct text_replay said = { stdout, NULL, 0, 0, 0 };
	if (text) {
		cli_log_chat(buf, len, keep_chat, &said);
		print_header(&said, buf, len);
	}
	struct progress pg;
	uint64_t lines = 0;
	for (const char *at = buf; (at = memchr(at, '\n', len - (size_t)(at - buf))) != NULL; at++)
		lines++;
	progress_init(&pg, text ? NULL : stderr, "replay", "lines", lines);
	rc = turnlog_replay(buf, len, r, text ? narrate : check_step, text ? (void *)&said : (void *)&pg);
	progress_finish(&pg);
	if (text)
		show_chat(&said, rc != 0 ? r->line : INT32_MAX); /* what was said after the last command */
	free(said.chat);
	if (rc != 0) {
		cli_error("%s: %s\n", path, r->error);
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
