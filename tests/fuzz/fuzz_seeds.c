/* SPDX-License-Identifier: MIT */
/* fuzz_seeds: writes the seed corpus of each fuzz target into a directory: real frames and payloads of every type. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sodium.h>

#include "auth.h"
#include "bot.h"
#include "lan.h"
#include "mind.h"
#include "pconn.h"
#include "rated.h"
#include "samples.h"
#include "script.h"
#include "turnlog.h"

static void put(const char *dir, const char *target, const char *name, const uint8_t *p, size_t n);

/* fuzz_proxy: byte 0 even, a PROXY v2 header (TCP4, TCP6 with a TLV, LOCAL); odd, a block. */
static void
proxy_seeds(const char *dir)
{
	static const uint8_t v4[] = { 0, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a,
		0x21, 0x11, 0, 12, 10, 1, 2, 3, 127, 0, 0, 1, 0x11, 0xd7, 0x1e, 0x2f, 'H' };
	static const uint8_t v6[] = { 0, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a,
		0x21, 0x21, 0, 43, 0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 1, 0x30, 0x39, 0x1e, 0x2f, 0x04, 0, 4, 'a', 'b', 'c', 'd' };
	static const uint8_t local[] = { 0, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a,
		0x20, 0x00, 0, 0 };
	put(dir, "fuzz_proxy", "tcp4", v4, sizeof v4);
	put(dir, "fuzz_proxy", "tcp6-tlv", v6, sizeof v6);
	put(dir, "fuzz_proxy", "local", local, sizeof local);
	put(dir, "fuzz_proxy", "cidr4", (const uint8_t *)"\x01" "10.0.0.0/8", 11);
	put(dir, "fuzz_proxy", "cidr6", (const uint8_t *)"\x01" "2001:db8::/32", 14);
	/* The web page's messages (web/wmsg.c): each kind a page sends. */
	static const char *const webmsg[] = { "{\"t\":\"list\"}", "{\"t\":\"watch\",\"room\":\"ab12-cd34-efgh5\",\"key\":\"\"}",
		"{\"t\":\"replay\",\"id\":\"20260102-wizwar-x\",\"key\":\"00112233445566778899aabbccddeeff\"}",
		"{\"t\":\"key\",\"k\":\" \"}", "{ \"t\" : \"turn\" , \"turn\" : 12 }",
		/* a browser's Origin, and a cluster node's "web" line (the same target's other decoders) */
		"http://127.0.0.1:8080", "https://[2001:db8::1]", "abcdefghijklmnopqrstuvwxyz 127.0.0.1 8080" };
	for (size_t i = 0; i < sizeof webmsg / sizeof webmsg[0]; i++) {
		char name[16];
		snprintf(name, sizeof name, "msg%zu", i);
		put(dir, "fuzz_webmsg", name, (const uint8_t *)webmsg[i], strlen(webmsg[i]));
	}
	/* A cluster's channel lines (fuzz_xmsg): each kind a node publishes. */
	static const char *const xmsg[] = {
		"beat abcdefghijklmnopqrstuvwxyz 127.0.0.1 7727 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff 3",
		"beat abcdefghijklmnopqrstuvwxy2 2001:db8::1 65535 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff 0",
		"room abcdefghijklmnopqrstuvwxyz ab12-cd34-efgh5", "gone abcdefghijklmnopqrstuvwxyz ab12-cd34-efgh5",
		"sent abcdefghijklmnopqrstuvwxyz Q_x", "make abcdefghijklmnopqrstuvwxyz 0123456789abcdefghijklmnop qk-1 25 1 1 60",
		"web abcdefghijklmnopqrstuvwxyz 127.0.0.1 8080",
		"mod abcdefghijklmnopqrstuvwxyz ban 1999999000 2000003600 name Sir Mordred --reason impersonation",
	};
	for (size_t i = 0; i < sizeof xmsg / sizeof xmsg[0]; i++) {
		char name[16];
		snprintf(name, sizeof name, "line%zu", i);
		put(dir, "fuzz_xmsg", name, (const uint8_t *)xmsg[i], strlen(xmsg[i]));
	}
	/* Ban commands: 0x02, the verb (0 ban, 1 unban, 2 mute, 3 unmute), the arguments. */
	static const char ban[] = "\x02\x00" "key abcdefghijklmnopqrstuvwxyz --for 2h --reason seen cheating";
	static const char name[] = "\x02\x00" "name Sir Mordred --reason impersonation";
	static const char range[] = "\x02\x01" "addr 2001:db8::/32";
	static const char mute[] = "\x02\x02" "abcdefghijklmnopqrstuvwxyz --for 7d";
	put(dir, "fuzz_proxy", "ban-key", (const uint8_t *)ban, sizeof ban - 1);
	put(dir, "fuzz_proxy", "ban-name", (const uint8_t *)name, sizeof name - 1);
	put(dir, "fuzz_proxy", "unban-addr", (const uint8_t *)range, sizeof range - 1);
	put(dir, "fuzz_proxy", "mute", (const uint8_t *)mute, sizeof mute - 1);
	/* A cluster's moderation lines: 0x04, then the line as a node publishes it. */
	static const char sync_ban[] = "\x04" "ban 1999999000 2000003600 name Sir Mordred --reason impersonation";
	static const char sync_unban[] = "\x04" "unban 1999999500 addr 2001:db8::/32";
	put(dir, "fuzz_proxy", "sync-ban", (const uint8_t *)sync_ban, sizeof sync_ban - 1);
	put(dir, "fuzz_proxy", "sync-unban", (const uint8_t *)sync_unban, sizeof sync_unban - 1);
}

