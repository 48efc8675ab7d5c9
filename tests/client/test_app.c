/* SPDX-License-Identifier: MIT */
/* test_app: the libuv glue headless (the null screen): the effects pause, queued keys, and a whole practice
 * duel through the protocol (a server on 127.0.0.1, a network bot, the person's network session). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "bot.h"
#include "practice.h"
#include "turnlog.h"

/* A session that only records what the app sent. */
struct fake {
	int ncmd, nchat, quits;
	struct cmd cmd[16];
	char chat[4][STATE_CHAT_MAX + 1];
};

static int
fake_cmd(void *ctx, const struct cmd *c)
{
	struct fake *f = ctx;
	if (f->ncmd < 16)
		f->cmd[f->ncmd] = *c;
	f->ncmd++;
	return 0;
}

static int
fake_chat(void *ctx, const char *text)
{
	struct fake *f = ctx;
	if (f->nchat < 4)
		snprintf(f->chat[f->nchat], sizeof f->chat[0], "%s", text);
	f->nchat++;
	return 0;
}

static void
fake_quit(void *ctx)
{
	((struct fake *)ctx)->quits++;
}

static const struct session_ops fake_ops = { .send_cmd = fake_cmd, .send_chat = fake_chat, .quit = fake_quit };

static void
a_view(struct view *v, uint32_t turn_no, int x)
{
	memset(v, 0, sizeof *v);
	v->opt.size = 15;
	v->opt.fov = true;
	v->opt.potions = true;
	for (int y = 1; y < 14; y++)
		for (int i = 1; i < 14; i++)
			v->cell[y][i] = VCELL_FLOOR | VCELL_VISIBLE;
	v->x = (uint8_t)x;
	v->y = 5;
	v->hp = v->opp_hp = 5;
	v->turn_no = turn_no;
	v->steps_left = 5;
	memset(v->offered, SPELL_COLD, sizeof v->offered);
	memset(v->kind_of, POTION_NONE, sizeof v->kind_of);
}

Test(app, keys_wait_through_the_effects_pause)
{
	static struct app app;
	struct fake f = { 0 };
	struct keys keys;
	uv_loop_t loop;
	struct view v;
	struct fx_square fx = { 6, 5, FX_FIRE };
	struct msg m = { MSG_FIRE_MISS, 1, 0, 0 };

	keys_init(&keys);
	cr_assert_eq(uv_loop_init(&loop), 0);
	struct app_config cfg = { .loop = &loop, .keys = &keys, .session = &fake_ops, .session_ctx = &f,
		.input_fd = -1, .anim_ms = 30 };
	cr_assert_eq(app_init(&app, &cfg), 0);
	a_view(&v, 0, 5);
	app_on_update(&app, &v, NULL, 0, NULL, 0);
	cr_assert(app.st.have_view);
	cr_assert_not(app.animating);

	a_view(&v, 1, 7);
	app_on_update(&app, &v, &m, 1, &fx, 1);
	cr_assert(app.animating);
	cr_assert(app.st.anim);
	cr_assert_eq(app.st.view.x, 5, "the old position stays during the pause");
	/* Typed during the pause: a chat line and a step. Nothing may go out yet. */
	app_key(&app, '\r');
	app_key(&app, 'h');
	app_key(&app, 'i');
	app_key(&app, '\r');
	app_key(&app, '6');
	cr_assert_eq(f.nchat, 0);
	cr_assert_eq(f.ncmd, 0);
	/* A second update waits behind the first. */
	a_view(&v, 1, 8);
	app_on_update(&app, &v, NULL, 0, NULL, 0);
	while (app.animating)
		uv_run(&loop, UV_RUN_ONCE);
	cr_assert_eq(app.st.view.x, 8);
	cr_assert_eq(app.st.log_count, 2, "who moves first, then the update's message");
	cr_assert_eq(f.nchat, 1);
	cr_assert_str_eq(f.chat[0], "hi");
	cr_assert_eq(f.ncmd, 1);
	cr_assert_eq(f.cmd[0].type, CMD_STEP);
	cr_assert_eq(f.cmd[0].dir, DIR_E);

	app_quit(&app, 0);
	cr_assert_eq(f.quits, 1);
	cr_assert_eq(app_run(&app), 0);
	app_finish(&app);
	cr_assert_eq(uv_loop_close(&loop), 0, "a handle was left open");
}

