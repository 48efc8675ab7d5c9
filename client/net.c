/* SPDX-License-Identifier: MIT */
/* net: a libuv TCP client of the wizwar protocol; applies updates to its view and checks the host at the end. */
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "known.h"
#include "net.h"
#include "seatfile.h"
#include "text.h"
#include "turnlog.h"

/* One TCP connection attempt; a new one for every reconnect, freed in its close callback. */
struct net_link {
	uv_tcp_t tcp;
	uv_connect_t creq;
	struct net *n;
	bool connected, closing;
};

struct wreq {
	uv_write_t req;
	uint8_t data[];
};

struct seen {
	uint64_t hash;
	uint64_t at;  /* when it was shown (ms, the loop's clock) */
	bool resumed; /* a snapshot after a resume: the views shown just before it may be lost to a host restart */
};

struct net {
	uv_loop_t *loop;
	struct net_config cfg;
	char *host, *name, *room, *seat_file;
	char *password, *fingerprint, *known_file;
	bool room_given;
	struct auth_key key;     /* set once derived under the server's salt */
	uint8_t pinned[PROTO_KEY_LEN]; /* the server's key once checked: every reconnection must show it */
	bool has_pin;
	int phase;
	bool closing, gave_up, fatal;
	int handles;             /* timer + getaddrinfo + links alive */
	uv_timer_t timer;
	uv_getaddrinfo_t gai;
	bool resolving, resolved;
	/* Every address the name resolved to, tried in turn until one answers; a reconnect
	 * starts from the one that worked. */
	struct sockaddr_storage addr[NET_ADDRS_MAX];
	int naddr, addr_i;
	char tried[200];         /* what each address said, for the message when none answers */
	bool token_from_file;    /* the token is a seat file's: if the server no longer knows it, join afresh */
	struct net_link *link;
	bool joined;             /* on the current link */
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

static void link_lost(struct net *n, const char *why);
static bool has_seat(const struct net *n);
static void try_connect(struct net *n);

void
net_config_default(struct net_config *c)
{
	memset(c, 0, sizeof *c);
	c->port = NET_DEFAULT_PORT;
	c->role = ROLE_PLAYER;
	c->connect_ms = 10000;
	c->reconnect_ms = 1000;
	c->reconnect_for_ms = 130000;
	c->heartbeat_ms = 15000;
	c->idle_ms = 45000;
	c->verify = true;
}

static uint64_t
now(const struct net *n)
{
	return uv_now(n->loop);
}

static void __attribute__((format(printf, 4, 5)))
fail(struct net *n, int code, bool fatal, const char *fmt, ...)
{
	char text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (n->cfg.ev.error)
		n->cfg.ev.error(n->cfg.ud, n, code, fatal, text);
}

/* The seat file of this duel (cfg.seat_file), or nothing. */
static void
seat_save(struct net *n)
{
	struct seatfile_key k = { n->host, n->cfg.port, n->room_given ? n->room : "", n->name };

	struct seatfile_seat seat;

	seat.token_len = n->token_len;
	memcpy(seat.token, n->token, n->token_len);
	seat.has_commit = n->have_commit;
	memcpy(seat.commit, n->commit, sizeof seat.commit);
	seat.have_part = n->duel_have_part;
	memcpy(seat.part, n->duel_part, sizeof seat.part);
	seat.part_bits = n->duel_bits;
	if (n->seat_file && n->token_len && seatfile_save(n->seat_file, &k, &seat) != 0)
		fail(n, PERR_SERVER, false, "cannot keep the resume token in %s: a killed client could not come back",
		     n->seat_file);
}

static void
seat_forget(struct net *n)
{
	n->token_from_file = false;
	seatfile_remove(n->seat_file);
}

/* Closing. */

static void
unref(struct net *n)
{
	if (--n->handles > 0)
		return;
	if (n->cfg.ev.closed)
		n->cfg.ev.closed(n->cfg.ud, n);
	pconn_finish(&n->pc);
	auth_key_wipe(&n->key);
	if (n->password) {
		sodium_memzero(n->password, strlen(n->password));
		free(n->password);
	}
	free(n->fingerprint);
	free(n->known_file);
	free(n->seen);
	free(n->log);
	free(n->host);
	free(n->name);
	free(n->room);
	free(n->seat_file);
	free(n);
}

static void
on_link_closed(uv_handle_t *h)
{
	struct net_link *l = h->data;
	struct net *n = l->n;

	free(l);
	unref(n);
}

static void
close_link(struct net *n)
{
	struct net_link *l = n->link;

	if (l == NULL)
		return;
	n->link = NULL;
	n->joined = false;
	l->closing = true;
	uv_close((uv_handle_t *)&l->tcp, on_link_closed);
}

static void
on_timer_closed(uv_handle_t *h)
{
	unref(h->data);
}

static void
shut_down(struct net *n)
{
	if (n->phase == NET_CLOSED)
		return;
	n->phase = NET_CLOSED;
	close_link(n);
	if (n->resolving)
		uv_cancel((uv_req_t *)&n->gai);
	uv_close((uv_handle_t *)&n->timer, on_timer_closed);
}

static void
on_bye_written(uv_shutdown_t *req, int status)
{
	struct net_link *l = req->data;

	(void)status;
	free(req);
	if (!l->closing) {
		l->closing = true;
		uv_close((uv_handle_t *)&l->tcp, on_link_closed);
	}
}

void
net_abandon(struct net *n)
{
	if (n == NULL || n->closing)
		return;
	/* No BYE: to the server this is a dropped connection, and the seat file stays for the
	 * same command to take the seat back. */
	n->closing = true;
	shut_down(n);
}

void
net_close(struct net *n)
{
	if (n == NULL || n->closing)
		return;
	n->closing = true;
	/* A BYE in a duel is a forfeit, after it leaving: the token is worth nothing after it. */
	seat_forget(n);
	if (n->link && n->joined) {
		/* Say BYE and let it go out before the socket closes. */
		struct net_link *l = n->link;
		uv_shutdown_t *req = malloc(sizeof *req);
		n->out.type = WIRE_BYE;
		n->out.u.bye.reason = BYE_QUIT;
		net_send(n, &n->out);
		if (req) {
			req->data = l;
			if (uv_shutdown(req, (uv_stream_t *)&l->tcp, on_bye_written) == 0) {
				n->link = NULL;
				n->joined = false;
				uv_read_stop((uv_stream_t *)&l->tcp);
				shut_down(n);
				return;
			}
			free(req);
		}
	}
	shut_down(n);
}

/* Sending. */

static void
on_write(uv_write_t *req, int status)
{
	(void)status;
	free(req);
}

static int
send_msg(struct net *n, const struct wire_msg *m)
{
	struct proto_err e;
	struct wreq *w;
	size_t len;
	uv_buf_t b;

	if (n->link == NULL || !n->link->connected)
		return -1;
	if (pconn_send(&n->pc, m, n->frame, sizeof n->frame, &len, &e) != 0) {
		fail(n, e.code, false, "cannot send %s: %s", wire_name(m->type), e.why);
		return -1;
	}
	if ((w = malloc(sizeof *w + len)) == NULL)
		return -1;
	memcpy(w->data, n->frame, len);
	b = uv_buf_init((char *)w->data, (unsigned)len);
	if (uv_write(&w->req, (uv_stream_t *)&n->link->tcp, &b, 1, on_write) != 0) {
		free(w);
		return -1;
	}
	n->bytes_out += len;
	n->last_tx = now(n);
	return 0;
}

int
net_send(struct net *n, const struct wire_msg *m)
{
	if (!n->joined)
		return -1;
	return send_msg(n, m);
}

int
net_cmd(struct net *n, const struct cmd *c)
{
	n->out.type = WIRE_CMD;
	n->out.u.cmd = *c;
	return net_send(n, &n->out);
}

int
net_chat(struct net *n, const char *text)
{
	n->out.type = WIRE_CHAT;
	n->out.u.chat.from = CHAT_FROM_CLIENT;
	if (text == NULL || text_clean(n->out.u.chat.text, sizeof n->out.u.chat.text, text, strlen(text), TEXT_CHAT) <= 0)
		return -1;
	return net_send(n, &n->out);
}

int
net_options(struct net *n, const struct options *o, int turn_time)
{
	n->out.type = WIRE_OPTIONS;
	n->out.u.options.opt = *o;
	n->out.u.options.turn_time = (uint16_t)turn_time;
	return net_send(n, &n->out);
}

/* READY 1 and REMATCH carry a fresh part of the next seed, and only answer a commitment the
 * server made before it could have seen the part: one from a LOBBY after the last END. Until
 * that LOBBY is here the message waits (a bot that asks for a rematch the moment END is read). */
static int
send_ask(struct net *n)
{
	int kind = n->ask;

	n->ask = 0;
	/* One part per commitment: a READY sent again in the same lobby (or after READY 0) repeats
	 * it, so that the server cannot get a new roll of the dice by making us ready again, and
	 * whichever of our READYs starts the duel carries the part we check at the end. */
	if (!n->have_part || !auth_equal(n->part_commit, n->lobby.commit, sizeof n->part_commit)) {
		auth_random(n->part, sizeof n->part);
		memcpy(n->part_commit, n->lobby.commit, sizeof n->part_commit);
		n->have_part = true;
	}
	n->part_bits = n->lobby.parts;
	n->part_mirror = kind == 2 && n->ask_mirror;
	n->asked = kind;
	n->asked_seen = false;
	if (kind == 2) {
		n->out.type = WIRE_REMATCH;
		n->out.u.rematch.mirror = n->ask_mirror;
		memcpy(n->out.u.rematch.part, n->part, sizeof n->part);
	} else {
		n->out.type = WIRE_READY;
		n->out.u.ready.ready = true;
		memcpy(n->out.u.ready.part, n->part, sizeof n->part);
	}
	return net_send(n, &n->out);
}

static int
ask(struct net *n, int kind, bool mirror)
{
	if (!n->joined)
		return -1;
	n->ask = kind;
	n->ask_mirror = mirror;
	return n->lobby_fresh ? send_ask(n) : 0;
}

int
net_ready(struct net *n, bool ready)
{
	if (ready)
		return ask(n, 1, false);
	n->ask = n->asked = 0;
	n->out.type = WIRE_READY;
	memset(&n->out.u.ready, 0, sizeof n->out.u.ready);
	return net_send(n, &n->out);
}

int
net_control(struct net *n)
{
	n->out.type = WIRE_CONTROL;
	return net_send(n, &n->out);
}

int
net_rematch(struct net *n)
{
	return net_rematch_mirror(n, false);
}

int
net_rematch_mirror(struct net *n, bool mirror)
{
	return ask(n, 2, mirror);
}

/* The fair-host check. */

uint64_t
net_view_hash(const struct view *v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
#define MIX(p, len)                                                  \
	do {                                                             \
		const uint8_t *b_ = (const uint8_t *)(p);                    \
		for (size_t i_ = 0; i_ < (size_t)(len); i_++)                \
			h = (h ^ b_[i_]) * 0x100000001b3ULL;                     \
	} while (0)
#define MIXV(x)                                                      \
	do {                                                             \
		uint64_t x_ = (uint64_t)(x);                                 \
		MIX(&x_, 8);                                                 \
	} while (0)
	MIXV(v->opt.size);
	MIXV(v->opt.fov);
	MIXV(v->opt.potions);
	MIXV(v->me);
	MIX(v->cell, sizeof v->cell);
	MIX(v->potion, sizeof v->potion);
	MIXV(v->x);
	MIXV(v->y);
	MIXV(v->hp);
	MIXV(v->opp_hp);
	MIXV(v->opp_state);
	MIXV(v->opp_x);
	MIXV(v->opp_y);
	MIXV(v->ninv);
	MIX(v->inv, sizeof v->inv);
	MIX(v->kind_of, sizeof v->kind_of);
	MIXV(v->intrinsics);
	MIX(v->turns_left, sizeof v->turns_left);
	MIXV(v->turn);
	MIXV(v->turn_no);
	MIXV(v->steps_left);
	MIX(v->offered, sizeof v->offered);
	MIXV(v->result);
	MIXV(v->end_reason);
#undef MIX
#undef MIXV
	return h;
}

static void
record_view(struct net *n, bool resumed)
{
	uint64_t h = net_view_hash(&n->view);

	if (!resumed && n->nseen && n->seen[n->nseen - 1].hash == h)
		return;
	if (n->nseen == n->capseen) {
		size_t cap = n->capseen ? n->capseen * 2 : 256;
		struct seen *ns = realloc(n->seen, cap * sizeof *ns);
		if (ns == NULL)
			return;
		n->seen = ns;
		n->capseen = cap;
	}
	n->seen[n->nseen++] = (struct seen){ h, now(n), resumed };
}

struct replayed {
	int me;
	uint64_t *h;
	size_t n, cap;
	bool oom;
	struct view v;
};

static void
push_hash(struct replayed *r, uint64_t h)
{
	if (r->n && r->h[r->n - 1] == h)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		uint64_t *nh = realloc(r->h, cap * sizeof *nh);
		if (nh == NULL) {
			r->oom = true;
			return;
		}
		r->h = nh;
		r->cap = cap;
	}
	r->h[r->n++] = h;
}

