/* SPDX-License-Identifier: MIT */
/* store_target: the store a test of it uses, either driver: shared by server/ratings and server/ratings-wait. */
#ifndef WW_TEST_STORE_TARGET_H
#define WW_TEST_STORE_TARGET_H

#include <stddef.h>

/* WIZWAR_TEST_STORE (a PostgreSQL URI: tests/server/pgunit.sh starts one, a fresh database for each
 * test) or a new SQLite file in `dir` (a mkdtemp template), its path written to `path`. */
const char *store_target(char *dir, char *path, size_t len);
/* The SQLite file, its side files and `dir` removed; nothing for PostgreSQL. */
void store_target_rm(const char *dir, const char *path);

#endif
