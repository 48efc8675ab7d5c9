/* SPDX-License-Identifier: MIT */
/* net_internal: what the files of the net module share (net.c, net_msg.c, net_fair.c); outside them, only tests read it. */
#ifndef WW_NET_INTERNAL_H
#define WW_NET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"

/* One TCP connection attempt; a new one for every reconnect, freed in its close callback. */
struct net_link {
	uv_tcp_t tcp;
	uv_connect_t creq;
	struct net *n;
	bool connected, closing;
};

struct seen {
	uint64_t hash;
	uint64_t at;  /* when it was shown (ms, the loop's clock) */
	bool resumed; /* a snapshot after a resume: the views shown just before it may be lost to a host restart */
};

/* A client follows at most this many REDIRECTs a join: nodes that send each other a client stop there. */
#define NET_REDIRECTS_MAX 3
/* A REDIRECT's node that refuses the connection, or does not finish the handshake within
 * NET_REDIRECT_WAIT_MS (a live node answers in milliseconds; connect_ms is for a far server), is taken
 * for dead: the client asks the node it first asked again, NET_FALLBACK_MS times the try's number
 * later, at most NET_FALLBACKS_MAX times. The waits (1 + 2 + 3 s) outlast the cluster's
 * CLUSTER_DEAD_MS (3.5 s) and a tick: by the last ask the directory has dropped the dead node's
 * waiting rooms and given its duels to a live node, so that answer is one that holds. */
#define NET_REDIRECT_WAIT_MS 4000
#define NET_FALLBACK_MS 1000
#define NET_FALLBACKS_MAX 3
/* After a drop, the next of a cluster's nodes is tried this soon (one attempt a reconnect_ms otherwise). */
#define NET_NODE_RETRY_MS 250
/* A join told MOVING (the room's node died and another is taking it over) asks the same node again this
 * much later, for at most reconnect_for_ms: twice a second stays within a server's handshake budget
 * per address (30, one more a second) for as long as a takeover takes. */
#define NET_MOVING_RETRY_MS 500