static void
replay_cb(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	struct replayed *r = ud;

	(void)p;
	(void)c;
	(void)ev;
	(void)lineno;
	view_build(g, r->me, &r->v);
	push_hash(r, net_view_hash(&r->v));
}

/* A host restart resumes from its log on disk, which is written after the updates go
 * out, off the server's loop (server/tlog.c): what a killed host sent in its last
 * moments may not have reached the file, and the duel goes on from before it. Views
 * shown up to this long before the last one ahead of a resumed snapshot may be missing
 * from the log (the writer is normally well under a millisecond behind; a loaded
 * machine makes it tens). A longer window would let a host take back more moves. */
#define NET_REWIND_MS 2000

static size_t
find_view(const struct replayed *r, size_t from, uint64_t h)
{
	while (from < r->n && r->h[from] != h)
		from++;
	return from;
}

/* Could view i have been taken back by the restart whose snapshot is view snap? */
static bool
rewindable(const struct net *n, size_t i, size_t snap)
{
	return snap > 0 && i < snap && n->seen[i].at + NET_REWIND_MS >= n->seen[snap - 1].at;
}

/* Every view this player was shown must appear, in order, among the views the log
 * gives it; only views shown just before a resumed snapshot (NET_REWIND_MS) may be
 * missing, counted in *rewound: commands a killed host sent before their log lines
 * reached the disk. Such a view may also match by chance a later point of the log
 * (the duel, resumed from before it, can pass the same way again): the snapshot is
 * then looked for from before those views. */
