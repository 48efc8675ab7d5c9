/* SPDX-License-Identifier: MIT */
/* lan_pick: the TXT record of a wizwar announcement, written and read strictly, and the list of duels found. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lan.h"
#include "proto.h"
#include "text.h"

/* The keys, in the order they are written (docs/protocol.md, "On the LAN"). */
enum { K_TXTVERS, K_PROTO, K_KIND, K_NAME, K_PW, K_WAIT, K_FP, K_COUNT };
static const char *const keys[K_COUNT] = { "txtvers", "proto", "kind", "name", "pw", "wait", "fp" };

void
lan_clean(char *out, size_t out_len, const char *in, size_t in_len)
{
	size_t o = 0;

	if (out_len == 0)
		return;
	for (size_t i = 0; i < in_len && o + 1 < out_len; i++) {
		unsigned char c = (unsigned char)in[i];
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[o] = '\0';
}

static bool
fp_ok(const char *v, size_t len)
{
	if (len != AUTH_FP_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '2' && v[i] <= '7')))
			return false;
	return true;
}

/* "0" or "1", nothing else. */
static int
flag(const char *v, size_t len)
{
	return len == 1 && (v[0] == '0' || v[0] == '1') ? v[0] - '0' : -1;
}

static void
refuse(struct lan_duel *d, const char *why)
{
	if (d->usable)
		snprintf(d->why, sizeof d->why, "%s", why);
	d->usable = false;
}

void
lan_txt_parse(struct lan_duel *d, const char *const *kv, const size_t *len, size_t n)
{
	const char *val[K_COUNT] = { 0 };
	size_t vlen[K_COUNT] = { 0 };

	for (size_t i = 0; i < n; i++) {
		const char *eq = memchr(kv[i], '=', len[i]);
		if (eq == NULL)
			continue; /* a boolean attribute: none is ours */
		size_t klen = (size_t)(eq - kv[i]);
		for (int k = 0; k < K_COUNT; k++) {
			/* Keys compare case-insensitively (RFC 6763 6.4); ours are lower-case ASCII. */
			if (klen == strlen(keys[k]) && strncasecmp(kv[i], keys[k], klen) == 0 && val[k] == NULL) {
				val[k] = eq + 1;
				vlen[k] = len[i] - klen - 1;
			}
		}
	}
	d->usable = true;
	d->why[0] = d->name[0] = d->fp[0] = '\0';
	d->proto = 0;
	if (val[K_PROTO] && vlen[K_PROTO] > 0 && vlen[K_PROTO] <= 3) {
		for (size_t i = 0; i < vlen[K_PROTO]; i++)
			d->proto = val[K_PROTO][i] >= '0' && val[K_PROTO][i] <= '9' ? d->proto * 10 + val[K_PROTO][i] - '0' : -1000;
	}
	if (d->proto != PROTO_VERSION) {
		char v[8];
		lan_clean(v, sizeof v, val[K_PROTO] ? val[K_PROTO] : "", vlen[K_PROTO]);
		snprintf(d->why, sizeof d->why, "protocol %s, not %d", v[0] ? v : "unknown", PROTO_VERSION);
		d->usable = false;
	}
	if (val[K_KIND] && vlen[K_KIND] == 6 && memcmp(val[K_KIND], "server", 6) == 0)
		d->server = true;
	else if (val[K_KIND] && vlen[K_KIND] == 4 && memcmp(val[K_KIND], "host", 4) == 0)
		d->server = false;
	else
		refuse(d, "no kind=host or kind=server");
	/* The name as a player's name is checked on the wire (text.c): the same check, so that
	 * what `--lan NAME` matches and what is shown are names a player could have. */
	if (val[K_NAME] && vlen[K_NAME] <= LAN_NAME_MAX && text_check(val[K_NAME], vlen[K_NAME], TEXT_NAME)) {
		memcpy(d->name, val[K_NAME], vlen[K_NAME]);
		d->name[vlen[K_NAME]] = '\0';
	} else {
		refuse(d, "no valid name");
	}
	int pw = val[K_PW] ? flag(val[K_PW], vlen[K_PW]) : -1;
	int wait = val[K_WAIT] ? flag(val[K_WAIT], vlen[K_WAIT]) : -1;
	if (pw < 0 || wait < 0)
		refuse(d, "pw or wait is not 0 or 1");
	d->password = pw == 1;
	d->wanted = wait == 1;
	if (val[K_FP] && fp_ok(val[K_FP], vlen[K_FP])) {
		memcpy(d->fp, val[K_FP], AUTH_FP_LEN);
		d->fp[AUTH_FP_LEN] = '\0';
	} else {
		refuse(d, "no valid fingerprint");
	}
	if (d->port <= 0 || d->port > 65535)
		refuse(d, "no port");
}

