/* SPDX-License-Identifier: MIT */
/* metrics: the server's counters, their status lines and Prometheus text, and the --metrics HTTP endpoint on the loop. */
#ifndef WW_SERVER_METRICS_H
#define WW_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct server;

/* Each limit whose hits are counted: X(ID, label, what a hit is). The label is the value of
 * wizwar_limit_hits_total{limit="..."}; docs/server.md lists them. */
#define METRICS_LIMIT_LIST(X) \
	X(HANDSHAKE_RATE, "handshake_rate", "a connection refused: its address started handshakes too fast") \
	X(CONNS_PER_ADDR, "conns_per_addr", "a connection refused: its address holds --max-per-addr") \
	X(SERVER_FULL,    "server_full",    "a connection refused: the server holds --max-conns") \
	X(WRONG_PASSWORDS, "wrong_passwords", "a password refused unheard: too many wrong ones from its address") \
	X(ROOM_GUESSES,   "room_guesses",   "a join refused: too many unknown room codes from its address") \
	X(ROOM_RATE,      "room_rate",      "a room not made: its address made rooms too fast") \
	X(ROOMS_FULL,     "rooms_full",     "a room not made: the server holds --max-rooms") \
	X(FRAMES,         "frames",         "a peer dropped: more frames or inflated bytes a second than allowed") \
	X(WRITE_QUEUE,    "write_queue",    "a peer dropped: it did not read what it was sent") \
	X(CHAT,           "chat",           "a chat line refused: too many in its window") \
	X(NO_FILES,       "no_files",       "a connection closed unread: the process was out of descriptors")

enum metrics_limit {
#define X(id, label, help) METRICS_LIM_##id,
	METRICS_LIMIT_LIST(X)
#undef X
	METRICS_LIMITS
};

/* Why a handshake failed: X(ID, label, what). A peer dropped before WELCOME is counted once,
 * under the reason its ERROR gives (by code, metrics_fail_of_code), or PROXY. */
#define METRICS_FAIL_LIST(X) \
	X(WRONG_PASSWORD, "wrong_password", "a wrong password, or a password refused after too many") \
	X(VERSION,        "version",        "another protocol or rules version, or not a wizwar peer") \
	X(CRYPTO,         "crypto",         "the Noise handshake or a record did not verify") \
	X(MALFORMED,      "malformed",      "bytes that do not decode, or a message out of turn") \
	X(TIMEOUT,        "timeout",        "the handshake took too long") \
	X(LIMIT,          "limit",          "a rate limit or cap (wizwar_limit_hits_total says which)") \
	X(NO_ROOM,        "no_room",        "an unknown room code, a full room or a taken name") \
	X(RESUME,         "resume",         "an unknown or expired resume token") \
	X(PROXY,          "proxy",          "a PROXY header missing or broken from a trusted proxy, or sent by anyone else") \
	X(BANNED,         "banned",         "a ban of its address, key or name (wizwar admin)") \
	X(OTHER,          "other",          "any other refusal")

enum metrics_fail {
#define X(id, label, help) METRICS_FAIL_##id,
	METRICS_FAIL_LIST(X)
#undef X
	METRICS_FAILS
};

/* Commands a second are averaged over this many whole seconds. */
#define METRICS_RATE_S 10

/* The counters (public: every file of server/ adds to them; read-only elsewhere). Counters
 * only grow; gauges (connections, rooms by state, the log's backlog) are read when asked. */
struct metrics {
	uint64_t started_ms;                 /* the loop's time at server_create, for the uptime */
	uint64_t accepted;                   /* connections accepted (each a handshake begun) */
	uint64_t welcomed;                   /* handshakes that ended in WELCOME */
	uint64_t failed[METRICS_FAILS];      /* handshakes that did not, by reason */
	uint64_t limits[METRICS_LIMITS];     /* each limit's hits */
	uint64_t duels_started, duels_finished;
	uint64_t commands;                   /* game commands received from players (CMD frames) */
	uint64_t bytes_in, bytes_out;        /* on every game connection, records and all */
	uint64_t proxied;                    /* connections whose client address a trusted proxy gave */
	uint64_t scrapes, admin_requests;
	/* Commands in each of the last METRICS_RATE_S seconds: sec[i] is the second counted in n[i]. */
	uint64_t sec[METRICS_RATE_S];
	uint32_t n[METRICS_RATE_S];
};

void metrics_limit_hit(struct metrics *m, enum metrics_limit which);
void metrics_command(struct metrics *m, uint64_t now_ms);
/* The reason a handshake failure of this ERROR code is counted under. */
enum metrics_fail metrics_fail_of_code(int code);
/* Commands a second over the last METRICS_RATE_S whole seconds. */
double metrics_rate(const struct metrics *m, uint64_t now_ms);

/* Text made for a reader: a growable buffer, capped (an allocation failure or the cap makes
 * `failed` true; the text is then not used). */
struct metrics_buf {
	char *p;
	size_t len, cap, max;
	bool failed;
};
void metrics_buf_printf(struct metrics_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void metrics_buf_free(struct metrics_buf *b);

/* Every metric in Prometheus' text exposition format 0.0.4 (HELP, TYPE, samples). */
void metrics_prometheus(struct server *s, struct metrics_buf *out);
/* The same numbers as lines for a person (`wizwar status`). */
void metrics_status(struct server *s, struct metrics_buf *out);

/* "ADDR:PORT", "[V6]:PORT" or "PORT" (127.0.0.1) into *sa; *loopback when the address is
 * 127.0.0.0/8 or ::1. false and why when it is none of these. */
bool metrics_parse_addr(const char *s, struct sockaddr_storage *sa, bool *loopback, char *why, size_t whylen);

/* The HTTP endpoint (GET /metrics), on the server's loop; its handles are counted in the
 * server's (server__unref). 0, or -1 with why. */
struct metrics_http;
int metrics_http_start(struct server *s, const struct sockaddr *sa, struct metrics_http **out, char *why, size_t whylen);
int metrics_http_port(const struct metrics_http *h);
void metrics_http_close(struct metrics_http *h);

#endif
