/* cli: argument parsing, bounded file reading and text narration shared by subcommands. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"

bool
cli_int(const char *s, long lo, long hi, const char *what, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0' || *s == '+' || *s == '-' || *s == ' ') {
		fprintf(stderr, "wizwar: %s needs a number from %ld to %ld\n", what, lo, hi);
		return false;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "wizwar: %s must be a number from %ld to %ld, not '%s'\n", what, lo, hi, s);
		return false;
	}
	*out = v;
	return true;
}

bool
cli_seed(const char *s, uint64_t *out)
{
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
		fprintf(stderr, "wizwar: --seed must be a 64-bit number (decimal, or hex with 0x), not '%s'\n", s);
		return false;
	}
	*out = (uint64_t)v;
	return true;
}

int
cli_game_option(int argc, char **argv, int *i, struct options *o)
{
	const char *a = argv[*i];
	long v;

	if (strcmp(a, "--no-fov") == 0) {
		o->fov = false;
		return 1;
	}
	if (strcmp(a, "--no-potions") == 0) {
		o->potions = false;
		return 1;
	}
	if (strcmp(a, "--size") == 0) {
		if (*i + 1 >= argc || !cli_int(argv[*i + 1], LEVEL_MIN, LEVEL_MAX, "--size", &v))
			return -1;
		if (v % 2 == 0) {
			fprintf(stderr, "wizwar: --size must be odd (the plan's levels have a centre), not %ld\n", v);
			return -1;
		}
		o->size = (uint8_t)v;
		(*i)++;
		return 1;
	}
	return 0;
}

int
cli_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	/* gzopen reads plain files unchanged, so one reader serves both kinds of log. */
	gzFile f = gzopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *b;

	if (f == NULL) {
		fprintf(stderr, "wizwar: cannot open %s: %s\n", path, strerror(errno ? errno : ENOENT));
		return -1;
	}
	if ((b = malloc(cap + 1)) == NULL) {
		gzclose(f);
		fprintf(stderr, "wizwar: out of memory\n");
		return -1;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				fprintf(stderr, "wizwar: %s is larger than %zu bytes\n", path, max);
				goto fail;
			}
			cap = cap * 2 > max ? max : cap * 2;
			char *nb = realloc(b, cap + 1);
			if (nb == NULL) {
				fprintf(stderr, "wizwar: out of memory\n");
				goto fail;
			}
			b = nb;
		}
		int r = gzread(f, b + n, (unsigned)(cap - n));
		if (r < 0) {
			int e;
			fprintf(stderr, "wizwar: cannot read %s: %s\n", path, gzerror(f, &e));
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

static const char *const result_text[] = { "", "player 0 wins", "player 1 wins", "a draw" };
static const char *const reason_text[] = { "", "killed", "by forfeit", "at the turn limit" };

void
cli_narrate(FILE *out, const struct game *g, int p, const struct cmd *c, const struct events *ev)
{
	char text[160];

	switch (c->type) {
	case CMD_STEP:
		fprintf(out, "  P%d steps %d to (%d,%d)\n", p, c->dir, g->wiz[p].x, g->wiz[p].y);
		break;
	case CMD_CAST:
		fprintf(out, "  P%d casts from slot %d%s", p, c->arg + 1, c->dir ? " towards " : "");
		if (c->dir)
			fprintf(out, "%d", c->dir);
		fputc('\n', out);
		break;
	case CMD_QUAFF:
		fprintf(out, "  P%d quaffs from slot %d\n", p, c->arg + 1);
		break;
	default:
		fprintf(out, "  P%d %s\n", p, cmd_name(c->type));
	}
	for (int i = 0; i < ev->nmsg; i++) {
		msg_format(&ev->msg[i], text, sizeof text);
		fprintf(out, "    [%s] %s\n", ev->msg[i].to == 3 ? "both" : ev->msg[i].to == 1 ? "P0" : "P1", text);
	}
	if (ev->hp_changed)
		fprintf(out, "    HP now %d / %d\n", g->wiz[0].hp, g->wiz[1].hp);
	if (ev->turn_ended && g->result == RESULT_NONE)
		fprintf(out, "turn %" PRIu32 ": P%d to move, offered %s, %s, %s\n", g->turn_no + 1, g->turn,
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
