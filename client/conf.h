/* SPDX-License-Identifier: MIT */
/* conf: a server's configuration file (`wizwar server --config FILE`), read into the arguments the command line would give. */
#ifndef WW_CONF_H
#define WW_CONF_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The file (docs/server.md, "The configuration file"): one setting a line, `NAME VALUE` or `NAME`
 * alone for an option that takes no value, NAME an option of the command's usage text without its
 * "--" (so the file knows every option the command line does, and no other); a line whose first
 * non-blank is '#' is a comment; blank lines are fine. The value is the rest of the line, blanks
 * around it cut, taken as it is (no quotes, no escapes: a password may hold '#' and spaces). Each
 * name once. What is checked, before one setting is taken:
 *   - a regular file (a FIFO or a device could block or never end), opened without waiting;
 *   - not writable by everyone (anyone on the machine could set the password or the limits);
 *   - at most CONF_MAX_BYTES (read whole, on the event loop too, at a SIGHUP: small and bounded);
 *   - no NUL byte, no control character but tab, no line over CONF_LINE_MAX bytes;
 *   - a password in it: not readable by others.
 * Options that make no sense in a file are refused by name (the caller's list: `config`).
 */
#define CONF_MAX_BYTES (64 * 1024)
#define CONF_LINE_MAX 1024
#define CONF_MAX_SETTINGS 128

struct conf_setting {
	const char *name;  /* without "--", into conf.text */
	const char *value; /* NULL for a flag */
	int line;          /* from 1 */
};

struct conf {
	char path[1024];   /* as given, for messages */
	char *text;        /* the file, cut into names and values */
	size_t textlen;
	int n;
	struct conf_setting set[CONF_MAX_SETTINGS];
	/* The same as the command line's arguments: "--name" "value", "--name", or "--name=value" for an
	 * option whose value is optional (cli_args's rule); argline[i] is the file's line of argv[i]. */
	int argc;
	char *argv[2 * CONF_MAX_SETTINGS + 1];
	int argline[2 * CONF_MAX_SETTINGS + 1];
	char *argbuf;      /* the "--name" words */
	size_t arglen;
};

/* Read and check `path` against `usage` (the command's usage text, which names its options;
 * `refused`: names not allowed in a file, NULL-terminated). 0, or -1 with "FILE: why" or
 * "FILE:LINE: why" in `why` (and c left empty). c is the caller's; conf_free it after a 0. */
WW_COLD int conf_read(struct conf *c, const char *path, const char *usage, const char *const *refused, char *why,
                      size_t whylen);
/* The setting of that name, or NULL. */
WW_COLD const struct conf_setting *conf_get(const struct conf *c, const char *name);
/* Free what conf_read took; its password bytes wiped. A conf never read (zeroed) is fine. */
WW_COLD void conf_free(struct conf *c);

#endif
