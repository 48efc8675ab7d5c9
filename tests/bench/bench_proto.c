/* SPDX-License-Identifier: MIT */
/* bench_proto: bytes on the wire for whole selfplay duels: start frames, turns, duels, and the layout beside raw, zlib, bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bot.h"
#include "layout.h"
#include "pconn.h"
#include "turnlog.h"
#include "update.h"
#include "view.h"

/*
 * Usage: bench_proto [games [size [compare-games [normal]]]]
 * Plays `games` (1,000) random-vs-random duels (normal-vs-normal with a fourth
 * argument `normal`) of default options and sends every
 * message a server and two clients would: WELCOME, START to each player, a CMD per
 * command, an UPDATE per command to each player, END, the turn log in LOG_CHUNKs.
 * The protocol's own setting runs on every game and each client applies what it
 * receives and must end with exactly the server's views. As in the server, the two
 * server ends of a setting deflate through one shared pconn_scratch (one deflater,
 * each stream restarting from its own history). The other compression
 * settings run on the first `compare-games` (200) only, to keep the run short.
 */

#define KEY 0x5eedb075eedb075ULL

struct cfg {
	const char *name;
	struct pconn_config pc;
};

static const struct cfg cfgs[] = {
	{ "stream, sync flush, raw below 32 bytes or fitting its record raw (the protocol)", { ZSTREAM_STREAM, { 9, 11, 5 }, PCONN_DEFLATE_MIN, true } },
	{ "the same, on the first duels only", { ZSTREAM_STREAM, { 9, 11, 5 }, PCONN_DEFLATE_MIN, true } },
	{ "the same, deflating what fits its record raw too", { ZSTREAM_STREAM, { 9, 11, 5 }, PCONN_DEFLATE_MIN, false } },
	{ "the same with a 32 KiB window, memLevel 8, raw below 8 bytes (protocol 3)", { ZSTREAM_STREAM, { 9, 15, 8 }, 8, false } },
	{ "no deflate", { ZSTREAM_STREAM, { 9, 15, 8 }, (size_t)-1, false } },
	{ "per frame, when smaller", { ZSTREAM_FRAME, { 9, 15, 8 }, 0, false } },
	{ "stream, every frame deflated", { ZSTREAM_STREAM, { 9, 15, 8 }, 0, false } },
	{ "stream, raw below 16 bytes", { ZSTREAM_STREAM, { 9, 15, 8 }, 16, false } },
	{ "stream, 4 KiB window, memLevel 5, raw below 8 bytes", { ZSTREAM_STREAM, { 9, 12, 5 }, 8, false } },
	{ "stream, level 6, raw below 8 bytes", { ZSTREAM_STREAM, { 6, 15, 8 }, 8, false } },
	/* Issue 29: fewer frames through the shared deflater, each of which costs a restart. */
	{ "stream, 2 KiB window, raw below 8 bytes (protocol 4 to 6)", { ZSTREAM_STREAM, { 9, 11, 5 }, 8, false } },
	{ "stream, 2 KiB window, raw below 24 bytes", { ZSTREAM_STREAM, { 9, 11, 5 }, 24, false } },
	{ "stream, 1 KiB window, memLevel 4, raw below 8 bytes", { ZSTREAM_STREAM, { 9, 10, 4 }, 8, false } },
	{ "stream, 1 KiB window, memLevel 4, raw below 24 bytes", { ZSTREAM_STREAM, { 9, 10, 4 }, 24, false } },
};
#define NCFG ((int)(sizeof cfgs / sizeof cfgs[0]))

struct vec {
	double *v;
	size_t n, cap;
};

static void
push(struct vec *a, double x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		a->v = realloc(a->v, a->cap * sizeof *a->v);
		if (!a->v)
			abort();
	}
	a->v[a->n++] = x;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
pct(struct vec *a, double p)
{
	size_t i;

	if (!a->n)
		return 0;
	qsort(a->v, a->n, sizeof *a->v, cmp_double);
	i = (size_t)(p * (double)(a->n - 1) + 0.5);
	return a->v[i];
}

static double
mean(const struct vec *a)
{
	double s = 0;

	for (size_t i = 0; i < a->n; i++)
		s += a->v[i];
	return a->n ? s / (double)a->n : 0;
}

