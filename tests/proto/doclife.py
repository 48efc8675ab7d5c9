#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doclife: what docplayer.py and docroom.py never play, played from docs/protocol.md alone.

Usage: doclife.py WIZWAR_EXE [docs/protocol.md]

docplayer.py's client (its Conn and policy; docclient.py's decoder; noise_interop.py's Noise) and docroom.py's
helpers, against real `wizwar server`, `wizwar host --headless` and `wizwar bot` processes on loopback, doing
only what the document says and checking exactly what it says comes back:
- Versions and malformed input: a HELLO of another protocol version gets the document's own example bytes
  (ERROR 7 in clear) and the close, whatever follows its first 8 bytes; a key too short (1) or too long (2);
  a low-order key (32 zero bytes: ERROR 21 in clear); another rules version ERROR 8 with its
  exact text; a bad magic ERROR 6; a HELLO over 255 bytes, a third length byte, AUTH in clear: ERROR 3, 3, 104
  in clear. After the join, in a record: an unknown type (4), a server's type (5), a CMD of 3 bytes (3), HELLO
  (104), a third length byte (3), a deflated frame from a client (104), a CMD argument of 0 (10), OPTIONS with
  a turn over 3600 s or an even size (10), a record over 16402 bytes (22): each one fatal ERROR, then the
  close.
- Chat, two doc clients in one room: relayed to both with the sender's index, in the lobby and in the duel;
  200 bytes of UTF-8 whole; `from` 0/1 from a client relayed with the sender's own index, 2 refused (10); the
  9th line in 10 s answered with the non-fatal ERROR 109 and its text, relayed again once the fixed window has
  closed; a control, a tab, invalid or overlong UTF-8, a bidi override, a C1 control, the BOM (11), 0 or 201
  bytes (3), each fatal.
- The turn timer (OPTIONS with 3 s a turn): a turn left alone passes 3 s after START, the mover told WAITED
  then TIME_UP, the other player given the turn with no message; steps do not reset the clock; a CMD on the
  other player's turn gets 258; the mover's link lost on its turn stops the clock, and after RESUME it has the
  whole turn again; a turn handed to a player whose link is down starts no clock; the log has each as `pass`.
