/* SPDX-License-Identifier: MIT */
/* resign: a hostile server's tool for tests/server/rating.sh: another outcome for a duel already rated, signed with the server's own key. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "auth.h"
#include "rated.h"

/*
 * rating.sh checks that `wizwar history` catches a server that changes a record it gave a player
 * (CHANGED). A record merely edited in the store fails its signature (FORGED): the hostile server
 * that matters re-signs. This tool is that server: it reads the server's key file and one signed
 * record (hex, as the store's results.record column holds it), sets player 0's rating after the
 * duel to 2999, signs the record again with the key, and prints it in hex. Nothing of the server's
 * code path is bypassed on the checking side: `history` sees a record that verifies.
 * With COUNT, it prints COUNT records of the same players instead, each another duel (the
 * commitment's last four bytes its number) honestly signed: a long history for `history --all`
 * without playing a hundred duels.
 *   resign SERVER_KEY_FILE HEX_RECORD [COUNT]
 * pgstore.sh's cluster cases need the signer key A (results.signer) of a node's key, and a key
 * outside the cluster to sign with (a hostile node's made-up "node"):
 *   resign --signer SERVER_KEY_FILE    prints the key's signer A in hex
 *   resign --new-key SERVER_KEY_FILE   makes a new server key there (never over one) and prints its A
 */
static int
signer_mode(bool make, const char *file)
{
	struct auth_identity id;
	uint8_t a[RATED_SIGNER_LEN];
	char why[256], hex[2 * RATED_SIGNER_LEN + 1];
	bool created;
	FILE *f = fopen(file, "r");

	if ((f != NULL) == make) {
		fprintf(stderr, "resign: %s %s\n", file, make ? "is there already" : "is not there");
		if (f)
			fclose(f);
		return 1;
	}
	if (f)
		fclose(f);
	if (auth_identity_load(&id, file, &created, why, sizeof why) != 0 || created != make ||
	    rated_signer(id.kp.sk, a) != 0) {
		fprintf(stderr, "resign: %s: %s\n", file, why);
		return 1;
	}
	puts(sodium_bin2hex(hex, sizeof hex, a, sizeof a));
	sodium_memzero(&id, sizeof id);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && (strcmp(argv[1], "--signer") == 0 || strcmp(argv[1], "--new-key") == 0))
		return sodium_init() < 0 ? 1 : signer_mode(strcmp(argv[1], "--new-key") == 0, argv[2]);

	uint8_t bytes[RATED_SIGNED_LEN];
	struct auth_identity id;
	struct rated_rec r;
	char why[256];
	bool created;
	size_t n;

	long count = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
	if ((argc != 3 && argc != 4) || (argc == 4 && (count < 1 || count > 100000))) {
		fputs("usage: resign SERVER_KEY_FILE HEX_RECORD [COUNT 1..100000]\n", stderr);
		return 2;
	}
	if (sodium_init() < 0)
		return 1;
	if (sodium_hex2bin(bytes, sizeof bytes, argv[2], strlen(argv[2]), NULL, &n, NULL) != 0 || n != sizeof bytes ||
	    !rated_get(bytes, n, &r, why, sizeof why)) {
		fprintf(stderr, "resign: not a signed record of %d bytes in hex\n", RATED_SIGNED_LEN);
		return 1;
	}
	/* An existing key only: this tool must never make one (that would sign with a stranger's key). */
	FILE *f = fopen(argv[1], "r");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	fclose(f);
	if (auth_identity_load(&id, argv[1], &created, why, sizeof why) != 0 || created) {
		fprintf(stderr, "resign: %s\n", created ? "no key there" : why);
		return 1;
	}
	if (count == 0)
		r.after[0].rating = 2999.0;
	char hex[2 * RATED_SIGNED_LEN + 1];
	for (long i = 0; i < (count ? count : 1); i++) {
		if (count) {
			uint8_t *c = r.commit + PROTO_COMMIT_LEN - 4;
			c[0] = (uint8_t)(i >> 24), c[1] = (uint8_t)(i >> 16), c[2] = (uint8_t)(i >> 8), c[3] = (uint8_t)i;
			r.time++;
		}
		if (rated_sign(&r, id.kp.sk) != 0) {
			fputs("resign: the key cannot sign\n", stderr);
			return 1;
		}
		rated_put(&r, bytes);
		puts(sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes));
	}
	sodium_memzero(&id, sizeof id);
	return 0;
}
