/* SPDX-License-Identifier: MIT */
/* ban: bans and mutes in memory, matched against what a connection has shown, and the strict parser of their admin commands. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "ban.h"
#include "text.h"

static const char *const kind_word[BAN_KINDS] = {
#define X(id, word) word,
	BAN_KIND_LIST(X)
#undef X
};

/* ASCII case only, as SQLite's NOCASE compares the names the store owns. */
static bool
same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x + 32);
		if (y >= 'A' && y <= 'Z')
			y = (unsigned char)(y + 32);
		if (x != y)
			return false;
		if (x == '\0')
			return true;
	}
}

static bool
same_target(int kind, const char *a, const char *b)
{
	return kind == BAN_NAME ? same_name(a, b) : strcmp(a, b) == 0;
}

static bool
in_force(const struct ban *b, int64_t now)
{
	return b->expires == 0 || now < b->expires;
}

void
ban_list_finish(struct ban_list *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

int
ban_add(struct ban_list *l, const struct ban *b)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i].kind == b->kind && same_target(b->kind, l->v[i].target, b->target)) {
			l->v[i] = *b;
			return 0;
		}
	if (l->n >= BAN_MAX)
		return -1;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 16;
		struct ban *v = realloc(l->v, cap * sizeof *v);
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *b;
	return 0;
}

bool
ban_remove(struct ban_list *l, int kind, const char *target)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i].kind == kind && same_target(kind, l->v[i].target, target)) {
			l->v[i] = l->v[--l->n];
			return true;
		}
	return false;
}

void
ban_prune(struct ban_list *l, int64_t now)
{
	for (unsigned i = 0; i < l->n;)
		if (in_force(&l->v[i], now))
			i++;
		else
			l->v[i] = l->v[--l->n];
}

/* Linear: a ban list is an operator's handful (BAN_MAX at most), looked at once a
 * connection step (accept, IDENT, AUTH), never per message. */
const struct ban *
ban_find(const struct ban_list *l, const struct ban_who *who, int64_t now)
{
	for (unsigned i = 0; i < l->n; i++) {
		const struct ban *b = &l->v[i];
		bool hit = false;
		if (!in_force(b, now))
			continue;
		switch (b->kind) {
		case BAN_KEY:
			hit = who->fp && strcmp(b->target, who->fp) == 0;
			break;
		case BAN_NAME:
			hit = who->name && same_name(b->target, who->name);
			break;
		case BAN_ADDR:
			hit = who->addr && proxy_cidr_match(&b->cidr, 1, who->addr);
			break;
		default:
			break;
		}
		if (hit)
			return b;
	}
	return NULL;
}

bool
ban_muted(const struct ban_list *l, const char *fp, int64_t now)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i].kind == BAN_MUTE && in_force(&l->v[i], now) && strcmp(l->v[i].target, fp) == 0)
			return true;
	return false;
}

static void
utc(int64_t t, char *out, size_t outlen)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(out, outlen, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		snprintf(out, outlen, "%lld", (long long)t);
}

void
ban_describe(const struct ban *b, char *out, size_t outlen)
{
	char until[40] = "";

	if (b->expires) {
		char t[32];
		utc(b->expires, t, sizeof t);
		snprintf(until, sizeof until, " until %s", t);
	}
	static const char *const whose[BAN_KINDS] = { "key", "name", "address", "" };

	snprintf(out, outlen, "banned from this server%s (%s)%s%s", until, whose[b->kind], b->reason[0] ? ": " : "",
	         b->reason);
}

void
ban_line(const struct ban *b, int64_t now, char *out, size_t outlen)
{
	char set[32], until[96];

	utc(b->created, set, sizeof set);
	if (b->expires) {
		char t[32];
		utc(b->expires, t, sizeof t);
		snprintf(until, sizeof until, "until %s (%llds left)", t,
		         (long long)(b->expires > now ? b->expires - now : 0));
	} else {
		snprintf(until, sizeof until, "permanent");
	}
	snprintf(out, outlen, "%s %s %s, set %s%s%s", kind_word[b->kind], b->target, until, set, b->reason[0] ? ": " : "",
	         b->reason);
}

int64_t
ban_duration(const char *t)
{
	static const struct {
		char unit;
		int64_t s;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 } };
	int64_t n = 0;
	size_t i = 0;

	if (t[0] < '1' || t[0] > '9') /* no sign, no leading zero, no empty number */
		return -1;
	for (; t[i] >= '0' && t[i] <= '9'; i++) {
		n = n * 10 + (t[i] - '0');
		if (n > BAN_FOR_MAX)
			return -1;
	}
	if (t[i] == '\0' || t[i + 1] != '\0')
		return -1;
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
		if (t[i] == units[u].unit)
			return n * units[u].s <= BAN_FOR_MAX ? n * units[u].s : -1;
	return -1;
}

static bool
fingerprint_text(const char *t, char *out)
{
	size_t n = strlen(t);

	if (n != AUTH_FP_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7')))
			return false;
		out[i] = c;
	}
	out[n] = '\0';
	return true;
}

