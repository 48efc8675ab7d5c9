/* SPDX-License-Identifier: MIT */
/* gpack: packs a struct game to its level's size (grids as bit streams) and back, for a server's idle duels. */
#include <stddef.h>
#include <string.h>

#include "gpack.h"
#include "le.h"

#define GRIDS GPACK_GRIDS
#define CELLS (LEVEL_MAX * LEVEL_MAX)
#define WIZ(p, f) (offsetof(struct game, wiz) + (p) * sizeof(struct wizard) + offsetof(struct wizard, f))

typedef uint8_t grid_t[LEVEL_MAX][LEVEL_MAX];

/* The grids by their place in the struct, in increasing order: the bytes between them
 * (and before the first, and after the last) are the rest of the game, copied whole. */
static const size_t grid_at[GRIDS] = {
	offsetof(struct game, level) + offsetof(struct level, cell),
	offsetof(struct game, potion),
	WIZ(0, mem),
	WIZ(0, memp),
	WIZ(1, mem),
	WIZ(1, memp),
};

_Static_assert(PLAYERS == 2, "gpack's grid table has two wizards");
_Static_assert(sizeof(grid_t) == CELLS, "a grid is LEVEL_MAX x LEVEL_MAX bytes");
_Static_assert(offsetof(struct game, potion) >= offsetof(struct game, level) + sizeof(struct level),
               "the grids are in struct order");
_Static_assert(WIZ(0, memp) >= WIZ(0, mem) + CELLS && WIZ(1, mem) >= WIZ(0, memp) + CELLS &&
               WIZ(1, memp) >= WIZ(1, mem) + CELLS && WIZ(0, mem) >= offsetof(struct game, potion) + CELLS,
               "the grids are in struct order");

#if defined(__GNUC__) || defined(__clang__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

/* x repeated in every lane of `lane` bits (lane < 64). */
INLINE uint64_t
lanes(uint64_t x, int lane)
{
	uint64_t r = 0;

	for (int at = 0; at < 64; at += lane)
		r |= x << at;
	return r;
}

