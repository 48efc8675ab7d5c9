/* SPDX-License-Identifier: MIT */
/* commands_ui: the subcommands that run the curses client, one function each (argc/argv after the name). */
#ifndef WW_COMMANDS_UI_H
#define WW_COMMANDS_UI_H

#include "cold.h"

/* wizwar practice: a duel against a bot in this terminal. */
WW_COLD int cmd_practice(int argc, char **argv);
/* wizwar tutorial: a first duel with a guide, against the novice bot (cmd_practice.c). */
WW_COLD int cmd_tutorial(int argc, char **argv);
/* wizwar replay LOG: watch a recorded duel interactively (the lead routes plain `replay LOG` here). */
WW_COLD int cmd_watch(int argc, char **argv);
/* wizwar watch SERVER [ROOM]: a live duel as a spectator (cmd_spectate.c). */
WW_COLD int cmd_spectate(int argc, char **argv);

#endif