bool
ban_target(int kind, const char *text, struct ban *out, char *why, size_t whylen)
{
	char addr[INET6_ADDRSTRLEN];

	out->kind = (uint8_t)kind;
	switch (kind) {
	case BAN_KEY:
	case BAN_MUTE:
		if (!fingerprint_text(text, out->target)) {
			snprintf(why, whylen, "'%.40s' is not a key's fingerprint (%d characters a-z and 2-7, as `wizwar id` "
			         "shows)", text, AUTH_FP_LEN);
			return false;
		}
		return true;
	case BAN_NAME:
		if (!text_check(text, strlen(text), TEXT_NAME)) {
			snprintf(why, whylen, "not a player name (1 to 16 characters, at most %d bytes, no control or outer "
			         "space)", 64);
			return false;
		}
		snprintf(out->target, sizeof out->target, "%s", text);
		return true;
	case BAN_ADDR:
		if (strlen(text) > 64) {
			snprintf(why, whylen, "an address range is at most 64 characters");
			return false;
		}
		if (!proxy_cidr_parse(text, &out->cidr, why, whylen))
			return false;
		/* One spelling a range, so that `unban addr` finds what `ban addr` wrote however it
		 * was typed ("10.0.0.0/8" and "10.000.0.0/8" are one ban). */
		if (out->cidr.bits >= 96 && memcmp(out->cidr.addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0 &&
		    strchr(text, ':') == NULL) {
			inet_ntop(AF_INET, out->cidr.addr + 12, addr, sizeof addr);
			snprintf(out->target, sizeof out->target, "%s/%u", addr, out->cidr.bits - 96);
		} else {
			inet_ntop(AF_INET6, out->cidr.addr, addr, sizeof addr);
			snprintf(out->target, sizeof out->target, "%s/%u", addr, out->cidr.bits);
		}
		return true;
	default:
		snprintf(why, whylen, "no such kind");
		return false;
	}
}

/* The next word of *p (split at single spaces; two spaces in a row are an empty word, and a
 * space at the end of the line is a word missing: both refused). */
static bool
word(const char **p, char *out, size_t cap)
{
	const char *s = *p, *e = strchr(s, ' ');
	size_t n = e ? (size_t)(e - s) : strlen(s);

	if (n == 0 || n >= cap || (e && e[1] == '\0'))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	*p = e ? e + 1 : s + n;
	return true;
}

bool
ban_parse(int verb, const char *args, int64_t now, struct ban *out, char *why, size_t whylen)
{
	static const char *const usage[] = {
		[BAN_VERB_BAN] = "ban key FINGERPRINT|name NAME|addr CIDR [--for DURATION] [--reason TEXT]",
		[BAN_VERB_UNBAN] = "unban key FINGERPRINT|name NAME|addr CIDR",
		[BAN_VERB_MUTE] = "mute FINGERPRINT [--for DURATION]",
		[BAN_VERB_UNMUTE] = "unmute FINGERPRINT",
	};
	bool mute = verb == BAN_VERB_MUTE || verb == BAN_VERB_UNMUTE, opts = verb == BAN_VERB_BAN || verb == BAN_VERB_MUTE;
	const char *p = args;
	char w[BAN_TARGET_MAX + 2], kindw[8];
	int kind = BAN_MUTE;

	memset(out, 0, sizeof *out);
	out->created = now;
	if (!mute) {
		if (!word(&p, kindw, sizeof kindw))
			goto usage;
		for (kind = 0; kind < BAN_MUTE; kind++)
			if (strcmp(kindw, kind_word[kind]) == 0)
				break;
		if (kind == BAN_MUTE) {
			snprintf(why, whylen, "'%s': what to ban is key, name or addr (usage: %s)", kindw, usage[verb]);
			return false;
		}
	}
	if (kind == BAN_NAME) {
		/* A name may hold spaces: it runs to the first " --" (an option) or the line's end. */
		const char *e = strstr(p, " --");
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > BAN_TARGET_MAX) {
			snprintf(why, whylen, "a name longer than %d bytes", BAN_TARGET_MAX);
			return false;
		}
		if (n == 0)
			goto usage;
		memcpy(w, p, n);
		w[n] = '\0';
		p += n + (e != NULL);
	} else if (strcspn(p, " ") > BAN_TARGET_MAX) {
		snprintf(why, whylen, "a target longer than %d bytes", BAN_TARGET_MAX);
		return false;
	} else if (!word(&p, w, sizeof w)) {
		goto usage;
	}
	if (!ban_target(kind, w, out, why, whylen))
		return false;
	while (*p) {
		if (!opts)
			goto usage;
		if (strncmp(p, "--for ", 6) == 0) {
			char d[24];
			int64_t s;
			p += 6;
			if (out->expires) {
				snprintf(why, whylen, "--for given twice");
				return false;
			}
			if (!word(&p, d, sizeof d) || (s = ban_duration(d)) < 0) {
				snprintf(why, whylen, "--for: a whole number and a unit (s, m, h, d or w), 1s to 3650d");
				return false;
			}
			out->expires = now + s;
		} else if (verb == BAN_VERB_BAN && strncmp(p, "--reason ", 9) == 0) {
			/* The rest of the line: a reason has spaces. It reaches a banned client's screen
			 * and an operator's terminal, so it must be REASON text: UTF-8 without any control
			 * (C0, C1, ESC, bidi overrides), refused whole rather than quietly changed. */
			p += 9;
			size_t n = strlen(p);
			if (n > BAN_REASON_MAX) {
				snprintf(why, whylen, "--reason: at most %d bytes", BAN_REASON_MAX);
				return false;
			}
			if (n == 0 || !text_check(p, n, TEXT_REASON)) {
				snprintf(why, whylen, "--reason: printable UTF-8 text, no control characters");
				return false;
			}
			memcpy(out->reason, p, n + 1);
			p += n;
		} else {
			snprintf(why, whylen, "unexpected '%.32s' (usage: %s)", p, usage[verb]);
			return false;
		}
	}
	return true;
usage:
	snprintf(why, whylen, "usage: %s", usage[verb]);
	return false;
}

