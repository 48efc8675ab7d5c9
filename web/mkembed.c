/* SPDX-License-Identifier: MIT */
/* mkembed: the web page's files as C arrays (web_page.h), so that the server carries its own page. */
#include <stdio.h>
#include <string.h>

/* mkembed OUT NAME FILE [NAME FILE ...]: each FILE as `static const unsigned char NAME[]`, NUL-ended. */
int
main(int argc, char **argv)
{
	FILE *out;

	if (argc < 4 || argc % 2 != 0) {
		fprintf(stderr, "usage: mkembed OUT NAME FILE [NAME FILE ...]\n");
		return 2;
	}
	if ((out = fopen(argv[1], "w")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	fprintf(out, "/* SPDX-License-Identifier: MIT */\n/* web_page.h: made by web/mkembed.c from web/page/; do not edit. */\n");
	for (int i = 2; i + 1 < argc; i += 2) {
		FILE *in = fopen(argv[i + 1], "rb");
		int c;
		unsigned long n = 0;
		if (in == NULL) {
			perror(argv[i + 1]);
			fclose(out);
			return 1;
		}
		fprintf(out, "static const unsigned char %s[] = {", argv[i]);
		while ((c = getc(in)) != EOF)
			fprintf(out, "%s%d,", n++ % 24 ? "" : "\n", c);
		fprintf(out, "0\n};\n");
		fclose(in);
	}
	return fclose(out) == 0 ? 0 : 1;
}
