/* SPDX-License-Identifier: MIT */
/* Tests for level: generator properties over many seeds, bad sizes refused, mirrors and queries. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "level.h"

/* Per size; thousands of levels in all for each property. */
#define SEEDS 2000

static const int sizes[] = { 15, 17, 25, 37, 51 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* The seed of one generated level: distinct per (size, i) so sizes do not share streams. */
static uint64_t
seed_of(int size, int i)
{
	return (uint64_t)size << 32 | (uint64_t)i;
}

static void
gen(struct level *lv, struct level_rooms *rs, int size, uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed);
	cr_assert_eq(level_generate(lv, size, &r, rs), 0, "size %d seed %llu refused", size,
	    (unsigned long long)seed);
}

static bool
in_room(const struct level_rooms *rs, int x, int y)
{
	for (int i = 0; i < rs->n; i++) {
		const struct room *rm = &rs->room[i];
		if (x >= rm->x && x < rm->x + rm->w && y >= rm->y && y < rm->y + rm->h)
			return true;
	}
	return false;
}

static int
room_of(const struct level_rooms *rs, int x, int y)
{
	for (int i = 0; i < rs->n; i++) {
		const struct room *rm = &rs->room[i];
		if (x >= rm->x && x < rm->x + rm->w && y >= rm->y && y < rm->y + rm->h)
			return i;
	}
	return -1;
}

static int
floor4(const struct level *lv, int x, int y)
{
	return (lv->cell[y][x - 1] == CELL_FLOOR) + (lv->cell[y][x + 1] == CELL_FLOOR) +
	    (lv->cell[y - 1][x] == CELL_FLOOR) + (lv->cell[y + 1][x] == CELL_FLOOR);
}

/* An independent check of connectivity: a 4-neighbour flood fill (stricter than the
 * 8-neighbour level_connected) must reach every floor cell. Returns cells reached. */
static int
flood4(const struct level *lv, bool seen[LEVEL_MAX][LEVEL_MAX])
{
	int qx[LEVEL_MAX * LEVEL_MAX], qy[LEVEL_MAX * LEVEL_MAX], head = 0, tail = 0;

	memset(seen, 0, sizeof(bool[LEVEL_MAX][LEVEL_MAX]));
	for (int y = 0; y < lv->size && tail == 0; y++) {
		for (int x = 0; x < lv->size && tail == 0; x++) {
			if (lv->cell[y][x] == CELL_FLOOR) {
				seen[y][x] = true;
				qx[tail] = x;
				qy[tail++] = y;
			}
		}
	}
	while (head < tail) {
		int x = qx[head], y = qy[head++];
		static const int d[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
		for (int k = 0; k < 4; k++) {
			int nx = x + d[k][0], ny = y + d[k][1];
			if (nx >= 0 && ny >= 0 && nx < lv->size && ny < lv->size &&
			    lv->cell[ny][nx] == CELL_FLOOR && !seen[ny][nx]) {
				seen[ny][nx] = true;
				qx[tail] = nx;
				qy[tail++] = ny;
			}
		}
	}
	return tail;
}

Test(level, rooms_max_formula)
{
	/* The plan's 2 to 6 at every size (fewer are placed where they do not fit). */
	for (int s = LEVEL_MIN; s <= LEVEL_MAX; s += 2)
		cr_assert_eq(level_rooms_max(s), 6, "size %d", s);
}

/* A floor under the floor count: 1% of 51x51 levels had 151 or fewer squares (42 seen). */
Test(level, floor_minimum)
{
	struct level lv;

	for (int size = LEVEL_MIN; size <= LEVEL_MAX; size += 2) {
		int low = 1 << 30;
		for (int i = 0; i < 400; i++) {
			gen(&lv, NULL, size, seed_of(size, i) ^ 0xf100ULL << 32);
			int n = level_floor_count(&lv);
			if (n < low)
				low = n;
		}
		cr_assert_geq(low, level_floor_min(size), "size %d: a level with %d floor squares", size, low);
	}
	cr_assert_eq(level_floor_min(51), 325);
}

Test(level, sealed_edge)
{
	struct level lv;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, NULL, size, seed_of(size, i));
			cr_assert_eq(lv.size, size);
			cr_assert(level_sealed(&lv), "size %d seed %d", size, i);
			for (int k = 0; k < size; k++) {
				cr_assert(lv.cell[0][k] == CELL_WALL && lv.cell[size - 1][k] == CELL_WALL &&
				    lv.cell[k][0] == CELL_WALL && lv.cell[k][size - 1] == CELL_WALL,
				    "size %d seed %d: ring open at %d", size, i, k);
			}
		}
	}
}

