/* SPDX-License-Identifier: MIT */
/* doc_tables: the tables of docs/protocol.md (versions, message types, ids, texts, codes) made from the C tables. */
#include <string.h>

#include <stdlib.h>

#include "docblock.h"
#include "fov.h"
#include "pconn.h"
#include "game.h"
#include "update.h"
#include "wire.h"

/*
 * docs/protocol.md gives every table a client needs as a table, not as the name of a
 * C header. Each is written here from the very lists the code is built from, and
 * `meson test` (proto/doc_tables) fails when the document says otherwise: a new
 * spell, message or error code cannot go in without its row.
 */

static int
gen_title(FILE *o)
{
	fprintf(o, "# The wizwar wire protocol, version %d\n", PROTO_VERSION);
	return 0;
}

static int
gen_versions(FILE *o)
{
	fprintf(o, "\n| constant | value | carried in |\n| --- | --- | --- |\n");
	fprintf(o, "| protocol version (`PROTO_VERSION`) | %d | HELLO, CHALLENGE |\n", PROTO_VERSION);
	fprintf(o, "| rules version (`RULES_VERSION`) | %d | HELLO, CHALLENGE, the turn log's header |\n\n",
	        RULES_VERSION);
	return 0;
}

static int
gen_padding(FILE *o)
{
	fprintf(o, "\n| class | plaintext, padding included | `length` on the wire | bytes on the wire |\n"
	           "| --- | --- | --- | --- |\n");
	for (int i = 0; i < PCONN_PAD_CLASSES; i++)
		fprintf(o, "| %d | %d | %d | %d |\n", i + 1, pconn_pad_class[i], pconn_pad_class[i] + NOISE_TAG_LEN,
		        2 + pconn_pad_class[i] + NOISE_TAG_LEN);
	fprintf(o, "\n");
	return 0;
}

static const char *const dir_names[] = { [WIRE_C2S] = "client", [WIRE_S2C] = "server", [WIRE_BOTH] = "both" };

