/* SPDX-License-Identifier: MIT */
/* client/ident: the player's key file: made 0600 on first use and the same key after, refused when others may
 * read it, when it is not a regular file or a symlink, or not a key; `wizwar id` prints its fingerprint. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "ident.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/wizwar-idkey-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(ident, .init = setup, .fini = teardown);

Test(ident, made_0600_on_first_use_then_reused)
{
	char path[128], why[400];
	struct auth_ident a, b;
	bool created;
	struct stat st;
	uint8_t sig[PROTO_IDENT_SIG_LEN], h[PROTO_HASH_LEN];

	snprintf(path, sizeof path, "%s/id.key", dir);
	cr_assert_eq(ident_load(path, &a, &created, why, sizeof why), 0, "%s", why);
	cr_expect(created);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "mode %03o", (unsigned)(st.st_mode & 0777));
	cr_assert_eq(ident_load(path, &b, &created, why, sizeof why), 0, "%s", why);
	cr_expect(!created, "a second key was made");
	cr_expect(memcmp(a.pk, b.pk, sizeof a.pk) == 0, "the key changed between runs");
	/* The key it reads signs as the one it made. */
	memset(h, 0x5a, sizeof h);
	auth_ident_sign(&b, h, sig);
	cr_expect(auth_ident_verify(a.pk, h, sig));
	h[0] ^= 1;
	cr_expect(!auth_ident_verify(a.pk, h, sig), "a signature verified over another hash");
	/* Nothing but the key file is left in the folder (no temporary file). */
	char cmd[200];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = id.key", dir);
	cr_expect_eq(system(cmd), 0, "a temporary file was left beside the key");
}

Test(ident, refused_when_others_may_read_it)
{
	char path[128], why[400];
	struct auth_ident a;
	bool created;

	snprintf(path, sizeof path, "%s/id.key", dir);
	cr_assert_eq(ident_load(path, &a, &created, why, sizeof why), 0, "%s", why);
	for (unsigned mode = 0640; mode; mode = mode == 0640 ? 0604 : 0) {
		cr_assert_eq(chmod(path, mode), 0);
		cr_expect_neq(ident_load(path, &a, &created, why, sizeof why), 0, "mode %03o was accepted", mode);
		cr_expect(strstr(why, "may be read by others") != NULL, "%s", why);
	}
	cr_assert_eq(chmod(path, 0600), 0);
	cr_expect_eq(ident_load(path, &a, &created, why, sizeof why), 0, "%s", why);
}

Test(ident, refused_when_not_a_key_file)
{
	char path[128], link[128], why[400];
	struct auth_ident a;
	bool created;
	int fd;

	snprintf(path, sizeof path, "%s/id.key", dir);
	cr_assert_geq(fd = open(path, O_WRONLY | O_CREAT, 0600), 0);
	cr_assert_eq(write(fd, "wizwar-id-1 00\n", 15), 15);
	close(fd);
	cr_expect_neq(ident_load(path, &a, &created, why, sizeof why), 0);
	cr_expect(strstr(why, "not a wizwar key") != NULL, "%s", why);
	unlink(path);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_expect_neq(ident_load(path, &a, &created, why, sizeof why), 0, "a directory was taken for a key");
	rmdir(path);
	/* A symlink planted where the key goes is not followed (nor written through). */
	snprintf(link, sizeof link, "%s/elsewhere", dir);
	cr_assert_eq(symlink(link, path), 0);
	cr_expect_neq(ident_load(path, &a, &created, why, sizeof why), 0, "a symlink was followed");
	cr_expect_neq(access(link, F_OK), 0, "a key was written through the symlink");
}
