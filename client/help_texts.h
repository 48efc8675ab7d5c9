/* SPDX-License-Identifier: MIT */
/* help_texts: the subcommands' --help texts, as one list. It is not compiled into the executable
 * as it stands: mkhelp.c includes it at build time and writes the texts deflated (help_data.c),
 * 12.8 KB of text in 4.4 KB; help_get() inflates them when a command first needs one (cli_args
 * reads a command's options from its usage, so that is every run of a command). Edit here.
 * Each entry is HELP_TEXT(ID, "text"); help.h makes the IDs an enum. */

#define PASSWORD_HELP \
    "  --password        ask for the players' password (no echo); also WIZWAR_PASSWORD\n" \
    "  --password-file F read it from the first line of F\n" \
    "  --password PW     the same, given here: other local users can read it (ps)\n"
#define CLIENT_PASSWORD_HELP \
    "  --password      ask for the host's password, if it set one (no echo); also WIZWAR_PASSWORD\n" \
    "  --password-file F  read it from the first line of F\n" \
    "  --password PW   the same, given here: other local users can read it (ps)\n"


/* wizwar host */
HELP_TEXT(HELP_HOST,
    "usage: wizwar host [--port P] [--bind ADDR] [--password [PW]] [--password-file F] [--size N] [--no-fov]\n"
    "                   [--no-potions] [--seed S] [--turn-time SECS] [--name NAME]\n"
    "                   [--log-dir DIR] [--resume LOG] [--grace SECS] [--lobby-hold SECS] [--headless]\n"
    "                   [--keys PRESET]\n"
    "\n"
    "Hosts a duel: a server for one game in this process, played from this terminal. You are\n"
    "the controller: the options are yours (and the other player's after you hand control\n"
    "over with /control at the chat prompt). The other player runs the line printed at the\n"
    "start, `wizwar join ADDRESS:PORT#FINGERPRINT`: the fingerprint is this host's key, kept in\n"
    "$XDG_STATE_HOME/wizwar/server.key (made on first run), so that nobody can stand in between.\n"
    "\n"
    "  --port P          TCP port to listen on (default 7727; 0 picks a free one)\n"
    "  --bind ADDR       listen on ADDR only, and connect your own client to it (default:\n"
    "                    every address, IPv6 and IPv4)\n"
    PASSWORD_HELP
    "  --size N          level side, odd, 15 to 51 (default 25)\n"
    "  --no-fov          both wizards see the whole level\n"
    "  --no-potions      no potions on the level nor in inventories\n"
    "  --seed S          the first duel's seed; the other player is told that you chose the\n"
    "                    level (default: a hash of your committed random part and the joiner's)\n"
    "  --turn-time SECS  a turn not ended in time passes (0 to 3600; default 0, no limit)\n"
    "  --name NAME       your name (default: $USER, else host)\n"
    "  --log-dir DIR     where turn logs go (default $XDG_STATE_HOME/wizwar)\n"
    "  --resume LOG      bring back the duel of LOG (a host killed mid-duel); players reconnect\n"
    "  --grace SECS      how long a dropped player's seat is held in a duel (1 to 65535; default\n"
    "                    120)\n"
    "  --lobby-hold SECS how long a seat dropped before a duel or between duels is held (0 to\n"
    "                    65535, at most the grace; default 30; 0: not held)\n"
    "  --headless        no terminal: serve the room only; the first to join controls it\n"
    "  --keys PRESET     start from key preset default, numpad, vi or arrows (keys.conf still\n"
    "                    applies; `wizwar keys --preset PRESET` lists them)\n")
