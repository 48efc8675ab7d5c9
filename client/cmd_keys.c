/* SPDX-License-Identifier: MIT */
/* cmd_keys: `wizwar keys`: the bindings in force, printed as a keys.conf that rebuilds them. */
#include "cmd_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keys.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: wizwar keys [--preset NAME] [--file PATH]\n"
	    "       (--keys NAME is the same as --preset NAME, as practice, tutorial, replay, host, join and watch take it)\n"
	    "Print the key bindings in force, where each came from, and any warnings about the\n"
	    "config file. The output is itself a keys.conf (see docs/keys.md).\n"
	    "  --preset NAME  start from preset NAME instead of the default set:\n");
	for (int i = 0; keys_preset_name(i) != NULL; i++)
		fprintf(f, "                   %-8s %s\n", keys_preset_name(i), keys_preset_desc(i));
	fprintf(f, "  --file PATH    read PATH instead of $XDG_CONFIG_HOME/wizwar/keys.conf\n"
	    "                 (or ~/.config/wizwar/keys.conf)\n"
	    "  --help         show this help\n");
}

/* "--opt VALUE" or "--opt=VALUE": the value, advancing *i; NULL if arg is not opt. */
static const char *
option_value(int argc, char **argv, int *i, const char *opt, bool *missing)
{
	size_t n = strlen(opt);
	const char *arg = argv[*i];

	if (strncmp(arg, opt, n) != 0)
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int
keys_cmd(int argc, char **argv)
{
	const char *preset = NULL, *file = NULL, *v;
	char path[4096];
	struct keys k;
	struct keys_diag diag;
	bool missing = false;

	int args = cli_args("keys", "usage: wizwar keys [--preset NAME] [--file PATH] (--keys NAME: --preset NAME)\n", &argc, &argv, NULL);
	if (args >= 0)
		return args;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if ((v = option_value(argc, argv, &i, "--preset", &missing)) != NULL ||
		    (v = option_value(argc, argv, &i, "--keys", &missing)) != NULL) {
			preset = v;
		} else if ((v = option_value(argc, argv, &i, "--file", &missing)) != NULL) {
			file = v;
		} else if (missing) {
			cli_error("%s needs a value\n", argv[i]);
			return 2;
		} else {
			cli_error("unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}

	keys_init(&k);
	keys_diag_init(&diag);
	if (preset != NULL && !keys_preset(&k, preset)) {
		cli_error("unknown preset '%s' (there are", preset);
		for (int i = 0; keys_preset_name(i) != NULL; i++)
			fprintf(stderr, "%s %s", i ? "," : "", keys_preset_name(i));
		fprintf(stderr, ")\n");
		return 2;
	}

	const char *state;
	if (file != NULL) {
		snprintf(path, sizeof path, "%s", file);
		int r = keys_load_file(&k, path, &diag);
		if (r <= 0) {
			/* A file that cannot be read is work that failed (1), not a bad argument (2). */
			if (r == 0)
				cli_error("cannot read %s: no such file\n", path);
			else
				cli_error("%s\n", diag.msg[0]);
			return 1;
		}
		state = "";
	} else if (!keys_path_env(path, sizeof path)) {
		snprintf(path, sizeof path, "(none)");
		state = ": neither XDG_CONFIG_HOME nor HOME is set";
	} else {
		state = keys_load_file(&k, path, &diag) == 0 ? " (absent: built-in bindings only)" : "";
	}

	size_t need = keys_format(&k, NULL, 0) + 1;
	char *text = malloc(need);
	if (text == NULL) {
		cli_error("out of memory\n");
		return 1;
	}
	keys_format(&k, text, need);
	printf("# wizwar key bindings in force, as a keys.conf that rebuilds them.\n"
	    "# starting preset: %s\n"
	    "# config file: %s%s\n",
	    k.preset[0] ? k.preset : "default", path, state);
	fputs(text, stdout);
	free(text);

	unsigned nwarn = keys_diag_count(&diag);
	if (nwarn > 0) {
		printf("\n# %u warning%s:\n", nwarn, nwarn == 1 ? "" : "s");
		for (unsigned i = 0; i < diag.n; i++)
			printf("# warning: %s\n", diag.msg[i]);
		if (diag.dropped > 0)
			printf("# ... and %u more\n", diag.dropped);
	}
	return 0;
}