Test(level, floor_connected)
{
	struct level lv;
	struct level_rooms rs;
	bool seen[LEVEL_MAX][LEVEL_MAX];

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			int floor = level_floor_count(&lv);
			cr_assert(level_connected(&lv), "size %d seed %d", size, i);
			cr_assert_eq(flood4(&lv, seen), floor, "size %d seed %d: not 4-connected", size, i);
			/* Every room is on the one region, so the two rooms are joined. */
			for (int r = 0; r < rs.n; r++)
				cr_assert(seen[rs.room[r].y][rs.room[r].x], "size %d seed %d room %d", size, i, r);
		}
	}
}

Test(level, room_count_in_range)
{
	struct level lv;
	struct level_rooms rs;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si], max = level_rooms_max(size);
		int seen_n[LEVEL_ROOMS_MAX + 1] = { 0 };
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			cr_assert(rs.n >= LEVEL_ROOMS_MIN && rs.n <= max, "size %d seed %d: %d rooms", size, i, rs.n);
			seen_n[rs.n]++;
		}
		/* The count is drawn uniformly in [2, max]: over 2000 levels each count shows up. */
		for (int n = LEVEL_ROOMS_MIN; n <= max; n++)
			cr_assert(seen_n[n] > 0, "size %d: never %d rooms", size, n);
	}
}

Test(level, two_rooms_at_every_size)
{
	struct level lv;
	struct level_rooms rs;

	for (int size = LEVEL_MIN; size <= LEVEL_MAX; size += 2) {
		for (int i = 0; i < 500; i++) {
			gen(&lv, &rs, size, seed_of(size, i) ^ 0x5eedULL << 40);
			cr_assert(rs.n >= 2 && rs.n <= level_rooms_max(size), "size %d seed %d: %d rooms", size, i, rs.n);
			cr_assert(level_connected(&lv) && level_sealed(&lv), "size %d seed %d", size, i);
		}
	}
}

Test(level, room_shape)
{
	struct level lv;
	struct level_rooms rs;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		int sides[8] = { 0 };
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			for (int r = 0; r < rs.n; r++) {
				const struct room *rm = &rs.room[r];
				cr_assert((rm->w == 3 || rm->w == 5 || rm->w == 7) && (rm->h == 3 || rm->h == 5 || rm->h == 7),
				    "size %d seed %d room %d: %dx%d", size, i, r, rm->w, rm->h);
				cr_assert(rm->x % 2 == 1 && rm->y % 2 == 1, "size %d seed %d room %d: even corner", size, i, r);
				cr_assert(rm->x >= 1 && rm->y >= 1 && rm->x + rm->w <= size - 1 && rm->y + rm->h <= size - 1,
				    "size %d seed %d room %d: outside", size, i, r);
				for (int y = rm->y; y < rm->y + rm->h; y++)
					for (int x = rm->x; x < rm->x + rm->w; x++)
						cr_assert_eq(lv.cell[y][x], CELL_FLOOR, "size %d seed %d room %d: wall at %d,%d",
						    size, i, r, x, y);
				sides[rm->w]++;
				sides[rm->h]++;
			}
		}
		/* Every side length is used at every size, 15 included. */
		cr_assert(sides[3] > 0 && sides[5] > 0 && sides[7] > 0, "size %d: %d %d %d", size, sides[3], sides[5],
		    sides[7]);
	}
}

