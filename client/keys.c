/* SPDX-License-Identifier: MIT */
/* keys: key bindings as data: actions, presets written as keys.conf text, one parser for both. */
#include "keys.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game.h"
#include "text.h"

#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FAST_MAX 512
#define WORDS_MAX 64
#define PRESET_DEPTH 3
#define FORMAT_LIST_MAX 512

_Static_assert(KEYS_ALIASES * KEYS_NAME_MAX <= FORMAT_LIST_MAX, "keys_format()'s list holds every key of an action");

/* Actions. */

static const char *const action_names[ACTION_COUNT] = {
#define X(id, name, desc) name,
	ACTION_LIST(X)
#undef X
};

static const char *const action_descs[ACTION_COUNT] = {
#define X(id, name, desc) desc,
	ACTION_LIST(X)
#undef X
};

static const uint8_t action_dir[ACTION_COUNT] = {
	[ACTION_MOVE_N] = DIR_N, [ACTION_MOVE_NE] = DIR_NE, [ACTION_MOVE_E] = DIR_E,
	[ACTION_MOVE_SE] = DIR_SE, [ACTION_MOVE_S] = DIR_S, [ACTION_MOVE_SW] = DIR_SW,
	[ACTION_MOVE_W] = DIR_W, [ACTION_MOVE_NW] = DIR_NW,
};

const char *
keys_action_name(int action)
{
	return action >= 0 && action < ACTION_COUNT ? action_names[action] : NULL;
}

const char *
keys_action_desc(int action)
{
	return action >= 0 && action < ACTION_COUNT ? action_descs[action] : NULL;
}

int
keys_action_lookup(const char *name)
{
	if (name == NULL)
		return ACTION_NONE;
	for (int a = 0; a < ACTION_COUNT; a++)
		if (strcmp(action_names[a], name) == 0)
			return a;
	return ACTION_NONE;
}

int
keys_dir(int action)
{
	return action >= 0 && action < ACTION_COUNT ? action_dir[action] : DIR_NONE;
}

/* Presets are keys.conf text, read by the same parser as a user's file: one format, one set of
 * checks, and a test that loads each preset without a warning keeps them honest. */

#define PRESET_COMMON \
	"bind chat enter return KEY_ENTER\n" \
	"bind help ?\n" \
	"bind log-up [\n" \
	"bind log-down ]\n" \
	"bind redraw ^L\n" \
	"bind cancel escape\n" \
	"bind quit Q\n" \
	"bind history ^P\n" \
	"bind describe I\n" \
	"bind look ;\n"

/* The plan's keys. With NumLock off a keypad sends the KEY_A1.. codes, or the cursor keys, Home,
 * End, PgUp, PgDn, Ins and Del, depending on the terminal: all of them are here. */
static const char preset_numpad[] =
	"bind move-n 8 KEY_UP\n"
	"bind move-ne 9 KEY_A3 KEY_PPAGE\n"
	"bind move-e 6 KEY_RIGHT\n"
	"bind move-se 3 KEY_C3 KEY_NPAGE\n"
	"bind move-s 2 KEY_DOWN\n"
	"bind move-sw 1 KEY_C1 KEY_END\n"
	"bind move-w 4 KEY_LEFT\n"
	"bind move-nw 7 KEY_A1 KEY_HOME\n"
	"bind cast-1 /\n"
	"bind cast-2 *\n"
	"bind cast-3 -\n"
	"bind drink 5 KEY_B2\n"
	"bind pickup 0 KEY_IC\n"
	"bind inventory +\n"
	"bind end-turn . KEY_DC\n"
	PRESET_COMMON;

#define PRESET_LETTERS \
	"bind cast-1 z\n" \
	"bind cast-2 x\n" \
	"bind cast-3 c\n" \
	"bind drink d q\n" \
	"bind pickup g ,\n" \
	"bind inventory i\n" \
	"bind end-turn . KEY_DC\n"

static const char preset_vi[] =
	"bind move-n k\n"
	"bind move-ne u\n"
	"bind move-e l\n"
	"bind move-se n\n"
	"bind move-s j\n"
	"bind move-sw b\n"
	"bind move-w h\n"
	"bind move-nw y\n"
	PRESET_LETTERS
	PRESET_COMMON;

static const char preset_arrows[] =
	"bind move-n KEY_UP\n"
	"bind move-ne KEY_PPAGE\n"
	"bind move-e KEY_RIGHT\n"
	"bind move-se KEY_NPAGE\n"
	"bind move-s KEY_DOWN\n"
	"bind move-sw KEY_END\n"
	"bind move-w KEY_LEFT\n"
	"bind move-nw KEY_HOME\n"
	PRESET_LETTERS
	PRESET_COMMON;

