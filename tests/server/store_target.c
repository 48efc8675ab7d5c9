/* SPDX-License-Identifier: MIT */
/* store_target: the store a test of it uses, a PostgreSQL database or a fresh SQLite file. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "db.h"
#include "store_target.h"

const char *
store_target(char *dir, char *path, size_t len)
{
	const char *pg = getenv("WIZWAR_TEST_STORE");

	if (pg && *pg)
		return pg;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/store.db", dir);
	return path;
}

void
store_target_rm(const char *dir, const char *path)
{
	char side[320];

	if (db_is_pg(path))
		return;
	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
	rmdir(dir);
}