Test(level, rooms_apart)
{
	struct level lv;
	struct level_rooms rs;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			for (int a = 0; a < rs.n; a++) {
				for (int b = a + 1; b < rs.n; b++) {
					const struct room *p = &rs.room[a], *q = &rs.room[b];
					/* Grow p by one cell on every side: q must not meet it. */
					bool meet = q->x <= p->x + p->w && p->x - 1 <= q->x + q->w - 1 &&
					    q->y <= p->y + p->h && p->y - 1 <= q->y + q->h - 1;
					cr_assert(!meet, "size %d seed %d: rooms %d and %d touch", size, i, a, b);
				}
			}
			/* Nor is there a one-cell door: no cell outside the rooms borders two of them. */
			for (int y = 1; y < size - 1; y++) {
				for (int x = 1; x < size - 1; x++) {
					if (lv.cell[y][x] != CELL_FLOOR || in_room(&rs, x, y))
						continue;
					int h0 = room_of(&rs, x - 1, y), h1 = room_of(&rs, x + 1, y);
					int v0 = room_of(&rs, x, y - 1), v1 = room_of(&rs, x, y + 1);
					cr_assert(!(h0 >= 0 && h1 >= 0) && !(v0 >= 0 && v1 >= 0),
					    "size %d seed %d: door at %d,%d joins two rooms", size, i, x, y);
				}
			}
		}
	}
}

Test(level, no_dead_ends)
{
	struct level lv;
	struct level_rooms rs;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			for (int y = 1; y < size - 1; y++)
				for (int x = 1; x < size - 1; x++)
					if (lv.cell[y][x] == CELL_FLOOR && !in_room(&rs, x, y))
						cr_assert(floor4(&lv, x, y) >= 2, "size %d seed %d: dead end at %d,%d",
						    size, i, x, y);
		}
	}
}

Test(level, corridors_kept)
{
	struct level lv;
	struct level_rooms rs;

	/* Pruning must not eat the corridors: rooms never touch, so some floor lies outside them. */
	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < SEEDS; i++) {
			gen(&lv, &rs, size, seed_of(size, i));
			int room_cells = 0;
			for (int r = 0; r < rs.n; r++)
				room_cells += rs.room[r].w * rs.room[r].h;
			cr_assert_gt(level_floor_count(&lv), room_cells, "size %d seed %d", size, i);
		}
	}
}

Test(level, deterministic)
{
	struct level a, b;
	struct level_rooms ra, rb;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < 200; i++) {
			/* Different leftovers in the structs must not show through. */
			memset(&a, 0xaa, sizeof a);
			memset(&b, 0x55, sizeof b);
			memset(&ra, 0xaa, sizeof ra);
			memset(&rb, 0x55, sizeof rb);
			gen(&a, &ra, size, seed_of(size, i));
			gen(&b, &rb, size, seed_of(size, i));
			cr_assert(memcmp(&a, &b, sizeof a) == 0, "size %d seed %d: levels differ", size, i);
			cr_assert(memcmp(&ra, &rb, sizeof ra) == 0, "size %d seed %d: rooms differ", size, i);
			/* Without rooms asked for, the same level. */
			gen(&b, NULL, size, seed_of(size, i));
			cr_assert(memcmp(&a, &b, sizeof a) == 0, "size %d seed %d: NULL rooms changed it", size, i);
		}
	}
}

Test(level, seeds_differ)
{
	struct level a, b;

	for (int si = 0; si < NSIZES; si++) {
		int size = sizes[si];
		for (int i = 0; i < 500; i++) {
			gen(&a, NULL, size, seed_of(size, i));
			gen(&b, NULL, size, seed_of(size, i + 1));
			cr_assert(memcmp(&a, &b, sizeof a) != 0, "size %d: seeds %d and %d agree", size, i, i + 1);
		}
	}
}

Test(level, bad_sizes_refused)
{
	static const int bad[] = { 0, -1, -15, 1, 13, 14, 16, 24, 26, 50, 52, 53, 255, 257 };
	struct level lv, before;
	struct level_rooms rs, rs_before;
	struct rng r, r_before;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&lv, 0x5a, sizeof lv);
		memset(&rs, 0xa5, sizeof rs);
		rng_seed(&r, 7);
		before = lv;
		rs_before = rs;
		r_before = r;
		cr_assert_eq(level_generate(&lv, bad[i], &r, &rs), -1, "size %d accepted", bad[i]);
		cr_assert(memcmp(&lv, &before, sizeof lv) == 0, "size %d: level touched", bad[i]);
		cr_assert(memcmp(&rs, &rs_before, sizeof rs) == 0, "size %d: rooms touched", bad[i]);
		cr_assert(memcmp(&r, &r_before, sizeof r) == 0, "size %d: rng drawn from", bad[i]);
	}
	/* The limits themselves are fine. */
	rng_seed(&r, 7);
	cr_assert_eq(level_generate(&lv, LEVEL_MIN, &r, &rs), 0);
	cr_assert_eq(level_generate(&lv, LEVEL_MAX, &r, &rs), 0);
}

