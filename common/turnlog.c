/* SPDX-License-Identifier: MIT */
/* turnlog: format, parse and replay turn logs held in memory (the file I/O lives with the callers). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "turnlog.h"

/* Lets the compiler check every format string handed to the helpers below. */
#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static const char *const result_names[] = { "none", "win0", "win1", "draw" };
static const char *const reason_names[] = { "none", "killed", "resigned", "turn-limit" };

static int
lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static int PRINTF_LIKE(3, 4)
emit(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* Names and chat are written as the rest of a line: they must not break it. */
static bool
text_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

int
turnlog_format_header(const struct turnlog_header *h, uint64_t start_hash, char *buf, size_t len)
{
	for (int p = 0; p < PLAYERS; p++)
		if (!text_ok(h->name[p], TURNLOG_NAME_MAX))
			return -1;
	return emit(buf, len,
	    "wizwar-turnlog %d\nrules %d\noptions size=%d fov=%s potions=%s\nseed %016" PRIx64
	    "\nplayer 0 %s\nplayer 1 %s\nstart %016" PRIx64 "\n",
	    TURNLOG_FORMAT, RULES_VERSION, h->opt.size, h->opt.fov ? "on" : "off",
	    h->opt.potions ? "on" : "off", h->seed, h->name[0], h->name[1], start_hash);
}

/* The two lines a server writes every command (and a turn): formatted by hand, the bytes
 * the printf formats below name, at a tenth of vsnprintf's cost (issue 29). */
static char *
put_dec(char *o, uint32_t v)
{
	char t[10];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*o++ = t[--n];
	return o;
}

/* A command's name: a word of the rules' table (at most 24 bytes kept, a far bound). */
static char *
put_str(char *o, const char *s)
{
	size_t n = strnlen(s, 24);

	memcpy(o, s, n);
	return o + n;
}

/* The line in t (its end at o) into buf, NUL-terminated, as emit() would: -1 if it does
 * not fit. */
static int
emit_made(char *buf, size_t len, const char *t, const char *o)
{
	size_t n = (size_t)(o - t);

	if (n >= len)
		return -1;
	memcpy(buf, t, n);
	buf[n] = '\0';
	return (int)n;
}

int
turnlog_format_cmd(int p, const struct cmd *c, char *buf, size_t len)
{
	char t[96], *o = t;

	if (c->type >= CMD_COUNT)
		return -1;
	if (p < 0) /* not a player: never, but as "%d" wrote it */
		*o++ = '-';
	o = put_dec(o, p < 0 ? 0u - (uint32_t)p : (uint32_t)p);
	*o++ = ' ';
	o = put_str(o, cmd_name(c->type)); /* "step", "cast", "quaff": their names, as the formats spelled them */
	switch (c->type) { /* "%d step %d", "%d cast %d %d" or "%d cast %d", "%d quaff %d", "%d %s" */
	case CMD_STEP:
		*o++ = ' ';
		o = put_dec(o, c->dir);
		break;
	case CMD_CAST:
		*o++ = ' ';
		o = put_dec(o, (uint32_t)c->arg + 1);
		if (c->dir != DIR_NONE) {
			*o++ = ' ';
			o = put_dec(o, c->dir);
		}
		break;
	case CMD_QUAFF:
		*o++ = ' ';
		o = put_dec(o, (uint32_t)c->arg + 1);
		break;
	default:
		break;
	}
	*o++ = '\n';
	return emit_made(buf, len, t, o);
}

/* "= %u %016x\n" */
int
turnlog_format_hash(uint32_t turn, uint64_t hash, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char t[48], *o = t;

	*o++ = '=';
	*o++ = ' ';
	o = put_dec(o, turn);
	*o++ = ' ';
	for (int i = 60; i >= 0; i -= 4)
		*o++ = hex[(hash >> i) & 15];
	*o++ = '\n';
	return emit_made(buf, len, t, o);
}

int
turnlog_format_chat(int p, const char *text, char *buf, size_t len)
{
	if (!text_ok(text, TURNLOG_LINE_MAX - 16))
		return -1;
	return emit(buf, len, "chat %d %s\n", p, text);
}

int
turnlog_format_end(const struct game *g, char *buf, size_t len)
{
	if (g->result > RESULT_DRAW || g->end_reason > END_TURN_LIMIT)
		return -1;
	return emit(buf, len, "end %s %s %016" PRIx64 "\n", result_names[g->result],
	    reason_names[g->end_reason], game_hash(g));
}

/* ---- parsing: split on single spaces, then check each field ---- */

#define MAX_TOKENS 6

struct tokens {
	int n;
	const char *tok[MAX_TOKENS];
	const char *rest[MAX_TOKENS]; /* the line from token i on, for names and chat */
};

/* A reason may quote a word of the log, whose bytes are anyone's, and it goes to a terminal
 * (replay --check, a client's "the revealed log does not replay"): printable ASCII is shown as
 * it is, any other byte as '?', a whole UTF-8 sequence (a C1 control, a bidi override) as one. */
static int PRINTF_LIKE(3, 4)
fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	size_t o = 0;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	if (whylen == 0)
		return -1;
	for (size_t i = 0; why[i];) {
		unsigned char b = (unsigned char)why[i++];
		if (b >= 0x80)
			while ((unsigned char)why[i] >= 0x80 && (unsigned char)why[i] < 0xc0)
				i++;
		why[o++] = b >= 0x20 && b < 0x7f ? (char)b : '?';
	}
	why[o] = '\0';
	return -1;
}

