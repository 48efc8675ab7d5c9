/* SPDX-License-Identifier: MIT */
/* bench_level: microseconds of CPU per level_generate (sizes 25 and 51) and per field of view (radius 6). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fov.h"
#include "level.h"

/* Each repetition runs for at least this long; the median of REPS is printed. */
#define MIN_SECONDS 0.5
#define REPS 5

/* Folded into the output so the compiler cannot drop the work being timed. */
static unsigned long sink;

/* The process's CPU time, not the wall clock: on a shared machine the wall clock counts
 * the time other work held the core, and doubled under load. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct gen_arg {
	int size;
	struct rng rng;
	struct level lv;
};

static void
run_generate(void *p, long n)
{
	struct gen_arg *a = p;

	for (long i = 0; i < n; i++) {
		level_generate(&a->lv, a->size, &a->rng, NULL);
		sink += a->lv.cell[a->size / 2][a->size / 2];
	}
}

struct fov_arg {
	struct level lv;
	int nviewers;
	uint8_t vx[LEVEL_MAX * LEVEL_MAX], vy[LEVEL_MAX * LEVEL_MAX];
	uint8_t vis[LEVEL_MAX][LEVEL_MAX];
	int next;
};

/* Viewers cycle over every floor cell of one level, as wizards would stand. */
static void
run_fov(void *p, long n)
{
	struct fov_arg *a = p;

	for (long i = 0; i < n; i++) {
		int k = a->next;
		a->next = (a->next + 1) % a->nviewers;
		fov_compute(&a->lv, a->vx[k], a->vy[k], FOV_RADIUS, a->vis);
		sink += a->vis[a->vy[k]][a->vx[k]];
	}
}

/* The rules' own form: the bits fov_sight() fills, as remember() and view_build() use them. */
static void
run_sight(void *p, long n)
{
	struct fov_arg *a = p;
	struct fov_sight s;

	for (long i = 0; i < n; i++) {
		int k = a->next;
		a->next = (a->next + 1) % a->nviewers;
		fov_sight(&a->lv, a->vx[k], a->vy[k], &s);
		sink += s.row[FOV_RADIUS];
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* CPU microseconds per call of fn: calibrate a count that takes MIN_SECONDS, then the median of REPS runs. */
static double
measure(void (*fn)(void *, long), void *arg)
{
	long n = 1;
	double t, us[REPS];

	for (;;) {
		t = now();
		fn(arg, n);
		t = now() - t;
		if (t >= MIN_SECONDS / 10)
			break;
		n *= 2;
	}
	n = (long)((double)n * MIN_SECONDS / t) + 1;
	for (int r = 0; r < REPS; r++) {
		t = now();
		fn(arg, n);
		us[r] = (now() - t) * 1e6 / (double)n;
	}
	qsort(us, REPS, sizeof us[0], cmp_double);
	return us[REPS / 2];
}

int
main(void)
{
	static struct gen_arg g;
	static struct fov_arg f;
	static const int sizes[] = { 25, 51 };

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		g.size = sizes[i];
		rng_seed(&g.rng, 42);
		printf("level_generate size=%d us_per_op=%.3f\n", g.size, measure(run_generate, &g));
		fflush(stdout);
	}

	struct rng r;
	rng_seed(&r, 42);
	if (level_generate(&f.lv, LEVEL_DEFAULT, &r, NULL) != 0)
		return 1;
	for (int y = 0; y < f.lv.size; y++) {
		for (int x = 0; x < f.lv.size; x++) {
			if (level_floor(&f.lv, x, y)) {
				f.vx[f.nviewers] = (uint8_t)x;
				f.vy[f.nviewers++] = (uint8_t)y;
			}
		}
	}
	printf("fov_compute size=%d radius=%d us_per_op=%.3f\n", LEVEL_DEFAULT, FOV_RADIUS, measure(run_fov, &f));
	printf("fov_sight size=%d radius=%d us_per_op=%.3f\n", LEVEL_DEFAULT, FOV_RADIUS, measure(run_sight, &f));
	printf("# sink=%lu\n", sink);
	return 0;
}