INLINE uint64_t
low_bits(int n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* The k (< 8) cells at p, as a word; a whole word when k is 8. */
static inline uint64_t
load_cells(const uint8_t *p, int k)
{
	uint64_t v = 0;

	if (k == 8)
		return le_load64(p);
	for (int i = 0; i < k; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Eight cells of w bits (each in its byte of x) to 8w bits, by halving the lanes:
 * 8 bits -> 16 -> 32 -> 64; and back. Inlined with w constant (see put_rows). Each step
 * keeps a lane's low half in place and moves its high half down onto it: the high half
 * is masked before (unfold) or after (fold) the move, since at widths 5 to 7 a half is
 * wider than the gap it moves across (an or of the unmasked lanes, as before issue 29,
 * was right only up to 4 bits; no game the rules make has wider cells). */
INLINE uint64_t
fold(uint64_t x, int w)
{
	if (w == 8)
		return x;
	/* One multiply gathers the lanes where they are narrow enough that no two of its
	 * partial products overlap: cell k's bit lands at bit 56 + k (w 1); after the first
	 * halving, 4-bit lane k at bit 48 + 4k (w 2). The same bits as the halvings below
	 * (tests/common/test_gpack.c compares them), in a third of the instructions. */
	if (w == 1)
		return (x * 0x0102040810204080ULL) >> 56;
	if (w == 2)
		return (((x | x >> 6) & 0x000f000f000f000fULL) * 0x0001001001001000ULL) >> 48;
	if (w <= 4) { /* the moved half lands past the kept one: one mask serves both */
		x = (x | x >> (8 - w)) & lanes(low_bits(2 * w), 16);
		x = (x | x >> (16 - 2 * w)) & lanes(low_bits(4 * w), 32);
		return (x | x >> (32 - 4 * w)) & low_bits(8 * w);
	}
	x = (x & lanes(low_bits(w), 16)) | (x >> (8 - w) & lanes(low_bits(w) << w, 16));
	x = (x & lanes(low_bits(2 * w), 32)) | (x >> (16 - 2 * w) & lanes(low_bits(2 * w) << 2 * w, 32));
	return (x & low_bits(4 * w)) | (x >> (32 - 4 * w) & low_bits(4 * w) << 4 * w);
}

INLINE uint64_t
unfold(uint64_t x, int w)
{
	x &= low_bits(8 * w);
	if (w == 8)
		return x;
	if (w == 1) /* byte k gets bit k: a copy of the 8 bits in every byte, k's kept in byte k */
		return (((x * 0x0101010101010101ULL & 0x8040201008040201ULL) + 0x7f7f7f7f7f7f7f7fULL) >> 7) &
		       0x0101010101010101ULL;
	if (w <= 4) {
		x = (x | x << (32 - 4 * w)) & lanes(low_bits(4 * w), 32);
		x = (x | x << (16 - 2 * w)) & lanes(low_bits(2 * w), 16);
		return (x | x << (8 - w)) & lanes(low_bits(w), 8);
	}
	x = (x & low_bits(4 * w)) | (x & low_bits(4 * w) << 4 * w) << (32 - 4 * w);
	x = (x & lanes(low_bits(2 * w), 32)) | (x & lanes(low_bits(2 * w) << 2 * w, 32)) << (16 - 2 * w);
	return (x & lanes(low_bits(w), 16)) | (x & lanes(low_bits(w) << w, 16)) << (8 - w);
}

/*
 * A grid is its width byte w, then each of its first n rows as ceil(n / 8) words of 8
 * cells, each word folded to w bytes (the cells past n in a row's last word are zero).
 * Rows are kept apart, a few bits of padding each, so that words come straight from
 * the grid and go straight back, with no copy between. A row's last word is read whole
 * while its 8 bytes lie inside the grid (past the row they are the next row's cells or
 * the level's outside, masked off), and byte by byte at the grid's very end.
 */
INLINE uint64_t
last_word(const uint8_t *grid, int y, int words, int tail)
{
	const uint8_t *p = grid + y * LEVEL_MAX + 8 * (words - 1);

	if (y * LEVEL_MAX + 8 * words <= CELLS)
		return le_load64(p) & low_bits(8 * tail);
	return load_cells(p, tail);
}

/* Rows whose last word can be read whole (its 8 bytes inside the grid): all but a 51x51
 * level's last. */
INLINE int
whole_rows(int n, int words)
{
	int k = (CELLS - 8 * words) / LEVEL_MAX + 1;

	return k < n ? k : n;
}

/* Each word's 8-byte store is overwritten past its w bytes by the next one's: `o` has
 * 8 bytes to spare (GPACK_MAX). */
INLINE uint8_t *
put_rows(uint8_t *o, const uint8_t *grid, int n, int w)
{
	int words = (n + 7) / 8, tail = n - 8 * (words - 1), whole = whole_rows(n, words);
	uint64_t mask = low_bits(8 * tail);

	for (int y = 0; y < n; y++) {
		const uint8_t *row = grid + y * LEVEL_MAX;
		for (int j = 0; j < words - 1; j++, o += w)
			le_store64(o, fold(le_load64(row + 8 * j), w));
		le_store64(o, fold(y < whole ? le_load64(row + 8 * (words - 1)) & mask : last_word(grid, y, words, tail), w));
		o += w;
	}
	return o;
}

/* A grid of few non-zero cells (the potions, the potions remembered; a memory early in a
 * duel) is the list of them instead: cheaper to unpack, and smaller. Its tag
 * byte is SPARSE, then the count (2 bytes), then each cell in row order as 2 bytes,
 * little-endian: y << 6 | x in the low 12 bits, its value (1 to 15) in the high 4. */
#define SPARSE 16

/* Bit 7 of each byte set where the byte is not zero. */
INLINE uint64_t
nonzero(uint64_t x)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	return (((x & low7) + low7) | x) & ~low7;
}

/* The lowest set bit's place (x not zero). */
INLINE int
lowest(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_ctzll(x);
#else
	int i = 0;
	while (!(x & 1)) {
		x >>= 1;
		i++;
	}
	return i;
#endif
}

/* Word j of row y, masked to the row when it is the row's last. */
INLINE uint64_t
word_at(const uint8_t *grid, int y, int j, int words, int tail, int whole)
{
	const uint8_t *p = grid + y * LEVEL_MAX + 8 * j;

	if (j < words - 1)
		return le_load64(p);
	return y < whole ? le_load64(p) & low_bits(8 * tail) : last_word(grid, y, words, tail);
}

/* The most words not zero a grid of width 4 or less may have and still be smaller as the
 * list (3 + 16 x used < 1 + n x words x w, as put_grid decides). */
#define SPARSE_WORDS_MAX ((LEVEL_MAX * ((LEVEL_MAX + 7) / 8) * 4 - 3) / 16)

/* The list from the words found not zero (each y << 3 | j in `at`, in row order). */
static uint8_t *
put_sparse(uint8_t *o, const uint8_t *grid, int n, const uint16_t *at, unsigned used)
{
	int words = (n + 7) / 8, tail = n - 8 * (words - 1), whole = whole_rows(n, words);
	uint8_t *head = o;
	unsigned count = 0;

	o += 3;
	for (unsigned i = 0; i < used; i++) {
		int y = at[i] >> 3, j = at[i] & 7;
		uint64_t x = word_at(grid, y, j, words, tail, whole);
		for (uint64_t nz = nonzero(x); nz != 0; nz &= nz - 1) {
			int b = lowest(nz) >> 3;
			unsigned v = (unsigned)(x >> (8 * b)) & 0xff, c = (unsigned)y << 6 | (unsigned)(8 * j + b);
			*o++ = (uint8_t)c;
			*o++ = (uint8_t)(c >> 8 | v << 4);
			count++;
		}
	}
	head[0] = SPARSE;
	head[1] = (uint8_t)count;
	head[2] = (uint8_t)(count >> 8);
	return o;
}

/*
 * The grid's width is the widest value's, from one pass that or's its words together.
 * Only a grid of width 1 to 4 can be smaller as the list: its words not zero are counted
 * (and their places kept for the list) in a second pass that stops as soon as there are
 * too many for the list to be smaller, so that a full grid (the level) costs a few rows
 * of it. The choice and the bytes are those of counting every word (issue 29: the packer
 * read every word twice, a sparse grid's three times, for a fifth of a command's cost).
 */
static uint8_t *
put_grid(uint8_t *o, const uint8_t *grid, int n)
{
	int words = (n + 7) / 8, tail = n - 8 * (words - 1), whole = whole_rows(n, words);
	uint64_t any = 0, mask = low_bits(8 * tail);
	int w = 0;

	for (int y = 0; y < n; y++) {
		const uint8_t *row = grid + y * LEVEL_MAX;
		for (int j = 0; j < words - 1; j++)
			any |= le_load64(row + 8 * j);
		any |= y < whole ? le_load64(row + 8 * (words - 1)) & mask : last_word(grid, y, words, tail);
	}
	any |= any >> 32;
	any |= any >> 16;
	any |= any >> 8;
	while ((any & 0xff) >> w)
		w++;
	/* The list where even 8 cells a word would be smaller than the rows: 3 + 16 used <
	 * 1 + n words w, that is 16 used <= room. */
	long room = (long)n * words * w - 3;
	if (w > 0 && w <= 4 && room >= 0) {
		uint16_t at[SPARSE_WORDS_MAX + 1];
		unsigned used = 0, most = (unsigned)(room / 16);
		for (int y = 0; y < n; y++)
			for (int j = 0; j < words; j++)
				if (word_at(grid, y, j, words, tail, whole) != 0) {
					if (used == most)
						goto rows;
					at[used++] = (uint16_t)(y << 3 | j);
				}
		return put_sparse(o, grid, n, at, used);
	}
rows:
	*o++ = (uint8_t)w;
	switch (w) { /* w constant in each: the folds are a few instructions */
	case 0: return o;
	case 1: return put_rows(o, grid, n, 1);
	case 2: return put_rows(o, grid, n, 2);
	case 3: return put_rows(o, grid, n, 3);
	case 4: return put_rows(o, grid, n, 4);
	default: return put_rows(o, grid, n, w);
	}
}

static const uint8_t *
get_sparse(const uint8_t *in, const uint8_t *end, uint8_t *grid, int n)
{
	unsigned count;

	if (end - in < 2)
		return NULL;
	count = (unsigned)in[0] | (unsigned)in[1] << 8;
	in += 2;
	if ((size_t)(end - in) < 2 * (size_t)count)
		return NULL;
	for (unsigned i = 0; i < count; i++, in += 2) {
		unsigned at = (unsigned)in[0] | (unsigned)(in[1] & 0x0f) << 8, y = at >> 6, x = at & 63;
		if (y >= (unsigned)n || x >= (unsigned)n || (in[1] >> 4) == 0)
			return NULL;
		grid[y * LEVEL_MAX + x] = (uint8_t)(in[1] >> 4);
	}
	return in;
}

/* Into a zeroed grid. A row's last word is stored whole where its 8 bytes lie inside
 * the grid: past the row's n cells it writes zeros (the cells past the level are zero),
 * on this row or on the next, which is written next. An input word is read whole while
 * 8 bytes remain. */
INLINE const uint8_t *
get_rows(const uint8_t *in, const uint8_t *end, uint8_t *grid, int n, int w)
{
	int words = (n + 7) / 8, tail = n - 8 * (words - 1);
	uint64_t last = low_bits(8 * tail);

	for (int y = 0; y < n; y++) {
		uint8_t *row = grid + y * LEVEL_MAX;
		int j = 0;
		for (; j < words - 1; j++, in += w)
			le_store64(row + 8 * j, unfold(end - in >= 8 ? le_load64(in) : load_cells(in, w), w));
		uint64_t x = unfold(end - in >= 8 ? le_load64(in) : load_cells(in, w), w) & last;
		in += w;
		if (y * LEVEL_MAX + 8 * words <= CELLS) {
			le_store64(row + 8 * j, x);
		} else {
			for (int i = 0; i < tail; i++)
				row[8 * j + i] = (uint8_t)(x >> (8 * i));
		}
	}
	return in;
}

static const uint8_t *
get_grid(const uint8_t *in, const uint8_t *end, uint8_t *grid, int n)
{
	int words = (n + 7) / 8;
	int w;

	if (in >= end)
		return NULL;
	if ((w = *in++) == SPARSE)
		return get_sparse(in, end, grid, n);
	if (w > 8 || (size_t)(end - in) < (size_t)n * (size_t)words * (size_t)w)
		return NULL;
	switch (w) {
	case 0: return in; /* the grid stays zero */
	case 1: return get_rows(in, end, grid, n, 1);
	case 2: return get_rows(in, end, grid, n, 2);
	case 3: return get_rows(in, end, grid, n, 3);
	case 4: return get_rows(in, end, grid, n, 4);
	default: return get_rows(in, end, grid, n, w);
	}
}

/* The bytes before the first grid's in the packed form: every byte outside the grids. */
#define REST (sizeof(struct game) - GRIDS * CELLS)

/* Every byte of the game but its grids, in order: the packed form's head. */
static uint8_t *
put_rest(const uint8_t *b, uint8_t *o)
{
	size_t at = 0;

	for (int i = 0; i < GRIDS; i++) {
		memcpy(o, b + at, grid_at[i] - at);
		o += grid_at[i] - at;
		at = grid_at[i] + CELLS;
	}
	memcpy(o, b + at, sizeof(struct game) - at);
	return o + sizeof(struct game) - at;
}

size_t
gpack_pack(const struct game *g, uint8_t *out)
{
	const uint8_t *b = (const uint8_t *)g;
	int n = g->level.size <= LEVEL_MAX ? g->level.size : LEVEL_MAX;
	uint8_t *o = put_rest(b, out);

	for (int i = 0; i < GRIDS; i++)
		o = put_grid(o, b + grid_at[i], n);
	return (size_t)(o - out);
}

int
gpack_unpack(const uint8_t *in, size_t len, struct game *g)
{
	uint8_t *b = (uint8_t *)g;
	const uint8_t *end = in + len;
	size_t at = 0;
	int n;

	if (len < sizeof *g - GRIDS * CELLS)
		return -1;
	for (int i = 0; i < GRIDS; i++) {
		memcpy(b + at, in, grid_at[i] - at);
		in += grid_at[i] - at;
		memset(b + grid_at[i], 0, CELLS);
		at = grid_at[i] + CELLS;
	}
	memcpy(b + at, in, sizeof *g - at);
	in += sizeof *g - at;
	if ((n = g->level.size) > LEVEL_MAX)
		return -1;
	for (int i = 0; i < GRIDS; i++)
		if ((in = get_grid(in, end, b + grid_at[i], n)) == NULL)
			return -1;
	return in == end ? 0 : -1;
}

/* The grids' first n rows, whole (LEVEL_MAX bytes each): the cells past n in a row are the
 * level's outside, zero, so comparing them too only ever finds a change where packing
 * would find none, never the other way. */
static size_t
memo_bytes(int n)
{
	return (size_t)n * LEVEL_MAX;
}

/* The length of the grid whose bytes start at p: already checked by gpack_unpack. */
static size_t
grid_len(const uint8_t *p, int n)
{
	if (p[0] == SPARSE)
		return 3 + 2 * ((size_t)p[1] | (size_t)p[2] << 8);
	return 1 + (size_t)n * (size_t)((n + 7) / 8) * p[0];
}

int
gpack_unpack_memo(const uint8_t *in, size_t len, struct game *g, struct gpack_memo *m)
{
	const uint8_t *b = (const uint8_t *)g;
	size_t at = REST;
	int n;

	m->n = 0;
	if (gpack_unpack(in, len, g) != 0)
		return -1;
	if ((n = g->level.size) <= 0)
		return 0; /* no level: nothing a memo would save */
	for (int i = 0; i < GRIDS; i++) {
		m->at[i] = (uint32_t)at;
		at += grid_len(in + at, n);
		memcpy(m->grid[i], b + grid_at[i], memo_bytes(n));
	}
	m->at[GRIDS] = (uint32_t)at;
	m->n = n;
	return 0;
}

size_t
gpack_pack_memo(const struct game *g, const uint8_t *old, struct gpack_memo *m, uint8_t *out)
{
	const uint8_t *b = (const uint8_t *)g;
	int n = g->level.size <= LEVEL_MAX ? g->level.size : LEVEL_MAX;
	bool memo = m->n > 0 && m->n == n && old != NULL;
	uint8_t *o = put_rest(b, out);

	for (int i = 0; i < GRIDS; i++) {
		const uint8_t *grid = b + grid_at[i];
		uint32_t here = (uint32_t)(o - out);

		if (memo && memcmp(m->grid[i], grid, memo_bytes(n)) == 0) {
			memcpy(o, old + m->at[i], m->at[i + 1] - m->at[i]);
			o += m->at[i + 1] - m->at[i];
		} else {
			o = put_grid(o, grid, n);
			if (n > 0)
				memcpy(m->grid[i], grid, memo_bytes(n));
		}
		m->at[i] = here;
	}
	m->at[GRIDS] = (uint32_t)(o - out);
	m->n = n;
	return (size_t)(o - out);
}
