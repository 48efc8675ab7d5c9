/* SPDX-License-Identifier: MIT */
/* cli: argument parsing, bounded file reading and text narration shared by subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "proto.h"
#include "turnlog.h"

enum { OPT_UNKNOWN, OPT_FLAG, OPT_VALUE, OPT_OPTIONAL };

static bool
opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* How the usage text writes the option at p ("--name..."), n bytes of name: "--opt[=V]" or
 * "--opt [V]" has an optional value, "--opt V" (a capital, a digit or choices with '|') a value, anything else
 * none. */
static int
usage_kind_at(const char *p, size_t n)
{
	const char *m = p + 2 + n;
	size_t mlen = m[0] == ' ' ? strcspn(m + 1, " ]`)\n") : 0;

	if ((m[0] == ' ' && m[1] == '[') || (m[0] == '[' && m[1] == '='))
		return OPT_OPTIONAL;
	if (mlen > 0 && ((m[1] >= 'A' && m[1] <= 'Z') || (m[1] >= '0' && m[1] <= '9') || memchr(m + 1, '|', mlen) != NULL))
		return OPT_VALUE;
	return OPT_FLAG;
}

/* The options the usage text names, each once, with the kind its most telling mention gives
 * (an optional value over a value over none: "--password [PW]" and "--password PW" are one
 * option whose value is optional). Returns the count, at most max. */
struct opt_named {
	char name[32];
	int kind;
};

static int
usage_options(const char *usage, struct opt_named *o, int max)
{
	int n = 0;

	for (const char *p = usage; (p = strstr(p, "--")) != NULL; p += 2) {
		size_t k = 0;
		if (p > usage && (opt_char(p[-1]) || (p[-1] >= 'A' && p[-1] <= 'Z')))
			continue;
		while (opt_char(p[2 + k]))
			k++;
		if (k == 0 || k >= sizeof o->name || p[2] == '-')
			continue;
		int kind = usage_kind_at(p, k), i;
		for (i = 0; i < n && !(strlen(o[i].name) == k && memcmp(o[i].name, p + 2, k) == 0); i++)
			;
		if (i == n) {
			if (n == max)
				continue;
			memcpy(o[n].name, p + 2, k);
			o[n].name[k] = '\0';
			o[n++].kind = kind;
		} else if (kind > o[i].kind) {
			o[i].kind = kind;
		}
	}
	return n;
}

/* The running subcommand's name, for cli_error's prefix. Like a program's name (getprogname),
 * it is the process's: set once, by the command's first act, cli_args; read by every message
 * after, down to helpers (cli_int, cli_seed) that do not know which command called them. */
static const char *running_cmd;
/* Where the arguments being parsed come from ("FILE:LINE"), and where messages go instead of
 * stderr: the same process-wide standing as running_cmd (cli_error_at, cli_error_capture). */
static const char *running_where;
static char *capture_buf;
static size_t capture_len;

void
cli_error_at(const char *where)
{
	running_where = where;
}