static void
put(const char *dir, const char *target, const char *name, const uint8_t *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, target);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Bytes appended to script s as records of at most 255 bytes: all but the last with SCRIPT_MORE, so
 * that the harness seals them as one record. 0, or -1 when s is full. */
static int
script_bytes(uint8_t *s, size_t *n, size_t cap, int tag, const uint8_t *p, size_t len)
{
	do {
		size_t k = len > 255 ? 255 : len;

		if (*n + 2 + k > cap)
			return -1;
		s[(*n)++] = (uint8_t)(tag | (len > 255 ? SCRIPT_MORE : 0));
		s[(*n)++] = (uint8_t)k;
		memcpy(s + *n, p, k);
		*n += k;
		p += k;
		len -= k;
	} while (len > 0);
	return 0;
}

/* One frame (header and payload, never deflated) carrying message m, appended to script s:
 * the plaintext of one record once the channel is secure. 0, or -1. */
static int
script_add(uint8_t *s, size_t *n, size_t cap, int tag, const struct wire_msg *m)
{
	static uint8_t frame[PROTO_HEADER_MAX + PROTO_PAYLOAD_MAX];
	size_t len;
	int hl;

	if (wire_encode(m, frame + PROTO_HEADER_MAX, PROTO_PAYLOAD_MAX, &len, NULL) != 0 ||
	    (hl = frame_header(frame, m->type, false, len)) < 0 || (size_t)hl + len > PCONN_RECORD_MAX)
		return -1;
	memmove(frame + hl, frame + PROTO_HEADER_MAX, len);
	return script_bytes(s, n, cap, tag, frame, (size_t)hl + len);
}

/* Scripts for the whole-connection targets (script.h): every message a peer sends, one a script,
 * inside the channel after the handshake (SCRIPT_SECURE for what comes before the join, SCRIPT_JOIN
 * for the rest; SCRIPT_IDENT too for ROOMS_ASK and QUICK); the clear handshake itself; a forged record; a
 * duel's start and two QUICKs paired for the server. */
