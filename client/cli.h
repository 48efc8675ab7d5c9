/* SPDX-License-Identifier: MIT */
/* cli: what the subcommands of the wizwar executable share: strict argument parsing and file reading. */
#ifndef WW_CLI_H
#define WW_CLI_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "game.h"

/*
 * The conventions of a Unix command, applied to a subcommand's arguments before its own
 * option loop, so that the loop stays a plain walk over argv with strcmp:
 *   --opt=VALUE  becomes "--opt" "VALUE" (refused, exit 2, for an option that takes no value);
 *   --           ends the options: what follows is an operand even if it starts with '-';
 *                it is stored in *operand (NULL when the command takes none: then refused);
 *   --version    prints the version, as at the top level.
 * Which options the command has, and which take a value, are read from its usage text, so
 * that --help stays the one list: "--opt" followed by one space and a metavariable (starting
 * with a capital or a digit, or choices with '|': "--port P", "--view 0|1|all") takes a
 * value; "--opt" followed by anything else is a flag. An option the usage does not name is
 * left for the loop to refuse. Returns -1 to go on with *argc and *argv rewritten (argv
 * stays valid until the next call), else the exit status to return at once.
 */
WW_COLD int cli_args(const char *cmd, const char *usage, int *argc, char ***argv, const char **operand);
/* The same for a command of two operands (wizwar watch SERVER ROOM): each NULL when not given. */
WW_COLD int cli_args2(const char *cmd, const char *usage, int *argc, char ***argv, const char **first,
                      const char **second);
/* An error or warning on stderr, as every message of a subcommand reads: "wizwar CMD: " (the
 * command cli_args last parsed for; "wizwar: " before any), then the printf text as given (its
 * own '\n' included: a message may go on with the usage). */
WW_COLD void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where the arguments parsed next come from, said by cli_error after the command's name:
 * "FILE:LINE" while a configuration file's line is parsed (conf.c), NULL for the command line. */
WW_COLD void cli_error_at(const char *where);
/* cli_error's messages into buf (len bytes, emptied now, appended to, always NUL-terminated)
 * instead of stderr, until called again with len 0: a running server logs them instead. */
WW_COLD void cli_error_capture(char *buf, size_t len);
/* What the usage text says of option `name` (without "--"): one of these. */
enum { CLI_OPT_UNKNOWN, CLI_OPT_FLAG, CLI_OPT_VALUE, CLI_OPT_OPTIONAL };
WW_COLD int cli_option_kind(const char *usage, const char *name);
/* Is option `opt` (as "--opt" or "--opt=VALUE") among the options, before any "--"? */
WW_COLD bool cli_has_option(int argc, char **argv, const char *opt);
/* "wizwar 0.1.0 (protocol N, rules N)" and a newline: what a peer must share to play, and to replay. */
WW_COLD void cli_version(FILE *out);

/* Parse a whole decimal number in [lo, hi]; false (with a message on stderr naming
 * `what`) on anything else: empty, signs, junk, overflow. */
WW_COLD bool cli_int(const char *s, long lo, long hi, const char *what, long *out);
/* The same check, its reason in `why` instead of on stderr (the lobby's /size and /time say
 * what the command line would). */
WW_COLD bool cli_int_why(const char *s, long lo, long hi, const char *what, long *out, char *why, size_t whylen);
/* A level side: a number from LEVEL_MIN to LEVEL_MAX, odd. */
WW_COLD bool cli_size_why(const char *s, const char *what, int *out, char *why, size_t whylen);
/* A 64-bit seed: decimal, or hex with 0x. */
WW_COLD bool cli_seed(const char *s, uint64_t *out);
/* The common game options: --size N, --no-fov, --no-potions. Returns 1 if argv[*i]
 * was one (advancing *i past its value), 0 if not, -1 on a bad value. */
WW_COLD int cli_game_option(int argc, char **argv, int *i, struct options *o);
/* Read a whole file, plain or gzip-compressed, of at most `max` bytes into a new
 * NUL-terminated buffer. Returns 0, or -1 with a message on stderr. */
WW_COLD int cli_read_file(const char *path, size_t max, char **buf, size_t *len);
/* The same, saying nothing: on -1 `why` holds the reason, naming the file as `shown` (a
 * caller that lists a directory's files must not print their names' bytes as they are). */
WW_COLD int cli_read_file_why(const char *path, const char *shown, size_t max, char **buf, size_t *len, char *why,
                              size_t whylen);
/* Create the new file `path` (ending in ".log"), mode 0600 since a log holds the chat,
 * never one that exists: taken, it tries PATH-2.log, -3 ... (O_EXCL, so two processes
 * cannot take the same name), and leaves in `path` the name it made. The descriptor, or -1
 * with errno set. */
WW_COLD int cli_create_log(char *path, size_t size);
/* mkdir -p: create `path` and its missing parents, mode 0700. 0, or -1 with errno set. */
WW_COLD int cli_make_dirs(const char *path);
/* Where turn logs go: $XDG_STATE_HOME/wizwar when that is absolute, else
 * $HOME/.local/state/wizwar. False when neither is set or the path does not fit. */
WW_COLD bool cli_state_dir(char *buf, size_t len);
/* Print one replayed or played command and the messages it made, as an all-seeing
 * spectator would read them. */
void cli_narrate(FILE *out, const struct game *g, int p, const struct cmd *c, const struct events *ev);
/* "turn N: P1 to move, offered A, B, C": the line that opens each turn of a narration. */
void cli_narrate_turn(FILE *out, const struct game *g);
/* Each chat line of a turn log held in memory, in order: its line number (from 1), how
 * many commands come before it, its player and its text as the log has it (a peer's:
 * clean it before a terminal). Chat is not game state, so a replay skips it; this picks
 * it out with its place. It stops where the replay would: at a line that does not parse,
 * and before a torn last line (no '\n'). */
typedef void (*cli_chat_fn)(void *ud, int lineno, uint32_t cmds, int player, const char *text);
void cli_log_chat(const char *text, size_t len, cli_chat_fn fn, void *ud);
/* Draw the whole level as text: # wall, . floor, ! potion, 0 and 1 the wizards. */
void cli_draw_level(FILE *out, const struct game *g);

#endif
