/* SPDX-License-Identifier: MIT */
/* keys: the curses client's key bindings: internal actions, presets, a config file, key names <-> codes. */
#ifndef WW_KEYS_H
#define WW_KEYS_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(ID, name in keys.conf, what it does). The client acts on actions, never on raw keys, so that
 * every key can be rebound (seed 003, "Redefinable Keyboard Bindings"). The eight moves come first,
 * in compass order; keys_dir() turns one into the plan's numpad direction. */
#define ACTION_LIST(X) \
	X(MOVE_N,    "move-n",    "move north") \
	X(MOVE_NE,   "move-ne",   "move north-east") \
	X(MOVE_E,    "move-e",    "move east") \
	X(MOVE_SE,   "move-se",   "move south-east") \
	X(MOVE_S,    "move-s",    "move south") \
	X(MOVE_SW,   "move-sw",   "move south-west") \
	X(MOVE_W,    "move-w",    "move west") \
	X(MOVE_NW,   "move-nw",   "move north-west") \
	X(CAST_1,    "cast-1",    "cast spell 1") \
	X(CAST_2,    "cast-2",    "cast spell 2") \
	X(CAST_3,    "cast-3",    "cast spell 3") \
	X(DRINK,     "drink",     "drink the potion underfoot") \
	X(PICKUP,    "pickup",    "pick up the potion underfoot") \
	X(INVENTORY, "inventory", "inventory: then 1-9 drinks that potion") \
	X(END_TURN,  "end-turn",  "end the turn (closes the chat prompt)") \
	X(CHAT,      "chat",      "open the chat prompt / send the message") \
	X(HELP,      "help",      "show this help") \
	X(LOG_UP,    "log-up",    "scroll the log back a page") \
	X(LOG_DOWN,  "log-down",  "scroll the log forward") \
	X(REDRAW,    "redraw",    "redraw the screen") \
	X(CANCEL,    "cancel",    "cancel a prompt") \
	X(QUIT,      "quit",      "quit (asks first during a duel)") \
	X(HISTORY,   "history",   "full message history") \
	X(DESCRIBE,  "describe",  "describe spells, potions") \
	X(LOOK,      "look",      "look at a square (move keys)")

enum action {
	ACTION_NONE = -1,
#define X(id, name, desc) ACTION_##id,
	ACTION_LIST(X)
#undef X
	ACTION_COUNT
};

/*
 * Key codes are ints, as curses reports them:
 *   1..127          an ASCII character, control characters included (^A is 1, DEL is 127 "^?");
 *   257..0xffff     a curses key code: KEY_UP, KEY_F(1), ... and the codes ncurses gives extended keys;
 *   KEYS_WCHAR | c  a character c >= 0x80 (Unicode), as get_wch() returns it with OK;
 *   KEYS_META | k   M-k: ESC then k. Terminals send Alt+k as ESC k; the client, on reading ESC,
 *                   waits a short moment (about 50 ms) for another key and if one comes reads the
 *                   pair as KEYS_META | that key; an ESC alone is the escape key itself.
 * 0, 128..256 and anything else are not keys (KEYS_NONE when a function has nothing to give).
 */
#define KEYS_NONE (-1)
#define KEYS_WCHAR 0x00200000
#define KEYS_META 0x01000000

#define KEYS_ALIASES 8     /* keys per action */
#define KEYS_ORIGINS 16    /* distinct origins ("preset vi", a file path) kept per struct keys */
#define KEYS_ORIGIN_LEN 256
#define KEYS_LINE_MAX 1024 /* a longer config line is skipped with a warning */
#define KEYS_FILE_MAX (64 * 1024)
#define KEYS_NAME_MAX 32   /* room for any key name from keys_name() or keys_label() */

/* One key of one action, and where it came from: a preset (line 0) or a line of a file. */
struct keys_binding {
	int code;
	uint16_t origin; /* index into keys.origin */
	uint32_t line;   /* 0: the whole origin (a preset) */
};

/* The bindings in force. Caller-owned; keys_init() fills it, no finish needed. All private:
 * read it through the functions below. */
struct keys {
	uint8_t n[ACTION_COUNT];
	struct keys_binding bind[ACTION_COUNT][KEYS_ALIASES];
	uint8_t norigin;
	char origin[KEYS_ORIGINS][KEYS_ORIGIN_LEN];
	uint8_t fast[2][512]; /* [meta][code < 512] -> action + 1, 0 unbound */
	char preset[16];      /* the preset the bindings started from (the last `preset` line or option) */
};

/* Warnings from loading: each one "origin:line: reason". Never fatal; the rest still loads. */
#define KEYS_DIAG_MAX 32
#define KEYS_DIAG_LEN 320
struct keys_diag {
	unsigned n;       /* warnings kept in msg[] */
	unsigned dropped; /* further warnings, counted only */
	char msg[KEYS_DIAG_MAX][KEYS_DIAG_LEN];
};
void keys_diag_init(struct keys_diag *d);
/* Total warnings, kept and dropped. */
unsigned keys_diag_count(const struct keys_diag *d);