static bool
parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0' || (base == 10 && s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			return false;
		/* A digit above `max` alone must fail too: max - d would wrap ("2" for a
		 * player 0..1, "cast 4" for slots 1..3 were accepted). */
		if ((uint64_t)d > max || v > (max - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return true;
}

static bool
parse_hash(const char *s, uint64_t *out)
{
	return strlen(s) == 16 && parse_u64(s, 16, UINT64_MAX, out);
}

static bool
parse_int(const char *s, int lo, int hi, int *out)
{
	uint64_t v;

	if (!parse_u64(s, 10, (uint64_t)hi, &v) || (int)v < lo)
		return false;
	*out = (int)v;
	return true;
}

static bool
parse_onoff(const char *s, const char *key, bool *out)
{
	size_t k = strlen(key);

	if (strncmp(s, key, k) != 0 || s[k] != '=')
		return false;
	if (strcmp(s + k + 1, "on") == 0)
		*out = true;
	else if (strcmp(s + k + 1, "off") == 0)
		*out = false;
	else
		return false;
	return true;
}

static int
parse_cmd(const struct tokens *t, struct turnlog_line *out, char *why, size_t whylen)
{
	int type = cmd_lookup(t->tok[1]), v;
	struct cmd *c = &out->cmd;

	if (type < 0)
		return fail(why, whylen, "unknown command '%s'", t->tok[1]);
	memset(c, 0, sizeof *c);
	c->type = (uint8_t)type;
	switch (type) {
	case CMD_STEP:
		if (t->n != 3 || !parse_int(t->tok[2], 1, 9, &v) || !dir_valid(v))
			return fail(why, whylen, "step takes one direction (1-4, 6-9)");
		c->dir = (uint8_t)v;
		break;
	case CMD_CAST:
		if (t->n < 3 || t->n > 4 || !parse_int(t->tok[2], 1, SPELL_OFFERED, &v))
			return fail(why, whylen, "cast takes a slot 1-3 and maybe a direction");
		c->arg = (uint8_t)(v - 1);
		if (t->n == 4) {
			if (!parse_int(t->tok[3], 1, 9, &v) || !dir_valid(v))
				return fail(why, whylen, "bad direction '%s'", t->tok[3]);
			c->dir = (uint8_t)v;
		}
		break;
	case CMD_QUAFF:
		if (t->n != 3 || !parse_int(t->tok[2], 1, INV_MAX, &v))
			return fail(why, whylen, "quaff takes a slot 1-9");
		c->arg = (uint8_t)(v - 1);
		break;
	default:
		if (t->n != 2)
			return fail(why, whylen, "%s takes no argument", t->tok[1]);
	}
	out->kind = TL_CMD;
	return 0;
}

int
turnlog_parse_line(const char *line, size_t len, struct turnlog_line *out, char *why, size_t whylen)
{
	char buf[TURNLOG_LINE_MAX];
	struct tokens t = { 0 };

	memset(out, 0, sizeof *out);
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len >= sizeof buf)
		return fail(why, whylen, "line longer than %d bytes", TURNLOG_LINE_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			return fail(why, whylen, "control character at column %zu", i + 1);
	if (len == 0 || line[0] == '#') {
		out->kind = TL_BLANK;
		return 0;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* Tokens: single spaces between, none at either end. The rest-of-line pointers
	 * index the original text, so a name or chat keeps its own spaces. The text of a
	 * `player` or `chat` line is not split at all: the formatters accept any spaces in
	 * it, and splitting it refused "chat 0 well  played" (and with it the whole log). */
	bool text_line = false;
	for (char *p = buf; t.n < MAX_TOKENS;) {
		t.rest[t.n] = line + (p - buf);
		t.tok[t.n++] = p;
		if (text_line && t.n == 3)
			break;
		char *sp = strchr(p, ' ');
		if (sp == NULL)
			break;
		*sp = '\0';
		p = sp + 1;
		if (t.n == 1)
			text_line = strcmp(buf, "player") == 0 || strcmp(buf, "chat") == 0;
		if (*p == '\0' || (*p == ' ' && !(text_line && t.n == 2)))
			return fail(why, whylen, "stray space");
	}

	const char *k = t.tok[0];
	int v;
	if (strcmp(k, "wizwar-turnlog") == 0 || strcmp(k, "rules") == 0) {
		if (t.n != 2 || !parse_int(t.tok[1], 1, 1000000, &v))
			return fail(why, whylen, "%s takes one version number", k);
		out->kind = k[0] == 'w' ? TL_MAGIC : TL_RULES;
		out->value = (uint64_t)v;
		return 0;
	}
	if (strcmp(k, "options") == 0) {
		if (t.n != 4 || strncmp(t.tok[1], "size=", 5) != 0 || !parse_int(t.tok[1] + 5, 1, 255, &v) ||
		    !parse_onoff(t.tok[2], "fov", &out->opt.fov) || !parse_onoff(t.tok[3], "potions", &out->opt.potions))
			return fail(why, whylen, "options must read: options size=N fov=on|off potions=on|off");
		out->opt.size = (uint8_t)v;
		if (options_check(&out->opt) != ERR_OK)
			return fail(why, whylen, "%s", err_text(options_check(&out->opt)));
		out->kind = TL_OPTIONS;
		return 0;
	}
	if (strcmp(k, "seed") == 0 || strcmp(k, "start") == 0) {
		if (t.n != 2 || !parse_hash(t.tok[1], &out->value))
			return fail(why, whylen, "%s takes 16 lower-case hex digits", k);
		out->kind = k[1] == 'e' ? TL_SEED : TL_START;
		return 0;
	}
	if (strcmp(k, "player") == 0 || strcmp(k, "chat") == 0) {
		if (t.n < 3 || !parse_int(t.tok[1], 0, PLAYERS - 1, &out->player))
			return fail(why, whylen, "%s takes a player 0 or 1 and a text", k);
		/* The original line is not NUL-terminated (it sits inside the whole log), so
		 * the text's length comes from the line's. */
		size_t n = len - (size_t)(t.rest[2] - line);
		size_t max = k[0] == 'p' ? TURNLOG_NAME_MAX : TURNLOG_LINE_MAX;
		if (n >= max)
			return fail(why, whylen, "%s text too long", k);
		memcpy(out->text, t.rest[2], n);
		out->text[n] = '\0';
		out->kind = k[0] == 'p' ? TL_PLAYER : TL_CHAT;
		return 0;
	}
	if (strcmp(k, "=") == 0) {
		uint64_t turn;
		if (t.n != 3 || !parse_u64(t.tok[1], 10, UINT32_MAX, &turn) || !parse_hash(t.tok[2], &out->value))
			return fail(why, whylen, "a hash line reads: = TURN HASH");
		out->turn = (uint32_t)turn;
		out->kind = TL_HASH;
		return 0;
	}
	if (strcmp(k, "end") == 0) {
		if (t.n != 4 || (out->result = lookup(result_names, 4, t.tok[1])) <= 0 ||
		    (out->reason = lookup(reason_names, 4, t.tok[2])) <= 0 || !parse_hash(t.tok[3], &out->value))
			return fail(why, whylen, "an end line reads: end win0|win1|draw killed|resigned|turn-limit HASH");
		out->kind = TL_END;
		return 0;
	}
	if (parse_int(k, 0, PLAYERS - 1, &out->player)) {
		if (t.n < 2)
			return fail(why, whylen, "a command line reads: PLAYER COMMAND [ARG] [DIR]");
		return parse_cmd(&t, out, why, whylen);
	}
	return fail(why, whylen, "unknown line '%.40s'", k);
}

/* ---- replay ---- */

static int PRINTF_LIKE(3, 4)
replay_fail(struct turnlog_replay *r, int lineno, const char *fmt, ...)
{
	va_list ap;
	int n;

	r->line = lineno;
	n = snprintf(r->error, sizeof r->error, "line %d: ", lineno);
	va_start(ap, fmt);
	vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The header's lines, in the order they must come. */
static const enum turnlog_kind header_order[] = { TL_MAGIC, TL_RULES, TL_OPTIONS, TL_SEED, TL_PLAYER, TL_PLAYER, TL_START };
#define HEADER_LINES ((int)(sizeof header_order / sizeof header_order[0]))

static int
replay_header(struct turnlog_replay *r, int step, const struct turnlog_line *l, int lineno)
{
	struct turnlog_header *h = &r->hdr;

	if (l->kind != header_order[step])
		return replay_fail(r, lineno, "header line %d out of place", step + 1);
	switch (l->kind) {
	case TL_MAGIC:
		if (l->value != TURNLOG_FORMAT)
			return replay_fail(r, lineno, "log format %d, this wizwar reads format %d", (int)l->value, TURNLOG_FORMAT);
		h->format = (int)l->value;
		return 0;
	case TL_RULES:
		if (l->value != RULES_VERSION)
			return replay_fail(r, lineno, "recorded with rules version %d, this wizwar has rules version %d",
			    (int)l->value, RULES_VERSION);
		h->rules = (int)l->value;
		return 0;
	case TL_OPTIONS:
		h->opt = l->opt;
		return 0;
	case TL_SEED:
		h->seed = l->value;
		return 0;
	case TL_PLAYER:
		if (l->player != step - 4)
			return replay_fail(r, lineno, "expected player %d", step - 4);
		/* The parser already held a name to TURNLOG_NAME_MAX - 1 bytes. */
		memcpy(h->name[l->player], l->text, TURNLOG_NAME_MAX - 1);
		h->name[l->player][TURNLOG_NAME_MAX - 1] = '\0';
		return 0;
	default: {
		int err = game_init(&r->game, &h->opt, h->seed);
		if (err != ERR_OK)
			return replay_fail(r, lineno, "cannot set up the duel: %s", err_text(err));
		uint64_t got = game_hash(&r->game);
		if (got != l->value)
			return replay_fail(r, lineno, "set-up diverged: log says %016" PRIx64 ", replay gives %016" PRIx64,
			    l->value, got);
		r->hashes_checked++;
		return 0;
	}
	}
}

int
turnlog_replay(const char *text, size_t len, struct turnlog_replay *r, turnlog_step_cb cb, void *ud)
{
	struct turnlog_line l;
	char why[128];
	int lineno = 0, header = 0;
	bool want_hash = false;

	memset(r, 0, sizeof *r);
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL) {
			r->torn = true; /* a write cut short: the line is dropped, as documented */
			break;
		}
		size_t n = (size_t)(nl - (text + pos));
		const char *line = text + pos;
		pos += n + 1;
		lineno++;
		if (turnlog_parse_line(line, n, &l, why, sizeof why) != 0)
			return replay_fail(r, lineno, "%s", why);
		if (l.kind == TL_BLANK || l.kind == TL_CHAT)
			continue;
		if (header < HEADER_LINES) {
			if (replay_header(r, header++, &l, lineno) != 0)
				return -1;
			continue;
		}
		if (r->ended)
			return replay_fail(r, lineno, "text after the end line");
		if (want_hash && l.kind != TL_HASH)
			return replay_fail(r, lineno, "expected the hash of turn %" PRIu32, r->game.turn_no);
		switch (l.kind) {
		case TL_CMD: {
			struct events ev;
			if (r->game.result != RESULT_NONE)
				return replay_fail(r, lineno, "command after the duel ended; expected the end line");
			int err = game_apply(&r->game, l.player, &l.cmd, &ev);
			if (err != ERR_OK)
				return replay_fail(r, lineno, "command refused: %s", err_text(err));
			r->commands++;
			want_hash = ev.turn_ended;
			if (cb)
				cb(ud, &r->game, l.player, &l.cmd, &ev, lineno);
			break;
		}
		case TL_HASH: {
			uint64_t got = game_hash(&r->game);
			if (!want_hash)
				return replay_fail(r, lineno, "hash line where no turn ended");
			if (l.turn != r->game.turn_no)
				return replay_fail(r, lineno, "hash for turn %" PRIu32 ", but turn %" PRIu32 " just ended",
				    l.turn, r->game.turn_no);
			if (got != l.value)
				return replay_fail(r, lineno,
				    "diverged after turn %" PRIu32 ": log says %016" PRIx64 ", replay gives %016" PRIx64,
				    l.turn, l.value, got);
			r->hashes_checked++;
			want_hash = false;
			break;
		}
		case TL_END: {
			uint64_t got = game_hash(&r->game);
			if (r->game.result == RESULT_NONE)
				return replay_fail(r, lineno, "end line, but the duel is still going");
			if (l.result != r->game.result || l.reason != r->game.end_reason)
				return replay_fail(r, lineno, "log says %s by %s, replay gives %s by %s",
				    result_names[l.result], reason_names[l.reason], result_names[r->game.result],
				    reason_names[r->game.end_reason]);
			if (got != l.value)
				return replay_fail(r, lineno, "final state diverged: log says %016" PRIx64 ", replay gives %016" PRIx64,
				    l.value, got);
			r->hashes_checked++;
			r->ended = true;
			break;
		}
		default:
			return replay_fail(r, lineno, "header line after the header");
		}
	}
	if (header < HEADER_LINES)
		return replay_fail(r, lineno + 1, "the log ends inside its header");
	return 0;
}
