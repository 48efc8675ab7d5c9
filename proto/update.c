/* SPDX-License-Identifier: MIT */
/* update: view differences made on the server, encoded, decoded and applied on the client, exactly. */
#include <stddef.h>

#include "cold.h"
#include "fov.h"
#include "internal.h"
#include "layout.h"
#include "le.h"
#include "update.h"

_Static_assert(UPD_COUNT <= 32, "the has word is 32 bits");
_Static_assert(HANDLER_COUNT <= 32, "turns_left mask and intrinsics are 32 bits");
_Static_assert(APPEARANCE_COUNT <= LOC_ID_MAX, "a potion id is appearance + 1, one letter");
_Static_assert(FX_COUNT <= LOC_ID_MAX + 1, "an effect id is one letter");
_Static_assert(EVENTS_MSG_MAX <= 255, "message count is one byte");
_Static_assert(MSG_COUNT <= 16384, "message ids are 1 or 2 byte varints");
_Static_assert(UPD_CELLS <= 65535, "cell counts are 16 bits");

#define SQ (2 * FOV_RADIUS + 1)
#define KNOW(c) ((uint8_t)((c) & 0x7f))
#define SEEN(c) (((c) & VCELL_VISIBLE) != 0)

/* Which arguments each message carries, from the rules' own list. */
static const uint8_t msg_args[MSG_COUNT][2] = {
#define X(id, a, b, text) { a, b },
	MSG_LIST(X)
#undef X
};

/* The argument bytes a message of a known id carries. */
static uint8_t
msg_nargs(uint32_t id)
{
	return (uint8_t)((msg_args[id][0] != ARG_NONE) + (msg_args[id][1] != ARG_NONE));
}

static const char *const field_names[UPD_COUNT] = {
#define X(id, bit, name) [bit] = name,
	UPD_LIST(X)
#undef X
};

const char *
update_field_name(int field)
{
	if (field < 0 || field >= UPD_COUNT || !field_names[field])
		return "?";
	return field_names[field];
}

void
update_blank(struct view *v)
{
	memset(v, 0, sizeof *v);
	memset(v->kind_of, POTION_NONE, sizeof v->kind_of);
	memset(v->offered, SPELL_NONE, sizeof v->offered);
}

/* ---- value checks, shared by update_make (what may be sent) and the decoder ---- */

static bool
size_ok(int size)
{
	return size >= LEVEL_MIN && size <= LEVEL_MAX && (size & 1);
}

static bool
arg_ok(int kind, unsigned v)
{
	switch (kind) {
	case ARG_NONE: return v == 0;
	case ARG_NUM: return v <= 255;
	case ARG_SPELL: return v < SPELL_COUNT;
	case ARG_APPEAR: return v < APPEARANCE_COUNT;
	case ARG_KIND: return v < POTION_KIND_COUNT;
	case ARG_ELEMENT: return v < ELEMENT_COUNT;
	default: return false;
	}
}

static bool
spell_ok(unsigned v)
{
	return v < SPELL_COUNT || v == SPELL_NONE;
}

static bool
kind_ok(unsigned v)
{
	return v < POTION_KIND_COUNT || v == POTION_NONE;
}

#define HANDLER_MASK ((uint32_t)(((uint64_t)1 << HANDLER_COUNT) - 1))

/* ---- walks shared by both ends ---- */

/* The clipped square around (cx, cy): its cells in row order. */
static void
square_box(int size, int cx, int cy, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = cx - FOV_RADIUS < 0 ? 0 : cx - FOV_RADIUS;
	*y0 = cy - FOV_RADIUS < 0 ? 0 : cy - FOV_RADIUS;
	*x1 = cx + FOV_RADIUS >= size ? size - 1 : cx + FOV_RADIUS;
	*y1 = cy + FOV_RADIUS >= size ? size - 1 : cy + FOV_RADIUS;
}

/* Does a cell of a layout rectangle carry a symbol? All do, or (REVEAL) those
 * unknown in the receiver's view, or (SIGHT) those of them it may now see. */
static bool
lay_carries(int mode, uint8_t base, const uint8_t (*sight)[LEVEL_MAX], int x, int y)
{
	if ((mode & LAY_REVEAL) && KNOW(base) != VCELL_UNKNOWN)
		return false;
	return !(mode & LAY_SIGHT) || sight[y][x];
}

/* The cells that carry a symbol, in row order; their knowledge in `now` into seq when given. */
static size_t
lay_walk(const struct view *base, const struct view *now, int mode, const uint8_t (*sight)[LEVEL_MAX], int x0,
         int y0, int w, int h, uint8_t *seq)
{
	size_t n = 0;

	for (int y = y0; y < y0 + h; y++)
		for (int x = x0; x < x0 + w; x++) {
			if (!lay_carries(mode, base->cell[y][x], sight, x, y))
				continue;
			if (seq)
				seq[n] = KNOW(now->cell[y][x]);
			n++;
		}
	return n;
}

#define BYTES(v) ((uint64_t)(v) * UINT64_C(0x0101010101010101))

/* Bit 7 of each byte of x set where that byte is zero. */
static inline uint64_t
zero_bytes(uint64_t x)
{
	const uint64_t low7 = BYTES(0x7f);

	return ~(((x & low7) + low7) | x) & ~low7;
}

/* Where the word of a row's cells from x starts: x, or for the last word of a row s wide
 * (at least 8) and not a multiple of 8, the 8 cells ending at the row's end (overlapping
 * the word before, which an OR, a min or a max does not mind, nor a store of the same). */
_Static_assert(LEVEL_MIN - 2 >= 8, "every row's interior holds a whole word (word_at)");
static inline int
word_at(int x, int s)
{
	return x + 8 <= s ? x : s - 8;
}

/* The level as a view knows it, a cell never seen counting as floor, filled only in the
 * square (x0, y0)-(x1, y1) around the viewer and the ring of cells around it (clipped to
 * the level): all that the field of view at FOV_RADIUS reads (fov_sight; a viewer inside a
 * wall takes fov_los, which looks at the neighbours of the square's edge too), so the rest
 * of lv is left unset. Filling and clearing whole 51x51 grids for it was most of what an
 * update's visibility cost the server (issue 29). */
static void
known_box(const struct view *v, struct level *lv, int x0, int y0, int x1, int y1)
{
	int s = v->opt.size;

	lv->size = v->opt.size;
	x0 = x0 > 0 ? x0 - 1 : 0;
	y0 = y0 > 0 ? y0 - 1 : 0;
	x1 = x1 + 1 < s ? x1 + 1 : s - 1;
	y1 = y1 + 1 < s ? y1 + 1 : s - 1;
	_Static_assert(CELL_WALL == 0 && CELL_FLOOR == 1, "a cell a bit");
	for (int y = y0; y <= y1; y++) {
		int w = x1 - x0 + 1;

		if (w < 8) {
			for (int x = x0; x <= x1; x++)
				lv->cell[y][x] = KNOW(v->cell[y][x]) == VCELL_WALL ? CELL_WALL : CELL_FLOOR;
			continue;
		}
		/* Eight cells a word, the last word overlapping the one before. */
		for (int x = 0; x < w; x += 8) {
			int at = x0 + word_at(x, w);
			uint64_t wall = zero_bytes((le_load64(&v->cell[y][at]) & BYTES(0x7f)) ^ BYTES(VCELL_WALL)) >> 7;

			le_store64(&lv->cell[y][at], BYTES(CELL_FLOOR) & ~wall);
		}
	}
}

/* The bytes of a 51x51 scratch grid's first `s` rows: all that a level of side s reads of
 * it (the sight and predicted-visibility grids are read at y < s, x < s only), so only
 * they are cleared or set, not the whole 2.6 KB a command and player. */
static size_t
rows_of(int s)
{
	return (size_t)(s > 0 && s < LEVEL_MAX ? s : LEVEL_MAX) * LEVEL_MAX;
}

/* Where a receiver standing at `from` might see, counting every cell it has
 * never seen as floor, and the cells next to those (a wall is seen whole when
 * a floor beside it is): each cell it is about to see for the first time is
 * in there. */
static void
lay_sight(const struct view *known, const struct view *from, uint8_t sight[LEVEL_MAX][LEVEL_MAX])
{
	struct level lv;
	struct fov_sight fs;
	int s = known->opt.size, x0, y0, x1, y1, bx, by;
	uint16_t h[FOV_SIDE + 2] = { 0 };
	unsigned cols;

	if (!from->opt.fov) {
		memset(sight, 1, rows_of(s));
		return;
	}
	memset(sight, 0, rows_of(s));
	if (from->x >= s || from->y >= s)
		return; /* off the level: sees nothing, as fov_compute says */
	square_box(s, from->x, from->y, &x0, &y0, &x1, &y1);
	known_box(known, &lv, x0, y0, x1, y1);
	fov_sight(&lv, from->x, from->y, &fs);
	/* As bits (bit i of row j: the cell (bx + i, by + j), as in fs): seen, or a wall
	 * beside seen floor within the square, the seen floor spread one cell sideways (h),
	 * then up and down. */
	bx = from->x - FOV_RADIUS;
	by = from->y - FOV_RADIUS;
	cols = ((1u << (x1 - bx + 1)) - 1) & ~((1u << (x0 - bx)) - 1);
	for (int y = y0; y <= y1; y++) {
		unsigned f = 0, sf;

		for (int x = x0; x <= x1; x++)
			f |= (unsigned)(lv.cell[y][x] == CELL_FLOOR) << (x - bx);
		sf = fs.row[y - by] & cols & f;
		h[y - by + 1] = (uint16_t)((sf | sf << 1 | sf >> 1) & cols);
	}
	for (int y = y0; y <= y1; y++) {
		int j = y - by;

		for (unsigned row = (fs.row[j] & cols) | h[j] | h[j + 1] | h[j + 2]; row; row &= row - 1)
			sight[y][bx + __builtin_ctz(row)] = 1;
	}
}