struct net {
	uv_loop_t *loop;
	struct net_config cfg;
	char *host, *name, *room, *seat_file;
	char *password, *fingerprint, *known_file;
	bool room_given;
	struct auth_key key;     /* set once derived under the server's salt */
	struct auth_ident ident; /* this client's long-term key, proven by IDENT */
	uint8_t pinned[PROTO_KEY_LEN]; /* the server's key once checked: every reconnection must show it */
	bool has_pin;
	bool rotated;                  /* this link's KEYS moved the pin: a second one is out of turn */
	int phase;
	bool closing, gave_up, fatal;
	int handles;             /* timer + getaddrinfo + links alive */
	uv_timer_t timer;
	uv_getaddrinfo_t gai;
	bool resolving, resolved;
	int redirects;             /* REDIRECTs followed for this join (NET_REDIRECTS_MAX at most) */
	/* The node first asked (kept at a join's first REDIRECT, its key as checked then): where the
	 * client goes back to when the node it was sent to is dead (NET_FALLBACKS_MAX). */
	char *origin_host;
	int origin_port;
	uint8_t origin_pin[PROTO_KEY_LEN];
	bool redirected;           /* the link being made follows a REDIRECT */
	unsigned fallbacks;        /* times this join went back to the origin */
	uint64_t fallback_at;      /* when the origin is asked again (loop ms; 0: not waiting) */
	/* Told MOVING before a WELCOME (a spectator's first ask of a room whose node just died): the
	 * same node is asked again at moving_at (0: not waiting), said once, until moving_since +
	 * reconnect_for_ms. */
	uint64_t moving_at, moving_since;
	/* A cluster's nodes (NODES, from a node we trusted): when the link drops, the seat is looked
	 * for on the next of them, each with the key given here pinned; never first on the node whose
	 * link dropped (if it is alive, the others send us back to it). */
	struct wire_redirect nodes[WIRE_NODES_MAX];
	int nnodes, node_i, lost_node; /* node_i, lost_node: -1 none */
	/* The server keys this client finished a handshake with in this run (the node of this link
	 * and the nodes it was on before: a key that proved itself, not one a node named), newest
	 * last: a RATED signed by one of them is trusted (net_rated_key). */
	uint8_t met[WIRE_NODES_MAX + 1][PROTO_KEY_LEN];
	int nmet;
	/* Every address the name resolved to, tried in turn until one answers; a reconnect
	 * starts from the one that worked. */
	struct sockaddr_storage addr[NET_ADDRS_MAX];
	int naddr, addr_i;
	char tried[200];         /* what each address said, for the message when none answers */
	bool token_from_file;    /* the token is a seat file's: if the server no longer knows it, join afresh */
	struct net_link *link;
	bool joined;             /* on the current link */
	/* Welcomed as a spectator: no seat and no token, but a link lost is looked for again all the
	 * same (on the cluster's nodes, by AUTH), so that the watch follows its room to the node that
	 * takes it over, or to the same server resumed. */
	bool watching;
	bool queried;            /* cfg.query was sent on the current link: heartbeats and silence as when joined */
	struct wire_msg query;   /* cfg.query's copy (type 0: none) */
	uint64_t link_since, last_rx, last_tx, lost_at, next_try;
	/* Reconnecting (the same way in a duel and in the lobby: one attempt a reconnect_ms, for
	 * reconnect_for_ms): the attempts so far and what the last one (or the loss) said. */
	bool lobby_lost;         /* the link was lost in the lobby: if the seat is not held any more, join afresh */
	bool rejoin_create;      /* ... and that join makes the room again if it is gone (a restarted server) */
	/* How long the server holds a seat dropped without BYE in the lobby, and one dropped in a
	 * duel (its grace): a server's defaults until a WELCOME gives this server's own figures,
	 * and each later WELCOME again (a server started again may hold otherwise). */
	uint32_t hold_ms, grace_ms;
	bool limits_known;
	unsigned attempts;
	char lost_why[160];
	uint64_t bytes_in, bytes_out;
	int player;
	bool controller;
	uint8_t token[PROTO_TOKEN_MAX];
	size_t token_len;
	struct wire_lobby lobby;
	struct view view;
	/* The seed both sides make (docs/protocol.md, "The seed"). A READY 1 or REMATCH carries a
	 * fresh part, sent only once a LOBBY of this lobby (after the last END) has shown the
	 * server's commitment; that commitment and the parts it named are kept with the part. */
	bool lobby_fresh;        /* a LOBBY between duels arrived since the last END (or the join) */
	int ask;                 /* a READY 1 (1) or REMATCH (2) held back until such a LOBBY */
	bool ask_mirror;
	bool have_part;          /* part was sent for the next duel */
	uint8_t part[PROTO_PART_LEN];
	uint8_t part_commit[PROTO_COMMIT_LEN]; /* the commitment the part answered */
	uint8_t part_bits;       /* the LOBBY's parts bits then */
	bool part_mirror;        /* the last READY or REMATCH asked for a mirror rematch */
	/* Ready survives a reconnect: the server drops a dropped seat's READY, so the READY 1 or
	 * REMATCH we said (and did not take back, nor saw the server clear) is said again. */
	int asked;               /* 1 READY 1, 2 REMATCH, since the last START or READY 0 */
	bool asked_seen;         /* a LOBBY showed it: a later one without it means the server cleared it */
	bool reasking;           /* the ask goes out again at the next LOBBY, which is then not news */
	/* The END of the last duel, already checked: the server owes it again to a seat that dropped
	 * in the lobby after it, and sends it on resume (a resumed START with its commitment, END and
	 * the log); this client has it and takes it in quietly. */
	uint8_t end_commit[PROTO_COMMIT_LEN];
	bool have_end_commit;
	bool repeat_end;         /* the owed END is coming in again */
	/* The fair-host check of the duel in play. */
	uint8_t commit[PROTO_COMMIT_LEN];
	bool seed_chosen;        /* START said the host chose the seed */
	bool seed_mirror;        /* START said this is a mirror rematch: the last duel's seed */
	bool have_commit;        /* commit is this duel's (from its START or the seat file) */
	bool commit_changed;     /* a resumed START carried another commitment */
	bool commit_moved;       /* START's commitment is not the one our part answered */
	bool duel_have_part;     /* duel_part is our part of this duel's seed */
	uint8_t duel_part[PROTO_PART_LEN];
	uint8_t duel_bits;       /* whose parts the server said would go into it */
	bool duel_mirror_asked;  /* this client asked for the mirror rematch this duel may be */
	bool have_last_seed;     /* the seed of the last duel this process verified (a mirror's check) */
	uint64_t last_seed;
	struct seen *seen;
	size_t nseen, capseen;
	struct wire_end end;
	bool end_pending;
	char *log;
	uint32_t log_got;
	struct wire_msg in, out;
	uint8_t frame[PCONN_FRAME_MAX];
	struct pconn pc;
};

static inline uint64_t
net__now(const struct net *n)
{
	return uv_now(n->loop);
}

/* net.c: the connection. */
/* Tell the caller (its `error` event); fatal says whether the session ends with it. */
void net__fail(struct net *n, int code, bool fatal, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void net__seat_save(struct net *n);   /* the seat file of this duel (cfg.seat_file), or nothing */
void net__seat_forget(struct net *n); /* ... deleted: the seat is left or lost for good */
int net__send_msg(struct net *n, const struct wire_msg *m); /* before the join too (net_send: after) */
int net__send_ask(struct net *n);     /* the READY 1 or REMATCH held in n->ask, with a part */
bool net__has_seat(const struct net *n); /* the server holds a seat for us after a drop */
void net__close_link(struct net *n);
void net__redirect(struct net *n, const char *host, int port, const uint8_t key[PROTO_KEY_LEN]);
void net__nodes(struct net *n, const struct wire_nodes *d); /* NODES: the nodes to resume on */
void net__link_lost(struct net *n, const char *why); /* reconnect if a seat is held, else give up */
void net__moving(struct net *n, const char *text);   /* ERROR MOVING before a WELCOME: ask again in a moment */
void net__try_connect(struct net *n);
/* Is the key that just proved itself in the handshake the server we mean? 0, or -1 said. */
WW_COLD int net__check_server_key(struct net *n);
void net__key_hint(const struct net *n, struct wire_hello *h);
WW_COLD void net__rotate(struct net *n, const struct wire_keys *k);

/* net_msg.c: one handler per message type a server sends. */
void net__message(struct net *n, const struct wire_msg *m);
/* Does a message of this type have a handler (for the test that every S2C type has one)? */
bool net__handles(int type);

/* net_fair.c: the fair-host check. */
void net__record_view(struct net *n, bool resumed); /* the view just shown, for the check at the END */
void net__end_done(struct net *n);  /* the END and its whole log are in: check them, tell the caller */

#endif
