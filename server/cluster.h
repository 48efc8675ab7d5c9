/* SPDX-License-Identifier: MIT */
/* cluster: several server nodes sharing one Redis (--redis): node liveness, the room directory. */
#ifndef WIZWAR_CLUSTER_H
#define WIZWAR_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto.h"
#include "wire.h"

#define CLUSTER_ID_LEN 26      /* a node's id: its key's fingerprint (auth_fingerprint) */
#define CLUSTER_HOST_MAX 63    /* the address clients are sent to: a name or an IP, at most this long */
#define CLUSTER_NODES_MAX 64   /* nodes one node keeps track of; more are ignored (and said) */
#define CLUSTER_BEAT_MS 1000   /* how often a node says it is alive, with its load */
#define CLUSTER_DEAD_MS 3500   /* a node not heard from for this long is gone: its rooms are taken over */
#define CLUSTER_TICK_MS 250    /* how often liveness is looked at: a dead node is seen within this of DEAD_MS */
#define CLUSTER_STALE_MS 1600  /* a node that missed a beat: a player resuming is not sent there */
#define CLUSTER_TLOG_MAX (16u << 20) /* a stream read back for a takeover: at most what a resume reads */
/* Fencing (docs/server.md, "A cluster"): each beat also sets the node's key wizwar:alive:ID to expire
 * after CLUSTER_ALIVE_MS, and a claim of a node's room fails while that key lives. A node acts on its
 * rooms only within CLUSTER_LEASE_MS of sending a beat that Redis answered: less than the key's life,
 * which starts later (when Redis gets the beat), so that no node claims a room its node still plays. */
#define CLUSTER_ALIVE_MS (CLUSTER_DEAD_MS - CLUSTER_TICK_MS)
#define CLUSTER_LEASE_MS (CLUSTER_ALIVE_MS - CLUSTER_TICK_MS)
/* A tick (every CLUSTER_TICK_MS) this late means the node's own loop stopped: the lease applies only
 * then (a node whose loop runs while Redis is slow plays on, and is fenced if Redis says so). */
#define CLUSTER_STALL_MS 1000
#define CLUSTER_MOD_MAX 256      /* a moderation line, its NUL included (server/ban.h, BAN_SYNC_MAX) */
#define CLUSTER_PASSWORD_MAX 512 /* a Redis password (--redis-password-file) */

struct cluster;

/* A node as its beats describe it. */
struct cluster_node {
	char id[CLUSTER_ID_LEN + 1];
	char host[CLUSTER_HOST_MAX + 1];
	int port;
	uint8_t key[PROTO_KEY_LEN];   /* its long-term key: a client sent there pins it */
	unsigned rooms;               /* its load */
	uint64_t heard;               /* loop time (ms) of its last beat */
	/* Its spectators' web page (`--web`), as its "web" line after each beat says: the address and
	 * port a browser is sent to when a room moves there; web_port 0: it serves none. */
	char web_host[CLUSTER_HOST_MAX + 1];
	int web_port;
};

struct cluster_config {
	const char *url;              /* redis://HOST:PORT (HOST an IP address: no name lookup on the loop) */
	const char *password;         /* Redis's AUTH password (--redis-password-file), NULL none; copied */
	const uint8_t *salt;          /* the password salt this node uses (PROTO_PW_SALT_LEN): put back
	                               * into Redis where it is gone (Redis restarted empty) */
	const char *host;             /* the address other nodes send clients to */
	int port;                     /* ... and its port */
	const uint8_t *key;           /* this node's public key (PROTO_KEY_LEN bytes) */
	const char *id;               /* this node's id (its fingerprint) */
	/* What this node holds now, asked at every beat. */
	unsigned (*load)(void *ud);
	/* Take a dead node's duel over: its turn log so far (`len` bytes, the text of docs/turnlog.md
	 * with the server's comments). 0 when the room is made here and waits for its players; 1 when it
	 * is being made off the loop (the room stays moving until cluster_room_added, or
	 * cluster_room_gone if that fails); -1 (said) when not: the room then leaves the directory.
	 * NULL: this node takes nothing over. */
	int (*takeover)(void *ud, const char *code, const char *text, size_t len);
	/* Room `code` is no longer this node's: another node took it over while this one was not heard
	 * from (stopped, stalled). Its connections are closed without a word, as a dead node's, so that
	 * its players move on to the node that holds it now; nothing of it is written to Redis. */
	void (*lost)(void *ud, const char *code);
	/* A node joined or died: the players here are told the nodes again (NODES). May be NULL. */
	void (*changed)(void *ud);
	/* A line for the server's log (level: a syslog priority). */
	void (*say)(void *ud, int level, const char *line);
	void *ud;
	/* This node's public rooms waiting for a player, asked at every beat and published to the other
	 * nodes (so that ROOMS on any node lists every node's). NULL: none published. */
	void (*open_rooms)(void *ud, struct wire_rooms *out);
	/* Bans across nodes (docs/server.md, "Bans across nodes"): a moderation line (server/ban.h's
	 * ban_sync_line, unchecked: the callee parses it strictly) another node published, or one read
	 * from the cluster's hash of them when this node (re)joins; then line NULL: the batch is over
	 * (what the bans match is dropped once a batch, not once a line). NULL: none taken. */
	void (*mod)(void *ud, const char *line);
	/* Redis answers again (or for the first time): this node puts its bans and mutes in force back
	 * with cluster_mod_put (rejoin true), before the hash is read (mod, for each line in it). */
	void (*mod_rejoin)(void *ud);
	/* Quick pairing's rooms on the least loaded node: another node (the pairing node) asks this one
	 * to make private room `code` for a pair, with these options (unchecked: the callee checks them);
	 * made, it is said as any room (cluster_room_added). NULL: this node makes none. */
	void (*make_room)(void *ud, const char *code, const struct options *o, unsigned turn_time);
	/* Another node said it made room `code` ("room ID CODE"): the pairing node tells its pair then,
	 * once every node has the room in its directory. May be NULL. */
	void (*room_news)(void *ud, const char *code, const char *node);
};

