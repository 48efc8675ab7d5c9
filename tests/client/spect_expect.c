/* SPDX-License-Identifier: MIT */
/* spect_expect: where a spectator's shared view must place the wizards in the state a turn log reaches, for test_spectate.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "turnlog.h"
#include "view.h"

/*
 * usage: spect_expect LOG
 * Replays LOG (a duel's log while it is played: a last line without '\n' is left out, as a torn write)
 * with the real rules, then prints
 *   commands N         the commands replayed
 *   to-move NAME       whose move it is (the name in the log's header)
 *   wizard P X Y       for each wizard P (0, 1) the shared view must place: where, on the level
 *   truth P X Y        where each wizard is (for a failure's message)
 * so that the screen test knows what a spectator must see, whatever the seed made of the level. The
 * rule is docs/protocol.md's, each wizard where the other player knows it, taken from the two players'
 * views here rather than from spect_shared(), whose leak the test is there to catch.
 */
int
main(int argc, char **argv)
{
	static struct turnlog_replay r;
	static struct view v0, v1;
	static char text[1 << 22];
	size_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: spect_expect LOG\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb"))) {
		perror(argv[1]);
		return 1;
	}
	len = fread(text, 1, sizeof text, f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "%s: unreadable, or over %zu bytes\n", argv[1], sizeof text);
		fclose(f);
		return 1;
	}
	fclose(f);
	if (turnlog_replay(text, len, &r, NULL, NULL) != 0) {
		fprintf(stderr, "%s:%d: %s\n", argv[1], r.line, r.error);
		return 1;
	}
	view_build(&r.game, 0, &v0);
	view_build(&r.game, 1, &v1);
	printf("commands %u\n", (unsigned)r.commands);
	printf("to-move %s\n", r.hdr.name[r.game.turn]);
	if (v1.opp_state != OPP_UNKNOWN)
		printf("wizard 0 %d %d\n", v1.opp_x, v1.opp_y);
	if (v0.opp_state != OPP_UNKNOWN)
		printf("wizard 1 %d %d\n", v0.opp_x, v0.opp_y);
	for (int p = 0; p < PLAYERS; p++)
		printf("truth %d %d %d\n", p, r.game.wiz[p].x, r.game.wiz[p].y);
	return 0;
}
