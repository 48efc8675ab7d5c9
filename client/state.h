/* SPDX-License-Identifier: MIT */
/* state: the curses client's model, pure and drawn by ui.c: the view, the log, the prompt and what a key does. */
#ifndef WW_STATE_H
#define WW_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "keys.h"
#include "msg.h"
#include "view.h"

#define STATE_NAME_MAX 65    /* a player's name, cleaned, with its NUL */
#define STATE_CHAT_MAX 200   /* bytes of one chat line, as the protocol's CHAT text */
#define STATE_TEXT_MAX 256   /* bytes of one log entry's text, with its NUL */
#define STATE_LOG_MAX 256    /* entries kept; the screen shows the previous and current round */
#define STATE_STATUS_MAX 160 /* the one-line note under the map ("no potion here") */
#define STATE_SHARE_MAX 4200 /* the share line: a path up to PATH_MAX and its words */
#define STATE_NOTE_MAX 640   /* the end's summary under the result: counts, the opponent's pack, the log's path */

/* What the keys do now. Every prompt returns to the base mode: NORMAL, or OVER once the duel ended. */
enum state_mode {
	MODE_NORMAL,    /* moves, casts, potions */
	MODE_DIRECTION, /* a directional spell asks which way */
	MODE_INVENTORY, /* 1-9 drinks that potion */
	MODE_CHAT,      /* typing a chat line */
	MODE_HELP,      /* the key list; any key closes it */
	MODE_QUIT,      /* "forfeit and quit?" during a running duel */
	MODE_OVER,      /* the duel ended: the result is shown, Q leaves */
	MODE_HISTORY,   /* the whole message log, full screen: [ ] PgUp PgDn scroll, any other key closes */
	MODE_DESCRIBE,  /* what the offered spells and my potions do; any key closes */
	MODE_LOOK,      /* a cursor on the map, the square under it told on the prompt line; Esc closes */
};
#define STATE_CLOCK_UNKNOWN (-2) /* clock_left: the turn is timed, its start unseen here */
#define STATE_LOG_PAGE 10 /* lines [ and ] scroll the log pane: a page of it at 80x24 */

enum log_kind {
	LOG_GAME,   /* a rules message (struct msg), formatted only when drawn */
	LOG_CHAT,   /* a chat line: sender and cleaned UTF-8 text */
	LOG_SYSTEM, /* the client's own notes: connection, refusals, results */
	LOG_NOTE,   /* the client's narration of the duel from its views: HP, underfoot, who moves first */
};

struct log_entry {
	uint8_t kind;   /* enum log_kind */
	uint8_t from;   /* LOG_CHAT: the sender, 0 or 1; LOG_GAME: whose message (for the all-seeing replay) */
	uint32_t round; /* (turn number) / 2 when it was logged: a round is both wizards' moves */
	struct msg msg; /* LOG_GAME */
	char text[STATE_TEXT_MAX];
};

/* One square of an effect drawn after an update. */
struct fx_square {
	uint8_t x, y, fx; /* fx: enum fx */
};
#define STATE_FX_MAX (LEVEL_MAX * LEVEL_MAX)

/* What a key asks the outside to do; state_key() fills it. */
enum state_out_kind {
	OUT_NONE,
	OUT_CMD,    /* send `cmd` */
	OUT_CHAT,   /* send `chat` */
	OUT_QUIT,   /* leave now (after a resign if `cmd` is a resign: OUT_CMD is not set then) */
	OUT_REMATCH, /* the duel is over: another (`mirror`: the same level with the seats swapped) */
	OUT_REPLAY, /* the duel is over: leave, and watch its turn log all-seeing */
};

struct state_out {
	enum state_out_kind kind;
	struct cmd cmd;              /* OUT_CMD; with OUT_QUIT, a resign to send first when resign is true */
	bool resign;                 /* OUT_QUIT: forfeit the running duel first */
	bool redraw;                 /* clear and redraw the whole screen */
	bool mirror;                 /* OUT_REMATCH: same seed, seats and so first mover swapped */
	char chat[STATE_CHAT_MAX + 1];
};