void
ban_reason_sanitise(char *dst, size_t cap, const char *src)
{
	if (text_clean(dst, cap, src, strlen(src), TEXT_REASON) < 0 && src[0])
		snprintf(dst, cap, "?");
}

const struct ban *
ban_get(const struct ban_list *l, int kind, const char *target)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i].kind == kind && same_target(kind, l->v[i].target, target))
			return &l->v[i];
	return NULL;
}

void
ban_sync_line(const struct ban *b, bool lifted, int64_t when, char *out, char *field)
{
	size_t n;

	if (lifted)
		snprintf(out, BAN_SYNC_MAX, "unban %lld %s %s", (long long)when, kind_word[b->kind], b->target);
	else
		snprintf(out, BAN_SYNC_MAX, "ban %lld %lld %s %s%s%s", (long long)b->created, (long long)b->expires,
		         kind_word[b->kind], b->target, b->reason[0] ? " --reason " : "", b->reason);
	/* One field a target: a name in any case is one name (same_name), so it is folded here. */
	n = (size_t)snprintf(field, BAN_SYNC_MAX, "%s %s", kind_word[b->kind], b->target);
	for (size_t i = 0; i < n && i < BAN_SYNC_MAX; i++)
		if (field[i] >= 'A' && field[i] <= 'Z')
			field[i] = (char)(field[i] + 32);
}

/* A whole decimal number, no sign, no leading zero, at most `max`; the next byte must be a space.
 * -1 when not. */
static int64_t
sync_number(const char **p, int64_t max)
{
	const char *s = *p;
	int64_t v = 0;
	size_t i = 0;

	if (s[0] == '0' && s[1] == ' ') {
		*p = s + 2;
		return 0;
	}
	if (s[0] < '1' || s[0] > '9')
		return -1;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (max - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (s[i] != ' ')
		return -1;
	*p = s + i + 1;
	return v;
}

bool
ban_sync_parse(const char *line, int64_t now, struct ban *out, bool *lifted, char *why, size_t whylen)
{
	const char *p = line;
	int64_t created, expires = 0, max = now + BAN_SYNC_SKEW;
	int kind;
	size_t n;

	if (memchr(line, '\0', BAN_SYNC_MAX) == NULL) {
		snprintf(why, whylen, "a line longer than %d bytes", BAN_SYNC_MAX - 1);
		return false;
	}
	if (strncmp(p, "ban ", 4) == 0) {
		*lifted = false;
		p += 4;
	} else if (strncmp(p, "unban ", 6) == 0) {
		*lifted = true;
		p += 6;
	} else {
		snprintf(why, whylen, "neither ban nor unban");
		return false;
	}
	if ((created = sync_number(&p, max)) < 1) {
		snprintf(why, whylen, "not a time (or one more than a day ahead of this node's clock)");
		return false;
	}
	if (!*lifted && ((expires = sync_number(&p, created + BAN_FOR_MAX)) < 0 || (expires && expires <= created))) {
		snprintf(why, whylen, "not an expiry after its creation and within %lld days of it",
		         (long long)(BAN_FOR_MAX / 86400));
		return false;
	}
	for (kind = 0; kind < BAN_KINDS; kind++) {
		n = strlen(kind_word[kind]);
		if (strncmp(p, kind_word[kind], n) == 0 && p[n] == ' ')
			break;
	}
	if (kind == BAN_KINDS) {
		snprintf(why, whylen, "not a kind (key, name, addr or mute)");
		return false;
	}
	/* The rest is what an admin command says, and is parsed as strictly as one; a mute's and an
	 * unban's say no more than their target, a ban's its reason at most (no --for: the expiry is
	 * the line's). */
	int verb = kind == BAN_MUTE ? (*lifted ? BAN_VERB_UNMUTE : BAN_VERB_MUTE) : (*lifted ? BAN_VERB_UNBAN : BAN_VERB_BAN);
	if (!ban_parse(verb, kind == BAN_MUTE ? p + n + 1 : p, created, out, why, whylen))
		return false;
	if (out->expires != 0) {
		snprintf(why, whylen, "--for in a line whose expiry is its own");
		return false;
	}
	out->created = created;
	out->expires = expires;
	return true;
}