- Leaving: BYE in the duel (the other player's UPDATE with OPP_RESIGNED, END, the log, LOBBY, PEER gone,
  LOBBY; the log's chat line and `resign`, replayed with `wizwar replay --check`); BYE in a host's lobby (PEER
  gone, both ready bits clear); an ERROR from a client (non-fatal: nothing answers; fatal: closed without a
  word, the seat held as for a lost link and taken back by RESUME; before the join: closed); a `wizwar
  server` stopped by SIGTERM and a `wizwar host --headless` by SIGINT, players in the lobby and in a duel:
  BYE 2 and the close, exit 0; the host started again with --resume on its port takes both back by RESUME.
- Options: whole duels against `wizwar bot` with potions off (no POTIONS, INV or KIND field, no potion ever)
  and with FoV off at 51x51 (every cell known and in sight in every view, the opponent always in sight,
  locations with two-letter columns), each log replayed. The document gives no way to compare the view a
  client rebuilds with what `wizwar replay` shows from that player's side, so that is not checked.
Prints TAP; exit 77 (skipped) when python3-dissononce is not installed.
"""
import os, random, re, select, signal, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import docplayer  # noqa: E402  (exit 77 there, through noise_interop, without dissononce)
from docplayer import (Fail, parse_lobby, parse_welcome, parse_error, parse_end, str8, cmd,  # noqa: E402
                       T_HELLO, T_AUTH, T_OPTIONS, T_READY, T_CMD, T_CHAT, T_ERROR, T_HEARTBEAT,
                       T_BYE, T_START, STEP, PASS, DIRS)
from docroom import Client, Proc, auth, resume, until, next_of, parse_peer, log_lines  # noqa: E402
import docclient  # noqa: E402
from docclient import Broken, Reader, View, apply_update  # noqa: E402
from noise_interop import frame  # noqa: E402


def clear_answer(srv, payload, t=T_HELLO, raw=None, wait=5.0):
    """One connection: a frame in clear (or raw bytes), then what comes back in clear until the close:
    a list of (type, payload), and how it ended ('closed', or what else)."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=wait)
    s.sendall(raw if raw is not None else frame(t, payload))
    buf, out, fate = b"", [], None
    deadline = time.monotonic() + wait
    while fate is None:
        r, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            fate = "still open after %.0f s" % wait
            break
        try:
            x = s.recv(65536)
        except ConnectionResetError:
            x = b""
        if not x:
            fate = "closed"
        buf += x
    s.close()
    rd = Reader(buf)
    try:
        while rd.left():
            ty = rd.u8()
            out.append((ty, rd.take(rd.varint())))
    except Broken:
        out.append((None, buf[rd.i:]))
    return out, fate


def joined(cl, srv, name, code, create=True):
    """A doc client joined (AUTH, WELCOME, LOBBY): (conn, welcome, lobby)."""
    c = cl.conn(srv)
    auth(c, name, code, create=create)
    w = parse_welcome(next_of(c, "WELCOME"))
    lb = parse_lobby(next_of(c, "LOBBY"))
    return c, w, lb


def answer(c, wait=5.0):
    """Frames until the close (or `wait` s of nothing): (list of (name, payload), fate)."""
    got = []
    try:
        while True:
            got.append(c.next(wait))
    except Fail as e:
        fate = "closed" if "closed" in str(e) else str(e)
    except OSError as e:
        fate = "closed (%s)" % e.__class__.__name__
    return got, fate


def err_of(got):
    return [parse_error(p) for nm, p in got if nm == "ERROR"]


# ---- versions and malformed input ----

def malformed(cl):
    srv = Proc(cl, ["server"])
    try:
        P, R = cl.proto, cl.rules
        key = os.urandom(32)

        def hello(magic=b"WZWR", proto=P, rules=R, rest=key):
            return magic + proto.to_bytes(2, "big") + rules.to_bytes(2, "big") + rest
        # Another protocol version: the document's own example bytes, exactly.
        want = re.search(r"ERROR 7 \(VERSION\), fatal, in clear, exactly as a server of protocol version (\d+) "
                         r"answers a HELLO of version (\d+)[^\n]*\n\n```\n(.*?)```", cl.doc, re.S)
        other = int(want.group(2))
        got, fate = clear_answer(srv, hello(proto=other))
        cl.emit(int(want.group(1)) == P and got and frame(*got[0]) == bytes.fromhex(want.group(3)) and len(got) == 1
                and fate == "closed",
                "HELLO of protocol version %d: in clear %s, then %s (the document's example: %s)" %
                (other, " | ".join("%02x %r" % (t, parse_error(p) if t == T_ERROR else p) for t, p in got), fate,
                 "the same bytes" if got and frame(*got[0]) == bytes.fromhex(want.group(3)) else "other bytes"))
        # "judged on its first 8 bytes alone, whatever follows"
        got, fate = clear_answer(srv, hello(proto=other, rest=b""))
        got2, fate2 = clear_answer(srv, hello(proto=other, rest=b"\xff" * 200))
        e1 = [parse_error(p) for t, p in got if t == T_ERROR]
        e2 = [parse_error(p) for t, p in got2 if t == T_ERROR]
        text = "version mismatch: the server has protocol version %d, your client %d" % (P, other)
        cl.emit(e1 == e2 == [(7, 1, text)]
                and fate == fate2 == "closed",
                "HELLO of version %d with no key, and with 200 bytes of anything: the same ERROR 7 (%s, %s)" %
                (other, e1, e2))
        # This version, the key too short, too long, and a low-order key (all zeros).
        res = [clear_answer(srv, hello(rest=k)) for k in (bytes(10), key + b"\x00", bytes(32))]
        es = [[parse_error(p) for t, p in got] for got, fate in res]
        cl.emit([[e[:2] for e in x] for x in es] == [[(1, 1)], [(2, 1)], [(21, 1)]]
                and [fate for got, fate in res] == ["closed"] * 3,
                "HELLO of this version with a key of 10 bytes, of 33, and of 32 zero bytes: %s, %s, %s, each then "
                "closed" % tuple(es))
        got, fate = clear_answer(srv, hello(rules=R + 1))
        e = [parse_error(p) for t, p in got if t == T_ERROR]
        cl.emit(e == [(8, 1, "version mismatch: the server has rules version %d, your client %d" % (R, R + 1))]
                and len(got) == 1 and fate == "closed",
                "HELLO of rules version %d: %s in clear, then %s" % (R + 1, e, fate))
        got, fate = clear_answer(srv, hello(magic=b"WZWX"))
        e = [parse_error(p) for t, p in got if t == T_ERROR]
        cl.emit(len(e) == 1 and e[0][:2] == (6, 1) and len(got) == 1 and fate == "closed",
                "HELLO with bad magic: %s in clear, then %s" % (e, fate))
        # Judged from the header alone: a fatal ERROR (in clear before the handshake), then the close.
        got, fate = clear_answer(srv, None, raw=frame(T_HELLO, hello(rest=bytes(248))))
        e = [parse_error(p) for t, p in got if t == T_ERROR]
        cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (3, 1) and fate == "closed",
                "HELLO of 256 bytes (its most is 255): %s in clear, then %s" % (e or got, fate))
        got, fate = clear_answer(srv, None, raw=bytes([T_HELLO, 0x80, 0x80, 0x01]))
        e = [parse_error(p) for t, p in got if t == T_ERROR]
        cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (3, 1) and fate == "closed",
                "a frame length needing a third varint byte, in clear: %s, then %s" % (e or got, fate))
        got, fate = clear_answer(srv, None, raw=frame(T_AUTH, bytes(40)))
        e = [parse_error(p) for t, p in got if t == T_ERROR]
        cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (104, 1) and fate == "closed",
                "AUTH in clear before HELLO: %s in clear, then %s" % (e or got, fate))
        # After the join, in records: one fatal ERROR in a record, then the close.
        for what, pt, want in (("an unknown type 0x7e", frame(0x7e, b""), 4),
                               ("START (a server's type) from a client", frame(T_START, b""), 5),
                               ("CMD of 3 bytes (its most is 2)", frame(T_CMD, b"\x05\x00\x00"), 3),
                               ("HELLO inside a record", frame(T_HELLO, hello()), 104),
                               ("a frame length needing a third varint byte", bytes([T_CHAT, 0x80, 0x80, 0x01]), 3),
                               ("a deflated HEARTBEAT", bytes([T_HEARTBEAT | 0x80, 0x02, 0x03, 0x00]), 104),
                               ("a CMD whose argument byte is 0", frame(T_CMD, b"\x83\x00"), 10),
                               ("OPTIONS with a turn of 3601 s", frame(T_OPTIONS, b"\x0f\x03\x0e\x11"), 10),
                               ("OPTIONS with an even size", frame(T_OPTIONS, b"\x10\x03\x00\x03"), 10)):
            c, w, lb = joined(cl, srv, "Bad", "mal-%d" % random.randrange(1 << 30))
            ct = c.tx.encrypt_with_ad(b"", cl.tables.pad(pt))
            c.s.sendall(len(ct).to_bytes(2, "big") + ct)
            got, fate = answer(c)
            e = err_of(got)
            text_ok = want != 5 or e and e[0][2] == "START is not sent by the client"
            cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (want, 1) and text_ok and fate == "closed",
                    "after the join, %s: %s, then %s" % (what, show(got), fate))
        c, w, lb = joined(cl, srv, "Bad", "mal-rec")
        c.s.sendall((16403).to_bytes(2, "big") + bytes(100))
        got, fate = answer(c)
        e = err_of(got)
        cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (22, 1) and fate == "closed",
                "a record length of 16403 (the most is 16402): %s, then %s" % (show(got), fate))
        # "Padding": a length that is no class, padding that is not all zero, a record of padding alone.
        hb = frame(T_HEARTBEAT, b"")
        for what, pt in (("a record of 257 bytes (no class)", hb + bytes(241 - len(hb))),
                         ("padding with a byte that is not 00", hb + bytes(100) + b"\x01" + bytes(237 - len(hb))),
                         ("a record of padding alone", bytes(240))):
            c, w, lb = joined(cl, srv, "Bad", "mal-%d" % random.randrange(1 << 30))
            ct = c.tx.encrypt_with_ad(b"", pt)
            c.s.sendall(len(ct).to_bytes(2, "big") + ct)
            got, fate = answer(c)
            e = err_of(got)
            cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (22, 1) and fate == "closed",
                    "after the join, %s: %s, then %s" % (what, show(got), fate))
    finally:
        srv.stop()


