/* SPDX-License-Identifier: MIT */
/* Tests for wire and pconn: every message round trips, every error path answers, and connections follow the handshake. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pconn.h"
#include "samples.h"
#include "wire.h"

static uint8_t buf[PROTO_PAYLOAD_MAX + 16], buf2[PROTO_PAYLOAD_MAX + 16];

static struct wire_msg *
msg_new(void)
{
	struct wire_msg *m = calloc(1, sizeof *m);

	cr_assert(m);
	return m;
}

Test(wire, list_is_consistent)
{
	for (int i = 0; i < sample_ntypes; i++) {
		int t = sample_types[i];

		cr_assert(wire_known(t));
		cr_assert(t > 0 && t < 0x80, "one byte with the deflate bit free");
		cr_assert(wire_min(t) <= wire_max(t));
		cr_assert(wire_max(t) <= PROTO_PAYLOAD_MAX);
		/* Nothing is deflated before a join: what may cross then must fit one frame as it is
		 * (RECORDS's page of 100 did not, and a long history could not be sent; 54, a signer each, does). */
		if (wire_before_join(t))
			cr_assert(wire_max(t) <= PROTO_FRAME_MAX, "%s: at most %zu bytes before a join, never deflated",
			          wire_name(t), wire_max(t));
		cr_assert(wire_dir(t) >= WIRE_C2S && wire_dir(t) <= WIRE_BOTH);
		cr_assert_str_neq(wire_name(t), "?");
		/* Ranges: 1x handshake, 2x lobby, 3x game, 4x control, 5x spectators, 6x rooms and
		 * ratings, 7x cluster. */
		cr_assert(t >> 4 >= 1 && t >> 4 <= 7);
	}
	cr_assert(!wire_known(0) && !wire_known(0x7f) && !wire_known(-1) && !wire_known(300));
	cr_assert_str_eq(wire_name(0x7f), "?");
	cr_assert_eq(wire_max(0x7f), 0);
	cr_assert_str_eq(bye_text(BYE_QUIT), "quit");
	cr_assert_str_eq(bye_text(BYE_COUNT), "?");
	cr_assert_str_eq(proto_strerror(PERR_VERSION), "protocol version mismatch");
	cr_assert_str_eq(proto_strerror(PERR_REFUSED_BASE + 3), "command refused");
	cr_assert_str_eq(proto_strerror(-5), "unknown error");
}

/* encode -> decode gives the same struct, and encoding that gives the same bytes. */
Test(wire, every_message_round_trips, .timeout = 120)
{
	struct wire_msg *m = msg_new(), *d = msg_new();
	int count = 0;

	for (int i = 0; i < sample_ntypes; i++)
		for (uint64_t seed = 0; seed < 24; seed++) {
			int t = sample_types[i];
			struct proto_err e = { 0 };
			size_t len, len2;

			cr_assert_eq(sample_msg(t, seed, m), 0);
			cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0, "%s seed %llu: %s", wire_name(t),
			             (unsigned long long)seed, e.why);
			/* Garbage first: the decoder must set every byte of its type's member, and
			 * leave the rest of the struct (another type's member) as it was. */
			size_t n = wire_decoded_size(t);
			memset(d, 0xa5, sizeof *d);
			cr_assert_eq(wire_decode(t, buf, len, d, &e), 0, "%s: %s", wire_name(t), e.why);
			cr_assert(n > 0 && n <= sizeof *d);
			for (size_t k = n; k < sizeof *d; k++)
				cr_assert_eq(((uint8_t *)d)[k], 0xa5, "%s: byte %zu past its member was written", wire_name(t), k);
			memset((uint8_t *)d + n, 0, sizeof *d - n); /* as the sample, made in a zeroed struct */
			if (memcmp(m, d, sizeof *m)) {
				size_t at = 0;

				while (((uint8_t *)m)[at] == ((uint8_t *)d)[at])
					at++;
				cr_assert_fail("%s seed %llu: decoded differs at byte %zu", wire_name(t), (unsigned long long)seed, at);
			}
			cr_assert_eq(wire_encode(d, buf2, sizeof buf2, &len2, &e), 0);
			cr_assert(len == len2 && memcmp(buf, buf2, len) == 0);
			count++;
		}
	cr_assert_eq(sample_msg(0x7f, 0, m), -1);
	cr_log_info("%d messages of %d types", count, sample_ntypes);
	free(m);
	free(d);
}

/* Every prefix of every message is refused, and so is every message with a byte more. */
Test(wire, truncated_and_trailing_refused, .timeout = 120)
{
	struct wire_msg *m = msg_new(), *d = msg_new();

	for (int i = 0; i < sample_ntypes; i++)
		for (uint64_t seed = 0; seed < 4; seed++) {
			int t = sample_types[i];
			struct proto_err e;
			size_t len;

			cr_assert_eq(sample_msg(t, seed, m), 0);
			cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, NULL), 0);
			for (size_t cut = 0; cut < len; cut += 1 + cut / 64) {
				if (t == WIRE_LOG_CHUNK && cut > 1)
					break; /* a chunk's data runs to the end: a shorter one is a shorter chunk */
				if (t == WIRE_HELLO && m->u.hello.has_hint && cut == len - PROTO_KEY_HINT_LEN)
					continue; /* the hint is optional: without it, a HELLO of first contact */
				cr_assert_eq(wire_decode(t, buf, cut, d, &e), PROTO_BROKEN, "%s cut %zu/%zu", wire_name(t), cut, len);
				cr_assert(e.code != PERR_OK);
			}
			buf[len] = 0;
			if (t == WIRE_LOG_CHUNK && len < wire_max(t))
				continue; /* a chunk's data runs to the end: a byte more is a longer chunk */
			cr_assert_eq(wire_decode(t, buf, len + 1, d, &e), PROTO_BROKEN, "%s + 1 byte", wire_name(t));
			cr_assert(e.code == PERR_TRAILING || e.code == PERR_FRAME_SIZE || e.code == PERR_TEXT, "%s: %d %s",
			          wire_name(t), e.code, e.why);
		}
	free(m);
	free(d);
}

static void
refused(int type, const uint8_t *p, size_t len, int code, int line)
{
	struct wire_msg *d = msg_new();
	struct proto_err e = { 0 };

	cr_assert_eq(wire_decode(type, p, len, d, &e), PROTO_BROKEN, "line %d: %s accepted", line, wire_name(type));
	cr_assert_eq(e.code, code, "line %d: %s: code %d (%s), want %d", line, wire_name(type), e.code, e.why, code);
	free(d);
}

#define REFUSED(type, code, ...) do { \
	const uint8_t bytes_[] = { __VA_ARGS__ }; \
	refused(type, bytes_, sizeof bytes_, code, __LINE__); \
} while (0)

#define Z8 0, 0, 0, 0, 0, 0, 0, 0
#define Z32 Z8, Z8, Z8, Z8 /* a part or a commitment of zeros */
#define MAGIC 0x57, 0x5a, 0x57, 0x52
/* A value of 128 to 16,383 as the two bytes of its varint (docs/protocol.md). */
#define VARINT2(v) (0x80 | ((v) & 0x7f)), ((v) >> 7)
_Static_assert(HANDLER_COUNT >= 7 && HANDLER_COUNT <= 13, "VARINT2 holds 1 << HANDLER_COUNT");
#define VERSIONS 0x00, PROTO_VERSION, 0x00, RULES_VERSION

