/* SPDX-License-Identifier: MIT */
/* cmd_keys: `wizwar keys`: print the key bindings in force and where each came from. */
#ifndef WW_CMD_KEYS_H
#define WW_CMD_KEYS_H

#include "cold.h"

/* argc/argv are the arguments after the name, as main.c passes them: [--preset NAME] [--file PATH] [--help].
 * Writes the bindings to stdout as a keys.conf, then the warnings as comments. Returns the exit
 * status: 0, or 2 for bad arguments or a --file that cannot be read. */
WW_COLD int keys_cmd(int argc, char **argv);

#endif
