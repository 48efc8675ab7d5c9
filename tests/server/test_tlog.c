/* SPDX-License-Identifier: MIT */
/* server/tlog: the turn log is plain while played and one gzip member once finished, a log cut at any byte resumes at its last whole turn, and so does a writer killed at random moments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <zlib.h>

#include "bot.h"
#include "tlog.h"
#include "spect.h"
#include "view.h"

/* A log's first two lines as this build writes them: the fixtures stand for its own logs, and a log of
 * other rules is one the turn log's reader refuses (common/turnlog.c), whatever tlog_peek reads. */
static void
put_head(gzFile f)
{
	cr_assert_gt(gzprintf(f, "wizwar-turnlog %d\nrules %d\n", TURNLOG_FORMAT, RULES_VERSION), 0);
}

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
	char path[256], done[300], cut[256], why[300];
	uint32_t turns_at[4096];
	size_t sizes[4096];
	int nsync = 0;

	options_default(&h.opt);
	snprintf(path, sizeof path, "/tmp/wizwar-tlog-%d.log", (int)getpid());
	snprintf(done, sizeof done, "%s.gz", path);
	snprintf(cut, sizeof cut, "/tmp/wizwar-tlog-%d-cut.log", (int)getpid());
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
		if (nsync % 50 == 7)
			tlog_chat(&t, p, "gg \xc3\xa9t\xc3\xa9");
		tlog_write(&t);
		/* Plain text while played, each write whole lines: no gzip header, no job. */
		sizes[nsync] = file_bytes(path, gz, sizeof gz);
		cr_assert(sizes[nsync] > 2 && gz[0] == 'w' && gz[sizes[nsync] - 1] == '\n');
		turns_at[nsync++] = g.turn_no;
	}
	tlog_end(&t, &g);
	uint64_t final_hash = game_hash(&g);
	size_t kept_len;
	char *kept = tlog_text(&t, &kept_len); /* what END reveals, from the records kept in memory */
	cr_assert_not_null(kept);
	tlog_write(&t);
	size_t total = file_bytes(path, gz, sizeof gz); /* the plain log, whole */
	cr_assert_eq(gz[0], 'w', "plain until the duel's log is closed");
	tlog_close(&t); /* then the file is compressed once, in the threadpool */
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	cr_expect_eq(access(path, F_OK), -1, "the plain log is gone once compressed");

	/* The finished log: one gzip member (a second member's header would follow the first's
	 * end), whose text is the plain log's, byte for byte. */
	{
		static uint8_t z[1 << 20], text[1 << 20];
		size_t zn = file_bytes(done, z, sizeof z);
		z_stream zs;
		memset(&zs, 0, sizeof zs);
		cr_assert_eq(inflateInit2(&zs, 16 + 15), Z_OK);
		zs.next_in = z;
		zs.avail_in = (uInt)zn;
		zs.next_out = text;
		zs.avail_out = sizeof text;
		cr_assert_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
		cr_expect_eq(zs.avail_in, 0, "%u bytes after the first gzip member", zs.avail_in);
		cr_expect_eq(zs.total_out, total);
		cr_expect(zs.total_out == total && memcmp(text, gz, total) == 0, "the gzip text is the plain log's");
		inflateEnd(&zs);
	}

	/* The whole file: a finished duel. */
	cr_assert_eq(tlog_load(done, &lr, why, sizeof why), 0, "%s", why);
	cr_expect(lr.ended);
	cr_expect_eq(game_hash(&lr.game), final_hash);
	/* The text kept in memory is the file's, byte for byte. */
	cr_expect_eq(kept_len, lr.len);
	cr_expect(kept_len == lr.len && memcmp(kept, lr.text, kept_len) == 0, "the log kept for END differs from the file");
	cr_expect(strstr(kept, "chat 0 gg") || strstr(kept, "chat 1 gg"));
	free(kept);
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
	unlink(done);
	unlink(cut);
}

/* A whole duel between two bots, deterministic: the same every call. Each state the duel
 * passes through at rest (after a command that did not end a turn, or after the turn's
 * hash) is remembered by its hash; the writer gets every command and writes it. */
#define KILL_CMDS_MAX 4000

static void
sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

struct kill_duel {
	uint64_t hash[KILL_CMDS_MAX + 1];
	int n;
};

