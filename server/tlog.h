/* SPDX-License-Identifier: MIT */
/* tlog: a duel's turn log on disk, gzip-compressed and flushed after every command, and read back to resume. */
#ifndef WW_TLOG_H
#define WW_TLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "proto.h"
#include "turnlog.h"

/*
 * The file is the text of docs/turnlog.md, gzip-compressed; every command is
 * written with its turn's hash line (when the command ended the turn) in one
 * piece and flushed with Z_SYNC_FLUSH, so `zcat` reads a running duel and a host
 * killed at any moment leaves at most a torn last line. Besides the standard
 * lines the server keeps what it needs to resume in comments, which every
 * reader ignores:
 *   # wizwar-server seed-part HEX    the server's part of the seed (its commitment was in START)
 *   # wizwar-server part P HEX       player P's part, when it went into the seed
 *   # wizwar-server seed KIND        drawn (from the parts), chosen (host --seed), mirror, chosen-mirror
 *   # wizwar-server token P HEX      a fingerprint of player P's resume token
 *   # wizwar-server host P           the seat of the hosting player
 *   # wizwar-server turn-time N      seconds per turn
 * The writer also keeps a copy of the whole text in memory (it is revealed to
 * the players at the end), capped at PROTO_LOG_MAX.
 */
struct tlog {
	void *gz;        /* gzFile, NULL when not writing to disk */
	char *path;
	char *text;      /* everything written so far */
	size_t len, cap;
	bool overflow;   /* text passed PROTO_LOG_MAX: no longer kept in memory */
	bool failed;     /* a disk write failed: the duel goes on, the log is incomplete */
};

/* Start a log: the header and the server's comments. path NULL: memory only.
 * Returns 0, or -1 with a reason in why. */
int tlog_open(struct tlog *t, const char *path, const struct turnlog_header *h, uint64_t start_hash,
              const char *extra, char *why, size_t whylen);
/* Start a log with text already written (a resumed duel): `prefix` is copied as is. */
int tlog_open_prefix(struct tlog *t, const char *path, const char *prefix, size_t len, char *why, size_t whylen);
/* Append lines; each call is one write and one flush. */
void tlog_cmd(struct tlog *t, int p, const struct cmd *c, const struct game *after, bool turn_ended);
void tlog_chat(struct tlog *t, int p, const char *text);
void tlog_end(struct tlog *t, const struct game *g);
void tlog_comment(struct tlog *t, const char *text);
void tlog_close(struct tlog *t);

/* What a resume needs from a log file. */
struct tlog_resume {
	struct turnlog_header hdr;
	struct game game;       /* the state at the last consistent point */
	char *text;             /* the log up to that point (malloc'd, to be continued) */
	size_t len;
	bool torn;              /* a torn last line or a turn without its hash was dropped */
	bool ended;             /* the duel had already ended */
	bool have_part;         /* the server's part of the seed */
	uint8_t server_part[PROTO_PART_LEN];
	uint8_t parts;          /* bit p: player p's part went into the seed */
	uint8_t part[PLAYERS][PROTO_PART_LEN];
	bool seed_chosen, seed_mirror;
	bool old_seed;          /* a `salt` comment: written before protocol 4, whose seed today's clients cannot check */
	bool have_token[PLAYERS];
	uint8_t token_hash[PLAYERS][32];
	int host_seat;          /* -1 unknown */
	int turn_time;
};

/* Read and replay a log file (plain or gzip). 0, or -1 with a reason in why. */
int tlog_load(const char *path, struct tlog_resume *r, char *why, size_t whylen);
void tlog_resume_free(struct tlog_resume *r);

#endif
