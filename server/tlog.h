/* SPDX-License-Identifier: MIT */
/* tlog: a duel's turn log on disk, plain while it plays and gzip-compressed once it ends, and read back to resume. */
#ifndef WW_TLOG_H
#define WW_TLOG_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "game.h"
#include "proto.h"
#include "turnlog.h"

/*
 * While the duel plays, the file is the plain text of docs/turnlog.md, appended to: lines
 * are kept in memory as the room makes them and handed to the disk by tlog_write(), after
 * the command's updates have been written, as one write(2) on a descriptor the log holds
 * from tlog_open() to tlog_close(): a command costs no open, no thread and no compression.
 * A command and its turn's hash line always go in one write, so a host killed at any
 * moment leaves a file that reads as whole lines up to its last write (at most the lines
 * of the last batch not yet written are lost; a write(2) to a file is not cut by a kill):
 * the duel resumes at a state it really passed through. When the duel has ended
 * (tlog_end) tlog_close() compresses the file once, off the loop, into one gzip member
 * (tlog_keep_as says where; by default PATH.gz) and removes the plain file. A log closed
 * before its end (the server stopping mid-duel) stays plain, to be resumed. Besides the
 * standard lines the server keeps what it needs to resume in comments, which every
 * reader ignores:
 *   # wizwar-server room CODE        the room's code (a multi-room server's; a one-room host writes none)
 *   # wizwar-server seed-part HEX    the server's part of the seed (its commitment was in START)
 *   # wizwar-server part P HEX       player P's part, when it went into the seed
 *   # wizwar-server seed KIND        drawn (from the parts), chosen (host --seed), mirror, chosen-mirror
 *   # wizwar-server token P HEX      a fingerprint of player P's resume token
 *   # wizwar-server key P HEX        player P's Ed25519 key (a rated duel is rated between these)
 *   # wizwar-server host P           the seat of the hosting player
 *   # wizwar-server turn-time N      seconds per turn
 * The writer also keeps the whole log in memory (it is revealed to the players at the
 * end), capped at PROTO_LOG_MAX of text: as compact records (a command in 5 bytes, a hash
 * in 13), rendered to the text by tlog_text(), since it grows for the whole duel.
 */
struct tlog {
	uv_loop_t *loop; /* whose threadpool compresses the finished log; NULL: tlog_close() does it at once */
	char *path;      /* the plain file appended to; NULL: memory only */
	char *keep;      /* where the finished log goes compressed; NULL: PATH.gz */
	int fd;          /* PATH, open for appending, when has_fd (a zeroed tlog holds none) */
	bool has_fd;
	uint8_t *rec;    /* everything written so far, as records (tlog.c); tlog_text() renders them */
	size_t rlen, rcap;
	size_t len;      /* bytes of text the records render to */
	size_t total;    /* bytes of text of the whole log (a resumed one's prefix too), kept or not */
	bool overflow;   /* text passed PROTO_LOG_MAX: no longer kept in memory */
	bool failed;     /* a disk write failed: the duel goes on, the log is incomplete */
	bool ended;      /* the end line is in: tlog_close() compresses the file ... */
	bool hold;       /* ... unless held: a rated duel's log stays plain in playing/ until its result is
	                  * in the store, so that a kill before then finds it there (server.c, rate_done) */
	char *pend;      /* lines not yet handed to the disk */
	size_t plen, pcap;
	/* Given every batch of lines as it is handed to the disk (a cluster's copy in Redis: room.c),
	 * memory-only logs too once set. */
	void (*mirror)(void *ud, const char *text, size_t len);
	void *mirror_ud;
	/* Told (on the loop) when a write fails; the log is then kept in memory only. */
	void (*report)(void *ud, const char *why);
	void *report_ud;
};

/* Start a log: the header and the server's comments, written to the new file at once
 * (so a duel that has started always has a log to resume). path NULL: memory only.
 * A later write's failure is told to t->report (set it after tlog_open). Returns 0,
 * or -1 with a reason in why. */
int tlog_open(struct tlog *t, uv_loop_t *loop, const char *path, const struct turnlog_header *h, uint64_t start_hash,
              const char *extra, char *why, size_t whylen);
/* Start a log with text already written (a resumed duel): `prefix` is written at once
 * to PATH.tmp, which then replaces PATH (only a complete copy replaces the log it was
 * read from); later lines are appended. A PATH ending in ".gz" (an unfinished log from
 * before logs were plain while played) goes on as plain text without its ".gz", and the
 * gzip file is removed once the copy is whole. */
