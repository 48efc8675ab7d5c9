/* SPDX-License-Identifier: MIT */
/* client/seatfile: the seat file keeps the token, the commitment and this client's part of the seed; a file of
 * another format, another key, or one others may read is not used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "seatfile.h"

static char dir[200], path[300];

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/wizwar-test-seatfile-%d", (int)getpid());
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/seats/one", dir);
}

static void
teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

static const struct seatfile_key key = { "127.0.0.1", 7727, "", "Jo" };

static void
fill(struct seatfile_seat *s, bool part)
{
	memset(s, 0, sizeof *s);
	s->token_len = PROTO_TOKEN_MAX;
	for (int i = 0; i < PROTO_TOKEN_MAX; i++)
		s->token[i] = (uint8_t)(0xe0 + i);
	s->has_commit = true;
	for (int i = 0; i < PROTO_COMMIT_LEN; i++)
		s->commit[i] = (uint8_t)i;
	s->have_part = part;
	if (part)
		for (int i = 0; i < PROTO_PART_LEN; i++)
			s->part[i] = (uint8_t)(0x20 + i);
	s->part_bits = 2;
}

TestSuite(seatfile, .init = setup, .fini = teardown);

Test(seatfile, keeps_the_part_of_the_seed)
{
	struct seatfile_seat in, out;

	for (int part = 0; part < 2; part++) {
		fill(&in, part);
		cr_assert_eq(seatfile_save(path, &key, &in), 0);
		cr_assert(seatfile_load(path, &key, &out));
		cr_expect_eq(out.token_len, in.token_len);
		cr_expect(memcmp(out.token, in.token, in.token_len) == 0);
		cr_expect(out.has_commit);
		cr_expect(memcmp(out.commit, in.commit, PROTO_COMMIT_LEN) == 0);
		cr_expect_eq(out.have_part, (bool)part);
		cr_expect(memcmp(out.part, in.part, PROTO_PART_LEN) == 0);
		cr_expect_eq(out.part_bits, 2);
	}
}

/* Between duels (the END in, the next START not yet) the file keeps the token and no commitment:
 * a rerun takes the next START's on first sight. */
Test(seatfile, between_duels_no_commitment)
{
	struct seatfile_seat in, out;

	fill(&in, false);
	in.has_commit = false;
	in.part_bits = 0;
	cr_assert_eq(seatfile_save(path, &key, &in), 0);
	cr_assert(seatfile_load(path, &key, &out));
	cr_expect_eq(out.token_len, in.token_len);
	cr_expect(memcmp(out.token, in.token, in.token_len) == 0);
	cr_expect_not(out.has_commit, "a commitment read back from 'commit -'");
	cr_expect_not(out.have_part);
}

Test(seatfile, another_key_or_format_is_not_used)
{
	struct seatfile_seat in, out;
	struct seatfile_key other = key;
	FILE *f;

	fill(&in, true);
	cr_assert_eq(seatfile_save(path, &key, &in), 0);
	other.name = "Jim";
	cr_expect_not(seatfile_load(path, &other, &out), "another player's seat");
	/* A protocol-3 client's file: no part in it; the server it names would refuse us anyway. */
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "wizwar-seat 1\nkey 127.0.0.1 7727 - Jo\ntoken e0e1e2e3e4e5e6e7e8e9eaebecedeeef\ncommit ");
	for (int i = 0; i < PROTO_COMMIT_LEN; i++)
		fprintf(f, "%02x", i);
	fprintf(f, "\n");
	fclose(f);
	chmod(path, 0600);
	cr_expect_not(seatfile_load(path, &key, &out), "an old seat file");
	/* A part cut short, and parts bits out of range. */
	cr_assert_eq(seatfile_save(path, &key, &in), 0);
	f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, -12, SEEK_END);
	fprintf(f, "\nparts 7\n");
	fclose(f);
	cr_expect_not(seatfile_load(path, &key, &out), "a broken file");
	cr_assert_eq(seatfile_save(path, &key, &in), 0);
	chmod(path, 0644);
	cr_expect_not(seatfile_load(path, &key, &out), "a file others may read");
}

/* The hex of a seat file is read as it is written, in lower case and whole bytes: an upper-case
 * digit, an odd digit or a token longer than the protocol's ends the digits there, and the
 * line no longer reads as the format. */