static void
kill_play(struct kill_duel *d, struct tlog *t, uv_loop_t *loop, unsigned pause_us)
{
	static struct game g;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 91, { "a", "b" } };
	struct rng rng[2];
	struct view v;
	struct events ev;

	options_default(&h.opt);
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	d->n = 0;
	d->hash[d->n++] = game_hash(&g);
	rng_seed(&rng[0], 3);
	rng_seed(&rng[1], 4);
	while (g.result == RESULT_NONE && d->n < KILL_CMDS_MAX) {
		struct cmd c;
		int p = g.turn;
		view_build(&g, p, &v);
		bot_choose(&v, BOT_NORMAL, &rng[p], &c);
		if (game_apply(&g, p, &c, &ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			cr_assert_eq(game_apply(&g, p, &c, &ev), ERR_OK);
		}
		d->hash[d->n++] = game_hash(&g);
		if (t) {
			tlog_cmd(t, p, &c, &g, ev.turn_ended);
			if (g.result != RESULT_NONE)
				tlog_end(t, &g);
			tlog_write(t);
			uv_run(loop, UV_RUN_NOWAIT);
			if (pause_us)
				sleep_us((long)pause_us);
		}
	}
}

/* The claim of docs/turnlog.md: a host killed at any moment resumes at a state the duel
 * really passed through. A real process writes a duel's log and is killed (SIGKILL) at
 * random moments, mid-duel or while its finished log is compressed; each log it leaves
 * must load, at one of the duel's states. */
Test(tlog, a_writer_killed_at_random_moments_leaves_a_log_that_resumes)
{
	static struct kill_duel ref, got;
	static struct tlog_resume lr;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 91, { "a", "b" } };
	char path[256], done[300], why[300];
	struct rng pick;
	int resumed_mid = 0;

	kill_play(&ref, NULL, NULL, 0);
	cr_assert_gt(ref.n, 50);
	options_default(&h.opt);
	rng_seed(&pick, (uint64_t)getpid());
	snprintf(path, sizeof path, "/tmp/wizwar-tlog-kill-%d.log", (int)getpid());
	snprintf(done, sizeof done, "%s.gz", path);
	for (int round = 0; round < 30; round++) {
		int ready[2];
		cr_assert_eq(pipe(ready), 0);
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			static struct tlog t;
			static struct game g0;
			uv_loop_t loop;
			close(ready[0]);
			uv_loop_init(&loop);
			game_init(&g0, &h.opt, h.seed);
			if (tlog_open(&t, &loop, path, &h, game_hash(&g0), "# wizwar-server turn-time 0\n", why, sizeof why) != 0)
				_exit(2);
			if (write(ready[1], "x", 1) != 1)
				_exit(2);
			kill_play(&got, &t, &loop, 100);
			tlog_close(&t);
			uv_run(&loop, UV_RUN_DEFAULT);
			_exit(0);
		}
		close(ready[1]);
		char x;
		cr_assert_eq(read(ready[0], &x, 1), 1, "the writer did not start");
		close(ready[0]);
		/* Anywhere in the duel: the child plays ref.n commands at about 100 µs or more each. */
		sleep_us((long)rng_below(&pick, (uint32_t)(ref.n * 150)));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		memset(&lr, 0, sizeof lr);
		/* Plain, or (killed after the end, during or after the compression) both or the gzip. */
		const char *left = access(path, F_OK) == 0 ? path : done;
		cr_assert_eq(tlog_load(left, &lr, why, sizeof why), 0, "round %d: %s", round, why);
		unlink(done);
		uint64_t hh = game_hash(&lr.game);
		bool found = false;
		for (int i = 0; i < ref.n && !found; i++)
			found = ref.hash[i] == hh;
		cr_expect(found, "round %d: resumed at turn %u, a state the duel never passed through", round,
		          lr.game.turn_no);
		resumed_mid += lr.game.turn_no > 0 && !lr.ended;
		tlog_resume_free(&lr);
	}
	/* Most kills land mid-duel (the rest before the first turn or after the end). */
	cr_expect_gt(resumed_mid, 5);
	unlink(path);
}

/* A resumed log goes on in place, plain; one from before logs were plain while played (a
 * gzip file) goes on as plain text beside it, and the gzip file goes once the copy is whole. */
