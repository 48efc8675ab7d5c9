/* SPDX-License-Identifier: MIT */
/* commands: the subcommands of the wizwar executable, one function each (argc/argv after the name). */
#ifndef WW_COMMANDS_H
#define WW_COMMANDS_H

#include "cold.h"

int cmd_selfplay(int argc, char **argv);
WW_COLD int cmd_replay(int argc, char **argv);

#endif
