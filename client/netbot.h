/* SPDX-License-Identifier: MIT */
/* netbot: a bot that plays through the protocol, deciding with bot_choose() on the view it was sent and nothing else. */
#ifndef WW_NETBOT_H
#define WW_NETBOT_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "bot.h"
#include "net.h"
#include "rng.h"

struct netbot;

struct netbot_config {
	struct net_config net;  /* net.ev and net.ud are the bot's own; use the hooks below */
	int level;              /* enum bot_level */
	uint64_t seed;          /* the bot's own RNG */
	int games;              /* duels to play before leaving; 0: until stopped */
	unsigned think_ms;      /* pause before each command (0: at once) */
	unsigned jitter_ms;     /* ... plus 0..jitter_ms more, drawn each time (benchmarks: players out of step) */
	bool ready;             /* say READY in the lobby (true) */
	bool passive;           /* never send a command (tests: a stalled player) */
	bool quiet;             /* nothing on stderr */
	bool mirror;            /* ask for a mirror rematch (the same seed, the seats swapped) after each
	                         * duel that was not one, a plain rematch after one */
	bool spect_set;         /* as the controller, set the room's spectator options before the first READY */
	bool spect_allowed;
	int spect_mode, spect_delay, spect_player; /* as net_spect_set() takes them */
	bool opt_set;           /* as the controller, set the room's options (OPTIONS) before the first READY */
	struct options opt;
	int turn_time;          /* seconds a turn, 0: no limit */
	/* Hooks for tests and the CLI. */
	void *ud;
	void (*on_msg)(void *ud, struct netbot *b, const struct wire_msg *m);
	void (*on_rx)(void *ud, struct netbot *b, const uint8_t *bytes, size_t n);
	void (*on_end)(void *ud, struct netbot *b, const struct wire_end *e, bool verified, const char *why);
	void (*on_closed)(void *ud, struct netbot *b);
	void (*on_start)(void *ud, struct netbot *b, const struct view *v, bool resumed);
	/* Decide instead of bot_choose (a hostile test bot); return false to use bot_choose. */
	bool (*choose)(void *ud, struct netbot *b, const struct view *v, struct cmd *out);
};

struct netbot {
	/* read-only */
	struct net *net;
	int games, wins, losses, draws;
	int refused, verified, unverified, errors;
	int links_lost, links_back; /* the link went down (reconnecting), and came back */
	bool cut_off;           /* a fatal error (the link lost for good, ...) before its --games were all
	                         * played, or at all with --games 0: not stopped, not done */
	int last_error;
	char last_why[800];
	long told, shown;       /* messages told to its mind, and effects of the opponent's spells shown to it */
	long watched;           /* updates of the opponent's turn that showed it in sight, given to its mind */
	uint64_t seed[4];       /* the revealed seed of each of the first four duels */
	int player[4];          /* and its seat in each */
	bool closed;
	/* private */
	struct netbot_config cfg;
	uv_loop_t *loop;
	struct rng rng;
	struct rng pace;        /* draws the jitter apart from rng, so that the bot's choices stay its seed's */
	struct bot_mind mind;   /* what its calls of this duel have seen (the master level reads it) */
	uv_timer_t think;
	bool waiting;           /* a command is out; wait for its update or refusal */
	bool their_turn;        /* the opponent has the move: the next update is its command's */
	bool ready_sent;
	bool spect_sent;        /* cfg.spect_set done */
	bool opt_sent;          /* cfg.opt_set done */
	bool ready_seen;         /* a lobby has shown this bot ready since it last said READY */
	bool stopping;          /* netbot_stop or netbot_abandon: what follows is not a cut-off */
	int handles;
};

/* Start; 0 or -1 with a reason. b must stay put until on_closed (or netbot_free after the loop ran dry). */
int netbot_start(struct netbot *b, uv_loop_t *loop, const struct netbot_config *cfg, char *why, size_t whylen);
void netbot_stop(struct netbot *b);
/* Go without a word (SIGHUP): to the server a dropped connection (net_abandon). */
void netbot_abandon(struct netbot *b);

#endif