Test(tlog, a_resumed_gzip_log_goes_on_plain)
{
	static struct game g;
	static struct tlog t;
	static struct tlog_resume lr;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 78, { "a", "b" } };
	struct cmd pass = { CMD_PASS, 0, 0 };
	struct events ev;
	char gzpath[300], plain[256], why[300], buf[1024];
	uint8_t head[2];

	options_default(&h.opt);
	snprintf(plain, sizeof plain, "/tmp/wizwar-tlog-again-%d.log", (int)getpid());
	snprintf(gzpath, sizeof gzpath, "%s.gz", plain);
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	gzFile f = gzopen(gzpath, "wb");
	cr_assert_not_null(f);
	int n = turnlog_format_header(&h, game_hash(&g), buf, sizeof buf);
	gzwrite(f, buf, (unsigned)n);
	int first = g.turn;
	cr_assert_eq(game_apply(&g, first, &pass, &ev), ERR_OK);
	n = turnlog_format_cmd(first, &pass, buf, sizeof buf);
	if (ev.turn_ended)
		n += turnlog_format_hash(g.turn_no, game_hash(&g), buf + n, sizeof buf - (size_t)n);
	gzwrite(f, buf, (unsigned)n);
	cr_assert_eq(gzclose(f), Z_OK);
	cr_assert_eq(tlog_load(gzpath, &lr, why, sizeof why), 0, "%s", why);
	cr_assert_eq(tlog_open_prefix(&t, NULL, gzpath, lr.text, lr.len, why, sizeof why), 0, "%s", why);
	tlog_resume_free(&lr);
	cr_expect_eq(access(gzpath, F_OK), -1, "the gzip log is replaced");
	cr_expect_str_eq(t.path, plain);
	for (int i = 0; i < 3; i++) {
		int p = g.turn;
		cr_assert_eq(game_apply(&g, p, &pass, &ev), ERR_OK);
		tlog_cmd(&t, p, &pass, &g, ev.turn_ended);
		tlog_write(&t);
	}
	tlog_close(&t); /* not ended: it stays plain, to be resumed */
	cr_assert_eq(file_bytes(plain, head, sizeof head), 2);
	cr_expect_eq(head[0], 'w', "plain text");
	cr_assert_eq(tlog_load(plain, &lr, why, sizeof why), 0, "%s", why);
	cr_expect_eq(game_hash(&lr.game), game_hash(&g), "all four commands on disk");
	cr_expect_eq(lr.game.turn_no, g.turn_no);
	tlog_resume_free(&lr);
	unlink(plain);
}

/* Logs written before the writer went off the loop are one gzip stream, flushed after every
 * command (gzwrite + gzflush(Z_SYNC_FLUSH)): they load as before, whole or cut short. */
Test(tlog, an_old_single_stream_log_still_loads)
{
	static struct kill_duel ref;
	static struct game g;
	static struct tlog_resume lr;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 91, { "a", "b" } };
	struct rng rng[2];
	struct view v;
	struct events ev;
	char path[256], buf[1024], why[300];
	int n;

	kill_play(&ref, NULL, NULL, 0);
	options_default(&h.opt);
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	snprintf(path, sizeof path, "/tmp/wizwar-tlog-old-%d.log.gz", (int)getpid());
	gzFile f = gzopen(path, "wb6");
	cr_assert(f);
	n = turnlog_format_header(&h, game_hash(&g), buf, sizeof buf);
	cr_assert_gt(n, 0);
	gzwrite(f, buf, (unsigned)n);
	gzputs(f, "# wizwar-server turn-time 0\n");
	gzflush(f, Z_SYNC_FLUSH);
	rng_seed(&rng[0], 3);
	rng_seed(&rng[1], 4);
	while (g.result == RESULT_NONE) {
		struct cmd c;
		int p = g.turn, m = 0;
		view_build(&g, p, &v);
		bot_choose(&v, BOT_NORMAL, &rng[p], &c);
		if (game_apply(&g, p, &c, &ev) != ERR_OK) {
			c = (struct cmd){ CMD_PASS, 0, 0 };
			cr_assert_eq(game_apply(&g, p, &c, &ev), ERR_OK);
		}
		n = turnlog_format_cmd(p, &c, buf, sizeof buf);
		if (ev.turn_ended)
			m = turnlog_format_hash(g.turn_no, game_hash(&g), buf + n, sizeof buf - (size_t)n);
		gzwrite(f, buf, (unsigned)(n + m));
		gzflush(f, Z_SYNC_FLUSH);
	}
	n = turnlog_format_end(&g, buf, sizeof buf);
	gzwrite(f, buf, (unsigned)n);
	gzclose(f);
	memset(&lr, 0, sizeof lr);
	cr_assert_eq(tlog_load(path, &lr, why, sizeof why), 0, "%s", why);
	cr_expect(lr.ended);
	cr_expect_eq(game_hash(&lr.game), game_hash(&g));
	cr_expect_eq(game_hash(&lr.game), ref.hash[ref.n - 1], "the same duel as the new writer's");
	tlog_resume_free(&lr);
	unlink(path);
}

