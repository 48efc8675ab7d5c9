#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doclog: a turn-log reader and writer written from docs/turnlog.md alone, checked against the real programs.

Usage: doclog.py WIZWAR_EXE REPLAY_DIR [docs/turnlog.md]
       doclog.py --read LOG...     (read logs as the document says, strictly, and say what they hold)

The reader (read_log) knows only what docs/turnlog.md says, and docs/rules.md and docs/protocol.md where it
points there: lines and their endings, controls, the 511 bytes, single spaces; the header's seven lines and
their ranges, with empty lines, comments and chat skipped wherever they stand; each command's encoding; where
the `=` lines and the `end` line must come (the 1000th turn's `=` line before its `end`); chat texts kept byte
for byte; comments; a torn last line; gzip logs as a series of members, one cut short or damaged. It cannot
replay the rules (that is the C engine), so of the game it checks only what the document lets a reader check
without them: turns numbered from 1, one mover a turn and the movers taking turns, at most 10 steps a turn,
the end line's result and reason against the command before it. strict=True adds what the document says
wizwar's writers write: names and chat texts that pass docs/protocol.md's Text rules (a chat text at most 200
bytes), no CRLF, nothing torn, and for a server's gzip log its comments (kinds, order, formats), its members
(the header and those comments in the first; a command never apart from its `=` or `end` line).
The writer (write_log) writes a log back from what the reader made of it, plain or as gzip members.

The test (TAP):
1. The document itself: its commands and server comments are the ones this reader knows, the reasons table
   of "What `wizwar replay --check` says" is read from it (every refusal below must be one of its rows), and
   its example's lines are each a line of the format.
2. Every golden log in REPLAY_DIR, fresh `wizwar selfplay --log` logs (every option), the gzip logs of a
   `wizwar server` room where two `wizwar bot`s played a duel and its mirror rematch on loopback, the log of a
   `wizwar host --headless` with a chosen seed and a turn timer, a `wizwar practice` log and a `wizwar
   join`ing client's duel-SEED.log (those two need a terminal: driven in tmux on private sockets, and
   skipped when tmux is missing): each read strictly, written back byte for byte by the writer (a gzip log
   as the same members too), and replayed by `wizwar replay --check`, whose success line must give the
   commands, turns and hashes the reader counted; the join log must be the server's log without its room
   comment, and the chat line typed in practice and in the join must be in their logs byte for byte.
3. Logs broken from the document's rules, and logs it allows that no program writes (comments and chat in
   the header, CRLF, a 511-byte line, a long chat line, members split mid-line, trailing bytes after the last
   member, a log stopped between a command and its `=` line), each given to `wizwar replay --check`: it must
   accept exactly what the document accepts (exit 0, its success line) and refuse the rest with exit 1 and
   "wizwar replay: LOG: line N: REASON" exactly as the document gives it; the reader here must give the same verdict at
   the same line wherever the document lets a reader without the rules see it. No output may hold a control
   character (0x00-0x1f but the newline, 0x7f), and a refused word holding C1 controls or a bidi override is
   shown with '?' for them, as the document says.
Exit 77 (skipped) only when python3 has no zlib.
"""
import glob, os, re, shutil, signal, subprocess, sys, tempfile, time, unicodedata

try:
    import zlib
except ImportError:  # pragma: no cover
    print("1..0 # SKIP python3 has no zlib")
    sys.exit(77)

# ---------------------------------------------------------------- the format (docs/turnlog.md)

FORMAT = 1


def doc_rules_version(path=None):
    """The rules version docs/protocol.md states (its versions table is generated from the code)."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "protocol.md")
    return int(re.search(r"rules version \(`RULES_VERSION`\) \| (\d+)", open(path, encoding="utf-8").read()).group(1))


RULES = doc_rules_version()  # read, not typed: a new rules version needs no edit here
MAX_LINE = 511             # "No line may ... exceed 511 bytes, not counting its ending"
NAME_MAX = 63              # "player 0 NAME: the rest of the line, 1 to 63 bytes"
CHAT_WRITTEN_MAX = 200     # "wizwar writes what a CHAT carried (1 to 200 bytes)"
TURN_LIMIT = 1000          # docs/rules.md, Winning: "After 1,000 turns (TURN_LIMIT) the duel ends"
STEPS_MAX = 10             # docs/rules.md, Turns: 0 to 5 steps; Fast gives 5 more
DIRS = ("1", "2", "3", "4", "6", "7", "8", "9")   # the numeric keypad's digits; 5 is none
HEX16 = re.compile(r"[0-9a-f]{16}")
HEX64 = re.compile(r"[0-9a-f]{64}")
NUM = re.compile(r"0|[1-9][0-9]*")   # "Numbers are written without leading zeros"
ACTIONS = ("cast", "drink", "quaff", "pickup", "pass")   # "A turn ends with its action"
COMMANDS = ("step",) + ACTIONS + ("resign",)
RESULTS = ("win0", "win1", "draw")
HOWS = ("killed", "resigned", "turn-limit")
HEADER = ("wizwar-turnlog", "rules", "options", "seed", "player", "player", "start")
SERVER = "# wizwar-server "
SERVER_KINDS = ("room", "seed-part", "part", "seed", "token", "key", "host", "turn-time", "spectators")   # "in this order"
SEED_KINDS = ("drawn", "chosen", "mirror", "chosen-mirror")
ROOM = re.compile(r"[A-Za-z0-9_-]{1,16}")


class LogError(Exception):
    """A log the document refuses: the line (from 1, every line of the text counted) and why."""

    def __init__(self, line, reason):
        super().__init__("line %d: %s" % (line, reason))
        self.line, self.reason = line, reason


class Log:
    def __init__(self):
        self.format = self.rules = self.size = self.fov = self.potions = self.seed = self.start = None
        self.names = [None, None]
        self.items = []         # every line in order: (line, kind, data); kind header/cmd/hash/chat/end/comment/empty
        self.server = []        # (line, kind, args) of the `# wizwar-server` comments after the header
        self.spect_off = []     # lines of the `# wizwar-server spectators off` written during the duel
        self.end = None         # (result, how, hash)
        self.turns = 0          # turns completed (each `=` line, and a turn whose `=` line the log stops before)
        self.hashes = 0         # hashes a replay checks: start, each `=` line, the end line
        self.commands = 0
        self.torn = None        # the dropped torn last line, if any
        self.members = None     # a gzip log: the text of each member
        self.cut = False        # a gzip log whose last member is cut short
        self.crlf = False
        self.open_action = False    # the log stops after an action without its `=` or `end` line
        self.text = b""         # the text read (inflated)

    def lines_of(self, kind):
        return [(n, d) for n, k, d in self.items if k == kind]