/* What a receiver can work out on its own: the field of view from where it
 * stands over what it knows, a cell never seen counting as floor, and only
 * cells it knows seen (every cell seen is known); or every cell when FoV is
 * off. Both ends run this on the same knowledge, so it is the same. */
static void
predict_vis_rows(const struct view *v, uint8_t vis[LEVEL_MAX][LEVEL_MAX], int *vy0, int *vy1)
{
	struct level lv;
	struct fov_sight fs;
	int s = v->opt.size, x0, y0, x1, y1, bx;
	unsigned cols;

	*vy0 = 0;
	*vy1 = s - 1;
	if (!v->opt.fov) {
		memset(vis, 1, rows_of(s));
		return;
	}
	*vy1 = -1;
	memset(vis, 0, rows_of(s));
	if (v->x >= s || v->y >= s)
		return;
	square_box(s, v->x, v->y, &x0, &y0, &x1, &y1);
	*vy0 = y0;
	*vy1 = y1;
	known_box(v, &lv, x0, y0, x1, y1);
	fov_sight(&lv, v->x, v->y, &fs);
	bx = v->x - FOV_RADIUS;
	cols = ((1u << (x1 - bx + 1)) - 1) & ~((1u << (x0 - bx)) - 1);
	for (int y = y0; y <= y1; y++)
		for (unsigned row = fs.row[y - v->y + FOV_RADIUS] & cols; row; row &= row - 1) {
			int x = bx + __builtin_ctz(row);
			vis[y][x] = KNOW(v->cell[y][x]) != VCELL_UNKNOWN;
		}
}

/* The same, for a caller that needs no rows: predict_vis_rows also says which rows may
 * hold a cell predicted seen (vy0..vy1; every other row is all zeros). */
static void
predict_vis(const struct view *v, uint8_t vis[LEVEL_MAX][LEVEL_MAX])
{
	int vy0, vy1;

	predict_vis_rows(v, vis, &vy0, &vy1);
}