def drain(c, wait, n=None, extra=0.3):
    """Every frame that arrives within `wait` s (HEARTBEATs left out); with n, until n have come (at most `wait`
    s: a machine under load) and then `extra` s more, for any that should not come."""
    got = []
    deadline = time.monotonic() + wait
    while True:
        if n is not None and len(got) >= n:
            n, deadline = None, time.monotonic() + extra
        left = deadline - time.monotonic()
        if left <= 0:
            return got
        try:
            nm, p = c.next(left)
        except Fail as e:
            if "no frame" in str(e):
                return got
            got.append(("CLOSED", str(e).encode()))
            return got
        if nm != "HEARTBEAT":
            got.append((nm, p))


def chat(text, frm=0xff):
    return bytes([frm]) + str8(text if isinstance(text, bytes) else text.encode())


def parse_chat(p):
    r = Reader(p)
    frm = r.u8()
    t = r.take(r.u8())
    r.end()
    return frm, t.decode("utf-8")


def chats(got):
    return [parse_chat(p) for nm, p in got if nm == "CHAT"]


def show(got):
    out = []
    for nm, p in got:
        if nm == "ERROR":
            out.append("ERROR %r" % (parse_error(p),))
        elif nm == "CHAT":
            out.append("CHAT %r" % (parse_chat(p),))
        elif nm == "PEER":
            out.append("PEER %r" % (parse_peer(p),))
        elif nm == "BYE":
            out.append("BYE %s" % p.hex())
        else:
            out.append(nm)
    return ", ".join(out) or "nothing"


# ---- chat ----

def chat_refusals(cl, srv):
    """Texts a server must refuse ("Text": a decoder refuses, TEXT; the type's sizes: FRAME_SIZE), each on a
    connection of its own, alone in a room of its own; and CHAT's `from` byte from a client."""
    cases = [("ESC (a control)", chat(b"a\x1bb"), 11), ("a tab", chat(b"a\tb"), 11),
             ("invalid UTF-8", chat(b"a\xffb"), 11), ("an overlong UTF-8 form", chat(b"\xc0\xaf"), 11),
             ("U+202E (a bidi override)", chat("a\u202eb"), 11), ("U+0085 (a C1 control)", chat("a\u0085b"), 11),
             ("U+FEFF (the BOM)", chat("\ufeffhi"), 11),
             ("201 bytes", chat(b"x" * 201), 3), ("no text", chat(b""), 3), ("`from` 2", chat("hi", 2), 10)]
    for what, payload, want in cases:
        c, w, lb = joined(cl, srv, "Lone", "lone-%d" % random.randrange(1 << 30))
        c.send(T_CHAT, payload)
        got, fate = answer(c, 3)
        e = err_of(got)
        cl.emit(len(got) == 1 and len(e) == 1 and e[0][:2] == (want, 1) and fate == "closed",
                "CHAT with %s: %s, then %s" % (what, show(got), fate))
    c, w, lb = joined(cl, srv, "Lone", "lone-from")
    c.send(T_CHAT, chat("a\u200db \U0001f9d9\u200d\u2642\ufe0f", 1))  # a join control: allowed
    got = drain(c, 5, n=1)
    cl.emit(chats(got) == [(w["player"], "a\u200db \U0001f9d9\u200d\u2642\ufe0f")] and len(got) == 1,
            "CHAT from player %d with `from` 1 (not 0xff) and U+200D: relayed, with the sender's own index: %s" %
            (w["player"], show(got)))
    c.close()