void
cli_error_capture(char *buf, size_t len)
{
	capture_buf = len > 0 ? buf : NULL;
	capture_len = len;
	if (capture_buf)
		capture_buf[0] = '\0';
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	if (capture_buf != NULL) {
		/* Appended, the command's name left out (the server's log line says whose it is). */
		size_t used = strlen(capture_buf);
		if (running_where != NULL && used + 1 < capture_len) {
			snprintf(capture_buf + used, capture_len - used, "%s: ", running_where);
			used = strlen(capture_buf);
		}
		if (used + 1 < capture_len) {
			va_start(ap, fmt);
			vsnprintf(capture_buf + used, capture_len - used, fmt, ap);
			va_end(ap);
		}
		return;
	}
	/* One write for the whole message: a server's own log lines come from its log thread on the same
	 * stderr, and a line written in pieces would be cut by one of them. */
	char head[300];
	int hn = snprintf(head, sizeof head, "wizwar%s%s: %s%s", running_cmd ? " " : "",
	                  running_cmd ? running_cmd : "", running_where ? running_where : "",
	                  running_where ? ": " : "");
	va_start(ap, fmt);
	int bn = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (hn < 0 || bn < 0)
		return;
	if ((size_t)hn >= sizeof head)
		hn = (int)sizeof head - 1;
	size_t len = (size_t)hn + (size_t)bn;
	char small[4096], *line = len < sizeof small ? small : malloc(len + 1);
	if (line == NULL)
		return;
	memcpy(line, head, (size_t)hn);
	va_start(ap, fmt);
	vsnprintf(line + hn, (size_t)bn + 1, fmt, ap);
	va_end(ap);
	fflush(stderr);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(STDERR_FILENO, line + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (line != small)
		free(line);
}

int
cli_option_kind(const char *usage, const char *name)
{
	struct opt_named named[96];
	int n = usage_options(usage, named, 96);

	for (int i = 0; i < n; i++)
		if (strcmp(named[i].name, name) == 0)
			return named[i].kind == OPT_FLAG ? CLI_OPT_FLAG : named[i].kind == OPT_VALUE ? CLI_OPT_VALUE : CLI_OPT_OPTIONAL;
	return CLI_OPT_UNKNOWN;
}

/* A command line refused: after the reason, the usage, and exit status 2. */
static int
refuse(const char *usage)
{
	fputs(usage, stderr);
	return 2;
}

static int parse_args(const char *cmd, const char *usage, int *argc, char ***argv, const char **operand,
                      const char **second);

int
cli_args(const char *cmd, const char *usage, int *argc, char ***argv, const char **operand)
{
	return parse_args(cmd, usage, argc, argv, operand, NULL);
}

int
cli_args2(const char *cmd, const char *usage, int *argc, char ***argv, const char **first, const char **second)
{
	return parse_args(cmd, usage, argc, argv, first, second);
}

static int
parse_args(const char *cmd, const char *usage, int *argc, char ***argv, const char **operand, const char **second)
{
	/* The rewritten argv: at most two entries per argument; "--opt=VALUE" of an option whose
	 * value is optional is rebuilt, so the argument bytes are counted again for it. */
	enum { MAX_OPTS = 96 };
	static char **store;
	struct opt_named named[MAX_OPTS];
	struct option longopts[MAX_OPTS + 1];
	int n = *argc, k = 0, nops = 0, nnamed, c, idx;
	char **in = *argv, **out, *text;
	const char *ops[3] = { NULL, NULL, NULL };
	size_t bytes = 0;

	running_cmd = cmd;
	nnamed = usage_options(usage, named, MAX_OPTS - 2);
	strcpy(named[nnamed].name, "help");
	named[nnamed++].kind = OPT_FLAG;
	strcpy(named[nnamed].name, "version");
	named[nnamed++].kind = OPT_FLAG;
	for (int i = 0; i < nnamed; i++) {
		static const int has_arg[] = { [OPT_FLAG] = no_argument, [OPT_VALUE] = required_argument,
		                               [OPT_OPTIONAL] = optional_argument };
		/* An option's val is its index + 256, out of the way of short options, so that an
		 * error names it. */
		longopts[i] = (struct option){ named[i].name, has_arg[named[i].kind], NULL, 256 + i };
	}
	longopts[nnamed] = (struct option){ NULL, 0, NULL, 0 };

	for (int i = 0; i < n; i++)
		bytes += strlen(in[i]) + 3 + sizeof named->name; /* an abbreviation grows to the name */
	free(store);
	/* The argv for getopt_long, its own copy: it permutes what it is given. */
	if ((store = malloc(sizeof *store * (3 * (size_t)n + 3) + bytes)) == NULL) {
		cli_error("out of memory\n");
		return 1;
	}
	char **work = store + 2 * n + 2;
	text = (char *)(work + n + 1);
	work[0] = (char *)cmd;
	memcpy(work + 1, in, sizeof *in * (size_t)n);
	out = store;

	/* getopt_long's rules, as every GNU command follows them: "-" first returns operands in
	 * place (and ignores POSIXLY_CORRECT, so no environment changes what a command line
	 * means); ":" reports a missing value apart from an unknown option. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(n + 1, work, "-:h", longopts, &idx)) != -1) {
		const char *a = work[optind - 1];
		if (c == 1) {
			if (nops < 3)
				ops[nops] = optarg;
			nops++;
			continue;
		}
		if (c == 'h') {
			out[k++] = (char *)"--help";
			continue;
		}
		if (c >= 256 && c < 256 + nnamed) {
			const struct opt_named *o = &named[c - 256];
			if (strcmp(o->name, "version") == 0) {
				cli_version(stdout);
				return 0;
			}
			/* The name in full, an abbreviation being allowed. */
			size_t len = strlen(o->name);
			memcpy(text, "--", 2);
			memcpy(text + 2, o->name, len + 1);
			if (o->kind == OPT_OPTIONAL && optarg != NULL) {
				text[len + 2] = '=';
				memcpy(text + len + 3, optarg, strlen(optarg) + 1);
			}
			out[k++] = text;
			text += strlen(text) + 1;
			if (o->kind == OPT_VALUE)
				out[k++] = optarg;
			continue;
		}
		if (c == ':' && optopt >= 256 && optopt < 256 + nnamed) {
			cli_error("--%s needs a value\n", named[optopt - 256].name);
			return refuse(usage);
		}
		if (c == '?' && optopt >= 256 && optopt < 256 + nnamed) {
			const char *v = strchr(a, '=');
			cli_error("--%s takes no value, not '%s'\n", named[optopt - 256].name,
			        v ? v + 1 : "");
			return refuse(usage);
		}
		if (c == '?' && optopt != 0) {
			cli_error("unknown option '-%c'\n", optopt);
			return refuse(usage);
		}
		/* An unknown long option, or an abbreviation of several. */
		size_t len = strcspn(a + 2, "=");
		int matches = 0;
		for (int i = 0; i < nnamed; i++)
			matches += strncmp(named[i].name, a + 2, len) == 0;
		if (matches > 1) {
			cli_error("'--%.*s' is ambiguous:", (int)len, a + 2);
			for (int i = 0; i < nnamed; i++)
				if (strncmp(named[i].name, a + 2, len) == 0)
					fprintf(stderr, " --%s", named[i].name);
			fputc('\n', stderr);
		} else {
			cli_error("unknown option '%s'\n", a);
		}
		return refuse(usage);
	}
	/* After "--": operands, whatever they look like. */
	for (; optind < n + 1; optind++) {
		if (nops < 3)
			ops[nops] = work[optind];
		nops++;
	}
	if (nops > 0 && operand == NULL) {
		cli_error("takes no operand, not '%s'\n", ops[0]);
		return refuse(usage);
	}
	if (nops > (second ? 2 : 1)) {
		cli_error(second ? "two operands at most, not also '%s'\n" : "one operand only, not also '%s'\n",
		          second ? ops[2] : ops[1]);
		return refuse(usage);
	}
	if (nops >= 1)
		*operand = ops[0];
	if (nops == 2)
		*second = ops[1];
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
	cli_error("%s\n", why);
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
		cli_error("--seed needs a number (decimal, or hex with 0x)\n");
		return false;
	}
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0') {
		cli_error("--seed must be a 64-bit number (decimal, or hex with 0x), not '%s'\n", typed);
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
			cli_error("--size needs a number from %d to %d\n", LEVEL_MIN, LEVEL_MAX);
			return -1;
		}
		if (!cli_size_why(argv[*i + 1], "--size", &v, why, sizeof why)) {
			cli_error("%s\n", why);
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
	cli_error("%s\n", why);
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
	if (h && h[0]) /* HOME=/ makes /.local/state/wizwar, not //.local/... */
		return (size_t)snprintf(buf, len, "%s%s.local/state/wizwar", h, h[strlen(h) - 1] == '/' ? "" : "/") < len;
	return false;
}

