/* SPDX-License-Identifier: MIT */
/* srvkeys: rotating a server's key on disk, and reading back the old key a rotation keeps for a while. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "srvkeys.h"

void
srvkeys_date(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		snprintf(buf, len, "%llu", (unsigned long long)t);
}

static bool
paths(const char *dir, char key[4200], char old[4200], char fresh[4200])
{
	return (size_t)snprintf(key, 4200, "%s/server.key", dir) < 4200 &&
	       (size_t)snprintf(old, 4200, "%s/server.key.old", dir) < 4200 &&
	       (size_t)snprintf(fresh, 4200, "%s/server.key.new", dir) < 4200;
}

bool
srvkeys_old(const char *dir, struct noise_keypair *kp, uint64_t *until, char *said, size_t saidlen)
{
	char key[4200], old[4200], fresh[4200], why[600], fp[AUTH_FP_LEN + 1], date[64];
	int rc;

	said[0] = '\0';
	if (!paths(dir, key, old, fresh))
		return false;
	if ((rc = auth_old_key_load(kp, until, old, why, sizeof why)) != 0) {
		if (rc < 0)
			snprintf(said, saidlen, "%s: no key rotation (fix or remove it)", why);
		return false;
	}
	auth_fingerprint(kp->pk, fp);
	srvkeys_date(*until, date, sizeof date);
	if ((uint64_t)time(NULL) >= *until) {
		/* Over: the old key goes for good, from the disk too. */
		sodium_memzero(kp, sizeof *kp);
		if (unlink(old) == 0)
			snprintf(said, saidlen, "key rotation over since %s: the old key %s is removed (%s)", date, fp, old);
		else
			snprintf(said, saidlen, "key rotation over since %s: the old key %s is not used; cannot remove %s: %s",
			         date, fp, old, strerror(errno));
		return false;
	}
	snprintf(said, saidlen, "key rotation: clients that pinned the old key %s are answered under it and shown "
	         "the new one, signed by it, until %s", fp, date);
	return true;
}

int
srvkeys_rotate(const char *dir, unsigned days)
{
	char key[4200], old[4200], fresh[4200], why[600], ofp[AUTH_FP_LEN + 1], nfp[AUTH_FP_LEN + 1], date[64];
	static struct auth_identity cur, next;
	struct noise_keypair prev;
	uint64_t until;
	struct stat st;
	bool created;
	int rc = -1;

	if (!paths(dir, key, old, fresh)) {
		cli_error("--rotate-key: the state folder's name is too long\n");
		return -1;
	}
	if (stat(key, &st) != 0) {
		cli_error("--rotate-key: no key to rotate at %s (%s): a server makes one at its first start\n", key,
		          strerror(errno));
		return -1;
	}
	if (auth_identity_load(&cur, key, &created, why, sizeof why) != 0) {
		cli_error("--rotate-key: %s\n", why);
		return -1;
	}
	switch (auth_old_key_load(&prev, &until, old, why, sizeof why)) {
	case 0:
		auth_fingerprint(prev.pk, ofp);
		sodium_memzero(&prev, sizeof prev);
		if ((uint64_t)time(NULL) < until) {
			srvkeys_date(until, date, sizeof date);
			cli_error("--rotate-key: a rotation runs until %s (clients that pinned %s move meanwhile); a second "
			          "one now would strand those that have not yet: wait, or end it early by removing %s\n",
			          date, ofp, old);
			goto done;
		}
		break;
	case 1:
		break;
	default:
		cli_error("--rotate-key: %s\n", why);
		goto done;
	}
	/* The new key, with the salt passwords are derived over; written beside the old one first, so
	 * that a crash leaves the key in force as it was. */
	auth_identity_new(&next);
	memcpy(next.salt, cur.salt, sizeof next.salt);
	if (unlink(fresh) != 0 && errno != ENOENT) {
		cli_error("--rotate-key: cannot remove %s: %s\n", fresh, strerror(errno));
		goto done;
	}
	if (auth_identity_save(&next, fresh, why, sizeof why) != 0) {
		cli_error("--rotate-key: %s\n", why);
		goto done;
	}
	until = (uint64_t)time(NULL) + (uint64_t)days * 86400u;
	if (auth_old_key_save(&cur.kp, until, old, why, sizeof why) != 0) {
		cli_error("--rotate-key: %s\n", why);
		unlink(fresh);
		goto done;
	}
	/* Run as root on a service's folder (the unit's DynamicUser= owns it): the new files take
	 * the owner of the key they replace, or the server could not read its own key. */
	if (geteuid() == 0 && st.st_uid != 0 &&
	    (chown(fresh, st.st_uid, st.st_gid) != 0 || chown(old, st.st_uid, st.st_gid) != 0)) {
		cli_error("--rotate-key: cannot give the new key files to the owner of %s: %s\n", key, strerror(errno));
		unlink(old);
		unlink(fresh);
		goto done;
	}
	if (rename(fresh, key) != 0) {
		cli_error("--rotate-key: cannot rename %s to %s: %s\n", fresh, key, strerror(errno));
		unlink(old);
		unlink(fresh);
		goto done;
	}
	auth_fingerprint(cur.kp.pk, ofp);
	auth_fingerprint(next.kp.pk, nfp);
	srvkeys_date(until, date, sizeof date);
	printf("rotated the key in %s: new fingerprint %s; the old one, %s, proves it to the clients that pinned it "
	       "until %s (%u day%s), then it is dropped.\n"
	       "A running server takes the new key at its next SIGHUP (systemctl reload wizwar-server) or start. "
	       "Join lines from now on: ...#%s\n",
	       dir, nfp, ofp, date, days, days == 1 ? "" : "s", nfp);
	rc = 0;
done:
	sodium_memzero(&cur, sizeof cur);
	sodium_memzero(&next, sizeof next);
	return rc;
}