int tlog_open_prefix(struct tlog *t, uv_loop_t *loop, const char *path, const char *prefix, size_t len, char *why,
                     size_t whylen);
/* Append lines, in memory; tlog_write() hands them to the disk. */
void tlog_cmd(struct tlog *t, int p, const struct cmd *c, const struct game *after, bool turn_ended);
void tlog_chat(struct tlog *t, int p, const char *text);
/* A duel's log takes chat only while its text is under a cap (struct server_limits
 * log_chat_until, by default TLOG_CHAT_UNTIL): past it a chat line
 * is refused (room.c tells its player why), so that a duel chatted through for hours still
 * resumes and is revealed. Commands are not capped: TURN_LIMIT bounds them (a whole duel's
 * commands and hashes are well under 1 MiB). So a log stays under TLOG_CHAT_UNTIL + one chat
 * line + the commands, below PROTO_LOG_MAX (4 MiB, revealed at END) and far below the 16 MiB
 * a resume reads. */
#define TLOG_CHAT_UNTIL (2u << 20)
bool tlog_chat_full(const struct tlog *t, size_t until);
void tlog_end(struct tlog *t, const struct game *g);
void tlog_comment(struct tlog *t, const char *text);
/* The whole log written so far, as text (malloc'd, NUL-terminated, *len bytes), or NULL
 * when it passed PROTO_LOG_MAX or memory ran out. */
char *tlog_text(const struct tlog *t, size_t *len);
/* The same without the room comment: what END shows the players. The room code is a
 * multi-room server's only secret when it has no password; the players know it, but a log is
 * made to be kept and shared, and a room can outlive its duel (a rematch waits in it). */
char *tlog_text_players(const struct tlog *t, size_t *len);
/* Write the lines not yet on disk: one write(2), on the caller's thread. */
void tlog_write(struct tlog *t);
/* Where the finished log goes, compressed (folders made as needed); 0, or -1 out of memory. */
int tlog_keep_as(struct tlog *t, const char *path);
/* A whole log's text into a new file PATH (folders made as needed, mode 0600): a log that
 * comes from elsewhere (a cluster's takeover: server.c), to be resumed from. 0, or -1 with why. */
int tlog_save(const char *path, const char *text, size_t len, char *why, size_t whylen);
/* Write what is left and close the file; a finished duel's is then compressed (above). */
void tlog_close(struct tlog *t);
/* Compress the plain log FROM into the gzip file TO and remove FROM, in loop's threadpool
 * (at once when loop is NULL): what tlog_close() does with a finished duel's log. */
void tlog_keep_later(uv_loop_t *loop, const char *from, const char *to);

/* A log's room comment: which of a multi-room server's rooms the duel is in. The comment, not
 * the file's name, is the log's room: a file renamed or copied by hand keeps its comment. */
enum tlog_room_kind {
	TLOG_ROOM_NONE, /* no room comment: a one-room host's log, or one written before the comment */
	TLOG_ROOM_OK,   /* code holds the room */
	TLOG_ROOM_BAD   /* a code that is not a room code, or two comments naming two rooms: why says which */
};
struct tlog_room {
	int kind;                        /* enum tlog_room_kind */
	char code[PROTO_ROOM_BYTES + 1];
	char why[128];                   /* TLOG_ROOM_BAD: the line and what is wrong (never the hostile bytes) */
};

/* What a resume needs from a log file. */
struct tlog_resume {
	struct turnlog_header hdr;
	struct tlog_room room;
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
	bool have_key[PLAYERS];
	uint8_t key[PLAYERS][PROTO_IDENT_KEY_LEN];
	int host_seat;          /* -1 unknown */
	int turn_time;
	/* The spectators' options (`# wizwar-server spectators`): the last such comment's, one that
	 * turned them off during the duel included; without one (an older log), the room's default. */
	bool have_spect;
	bool spect_allowed;
	uint8_t spect_mode, spect_delay, spect_player;
};

/* Read and replay a log file (plain or gzip). 0, or -1 with a reason in why. */
WW_COLD int tlog_load(const char *path, struct tlog_resume *r, char *why, size_t whylen);
/* What `server --resume` needs to choose among its logs, read in one pass without replaying:
 * whether the duel ended (its `end` line whole: what follows `end` is only comments and chat,
 * and no other line begins "end "), and its room comment. */
struct tlog_peek {
	bool ended;
	struct tlog_room room;
};
/* 0, or -1 when the file cannot be read, with a reason in why. */
WW_COLD int tlog_peek(const char *path, struct tlog_peek *pk, char *why, size_t whylen);
void tlog_resume_free(struct tlog_resume *r);

#endif