def pair(cl, srv, code):
    a, wa, _ = joined(cl, srv, "Alpha", code)
    b, wb, _ = joined(cl, srv, "Beta", code, create=False)
    return a, b, wa, wb


def lobby_chat(cl, srv, a, b):
    """CHAT both ways in the lobby; the rate limit. Returns the time the window of a's lines opened."""
    drain(a, 0.3), drain(b, 0.3)
    t_open = time.monotonic()
    a.send(T_CHAT, chat("hello from Alpha"))
    ga, gb = drain(a, 5, n=1), drain(b, 5, n=1)
    cl.emit(chats(ga) == chats(gb) == [(0, "hello from Alpha")] and len(ga) == len(gb) == 1,
            "lobby: Alpha's CHAT comes back to Alpha (%s) and to Beta (%s), with Alpha's index 0" %
            (show(ga), show(gb)))
    long = "\u00e9" * 100  # 200 bytes of UTF-8, the most
    b.send(T_CHAT, chat(long))
    ga, gb = drain(a, 5, n=1), drain(b, 5, n=1)
    cl.emit(chats(ga) == chats(gb) == [(1, long)], "lobby: Beta's CHAT of 200 bytes (100 x U+00E9) relayed whole to "
            "both with index 1 (%d, %d lines)" % (len(chats(ga)), len(chats(gb))))
    for i in range(8):  # Alpha's lines 2..9 in this window
        a.send(T_CHAT, chat("line %d" % (i + 2)))
    ga, gb = drain(a, 5, n=8), drain(b, 5, n=7)
    lines = [(0, "line %d" % i) for i in range(2, 9)]
    cl.emit(chats(ga) == chats(gb) == lines and err_of(ga) == [(109, 0, "too many chat lines: wait a few seconds")]
            and names(ga)[-1] == "ERROR" and len(gb) == 7,
            "lobby: Alpha's lines 2 to 9 within 10 s: 2 to 8 relayed to both, the 9th answered to Alpha alone with "
            "%s (%s)" % (err_of(ga), show(ga[-2:])))
    a.send(T_CMD, cmd(PASS))
    ga = drain(a, 5, n=1)
    cl.emit(err_of(ga) == [(104, 0, "no duel is being played")] and len(ga) == 1,
            "lobby: a CMD: %s" % show(ga))
    return t_open


class Side:
    """One doc client in a duel: its connection, its view, what it got (with times)."""

    def __init__(self, cl, c, w, name):
        self.cl, self.c, self.w, self.name = cl, c, w, name
        self.v = None
        self.got = []

    def start(self, p):
        r = Reader(p)
        self.flags, self.first, self.turn_time, self.commit = r.u8(), r.u8(), r.u16(), r.take(32)
        v = View()
        v.turns_left = [0] * self.cl.tables.handlers
        apply_update(v, p[r.i:], self.cl.tables)
        self.v = v
        return v

    def read(self, wait, stop=None):
        """Frames for up to `wait` s, or until stop(name, payload) holds for one: UPDATEs applied.
        Returns [(t, name, payload, msgs)]."""
        out = []
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                nm, p = self.c.next(left)
            except Fail as e:
                if "no frame" in str(e):
                    break
                out.append((time.monotonic(), "CLOSED", str(e).encode(), []))
                break
            if nm == "HEARTBEAT":
                continue
            msgs = []
            if nm == "UPDATE":
                msgs, fx = apply_update(self.v, p, self.cl.tables)
            elif nm == "START":
                self.start(p)
            out.append((time.monotonic(), nm, p, msgs))
            if stop and stop(nm, p):
                break
        self.got += out
        return out


def names(got):
    return [g[1] if len(g) == 4 else g[0] for g in got]


def floor_step(v):
    """A direction to open floor next to the wizard (not the opponent's square)."""
    for d, (dx, dy) in sorted(DIRS.items()):
        x, y = v.x + dx, v.y + dy
        if (v.cell[y][x] & 0x7f) == 2 and not (v.opp[0] == 1 and (v.opp[1], v.opp[2]) == (x, y)):
            return d
    return None