static bool
load_text(const char *token)
{
	struct seatfile_seat out;
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, "wizwar-seat 2\nkey 127.0.0.1 7727 - Jo\ntoken %s\ncommit -\npart -\nparts 0\n", token);
	fclose(f);
	chmod(path, 0600);
	return seatfile_load(path, &key, &out);
}

Test(seatfile, hex_as_written_only)
{
	struct seatfile_seat in;
	char tok[2 * PROTO_TOKEN_MAX + 8];

	fill(&in, false);
	cr_assert_eq(seatfile_save(path, &key, &in), 0); /* makes the seats folder */
	memset(tok, 'a', 2 * PROTO_TOKEN_MIN);
	tok[2 * PROTO_TOKEN_MIN] = '\0';
	cr_expect(load_text(tok), "the shortest token");
	tok[0] = 'A';
	cr_expect_not(load_text(tok), "an upper-case digit");
	tok[0] = 'a';
	strcat(tok, "a");
	cr_expect_not(load_text(tok), "an odd digit");
	memset(tok, 'b', 2 * PROTO_TOKEN_MAX + 2);
	tok[2 * PROTO_TOKEN_MAX + 2] = '\0';
	cr_expect_not(load_text(tok), "a token longer than the protocol's");
	tok[2 * PROTO_TOKEN_MAX] = '\0';
	cr_expect(load_text(tok), "the longest token");
	cr_expect_not(load_text(""), "no token");
}

/* Two clients of one key running at once get two files; a released (or killed) one's file is
 * the next claimer's; the claim's lock file goes with the release. */
Test(seatfile, a_second_client_of_one_key_claims_another_file)
{
	char a[300], b[300], c[300], lock[320];
	struct seatfile_claim ca, cb, cc;
	struct seatfile_seat in, out;

	cr_assert_geq(seatfile_claim(dir, &key, a, sizeof a, &ca), 0);
	cr_assert_geq(seatfile_claim(dir, &key, b, sizeof b, &cb), 0);
	cr_expect_eq(ca.slot, 0);
	cr_expect_eq(cb.slot, 1);
	cr_expect_str_neq(a, b);
	fill(&in, true);
	cr_assert_eq(seatfile_save(a, &key, &in), 0);
	in.token[0] ^= 1;
	cr_assert_eq(seatfile_save(b, &key, &in), 0);
	cr_assert(seatfile_load(a, &key, &out));
	cr_expect_eq(out.token[0], 0xe0, "the second client's token went into the first one's file");

	/* The first one goes: its file is the next claimer's, and its lock file is gone. */
	seatfile_release(a, &ca);
	snprintf(lock, sizeof lock, "%s.lock", a);
	cr_expect_neq(access(lock, F_OK), 0);
	cr_assert_geq(seatfile_claim(dir, &key, c, sizeof c, &cc), 0);
	cr_expect_eq(cc.slot, 0);
	cr_expect_str_eq(c, a);

	/* Every slot held: no file, said as EBUSY. */
	struct seatfile_claim more[SEATFILE_SLOTS];
	char paths[SEATFILE_SLOTS][300];
	int held = 2;
	for (; held < SEATFILE_SLOTS; held++)
		cr_assert_geq(seatfile_claim(dir, &key, paths[held], sizeof paths[held], &more[held]), 0);
	cr_expect_lt(seatfile_claim(dir, &key, paths[0], sizeof paths[0], &more[0]), 0);
	cr_expect_eq(errno, EBUSY);
	for (int i = 2; i < SEATFILE_SLOTS; i++)
		seatfile_release(paths[i], &more[i]);
	seatfile_release(b, &cb);
	seatfile_release(c, &cc);
}

/* Another key (another name) claims its own slot 0, whatever the first key holds. */
Test(seatfile, another_name_is_not_held_up)
{
	static const struct seatfile_key other = { "127.0.0.1", 7727, "", "Al" };
	char a[300], b[300];
	struct seatfile_claim ca, cb;

	cr_assert_geq(seatfile_claim(dir, &key, a, sizeof a, &ca), 0);
	cr_assert_geq(seatfile_claim(dir, &other, b, sizeof b, &cb), 0);
	cr_expect_eq(cb.slot, 0);
	cr_expect_str_neq(a, b);
	seatfile_release(a, &ca);
	seatfile_release(b, &cb);
}