def gunzip(data):
    """The members of a gzip file (RFC 1952, 2.2), each inflated; whether the last was cut short; bytes after
    the last member that do not begin another are ignored, as the document says zlib's gzread does."""
    members, rest = [], data
    while rest[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(rest)
        except zlib.error as e:
            raise LogError(0, "cannot read: %s" % e)
        if not d.eof:
            try:
                out += d.flush()
            except zlib.error:
                pass
            members.append(out)
            return members, True
        members.append(out)
        rest = d.unused_data
    return members, False


def text_ok(s, name=False):
    """docs/protocol.md, Text: UTF-8 in its shortest form, no Cc, no Cf but U+200C/U+200D, no Zl/Zp, no
    noncharacters; a NAME also at most 16 code points with no space at either end."""
    try:
        u = s.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeDecodeError:
        return False
    for ch in u:
        o, cat = ord(ch), unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp", "Cs") or (cat == "Cf" and o not in (0x200C, 0x200D)):
            return False
        if 0xFDD0 <= o <= 0xFDEF or (o & 0xFFFE) == 0xFFFE:
            return False
    return not name or (len(u) <= 16 and u == u.strip(" "))


def parse_line(n, s):
    """One line's form, wherever it stands: (kind, fields). Kinds: the header's words, 'chat', 'cmd', '=', 'end'.
    "Fields are separated by exactly one space, with none at either end of the line" (a name and a chat text
    aside: the rest of their line)."""
    word = s.split(" ", 1)[0]
    if word in ("player", "chat"):
        rest = s[len(word):]
        r = rest[1:]
        if r == "" and rest == " " or r[:1] == " ":
            raise LogError(n, "stray space")
        who, sp, text = r.partition(" ")
        if sp and text == "":
            raise LogError(n, "stray space")
        if not sp or who not in ("0", "1"):
            raise LogError(n, "%s takes a player 0 or 1 and a text" % word)
        if word == "player" and len(text.encode("utf-8", "surrogateescape")) > NAME_MAX:
            raise LogError(n, "player text too long")
        return word, [word, who, text]
    f = s.split(" ")
    if "" in f[1:]:
        raise LogError(n, "stray space")
    if f[0] in ("wizwar-turnlog", "rules"):
        if len(f) != 2 or not NUM.fullmatch(f[1]) or not 1 <= int(f[1]) <= 1000000:
            raise LogError(n, "%s takes one version number" % f[0])
    elif f[0] == "options":
        m = re.fullmatch(r"options size=(0|[1-9][0-9]*) fov=(on|off) potions=(on|off)", s)
        if not m or not 1 <= int(m.group(1)) <= 255:
            raise LogError(n, "options must read: options size=N fov=on|off potions=on|off")
        size = int(m.group(1))
        if not (15 <= size <= 51 and size % 2):
            raise LogError(n, "level size must be odd, from 15 to 51")
    elif f[0] in ("seed", "start"):
        if len(f) != 2 or not HEX16.fullmatch(f[1]):
            raise LogError(n, "%s takes 16 lower-case hex digits" % f[0])
    elif f[0] == "=":
        if len(f) != 3 or not NUM.fullmatch(f[1]) or int(f[1]) > 0xffffffff or not HEX16.fullmatch(f[2]):
            raise LogError(n, "a hash line reads: = TURN HASH")
    elif f[0] == "end":
        if len(f) != 4 or f[1] not in RESULTS or f[2] not in HOWS or not HEX16.fullmatch(f[3]):
            raise LogError(n, "an end line reads: end win0|win1|draw killed|resigned|turn-limit HASH")
    elif f[0] in ("0", "1"):
        if len(f) < 2:
            raise LogError(n, "a command line reads: PLAYER COMMAND [ARG] [DIR]")
        c, a = f[1], f[2:]
        if c not in COMMANDS:
            raise LogError(n, "unknown command '%s'" % quoted(c))
        if c == "step" and not (len(a) == 1 and a[0] in DIRS):
            raise LogError(n, "step takes one direction (1-4, 6-9)")
        if c == "cast":
            if len(a) not in (1, 2) or a[0] not in ("1", "2", "3"):
                raise LogError(n, "cast takes a slot 1-3 and maybe a direction")
            if len(a) == 2 and a[1] not in DIRS:
                raise LogError(n, "bad direction '%s'" % quoted(a[1]))
        if c == "quaff" and not (len(a) == 1 and len(a[0]) == 1 and a[0] in "123456789"):
            raise LogError(n, "quaff takes a slot 1-9")
        if c in ("drink", "pickup", "pass", "resign") and a:
            raise LogError(n, "%s takes no argument" % c)
        return "cmd", f
    else:
        raise LogError(n, "unknown line '%s'" % quoted(f[0], 40))
    return f[0], f


def read_log(data, strict=False):
    """Read a log (plain or gzip bytes) as the document defines it; LogError when it refuses it."""
    log = Log()
    if data[:2] == b"\x1f\x8b":
        log.members, log.cut = gunzip(data)
        text = b"".join(log.members)
    else:
        text = data
    log.text = text
    parts = text.split(b"\n")
    last = parts.pop()
    if last:
        log.torn = last             # "a last line without its \n is dropped and said"
    header = 0
    mover = prev_mover = None       # who moves in this turn; who moved in the turn before
    steps = 0
    want = None                     # after a command: 'hash-or-end' (an action), 'end' (resign, = 1000)
    last_cmd = None
    order = -1                      # the server comments' order so far
    for n, raw in enumerate(parts, 1):
        if raw.endswith(b"\r"):     # "one \r before it is accepted and ignored"
            raw = raw[:-1]
            log.crlf = True
        if len(raw) > MAX_LINE:
            raise LogError(n, "line longer than %d bytes" % MAX_LINE)
        for k, b in enumerate(raw, 1):
            if b < 0x20 or b == 0x7f:
                raise LogError(n, "control character at column %d" % k)
        s = raw.decode("utf-8", "surrogateescape")  # UTF-8 is not checked by a reader; strict checks texts
        if s == "":
            log.items.append((n, "empty", s))
            continue
        if s[0] == "#":
            log.items.append((n, "comment", s))
            if s.startswith(SERVER) and strict:
                order = server_comment(n, s, log, order, header)
            continue
        kind, f = parse_line(n, s)
        if kind == "chat":          # skipped wherever it stands, the header and after the end included
            if strict and (len(f[2].encode("utf-8", "surrogateescape")) > CHAT_WRITTEN_MAX or not text_ok(f[2])):
                raise LogError(n, "a chat text no writer of wizwar writes")
            log.items.append((n, "chat", (int(f[1]), f[2])))
            continue
        if header < 7:
            header_line(n, kind, f, header, log, strict)
            log.items.append((n, "header", header))
            header += 1
            continue
        if log.end is not None:
            raise LogError(n, "text after the end line")
        if want == "hash-or-end" and kind not in ("=", "end", "cmd"):
            raise LogError(n, "expected the hash of turn %d" % (log.turns + 1))
        if kind == "=":
            if want not in ("hash-or-end",):
                raise LogError(n, "hash line where no turn ended")
            if int(f[1]) != log.turns + 1:
                raise LogError(n, "hash for turn %s, but turn %d just ended" % (f[1], log.turns + 1))
            log.turns += 1
            log.hashes += 1
            log.items.append((n, "hash", (log.turns, f[2])))
            prev_mover, mover, steps = mover, None, 0
            want = "end" if log.turns == TURN_LIMIT else None
        elif kind == "end":
            if want is None:
                raise LogError(n, "end line, but the duel is still going")
            res, how = f[1], f[2]
            if last_cmd[1] == "resign":
                if how != "resigned" or res != "win%d" % (1 - last_cmd[0]):
                    raise LogError(n, "log says %s by %s, replay gives win%d by resigned" % (res, how, 1 - last_cmd[0]))
            elif want == "end":     # the 1000th turn's = line
                if how != "turn-limit":
                    raise LogError(n, "the end line after turn %d is not by the turn limit" % TURN_LIMIT)
            elif how == "turn-limit" and log.turns + 1 == TURN_LIMIT:
                raise LogError(n, "expected the hash of turn %d" % TURN_LIMIT)
            elif how != "killed" or last_cmd[1] not in ("cast", "drink", "quaff"):   # only spells, potions hurt
                raise LogError(n, "the end line does not fit the command before it")
            log.end = (res, how, f[3])
            log.hashes += 1
            log.items.append((n, "end", log.end))
        elif kind == "cmd":
            if want == "end":
                raise LogError(n, "command after the duel ended; expected the end line")
            if want is not None:
                raise LogError(n, "expected the hash of turn %d" % (log.turns + 1))
            p, c, a = int(f[0]), f[1], tuple(f[2:])
            if c != "resign":       # "resign ... may be sent by either wizard at any time"
                if mover is None:
                    if p == prev_mover:
                        raise LogError(n, "command refused: it is not your turn")
                    mover = p
                elif p != mover:
                    raise LogError(n, "command refused: it is not your turn")
                if c == "step":
                    steps += 1
                    if steps > STEPS_MAX:
                        raise LogError(n, "command refused: no steps left this turn")
            last_cmd = (p, c, a)
            log.commands += 1
            log.items.append((n, "cmd", last_cmd))
            want = "end" if c == "resign" else "hash-or-end" if c in ACTIONS else None
        else:
            raise LogError(n, "header line after the header")
    if header < 7:
        raise LogError(len(parts) + 1, "the log ends inside its header")
    log.open_action = want == "hash-or-end"     # stopped after an action: its turn counted if it did not kill
    if strict:
        strict_checks(log)
    return log


def header_line(n, kind, f, k, log, strict):
    if kind != HEADER[k]:
        raise LogError(n, "header line %d out of place" % (k + 1))
    if k in (0, 1):
        v = int(f[1])
        if k == 0 and v != FORMAT:
            raise LogError(n, "log format %d, this wizwar reads format %d" % (v, FORMAT))
        if k == 1 and v != RULES:
            raise LogError(n, "recorded with rules version %d, this wizwar has rules version %d" % (v, RULES))
        if k == 0:
            log.format = v
        else:
            log.rules = v
    elif k == 2:
        m = re.fullmatch(r"size=([0-9]+) fov=(on|off) potions=(on|off)", " ".join(f[1:]))
        log.size, log.fov, log.potions = int(m.group(1)), m.group(2) == "on", m.group(3) == "on"
    elif k == 3:
        log.seed = f[1]
    elif k == 6:
        log.start = f[1]
        log.hashes += 1
    else:
        p = k - 4
        if int(f[1]) != p:
            raise LogError(n, "expected player %d" % p)
        if strict and not text_ok(f[2], name=True):
            raise LogError(n, "a name no writer of wizwar writes")
        log.names[p] = f[2]


def server_comment(n, s, log, order, header):
    """`# wizwar-server KIND ...` (strict): right after the header, in the table's order, each in its format."""
    f = s[len(SERVER):].split(" ")
    kind, args = f[0], f[1:]
    if kind == "room":
        ok = len(args) == 1 and ROOM.fullmatch(args[0])
    elif kind == "seed-part":
        ok = len(args) == 1 and HEX64.fullmatch(args[0])
    elif kind in ("part", "token", "key"):
        ok = len(args) == 2 and args[0] in ("0", "1") and HEX64.fullmatch(args[1])
    elif kind == "seed":
        ok = len(args) == 1 and args[0] in SEED_KINDS
    elif kind == "host":
        ok = len(args) == 1 and args[0] in ("0", "1")
    elif kind == "turn-time":
        ok = len(args) == 1 and NUM.fullmatch(args[0]) and int(args[0]) <= 3600
    elif kind == "spectators":
        # "off, shared, after, or delayed K P (K turns behind, 1 to 20; player P's view, 0 or 1)"
        ok = args in (["off"], ["shared"], ["after"]) or (
            len(args) == 3 and args[0] == "delayed" and NUM.fullmatch(args[1]) and 1 <= int(args[1]) <= 20
            and args[2] in ("0", "1"))
    else:
        raise LogError(n, "an unknown server comment %r" % kind)
    if not ok:
        raise LogError(n, "a server comment out of its format: %r" % s)
    # "A player who turns spectators off during the duel adds `# wizwar-server spectators off` where it
    # happened, among the commands: the only server comment written after the header."
    if header == 7 and args == ["off"] and kind == "spectators" and \
            any(k not in ("header", "comment") for _, k, _ in log.items[:-1]):
        log.spect_off.append(n)
        return order
    if header != 7 or any(k not in ("header", "comment") for _, k, _ in log.items[:-1]) or \
            any(k == "comment" and not d.startswith(SERVER) for _, k, d in log.items[:-1]):
        raise LogError(n, "a server comment that is not right after the header")
    o = SERVER_KINDS.index(kind)
    if o < order or (o == order and kind not in ("part", "token", "key")):
        raise LogError(n, "server comment %r out of order" % kind)
    log.server.append((n, kind, args))
    return o


def strict_checks(log):
    """What the document says wizwar's writers write, beyond what a reader must accept."""
    if log.crlf:
        raise LogError(0, "CRLF endings: no writer of wizwar writes them")
    if log.torn is not None or log.cut:
        raise LogError(0, "a torn last line or a cut gzip member in a log written whole")
    if any(k == "empty" for _, k, _ in log.items):
        raise LogError(0, "an empty line: no writer of wizwar writes one")
    firsts = [n for n, k, _ in log.items if k not in ("header",)]
    if firsts and min(firsts) < max(n for n, k, _ in log.items if k == "header"):
        raise LogError(firsts[0], "a line among the header's: wizwar writes none there")
    kinds = [k for _, k, _ in log.server]
    args = {k: a for _, k, a in log.server}
    if log.server:
        for k in ("seed-part", "seed", "turn-time", "spectators"):
            if kinds.count(k) != 1:
                raise LogError(0, "server comment %r %d times" % (k, kinds.count(k)))
        if [a[0] for _, k, a in log.server if k == "token"] != ["0", "1"]:
            raise LogError(0, "the token comments are not player 0's then player 1's")
        parts = [a[0] for _, k, a in log.server if k == "part"]
        drawn = args["seed"][0] == "drawn"
        if drawn and not parts or not drawn and parts or parts != sorted(set(parts)):
            raise LogError(0, "parts %s with a seed %s" % (parts, args["seed"][0]))
        if kinds.count("room") > 1 or kinds.count("host") > 1 or ("room" in kinds and "host" in kinds):
            raise LogError(0, "room and host comments: %s" % kinds)
    if log.members is not None:
        # A server's log is plain while played and compressed once when the duel ends: one member, whole lines.
        if len(log.members) != 1:
            raise LogError(0, "a finished server log in %d gzip members, not one" % len(log.members))
        if not log.members[0].endswith(b"\n"):
            raise LogError(0, "a gzip member that does not end with a whole line")


# ---------------------------------------------------------------- the writer

def format_item(log, k, d):
    if k == "header":
        return [("wizwar-turnlog %d" % log.format), "rules %d" % log.rules,
                "options size=%d fov=%s potions=%s" % (log.size, "on" if log.fov else "off",
                                                       "on" if log.potions else "off"),
                "seed %s" % log.seed, "player 0 %s" % log.names[0], "player 1 %s" % log.names[1],
                "start %s" % log.start][d]
    if k == "cmd":
        return " ".join((str(d[0]), d[1]) + tuple(d[2]))
    if k == "hash":
        return "= %d %s" % d
    if k == "chat":
        return "chat %d %s" % d
    if k == "end":
        return "end %s %s %s" % d
    return d            # a comment or an empty line


def write_log(log, items=None, members=None, crlf=False):
    """A log's bytes: every item a line (items: the reader's, or another list in its form); members=None plain,
    else gzip with a member ending after each line number in `members` (and one for the rest)."""
    items = log.items if items is None else items
    end = b"\r\n" if crlf else b"\n"
    lines = [format_item(log, k, d).encode("utf-8", "surrogateescape") + end for _, k, d in items]
    if members is None:
        return b"".join(lines)
    out, at = [], 0
    for cut in sorted(members) + [len(lines)]:
        if cut > at:
            out.append(gzip_member(b"".join(lines[at:cut])))
            at = cut
    return b"".join(out)


def gzip_member(b):
    c = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(b) + c.flush()


# ---------------------------------------------------------------- the test

class Tap:
    def __init__(self):
        self.n = self.bad = 0

    def emit(self, ok, text):
        self.n += 1
        if not ok:
            self.bad += 1
        text = shown(text.replace("\n", " | "))
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, text), flush=True)

    def skip(self, text, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, text, why), flush=True)


