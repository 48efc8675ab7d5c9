/* SPDX-License-Identifier: MIT */
/* test_rcursor: the replay cursor shared by `wizwar replay` and the web page: seeks, steps, turns and keys over recorded duels. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keys.h"
#include "rcursor.h"

static const char *const duels[] = { "normal-vs-hard", "small-15-nofov", "large-51" };

/* A golden replay's log, collected as the viewers collect it. */
static void
load(const char *name, struct rcursor_log *log)
{
	char path[4096];
	char *buf;
	size_t len;
	struct turnlog_replay *r = malloc(sizeof *r);
	const char *src = getenv("WIZWAR_SRCDIR");

	cr_assert_not_null(r);
	snprintf(path, sizeof path, "%s/tests/replays/%s.log", src ? src : ".", name);
	cr_assert_eq(cli_read_file(path, 64u << 20, &buf, &len), 0, "%s", path);
	memset(log, 0, sizeof *log);
	cr_assert_eq(turnlog_replay(buf, len, r, rcursor_collect, log), 0, "%s: %s", path, r->error);
	cr_assert(!log->oom && log->ncmd == r->commands && log->ncmd > 2 * RCURSOR_CKPT);
	log->hdr = r->hdr;
	cli_log_chat(buf, len, rcursor_keep_chat, log);
	free(buf);
	free(r);
}

/* Seeking anywhere (from a checkpoint) leaves the game the commands played from the start leave,
 * and the screen's state is the one stepping there shows, whatever the viewpoint. */
Test(rcursor, seek_equals_stepping)
{
	static struct rcursor a, b;
	static struct state sa, sb;
	static struct rcursor_step s;
	struct keys keys;

	keys_init(&keys);
	for (size_t d = 0; d < sizeof duels / sizeof duels[0]; d++) {
		struct rcursor_log log;
		load(duels[d], &log);
		for (int vp = 0; vp < 3; vp++) {
			state_init(&sa, &keys);
			state_init(&sb, &keys);
			rcursor_init(&a, &log, &sa, vp, 2);
			rcursor_init(&b, &log, &sb, vp, 2);
			uint32_t stops[] = { 1, RCURSOR_CKPT - 1, RCURSOR_CKPT, RCURSOR_CKPT + 1, 3 * RCURSOR_CKPT + 5,
			                     log.ncmd / 2, log.ncmd - 1, log.ncmd };
			uint32_t at = 0;
			for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++) {
				while (at < stops[k]) {
					cr_assert(rcursor_advance(&a, &s));
					state_apply(&sa, &s.v, s.msgs, s.nmsg, NULL, 0);
					at++;
				}
				rcursor_seek(&b, stops[k]);
				cr_assert_eq(a.pos, b.pos);
				cr_assert_eq(game_hash(&a.game), game_hash(&b.game), "%s view %d: command %u", duels[d], vp,
				             (unsigned)stops[k]);
				cr_assert(memcmp(&sa.view, &sb.view, sizeof sa.view) == 0, "%s view %d: the view at %u", duels[d], vp,
				          (unsigned)stops[k]);
				cr_assert_str_eq(sa.replay_line, sb.replay_line);
			}
			cr_assert(!rcursor_advance(&a, &s), "nothing past the end");
		}
		rcursor_log_finish(&log);
	}
}

/* "Jump to turn N" lands on the first command whose status line says turn N, the one before says
 * an earlier turn; past the end, the end. The keys g, digits and Enter do the same. */
Test(rcursor, jump_to_turn)
{
	static struct rcursor c;
	static struct state st;
	struct keys keys;
	struct rcursor_log log;
	char want[64];

	keys_init(&keys);
	load("normal-vs-hard", &log);
	state_init(&st, &keys);
	rcursor_init(&c, &log, &st, 2, 2);
	uint32_t last = rcursor_turn_shown(&c, log.ncmd);
	for (uint32_t n = 1; n <= last; n += 7) {
		rcursor_goto_turn(&c, n);
		cr_assert_eq(rcursor_turn_shown(&c, c.pos), n, "turn %u: landed on turn %u", n, rcursor_turn_shown(&c, c.pos));
		cr_assert(c.pos == 0 || rcursor_turn_shown(&c, c.pos - 1) < n, "turn %u: not its first command", n);
		snprintf(want, sizeof want, "turn %u, command %u/%u", n, (unsigned)c.pos, (unsigned)log.ncmd);
		cr_assert(strstr(st.replay_line, want), "%s not in '%s'", want, st.replay_line);
	}
	rcursor_goto_turn(&c, last + 100);
	cr_assert_eq(c.pos, log.ncmd);
	/* g 1 0 Enter */
	rcursor_seek(&c, 0);
	cr_assert_eq(rcursor_key(&c, 'g'), RCURSOR_KEY_DONE);
	cr_assert(strstr(st.replay_line, "Jump to turn: _"));
	rcursor_key(&c, '1');
	rcursor_key(&c, '0');
	cr_assert(strstr(st.replay_line, "Jump to turn: 10_"));
	rcursor_key(&c, '\r');
	cr_assert(!c.jumping);
	cr_assert_eq(rcursor_turn_shown(&c, c.pos), 10);
	cr_assert(rcursor_turn_shown(&c, c.pos - 1) < 10);
	/* The other keys: one step is the caller's to show; unknown keys are the caller's. */
	uint32_t pos = c.pos;
	cr_assert_eq(rcursor_key(&c, 'n'), RCURSOR_KEY_STEP);
	cr_assert(rcursor_show_step(&c));
	cr_assert_eq(c.pos, pos + 1);
	cr_assert_eq(rcursor_key(&c, 'b'), RCURSOR_KEY_DONE);
	cr_assert_eq(c.pos, pos);
	cr_assert_eq(rcursor_key(&c, 'e'), RCURSOR_KEY_DONE);
	cr_assert_eq(c.pos, log.ncmd);
	cr_assert(strstr(st.replay_line, "Replay: at the end"));
	cr_assert_eq(rcursor_key(&c, 'q'), RCURSOR_KEY_NONE);
	rcursor_log_finish(&log);
}