/* tlog_peek's `ended`: a finished duel is known by its whole `end` line (what may follow it:
 * comments and chat); a torn end line, or "end" inside a chat line, is not one. */
static bool
peek_ended(const char *path)
{
	struct tlog_peek pk;
	char why[300];

	return tlog_peek(path, &pk, why, sizeof why) == 0 && pk.ended;
}

Test(tlog, ended_is_the_whole_end_line)
{
	static const struct {
		const char *tail;
		bool ended;
	} cases[] = {
		{ "0 step 8\n", false },
		{ "0 step 8\nend win0 killed 19967e85f1745753\n", true },
		{ "0 step 8\nend win0 killed 19967e85f1745753\nchat 1 gg\n# wizwar-server x\n", true },
		{ "0 step 8\nend win0 killed 1996", false },
		{ "0 step 8\nchat 0 end of story\n", false },
	};
	char path[128];

	snprintf(path, sizeof path, "/tmp/wizwar-test-ended-%d.log.gz", (int)getpid());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gzFile f = gzopen(path, "wb");
		cr_assert_not_null(f);
		put_head(f);
		gzputs(f, cases[i].tail);
		cr_assert_eq(gzclose(f), Z_OK);
		cr_expect_eq(peek_ended(path), cases[i].ended, "case %zu", i);
	}
	unlink(path);
	cr_expect_not(peek_ended(path), "a file that is not there");
}

/* The room comment, read the same by tlog_load (what a resume replays) and tlog_peek (what
 * server --resume chooses by): a room code as a client's --room is checked, or refused with its
 * line; a second comment naming another room is refused; other comments are not it. */
Test(tlog, the_room_comment_is_a_room_code_or_refused)
{
	static const struct {
		const char *extra;
		int kind;
		const char *code;
	} cases[] = {
		{ "", TLOG_ROOM_NONE, "" },
		{ "# wizwar-server room AbC-9_z\n", TLOG_ROOM_OK, "AbC-9_z" },
		{ "# wizwar-server room AbC\r\n", TLOG_ROOM_OK, "AbC" },
		{ "# wizwar-server room 0123456789abcdef\n", TLOG_ROOM_OK, "0123456789abcdef" },
		{ "# wizwar-server room abc\n# wizwar-server room abc\n", TLOG_ROOM_OK, "abc" },
		{ "# wizwar-server roomy abc\n# wizwar-server rooms\n", TLOG_ROOM_NONE, "" },
		{ "# wizwar-server room 0123456789abcdefg\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room \n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room  abc\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room abc \n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room a b\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room a/b\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room \xc3\xa9t\xc3\xa9\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room abc\n# wizwar-server room abd\n", TLOG_ROOM_BAD, "" },
		{ "# wizwar-server room a/b\n# wizwar-server room abc\n", TLOG_ROOM_BAD, "" },
	};
	static struct tlog t;
	static struct tlog_resume lr;
	static struct game g;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 5, { "a", "b" } };
	struct tlog_peek pk;
	char path[128], why[300];

	options_default(&h.opt);
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	snprintf(path, sizeof path, "/tmp/wizwar-test-room-%d.log.gz", (int)getpid());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(tlog_open(&t, NULL, path, &h, game_hash(&g), cases[i].extra, why, sizeof why), 0, "%s", why);
		tlog_close(&t);
		cr_assert_eq(tlog_load(path, &lr, why, sizeof why), 0, "case %zu: %s", i, why);
		cr_assert_eq(tlog_peek(path, &pk, why, sizeof why), 0, "case %zu: %s", i, why);
		cr_expect_eq(lr.room.kind, cases[i].kind, "case %zu: load", i);
		cr_expect_eq(pk.room.kind, cases[i].kind, "case %zu: peek", i);
		cr_expect_not(pk.ended, "case %zu", i);
		if (cases[i].kind == TLOG_ROOM_OK) {
			cr_expect_str_eq(lr.room.code, cases[i].code, "case %zu", i);
			cr_expect_str_eq(pk.room.code, cases[i].code, "case %zu", i);
		}
		if (cases[i].kind == TLOG_ROOM_BAD) {
			/* The line it is on (the header's seven come first), the same from both readers. */
			cr_expect(strncmp(pk.room.why, "line ", 5) == 0 && atoi(pk.room.why + 5) >= 8, "case %zu: %s", i,
			          pk.room.why);
			cr_expect_str_eq(lr.room.why, pk.room.why, "case %zu", i);
		}
		tlog_resume_free(&lr);
	}
	unlink(path);
}