Test(wire, handshake_refusals)
{
	struct wire_msg *d = msg_new();
	struct proto_err e;
	const uint8_t v2[] = { MAGIC, 0x00, PROTO_VERSION + 1, 0x00, RULES_VERSION, 0xde, 0xad };
	char want[64];

	/* Another version is named with ours, even when the rest of HELLO would not parse. */
	cr_assert_eq(wire_decode(WIRE_HELLO, v2, sizeof v2, d, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_VERSION);
	snprintf(want, sizeof want, "protocol version %d here, %d there", PROTO_VERSION, PROTO_VERSION + 1);
	cr_assert(strstr(e.why, want), "%s", e.why);
	/* And the version before: its WELCOME had no hold nor grace, so its peers are refused at HELLO. */
	{
		const uint8_t v_old[] = { MAGIC, 0x00, PROTO_VERSION - 1, 0x00, RULES_VERSION, [40] = 0 };

		cr_assert_eq(wire_decode(WIRE_HELLO, v_old, sizeof v_old, d, &e), PROTO_BROKEN);
		cr_assert_eq(e.code, PERR_VERSION);
		snprintf(want, sizeof want, "protocol version %d here, %d there", PROTO_VERSION, PROTO_VERSION - 1);
		cr_assert(strstr(e.why, want), "%s", e.why);
	}
	REFUSED(WIRE_HELLO, PERR_RULES, MAGIC, 0x00, PROTO_VERSION, 0x00, RULES_VERSION + 1, 0, 1, 'a', 1, 'b');
	REFUSED(WIRE_HELLO, PERR_MAGIC, 'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P');
	REFUSED(WIRE_CHALLENGE, PERR_VERSION, MAGIC, 0x01, 0x00, VERSIONS);
	REFUSED(WIRE_AUTH, PERR_RANGE, 3, 1, 'a', 1, 'b', [36] = 0);              /* role */
	REFUSED(WIRE_AUTH, PERR_TEXT, 0, 3, 'a', 0x1b, 'b', 1, 'r', [38] = 0);    /* ESC in a name */
	REFUSED(WIRE_AUTH, PERR_TEXT, 0, 0, 1, 'r', [36] = 0);                    /* empty name */
	REFUSED(WIRE_AUTH, PERR_TEXT, 0, 1, 'a', 2, 'r', '!', [37] = 0);          /* room */
	REFUSED(WIRE_AUTH, PERR_TRUNCATED, 0, 60, 'a', [36] = 0);                /* a name past the end */
	REFUSED(WIRE_AUTH, PERR_TRAILING, 0, 1, 'a', 1, 'r', [37] = 0);
	REFUSED(WIRE_HELLO, PERR_TRUNCATED, MAGIC, VERSIONS, 1, 2, 3);            /* half an ephemeral key */
	REFUSED(WIRE_HELLO, PERR_TRAILING, MAGIC, VERSIONS, [40] = 0);
	REFUSED(WIRE_HELLO, PERR_FRAME_SIZE, MAGIC, 0, 1);
	REFUSED(WIRE_CHALLENGE, PERR_TRUNCATED, MAGIC, VERSIONS, [100] = 0);
	{
		struct wire_challenge c;
		uint8_t secret[WIRE_CHALLENGE_SECRET] = { 2 };

		cr_assert_eq(wire_challenge_secret_get(&c, secret, sizeof secret, &e), PROTO_BROKEN); /* unknown flag */
		cr_assert_eq(e.code, PERR_RANGE);
		cr_assert_eq(wire_challenge_secret_get(&c, secret, sizeof secret - 1, &e), PROTO_BROKEN);
		secret[0] = 1;
		secret[1] = 0xab;
		cr_assert_eq(wire_challenge_secret_get(&c, secret, sizeof secret, &e), 0);
		cr_assert(c.password && c.salt[0] == 0xab);
	}
	{
		uint8_t w[23] = { 2, 0, 16, [19] = 0, 30, 0, 120 }; /* held 30 s in the lobby, 120 s in a duel */

		refused(WIRE_WELCOME, w, sizeof w, PERR_RANGE, __LINE__); /* player 2 */
		w[0] = 0;
		w[1] = 4;
		refused(WIRE_WELCOME, w, sizeof w, PERR_RANGE, __LINE__); /* flags: bit 0 controller, bit 1 names owned */
		w[1] = 0;
		w[2] = 15;
		refused(WIRE_WELCOME, w, sizeof w, PERR_RANGE, __LINE__); /* token too short */
		w[2] = 17;
		refused(WIRE_WELCOME, w, sizeof w, PERR_TRUNCATED, __LINE__);
	}
	{
		uint8_t r[54] = { 0, 1, 'a', 1, 'r', 15 };

		refused(WIRE_RESUME, r, sizeof r, PERR_RANGE, __LINE__);
	}
	free(d);
}

/* WELCOME ends with the server's lobby hold and duel grace (u16 seconds each): every figure a
 * server may hold a seat for round trips, and a decoder refuses what no server sends. */
Test(wire, welcome_carries_the_servers_hold_and_grace)
{
	struct wire_msg *m = msg_new(), *d = msg_new();
	struct proto_err e = { 0 };
	const uint16_t figures[][2] = { { 30, 120 }, { 0, 1 }, { 1, 1 }, { 0, PROTO_HOLD_MAX }, { PROTO_HOLD_MAX, PROTO_HOLD_MAX },
	                                { 600, 3600 } };
	uint8_t w[3 + PROTO_TOKEN_MAX + 5] = { 1, 0, PROTO_TOKEN_MIN };
	size_t len;

	for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
		sample_msg(WIRE_WELCOME, i, m);
		m->u.welcome.hold = figures[i][0];
		m->u.welcome.grace = figures[i][1];
		cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0, "%s", e.why);
		cr_assert_eq(len, 3u + m->u.welcome.token_len + 4, "two u16 after the token");
		cr_assert_eq(buf[len - 4] << 8 | buf[len - 3], figures[i][0], "the hold, big-endian");
		cr_assert_eq(buf[len - 2] << 8 | buf[len - 1], figures[i][1], "then the grace");
		cr_assert_eq(wire_decode(WIRE_WELCOME, buf, len, d, &e), 0, "%s", e.why);
		cr_assert_eq(d->u.welcome.hold, figures[i][0]);
		cr_assert_eq(d->u.welcome.grace, figures[i][1]);
	}
	/* A 16-byte token, held 30 s in the lobby and 120 s in a duel: 23 bytes. */
	w[19] = 0x00, w[20] = 0x1e, w[21] = 0x00, w[22] = 0x78;
	cr_assert_eq(wire_decode(WIRE_WELCOME, w, 23, d, &e), 0, "%s", e.why);
	cr_assert(d->u.welcome.hold == 30 && d->u.welcome.grace == 120);
	/* Since protocol 7 a WELCOME may be 7 bytes (a spectator's: no token), so these are short
	 * inside the frame's limits rather than outside them. */
	refused(WIRE_WELCOME, w, 19, PERR_TRUNCATED, __LINE__);   /* a version 4 WELCOME: no figures */
	refused(WIRE_WELCOME, w, 21, PERR_TRUNCATED, __LINE__);   /* the hold without the grace */
	refused(WIRE_WELCOME, w, 24, PERR_TRAILING, __LINE__);    /* a byte after the grace */
	w[21] = w[22] = 0;
	refused(WIRE_WELCOME, w, 23, PERR_RANGE, __LINE__);       /* grace 0: a seat forfeit as it drops */
	w[22] = 29;
	refused(WIRE_WELCOME, w, 23, PERR_RANGE, __LINE__);       /* held longer in the lobby than in a duel */
	w[22] = 30;
	cr_assert_eq(wire_decode(WIRE_WELCOME, w, 23, d, &e), 0, "as long as the grace: %s", e.why);
	/* With a 32-byte token the lengths a shorter token would take are truncated, not too short. */
	w[2] = PROTO_TOKEN_MAX;
	refused(WIRE_WELCOME, w, 3 + PROTO_TOKEN_MAX, PERR_TRUNCATED, __LINE__);
	refused(WIRE_WELCOME, w, 3 + PROTO_TOKEN_MAX + 2, PERR_TRUNCATED, __LINE__);
	refused(WIRE_WELCOME, w, 3 + PROTO_TOKEN_MAX + 5, PERR_FRAME_SIZE, __LINE__); /* past the most */
	/* The encoder refuses what the decoder would. */
	sample_msg(WIRE_WELCOME, 0, m);
	m->u.welcome.grace = 0;
	m->u.welcome.hold = 0;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	m->u.welcome.grace = 10;
	m->u.welcome.hold = 11;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	free(m);
	free(d);
}