static void
scripts(const char *dir)
{
	static struct wire_msg m;
	static uint8_t s[65536];
	static const uint8_t e_fixed[NOISE_KEY_LEN] = { 7 };
	char name[64];
	size_t n;

	for (int i = 0; i < sample_ntypes; i++) {
		int t = sample_types[i];
		if (t == WIRE_HELLO || t == WIRE_CHALLENGE)
			continue; /* in clear: below */
		for (uint64_t seed = 0; seed < 2; seed++) {
			if (sample_msg(t, seed, &m) != 0)
				continue;
			for (int side = 0; side < 2; side++) {
				if (!(wire_dir(t) & (side ? WIRE_C2S : WIRE_S2C)))
					continue;
				if (t == WIRE_CHAT)
					m.u.chat.from = side ? CHAT_FROM_CLIENT : 0;
				n = 0;
				/* ROOMS_ASK and QUICK come after IDENT, in place of AUTH. */
				s[n++] = t == WIRE_ROOMS_ASK || t == WIRE_QUICK ? SCRIPT_SECURE | SCRIPT_IDENT :
				         wire_before_join(t) ? SCRIPT_SECURE : SCRIPT_JOIN;
				if (script_add(s, &n, sizeof s, 4, &m) != 0)
					continue;
				snprintf(name, sizeof name, "%s-%llu", wire_name(t), (unsigned long long)seed);
				put(dir, side ? "fuzz_server" : "fuzz_client", name, s, n);
			}
		}
	}
	{
		/* In clear: a HELLO for the server (a real Noise message 1), a CHALLENGE for the client (whose
		 * Noise message 2 does not verify); and, after the join, a record forged without the key. */
		static struct pconn c;
		static uint8_t out[PCONN_FRAME_MAX];
		static const uint8_t forged[] = { 0x00, 0x20, 0x08, 0x03, 0x01, 0x00 };
		uint8_t salt[PROTO_PW_SALT_LEN] = { 0 };
		size_t len;
		int hl;

		pconn_init(&c, PCONN_CLIENT);
		pconn_set_ephemeral(&c, e_fixed);
		wire_hello_init(&m);
		if (pconn_send(&c, &m, out, sizeof out, &len, NULL) == 0) {
			n = 0;
			s[n++] = 0;
			script_bytes(s, &n, sizeof s, 4, out, len);
			put(dir, "fuzz_server", "clear-hello", s, n);
		}
		pconn_finish(&c);
		wire_challenge_init(&m, salt, false);
		memset(m.u.challenge.noise, 0x5a, sizeof m.u.challenge.noise);
		if (wire_encode(&m, out + PROTO_HEADER_MAX, sizeof out - PROTO_HEADER_MAX, &len, NULL) == 0 &&
		    (hl = frame_header(out, WIRE_CHALLENGE, false, len)) > 0) {
			memmove(out + hl, out + PROTO_HEADER_MAX, len);
			n = 0;
			s[n++] = 0;
			script_bytes(s, &n, sizeof s, 4, out, (size_t)hl + len);
			put(dir, "fuzz_client", "clear-challenge", s, n);
		}
		for (int side = 0; side < 2; side++) {
			n = 0;
			s[n++] = SCRIPT_JOIN;
			script_bytes(s, &n, sizeof s, SCRIPT_RAW | 4, forged, sizeof forged);
			put(dir, side ? "fuzz_server" : "fuzz_client", "forged-record", s, n);
		}
	}
	/* A cluster's node whose room is moving, before a WELCOME: ERROR MOVING, not fatal; the client
	 * asks again in a moment (net__moving). */
	n = 0;
	s[n++] = SCRIPT_SECURE;
	wire_error_init(&m, PERR_MOVING, false,
	                "room duel-1 is moving to another node (its node stopped answering): ask again in a moment");
	if (script_add(s, &n, sizeof s, 4, &m) == 0)
		put(dir, "fuzz_client", "moving", s, n);
	n = 0;
	s[n++] = SCRIPT_JOIN;
	memset(&m, 0, sizeof m);
	m.type = WIRE_READY;
	m.u.ready.ready = true;
	script_add(s, &n, sizeof s, 0, &m);
	script_add(s, &n, sizeof s, 1 | 8, &m);
	for (int k = 0; k < 12; k++) {
		m.type = WIRE_CMD;
		m.u.cmd = (struct cmd){ k % 3 == 2 ? CMD_PASS : CMD_STEP, 0, (uint8_t)(1 + k % 8) };
		script_add(s, &n, sizeof s, k & 1, &m);
	}
	put(dir, "fuzz_server", "duel", s, n);
	/* Both peers ask QUICK with the same options: the harness's wave after the second pairs them. */
	n = 0;
	s[n++] = SCRIPT_SECURE | SCRIPT_IDENT;
	memset(&m, 0, sizeof m);
	m.type = WIRE_QUICK;
	options_default(&m.u.quick.opt);
	m.u.quick.wait = 30;
	script_add(s, &n, sizeof s, 0, &m);
	script_add(s, &n, sizeof s, 1 | (7 << 2), &m);
	m.type = WIRE_HEARTBEAT;
	script_add(s, &n, sizeof s, 0 | (7 << 2), &m);
	put(dir, "fuzz_server", "quick-pair", s, n);
}