Test(app, a_practice_duel_to_the_end)
{
	static struct app app;
	static struct practice s;
	struct keys keys;
	uv_loop_t loop;
	char dir[] = "/tmp/wizwar-test-app-XXXXXX", err[256];
	struct practice_config cfg = { .seed = 7, .bot_level = BOT_RANDOM, .name = "tester", .bot_ms = 1 };

	cr_assert_not_null(mkdtemp(dir));
	cfg.log_dir = dir;
	options_default(&cfg.opt);
	keys_init(&keys);
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(practice_init(&s, &loop, &cfg, err, sizeof err), 0, "%s", err);
	cr_assert_gt(s.port, 0, "the server listens on a port of its own choosing");
	struct app_config ac = { .loop = &loop, .keys = &keys, .session = &practice_ops, .session_ctx = &s,
		.input_fd = -1, .anim_ms = 1 };
	cr_assert_eq(app_init(&app, &ac), 0);
	cr_assert_eq(practice_start(&s, &app, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(app.st.name[0], "tester");
	cr_assert_str_eq(app.st.name[1], "random bot");

	/* End my turns at once (one key a turn: the server's answer takes a round trip); after some turns,
	 * forfeit through the quit prompt's "stay". */
	uint32_t pressed = UINT32_MAX;
	uint64_t t0 = uv_hrtime();
	while (app.st.view.result == RESULT_NONE && uv_hrtime() - t0 < 60 * 1000000000ULL) {
		if (state_my_turn(&app.st) && !app.animating && app.uhead == NULL && app.st.view.turn_no != pressed) {
			pressed = app.st.view.turn_no;
			if (app.st.view.turn_no >= 12) {
				app_key(&app, 'Q');
				cr_assert_eq(app.st.mode, MODE_QUIT);
				app_key(&app, 'r');
			} else {
				app_key(&app, '.');
			}
		}
		uv_run(&loop, UV_RUN_ONCE);
	}
	cr_assert_eq(app.st.view.result, RESULT_WIN1);
	cr_assert_eq(app.st.view.end_reason, END_RESIGNED);
	cr_assert_eq(app.st.mode, MODE_OVER);
	cr_assert_geq(app.st.view.turn_no, 12);
	bool said = false;
	for (unsigned i = 0; i < app.st.log_count; i++)
		if (state_log_get(&app.st, i)->kind == LOG_GAME && state_log_get(&app.st, i)->msg.id == MSG_YOU_RESIGNED)
			said = true;
	cr_assert(said, "the forfeit is in the log");
	cr_assert(s.have_final, "the server's end of the duel was seen");
	cr_assert_eq(s.final.result, RESULT_WIN1);

	/* Both players' clients check the revealed seed and log against what they were shown. */
	t0 = uv_hrtime();
	while ((s.sess.last_result[0] == '\0' || s.bot.games < 1) && uv_hrtime() - t0 < 10 * 1000000000ULL)
		uv_run(&loop, UV_RUN_ONCE);

	/* Over: Q leaves without asking, and the loop runs dry. */
	app_key(&app, 'Q');
	cr_assert(app.quitting);
	cr_assert_eq(app_run(&app), 0);
	app_finish(&app);
	practice_finish(&s);
	cr_assert_eq(uv_loop_close(&loop), 0, "a handle was left open");
	cr_assert_eq(s.bot.refused, 0, "the bot, deciding on the view it was sent, gave only legal commands");
	cr_assert_geq(s.bot.verified, 1, "the bot verified the host at the end");
	cr_assert(s.sess.ended_ok, "the person's client verified the host: %s", s.sess.last_result);

	/* The turn log holds the chat: only its owner may read it. */
	struct stat sb;
	cr_assert_eq(stat(s.log_path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600, "mode %o", (unsigned)(sb.st_mode & 0777));

	/* The turn log replays exactly. */
	FILE *fp = fopen(s.log_path, "rb");
	cr_assert_not_null(fp, "%s", s.log_path);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text, fp);
	fclose(fp);
	static struct turnlog_replay r;
	cr_assert_eq(turnlog_replay(text, n, &r, NULL, NULL), 0, "%s at line %d", r.error, r.line);
	cr_assert(r.ended);
	unlink(s.log_path);
	rmdir(dir);
}

/* A turn log that cannot be written costs the record, not the duel: practice starts with a warning. */
Test(app, practice_plays_on_without_its_log)
{
	static struct practice s;
	uv_loop_t loop;
	char dir[] = "/tmp/wizwar-test-nolog-XXXXXX", file[64], logdir[96], err[256];
	struct practice_config cfg = { .seed = 7, .bot_level = BOT_RANDOM, .name = "tester", .bot_ms = 1 };

	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/a-file", dir);
	FILE *f = fopen(file, "w");
	cr_assert_not_null(f);
	fclose(f);
	snprintf(logdir, sizeof logdir, "%s/logs", file); /* under a plain file: cannot be created */
	cfg.log_dir = logdir;
	options_default(&cfg.opt);
	cr_assert_eq(uv_loop_init(&loop), 0);
	cr_assert_eq(practice_init(&s, &loop, &cfg, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(s.log_path, "", "no log is written");
	cr_assert_not_null(strstr(s.log_warning, "cannot create"), "%s", s.log_warning);
	cr_assert_not_null(strstr(s.log_warning, "no turn log"), "%s", s.log_warning);
	cr_assert_gt(s.port, 0, "the duel's server is up all the same");
	practice_ops.quit(&s);
	uv_run(&loop, UV_RUN_DEFAULT);
	practice_finish(&s);
	cr_assert_eq(uv_loop_close(&loop), 0, "a handle was left open");
	unlink(file);
	rmdir(dir);
}