static int bot_level = BOT_RANDOM;

struct cstate {
	struct pconn srv[PLAYERS], cli[PLAYERS];
	double turn_bytes, duel_bytes, log_bytes;
	struct vec start, turn, duel, log, update, cmd;
};

struct bench {
	int ncfg; /* configs running for this game */
	struct cstate cs[NCFG];
	struct pconn_scratch *scr[NCFG]; /* each setting's server ends share one, as the server's connections do */
	uint8_t frame[PCONN_FRAME_MAX];
	struct wire_msg m, got;
	struct view client[PLAYERS];
	struct game g;
	struct events ev;
	/* references, per level (the duel's first level) and per update */
	struct vec raw, bits_interior, zraw, rle, rle_deflated, ctx_bound;
	double field_bytes[UPD_COUNT];
	long updates, commands, turns;
	long cmd_count[8][10][16];
	double has_bytes;
	long breakdown_updates;
	/* adaptive context model over all levels: counts[ctx][bit] */
	double ctx_n[1 << 8][2];
	/* the turn log */
	char *log;
	size_t log_len, log_cap;
	/* encryption, the protocol's config: record overhead (length + tag) of a duel's frames */
	double rec_over;
	struct vec over, clear;
};

static void
fail(const char *what, const struct proto_err *e)
{
	fprintf(stderr, "bench_proto: %s: %s\n", what, e ? e->why : "");
	exit(1);
}

/* One message from one end to the other, in config k; the protocol's own
 * config (k == 0) also decodes it on the other end. */
static size_t
send_msg(struct bench *b, int k, int p, bool from_server, const struct wire_msg *m, bool decode)
{
	struct cstate *c = &b->cs[k];
	struct pconn *tx = from_server ? &c->srv[p] : &c->cli[p], *rx = from_server ? &c->cli[p] : &c->srv[p];
	struct proto_err e = { 0 };
	size_t len;
	uint64_t pad = tx->padding_out;

	if (pconn_send(tx, m, b->frame, sizeof b->frame, &len, &e) != 0)
		fail("send", &e);
	if (k == 0 && m->type != WIRE_WELCOME && m->type != WIRE_LOG_CHUNK)
		b->rec_over += 2 + NOISE_TAG_LEN; /* one frame a record, as the server sends them */
	if (decode || m->type == WIRE_WELCOME) {
		if (pconn_feed(rx, b->frame, len) != len || pconn_next(rx, &b->got, &e) != PROTO_DONE)
			fail("receive", &e);
	}
	/* Records before their padding (protocol 6 pads every record to a few sizes, which would
	 * hide what deflate does): what the settings compared here change. */
	return len - (size_t)(tx->padding_out - pad);
}

/* HELLO and CHALLENGE with a fixed server key: both ends then seal records. */
static void
handshake(struct pconn *srv, struct pconn *cli, struct bench *b)
{
	static const uint8_t sk[32] = { 1 };
	uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
	struct noise_keypair kp;
	struct proto_err e = { 0 };
	size_t len;

	noise_keypair_from(&kp, sk);
	pconn_set_identity(srv, &kp);
	wire_hello_init(&b->m);
	if (pconn_send(cli, &b->m, b->frame, sizeof b->frame, &len, &e) != 0 || pconn_feed(srv, b->frame, len) != len ||
	    pconn_next(srv, &b->got, &e) != PROTO_DONE)
		fail("HELLO", &e);
	wire_challenge_init(&b->m, salt, false);
	if (pconn_send(srv, &b->m, b->frame, sizeof b->frame, &len, &e) != 0 || pconn_feed(cli, b->frame, len) != len ||
	    pconn_next(cli, &b->got, &e) != PROTO_DONE)
		fail("CHALLENGE", &e);
}

static void
log_append(struct bench *b, const char *s, int n)
{
	if (n < 0)
		abort();
	if (b->log_len + (size_t)n > b->log_cap) {
		b->log_cap = 2 * (b->log_len + (size_t)n) + 4096;
		b->log = realloc(b->log, b->log_cap);
		if (!b->log)
			abort();
	}
	memcpy(b->log + b->log_len, s, (size_t)n);
	b->log_len += (size_t)n;
}