static void
bit_set(uint8_t *bits, size_t i)
{
	bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static bool
bit_get(const uint8_t *bits, size_t i)
{
	return (bits[i >> 3] >> (i & 7)) & 1;
}

static size_t
varint_len(uint32_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* ---- update_make ---- */

/* memcmp(p, q, n) == 0 for a row of a grid, 8 bytes at a time, the last word overlapping
 * the one before: a call into libc a row was some 110,000 calls in 1,255 commands of the
 * crowd (cells and potions, two views a command; issue 29). */
static inline bool
bytes_same(const uint8_t *p, const uint8_t *q, size_t n)
{
	uint64_t d = 0;

	if (n < 8)
		return memcmp(p, q, n) == 0;
	for (size_t i = 0; i + 8 <= n; i += 8)
		d |= le_load64(p + i) ^ le_load64(q + i);
	d |= le_load64(p + n - 8) ^ le_load64(q + n - 8);
	return d == 0;
}

/* Row y of the cells as the receiver last had it and as it is now: the same bytes?
 * `b` is always a view the server made an update from before (or a blank one), so its
 * cells passed the checks below; where `a` equals it they need no second look. */
static bool
row_same(const struct view *b, const struct view *a, int y)
{
	return bytes_same(b->cell[y], a->cell[y], (size_t)a->opt.size);
}

static bool
cells_same(const struct view *b, const struct view *a)
{
	for (int y = 0; y < a->opt.size; y++)
		if (!row_same(b, a, y))
			return false;
	return true;
}

/* A layout form being weighed: the run it is in, and the length of the text of the runs
 * before it (layout_run_len): layout_encode's length, nothing written. */
struct lay_tally {
	unsigned kind;
	size_t run, len;
};

static inline void
tally(struct lay_tally *t, unsigned k)
{
	if (k == t->kind) {
		t->run++;
		return;
	}
	t->len += layout_run_len(t->kind, t->run);
	t->kind = k;
	t->run = 1;
}

static inline bool
tally_cell(struct lay_tally *t, uint8_t c)
{
	if (KNOW(c) > VCELL_FLOOR)
		return false;
	tally(t, KNOW(c));
	return true;
}


/* The length of the text lay_walk's cells would encode to (the same walk, same
 * arguments), or SIZE_MAX for a cell not 0..2, which layout_encode refuses. Eight cells
 * at a time where a word shows at once that none is carried, or that all are and continue
 * the run: a whole interior is mostly that (long runs of cells never seen early in a duel,
 * none carried by REVEAL late in one, none by SIGHT outside the square). */
static size_t
lay_measure(const struct view *base, const struct view *now, int mode, const uint8_t (*sight)[LEVEL_MAX], int x0,
            int y0, int w, int h)
{
	struct lay_tally t = { 0, 0, 0 };

	for (int y = y0; y < y0 + h; y++) {
		int x = x0;

		for (; x + 8 <= x0 + w; x += 8) {
			uint64_t carried = BYTES(0x80), k = le_load64(&now->cell[y][x]) & BYTES(0x7f);

			if (mode & LAY_REVEAL)
				carried = zero_bytes(le_load64(&base->cell[y][x]) & BYTES(0x7f));
			if (mode & LAY_SIGHT)
				carried &= ~zero_bytes(le_load64(&sight[y][x]));
			if (carried == 0)
				continue;
			if (carried == BYTES(0x80) && k == BYTES(t.kind)) {
				t.run += 8; /* t.kind is a cell tallied below, or 0: in range */
				continue;
			}
			for (int i = 0; i < 8; i++)
				if (lay_carries(mode, base->cell[y][x + i], sight, x + i, y) &&
				    !tally_cell(&t, now->cell[y][x + i]))
					return SIZE_MAX;
		}
		for (; x < x0 + w; x++)
			if (lay_carries(mode, base->cell[y][x], sight, x, y) && !tally_cell(&t, now->cell[y][x]))
				return SIZE_MAX;
	}
	return t.len + layout_run_len(t.kind, t.run);
}

static int
make_layout(const struct view *b, const struct view *a, struct update *u, struct proto_err *e)
{
	/* The forms in the order they are preferred on a tie: a rectangle around what changed
	 * or the whole interior, every cell, only those never seen, or only those never seen
	 * that the receiver may now see. within[i] is an earlier form whose cells are some of
	 * form i's, in the same order, or -1: adding cells to a sequence never shortens its
	 * text (a run grows, or splits around the new cell, and layout_run_len(L1) + 1 +
	 * layout_run_len(L2) >= layout_run_len(L1 + L2)), so form i costs at least as much
	 * and, later on a tie, is never the one kept (tests/proto/test_layout.c checks the
	 * rule on random sequences). */
	enum { FORMS = 5 };
	static const int modes[FORMS] = { LAY_SIGHT | LAY_WHOLE | LAY_REVEAL, LAY_REVEAL, 0, LAY_REVEAL | LAY_WHOLE,
	                                  LAY_WHOLE };
	static const int within[FORMS] = { -1, -1, 1, 0, 3 };
	int s = a->opt.size, x0 = s, y0 = s, x1 = -1, y1 = -1, pick = -1;
	bool reveal_ok = true, sight_ok, on[FORMS];
	size_t best = SIZE_MAX;
	uint8_t sight[LEVEL_MAX][LEVEL_MAX];

	for (int y = 1; y < s - 1; y++) {
		/* A row sent unchanged has nothing to say, and its cells were checked when it was made. */
		if (row_same(b, a, y))
			continue;
		/* The interior's cells eight to a word (most rows that changed changed only in
		 * what is seen): bit 7 of a byte of `moved` where the knowledge changed. */
		for (int x = 1; x < s - 1; x += 8) {
			int at = word_at(x - 1, s - 2) + 1, f, l;
			uint64_t ka = le_load64(&a->cell[y][at]) & BYTES(0x7f), kb = le_load64(&b->cell[y][at]) & BYTES(0x7f), moved;

			if ((ka & BYTES(0x7c)) || zero_bytes(ka ^ BYTES(VCELL_FLOOR + 1)))
				for (int i = 0; i < 8; i++)
					if (KNOW(a->cell[y][at + i]) > VCELL_FLOOR)
						return proto__fail(e, PERR_RANGE, "view: cell (%d,%d) is %u", at + i, y,
						                   a->cell[y][at + i]);
			moved = ~zero_bytes(ka ^ kb) & BYTES(0x80);
			if (!moved)
				continue;
			if (moved & ~zero_bytes(kb)) /* a cell known before changed */
				reveal_ok = false;
			f = at + __builtin_ctzll(moved) / 8;
			l = at + (63 - __builtin_clzll(moved)) / 8;
			x0 = f < x0 ? f : x0;
			x1 = l > x1 ? l : x1;
			y0 = y < y0 ? y : y0;
			y1 = y;
		}
	}
	if (x1 < 0)
		return 0;
	/* SIGHT serves when all that changed is cells first seen from where the
	 * receiver now stands: the usual step. */
	sight_ok = reveal_ok;
	if (sight_ok) {
		lay_sight(b, a, sight);
		for (int y = y0; y <= y1 && sight_ok; y++)
			for (int x = x0; x <= x1; x++)
				if (KNOW(a->cell[y][x]) != KNOW(b->cell[y][x]) && !sight[y][x]) {
					sight_ok = false;
					break;
				}
	}
	/* Each form weighed by the length of its text alone (lay_measure), and only the
	 * shortest written out (below); a form that holds another one that serves is not
	 * weighed at all (within[]). Walking and encoding all five in turn was most of what
	 * a layout cost the server (issue 29). */
	for (int i = 0; i < FORMS; i++)
		on[i] = !((modes[i] & LAY_REVEAL) && !reveal_ok) && !((modes[i] & LAY_SIGHT) && !sight_ok);
	for (int i = 0; i < FORMS; i++) {
		int m = modes[i];
		bool whole = m & LAY_WHOLE;
		size_t len, cost;

		if (!on[i] || (within[i] >= 0 && on[within[i]]))
			continue;
		len = lay_measure(b, a, m, (const uint8_t (*)[LEVEL_MAX])sight, whole ? 1 : x0, whole ? 1 : y0,
		                  whole ? s - 2 : x1 - x0 + 1, whole ? s - 2 : y1 - y0 + 1);
		if (len > UPD_CELLS)
			return proto__fail(e, PERR_RANGE, "view: layout");
		cost = (whole ? 0 : 4) + varint_len((uint32_t)len) + len;
		if (cost < best) {
			best = cost;
			pick = i;
		}
	}
	int m = modes[pick];
	bool whole = m & LAY_WHOLE;
	int rx = whole ? 1 : x0, ry = whole ? 1 : y0;
	int rw = whole ? s - 2 : x1 - x0 + 1, rh = whole ? s - 2 : y1 - y0 + 1;

	/* A whole-interior rectangle is not sent: it reads back as zeros. */
	u->lay_mode = (uint8_t)m;
	u->lay_x = (uint8_t)(whole ? 0 : rx);
	u->lay_y = (uint8_t)(whole ? 0 : ry);
	u->lay_w = (uint8_t)(whole ? 0 : rw);
	u->lay_h = (uint8_t)(whole ? 0 : rh);
	u->lay_n = (uint16_t)lay_walk(b, a, m, (const uint8_t (*)[LEVEL_MAX])sight, rx, ry, rw, rh, u->lay);
	u->has |= UPD_BIT(UPD_LAYOUT);
	return 0;
}

/* The ring is walked in its order (layout_ring_point's: the top row left to right, the
 * right column down, the bottom row right to left, the left column up) side by side, a
 * step a cell, not by a call a cell (issue 29). */
static int
make_ring(const struct view *b, const struct view *a, struct update *u, struct proto_err *e)
{
	static const int8_t dx[4] = { 1, 0, -1, 0 }, dy[4] = { 0, 1, 0, -1 };
	int s = a->opt.size, n = layout_ring_len(s), x = 0, y = 0, i = 0;
	uint8_t ring[UPD_RING_MAX];
	bool changed = false;

	/* Most commands change cells near a wizard and none of the edge: a ring of the same
	 * bytes as b's has nothing to send, and was checked when b was made (as in row_same). */
	if (n > 0 && row_same(b, a, 0) && row_same(b, a, s - 1)) {
		int r = 1;

		while (r < s - 1 && a->cell[r][0] == b->cell[r][0] && a->cell[r][s - 1] == b->cell[r][s - 1])
			r++;
		if (r == s - 1)
			return 0;
	}
	for (int side = 0; side < 4 && n > 0; side++)
		for (int j = 0; j < s - 1; j++, i++, x += dx[side], y += dy[side]) {
			ring[i] = KNOW(a->cell[y][x]);
			if (ring[i] > VCELL_WALL)
				return proto__fail(e, PERR_RANGE, "view: ring cell (%d,%d) is %u", x, y, a->cell[y][x]);
			if (ring[i] != KNOW(b->cell[y][x]))
				changed = true;
		}
	if (changed) {
		memcpy(u->ring, ring, (size_t)n);
		u->ring_n = (uint16_t)n;
		u->has |= UPD_BIT(UPD_RING);
	}
	return 0;
}

/* Take VIS_PREDICT instead when its corrections cost fewer bytes than `cost`. `seen_rows`:
 * bit y set where row y of a may hold a cell seen (make_vis looked): a row outside it and
 * outside the prediction's rows holds no correction, and is not looked at again. */
static void
make_vis_predict(const struct view *a, struct update *u, size_t cost, uint64_t seen_rows)
{
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	uint16_t fix[VIS_FIX_MAX];
	size_t n = 0, bytes = 1;
	int s = a->opt.size, prev = -1, vy0, vy1;

	predict_vis_rows(a, vis, &vy0, &vy1);
	for (int y = 0; y < s; y++) {
		if ((y < vy0 || y > vy1) && !(seen_rows >> y & 1))
			continue;
		/* Most rows hold no correction: found in one pass the compiler vectorizes. */
		uint64_t odd = 0;
		for (int x = 0; x < s; x += 8)
			odd |= le_load64(&vis[y][word_at(x, s)]) ^ (le_load64(&a->cell[y][word_at(x, s)]) >> 7 & BYTES(1));
		if (!odd)
			continue;
		for (int x = 0; x < s; x++) {
			if (!vis[y][x] == !SEEN(a->cell[y][x]))
				continue;
			if (n == VIS_FIX_MAX)
				return;
			fix[n++] = (uint16_t)(y * s + x);
			bytes += varint_len((uint32_t)(y * s + x - prev - 1));
			prev = y * s + x;
			if (bytes >= cost)
				return;
		}
	}
	u->vis_mode = VIS_PREDICT;
	u->vis_x = u->vis_y = u->vis_w = u->vis_h = 0;
	u->vis_nbits = 0;
	memset(u->vis_bits, 0, sizeof u->vis_bits);
	u->vis_nfix = (uint8_t)n;
	memcpy(u->vis_fix, fix, n * sizeof fix[0]);
}

static int
make_vis(const struct view *b, const struct view *a, struct update *u, struct proto_err *e)
{
	int s = a->opt.size, x0 = s, y0 = s, x1 = -1, y1 = -1, sx0, sy0, sx1, sy1;
	bool changed = false, all = true, square_ok = true;
	size_t best, nbits = 0;
	uint64_t seen_rows = 0;

	_Static_assert(LEVEL_MAX <= 64, "a row a bit of seen_rows");
	square_box(s, a->x, a->y, &sx0, &sy0, &sx1, &sy1);
	for (int y = 0; y < s; y++) {
		const uint8_t *ar = a->cell[y];
		/* A row with no cell seen now (with FoV on, every row but those around the
		 * receiver) and none out of range says, eight cells a word, all the walk of its
		 * seen cells below would: whether it changed, and not all seen. Cell by cell, a
		 * 25-cell row was mostly a vectorized loop's scalar tail (issue 29). */
		uint64_t odd = 0, diff = 0;
		for (int x = 0; x < s; x += 8) {
			uint64_t w = le_load64(ar + word_at(x, s));

			odd |= w & BYTES(0x7c | VCELL_VISIBLE);
			diff |= w ^ le_load64(&b->cell[y][word_at(x, s)]);
		}
		changed |= (diff & BYTES(VCELL_VISIBLE)) != 0;
		if (!odd) {
			all = false;
			continue;
		}
		seen_rows |= UINT64_C(1) << y;
		if (odd & BYTES(0x7c))
			for (int x = 0; x < s; x++)
				if (ar[x] & 0x7c)
					return proto__fail(e, PERR_RANGE, "view: cell (%d,%d) is %u", x, y, ar[x]);
		/* The row's seen cells (bit 0 of their bytes in `seen`), in words: their first and
		 * last columns, any cell not seen, any seen but unknown (which no square carries). */
		uint64_t unseen = 0, blind = 0;
		int first = s, last = -1;
		for (int x = 0; x < s; x += 8) {
			int at = word_at(x, s);
			uint64_t w = le_load64(ar + at), seen = w >> 7 & BYTES(1);

			unseen |= ~w & BYTES(VCELL_VISIBLE);
			blind |= seen & ~((w | w >> 1) & BYTES(1));
			if (seen) {
				int f = at + __builtin_ctzll(seen) / 8, l = at + (63 - __builtin_clzll(seen)) / 8;
				first = f < first ? f : first;
				last = l > last ? l : last;
			}
		}
		if (unseen)
			all = false;
		if (last < 0)
			continue;
		if (blind || first < sx0 || last > sx1 || y < sy0 || y > sy1)
			square_ok = false;
		x0 = first < x0 ? first : x0;
		x1 = last > x1 ? last : x1;
		y0 = y < y0 ? y : y0;
		y1 = y;
	}
	if (!changed)
		return 0;
	u->has |= UPD_BIT(UPD_VIS);
	if (x1 < 0) {
		u->vis_mode = VIS_NONE;
		return 0;
	}
	if (all) {
		u->vis_mode = VIS_ALL;
		return 0;
	}
	u->vis_mode = VIS_RECT;
	u->vis_x = (uint8_t)x0;
	u->vis_y = (uint8_t)y0;
	u->vis_w = (uint8_t)(x1 - x0 + 1);
	u->vis_h = (uint8_t)(y1 - y0 + 1);
	u->vis_nbits = (uint16_t)(u->vis_w * u->vis_h);
	best = 4 + (u->vis_nbits + 7u) / 8;
	if (square_ok) {
		for (int y = sy0; y <= sy1; y++)
			for (int x = sx0; x <= sx1; x++)
				nbits += KNOW(a->cell[y][x]) != VCELL_UNKNOWN;
		if (varint_len((uint32_t)nbits) + (nbits + 7) / 8 < best)
			u->vis_mode = VIS_SQUARE;
	}
	memset(u->vis_bits, 0, sizeof u->vis_bits);
	if (u->vis_mode == VIS_SQUARE) {
		/* Only a rectangle sends its corners: they read back as zeros otherwise. */
		u->vis_x = u->vis_y = u->vis_w = u->vis_h = 0;
		size_t i = 0;

		for (int y = sy0; y <= sy1; y++)
			for (int x = sx0; x <= sx1; x++) {
				if (KNOW(a->cell[y][x]) == VCELL_UNKNOWN)
					continue;
				if (SEEN(a->cell[y][x]))
					bit_set(u->vis_bits, i);
				i++;
			}
		u->vis_nbits = (uint16_t)nbits;
	} else {
		for (int y = 0; y < u->vis_h; y++)
			for (int x = 0; x < u->vis_w; x++)
				if (SEEN(a->cell[y0 + y][x0 + x]))
					bit_set(u->vis_bits, (size_t)y * u->vis_w + (size_t)x);
	}
	make_vis_predict(a, u, u->vis_mode == VIS_SQUARE ? varint_len(u->vis_nbits) + (u->vis_nbits + 7u) / 8 : best,
	                 seen_rows);
	return 0;
}

/* Zero an update but for its three cell-sized arrays (lay, fx, pot: 18 of its 20 KiB), which
 * are read only up to their counts (lay_n, nfx, npot). The server makes two updates a
 * command: zeroing all of both cost more than making them. */
static void
clear_but_cells(struct update *u)
{
	static const struct {
		size_t at, len;
	} cells[] = {
		{ offsetof(struct update, lay), sizeof u->lay },
		{ offsetof(struct update, fx), sizeof u->fx },
		{ offsetof(struct update, pot), sizeof u->pot },
	};
	size_t from = 0;

	for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
		memset((uint8_t *)u + from, 0, cells[i].at - from);
		from = cells[i].at + cells[i].len;
	}
	memset((uint8_t *)u + from, 0, sizeof *u - from);
}

int
update_make(const struct view *b, const struct view *a, const struct events *ev, int receiver,
            struct update *u, struct proto_err *e)
{
	int s = a->opt.size;

	clear_but_cells(u);
	if (!size_ok(s))
		return proto__fail(e, PERR_RANGE, "view: size %d", s);
	if (a->me >= PLAYERS || receiver < 0 || receiver >= PLAYERS)
		return proto__fail(e, PERR_RANGE, "view: player %d", a->me);
	if (a->x >= s || a->y >= s || a->opp_x >= s || a->opp_y >= s || a->opp_state > OPP_REMEMBERED)
		return proto__fail(e, PERR_RANGE, "view: position off the level");

	if (b->opt.size != a->opt.size || b->opt.fov != a->opt.fov || b->opt.potions != a->opt.potions) {
		u->opt = a->opt;
		u->has |= UPD_BIT(UPD_OPT);
	}
	if (b->me != a->me) {
		u->me = a->me;
		u->has |= UPD_BIT(UPD_ME);
	}
	if (b->x != a->x || b->y != a->y) {
		u->x = a->x;
		u->y = a->y;
		u->has |= UPD_BIT(UPD_POS);
	}
	if (b->steps_left != a->steps_left) {
		u->steps_left = a->steps_left;
		u->has |= UPD_BIT(UPD_STEPS);
	}
	/* Most commands change no cell of a view with FoV off, and few rows with it on: the
	 * layout, ring and visibility, all made from the cells, then have nothing to send. */
	if (!cells_same(b, a) &&
	    (make_layout(b, a, u, e) < 0 || make_ring(b, a, u, e) < 0 || make_vis(b, a, u, e) < 0))
		return PROTO_BROKEN;
	if (b->opp_state != a->opp_state || b->opp_x != a->opp_x || b->opp_y != a->opp_y) {
		u->opp_state = a->opp_state;
		u->opp_x = a->opp_x;
		u->opp_y = a->opp_y;
		u->has |= UPD_BIT(UPD_OPP);
	}
	if (ev) {
		for (int i = 0; i < ev->nmsg && i < EVENTS_MSG_MAX; i++) {
			const struct msg *m = &ev->msg[i];
			struct msg *o;

			if (!((m->to >> receiver) & 1))
				continue;
			if (m->id >= MSG_COUNT)
				return proto__fail(e, PERR_RANGE, "event: message id %u", m->id);
			o = &u->msg[u->nmsg++];
			/* An argument the message does not take is not sent: it is 0 on arrival. */
			o->id = m->id;
			o->to = 0;
			o->a = msg_args[m->id][0] == ARG_NONE ? 0 : m->a;
			o->b = msg_args[m->id][1] == ARG_NONE ? 0 : m->b;
			if (!arg_ok(msg_args[m->id][0], o->a) || !arg_ok(msg_args[m->id][1], o->b))
				return proto__fail(e, PERR_RANGE, "event: message %u arguments %u, %u", m->id, m->a, m->b);
		}
		if (u->nmsg)
			u->has |= UPD_BIT(UPD_MSGS);
		if (ev->has_fx) {
			for (int y = 0; y < s; y++)
				for (int x = 0; x < s; x++) {
					uint8_t f = ev->fx[y][x];

					if (!f || !(SEEN(b->cell[y][x]) || SEEN(a->cell[y][x])))
						continue;
					if (f >= FX_COUNT)
						return proto__fail(e, PERR_RANGE, "event: effect %u", f);
					u->fx[u->nfx++] = (struct loc){ (uint8_t)x, (uint8_t)y, f };
				}
			if (u->nfx)
				u->has |= UPD_BIT(UPD_FX);
		}
	}
	if (b->turn != a->turn || b->turn_no != a->turn_no) {
		if (a->turn >= PLAYERS)
			return proto__fail(e, PERR_RANGE, "view: turn %u", a->turn);
		u->turn = a->turn;
		/* A turn ends: the count goes up by one, and saying so is one bit. */
		u->turn_next = a->turn_no == b->turn_no + 1;
		u->turn_no = u->turn_next ? 0 : a->turn_no;
		u->has |= UPD_BIT(UPD_TURN);
	}
	if (memcmp(b->offered, a->offered, sizeof a->offered)) {
		for (int i = 0; i < SPELL_OFFERED; i++)
			if (!spell_ok(a->offered[i]))
				return proto__fail(e, PERR_RANGE, "view: offered spell %u", a->offered[i]);
		memcpy(u->offered, a->offered, sizeof u->offered);
		u->has |= UPD_BIT(UPD_OFFERED);
	}
	if (b->hp != a->hp) {
		u->hp = a->hp;
		u->has |= UPD_BIT(UPD_HP);
	}
	if (b->opp_hp != a->opp_hp) {
		u->opp_hp = a->opp_hp;
		u->has |= UPD_BIT(UPD_OPP_HP);
	}
	for (int y = 0; y < s; y++) {
		if (bytes_same(a->potion[y], b->potion[y], (size_t)s))
			continue;
		for (int x = 0; x < s; x++) {
			if (a->potion[y][x] == b->potion[y][x])
				continue;
			if (a->potion[y][x] > APPEARANCE_COUNT)
				return proto__fail(e, PERR_RANGE, "view: potion %u", a->potion[y][x]);
			u->pot[u->npot++] = (struct loc){ (uint8_t)x, (uint8_t)y, a->potion[y][x] };
		}
	}
	if (u->npot)
		u->has |= UPD_BIT(UPD_POTIONS);
	if (b->ninv != a->ninv || memcmp(b->inv, a->inv, sizeof a->inv)) {
		if (a->ninv > INV_MAX)
			return proto__fail(e, PERR_RANGE, "view: %u potions carried", a->ninv);
		u->ninv = a->ninv;
		u->inv_n = 0;
		for (int i = 0; i < INV_MAX; i++) {
			if (a->inv[i] >= APPEARANCE_COUNT)
				return proto__fail(e, PERR_RANGE, "view: inventory %u", a->inv[i]);
			if (a->inv[i] || i < a->ninv)
				u->inv_n = (uint8_t)(i + 1);
		}
		memcpy(u->inv, a->inv, sizeof u->inv);
		u->has |= UPD_BIT(UPD_INV);
	}
	if (memcmp(b->kind_of, a->kind_of, sizeof a->kind_of)) {
		for (int i = 0; i < APPEARANCE_COUNT; i++)
			if (!kind_ok(a->kind_of[i]))
				return proto__fail(e, PERR_RANGE, "view: kind %u", a->kind_of[i]);
		memcpy(u->kind_of, a->kind_of, sizeof u->kind_of);
		u->has |= UPD_BIT(UPD_KIND);
	}
	if (b->intrinsics != a->intrinsics) {
		if (a->intrinsics & ~HANDLER_MASK)
			return proto__fail(e, PERR_RANGE, "view: intrinsics 0x%x", (unsigned)a->intrinsics);
		u->intrinsics = a->intrinsics;
		u->has |= UPD_BIT(UPD_INTRINSICS);
	}
	if (memcmp(b->turns_left, a->turns_left, sizeof a->turns_left)) {
		memcpy(u->turns_left, a->turns_left, sizeof u->turns_left);
		u->has |= UPD_BIT(UPD_TURNS_LEFT);
	}
	if (b->result != a->result || b->end_reason != a->end_reason) {
		if (a->result > RESULT_DRAW || a->end_reason > END_TURN_LIMIT)
			return proto__fail(e, PERR_RANGE, "view: result %u/%u", a->result, a->end_reason);
		u->result = a->result;
		u->end_reason = a->end_reason;
		u->has |= UPD_BIT(UPD_RESULT);
	}
	return 0;
}

/* ---- update_apply ---- */

static int
apply_layout(struct view *v, const struct update *u, struct proto_err *e)
{
	int s = v->opt.size, rx = u->lay_x, ry = u->lay_y, rw = u->lay_w, rh = u->lay_h;
	uint8_t sight[LEVEL_MAX][LEVEL_MAX];
	size_t n;

	if (u->lay_mode & LAY_WHOLE) {
		rx = ry = 1;
		rw = rh = s - 2;
	}
	if (rx < 1 || ry < 1 || rx + rw > s - 1 || ry + rh > s - 1)
		return proto__fail(e, PERR_UPDATE, "layout rectangle off the interior");
	if (u->lay_mode & LAY_SIGHT)
		lay_sight(v, v, sight);
	n = lay_walk(v, v, u->lay_mode, (const uint8_t (*)[LEVEL_MAX])sight, rx, ry, rw, rh, NULL);
	if (n != u->lay_n)
		return proto__fail(e, PERR_UPDATE, "layout: %u cells for %zu", u->lay_n, n);
	n = 0;
	for (int y = ry; y < ry + rh; y++)
		for (int x = rx; x < rx + rw; x++) {
			uint8_t *c = &v->cell[y][x];

			if (lay_carries(u->lay_mode, *c, (const uint8_t (*)[LEVEL_MAX])sight, x, y))
				*c = (uint8_t)((*c & VCELL_VISIBLE) | u->lay[n++]);
		}
	return 0;
}

static int
apply_vis(struct view *v, const struct update *u, struct proto_err *e)
{
	int s = v->opt.size;

	if (u->vis_mode == VIS_PREDICT) {
		uint8_t vis[LEVEL_MAX][LEVEL_MAX];

		if (u->vis_nfix && u->vis_fix[u->vis_nfix - 1] >= s * s)
			return proto__fail(e, PERR_UPDATE, "visibility: cell %u off the level", u->vis_fix[u->vis_nfix - 1]);
		predict_vis(v, vis);
		for (int i = 0; i < u->vis_nfix; i++)
			vis[u->vis_fix[i] / s][u->vis_fix[i] % s] ^= 1;
		for (int y = 0; y < s; y++)
			for (int x = 0; x < s; x++)
				v->cell[y][x] = (uint8_t)(KNOW(v->cell[y][x]) | (vis[y][x] ? VCELL_VISIBLE : 0));
		return 0;
	}

	for (int y = 0; y < s; y++)
		for (int x = 0; x < s; x++)
			if (u->vis_mode == VIS_ALL)
				v->cell[y][x] |= VCELL_VISIBLE;
			else
				v->cell[y][x] &= (uint8_t)~VCELL_VISIBLE;
	if (u->vis_mode == VIS_RECT) {
		if (u->vis_x + u->vis_w > s || u->vis_y + u->vis_h > s)
			return proto__fail(e, PERR_UPDATE, "visibility rectangle off the level");
		for (int y = 0; y < u->vis_h; y++)
			for (int x = 0; x < u->vis_w; x++)
				if (bit_get(u->vis_bits, (size_t)y * u->vis_w + (size_t)x))
					v->cell[u->vis_y + y][u->vis_x + x] |= VCELL_VISIBLE;
	} else if (u->vis_mode == VIS_SQUARE) {
		int x0, y0, x1, y1;
		size_t n = 0;

		square_box(s, v->x, v->y, &x0, &y0, &x1, &y1);
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++)
				n += KNOW(v->cell[y][x]) != VCELL_UNKNOWN;
		if (n != u->vis_nbits)
			return proto__fail(e, PERR_UPDATE, "visibility: %u bits for %zu cells", u->vis_nbits, n);
		n = 0;
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++) {
				if (KNOW(v->cell[y][x]) == VCELL_UNKNOWN)
					continue;
				if (bit_get(u->vis_bits, n))
					v->cell[y][x] |= VCELL_VISIBLE;
				n++;
			}
	}
	return 0;
}

