/* examples: the worked examples of docs/protocol.md (hex of whole frames), made by the real encoder and checked by meson test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "docblock.h"
#include "layout.h"
#include "pconn.h"
#include "update.h"

/* The zlib whose output the document shows. */
#define EXAMPLES_ZLIB "1.2.13"

/*
 * Usage: proto_examples [--check | --write] docs/protocol.md
 * Every frame below is produced by pconn_send() exactly as a peer sends it;
 * deflated frames are zlib's output at level 9 (another deflater may produce
 * other bytes that inflate to the same payload, and that is as good). Every
 * count in a caption is counted here, so no caption can say 5 bytes of 4.
 */

static void
hex(FILE *o, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%02x%s", p[i], (i + 1) % 16 == 0 || i + 1 == n ? "\n" : " ");
}

static void
block(FILE *o, const char *title, const uint8_t *p, size_t n)
{
	fprintf(o, "%s (%zu byte%s):\n\n```\n", title, n, n == 1 ? "" : "s");
	hex(o, p, n);
	fprintf(o, "```\n\n");
}

static int
frame(struct pconn *c, const struct wire_msg *m, uint8_t *out, size_t *len)
{
	struct proto_err e = { 0 };

	if (pconn_send(c, m, out, PCONN_FRAME_MAX, len, &e) != 0) {
		fprintf(stderr, "proto_examples: %s: %s\n", wire_name(m->type), e.why);
		return -1;
	}
	return 0;
}

/* A whole frame, its caption saying how long the payload is and whether it went raw or deflated. */
static int
show(FILE *o, struct pconn *c, const struct wire_msg *m, const char *title)
{
	static uint8_t out[PCONN_FRAME_MAX], payload[PROTO_PAYLOAD_MAX];
	char caption[512];
	size_t n, plen;

	if (frame(c, m, out, &n) != 0 || wire_encode(m, payload, sizeof payload, &plen, NULL) != 0)
		return -1;
	if (out[0] & 0x80)
		snprintf(caption, sizeof caption, "%s: a %zu-byte payload, deflated", title, plen);
	else
		snprintf(caption, sizeof caption, "%s: a %zu-byte payload, sent raw", title, plen);
	block(o, caption, out, n);
	return 0;
}

#define SHOW(c, m, title)                          \
	do {                                       \
		if (show(o, c, m, title) != 0)     \
			return -1;                 \
	} while (0)