static const char *const result_text[] = { "", "player 1 wins", "player 2 wins", "a draw" }; /* people count from 1 */
static const char *const reason_text[] = { "", "killed", "by forfeit", "at the turn limit" };

/* What each command does, as a narration line says it after "  P1 ": one verb per command of
 * CMD_LIST, so that every kind reads as a sentence and a reader can count them by shape. */
static const char *const cmd_verb[CMD_COUNT] = {
	[CMD_STEP] = "steps", [CMD_CAST] = "casts", [CMD_DRINK] = "drinks", [CMD_QUAFF] = "quaffs",
	[CMD_PICKUP] = "picks up", [CMD_PASS] = "passes", [CMD_RESIGN] = "resigns",
};

void
cli_narrate_turn(FILE *out, const struct game *g)
{
	fprintf(out, "turn %" PRIu32 ": P%d to move, offered %s, %s, %s\n", g->turn_no + 1, g->turn + 1,
	    spell_name(g->offered[0]), spell_name(g->offered[1]), spell_name(g->offered[2]));
}

void
cli_narrate(FILE *out, const struct game *g, int p, const struct cmd *c, const struct events *ev)
{
	char text[160];
	const char *verb = c->type < CMD_COUNT && cmd_verb[c->type] ? cmd_verb[c->type] : cmd_name(c->type);

	fprintf(out, "  P%d %s", p + 1, verb);
	switch (c->type) {
	case CMD_STEP:
		fprintf(out, " %d to (%d,%d)", c->dir, g->wiz[p].x, g->wiz[p].y);
		break;
	case CMD_CAST:
		fprintf(out, " from slot %d", c->arg + 1);
		if (c->dir)
			fprintf(out, " towards %d", c->dir);
		break;
	case CMD_QUAFF:
		fprintf(out, " from slot %d", c->arg + 1);
		break;
	default:
		break;
	}
	fputc('\n', out);
	for (int i = 0; i < ev->nmsg; i++) {
		msg_format(&ev->msg[i], text, sizeof text);
		fprintf(out, "    [%s] %s\n", ev->msg[i].to == 3 ? "both" : ev->msg[i].to == 1 ? "P1" : "P2", text);
	}
	if (ev->hp_changed)
		fprintf(out, "    HP now %d / %d\n", g->wiz[0].hp, g->wiz[1].hp);
	if (ev->turn_ended && g->result == RESULT_NONE)
		cli_narrate_turn(out, g);
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