int
update_apply(struct view *out, const struct update *u, struct proto_err *e)
{
	struct view tmp = *out, *v = &tmp;
	int s;

	if (u->has & UPD_BIT(UPD_OPT))
		v->opt = u->opt;
	if (u->has & UPD_BIT(UPD_ME))
		v->me = u->me;
	s = v->opt.size;
	if (!size_ok(s))
		return proto__fail(e, PERR_UPDATE, "no level size before this update");
	if (u->has & UPD_BIT(UPD_POS)) {
		if (u->x >= s || u->y >= s)
			return proto__fail(e, PERR_UPDATE, "position (%u,%u) off the level", u->x, u->y);
		v->x = u->x;
		v->y = u->y;
	}
	if (u->has & UPD_BIT(UPD_STEPS))
		v->steps_left = u->steps_left;
	if ((u->has & UPD_BIT(UPD_LAYOUT)) && apply_layout(v, u, e) < 0)
		return PROTO_BROKEN;
	if (u->has & UPD_BIT(UPD_RING)) {
		if (u->ring_n != layout_ring_len(s))
			return proto__fail(e, PERR_UPDATE, "ring: %u cells for %d", u->ring_n, layout_ring_len(s));
		for (int i = 0; i < u->ring_n; i++) {
			int x, y;

			layout_ring_point(s, i, &x, &y);
			v->cell[y][x] = (uint8_t)((v->cell[y][x] & VCELL_VISIBLE) | u->ring[i]);
		}
	}
	if ((u->has & UPD_BIT(UPD_VIS)) && apply_vis(v, u, e) < 0)
		return PROTO_BROKEN;
	if (u->has & UPD_BIT(UPD_OPP)) {
		if (u->opp_x >= s || u->opp_y >= s)
			return proto__fail(e, PERR_UPDATE, "opponent (%u,%u) off the level", u->opp_x, u->opp_y);
		v->opp_state = u->opp_state;
		v->opp_x = u->opp_x;
		v->opp_y = u->opp_y;
	}
	for (int i = 0; i < u->nfx; i++)
		if (u->fx[i].x >= s || u->fx[i].y >= s)
			return proto__fail(e, PERR_UPDATE, "effect (%u,%u) off the level", u->fx[i].x, u->fx[i].y);
	if (u->has & UPD_BIT(UPD_TURN)) {
		v->turn = u->turn;
		v->turn_no = u->turn_next ? v->turn_no + 1 : u->turn_no;
	}
	if (u->has & UPD_BIT(UPD_OFFERED))
		memcpy(v->offered, u->offered, sizeof v->offered);
	if (u->has & UPD_BIT(UPD_HP))
		v->hp = u->hp;
	if (u->has & UPD_BIT(UPD_OPP_HP))
		v->opp_hp = u->opp_hp;
	for (int i = 0; i < u->npot; i++) {
		if (u->pot[i].x >= s || u->pot[i].y >= s)
			return proto__fail(e, PERR_UPDATE, "potion (%u,%u) off the level", u->pot[i].x, u->pot[i].y);
		v->potion[u->pot[i].y][u->pot[i].x] = u->pot[i].id;
	}
	if (u->has & UPD_BIT(UPD_INV)) {
		v->ninv = u->ninv;
		memset(v->inv, 0, sizeof v->inv);
		memcpy(v->inv, u->inv, u->inv_n);
	}
	if (u->has & UPD_BIT(UPD_KIND))
		memcpy(v->kind_of, u->kind_of, sizeof v->kind_of);
	if (u->has & UPD_BIT(UPD_INTRINSICS))
		v->intrinsics = u->intrinsics;
	if (u->has & UPD_BIT(UPD_TURNS_LEFT))
		memcpy(v->turns_left, u->turns_left, sizeof v->turns_left);
	if (u->has & UPD_BIT(UPD_RESULT)) {
		v->result = u->result;
		v->end_reason = u->end_reason;
	}
	*out = tmp;
	return 0;
}