def shown(s):
    """A text for the terminal: what is not printable (controls, C1, format characters such as the BOM or a bidi
    override, bytes that are not UTF-8) written as its Python escape."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in s)


def clean_output(b):
    """No control character of the file may reach the terminal: nothing in 0x00-0x1f but the newline, no 0x7f,
    no C1 control nor bidi override."""
    return not any((c < 0x20 and c != 0x0a) or c == 0x7f for c in b) and not c1_or_bidi(b)


def quoted(word, cut=None):
    """A word of the log as a reason shows it (docs/turnlog.md): printable ASCII as it is, any other byte,
    and a whole UTF-8 sequence, as one '?'."""
    b = word.encode("utf-8", "surrogateescape")[:cut]
    out, i = [], 0
    while i < len(b):
        c = b[i]
        i += 1
        if c >= 0x80:
            while i < len(b) and 0x80 <= b[i] < 0xc0:
                i += 1
        out.append(chr(c) if 0x20 <= c < 0x7f else "?")
    return "".join(out)


def c1_or_bidi(b):
    """A C1 control as a raw byte (0x80-0x9f outside UTF-8) or as U+0080-U+009F, or a bidi control."""
    u = b.decode("utf-8", "surrogateescape")
    return any(0xdc80 <= ord(ch) <= 0xdc9f or 0x80 <= ord(ch) <= 0x9f or
               ord(ch) in (0x061c, 0x200e, 0x200f) or 0x202a <= ord(ch) <= 0x202e or 0x2066 <= ord(ch) <= 0x2069
               for ch in u)


class Checker:
    def __init__(self, wizwar, tmp, tap, reasons):
        self.w, self.tmp, self.tap, self.reasons = wizwar, tmp, tap, reasons
        self.k = 0

    def check(self, data=None, path=None):
        """`wizwar replay --check` on bytes (written to a file) or a path: (status, stdout, stderr)."""
        if path is None:
            self.k += 1
            path = os.path.join(self.tmp, "case%03d.log" % self.k)
            with open(path, "wb") as fh:
                fh.write(data)
        p = subprocess.run([self.w, "replay", "--check", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        return path, p.returncode, p.stdout, p.stderr


def success_lines(path, log):
    """The success line of "What `wizwar replay --check` says", from what the reader counted: a log that stops
    after an action without its `=` line counts that turn when the action did not kill, which only the rules
    know, so then either count may be right."""
    pl = lambda k, w, e="s": "%d %s%s" % (k, w, "" if k == 1 else e)
    return ["%s: replays exactly: %s, %s, %s checked, %s%s\n" % (
        path, pl(log.commands, "command"), pl(turns, "turn"), pl(log.hashes, "hash", "es"),
        "finished" if log.end else "unfinished (the log stops before the duel ended)",
        "; a torn last line was dropped" if log.torn is not None else "")
        for turns in ((log.turns, log.turns + 1) if log.open_action else (log.turns,))]


def doc_reasons(doc):
    """The REASON column of the document's table, as regular expressions."""
    text = open(doc, encoding="utf-8").read()
    sec = text[text.index("### What `wizwar replay --check` says"):]
    sec = sec[:sec.index("\n#", 10)] if "\n#" in sec[10:] else sec
    out = []
    for row in re.findall(r"^\| (`.*?) \| .*\|$", sec, re.M):
        for cell in re.findall(r"`([^`]*)`", row.replace("\\|", "|")):
            if cell == "REASON":
                continue
            rx = re.escape(cell)
            for word, pat in (("HASH", "[0-9a-f]{16}"), ("WORD", ".*"), ("REASON", ".+"),
                              ("RESULT", "(win0|win1|draw)"),
                              ("HOW", "(killed|resigned|turn-limit)"), ("K", "[0-9]+"), ("F", "[0-9]+"),
                              ("R", "[0-9]+"), ("P", "[01]"), ("T", "[0-9]+"), ("U", "[0-9]+")):
                rx = re.sub(r"\b%s\b" % word, pat.replace("\\", "\\\\"), rx)
            out.append((cell, re.compile(rx)))
            out.append((cell, re.compile(re.escape(cell))))     # "= TURN HASH": words of the reason itself
    return out