/* fuzz_turnlog's seeds: whole duels of two bots written as a server writes their logs (the header,
 * each command, each turn's hash, a chat line, the end), on each board size; and one cut inside a
 * line, as a host killed mid-write leaves it. */
static void
turnlog_seeds(const char *dir)
{
	static struct game g;
	static char log[1 << 20];
	static const int sizes[] = { 15, 25, 51 };

	for (int k = 0; k < 3; k++) {
		struct options opt;
		struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 7u + (uint64_t)k, { "ann", "bob" } };
		struct bot_mind mind[PLAYERS];
		struct rng rng[PLAYERS];
		struct events ev;
		struct view v;
		struct cmd c;
		size_t n = 0;
		int w;
		char name[32];

		options_default(&opt);
		opt.size = (uint8_t)sizes[k];
		h.opt = opt;
		if (game_init(&g, &opt, h.seed) != ERR_OK || (w = turnlog_format_header(&h, game_hash(&g), log, sizeof log)) < 0)
			exit(1);
		n = (size_t)w;
		for (int p = 0; p < PLAYERS; p++) {
			rng_seed(&rng[p], h.seed * 2 + (uint64_t)p);
			mind_reset(&mind[p]);
		}
		for (int moves = 0; g.result == RESULT_NONE && moves < 400; moves++) {
			int p = g.turn;
			view_build(&g, p, &v);
			bot_choose_mind(&v, p ? BOT_RANDOM : BOT_EASY, &rng[p], &mind[p], &c);
			if (game_apply(&g, p, &c, &ev) != ERR_OK) {
				c = (struct cmd){ CMD_PASS, 0, 0 };
				if (game_apply(&g, p, &c, &ev) != ERR_OK)
					exit(1);
			}
			if (n + 3 * TURNLOG_LINE_MAX > sizeof log || (w = turnlog_format_cmd(p, &c, log + n, sizeof log - n)) < 0)
				exit(1);
			n += (size_t)w;
			if (ev.turn_ended && (w = turnlog_format_hash(g.turn_no, game_hash(&g), log + n, sizeof log - n)) > 0)
				n += (size_t)w;
			if (moves == 3 && (w = turnlog_format_chat(1, "gg \xe2\x9c\xa8 well met", log + n, sizeof log - n)) > 0)
				n += (size_t)w;
		}
		if (g.result != RESULT_NONE && (w = turnlog_format_end(&g, log + n, sizeof log - n)) > 0)
			n += (size_t)w;
		snprintf(name, sizeof name, "duel-%d", sizes[k]);
		put(dir, "fuzz_turnlog", name, (const uint8_t *)log, n);
		if (k == 1) {
			snprintf(name, sizeof name, "torn-%d", sizes[k]);
			put(dir, "fuzz_turnlog", name, (const uint8_t *)log, n * 2 / 3);
		}
	}
}

/* fuzz_lan's seeds: announcements as a host and a server make them (lan_txt_make), in fuzz_lan's format:
 * a port byte, then the instance, the host and the TXT strings, each after its length byte. */
static void
lan_seeds(const char *dir)
{
	static const struct lan_info ads[] = {
		{ false, "alice", 7727, true, true, "abcdefghijklmnopqrstuvwxyz" },
		{ true, "box \xc3\xa9t\xc3\xa9", 7727, false, false, "234567abcdefghijklmnopqrst" },
	};
	for (size_t a = 0; a < sizeof ads / sizeof ads[0]; a++) {
		uint8_t in[600];
		char buf[512], name[16];
		const char *kv[8];
		size_t n = lan_txt_make(&ads[a], buf, sizeof buf, kv), at = 0;
		const char *strs[10] = { ads[a].name, "box.local" };

		in[at++] = 28; /* port 7365 */
		for (size_t i = 0; i < n; i++)
			strs[2 + i] = kv[i];
		for (size_t i = 0; i < n + 2; i++) {
			size_t l = strlen(strs[i]);
			in[at++] = (uint8_t)l;
			memcpy(in + at, strs[i], l);
			at += l;
		}
		snprintf(name, sizeof name, "ad-%zu", a);
		put(dir, "fuzz_lan", name, in, at);
	}
}