bool
update_view_equal(const struct view *a, const struct view *b)
{
	return a->opt.size == b->opt.size && a->opt.fov == b->opt.fov && a->opt.potions == b->opt.potions &&
	       a->me == b->me && !memcmp(a->cell, b->cell, sizeof a->cell) &&
	       !memcmp(a->potion, b->potion, sizeof a->potion) && a->x == b->x && a->y == b->y &&
	       a->hp == b->hp && a->opp_hp == b->opp_hp && a->opp_state == b->opp_state &&
	       a->opp_x == b->opp_x && a->opp_y == b->opp_y && a->ninv == b->ninv &&
	       !memcmp(a->inv, b->inv, sizeof a->inv) && !memcmp(a->kind_of, b->kind_of, sizeof a->kind_of) &&
	       a->intrinsics == b->intrinsics && !memcmp(a->turns_left, b->turns_left, sizeof a->turns_left) &&
	       a->turn == b->turn && a->turn_no == b->turn_no && a->steps_left == b->steps_left &&
	       !memcmp(a->offered, b->offered, sizeof a->offered) && a->result == b->result &&
	       a->end_reason == b->end_reason;
}

/* ---- checks: what encode refuses to write is exactly what decode refuses to read ---- */

/* FULL or REVEAL, of a rectangle or WHOLE; SIGHT only with both of those. */
static bool
lay_mode_ok(unsigned m)
{
	return m <= (LAY_REVEAL | LAY_WHOLE) || m == (LAY_SIGHT | LAY_REVEAL | LAY_WHOLE);
}

