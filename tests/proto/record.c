/* SPDX-License-Identifier: MIT */
/* record: the frames a server sends each player of a selfplay duel, and the views the reference client rebuilds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "pconn.h"
#include "samples.h"
#include "selfplay.h"
#include "update.h"

/*
 * Usage: proto_record DIR SIZE FOV POTIONS SEED BOT_LEVEL
 *
 * Writes, for each player p, DIR/pP.bin: every byte a server sends that player from
 * WELCOME on (WELCOME, LOBBY, START, each UPDATE with a field, a CHAT, END), deflated
 * as a server deflates them; and DIR/pP.views: after each START and UPDATE, the view
 * the reference client (pconn + update_apply) holds, its messages formatted and its
 * effects, in the plain format of docclient.py. An independent decoder written from
 * docs/protocol.md alone must turn the first file into the second.
 */

struct rec {
	struct pconn srv[PLAYERS], cli[PLAYERS];
	struct view client[PLAYERS];
	FILE *bin[PLAYERS], *views[PLAYERS];
	struct wire_msg m, got;
	uint8_t frame[PCONN_FRAME_MAX];
	long frames[PLAYERS];
	int failed;
};

static void
fail(struct rec *r, const char *what, const struct proto_err *e)
{
	fprintf(stderr, "proto_record: %s: %s\n", what, e ? e->why : "");
	r->failed = 1;
}

static const char cell_chars[2][3] = { { 'u', 'w', 'f' }, { 'U', 'W', 'F' } };

static void
dump(FILE *o, const struct view *v, const struct update *u, long n, const char *type)
{
	int s = v->opt.size;
	char text[256];

	fprintf(o, "frame %ld %s\n", n, type);
	fprintf(o, "opt %d %d %d me %d\n", s, v->opt.fov, v->opt.potions, v->me);
	fprintf(o, "pos %d %d steps %d hp %d opp_hp %d\n", v->x, v->y, v->steps_left, v->hp, v->opp_hp);
	fprintf(o, "opp %d %d %d\n", v->opp_state, v->opp_x, v->opp_y);
	fprintf(o, "turn %d %u result %d %d\n", v->turn, (unsigned)v->turn_no, v->result, v->end_reason);
	fprintf(o, "offered %d %d %d\n", v->offered[0], v->offered[1], v->offered[2]);
	fprintf(o, "inv %d", v->ninv);
	for (int i = 0; i < INV_MAX; i++)
		fprintf(o, " %d", v->inv[i]);
	fprintf(o, "\nkind");
	for (int i = 0; i < APPEARANCE_COUNT; i++)
		fprintf(o, " %d", v->kind_of[i]);
	fprintf(o, "\nintrinsics %u turns", (unsigned)v->intrinsics);
	for (int i = 0; i < HANDLER_COUNT; i++)
		fprintf(o, " %d", v->turns_left[i]);
	fprintf(o, "\n");
	for (int y = 0; y < s; y++) {
		for (int x = 0; x < s; x++) {
			int c = v->cell[y][x];
			fputc((c & 0x7f) <= 2 ? cell_chars[(c & VCELL_VISIBLE) != 0][c & 0x7f] : '?', o);
		}
		fputc('\n', o);
	}
	fprintf(o, "potions");
	for (int y = 0; y < s; y++)
		for (int x = 0; x < s; x++)
			if (v->potion[y][x])
				fprintf(o, " %d,%d,%d", x, y, v->potion[y][x]);
	fprintf(o, "\n");
	for (int i = 0; i < u->nmsg; i++) {
		msg_format(&u->msg[i], text, sizeof text);
		fprintf(o, "msg %s\n", text);
	}
	fprintf(o, "fx");
	for (int i = 0; i < u->nfx; i++)
		fprintf(o, " %d,%d,%d", u->fx[i].x, u->fx[i].y, u->fx[i].id);
	fprintf(o, "\n");
}

/* Send m to player p as a server would, and take it in as the reference client does. */
static void
send(struct rec *r, int p, struct wire_msg *m)
{
	struct proto_err e = { 0 };
	size_t len;

	if (r->failed)
		return;
	/* The frame as it lies in its record's plaintext is what the stream file keeps: the
	 * record around it is sealed and opened here, as the reference ends do. */
	pconn_cork(&r->srv[p]);
	if (pconn_send(&r->srv[p], m, r->frame, sizeof r->frame, &len, &e) != 0)
		return fail(r, "send", &e);
	fwrite(r->srv[p].ob, 1, r->srv[p].ob_len, r->bin[p]);
	if (pconn_flush(&r->srv[p], r->frame, sizeof r->frame, &len, &e) != 0)
		return fail(r, "seal", &e);
	if (pconn_feed(&r->cli[p], r->frame, len) != len || pconn_next(&r->cli[p], &r->got, &e) != PROTO_DONE)
		return fail(r, "receive", &e);
	if (r->got.type == WIRE_START || r->got.type == WIRE_UPDATE) {
		const struct update *u = r->got.type == WIRE_START ? &r->got.u.start.view : &r->got.u.update;

		if (r->got.type == WIRE_START)
			update_blank(&r->client[p]);
		if (update_apply(&r->client[p], u, &e) != 0)
			return fail(r, "apply", &e);
		dump(r->views[p], &r->client[p], u, r->frames[p], wire_name(r->got.type));
	}
	r->frames[p]++;
}

