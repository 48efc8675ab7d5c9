/* SPDX-License-Identifier: MIT */
/* ban: an operator's bans (a key, a name, an address range) and mutes, kept in memory and matched, and the admin commands' strict parser. */
#ifndef WW_SERVER_BAN_H
#define WW_SERVER_BAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy.h"

/*
 * The server's copy is authoritative while it runs: a ban or mute takes effect on the loop at
 * once and is then written to the store (server/store.c, tables `bans` and `mutes`), from which
 * the next start loads it (docs/server.md, "Moderation"). Times are Unix seconds (wall clock),
 * since an expiry must mean the same after a restart; expires 0 is "never".
 */
#define BAN_KIND_LIST(X) \
	X(KEY,  "key")  /* a client key, by its fingerprint (auth_fingerprint) */ \
	X(NAME, "name") /* a player name, without ASCII case, as the store owns names */ \
	X(ADDR, "addr") /* an address range, matched against the real client's address (after PROXY) */ \
	X(MUTE, "mute") /* a key whose chat reaches no one (not a ban) */

enum ban_kind {
#define X(id, word) BAN_##id,
	BAN_KIND_LIST(X)
#undef X
	BAN_KINDS
};

#define BAN_TARGET_MAX 64  /* a fingerprint (26), a name (64 bytes), a CIDR's text (at most 43) */
#define BAN_REASON_MAX 56  /* bytes: with "banned from this server until ... (address): " it fills an ERROR's 120 */
#define BAN_MAX 10000      /* bans and mutes in all; more are refused (a server's memory is bounded) */
#define BAN_FOR_MAX (3650LL * 86400) /* the longest --for: ten years (longer: leave --for out) */

struct ban {
	uint8_t kind;                      /* enum ban_kind */
	char target[BAN_TARGET_MAX + 1];   /* canonical text: a fingerprint lowercase, a CIDR rewritten */
	struct proxy_cidr cidr;            /* BAN_ADDR */
	int64_t created, expires;          /* Unix s; expires 0: never */
	char reason[BAN_REASON_MAX + 1];   /* clean text (proto/text.h's REASON), may be "" */
};

struct ban_list {
	struct ban *v;
	unsigned n, cap;
};

/* What is known of a peer so far; NULL fields are not known yet (an address at accept, a key
 * after IDENT, a name after AUTH or RESUME). */
struct ban_who {
	const uint8_t *addr;   /* 16 bytes, IPv4 mapped: the whole address, not the /64 the limits use */
	const char *fp;        /* the key's fingerprint */
	const char *name;
};

/* The admin commands this module parses. */
enum ban_verb { BAN_VERB_BAN, BAN_VERB_UNBAN, BAN_VERB_MUTE, BAN_VERB_UNMUTE };

void ban_list_finish(struct ban_list *l);
/* A ban or mute with the same kind and target is replaced (a new expiry, a new reason). 0, or
 * -1 when BAN_MAX are held or memory is out. */
int ban_add(struct ban_list *l, const struct ban *b);
/* true when it was there. */
bool ban_remove(struct ban_list *l, int kind, const char *target);
/* Bans and mutes whose expiry is at or before now are dropped. */
void ban_prune(struct ban_list *l, int64_t now);
/* The first ban (not mute) in force at `now` that matches what is known of who; NULL: none. */
const struct ban *ban_find(const struct ban_list *l, const struct ban_who *who, int64_t now);
/* Is this fingerprint muted at `now`? */
bool ban_muted(const struct ban_list *l, const char *fp, int64_t now);

/* What a refused or dropped client is told (fits an ERROR's PROTO_REASON_BYTES): "banned from
 * this server until 2026-11-28 03:00 UTC (key): REASON". */
void ban_describe(const struct ban *b, char *out, size_t outlen);
/* One line for `bans`: "KIND TARGET until ...|permanent, set ...: REASON". */
void ban_line(const struct ban *b, int64_t now, char *out, size_t outlen);

/*
 * The admin commands' arguments, strictly (the admin line is already bounded and free of
 * C0 controls): BAN "key FP|name NAME|addr CIDR [--for DURATION] [--reason TEXT]" (--reason
 * takes the rest of the line, so it comes last), UNBAN "key FP|name NAME|addr CIDR", MUTE
 * "FP [--for DURATION]", UNMUTE "FP". DURATION is a whole number and a unit: s, m, h, d or w.
 * true and *out (created = now), or false and why.
 */
bool ban_parse(int verb, const char *args, int64_t now, struct ban *out, char *why, size_t whylen);
/* A target alone for its kind: canonical text into out (and the CIDR for ADDR). */
bool ban_target(int kind, const char *text, struct ban *out, char *why, size_t whylen);
/* A duration "90s", "15m", "2h", "7d", "2w": seconds, or -1. */
int64_t ban_duration(const char *text);
/*
 * A ban, mute or their lifting as one line for the other nodes of a cluster (docs/server.md,
 * "Bans across nodes"): "ban CREATED EXPIRES KIND TARGET[ --reason TEXT]" (KIND key, name, addr
 * or mute) or "unban WHEN KIND TARGET". Times are Unix seconds: a cluster keeps the newest
 * word on each target (CREATED or WHEN), so that nodes that hear them in another order agree.
 */
#define BAN_SYNC_MAX 256 /* bytes of a line, its NUL included: ample for the longest target and reason */
#define BAN_SYNC_SKEW 86400 /* a CREATED or WHEN more than this past the receiver's clock is refused */
/* The line of ban b (lifted: "unban", `when` its time) into out; its field in the cluster's hash
 * ("KIND TARGET", a name folded to ASCII lowercase) into field (BAN_SYNC_MAX bytes each). */
void ban_sync_line(const struct ban *b, bool lifted, int64_t when, char *out, char *field);
/* A line from another node, strictly: every field checked as an admin command's (ban_parse), times
 * whole decimal numbers, an expiry after its creation and within BAN_FOR_MAX of it, nothing after
 * the target of an unban. true with *lifted, *out (for an unban: its kind and target, created its
 * time), or false and why. */
bool ban_sync_parse(const char *line, int64_t now, struct ban *out, bool *lifted, char *why, size_t whylen);
/* The ban or mute of this kind and target held, or NULL. */
const struct ban *ban_get(const struct ban_list *l, int kind, const char *target);
/* A text loaded from the store (which `sqlite3 FILE` may have edited) made clean: anything
 * proto/text.h's REASON kind does not allow is dropped, and a text not UTF-8 becomes "?". */
void ban_reason_sanitise(char *dst, size_t cap, const char *src);

#endif
