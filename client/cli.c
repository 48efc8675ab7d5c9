/* SPDX-License-Identifier: MIT */
/* cli: argument parsing, bounded file reading and text narration shared by subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "proto.h"
#include "turnlog.h"

enum { OPT_UNKNOWN, OPT_FLAG, OPT_VALUE };

static bool
opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Does the usage text name option --name (n bytes), and with a value? */
static int
usage_kind(const char *usage, const char *name, size_t n)
{
	int kind = OPT_UNKNOWN;

	if (n == 0)
		return OPT_UNKNOWN;
	if ((n == 4 && memcmp(name, "help", 4) == 0) || (n == 7 && memcmp(name, "version", 7) == 0))
		return OPT_FLAG;
	for (const char *p = usage; (p = strstr(p, "--")) != NULL; p += 2) {
		if ((p > usage && (opt_char(p[-1]) || (p[-1] >= 'A' && p[-1] <= 'Z'))) || strncmp(p + 2, name, n) != 0 ||
		    opt_char(p[2 + n]))
			continue;
		const char *m = p + 2 + n;
		size_t mlen = m[0] == ' ' ? strcspn(m + 1, " ]`)\n") : 0;
		bool metavar = mlen > 0 && ((m[1] >= 'A' && m[1] <= 'Z') || (m[1] >= '0' && m[1] <= '9') ||
		                            memchr(m + 1, '|', mlen) != NULL);
		if (metavar)
			return OPT_VALUE;
		kind = OPT_FLAG;
	}
	return kind;
}

int
cli_args(const char *cmd, const char *usage, int *argc, char ***argv, const char **operand)
{
	/* The rewritten argv: at most two entries per argument, then the names split off "--opt=VALUE". */
	static char **store;
	int n = *argc, k = 0, before = 0, i;
	char **in = *argv, **out, *names;
	size_t bytes = 0;

	for (i = 0; i < n; i++)
		bytes += strlen(in[i]) + 1;
	free(store);
	if ((store = malloc(sizeof *store * (2 * (size_t)n + 1) + bytes)) == NULL) {
		fprintf(stderr, "wizwar: out of memory\n");
		return 1;
	}
	out = store;
	names = (char *)(store + 2 * n + 1);
	for (i = 0; i < n && strcmp(in[i], "--") != 0; i++) {
		char *a = in[i];
		if (a[0] != '-' || a[1] == '\0') {
			out[k++] = a; /* an operand, or "-" */
			before++;
			continue;
		}
		if (a[1] != '-') {
			out[k++] = a; /* -h, or a short option the loop refuses */
			continue;
		}
		size_t len = strcspn(a + 2, "=");
		int kind = usage_kind(usage, a + 2, len);
		if (kind == OPT_UNKNOWN) {
			out[k++] = a;
		} else if (a[2 + len] == '=') {
			if (kind == OPT_FLAG) {
				fprintf(stderr, "wizwar %s: --%.*s takes no value, not '%s'\n", cmd, (int)len, a + 2, a + 3 + len);
				return 2;
			}
			memcpy(names, a, len + 2);
			names[len + 2] = '\0';
			out[k++] = names;
			out[k++] = a + 3 + len;
			names += len + 3;
		} else if (strcmp(a, "--version") == 0) {
			cli_version(stdout);
			return 0;
		} else {
			out[k++] = a;
			if (kind == OPT_VALUE && i + 1 < n)
				out[k++] = in[++i]; /* taken as it is, even "--" or "-x" */
		}
	}
	if (i < n) {
		int after = n - i - 1;
		if (after > 0 && operand == NULL) {
			fprintf(stderr, "wizwar %s: takes no operand, not '%s'\n", cmd, in[i + 1]);
			return 2;
		}
		if (after + before > 1) {
			fprintf(stderr, "wizwar %s: one operand only, not also '%s'\n", cmd, in[n - 1]);
			return 2;
		}
		if (after == 1)
			*operand = in[n - 1];
	}
	out[k] = NULL;
	*argc = k;
	*argv = out;
	return -1;
}

bool
cli_has_option(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
			return true;
	return false;
}