/* ---- the layout beside other encodings ---- */

static size_t
zlib_size(const uint8_t *p, size_t n)
{
	uLongf zl = compressBound(n);
	uint8_t *z = malloc(zl);
	size_t r;

	if (!z || compress2(z, &zl, p, n, 9) != Z_OK)
		abort();
	r = zl;
	free(z);
	return r;
}

static size_t
deflate_size(const void *p, size_t n)
{
	z_stream z = { 0 };
	uint8_t out[8192];
	size_t r;

	deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = sizeof out;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	r = sizeof out - z.avail_out;
	deflateEnd(&z);
	return r;
}

/* An estimate of the information in a layout: the cost, in bits, of coding each
 * interior cell with an adaptive binary model whose context is its already-coded
 * neighbours (W, NW, N, NE, WW, NN) and the parity of x and y, the counts carried
 * over from level to level: what a model tuned to this generator would need. */
static double
ctx_bits(struct bench *b, const struct level *lv)
{
	double bits = 0;
	int s = lv->size;

	for (int y = 1; y < s - 1; y++)
		for (int x = 1; x < s - 1; x++) {
#define C(dx, dy) (unsigned)(level_floor(lv, x + (dx), y + (dy)) ? 1 : 0)
			unsigned ctx = C(-1, 0) | C(-1, -1) << 1 | C(0, -1) << 2 | C(1, -1) << 3 | C(-2, 0) << 4 |
			               C(0, -2) << 5 | (unsigned)(x & 1) << 6 | (unsigned)(y & 1) << 7;
#undef C
			int bit = lv->cell[y][x] == CELL_FLOOR;
			double *n = b->ctx_n[ctx];

			bits -= log2((n[bit] + 0.4) / (n[0] + n[1] + 0.8));
			n[bit] += 1;
		}
	return bits;
}

static void
layout_refs(struct bench *b, const struct level *lv)
{
	int s = lv->size, n = s * s, in = (s - 2) * (s - 2);
	uint8_t raw[LEVEL_MAX * LEVEL_MAX];
	char text[LEVEL_MAX * LEVEL_MAX];
	int len;

	for (int y = 0; y < s; y++)
		for (int x = 0; x < s; x++)
			raw[y * s + x] = lv->cell[y][x] == CELL_FLOOR ? '1' : '0';
	push(&b->raw, n);
	push(&b->bits_interior, (in + 7) / 8);
	push(&b->zraw, (double)zlib_size(raw, (size_t)n));
	len = layout_encode_level(lv, text, sizeof text);
	push(&b->rle, len);
	push(&b->rle_deflated, (double)deflate_size(text, (size_t)len));
	push(&b->ctx_bound, ctx_bits(b, lv) / 8);
}

/* ---- one duel ---- */

static void
field_breakdown(struct bench *b, const struct update *u)
{
	static uint8_t buf[PROTO_PAYLOAD_MAX];
	struct update *one = malloc(sizeof *one);
	size_t len;

	if (!one)
		abort();
	b->has_bytes += 1 + (u->has >= 0x80) + (u->has >= 0x4000);
	b->breakdown_updates++;
	for (int f = 0; f < UPD_COUNT; f++) {
		if (!(u->has & UPD_BIT(f)))
			continue;
		*one = *u;
		one->has = UPD_BIT(f);
		if (f != UPD_MSGS)
			one->nmsg = 0;
		if (f != UPD_FX)
			one->nfx = 0;
		if (f != UPD_POTIONS)
			one->npot = 0;
		if (update_encode(one, buf, sizeof buf, &len, NULL) != 0)
			abort();
		b->field_bytes[f] += (double)len - 1 - (f >= 7) - (f >= 14); /* less its own `has` */
	}
	free(one);
}