size_t
lan_txt_make(const struct lan_info *in, char *buf, size_t len, const char *out[8])
{
	size_t n = 0, used = 0;
	char one[160];

	for (int k = 0; k < K_COUNT; k++) {
		switch (k) { /* one value a key; the keys and their order are the table's */
		case K_TXTVERS: snprintf(one, sizeof one, "%s=1", keys[k]); break;
		case K_PROTO: snprintf(one, sizeof one, "%s=%d", keys[k], PROTO_VERSION); break;
		case K_KIND: snprintf(one, sizeof one, "%s=%s", keys[k], in->server ? "server" : "host"); break;
		case K_NAME: snprintf(one, sizeof one, "%s=%s", keys[k], in->name); break;
		case K_PW: snprintf(one, sizeof one, "%s=%d", keys[k], in->password); break;
		case K_WAIT: snprintf(one, sizeof one, "%s=%d", keys[k], in->wanted); break;
		default: snprintf(one, sizeof one, "%s=%s", keys[k], in->fp); break;
		}
		size_t l = strlen(one) + 1;
		if (used + l > len)
			break;
		memcpy(buf + used, one, l);
		out[n++] = buf + used;
		used += l;
	}
	return n;
}

bool
lan_list_add(struct lan_duel *list, size_t *n, size_t max, const struct lan_duel *d)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(list[i].instance, d->instance) == 0 && strcmp(list[i].fp, d->fp) == 0) {
			/* The same service through another interface or protocol: one duel. A changed
			 * record (the duel got full) replaces what it said, not where it is. Another key
			 * under the same instance name (two links, a forger on one) stays apart: two
			 * duels of one name, which is not guessed between. */
			char addr[sizeof list[i].addr];
			memcpy(addr, list[i].addr, sizeof addr);
			list[i] = *d;
			memcpy(list[i].addr, addr, sizeof addr);
			return true;
		}
	if (*n >= max)
		return false;
	list[(*n)++] = *d;
	return true;
}

int
lan_list_named(const struct lan_duel *list, size_t n, const char *name, int *first)
{
	int count = 0;

	*first = -1;
	for (size_t i = 0; i < n; i++)
		if (list[i].usable && strcmp(list[i].name, name) == 0) {
			if (count++ == 0)
				*first = (int)i;
		}
	return count;
}

void
lan_list_line(char *buf, size_t len, int number, const struct lan_duel *d)
{
	char inst[LAN_INSTANCE_MAX + 1], host[LAN_HOST_MAX + 1];

	lan_clean(inst, sizeof inst, d->instance, strlen(d->instance));
	lan_clean(host, sizeof host, d->host, strlen(d->host));
	if (!d->usable) {
		snprintf(buf, len, "  -  %-24.40s on %.40s: cannot be joined (%s)", inst, host, d->why);
		return;
	}
	/* The instance is shown when it is not the name: "alice #2" is a second duel called alice. */
	char as[LAN_INSTANCE_MAX + 20] = "";
	if (strcmp(inst, d->name) != 0)
		snprintf(as, sizeof as, " (announced as '%s')", inst);
	snprintf(buf, len, "%3d  %-12.64s%s on %.40s (%s port %d): %s%s, key %.8s", number, d->name, as, host, d->addr,
	         d->port, d->server ? "server" : d->wanted ? "waiting" : "full", d->password ? ", password" : "", d->fp);
}