void
cli_version(FILE *out)
{
	fprintf(out, "wizwar %s (protocol %d, rules %d)\n", WIZWAR_VERSION, PROTO_VERSION, RULES_VERSION);
}

bool
cli_int_why(const char *s, long lo, long hi, const char *what, long *out, char *why, size_t whylen)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0' || *s == '+' || *s == '-' || *s == ' ') {
		snprintf(why, whylen, "%s needs a number from %ld to %ld", what, lo, hi);
		return false;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		snprintf(why, whylen, "%s must be a number from %ld to %ld, not '%s'", what, lo, hi, s);
		return false;
	}
	*out = v;
	return true;
}

bool
cli_int(const char *s, long lo, long hi, const char *what, long *out)
{
	char why[300];

	if (cli_int_why(s, lo, hi, what, out, why, sizeof why))
		return true;
	fprintf(stderr, "wizwar: %s\n", why);
	return false;
}

bool
cli_size_why(const char *s, const char *what, int *out, char *why, size_t whylen)
{
	long v;

	if (!cli_int_why(s, LEVEL_MIN, LEVEL_MAX, what, &v, why, whylen))
		return false;
	if (v % 2 == 0) {
		snprintf(why, whylen, "%s must be odd (the plan's levels have a centre), not %ld", what, v);
		return false;
	}
	*out = (int)v;
	return true;
}

bool
cli_seed(const char *s, uint64_t *out)
{
	const char *typed = s; /* the error quotes what the user typed, 0x and all */
	char *end;
	int base = 10;

	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ') {
		fprintf(stderr, "wizwar: --seed needs a number (decimal, or hex with 0x)\n");
		return false;
	}
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0') {
		fprintf(stderr, "wizwar: --seed must be a 64-bit number (decimal, or hex with 0x), not '%s'\n", typed);
		return false;
	}
	*out = (uint64_t)v;
	return true;
}

int
cli_game_option(int argc, char **argv, int *i, struct options *o)
{
	const char *a = argv[*i];

	if (strcmp(a, "--no-fov") == 0) {
		o->fov = false;
		return 1;
	}
	if (strcmp(a, "--no-potions") == 0) {
		o->potions = false;
		return 1;
	}
	if (strcmp(a, "--size") == 0) {
		char why[300];
		int v;
		if (*i + 1 >= argc) {
			fprintf(stderr, "wizwar: --size needs a number from %d to %d\n", LEVEL_MIN, LEVEL_MAX);
			return -1;
		}
		if (!cli_size_why(argv[*i + 1], "--size", &v, why, sizeof why)) {
			fprintf(stderr, "wizwar: %s\n", why);
			return -1;
		}
		o->size = (uint8_t)v;
		(*i)++;
		return 1;
	}
	return 0;
}

int
cli_read_file_why(const char *path, const char *shown, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
	/* gzopen reads plain files unchanged, so one reader serves both kinds of log. */
	gzFile f = gzopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *b;

	if (f == NULL) {
		snprintf(why, whylen, "cannot open %s: %s", shown, strerror(errno ? errno : ENOENT));
		return -1;
	}
	if ((b = malloc(cap + 1)) == NULL) {
		gzclose(f);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				snprintf(why, whylen, "%s is larger than %zu bytes", shown, max);
				goto fail;
			}
			cap = cap * 2 > max ? max : cap * 2;
			char *nb = realloc(b, cap + 1);
			if (nb == NULL) {
				snprintf(why, whylen, "out of memory");
				goto fail;
			}
			b = nb;
		}
		int r = gzread(f, b + n, (unsigned)(cap - n));
		if (r < 0) {
			int e;
			const char *msg = gzerror(f, &e);
			size_t k = strlen(path);
			/* zlib puts the path in front of its message: said once, by the caller. */
			if (strncmp(msg, path, k) == 0 && strncmp(msg + k, ": ", 2) == 0)
				msg += k + 2;
			snprintf(why, whylen, "cannot read %s: %s", shown, msg);
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	gzclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail:
	gzclose(f);
	free(b);
	return -1;
}