struct state {
	/* public, read by ui.c */
	bool have_view;                 /* false until the first view arrives */
	struct view view;               /* what I know now */
	struct view prev;               /* what I knew before the last update */
	bool anim;                      /* between steps 4 and 6 of the plan's "After Turn": draw prev + fx */
	int nfx;                        /* the last update's effects: drawn while anim, kept for look */
	struct fx_square fx[STATE_FX_MAX];
	char name[PLAYERS][STATE_NAME_MAX]; /* indexed by player number, cleaned */
	char share[STATE_SHARE_MAX];    /* a line to copy whole (the join command, the turn log's path): a
	                                   screen row of its own in the lobby and under the end box */
	bool named[PLAYERS];            /* name[p] was given (a player in that seat), not the default */
	int seat;                       /* my player number before the first view (the lobby's); -1 unknown */
	bool allseeing;                 /* a replay's spectator view: view.me is 0, both wizards shown */
	const char *replay_line;        /* a replay's status and keys, instead of the actions line */
	bool spectator;                 /* a live duel watched (wizwar watch): allseeing's layout, no commands */
	uint8_t me_state;               /* where wizard view.me is known (enum opp_state): a spectator's shared
	                                   view may not know it; OPP_VISIBLE otherwise */
	int watchers;                   /* a player: how many watch this room (-1: not told); a spectator's
	                                   count is in its replay_line */
	bool spect_off;                 /* a player: the room allows no spectators */
	const char *help_text;          /* the `?` screen's text; NULL: the key bindings */
	const char *lobby_help;         /* a network duel: the lobby's /commands, shown by `?` too */
	bool offline;                   /* the session ended (connection lost): Q leaves at once */
	bool quit_by_interrupt;         /* MODE_QUIT was asked by Ctrl-C: a second one says yes */

	enum state_mode mode;
	uint8_t dir_slot;               /* MODE_DIRECTION: the offered slot being cast */
	uint8_t look_x, look_y;         /* MODE_LOOK: the cursor, inside the level's outer wall */
	uint8_t help_page;              /* MODE_HELP: 0 the keys, 1 how to fight (? turns the page) */
	char chat[STATE_CHAT_MAX + 1];  /* MODE_CHAT: the line being typed, valid UTF-8 */
	size_t chat_len;
	char status[STATE_STATUS_MAX];  /* a short note for the prompt line, cleared by the next key */
	int log_scroll;                 /* lines scrolled back from the newest; 0 follows the log */

	unsigned log_start, log_count;  /* a ring of STATE_LOG_MAX entries */
	struct log_entry log[STATE_LOG_MAX];

	const struct keys *keys;        /* for the labels drawn next to spells and actions */

	/* The visible clock: set by the app from its own timer, never by the rules. */
	int turn_time;                  /* seconds a turn may take; 0: no clock */
	int clock_left;                 /* seconds left of the turn being played, as counted here; -1: none;
	                                   STATE_CLOCK_UNKNOWN: timed, but begun before a resume */
	uint32_t duels;                 /* rematches in this session: each new duel is marked */
	bool over_hidden;               /* the GAME OVER box was put away (Esc) */
	bool revealed;                  /* the view is the end's whole truth (state_reveal) */
	bool can_replay;                /* over, and its turn log is there to replay (v): set by the app */
	char guide[STATE_TEXT_MAX];     /* `wizwar tutorial`'s advice, drawn above the log; "" none */
	char over_note[STATE_NOTE_MAX]; /* under the result: a summary, what the opponent carried, the log */
};

void state_init(struct state *st, const struct keys *keys);
/* Names as they came (maybe from a peer): cleaned of anything but printable text. */
void state_set_name(struct state *st, int player, const char *name);