/* A hand-made level from rows of '#' and '.'. */
static void
level_from(struct level *lv, const char *const *rows, int size)
{
	memset(lv, 0, sizeof *lv);
	lv->size = (uint8_t)size;
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			lv->cell[y][x] = rows[y][x] == '.' ? CELL_FLOOR : CELL_WALL;
}

Test(level, queries_on_hand_made)
{
	static const char *const diag[] = {
		"#######",
		"#..####",
		"#..####",
		"###.###",
		"####..#",
		"####..#",
		"#######",
	};
	static const char *const split[] = {
		"#######",
		"#..####",
		"#..####",
		"#######",
		"####..#",
		"####..#",
		"#######",
	};
	static const char *const leak[] = {
		"###.###",
		"#.....#",
		"#######",
		"#######",
		"#######",
		"#######",
		"#######",
	};
	struct level lv;

	level_from(&lv, diag, 7);
	cr_assert_eq(level_floor_count(&lv), 9);
	cr_assert(level_connected(&lv), "diagonal steps join");
	cr_assert(level_sealed(&lv));

	level_from(&lv, split, 7);
	cr_assert_eq(level_floor_count(&lv), 8);
	cr_assert(!level_connected(&lv), "two islands");

	level_from(&lv, leak, 7);
	cr_assert_eq(level_floor_count(&lv), 6);
	cr_assert(level_connected(&lv));
	cr_assert(!level_sealed(&lv), "hole in the top edge");
	lv.cell[0][3] = CELL_WALL;
	lv.cell[3][6] = CELL_FLOOR;
	cr_assert(!level_sealed(&lv), "hole in the right edge");
	cr_assert(!level_connected(&lv));
	lv.cell[3][6] = CELL_WALL;
	lv.cell[6][0] = CELL_FLOOR;
	cr_assert(!level_sealed(&lv), "hole in the corner");

	memset(&lv, 0, sizeof lv);
	lv.size = 15;
	cr_assert_eq(level_floor_count(&lv), 0);
	cr_assert(level_connected(&lv), "no floor is trivially one region");
}

Test(level, mirror_point)
{
	for (int size = 1; size <= LEVEL_MAX; size += 2) {
		for (int y = 0; y < size; y++) {
			for (int x = 0; x < size; x++) {
				int hx = x, hy = y, vx = x, vy = y, bx = x, by = y;
				level_mirror_point(size, MIRROR_H, &hx, &hy);
				cr_assert(hx == size - 1 - x && hy == y, "H of %d,%d at %d", x, y, size);
				level_mirror_point(size, MIRROR_V, &vx, &vy);
				cr_assert(vx == x && vy == size - 1 - y, "V of %d,%d at %d", x, y, size);
				level_mirror_point(size, MIRROR_BOTH, &bx, &by);
				level_mirror_point(size, MIRROR_V, &hx, &hy);
				cr_assert(bx == hx && by == hy, "BOTH is not H then V at %d,%d", x, y);
				for (int how = 0; how <= MIRROR_BOTH; how++) {
					int mx = x, my = y;
					level_mirror_point(size, how, &mx, &my);
					cr_assert(mx >= 0 && my >= 0 && mx < size && my < size);
					level_mirror_point(size, how, &mx, &my);
					cr_assert(mx == x && my == y, "mirror %d twice moved %d,%d", how, x, y);
				}
			}
		}
	}
	int x = 3, y = 4;
	level_mirror_point(25, 0, &x, &y);
	cr_assert(x == 3 && y == 4, "no mirror moved the point");
}

static void
fill_grid(uint8_t g[LEVEL_MAX][LEVEL_MAX], uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed);
	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++)
			g[y][x] = (uint8_t)rng_below(&r, 256);
}

