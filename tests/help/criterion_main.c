/* SPDX-License-Identifier: MIT */
/* The main() of every Criterion test program: Criterion's own, except that a program with no test fails. */
#include <stdio.h>

#include <criterion/criterion.h>

/* Criterion finds its tests in a linker section; a link that drops that section (--gc-sections on a
 * test program once did, in every release build) leaves a program that runs nothing and exits 0, and
 * meson counts its "1..0" as a skip. A test program that registers no test is broken: say so and fail.
 * (This main() replaces the one in libcriterion, as an executable's own symbol always does.) */
int
main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 1;

	if (tests->tests == 0)
		fprintf(stderr, "%s: no test is registered in this program (was the section of its tests dropped "
		    "by the link?): failing rather than passing with nothing run\n", argc > 0 ? argv[0] : "test");
	else if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	else
		result = 0;
	criterion_finalize(tests);
	return result;
}