def timer_duel(cl, srv, a, b, wa, wb, t_open):
    """The turn timer: OPTIONS with 3 s a turn; a turn run out untouched, one after two steps, one whose player
    dropped and came back, one handed to a player away; chat in the duel; BYE in the duel."""
    TT = 3
    a.send(T_OPTIONS, bytes([15, 3]) + TT.to_bytes(2, "big"))
    la = lb = None
    while la is None or lb is None:
        for c in (a, b):
            nm, p = c.next(5)
            if nm == "LOBBY" and parse_lobby(p)["turn_time"] == TT:
                if c is a:
                    la = parse_lobby(p)
                else:
                    lb = parse_lobby(p)
    cl.emit(la == lb and la["size"] == 15, "OPTIONS 15x15, %d s a turn: both get a LOBBY saying %d s" %
            (TT, la["turn_time"]))
    A, B = Side(cl, a, wa, "Alpha"), Side(cl, b, wb, "Beta")
    a.send(T_READY, b"\x01" + os.urandom(32))
    b.send(T_READY, b"\x01" + os.urandom(32))
    for s in (A, B):
        s.read(5, stop=lambda nm, p: nm == "START")
    t0 = min(s.got[-1][0] for s in (A, B))
    cl.emit(A.turn_time == B.turn_time == TT and A.v.turn == B.v.turn,
            "START: %d s a turn (both), player %d moves first" % (A.turn_time, A.first))
    sides = [A, B]
    M, O = sides[A.v.turn], sides[1 - A.v.turn]  # the mover, the other
    O.c.send(T_CMD, cmd(PASS))
    go = O.read(5, stop=lambda nm, p: nm == "ERROR") + O.read(0.3)
    e = err_of([g[1:3] for g in go])
    cl.emit(e == [(258, 0, "it is not your turn")] and len(go) == 1 and O.v.turn != O.v.me,
            "a CMD on the other player's turn: %s, nothing else (not fatal)" % show([g[1:3] for g in go]))
    # 1. A turn run out untouched.
    gm = M.read(TT + 2, stop=lambda nm, p: nm == "UPDATE")
    go = O.read(1.0, stop=lambda nm, p: nm == "UPDATE")
    dt = gm[-1][0] - t0 if gm else -1
    cl.emit(names(gm) == ["UPDATE"] and gm[0][3] == ["You end your turn.", "Time is up: your turn passes."]
            and TT - 0.4 <= dt <= TT + 1.2 and M.v.turn == O.v.me and M.v.steps == 0 and M.v.offered == [0xff] * 3,
            "a turn left untouched: %.2f s after START the mover gets an UPDATE with %r, the turn passed (TURN %d, "
            "STEPS %d, OFFERED %r)" % (dt, gm and gm[0][3], M.v.turn, M.v.steps, M.v.offered))
    cl.emit(names(go) == ["UPDATE"] and go[0][3] == [] and O.v.turn == O.v.me and O.v.steps > 0
            and 0xff not in O.v.offered,
            "the other player gets an UPDATE with no message, its turn now (TURN %d, STEPS %d, OFFERED %r)" %
            (O.v.turn, O.v.steps, O.v.offered))
    # 2. Two steps, then nothing: the time counts from the turn's start, steps do not reset it.
    t1 = go[-1][0] if go else time.monotonic()
    M, O = O, M
    steps = []
    for at in (0.6, 1.2):
        time.sleep(max(0, t1 + at - time.monotonic()))
        d = floor_step(M.v)
        if d is None:
            break
        M.c.send(T_CMD, cmd(STEP, d))
        steps.append(M.read(1.0, stop=lambda nm, p: nm == "UPDATE"))
    gm = M.read(TT + 3, stop=lambda nm, p: nm == "UPDATE" and M.v.turn != M.v.me)
    dt = gm[-1][0] - t1 if gm else -1
    cl.emit(len(steps) == 2 and all(names(s) == ["UPDATE"] for s in steps) and gm and gm[-1][1] == "UPDATE"
            and "Time is up: your turn passes." in gm[-1][3] and TT - 0.4 <= dt <= TT + 0.9,
            "two steps at 0.6 and 1.2 s, then nothing: time is up %.2f s after the turn passed to it (the steps do "
            "not reset the timer): %r" % (dt, gm and gm[-1][3]))
    go = O.read(1.0, stop=lambda nm, p: nm == "UPDATE" and O.v.turn == O.v.me)
    t2 = go[-1][0] if go else time.monotonic()
    M, O = O, M
    # 3. The mover's link lost on its turn: the turn waits, untimed; back, it has the whole turn again.
    time.sleep(max(0, t2 + 1.2 - time.monotonic()))
    M.c.s.close()
    go = O.read(TT + 1.5)
    peer = [parse_peer(g[2]) for g in go if g[1] == "PEER"]
    cl.emit(names(go) == ["PEER", "LOBBY"] and peer == [(M.v.me, 0, M.w["grace"])],
            "the mover's link lost 1.2 s into its turn: the other gets %s (PEER %r), and nothing more in the %.1f s "
            "after: no PASS while it is away" % (", ".join(names(go)), peer, TT + 1.5))
    M.c = cl.conn(srv)
    resume(M.c, M.name, "chatroom", M.w["token"])
    gm = M.read(3, stop=lambda nm, p: nm == "LOBBY")
    t3 = gm[1][0] if len(gm) > 1 else time.monotonic()
    go = O.read(5, stop=lambda nm, p: nm == "PEER") + O.read(0.3)
    cl.emit(names(gm) == ["WELCOME", "START", "LOBBY"] and M.flags & 1 and M.turn_time == TT
            and M.v.turn == M.v.me and names(go) == ["LOBBY", "PEER"],
            "RESUME on its turn: %s (START flags %d, %d s a turn, its turn); the other gets %s" %
            (", ".join(names(gm)), M.flags, M.turn_time, ", ".join(names(go))))
    gm = M.read(TT + 3, stop=lambda nm, p: nm == "UPDATE" and M.v.turn != M.v.me)
    dt = gm[-1][0] - t3 if gm else -1
    cl.emit(gm and "Time is up: your turn passes." in gm[-1][3] and TT - 0.6 <= dt <= TT + 1.2,
            "time is up %.2f s after the resumed START: the whole turn again, not what was left of it (%.1f s)" %
            (dt, TT - 1.2))
    O.read(1.0, stop=lambda nm, p: nm == "UPDATE" and O.v.turn == O.v.me)
    # 3b. A turn that passes to a player whose link is down does not start its clock.
    M.c.s.close()
    O.read(1.0, stop=lambda nm, p: nm == "LOBBY")
    O.c.send(T_CMD, cmd(PASS))
    go = O.read(TT + 1.0)
    cl.emit(names(go) == ["UPDATE"] and go[0][3] == ["You end your turn."] and O.v.turn != O.v.me,
            "the other passes while the mover's link is down: %s %r, and nothing more in %.1f s (the turn it passed "
            "to a player away starts no clock)" % (", ".join(names(go)), go and go[0][3], TT + 1.0))
    M.c = cl.conn(srv)
    resume(M.c, M.name, "chatroom", M.w["token"])
    gm = M.read(3, stop=lambda nm, p: nm == "LOBBY")
    t4 = gm[1][0] if len(gm) > 1 else time.monotonic()
    gm = M.read(TT + 3, stop=lambda nm, p: nm == "UPDATE" and M.v.turn != M.v.me)
    dt = gm[-1][0] - t4 if gm else -1
    cl.emit(gm and "Time is up: your turn passes." in gm[-1][3] and TT - 0.6 <= dt <= TT + 1.2,
            "back by RESUME on that turn: time is up %.2f s after its START (resumed)" % dt)
    O.read(1.0, stop=lambda nm, p: nm == "UPDATE" and O.v.turn == O.v.me)
    M, O = O, M
    # 4. Chat in the duel, once Alpha's chat window (opened in the lobby) has closed.
    time.sleep(max(0, t_open + 10.3 - time.monotonic()))
    A.c.send(T_CHAT, chat("gl hf"))
    ga = A.read(5, stop=lambda nm, p: nm == "CHAT") + A.read(0.3)
    gb = B.read(5, stop=lambda nm, p: nm == "CHAT") + B.read(0.3)
    cl.emit(chats([g[1:3] for g in ga]) == chats([g[1:3] for g in gb]) == [(A.w["player"], "gl hf")],
            "in the duel, 10 s after Alpha's window opened: its CHAT relayed again to both (%s / %s)" %
            (show([g[1:3] for g in ga]), show([g[1:3] for g in gb])))
    # 5. BYE in the duel: a forfeit.
    A.c.send(T_BYE, b"\x00")
    ga = A.read(10, stop=lambda nm, p: nm == "CLOSED")
    gb = B.read(10, stop=lambda nm, p: nm == "PEER")
    gb += B.read(5, stop=lambda nm, p: nm == "LOBBY") + B.read(0.3)
    na, nb = names(ga), names(gb)
    cl.emit(na[-1:] == ["CLOSED"], "Alpha after its BYE in the duel: %s" % show([g[1:3] for g in ga]))
    win = 1 + B.v.me
    ends = [parse_end(g[2]) for g in gb if g[1] == "END"]
    lobbies = [parse_lobby(g[2]) for g in gb if g[1] == "LOBBY"]
    peers = [parse_peer(g[2]) for g in gb if g[1] == "PEER"]
    chunks = []
    for g in gb:
        if g[1] == "LOG_CHUNK":
            r = Reader(g[2])
            r.varint()
            chunks.append(r.take(r.left()))
    log = b"".join(chunks)
    squeezed = [n for i, n in enumerate(nb) if n != "LOG_CHUNK" or nb[i - 1] != "LOG_CHUNK"]
    cl.emit(squeezed == ["UPDATE", "END", "LOG_CHUNK", "LOBBY", "PEER", "LOBBY"] and gb[0][3] == [
                "Your opponent forfeits. You win!"] and (B.v.result, B.v.end_reason) == (win, 2)
            and ends and (ends[0]["result"], ends[0]["how"]) == (win, 2) and len(log) == ends[0]["log_len"]
            and peers == [(A.w["player"], 2, 0)] and lobbies[-1]["connected"] == 1 << B.v.me
            and lobbies[-1]["controller"] == B.v.me,
            "Beta after Alpha's BYE in the duel: %s (the UPDATE says %r; END %s/%s; the last LOBBY: connected %s, "
            "controller %s)" % (", ".join(squeezed), gb and gb[0][3], ends and ends[0]["result"],
                                ends and ends[0]["how"], lobbies and lobbies[-1]["connected"],
                                lobbies and lobbies[-1]["controller"]))
    return A, B, log