static void
on_command(void *ud, const struct game *g, const struct view *before, const struct view *after,
           const struct events *ev, const struct cmd *c, int mover)
{
	struct rec *r = ud;
	struct wire_msg *m = &r->m;
	struct proto_err e = { 0 };

	for (int p = 0; p < PLAYERS; p++) {
		struct view blank;

		memset(m, 0, sizeof *m);
		if (!before) {
			/* The join and the lobby, then the duel's first views. */
			m->type = WIRE_WELCOME;
			m->u.welcome.player = (uint8_t)p;
			m->u.welcome.controller = p == 0;
			m->u.welcome.token_len = PROTO_TOKEN_MAX;
			memset(m->u.welcome.token, 0x40 + p, PROTO_TOKEN_MAX);
			m->u.welcome.hold = 30;
			m->u.welcome.grace = 120;
			send(r, p, m);
			memset(m, 0, sizeof *m);
			m->type = WIRE_LOBBY;
			m->u.lobby.opt = g->opt;
			m->u.lobby.present = m->u.lobby.ready = 3;
			strcpy(m->u.lobby.name[0], "Merlin");
			strcpy(m->u.lobby.name[1], "Morgana");
			send(r, p, m);
			memset(m, 0, sizeof *m);
			m->type = WIRE_START;
			m->u.start.first = g->first;
			memset(m->u.start.commit, 0xc0, sizeof m->u.start.commit);
			update_blank(&blank);
			if (update_make(&blank, &after[p], NULL, p, &m->u.start.view, &e) != 0)
				return fail(r, "start", &e);
			send(r, p, m);
			continue;
		}
		m->type = WIRE_UPDATE;
		if (update_make(&before[p], &after[p], ev, p, &m->u.update, &e) != 0)
			return fail(r, "update", &e);
		/* As server/room.c: nothing at all when nothing changed for that player. The
		 * document promises the mover one UPDATE for each accepted command: check it. */
		if (m->u.update.has)
			send(r, p, m);
		else if (p == mover)
			return fail(r, "an accepted command changed nothing the mover knows", NULL);
		if (c->type == CMD_PASS && g->turn_no % 7 == 1) {
			memset(m, 0, sizeof *m);
			m->type = WIRE_CHAT;
			m->u.chat.from = (uint8_t)mover;
			strcpy(m->u.chat.text, "gg \xc3\xa9");
			send(r, p, m);
		}
		if (g->result) {
			memset(m, 0, sizeof *m);
			m->type = WIRE_END;
			m->u.end.result = g->result;
			m->u.end.reason = g->end_reason;
			m->u.end.seed = g->seed;
			m->u.end.hash = game_hash(g);
			send(r, p, m);
		}
	}
}

int
main(int argc, char **argv)
{
	static struct rec r;
	struct options opt;
	char path[4096];

	if (argc != 7) {
		fprintf(stderr, "usage: proto_record DIR SIZE FOV POTIONS SEED BOT_LEVEL\n");
		return 2;
	}
	opt.size = (uint8_t)atoi(argv[2]);
	opt.fov = atoi(argv[3]) != 0;
	opt.potions = atoi(argv[4]) != 0;
	for (int p = 0; p < PLAYERS; p++) {
		pconn_init(&r.srv[p], PCONN_SERVER);
		pconn_init(&r.cli[p], PCONN_CLIENT);
		{
			struct proto_err e;
			if (sample_handshake(&r.srv[p], &r.cli[p], &e) != 0) {
				fprintf(stderr, "proto_record: handshake: %s\n", e.why);
				return 1;
			}
		}
		snprintf(path, sizeof path, "%s/p%d.bin", argv[1], p);
		r.bin[p] = fopen(path, "wb");
		snprintf(path, sizeof path, "%s/p%d.views", argv[1], p);
		r.views[p] = fopen(path, "w");
		if (!r.bin[p] || !r.views[p]) {
			perror(path);
			return 1;
		}
	}
	if (selfplay_run(&opt, strtoull(argv[5], NULL, 10), atoi(argv[6]), on_command, &r) < 0) {
		fprintf(stderr, "proto_record: bad options\n");
		return 1;
	}
	for (int p = 0; p < PLAYERS; p++) {
		fclose(r.bin[p]);
		fclose(r.views[p]);
		pconn_finish(&r.srv[p]);
		pconn_finish(&r.cli[p]);
	}
	return r.failed;
}