Test(wire, lobby_and_game_refusals)
{
	REFUSED(WIRE_OPTIONS, PERR_RANGE, 24, 1, 0, 0);       /* even size */
	REFUSED(WIRE_OPTIONS, PERR_RANGE, 13, 1, 0, 0);       /* too small */
	REFUSED(WIRE_OPTIONS, PERR_RANGE, 53, 1, 0, 0);       /* too large */
	REFUSED(WIRE_OPTIONS, PERR_RANGE, 25, 4, 0, 0);       /* unknown flag */
	REFUSED(WIRE_OPTIONS, PERR_RANGE, 25, 3, 0x0e, 0x11); /* 3601 seconds */
	REFUSED(WIRE_OPTIONS, PERR_FRAME_SIZE, 25, 3, 0);
	REFUSED(WIRE_READY, PERR_RANGE, 2);
	REFUSED(WIRE_READY, PERR_TRUNCATED, 1);         /* READY 1 without its part */
	REFUSED(WIRE_READY, PERR_TRAILING, 0, Z32);     /* READY 0 carries no part */
	REFUSED(WIRE_CONTROL, PERR_FRAME_SIZE, 0);
	REFUSED(WIRE_REMATCH, PERR_RANGE, 2, Z32);      /* 0 plain, 1 mirror */
	REFUSED(WIRE_REMATCH, PERR_FRAME_SIZE, 1);      /* no part */
	REFUSED(WIRE_REMATCH, PERR_FRAME_SIZE, 1, Z32, 0);
	REFUSED(WIRE_LOBBY, PERR_RANGE, 25, 3, 0, 0, 2, 1, 0, 0, 0, 0, Z32, 1, 'a', 0);     /* controller 2 */
	REFUSED(WIRE_LOBBY, PERR_RANGE, 25, 3, 0, 0, 0, 4, 0, 0, 0, 0, Z32, 1, 'a', 0);     /* player bit 2 */
	REFUSED(WIRE_LOBBY, PERR_RANGE, 25, 3, 0, 0, 0, 1, 0, 0, 0, 4, Z32, 1, 'a', 0);     /* parts bit 2 */
	REFUSED(WIRE_LOBBY, PERR_RANGE, 25, 3, 0, 0, 0, 1, 0, 0, 0, 0, Z32, 1, 'a', 1, 'b'); /* name of an absent player */
	REFUSED(WIRE_LOBBY, PERR_TEXT, 25, 3, 0, 0, 0, 1, 0, 0, 0, 0, Z32, 0, 0);           /* no name for a present one */
	REFUSED(WIRE_CMD, PERR_RANGE, 0x07);       /* type 7 */
	REFUSED(WIRE_CMD, PERR_RANGE, 0x28);       /* direction 5 */
	REFUSED(WIRE_CMD, PERR_RANGE, 0x50);       /* direction 10 */
	REFUSED(WIRE_CMD, PERR_RANGE, 0x81, 0x00); /* an argument of 0 is not sent */
	REFUSED(WIRE_CMD, PERR_TRUNCATED, 0x81);
	REFUSED(WIRE_CMD, PERR_TRAILING, 0x01, 0x05);
	{
		uint8_t end[119] = { 0, 1 };

		refused(WIRE_END, end, sizeof end, PERR_RANGE, __LINE__); /* no result */
		end[0] = 1;
		end[1] = 4;
		refused(WIRE_END, end, sizeof end, PERR_RANGE, __LINE__);
		end[1] = 1;
		end[42] = 4; /* parts bit 2 */
		refused(WIRE_END, end, sizeof end, PERR_RANGE, __LINE__);
		end[42] = 1;
		end[43 + 32] = 7; /* player 1's part, whose bit is clear, not zeros */
		refused(WIRE_END, end, sizeof end, PERR_RANGE, __LINE__);
		end[43 + 32] = 0;
		end[115] = 0x01; /* log of 16 MiB */
		refused(WIRE_END, end, sizeof end, PERR_RANGE, __LINE__);
		end[115] = 0;
		end[43] = 7; /* player 0's part, whose bit is set: any bytes */
		struct wire_msg *ok = msg_new();
		struct proto_err e2;
		cr_assert_eq(wire_decode(WIRE_END, end, sizeof end, ok, &e2), 0, "%s", e2.why);
		cr_assert(ok->u.end.parts == 1 && ok->u.end.part[0][0] == 7);
		free(ok);
	}
	REFUSED(WIRE_LOG_CHUNK, PERR_RANGE, 0x80, 0x80, 0x80, 0x02, 'x'); /* offset 4 MiB */
	REFUSED(WIRE_LOG_CHUNK, PERR_VARINT, 0x80, 0x00, 'x');
	REFUSED(WIRE_LOG_CHUNK, PERR_FRAME_SIZE, 0x00);
	REFUSED(WIRE_CHAT, PERR_RANGE, 2, 1, 'a');
	REFUSED(WIRE_CHAT, PERR_TEXT, 0, 1, 0x07);
	REFUSED(WIRE_CHAT, PERR_TEXT, 0, 2, 0xc3, 0x28);
	REFUSED(WIRE_CHAT, PERR_TRUNCATED, 0, 3, 'a');
	REFUSED(WIRE_ERROR, PERR_RANGE, 0, 6, 2, 0);
	REFUSED(WIRE_ERROR, PERR_TEXT, 0, 6, 0, 2, 0x1b, 'c');
	REFUSED(WIRE_BYE, PERR_RANGE, BYE_COUNT);
	REFUSED(WIRE_PEER, PERR_RANGE, 0, 3, 0, 0);
	REFUSED(WIRE_PEER, PERR_RANGE, 2, 0, 0, 0);
	REFUSED(WIRE_HEARTBEAT, PERR_FRAME_SIZE, 0);
	REFUSED(0x7f, PERR_TYPE, 0);
	REFUSED(WIRE_START, PERR_RANGE, 8, 0, 0, 0, [36] = 0);           /* flags */
	REFUSED(WIRE_START, PERR_RANGE, 0, 2, 0, 0, [36] = 0);           /* first */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x40);              /* unknown field bit */
	REFUSED(WIRE_UPDATE, PERR_VARINT, 0x80, 0x00);
	REFUSED(WIRE_UPDATE, PERR_TRUNCATED, 0x01, 0x05);               /* pos without y */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x01, 51, 0);                   /* x off any level */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x04, 0x05);                    /* visibility mode */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x04, 0x04, 2, 0xa8, 0x14, 0x00); /* corrections at 2600 and 2601: off any level */
	REFUSED(WIRE_UPDATE, PERR_TRUNCATED, 0x04, 0x04, 2, 0x00);       /* two corrections, one sent */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x04, 0x01, 0x03, 0x08);        /* square padding bits */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x04, 0x01, 0xaa, 0x01, 0, 0);  /* 170 bits: more than 13x13 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x04, 0x00, 40, 40, 12, 1, 0, 0); /* rectangle off any level */
	REFUSED(WIRE_UPDATE, PERR_LAYOUT, 0x08, 0x00, 1, 1, 2, 2, 1, 'e'); /* 5 cells in a 2x2 rectangle */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x08, 0x00, 1, 1, 2, 2, 1, 'c'); /* 3 cells: a full rectangle needs 4 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x08, 0x00, 0, 1, 2, 2, 1, 'd'); /* x 0 is the ring */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x08, 0x04, 1, 1);               /* layout mode */
	REFUSED(WIRE_UPDATE, PERR_TRUNCATED, 0x08, 0x02, 5, 'a');          /* text longer than the payload */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x10, 4, 1, 1);                  /* opponent state */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x20, 0);                        /* zero messages */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x20, 1, MSG_CAST, 0);           /* CAST carries 1 argument byte, not 0 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x20, 1, MSG_CAST, 2, 0, 0);     /* ... nor 2 */
	REFUSED(WIRE_UPDATE, PERR_TRUNCATED, 0x20, 1, 0x7f, 2, 0);        /* an unknown id's bytes past the end */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x20, 1, MSG_CAST, 1, SPELL_COUNT); /* spell argument */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x40, 3, 'a', '1', 'a');          /* effect 0 */
	REFUSED(WIRE_UPDATE, PERR_LOC, 0x40, 3, 'a', '1', '!');
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x01, 4, 0);                /* turn byte 4 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x02, SPELL_COUNT, 0, 0);   /* an offered spell past the last */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x10, 3, 'a', '1', 'g');    /* appearance 6 - 1 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x20, 1, 'B');               /* a floor on the ring */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x20, 1, 'a');               /* a ring of 1 cell */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x40, 10, 0);                /* 10 carried */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x40, 1, 1, 5);              /* appearance 5 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x01, 0, 0, 0, 0, POTION_KIND_COUNT); /* a kind past the last */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x02, VARINT2(1u << HANDLER_COUNT)); /* an intrinsic bit past the last */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x04, 0x01, 0);        /* turns_left 0 sent */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x08, 4, 0);           /* result 4 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x10, 25, 4);          /* option flags */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x10, 26, 3);          /* size 26 */
	REFUSED(WIRE_UPDATE, PERR_RANGE, 0x80, 0x80, 0x20, 2);              /* me 2 */
}

