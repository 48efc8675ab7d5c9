/* SPDX-License-Identifier: MIT */
/* A Criterion test program that registers no test, as one whose tests the link dropped: it must fail
 * (tests/help/criterion_main.c), and help/suites checks that it does. */
#include <criterion/criterion.h>

/* Not a test: the program needs something to compile, and must register nothing. */
extern const char empty_purpose[];
const char empty_purpose[] = "a test program with no test fails";