static bool
views_match(const struct net *n, const struct replayed *r, size_t *rewound, char *why, size_t whylen)
{
	size_t j = 0, *pos = malloc((n->nseen + 1) * sizeof *pos);
	bool ok = false;

	*rewound = 0;
	if (pos == NULL) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	for (size_t i = 0; i < n->nseen; i++) {
		size_t k = find_view(r, j, n->seen[i].hash);
		if (n->seen[i].resumed) {
			/* The snapshot's place in the log: the earliest after the last view that
			 * no restart may take back (shown more than NET_REWIND_MS before it, or
			 * an earlier restart's snapshot, which the log held already). The
			 * earliest leaves the most room for the views after it; the latest
			 * could be a state the duel passed through again after the restart. */
			size_t x0 = i, from = 0;
			while (x0-- > 0 && !n->seen[x0].resumed && rewindable(n, x0, i))
				;
			for (size_t y = x0 + 1; y-- > 0;)
				if (y < i && pos[y] != SIZE_MAX) {
					from = pos[y];
					break;
				}
			k = find_view(r, from, n->seen[i].hash);
			if (k < r->n)
				for (size_t x = x0 + 1; x < i; x++)
					*rewound += pos[x] == SIZE_MAX || pos[x] > k;
		}
		if (k < r->n) {
			pos[i] = j = k;
			continue;
		}
		pos[i] = SIZE_MAX;
		size_t next = i + 1;
		while (next < n->nseen && !n->seen[next].resumed)
			next++;
		if (n->seen[i].resumed || next >= n->nseen || !rewindable(n, i, next)) {
			snprintf(why, whylen, "view %zu of %zu that the server showed is not in the replayed log", i + 1,
			         n->nseen);
			goto out;
		}
	}
	ok = true;
out:
	free(pos);
	return ok;
}

/* Where the seed came from, said for the verification line in `how`; false (and why) when the
 * server's END does not bear out what it promised: the seed is not the hash of the parts, our
 * own part is missing or changed, or other parts than those the LOBBY named went in. */
static bool
seed_origin(const struct net *n, const struct wire_end *e, char *how, size_t howlen, char *why, size_t whylen)
{
	int me = n->player;
	unsigned mine = me >= 0 && me < PLAYERS ? 1u << me : 0;

	if (n->seed_mirror) {
		if (n->duel_have_part && !n->duel_mirror_asked) {
			snprintf(why, whylen, "the server called this duel a mirror rematch (the last seed again), "
			         "but this client did not ask for one");
			return false;
		}
		if (n->have_last_seed && e->seed != n->last_seed) {
			snprintf(why, whylen, "a mirror rematch must replay the last duel's seed %016" PRIx64 ", not %016" PRIx64,
			         n->last_seed, e->seed);
			return false;
		}
		snprintf(how, howlen, "%s (a mirror rematch)%s",
		         n->have_last_seed ? "the last duel's seed again" : "the seed of a duel before this one",
		         n->seed_chosen ? "; the host chose that level (--seed)" : "");
		return true;
	}
	if (n->seed_chosen) {
		snprintf(how, howlen, "the host chose this level and who moves first (--seed): the dice were its; %s",
		         "your part was not used");
		return true;
	}
	if (auth_seed_mix(e->server_part, e->parts, e->part) != e->seed) {
		snprintf(why, whylen, "the seed is not the hash of the parts the server revealed");
		return false;
	}
	if (!n->duel_have_part) {
		snprintf(how, howlen, "seed made from the server's committed part (this client was started again and "
		         "cannot tell whether its own part was used)");
		return true;
	}
	if ((n->duel_bits & mine) &&
	    (!(e->parts & mine) || !auth_equal(e->part[me], n->duel_part, PROTO_PART_LEN))) {
		snprintf(why, whylen, "YOUR PART WAS NOT USED: the seed was not made with the random part this client "
		         "sent, so the host could have chosen it");
		return false;
	}
	if (e->parts != n->duel_bits) {
		snprintf(why, whylen, "the seed was made with other players' parts (0x%x) than the server announced "
		         "before your part was sent (0x%x)", e->parts, n->duel_bits);
		return false;
	}
	if (!(e->parts & mine))
		snprintf(how, howlen, "seed made with the other player's part (your seat is the host's)");
	else if (e->parts == mine)
		snprintf(how, howlen, "seed made with your part");
	else
		snprintf(how, howlen, "seed made with your part and the other player's");
	return true;
}

