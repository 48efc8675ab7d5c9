/* SPDX-License-Identifier: MIT */
/* server/logtree: the log tree's paths by date, and expiry: old finished logs go, recent ones, duels being played, the key and anything else stay. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <criterion/criterion.h>

#include "logtree.h"

static char root[64];

static void
put(const char *rel, time_t mtime)
{
	char path[512], dir[512];
	struct utimbuf ut = { mtime, mtime };

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
		cr_assert(mkdir(dir, 0700) == 0 || errno == EEXIST, "%s: %s", dir, strerror(errno));
	}
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs("some bytes of a log\n", f);
	fclose(f);
	cr_assert_eq(utime(path, &ut), 0);
}

static bool
there(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

static void
setup(void)
{
	snprintf(root, sizeof root, "/tmp/wizwar-logtree-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	cr_expect_eq(system(cmd), 0);
}

Test(logtree, paths_by_date, .init = setup, .fini = teardown)
{
	char buf[512];
	struct tm tm = { .tm_year = 2026 - 1900, .tm_mon = 0, .tm_mday = 5, .tm_hour = 12, .tm_isdst = -1 };
	time_t t = mktime(&tm);

	cr_assert(logtree_done_path(buf, sizeof buf, "/L", t, "/L/playing/wizwar-r-20260105-120000-1.log"));
	cr_expect_str_eq(buf, "/L/2026/01/05/wizwar-r-20260105-120000-1.log.gz");
	cr_assert(logtree_playing_path(buf, sizeof buf, "/L", "x.log"));
	cr_expect_str_eq(buf, "/L/playing/x.log");
	cr_expect_not(logtree_done_path(buf, 10, "/L", t, "x.log"), "a path that does not fit is refused");
}

Test(logtree, old_finished_logs_go_and_nothing_else, .init = setup, .fini = teardown)
{
	time_t now = time(NULL), old = now - 40 * 86400, recent = now - 3600;
	char today[64], linkdir[600], cmd[700];
	struct logtree_count c;
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(today, sizeof today, "%Y/%m/%d", &tm);
	put("2020/01/01/wizwar-a-20200101-000000-1.log.gz", old);   /* goes, and its folders with it */
	put("2020/01/02/wizwar-b-20200102-000000-1.log.gz", old);   /* goes ... */
	put("2020/01/02/wizwar-c-20200102-000000-2.log.gz.tmp", old); /* a compression cut short: goes */
	put("2020/01/02/README", old);                             /* ... but not this, nor its folder */
	put("2020/02/01/wizwar-d-20200201-000000-1.log.gz", recent); /* touched since: stays */
	char rel[128];
	snprintf(rel, sizeof rel, "%s/wizwar-e-1.log.gz", today);
	put(rel, now);                                             /* finished today: stays */
	put("playing/wizwar-f-20200101-000000-1.log", old);       /* a duel under way (or left): never expired */
	put("server.key", old);                                    /* the key, when the logs share its folder */
	put("wizwar-g-20200101-000000-1.log.gz", old);             /* a flat log of an older server: left */
	put("20200/01/01/x.log.gz", old);                          /* not a date folder */
	/* A date folder that is a link elsewhere: never followed. */
	put("elsewhere/2020/01/01/wizwar-h-1.log.gz", old);
	snprintf(linkdir, sizeof linkdir, "%s/2019", root);
	snprintf(cmd, sizeof cmd, "%s/elsewhere/2020", root);
	cr_assert_eq(symlink(cmd, linkdir), 0);

	logtree_expire(root, 0, now, &c);
	cr_expect_eq(c.files, 0, "--log-keep 0 keeps everything");
	cr_expect(there("2020/01/01/wizwar-a-20200101-000000-1.log.gz"));

	logtree_expire(root, 30, now, &c);
	cr_expect_eq(c.files, 3, "%u removed", c.files);
	cr_expect_eq(c.failed, 0, "%s", c.why);
	cr_expect_eq(c.bytes, 3 * strlen("some bytes of a log\n"));
	cr_expect_not(there("2020/01/01"), "an emptied day folder goes, and its month");
	cr_expect_not(there("2020/01/02/wizwar-b-20200102-000000-1.log.gz"));
	cr_expect_not(there("2020/01/02/wizwar-c-20200102-000000-2.log.gz.tmp"));
	cr_expect(there("2020/01/02/README"), "what is not a log stays");
	cr_expect(there("2020/02/01/wizwar-d-20200201-000000-1.log.gz"), "a recent log stays");
	cr_expect(there(rel), "today's log stays");
	cr_expect(there("playing/wizwar-f-20200101-000000-1.log"), "a duel being played stays");
	cr_expect(there("server.key"), "the key stays");
	cr_expect(there("wizwar-g-20200101-000000-1.log.gz"), "a flat log stays");
	cr_expect(there("20200/01/01/x.log.gz"));
	cr_expect(there("elsewhere/2020/01/01/wizwar-h-1.log.gz"), "a link was followed");
	cr_expect(there("2019"), "the link itself stays");

	/* Again: nothing more to do. */
	logtree_expire(root, 30, now, &c);
	cr_expect_eq(c.files, 0);
}
