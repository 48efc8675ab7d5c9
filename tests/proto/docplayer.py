#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docplayer: a whole wizwar client written from docs/protocol.md alone, playing real duels.

Usage: docplayer.py WIZWAR_EXE [--doc docs/protocol.md]

It starts a real `wizwar server` on loopback and, per room, one real `wizwar bot` as the
opponent. The client here does what the document says and nothing it does not: TCP, the
Noise NX handshake (python3-dissononce), the server's key against the printed fingerprint,
AUTH creating a room, WELCOME, LOBBY, OPTIONS as the controller, READY with a fresh part of
the seed, START, the view kept from START and every UPDATE (docclient.py's decoder, itself
written from the document), legal commands on its own turn (refusals are read and answered),
HEARTBEAT when quiet, until END; then the LOG_CHUNKs, the seed checked as "The seed" says,
the log's header and end line against START and END (docs/turnlog.md), and `wizwar replay
--check` on the log received. Three duels: two in one room (25x25, the second after the
bot's REMATCH), one in another (15x15, FoV off, set with OPTIONS). Nothing here comes
from the C sources: what the document did not say was found by trial and then written
into it (the commit that made this file says what).
Prints TAP; exit 77 (skipped) when dissononce is not installed.
"""
import hashlib, os, random, select, socket, subprocess, sys, tempfile, time, zlib
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The Noise (python3-dissononce; skipped, exit 77, without it), the fingerprint and the framing
# of noise_interop.py, the test's other client from the document; then docclient's decoding half.
from noise_interop import (HandshakeState, SymmetricState, CipherState, NXHandshakePattern,  # noqa: E402
                           ChaChaPolyCipher, X25519DH, Blake2bHash, fingerprint, frame, ident_payload)
import docclient  # noqa: E402  (the decoding half, from the document alone)
from docclient import Broken, Reader, View, apply_update, Tables, seed_commit, seed_mix  # noqa: E402

T_HELLO, T_CHALLENGE, T_AUTH, T_WELCOME, T_IDENT = 0x10, 0x11, 0x12, 0x13, 0x14
T_LOBBY, T_OPTIONS, T_READY, T_CONTROL, T_REMATCH = 0x20, 0x21, 0x22, 0x23, 0x24
T_START, T_CMD, T_UPDATE, T_END, T_LOG_CHUNK = 0x30, 0x31, 0x32, 0x33, 0x34
T_CHAT, T_ERROR, T_HEARTBEAT, T_RESUME, T_BYE, T_PEER = 0x40, 0x41, 0x42, 0x43, 0x44, 0x45

STEP, CAST, DRINK, QUAFF, PICKUP, PASS, RESIGN = range(7)
DIRS = {8: (0, -1), 2: (0, 1), 4: (-1, 0), 6: (1, 0), 7: (-1, -1), 9: (1, -1), 1: (-1, 1), 3: (1, 1)}
SPELL_COLD, SPELL_FIRE, SPELL_BOLTS, SPELL_TAKE_LIFE = 0, 1, 2, 9

READ_TIMEOUT = 90.0     # generous: no assumption about the bot's speed
QUIET = 15.0            # "Send HEARTBEAT when you have sent nothing for 15 s"
SILENCE = 45.0          # "treat 45 s of silence as a lost connection" (doubled below: a shared machine)

TRACE = os.environ.get("DOCPLAYER_TRACE")


class Fail(Exception):
    pass


def str8(b):
    return bytes([len(b)]) + b


_PLAYER_KEY = []


def player_key():
    """This process's Ed25519 key: one player, whose names a server's store gives to it alone."""
    if not _PLAYER_KEY:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        _PLAYER_KEY.append(Ed25519PrivateKey.generate())
    return _PLAYER_KEY[0]


class Conn:
    """One connection: records, frames, the server's deflate stream."""

    def __init__(self, tables, port, fp, proto, rules, log, password_key=None, ident_key=None, ident=True):
        self.t = tables
        self.log = log
        self.s = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT)
        self.buf = b""
        self.frames = deque()
        self.inflater = None
        self.heartbeats = 0
        self.last_sent = time.monotonic()
        self.last_heard = time.monotonic()
        prefix = b"WZWR" + proto.to_bytes(2, "big") + rules.to_bytes(2, "big")
        self.hs = HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), Blake2bHash()), X25519DH())
        self.hs.initialize(NXHandshakePattern(), True, prefix)
        m1 = bytearray()
        self.hs.write_message(b"", m1)
        self.s.sendall(frame(T_HELLO, prefix + bytes(m1)))
        t, body = self.clear_frame()
        if t == T_ERROR:
            raise Fail("ERROR in clear: %r" % body)
        if t != T_CHALLENGE or body[:8] != prefix:
            raise Fail("CHALLENGE expected, got 0x%02x %r" % (t, body[:8]))
        payload = bytearray()
        cs = self.hs.read_message(bytes(body[8:]), payload)
        if len(payload) != 17 or payload[0] & ~1:
            raise Fail("CHALLENGE's payload: %r" % bytes(payload))
        if payload[0] & 1 and password_key is None:
            raise Fail("the server asks for a password")
        # "the server's 16-byte password salt"; K is derived from it when the server asks for a password
        # (password_key: docroom.py's Argon2id), and the proofs of AUTH and RESUME are keyed with it.
        self.asks_password, self.salt = bool(payload[0] & 1), bytes(payload[1:])
        self.key = password_key(self.salt) if self.asks_password else None
        pk = bytes(self.hs.rs.data)
        if fingerprint(pk) != fp:
            raise Fail("the server's key has fingerprint %s, not %s" % (fingerprint(pk), fp))
        self.h = bytes(self.hs.symmetricstate.get_handshake_hash())
        self.tx, self.rx = cs[0], cs[1]
        # "Identity": the first record holds IDENT, this client's Ed25519 key signed over h (this
        # process's key unless another is given).
        if ident:
            self.ident = ident_payload(self.h, ident_key or player_key())
            self.send(T_IDENT, self.ident)

    def proof(self, data):
        """AUTH's proof (data: the name) or RESUME's (data: the token): BLAKE2b-256 keyed with K of h || data;
        32 zero bytes without a password."""
        if self.key is None:
            return bytes(32)
        return hashlib.blake2b(self.h + data, digest_size=32, key=self.key).digest()

    def recv_exact(self, n):
        while len(self.buf) < n:
            r, _, _ = select.select([self.s], [], [], READ_TIMEOUT)
            if not r:
                raise Fail("nothing from the server for %d s" % READ_TIMEOUT)
            x = self.s.recv(65536)
            if not x:
                raise Fail("the server closed the connection")
            self.buf += x
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def clear_frame(self):
        t = self.recv_exact(1)[0]
        n = self.recv_exact(1)[0]
        if n & 0x80:
            n = (n & 0x7f) | (self.recv_exact(1)[0] << 7)
        return t, self.recv_exact(n)

    def send(self, t, payload):
        """Every frame a client sends goes raw (bit 7 clear), one record each."""
        ct = self.tx.encrypt_with_ad(b"", self.t.pad(frame(t, payload)))
        self.s.sendall(len(ct).to_bytes(2, "big") + ct)
        self.last_sent = time.monotonic()

    def poll(self, wait):
        """Bytes in for up to `wait` seconds; a HEARTBEAT out when we have been quiet."""
        now = time.monotonic()
        if now - self.last_sent >= QUIET:
            self.send(T_HEARTBEAT, b"")
            self.heartbeats += 1
        r, _, _ = select.select([self.s], [], [], wait)
        if r:
            x = self.s.recv(65536)
            if not x:
                raise Fail("the server closed the connection")
            self.buf += x
            self.last_heard = time.monotonic()
        elif time.monotonic() - self.last_heard > 2 * SILENCE:
            raise Fail("the server was silent for %d s" % (2 * SILENCE))

    def next(self, wait=READ_TIMEOUT):
        """The next (type name, payload) from the server, inflated and size-checked."""
        deadline = time.monotonic() + wait
        while not self.frames:
            if len(self.buf) >= 2:
                n = int.from_bytes(self.buf[:2], "big")
                if n not in self.t.record_lengths:
                    raise Fail("record length %d" % n)
                if len(self.buf) >= 2 + n:
                    pt = self.rx.decrypt_with_ad(b"", bytes(self.buf[2:2 + n]))
                    self.buf = self.buf[2 + n:]
                    self.split(pt)
                    continue
            if time.monotonic() > deadline:
                raise Fail("no frame for %d s" % wait)
            self.poll(min(5.0, max(0.05, deadline - time.monotonic())))
        return self.frames.popleft()

    def split(self, pt):
        r = Reader(pt)
        first = True
        while r.left():
            t = r.u8()
            if t == 0:
                # "a byte 00 where a frame's type would be starts the padding", zeros to the end
                if first or any(r.take(r.left())):
                    raise Fail("a record's padding: %s" % ("no frame before it" if first else "not all zero"))
                break
            first = False
            n = r.varint()
            if n > 16383:
                raise Fail("frame length %d" % n)
            payload = r.take(n)
            code = t & 0x7f
            if code not in self.t.types:
                raise Fail("unknown type 0x%02x" % code)
            name, frm, lo, hi = self.t.types[code]
            if frm == "client":
                raise Fail("%s from the server" % name)
            if t & 0x80:
                if self.inflater is None:
                    raise Fail("deflated %s before WELCOME" % name)
                if name in ("CHAT", "LOBBY"):
                    raise Fail("deflated %s" % name)
                out = self.inflater.decompress(payload + b"\x00\x00\xff\xff", hi + 1)
                if self.inflater.unconsumed_tail or len(out) > hi:
                    raise Fail("%s inflates past %d bytes" % (name, hi))
                payload = out
            if not lo <= len(payload) <= hi:
                raise Fail("%s of %d bytes" % (name, len(payload)))
            if name == "WELCOME" and self.inflater is None:
                # "From WELCOME on, the server may deflate": one raw stream for the connection.
                self.frames.append((name, payload))
                self.inflater = zlib.decompressobj(-15)
                continue
            self.frames.append((name, payload))

    def close(self):
        try:
            self.send(T_BYE, b"\x00")
        except OSError:
            pass
        self.s.close()


def parse_lobby(p):
    r = Reader(p)
    d = dict(size=r.u8(), flags=r.u8(), turn_time=r.u16(), controller=r.u8(), connected=r.u8(),
             ready=r.u8(), bots=r.u8(), rematch=r.u8(), parts=r.u8(), commit=r.take(32))
    d["names"] = [r.str8(), r.str8()]
    r.end()
    return d


def parse_welcome(p):
    r = Reader(p)
    d = dict(player=r.u8(), flags=r.u8())
    d["token"] = r.take(r.u8())
    d["hold"], d["grace"] = r.u16(), r.u16()
    r.end()
    return d


def parse_error(p):
    r = Reader(p)
    code, flags, text = r.u16(), r.u8(), r.str8()
    r.end()
    return code, flags & 1, text


def parse_end(p):
    r = Reader(p)
    d = dict(result=r.u8(), how=r.u8(), seed=r.u64(), S=r.take(32), bits=r.u8())
    d["parts"] = [r.take(32), r.take(32)]
    d["hash"], d["log_len"] = r.u64(), r.u32()
    r.end()
    return d


def cmd(c, d=0, arg=0):
    """CMD's payload: an argument of 0 is sent by leaving bit 7 clear (a 0 after bit 7 is refused, RANGE)."""
    return bytes([c | d << 3 | 0x80, arg]) if arg else bytes([c | d << 3])


class Player:
    """The policy: walk toward the opponent when it is known, else wander; cast an attack or pass."""

    def __init__(self, rng):
        self.rng = rng
        self.blocked = set()
        self.turn_key = None
        self.fails = 0
        self.refusals = []
        self.probed = False

    def passable(self, v, x, y):
        if not (0 < x < v.size - 1 and 0 < y < v.size - 1) or (x, y) in self.blocked:
            return False
        return (v.cell[y][x] & 0x7f) != docclient.WALL  # never seen counts as floor: try it

    def path_dir(self, v, goal):
        """BFS over what is known (unknown as floor) to a square next to goal; the first step's digit."""
        start = (v.x, v.y)
        prev = {start: None}
        q = deque([start])
        end = None
        while q:
            c = q.popleft()
            if max(abs(c[0] - goal[0]), abs(c[1] - goal[1])) <= 1 and c != start:
                end = c
                break
            for d, (dx, dy) in DIRS.items():
                n = (c[0] + dx, c[1] + dy)
                if n not in prev and n != goal and self.passable(v, *n):
                    prev[n] = (c, d)
                    q.append(n)
        if end is None:
            return None
        d = None
        while prev[end] is not None:
            end, d = prev[end]
        return d

    def choose(self, v):
        """One command (bytes of CMD's payload) for the current turn."""
        key = v.turn_no
        if key != self.turn_key:
            self.turn_key, self.fails = key, 0
        if not self.probed and v.steps > 0:
            # Once a duel, a step into a known wall on purpose: the server must refuse it (BLOCKED, 263),
            # non-fatally, and change nothing.
            walls = [d for d, (dx, dy) in DIRS.items()
                     if (v.cell[v.y + dy][v.x + dx] & 0x7f) == docclient.WALL]
            if walls:
                self.probed = True
                return cmd(STEP, walls[0]), ("probe", walls[0])
        opp_known = v.opp[0] != 0
        gx, gy = v.opp[1], v.opp[2]
        if v.steps > 0 and self.fails < 6:
            d = None
            if opp_known and max(abs(gx - v.x), abs(gy - v.y)) > 1:
                d = self.path_dir(v, (gx, gy))
            elif not opp_known:
                ds = [d for d, (dx, dy) in DIRS.items() if self.passable(v, v.x + dx, v.y + dy)]
                d = self.rng.choice(ds) if ds else None
            if d is not None:
                return cmd(STEP, d), ("step", d)
        slots = {s: i for i, s in enumerate(v.offered) if s != 0xff}
        if SPELL_TAKE_LIFE in slots and v.opp[0] == 1:
            return cmd(CAST, 0, slots[SPELL_TAKE_LIFE]), ("cast", SPELL_TAKE_LIFE)
        for sp in (SPELL_COLD, SPELL_BOLTS):
            if sp in slots:
                return cmd(CAST, 0, slots[sp]), ("cast", sp)
        if SPELL_FIRE in slots:
            if opp_known:
                dx, dy = (gx > v.x) - (gx < v.x), (gy > v.y) - (gy < v.y)
                d = [k for k, vv in DIRS.items() if vv == (dx, dy)]
                d = d[0] if d else 6
            else:
                d = self.rng.choice(list(DIRS))
            slot = slots[SPELL_FIRE]
            return cmd(CAST, d, slot), ("cast", SPELL_FIRE)
        return cmd(PASS), ("pass", 0)


def check_log(log, end, v, me, accepted, n):
    """The log received against END and the view, from docs/turnlog.md: header, my commands, the end line."""
    text = (zlib.decompress(log, 47) if log[:2] == b"\x1f\x8b" else log).decode("utf-8")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    head = dict(ln.split(" ", 1) for ln in lines[:7])
    want_opts = "size=%d fov=%s potions=%s" % (v.size, "on" if v.fov else "off", "on" if v.potions else "off")
    mine = sum(1 for ln in lines[7:] if ln.split(" ")[0] == str(me)
               and ln.split(" ")[1] in ("step", "cast", "drink", "quaff", "pickup", "pass", "resign"))
    last = lines[-1].split(" ")
    results = {1: "win0", 2: "win1", 3: "draw"}
    hows = {1: "killed", 2: "resigned", 3: "turn-limit"}
    ok = (head.get("options") == want_opts and head.get("seed") == "%016x" % end["seed"]
          and mine == accepted and last == ["end", results[end["result"]], hows[end["how"]], "%016x" % end["hash"]])
    return (ok, "duel %d: the log's header (%s, seed), its %d commands of mine (as accepted) and its end line "
            "(%s) agree with START and END" % (n, want_opts, mine, " ".join(last)))


COMMITS = set()  # the seed commitments of the duels played: the ids a RATED may name


def check_rated(p, n):
    """RATED (docs/protocol.md, "Rated duels"): the signer key, a record of version 1 naming a duel of ours."""
    ok = len(p) == 32 + 203 + 64 and p[32] == 1 and p[32 + 9:32 + 41] in COMMITS and p[32 + 105] <= 2
    return (ok, "duel %d: a RATED of %d bytes, record version %d, for a duel this client played" % (n, len(p), p[32]))


def duel(conn, tables, me, lobby, part, opts_want, out_dir, wizwar, n):
    """Play one duel from READY to the LOBBY after END; return a list of (ok, text)."""
    res = []
    answered_commit = lobby["commit"]
    answered_parts = lobby["parts"]
    conn.send(T_READY, b"\x01" + part)
    # Wait for START; LOBBYs come meanwhile (the bot joining, getting ready).
    start = None
    while start is None:
        name, p = conn.next()
        if name == "LOBBY":
            lb = parse_lobby(p)
            if lb["commit"] != answered_commit:
                raise Fail("the commitment changed in the lobby before START")
            answered_parts = lb["parts"]
            # Only the controller's OPTIONS clears a ready bit, and this client is the controller: a LOBBY
            # without our ready bit is one the server sent before our READY reached it. Nothing to send.
        elif name == "START":
            start = p
        elif name == "ERROR":
            code, fatal, text = parse_error(p)
            raise Fail("ERROR %d before START: %s" % (code, text))
        elif name in ("PEER", "CHAT", "HEARTBEAT", "WELCOME"):
            pass
        elif name == "RATED":  # the duel before's, once the server's store has it
            res.append(check_rated(p, n - 1))
        else:
            raise Fail("%s before START" % name)
    r = Reader(start)
    flags, first, turn_time, commit = r.u8(), r.u8(), r.u16(), r.take(32)
    COMMITS.add(commit)
    if flags != 0 or first > 1:
        raise Fail("START flags %d first %d" % (flags, first))
    v = View()
    v.turns_left = [0] * tables.handlers
    apply_update(v, start[r.i:], tables)
    if v.me != me:
        raise Fail("START says I am player %d, WELCOME said %d" % (v.me, me))
    if v.turn != first:
        raise Fail("START: first %d, TURN %d" % (first, v.turn))
    if commit != answered_commit:
        raise Fail("START's commitment is not the LOBBY's my part answered")
    res.append((True, "duel %d: START %dx%d fov %d potions %d, player %d, player %d moves first" %
                (n, v.size, v.size, v.fov, v.potions, me, first)))
    if (v.size, v.fov, v.potions) != opts_want:
        res.append((False, "duel %d: START's options %r, not %r" % (n, (v.size, v.fov, v.potions), opts_want)))
    pol = Player(random.Random(n))
    pending = None
    cmds = updates = refusals = 0
    msgs_seen = []
    others = []
    probe_ok = None
    end = None
    while end is None:
        if pending is None and v.result == 0 and v.turn == me:
            cmd, what = pol.choose(v)
            conn.send(T_CMD, cmd)
            pending = (cmd, what, (v.x, v.y))
            cmds += 1
        name, p = conn.next()
        if TRACE:
            sys.stderr.write("pending %r got %s %s\n" % (pending and pending[:2], name, p.hex()[:60]))
        if name == "UPDATE":
            msgs, fx = apply_update(v, p, tables)
            msgs_seen += msgs
            updates += 1
            pending = None
        elif name == "ERROR":
            code, fatal, text = parse_error(p)
            if fatal:
                raise Fail("fatal ERROR %d: %s" % (code, text))
            if code < 256:
                # Not a command's refusal (those are 256 + err): it answers another message (a READY
                # that crossed START, a chat line past the limit), and no command is waiting on it.
                others.append((code, text))
                continue
            if pending is None:
                raise Fail("a refusal %d with no command pending: %s" % (code, text))
            refusals += 1
            pol.refusals.append((code, text, pending[1]))
            pol.fails += 1
            if pending[1][0] == "probe":
                probe_ok = code == 263 and (v.x, v.y) == pending[2]
            elif pending[1][0] == "step":
                dx, dy = DIRS[pending[1][1]]
                pol.blocked.add((pending[2][0] + dx, pending[2][1] + dy))
            elif pending[1][0] == "cast":
                # a refused cast: pass instead (PASS is always legal on one's turn)
                conn.send(T_CMD, bytes([PASS]))
                pending = (bytes([PASS]), ("pass", 0), (v.x, v.y))
                cmds += 1
                continue
            else:
                raise Fail("PASS refused: ERROR %d %s" % (code, text))
            pending = None
        elif name == "END":
            end = parse_end(p)
        elif name in ("HEARTBEAT", "CHAT", "PEER", "LOBBY", "WELCOME"):
            pass
        else:
            raise Fail("%s during the duel" % name)
    res.append((True, "duel %d: played to the end: %d commands of mine (%d refused, answered), %d UPDATEs, "
                "turn %d, HP %d to %d" % (n, cmds, refusals, updates, v.turn_no, v.hp, v.opp_hp)))
    if (end["result"], end["how"]) != (v.result, v.end_reason):
        res.append((False, "duel %d: END %d/%d, the view's RESULT %d/%d" % (n, end["result"], end["how"],
                                                                          v.result, v.end_reason)))
    # The log, in LOG_CHUNKs, then LOBBY.
    log = b""
    lobby_after = None
    while len(log) < end["log_len"] or lobby_after is None:
        name, p = conn.next()
        if name == "LOG_CHUNK":
            r = Reader(p)
            off = r.varint()
            if off != len(log):
                raise Fail("LOG_CHUNK at %d, expected %d" % (off, len(log)))
            log += r.take(r.left())
        elif name == "LOBBY":
            if len(log) < end["log_len"]:
                raise Fail("LOBBY before the whole log")
            lobby_after = parse_lobby(p)
        elif name in ("HEARTBEAT", "CHAT", "PEER"):
            pass
        elif name == "RATED":
            res.append(check_rated(p, n))
        else:
            raise Fail("%s after END" % name)
    if len(log) != end["log_len"]:
        raise Fail("%d log bytes, END said %d" % (len(log), end["log_len"]))
    # The seed: the commitment, the hash of the parts, my part among them.
    ok = (seed_commit(end["S"]) == commit and end["bits"] == answered_parts
          and end["seed"] == seed_mix(end["S"], end["bits"], end["parts"])
          and end["bits"] >> me & 1 and end["parts"][me] == part
          and all(end["parts"][q] == bytes(32) for q in range(2) if not end["bits"] >> q & 1))
    res.append((ok, "duel %d: the seed %016x is the hash of S (committed before my part) and parts bits %d, "
                "my own part among them" % (n, end["seed"], end["bits"])))
    res.append((lobby_after["commit"] != commit, "duel %d: the LOBBY after END commits to a new part" % n))
    res.append(check_log(log, end, v, me, cmds - refusals, n))
    path = os.path.join(out_dir, "duel%d.log" % n)
    with open(path, "wb") as fh:
        fh.write(log)
    pr = subprocess.run([wizwar, "replay", "--check", path], capture_output=True, text=True, timeout=300)
    res.append((pr.returncode == 0, "duel %d: `wizwar replay --check` on the %d-byte log received: %s" %
                (n, len(log), (pr.stdout + pr.stderr).strip().replace("\n", " | ")[:200])))
    res.append((probe_ok is True, "duel %d: a step into a known wall is refused, not fatally, with 263" % n))
    if others:
        res.append((False, "duel %d: non-fatal ERRORs not answering a command: %r" % (n, others)))
    kinds = sorted(set(c for c, t, w in pol.refusals))
    if kinds:
        res.append((True, "duel %d: refusals met and handled: %s" % (n, ", ".join(
            "%d (%s)" % (c, next(t for cc, t, w in pol.refusals if cc == c)) for c in kinds))))
    return res, lobby_after


def room(wizwar, tables, port, fp, proto, rules, state, code, opts, games, first_n, rng, emit, idle):
    """One room: this client creates it (the controller), sets the options, a bot joins, `games` duels."""
    conn = Conn(tables, port, fp, proto, rules, None)
    name = b"DocPlayer"
    # AUTH: role 0 (a player) + 0x80 (create the room), name, room code, a zero proof (no password).
    conn.send(T_AUTH, bytes([0x80]) + str8(name) + str8(code.encode()) + bytes(32))
    nm, p = conn.next()
    if nm == "ERROR":
        raise Fail("AUTH refused: %r" % (parse_error(p),))
    if nm != "WELCOME":
        raise Fail("WELCOME expected, got %s" % nm)
    w = parse_welcome(p)
    me = w["player"]
    emit(me == 0 and w["flags"] & 1 == 1 and 1 <= w["grace"] and w["hold"] <= w["grace"],
         "room %s: AUTH creates the room: WELCOME player %d, controller %d, token %d bytes, hold %d s, grace %d s" %
         (code, me, w["flags"] & 1, len(w["token"]), w["hold"], w["grace"]))
    nm, p = conn.next()
    if nm != "LOBBY":
        raise Fail("LOBBY expected after WELCOME, got %s" % nm)
    lobby = parse_lobby(p)
    size, fov, pots = opts
    if (lobby["size"], lobby["flags"]) != (size, fov | pots << 1) or lobby["turn_time"] != 0:
        conn.send(T_OPTIONS, bytes([size, fov | pots << 1]) + (0).to_bytes(2, "big"))
        while True:
            nm, p = conn.next()
            if nm == "LOBBY":
                lobby = parse_lobby(p)
                if (lobby["size"], lobby["flags"]) == (size, fov | pots << 1):
                    break
            elif nm == "ERROR":
                raise Fail("OPTIONS refused: %r" % (parse_error(p),))
    if idle:
        # Quiet in the lobby past 15 s (with room for a slow timer): we send HEARTBEAT when we have sent nothing for 15 s, the
        # server sends one after 15 s of quiet on its side, and nobody is dropped.
        t0, heard = time.monotonic(), []
        while time.monotonic() - t0 < idle:
            try:
                heard.append(conn.next(max(0.1, idle - (time.monotonic() - t0)))[0])
            except Fail as e:
                if "no frame" not in str(e):
                    raise
        emit("HEARTBEAT" in heard and conn.heartbeats > 0,
             "room %s: %d s quiet in the lobby: %d HEARTBEAT sent, still joined (heard: %s)" %
             (code, idle, conn.heartbeats, ", ".join(heard) or "nothing"))
    bot = subprocess.Popen([wizwar, "bot", "127.0.0.1:%d#%s" % (port, fp), "--room", code, "--level", "easy",
                            "--think", "0", "--games", str(games), "--seed", str(rng.randrange(1 << 30)),
                            "--name", "Bot-" + code],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, XDG_STATE_HOME=state, HOME=state))
    try:
        for g in range(games):
            part = os.urandom(32)  # "32 fresh random bytes", once a LOBBY of this lobby is here
            res, lobby = duel(conn, tables, me, lobby, part, opts, state, wizwar, first_n + g)
            for ok, text in res:
                emit(ok, text)
        conn.close()
        try:
            out, err = bot.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            bot.kill()
            out, err = bot.communicate()
        emit(bot.returncode == 0, "room %s: the bot played its %d duels and left (exit %s): %s" %
             (code, games, bot.returncode, out.strip().replace("\n", " | ")[-200:]))
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


def main():
    wizwar = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "docs", "protocol.md")
    with open(doc, encoding="utf-8") as fh:
        tables = Tables(fh.read())
    proto = tables.proto_version
    import re
    rules = int(re.search(r"rules version \(`RULES_VERSION`\) \| (\d+)", open(doc, encoding="utf-8").read()).group(1))
    tmp = tempfile.TemporaryDirectory(prefix="wizwar-docplayer-")
    state = tmp.name
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state)
    srv = subprocess.Popen([wizwar, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", state],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    n = [0]
    bad = [0]

    def emit(ok, text):
        n[0] += 1
        bad[0] += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n[0], text), flush=True)
    try:
        line = srv.stdout.readline()  # "wizwar join 127.0.0.1:PORT#FP --new-room"
        addr = line.split()[2]
        port, fp = int(addr.split(":")[1].split("#")[0]), addr.split("#")[1]
        rng = random.Random(7)
        plan = [("dp-a", (25, 1, 1), 2, 0), ("dp-b", (15, 0, 1), 1, 22)]
        first = 1
        for code, opts, games, idle in plan:
            try:
                room(wizwar, tables, port, fp, proto, rules, state, code, opts, games, first, rng, emit, idle)
            except (Fail, Broken, OSError) as e:
                emit(False, "room %s: %s" % (code, e))
            first += games
    finally:
        srv.terminate()
        srv.wait(10)
    print("1..%d" % n[0])
    return 1 if bad[0] else 0


if __name__ == "__main__":
    sys.exit(main())