/* Actions. */
const char *keys_action_name(int action);        /* "move-n"; NULL if out of range */
const char *keys_action_desc(int action);        /* "move north"; NULL if out of range */
int keys_action_lookup(const char *name);        /* ACTION_NONE if none */
/* The plan's numpad direction (enum dir in game.h) of a move action, else 0 (DIR_NONE). */
int keys_dir(int action);

/* Presets: "default", "numpad", "vi", "arrows". Index 0.. until NULL. */
const char *keys_preset_name(int i);
const char *keys_preset_desc(int i);

/* The default set (numpad plus the arrows set where it does not clash). */
WW_COLD void keys_init(struct keys *k);
/* Drop every binding and load a preset. False (and k unchanged) for an unknown name. */
WW_COLD bool keys_preset(struct keys *k, const char *name);

/*
 * Apply a config text on top of k. Lines:
 *   # comment              (a word starting with # ends the line; the # key is named "hash")
 *   preset NAME            drop every binding, load a preset
 *   merge NAME             add a preset's keys that are not bound yet
 *   bind ACTION KEY...     add keys to an action; a key bound elsewhere moves here
 *   unbind KEY...          remove keys
 *   clear ACTION...|all    remove every key of actions
 * origin names the text in warnings and in where-from ("path" gives "path:LINE"); NULL is "keys.conf".
 * A bad line is skipped with a warning into diag (which may be NULL). Returns the warning count.
 */
WW_COLD unsigned keys_load_buf(struct keys *k, const char *buf, size_t len, const char *origin,
    struct keys_diag *diag);
/* Read at most KEYS_FILE_MAX bytes of path and keys_load_buf() them. 1 loaded, 0 no such file
 * (not an error; nothing warned), -1 unreadable (warned). */
WW_COLD int keys_load_file(struct keys *k, const char *path, struct keys_diag *diag);

/* Config path: $XDG_CONFIG_HOME/wizwar/keys.conf when that is set and absolute, else
 * $HOME/.config/wizwar/keys.conf. The environment is passed in (NULL or "" for unset). False when
 * neither gives a path or it does not fit in len. */
WW_COLD bool keys_path(char *buf, size_t len, const char *xdg_config_home, const char *home);
/* The same, reading the environment. */
WW_COLD bool keys_path_env(char *buf, size_t len);
/* "Rebind keys in PATH; ..." naming the keys.conf in force (with ~ for the home directory), for help screens. */
WW_COLD void keys_rebind_note(char *buf, size_t len);
/* keys_init(), then the config file if there is one. path (may be NULL) receives the file looked
 * at, or "". Returns keys_load_file()'s answer (0 also when no path could be made). */
WW_COLD int keys_setup(struct keys *k, char *path, size_t pathlen, struct keys_diag *diag);
/* The same from preset `preset` (`--keys vi`; NULL: the default set); the file still applies on top.
 * -2 (k the default set) for an unknown preset name. */
WW_COLD int keys_setup_preset(struct keys *k, const char *preset, char *path, size_t pathlen, struct keys_diag *diag);

/* Lookup: the action bound to a key code, or ACTION_NONE. */
int keys_action(const struct keys *k, int code);
/* Bindings of one action, in the order they were made. */
unsigned keys_count(const struct keys *k, int action);
const struct keys_binding *keys_get(const struct keys *k, int action, unsigned i);
/* "preset vi" or "path:12". Returns buf. */
char *keys_origin(const struct keys *k, const struct keys_binding *b, char *buf, size_t len);

/* Key names. */
bool keys_code_valid(int code);
/* Parse a name as keys.conf writes keys: "k", "^A", "M-x", "KEY_UP", "F1", "space", "enter",
 * "return", "tab", "escape"/"esc", "backspace", "del", "hash", "0x1a3", a single UTF-8 character.
 * KEYS_NONE if it names no key. */
int keys_parse_name(const char *name);
/* The canonical name, which keys_parse_name() reads back. "" for an invalid code. Returns buf. */
char *keys_name(int code, char *buf, size_t len);
/* A shorter name for screens: "Up", "PgDn", "KP7", "Del"; else the canonical name. Returns buf. */
char *keys_label(int code, char *buf, size_t len);
/* Codes from curses input: get_wch()'s return value and character; KEYS_NONE for ERR. */
int keys_code_from_wch(int rc, unsigned wc);
/* M-code, or KEYS_NONE if code is not a key or already meta. */
int keys_meta(int code);

/* The keys of one action as labels ("8 Up KP8"), or as names when names is true. Returns what
 * snprintf would: the length of the whole text. */
size_t keys_list(const struct keys *k, int action, bool names, char *buf, size_t len);
/* The `?` screen's text: one line per action with its keys, then a note on inventory and
 * directions. Returns the length of the whole text (as snprintf), so a caller can size buf. */
WW_COLD size_t keys_help(const struct keys *k, char *buf, size_t len);
/* The bindings in force as a keys.conf that reproduces them, each line commented with the action
 * and where its keys came from. Returns the length of the whole text (as snprintf). */
WW_COLD size_t keys_format(const struct keys *k, char *buf, size_t len);

#endif