int
cli_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	char why[4400];

	if (cli_read_file_why(path, path, max, buf, len, why, sizeof why) == 0)
		return 0;
	fprintf(stderr, "wizwar: %s\n", why);
	return -1;
}

int
cli_create_log(char *path, size_t size)
{
	size_t stem = strlen(path) - strlen(".log");
	int fd;

	for (int n = 2; (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 && errno == EEXIST && n < 10000;
	     n++)
		snprintf(path + stem, size - stem, "-%d.log", n);
	return fd;
}

int
cli_make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -1;
		buf[i] = c;
	}
	return 0;
}

bool
cli_state_dir(char *buf, size_t len)
{
	const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	if (x && x[0] == '/')
		return (size_t)snprintf(buf, len, "%s/wizwar", x) < len;
	if (h && h[0])
		return (size_t)snprintf(buf, len, "%s/.local/state/wizwar", h) < len;
	return false;
}

static const char *const result_text[] = { "", "player 1 wins", "player 2 wins", "a draw" }; /* people count from 1 */
static const char *const reason_text[] = { "", "killed", "by forfeit", "at the turn limit" };

void
cli_narrate(FILE *out, const struct game *g, int p, const struct cmd *c, const struct events *ev)
{
	char text[160];

	switch (c->type) {
	case CMD_STEP:
		fprintf(out, "  P%d steps %d to (%d,%d)\n", p + 1, c->dir, g->wiz[p].x, g->wiz[p].y);
		break;
	case CMD_CAST:
		fprintf(out, "  P%d casts from slot %d%s", p + 1, c->arg + 1, c->dir ? " towards " : "");
		if (c->dir)
			fprintf(out, "%d", c->dir);
		fputc('\n', out);
		break;
	case CMD_QUAFF:
		fprintf(out, "  P%d quaffs from slot %d\n", p + 1, c->arg + 1);
		break;
	default:
		fprintf(out, "  P%d %s\n", p + 1, cmd_name(c->type));
	}
	for (int i = 0; i < ev->nmsg; i++) {
		msg_format(&ev->msg[i], text, sizeof text);
		fprintf(out, "    [%s] %s\n", ev->msg[i].to == 3 ? "both" : ev->msg[i].to == 1 ? "P1" : "P2", text);
	}
	if (ev->hp_changed)
		fprintf(out, "    HP now %d / %d\n", g->wiz[0].hp, g->wiz[1].hp);
	if (ev->turn_ended && g->result == RESULT_NONE)
		fprintf(out, "turn %" PRIu32 ": P%d to move, offered %s, %s, %s\n", g->turn_no + 1, g->turn + 1,
		    spell_name(g->offered[0]), spell_name(g->offered[1]), spell_name(g->offered[2]));
	if (g->result != RESULT_NONE && ev->result)
		fprintf(out, "the duel ends: %s, %s\n", result_text[g->result], reason_text[g->end_reason]);
}

void
cli_draw_level(FILE *out, const struct game *g)
{
	for (int y = 0; y < g->level.size; y++) {
		for (int x = 0; x < g->level.size; x++) {
			int ch = g->level.cell[y][x] == CELL_WALL ? '#' : g->potion[y][x] ? '!' : '.';
			for (int p = 0; p < PLAYERS; p++)
				if (g->wiz[p].x == x && g->wiz[p].y == y)
					ch = '0' + p;
			fputc(ch, out);
		}
		fputc('\n', out);
	}
}

void
cli_log_chat(const char *text, size_t len, cli_chat_fn fn, void *ud)
{
	struct turnlog_line l;
	char why[128];
	uint32_t cmds = 0;
	int lineno = 0;

	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL)
			return;
		size_t n = (size_t)(nl - (text + pos));
		const char *line = text + pos;
		pos += n + 1;
		lineno++;
		if (turnlog_parse_line(line, n, &l, why, sizeof why) != 0)
			return;
		if (l.kind == TL_CMD)
			cmds++;
		else if (l.kind == TL_CHAT)
			fn(ud, lineno, cmds, l.player, l.text);
	}
}