def client_error(cl, srv):
    """An ERROR a client sends: the server answers nothing; after a fatal one it closes, and holds the seat as
    for a link lost."""
    a, b, wa, wb = pair(cl, srv, "errroom")
    drain(a, 0.3), drain(b, 0.3)
    a.send(T_ERROR, (19).to_bytes(2, "big") + b"\x00" + str8(b"an update I could not apply"))
    a.send(T_CHAT, chat("still here"))
    ga, gb = drain(a, 5, n=1), drain(b, 5, n=1)
    cl.emit(chats(ga) == chats(gb) == [(0, "still here")] and len(ga) == len(gb) == 1,
            "a non-fatal ERROR from a client: nothing answers it, the connection goes on (a CHAT after it: %s)" %
            show(ga))
    b.send(T_ERROR, (19).to_bytes(2, "big") + b"\x01" + str8(b"an update I could not apply"))
    gb, fate = answer(b, 1.5)
    ga = drain(a, 5, n=2)
    peer = [parse_peer(p) for nm, p in ga if nm == "PEER"]
    cl.emit(gb == [] and fate == "closed" and names(ga) == ["PEER", "LOBBY"] and peer == [(1, 0, wb["hold"])],
            "a fatal ERROR from a client: the server closes without a word (%s, %s); the other player gets %s: the "
            "seat held as for a lost link" % (show(gb), fate, show(ga)))
    # "a client then disconnects and comes back with RESUME": the seat is there.
    b = cl.conn(srv)
    resume(b, "Beta", "errroom", wb["token"])
    gb, ga = drain(b, 5, n=2), drain(a, 5, n=2)
    cl.emit(names(gb) == ["WELCOME", "LOBBY"] and names(ga) == ["PEER", "LOBBY"]
            and parse_peer(ga[0][1]) == (1, 1, 0),
            "after its fatal ERROR the client comes back with RESUME: it gets %s; the other player %s" %
            (show(gb), show(ga)))
    b.close()
    a.close()
    c = cl.conn(srv)
    c.send(T_ERROR, (23).to_bytes(2, "big") + b"\x01" + str8(b"the server's key is not the one expected"))
    got, fate = answer(c, 1.5)
    cl.emit(got == [] and fate == "closed", "a fatal ERROR before the join: %s, then %s" % (show(got), fate))