/* The host's check, once a duel at its END (cold: optimized for size). */
WW_COLD static bool
verify(struct net *n, char *why, size_t whylen)
{
	const struct wire_end *e = &n->end;
	struct turnlog_replay *rp = NULL;
	struct replayed r = { .me = n->player };
	struct game *g = NULL;
	bool ok = false;

	char how[200];

	if (n->commit_changed) {
		snprintf(why, whylen, "the host's seed commitment changed while this client was away");
		return false;
	}
	if (n->commit_moved) {
		snprintf(why, whylen, "the duel started on another commitment than the one your part answered: "
		         "the host could have picked its part after seeing yours");
		return false;
	}
	if (!auth_seed_commit_check(e->server_part, n->commit)) {
		snprintf(why, whylen, "the server's revealed part does not match the commitment it made before the duel");
		return false;
	}
	if (!seed_origin(n, e, how, sizeof how, why, whylen))
		return false;
	if (e->log_len == 0) {
		snprintf(why, whylen, "the server revealed no log");
		return false;
	}
	if ((rp = malloc(sizeof *rp)) == NULL || (g = malloc(sizeof *g)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	/* The view before any command: from the options and seed the log names. */
	if (turnlog_replay(n->log, e->log_len, rp, NULL, NULL) != 0) {
		snprintf(why, whylen, "the revealed log does not replay: %s", rp->error); /* "line N: ..." */
		goto out;
	}
	if (game_init(g, &rp->hdr.opt, rp->hdr.seed) != ERR_OK) {
		snprintf(why, whylen, "the revealed log's options are refused");
		goto out;
	}
	view_build(g, n->player, &r.v);
	push_hash(&r, net_view_hash(&r.v));
	turnlog_replay(n->log, e->log_len, rp, replay_cb, &r);
	if (r.oom) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (rp->hdr.seed != e->seed) {
		snprintf(why, whylen, "the log's seed is not the revealed seed");
		goto out;
	}
	if (!rp->ended || rp->game.result != e->result || game_hash(&rp->game) != e->hash) {
		snprintf(why, whylen, "the log does not end as the server says the duel ended");
		goto out;
	}
	size_t rewound = 0;
	ok = views_match(n, &r, &rewound, why, whylen);
	if (ok) {
		char back[96] = "";
		if (rewound)
			snprintf(back, sizeof back, "; a host restart took back %zu view%s", rewound, rewound == 1 ? "" : "s");
		snprintf(why, whylen, "%s, log verified: %zu views checked%s", how, n->nseen, back);
	}
out:
	free(r.h);
	free(rp);
	free(g);
	return ok;
}

static void
end_done(struct net *n)
{
	char why[400] = "";
	bool ok = false;

	n->end_pending = false;
	if (n->repeat_end) {
		n->repeat_end = false;
		free(n->log);
		n->log = NULL;
		return;
	}
	if (n->phase == NET_PLAYING)
		n->phase = NET_LOBBY;
	if (n->cfg.verify)
		ok = verify(n, why, sizeof why);
	else
		snprintf(why, sizeof why, "not verified");
	if (ok) {
		n->last_seed = n->end.seed;
		n->have_last_seed = true;
	}
	/* The commitment and part were this duel's: a rerun after now meets the next duel's START
	 * (or this one's END again), whose commitment it takes on first sight. Before the callback,
	 * which may leave (BYE) and delete the file. */
	memcpy(n->end_commit, n->commit, sizeof n->end_commit);
	n->have_end_commit = n->have_commit;
	n->have_commit = n->duel_have_part = false;
	seat_save(n);
	if (n->cfg.ev.end)
		n->cfg.ev.end(n->cfg.ud, n, &n->end, ok, why);
	free(n->log);
	n->log = NULL;
	n->nseen = 0;
	n->have_commit = n->commit_changed = n->commit_moved = n->duel_have_part = false;
}

/* Receiving. */

/* "host:port" as a person types it, the name in the known-servers file. */
static void
server_label(const struct net *n, char *buf, size_t len)
{
	if (strchr(n->host, ':'))
		snprintf(buf, len, "[%s]:%d", n->host, n->cfg.port);
	else
		snprintf(buf, len, "%s:%d", n->host, n->cfg.port);
}

/* Is the key that just proved itself in the handshake the server we mean? 0, or -1 said. Once a connection. */
WW_COLD static int
check_server_key(struct net *n)
{
	const uint8_t *pk = pconn_peer_key(&n->pc);
	char fp[AUTH_FP_LEN + 1], old[128], label[300], why[300];
	int how = NET_KEY_PINNED, line, rc;

	if (pk == NULL)
		return -1;
	auth_fingerprint(pk, fp);
	server_label(n, label, sizeof label);
	if (n->has_pin) {
		if (auth_equal(pk, n->pinned, PROTO_KEY_LEN))
			return 0;
		fail(n, PERR_HOSTKEY, true,
		     "the server at %s came back with another key (%s): someone may be in the middle; not resuming", label, fp);
		return -1;
	}
	if (n->cfg.server_key) {
		if (!auth_equal(pk, n->cfg.server_key, PROTO_KEY_LEN)) {
			fail(n, PERR_HOSTKEY, true, "the server at %s is not the one started here (key %s)", label, fp);
			return -1;
		}
	} else if (n->fingerprint) {
		if (strcmp(fp, n->fingerprint) != 0) {
			fail(n, PERR_HOSTKEY, true,
			     "THE SERVER'S KEY IS NOT THE ONE GIVEN: %s shows key %s, but the join line said %s. "
			     "Someone may be in the middle of this connection, or the line was mistyped. Not joining.",
			     label, fp, n->fingerprint);
			return -1;
		}
		if (n->known_file &&
		    known_check(n->known_file, label, fp, true, old, sizeof old, &line, why, sizeof why) == KNOWN_ERROR)
			fail(n, PERR_SERVER, false, "%s", why); /* the key is right; only remembering it failed */
	} else if (n->known_file) {
		rc = known_check(n->known_file, label, fp, false, old, sizeof old, &line, why, sizeof why);
		if (rc == KNOWN_CHANGED) {
			fail(n, PERR_HOSTKEY, true,
			     "WARNING: THE SERVER'S KEY HAS CHANGED. %s now shows key %s, but %s line %d remembers %s. "
			     "Someone may be in the middle of this connection, or the server made a new key. Not joining. "
			     "If the server's owner confirms the new fingerprint, accept it on purpose with: "
			     "wizwar join %s#%s (or delete line %d of %s).",
			     label, fp, n->known_file, line, old, label, fp, line, n->known_file);
			return -1;
		}
		if (rc == KNOWN_ERROR) {
			fail(n, PERR_HOSTKEY, true, "cannot check the server's key: %s", why);
			return -1;
		}
		how = rc == KNOWN_NEW ? NET_KEY_NEW : NET_KEY_KNOWN;
	} else {
		fail(n, PERR_HOSTKEY, true, "no way to check the server's key (no fingerprint, no known-servers file)");
		return -1;
	}
	memcpy(n->pinned, pk, PROTO_KEY_LEN);
	n->has_pin = true;
	if (n->cfg.ev.key)
		n->cfg.ev.key(n->cfg.ud, n, how, fp);
	return 0;
}

/* What a goodbye means to the player, where the wire's word (bye_text) says too little. */
static const char *const bye_said[BYE_COUNT] = {
	[BYE_LEAVE] = "the host left and closed the room",
	[BYE_SHUTDOWN] = "the server is shutting down",
	[BYE_REPLACED] = "the server says goodbye: the same player connected again (this seat is now played "
	                 "from elsewhere)",
};

static void
on_message(struct net *n, const struct wire_msg *m)
{
	struct proto_err e;

	if (n->cfg.ev.msg)
		n->cfg.ev.msg(n->cfg.ud, n, m);
	switch (m->type) {
	case WIRE_CHALLENGE: {
		const struct wire_challenge *c = &m->u.challenge;
		const uint8_t *h = pconn_hash(&n->pc);
		if (n->joined)
			goto unexpected;
		/* Nothing goes inside the channel before the key is known to be the server's. */
		if (check_server_key(n) != 0) {
			n->fatal = true;
			net_close(n);
			return;
		}
		if (c->password && !n->password && !(n->key.set && auth_equal(n->key.salt, c->salt, sizeof c->salt))) {
			n->fatal = true;
			fail(n, PERR_AUTH, true, "this game needs a password (--password)");
			net_close(n);
			return;
		}
		if (c->password && !(n->key.set && auth_equal(n->key.salt, c->salt, sizeof c->salt)) &&
		    auth_key_derive(&n->key, n->password, c->salt) != 0) {
			n->fatal = true;
			fail(n, PERR_NOMEM, true, "out of memory deriving the password key");
			net_close(n);
			return;
		}
		if (!c->password)
			auth_key_wipe(&n->key); /* proofs of zeros: the server checks none */
		if (n->token_len) {
			n->out.type = WIRE_RESUME;
			wire_who_init(&n->out.u.resume.who, n->name, n->room, n->cfg.role);
			n->out.u.resume.token_len = (uint8_t)n->token_len;
			memcpy(n->out.u.resume.token, n->token, n->token_len);
			auth_proof(&n->key, h, n->token, n->token_len, n->out.u.resume.proof);
		} else {
			n->out.type = WIRE_AUTH;
			wire_who_init(&n->out.u.auth.who, n->name, n->room, n->cfg.role);
			/* A member joining again after a lobby drop makes its room again if the server no
			 * longer has it (a restarted server): else whoever of the two came back second would be
			 * refused (NO_ROOM), and its tries would count as guesses of room codes. */
			n->out.u.auth.who.create = n->cfg.create_room || n->rejoin_create;
			auth_proof(&n->key, h, n->name, strlen(n->name), n->out.u.auth.proof);
		}
		send_msg(n, &n->out);
		return;
	}
	case WIRE_WELCOME:
		n->joined = true;
		n->player = m->u.welcome.player;
		n->controller = m->u.welcome.controller;
		n->token_len = m->u.welcome.token_len;
		memcpy(n->token, m->u.welcome.token, n->token_len);
		n->hold_ms = m->u.welcome.hold * 1000u;
		n->grace_ms = m->u.welcome.grace * 1000u;
		n->limits_known = true;
		if (n->phase == NET_CONNECTING || n->phase == NET_RECONNECTING) {
			bool was = n->phase == NET_RECONNECTING;
			n->phase = NET_LOBBY;
			n->token_from_file = false;
			/* The seat is ours from the join: a drop in the lobby holds it too, and a killed
			 * client run again takes it back from the file. */
			seat_save(n);
			if (was && n->cfg.ev.link)
				n->cfg.ev.link(n->cfg.ud, n, true, NULL);
		}
		if (n->cfg.ev.welcome)
			n->cfg.ev.welcome(n->cfg.ud, n, n->player, n->controller);
		return;
	case WIRE_LOBBY: {
		bool quiet = false;
		n->lobby = m->u.lobby;
		n->controller = m->u.lobby.controller == n->player;
		if (n->phase == NET_LOBBY && n->asked && n->player >= 0 && n->player < PLAYERS) {
			if (n->lobby.ready & (1u << n->player))
				n->asked_seen = true;
			else if (n->asked_seen)
				n->asked = 0; /* the server cleared it: the options changed, or the opponent left */
		}
		if (n->phase == NET_LOBBY) {
			/* Between duels: the commitment a part sent now answers. */
			n->lobby_fresh = true;
			if (n->ask) {
				/* Back after a drop that cost the seat its READY: this LOBBY is not news, the
				 * one that answers the READY is. */
				quiet = n->reasking;
				send_ask(n);
			}
			n->reasking = false;
		}
		if (n->cfg.ev.lobby && !quiet)
			n->cfg.ev.lobby(n->cfg.ud, n, &n->lobby);
		return;
	}
	case WIRE_START:
		if (m->u.start.resumed && n->phase == NET_LOBBY && n->have_end_commit &&
		    auth_equal(n->end_commit, m->u.start.commit, sizeof n->end_commit)) {
			/* Back in the lobby after a drop there: the server owes the seat the last duel's
			 * END again, as it cannot know it arrived. It did, and was checked: its final
			 * view, END and log are taken in and dropped, nothing said. */
			n->repeat_end = true;
			return;
		}
		update_blank(&n->view);
		if (update_apply(&n->view, &m->u.start.view, &e) != 0) {
			fail(n, e.code, true, "bad START: %s", e.why);
			n->fatal = true;
			net_close(n);
			return;
		}
		if (!m->u.start.resumed) {
			/* A new duel: on the commitment our part answered, with that part. */
			n->nseen = 0;
			memcpy(n->commit, m->u.start.commit, sizeof n->commit);
			n->have_commit = true;
			n->duel_have_part = n->have_part;
			memcpy(n->duel_part, n->part, sizeof n->part);
			n->duel_bits = n->part_bits;
			n->duel_mirror_asked = n->part_mirror;
			n->commit_moved = n->have_part && !auth_equal(n->part_commit, m->u.start.commit, sizeof n->commit);
			n->have_part = false;
		} else if (!n->have_commit) {
			/* A resumed snapshot before any START in this process (a client that was killed
			 * and kept no seat file) has only the commitment it carries: trust on first sight.
			 * Or a duel that started while our link was down in the lobby: our part, if it
			 * answered this very commitment, is the one to check at the end. */
			n->nseen = 0;
			memcpy(n->commit, m->u.start.commit, sizeof n->commit);
			n->have_commit = true;
			n->duel_have_part = n->have_part && auth_equal(n->part_commit, m->u.start.commit, sizeof n->commit);
			if (n->duel_have_part) {
				memcpy(n->duel_part, n->part, sizeof n->part);
				n->duel_bits = n->part_bits;
				n->duel_mirror_asked = n->part_mirror;
				n->have_part = false;
			}
		} else if (!auth_equal(n->commit, m->u.start.commit, sizeof n->commit)) {
			/* Kept from this duel's START (in memory or in the seat file): the host may not
			 * change its promise while we were away. */
			n->commit_changed = true;
		}
		n->seed_chosen = m->u.start.chosen;
		n->seed_mirror = m->u.start.mirror;
		n->lobby_fresh = false;
		n->ask = n->asked = 0;
		n->reasking = n->have_end_commit = n->repeat_end = false;
		record_view(n, m->u.start.resumed);
		n->phase = NET_PLAYING;
		n->token_from_file = false;
		seat_save(n);
		if (n->cfg.ev.start)
			n->cfg.ev.start(n->cfg.ud, n, &n->view, m->u.start.resumed);
		return;
	case WIRE_UPDATE:
		if (n->phase != NET_PLAYING)
			goto unexpected;
		if (update_apply(&n->view, &m->u.update, &e) != 0) {
			fail(n, e.code, true, "bad UPDATE: %s", e.why);
			n->fatal = true;
			net_close(n);
			return;
		}
		record_view(n, false);
		if (n->cfg.ev.update)
			n->cfg.ev.update(n->cfg.ud, n, &n->view, &m->u.update);
		return;
	case WIRE_END:
		/* Still in the duel until its log is in (end_done): a link lost before then comes
		 * back for the END again. The seat file stays: until the player leaves (BYE), a
		 * drop holds the seat after the duel too, and a rerun takes it back. */
		n->end = m->u.end;
		if (!n->repeat_end)
			n->lobby_fresh = false; /* the next part answers the next LOBBY's commitment */
		free(n->log);
		n->log = NULL;
		n->log_got = 0;
		if (n->end.log_len > PROTO_LOG_MAX)
			n->end.log_len = 0;
		if (n->end.log_len && (n->log = malloc(n->end.log_len + 1)) == NULL)
			n->end.log_len = 0;
		n->end_pending = true;
		if (n->end.log_len == 0)
			end_done(n);
		return;
	case WIRE_LOG_CHUNK:
		if (!n->end_pending || m->u.log.offset != n->log_got || m->u.log.len > n->end.log_len - n->log_got)
			goto unexpected;
		memcpy(n->log + n->log_got, m->u.log.data, m->u.log.len);
		n->log_got += m->u.log.len;
		if (n->log_got == n->end.log_len) {
			n->log[n->log_got] = '\0';
			end_done(n);
		}
		return;
	case WIRE_CHAT:
		if (n->cfg.ev.chat)
			n->cfg.ev.chat(n->cfg.ud, n, m->u.chat.from, m->u.chat.text);
		return;
	case WIRE_PEER:
		if (n->cfg.ev.peer)
			n->cfg.ev.peer(n->cfg.ud, n, &m->u.peer);
		return;
	case WIRE_ERROR:
		if (!n->pc.secure) {
			/* In clear, before the handshake: the server's refusal of a HELLO, or anyone on the
			 * path. Said as unauthenticated, and it forgets no seat and changes no plan. */
			if (m->u.error.fatal)
				n->fatal = true;
			fail(n, m->u.error.code, m->u.error.fatal, "before the encrypted channel (unauthenticated): %s",
			     m->u.error.text);
			if (m->u.error.fatal)
				net_close(n);
			return;
		}
		if (m->u.error.fatal && m->u.error.code == PERR_RESUME &&
		    ((n->token_from_file && n->phase == NET_CONNECTING) || (n->lobby_lost && n->phase == NET_RECONNECTING))) {
			/* The seat a killed run of this command left behind is gone (its grace ran
			 * out, or the duel ended), or the one left in the lobby by a drop was not held
			 * long enough (or the server started again): join as anyone would. */
			bool lobby = n->phase == NET_RECONNECTING;
			seat_forget(n);
			n->token_len = 0;
			n->rejoin_create = lobby && n->room_given;
			fail(n, PERR_RESUME, false, lobby ? "the server no longer holds your seat: joining the room again as a new player"
			                                  : "the seat kept from an earlier run is gone: joining afresh");
			close_link(n);
			try_connect(n);
			return;
		}
		if (m->u.error.fatal && m->u.error.code == PERR_CRYPTO && has_seat(n)) {
			/* A record of ours reached the server changed (a bit flipped on the way, a
			 * tamperer who cannot read it): the server dropped the link and holds the seat,
			 * as for any drop. Back with the token, over a new handshake with the same key. */
			link_lost(n, "a record was changed on the way to the server");
			return;
		}
		if (m->u.error.fatal) {
			n->fatal = true;
			if (m->u.error.code == PERR_RESUME) {
				n->gave_up = true;
				seat_forget(n);
			}
		}
		fail(n, m->u.error.code, m->u.error.fatal, "%s", m->u.error.text);
		if (m->u.error.fatal)
			net_close(n);
		return;
	case WIRE_HEARTBEAT:
		return;
	case WIRE_BYE:
		/* A server that is stopping (a signal, a restart) may be back, or a host may resume its
		 * duel from the log: in a duel and in the lobby alike, try to get back as after a drop.
		 * Any other goodbye is for good: the room closed by its host, this seat taken by the
		 * same player from elsewhere, ... */
		if (m->u.bye.reason == BYE_SHUTDOWN && n->phase != NET_CONNECTING) {
			link_lost(n, "the server is shutting down");
		} else {
			unsigned r = m->u.bye.reason;
			n->fatal = true;
			if (r < BYE_COUNT && bye_said[r])
				fail(n, PERR_OK, true, "%s", bye_said[r]);
			else
				fail(n, PERR_OK, true, "the server says goodbye: %s", bye_text((int)r));
			net_close(n);
		}
		return;
	default:
		break;
	}
unexpected:
	fail(n, PERR_STATE, true, "the server sent %s out of turn", wire_name(m->type));
	n->fatal = true;
	net_close(n);
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct net_link *l = h->data;
	size_t len;
	uint8_t *p = pconn_space(&l->n->pc, &len);

	(void)suggested;
	*buf = uv_buf_init((char *)p, (unsigned)len);
}

static void
on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct net_link *l = st->data;
	struct net *n = l->n;
	struct proto_err e;

	if (l != n->link)
		return;
	if (nread < 0) {
		link_lost(n, nread == UV_EOF ? "the server closed the connection" : uv_strerror((int)nread));
		return;
	}
	if (nread == 0)
		return;
	if (n->cfg.ev.rx)
		n->cfg.ev.rx(n->cfg.ud, n, (const uint8_t *)buf->base, (size_t)nread);
	pconn_commit(&n->pc, (size_t)nread);
	n->bytes_in += (uint64_t)nread;
	n->last_rx = now(n);
	while (n->link == l && !n->closing) {
		int rc = pconn_next(&n->pc, &n->in, &e);
		if (rc == PROTO_MORE)
			break;
		if (rc == PROTO_BROKEN && e.code == PERR_CRYPTO && n->pc.secure && has_seat(n)) {
			/* The same the other way: a record from the server that does not verify. */
			link_lost(n, "a record from the server was changed on the way");
			break;
		}
		if (rc == PROTO_BROKEN) {
			unsigned here, there;
			if ((e.code == PERR_VERSION || e.code == PERR_RULES) &&
			    sscanf(e.why, "%*s version %u here, %u there", &here, &there) == 2)
				fail(n, e.code, true, "version mismatch: this client has %s version %u, the server %u",
				     e.code == PERR_VERSION ? "protocol" : "rules", here, there);
			else
				fail(n, e.code, true, "the server broke the protocol: %s", e.why);
			n->fatal = true;
			net_close(n);
			break;
		}
		on_message(n, &n->in);
	}
}

/* Connecting and reconnecting. */

/* A seat the server holds for us after a drop: in a duel, or in the lobby with a token. */
static bool
has_seat(const struct net *n)
{
	return n->token_len && ((n->phase == NET_LOBBY && n->player >= 0) || n->phase == NET_PLAYING ||
	                        n->phase == NET_RECONNECTING);
}

static void
link_lost(struct net *n, const char *why)
{
	bool was_up = n->joined, lobby = n->phase == NET_LOBBY && n->player >= 0;

	close_link(n);
	if (n->closing || n->phase == NET_CLOSED)
		return;
	if (n->fatal || n->gave_up || !has_seat(n)) {
		fail(n, PERR_SERVER, true, "connection lost: %s", why);
		net_close(n);
		return;
	}
	/* A seat, in a duel or in the lobby: the server holds it, and we come back with its token,
	 * the same way in both. */
	snprintf(n->lost_why, sizeof n->lost_why, "%s", why);
	if (n->phase != NET_RECONNECTING) {
		n->lobby_lost = lobby;
		if (lobby) {
			/* The server drops a dropped seat's READY: say it again once back. */
			if (!n->ask && n->asked) {
				n->ask = n->asked;
				n->ask_mirror = n->part_mirror;
			}
			n->reasking = n->ask != 0;
			n->asked = 0;
			n->asked_seen = false;
		}
		n->phase = NET_RECONNECTING;
		n->lost_at = now(n);
		n->attempts = 0;
		if (was_up && n->cfg.ev.link)
			n->cfg.ev.link(n->cfg.ud, n, false, why);
	}
	n->next_try = now(n) + n->cfg.reconnect_ms;
}

static void
addr_name(const struct sockaddr_storage *a, char *buf, size_t len)
{
	if (a->ss_family == AF_INET6)
		uv_ip6_name((const struct sockaddr_in6 *)a, buf, len);
	else
		uv_ip4_name((const struct sockaddr_in *)a, buf, len);
}

/* This address did not answer: the next one, or (all tried) say what each said. */
static void
next_address(struct net *n, const char *why)
{
	char name[64];
	size_t used = strlen(n->tried);

	addr_name(&n->addr[n->addr_i], name, sizeof name);
	if (used < sizeof n->tried - 1)
		snprintf(n->tried + used, sizeof n->tried - used, "%s%s: %s", used ? "; " : "", name, why);
	close_link(n);
	if (n->addr_i + 1 < n->naddr && n->phase == NET_CONNECTING) {
		n->addr_i++;
		try_connect(n);
		return;
	}
	if (n->phase == NET_CONNECTING) {
		if (n->naddr > 1)
			fail(n, PERR_SERVER, true, "cannot connect to %s port %d (%s)", n->host, n->cfg.port, n->tried);
		else
			fail(n, PERR_SERVER, true, "cannot connect to %s port %d: %s", n->host, n->cfg.port, why);
		n->fatal = true;
		net_close(n);
		return;
	}
	/* Reconnecting: the next attempt tries the next address. */
	n->addr_i = (n->addr_i + 1) % n->naddr;
	n->tried[0] = '\0';
	link_lost(n, why);
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct net_link *l = req->data;
	struct net *n = l->n;

	if (l != n->link)
		return;
	if (status != 0) {
		next_address(n, uv_strerror(status));
		return;
	}
	l->connected = true;
	uv_tcp_nodelay(&l->tcp, 1);
	pconn_finish(&n->pc);
	pconn_init(&n->pc, PCONN_CLIENT);
	n->last_rx = now(n);
	uv_read_start((uv_stream_t *)&l->tcp, on_alloc, on_read);
	wire_hello_init(&n->out);
	send_msg(n, &n->out);
}

static void
try_connect(struct net *n)
{
	struct net_link *l;

	if (n->link || n->closing || !n->resolved)
		return;
	if ((l = calloc(1, sizeof *l)) == NULL)
		return;
	l->n = n;
	uv_tcp_init(n->loop, &l->tcp);
	l->tcp.data = l;
	l->creq.data = l;
	n->handles++;
	n->link = l;
	n->joined = false;
	n->link_since = now(n);
	if (uv_tcp_connect(&l->creq, &l->tcp, (const struct sockaddr *)&n->addr[n->addr_i], on_connect) != 0)
		next_address(n, "cannot start a connection");
}

static void
on_tick(uv_timer_t *t)
{
	struct net *n = t->data;
	uint64_t tnow = now(n);

	if (n->closing)
		return;
	if (n->link && !n->link->connected && n->addr_i + 1 < n->naddr && n->phase == NET_CONNECTING &&
	    tnow - n->link_since >= NET_ADDR_WAIT_MS) {
		/* An address that neither answers nor refuses (a firewall, no route): the next one. */
		next_address(n, "no answer");
		return;
	}
	if (n->link && !n->joined && tnow - n->link_since >= n->cfg.connect_ms) {
		if (n->phase == NET_CONNECTING) {
			fail(n, PERR_TIMEOUT, true, "no answer from %s port %d", n->host, n->cfg.port);
			n->fatal = true;
			net_close(n);
		} else {
			link_lost(n, "no answer");
		}
		return;
	}
	if (n->link && n->joined) {
		if (tnow - n->last_rx >= n->cfg.idle_ms) {
			link_lost(n, "the server went silent");
			return;
		}
		if (tnow - n->last_tx >= n->cfg.heartbeat_ms) {
			n->out.type = WIRE_HEARTBEAT;
			send_msg(n, &n->out);
		}
	}
	if (n->phase == NET_RECONNECTING && n->link == NULL) {
		if (tnow - n->lost_at >= n->cfg.reconnect_for_ms) {
			char label[300];
			n->gave_up = true;
			seat_forget(n);
			server_label(n, label, sizeof label);
			fail(n, PERR_TIMEOUT, true, "could not get back to %s: %u attempt%s in %u s, the last: %s", label,
			     n->attempts, n->attempts == 1 ? "" : "s", (unsigned)((tnow - n->lost_at) / 1000), n->lost_why);
			net_close(n);
			return;
		}
		if (tnow >= n->next_try) {
			n->attempts++;
			if (n->cfg.ev.retry)
				n->cfg.ev.retry(n->cfg.ud, n, n->attempts,
				                (unsigned)((n->cfg.reconnect_for_ms - (tnow - n->lost_at) + 999) / 1000), n->lost_why);
			try_connect(n);
		}
	}
}

static void
on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct net *n = req->data;

	n->resolving = false;
	if (status != 0 || res == NULL) {
		if (status != UV_EAI_CANCELED && !n->closing) {
			fail(n, PERR_SERVER, true, "cannot find %s: %s", n->host, uv_strerror(status));
			n->fatal = true;
			net_close(n);
		}
		if (res)
			uv_freeaddrinfo(res);
		unref(n);
		return;
	}
	for (struct addrinfo *ai = res; ai && n->naddr < NET_ADDRS_MAX; ai = ai->ai_next) {
		struct sockaddr_storage *a = &n->addr[n->naddr];
		bool dup = false;
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) || ai->ai_addrlen > sizeof *a)
			continue;
		memset(a, 0, sizeof *a);
		memcpy(a, ai->ai_addr, ai->ai_addrlen);
		if (a->ss_family == AF_INET)
			((struct sockaddr_in *)a)->sin_port = htons((uint16_t)n->cfg.port);
		else
			((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)n->cfg.port);
		for (int i = 0; i < n->naddr && !dup; i++)
			dup = memcmp(&n->addr[i], a, sizeof *a) == 0;
		if (!dup)
			n->naddr++;
	}
	uv_freeaddrinfo(res);
	if (n->naddr == 0) {
		if (!n->closing) {
			fail(n, PERR_SERVER, true, "cannot find %s: no IPv4 or IPv6 address", n->host);
			n->fatal = true;
			net_close(n);
		}
		unref(n);
		return;
	}
	n->resolved = true;
	if (!n->closing)
		try_connect(n);
	unref(n);
}