def doc_example(doc):
    text = open(doc, encoding="utf-8").read()
    ex = text[text.index("## Example"):]
    return ex[ex.index("```\n") + 4:ex.index("\n```", ex.index("```\n") + 4)].split("\n")


def run(argv, env=None, timeout=60, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env, **kw)


def real_log(tap, ck, what, data, path=None, expect_server=None):
    """Part 2: a log a program wrote, read strictly, written back, and replayed by --check."""
    try:
        log = read_log(data, strict=True)
    except LogError as e:
        tap.emit(False, "%s: the document does not allow it: %s" % (what, e))
        return None
    tap.emit(True, "%s: read strictly (%s, %d turns, %d commands, %d chat, %d comments%s)" % (
        what, "%s by %s" % log.end[:2] if log.end else "unfinished", log.turns, log.commands,
        len(log.lines_of("chat")), len(log.lines_of("comment")),
        ", %d gzip members" % len(log.members) if log.members else ""))
    again = write_log(log)
    tap.emit(again == log.text, "%s: the writer writes it back byte for byte" % what)
    if log.members:
        bounds, at = [], 0
        for m in log.members[:-1]:
            at += m.count(b"\n")
            bounds.append(at)
        z = write_log(log, members=bounds)
        tap.emit(read_log(z).text == log.text and gunzip(z)[0] == log.members,
                 "%s: and as the same %d gzip members" % (what, len(log.members)))
    if expect_server is not None:
        tap.emit(bool(log.server) == expect_server, "%s: %s" % (
            what, "a server's comments after the header" if expect_server else "no server comments"))
    p, rc, out, err = ck.check(data, path)
    want = success_lines(p, log)
    tap.emit(rc == 0 and out.decode() in want and err == b"",
             "%s: replay --check exits 0 with the document's line: %s" % (
                 what, out.decode().strip() if out.decode() in want else "%r, not %r" % (out + err, want)))
    return log