static bool
pad_clear(const uint8_t *bits, size_t nbits)
{
	return (nbits & 7) == 0 || (bits[nbits >> 3] >> (nbits & 7)) == 0;
}

static bool
locs_ok(const struct loc *l, size_t n, unsigned lo, unsigned hi)
{
	for (size_t i = 0; i < n; i++)
		if (l[i].x >= LEVEL_MAX || l[i].y >= LEVEL_MAX || l[i].id < lo || l[i].id > hi)
			return false;
	return true;
}

static bool
ring_len_ok(unsigned n)
{
	/* 4 * (size - 1) for an odd size LEVEL_MIN..LEVEL_MAX. */
	return n % 8 == 0 && size_ok((int)n / 4 + 1);
}

#define BAD(...) return proto__fail(e, PERR_RANGE, __VA_ARGS__)

static int
check_update(const struct update *u, struct proto_err *e)
{
	uint32_t h = u->has;

	if (h >> UPD_COUNT)
		BAD("update: unknown field bits 0x%x", (unsigned)h);
	if ((h & UPD_BIT(UPD_OPT)) && !size_ok(u->opt.size))
		BAD("update: size %u", u->opt.size);
	if ((h & UPD_BIT(UPD_ME)) && u->me >= PLAYERS)
		BAD("update: me %u", u->me);
	if ((h & UPD_BIT(UPD_POS)) && (u->x >= LEVEL_MAX || u->y >= LEVEL_MAX))
		BAD("update: position (%u,%u)", u->x, u->y);
	if (h & UPD_BIT(UPD_VIS)) {
		if (u->vis_mode > VIS_PREDICT)
			BAD("update: visibility mode %u", u->vis_mode);
		for (int i = 1; i < u->vis_nfix; i++)
			if (u->vis_fix[i] <= u->vis_fix[i - 1])
				BAD("update: visibility corrections out of order");
		if (u->vis_nfix && (u->vis_mode != VIS_PREDICT || u->vis_fix[u->vis_nfix - 1] >= UPD_CELLS))
			BAD("update: visibility corrections");
		if (u->vis_mode == VIS_RECT &&
		    (u->vis_w < 1 || u->vis_h < 1 || u->vis_x + u->vis_w > LEVEL_MAX || u->vis_y + u->vis_h > LEVEL_MAX ||
		     u->vis_nbits != u->vis_w * u->vis_h))
			BAD("update: visibility rectangle");
		if (u->vis_mode == VIS_SQUARE && u->vis_nbits > SQ * SQ)
			BAD("update: %u visibility bits", u->vis_nbits);
		if (u->vis_mode <= VIS_SQUARE && !pad_clear(u->vis_bits, u->vis_nbits))
			BAD("update: visibility padding bits set");
	}
	if (h & UPD_BIT(UPD_LAYOUT)) {
		size_t cap;

		if (!lay_mode_ok(u->lay_mode))
			BAD("update: layout mode %u", u->lay_mode);
		if (u->lay_mode & LAY_WHOLE) {
			if (u->lay_x || u->lay_y || u->lay_w || u->lay_h)
				BAD("update: whole layout with a rectangle");
			cap = (LEVEL_MAX - 2) * (LEVEL_MAX - 2);
		} else {
			if (u->lay_x < 1 || u->lay_y < 1 || u->lay_w < 1 || u->lay_h < 1 ||
			    u->lay_x + u->lay_w > LEVEL_MAX - 1 || u->lay_y + u->lay_h > LEVEL_MAX - 1)
				BAD("update: layout rectangle");
			cap = (size_t)u->lay_w * u->lay_h;
		}
		if (u->lay_n > cap || (!(u->lay_mode & LAY_REVEAL) && !(u->lay_mode & LAY_WHOLE) && u->lay_n != cap))
			BAD("update: %u layout cells", u->lay_n);
		for (size_t i = 0; i < u->lay_n; i++)
			if (u->lay[i] > VCELL_FLOOR)
				BAD("update: layout cell %u", u->lay[i]);
	}
	if (h & UPD_BIT(UPD_RING)) {
		if (!ring_len_ok(u->ring_n))
			BAD("update: %u ring cells", u->ring_n);
		for (size_t i = 0; i < u->ring_n; i++)
			if (u->ring[i] > VCELL_WALL)
				BAD("update: ring cell %u", u->ring[i]);
	}
	if ((h & UPD_BIT(UPD_OPP)) && (u->opp_state > OPP_REMEMBERED || u->opp_x >= LEVEL_MAX || u->opp_y >= LEVEL_MAX))
		BAD("update: opponent %u (%u,%u)", u->opp_state, u->opp_x, u->opp_y);
	if (!(h & UPD_BIT(UPD_MSGS)) != !u->nmsg || u->nmsg > EVENTS_MSG_MAX)
		BAD("update: %u messages", u->nmsg);
	for (int i = 0; i < u->nmsg; i++) {
		const struct msg *m = &u->msg[i];

		if (m->id >= MSG_COUNT || m->to != 0 || !arg_ok(msg_args[m->id][0], m->a) ||
		    !arg_ok(msg_args[m->id][1], m->b))
			BAD("update: message %u (%u, %u)", m->id, m->a, m->b);
	}
	if (!(h & UPD_BIT(UPD_FX)) != !u->nfx || u->nfx > UPD_CELLS || !locs_ok(u->fx, u->nfx, 1, FX_COUNT - 1))
		BAD("update: effects");
	if ((h & UPD_BIT(UPD_TURN)) && (u->turn >= PLAYERS || u->turn_next > 1 || (u->turn_next && u->turn_no)))
		BAD("update: turn %u", u->turn);
	if (h & UPD_BIT(UPD_OFFERED))
		for (int i = 0; i < SPELL_OFFERED; i++)
			if (!spell_ok(u->offered[i]))
				BAD("update: offered %u", u->offered[i]);
	if (!(h & UPD_BIT(UPD_POTIONS)) != !u->npot || u->npot > UPD_CELLS ||
	    !locs_ok(u->pot, u->npot, 0, APPEARANCE_COUNT))
		BAD("update: potions");
	if (h & UPD_BIT(UPD_INV)) {
		if (u->ninv > INV_MAX || u->inv_n > INV_MAX)
			BAD("update: inventory %u/%u", u->ninv, u->inv_n);
		for (int i = 0; i < INV_MAX; i++)
			if (i < u->inv_n ? u->inv[i] >= APPEARANCE_COUNT : u->inv[i] != 0)
				BAD("update: inventory slot %d", i);
	}
	if (h & UPD_BIT(UPD_KIND))
		for (int i = 0; i < APPEARANCE_COUNT; i++)
			if (!kind_ok(u->kind_of[i]))
				BAD("update: kind %u", u->kind_of[i]);
	if ((h & UPD_BIT(UPD_INTRINSICS)) && (u->intrinsics & ~HANDLER_MASK))
		BAD("update: intrinsics 0x%x", (unsigned)u->intrinsics);
	if ((h & UPD_BIT(UPD_RESULT)) && (u->result > RESULT_DRAW || u->end_reason > END_TURN_LIMIT))
		BAD("update: result %u/%u", u->result, u->end_reason);
	return 0;
}