/* wizwar join */
HELP_TEXT(HELP_JOIN,
    "usage: wizwar join HOST[:PORT][#FINGERPRINT] [--password [PW]] [--password-file F] [--name NAME]\n"
    "                   [--room CODE | --new-room] [--reconnect SECS] [--keys PRESET]\n"
    "                   [--log-dir DIR | --no-log]\n"
    "\n"
    "Joins a duel hosted with `wizwar host` (or a room of `wizwar server` with --room). Everything\n"
    "after the first two messages is encrypted, and the server proves it holds its key.\n"
    "\n"
    "  HOST[:PORT]     the host's name or address, and port (default 7727); [v6addr]:PORT too\n"
    "  #FINGERPRINT    the server's key fingerprint, as `wizwar host` or `wizwar server` prints\n"
    "                  it: checked, nothing asked, and remembered. Without it the first key seen\n"
    "                  is remembered in $XDG_STATE_HOME/wizwar/known_servers (trust on first\n"
    "                  use) and a different one later stops the join.\n"
    CLIENT_PASSWORD_HELP
    "  --name NAME     your name, 1 to 16 characters (default: $USER, else guest)\n"
    "  --room CODE     an existing room of a `wizwar server` (letters, digits, '-', '_', up to 16)\n"
    "  --new-room      ask a `wizwar server` for a new room (you control it); its code is shown\n"
    "                  to pass on to the other player\n"
    "  --reconnect SECS  how long a lost connection is tried again, one attempt a second,\n"
    "                  before giving up (default 130, in the lobby too: a lobby seat is held\n"
    "                  as long as the server says when you join, 30 s by default, then the\n"
    "                  client joins the room again as a new player)\n"
    "  --keys PRESET   start from key preset default, numpad, vi or arrows (keys.conf still\n"
    "                  applies; `wizwar keys --preset PRESET` lists them)\n"
    "  --log-dir DIR   where the turn log of each duel is kept, as the host revealed it at the\n"
    "                  end (default $XDG_STATE_HOME/wizwar): duel-SEED.log, for `wizwar replay`\n"
    "  --no-log        keep no turn log\n"
    "\n"
    "At the chat prompt (Enter): /ready, /rematch, /mute (the other player's chat), /quit; the\n"
    "controller also /size N, /fov on|off, /potions on|off, /time SECS and /control; ? lists them.\n"
    "A dropped connection, in a duel or in the lobby, is resumed by itself (--reconnect); from\n"
    "the join on its resume token is kept in $XDG_STATE_HOME/wizwar/seats (0600), so if this\n"
    "client is killed or its terminal closed, the same command again takes the seat back. A\n"
    "server that is shutting down is ridden out the same way (started again, it takes the\n"
    "client back); a host that closes its room is not waited for. The seed is made with a\n"
    "random part this client sends after the host committed to its own; at the end the host\n"
    "reveals both and the turn log, and this client checks that its part made the seed and the\n"
    "log replays to everything it was shown (\"Fair host: seed made with your part, log\n"
    "verified\").\n"
    "Exit status: 0, 1 when the join fails, the connection is lost for good or the host closes\n"
    "the room (the reason on stderr), 2 for bad arguments.\n")
/* wizwar server */
HELP_TEXT(HELP_SERVER,
    "usage: wizwar server [--port P] [--bind ADDR] [--password [PW]] [--password-file F] [--log-dir DIR]\n"
    "                     [--max-rooms N] [--max-conns N] [--max-per-addr N] [--lobby-idle SECS]\n"
    "                     [--grace SECS] [--lobby-hold SECS] [--resume]\n"
    "\n"
    "A headless server of many rooms, for players who cannot open a port. A room is made for a\n"
    "player who asks, `wizwar join THIS:PORT#FINGERPRINT --new-room`, with a code to share; the\n"
    "other joins with `--room CODE`. Unknown codes are refused (10 a minute per address, then\n"
    "none); a lobby with nothing but heartbeats for 10 minutes is closed. Runs until\n"
    "interrupted. Its key (made on first run, $XDG_STATE_HOME/wizwar/server.key) has the\n"
    "fingerprint printed at the start. A neutral server is the place for a duel between\n"
    "strangers: a host's own process sees the whole game.\n"
    "\n"
    "  --port P          TCP port (default 7727)\n"
    "  --bind ADDR       listen on ADDR only (default: every address, IPv6 and IPv4)\n"
    PASSWORD_HELP
    "                    (every room asks for it; without one the room code is the only secret)\n"
    "  --log-dir DIR     where turn logs go (default $XDG_STATE_HOME/wizwar)\n"
    "  --max-rooms N     rooms at once (default 6000)\n"
    "  --max-conns N     connections at once, in the handshake, lobby or a duel (default 12288;\n"
    "                    with --max-rooms alone: 2 x N + 64)\n"
    "  --max-per-addr N  connections from one IPv4 address or IPv6 /64 (default 16)\n"
    "The soft limit on open files is raised to the hard one at start; where even that cannot\n"
    "hold the caps (a connection and a room's turn log are a file each), they are lowered\n"
    "to fit and the log says so.\n"
    "  --lobby-idle SECS close a lobby with nothing but heartbeats after SECS (default 600)\n"
    "  --grace SECS      how long a dropped player's seat is held in a duel (1 to 65535; default\n"
    "                    120)\n"
    "  --lobby-hold SECS how long a seat dropped before a duel or between duels is held (0 to\n"
    "                    65535, at most the grace; default 30; 0: not held)\n"
    "  --resume          bring back the duels this server's log directory holds unfinished (a\n"
    "                    server stopped or killed mid-duel, within the last 24 h): their players\n"
    "                    come back by themselves within the grace, or run the same command again\n")