static int
gen_types(FILE *o)
{
	fprintf(o, "\n| code | name | from | before join | payload bytes |\n| --- | --- | --- | --- | --- |\n");
#define X(id, code, dir, pre, min, max, member)                                                                  \
	if (min == max)                                                                                          \
		fprintf(o, "| `0x%02x` | %s | %s | %s | %d |\n", code, #id, dir_names[dir], pre ? "yes" : "", min); \
	else                                                                                                     \
		fprintf(o, "| `0x%02x` | %s | %s | %s | %d..%d |\n", code, #id, dir_names[dir], pre ? "yes" : "",  \
		        min, (int)(max));
	WIRE_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static int
gen_commands(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| command | name | in the turn log |\n| --- | --- | --- |\n");
#define X(id, name) fprintf(o, "| %d | %s | `%s` |\n", i++, #id, name);
	CMD_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static const char *const class_names[] = { [SPELL_POSITIVE] = "positive", [SPELL_NEUTRAL] = "neutral",
	                                   [SPELL_NEGATIVE] = "negative" };

static int
gen_spells(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| id | name | class | takes a direction |\n| --- | --- | --- | --- |\n");
#define X(id, name, cls, dir, line, rules) fprintf(o, "| %d | %s | %s | %s |\n", i++, name, class_names[cls], dir ? "yes" : "no");
	SPELL_LIST(X)
#undef X
	fprintf(o, "| %d (`0xff`) | none (in OFFERED: no spell) | | |\n\n", SPELL_NONE);
	return 0;
}

static int
gen_appearances(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| appearance | name |\n| --- | --- |\n");
#define X(id, name) fprintf(o, "| %d | %s |\n", i++, name);
	APPEARANCE_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static int
gen_potions(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| kind | name |\n| --- | --- |\n");
#define X(id, name, eff, arg, turns, good, line, rules) fprintf(o, "| %d | %s |\n", i++, name);
	POTION_LIST(X)
#undef X
	fprintf(o, "| %d (`0xff`) | not identified (in KIND) |\n\n", POTION_NONE);
	return 0;
}

static int
gen_elements(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| element | name |\n| --- | --- |\n");
#define X(id, name) fprintf(o, "| %d | %s |\n", i++, name);
	ELEMENT_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static int
gen_effects(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| effect | letter | name |\n| --- | --- | --- |\n");
#define X(id, name)                                                                    \
	if (i == 0)                                                                    \
		i++;                                                                   \
	else                                                                           \
		fprintf(o, "| %d | `%c` | %s |\n", i, 'a' + i, name), i++;
	FX_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static const char *const msg_names[] = {
#define X(id, a, b, text) #id,
	MSG_LIST(X)
#undef X
};

static int
gen_handlers(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| handler (bit) | name | message when it starts | when it ends | stops damage of |\n"
	           "| --- | --- | --- | --- | --- |\n");
#define X(id, name, on, off, resists)                                                                     \
	fprintf(o, "| %d | %s | %d %s | %d %s | %s |\n", i++, name, on, msg_names[on], off, msg_names[off], \
	        (resists) < 0 ? "" : element_name(resists));
	HANDLER_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static const char *const arg_names[] = { [ARG_NONE] = "", [ARG_NUM] = "number", [ARG_SPELL] = "spell",
	                                 [ARG_APPEAR] = "appearance", [ARG_KIND] = "kind",
	                                 [ARG_ELEMENT] = "element" };

static int
gen_arg_kinds(FILE *o)
{
	fprintf(o, "\n| kind | the argument byte is | values |\n| --- | --- | --- |\n");
	fprintf(o, "| %s | a number | 0..255 |\n", arg_names[ARG_NUM]);
	fprintf(o, "| %s | a spell id | 0..%d |\n", arg_names[ARG_SPELL], SPELL_COUNT - 1);
	fprintf(o, "| %s | a potion appearance | 0..%d |\n", arg_names[ARG_APPEAR], APPEARANCE_COUNT - 1);
	fprintf(o, "| %s | a potion kind | 0..%d |\n", arg_names[ARG_KIND], POTION_KIND_COUNT - 1);
	fprintf(o, "| %s | a damage element | 0..%d |\n\n", arg_names[ARG_ELEMENT], ELEMENT_COUNT - 1);
	return 0;
}

static int
gen_messages(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| id | name | `%%1` | `%%2` | argument bytes | text |\n| --- | --- | --- | --- | --- | --- |\n");
#define X(id, a, b, text)                                                                                      \
	if ((unsigned)(a) >= sizeof arg_names / sizeof *arg_names || (unsigned)(b) >= sizeof arg_names / sizeof *arg_names) { \
		fprintf(stderr, "doc_tables: message %s has an argument kind this generator does not know\n", #id); \
		return -1;                                                                                     \
	}                                                                                                      \
	fprintf(o, "| %d | %s | %s | %s | %d | %s%s%s |\n", i++, #id, arg_names[a], arg_names[b],              \
	        ((a) != ARG_NONE) + ((b) != ARG_NONE), *text ? "`" : "(empty)", text, *text ? "`" : "");
	MSG_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

/* One message as MSGS carries it, and its text. */
static int
gen_msg_example(FILE *o)
{
	struct msg m = { MSG_HURT, 0, ELEMENT_COLD, 2 };
	char text[128];

	msg_format(&m, text, sizeof text);
	fprintf(o, "For example the bytes `%02x 02 %02x %02x` are HURT (%d) with %s (%d) and %d: \"%s\"\n", m.id, m.a, m.b,
	        m.id, element_name(m.a), m.a, m.b, text);
	return 0;
}

static int
gen_refusals(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| err | ERROR code | name | text |\n| --- | --- | --- | --- |\n");
#define X(id, text)                                                                                    \
	if (i == 0)                                                                                    \
		i++;                                                                                   \
	else                                                                                           \
		fprintf(o, "| %d | %d | %s | %s |\n", i, PERR_REFUSED_BASE + i, #id, text), i++;
	ERR_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static int
gen_errors(FILE *o)
{
	fprintf(o, "\n| code | name | text (`proto_strerror`) |\n| --- | --- | --- |\n");
#define X(id, num, text) \
	if (num != 0)    \
		fprintf(o, "| %d | %s | %s |\n", num, #id, text);
	PERR_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}

static int
gen_bye(FILE *o)
{
	int i = 0;

	fprintf(o, "\n| reason | meaning |\n| --- | --- |\n");
#define X(id, text) fprintf(o, "| %d | %s |\n", i++, text);
	BYE_LIST(X)
#undef X
	fprintf(o, "\n");
	return 0;
}



/* ---- the field of view, as docs/protocol.md states it, checked against fov_compute() ---- */

/* The document's line: Bresenham from a to b, true when every cell strictly between is floor. */
static bool
doc_line(const struct level *lv, int x0, int y0, int x1, int y1, int path[][2], int *n)
{
	int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1, err = dx + dy;
	bool clear = true;

	if (n)
		*n = 0;
	while (x0 != x1 || y0 != y1) {
		int e2 = 2 * err;

		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
		if (path) {
			path[*n][0] = x0;
			path[*n][1] = y0;
			(*n)++;
		}
		if ((x0 != x1 || y0 != y1) && lv->cell[y0][x0] != CELL_FLOOR)
			clear = false;
	}
	return clear;
}

/* The document's field of view from a floor cell, pass by pass. */
static void
doc_fov(const struct level *lv, int vx, int vy, uint8_t vis[LEVEL_MAX][LEVEL_MAX])
{
	int r = FOV_RADIUS, s = lv->size;
	int x0 = vx - r < 0 ? 0 : vx - r, x1 = vx + r > s - 1 ? s - 1 : vx + r;
	int y0 = vy - r < 0 ? 0 : vy - r, y1 = vy + r > s - 1 ? s - 1 : vy + r;

	memset(vis, 0, sizeof(uint8_t[LEVEL_MAX][LEVEL_MAX]));
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++)
			vis[y][x] = doc_line(lv, vx, vy, x, y, NULL, NULL) || doc_line(lv, x, y, vx, vy, NULL, NULL);
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			if (lv->cell[y][x] == CELL_FLOOR || vis[y][x] == 1)
				continue;
			for (int ny = y - 1; ny <= y + 1; ny++)
				for (int nx = x - 1; nx <= x + 1; nx++)
					if ((nx != x || ny != y) && nx >= x0 && nx <= x1 && ny >= y0 && ny <= y1 &&
					    lv->cell[ny][nx] == CELL_FLOOR && vis[ny][nx] == 1)
						vis[y][x] = 2; /* lit in the second pass: not read by it */
		}
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++)
			vis[y][x] = vis[y][x] != 0;
}

/* Every floor cell of lv as the viewer: the document's answer must be fov_compute()'s. */
static int
fov_agrees(const struct level *lv, const char *what)
{
	static uint8_t a[LEVEL_MAX][LEVEL_MAX], b[LEVEL_MAX][LEVEL_MAX];

	for (int y = 0; y < lv->size; y++)
		for (int x = 0; x < lv->size; x++) {
			if (lv->cell[y][x] != CELL_FLOOR)
				continue;
			doc_fov(lv, x, y, a);
			fov_compute(lv, x, y, FOV_RADIUS, b);
			if (memcmp(a, b, sizeof a) != 0) {
				fprintf(stderr, "doc_tables: on %s from (%d,%d) fov_compute() is not the field of view "
				                "docs/protocol.md states\n", what, x, y);
				return -1;
			}
		}
	return 0;
}

static const char *const fov_map[] = {
	"###############",
	"#.....#.......#",
	"#.....#.#####.#",
	"#..#..#.#...#.#",
	"#.....#.#.#.#.#",
	"#.........#...#",
	"###.#####.#####",
	"#.........#...#",
	"#.###.###.#.#.#",
	"#.#.....#...#.#",
	"#.#.###.#####.#",
	"#...#.........#",
	"#####.#######.#",
	"#.............#",
	"###############",
};
enum { FOV_VX = 4, FOV_VY = 5 };

static int
gen_fov_example(FILE *o)
{
	static struct level lv;
	static struct game g;
	static uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	int path[2][2 * LEVEL_MAX][2], n[2], tx = -1, ty = -1;
	struct options opt;
	struct rng rng;

	lv.size = 15;
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++)
			lv.cell[y][x] = fov_map[y][x] == '.' ? CELL_FLOOR : CELL_WALL;
	/* The statement is checked on this level, on generated duels' levels, and on what a
	 * player knows of them (never seen as floor, as PREDICT and SIGHT use it). */
	if (fov_agrees(&lv, "the example level") < 0)
		return -1;
	options_default(&opt);
	for (int seed = 1; seed <= 6; seed++) {
		opt.size = (uint8_t)(seed % 3 == 0 ? LEVEL_MAX : seed % 3 == 1 ? LEVEL_MIN : LEVEL_DEFAULT);
		if (game_init(&g, &opt, (uint64_t)seed) != ERR_OK || fov_agrees(&g.level, "a duel's level") < 0)
			return -1;
		rng_seed(&rng, (uint64_t)seed);
		for (int y = 1; y < g.level.size - 1; y++)
			for (int x = 1; x < g.level.size - 1; x++)
				if (rng_next(&rng) % 3 == 0)
					g.level.cell[y][x] = CELL_FLOOR;
		if (fov_agrees(&g.level, "a level with unknown cells as floor") < 0)
			return -1;
	}

	doc_fov(&lv, FOV_VX, FOV_VY, vis);
	/* A cell seen only by the line drawn from its end: the tie that makes sight symmetric. */
	for (int y = 0; y < 15 && tx < 0; y++)
		for (int x = 0; x < 15 && tx < 0; x++)
			if (lv.cell[y][x] == CELL_FLOOR && doc_line(&lv, FOV_VX, FOV_VY, x, y, path[0], &n[0]) !=
			    doc_line(&lv, x, y, FOV_VX, FOV_VY, path[1], &n[1])) {
				tx = x;
				ty = y;
			}
	fprintf(o, "\nThe level (`#` wall, `.` floor), the viewer `@` at (%d,%d); then its field of view (`X` and `,`: "
	           "wall and floor not in it):\n\n```\n", FOV_VX, FOV_VY);
	for (int y = 0; y < 15; y++) {
		for (int x = 0; x < 15; x++)
			fputc(x == FOV_VX && y == FOV_VY ? '@' : fov_map[y][x], o);
		fputs("    ", o);
		for (int x = 0; x < 15; x++)
			fputc(x == FOV_VX && y == FOV_VY ? '@' : vis[y][x] ? fov_map[y][x] : fov_map[y][x] == '#' ? 'X' : ',', o);
		fputc('\n', o);
	}
	fprintf(o, "```\n\n");
	if (tx >= 0) {
		fprintf(o, "The cell (%d,%d) shows the two lines. ", tx, ty);
		for (int d = 0; d < 2; d++) {
			bool clear = true;

			fprintf(o, "%s (%d,%d) to (%d,%d) the line steps through", "From", d ? tx : FOV_VX,
			        d ? ty : FOV_VY, d ? FOV_VX : tx, d ? FOV_VY : ty);
			for (int i = 0; i < n[d]; i++) {
				bool end = i + 1 == n[d];
				bool wall = lv.cell[path[d][i][1]][path[d][i][0]] != CELL_FLOOR;

				fprintf(o, "%s (%d,%d)%s", i ? "," : "", path[d][i][0], path[d][i][1],
				        !end && wall ? " (a wall)" : "");
				if (!end && wall)
					clear = false;
			}
			fprintf(o, ": %s. ", clear ? "clear" : "blocked");
		}
		fprintf(o, "One clear line is enough: the cell is in the field of view.\n\n");
	}
	/* A wall only the second pass lights, and the floor that lights it. */
	for (int y = 0; y < 15; y++)
		for (int x = 0; x < 15; x++) {
			if (!vis[y][x] || lv.cell[y][x] == CELL_FLOOR || doc_line(&lv, FOV_VX, FOV_VY, x, y, NULL, NULL) ||
			    doc_line(&lv, x, y, FOV_VX, FOV_VY, NULL, NULL))
				continue;
			for (int ny = y - 1; ny <= y + 1; ny++)
				for (int nx = x - 1; nx <= x + 1; nx++)
					if (nx >= 0 && ny >= 0 && nx < 15 && ny < 15 && lv.cell[ny][nx] == CELL_FLOOR &&
					    vis[ny][nx]) {
						fprintf(o, "The wall (%d,%d) is reached by no clear line: the second pass adds it, "
						           "for its neighbour (%d,%d) is floor in the field of view.\n\n",
						        x, y, nx, ny);
						return 0;
					}
		}
	return 0;
}

static const struct docblock blocks[] = {
	{ "title", gen_title },         { "versions", gen_versions },   { "padding", gen_padding },   { "types", gen_types },
	{ "commands", gen_commands },   { "spells", gen_spells },       { "appearances", gen_appearances },
	{ "potions", gen_potions },     { "elements", gen_elements },   { "effects", gen_effects },
	{ "handlers", gen_handlers },   { "arg-kinds", gen_arg_kinds }, { "messages", gen_messages },
	{ "refusals", gen_refusals },   { "errors", gen_errors },       { "bye", gen_bye },
	{ "fov-example", gen_fov_example }, { "msg-example", gen_msg_example },
};

int
main(int argc, char **argv)
{
	return docblock_main(argc, argv, blocks, (int)(sizeof blocks / sizeof *blocks), NULL);
}