/* Open rooms and pairing (0x60..0x63): every field bounded, one encoding each. */
Test(wire, rooms_and_pairing_refusals)
{
	/* A ROOMS entry: code "ab", name "Zed", rating 1500, 25 with both flags, no turn limit, no password, 7 s. */
#define ROOM_AB 2, 'a', 'b', 3, 'Z', 'e', 'd', 0x05, 0xdc, 25, 3, 0, 0
	{
		struct wire_msg m;
		struct proto_err e;
		const uint8_t ok[] = { 1, ROOM_AB, 0, 0, 7 };
		cr_assert_eq(wire_decode(WIRE_ROOMS, ok, sizeof ok, &m, &e), 0, "%s", e.why);
		cr_expect_str_eq(m.u.rooms.room[0].code, "ab");
		cr_expect_eq(m.u.rooms.room[0].rating, 1500);
		cr_expect_eq(m.u.rooms.room[0].waiting, 7);
	}
	REFUSED(WIRE_ROOMS, PERR_RANGE, WIRE_ROOMS_MAX + 1);       /* more than a list holds */
	REFUSED(WIRE_ROOMS, PERR_TRUNCATED, 2, ROOM_AB, 0, 0, 7);  /* two said, one there */
	REFUSED(WIRE_ROOMS, PERR_RANGE, 1, ROOM_AB, 2, 0, 7);      /* an unknown flag */
	REFUSED(WIRE_ROOMS, PERR_TEXT, 1, 0, 3, 'Z', 'e', 'd', 0x05, 0xdc, 25, 3, 0, 0, 0, 0, 7); /* no code */
	REFUSED(WIRE_ROOMS, PERR_TEXT, 1, 2, 'a', ' ', 3, 'Z', 'e', 'd', 0x05, 0xdc, 25, 3, 0, 0, 0, 0, 7); /* not a code */
	REFUSED(WIRE_ROOMS, PERR_RANGE, 1, 2, 'a', 'b', 3, 'Z', 'e', 'd', 0x05, 0xdc, 24, 3, 0, 0, 0, 0, 7); /* even size */
	REFUSED(WIRE_ROOMS, PERR_TRAILING, 0, 0);
	REFUSED(WIRE_ROOMS_ASK, PERR_FRAME_SIZE, 0);
	/* ROOMS_PARTIAL: one known reason, nothing else. */
	{
		struct wire_msg m;
		struct proto_err e;
		const uint8_t ok[] = { ROOMS_PARTIAL_NO_DIRECTORY };
		cr_assert_eq(wire_decode(WIRE_ROOMS_PARTIAL, ok, sizeof ok, &m, &e), 0, "%s", e.why);
		cr_expect_eq(m.u.partial.why, ROOMS_PARTIAL_NO_DIRECTORY);
	}
	REFUSED(WIRE_ROOMS_PARTIAL, PERR_RANGE, 0);
	REFUSED(WIRE_ROOMS_PARTIAL, PERR_RANGE, ROOMS_PARTIAL_MAX + 1);
	REFUSED(WIRE_ROOMS_PARTIAL, PERR_FRAME_SIZE, 1, 1);
	REFUSED(WIRE_QUICK, PERR_RANGE, 25, 3, 0, 0, 0, 0);        /* a wait of 0 */
	REFUSED(WIRE_QUICK, PERR_RANGE, 25, 3, 0, 0, 0x02, 0x59);  /* 601 s */
	REFUSED(WIRE_QUICK, PERR_RANGE, 53, 3, 0, 0, 0, 30);       /* too large */
	REFUSED(WIRE_QUICK, PERR_FRAME_SIZE, 25, 3, 0, 0, 0);
	/* MATCH: status, rating, other, waited, pool, room. */
	REFUSED(WIRE_MATCH, PERR_RANGE, 3, 5, 0xdc, 0, 0, 0, 0, 0, 0, 0);         /* status 3 */
	REFUSED(WIRE_MATCH, PERR_RANGE, 1, 5, 0xdc, 5, 0xdc, 0, 1, 0, 0, 0);      /* PAIRED, no room */
	REFUSED(WIRE_MATCH, PERR_RANGE, 0, 5, 0xdc, 0, 0, 0, 1, 0, 1, 1, 'x');    /* WAITING with a room */
	REFUSED(WIRE_MATCH, PERR_RANGE, 0, 5, 0xdc, 0, 0, 0, 1, 0, 0, 0);         /* WAITING, nobody in the pool */
	REFUSED(WIRE_MATCH, PERR_RANGE, 2, 5, 0xdc, 0, 9, 0, 30, 0, 0, 0);        /* NOBODY with another's rating */
	REFUSED(WIRE_MATCH, PERR_TEXT, 1, 5, 0xdc, 5, 0xdc, 0, 1, 0, 0, 1, '/');  /* not a code */
	REFUSED(WIRE_MATCH, PERR_TRUNCATED, 1, 5, 0xdc, 5, 0xdc, 0, 1, 0, 0, 3, 'x');
	/* AUTH: public without create is no request. */
	REFUSED(WIRE_AUTH, PERR_RANGE, HELLO_PUBLIC, 1, 'a', 1, 'r', Z32);
#undef ROOM_AB
}

/* REDIRECT and NODES: a node's port, key and address; an address is an IP address, never a name. */
Test(wire, cluster_refusals)
{
#define NODE_LO 0x1e, 0x2f, Z32, 9, '1', '2', '7', '.', '0', '.', '0', '.', '1'
	{
		struct wire_msg m;
		struct proto_err e;
		const uint8_t ok[] = { 2, NODE_LO, 0x1e, 0x30, Z32, 3, ':', ':', '1' };
		cr_assert_eq(wire_decode(WIRE_NODES, ok, sizeof ok, &m, &e), 0, "%s", e.why);
		cr_expect_eq(m.u.nodes.n, 2);
		cr_expect_eq(m.u.nodes.node[0].port, 7727);
		cr_expect_str_eq(m.u.nodes.node[0].host, "127.0.0.1");
		cr_expect_eq(m.u.nodes.node[1].port, 7728);
		cr_expect_str_eq(m.u.nodes.node[1].host, "::1");
	}
	REFUSED(WIRE_NODES, PERR_RANGE, 0, NODE_LO);                      /* no node */
	REFUSED(WIRE_NODES, PERR_RANGE, WIRE_NODES_MAX + 1, NODE_LO);     /* more than a list holds */
	REFUSED(WIRE_NODES, PERR_TRUNCATED, 2, NODE_LO);                  /* two said, one there */
	REFUSED(WIRE_NODES, PERR_RANGE, 1, 0, 0, Z32, 3, ':', ':', '1');  /* port 0 */
	REFUSED(WIRE_NODES, PERR_RANGE, 1, 0x1e, 0x2f, Z32, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't'); /* a name */
	REFUSED(WIRE_NODES, PERR_RANGE, 1, 0x1e, 0x2f, Z32, 64, 'x');     /* longer than an address */
	REFUSED(WIRE_NODES, PERR_TRAILING, 1, NODE_LO, 0);
	REFUSED(WIRE_REDIRECT, PERR_RANGE, 0x1e, 0x2f, Z32, 9, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't');
	REFUSED(WIRE_REDIRECT, PERR_TRAILING, NODE_LO, 0);
#undef NODE_LO
}