/* The plan's "After Turn": begin shows the old layout with the new effects (anim is set when
 * there are any), end brings in the new view and the messages. apply is begin + end at once. */
void state_update_begin(struct state *st, const struct view *after, const struct fx_square *fx, int nfx);
void state_update_end(struct state *st, const struct view *after, const struct msg *msgs, int nmsg);
void state_apply(struct state *st, const struct view *after, const struct msg *msgs, int nmsg,
    const struct fx_square *fx, int nfx);

/* Log entries. Chat text is cleaned here: what a peer sent is never a terminal control. */
void state_log_msg(struct state *st, const struct msg *m, int from);
void state_log_chat(struct state *st, int from, const char *text, size_t len);
void state_log_system(struct state *st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void state_log_clear(struct state *st);
/* The current round: entries of this round and the one before are shown. */
uint32_t state_round(const struct state *st);
/* The i-th entry still shown (previous and current round), oldest first; NULL past the end. */
const struct log_entry *state_log_visible(const struct state *st, unsigned i);
/* Any entry, 0 = oldest kept; for scrolling back. */
const struct log_entry *state_log_get(const struct state *st, unsigned i);
/* The text of an entry as the log shows it ("You cast Identify.", "<ann> hello"). */
size_t state_log_text(const struct state *st, const struct log_entry *e, char *buf, size_t len);

/* The end of a duel with nothing hidden: `all` (my view with every square, potion and the opponent
 * shown) replaces the view; note goes under the result. Only once the duel is over. */
void state_reveal(struct state *st, const struct view *all, const char *note);

/* Effects' turns as shown: the wizard's own turns on which the effect still acts, the current one
 * included when it is that wizard's move (so an effect on its last turn shows 1, never 0). */
int state_effect_turns(const struct state *st, int handler);
/* The round (both wizards' turns) a turn number belongs to, from 1, and whether I moved first. */
uint32_t state_round_of(uint32_t turn_no);
bool state_i_moved_first(const struct state *st);

/* One key: its action (keys_action(), or ACTION_NONE) and the raw code for text and digits. */
void state_key(struct state *st, int action, int raw, struct state_out *out);
/* A refusal from the rules (enum err): shown as the status. */
void state_refused(struct state *st, int err);
/* The base mode for when a prompt closes: NORMAL, or OVER. */
enum state_mode state_base_mode(const struct state *st);
/* True when the duel runs and it is my move. */
bool state_my_turn(const struct state *st);

/* The result as one sentence from my side ("You win: your opponent is dead!"), or from a
 * spectator's; "" while the duel runs. Returns the length written. */
size_t state_result_text(const struct state *st, char *buf, size_t len);

/* Chat line editing (MODE_CHAT), exposed for tests: insert one code point (false if it would pass
 * STATE_CHAT_MAX bytes or is not allowed), remove the last code point. */
bool state_chat_insert(struct state *st, uint32_t cp);
void state_chat_backspace(struct state *st);

/* Clean text from a peer into dst (always NUL-terminated): well-formed UTF-8 only, without C0 and
 * C1 controls, DEL, bidi overrides and isolates, line separators, BOM, noncharacters; a broken
 * byte becomes U+FFFD. Cut on a code point boundary at cap - 1 bytes. Returns the length. */
size_t state_clean_text(char *dst, size_t cap, const char *src, size_t len);
/* May code point cp be shown from a peer? */
bool state_printable(uint32_t cp);
/* "a" or "an" before an English word as it is said ("an orange potion", "a yellow one"). */
const char *state_article(const char *word);
/* My player number, known from the lobby before any view says it. */
void state_set_seat(struct state *st, int player);
/* Decode one UTF-8 code point (strict: shortest form, no surrogates): its length, 0 if broken. */
size_t state_utf8_next(const char *s, size_t len, uint32_t *cp);

#endif
