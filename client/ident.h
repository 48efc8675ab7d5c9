/* SPDX-License-Identifier: MIT */
/* ident: the player's long-term key (Ed25519), kept 0600 in the state folder, made on first use. */
#ifndef WW_IDENT_H
#define WW_IDENT_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

#include "auth.h"

/*
 * The key a client proves to every server with IDENT (docs/client.md, "Your key"): who this
 * player is on a server, with no account. One file, one line: "wizwar-id-1 SEED\n", the
 * 32-byte Ed25519 seed in lowercase hex. Like ssh's ~/.ssh/id_*, a file that others may read
 * (group or world bits) is refused rather than used. Lost, it is a new player: names it owned
 * stay owned until a server's operator frees them.
 */

/* Which key: the player's (id.key) or the network bots' (bot.key), in the state folder. */
enum ident_kind { IDENT_PLAYER = 0, IDENT_BOT = 1 };

/* $XDG_STATE_HOME/wizwar/id.key (or bot.key); false when there is no state folder. */
WW_COLD bool ident_path(int kind, char *buf, size_t len);
/* Load the key at path, or make one there when there is none (written to a temporary file
 * with mkstemp, mode 0600, then linked into place, so that a reader never sees half a key and
 * two first runs agree on one). *created says which. 0, or -1 with a reason. */
WW_COLD int ident_load(const char *path, struct auth_ident *id, bool *created, char *why, size_t whylen);
/* ident_load at the path given, else the kind's default, said on stderr when made; false said. */
WW_COLD bool ident_get(const char *given, int kind, struct auth_ident *id);

#endif