Test(wire, encoders_refuse_what_decoders_would)
{
	struct wire_msg *m = msg_new();
	struct proto_err e;
	size_t len;

	sample_msg(WIRE_CMD, 0, m);
	m->u.cmd.type = CMD_COUNT;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RANGE);
	sample_msg(WIRE_CHAT, 0, m);
	strcpy(m->u.chat.text, "\x1b[2J");
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TEXT);
	sample_msg(WIRE_AUTH, 0, m);
	m->u.auth.who.role = 5;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	sample_msg(WIRE_OPTIONS, 0, m);
	m->u.options.opt.size = 16;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	sample_msg(WIRE_LOG_CHUNK, 0, m);
	m->u.log.len = 0;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	sample_msg(WIRE_UPDATE, 3, m);
	m->u.update.has |= 1u << 30;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	sample_msg(WIRE_HEARTBEAT, 0, m);
	cr_assert_eq(wire_encode(m, buf, 0, &len, &e), 0, "an empty payload needs no room");
	sample_msg(WIRE_WELCOME, 0, m);
	cr_assert_eq(wire_encode(m, buf, 5, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_BUFFER);
	m->type = 0x7f;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TYPE);
	/* An ERROR's text is cleaned and cut, never refused. */
	wire_error_init(m, PERR_AUTH, true, "bad\x1b[0m password\n and a very long tail that goes on and on and on and on "
	                "and on and on and on and on and on and on and on and on and on and on and on");
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0);
	cr_assert_eq(strlen(m->u.error.text), PROTO_REASON_BYTES);
	cr_assert_eq(strncmp(m->u.error.text, "bad[0m password and", 19), 0);
	free(m);
}

/* MOVING (a cluster's room between nodes) is an ERROR as any: code 112, not fatal, its text as said,
 * and the same bytes as docs/protocol.md's example. */
Test(wire, moving_is_a_non_fatal_error)
{
	static const uint8_t doc[] = { 0x00, 0x70, 0x00, 0x59 };
	struct wire_msg *m = msg_new(), *d = msg_new();
	struct proto_err e = { 0 };
	size_t len;

	cr_assert_str_eq(proto_strerror(PERR_MOVING), "the room is moving to another node: ask again in a moment");
	wire_error_init(m, PERR_MOVING, false,
	                "room duel-1 is moving to another node (its node stopped answering): ask again in a moment");
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0, "%s", e.why);
	cr_assert_eq(len, 93);
	cr_assert_eq(memcmp(buf, doc, sizeof doc), 0, "code 112, flags 0, a text of 89 bytes");
	cr_assert_eq(wire_decode(WIRE_ERROR, buf, len, d, &e), 0, "%s", e.why);
	cr_assert_eq(d->u.error.code, PERR_MOVING);
	cr_assert(!d->u.error.fatal);
	cr_assert_str_eq(d->u.error.text, m->u.error.text);
	buf[2] = 0x02; /* a flag bit no version sends: refused, as for any ERROR */
	cr_assert_eq(wire_decode(WIRE_ERROR, buf, len, d, &e), PROTO_BROKEN);
	free(m);
	free(d);
}

/* RECORDS: a signer key per record (a cluster's nodes each sign what they rate), the largest page
 * in one undeflated frame and not one record more, every count past it refused both ways. */
Test(wire, records_carry_a_signer_each)
{
	struct wire_msg *m = msg_new(), *d = msg_new();
	struct proto_err e = { 0 };
	size_t len;

	cr_assert_eq(sample_msg(WIRE_RECORDS, 3, m), 0); /* seed 3: a full page */
	cr_assert_eq(m->u.records.count, WIRE_RECORDS_MAX);
	for (unsigned i = 0; i < WIRE_RECORDS_MAX; i++)
		memset(m->u.records.rec[i].signer, (int)(0x10 + i), RATED_SIGNER_LEN); /* 54 signers */
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0, "%s", e.why);
	cr_assert_eq(len, 1 + WIRE_RECORDS_MAX * (RATED_SIGNER_LEN + RATED_SIGNED_LEN));
	cr_assert_eq(len, wire_max(WIRE_RECORDS));
	cr_assert_leq(len, PROTO_FRAME_MAX, "the largest page crosses in one frame, never deflated");
	cr_assert_gt(len + RATED_SIGNER_LEN + RATED_SIGNED_LEN, PROTO_FRAME_MAX, "one record more would not");
	cr_assert_eq(buf[0], WIRE_RECORDS_MAX);
	for (unsigned i = 0; i < WIRE_RECORDS_MAX; i++) /* each entry: its signer, then its signed record */
		cr_assert_eq(buf[1 + i * (RATED_SIGNER_LEN + RATED_SIGNED_LEN)], 0x10 + i, "entry %u's signer", i);
	cr_assert_eq(wire_decode(WIRE_RECORDS, buf, len, d, &e), 0, "%s", e.why);
	for (unsigned i = 0; i < WIRE_RECORDS_MAX; i++) {
		cr_assert_eq(d->u.records.rec[i].signer[0], 0x10 + i);
		cr_assert_eq(memcmp(&d->u.records.rec[i].rec, &m->u.records.rec[i].rec, sizeof d->u.records.rec[i].rec), 0);
	}
	/* A count past the page: refused by the decoder before it reads a record, and by the encoder. */
	buf[0] = WIRE_RECORDS_MAX + 1;
	refused(WIRE_RECORDS, buf, len, PERR_RANGE, __LINE__);
	buf[0] = 255;
	refused(WIRE_RECORDS, buf, len, PERR_RANGE, __LINE__);
	m->u.records.count = WIRE_RECORDS_MAX + 1;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), PROTO_BROKEN);
	/* One record whose signer is cut short; one whose record is. */
	REFUSED(WIRE_RECORDS, PERR_TRUNCATED, 1, 0xaa, 0xbb);
	m->u.records.count = 1;
	cr_assert_eq(wire_encode(m, buf, sizeof buf, &len, &e), 0);
	cr_assert_eq(len, 1 + RATED_SIGNER_LEN + RATED_SIGNED_LEN);
	refused(WIRE_RECORDS, buf, 1 + RATED_SIGNER_LEN + 10, PERR_TRUNCATED, __LINE__);
	/* The layout of before (one signer for the page, then the count): its first byte is a
	 * signer's, read as a count, and the rest does not line up. */
	memmove(buf + RATED_SIGNER_LEN + 1, buf + 1 + RATED_SIGNER_LEN, RATED_SIGNED_LEN);
	memset(buf, 0x10, RATED_SIGNER_LEN);
	buf[RATED_SIGNER_LEN] = 1;
	refused(WIRE_RECORDS, buf, 1 + RATED_SIGNER_LEN + RATED_SIGNED_LEN, PERR_TRUNCATED, __LINE__);
	free(m);
	free(d);
}

/* Exact bytes of a few frames, as docs/protocol.md shows them (inside records, once secure). */
Test(wire, golden_frames)
{
	struct wire_msg *m = msg_new();
	uint8_t out[64];
	size_t len;
	const uint8_t step8[] = { 0x31, 0x01, 0x40 };
	const uint8_t quaff3[] = { 0x31, 0x02, 0x83, 0x03 };
	const uint8_t hb[] = { 0x42, 0x00 };

	m->type = WIRE_CMD;
	m->u.cmd = (struct cmd){ CMD_STEP, 0, DIR_N };
	cr_assert_eq(wire_encode(m, out + 2, sizeof out - 2, &len, NULL), 0);
	cr_assert_eq(frame_header(out, m->type, false, len), 2);
	cr_assert(len + 2 == sizeof step8 && memcmp(out, step8, len + 2) == 0);
	m->u.cmd = (struct cmd){ CMD_QUAFF, 3, 0 };
	cr_assert_eq(wire_encode(m, out + 2, sizeof out - 2, &len, NULL), 0);
	cr_assert_eq(frame_header(out, m->type, false, len), 2);
	cr_assert(len + 2 == sizeof quaff3 && memcmp(out, quaff3, len + 2) == 0);
	m->type = WIRE_HEARTBEAT;
	cr_assert_eq(wire_encode(m, out + 2, sizeof out - 2, &len, NULL), 0);
	cr_assert_eq(frame_header(out, m->type, false, len), 2);
	cr_assert(len + 2 == sizeof hb && memcmp(out, hb, len + 2) == 0);
	free(m);
}