static const char preset_default[] =
	"preset numpad\n"
	"merge arrows\n";

static const struct preset {
	const char *name;
	const char *desc;
	const char *text;
} presets[] = {
	{ "default", "numpad, plus the arrows set's keys that do not clash", preset_default },
	{ "numpad",  "the plan's numeric keypad, NumLock on or off", preset_numpad },
	{ "vi",      "hjklyubn to move, letters for the rest", preset_vi },
	{ "arrows",  "cursor keys, Home/PgUp/End/PgDn for diagonals, letters for the rest", preset_arrows },
};
#define PRESET_COUNT ((int)(sizeof presets / sizeof presets[0]))

const char *
keys_preset_name(int i)
{
	return i >= 0 && i < PRESET_COUNT ? presets[i].name : NULL;
}

const char *
keys_preset_desc(int i)
{
	return i >= 0 && i < PRESET_COUNT ? presets[i].desc : NULL;
}

static const struct preset *
preset_find(const char *name)
{
	for (int i = 0; i < PRESET_COUNT; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

/* Key names. One row per name; the first row of a code is its canonical name, and a label, when
 * given, is what a screen shows. */

static const struct keyname {
	int code;
	const char *name;
	const char *label;
} keynames[] = {
	{ ' ',  "space",  "Space" },
	{ '#',  "hash",   "#" },
	{ '\t', "tab",    "Tab" },
	{ '\n', "enter",  "Enter" },
	{ '\r', "return", "Return" },
	{ 27,   "escape", "Esc" },
	{ 27,   "esc",    NULL },
	{ KEY_UP,        "KEY_UP",        "Up" },
	{ KEY_UP,        "up",            NULL },
	{ KEY_DOWN,      "KEY_DOWN",      "Down" },
	{ KEY_DOWN,      "down",          NULL },
	{ KEY_LEFT,      "KEY_LEFT",      "Left" },
	{ KEY_LEFT,      "left",          NULL },
	{ KEY_RIGHT,     "KEY_RIGHT",     "Right" },
	{ KEY_RIGHT,     "right",         NULL },
	{ KEY_HOME,      "KEY_HOME",      "Home" },
	{ KEY_HOME,      "home",          NULL },
	{ KEY_END,       "KEY_END",       "End" },
	{ KEY_END,       "end",           NULL },
	{ KEY_PPAGE,     "KEY_PPAGE",     "PgUp" },
	{ KEY_PPAGE,     "pgup",          NULL },
	{ KEY_PPAGE,     "pageup",        NULL },
	{ KEY_NPAGE,     "KEY_NPAGE",     "PgDn" },
	{ KEY_NPAGE,     "pgdn",          NULL },
	{ KEY_NPAGE,     "pagedown",      NULL },
	{ KEY_IC,        "KEY_IC",        "Ins" },
	{ KEY_IC,        "ins",           NULL },
	{ KEY_IC,        "insert",        NULL },
	{ KEY_DC,        "KEY_DC",        "Del" },
	{ KEY_DC,        "del",           NULL },
	{ KEY_DC,        "delete",        NULL },
	{ KEY_BACKSPACE, "KEY_BACKSPACE", "Backspace" },
	{ KEY_BACKSPACE, "backspace",     NULL },
	{ KEY_ENTER,     "KEY_ENTER",     "KP-Enter" },
	{ KEY_A1,        "KEY_A1",        "KP7" },
	{ KEY_A3,        "KEY_A3",        "KP9" },
	{ KEY_B2,        "KEY_B2",        "KP5" },
	{ KEY_C1,        "KEY_C1",        "KP1" },
	{ KEY_C3,        "KEY_C3",        "KP3" },
	{ KEY_BEG,       "KEY_BEG",       "Begin" },
	{ KEY_BTAB,      "KEY_BTAB",      "Shift-Tab" },
	{ KEY_BTAB,      "backtab",       NULL },
	{ KEY_SR,        "KEY_SR",        "Shift-Up" },
	{ KEY_SF,        "KEY_SF",        "Shift-Down" },
	{ KEY_SLEFT,     "KEY_SLEFT",     "Shift-Left" },
	{ KEY_SRIGHT,    "KEY_SRIGHT",    "Shift-Right" },
	{ KEY_SHOME,     "KEY_SHOME",     "Shift-Home" },
	{ KEY_SEND,      "KEY_SEND",      "Shift-End" },
	{ KEY_SPREVIOUS, "KEY_SPREVIOUS", "Shift-PgUp" },
	{ KEY_SNEXT,     "KEY_SNEXT",     "Shift-PgDn" },
	{ KEY_SIC,       "KEY_SIC",       "Shift-Ins" },
	{ KEY_SDC,       "KEY_SDC",       "Shift-Del" },
};
#define KEYNAME_COUNT (sizeof keynames / sizeof keynames[0])
#define FKEY_MAX 63 /* curses has room for KEY_F(0) .. KEY_F(63) */

static const struct keyname *
keyname_by_code(int code)
{
	for (size_t i = 0; i < KEYNAME_COUNT; i++)
		if (keynames[i].code == code)
			return &keynames[i];
	return NULL;
}

static bool
base_valid(int c)
{
	if (c >= 1 && c <= 127)
		return true;
	if (c > KEY_CODE_YES && c <= 0xffff)
		return c != KEY_RESIZE && c != KEY_MOUSE; /* events, not keys */
	if ((c & ~0x1fffff) == KEYS_WCHAR) {
		int cp = c & 0x1fffff;
		return cp >= 0xa0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
	}
	return false;
}

bool
keys_code_valid(int code)
{
	if (code < 0)
		return false;
	if (code & KEYS_META)
		return base_valid(code & ~KEYS_META);
	return base_valid(code);
}

int
keys_meta(int code)
{
	if (code < 0 || (code & KEYS_META) || !base_valid(code))
		return KEYS_NONE;
	return code | KEYS_META;
}

int
keys_code_from_wch(int rc, unsigned wc)
{
	int code;

	if (rc == KEY_CODE_YES)
		code = (int)wc;
	else if (rc == OK)
		code = wc < 0x80 ? (int)wc : wc <= 0x10ffff ? (int)(KEYS_WCHAR | wc) : KEYS_NONE;
	else
		return KEYS_NONE;
	return base_valid(code) ? code : KEYS_NONE;
}

/* One UTF-8 character, not ASCII, that is the whole of s, or -1. */
static int
utf8_one(const char *s)
{
	size_t len = strlen(s);
	uint32_t cp;

	if (len == 0 || text_utf8_next((const uint8_t *)s, len, &cp) != len || cp < 0x80)
		return -1;
	return (int)cp;
}

static int
ctrl_of(char ch)
{
	if (ch == '?')
		return 127;
	if (ch >= 'a' && ch <= 'z')
		ch = (char)(ch - 'a' + 'A');
	if (ch > '@' && ch <= '_')
		return ch - '@';
	return KEYS_NONE; /* ^@ would be NUL, which curses never reports as a key */
}

/* "F5" or "KEY_F(5)": the number, else -1. */
static int
fkey_number(const char *s)
{
	const char *d;
	size_t tail;

	if ((s[0] == 'F' || s[0] == 'f') && s[1] >= '1' && s[1] <= '9') {
		d = s + 1;
		tail = 0;
	} else if (strncasecmp(s, "KEY_F(", 6) == 0 && s[6] >= '1' && s[6] <= '9') {
		d = s + 6;
		tail = 1;
	} else {
		return -1;
	}
	int n = 0;
	size_t i = 0;
	while (d[i] >= '0' && d[i] <= '9' && i < 3)
		n = n * 10 + (d[i++] - '0');
	if (strlen(d + i) != tail || (tail && d[i] != ')'))
		return -1;
	return n >= 1 && n <= FKEY_MAX ? n : -1;
}

static int
parse_plain(const char *s)
{
	size_t n = strlen(s);
	int code;

	if (n == 0)
		return KEYS_NONE;
	if (n == 1)
		return s[0] > ' ' && s[0] < 127 ? s[0] : KEYS_NONE;
	if (n == 2 && s[0] == '^')
		return ctrl_of(s[1]);
	if (n == 3 && (s[0] == 'C' || s[0] == 'c') && s[1] == '-')
		return ctrl_of(s[2]);
	for (size_t i = 0; i < KEYNAME_COUNT; i++)
		if (strcasecmp(keynames[i].name, s) == 0)
			return keynames[i].code;
	if ((code = fkey_number(s)) > 0)
		return KEY_F(code);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && n > 2 && n <= 10 &&
	    strspn(s + 2, "0123456789abcdefABCDEF") == n - 2) {
		long v = strtol(s + 2, NULL, 16);
		return v <= 0x7fffffffL && base_valid((int)v) ? (int)v : KEYS_NONE;
	}
	if ((code = utf8_one(s)) >= 0)
		return base_valid(KEYS_WCHAR | code) ? KEYS_WCHAR | code : KEYS_NONE;
	return KEYS_NONE;
}

int
keys_parse_name(const char *name)
{
	if (name == NULL)
		return KEYS_NONE;
	if ((name[0] == 'M' || name[0] == 'm') && name[1] == '-' && name[2] != '\0')
		return keys_meta(parse_plain(name + 2));
	return parse_plain(name);
}

static void
plain_name(int c, bool label, char *buf, size_t len)
{
	const struct keyname *kn = keyname_by_code(c);
	char u[5];

	if (kn != NULL)
		snprintf(buf, len, "%s", label && kn->label ? kn->label : kn->name);
	else if (c >= KEY_F(1) && c <= KEY_F(FKEY_MAX))
		snprintf(buf, len, "F%d", c - KEY_F0);
	else if (c == 127)
		snprintf(buf, len, "^?");
	else if (c < ' ')
		snprintf(buf, len, "^%c", c + '@');
	else if (c < 127)
		snprintf(buf, len, "%c", c);
	else if (c & KEYS_WCHAR)
		snprintf(buf, len, "%.*s", (int)text_utf8_put(u, (uint32_t)(c & 0x1fffff)), u);
	else
		snprintf(buf, len, "0x%x", (unsigned)c);
}

static char *
name_or_label(int code, bool label, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (!keys_code_valid(code))
		return buf;
	if (code & KEYS_META) {
		if (len > 2) {
			memcpy(buf, "M-", 2);
			plain_name(code & ~KEYS_META, label, buf + 2, len - 2);
		}
		return buf;
	}
	plain_name(code, label, buf, len);
	return buf;
}

char *
keys_name(int code, char *buf, size_t len)
{
	return name_or_label(code, false, buf, len);
}

char *
keys_label(int code, char *buf, size_t len)
{
	return name_or_label(code, true, buf, len);
}

/* Bindings. */

static bool
fast_slot(int code, int *meta, int *base)
{
	*meta = (code & KEYS_META) != 0;
	*base = code & ~KEYS_META;
	return *base >= 0 && *base < FAST_MAX;
}

int
keys_action(const struct keys *k, int code)
{
	int meta, base;

	if (!keys_code_valid(code))
		return ACTION_NONE;
	if (fast_slot(code, &meta, &base))
		return (int)k->fast[meta][base] - 1;
	/* Wide characters and ncurses' extended keys: few, so a scan is fine. */
	for (int a = 0; a < ACTION_COUNT; a++)
		for (unsigned i = 0; i < k->n[a]; i++)
			if (k->bind[a][i].code == code)
				return a;
	return ACTION_NONE;
}

static const struct keys_binding *
find_binding(const struct keys *k, int action, int code)
{
	for (unsigned i = 0; i < k->n[action]; i++)
		if (k->bind[action][i].code == code)
			return &k->bind[action][i];
	return NULL;
}

static void
set_fast(struct keys *k, int code, int action)
{
	int meta, base;

	if (fast_slot(code, &meta, &base))
		k->fast[meta][base] = (uint8_t)(action + 1);
}

static void
add_binding(struct keys *k, int action, int code, uint16_t origin, uint32_t line)
{
	struct keys_binding *b = &k->bind[action][k->n[action]++];

	b->code = code;
	b->origin = origin;
	b->line = line;
	set_fast(k, code, action);
}

static void
remove_binding(struct keys *k, int action, int code)
{
	unsigned n = k->n[action];

	for (unsigned i = 0; i < n; i++) {
		if (k->bind[action][i].code != code)
			continue;
		memmove(&k->bind[action][i], &k->bind[action][i + 1], (n - i - 1) * sizeof k->bind[action][0]);
		k->n[action]--;
		set_fast(k, code, ACTION_NONE);
		return;
	}
}

static void
clear_action(struct keys *k, int action)
{
	while (k->n[action] > 0)
		remove_binding(k, action, k->bind[action][0].code);
}

static void
clear_bindings(struct keys *k)
{
	memset(k->n, 0, sizeof k->n);
	memset(k->fast, 0, sizeof k->fast);
}

/* The index of an origin name, added if new. Long names keep their tail, the file's name. */
static uint16_t
intern(struct keys *k, const char *name)
{
	char tmp[KEYS_ORIGIN_LEN];
	size_t n = strlen(name);

	if (n >= KEYS_ORIGIN_LEN)
		snprintf(tmp, sizeof tmp, "...%s", name + n - (KEYS_ORIGIN_LEN - 4));
	else
		snprintf(tmp, sizeof tmp, "%s", name);
	for (unsigned i = 0; i < k->norigin; i++)
		if (strcmp(k->origin[i], tmp) == 0)
			return (uint16_t)i;
	if (k->norigin < KEYS_ORIGINS) {
		memcpy(k->origin[k->norigin], tmp, sizeof tmp);
		return k->norigin++;
	}
	/* Out of room: the last slot stands for every further origin. */
	snprintf(k->origin[KEYS_ORIGINS - 1], KEYS_ORIGIN_LEN, "(several origins)");
	return KEYS_ORIGINS - 1;
}

unsigned
keys_count(const struct keys *k, int action)
{
	return action >= 0 && action < ACTION_COUNT ? k->n[action] : 0;
}

const struct keys_binding *
keys_get(const struct keys *k, int action, unsigned i)
{
	if (action < 0 || action >= ACTION_COUNT || i >= k->n[action])
		return NULL;
	return &k->bind[action][i];
}

char *
keys_origin(const struct keys *k, const struct keys_binding *b, char *buf, size_t len)
{
	const char *o = b->origin < k->norigin ? k->origin[b->origin] : "?";

	if (b->line > 0)
		snprintf(buf, len, "%s:%u", o, (unsigned)b->line);
	else
		snprintf(buf, len, "%s", o);
	return buf;
}

/* Diagnostics. */

void
keys_diag_init(struct keys_diag *d)
{
	d->n = 0;
	d->dropped = 0;
}

unsigned
keys_diag_count(const struct keys_diag *d)
{
	return d->n + d->dropped;
}

/* One pass of the parser over one text. */
struct ctx {
	struct keys *k;
	struct keys_diag *diag;
	const char *name;  /* the text's name in warnings */
	uint16_t origin;   /* its index in k->origin */
	bool preset;       /* bindings carry line 0 */
	bool merge;        /* add only keys that are free, silently */
	int depth;
	unsigned line;
	unsigned warned;
};

static void warn(struct ctx *c, const char *fmt, ...) PRINTF(2, 3);

static void
warn(struct ctx *c, const char *fmt, ...)
{
	struct keys_diag *d = c->diag;
	va_list ap;

	c->warned++;
	if (d == NULL)
		return;
	if (d->n >= KEYS_DIAG_MAX) {
		d->dropped++;
		return;
	}
	char *m = d->msg[d->n++];
	int off = c->line > 0 ? snprintf(m, KEYS_DIAG_LEN, "%s:%u: ", c->name, c->line)
	    : snprintf(m, KEYS_DIAG_LEN, "%s: ", c->name);
	if (off < 0 || off >= KEYS_DIAG_LEN)
		return;
	va_start(ap, fmt);
	vsnprintf(m + off, KEYS_DIAG_LEN - (size_t)off, fmt, ap);
	va_end(ap);
}

/* A word of the file quoted in a warning: at most 40 bytes, cut on a character's boundary (the
 * line is UTF-8: line_junk), so that the warning stays UTF-8 too. */
#define QUOTE_MAX 40
static const char *
quote(const char *w, char out[QUOTE_MAX + 1])
{
	size_t n = strlen(w);

	if (n > QUOTE_MAX) {
		n = QUOTE_MAX;
		while (n > 0 && ((unsigned char)w[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(out, w, n);
	out[n] = '\0';
	return out;
}

/* Reading keys.conf and the presets is start-up work: cold, as keys_load_buf and keys_preset are. */
WW_COLD static void apply_text(struct ctx *c, const char *buf, size_t len);

static void
do_preset(struct ctx *c, const char *name, bool merge)
{
	const struct preset *p = preset_find(name);

	if (p == NULL) {
		char list[128] = "", q[QUOTE_MAX + 1];
		size_t off = 0;
		for (int i = 0; i < PRESET_COUNT && off < sizeof list; i++)
			off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", presets[i].name);
		warn(c, "unknown preset '%s' (there are %s); line skipped", quote(name, q), list);
		return;
	}
	if (c->depth >= PRESET_DEPTH)
		return; /* presets are ours and nest once; this is only a guard */
	if (!merge && !c->merge)
		clear_bindings(c->k); /* "merge default" merges numpad too, rather than resetting */
	if (!merge && !c->merge && c->depth == 0)
		snprintf(c->k->preset, sizeof c->k->preset, "%s", p->name); /* what `wizwar keys` reports */
	char oname[64];
	snprintf(oname, sizeof oname, "preset %s", p->name);
	struct ctx sub = {
		.k = c->k, .diag = c->diag, .name = p->name, .origin = intern(c->k, oname),
		.preset = true, .merge = c->merge || merge, .depth = c->depth + 1,
	};
	apply_text(&sub, p->text, strlen(p->text));
	c->warned += sub.warned;
}

static void
do_bind(struct ctx *c, int action, const int *codes, int ncodes)
{
	struct keys *k = c->k;
	uint32_t line = c->preset ? 0 : c->line;
	char kname[KEYS_NAME_MAX], where[KEYS_ORIGIN_LEN + 16];

	for (int i = 0; i < ncodes; i++) {
		int code = codes[i];
		int cur = keys_action(k, code);

		if (c->merge) {
			if (cur == ACTION_NONE && k->n[action] < KEYS_ALIASES)
				add_binding(k, action, code, c->origin, line);
			continue;
		}
		keys_name(code, kname, sizeof kname);
		if (cur == action) {
			const struct keys_binding *b = find_binding(k, action, code);
			if (b->line == line && b->origin == c->origin)
				warn(c, "'%s' is listed twice", kname);
			else if (b->line > 0)
				warn(c, "'%s' is bound to %s twice (also at %s)", kname, action_names[action],
				    keys_origin(k, b, where, sizeof where));
			continue;
		}
		if (k->n[action] >= KEYS_ALIASES) {
			warn(c, "%s already has %d keys, the most an action can have; '%s' not bound",
			    action_names[action], KEYS_ALIASES, kname);
			continue;
		}
		if (cur != ACTION_NONE) {
			const struct keys_binding *b = find_binding(k, cur, code);
			keys_origin(k, b, where, sizeof where);
			if (b->line > 0)
				warn(c, "'%s' is bound twice: to %s (%s) and to %s (here); the later wins",
				    kname, action_names[cur], where, action_names[action]);
			else if (k->n[cur] == 1)
				warn(c, "'%s' was the only key for %s (%s); %s now has no key",
				    kname, action_names[cur], where, action_names[cur]);
			remove_binding(k, cur, code);
		}
		add_binding(k, action, code, c->origin, line);
	}
}

static void
do_line(struct ctx *c, char *s)
{
	char *w[WORDS_MAX], q[QUOTE_MAX + 1];
	int nw = 0;
	int codes[WORDS_MAX];

	for (char *p = s;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			break;
		if (nw == WORDS_MAX) {
			warn(c, "more than %d words; line skipped", WORDS_MAX);
			return;
		}
		w[nw++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	if (nw == 0)
		return;

	const char *verb = w[0];
	if (strcmp(verb, "preset") == 0 || strcmp(verb, "merge") == 0) {
		if (nw != 2) {
			warn(c, "%s takes one preset name; line skipped", verb);
			return;
		}
		do_preset(c, w[1], verb[0] == 'm');
		return;
	}
	if (strcmp(verb, "clear") == 0) {
		if (nw < 2) {
			warn(c, "clear needs an action, or all; line skipped");
			return;
		}
		for (int i = 1; i < nw; i++)
			if (strcmp(w[i], "all") != 0 && keys_action_lookup(w[i]) == ACTION_NONE) {
				warn(c, "unknown action '%s' (`wizwar keys` lists them); line skipped", quote(w[i], q));
				return;
			}
		for (int i = 1; i < nw; i++) {
			if (strcmp(w[i], "all") == 0)
				clear_bindings(c->k);
			else
				clear_action(c->k, keys_action_lookup(w[i]));
		}
		return;
	}

	bool bind = strcmp(verb, "bind") == 0;
	if (!bind && strcmp(verb, "unbind") != 0) {
		warn(c, "unknown directive '%s' (expected preset, merge, bind, unbind or clear); "
		    "line skipped", quote(verb, q));
		return;
	}
	int first = bind ? 2 : 1;
	int action = ACTION_NONE;
	if (nw <= first) {
		warn(c, bind ? "bind needs an action and at least one key; line skipped"
		    : "unbind needs at least one key; line skipped");
		return;
	}
	if (bind && (action = keys_action_lookup(w[1])) == ACTION_NONE) {
		warn(c, "unknown action '%s' (`wizwar keys` lists them); line skipped", quote(w[1], q));
		return;
	}
	for (int i = first; i < nw; i++) {
		if ((codes[i - first] = keys_parse_name(w[i])) == KEYS_NONE) {
			warn(c, "unknown key name '%s' (write keys as curses names them: k, ^A, M-x, "
			    "KEY_UP, F1, space; see docs/keys.md); line skipped", quote(w[i], q));
			return;
		}
	}
	if (bind) {
		do_bind(c, action, codes, nw - first);
		return;
	}
	for (int i = 0; i < nw - first; i++) {
		int cur = keys_action(c->k, codes[i]);
		char kname[KEYS_NAME_MAX];
		if (cur == ACTION_NONE)
			warn(c, "'%s' is not bound, nothing to unbind", keys_name(codes[i], kname, sizeof kname));
		else
			remove_binding(c->k, cur, codes[i]);
	}
}

/* Why a line cannot be read, or NULL. A line's words reach the terminal in warnings, so it must
 * be UTF-8 with no character that could move the cursor or reorder text (as a peer's text:
 * proto/text.h), a tab between words aside. */
static const char *
line_junk(const char *s, size_t n, char *why, size_t whylen)
{
	for (size_t i = 0; i < n;) {
		unsigned char b = (unsigned char)s[i];
		uint32_t cp;
		size_t l;
		if (b == 0) {
			snprintf(why, whylen, "a NUL byte at column %zu (is this a binary file?)", i + 1);
			return why;
		}
		if ((b < ' ' && b != '\t') || b == 127) {
			snprintf(why, whylen, "control byte 0x%02x at column %zu", b, i + 1);
			return why;
		}
		if ((l = text_utf8_next((const uint8_t *)s + i, n - i, &cp)) == 0) {
			snprintf(why, whylen, "byte 0x%02x at column %zu is not UTF-8", b, i + 1);
			return why;
		}
		if (b != '\t' && !text_allowed(cp, TEXT_CHAT)) {
			snprintf(why, whylen, "control character U+%04X at column %zu", (unsigned)cp, i + 1);
			return why;
		}
		i += l;
	}
	return NULL;
}

static void
apply_text(struct ctx *c, const char *buf, size_t len)
{
	char line[KEYS_LINE_MAX + 1], why[80];
	size_t pos = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3; /* a UTF-8 byte order mark, as some editors write */
	c->line = 0;
	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + (nl != NULL);
		c->line++;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n > KEYS_LINE_MAX) {
			warn(c, "line longer than %d bytes; skipped", KEYS_LINE_MAX);
			continue;
		}
		if (line_junk(s, n, why, sizeof why)) {
			warn(c, "%s; line skipped", why);
			continue;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		do_line(c, line);
	}
}

void
keys_init(struct keys *k)
{
	keys_preset(k, "default");
}

bool
keys_preset(struct keys *k, const char *name)
{
	if (name == NULL || preset_find(name) == NULL)
		return false;
	memset(k, 0, sizeof *k);
	struct ctx c = { .k = k, .name = "keys", .preset = true };
	do_preset(&c, name, false);
	return true;
}

unsigned
keys_load_buf(struct keys *k, const char *buf, size_t len, const char *origin, struct keys_diag *diag)
{
	if (origin == NULL)
		origin = "keys.conf";
	struct ctx c = { .k = k, .diag = diag, .name = origin, .origin = intern(k, origin) };
	if (buf != NULL)
		apply_text(&c, buf, len);
	return c.warned;
}

int
keys_load_file(struct keys *k, const char *path, struct keys_diag *diag)
{
	struct ctx c = { .k = k, .diag = diag, .name = path };
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (f == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		warn(&c, "cannot open: %s", strerror(errno));
		return -1;
	}
	if ((buf = malloc(KEYS_FILE_MAX + 1)) == NULL) {
		warn(&c, "out of memory");
		fclose(f);
		return -1;
	}
	n = fread(buf, 1, KEYS_FILE_MAX + 1, f);
	if (ferror(f)) {
		warn(&c, "cannot read: %s", strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (n > KEYS_FILE_MAX) {
		warn(&c, "longer than %d KiB: only the lines in the first %d KiB are read",
		    KEYS_FILE_MAX / 1024, KEYS_FILE_MAX / 1024);
		n = KEYS_FILE_MAX;
		while (n > 0 && buf[n - 1] != '\n')
			n--; /* a cut line would be read wrong; drop it */
	}
	keys_load_buf(k, buf, n, path, diag);
	free(buf);
	return 1;
}

static bool
join_path(char *buf, size_t len, const char *dir, const char *tail)
{
	size_t n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;
	int w = snprintf(buf, len, "%.*s%s", (int)n, dir, tail);
	return w > 0 && (size_t)w < len;
}

bool
keys_path(char *buf, size_t len, const char *xdg_config_home, const char *home)
{
	bool ok = false;

	/* The XDG base directory spec: a relative XDG_CONFIG_HOME is invalid and is ignored. */
	if (xdg_config_home != NULL && xdg_config_home[0] == '/')
		ok = join_path(buf, len, xdg_config_home, "/wizwar/keys.conf");
	else if (home != NULL && home[0] != '\0')
		ok = join_path(buf, len, home, "/.config/wizwar/keys.conf");
	if (!ok && len > 0)
		buf[0] = '\0';
	return ok;
}

bool
keys_path_env(char *buf, size_t len)
{
	return keys_path(buf, len, getenv("XDG_CONFIG_HOME"), getenv("HOME"));
}

void
keys_rebind_note(char *buf, size_t len)
{
	char path[4096];
	const char *home = getenv("HOME"), *shown = path;
	size_t h = home ? strlen(home) : 0;

	if (!keys_path_env(path, sizeof path))
		shown = "keys.conf (set HOME or XDG_CONFIG_HOME)";
	else if (h > 1 && strncmp(path, home, h) == 0 && path[h] == '/') {
		path[h - 1] = '~'; /* the home directory as ~, as a person writes it */
		shown = path + h - 1;
	}
	snprintf(buf, len, "Rebind keys in %s; `wizwar keys` lists them.", shown);
}

int
keys_setup(struct keys *k, char *path, size_t pathlen, struct keys_diag *diag)
{
	return keys_setup_preset(k, NULL, path, pathlen, diag);
}

int
keys_setup_preset(struct keys *k, const char *preset, char *path, size_t pathlen, struct keys_diag *diag)
{
	char tmp[4096];

	keys_init(k);
	if (preset != NULL && !keys_preset(k, preset))
		return -2;
	if (!keys_path_env(tmp, sizeof tmp)) {
		if (path != NULL && pathlen > 0)
			path[0] = '\0';
		return 0;
	}
	if (path != NULL)
		snprintf(path, pathlen, "%s", tmp);
	return keys_load_file(k, tmp, diag);
}

/* Text out. */

struct sbuf {
	char *buf;
	size_t len;
	size_t pos; /* what the whole text needs, even past len */
};

static void sb_printf(struct sbuf *sb, const char *fmt, ...) PRINTF(2, 3);

static void
sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->pos < sb->len ? sb->buf + sb->pos : NULL,
	    sb->pos < sb->len ? sb->len - sb->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += (size_t)n;
}

static size_t
sb_done(struct sbuf *sb)
{
	/* vsnprintf already ended a cut text with NUL; this only covers a text with no output. */
	if (sb->len > 0 && sb->pos == 0)
		sb->buf[0] = '\0';
	return sb->pos;
}

size_t
keys_list(const struct keys *k, int action, bool names, char *buf, size_t len)
{
	struct sbuf sb = { buf, len, 0 };
	char kname[KEYS_NAME_MAX];

	if (len > 0)
		buf[0] = '\0';
	for (unsigned i = 0; i < keys_count(k, action); i++)
		sb_printf(&sb, "%s%s", i ? " " : "", name_or_label(k->bind[action][i].code, !names,
		    kname, sizeof kname));
	return sb_done(&sb);
}

size_t
keys_help(const struct keys *k, char *buf, size_t len)
{
	struct sbuf sb = { buf, len, 0 };
	char list[256];

	if (len > 0)
		buf[0] = '\0';
	sb_printf(&sb, "Keys\n\n");
	for (int a = 0; a < ACTION_COUNT; a++) {
		keys_list(k, a, false, list, sizeof list);
		sb_printf(&sb, "  %-22s %s\n", list[0] ? list : "(none)", action_descs[a]);
	}
	char rebind[300];
	keys_rebind_note(rebind, sizeof rebind);
	sb_printf(&sb, "\nA spell that needs a direction asks for one: press a move key.\n"
	    "After the inventory key, 1-9 drinks the potion in that slot.\n%s\n", rebind);
	return sb_done(&sb);
}

size_t
keys_format(const struct keys *k, char *buf, size_t len)
{
	struct sbuf sb = { buf, len, 0 };
	char kname[KEYS_NAME_MAX], where[KEYS_ORIGIN_LEN + 16], list[FORMAT_LIST_MAX];

	if (len > 0)
		buf[0] = '\0';
	sb_printf(&sb, "clear all\n");
	for (int a = 0; a < ACTION_COUNT; a++) {
		if (k->n[a] == 0) {
			sb_printf(&sb, "# %-9s %-24s # %s; no key\n", action_names[a], "", action_descs[a]);
			continue;
		}
		/* One bind line per run of keys from the same place. */
		for (unsigned i = 0; i < k->n[a];) {
			const struct keys_binding *b = &k->bind[a][i];
			size_t off = 0;
			unsigned j = i;
			/* KEYS_ALIASES names of under KEYS_NAME_MAX bytes always fit in list. */
			for (; j < k->n[a] && k->bind[a][j].origin == b->origin && k->bind[a][j].line == b->line; j++)
				off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
				    j > i ? " " : "", keys_name(k->bind[a][j].code, kname, sizeof kname));
			keys_origin(k, b, where, sizeof where);
			if (i == 0)
				sb_printf(&sb, "bind %-9s %-24s # %s; from %s\n", action_names[a], list,
				    action_descs[a], where);
			else
				sb_printf(&sb, "bind %-9s %-24s # from %s\n", action_names[a], list, where);
			i = j;
		}
	}
	return sb_done(&sb);
}
