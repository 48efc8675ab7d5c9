/* SPDX-License-Identifier: MIT */
/* commands_net: the network subcommands, one function each (argc/argv after the name). */
#ifndef WW_COMMANDS_NET_H
#define WW_COMMANDS_NET_H

#include "cold.h"

/* wizwar host: a one-room server in this process, played from this terminal. */
WW_COLD int cmd_host(int argc, char **argv);
/* wizwar join HOST[:PORT]: play on someone's host or server. */
WW_COLD int cmd_join(int argc, char **argv);
/* wizwar server: a headless server of many rooms. */
WW_COLD int cmd_server(int argc, char **argv);
/* wizwar status: ask a running server through its admin socket. */
WW_COLD int cmd_status(int argc, char **argv);
/* wizwar admin: ban, mute, free a name on a running server, through its admin socket. */
WW_COLD int cmd_admin(int argc, char **argv);
/* wizwar bot HOST[:PORT]: a bot that plays through the protocol. */
WW_COLD int cmd_bot(int argc, char **argv);
/* wizwar rooms SERVER: the public rooms waiting for a player. */
WW_COLD int cmd_rooms(int argc, char **argv);
/* wizwar id: the fingerprint of this player's key (client/ident.h). */
WW_COLD int cmd_id(int argc, char **argv);
/* wizwar history|top|stats SERVER: a server's ratings (cmd_rating.c). */
WW_COLD int cmd_history(int argc, char **argv);
WW_COLD int cmd_top(int argc, char **argv);
WW_COLD int cmd_stats(int argc, char **argv);

#endif