static int
gen_examples(FILE *o)
{
	static struct wire_msg m;
	static struct pconn cli, srv, gs;
	static uint8_t payload[PROTO_PAYLOAD_MAX], out[PCONN_FRAME_MAX];
	static struct game g;
	struct options opt;
	struct view blank, v;
	uint8_t nonce[PROTO_NONCE_LEN];
	size_t len;

	pconn_init(&cli, PCONN_CLIENT);
	pconn_init(&srv, PCONN_SERVER);

	fprintf(o, "### Handshake\n\n");
	wire_hello_init(&m, "Merlin", "lobby", ROLE_PLAYER);
	SHOW(&cli, &m, "HELLO from \"Merlin\" to room \"lobby\" as a player");
	for (int i = 0; i < PROTO_NONCE_LEN; i++)
		nonce[i] = (uint8_t)(0xa0 + i);
	wire_challenge_init(&m, nonce, true);
	SHOW(&srv, &m, "CHALLENGE with nonce a0 a1 ... bf, a password needed");
	{
		/* The server's own words: its decoder's finding on a HELLO of the next version,
		 * said from the client's side as server/conn.c says it. */
		struct wire_msg h;
		struct proto_err e = { 0 };
		char why[PROTO_REASON_BYTES + 1], title[160];

		wire_hello_init(&h, "Merlin", "lobby", ROLE_PLAYER);
		h.u.hello.proto = PROTO_VERSION + 1;
		if (wire_encode(&h, payload, sizeof payload, &len, &e) != 0 ||
		    wire_decode(WIRE_HELLO, payload, len, &h, &e) == 0 || !wire_version_refusal(&e, why, sizeof why)) {
			fprintf(stderr, "proto_examples: a HELLO of version %d was not refused as such\n", PROTO_VERSION + 1);
			return -1;
		}
		wire_error_init(&m, e.code, true, why);
		snprintf(title, sizeof title,
		         "ERROR %d (VERSION), fatal, exactly as a server of protocol version %d answers a HELLO of version %d",
		         e.code, PROTO_VERSION, PROTO_VERSION + 1);
		SHOW(&srv, &m, title);
	}
	memset(&m, 0, sizeof m);
	m.type = WIRE_AUTH;
	for (int i = 0; i < PROTO_PROOF_LEN; i++)
		m.u.auth.proof[i] = (uint8_t)(0x10 + i);
	SHOW(&cli, &m, "AUTH with proof 10 11 ... 2f");
	memset(&m, 0, sizeof m);
	m.type = WIRE_WELCOME;
	m.u.welcome.player = 1;
	m.u.welcome.controller = false;
	m.u.welcome.token_len = 16;
	for (int i = 0; i < 16; i++)
		m.u.welcome.token[i] = (uint8_t)(0xe0 + i);
	SHOW(&srv, &m, "WELCOME as player 1, not controller, token e0 ... ef (the last frame before deflate may start)");
	srv.joined = cli.joined = true;

	fprintf(o, "### Lobby\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_LOBBY;
	m.u.lobby.opt = (struct options){ 25, true, true };
	m.u.lobby.turn_time = 60;
	m.u.lobby.controller = 0;
	m.u.lobby.present = 3;
	m.u.lobby.ready = 1;
	strcpy(m.u.lobby.name[0], "Merlin");
	strcpy(m.u.lobby.name[1], "Morgana");
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "LOBBY payload: 25x25, FoV and potions on, 60 s a turn, player 0 controls, both here, player 0 ready",
	      payload, len);
	SHOW(&srv, &m, "... and that LOBBY as a frame, the first of the server's deflate stream");
	memset(&m, 0, sizeof m);
	m.type = WIRE_OPTIONS;
	m.u.options.opt = (struct options){ 31, false, true };
	m.u.options.turn_time = 0;
	SHOW(&cli, &m, "OPTIONS 31x31, FoV off, potions on, no turn limit");
	m.type = WIRE_READY;
	m.u.ready.ready = true;
	SHOW(&cli, &m, "READY");

	fprintf(o, "### Game\n\n");
	m.type = WIRE_CMD;
	m.u.cmd = (struct cmd){ CMD_STEP, 0, DIR_N };
	SHOW(&cli, &m, "CMD step north (8)");
	m.u.cmd = (struct cmd){ CMD_CAST, 2, DIR_E };
	SHOW(&cli, &m, "CMD cast the third offered spell (slot 2) east (6)");
	m.u.cmd = (struct cmd){ CMD_QUAFF, 3, 0 };
	SHOW(&cli, &m, "CMD quaff inventory slot 3");
	m.u.cmd = (struct cmd){ CMD_PASS, 0, 0 };
	SHOW(&cli, &m, "CMD pass");

	/* A real duel: default options, seed 1, player 0's first view. */
	options_default(&opt);
	if (game_init(&g, &opt, 1) != ERR_OK)
		return -1;
	update_blank(&blank);
	view_build(&g, g.first, &v);
	pconn_init(&gs, PCONN_SERVER);
	gs.joined = true;
	memset(&m, 0, sizeof m);
	m.type = WIRE_START;
	m.u.start.first = g.first;
	m.u.start.turn_time = 60;
	{
		struct rng r;

		rng_seed(&r, 7); /* a commitment is a hash: random-looking, so no deflate gain from it */
		for (int i = 0; i < PROTO_COMMIT_LEN; i++)
			m.u.start.commit[i] = (uint8_t)rng_next(&r);
	}
	if (update_make(&blank, &v, NULL, g.first, &m.u.start.view, NULL) != 0)
		return -1;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	{
		const struct update *u = &m.u.start.view;

		fprintf(o, "START for player %u, who moves first, of `game_init(options_default(), seed 1)` (25x25, FoV and "
		       "potions on): the player stands at (%u,%u); the update has fields 0x%05x, layout mode %u "
		       "(%u cells coded), visibility mode %u, %u potions known.\n\n",
		       g.first, u->x, u->y, (unsigned)u->has, u->lay_mode, u->lay_n, u->vis_mode, u->npot);
	}
	fprintf(o, "The level (`#` wall, `.` floor, `@` the player, `!` a potion, `X` and `,` wall and floor it has not "
	       "seen):\n\n```\n");
	for (int y = 0; y < g.level.size; y++) {
		for (int x = 0; x < g.level.size; x++) {
			bool known = (v.cell[y][x] & 0x7f) != VCELL_UNKNOWN;
			char c = g.level.cell[y][x] == CELL_FLOOR ? '.' : '#';

			if (g.potion[y][x])
				c = '!';
			if (x == g.wiz[g.first].x && y == g.wiz[g.first].y)
				c = '@';
			fputc(known ? c : c == '#' ? 'X' : c == '.' ? ',' : c, o);
		}
		fputc('\n', o);
	}
	fprintf(o, "```\n\n");
	block(o, "START payload", payload, len);
	SHOW(&gs, &m, "START frame, deflated: the first deflated frame of the server's stream to that player");
	{
		/* The same level, whole: FoV off, as after Magic Mapping. */
		struct pconn fresh;
		struct options o2 = opt;
		static struct game g2;
		char text[LEVEL_MAX * LEVEL_MAX];
		int tl;

		o2.fov = false;
		game_init(&g2, &o2, 1);
		view_build(&g2, g2.first, &v);
		tl = layout_encode_level(&g2.level, text, sizeof text);
		fprintf(o, "The plan's run-length text of the same seed's level with FoV off (%d bytes; the edge dropped):\n\n"
		       "```\n%.*s\n```\n\n", tl, tl, text);
		if (update_make(&blank, &v, NULL, g2.first, &m.u.start.view, NULL) != 0)
			return -1;
		pconn_init(&fresh, PCONN_SERVER);
		fresh.joined = true;
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		fprintf(o, "START with FoV off carries the whole level that way: %zu bytes of payload, ", len);
		if (frame(&fresh, &m, out, &len) != 0)
			return -1;
		fprintf(o, "%zu bytes as a deflated frame.\n\n", len);
		block(o, "That START frame", out, len);
		pconn_finish(&fresh);
	}
	{
		/* The first command of that duel, and what each player is told. */
		struct view before[PLAYERS], after[PLAYERS];
		struct events ev;
		struct cmd c = { CMD_STEP, 0, 0 };
		static const uint8_t dirs[] = { DIR_N, DIR_E, DIR_S, DIR_W, DIR_NE, DIR_SE, DIR_SW, DIR_NW };
		int p = g.turn;

		for (int q = 0; q < PLAYERS; q++)
			view_build(&g, q, &before[q]);
		for (size_t i = 0; i < sizeof dirs; i++) {
			c.dir = dirs[i];
			if (game_check(&g, p, &c) == ERR_OK)
				break;
		}
		if (game_apply(&g, p, &c, &ev) != ERR_OK)
			return -1;
		for (int q = 0; q < PLAYERS; q++)
			view_build(&g, q, &after[q]);
		m.type = WIRE_UPDATE;
		update_make(&before[p], &after[p], &ev, p, &m.u.update, NULL);
		wire_encode(&m, payload, sizeof payload, &len, NULL);
		fprintf(o, "Player %d steps %s (direction %u): the UPDATE it gets has fields 0x%x, layout mode %u, "
		       "visibility mode %u with %u corrections.\n\n",
		       p, c.dir == DIR_N ? "north" : "on", c.dir, (unsigned)m.u.update.has, m.u.update.lay_mode,
		       m.u.update.vis_mode, m.u.update.vis_nfix);
		block(o, "UPDATE payload", payload, len);
		SHOW(&gs, &m, "UPDATE frame, deflated in the stream that carried the first START frame above");
		update_make(&before[1 - p], &after[1 - p], &ev, 1 - p, &m.u.update, NULL);
		if (m.u.update.has != 0) {
			fprintf(stderr, "proto_examples: the other player was told of a step it cannot see\n");
			return -1;
		}
		fprintf(o, "The other player cannot see that step: nothing in its view changed (`has` would be 0), so "
		           "the server sends it no frame at all.\n\n");
	}

	fprintf(o, "### Control\n\n");
	memset(&m, 0, sizeof m);
	m.type = WIRE_CHAT;
	m.u.chat.from = CHAT_FROM_CLIENT;
	strcpy(m.u.chat.text, "gg");
	SHOW(&cli, &m, "CHAT \"gg\" from a client");
	m.type = WIRE_HEARTBEAT;
	SHOW(&cli, &m, "HEARTBEAT");
	m.type = WIRE_BYE;
	m.u.bye.reason = BYE_QUIT;
	SHOW(&cli, &m, "BYE quit");
	memset(&m, 0, sizeof m);
	m.type = WIRE_PEER;
	m.u.peer.player = 1;
	m.u.peer.state = PEER_DROPPED;
	m.u.peer.seconds = 120;
	SHOW(&srv, &m, "PEER: player 1 dropped, 120 s to come back");
	wire_error_init(&m, PERR_REFUSED_BASE + ERR_BLOCKED, false, err_text(ERR_BLOCKED));
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "ERROR 256 + 7 (ERR_BLOCKED), not fatal: a refused step (payload)", payload, len);
	memset(&m, 0, sizeof m);
	m.type = WIRE_END;
	m.u.end.result = RESULT_WIN1;
	m.u.end.reason = END_KILLED;
	m.u.end.seed = 1;
	for (int i = 0; i < PROTO_SALT_LEN; i++)
		m.u.end.salt[i] = (uint8_t)(0x50 + i);
	m.u.end.hash = 0x0123456789abcdefULL;
	m.u.end.log_len = 9000;
	wire_encode(&m, payload, sizeof payload, &len, NULL);
	block(o, "END payload: player 1 won, killed; seed 1; salt 50 ... 5f; hash 0123456789abcdef; 9000 bytes of log",
	      payload, len);
	pconn_finish(&cli);
	pconn_finish(&srv);
	pconn_finish(&gs);
	return 0;
}

/* The blocks can only be compared with the zlib they were made with: another may deflate otherwise. */
static const char *
other_zlib(void)
{
	return strcmp(zlibVersion(), EXAMPLES_ZLIB) == 0 ? NULL
	                                                : "the examples were made with zlib " EXAMPLES_ZLIB
	                                                  ", whose deflate output this zlib may not repeat";
}

int
main(int argc, char **argv)
{
	static const struct docblock blocks[] = { { "examples", gen_examples } };

	return docblock_main(argc, argv, blocks, 1, other_zlib);
}
