/* SPDX-License-Identifier: MIT */
/* seatfile: a resume token kept on disk (0600) from a duel's START until the player leaves: a killed client comes back. */
#ifndef WW_SEATFILE_H
#define WW_SEATFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* Which seat a file holds: the same `wizwar join` (or `bot`) again finds the same file. */
struct seatfile_key {
	const char *host;
	int port;
	const char *room; /* "" for a one-room host */
	const char *name;
};

/* The file for one key: STATE/seats/HASH, STATE being the state directory ($XDG_STATE_HOME/wizwar,
 * made by the caller), HASH a BLAKE2b of the key. False when the path does not fit. */
bool seatfile_path(const char *state_dir, const struct seatfile_key *k, char *buf, size_t len);

/* What a seat file keeps: the resume token, the duel's seed commitment (from its START), and the
 * part this client sent for the seed with the parts the server said it would use, so that a
 * client started again still checks the host against what it was promised first, own part too.
 * Between duels (its END is in, the next START not yet) there is no commitment to keep: the next
 * START's is taken on first sight, not compared with the last duel's ("commit -" in the file). */
struct seatfile_seat {
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	bool has_commit;
	uint8_t commit[PROTO_COMMIT_LEN];
	bool have_part;
	uint8_t part[PROTO_PART_LEN];
	uint8_t part_bits;   /* bit p: player p's part goes into the seed */
};

/* The seat in `path` when the file is ours (mode 0600, our uid) and names exactly this key.
 * False otherwise: no file, another key, or a file that is not well formed. */
bool seatfile_load(const char *path, const struct seatfile_key *k, struct seatfile_seat *seat);

/* Write the token, 0600, through a temporary file and rename (a crash leaves the old file or the new
 * one, never half of one). Creates the seats folder (0700). 0, or -1 with errno set. */
int seatfile_save(const char *path, const struct seatfile_key *k, const struct seatfile_seat *seat);

/* The player left on purpose (BYE), or the server no longer knows the token: it is worth nothing any more. */
void seatfile_remove(const char *path);

#endif