/* fuzz_keys's seeds: keys.conf texts using every kind of line and of key name (docs/keys.md). */
static void
keys_seeds(const char *dir)
{
	static const char *const confs[] = {
		"# mine\npreset vi\nmerge arrows\nbind cast-1 M-w \xc3\xa9 0x2ff\nclear log-up\nbind quit ^X hash space\n",
		("clear all\nbind move-n    8 KEY_UP                 # move north; from preset numpad\n"
		 "bind drink     5 KEY_B2\nunbind KEY_B2 ^?\nbind look ; KEY_F(5) M-KEY_LEFT\n"),
		"preset arrows\r\nbind chat KEY_ENTER ^M\r\nclear cast-1 cast-2\nbind nonsense x\nbind cast-3\n",
	};
	char name[16];

	for (size_t i = 0; i < sizeof confs / sizeof confs[0]; i++) {
		snprintf(name, sizeof name, "conf-%zu", i);
		put(dir, "fuzz_keys", name, (const uint8_t *)confs[i], strlen(confs[i]));
	}
}

int
main(int argc, char **argv)
{
	static uint8_t buf[PROTO_PAYLOAD_MAX + 1], stream[4][PCONN_FRAME_MAX * 4];
	static struct wire_msg m;
	static struct pconn srv, cli;
	static const char *const codes[] = {
		"\0zzzzzzzzzzzzzzzzzzzzi", "\0cBaA12Z", "\1h7f,aa12b,ay50z", "\1a0a", "\2Merlin", "\5hi \xf0\x9f\x99\x82",
		"\4duel-1", ("\2\xe2\x80\xae" "evil"), "\5a\x1b[2J",
	};
	size_t slen[4] = { 0 };
	char name[64];

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	/* Streams as each side receives them: in clear (HELLO to a server, CHALLENGE to a
	 * client), and inside records before and after the join (fuzz_pconn's format: a
	 * control byte, then each record's plaintext with a u16 length). */
	pconn_init(&srv, PCONN_SERVER);
	pconn_init(&cli, PCONN_CLIENT);
	stream[0][slen[0]++] = 0x02 | (7 << 3);  /* client receiving records, not joined */
	stream[1][slen[1]++] = 0x03 | (7 << 3);  /* server receiving records, not joined */
	stream[2][slen[2]++] = 0x06 | (15 << 3); /* client receiving records, joined */
	stream[3][slen[3]++] = 0x07 | (15 << 3); /* server receiving records, joined */
	{
		struct proto_err e;
		if (sample_handshake(&srv, &cli, &e) != 0)
			return 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < sample_ntypes; i++) {
			int t = sample_types[i];

			for (uint64_t seed = 0; seed < 3; seed++) {
				size_t len;
				int dir = wire_dir(t);

				if (sample_msg(t, seed, &m) != 0 || wire_encode(&m, buf + 1, sizeof buf - 1, &len, NULL) != 0)
					return 1;
				if (pass == 0) {
					buf[0] = (uint8_t)t;
					snprintf(name, sizeof name, "%s-%llu", wire_name(t), (unsigned long long)seed);
					put(argv[1], "fuzz_decode", name, buf, len + 1);
				}
				if (pass == 0 && t == WIRE_ROOMS) {
					/* A node's open rooms on the channel (fuzz_xmsg): "open ID " then the payload. */
					static uint8_t line[sizeof "open " + 26 + PROTO_PAYLOAD_MAX];
					memcpy(line, "open abcdefghijklmnopqrstuvwxyz ", 32);
					memcpy(line + 32, buf + 1, len);
					snprintf(name, sizeof name, "open-%llu", (unsigned long long)seed);
					put(argv[1], "fuzz_xmsg", name, line, 32 + len);
				}
				if (t == WIRE_HELLO || t == WIRE_CHALLENGE)
					continue; /* in clear only: the clear seeds below */
				if (!!wire_before_join(t) != (pass == 0) && !(pass == 1 && wire_before_join(t) && seed == 0))
					continue;
				if (t == WIRE_WELCOME && pass == 0)
					continue; /* keep the first streams before the join */
				for (int side = 0; side < 2; side++) {
					struct pconn *tx = side ? &cli : &srv;
					static uint8_t out[PCONN_FRAME_MAX];
					size_t flen;
					int k = side + 2 * pass;

					if (!(dir & (side ? WIRE_C2S : WIRE_S2C)))
						continue;
					if (t == WIRE_CHAT)
						m.u.chat.from = side ? CHAT_FROM_CLIENT : 0;
					tx->joined = pass == 1;
					pconn_cork(tx);
					if (pconn_send(tx, &m, out, sizeof out, &flen, NULL) != 0 ||
					    slen[k] + 2 + tx->ob_len > sizeof stream[k]) {
						pconn_flush(tx, out, sizeof out, &flen, NULL);
						continue;
					}
					stream[k][slen[k]++] = (uint8_t)(tx->ob_len >> 8);
					stream[k][slen[k]++] = (uint8_t)tx->ob_len;
					memcpy(stream[k] + slen[k], tx->ob, tx->ob_len);
					slen[k] += tx->ob_len;
					pconn_flush(tx, out, sizeof out, &flen, NULL);
				}
			}
		}
	}
	{
		/* In clear: a HELLO for a server, a CHALLENGE for a client. */
		static struct pconn s2, c2;
		static uint8_t out[PCONN_FRAME_MAX];
		size_t n;
		uint8_t salt[PROTO_PW_SALT_LEN] = { 0 }, hello[256];

		pconn_init(&s2, PCONN_SERVER);
		pconn_init(&c2, PCONN_CLIENT);
		wire_hello_init(&m);
		pconn_send(&c2, &m, out, sizeof out, &n, NULL);
		hello[0] = 0x01 | (3 << 3);
		memcpy(hello + 1, out, n);
		put(argv[1], "fuzz_pconn", "clear-hello", hello, n + 1);
		wire_challenge_init(&m, salt, true);
		memset(m.u.challenge.noise, 0x5a, sizeof m.u.challenge.noise);
		wire_encode(&m, buf + 3, sizeof buf - 3, &n, NULL);
		buf[0] = 0x00 | (3 << 3);
		buf[1] = WIRE_CHALLENGE;
		buf[2] = (uint8_t)n;
		put(argv[1], "fuzz_pconn", "clear-challenge", buf, n + 3);
		pconn_finish(&s2);
		pconn_finish(&c2);
		/* fuzz_noise: each kind of message, of the right length. */
		memset(buf, 0x33, 200);
		buf[0] = 0;
		put(argv[1], "fuzz_noise", "msg1", buf, 1 + NOISE_MSG1_LEN);
		buf[0] = 1;
		put(argv[1], "fuzz_noise", "msg2", buf, 1 + WIRE_CHALLENGE_NOISE);
		buf[0] = 2;
		put(argv[1], "fuzz_noise", "record", buf, 1 + 40);
		/* fuzz_ident: a selector, a hash and a real IDENT signed over it; the same over another hash; short,
		 * long. Then KEYS: a pin and a real rotation signed by it; over another hash; short, long. */
		{
			struct auth_ident id;
			uint8_t seed[AUTH_IDENT_SEED_LEN], in[1 + PROTO_HASH_LEN + PROTO_IDENT_KEY_LEN + PROTO_IDENT_SIG_LEN + 1];
			auth_init();
			memset(seed, 0x29, sizeof seed);
			auth_ident_from_seed(&id, seed);
			in[0] = 0;
			memset(in + 1, 0x61, PROTO_HASH_LEN);
			memcpy(in + 1 + PROTO_HASH_LEN, id.pk, PROTO_IDENT_KEY_LEN);
			auth_ident_sign(&id, in + 1, in + 1 + PROTO_HASH_LEN + PROTO_IDENT_KEY_LEN);
			put(argv[1], "fuzz_ident", "signed", in, sizeof in - 1);
			in[1] ^= 1;
			put(argv[1], "fuzz_ident", "other-hash", in, sizeof in - 1);
			put(argv[1], "fuzz_ident", "short", in, sizeof in - 2);
			put(argv[1], "fuzz_ident", "long", in, sizeof in);
		}
		{
			struct noise_keypair old;
			uint8_t sk[NOISE_KEY_LEN], in[1 + PROTO_HASH_LEN + PROTO_KEY_LEN + 136 + 1], *k;
			uint64_t until = 1800000000;
			memset(sk, 0x35, sizeof sk);
			noise_keypair_from(&old, sk);
			in[0] = 1;
			memset(in + 1, 0x62, PROTO_HASH_LEN);
			memcpy(in + 1 + PROTO_HASH_LEN, old.pk, PROTO_KEY_LEN);
			k = in + 1 + PROTO_HASH_LEN + PROTO_KEY_LEN; /* KEYS: old_ed, new key, until, sig */
			memset(k + 32, 0x47, 32);
			for (int i = 0; i < 8; i++)
				k[64 + i] = (uint8_t)(until >> (56 - 8 * i));
			auth_rotate_sign(&old, in + 1, k + 32, until, k, k + 72);
			put(argv[1], "fuzz_ident", "keys-signed", in, sizeof in - 1);
			in[1] ^= 1;
			put(argv[1], "fuzz_ident", "keys-other-hash", in, sizeof in - 1);
			put(argv[1], "fuzz_ident", "keys-short", in, sizeof in - 2);
			put(argv[1], "fuzz_ident", "keys-long", in, sizeof in);
		}
		{
			/* A client's records file (selector 2): the server's X25519 key in the hash's first half,
			 * then the file: its header and one record signed by that key, as recstore_save writes. */
			static uint8_t file[1 + PROTO_HASH_LEN + 200 + 2 * (32 + 1 + 2 * RATED_SIGNED_LEN)];
			uint8_t sk[32], pk[32], signer[RATED_SIGNER_LEN], rec[RATED_SIGNED_LEN];
			struct rated_rec r;
			size_t len = 0;
			for (int i = 0; i < 32; i++)
				sk[i] = (uint8_t)(i + 1);
			crypto_scalarmult_base(pk, sk);
			rated_signer(sk, signer);
			memset(&r, 0, sizeof r);
			r.time = 1800000000;
			memset(r.commit, 0xc0, sizeof r.commit);
			memset(r.key[0], 0xa0, sizeof r.key[0]);
			memset(r.key[1], 0xb1, sizeof r.key[1]);
			for (int p = 0; p < 2; p++)
				r.before[p] = r.after[p] = (struct rated_rating){ 1500, 500, 0.09 };
			r.reason = 1;
			rated_sign(&r, sk);
			rated_put(&r, rec);
			file[len++] = 2;
			memcpy(file + len, pk, 32);
			memset(file + len + 32, 0x63, PROTO_HASH_LEN - 32);
			len += PROTO_HASH_LEN;
			len += (size_t)sprintf((char *)file + len, "wizwar-records-1 ");
			for (int i = 0; i < 32; i++)
				len += (size_t)sprintf((char *)file + len, "%02x", pk[i]);
			file[len++] = '\n';
			for (int i = 0; i < RATED_SIGNER_LEN; i++)
				len += (size_t)sprintf((char *)file + len, "%02x", signer[i]);
			file[len++] = ' ';
			for (int i = 0; i < RATED_SIGNED_LEN; i++)
				len += (size_t)sprintf((char *)file + len, "%02x", rec[i]);
			file[len++] = '\n';
			put(argv[1], "fuzz_ident", "records", file, len);
			put(argv[1], "fuzz_ident", "records-cut", file, len - 7);
		}
	}
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof name, "stream-%d", k);
		put(argv[1], "fuzz_pconn", name, stream[k], slen[k]);
	}
	pconn_finish(&srv);
	pconn_finish(&cli);
	scripts(argv[1]);
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		snprintf(name, sizeof name, "code-%zu", i);
		put(argv[1], "fuzz_codes", name, (const uint8_t *)codes[i], 1 + strlen(codes[i] + 1));
	}
	proxy_seeds(argv[1]);
	turnlog_seeds(argv[1]);
	lan_seeds(argv[1]);
	keys_seeds(argv[1]);
	return 0;
}