static void
play(struct bench *b, uint64_t seed, const struct options *opt)
{
	struct game *g = &b->g;
	struct view v[2][PLAYERS]; /* before, after */
	struct rng brng;
	struct proto_err e = { 0 };
	char line[TURNLOG_LINE_MAX];
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, *opt, seed, { "alice", "bob" } };

	if (game_init(g, opt, seed) != ERR_OK)
		fail("game_init", NULL);
	rng_seed(&brng, seed ^ KEY);
	layout_refs(b, &g->level);
	b->log_len = 0;
	b->rec_over = 0;
	log_append(b, line, turnlog_format_header(&h, game_hash(g), line, sizeof line));
	for (int k = 0; k < b->ncfg; k++) {
		struct cstate *c = &b->cs[k];

		c->duel_bytes = c->turn_bytes = 0;
		for (int p = 0; p < PLAYERS; p++) {
			pconn_init_config(&c->srv[p], PCONN_SERVER, &cfgs[k].pc);
			pconn_share(&c->srv[p], b->scr[k]);
			pconn_init_config(&c->cli[p], PCONN_CLIENT, &cfgs[k].pc);
			handshake(&c->srv[p], &c->cli[p], b);
		}
	}
	for (int p = 0; p < PLAYERS; p++) {
		struct view blank;

		view_build(g, p, &v[1][p]);
		update_blank(&blank);
		memset(&b->m, 0, sizeof b->m);
		b->m.type = WIRE_WELCOME;
		b->m.u.welcome.player = (uint8_t)p;
		b->m.u.welcome.token_len = PROTO_TOKEN_MAX;
		b->m.u.welcome.hold = 30;
		b->m.u.welcome.grace = 120;
		for (int k = 0; k < b->ncfg; k++)
			send_msg(b, k, p, true, &b->m, false);
		memset(&b->m, 0, sizeof b->m);
		b->m.type = WIRE_START;
		b->m.u.start.first = g->first;
		b->m.u.start.turn_time = 60;
		for (int i = 0; i < PROTO_COMMIT_LEN; i++)
			b->m.u.start.commit[i] = (uint8_t)rng_next(&brng); /* a hash: incompressible */
		if (update_make(&blank, &v[1][p], NULL, p, &b->m.u.start.view, &e) != 0)
			fail("update_make", &e);
		for (int k = 0; k < b->ncfg; k++) {
			size_t len = send_msg(b, k, p, true, &b->m, k == 0);

			push(&b->cs[k].start, (double)len);
			b->cs[k].duel_bytes += (double)len;
		}
		b->client[p] = blank;
		if (update_apply(&b->client[p], &b->got.u.start.view, &e) != 0 ||
		    !update_view_equal(&b->client[p], &v[1][p]))
			fail("start view", &e);
	}
	while (!g->result) {
		struct cmd c;
		int mover = g->turn;
		uint32_t turn_no = g->turn_no;

		memcpy(v[0], v[1], sizeof v[0]);
		bot_choose(&v[0][mover], bot_level, &brng, &c);
		if (game_apply(g, mover, &c, &b->ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			if (game_apply(g, mover, &c, &b->ev) != ERR_OK)
				fail("pass refused", NULL);
		}
		b->commands++;
		b->cmd_count[c.type & 7][c.dir % 10][c.arg & 15]++;
		log_append(b, line, turnlog_format_cmd(mover, &c, line, sizeof line));
		memset(&b->m, 0, sizeof b->m);
		b->m.type = WIRE_CMD;
		b->m.u.cmd = c;
		for (int k = 0; k < b->ncfg; k++) {
			double len = (double)send_msg(b, k, mover, false, &b->m, false);

			b->cs[k].turn_bytes += len;
			push(&b->cs[k].cmd, len);
		}
		for (int p = 0; p < PLAYERS; p++) {
			view_build(g, p, &v[1][p]);
			memset(&b->m, 0, sizeof b->m);
			b->m.type = WIRE_UPDATE;
			if (update_make(&v[0][p], &v[1][p], &b->ev, p, &b->m.u.update, &e) != 0)
				fail("update_make", &e);
			if (b->ncfg > 1)
				field_breakdown(b, &b->m.u.update);
			b->updates++;
			for (int k = 0; k < b->ncfg; k++) {
				double len = (double)send_msg(b, k, p, true, &b->m, k == 0);

				b->cs[k].turn_bytes += len;
				push(&b->cs[k].update, len);
			}
			if (update_apply(&b->client[p], &b->got.u.update, &e) != 0 ||
			    !update_view_equal(&b->client[p], &v[1][p]))
				fail("client view differs from the server's", &e);
		}
		if (g->turn_no != turn_no || g->result) {
			b->turns++;
			log_append(b, line, turnlog_format_hash(turn_no, game_hash(g), line, sizeof line));
			for (int k = 0; k < b->ncfg; k++) {
				push(&b->cs[k].turn, b->cs[k].turn_bytes);
				b->cs[k].duel_bytes += b->cs[k].turn_bytes;
				b->cs[k].turn_bytes = 0;
			}
		}
	}
	log_append(b, line, turnlog_format_end(g, line, sizeof line));
	for (int p = 0; p < PLAYERS; p++) {
		memset(&b->m, 0, sizeof b->m);
		b->m.type = WIRE_END;
		b->m.u.end.result = g->result;
		b->m.u.end.reason = g->end_reason;
		b->m.u.end.seed = seed;
		/* As a host reveals them: its part and the joiner's (random bytes: they do not deflate). */
		b->m.u.end.parts = 2;
		for (int i = 0; i < PROTO_PART_LEN; i++) {
			b->m.u.end.server_part[i] = (uint8_t)rng_next(&brng);
			b->m.u.end.part[1][i] = (uint8_t)rng_next(&brng);
		}
		b->m.u.end.hash = game_hash(g);
		b->m.u.end.log_len = (uint32_t)b->log_len;
		for (int k = 0; k < b->ncfg; k++)
			b->cs[k].duel_bytes += (double)send_msg(b, k, p, true, &b->m, k == 0);
		for (int k = 0; k < b->ncfg; k++)
			b->cs[k].log_bytes = 0;
		for (size_t off = 0; off < b->log_len; off += PROTO_LOG_CHUNK) {
			size_t n = b->log_len - off < PROTO_LOG_CHUNK ? b->log_len - off : PROTO_LOG_CHUNK;

			memset(&b->m, 0, sizeof b->m);
			b->m.type = WIRE_LOG_CHUNK;
			b->m.u.log.offset = (uint32_t)off;
			b->m.u.log.len = (uint16_t)n;
			memcpy(b->m.u.log.data, b->log + off, n);
			for (int k = 0; k < b->ncfg; k++)
				b->cs[k].log_bytes += (double)send_msg(b, k, p, true, &b->m, k == 0);
		}
	}
	push(&b->over, b->rec_over);
	push(&b->clear, b->cs[0].duel_bytes - b->rec_over);
	for (int k = 0; k < b->ncfg; k++) {
		push(&b->cs[k].duel, b->cs[k].duel_bytes);
		push(&b->cs[k].log, b->cs[k].log_bytes / PLAYERS);
		for (int p = 0; p < PLAYERS; p++) {
			pconn_finish(&b->cs[k].srv[p]);
			pconn_finish(&b->cs[k].cli[p]);
		}
	}
}

