/* SPDX-License-Identifier: MIT */
/* docblock: compare or rewrite the generated blocks of a markdown document. */
#include "docblock.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		perror(path);
		return NULL;
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 8192);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *
generate(const struct docblock *b, size_t *len)
{
	char *text = NULL;
	FILE *m = open_memstream(&text, len);

	if (!m)
		return NULL;
	if (b->gen(m) != 0) {
		fclose(m);
		free(text);
		return NULL;
	}
	fclose(m);
	return text;
}

/* The block's contents in doc: [*start, *end), from after its opening marker's line to its closing marker. */
static int
find(const char *doc, const char *name, size_t *start, size_t *end)
{
	char open[128], close[128];
	const char *a, *b;

	snprintf(open, sizeof open, "<!-- gen:%s -->\n", name);
	snprintf(close, sizeof close, "<!-- /gen:%s -->\n", name);
	if ((a = strstr(doc, open)) == NULL || (b = strstr(a, close)) == NULL || strstr(b + 1, open))
		return -1;
	*start = (size_t)(a - doc) + strlen(open);
	*end = (size_t)(b - doc);
	return 0;
}

static void
first_difference(const char *name, const char *have, size_t hn, const char *want, size_t wn)
{
	size_t i = 0, line = 1, ls = 0;

	while (i < hn && i < wn && have[i] == want[i]) {
		if (have[i] == '\n') {
			line++;
			ls = i + 1;
		}
		i++;
	}
	const char *he = memchr(have + ls, '\n', hn - ls), *we = memchr(want + ls, '\n', wn - ls);
	int hl = (int)((he ? (size_t)(he - have) : hn) - ls), wl = (int)((we ? (size_t)(we - want) : wn) - ls);
	fprintf(stderr, "block %s differs at its line %zu:\n  document: %.*s\n  code:     %.*s\n", name, line,
	        ls < hn ? hl : 0, ls < hn ? have + ls : "", ls < wn ? wl : 0, ls < wn ? want + ls : "");
}

int
docblock_main(int argc, char **argv, const struct docblock *blocks, int n, const char *(*skip)(void))
{
	bool check = argc == 3 && strcmp(argv[1], "--check") == 0;
	bool write = argc == 3 && strcmp(argv[1], "--write") == 0;
	size_t len, glen;
	char *doc, *text;
	int bad = 0;

	if (argc == 1) {
		for (int i = 0; i < n; i++) {
			if ((text = generate(&blocks[i], &glen)) == NULL)
				return 1;
			printf("<!-- gen:%s -->\n%s<!-- /gen:%s -->\n\n", blocks[i].name, text, blocks[i].name);
			free(text);
		}
		return 0;
	}
	if (!check && !write) {
		fprintf(stderr, "usage: %s [--check DOC | --write DOC]\n", argv[0]);
		return 2;
	}
	if (check && skip && skip()) {
		printf("skipped: %s\n", skip());
		return 77;
	}
	if ((doc = slurp(argv[2], &len)) == NULL)
		return 1;
	for (int i = 0; i < n; i++) {
		size_t s, e;

		if (find(doc, blocks[i].name, &s, &e) != 0) {
			fprintf(stderr, "%s: no single block <!-- gen:%s --> ... <!-- /gen:%s -->\n", argv[2], blocks[i].name,
			        blocks[i].name);
			bad = 1;
			continue;
		}
		if ((text = generate(&blocks[i], &glen)) == NULL) {
			free(doc);
			return 1;
		}
		if (check && (glen != e - s || memcmp(doc + s, text, glen) != 0)) {
			first_difference(blocks[i].name, doc + s, e - s, text, glen);
			bad = 1;
		}
		if (write) {
			char *nd = malloc(len - (e - s) + glen + 1);
			if (!nd) {
				free(text);
				free(doc);
				return 1;
			}
			memcpy(nd, doc, s);
			memcpy(nd + s, text, glen);
			memcpy(nd + s + glen, doc + e, len - e + 1);
			len = len - (e - s) + glen;
			free(doc);
			doc = nd;
		}
		free(text);
	}
	if (write) {
		FILE *f = fopen(argv[2], "wb");
		if (!f || fwrite(doc, 1, len, f) != len || fclose(f) != 0) {
			perror(argv[2]);
			bad = 1;
		}
	} else if (!bad) {
		printf("%d generated blocks of %s match the code\n", n, argv[2]);
	}
	if (bad && check)
		fprintf(stderr, "run `%s --write %s` and review the diff\n", argv[0], argv[2]);
	free(doc);
	return bad;
}
