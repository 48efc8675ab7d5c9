/* SPDX-License-Identifier: MIT */
/* server/tlog: the gzip turn log is readable while written, and a log cut at any byte resumes at its last whole turn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "bot.h"
#include "tlog.h"
#include "view.h"

static size_t
file_bytes(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f);
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

Test(tlog, every_cut_resumes_or_refuses_cleanly)
{
	static struct game g;
	static struct tlog t;
	static uint8_t gz[1 << 20];
	static struct tlog_resume lr;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 77, { "a", "b" } };
	struct rng rng[2];
	struct view v;
	struct events ev;
	char path[256], cut[256], why[300];
	uint32_t turns_at[4096];
	size_t sizes[4096];
	int nsync = 0;

	options_default(&h.opt);
	snprintf(path, sizeof path, "/tmp/wizwar-tlog-%d.log.gz", (int)getpid());
	snprintf(cut, sizeof cut, "/tmp/wizwar-tlog-%d-cut.log.gz", (int)getpid());
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	uv_loop_t loop;
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(tlog_open(&t, &loop, path, &h, game_hash(&g),
	                       "# wizwar-server salt 00112233445566778899aabbccddeeff\n"
	                       "# wizwar-server token 0 00\n", why, sizeof why), 0, "%s", why);
	rng_seed(&rng[0], 1);
	rng_seed(&rng[1], 2);
	while (g.result == RESULT_NONE && nsync < 4000) {
		struct cmd c;
		int p = g.turn;
		view_build(&g, p, &v);
		bot_choose(&v, BOT_NORMAL, &rng[p], &c);
		if (game_apply(&g, p, &c, &ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			cr_assert_eq(game_apply(&g, p, &c, &ev), ERR_OK);
		}
		tlog_cmd(&t, p, &c, &g, ev.turn_ended);
		tlog_write(&t);
		uv_run(&loop, UV_RUN_DEFAULT); /* the write, in the threadpool, done */
		/* Readable while running: every member is a complete prefix. */
		sizes[nsync] = file_bytes(path, gz, sizeof gz);
		turns_at[nsync++] = g.turn_no;
	}
	tlog_end(&t, &g);
	uint64_t final_hash = game_hash(&g);
	tlog_close(&t); /* the end line still goes, after the log is freed */
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	size_t total = file_bytes(path, gz, sizeof gz);

	/* The whole file: a finished duel. */
	cr_assert_eq(tlog_load(path, &lr, why, sizeof why), 0, "%s", why);
	cr_expect(lr.ended);
	cr_expect_eq(game_hash(&lr.game), final_hash);
	tlog_resume_free(&lr);

	/* Cut anywhere: either refused with a reason, or a consistent earlier state. */
	int ok = 0, refused = 0;
	for (size_t n = 0; n < total; n += 1 + n / 50) {
		FILE *f = fopen(cut, "wb");
		fwrite(gz, 1, n, f);
		fclose(f);
		memset(&lr, 0, sizeof lr);
		if (tlog_load(cut, &lr, why, sizeof why) == 0) {
			ok++;
			/* The state is one the duel really passed through. */
			bool found = lr.game.turn_no == 0;
			for (int i = 0; i < nsync && !found; i++)
				found = sizes[i] <= n + 64 && turns_at[i] >= lr.game.turn_no;
			cr_expect(found, "cut at %zu resumed at turn %u", n, lr.game.turn_no);
			cr_expect(lr.len == 0 || lr.text[lr.len - 1] == '\n');
			tlog_resume_free(&lr);
		} else {
			refused++;
			cr_expect_gt(strlen(why), 0);
		}
	}
	cr_expect_gt(ok, 10);
	unlink(path);
	unlink(cut);
}