struct net *
net_create(uv_loop_t *loop, const struct net_config *cfg, char *why, size_t whylen)
{
	struct net *n;
	struct addrinfo hints;
	char name[PROTO_NAME_BYTES + 1];

	signal(SIGPIPE, SIG_IGN); /* a dead server is an EPIPE, not the end of the process */
	if (auth_init() != 0) {
		snprintf(why, whylen, "libsodium cannot start");
		return NULL;
	}
	if (cfg->host == NULL || cfg->host[0] == '\0' || cfg->port <= 0 || cfg->port > 65535) {
		snprintf(why, whylen, "no server address");
		return NULL;
	}
	if (cfg->name == NULL || text_clean(name, sizeof name, cfg->name, strlen(cfg->name), TEXT_NAME) <= 0) {
		snprintf(why, whylen, "a name is 1 to %d printable characters", PROTO_NAME_CHARS);
		return NULL;
	}
	if (cfg->room && cfg->room[0] && !text_check(cfg->room, strlen(cfg->room), TEXT_ROOM)) {
		snprintf(why, whylen, "a room code is 1 to %d letters, digits, '-' or '_'", PROTO_ROOM_BYTES);
		return NULL;
	}
	if (cfg->token_len > PROTO_TOKEN_MAX || (cfg->token_len && cfg->token_len < PROTO_TOKEN_MIN)) {
		snprintf(why, whylen, "bad resume token");
		return NULL;
	}
	if ((n = calloc(1, sizeof *n)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	n->loop = loop;
	n->cfg = *cfg;
	n->host = strdup(cfg->host);
	n->name = strdup(name);
	/* HELLO's room code may not be empty (text.h); a one-room host ignores it. */
	n->room = strdup(cfg->room && cfg->room[0] ? cfg->room : "host");
	n->room_given = cfg->room && cfg->room[0];
	n->seat_file = cfg->seat_file ? strdup(cfg->seat_file) : NULL;
	n->player = -1;
	n->phase = NET_CONNECTING;
	n->hold_ms = NET_LOBBY_HOLD_MS;
	n->grace_ms = NET_DUEL_GRACE_MS;
	if (cfg->token_len) {
		memcpy(n->token, cfg->token, cfg->token_len);
		n->token_len = cfg->token_len;
	}
	if (cfg->key)
		n->key = *cfg->key;
	n->password = cfg->password && cfg->password[0] ? strdup(cfg->password) : NULL;
	n->fingerprint = cfg->fingerprint ? strdup(cfg->fingerprint) : NULL;
	n->known_file = cfg->known_file ? strdup(cfg->known_file) : NULL;
	n->cfg.password = n->cfg.fingerprint = n->cfg.known_file = NULL;
	n->cfg.key = NULL;
	if (cfg->server_key) {
		memcpy(n->pinned, cfg->server_key, PROTO_KEY_LEN);
		n->cfg.server_key = n->pinned; /* the caller's copy may go */
	}
	if (!n->host || !n->name || !n->room || (cfg->password && cfg->password[0] && !n->password) ||
	    (cfg->fingerprint && !n->fingerprint) || (cfg->known_file && !n->known_file) ||
	    (cfg->seat_file && !n->seat_file)) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	if (n->seat_file && n->token_len == 0) {
		struct seatfile_key k = { n->host, n->cfg.port, n->room_given ? n->room : "", n->name };
		struct seatfile_seat seat;
		if ((n->token_from_file = seatfile_load(n->seat_file, &k, &seat))) {
			n->token_len = seat.token_len;
			memcpy(n->token, seat.token, seat.token_len);
			memcpy(n->commit, seat.commit, sizeof n->commit);
			n->have_commit = seat.has_commit;
			n->duel_have_part = seat.have_part;
			memcpy(n->duel_part, seat.part, sizeof n->duel_part);
			n->duel_bits = seat.part_bits;
		}
	}
	pconn_init(&n->pc, PCONN_CLIENT);
	update_blank(&n->view);
	uv_timer_init(loop, &n->timer);
	n->timer.data = n;
	n->handles = 2; /* the timer and the address lookup */
	uv_timer_start(&n->timer, on_tick, 200, 200);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	n->gai.data = n;
	n->resolving = true;
	if (uv_getaddrinfo(loop, &n->gai, on_resolved, n->host, NULL, &hints) != 0) {
		n->resolving = false;
		n->handles--;
		fail(n, PERR_SERVER, true, "cannot look up %s", n->host);
		net_close(n);
	}
	return n;
fail:
	free(n->password);
	free(n->fingerprint);
	free(n->known_file);
	free(n->host);
	free(n->name);
	free(n->room);
	free(n->seat_file);
	free(n);
	return NULL;
}

bool
net_resuming_seat(const struct net *n)
{
	return n->token_from_file;
}

unsigned
net_reconnect_secs(const struct net *n)
{
	return (n->cfg.reconnect_for_ms + 999) / 1000;
}

unsigned
net_lobby_hold_secs(const struct net *n, bool *known)
{
	if (known)
		*known = n->limits_known;
	return (n->hold_ms + 999) / 1000;
}

unsigned
net_duel_grace_secs(const struct net *n, bool *known)
{
	if (known)
		*known = n->limits_known;
	return (n->grace_ms + 999) / 1000;
}

int
net_seat_hold_left(const struct net *n)
{
	uint64_t away;

	if (n->phase != NET_RECONNECTING || !n->lobby_lost || !n->token_len)
		return -1;
	away = now(n) - n->lost_at;
	return away >= n->hold_ms ? 0 : (int)((n->hold_ms - away + 999) / 1000);
}

int
net_phase(const struct net *n)
{
	return n->phase;
}

bool
net_seed_chosen(const struct net *n)
{
	return n->seed_chosen;
}

bool
net_seed_mirror(const struct net *n)
{
	return n->seed_mirror;
}

bool
net_seed_mine(const struct net *n)
{
	return !n->seed_chosen && !n->seed_mirror && n->duel_have_part && n->player >= 0 &&
	       ((n->duel_bits >> n->player) & 1);
}

int
net_player(const struct net *n)
{
	return n->player;
}

bool
net_controller(const struct net *n)
{
	return n->controller;
}

int
net_fd(const struct net *n)
{
	uv_os_fd_t fd;

	if (n->link == NULL || uv_fileno((const uv_handle_t *)&n->link->tcp, &fd) != 0)
		return -1;
	return (int)fd;
}

const struct view *
net_view(const struct net *n)
{
	return &n->view;
}

const struct wire_lobby *
net_lobby(const struct net *n)
{
	return &n->lobby;
}

const char *
net_end_log(const struct net *n, size_t *len)
{
	*len = n->log ? n->end.log_len : 0;
	return n->log;
}

void *
net_ud(const struct net *n)
{
	return n->cfg.ud;
}

void
net_bytes(const struct net *n, uint64_t *in, uint64_t *out)
{
	*in = n->bytes_in;
	*out = n->bytes_out;
}

int
net_parse_hostport(const char *s, char *host, size_t hostlen, int *port, int default_port, char *why, size_t whylen)
{
	const char *colon = NULL, *h = s;
	size_t hl;

	*port = default_port;
	if (s == NULL || *s == '\0') {
		snprintf(why, whylen, "no server address");
		return -1;
	}
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (end == NULL) {
			snprintf(why, whylen, "'%s': no ']' after an IPv6 address", s);
			return -1;
		}
		h = s + 1;
		hl = (size_t)(end - h);
		if (end[1] == ':')
			colon = end + 1;
		else if (end[1] != '\0') {
			snprintf(why, whylen, "'%s': junk after ']'", s);
			return -1;
		}
	} else {
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			colon = NULL; /* a bare IPv6 address */
		hl = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(why, whylen, "'%s': bad host name", s);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || p < 1 || p > 65535 || colon[1] == '+' || colon[1] == '-') {
			snprintf(why, whylen, "'%s': the port must be 1 to 65535", colon + 1);
			return -1;
		}
		*port = (int)p;
	}
	return 0;
}