static double
cmd_entropy_bits(const struct bench *b)
{
	double h = 0, n = (double)b->commands;

	for (int t = 0; t < 8; t++)
		for (int d = 0; d < 10; d++)
			for (int a = 0; a < 16; a++)
				if (b->cmd_count[t][d][a]) {
					double p = (double)b->cmd_count[t][d][a] / n;

					h -= p * log2(p);
				}
	return h;
}

int
main(int argc, char **argv)
{
	int games = argc > 1 ? atoi(argv[1]) : 1000;
	int size = argc > 2 ? atoi(argv[2]) : LEVEL_DEFAULT;
	int compare = argc > 3 ? atoi(argv[3]) : 200;
	bool normal = argc > 4 && strcmp(argv[4], "normal") == 0;
	struct bench *b = calloc(1, sizeof *b);
	struct options opt;
	double cpt, h, deflated[NCFG];

	if (!b || games < 1)
		return 2;
	options_default(&opt);
	opt.size = (uint8_t)size;
	bot_level = normal ? BOT_NORMAL : BOT_RANDOM;
	for (int k = 0; k < NCFG; k++)
		if ((b->scr[k] = pconn_scratch_new(&cfgs[k].pc)) == NULL)
			return 1;
	for (int i = 0; i < games; i++) {
		b->ncfg = i < compare ? NCFG : 1;
		play(b, (uint64_t)i + 1, &opt);
	}
	cpt = (double)b->commands / (double)b->turns;
	for (int k = 0; k < NCFG; k++) {
		deflated[k] = (double)b->scr[k]->dz.frames / (k == 0 || compare > games ? games : compare);
		pconn_scratch_free(b->scr[k]);
	}
	printf("# bench_proto: %d duels of %dx%d (fov on, potions on), %s\n", games, size, size,
	       normal ? "BOT_NORMAL vs BOT_NORMAL" : "BOT_RANDOM vs BOT_RANDOM");
	printf("# %ld commands, %ld turns (%.2f commands a turn), %ld updates; every client view matched the server's\n",
	       b->commands, b->turns, cpt, b->updates);
	printf("\n## Layout of the duel's level (%d levels)\n\n", games);
	printf("| encoding | mean | median | p95 |\n| --- | --- | --- | --- |\n");
#define ROW(name, v) printf("| %s | %.1f | %.0f | %.0f |\n", name, mean(v), pct(v, 0.5), pct(v, 0.95))
	ROW("raw, one byte a cell", &b->raw);
	ROW("zlib (level 9) of the raw level", &b->zraw);
	ROW("the plan's run-length text (edge dropped)", &b->rle);
	ROW("run-length text, raw deflate: as sent", &b->rle_deflated);
	ROW("one bit a cell (interior)", &b->bits_interior);
	ROW("information estimate (adaptive context model)", &b->ctx_bound);
	printf("\n## Frames, in bytes on the wire (headers included)\n\n");
	printf("The first row on all %d duels; the others on the first %d.\n\n", games, compare < games ? compare : games);
	printf("| setting | START (median / p95) | CMD (mean) | UPDATE (mean / median / p95) | turn (median / p95 / mean) |"
	       " duel (median / p95) | turn log, once (median) | frames deflated a duel (mean) |\n"
	       "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (int k = 0; k < NCFG; k++) {
		struct cstate *c = &b->cs[k];

		printf("| %s | %.0f / %.0f | %.2f | %.1f / %.0f / %.0f | %.0f / %.0f / %.1f | %.0f / %.0f | %.0f | %.0f |\n", cfgs[k].name,
		       pct(&c->start, 0.5), pct(&c->start, 0.95), mean(&c->cmd), mean(&c->update), pct(&c->update, 0.5),
		       pct(&c->update, 0.95), pct(&c->turn, 0.5), pct(&c->turn, 0.95), mean(&c->turn), pct(&c->duel, 0.5),
		       pct(&c->duel, 0.95), pct(&c->log, 0.5), deflated[k]);
	}
	h = cmd_entropy_bits(b);
	printf("\n## References for a turn\n\n");
	printf("- whole view each update, raw (cells and potions a byte each): %d bytes an update, %.0f a turn\n",
	       2 * size * size, 2.0 * cpt * 2 * size * size);
	printf("- the commands alone (empirical entropy %.2f bits a command): %.1f bytes a turn\n", h, h * cpt / 8);
	printf("\n## Encryption (the protocol's setting, all %d duels)\n\n", games);
	printf("Every frame goes in a record of its own (2 length bytes and a 16-byte tag), as the server sends a\n"
	       "command's update: %.0f bytes of a duel's %.0f (mean) are records' overhead, %.1f%% more than the\n"
	       "%.0f bytes of the same frames unencrypted (median duel: %.0f against %.0f). The handshake adds\n"
	       "%d bytes a connection (HELLO and CHALLENGE).\n",
	       mean(&b->over), mean(&b->cs[0].duel), 100.0 * mean(&b->over) / mean(&b->clear), mean(&b->clear),
	       pct(&b->cs[0].duel, 0.5), pct(&b->clear, 0.5), 2 + 40 + 2 + 8 + WIRE_CHALLENGE_NOISE);
	printf("\n## Update payload by field (before deflate), bytes per update, first %d duels\n\n", compare);
	printf("| field | bytes |\n| --- | --- |\n");
	printf("| has (the field bits) | %.2f |\n", b->has_bytes / (double)b->breakdown_updates);
	for (int f = 0; f < UPD_COUNT; f++)
		if (b->field_bytes[f] > 0)
			printf("| %s | %.2f |\n", update_field_name(f), b->field_bytes[f] / (double)b->breakdown_updates);
	free(b->log);
	free(b);
	return 0;
}
