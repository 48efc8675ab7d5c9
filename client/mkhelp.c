/* SPDX-License-Identifier: MIT */
/* mkhelp: a build step. Writes help_data.c: the texts of help_texts.h deflated as one stream (they share
 * most of their words), with where each starts, for help.c. Usage: mkhelp OUTPUT.c */
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "help.h"

static const char *const texts[HELP_COUNT] = {
#define HELP_TEXT(id, text) text,
#include "help_texts.h"
#undef HELP_TEXT
};

static unsigned char plain[1 << 16], z[1 << 16];

int
main(int argc, char **argv)
{
	unsigned at[HELP_COUNT + 1];
	size_t n = 0;
	uLongf zlen = sizeof z;
	FILE *f;

	if (argc != 2) {
		fputs("usage: mkhelp OUTPUT.c\n", stderr);
		return 2;
	}
	for (int i = 0; i < HELP_COUNT; i++) {
		size_t len = strlen(texts[i]) + 1;
		if (len > sizeof plain - n) {
			fputs("mkhelp: the help texts are over 64 KiB\n", stderr);
			return 1;
		}
		at[i] = (unsigned)n;
		memcpy(plain + n, texts[i], len);
		n += len;
	}
	at[HELP_COUNT] = (unsigned)n;
	if (compress2(z, &zlen, plain, n, Z_BEST_COMPRESSION) != Z_OK) {
		fputs("mkhelp: compress2 failed\n", stderr);
		return 1;
	}
	if ((f = fopen(argv[1], "w")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "/* SPDX-License-Identifier: MIT */\n/* Written by mkhelp from help_texts.h: %zu bytes of text, deflated. Do not edit. */\n"
	    "#include \"help.h\"\n\nconst unsigned long help__zlen = %lu;\n"
	    "const unsigned help__at[HELP_COUNT + 1] = {", n, (unsigned long)zlen);
	for (int i = 0; i <= HELP_COUNT; i++)
		fprintf(f, "%s%u", i ? ", " : " ", at[i]);
	fprintf(f, " };\nchar help__text[%zu];\nconst unsigned char help__z[] = {", n);
	for (uLongf i = 0; i < zlen; i++)
		fprintf(f, "%s%u", i == 0 ? "\n\t" : i % 20 ? "," : ",\n\t", z[i]);
	fputs("\n};\n", f);
	if (fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