/* ---- encoding ---- */

/* Text (run-length or locations) with its varint length in front, written in
 * place: the text goes 3 bytes in, then moves back behind its length. */
static void
put_coded(struct proto__w *w, bool locs, const void *items, size_t n)
{
	size_t start = w->len, room, hl = 0;
	uint8_t hdr[5];
	uint32_t v;
	char *dst;
	int len;

	if (w->over || w->cap - w->len < 3) {
		w->over = true;
		return;
	}
	room = w->cap - w->len - 3;
	dst = (char *)w->p + w->len + 3;
	len = locs ? loc_encode(items, n, dst, room) : layout_encode(items, n, dst, room);
	if (len < 0) {
		w->over = true;
		return;
	}
	v = (uint32_t)len;
	do {
		hdr[hl] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			hdr[hl] |= 0x80;
		hl++;
	} while (v);
	memmove(w->p + start + hl, dst, (size_t)len);
	memcpy(w->p + start, hdr, hl);
	w->len = start + hl + (size_t)len;
}

int
update__write(struct proto__w *w, const struct update *u, struct proto_err *e)
{
	uint32_t h = u->has;

	if (check_update(u, e) < 0)
		return PROTO_BROKEN;
	proto__put_var(w, h);
	if (h & UPD_BIT(UPD_POS)) {
		proto__put_u8(w, u->x);
		proto__put_u8(w, u->y);
	}
	if (h & UPD_BIT(UPD_STEPS))
		proto__put_u8(w, u->steps_left);
	if (h & UPD_BIT(UPD_VIS)) {
		proto__put_u8(w, u->vis_mode);
		if (u->vis_mode == VIS_RECT) {
			proto__put_u8(w, u->vis_x);
			proto__put_u8(w, u->vis_y);
			proto__put_u8(w, u->vis_w);
			proto__put_u8(w, u->vis_h);
		} else if (u->vis_mode == VIS_SQUARE) {
			proto__put_var(w, u->vis_nbits);
		} else if (u->vis_mode == VIS_PREDICT) {
			proto__put_u8(w, u->vis_nfix);
			for (int i = 0; i < u->vis_nfix; i++)
				proto__put_var(w, (uint32_t)(u->vis_fix[i] - (i ? u->vis_fix[i - 1] + 1 : 0)));
		}
		if (u->vis_mode <= VIS_SQUARE)
			proto__put(w, u->vis_bits, (u->vis_nbits + 7u) / 8);
	}
	if (h & UPD_BIT(UPD_LAYOUT)) {
		proto__put_u8(w, u->lay_mode);
		if (!(u->lay_mode & LAY_WHOLE)) {
			proto__put_u8(w, u->lay_x);
			proto__put_u8(w, u->lay_y);
			proto__put_u8(w, u->lay_w);
			proto__put_u8(w, u->lay_h);
		}
		put_coded(w, false, u->lay, u->lay_n);
	}
	if (h & UPD_BIT(UPD_OPP)) {
		proto__put_u8(w, u->opp_state);
		proto__put_u8(w, u->opp_x);
		proto__put_u8(w, u->opp_y);
	}
	if (h & UPD_BIT(UPD_MSGS)) {
		proto__put_u8(w, u->nmsg);
		for (int i = 0; i < u->nmsg; i++) {
			const uint8_t *k = msg_args[u->msg[i].id];

			/* The argument bytes' count goes first, so that a receiver that does
			 * not know an id can step over it (docs/protocol.md, "MSGS"). */
			proto__put_var(w, u->msg[i].id);
			proto__put_u8(w, msg_nargs(u->msg[i].id));
			if (k[0] != ARG_NONE)
				proto__put_u8(w, u->msg[i].a);
			if (k[1] != ARG_NONE)
				proto__put_u8(w, u->msg[i].b);
		}
	}
	if (h & UPD_BIT(UPD_FX))
		put_coded(w, true, u->fx, u->nfx);
	if (h & UPD_BIT(UPD_TURN)) {
		proto__put_u8(w, u->turn | (u->turn_next ? 2u : 0u));
		if (!u->turn_next)
			proto__put_var(w, u->turn_no);
	}
	if (h & UPD_BIT(UPD_OFFERED))
		proto__put(w, u->offered, SPELL_OFFERED);
	if (h & UPD_BIT(UPD_HP))
		proto__put_u8(w, (uint8_t)u->hp);
	if (h & UPD_BIT(UPD_OPP_HP))
		proto__put_u8(w, (uint8_t)u->opp_hp);
	if (h & UPD_BIT(UPD_POTIONS))
		put_coded(w, true, u->pot, u->npot);
	if (h & UPD_BIT(UPD_RING))
		put_coded(w, false, u->ring, u->ring_n);
	if (h & UPD_BIT(UPD_INV)) {
		proto__put_u8(w, u->ninv);
		proto__put_u8(w, u->inv_n);
		proto__put(w, u->inv, u->inv_n);
	}
	if (h & UPD_BIT(UPD_KIND))
		proto__put(w, u->kind_of, APPEARANCE_COUNT);
	if (h & UPD_BIT(UPD_INTRINSICS))
		proto__put_var(w, u->intrinsics);
	if (h & UPD_BIT(UPD_TURNS_LEFT)) {
		uint32_t mask = 0;

		for (int i = 0; i < HANDLER_COUNT; i++)
			if (u->turns_left[i])
				mask |= 1u << i;
		proto__put_var(w, mask);
		for (int i = 0; i < HANDLER_COUNT; i++)
			if (u->turns_left[i])
				proto__put_u8(w, u->turns_left[i]);
	}
	if (h & UPD_BIT(UPD_RESULT)) {
		proto__put_u8(w, u->result);
		proto__put_u8(w, u->end_reason);
	}
	if (h & UPD_BIT(UPD_OPT)) {
		proto__put_u8(w, u->opt.size);
		proto__put_u8(w, (u->opt.fov ? 1u : 0u) | (u->opt.potions ? 2u : 0u));
	}
	if (h & UPD_BIT(UPD_ME))
		proto__put_u8(w, u->me);
	if (w->over)
		return proto__fail(e, PERR_BUFFER, "update: more than %zu bytes", w->cap);
	return 0;
}

int
update_encode(const struct update *u, uint8_t *out, size_t cap, size_t *len, struct proto_err *e)
{
	struct proto__w w;

	proto__w_init(&w, out, cap);
	if (update__write(&w, u, e) < 0)
		return PROTO_BROKEN;
	*len = w.len;
	return 0;
}

/* ---- decoding ---- */

#define NEED(ok) do { if (!(ok)) return proto__fail(e, PERR_TRUNCATED, "update: truncated at %zu", r->pos); } while (0)

/* The reads of update__read go through these, out of line: only clients decode updates, and the
 * 36 inlined copies of the bounded reads were most of its size. The server's encoder above keeps
 * its writers inline (its command path). */
WW_NOINLINE static bool
get_u8(struct proto__r *r, uint8_t *v)
{
	return proto__get_u8(r, v);
}

WW_NOINLINE static bool
get_bytes(struct proto__r *r, void *dst, size_t n)
{
	return proto__get(r, dst, n);
}

static int
get_var(struct proto__r *r, uint32_t *v, struct proto_err *e)
{
	int rc = proto__get_var(r, v);

	if (rc == 0)
		return proto__fail(e, PERR_TRUNCATED, "update: truncated varint at %zu", r->pos);
	if (rc < 0)
		return proto__fail(e, PERR_VARINT, "update: bad varint at %zu", r->pos);
	return 0;
}

/* The varint length and the text it announces, in place. */
static int
get_text(struct proto__r *r, const char **t, size_t *len, struct proto_err *e)
{
	uint32_t n;

	if (get_var(r, &n, e) < 0)
		return PROTO_BROKEN;
	if (n > proto__r_left(r))
		return proto__fail(e, PERR_TRUNCATED, "update: text of %u bytes, %zu left", (unsigned)n, proto__r_left(r));
	*t = (const char *)r->p + r->pos;
	*len = n;
	r->pos += n;
	return 0;
}

static int
get_locs(struct proto__r *r, struct loc *out, uint16_t *n, struct proto_err *e)
{
	/* Initialised for gcc 12 at -O3, which cannot see that get_text sets both whenever it succeeds. */
	const char *t = NULL;
	size_t len = 0, got;

	if (get_text(r, &t, &len, e) < 0 || loc_decode(t, len, out, UPD_CELLS, &got, e) < 0)
		return PROTO_BROKEN;
	*n = (uint16_t)got;
	return 0;
}