Test(level, mirror_grid)
{
	static uint8_t g[LEVEL_MAX][LEVEL_MAX], orig[LEVEL_MAX][LEVEL_MAX], h[LEVEL_MAX][LEVEL_MAX];

	for (int size = LEVEL_MIN; size <= LEVEL_MAX; size += 2) {
		for (int how = 0; how <= MIRROR_BOTH; how++) {
			fill_grid(orig, (uint64_t)(size * 4 + how));
			memcpy(g, orig, sizeof g);
			level_mirror_grid(g, size, how);
			for (int y = 0; y < LEVEL_MAX; y++) {
				for (int x = 0; x < LEVEL_MAX; x++) {
					if (x >= size || y >= size) {
						cr_assert_eq(g[y][x], orig[y][x], "size %d: %d,%d outside touched", size, x, y);
						continue;
					}
					int mx = x, my = y;
					level_mirror_point(size, how, &mx, &my);
					cr_assert_eq(g[my][mx], orig[y][x], "size %d how %d: %d,%d not moved to %d,%d", size,
					    how, x, y, mx, my);
				}
			}
			level_mirror_grid(g, size, how);
			cr_assert(memcmp(g, orig, sizeof g) == 0, "size %d how %d: twice is not identity", size, how);
		}
		memcpy(g, orig, sizeof g);
		memcpy(h, orig, sizeof h);
		level_mirror_grid(g, size, MIRROR_BOTH);
		level_mirror_grid(h, size, MIRROR_H);
		level_mirror_grid(h, size, MIRROR_V);
		cr_assert(memcmp(g, h, sizeof g) == 0, "size %d: BOTH is not H then V", size);
	}
}

Test(level, mirror_keeps_level_valid)
{
	struct level lv;

	/* A mirrored level is still sealed and connected, with the same floor: the game may mirror freely. */
	for (int si = 0; si < NSIZES; si++) {
		for (int i = 0; i < 100; i++) {
			gen(&lv, NULL, sizes[si], seed_of(sizes[si], i));
			int floor = level_floor_count(&lv);
			level_mirror_grid(lv.cell, lv.size, 1 + i % 3);
			cr_assert(level_sealed(&lv) && level_connected(&lv), "size %d seed %d", sizes[si], i);
			cr_assert_eq(level_floor_count(&lv), floor);
		}
	}
}

/* Alter Dungeon's shortcut: the same draws as level_generate(), and a level given up
 * only when level_generate()'s own has wall on one of the squares asked for. */
Test(level, generate_unless_wall_draws_the_same)
{
	long given_up = 0, kept = 0;

	for (int s = 0; s < NSIZES; s++) {
		for (int i = 0; i < 400; i++) {
			int size = sizes[s];
			struct rng a, b, pick;
			struct level la, lb;
			struct level_rooms ra, rb;
			int x[2], y[2];

			rng_seed(&pick, seed_of(size, i) ^ 0xa17e);
			for (int k = 0; k < 2; k++) {
				x[k] = 1 + (int)rng_below(&pick, (uint32_t)(size - 2));
				y[k] = 1 + (int)rng_below(&pick, (uint32_t)(size - 2));
			}
			rng_seed(&a, seed_of(size, i));
			rng_seed(&b, seed_of(size, i));
			cr_assert_eq(level_generate(&la, size, &a, &ra), 0);
			int r = level_generate_unless_wall(&lb, size, &b, &rb, i % 3, x, y);
			cr_assert(memcmp(&a, &b, sizeof a) == 0, "size %d seed %d: the RNG ends elsewhere", size, i);
			cr_assert(memcmp(&ra, &rb, sizeof ra) == 0, "size %d seed %d: other rooms", size, i);
			if (r == 0) {
				cr_assert(memcmp(&la, &lb, sizeof la) == 0, "size %d seed %d: another level", size, i);
				kept++;
			} else {
				cr_assert_eq(r, 1);
				bool wall = false;
				for (int k = 0; k < i % 3; k++)
					wall = wall || !level_floor(&la, x[k], y[k]);
				cr_assert(wall, "size %d seed %d: given up though every square asked for is floor", size, i);
				given_up++;
			}
		}
	}
	cr_assert(given_up > 0 && kept > 0);
}