/* wizwar bot */
HELP_TEXT(HELP_BOT,
    "usage: wizwar bot HOST[:PORT][#FINGERPRINT] [--room CODE | --new-room]\n"
    "                  [--level easy|normal|hard|master|random] [--password [PW]] [--password-file F]\n"
    "                  [--name NAME] [--games N] [--think MS] [--seed S] [--reconnect SECS] [--mirror]\n"
    "\n"
    "A bot player over the network. It decides on the view the server sends it, as a person\n"
    "would: it is never told more. It says ready, plays, asks for a rematch and verifies the\n"
    "host after each duel, printing one line per duel.\n"
    "\n"
    "  #FINGERPRINT    the server's key fingerprint, checked as `wizwar join` does (without it:\n"
    "                  trust on first use, $XDG_STATE_HOME/wizwar/known_servers)\n"
    "  --room CODE     an existing room of a `wizwar server`\n"
    "  --new-room      ask the server for a new room; prints `room CODE: ...` once it is made\n"
    "  --level L       random, easy, normal, hard or master (default normal)\n"
    CLIENT_PASSWORD_HELP
    "  --name NAME     default: LEVEL-bot\n"
    "  --games N       duels to play, then leave (default 0: until stopped)\n"
    "  --think MS      pause before each command (default 250)\n"
    "  --seed S        the bot's own random seed (default: random)\n"
    "  --reconnect SECS  how long a lost connection is tried again before giving up (default 130)\n"
    "  --mirror        ask for a mirror rematch (the same level, the seats swapped) after each\n"
    "                  duel that was not one, a plain one after a mirror: each level is played\n"
    "                  from both seats; it happens only if the other player asks for a mirror too\n"
    "\n"
    "A lost connection, in a duel or in the lobby, is resumed by itself. From the join on the\n"
    "resume token is kept in $XDG_STATE_HOME/wizwar/seats: the same command run again after a\n"
    "kill takes the seat back (and says at which turn). Exit status: 0 when its --games are\n"
    "played or it is stopped (SIGINT, SIGTERM, SIGHUP); 1 when the join fails, the connection is\n"
    "lost for good (the reason on stderr) before its --games are played, or at any time with\n"
    "--games 0, or a host fails its check; 2 for bad arguments.\n")