def shutdown(cl, args, sig, what):
    """A server stopped by a signal, with a room in the lobby and one in a duel (a host --headless has one room:
    a duel, after a BYE in its lobby): each player gets BYE 2 and the close; the process exits 0."""
    srv = Proc(cl, args)
    try:
        conns = []
        if "--headless" not in args:
            a, b, wa, wb = pair(cl, srv, "idle-lobby")
            conns += [("lobby", a), ("lobby", b)]
            c, d, wc, wd = pair(cl, srv, "busy-duel")
        else:
            c, d, wc, wd = pair(cl, srv, "any")
            drain(c, 0.2), drain(d, 0.2)
            c.send(T_READY, b"\x01" + os.urandom(32))
            drain(c, 0.3), drain(d, 0.3)
            d.send(T_BYE, b"\x00")
            got = drain(c, 5, n=2)
            lb = [parse_lobby(p) for nm, p in got if nm == "LOBBY"]
            cl.emit(names(got) == ["PEER", "LOBBY"] and parse_peer(got[0][1]) == (1, 2, 0) and lb[0]["ready"] == 0
                    and lb[0]["connected"] == 1 and lb[0]["controller"] == 0,
                    "%s: BYE from player 1 in the lobby: player 0 (ready) gets %s: the seat free, both ready bits "
                    "clear" % (what, show(got)))
            d, wd, _ = joined(cl, srv, "Beta", "any", create=False)
        for x in (c, d):
            x.send(T_READY, b"\x01" + os.urandom(32))
        for x in (c, d):
            until(x, "START")
        conns += [("duel", c), ("duel", d)]
        for _, x in conns:
            drain(x, 0.2)
        srv.p.send_signal(sig)
        res = [(where, answer(x, 5)) for where, x in conns]
        try:
            rc = srv.p.wait(10)
        except subprocess.TimeoutExpired:
            rc = None
        cl.emit(all(show(g) == "BYE 02" and f == "closed" for w, (g, f) in res) and rc == 0,
                "%s stopped by %s: %s; exit %s" % (what, signal.Signals(sig).name, "; ".join(
                    "%s: %s, %s" % (w, show(g), f) for w, (g, f) in res), rc))
        if "--headless" in args:
            # "2 (shutting down) ... a client should come back as after a drop, with RESUME": the host started
            # again from its log on the same port (docs/server.md, "Resuming a killed host").
            # A duel left unfinished stays plain in the log directory's playing/ (docs/server.md, "Turn logs").
            playing = os.path.join(cl.state, "playing")
            logs = sorted((os.path.getmtime(os.path.join(playing, f)), f) for f in os.listdir(playing)
                          if f.startswith("wizwar-host-") and f.endswith(".log"))
            e = dict(os.environ, XDG_STATE_HOME=cl.state, HOME=cl.state)
            e.pop("WIZWAR_PASSWORD", None)
            again = subprocess.Popen([cl.wizwar, "host", "--headless", "--resume", os.path.join(playing, logs[-1][1]),
                                      "--bind", "127.0.0.1", "--port", str(srv.port), "--log-dir", cl.state],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e, text=True)
            srv.p = again
            again.stdout.readline()
            back = []
            for x, w in ((c, wc), (d, wd)):
                y = cl.conn(srv)
                resume(y, "x", "any", w["token"])
                back.append([y.next(5) for _ in range(3)])
            starts = [parse_start_flags(b[1][1]) if len(b) > 1 and b[1][0] == "START" else None for b in back]
            cl.emit(all([nm for nm, p in b] == ["WELCOME", "START", "LOBBY"] for b in back)
                    and starts == [1, 1],
                    "started again with --resume on its port: each player's RESUME gets %s, START flags %s "
                    "(resumed)" % (" / ".join(", ".join(nm for nm, p in b) for b in back), starts))
    finally:
        srv.stop()


def parse_start_flags(p):
    return p[0]


