/* SPDX-License-Identifier: MIT */
/* docblock: blocks of a markdown document made by a program, so that the document cannot drift from the code. */
#ifndef WW_TEST_DOCBLOCK_H
#define WW_TEST_DOCBLOCK_H

#include <stdio.h>

/*
 * A block is the lines between `<!-- gen:NAME -->` and `<!-- /gen:NAME -->` in the
 * document. gen() writes what they must be; it returns 0, or -1 when it cannot
 * (its message on stderr).
 */
struct docblock {
	const char *name;
	int (*gen)(FILE *out);
};

/*
 * The main of a generator: `PROG` prints every block; `PROG --check DOC` exits 0 when
 * each block of DOC is what gen() writes, else 1 with the first difference (77 when
 * `skip` says the blocks cannot be compared here); `PROG --write DOC` rewrites them.
 */
int docblock_main(int argc, char **argv, const struct docblock *blocks, int n, const char *(*skip)(void));

#endif