/* wizwar practice */
HELP_TEXT(HELP_PRACTICE,
    "usage: wizwar practice [--bot easy|normal|hard|random] [--seed S] [--size N] [--no-fov]\n"
    "                       [--no-potions] [--name NAME] [--no-log] [--keys PRESET]\n"
    "\n"
    "A duel in this terminal against a bot. You are the white @, the bot the red one; who\n"
    "moves first the seed decides. Each turn: move up to 5 squares, then cast one of the three\n"
    "spells offered, drink or pick up the potion underfoot, quaff one you carry, or end the turn.\n"
    "\n"
    "  --bot LEVEL   the opponent: random, easy, normal, hard or master (default normal)\n"
    "  --seed S      the duel's seed, decimal or 0x hex (default: a random one)\n"
    "  --size N      level side, odd, 15 to 51 (default 25; larger levels scroll at 80x24)\n"
    "  --no-fov      both wizards see the whole level\n"
    "  --no-potions  no potions on the level nor in inventories\n"
    "  --name NAME   your name on the screen and in the log, up to 16 characters (default: you)\n"
    "  --no-log      do not write a turn log\n"
    "  --keys PRESET start from key preset default, numpad, vi or arrows (keys.conf still applies)\n"
    "\n"
    "No network set-up, but played through the protocol as a hosted duel: this process runs a\n"
    "server on 127.0.0.1 (a port the kernel picks), you join it, and the bot joins it as a\n"
    "network player that sees only what the server sends it. Leaving mid-duel forfeits.\n"
    "\n"
    "The turn log goes to $XDG_STATE_HOME/wizwar/practice-SEED.log (or\n"
    "~/.local/state/wizwar/; practice-SEED-2.log and so on when the seed was played before:\n"
    "no log is overwritten), flushed after every command; `wizwar replay LOG` watches it.\n"
    "Needs a terminal of at least 80x24. NO_COLOR set to anything disables colour.\n"
    "\n")
/* wizwar selfplay */
HELP_TEXT(HELP_SELFPLAY,
    "usage: wizwar selfplay [--games N] [--seed S] [--log DIR] [--bots A,B] [--quiet]\n"
    "                       [--size N] [--no-fov] [--no-potions]\n"
    "\n"
    "Plays headless duels between two bots and prints them. One game (the default) is\n"
    "printed turn by turn; several are summarised one line each. The last line is a\n"
    "hash over all games: the same arguments always print the same hash.\n"
    "\n"
    "  --games N       how many duels (1 to 1000000; default 1)\n"
    "  --seed S        seed of the first duel, decimal or 0x hex (default 1); duel i uses S+i\n"
    "  --log DIR       write each duel's turn log to DIR/selfplay-SEED.log\n"
    "  --bots A,B      the two players: random, easy, normal, hard or master (default random,random)\n"
    "  --quiet         print only the summary lines\n"
    "  --size N        level side, odd, 15 to 51 (default 25)\n"
    "  --no-fov        both wizards see the whole level\n"
    "  --no-potions    no potions on the level nor in inventories\n")
/* wizwar replay --check | --text */
HELP_TEXT(HELP_REPLAY,
    "usage: wizwar replay --check LOG\n"
    "       wizwar replay --text LOG\n"
    "\n"
    "  --check LOG   replay LOG (plain or gzip) and check every state hash; exit 0 if it\n"
    "                replays exactly, 1 with the line where it diverged if not\n"
    "  --text LOG    print the duel turn by turn, as an all-seeing spectator\n")
/* wizwar replay LOG (the viewer; also its ? screen) */
HELP_TEXT(HELP_WATCH,
    "usage: wizwar replay LOG [--view 1|2|all] [--speed 1-6] [--keys PRESET]\n"
    "       wizwar replay --check LOG | --text LOG\n"
    "\n"
    "Watch a recorded duel (a turn log, plain or gzip) in this terminal, as\n"
    "player 1 or player 2 saw it, or all-seeing (the default). Keys:\n"
    "  space         play / pause\n"
    "  n  Right      one command forward (pauses)\n"
    "  b  Left       one command back (pauses)\n"
    "  0  Home       back to the start;   e  End   to the end\n"
    "  +  -          faster / slower (speed 1-6)\n"
    "  v             cycle the viewpoint: all-seeing, player 1, player 2\n"
    "  [  ]          scroll the message log\n"
    "  ?             this help;   q  Esc  quit\n")
/* the end of `wizwar practice --help`, after the key bindings */
HELP_TEXT(HELP_PRACTICE_SCREEN,
    "\nThe screen: the map on the left (@ you, red @ the opponent, ! potions in their colour,\n"
    "* spell effects; dim squares are remembered, not seen now); on the right both wizards'\n"
    "HP, whose move it is and the steps left, the spells offered with their keys, your\n"
    "potions, the keys that do something now, and the messages of this round and the last,\n"
    "with chat. The bottom line is the prompt: chat, a spell's direction, quit.\n")