class Watch:
    """What the decoder met in a duel: docplayer's duel() decodes with docclient's apply_update and loc_decode,
    wrapped here to look at every view and location on the way."""

    def __init__(self):
        self.frames = self.two_letter = self.locs = 0
        self.vis_modes, self.fields = set(), 0
        self.bad = []
        self.opp_states = set()
        self.max_inv = self.potion_cells = 0
        self.unknown_max = self.unseen_max = 0
        self.orig = (docplayer.apply_update, docclient.loc_decode)

    def __enter__(self):
        apply0, loc0 = self.orig

        def loc(text):
            out = loc0(text)
            self.locs += len(out)
            self.two_letter += sum(1 for item in text.split(",") if item[1:2].isalpha())
            return out

        def apply(v, payload, tables):
            r = Reader(payload)
            has = r.varint()
            if has & 1:
                r.take(2)
            if has & 2:
                r.take(1)
            if has & 4:
                self.vis_modes.add(r.u8())
            self.fields |= has
            res = apply0(v, payload, tables)
            self.frames += 1
            s = v.size
            cells = [v.cell[y][x] for y in range(s) for x in range(s)]
            self.unknown_max = max(self.unknown_max, sum(1 for c in cells if c & 0x7f == 0))
            self.unseen_max = max(self.unseen_max, sum(1 for c in cells if not c & 0x80))
            self.opp_states.add(v.opp[0])
            self.max_inv = max(self.max_inv, v.ninv)
            self.potion_cells = max(self.potion_cells, sum(1 for row in v.potion for p in row if p))
            return res
        docplayer.apply_update, docclient.loc_decode = apply, loc
        return self

    def __exit__(self, *a):
        docplayer.apply_update, docclient.loc_decode = self.orig


def options_duels(cl):
    """Whole duels against `wizwar bot`: potions off; FoV off at 51x51."""
    srv = Proc(cl, ["server"])
    try:
        rng = random.Random(5)
        for code, opts in (("nopot", (21, 1, 0)), ("big", (51, 0, 1))):
            with Watch() as w:
                docplayer.room(cl.wizwar, cl.tables, srv.port, srv.fp, cl.proto, cl.rules, cl.state, code, opts, 1,
                               1, rng, cl.emit, 0)
            if code == "nopot":
                cl.emit(w.frames > 2 and not w.fields & (1 << 11 | 1 << 13 | 1 << 14) and w.max_inv == 0
                        and w.potion_cells == 0,
                        "potions off: %d views decoded, never a POTIONS, INV or KIND field (fields seen %#x), no "
                        "potion on the level or carried" % (w.frames, w.fields))
            else:
                cl.emit(w.frames > 2 and w.unknown_max == 0 and w.unseen_max == 0 and w.opp_states == {1}
                        and w.two_letter > 0,
                        "FoV off at 51x51: %d views decoded, each with every cell known and in sight (VIS modes %s), "
                        "the opponent always in sight; %d locations, %d of them with a two-letter x (26 to 50)" %
                        (w.frames, sorted(w.vis_modes), w.locs, w.two_letter))
    finally:
        srv.stop()


def room_life(cl):
    """One `wizwar server`: refused chat lines; two doc clients in one room: chat in the lobby, the turn timer,
    chat in the duel, BYE in the duel, the log of it all; then an ERROR from a client."""
    srv = Proc(cl, ["server"])
    try:
        chat_refusals(cl, srv)
        a, b, wa, wb = pair(cl, srv, "chatroom")
        t = lobby_chat(cl, srv, a, b)
        A, B, log = timer_duel(cl, srv, a, b, wa, wb, t)
        body = log_lines(log)[7:]
        path = os.path.join(cl.state, "timer.log")
        with open(path, "wb") as fh:
            fh.write(log)
        pr = subprocess.run([cl.wizwar, "replay", "--check", path], capture_output=True, text=True, timeout=60)
        m, o = A.first, 1 - A.first
        want = ["%d pass" % m, "%d step" % o, "%d step" % o, "%d pass" % o, "%d pass" % m, "%d pass" % o,
                "%d pass" % m, "chat %d gl hf" % A.w["player"], "%d resign" % A.w["player"]]
        got = [" ".join(ln.split(" ")[:2]) if ln.split(" ")[1] == "step" else ln for ln in body
               if not ln.startswith("=") and not ln.startswith("end")]
        cl.emit(got == want and body[-1].startswith("end win%d resigned " % B.w["player"])
                and pr.returncode == 0,
                "the log Beta received: the turns that ran out as `pass`, the chat line of the duel (not the "
                "lobby's), Alpha's BYE as `resign`, then `%s`; replay --check: %s%s" %
                (body[-1], (pr.stdout + pr.stderr).strip()[-90:], "" if got == want else " (%r)" % got))
        B.c.close()
        client_error(cl, srv)
    finally:
        srv.stop()


def shutdowns(cl):
    shutdown(cl, ["server"], signal.SIGTERM, "wizwar server")
    shutdown(cl, ["host", "--headless"], signal.SIGINT, "wizwar host --headless")


def main():
    wizwar = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "docs", "protocol.md")
    tmp = tempfile.TemporaryDirectory(prefix="wizwar-doclife-")
    cl = Client(wizwar, doc, tmp.name)
    t0 = time.monotonic()
    for part in (malformed, room_life, shutdowns, options_duels):
        try:
            part(cl)
        except (Fail, Broken, OSError, ValueError, KeyError, IndexError) as e:
            cl.emit(False, "%s: %s: %s" % (part.__name__, e.__class__.__name__, e))
    print("# %.1f s" % (time.monotonic() - t0))
    print("1..%d" % cl.n)
    return 1 if cl.bad else 0


if __name__ == "__main__":
    sys.exit(main())