/* Parse redis://HOST:PORT (or HOST:PORT). 0, or -1 with a reason. */
int cluster_parse_url(const char *url, char *host, size_t hostlen, int *port, char *why, size_t whylen);

/* Start: connects in the background and keeps reconnecting. NULL with a reason (a build without
 * hiredis, a bad URL, no memory, or a Redis that answers and refuses the password: asked once here,
 * blocking for at most a second, before anything is served). */
struct cluster *cluster_start(uv_loop_t *loop, const struct cluster_config *cfg, char *why, size_t whylen);
/* Stop: removes this node's rooms from the directory if Redis is there, closes the handles; done(ud)
 * once they are closed. */
void cluster_stop(struct cluster *c, void (*done)(void *ud), void *ud);

/* Redis answers now: cluster-wide work (routing to another node) can be done. */
bool cluster_up(const struct cluster *c);
/* This node's loop stopped (its process was stopped, or stalled) and it has not had a beat answered
 * for CLUSTER_LEASE_MS while Redis was reachable, or it is checking which of its rooms another node
 * took over meanwhile: it must not play a move, a turn's timeout or a forfeit until that is settled.
 * Cheap: asked before every message of a player. */
bool cluster_lapsed(const struct cluster *c);
/* server --resume, before serving: may this node resume its log of room `code`? 1 yes; 0 no, another
 * node took the room over (its id in `owner`, at least CLUSTER_ID_LEN + 1 bytes); -1 Redis cannot be
 * asked (the reason in `why`). Blocks: a connection of its own, made at the first call and closed by
 * cluster_resume_done. */
int cluster_resume_owner(struct cluster *c, const char *code, char *owner, char *why, size_t whylen);
void cluster_resume_done(struct cluster *c);
/* At start, before the password key is derived: the cluster's password salt, wizwar:salt, set to
 * `own` if no node set one yet, into `out` (PROTO_PW_SALT_LEN bytes). Blocking, a second at most;
 * `out` is `own` when Redis does not answer. */
void cluster_shared_salt(const char *url, const char *password, const uint8_t *own, uint8_t *out);
/* A room made here, and one gone from here. */
void cluster_room_added(struct cluster *c, const char *code);
void cluster_room_gone(struct cluster *c, const char *code);
/* The live node, not this one, that holds room `code`; NULL if none known. */
const struct cluster_node *cluster_room_node(const struct cluster *c, const char *code);
/* Room `code` is moving: its node missed a beat, or died and the room is being claimed by a live
 * node. A player resuming into it is asked to come back in a moment rather than sent there. */
bool cluster_room_moving(const struct cluster *c, const char *code);
/* A duel's turn log, copied into the stream wizwar:tlog:CODE for a takeover: `whole` replaces the
 * stream with the whole log so far, else the lines are appended. Held until cluster_flush, which
 * sends every room's of the loop iteration in one call. false: Redis is not there now, or a call
 * with this room's earlier lines was lost since its last whole log (`*epoch`, the room's own
 * counter, set when a whole log is queued): the caller sends the whole log instead. */