/* Bytes no writer makes, read by tlog_peek (what server --resume reads of every log before it
 * replays any): a NUL, a control or a long line in the code are refused, a torn room line says
 * nothing, and no byte of the reason is the file's. */
Test(tlog, a_hostile_room_comment_is_refused_without_its_bytes)
{
	static const struct {
		const char *bytes;
		size_t len;
		int kind;
	} cases[] = {
		{ "# wizwar-server room ab\0cd\n", 27, TLOG_ROOM_BAD },
		{ "# wizwar-server room ab\x1b[2Jcd\n", 30, TLOG_ROOM_BAD },
		{ "# wizwar-server room abc", 24, TLOG_ROOM_NONE },
		{ "# wizwar-server room abc\n# wizwar-server room xyz", 49, TLOG_ROOM_OK },
	};
	static char big[8192];
	char path[128], why[300];
	struct tlog_peek pk;

	snprintf(path, sizeof path, "/tmp/wizwar-test-hostile-room-%d.log.gz", (int)getpid());
	for (size_t i = 0; i <= sizeof cases / sizeof cases[0]; i++) {
		gzFile f = gzopen(path, "wb");
		cr_assert_not_null(f);
		put_head(f);
		if (i < sizeof cases / sizeof cases[0]) {
			gzwrite(f, cases[i].bytes, (unsigned)cases[i].len);
		} else {
			/* A code of 8,000 bytes. */
			size_t n = (size_t)snprintf(big, sizeof big, "# wizwar-server room ");
			memset(big + n, 'a', sizeof big - n - 1);
			big[sizeof big - 1] = '\n';
			gzwrite(f, big, sizeof big);
		}
		cr_assert_eq(gzclose(f), Z_OK);
		cr_assert_eq(tlog_peek(path, &pk, why, sizeof why), 0, "case %zu: %s", i, why);
		cr_expect_eq(pk.room.kind, i < sizeof cases / sizeof cases[0] ? cases[i].kind : TLOG_ROOM_BAD, "case %zu", i);
		if (pk.room.kind == TLOG_ROOM_OK)
			cr_expect_str_eq(pk.room.code, "abc", "case %zu", i);
		for (const char *c = pk.room.why; *c; c++)
			cr_expect(*c >= ' ' && *c < 0x7f, "case %zu: a byte of the file in the reason: %s", i, pk.room.why);
		cr_expect(strstr(pk.room.why, "cd") == NULL && strstr(pk.room.why, "aaaa") == NULL, "case %zu", i);
	}
	unlink(path);
	cr_expect_eq(tlog_peek(path, &pk, why, sizeof why), -1, "a file that is not there");
	cr_expect(why[0] != '\0');
}

/* END shows the players the log without the room comment (a room code is a passwordless
 * room's only secret, and a log is made to be kept and shared); the server's own copy keeps
 * it for `server --resume`. Nothing else differs, and the players' copy is a whole log. */
