/* SPDX-License-Identifier: MIT */
/* samples: a valid message of each type, with field values drawn from a seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "samples.h"
#include "spect.h"
#include "update.h"

const int sample_types[] = {
#define X(id, code, dir, pre, min, max, member) WIRE_##id,
	WIRE_LIST(X)
#undef X
};
const int sample_ntypes = (int)(sizeof sample_types / sizeof sample_types[0]);

static const char *const names[] = { "Merlin", "Ŝarlota", "wizard-7", "火の魔術師", "A B", "Zed" };
static const char *const rooms[] = { "lobby", "duel-1", "x", "ROOM_42" };
static const char *const chats[] = { "hi!", "gg", "Привет, волшебник", "draw? 🙂", "a", "let's go" };

static void
fill(uint8_t *p, size_t n, struct rng *r)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng_next(r);
}

/* A real view from a duel of this seed, and (after `cmds` random commands) the update to it. */
static void
game_update(uint64_t seed, int cmds, struct update *u, uint8_t *first)
{
	struct game *g = malloc(sizeof *g);
	struct view *v = malloc(2 * sizeof *v);
	struct events *ev = calloc(1, sizeof *ev);
	struct options o = { (uint8_t)(15 + 2 * (seed % 19)), seed % 3 != 1, seed % 4 != 2 };
	struct rng br;

	if (!g || !v || !ev)
		abort();
	if (seed % 5 == 0)
		o.size = 25;
	if (game_init(g, &o, seed) != ERR_OK)
		abort();
	rng_seed(&br, seed);
	update_blank(&v[0]);
	view_build(g, 0, &v[1]);
	for (int i = 0; i < cmds && !g->result; i++) {
		struct cmd c;
		int p = g->turn;

		view_build(g, p, &v[0]);
		bot_choose(&v[0], BOT_RANDOM, &br, &c);
		view_build(g, 0, &v[0]);
		if (game_apply(g, p, &c, ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			game_apply(g, p, &c, ev);
		}
		view_build(g, 0, &v[1]);
	}
	if (update_make(&v[0], &v[1], cmds ? ev : NULL, 0, u, NULL) != 0)
		abort();
	*first = g->first;
	free(g);
	free(v);
	free(ev);
}

/* A spectator's frame from a duel of this seed after some random commands: shared, one
 * player's (delayed), or everything, by the seed. */
static void
spect_sample(uint64_t seed, struct wire_sview *out)
{
	struct game *g = malloc(sizeof *g);
	struct view *v = malloc(3 * sizeof *v);
	struct spect_view *sv = malloc(sizeof *sv);
	struct options o = { (uint8_t)(15 + 2 * (seed % 19)), seed % 3 != 1, seed % 4 != 2 };
	struct rng br;
	int cmds = (int)(seed % 37);

	if (!g || !v || !sv)
		abort();
	if (seed % 5 == 0)
		o.size = 25;
	if (game_init(g, &o, seed) != ERR_OK)
		abort();
	rng_seed(&br, seed);
	for (int i = 0; i < cmds && !g->result; i++) {
		struct cmd c;
		int p = g->turn;

		view_build(g, p, &v[0]);
		bot_choose(&v[0], BOT_RANDOM, &br, &c);
		if (game_apply(g, p, &c, NULL) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			game_apply(g, p, &c, NULL);
		}
	}
	view_build(g, 0, &v[0]);
	view_build(g, 1, &v[1]);
	switch (seed % 4) {
	case 0:
	case 3:
		spect_shared(&v[0], &v[1], sv);
		break;
	case 1:
		spect_of_player(&v[seed % 8 == 1], seed % 8 == 1, sv);
		break;
	default:
		spect_all(g, sv);
		break;
	}
	out->cmds = (uint32_t)cmds;
	out->kind = sv->kind;
	out->me_state = sv->me_state;
	out->delay = (uint8_t)(sv->kind == SPECT_KIND_PLAYER0 || sv->kind == SPECT_KIND_PLAYER1 ? 1 + seed % SPECT_DELAY_MAX : 0);
	update_blank(&v[2]);
	if (update_make(&v[2], &sv->v, NULL, 0, &out->view, NULL) != 0)
		abort();
	free(g);
	free(v);
	free(sv);
}

/* A rated record with numbers a Glicko-2 rating can have (unsigned: the decoder reads no signature). */
static void
sample_rated(uint64_t seed, struct rated_rec *x, struct rng *r)
{
	memset(x, 0, sizeof *x);
	x->time = 1700000000 + seed % 100000000;
	fill(x->commit, sizeof x->commit, r);
	for (int p = 0; p < PLAYERS; p++) {
		fill(x->key[p], sizeof x->key[p], r);
		x->before[p] = (struct rated_rating){ 400 + (double)(rng_next(r) % 360000) / 100, 45 + (double)(rng_next(r) % 45500) / 100, 0.06 + (double)(rng_next(r) % 4000) / 100000 };
		x->after[p] = (struct rated_rating){ 400 + (double)(rng_next(r) % 360000) / 100, 45 + (double)(rng_next(r) % 45500) / 100, 0.06 + (double)(rng_next(r) % 4000) / 100000 };
	}
	x->result = (uint8_t)(seed % 3);
	x->reason = (uint8_t)(END_KILLED + seed % 3);
	fill(x->sig, sizeof x->sig, r);
}

int
sample_msg(int type, uint64_t seed, struct wire_msg *m)
{
	struct rng r;
	size_t k = (size_t)seed;

	rng_seed(&r, seed);
	memset(m, 0, sizeof *m);
	m->type = (uint8_t)type;
	switch (type) {
	case WIRE_HELLO:
		wire_hello_init(m);
		fill(m->u.hello.e, sizeof m->u.hello.e, &r);
		if (seed % 2) { /* with the hint of a pinned key */
			m->u.hello.has_hint = true;
			fill(m->u.hello.hint, sizeof m->u.hello.hint, &r);
		}
		break;
	case WIRE_CHALLENGE: {
		/* The Noise message as opaque bytes; its encrypted fields stay zero, as
		 * wire_decode leaves them for pconn to fill. */
		uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };

		wire_challenge_init(m, salt, false);
		fill(m->u.challenge.noise, sizeof m->u.challenge.noise, &r);
		break;
	}
	case WIRE_AUTH:
		wire_who_init(&m->u.auth.who, names[k % 6], rooms[k % 4], (int)(seed & 1));
		if (seed)
			fill(m->u.auth.proof, PROTO_PROOF_LEN, &r);
		break;
	case WIRE_KEYS:
		fill(m->u.keys.old_ed, sizeof m->u.keys.old_ed, &r);
		fill(m->u.keys.new_key, sizeof m->u.keys.new_key, &r);
		m->u.keys.until = rng_next(&r);
		fill(m->u.keys.sig, sizeof m->u.keys.sig, &r);
		break;
	case WIRE_IDENT:
		fill(m->u.ident.key, PROTO_IDENT_KEY_LEN, &r);
		fill(m->u.ident.sig, PROTO_IDENT_SIG_LEN, &r);
		break;
	case WIRE_WELCOME:
		m->u.welcome.player = (uint8_t)(seed & 1);
		m->u.welcome.controller = !(seed & 1);
		m->u.welcome.names_owned = seed % 5 == 1;
		m->u.welcome.token_len = (uint8_t)(PROTO_TOKEN_MIN + k % (PROTO_TOKEN_MAX - PROTO_TOKEN_MIN + 1));
		fill(m->u.welcome.token, m->u.welcome.token_len, &r);
		/* The grace from 1 s to the most a u16 says; the lobby hold from none to all of it. */
		m->u.welcome.grace = (uint16_t)(seed % 3 == 0 ? PROTO_HOLD_MAX : 1 + (k * 97) % 600);
		m->u.welcome.hold = (uint16_t)(seed % 4 == 0 ? 0 : seed % 4 == 1 ? m->u.welcome.grace : m->u.welcome.grace / 4);
		if (seed % 13 == 12) {
			/* A spectator's: no seat, no token, no control. */
			m->u.welcome.player = WELCOME_SPECTATOR;
			m->u.welcome.controller = false;
			m->u.welcome.token_len = 0;
			memset(m->u.welcome.token, 0, sizeof m->u.welcome.token);
			m->u.welcome.hold = 0;
		}
		break;
	case WIRE_LOBBY:
		m->u.lobby.opt = (struct options){ (uint8_t)(LEVEL_MIN + 2 * (k % 19)), seed % 3 != 0, seed % 2 == 0 };
		m->u.lobby.turn_time = (uint16_t)(seed % 4 == 0 ? 0 : 30 + k % 100);
		m->u.lobby.controller = (uint8_t)(seed & 1);
		m->u.lobby.present = (uint8_t)(1 + k % 3);
		m->u.lobby.ready = (uint8_t)(m->u.lobby.present & (k / 3));
		m->u.lobby.bots = (uint8_t)(m->u.lobby.present & (k / 5));
		m->u.lobby.rematch = (uint8_t)(m->u.lobby.present & (k / 7));
		m->u.lobby.parts = (uint8_t)(k % 4);
		fill(m->u.lobby.commit, PROTO_COMMIT_LEN, &r);
		for (int p = 0; p < PLAYERS; p++)
			if ((m->u.lobby.present >> p) & 1)
				strcpy(m->u.lobby.name[p], names[(k + (size_t)p) % 6]);
		break;
	case WIRE_OPTIONS:
		m->u.options.opt = (struct options){ (uint8_t)(LEVEL_MIN + 2 * (k % 19)), seed & 1, (seed & 2) != 0 };
		m->u.options.turn_time = (uint16_t)(k % (TURN_TIME_MAX + 1));
		break;
	case WIRE_READY:
		m->u.ready.ready = !(seed & 1);
		if (m->u.ready.ready)
			fill(m->u.ready.part, PROTO_PART_LEN, &r);
		break;
	case WIRE_REMATCH:
		m->u.rematch.mirror = seed & 1;
		fill(m->u.rematch.part, PROTO_PART_LEN, &r);
		break;
	case WIRE_CONTROL:
	case WIRE_HEARTBEAT:
	case WIRE_ROOMS_ASK:
		break;
	case WIRE_ROOMS:
		/* From none to the most a list holds, the names and options by the seed. */
		m->u.rooms.count = (uint8_t)(seed % 7 == 6 ? WIRE_ROOMS_MAX : k % 5);
		for (unsigned i = 0; i < m->u.rooms.count; i++) {
			struct wire_room *o = &m->u.rooms.room[i];
			snprintf(o->code, sizeof o->code, "%s%u", rooms[(k + i) % 4], i);
			strcpy(o->name, names[(k + i) % 6]);
			o->rating = (uint16_t)(800 + (k * 131 + i * 17) % 1800);
			o->opt = (struct options){ (uint8_t)(LEVEL_MIN + 2 * ((k + i) % 19)), (seed + i) % 3 != 0, i % 2 == 0 };
			o->turn_time = (uint16_t)(i % 3 == 0 ? 0 : 30 * i);
			o->flags = (uint8_t)(seed % 4 == 1 ? WIRE_ROOM_PASSWORD : 0);
			o->waiting = (uint16_t)(k * 3 + i);
		}
		break;
	case WIRE_QUICK:
		m->u.quick.opt = (struct options){ (uint8_t)(LEVEL_MIN + 2 * (k % 19)), seed & 1, (seed & 2) != 0 };
		m->u.quick.turn_time = (uint16_t)(k % 3 == 0 ? 0 : k % (TURN_TIME_MAX + 1));
		m->u.quick.wait = (uint16_t)(QUICK_WAIT_MIN + k % QUICK_WAIT_MAX);
		break;
	case WIRE_MATCH:
		m->u.match.status = (uint8_t)(seed % 3);
		m->u.match.rating = (uint16_t)(1000 + k % 1500);
		m->u.match.waited = (uint16_t)(k % 600);
		if (m->u.match.status == MATCH_PAIRED) {
			m->u.match.other = (uint16_t)(900 + k * 7 % 1700);
			strcpy(m->u.match.room, "q7pk-2m4x-abcde");
		} else if (m->u.match.status == MATCH_WAITING) {
			m->u.match.pool = (uint16_t)(1 + k % 40);
		}
		break;
	case WIRE_START:
		m->u.start.resumed = seed % 7 == 3;
		m->u.start.chosen = seed % 5 == 2;
		m->u.start.mirror = seed % 3 == 1;
		m->u.start.turn_time = (uint16_t)(seed % 2 ? 60 : 0);
		fill(m->u.start.commit, PROTO_COMMIT_LEN, &r);
		game_update(seed, 0, &m->u.start.view, &m->u.start.first);
		break;
	case WIRE_CMD: {
		static const uint8_t dirs[] = { 0, 1, 2, 3, 4, 6, 7, 8, 9 };

		m->u.cmd.type = (uint8_t)(k % CMD_COUNT);
		m->u.cmd.dir = dirs[(k / CMD_COUNT) % 9];
		m->u.cmd.arg = (uint8_t)(seed % 3 == 0 ? 0 : rng_below(&r, 256));
		break;
	}
	case WIRE_UPDATE: {
		uint8_t first;

		game_update(seed, 1 + (int)(k % 40), &m->u.update, &first);
		break;
	}
	case WIRE_END:
		m->u.end.result = (uint8_t)(1 + k % 3);
		m->u.end.reason = (uint8_t)(1 + (k / 3) % 3);
		m->u.end.seed = rng_next(&r);
		fill(m->u.end.server_part, PROTO_PART_LEN, &r);
		m->u.end.parts = (uint8_t)(k % 4);
		for (int p = 0; p < PLAYERS; p++)
			if ((m->u.end.parts >> p) & 1)
				fill(m->u.end.part[p], PROTO_PART_LEN, &r);
		m->u.end.hash = rng_next(&r);
		m->u.end.log_len = (uint32_t)rng_below(&r, 100000);
		break;
	case WIRE_LOG_CHUNK:
		m->u.log.offset = (uint32_t)(k * PROTO_LOG_CHUNK % PROTO_LOG_MAX);
		m->u.log.len = (uint16_t)(1 + rng_below(&r, seed % 5 == 0 ? PROTO_LOG_CHUNK : 300));
		for (int i = 0; i < m->u.log.len; i++)
			m->u.log.data[i] = (uint8_t)("1 step 8\n= 3 0123456789abcdef\n"[(size_t)i % 30]);
		break;
	case WIRE_CHAT:
		m->u.chat.from = seed % 3 == 2 ? CHAT_FROM_CLIENT : (uint8_t)(seed & 1);
		strcpy(m->u.chat.text, chats[k % 6]);
		break;
	case WIRE_ERROR:
		wire_error_init(m, seed % 2 ? PERR_REFUSED_BASE + ERR_BLOCKED : PERR_VERSION, seed % 2 == 0,
		                seed % 2 ? err_text(ERR_BLOCKED) : "protocol version 1 here, 2 there");
		break;
	case WIRE_RESUME:
		wire_who_init(&m->u.resume.who, names[k % 6], rooms[k % 4], (int)(seed & 1));
		m->u.resume.token_len = (uint8_t)(PROTO_TOKEN_MIN + k % (PROTO_TOKEN_MAX - PROTO_TOKEN_MIN + 1));
		fill(m->u.resume.token, m->u.resume.token_len, &r);
		fill(m->u.resume.proof, PROTO_PROOF_LEN, &r);
		break;
	case WIRE_BYE:
		m->u.bye.reason = (uint8_t)(k % BYE_COUNT);
		break;
	case WIRE_PEER:
		m->u.peer.player = (uint8_t)(seed & 1);
		m->u.peer.state = (uint8_t)(k % 3);
		m->u.peer.seconds = (uint16_t)(m->u.peer.state == PEER_DROPPED ? 120 - k % 120 : 0);
		break;
	case WIRE_SPECT_VIEW:
		spect_sample(seed, &m->u.sview);
		break;
	case WIRE_SPECT_CHAT:
		/* A client's line has no name; the server's names the spectator who said it. */
		if (seed % 3 != 2)
			strcpy(m->u.schat.name, names[(k + 1) % 6]);
		strcpy(m->u.schat.text, chats[k % 6]);
		break;
	case WIRE_SPECT_SET:
	case WIRE_SPECT_INFO: {
		bool allowed = seed % 5 != 4;
		uint8_t mode = (uint8_t)(seed % SPECT_MODE_COUNT);
		uint8_t delay = (uint8_t)(mode == SPECT_DELAYED ? SPECT_DELAY_MIN + k % SPECT_DELAY_MAX : 0);
		uint8_t player = (uint8_t)(mode == SPECT_DELAYED ? (k / 3) & 1 : 0);
		if (type == WIRE_SPECT_SET) {
			m->u.sset = (struct wire_sset){ allowed, mode, delay, player };
		} else {
			m->u.sinfo = (struct wire_sinfo){ allowed, mode, delay, player, (uint16_t)(seed % 3 == 0 ? 0 : k * 7 % 1500) };
		}
		break;
	}
	case WIRE_REDIRECT: {
		static const char *hosts[] = { "127.0.0.1", "203.0.113.9", "fd00::17", "::1" };
		struct wire_redirect *d = &m->u.redirect;
		d->port = (uint16_t)(1 + k % 65535);
		fill(d->key, PROTO_KEY_LEN, &r);
		snprintf(d->host, sizeof d->host, "%s", hosts[k % 4]);
		break;
	}
	case WIRE_NODES: {
		static const char *hosts[] = { "127.0.0.1", "203.0.113.9", "fd00::17", "::1" };
		struct wire_nodes *d = &m->u.nodes;
		d->n = (uint8_t)(1 + k % WIRE_NODES_MAX);
		for (unsigned i = 0; i < d->n; i++) {
			d->node[i].port = (uint16_t)(1 + (k + i) % 65535);
			fill(d->node[i].key, PROTO_KEY_LEN, &r);
			snprintf(d->node[i].host, sizeof d->node[i].host, "%s", hosts[(k + i) % 4]);
		}
		break;
	}
	case WIRE_ROOMS_PARTIAL:
		m->u.partial.why = ROOMS_PARTIAL_NO_DIRECTORY;
		break;
	case WIRE_RATED:
		sample_rated(seed, &m->u.rated.rec, &r);
		fill(m->u.rated.signer, sizeof m->u.rated.signer, &r);
		break;
	case WIRE_ASK:
		m->u.ask.kind = (uint8_t)(ASK_HISTORY + seed % 3);
		if (m->u.ask.kind == ASK_STATS)
			strcpy(m->u.ask.name, names[k % 6]);
		break;
	case WIRE_RECORDS:
		m->u.records.count = (uint8_t)(seed % 4 == 0 ? 0 : seed % 4 == 3 ? WIRE_RECORDS_MAX : 1 + k % 9);
		for (unsigned i = 0; i < m->u.records.count; i++) {
			sample_rated(seed + i, &m->u.records.rec[i].rec, &r);
			fill(m->u.records.rec[i].signer, RATED_SIGNER_LEN, &r); /* a signer each: a cluster's nodes */
		}
		break;
	case WIRE_LADDER:
		m->u.ladder.flags = (uint8_t)(seed & 1);
		m->u.ladder.count = (uint8_t)(seed % 4 == 0 ? 0 : seed % 4 == 3 ? WIRE_LADDER_MAX : 1 + k % 9);
		for (unsigned i = 0; i < m->u.ladder.count; i++) {
			struct wire_ladder_row *o = &m->u.ladder.row[i];
			o->flags = (uint8_t)((seed + i) % 2);
			o->rating = (uint16_t)(400 + rng_next(&r) % 3600);
			o->deviation = (uint16_t)(45 + rng_next(&r) % 455);
			o->games = (uint32_t)(rng_next(&r) % 1000);
			o->wins = o->games / 2;
			o->draws = o->games / 10;
			strcpy(o->name, names[(k + i) % 6]);
		}
		break;
	default:
		return -1;
	}
	return 0;
}

const uint8_t sample_server_secret[32] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,
};

int
sample_handshake(struct pconn *srv, struct pconn *cli, struct proto_err *e)
{
	static uint8_t frame[PCONN_FRAME_MAX];
	static struct wire_msg m, got;
	struct noise_keypair kp;
	uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
	size_t len;

	if (noise_keypair_from(&kp, sample_server_secret) != 0)
		return -1;
	pconn_set_identity(srv, &kp);
	wire_hello_init(&m);
	if (pconn_send(cli, &m, frame, sizeof frame, &len, e) != 0 || pconn_feed(srv, frame, len) != len ||
	    pconn_next(srv, &got, e) != PROTO_DONE)
		return -1;
	wire_challenge_init(&m, salt, false);
	if (pconn_send(srv, &m, frame, sizeof frame, &len, e) != 0 || pconn_feed(cli, frame, len) != len ||
	    pconn_next(cli, &got, e) != PROTO_DONE)
		return -1;
	return srv->secure && cli->secure ? 0 : -1;
}