bool cluster_tlog(struct cluster *c, const char *code, const char *text, size_t len, bool whole, unsigned *epoch);
/* Send what cluster_tlog holds, and write what is queued for Redis now, rather than when the loop
 * next polls: a node killed then loses as little of its logs as its disk does. Called once a loop
 * iteration, after the rooms' file writes. */
void cluster_flush(struct cluster *c);
/* The duel's log is closed (ended, or the room gone): its stream is deleted. */
void cluster_tlog_end(struct cluster *c, const char *code);
/* The live nodes (this one included) as clients are told of them (NODES): at most `max`. */
unsigned cluster_list(const struct cluster *c, struct cluster_node *out, unsigned max);
/* The node that beat lately (within CLUSTER_STALE_MS: not one that missed a beat, which may be dead)
 * holding the fewest rooms, if it holds fewer than `mine` - 1 - `mine` / 32 (so that two nodes of
 * about the same load do not send a new room back and forth); its load estimated from its last beat,
 * the rooms sent it since and the pace it made rooms of its own at. NULL: keep it here. */
const struct cluster_node *cluster_least_loaded(const struct cluster *c, unsigned mine);
/* The same choice, where quick pairing asks for a pair's room (cluster_make_room). */
const struct cluster_node *cluster_pair_node(const struct cluster *c, unsigned mine);
/* A new room was sent to node `to` (REDIRECT): counted in its load until its next beat. */
void cluster_room_sent(struct cluster *c, const struct cluster_node *to);
/* ... and remembered as placed, here and (told through the channel) on `to`, for two beats: both
 * then make it when its player comes (cluster_room_placed_here) rather than send it on again by
 * loads a beat old. */
void cluster_room_place(struct cluster *c, const struct cluster_node *to, const char *code);
/* New room `code` is to be made here, not sent on: another node sent it here, or this node sent it
 * away and its player came back. */
bool cluster_room_placed_here(const struct cluster *c, const char *code);
/* Live nodes known, this one included. */
unsigned cluster_nodes(const struct cluster *c);
/* The other live nodes' public rooms, as each published them with its last beat: at most `max`
 * lists, each with its age (ms since it came). None while Redis cannot be reached (cluster_up). */
unsigned cluster_open_lists(const struct cluster *c, const struct wire_rooms **lists, uint32_t *age_ms, unsigned max);
/* The node that pairs QUICK for the whole cluster when it is not this one: the live node of the
 * smallest id. NULL: this node pairs (it is that node, or Redis cannot be reached: alone). A node
 * sends QUICK only to a smaller id than its own, so two views that disagree cannot send it round. */
const struct cluster_node *cluster_pairer(const struct cluster *c);

/* A moderation line into the cluster's hash wizwar:bans under `field` (ban_sync_line's), and
 * published to the other nodes, only when it is newer than the word the hash holds on that target
 * (a line's time: a ban's creation, an unban's; rejoin: strictly newer, so that a node coming back
 * does not put back a ban lifted in the same second while it was away). Nothing when Redis is not
 * there (the node puts its bans back when it is: mod_rejoin). */
void cluster_mod_put(struct cluster *c, const char *field, const char *line, bool rejoin);
/* Quick pairing: ask node `to` to make private room `code` with these options for a pair (published
 * "make SELF TO CODE SIZE FOV POTIONS TURN"); its news comes back through room_news. false: Redis is
 * not there (make the room here). */
bool cluster_make_room(struct cluster *c, const struct cluster_node *to, const char *code, const struct options *o,
                       unsigned turn_time);
/* The web page (web/web.c, `--web`) across nodes (docs/server.md, "A cluster"). */
/* This node serves the web page at host (an IP address) and port: said after each beat ("web ID HOST
 * PORT"), so that the other nodes can send a page there. */
void cluster_set_web(struct cluster *c, const char *host, int port);
/* The live nodes (this one included) that serve the web page: at most `max`. */
unsigned cluster_web_list(const struct cluster *c, struct cluster_node *out, unsigned max);
/* Is, or was lately, host:port a web page of this cluster's (this node's or one a "web" line named;
 * the last CLUSTER_NODES_MAX named are kept, a dead node's too: its pages follow its rooms)? The web
 * port lets a page of such an origin in (docs/server.md, the threat model). */
bool cluster_web_origin(const struct cluster *c, const char *host, int port);
/* A "web" line's fields (after "web "): 0 and the id, host and port, or -1 for anything a node does
 * not write (strict: the id, an IP address, a port 1 to 65535, single spaces, nothing after). Pure:
 * server/xmsg.c's parser of the channel's lines. */
int cluster_parse_web(const char *s, char id[CLUSTER_ID_LEN + 1], char host[CLUSTER_HOST_MAX + 1], int *port);

#endif