static int
get_cells(struct proto__r *r, uint8_t *out, size_t cap, uint16_t *n, struct proto_err *e)
{
	const char *t = NULL; /* as in get_locs */
	size_t len = 0, got;

	if (get_text(r, &t, &len, e) < 0 || layout_decode(t, len, out, cap, &got, e) < 0)
		return PROTO_BROKEN;
	*n = (uint16_t)got;
	return 0;
}

int
update__read(struct proto__r *r, struct update *u, struct proto_err *e)
{
	uint32_t h, v;
	uint8_t b;

	memset(u, 0, sizeof *u);
	if (get_var(r, &h, e) < 0)
		return PROTO_BROKEN;
	if (h >> UPD_COUNT)
		return proto__fail(e, PERR_RANGE, "update: unknown field bits 0x%x", (unsigned)h);
	u->has = h;
	if (h & UPD_BIT(UPD_POS))
		NEED(get_u8(r, &u->x) && get_u8(r, &u->y));
	if (h & UPD_BIT(UPD_STEPS))
		NEED(get_u8(r, &u->steps_left));
	if (h & UPD_BIT(UPD_VIS)) {
		NEED(get_u8(r, &u->vis_mode));
		if (u->vis_mode > VIS_PREDICT)
			return proto__fail(e, PERR_RANGE, "update: visibility mode %u", u->vis_mode);
		if (u->vis_mode == VIS_RECT) {
			NEED(get_u8(r, &u->vis_x) && get_u8(r, &u->vis_y) && get_u8(r, &u->vis_w) &&
			     get_u8(r, &u->vis_h));
			if (u->vis_x + u->vis_w > LEVEL_MAX || u->vis_y + u->vis_h > LEVEL_MAX)
				return proto__fail(e, PERR_RANGE, "update: visibility rectangle");
			u->vis_nbits = (uint16_t)(u->vis_w * u->vis_h);
		} else if (u->vis_mode == VIS_SQUARE) {
			if (get_var(r, &v, e) < 0)
				return PROTO_BROKEN;
			if (v > SQ * SQ)
				return proto__fail(e, PERR_RANGE, "update: %u visibility bits", (unsigned)v);
			u->vis_nbits = (uint16_t)v;
		} else if (u->vis_mode == VIS_PREDICT) {
			uint32_t at = 0;

			NEED(get_u8(r, &u->vis_nfix));
			for (int i = 0; i < u->vis_nfix; i++) {
				if (get_var(r, &v, e) < 0)
					return PROTO_BROKEN;
				if (v >= UPD_CELLS || (at += v) >= UPD_CELLS)
					return proto__fail(e, PERR_RANGE, "update: visibility correction off any level");
				u->vis_fix[i] = (uint16_t)at++;
			}
		}
		if (u->vis_mode <= VIS_SQUARE)
			NEED(get_bytes(r, u->vis_bits, (u->vis_nbits + 7u) / 8));
	}
	if (h & UPD_BIT(UPD_LAYOUT)) {
		size_t cap = (LEVEL_MAX - 2) * (LEVEL_MAX - 2);

		NEED(get_u8(r, &u->lay_mode));
		if (!lay_mode_ok(u->lay_mode))
			return proto__fail(e, PERR_RANGE, "update: layout mode %u", u->lay_mode);
		if (!(u->lay_mode & LAY_WHOLE)) {
			NEED(get_u8(r, &u->lay_x) && get_u8(r, &u->lay_y) && get_u8(r, &u->lay_w) &&
			     get_u8(r, &u->lay_h));
			if (u->lay_x + u->lay_w > LEVEL_MAX - 1 || u->lay_y + u->lay_h > LEVEL_MAX - 1)
				return proto__fail(e, PERR_RANGE, "update: layout rectangle");
			cap = (size_t)u->lay_w * u->lay_h;
		}
		if (get_cells(r, u->lay, cap, &u->lay_n, e) < 0)
			return PROTO_BROKEN;
	}
	if (h & UPD_BIT(UPD_OPP))
		NEED(get_u8(r, &u->opp_state) && get_u8(r, &u->opp_x) && get_u8(r, &u->opp_y));
	if (h & UPD_BIT(UPD_MSGS)) {
		uint8_t count, nargs;

		NEED(get_u8(r, &count));
		if (count == 0 || count > EVENTS_MSG_MAX)
			return proto__fail(e, PERR_RANGE, "update: %u messages", count);
		for (int i = 0; i < count; i++) {
			struct msg *m = &u->msg[u->nmsg];

			if (get_var(r, &v, e) < 0)
				return PROTO_BROKEN;
			NEED(get_u8(r, &nargs));
			if (v >= MSG_COUNT) {
				/* An id of a later table: skipped whole, as the count allows. */
				NEED(proto__r_left(r) >= nargs);
				r->pos += nargs;
				continue;
			}
			if (nargs != msg_nargs(v))
				return proto__fail(e, PERR_RANGE, "update: message %u with %u argument bytes, not %u",
				                   (unsigned)v, nargs, msg_nargs(v));
			m->id = (uint16_t)v;
			if (msg_args[v][0] != ARG_NONE)
				NEED(get_u8(r, &m->a));
			if (msg_args[v][1] != ARG_NONE)
				NEED(get_u8(r, &m->b));
			u->nmsg++;
		}
		/* Only ids of later tables came: as if no message had. */
		if (u->nmsg == 0)
			u->has &= ~UPD_BIT(UPD_MSGS);
	}
	if ((h & UPD_BIT(UPD_FX)) && get_locs(r, u->fx, &u->nfx, e) < 0)
		return PROTO_BROKEN;
	if (h & UPD_BIT(UPD_TURN)) {
		NEED(get_u8(r, &u->turn));
		if (u->turn > 3)
			return proto__fail(e, PERR_RANGE, "update: turn byte 0x%x", u->turn);
		u->turn_next = u->turn >> 1;
		u->turn &= 1;
		if (!u->turn_next && get_var(r, &u->turn_no, e) < 0)
			return PROTO_BROKEN;
	}
	if (h & UPD_BIT(UPD_OFFERED))
		NEED(get_bytes(r, u->offered, SPELL_OFFERED));
	if (h & UPD_BIT(UPD_HP)) {
		NEED(get_u8(r, &b));
		u->hp = (int8_t)b;
	}
	if (h & UPD_BIT(UPD_OPP_HP)) {
		NEED(get_u8(r, &b));
		u->opp_hp = (int8_t)b;
	}
	if ((h & UPD_BIT(UPD_POTIONS)) && get_locs(r, u->pot, &u->npot, e) < 0)
		return PROTO_BROKEN;
	if ((h & UPD_BIT(UPD_RING)) && get_cells(r, u->ring, UPD_RING_MAX, &u->ring_n, e) < 0)
		return PROTO_BROKEN;
	if (h & UPD_BIT(UPD_INV)) {
		NEED(get_u8(r, &u->ninv) && get_u8(r, &u->inv_n));
		if (u->inv_n > INV_MAX)
			return proto__fail(e, PERR_RANGE, "update: %u inventory slots", u->inv_n);
		NEED(get_bytes(r, u->inv, u->inv_n));
	}
	if (h & UPD_BIT(UPD_KIND))
		NEED(get_bytes(r, u->kind_of, APPEARANCE_COUNT));
	if (h & UPD_BIT(UPD_INTRINSICS) && get_var(r, &u->intrinsics, e) < 0)
		return PROTO_BROKEN;
	if (h & UPD_BIT(UPD_TURNS_LEFT)) {
		if (get_var(r, &v, e) < 0)
			return PROTO_BROKEN;
		if (v & ~HANDLER_MASK)
			return proto__fail(e, PERR_RANGE, "update: turns_left mask 0x%x", (unsigned)v);
		for (int i = 0; i < HANDLER_COUNT; i++)
			if (v & (1u << i)) {
				NEED(get_u8(r, &u->turns_left[i]));
				if (u->turns_left[i] == 0)
					return proto__fail(e, PERR_RANGE, "update: turns_left 0 sent");
			}
	}
	if (h & UPD_BIT(UPD_RESULT))
		NEED(get_u8(r, &u->result) && get_u8(r, &u->end_reason));
	if (h & UPD_BIT(UPD_OPT)) {
		NEED(get_u8(r, &u->opt.size) && get_u8(r, &b));
		if (b > 3)
			return proto__fail(e, PERR_RANGE, "update: option flags 0x%x", b);
		u->opt.fov = b & 1;
		u->opt.potions = (b & 2) != 0;
	}
	if (h & UPD_BIT(UPD_ME))
		NEED(get_u8(r, &u->me));
	return check_update(u, e);
}

int
update_decode(const uint8_t *p, size_t len, struct update *u, struct proto_err *e)
{
	struct proto__r r;

	proto__r_init(&r, p, len);
	if (update__read(&r, u, e) < 0)
		return PROTO_BROKEN;
	if (proto__r_left(&r))
		return proto__fail(e, PERR_TRAILING, "update: %zu bytes after the end", proto__r_left(&r));
	return 0;
}
