/* SPDX-License-Identifier: MIT */
/* fuzz_turnlog: any bytes as a turn log (a file from anyone, or the log a host reveals at END) into the replay and the line parser. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "turnlog.h"

/*
 * A turn log reaches wizwar from strangers: `wizwar replay FILE` on a downloaded log, and the
 * log a host reveals at END, which every client replays for the fair-host check. Input: the
 * log's bytes. The replay must end, accept or refuse (saying on which line), and its reason
 * must be printable ASCII: it goes to a terminal. Each line the parser accepts must format
 * again (the writers' functions) into a line that parses to the same thing; a refused line's
 * reason is printable too. The rules run under the replay, so the fuzzer also drives
 * game_apply with commands nobody legal would send.
 */

static void
step(void *ud, const struct game *g, int p, const struct cmd *c, const struct events *ev, int lineno)
{
	(void)ud;
	(void)c;
	/* Called once a command is applied: by a player of the duel, to a state the rules keep. */
	FUZZ_CHECK(p >= 0 && p < PLAYERS && lineno > 0 && ev != NULL);
	FUZZ_CHECK(g->turn < PLAYERS);
	for (int q = 0; q < PLAYERS; q++)
		FUZZ_CHECK(g->wiz[q].x < g->opt.size && g->wiz[q].y < g->opt.size && g->wiz[q].ninv <= INV_MAX);
}

static void
same_line(const char *line, size_t len)
{
	static struct turnlog_line a, b;
	char why[200], out[TURNLOG_LINE_MAX + 2];
	int k = -1;

	if (turnlog_parse_line(line, len, &a, why, sizeof why) != 0) {
		fuzz_printable(why, sizeof why);
		return;
	}
	switch (a.kind) {
	case TL_CMD:
		k = turnlog_format_cmd(a.player, &a.cmd, out, sizeof out);
		break;
	case TL_HASH:
		k = turnlog_format_hash(a.turn, a.value, out, sizeof out);
		break;
	case TL_CHAT:
		k = turnlog_format_chat(a.player, a.text, out, sizeof out);
		break;
	default:
		return; /* the header's and the end's writers take a whole game, not a line */
	}
	FUZZ_CHECK(k > 0 && out[k - 1] == '\n');
	FUZZ_CHECK(turnlog_parse_line(out, (size_t)k - 1, &b, why, sizeof why) == 0);
	FUZZ_CHECK(b.kind == a.kind && b.player == a.player);
	if (a.kind == TL_CMD)
		FUZZ_CHECK(b.cmd.type == a.cmd.type && b.cmd.arg == a.cmd.arg && b.cmd.dir == a.cmd.dir);
	else if (a.kind == TL_HASH)
		FUZZ_CHECK(b.turn == a.turn && b.value == a.value);
	else
		FUZZ_CHECK(strcmp(b.text, a.text) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct turnlog_replay r;
	const char *text = (const char *)data;

	memset(&r, 0, sizeof r);
	if (turnlog_replay(text, size, &r, step, NULL) != 0) {
		FUZZ_CHECK(r.line > 0 && r.error[0] != '\0');
		fuzz_printable(r.error, sizeof r.error);
	} else {
		FUZZ_CHECK(r.line == 0);
		FUZZ_CHECK(!r.ended || r.game.result != RESULT_NONE);
	}
	/* Each line alone, as far as 64 of them. */
	for (size_t at = 0, lines = 0; at < size && lines < 64; lines++) {
		const char *nl = memchr(text + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
		same_line(text + at, len);
		at += len + 1;
	}
	return 0;
}
