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

/* Two clients run with the same key (two `wizwar bot`s of one name in one room, say) must not
 * share a file: the second would save its token over the first's, and a rerun of either would
 * take the other's seat. So a running client claims a seat file: the first of up to
 * SEATFILE_SLOTS files of its key that no other running client holds (slot 0 is
 * seatfile_path()'s, slot N its path with "-N"). The claim is a flock() on PATH.lock, held
 * until seatfile_release() or the process's end: a killed client's claim goes with it, so
 * its rerun finds its own file free again (the lowest free slot: with several of one name
 * killed at once, each rerun takes one of their seats, all alike but for the seat).
 * Fills buf with the seat file's path and returns the claim (a descriptor, >= 0), or -1
 * with errno set: EBUSY when every slot is held. */
#define SEATFILE_SLOTS 8
struct seatfile_claim {
	int fd;   /* the locked PATH.lock, or -1 */
	int slot;
};
int seatfile_claim(const char *state_dir, const struct seatfile_key *k, char *buf, size_t len,
                   struct seatfile_claim *claim);

/* Give the claim up: its lock file goes (a claimer that opened it meanwhile sees it gone and
 * opens the new one), then the lock. Nothing when there is none. */
void seatfile_release(const char *path, struct seatfile_claim *claim);

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
