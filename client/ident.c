/* SPDX-License-Identifier: MIT */
/* ident: the player's key file: read strictly, refused when others may read it, made atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "ident.h"

#define ID_MAGIC "wizwar-id-1"
#define ID_FILE_LEN (sizeof ID_MAGIC - 1 + 1 + 2 * AUTH_IDENT_SEED_LEN + 1)

static const char *const file_name[] = { [IDENT_PLAYER] = "id.key", [IDENT_BOT] = "bot.key" };

bool
ident_path(int kind, char *buf, size_t len)
{
	char dir[4096];

	return cli_state_dir(dir, sizeof dir) && (size_t)snprintf(buf, len, "%s/%s", dir, file_name[kind]) < len;
}

static int
parse(struct auth_ident *id, const char *text, size_t len)
{
	uint8_t seed[AUTH_IDENT_SEED_LEN];
	size_t n;

	if (len != ID_FILE_LEN || memcmp(text, ID_MAGIC " ", sizeof ID_MAGIC) != 0 || text[len - 1] != '\n')
		return -1;
	if (sodium_hex2bin(seed, sizeof seed, text + sizeof ID_MAGIC, 2 * AUTH_IDENT_SEED_LEN, NULL, &n, NULL) != 0 ||
	    n != sizeof seed)
		return -1;
	auth_ident_from_seed(id, seed);
	sodium_memzero(seed, sizeof seed);
	return 0;
}

static int
load(int fd, const char *path, struct auth_ident *id, char *why, size_t whylen)
{
	char text[ID_FILE_LEN + 2];
	struct stat st;
	ssize_t got;
	int rc = -1;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is not a regular file", path);
	} else if (st.st_mode & 077) {
		/* As ssh does with a private key: a key others could have read is not this player's alone. */
		snprintf(why, whylen,
		         "%s may be read by others (mode %03o): it is refused; chmod 600 it if nobody else could have "
		         "copied it, else remove it for a new key (a new player)",
		         path, (unsigned)(st.st_mode & 0777));
	} else if ((got = read(fd, text, sizeof text)) < 0 || parse(id, text, (size_t)got) != 0) {
		snprintf(why, whylen, "%s is not a wizwar key (a line 'wizwar-id-1' and 64 hex digits)", path);
	} else {
		rc = 0;
	}
	sodium_memzero(text, sizeof text);
	return rc;
}

/* A new key into a temporary file of the same folder, then link(2) into place: link fails on a
 * file that exists, so a second first run loads the first one's key instead of replacing it. */
static int
make(const char *path, struct auth_ident *id, bool *created, char *why, size_t whylen)
{
	char tmp[4200], text[ID_FILE_LEN + 1], hex[2 * AUTH_IDENT_SEED_LEN + 1];
	uint8_t seed[AUTH_IDENT_SEED_LEN];
	int fd, n, rc = -1;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
		snprintf(why, whylen, "%s: path too long", path);
		return -1;
	}
	auth_ident_new(id);
	auth_ident_seed(id, seed);
	sodium_bin2hex(hex, sizeof hex, seed, sizeof seed);
	n = snprintf(text, sizeof text, ID_MAGIC " %s\n", hex);
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(why, whylen, "cannot write a key next to %s: %s", path, strerror(errno));
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || write(fd, text, (size_t)n) != n || fsync(fd) != 0) {
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (link(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		if (e == EEXIST) { /* another first run was quicker: its key is the one */
			auth_ident_wipe(id);
			if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
				snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
				goto out;
			}
			rc = load(fd, path, id, why, whylen);
			close(fd);
			goto out;
		}
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(e));
		goto out;
	}
	unlink(tmp);
	*created = true;
	rc = 0;
out:
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(hex, sizeof hex);
	sodium_memzero(text, sizeof text);
	if (rc != 0)
		auth_ident_wipe(id);
	return rc;
}

int
ident_load(const char *path, struct auth_ident *id, bool *created, char *why, size_t whylen)
{
	int fd, rc;

	*created = false;
	if (auth_init() != 0) {
		snprintf(why, whylen, "libsodium cannot start");
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		rc = load(fd, path, id, why, whylen);
		close(fd);
		return rc;
	}
	if (errno != ENOENT) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return make(path, id, created, why, whylen);
}

bool
ident_get(const char *given, int kind, struct auth_ident *id)
{
	char path[4200], dir[4096], why[4400], fp[AUTH_FP_LEN + 1];
	bool created;

	if (given) {
		snprintf(path, sizeof path, "%s", given);
	} else {
		if (!cli_state_dir(dir, sizeof dir) || !ident_path(kind, path, sizeof path)) {
			cli_error("neither XDG_STATE_HOME nor HOME is set: nowhere to keep your key (give one with --key FILE)\n");
			return false;
		}
		if (cli_make_dirs(dir) != 0) {
			cli_error("cannot create %s: %s\n", dir, strerror(errno));
			return false;
		}
	}
	if (ident_load(path, id, &created, why, sizeof why) != 0) {
		cli_error("%s\n", why);
		return false;
	}
	if (created) {
		auth_fingerprint(id->pk, fp);
		cli_error("made a new key %s, fingerprint %s (wizwar id shows it)\n", path, fp);
	}
	return true;
}