/* ---- connections ---- */

struct pair {
	struct pconn srv, cli;
	uint8_t frame[PCONN_FRAME_MAX];
	struct wire_msg m, got;
};

static void
pair_identity(struct pair *p)
{
	struct noise_keypair kp;

	cr_assert_eq(noise_keypair_from(&kp, sample_server_secret), 0);
	pconn_set_identity(&p->srv, &kp);
}

/* A record as a peer seals it: the frames at pt, zeros to their class, sealed with tx; its length. */
static size_t
seal_padded(struct noise_cipher *tx, const uint8_t *pt, size_t n, uint8_t *rec)
{
	size_t padded = pconn_padded(n);

	memcpy(rec + 2, pt, n);
	memset(rec + 2 + n, 0, padded - n);
	rec[0] = (uint8_t)((padded + NOISE_TAG_LEN) >> 8);
	rec[1] = (uint8_t)(padded + NOISE_TAG_LEN);
	cr_assert_eq(noise_seal(tx, rec + 2, padded, rec + 2), 0);
	return 2 + padded + NOISE_TAG_LEN;
}

static struct pair *
pair_new(void)
{
	struct pair *p = calloc(1, sizeof *p);

	cr_assert(p);
	pconn_init(&p->srv, PCONN_SERVER);
	pconn_init(&p->cli, PCONN_CLIENT);
	pair_identity(p);
	return p;
}

/* A pair whose server deflates every payload of PCONN_DEFLATE_MIN bytes or more, those that
 * fit their record's padding raw too: for tests of the stream itself. */
static struct pair *
pair_new_deflating(void)
{
	struct pconn_config cfg = PCONN_CONFIG_DEFAULT;
	struct pair *p = calloc(1, sizeof *p);

	cr_assert(p);
	cfg.fit_raw = false;
	pconn_init_config(&p->srv, PCONN_SERVER, &cfg);
	pconn_init_config(&p->cli, PCONN_CLIENT, &cfg);
	pair_identity(p);
	return p;
}

static void
pair_free(struct pair *p)
{
	pconn_finish(&p->srv);
	pconn_finish(&p->cli);
	free(p);
}

/* Send p->m from one end to the other; returns what pconn_next() said, p->got filled. */
static int
pass(struct pair *p, bool from_server, struct proto_err *e)
{
	struct pconn *tx = from_server ? &p->srv : &p->cli, *rx = from_server ? &p->cli : &p->srv;
	size_t len;

	cr_assert_eq(pconn_send(tx, &p->m, p->frame, sizeof p->frame, &len, e), 0, "send %s: %s", wire_name(p->m.type),
	             e->why);
	cr_assert_eq(pconn_feed(rx, p->frame, len), len);
	return pconn_next(rx, &p->got, e);
}

static void
handshake(struct pair *p)
{
	struct proto_err e = { 0 };
	uint8_t salt[PROTO_PW_SALT_LEN] = { 1, 2, 3 };
	struct noise_keypair kp;

	wire_hello_init(&p->m);
	cr_assert_eq(pass(p, false, &e), PROTO_DONE, "%s", e.why);
	cr_assert(!p->srv.secure);
	wire_challenge_init(&p->m, salt, true);
	cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s", e.why);
	cr_assert(p->got.u.challenge.password, "the flag arrives, encrypted");
	cr_assert(memcmp(p->got.u.challenge.salt, salt, sizeof salt) == 0);
	cr_assert(p->srv.secure && p->cli.secure);
	noise_keypair_from(&kp, sample_server_secret);
	cr_assert(memcmp(pconn_peer_key(&p->cli), kp.pk, 32) == 0, "the client learns the server's key");
	cr_assert(memcmp(pconn_hash(&p->cli), pconn_hash(&p->srv), PROTO_HASH_LEN) == 0, "one handshake hash");
	sample_msg(WIRE_AUTH, 1, &p->m);
	cr_assert_eq(pass(p, false, &e), PROTO_DONE, "%s", e.why);
	cr_assert(!p->srv.joined && !p->cli.joined);
	sample_msg(WIRE_WELCOME, 2, &p->m);
	cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s", e.why);
	cr_assert(p->srv.joined && p->cli.joined);
}

Test(pconn, handshake_then_deflate)
{
	struct pair *p = pair_new_deflating();
	struct proto_err e = { 0 };
	uint64_t before;

	handshake(p);
	for (int i = 0; i < sample_ntypes; i++) {
		int t = sample_types[i];
		bool from_server = wire_dir(t) & WIRE_S2C;

		if (wire_before_join(t) && t != WIRE_ERROR && t != WIRE_HEARTBEAT && t != WIRE_BYE)
			continue;
		for (uint64_t seed = 0; seed < 6; seed++) {
			sample_msg(t, seed, &p->m);
			if (t == WIRE_CHAT)
				p->m.u.chat.from = from_server ? 0 : CHAT_FROM_CLIENT;
			cr_assert_eq(pass(p, from_server, &e), PROTO_DONE, "%s: %s", wire_name(t), e.why);
			cr_assert(memcmp(&p->m, &p->got, wire_decoded_size(t)) == 0, "%s seed %llu differs", wire_name(t),
			          (unsigned long long)seed);
		}
	}
	/* Later frames refer back to earlier ones (within the sender's window): the same
	 * START again costs little. */
	sample_msg(WIRE_START, 5, &p->m);
	pass(p, true, &e);
	/* Counted without the padding: what deflate saves is the frames' bytes. */
	before = p->srv.bytes_out - p->srv.padding_out;
	pass(p, true, &e);
	cr_assert_lt(p->srv.bytes_out - p->srv.padding_out - before, 40, "%llu bytes",
	             (unsigned long long)(p->srv.bytes_out - p->srv.padding_out - before));
	cr_assert_gt(p->srv.payload_out, p->srv.bytes_out - p->srv.padding_out, "deflate pays");
	pair_free(p);
}

/* The server deflates only payloads of PCONN_DEFLATE_MIN (32) bytes or more, and of those
 * only the ones that do not fit raw in their record's padding (a record of its own: 240
 * bytes): the others, nearly all of a duel's frames, go raw and never touch the deflater
 * (which, shared by thousands of connections, restarts for nearly every frame it deflates:
 * issue 29). Each sample goes through the deflater exactly when that says so, and arrives
 * whole. */
Test(pconn, short_payloads_go_raw_past_the_deflater)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	uint8_t pl[PROTO_PAYLOAD_MAX], hdr[PROTO_HEADER_MAX];
	int raw_short = 0, raw_mid = 0, raw_fits = 0, deflated = 0;

	handshake(p);
	sample_msg(WIRE_WELCOME, 2, &p->m);
	cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s", e.why);
	cr_assert(p->srv.scr != NULL && p->srv.joined);
	for (int i = 0; i < sample_ntypes; i++) {
		int t = sample_types[i];

		if (!(wire_dir(t) & WIRE_S2C) || wire_before_join(t) || t == WIRE_CHAT || t == WIRE_LOBBY ||
		    t == WIRE_SPECT_CHAT || t == WIRE_SPECT_VIEW || t == WIRE_SPECT_INFO)
			continue;
		for (uint64_t seed = 0; seed < 6; seed++) {
			size_t len;
			uint64_t frames = p->srv.scr->dz.frames;

			sample_msg(t, seed, &p->m);
			cr_assert_eq(wire_encode(&p->m, pl, sizeof pl, &len, NULL), 0);
			cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s: %s", wire_name(t), e.why);
			cr_assert(memcmp(&p->m, &p->got, wire_decoded_size(t)) == 0, "%s seed %llu differs", wire_name(t),
			          (unsigned long long)seed);
			bool fits = (size_t)frame_header(hdr, t, false, len) + len <= pconn_pad_class[0];
			bool deflate = len >= PCONN_DEFLATE_MIN && !fits;

			cr_assert_eq(p->srv.scr->dz.frames - frames, deflate ? 1u : 0u, "%s of %zu bytes", wire_name(t), len);
			deflated += deflate;
			raw_short += len < 8;
			raw_mid += len >= 8 && len < PCONN_DEFLATE_MIN;
			raw_fits += len >= PCONN_DEFLATE_MIN && fits;
		}
	}
	cr_assert(raw_short > 0 && deflated > 0, "%d short, %d deflated", raw_short, deflated);
	cr_assert_gt(raw_mid, 0, "no payload of 8 to 31 bytes went raw");
	cr_assert_gt(raw_fits, 0, "no payload of 32 bytes or more went raw for fitting its record");
	pair_free(p);
}