Test(tlog, the_players_copy_has_no_room_code)
{
	static struct tlog t;
	static struct game g;
	static struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 4242, { "ann", "bob" } };
	static const char room[] = "# wizwar-server room oak-42\n";
	struct cmd pass = { CMD_PASS, 0, 0 }, resign = { CMD_RESIGN, 0, 0 };
	struct events ev;
	char why[200];
	size_t n, m;

	options_default(&h.opt);
	cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
	cr_assert_eq(tlog_open(&t, NULL, NULL, &h, game_hash(&g), "# wizwar-server room oak-42\n# wizwar-server turn-time 0\n",
	                       why, sizeof why), 0, "%s", why);
	int p = g.turn;
	cr_assert_eq(game_apply(&g, p, &pass, &ev), ERR_OK);
	tlog_cmd(&t, p, &pass, &g, ev.turn_ended);
	tlog_chat(&t, p, "# wizwar-server room is not a comment here");
	p = g.turn;
	cr_assert_eq(game_apply(&g, p, &resign, &ev), ERR_OK);
	tlog_cmd(&t, p, &resign, &g, ev.turn_ended);
	tlog_end(&t, &g);
	char *all = tlog_text(&t, &n), *mine = tlog_text_players(&t, &m);
	cr_assert_not_null(all);
	cr_assert_not_null(mine);
	char *at = strstr(all, room);
	cr_assert_not_null(at, "the server's copy has the room comment:\n%s", all);
	cr_expect_null(strstr(mine, "\n# wizwar-server room "), "the players' copy has it:\n%s", mine);
	cr_expect_not_null(strstr(mine, "# wizwar-server turn-time 0\n"), "the other comments stay");
	cr_expect_not_null(strstr(mine, "chat"), "the chat stays");
	/* Byte for byte the server's copy less that one line. */
	cr_assert_eq(m, n - (sizeof room - 1));
	cr_expect_eq(strlen(mine), m);
	cr_expect_eq(memcmp(mine, all, (size_t)(at - all)), 0);
	cr_expect_str_eq(mine + (at - all), at + (sizeof room - 1));
	/* And it is a whole log: it replays to the end the server saw. */
	static struct turnlog_replay rp;
	cr_expect_eq(turnlog_replay(mine, m, &rp, NULL, NULL), 0, "line %d: %s", rp.line, rp.error);
	cr_expect(rp.ended);
	cr_expect_eq(game_hash(&rp.game), game_hash(&g));
	free(all);
	free(mine);
	tlog_close(&t);
}

/* The spectators' options a log keeps (`# wizwar-server spectators`), as room.c writes them: the last
 * comment wins (a duel's "off" after its header's options), anything else is ignored, and a log
 * without one (written before the comment) says nothing, so that the room keeps its default. */
Test(tlog, the_spectators_comment_gives_back_the_options)
{
	static const struct {
		const char *extra, *later;
		bool have, allowed;
		int mode, delay, player;
	} cases[] = {
		{ "", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators shared\n", NULL, true, true, SPECT_SHARED, 0, 0 },
		{ "# wizwar-server spectators after\n", NULL, true, true, SPECT_AFTER, 0, 0 },
		{ "# wizwar-server spectators off\n", NULL, true, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 3 1\n", NULL, true, true, SPECT_DELAYED, 3, 1 },
		{ "# wizwar-server spectators delayed 20 0\n", NULL, true, true, SPECT_DELAYED, 20, 0 },
		{ "# wizwar-server spectators delayed 3 1\n", "wizwar-server spectators off", true, false, SPECT_DELAYED, 3, 1 },
		{ "# wizwar-server spectators delayed 21 0\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 0 0\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 3 2\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 03 1\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed  3 1\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 3 1 \n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed +3 1\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators delayed 3\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators Shared\n", NULL, false, false, 0, 0, 0 },
		{ "# wizwar-server spectators\n", NULL, false, false, 0, 0, 0 },
	};
	static struct tlog t;
	static struct tlog_resume lr;
	static struct game g;
	struct turnlog_header h = { TURNLOG_FORMAT, RULES_VERSION, { 0 }, 5, { "a", "b" } };
	struct cmd pass = { CMD_PASS, 0, 0 };
	struct events ev;
	char path[128], why[300];

	options_default(&h.opt);
	snprintf(path, sizeof path, "/tmp/wizwar-test-spect-%d.log", (int)getpid());
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert_eq(game_init(&g, &h.opt, h.seed), ERR_OK);
		cr_assert_eq(tlog_open(&t, NULL, path, &h, game_hash(&g), cases[i].extra, why, sizeof why), 0, "%s", why);
		int p = g.turn;
		cr_assert_eq(game_apply(&g, p, &pass, &ev), ERR_OK);
		tlog_cmd(&t, p, &pass, &g, ev.turn_ended);
		if (cases[i].later)
			tlog_comment(&t, cases[i].later);
		tlog_close(&t);
		cr_assert_eq(tlog_load(path, &lr, why, sizeof why), 0, "case %zu: %s", i, why);
		cr_expect_eq(lr.have_spect, cases[i].have, "case %zu: have", i);
		if (cases[i].have) {
			cr_expect_eq(lr.spect_allowed, cases[i].allowed, "case %zu: allowed", i);
			if (cases[i].allowed || cases[i].later) {
				cr_expect_eq(lr.spect_mode, cases[i].mode, "case %zu: mode", i);
				cr_expect_eq(lr.spect_delay, cases[i].delay, "case %zu: delay", i);
				cr_expect_eq(lr.spect_player, cases[i].player, "case %zu: player", i);
			}
		}
		tlog_resume_free(&lr);
		unlink(path);
	}
}