def part_document(tap, doc, reasons):
    """The document's own tables and example, as this reader reads them."""
    text = open(doc, encoding="utf-8").read()
    tap.emit(len(reasons) >= 60, "the document's --check reasons table: %d reasons" % (len(reasons) // 2))
    body = text[text.index("## Body"):text.index("## The state hash")]
    words = re.findall(r"^\| `P ([a-z]+)[^`]*` \|", body, re.M)
    tap.emit(tuple(words) == COMMANDS,
             "the document's body table has the seven commands this reader knows: %s" % words)
    kinds = re.findall(r"^\| `# wizwar-server ([a-z-]+) [^`]*` \|", text, re.M)
    tap.emit(tuple(kinds) == SERVER_KINDS, "the document's server comments, in its order: %s" % kinds)
    ex = doc_example(doc)
    bad = []
    for n, s in enumerate(ex, 1):
        if s != "...":
            try:
                parse_line(n, s)
            except LogError as e:
                bad.append(str(e))
    try:
        hdr = read_log(("\n".join(ex[:7]) + "\n").encode())
        hok = hdr.seed == "0000000000000007" and hdr.names == ["random-bot-0", "random-bot-1"] and hdr.rules == RULES
    except LogError as e:
        hok, bad = False, bad + ["header: %s" % e]
    tap.emit(hok and not bad and len(ex) > 10,
             "the document's example: its header reads, with this rules version, and each line has a form of the "
             "format%s" % (": " + "; ".join(bad) if bad else ""))


def part_golden(tap, ck, replay_dir):
    logs = sorted(f for f in os.listdir(replay_dir) if f.endswith(".log"))
    tap.emit(len(logs) >= 5, "%d golden logs in %s" % (len(logs), replay_dir))
    out = {}
    for f in logs:
        path = os.path.join(replay_dir, f)
        out[f] = real_log(tap, ck, "golden " + f, open(path, "rb").read(), path, expect_server=False)
    return out


def part_selfplay(tap, ck, wizwar, tmp):
    d = os.path.join(tmp, "selfplay")
    os.mkdir(d)
    runs = [("default", 41, []), ("15x15 no FoV", 42, ["--size", "15", "--no-fov"]), ("51x51", 43, ["--size", "51"]),
            ("no potions", 44, ["--no-potions"]), ("normal vs hard", 45, ["--bots", "normal,hard"])]
    logs = []
    for what, seed, args in runs:
        sub = os.path.join(d, str(seed))
        os.mkdir(sub)
        p = run([wizwar, "selfplay", "--seed", str(seed), "--quiet", "--log", sub] + args)
        files = os.listdir(sub)
        want = "selfplay-%016x.log" % seed
        tap.emit(p.returncode == 0 and files == [want], "selfplay %s: writes DIR/%s (%s)" % (what, want, files))
        if files == [want]:
            lg = real_log(tap, ck, "selfplay " + what, open(os.path.join(sub, want), "rb").read(),
                          expect_server=False)
            if lg:
                opt = (lg.size, lg.fov, lg.potions)
                exp = (51 if "51" in what else 15 if "15" in what else 25, "FoV" not in what, "potions" not in what)
                tap.emit(opt == exp and lg.seed == "%016x" % seed,
                         "selfplay %s: the header's options %s and seed %s are the ones asked" % (what, opt, lg.seed))
                logs.append(lg)
    return logs


class Proc:
    def __init__(self, argv, env):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def wait_until(cond, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    return None


def gz_text(path):
    try:
        return b"".join(gunzip(open(path, "rb").read())[0])
    except (OSError, LogError):
        return b""


def finished_logs(st, pick, want=1, secs=10):
    """A server's finished logs whose names `pick` accepts, {name: path}: compressed once at the duel's end, off
    the server's loop, into the log directory's folder of that day, LOGDIR/YYYY/MM/DD/ (docs/server.md, "Turn
    logs"); waited for until `want` of them are there."""
    def find():
        got = {}
        for f in glob.glob(os.path.join(st, "[0-9]" * 4, "[0-9]" * 2, "[0-9]" * 2, "*.log.gz")):
            if pick(os.path.basename(f)):
                got[os.path.basename(f)] = f
        return got if len(got) >= want else None
    return wait_until(find, secs) or find_now(st, pick)


def find_now(st, pick):
    return {os.path.basename(f): f for f in glob.glob(os.path.join(st, "[0-9]" * 4, "[0-9]" * 2, "[0-9]" * 2, "*.log.gz"))
            if pick(os.path.basename(f))}


def part_server(tap, ck, wizwar, tmp, procs):
    """A `wizwar server` room: two bots play a duel and its mirror rematch; the room's gzip logs."""
    st = os.path.join(tmp, "server")
    os.mkdir(st)
    env = dict(os.environ, XDG_STATE_HOME=st, HOME=st)
    env.pop("WIZWAR_PASSWORD", None)
    srv = Proc([wizwar, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", st], env)
    procs.append(srv)
    line = srv.p.stdout.readline()      # "wizwar join 127.0.0.1:PORT#FP --new-room"
    addr = line.split()[2] if line.startswith("wizwar join ") else None
    tap.emit(addr is not None, "a wizwar server on loopback: %s" % line.strip())
    if addr is None:
        return None
    bots = []
    for i, name in enumerate(("alice", "bob")):
        be = dict(env, XDG_STATE_HOME=os.path.join(tmp, "bot%d" % i), HOME=os.path.join(tmp, "bot%d" % i))
        args = [wizwar, "bot", addr, "--name", name, "--level", "random", "--think", "0", "--games", "2",
                "--mirror", "--seed", str(7 + i)]
        if i == 0:
            b = Proc(args + ["--new-room"], be)
            first = b.p.stdout.readline()
            m = re.match(r"room ([A-Za-z0-9_-]+):", first)
            code = m.group(1) if m else None
            if code is None:
                tap.emit(False, "the first bot made no room: %r" % first)
                return None
        else:
            b = Proc(args + ["--room", code], be)
        procs.append(b)
        bots.append(b)
    outs = []
    for b in bots:
        try:
            o, e = b.p.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            b.p.kill()
            o, e = b.p.communicate()
        outs.append((b.p.returncode, o, e))
    tap.emit(all(rc == 0 for rc, _, _ in outs), "two bots played their 2 duels in room %s and left: %s" % (
        code, " / ".join((o + e).strip().replace("\n", " ")[-160:] for _, o, e in outs)))
    found = finished_logs(st, lambda f: f.startswith("wizwar-%s-" % code), 2)
    logs = sorted(found)
    tap.emit(len(logs) == 2, "the room's two duels have a gzip log each: %s" % logs)
    got = []
    for f in logs:
        path = found[f]
        wait_until(lambda: re.search(rb"\nend [^\n]*\n$", gz_text(path)), 10)   # written off the loop
        lg = real_log(tap, ck, "server log %s" % f, open(path, "rb").read(), path, expect_server=True)
        got.append(lg)
    if len(got) == 2 and all(got):
        a, b = got
        kinds = [dict((k, v) for _, k, v in lg.server) for lg in got]
        tap.emit(all(k.get("room") == [code] for k in kinds) and all("host" not in k for k in kinds),
                 "both name room %s and no host seat (a multi-room server)" % code)
        tap.emit(kinds[0]["seed"] == ["drawn"] and [v[0] for _, k, v in a.server if k == "part"] == ["0", "1"],
                 "duel 1: seed drawn, from both players' parts")
        tap.emit(kinds[1]["seed"] == ["mirror"] and not [1 for _, k, _ in b.server if k == "part"]
                 and b.seed == a.seed and b.names == a.names[::-1] and b.start == a.start,
                 "duel 2, the mirror: seed mirror, no parts, the same seed and level, the seats swapped (%s)"
                 % b.names)
        tap.emit(all(k["turn-time"] == ["0"] for k in kinds), "turn-time 0: a server's duel with no timer")
    srv_info = {"addr": addr, "st": st, "env": env, "srv": srv}
    return srv_info


def part_host(tap, ck, wizwar, tmp, procs):
    """A `wizwar host --headless` with a chosen seed and a turn timer: two bots play one duel; its gzip log."""
    st = os.path.join(tmp, "host")
    os.mkdir(st)
    env = dict(os.environ, XDG_STATE_HOME=st, HOME=st)
    env.pop("WIZWAR_PASSWORD", None)
    h = Proc([wizwar, "host", "--headless", "--bind", "127.0.0.1", "--port", "0", "--log-dir", st, "--seed", "99",
              "--turn-time", "30"], env)
    procs.append(h)
    line = h.p.stdout.readline()
    addr = line.split()[2] if line.startswith("wizwar join ") else None
    tap.emit(addr is not None, "a wizwar host --headless --seed 99 --turn-time 30 on loopback: %s" % line.strip())
    if addr is None:
        return
    bots = [Proc([wizwar, "bot", addr, "--name", n, "--level", "random", "--think", "0", "--games", "1", "--seed",
                  str(20 + i)], dict(env, XDG_STATE_HOME=os.path.join(tmp, "hbot%d" % i)))
            for i, n in enumerate(("carol", "dave"))]
    procs.extend(bots)
    rcs = []
    for b in bots:
        try:
            b.p.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            b.p.kill()
            b.p.communicate()
        rcs.append(b.p.returncode)
    found = finished_logs(st, lambda f: True, 1)
    logs = sorted(found)
    tap.emit(rcs == [0, 0] and len(logs) == 1, "two bots played a duel on the host and left (%s): %s" % (rcs, logs))
    if len(logs) != 1:
        return
    path = found[logs[0]]
    wait_until(lambda: re.search(rb"\nend [^\n]*\n$", gz_text(path)), 10)
    lg = real_log(tap, ck, "host log %s" % logs[0], open(path, "rb").read(), path, expect_server=True)
    if lg:
        k = dict((kind, v) for _, kind, v in lg.server)
        tap.emit(lg.seed == "%016x" % 99 and k.get("seed") == ["chosen"] and "part" not in k and "room" not in k
                 and "host" not in k and k.get("turn-time") == ["30"],
                 "the host's log: seed 99 chosen, no parts, no room, no host seat (headless), turn-time 30: %s"
                 % sorted(k))


def kill_tree(pid):
    """SIGKILL a process and everything below it (children first found through /proc)."""
    kids = []
    for f in glob.glob("/proc/%d/task/*/children" % pid):   # every thread's: any may have forked
        try:
            with open(f) as fh:
                kids += fh.read().split()
        except OSError:
            pass
    for k in kids:
        kill_tree(int(k))
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


class Tmux:
    def __init__(self, tmp, part):
        self.sock = "doclog-%d-%s" % (os.getpid(), part)   # a private server per part: never the default one
        self.tmp = tmp
        self.base = ["tmux", "-L", self.sock, "-f", "/dev/null"]

    def __call__(self, *a):
        return subprocess.run(self.base + list(a), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=20)

    def start(self, cmd):
        self("new-session", "-d", "-s", "w", "-x", "100", "-y", "30", cmd + "; exec sleep 600")

    def screen(self):
        return self("capture-pane", "-p", "-t", "w").stdout

    def wait(self, rx, secs=15):
        return wait_until(lambda: re.search(rx, self.screen()), secs)

    def keys(self, *k):
        self("send-keys", "-t", "w", *k)
        time.sleep(0.15)

    def text(self, s):
        self("send-keys", "-t", "w", "-l", s)
        time.sleep(0.15)

    def say(self, s):
        self.keys("Enter")
        self.text(s)
        self.keys("Enter")

    def kill(self):
        # The panes' processes first: a client whose terminal goes first exits through its
        # sanitizer's leak check, which has been seen to spin for good (google/sanitizers#777).
        out = subprocess.run(self.base + ["list-panes", "-a", "-F", "#{pane_pid}"],
                             capture_output=True, text=True).stdout
        for pid in out.split():
            kill_tree(int(pid))
        self("kill-server")


CHAT_TYPED = "gg \\n back\\slash  two spaces, héllo ünï 🜁"


def part_practice(tap, ck, wizwar, tmp):
    if not shutil.which("tmux"):
        tap.skip("a wizwar practice log", "tmux is not installed (practice needs a terminal)")
        return
    st = os.path.join(tmp, "practice")
    os.mkdir(st)
    t = Tmux(tmp, "practice")
    try:
        t.start("env XDG_STATE_HOME=%s LANG=C.UTF-8 %s practice --seed 77 --bot random --name 'Tess Q' --no-fov"
                % (st, wizwar))
        ok = t.wait(r"Round 1")
        if ok:
            t.say(CHAT_TYPED)
            t.wait(r"<Tess Q> gg", 5)
            t.keys(".")                     # a pass: a turn of each, the bot's after mine or mine after its
            t.wait(r"Round 2: your move", 10)
            t.keys("Q")
            t.wait(r"Forfeit|forfeit", 5)
            t.keys("r")
        path = os.path.join(st, "wizwar", "practice-%016x.log" % 77)
        done = wait_until(lambda: os.path.exists(path) and re.search(rb"\nend [^\n]*\n$", open(path, "rb").read()), 15)
        tap.emit(bool(ok and done), "wizwar practice in tmux: forfeited after a chat line, its log %s written" % path)
        if not done:
            print("# screen:\n# " + shown(t.screen()).replace("\n", "\n# "))
            return
        data = open(path, "rb").read()
        tap.emit(data[:2] != b"\x1f\x8b", "practice's log is plain text")
        lg = real_log(tap, ck, "practice log", data, path, expect_server=False)
        if lg:
            chats = lg.lines_of("chat")
            tap.emit([c for _, c in chats] == [(0, CHAT_TYPED)],
                     "practice: the chat line is the text typed, byte for byte, unescaped: %r" % chats)
            tap.emit(lg.names == ["Tess Q", "random bot"] and lg.end[:2] == ("win1", "resigned"),
                     "practice: names with their spaces, and the forfeit: %s, %s" % (lg.names, lg.end[:2]))
    finally:
        t.kill()


def part_join(tap, ck, wizwar, tmp, srv):
    if srv is None:
        tap.emit(False, "no server for the join")
        return
    if not shutil.which("tmux"):
        tap.skip("a wizwar join client's duel-SEED.log", "tmux is not installed (join needs a terminal)")
        return
    js = os.path.join(tmp, "join")
    keep = os.path.join(js, "kept")
    os.makedirs(keep)
    t = Tmux(tmp, "join")
    bot = None
    try:
        t.start("env XDG_STATE_HOME=%s LANG=C.UTF-8 %s join %s --new-room --name Jo --log-dir %s"
                % (js, wizwar, srv["addr"], keep))
        m = t.wait(r"New room ([0-9a-z-]+)")
        code = m.group(1) if m else None
        if code:
            be = dict(srv["env"], XDG_STATE_HOME=os.path.join(tmp, "bot3"), HOME=os.path.join(tmp, "bot3"))
            bot = Proc([wizwar, "bot", srv["addr"], "--room", code, "--name", "Rob", "--level", "random",
                        "--think", "0", "--games", "1", "--seed", "3"], be)
            # Not "your move" alone: the lobby's side panel says "Spells offered on your move".
            if t.wait(r"Round [0-9]+: your move", 30):
                t.say(CHAT_TYPED)
                t.wait(r"<Jo> gg", 5)
                t.keys("Q")
                t.wait(r"Forfeit and quit", 5)
                t.keys("r")
        kept = wait_until(lambda: [f for f in os.listdir(keep) if re.fullmatch(r"duel-[0-9a-f]{16}\.log", f)], 20)
        tap.emit(bool(code and kept), "wizwar join in tmux (room %s) against a bot: forfeited after a chat line, "
                 "kept %s" % (code, kept))
        if not kept:
            print("# screen:\n# " + shown(t.screen()).replace("\n", "\n# "))
            return
        path = os.path.join(keep, kept[0])
        wait_until(lambda: re.search(rb"\nend [^\n]*\n$", open(path, "rb").read()), 5)
        data = open(path, "rb").read()
        lg = real_log(tap, ck, "join's duel log", data, path, expect_server=True)
        found = finished_logs(srv["st"], lambda f: f.startswith("wizwar-%s-" % code), 1)
        srvlogs = sorted(found)
        if lg and len(srvlogs) == 1:
            sp = found[srvlogs[0]]
            stext = wait_until(lambda: (lambda x: x if re.search(rb"\nend [^\n]*\n$", x) else None)(gz_text(sp)), 10)
            tap.emit(kept[0] == "duel-%s.log" % lg.seed and data[:2] != b"\x1f\x8b",
                     "the kept log is plain text named after its seed: %s" % kept[0])
            room = ("# wizwar-server room %s\n" % code).encode()
            tap.emit(stext is not None and room in stext and stext.replace(room, b"", 1) == data,
                     "the kept log is the server's log without its room comment, byte for byte")
            me = lg.names.index("Jo") if "Jo" in lg.names else -1
            tap.emit([c for _, c in lg.lines_of("chat")] == [(me, CHAT_TYPED)],
                     "the chat typed is in the log byte for byte, from the joiner's seat %d" % me)
            tap.emit(lg.end[:2] == ("win%d" % (1 - me), "resigned"), "the forfeit: %s" % (lg.end[:2],))
        else:
            tap.emit(False, "the room's server log: %s" % srvlogs)
    finally:
        t.kill()
        if bot:
            bot.stop()


# ---------------------------------------------------------------- part 3: broken logs

def lines_of(data):
    return data.split(b"\n")[:-1]


def join(ls, end=b"\n"):
    return b"".join(l + end for l in ls)


def idx(L, rx, k=0):
    return [i for i, l in enumerate(L) if re.match(rx, l)][k]


def part_broken(tap, ck, base, limit, server_log):
    """Logs broken (or odd but allowed) from the document's own rules, against `wizwar replay --check`."""
    L = lines_of(base)
    h3 = idx(L, rb"= ", 2)                   # the 3rd hash line
    cmd3 = h3 - 1                            # the command that ended turn 3
    st = idx(L, rb"[01] step ")              # a step
    c1 = idx(L, rb"[01] (cast|pass|drink|quaff|pickup)")     # the first action
    mover = L[c1][:1]
    other = b"1" if mover == b"0" else b"0"
    fl = lambda s: s[:-1] + (b"0" if s[-1:] != b"0" else b"1")   # a hash with its last digit changed
    cases = []

    def case(what, data, line=None, reason=None, reader="same"):
        cases.append((what, data, line, reason, reader))

    def at(i, *new):
        return join(L[:i] + list(new) + L[i + 1:])

    def ins(i, *new):
        return join(L[:i] + list(new) + L[i:])

    # --- what the document allows
    case("a log as written", base)
    case("CRLF endings", join(L, b"\r\n"))
    case("one CRLF ending among \\n ones", at(9, L[9] + b"\r"))
    case("empty lines, comments (with and without a space) and chat before and among the header's lines",
         join([b"", b"# before", b"chat 1 early"] + L[:3] + [b"#x", b""] + L[3:]))
    case("a line of a lone \\r: an empty line", ins(9, b"\r"))
    case("a 511-byte comment", ins(9, b"#" + b"x" * 510))
    case("a 511-byte comment ended by \\r\\n", ins(9, b"#" + b"x" * 510 + b"\r"))
    case("a chat text of 504 bytes (past 200: readers take what the line holds)", ins(9, b"chat 0 " + b"y" * 504))
    case("a chat text with a backslash, two spaces in a row and at both ends, UTF-8",
         ins(9, "chat 1  a\\b  c ü ".encode()))
    case("a chat text that is not UTF-8 (not checked)", ins(9, b"chat 0 \xff\xfe"))
    case("a name of 63 bytes", at(4, b"player 0 " + b"n" * 63))
    case("a name with a leading and a trailing space", at(5, b"player 1  b "))
    case("chat and comments between a command and its = line", ins(h3, b"chat 0 between", b"# and a comment"))
    case("chat and comments after the end line", join(L + [b"chat 1 gg", b"# after", b""]))
    case("a malformed server comment (every reader ignores them)", ins(7, b"# wizwar-server room a/b c"))
    case("stopped between a command and its = line: unfinished, that turn counted", join(L[:h3]))
    case("stopped after a step", join(L[:st + 1]))
    case("a torn last line (no \\n at the end)", base[:-7])
    case("a last line without its \\n that is whole: still torn, dropped", base[:-1])
    # --- line-level refusals
    case("a 512-byte line", ins(9, b"#" + b"x" * 511), 10, "line longer than 511 bytes")
    case("a tab in a comment", ins(9, b"# a\tb"), 10, "control character at column 4")
    case("a NUL", at(9, L[9][:3] + b"\0" + L[9][3:]), 10, "control character at column 4")
    case("DEL in a chat text", ins(9, b"chat 0 a\x7f"), 10, "control character at column 9")
    case("ESC [2J in a chat text", ins(9, b"chat 0 \x1b[2J"), 10, "control character at column 8")
    case("a \\r inside a line", at(9, L[9][:2] + b"\r" + L[9][2:]), 10, "control character at column 3")
    case("two \\r before the \\n", at(9, L[9] + b"\r\r"), 10, "control character at column %d" % (len(L[9]) + 1))
    case("an old Mac file (\\r endings only): one torn line", join(L, b"\r"), 1, "the log ends inside its header")
    case("a UTF-8 BOM", b"\xef\xbb\xbf" + base, 1, "unknown line '?wizwar-turnlog'")
    case("a line of spaces", ins(9, b"   "), 10, "stray space")
    case("two spaces between fields", at(c1, L[c1].replace(b" ", b"  ", 1)), c1 + 1, "stray space")
    case("a trailing space", at(c1, L[c1] + b" "), c1 + 1, "stray space")
    case("a leading space", at(c1, b" " + L[c1]), c1 + 1, "unknown line ''")
    case("an unknown line", ins(9, b"hello world"), 10, "unknown line 'hello'")
    case("an unknown line's word cut at 40 bytes", ins(9, b"w" * 60), 10, "unknown line '%s'" % ("w" * 40))
    # --- the header
    case("an empty file", b"", 1, "the log ends inside its header")
    case("three header lines", join(L[:3]), 4, "the log ends inside its header")
    case("a header torn in its last line", join(L[:7])[:-3], 7, "the log ends inside its header")
    case("format version 2", at(0, b"wizwar-turnlog 2"), 1, "log format 2, this wizwar reads format 1")
    case("format version 01", at(0, b"wizwar-turnlog 01"), 1, "wizwar-turnlog takes one version number")
    case("format version 0", at(0, b"wizwar-turnlog 0"), 1, "wizwar-turnlog takes one version number")
    rv = int(L[1].split()[1])  # the rules version of this wizwar's logs
    case("a log of an older rules version", at(1, b"rules %d" % (rv - 1)), 2,
         "recorded with rules version %d, this wizwar has rules version %d" % (rv - 1, rv))
    case("a log of a newer rules version", at(1, b"rules %d" % (rv + 1)), 2,
         "recorded with rules version %d, this wizwar has rules version %d" % (rv + 1, rv))
    case("rules without a number", at(1, b"rules"), 2, "rules takes one version number")
    case("size 24 (even)", at(2, b"options size=24 fov=on potions=on"), 3, "level size must be odd, from 15 to 51")
    case("size 13", at(2, b"options size=13 fov=on potions=on"), 3, "level size must be odd, from 15 to 51")
    case("size 53", at(2, b"options size=53 fov=on potions=on"), 3, "level size must be odd, from 15 to 51")
    case("size 0", at(2, b"options size=0 fov=on potions=on"), 3,
         "options must read: options size=N fov=on|off potions=on|off")
    case("fov=yes", at(2, b"options size=25 fov=yes potions=on"), 3,
         "options must read: options size=N fov=on|off potions=on|off")
    case("options in another order", at(2, b"options fov=on size=25 potions=on"), 3,
         "options must read: options size=N fov=on|off potions=on|off")
    case("a seed in upper case", at(3, b"seed " + L[3][5:].upper()), 4, "seed takes 16 lower-case hex digits")
    case("a seed of 15 digits", at(3, L[3][:-1]), 4, "seed takes 16 lower-case hex digits")
    case("the player lines swapped", join(L[:4] + [L[5], L[4]] + L[6:]), 5, "expected player 0")
    case("a name of 64 bytes", at(4, b"player 0 " + b"n" * 64), 5, "player text too long")
    case("an empty name", at(4, b"player 0 "), 5, "stray space")
    case("no name", at(4, b"player 0"), 5, "player takes a player 0 or 1 and a text")
    case("a player 2", at(5, b"player 2 c"), 6, "player takes a player 0 or 1 and a text")
    case("a chat line from a player 2", ins(9, b"chat 2 hi"), 10, "chat takes a player 0 or 1 and a text")
    case("a chat line without a text", ins(9, b"chat 1"), 10, "chat takes a player 0 or 1 and a text")
    case("a chat line with an empty text", ins(9, b"chat 1 "), 10, "stray space")
    case("a chat line of 512 bytes", ins(9, b"chat 1 " + b"z" * 505), 10, "line longer than 511 bytes")
    case("a start hash of 17 digits", at(6, L[6] + b"0"), 7, "start takes 16 lower-case hex digits")
    case("a wrong start hash", at(6, fl(L[6])), 7, "set-up diverged: log says %s, replay gives %s"
         % (fl(L[6])[6:].decode(), L[6][6:].decode()), reader="accepts")
    case("rules before the format line", join([L[1], L[0]] + L[2:]), 1, "header line 1 out of place")
    case("a command inside the header", ins(6, b"0 pass"), 7, "header line 7 out of place")
    case("a second seed line in the body", ins(9, L[3]), 10, "header line after the header")
    # --- commands
    case("a player's digit alone", ins(c1, mover), c1 + 1, "a command line reads: PLAYER COMMAND [ARG] [DIR]")
    case("a player 2", at(c1, b"2" + L[c1][1:]), c1 + 1, "unknown line '2'")
    case("an unknown command", at(c1, mover + b" jump"), c1 + 1, "unknown command 'jump'")
    for d in (b"5", b"0", b"10", b"06", b"2 2"):
        case("step %s" % d.decode(), at(st, L[st][:7] + d), st + 1, "step takes one direction (1-4, 6-9)")
    case("step with no direction", at(st, L[st][:6]), st + 1, "step takes one direction (1-4, 6-9)")
    for a in (b"0", b"4", b"01", b"1 2 3"):
        case("cast %s" % a.decode(), at(c1, mover + b" cast " + a), c1 + 1,
             "cast takes a slot 1-3 and maybe a direction")
    for a in (b"5", b"0", b"x"):
        case("cast 1 %s" % a.decode(), at(c1, mover + b" cast 1 " + a), c1 + 1, "bad direction '%s'" % a.decode())
    for a in (b"0", b"10", b""):
        case("quaff %r" % a.decode(), at(c1, mover + b" quaff" + (b" " + a if a else b"")), c1 + 1,
             "quaff takes a slot 1-9")
    for c in (b"pass", b"drink", b"pickup", b"resign"):
        case("%s 1" % c.decode(), at(c1, mover + b" " + c + b" 1"), c1 + 1, "%s takes no argument" % c.decode())
    case("a command out of turn, after the mover's step", ins(st + 1, other + b" pass"), st + 2,
         "command refused: it is not your turn")
    case("a command the rules refuse (an empty inventory slot)", at(c1, mover + b" quaff 9"), c1 + 1,
         "command refused: no potion in that inventory slot", reader="accepts")
    d = L[st][-1:]
    back = {b"1": b"9", b"2": b"8", b"3": b"7", b"4": b"6", b"6": b"4", b"7": b"3", b"8": b"2", b"9": b"1"}[d]
    case("steps back and forth past the 5 of a turn", join(L[:st + 1] + [L[st][:7] + back, L[st]] * 3 + L[st + 1:]),
         st + 6, "command refused: no steps left this turn", reader="later")
    # --- hash lines
    case("a wrong hash", at(h3, fl(L[h3])), h3 + 1, "diverged after turn 3: log says %s, replay gives %s"
         % (fl(L[h3])[4:].decode(), L[h3][4:].decode()), reader="accepts")
    case("a hash line missing", join(L[:h3] + L[h3 + 1:]), h3 + 1, "expected the hash of turn 3")
    case("a hash line after a step", ins(st + 1, b"= 1 0000000000000000"), st + 2, "hash line where no turn ended")
    case("a hash line twice", ins(h3 + 1, L[h3]), h3 + 2, "hash line where no turn ended")
    case("a hash line for another turn", at(h3, L[h3].replace(b"= 3 ", b"= 4 ")), h3 + 1,
         "hash for turn 4, but turn 3 just ended")
    case("a turn number with a leading zero", at(h3, L[h3].replace(b"= 3 ", b"= 03 ")), h3 + 1,
         "a hash line reads: = TURN HASH")
    case("a hash in upper case", at(h3, L[h3].upper()), h3 + 1, "a hash line reads: = TURN HASH")
    case("a hash line before its command", join(L[:cmd3] + [L[h3], L[cmd3]] + L[h3 + 1:]), cmd3 + 1,
         "hash line where no turn ended")
    # --- the end
    e = len(L) - 1
    case("a line after the end", join(L + [b"0 pass"]), e + 2, "text after the end line")
    case("a hash line after the end", join(L + [b"= 1 0000000000000000"]), e + 2, "text after the end line")
    case("the end line twice", join(L + [L[-1]]), e + 2, "text after the end line")
    res, how = L[-1].split(b" ")[1:3]
    wrong = b"win1" if res != b"win1" else b"win0"
    case("an end line with the other result", at(e, L[e].replace(res, wrong, 1)), e + 1,
         "log says %s by %s, replay gives %s by %s" % (wrong.decode(), how.decode(), res.decode(), how.decode()),
         reader="accepts")
    case("an end line with another reason", at(e, L[e].replace(how, b"turn-limit", 1)), e + 1,
         "log says %s by turn-limit, replay gives %s by %s" % (res.decode(), res.decode(), how.decode()),
         reader="line")
    case("a wrong final hash", at(e, fl(L[e])), e + 1, "final state diverged: log says %s, replay gives %s"
         % (fl(L[e])[-16:].decode(), L[e][-16:].decode()), reader="accepts")
    case("an end line without its hash", at(e, b" ".join(L[e].split(b" ")[:3])), e + 1,
         "an end line reads: end win0|win1|draw killed|resigned|turn-limit HASH")
    case("an end line in the middle", ins(st + 1, b"end draw killed 0000000000000000"), st + 2,
         "end line, but the duel is still going")
    case("a command after the one that killed", join(L[:e] + [L[e - 1]] + L[e:]), e + 1,
         "command after the duel ended; expected the end line", reader="line")
    case("a hash line after the command that killed", join(L[:e] + [b"= %d 0000000000000000" % 9] + L[e:]), e + 1,
         "hash line where no turn ended", reader="line")
    case("a forfeit and its end line", join(L[:h3 + 1] + [mover + b" resign", b"end win%s resigned %s" % (
        other, b"0" * 16)]), h3 + 3, re.compile("final state diverged: log says 0{16}, replay gives [0-9a-f]{16}"),
         reader="accepts")
    case("a hash line after a forfeit", join(L[:h3 + 1] + [mover + b" resign", b"= 4 " + b"0" * 16]), h3 + 3,
         "hash line where no turn ended")
    case("a forfeit won by the one who forfeited", join(L[:h3 + 1] + [mover + b" resign", b"end win%s resigned %s"
                                                                     % (mover, b"0" * 16)]),
         h3 + 3, "log says win%s by resigned, replay gives win%s by resigned" % (mover.decode(), other.decode()))
    # --- the turn limit (docs/turnlog.md: the 1000th turn's = line, then the end line)
    if limit is not None:
        T = lines_of(limit)
        k = idx(T, rb"= 1000 ")
        case("the turn limit: the = 1000 line left out, as the document once said", join(T[:k] + T[k + 1:]), k + 1,
             "expected the hash of turn 1000")
        case("the turn limit: a command after the = 1000 line", join(T[:k + 1] + [T[k - 1]] + T[k + 1:]), k + 2,
             "command after the duel ended; expected the end line")
        case("the turn limit log stopped after its = 1000 line", join(T[:k + 1]))
    # --- gzip (docs/turnlog.md: a series of members; one cut short; one damaged; bytes after the last)
    G = read_log(base)
    members = list(range(7, len(L), 37))
    Z = write_log(G, members=members)
    case("gzip: the doc writer's members (header first, then batches)", Z)
    case("gzip: members that end inside lines", b"".join(gzip_member(x) for x in (base[:100], base[100:1000],
                                                                                  base[1000:])))
    case("gzip: an empty member first", gzip_member(b"") + Z)
    last = len(Z) - len(gzip_member(join(L[members[-1]:])))
    for cut in (1, 11, 30, -12, -8, -1):
        case("gzip: the last member cut at %+d bytes" % cut, Z[:last + cut] if cut > 0 else Z[:cut])
    case("gzip: cut in the middle of the file", Z[:len(Z) // 2])
    case("gzip: cut inside the first member's gzip header", Z[:5], 1, "the log ends inside its header")
    bad = bytearray(Z)
    bad[-6] ^= 0xff
    case("gzip: a damaged member (wrong CRC)", bytes(bad), 0, "cannot read")
    case("gzip: bytes after the last member (ignored)", Z + b"0 pass\ngarbage\n")
    case("gzip: a bad command inside a member", write_log(G, items=G.items[:c1] + [(0, "comment", "0 jump")]
                                                          + G.items[c1 + 1:], members=members), c1 + 1,
         "unknown command 'jump'")
    if server_log is not None:
        S = lines_of(server_log)
        case("a server's log with its first comment moved among the header's lines",
             join(S[:3] + S[7:8] + S[3:7] + S[8:]))
    # --- what no byte of the file may do: C1 controls and bidi in the word a reason quotes, shown as '?'
    case("an unknown line starting with a raw 0x9b (8-bit CSI)", ins(9, b"\x9b2J\x9b31m"), 10,
         "unknown line '?2J?31m'")
    case("an unknown command of U+009B (CSI)", ins(c1, mover + " \u009b31m".encode()), c1 + 1,
         "unknown command '?31m'")
    case("a cast direction of U+202E (RIGHT-TO-LEFT OVERRIDE)", at(c1, mover + " cast 1 \u202e".encode()), c1 + 1,
         "bad direction '?'")

    for what, data, line, reason, reader in cases:
        check_case(tap, ck, what, data, line, reason, reader)
    # files that cannot be read at all, and bad arguments
    missing = os.path.join(ck.tmp, "no-such.log")
    _, rc, out, err = ck.check(path=missing)
    want = b"wizwar replay: cannot open %s: No such file or directory\n" % missing.encode()
    tap.emit(rc == 1 and out == b"" and err == want,
             "a missing file: exit 1, %s" % err.decode(errors="replace").strip())
    big = gzip_member(b"#\n" * ((64 << 20) // 2 + 1))
    path, rc, out, err = ck.check(big)
    tap.emit(rc == 1 and out == b"" and err == b"wizwar replay: %s is larger than 67108864 bytes\n" % path.encode(),
             "a log of more than 64 MiB (a 64 KiB gzip): exit 1, %s" % err.decode(errors="replace").strip())
    p = run([ck.w, "replay", "--check"])
    tap.emit(p.returncode == 2 and p.stdout == b"" and b"usage:" in p.stderr,
             "replay --check without a log: the usage and exit 2 (%d)" % p.returncode)


def check_case(tap, ck, what, data, line, reason, reader):
    """One case: line None, an allowed log; else --check must say "wizwar replay: LOG: line N: REASON" (reason a string, or a
    pattern where a hash only the rules know is in it), and the reader: 'same' (the same line and reason),
    'line' (the same line, its own words: it cannot know the replay's), 'accepts' (it cannot see it: the
    rules can), 'later' (it cannot see it here, and refuses at a later line or takes it)."""
    path, rc, out, err = ck.check(data)
    shown = (out + err).decode("utf-8", "replace").strip()
    prefix = "wizwar replay: " + path
    shown = shown[len(prefix) + 2:] if shown.startswith(prefix) else shown
    try:
        mine, mine_err = read_log(data), None
    except LogError as e:
        mine, mine_err = None, e
    if line is None:
        want = success_lines(path, mine) if mine else []
        tap.emit(rc == 0 and out.decode("utf-8", "replace") in want and err == b"",
                 "%s: allowed: exit 0, %s%s" % (what, shown, "" if mine else " (the reader refuses it: %s)" % mine_err))
        return
    if reason == "cannot read":
        ok = rc == 1 and err.startswith(b"wizwar replay: cannot read %s: " % path.encode()) and out == b"" and \
            b": line " not in err and clean_output(err)
        tap.emit(ok, "%s: exit 1, no line number: %s" % (what, shown))
        tap.emit(mine_err is not None and mine_err.reason.startswith("cannot read"),
                 "%s: the reader cannot read it either: %s" % (what, mine_err))
        return
    head = b"wizwar replay: %s: line %d: " % (path.encode(), line)
    got = err[len(head):-1].decode("utf-8", "surrogateescape") if err.startswith(head) and err.endswith(b"\n") else None
    same = got is not None and (got == reason if isinstance(reason, str) else bool(reason.fullmatch(got)))
    in_doc = got is not None and any(rx.fullmatch(got) for _, rx in REASONS)
    tap.emit(rc == 1 and same and out == b"" and err.count(b"\n") == 1 and in_doc and clean_output(out + err),
             "%s: exit %d, %s%s" % (what, rc, shown, "" if in_doc else " (NOT a reason of the document's table)"))
    if reader == "same":
        ok = mine_err is not None and mine_err.line == line and mine_err.reason == got
    elif reader == "line":
        ok = mine_err is not None and mine_err.line == line
    elif reader == "accepts":
        ok = mine is not None
    else:
        ok = mine is not None or mine_err.line > line
    tap.emit(ok, "%s: the reader: %s" % (what, "takes it" if mine else mine_err))


REASONS = []


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--read":
        bad = 0
        for path in sys.argv[2:]:
            try:
                lg = read_log(open(path, "rb").read(), strict=True)
                print("%s: %s, %d turns, %d commands%s%s" % (
                    path, "finished %s by %s" % lg.end[:2] if lg.end else "unfinished", lg.turns, lg.commands,
                    ", a torn last line" if lg.torn is not None else "",
                    ", %d gzip members" % len(lg.members) if lg.members else ""))
            except LogError as e:
                bad += 1
                print("%s: %s" % (path, e))
        return 1 if bad else 0
    wizwar, replay_dir = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    doc = sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "..", "..", "docs", "turnlog.md")
    tap = Tap()
    t0 = time.monotonic()
    REASONS[:] = doc_reasons(doc)
    procs = []
    with tempfile.TemporaryDirectory(prefix="wizwar-doclog-") as tmp:
        ck = Checker(wizwar, tmp, tap, REASONS)
        try:
            part_document(tap, doc, REASONS)
            part_golden(tap, ck, replay_dir)
            part_selfplay(tap, ck, wizwar, tmp)
            srv = part_server(tap, ck, wizwar, tmp, procs)
            part_host(tap, ck, wizwar, tmp, procs)
            part_join(tap, ck, wizwar, tmp, srv)
            part_practice(tap, ck, wizwar, tmp)
            base = open(os.path.join(replay_dir, "normal-vs-hard.log"), "rb").read()
            limit = None        # a golden duel that reached the turn limit, if one does with these rules
            for f in sorted(os.listdir(replay_dir)):
                data = open(os.path.join(replay_dir, f), "rb").read() if f.endswith(".log") else b""
                if b"\n= 1000 " in data and limit is None:
                    limit = data
            if limit is None:
                tap.skip("the turn limit's = line", "no golden log reaches the turn limit")
            slog = None
            if srv:
                gz = find_now(srv["st"], lambda f: f.endswith("-1.log.gz"))
                slog = gz_text(gz[sorted(gz)[0]]) if gz else None
            part_broken(tap, ck, base, limit, slog)
        finally:
            for p in procs:
                p.stop()
    print("# %.1f s" % (time.monotonic() - t0))
    print("1..%d" % tap.n)
    return 1 if tap.bad else 0


if __name__ == "__main__":
    sys.exit(main())