Test(pconn, nothing_but_the_handshake_before_the_join)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	size_t len;
	const uint8_t chat[] = { 0x40, 0x03, 0xff, 0x01, 'a' };
	const uint8_t deflated_hello[] = { 0x90, 0x02, 0x03, 0x00 };

	/* Neither end sends it... */
	sample_msg(WIRE_CHAT, 2, &p->m);
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, sizeof p->frame, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_STATE);
	/* ...nor accepts it. */
	pconn_feed(&p->srv, chat, sizeof chat);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_STATE);
	cr_assert(p->srv.broken);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN, "and stays broken");
	cr_assert_eq(e.code, PERR_STATE);
	pair_free(p);

	/* A deflated frame before the join is never inflated. */
	p = pair_new();
	pconn_feed(&p->srv, deflated_hello, sizeof deflated_hello);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_EARLY_DEFLATE);
	pair_free(p);
}

Test(pconn, directions_types_and_sizes)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	size_t len;
	const uint8_t unknown[] = { 0x7e, 0x00 };
	const uint8_t challenge_to_server[] = { 0x11, 0x29 };
	const uint8_t huge_hello[] = { 0x10, 0x80, 0x02 }; /* 256 bytes: refused before they arrive */
	const uint8_t big_cmd[] = { 0x31, 0x03 };

	sample_msg(WIRE_CHALLENGE, 0, &p->m);
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, sizeof p->frame, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_DIRECTION);
	p->m.type = 0x7e;
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, sizeof p->frame, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TYPE);
	sample_msg(WIRE_HELLO, 0, &p->m);
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, 2, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_BUFFER);
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, 10, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_BUFFER);
	pair_free(p);

	p = pair_new();
	pconn_feed(&p->srv, unknown, sizeof unknown);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TYPE);
	pair_free(p);
	p = pair_new();
	pconn_feed(&p->srv, challenge_to_server, sizeof challenge_to_server);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_DIRECTION);
	/* Said of the one who sent it: the peer reads this text in its ERROR. */
	cr_expect_str_eq(e.why, "CHALLENGE is not sent by the client");
	pair_free(p);
	p = pair_new();
	pconn_feed(&p->srv, huge_hello, sizeof huge_hello);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_FRAME_SIZE);
	pair_free(p);
	p = pair_new();
	p->srv.joined = true;
	pconn_feed(&p->srv, big_cmd, sizeof big_cmd);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_STATE, "nothing but HELLO from a client in clear");
	pair_free(p);
	p = pair_new();
	cr_assert_eq(pconn_next(&p->srv, &p->got, NULL), PROTO_MORE, "nothing yet");
	pconn_feed(&p->srv, big_cmd, 1);
	cr_assert_eq(pconn_next(&p->srv, &p->got, NULL), PROTO_MORE, "half a header");
	pair_free(p);
}

Test(pconn, version_mismatch_is_clear_on_both_ends)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	char want[64];

	wire_hello_init(&p->m);
	p->m.u.hello.proto = PROTO_VERSION + 1;
	cr_assert_eq(pass(p, false, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_VERSION);
	/* The server says so, in an ERROR any version can read; the client shows it. */
	wire_error_init(&p->m, e.code, true, e.why);
	cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(p->got.u.error.code, PERR_VERSION);
	cr_assert(p->got.u.error.fatal);
	snprintf(want, sizeof want, "protocol version %d here, %d there", PROTO_VERSION, PROTO_VERSION + 1);
	cr_assert(strstr(p->got.u.error.text, want), "%s", p->got.u.error.text);
	pair_free(p);

	/* The client sees a server of another rules version in CHALLENGE. */
	p = pair_new();
	wire_hello_init(&p->m);
	cr_assert_eq(pass(p, false, &e), PROTO_DONE, "%s", e.why);
	sample_msg(WIRE_CHALLENGE, 0, &p->m);
	p->m.u.challenge.rules = RULES_VERSION + 1;
	cr_assert_eq(pass(p, true, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RULES);
	pair_free(p);
}

Test(pconn, a_bad_deflate_frame_drops_the_peer)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	const uint8_t junk[] = { 0xb2, 0x03, 0xff, 0xff, 0xff };
	uint8_t rec[PCONN_RECORD_WIRE];

	handshake(p);
	/* Sealed as the server would, so that it reaches the inflater. */
	pconn_feed(&p->cli, rec, seal_padded(&p->srv.tx, junk, sizeof junk, rec));
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_ZLIB);
	pair_free(p);
}

Test(pconn, per_frame_mode_sends_raw_when_deflate_does_not_pay)
{
	struct pconn_config cfg = { ZSTREAM_FRAME, ZSTREAM_PARAMS_DEFAULT, 0, false };
	struct pair *p = calloc(1, sizeof *p);
	struct proto_err e = { 0 };
	size_t len;
	uint32_t records;

	pconn_init_config(&p->srv, PCONN_SERVER, &cfg);
	pconn_init_config(&p->cli, PCONN_CLIENT, &cfg);
	pair_identity(p);
	handshake(p);
	/* Corked, the frame waits in the record being built, where its header can be read. */
	records = p->srv.records_out;
	sample_msg(WIRE_PEER, 1, &p->m);
	pconn_cork(&p->srv);
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0);
	cr_assert_eq(len, 0);
	cr_assert_eq(p->srv.ob[0], WIRE_PEER, "4 bytes do not deflate smaller: sent raw");
	/* A START that deflates smaller (some, with little of the level in view, do not). */
	sample_msg(WIRE_START, 1, &p->m);
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0);
	cr_assert_eq(p->srv.ob[6], WIRE_START | FRAME_DEFLATED);
	cr_assert_eq(pconn_flush(&p->srv, p->frame, sizeof p->frame, &len, &e), 0);
	cr_assert_eq(p->srv.records_out, records + 1, "two frames, one record");
	cr_assert_eq(pconn_feed(&p->cli, p->frame, len), len);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(p->got.type, WIRE_PEER);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(p->got.type, WIRE_START);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE);
	pair_free(p);
}

Test(pconn, too_big_for_a_frame_unless_deflated)
{
	struct pconn_config raw = { ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT, (size_t)-1, false };
	struct pair *p = calloc(1, sizeof *p);
	struct proto_err e = { 0 };
	struct update *u;
	size_t len;

	/* Potions and effects on all 2601 squares of a 51x51 level: about 29 KiB of
	 * location text, more than a frame carries unless it is deflated. */
	pconn_init_config(&p->srv, PCONN_SERVER, &raw);
	pconn_init_config(&p->cli, PCONN_CLIENT, &raw);
	pair_identity(p);
	handshake(p);
	p->m.type = WIRE_UPDATE;
	u = &p->m.u.update;
	u->has = UPD_BIT(UPD_POTIONS) | UPD_BIT(UPD_FX);
	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++) {
			u->pot[u->npot++] = (struct loc){ (uint8_t)x, (uint8_t)y, (uint8_t)(1 + (x + y) % APPEARANCE_COUNT) };
			u->fx[u->nfx++] = (struct loc){ (uint8_t)x, (uint8_t)y, (uint8_t)(1 + (x * y) % (FX_COUNT - 1)) };
		}
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_TOO_BIG, "%s", e.why);
	pair_free(p);
	/* Deflated, it fits, and arrives whole. */
	p = pair_new();
	handshake(p);
	p->m.type = WIRE_UPDATE;
	p->m.u.update.has = UPD_BIT(UPD_POTIONS) | UPD_BIT(UPD_FX);
	for (int y = 0; y < LEVEL_MAX; y++)
		for (int x = 0; x < LEVEL_MAX; x++) {
			struct update *v = &p->m.u.update;

			v->pot[v->npot++] = (struct loc){ (uint8_t)x, (uint8_t)y, (uint8_t)(1 + (x + y) % APPEARANCE_COUNT) };
			v->fx[v->nfx++] = (struct loc){ (uint8_t)x, (uint8_t)y, (uint8_t)(1 + (x * y) % (FX_COUNT - 1)) };
		}
	cr_assert_eq(pass(p, true, &e), PROTO_DONE, "%s", e.why);
	cr_assert_lt(len = p->srv.bytes_out - p->srv.padding_out, PROTO_FRAME_MAX + 200);
	cr_assert_eq(p->got.u.update.npot, LEVEL_MAX * LEVEL_MAX);
	cr_assert_eq(p->got.u.update.fx[LEVEL_MAX * LEVEL_MAX - 1].id, p->m.u.update.fx[LEVEL_MAX * LEVEL_MAX - 1].id);
	pair_free(p);
}

/* Text a peer chose (CHAT, LOBBY's names) never shares the deflate stream with a player's
 * secrets: the sender never deflates it and the receiver refuses it deflated (CRIME). */
Test(pconn, peer_text_is_never_deflated)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	size_t len;
	const uint8_t zchat[] = { 0xc0, 0x03, 0x00, 0x00, 0x00 };
	uint8_t rec[PCONN_RECORD_WIRE];

	handshake(p);
	sample_msg(WIRE_CHAT, 3, &p->m);
	p->m.u.chat.from = 0;
	memset(p->m.u.chat.text, 'a', 150);
	p->m.u.chat.text[150] = '\0';
	pconn_cork(&p->srv);
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
	cr_assert_eq(p->srv.ob[0], WIRE_CHAT, "150 repeated letters went deflated");
	{
		size_t at = p->srv.ob_len;
		sample_msg(WIRE_LOBBY, 1, &p->m);
		cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
		cr_assert_eq(p->srv.ob[at], WIRE_LOBBY, "LOBBY went deflated");
	}
	pconn_flush(&p->srv, p->frame, sizeof p->frame, &len, &e);
	cr_assert_eq(pconn_feed(&p->cli, p->frame, len), len);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(p->got.type, WIRE_LOBBY);
	/* A deflated CHAT, sealed as the server would: refused. */
	pconn_feed(&p->cli, rec, seal_padded(&p->srv.tx, zchat, sizeof zchat, rec));
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_STATE, "%d %s", e.code, e.why);
	pair_free(p);
}

/* A connection holds memory for what is in it: after the messages are taken, neither end
 * keeps a receive or cork buffer; a record longer than the small starting buffer, fed in
 * small pieces the way a socket's reads come, grows it only to that record's size. */
Test(pconn, buffers_are_sized_to_what_is_in_them)
{
	struct pair *p = pair_new();
	struct proto_err e = { 0 };
	size_t len, off = 0, n;
	struct update *u;
	uint8_t *dst;

	handshake(p);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_MORE);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE);
	cr_assert_null(p->srv.rxb, "the server's receive buffer is given back once empty");
	cr_assert_null(p->cli.rxb);
	cr_assert_null(p->srv.ob);
	/* Corked frames wait in a buffer sized to them, freed when sealed. */
	pconn_cork(&p->srv);
	sample_msg(WIRE_START, 3, &p->m);
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
	cr_assert_eq(len, 0);
	cr_assert_not_null(p->srv.ob);
	cr_assert_leq(p->srv.ob_cap, 2 * p->srv.ob_len + 256);
	cr_assert_eq(pconn_flush(&p->srv, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
	cr_assert_null(p->srv.ob);
	cr_assert_eq(pconn_feed(&p->cli, p->frame, len), len);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE);
	cr_assert_null(p->cli.rxb);
	/* An update of a few KiB (random locations: deflate cannot shrink it much). */
	p->m.type = WIRE_UPDATE;
	u = &p->m.u.update;
	memset(u, 0, sizeof *u);
	u->has = UPD_BIT(UPD_POTIONS);
	for (int i = 0; i < 900; i++)
		u->pot[u->npot++] = (struct loc){ (uint8_t)((i * 37) % LEVEL_MAX), (uint8_t)((i * 53 / 7) % LEVEL_MAX),
		                                  (uint8_t)(1 + (i * 7) % APPEARANCE_COUNT) };
	cr_assert_eq(pconn_send(&p->srv, &p->m, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
	cr_assert_gt(len, 4 * PCONN_RX_MIN, "a record of %zu bytes", len);
	while (off < len) {
		dst = pconn_space(&p->cli, &n);
		cr_assert_not_null(dst);
		cr_assert_leq(p->cli.rx_cap, len < PCONN_RX_MIN ? PCONN_RX_MIN : len);
		if (n > 100)
			n = 100;
		if (n > len - off)
			n = len - off;
		memcpy(dst, p->frame + off, n);
		pconn_commit(&p->cli, n);
		off += n;
		if (off < len)
			cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE, "%s", e.why);
	}
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(p->got.u.update.npot, 900);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE);
	cr_assert_null(p->cli.rxb, "and given back");
	pair_free(p);
}

/* Protocol 4: a client never deflates, whatever its settings; the server's frames are. */
Test(pconn, a_client_never_deflates)
{
	struct pconn_config all = { ZSTREAM_STREAM, ZSTREAM_PARAMS_DEFAULT, 0, false };
	struct pair *p = calloc(1, sizeof *p);
	struct proto_err e = { 0 };
	size_t len;

	pconn_init_config(&p->srv, PCONN_SERVER, &all);
	pconn_init_config(&p->cli, PCONN_CLIENT, &all);
	pair_identity(p);
	handshake(p);
	sample_msg(WIRE_OPTIONS, 1, &p->m);
	uint64_t pad = p->cli.padding_out;
	cr_assert_eq(pconn_send(&p->cli, &p->m, p->frame, sizeof p->frame, &len, &e), 0, "%s", e.why);
	cr_assert_eq(len, 2 + pconn_pad_class[0] + NOISE_TAG_LEN, "OPTIONS in a record of the first class");
	cr_assert_eq(p->cli.padding_out - pad, pconn_pad_class[0] - 2 - 4, "OPTIONS goes raw: its 4 bytes, a 2-byte header");
	cr_assert_eq(pconn_feed(&p->srv, p->frame, len), len);
	cr_assert_eq(pconn_next(&p->srv, &p->got, &e), PROTO_DONE, "%s", e.why);
	pair_free(p);
}

/* Protocol 6: a record's frames are followed by zeros to its class; anything else is refused
 * with RECORD: a length that is no class (from its 2 bytes), padding that is not all zero
 * (after the frame before it), a record of padding alone. */
Test(pconn, padding_is_zeros_after_a_frame)
{
	const uint8_t hb[] = { WIRE_HEARTBEAT, 0 }, bad[] = { WIRE_HEARTBEAT, 0, 0, 0, 7 }, none[] = { 0, 0 };
	const uint8_t no_class[] = { 0, 2 + NOISE_TAG_LEN };
	uint8_t rec[PCONN_RECORD_WIRE];
	struct proto_err e = { 0 };
	struct pair *p;

	p = pair_new();
	handshake(p);
	pconn_feed(&p->cli, rec, seal_padded(&p->srv.tx, hb, sizeof hb, rec));
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_MORE, "the padding is no message");
	pair_free(p);

	p = pair_new();
	handshake(p);
	pconn_feed(&p->cli, rec, seal_padded(&p->srv.tx, bad, sizeof bad, rec));
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_DONE, "%s", e.why);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RECORD, "%d %s", e.code, e.why);
	pair_free(p);

	p = pair_new();
	handshake(p);
	pconn_feed(&p->cli, rec, seal_padded(&p->srv.tx, none, sizeof none, rec));
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_BROKEN);
	cr_assert_eq(e.code, PERR_RECORD, "%d %s", e.code, e.why);
	pair_free(p);

	p = pair_new();
	handshake(p);
	pconn_feed(&p->cli, no_class, sizeof no_class);
	cr_assert_eq(pconn_next(&p->cli, &p->got, &e), PROTO_BROKEN, "judged from the length alone");
	cr_assert_eq(e.code, PERR_RECORD, "%d %s", e.code, e.why);
	pair_free(p);
}
