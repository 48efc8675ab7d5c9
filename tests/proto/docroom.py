#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docroom: the parts of docs/protocol.md that docplayer.py never plays, played from the document alone.

Usage: docroom.py WIZWAR_EXE [docs/protocol.md]

docplayer.py's client (its Conn, its policy; docclient.py's decoder) against real `wizwar server`,
`wizwar host --headless` and `wizwar bot` processes on loopback, doing only what the document says:
- Passwords (a server given --password-file, a host WIZWAR_PASSWORD, as docs/server.md says): K
  from Argon2id with the numbers the document states (libargon2, not the server's libsodium, when
  it is there), first made again for the document's own worked example with its AUTH proof; the
  proof over h || name. The right password is admitted; a wrong one and the zero proof get the
  fatal ERROR 100, and the connection closes.
- RESUME, on the password server: mid-duel, on our turn after a step, the socket is closed without
  BYE; a made-up token gets 106 and the close, the right token with a wrong password 100; the
  right RESUME gets exactly WELCOME (the same token), START (resumed: the whole view, equal to the
  one kept before the drop), LOBBY; the duel goes on to END, the seed has our part sent before the
  drop, the log replays (`wizwar replay --check`). A drop after END: RESUME gets START (resumed,
  the final view), the same END and log again, then LOBBY. A RESUME with the token of a connected
  seat, under another name (not checked), takes it: the old connection gets BYE 4 and is closed.
- Wrong passwords from one address, on a server of their own: 5 refused, then the right password
  refused too (at AUTH), while a held seat's valid token still gets its seat back.
- The other side of a drop, two clients of ours in one room of a server without a password (zero
  proofs): the second joins without the create bit; the first, ready, drops: the other gets PEER
  (dropped, the lobby hold) and a LOBBY without it; RESUME gives WELCOME and LOBBY (not ready), the
  other PEER (back) and that LOBBY; a RESUME naming no room gets 106; BYE gives the other PEER
  (gone) and the controller's role.
- CONTROL and the mirror REMATCH, on the host: CONTROL with the other seat free (104); CONTROL
  handing the role over (WELCOME again, controller bit clear, the same index and token, then LOBBY
  naming the new controller); OPTIONS and CONTROL from the other player (103), and in a duel
  OPTIONS, CONTROL (103), READY, REMATCH (104); a duel; REMATCH 01 on both sides (`wizwar bot
  --mirror`): WELCOME with the other index and the same token, LOBBY with the names swapped and
  control with the bot, START with the mirror flag; the link lost in the mirror and RESUME (with
  another room code: the host has one room): START resumed and mirror; at END the last duel's
  seed, no parts, the log's level the same (its `start` hash, docs/turnlog.md); then REMATCH 01
  against the bot's plain one: a new seed, nobody moved.
Prints TAP; exit 77 (skipped) when python3-dissononce is not installed.
"""
import ctypes, ctypes.util, os, random, re, subprocess, sys, tempfile, time, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import docplayer  # noqa: E402  (exit 77 there, through noise_interop, without dissononce)
from docplayer import (Conn, Fail, Player, parse_lobby, parse_welcome, parse_error, parse_end, str8,  # noqa: E402
                       T_AUTH, T_RESUME, T_READY, T_OPTIONS, T_CONTROL, T_REMATCH, T_CMD, T_BYE)
from docclient import Broken, Reader, View, apply_update, Tables, seed_commit, seed_mix  # noqa: E402

PASSWORD = "vieux chêne"  # not ASCII: the password's bytes are its UTF-8
WRONG = "vieux chene"

# "Passwords and resume tokens": Argon2id version 1.3, 2 passes, 64 MiB (65536 KiB), 1 lane, 32 bytes out.
ARGON_T, ARGON_M_KIB, ARGON_LANES = 2, 65536, 1
_keys = {}


def password_key(password, salt):
    """K: Argon2id of the password's UTF-8 bytes with the server's salt, as the document states it."""
    pw = password.encode("utf-8")
    if (pw, salt) in _keys:
        return _keys[pw, salt]
    out = ctypes.create_string_buffer(32)
    lib = ctypes.util.find_library("argon2")
    if lib:  # the reference Argon2 (not libsodium's): the document's numbers, not its names, make K
        rc = ctypes.CDLL(lib).argon2id_hash_raw(
            ctypes.c_uint32(ARGON_T), ctypes.c_uint32(ARGON_M_KIB), ctypes.c_uint32(ARGON_LANES), pw,
            ctypes.c_size_t(len(pw)), salt, ctypes.c_size_t(len(salt)), out, ctypes.c_size_t(32))
    else:  # libsodium's crypto_pwhash with the same numbers (ALG_ARGON2ID13 is 2)
        so = ctypes.CDLL(ctypes.util.find_library("sodium"))
        so.sodium_init()
        rc = so.crypto_pwhash(out, ctypes.c_ulonglong(32), pw, ctypes.c_ulonglong(len(pw)), salt,
                              ctypes.c_ulonglong(ARGON_T), ctypes.c_size_t(ARGON_M_KIB * 1024), ctypes.c_int(2))
    if rc != 0:
        raise Fail("Argon2id failed (%d)" % rc)
    _keys[pw, salt] = out.raw
    return out.raw


def doc_example(doc, caption_start):
    """The bytes of the worked example whose caption starts so."""
    m = re.search(r"\n" + re.escape(caption_start) + r"[^\n]*\n\n```\n(.*?)```", doc, re.S)
    if not m:
        raise Fail("no worked example %r in the document" % caption_start)
    return bytes.fromhex(m.group(1))


def check_password_example(doc):
    """The document's own password example, made again: K from "old oak" and its salt, AUTH's proof."""
    salt = bytes(range(0xc0, 0xd0))
    k = password_key("old oak", salt)
    want_k = doc_example(doc, 'crypto_pwhash("old oak"')
    h = doc_example(doc, "The handshake hash h")
    auth = doc_example(doc, "... its frame, the record's plaintext before its padding (48")
    r = Reader(auth)
    t, n = r.u8(), r.varint()
    r = Reader(r.take(n))
    r.u8()  # role
    name = r.str8()
    r.str8()  # room code
    proof = r.take(32)
    r.end()
    mine = docplayer.hashlib.blake2b(h + name.encode(), digest_size=32, key=k).digest()
    return (k == want_k and t == T_AUTH and proof == mine,
            "the document's password example made again: Argon2id (t %d, %d KiB, %d lane, v1.3: %s) of \"old oak\" "
            "gives its key %s..., and BLAKE2b-256(K; h || \"%s\") its AUTH proof %s..." %
            (ARGON_T, ARGON_M_KIB, ARGON_LANES, "libargon2" if ctypes.util.find_library("argon2") else "libsodium",
             k.hex()[:16], name, mine.hex()[:16]))


def check_ident_example(doc):
    """The document's IDENT example checked with another Ed25519 (python3-cryptography): the key it shows is
    the fixed seed's, the frame holds it, and its signature verifies over "wizwar-ident-1" || h, and not over
    another channel's h."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from cryptography.exceptions import InvalidSignature
    seed = bytes(range(0x81, 0xa1))
    pk = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shown = doc_example(doc, "The client's Ed25519 public key")
    h = doc_example(doc, "The handshake hash h")
    fr = doc_example(doc, "... its frame, the record's plaintext before its padding (98")
    r = Reader(fr)
    t, n = r.u8(), r.varint()
    body = r.take(n)
    r.end()
    key, sig = body[:32], body[32:]
    ok = t == 0x14 and n == 96 and key == pk == shown
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, b"wizwar-ident-1" + h)
    except InvalidSignature:
        ok = False
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, b"wizwar-ident-1" + bytes(64))
        ok = False  # a signature good for another channel would be a replayable one
    except InvalidSignature:
        pass
    return (ok, "the document's IDENT example: the key of seed 81..a0 is %s..., and its signature verifies over "
            "\"wizwar-ident-1\" || h (python3-cryptography), and not over another h" % pk.hex()[:16])


class Client:
    """What the tests share: the tables, versions, the server's address and key, the TAP output."""

    def __init__(self, wizwar, doc, state):
        self.wizwar, self.state = wizwar, state
        text = open(doc, encoding="utf-8").read()
        self.doc = text
        self.tables = Tables(text)
        self.proto = self.tables.proto_version
        self.rules = int(re.search(r"rules version \(`RULES_VERSION`\) \| (\d+)", text).group(1))
        self.n = self.bad = 0
        self.pwfile = os.path.join(state, "password")
        with open(self.pwfile, "w", encoding="utf-8") as fh:
            fh.write(PASSWORD + "\n")  # "--password-file FILE reads the first line of FILE"

    def emit(self, ok, text):
        self.n += 1
        self.bad += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, text), flush=True)

    def conn(self, srv, password=None):
        pk = (lambda salt: password_key(password, salt)) if password is not None else None
        return Conn(self.tables, srv.port, srv.fp, self.proto, self.rules, None, password_key=pk)


class Proc:
    """A `wizwar server` or `wizwar host --headless` on loopback: its join line read from stdout."""

    def __init__(self, cl, args, env=None):
        e = dict(os.environ, XDG_STATE_HOME=cl.state, HOME=cl.state)
        e.pop("WIZWAR_PASSWORD", None)
        e.update(env or {})
        self.p = subprocess.Popen([cl.wizwar] + args + ["--bind", "127.0.0.1", "--port", "0", "--log-dir", cl.state],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e, text=True)
        line = self.p.stdout.readline()  # "wizwar join 127.0.0.1:PORT#FP ..."
        addr = line.split()[2]
        self.port, self.fp = int(addr.split(":")[1].split("#")[0]), addr.split("#")[1]

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def bot(cl, srv, args, pwfile=None):
    a = [cl.wizwar, "bot", "127.0.0.1:%d#%s" % (srv.port, srv.fp), "--level", "easy", "--think", "0"] + args
    if pwfile:
        a += ["--password-file", pwfile]
    e = dict(os.environ, XDG_STATE_HOME=cl.state, HOME=cl.state)
    e.pop("WIZWAR_PASSWORD", None)
    return subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)


def bot_done(cl, b, what):
    try:
        out, err = b.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        b.kill()
        out, err = b.communicate()
    cl.emit(b.returncode == 0, "%s: the bot played its duels and left (exit %s): %s" %
            (what, b.returncode, (out + err).strip().replace("\n", " | ")[-300:]))


def auth(c, name, code, create=True, role=0, proof=None):
    c.send(T_AUTH, bytes([role | (0x80 if create else 0)]) + str8(name.encode()) + str8(code.encode()) +
           (c.proof(name.encode()) if proof is None else proof))


def resume(c, name, code, token, role=0):
    c.send(T_RESUME, bytes([role]) + str8(name.encode()) + str8(code.encode()) + bytes([len(token)]) + token +
           c.proof(token))


def refusal(c, wait=20):
    """The fate the document gives a refused join: one fatal ERROR, the last frame, then the close.
    Returns (code, fatal, text, what came after it: 'closed' or what else)."""
    try:
        name, p = c.next(wait)
    except (Fail, OSError) as e:
        return None, None, None, "no ERROR: %s" % e
    if name != "ERROR":
        return None, None, None, "%s instead of ERROR" % name
    code, fatal, text = parse_error(p)
    after = []
    try:
        while True:
            after.append(c.next(10)[0])
    except Fail as e:
        fate = "closed" if "closed" in str(e) else str(e)
    except OSError as e:
        fate = "closed (%s)" % e.__class__.__name__
    c.s.close()
    return code, fatal, text, fate if not after else "then %s, %s" % (", ".join(after), fate)


def drop(c):
    """Close the socket abruptly: no BYE (the link lost)."""
    c.s.close()


def until(c, want, skip=("LOBBY", "PEER", "HEARTBEAT", "CHAT")):
    """Frames until one named want; returns (payload, the (name, payload)s skipped on the way)."""
    seen = []
    while True:
        name, p = c.next()
        if name == want:
            return p, seen
        if name == "ERROR":
            code, fatal, text = parse_error(p)
            if fatal or want != "ERROR":
                raise Fail("ERROR %d (%s) waiting for %s" % (code, text, want))
        if name not in skip:
            raise Fail("%s waiting for %s" % (name, want))
        seen.append((name, p))


def lobby_where(c, cond):
    """LOBBYs until one for which cond holds."""
    while True:
        p, _ = until(c, "LOBBY")
        lb = parse_lobby(p)
        if cond(lb):
            return lb


def snapshot(v):
    return v.dump(0, "view", [], [])


class Duel:
    """One duel as one player sees it, from START to the LOBBY after END; the connection may change."""

    def __init__(self, cl, c, me, n):
        self.cl, self.c, self.me, self.n = cl, c, me, n
        self.v = None
        self.pol = Player(random.Random(n))
        self.pending = None
        self.cmds = self.refused = self.updates = 0
        self.end = self.end_raw = None
        self.turn_steps = {}

    def start(self, p):
        r = Reader(p)
        self.flags, self.first, self.turn_time, self.commit = r.u8(), r.u8(), r.u16(), r.take(32)
        v = View()
        v.turns_left = [0] * self.cl.tables.handlers
        apply_update(v, p[r.i:], self.cl.tables)
        return v

    def play(self, stop=None):
        """Commands on our turn until END (True), or until stop(self) holds on our turn with nothing
        pending (False)."""
        v = self.v
        while self.end is None:
            if self.pending is None and v.result == 0 and v.turn == self.me:
                self.turn_steps.setdefault(v.turn_no, v.steps)
                if stop and stop(self):
                    return False
                b, what = self.pol.choose(v)
                self.c.send(T_CMD, b)
                self.pending = (b, what, (v.x, v.y))
                self.cmds += 1
            name, p = self.c.next()
            if name == "UPDATE":
                apply_update(v, p, self.cl.tables)
                self.updates += 1
                self.pending = None
            elif name == "ERROR":
                code, fatal, text = parse_error(p)
                if fatal or code < 256 or self.pending is None:
                    raise Fail("duel %d: ERROR %d (%s) in the duel" % (self.n, code, text))
                self.refused += 1
                self.pol.fails += 1
                what, at = self.pending[1], self.pending[2]
                if what[0] == "step":
                    dx, dy = docplayer.DIRS[what[1]]
                    self.pol.blocked.add((at[0] + dx, at[1] + dy))
                    self.pending = None
                elif what[0] == "probe":
                    self.pending = None
                else:
                    self.c.send(T_CMD, bytes([docplayer.PASS]))
                    self.pending = (bytes([docplayer.PASS]), ("pass", 0), (v.x, v.y))
                    self.cmds += 1
            elif name == "END":
                self.end_raw = p
                self.end = parse_end(p)
            elif name in ("HEARTBEAT", "CHAT", "PEER", "LOBBY"):
                pass
            else:
                raise Fail("duel %d: %s during the duel" % (self.n, name))
        return True

    def log_and_lobby(self, c=None):
        """The LOG_CHUNKs END announced, then LOBBY: (log, lobby)."""
        c = c or self.c
        log = b""
        while len(log) < self.end["log_len"]:
            name, p = c.next()
            if name == "LOG_CHUNK":
                r = Reader(p)
                off = r.varint()
                if off != len(log):
                    raise Fail("LOG_CHUNK at %d, expected %d" % (off, len(log)))
                log += r.take(r.left())
            elif name not in ("HEARTBEAT", "CHAT", "PEER"):
                raise Fail("%s among the LOG_CHUNKs" % name)
        if len(log) != self.end["log_len"]:
            raise Fail("%d log bytes, END said %d" % (len(log), self.end["log_len"]))
        p, skipped = until(c, "LOBBY", skip=("HEARTBEAT", "CHAT", "PEER"))
        return log, parse_lobby(p)

    def replay(self, log, tag):
        path = os.path.join(self.cl.state, "%s.log" % tag)
        with open(path, "wb") as fh:
            fh.write(log)
        pr = subprocess.run([self.cl.wizwar, "replay", "--check", path], capture_output=True, text=True, timeout=120)
        return pr.returncode == 0, (pr.stdout + pr.stderr).strip().replace("\n", " | ")[:160]


def log_lines(log):
    text = (zlib.decompress(log, 47) if log[:2] == b"\x1f\x8b" else log).decode("utf-8")
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


def log_head(log):
    """The header's seven lines (docs/turnlog.md) by their first word; "player0", "player1" for the names."""
    head = {}
    for ln in log_lines(log)[:7]:
        k, rest = ln.split(" ", 1)
        if k == "player":
            k, rest = "player" + rest[0], rest[2:]
        head[k] = rest
    return head


def seed_ok(d, part, bits_announced):
    e = d.end
    return (seed_commit(e["S"]) == d.commit and e["bits"] == bits_announced
            and e["seed"] == seed_mix(e["S"], e["bits"], e["parts"]) and e["bits"] >> d.me & 1
            and e["parts"][d.me] == part
            and all(e["parts"][q] == bytes(32) for q in range(2) if not e["bits"] >> q & 1))


def my_commands(log, me):
    return sum(1 for ln in log_lines(log)[7:] if ln.split(" ")[0] == str(me)
               and ln.split(" ")[1] in ("step", "cast", "drink", "quaff", "pickup", "pass", "resign"))


def stepped(d):
    """Where the link is lost: on our turn 4 or later, after a step of it (or on turn 6 or later without
    one: a wizard next to its opponent casts rather than steps)."""
    return d.v.turn_no >= 6 or (d.v.turn_no >= 4 and d.v.steps < d.turn_steps[d.v.turn_no])


def resume_into(cl, srv, d, password, name, code, token, w, flags, parts, what):
    """The right RESUME into duel d (its link dropped): exactly WELCOME, START (resumed: the whole view, equal
    to the one kept), LOBBY. Returns (the new connection, the token to keep)."""
    before = snapshot(d.v)
    commit = d.commit
    c = cl.conn(srv, password)
    resume(c, name, code, token)
    got = [c.next() for _ in range(3)]
    names = [g[0] for g in got]
    ok = names == ["WELCOME", "START", "LOBBY"]
    cl.emit(ok, "%s, after a step of turn %d: %s" % (what, d.v.turn_no, ", ".join(names)))
    if not ok:
        raise Fail("not the order the document gives")
    w2 = parse_welcome(got[0][1])
    cl.emit(w2["player"] == d.me and w2["flags"] == w["flags"] and w2["token"] == token and
            (w2["hold"], w2["grace"]) == (w["hold"], w["grace"]),
            "the WELCOME after RESUME: player %d, controller %d, %s token, hold %d s, grace %d s" %
            (w2["player"], w2["flags"] & 1, "the same" if w2["token"] == token else "a new", w2["hold"], w2["grace"]))
    v2 = d.start(got[1][1])
    after = snapshot(v2)
    diff = [(a, b) for a, b in zip(before, after) if a != b]
    cl.emit(d.flags == flags and d.commit == commit and not diff,
            "START after RESUME: flags %d (resumed%s), the duel's commitment, and the whole view from the blank "
            "one equal to the view kept before the drop (%d lines differ%s)" %
            (d.flags, ", a mirror" if flags & 4 else "", len(diff), (": %r" % (diff[:2],)) if diff else ""))
    lb = parse_lobby(got[2][1])
    cl.emit(lb["connected"] == 3 and lb["commit"] == commit and lb["names"][d.me] == name and lb["parts"] == parts,
            "the LOBBY after it: both connected, the commitment START carried, the duel's own parts bits %d" %
            lb["parts"])
    d.v, d.c, d.pending = v2, c, None
    return c, w2["token"]


# ---- passwords and RESUME on a `wizwar server --password-file` ----

def password_server(cl):
    pwfile = cl.pwfile
    srv = Proc(cl, ["server", "--password-file", pwfile])
    b = None
    try:
        code, name = "pw-room", "Docpass"
        # A wrong password: AUTH's proof keyed with the wrong K.
        c = cl.conn(srv, WRONG)
        cl.emit(c.asks_password and len(c.salt) == 16,
                "server --password-file: CHALLENGE asks for a password (flags bit 0) and carries a 16-byte salt")
        auth(c, name, code)
        e = refusal(c)
        cl.emit(e[:2] == (100, 1) and e[3] == "closed",
                "a wrong password: fatal ERROR %s (%s), then %s" % (e[0], e[2], e[3]))
        # A client that sends the zero proof of "no password".
        c = cl.conn(srv, PASSWORD)
        auth(c, name, code, proof=bytes(32))
        e = refusal(c)
        cl.emit(e[:2] == (100, 1) and e[3] == "closed",
                "the zero proof to a server that asks for a password: fatal ERROR %s (%s), then %s" %
                (e[0], e[2], e[3]))
        # The right one.
        c = cl.conn(srv, PASSWORD)
        auth(c, name, code)
        p, _ = until(c, "WELCOME", skip=())
        w = parse_welcome(p)
        lobby = parse_lobby(until(c, "LOBBY", skip=())[0])
        cl.emit(w["player"] == 0 and w["flags"] & 1 == 1 and lobby["names"][0] == name,
                "the right password (%r, its UTF-8 bytes): admitted, WELCOME player %d (controller), LOBBY names %r" %
                (PASSWORD, w["player"], lobby["names"][0]))
        me, token = w["player"], w["token"]
        b = bot(cl, srv, ["--room", code, "--games", "1", "--name", "Bot-pw"], pwfile)
        lobby = lobby_where(c, lambda lb: lb["connected"] == 3)
        part = os.urandom(32)
        c.send(T_READY, b"\x01" + part)
        d = Duel(cl, c, me, 1)
        start_p, _ = until(c, "START")
        d.v = d.start(start_p)
        cl.emit(d.flags == 0 and d.commit == lobby["commit"],
                "password room: the bot (--password-file) joins, START %dx%d, player %d moves first" %
                (d.v.size, d.v.size, d.first))
        # Play to our turn 4 or later, one step into it, then lose the link: no BYE.
        if d.play(stop=stepped):
            raise Fail("the duel ended before turn 4")
        cmds_before = d.cmds - d.refused
        drop(c)
        # A made-up token (of the same length, with a good proof over it): RESUME.
        c = cl.conn(srv, PASSWORD)
        resume(c, name, code, os.urandom(len(token)))
        e = refusal(c)
        cl.emit(e[:2] == (106, 1) and e[3] == "closed",
                "RESUME with a token the server never gave: fatal ERROR %s (%s), then %s" % (e[0], e[2], e[3]))
        # The right token, the wrong password.
        c = cl.conn(srv, WRONG)
        resume(c, name, code, token)
        e = refusal(c)
        cl.emit(e[:2] == (100, 1) and e[3] == "closed",
                "RESUME with the right token and a proof of the wrong password: fatal ERROR %s (%s), then %s" %
                (e[0], e[2], e[3]))
        # The right RESUME: exactly WELCOME, START (resumed), LOBBY.
        c, token = resume_into(cl, srv, d, PASSWORD, name, code, token, w, 1, lobby["parts"], "RESUME mid-duel")
        d.play()
        log, lobby_after = d.log_and_lobby()
        accepted = d.cmds - d.refused
        cl.emit(seed_ok(d, part, 3),
                "resumed duel played to END (%d commands of mine, %d before the drop): the seed %016x has my part, "
                "sent before the drop" % (accepted, cmds_before, d.end["seed"]))
        ok, out = d.replay(log, "resumed")
        cl.emit(ok and my_commands(log, me) == accepted,
                "its log: my %d commands on both connections, `wizwar replay --check`: %s" % (accepted, out))
        # A drop after END, before the next duel: the END is owed again.
        drop(c)
        c = cl.conn(srv, PASSWORD)
        resume(c, name, code, token)
        names = []
        p, _ = until(c, "WELCOME", skip=())
        names.append("WELCOME")
        nm, p = c.next()
        names.append(nm)
        ok = nm == "START"
        if ok:
            d2 = Duel(cl, c, me, 2)
            v3 = d2.start(p)
            nm, p = c.next()
            names.append(nm)
            ok = nm == "END" and p == d.end_raw
            if ok:
                d2.end = parse_end(p)
                log2, lb2 = d2.log_and_lobby()
                names += ["LOG_CHUNK...", "LOBBY"]
                ok = log2 == log and v3.result == d.v.result and v3.end_reason == d.v.end_reason and d2.flags == 1
        cl.emit(ok, "a drop after END and RESUME: %s; START resumed with the result, the same END, the same log" %
                ", ".join(names))
        # A RESUME with the token of a seat that is connected takes the seat; the old connection gets BYE 4.
        c2 = cl.conn(srv, PASSWORD)
        resume(c2, "Renamed", code, token)  # the name RESUME carries is not the seat's: the token is the player
        p, _ = until(c2, "WELCOME", skip=())
        lb2 = parse_lobby(until(c2, "LOBBY", skip=())[0])
        old = []
        try:
            while True:
                nm, p = c.next(10)
                old.append((nm, p))
        except Fail as e:
            old.append((str(e), b""))
        byes = [p for nm, p in old if nm == "BYE"]
        cl.emit(byes == [b"\x04"] and old[-1][0] == "the server closed the connection" and lb2["names"][me] == name,
                "RESUME with the token of a connected seat (and another name): the old connection gets %s; the new "
                "one the seat, still named %r" % (", ".join("%s %s" % (nm, p.hex()) for nm, p in old),
                                                  lb2["names"][me]))
        c2.close()
        bot_done(cl, b, "password room")
        b = None
    finally:
        if b and b.poll() is None:
            b.kill()
            b.wait()
        srv.stop()


def lockout_server(cl):
    """5 wrong passwords from one address, then the right one is refused; a valid token still is not."""
    srv = Proc(cl, ["server", "--password-file", cl.pwfile])
    try:
        c = cl.conn(srv, PASSWORD)
        auth(c, "Held", "lock-room")
        w = parse_welcome(until(c, "WELCOME", skip=())[0])
        until(c, "LOBBY", skip=())
        drop(c)  # the seat is held for the lobby hold
        codes = []
        for i in range(5):
            c = cl.conn(srv, WRONG)
            auth(c, "Guess%d" % i, "lock-room")
            codes.append(refusal(c)[0])
        where = "at AUTH"
        try:
            c = cl.conn(srv, PASSWORD)
            auth(c, "Right", "lock-room")
            e = refusal(c)
        except Fail as x:  # "at HELLO": an ERROR in clear instead of CHALLENGE
            where, e = "at HELLO", (None, None, str(x), "")
        cl.emit(codes == [100] * 5 and e[:2] == (100, 1) and where == "at AUTH" and e[3] == "closed",
                "5 wrong passwords (%s), then the right one refused %s: ERROR %s (%s)" %
                (codes, where, e[0], e[2]))
        c = cl.conn(srv, PASSWORD)
        resume(c, "Held", "lock-room", w["token"])
        names = [c.next()[0] for _ in range(2)]
        cl.emit(names == ["WELCOME", "LOBBY"],
                "from the locked-out address, a held seat's valid token: %s" % ", ".join(names))
        c.close()
    finally:
        srv.stop()


def parse_peer(p):
    r = Reader(p)
    d = (r.u8(), r.u8(), r.u16())
    r.end()
    return d


def next_of(c, want):
    """The next frame, HEARTBEATs aside; (name, payload) checked to be want."""
    while True:
        nm, p = c.next(15)
        if nm != "HEARTBEAT":
            break
    if nm != want:
        raise Fail("%s where %s was due" % (nm, want))
    return p


def lobby_pair(cl):
    """Two clients of ours in one room of a server without a password: what the other player sees of
    a drop in the lobby and of the RESUME; the ready bit not kept; control passing when a seat is freed."""
    srv = Proc(cl, ["server"])
    try:
        a = cl.conn(srv)
        cl.emit(not a.asks_password and a.proof(b"Alpha") == bytes(32),
                "server without a password: CHALLENGE's flag clear, the proof 32 zero bytes")
        auth(a, "Alpha", "pair")
        wa = parse_welcome(next_of(a, "WELCOME"))
        next_of(a, "LOBBY")
        b = cl.conn(srv)
        auth(b, "Beta", "pair", create=False)
        wb = parse_welcome(next_of(b, "WELCOME"))
        next_of(b, "LOBBY")
        next_of(a, "LOBBY")
        a.send(T_READY, b"\x01" + os.urandom(32))
        lb = parse_lobby(next_of(b, "LOBBY"))
        next_of(a, "LOBBY")
        cl.emit(wb["player"] == 1 and wb["flags"] & 1 == 0 and lb["ready"] == 1,
                "a second player joins without the create bit: player 1, not the controller; the first is ready")
        drop(a)
        peer = parse_peer(next_of(b, "PEER"))
        lb = parse_lobby(next_of(b, "LOBBY"))
        cl.emit(peer == (0, 0, wa["hold"]) and lb["connected"] == 2 and lb["names"][0] == "" and lb["ready"] == 0,
                "a drop in the lobby: the other gets PEER %r (player 0 dropped, the lobby hold %d s) and a LOBBY "
                "without it (connected %d, name %r, ready %d)" % (peer, wa["hold"], lb["connected"],
                                                                   lb["names"][0], lb["ready"]))
        a = cl.conn(srv)
        resume(a, "Alpha", "pair", wa["token"])
        w = parse_welcome(next_of(a, "WELCOME"))
        lb = parse_lobby(next_of(a, "LOBBY"))
        peer = parse_peer(next_of(b, "PEER"))
        lb_b = parse_lobby(next_of(b, "LOBBY"))
        cl.emit(w["player"] == 0 and w["flags"] & 1 == 1 and w["token"] == wa["token"] and lb["connected"] == 3
                and lb["ready"] == 0 and lb["controller"] == 0 and peer == (0, 1, 0) and lb_b == lb,
                "RESUME in the lobby: WELCOME (player 0, the controller, the same token), LOBBY (back, not ready); "
                "the other gets PEER %r (back) and that LOBBY" % (peer,))
        c = cl.conn(srv)
        resume(c, "Alpha", "no-such-room", wa["token"])
        e = refusal(c)
        cl.emit(e[:2] == (106, 1) and e[3] == "closed",
                "RESUME naming a room that does not exist: fatal ERROR %s (%s), then %s" % (e[0], e[2], e[3]))
        a.send(T_BYE, b"\x00")
        a.s.close()
        peer = parse_peer(next_of(b, "PEER"))
        lb = parse_lobby(next_of(b, "LOBBY"))
        more = []
        try:
            more.append(b.next(1.0)[0])
        except Fail:
            pass
        cl.emit(peer == (0, 2, 0) and lb["controller"] == 1 and lb["connected"] == 2 and not more,
                "BYE in the lobby: the other gets PEER %r (gone) and a LOBBY where it is the controller (%d), and "
                "no WELCOME (%s)" % (peer, lb["controller"], ", ".join(more) or "nothing more"))
        b.close()
    finally:
        srv.stop()


# ---- CONTROL and the mirror REMATCH on a `wizwar host --headless` ----

def host_room(cl):
    srv = Proc(cl, ["host", "--headless"], env={"WIZWAR_PASSWORD": PASSWORD})
    b = None
    try:
        c = cl.conn(srv, WRONG)
        auth(c, "Wrong", "x", create=False)
        e = refusal(c)
        cl.emit(e[:2] == (100, 1) and e[3] == "closed", "host --headless (WIZWAR_PASSWORD): a wrong password: "
                "fatal ERROR %s (%s), then %s" % (e[0], e[2], e[3]))
        name = "Docmirror"
        c = cl.conn(srv, PASSWORD)
        auth(c, name, "any-code-7", create=False)  # "any valid code joins the one room"
        w = parse_welcome(until(c, "WELCOME", skip=())[0])
        lobby = parse_lobby(until(c, "LOBBY", skip=())[0])
        me, token = w["player"], w["token"]
        cl.emit(me == 0 and w["flags"] & 1 == 1 and lobby["controller"] == 0,
                "host --headless: the right password, any room code: player 0, the controller")
        c.send(T_CONTROL, b"")
        p, _ = until(c, "ERROR")
        code, fatal, text = parse_error(p)
        cl.emit((code, fatal) == (104, 0), "CONTROL with the other seat free: ERROR %d (%s), fatal %d" %
                (code, text, fatal))
        b = bot(cl, srv, ["--mirror", "--games", "3", "--name", "Bot-mirror", "--seed", "11"], cl.pwfile)
        lobby = lobby_where(c, lambda lb: lb["connected"] == 3)
        c.send(T_CONTROL, b"")
        seen = []
        while True:
            nm, p = c.next()
            seen.append((nm, p))
            if nm == "WELCOME":
                nm2, p2 = c.next()
                seen.append((nm2, p2))
                break
            if nm not in ("LOBBY", "PEER", "HEARTBEAT"):
                raise Fail("%s after CONTROL" % nm)
        w2 = parse_welcome(seen[-2][1])
        lb = parse_lobby(seen[-1][1]) if seen[-1][0] == "LOBBY" else None
        cl.emit(w2["player"] == me and w2["flags"] == 0 and w2["token"] == token and lb and lb["controller"] == 1,
                "CONTROL: WELCOME again (player %d, controller bit %d, %s token), then %s naming controller %s "
                "(ready bits %s)" % (w2["player"], w2["flags"], "the same" if w2["token"] == token else "another",
                                     seen[-1][0], lb and lb["controller"], lb and lb["ready"]))
        c.send(T_OPTIONS, bytes([21, 3, 0, 0]))
        code, fatal, text = parse_error(until(c, "ERROR")[0])
        c.send(T_CONTROL, b"")
        code2, fatal2, text2 = parse_error(until(c, "ERROR")[0])
        cl.emit((code, fatal, code2, fatal2) == (103, 0, 103, 0),
                "not the controller any more: OPTIONS gets ERROR %d (%s), CONTROL ERROR %d (%s), not fatal" %
                (code, text, code2, text2))
        # Duel 1: a plain one.
        part = os.urandom(32)
        c.send(T_READY, b"\x01" + part)
        p, seen = until(c, "START")
        lobbies = [parse_lobby(q) for nm, q in seen if nm == "LOBBY"]
        bits = lobbies[-1]["parts"] if lobbies else lobby["parts"]
        d1 = Duel(cl, c, me, 1)
        d1.v = d1.start(p)
        # On our turn, nothing pending: the lobby's messages, which a duel refuses without a change.
        if d1.play(stop=lambda d: True):
            raise Fail("duel 1 ended before our turn")
        for t, body in ((T_OPTIONS, bytes([21, 3, 0, 0])), (T_CONTROL, b""), (T_READY, b"\x01" + part),
                        (T_REMATCH, b"\x00" + part)):
            c.send(t, body)
        errs = [parse_error(until(c, "ERROR")[0]) for _ in range(4)]
        cl.emit([(e[0], e[1]) for e in errs] == [(103, 0), (103, 0), (104, 0), (104, 0)],
                "in a duel, from the player who is not the controller: OPTIONS, CONTROL, READY, REMATCH get %s" %
                ", ".join("%d (%s)" % (e[0], e[2]) for e in errs))
        d1.play()
        log1, lobby = d1.log_and_lobby()
        ok, out = d1.replay(log1, "host1")
        cl.emit(d1.flags == 0 and seed_ok(d1, part, bits) and ok,
                "duel 1 (the bot controls the room): to END, seed %016x with my part, log: %s" % (d1.end["seed"], out))
        # Duel 2: REMATCH 01 from both (the bot with --mirror): the mirror.
        part = os.urandom(32)
        c.send(T_REMATCH, b"\x01" + part)
        p, seen = until(c, "START", skip=("LOBBY", "PEER", "HEARTBEAT", "CHAT", "WELCOME"))
        names = [nm for nm, q in seen]
        wl = [parse_welcome(q) for nm, q in seen if nm == "WELCOME"]
        after_w = [parse_lobby(q) for nm, q in seen[names.index("WELCOME") + 1:] if nm == "LOBBY"] if wl else []
        me2 = wl[-1]["player"] if wl else me
        cl.emit(len(wl) == 1 and me2 == 1 - me and after_w and after_w[-1]["names"][me2] == name
                and wl[-1]["flags"] == 0 and after_w[-1]["controller"] == 1 - me2
                and after_w[-1]["bots"] == 1 << (1 - me2),
                "REMATCH 01 from both: before START %s; WELCOME player %s (controller bit %s, %s token), the LOBBY "
                "after it names %r, controller %s (control stays with the bot, in its new seat), bots bits %s" %
                (", ".join(names), me2, wl and wl[-1]["flags"], wl and ("the same" if wl[-1]["token"] == token
                                                                         else "a new"),
                 after_w and after_w[-1]["names"], after_w and after_w[-1]["controller"],
                 after_w and after_w[-1]["bots"]))
        if wl:
            token = wl[-1]["token"]
        d2 = Duel(cl, c, me2, 2)
        d2.v = d2.start(p)
        cl.emit(d2.flags == 4 and d2.first == d1.first and d2.v.me == me2 and after_w
                and d2.commit == after_w[-1]["commit"] != d1.commit,
                "the mirror's START: flags %d (bit 2, a mirror), player %d moves first as in duel 1, ME %d, the "
                "commitment of the LOBBYs before it (a new one)" % (d2.flags, d2.first, d2.v.me))
        # The link lost in the mirror, and RESUME (with another room code: the host has one room).
        if d2.play(stop=stepped):
            raise Fail("the mirror ended before turn 4")
        drop(c)
        c, token = resume_into(cl, srv, d2, PASSWORD, name, "other-code", token, wl[-1], 5, 0,
                               "RESUME in the mirror")
        d2.play()
        log2, lobby = d2.log_and_lobby()
        e1, e2 = d1.end, d2.end
        h1, h2 = log_head(log1), log_head(log2)
        ok, out = d2.replay(log2, "host2")
        cl.emit(e2["seed"] == e1["seed"] and e2["bits"] == 0 and e2["parts"] == [bytes(32)] * 2,
                "the mirror's END: the last duel's seed %016x again, parts bits %d, parts zeros" %
                (e2["seed"], e2["bits"]))
        cl.emit(seed_commit(e2["S"]) == d2.commit, "the mirror's END: S is the commitment START carried")
        cl.emit(h2["seed"] == h1["seed"] and h2["start"] == h1["start"] and h2["options"] == h1["options"]
                and (h2["player0"], h2["player1"]) == (h1["player1"], h1["player0"]) and ok,
                "the mirror's log: the same seed, options and start hash %s (the same level), the names swapped, "
                "replay: %s" % (h2["start"], out))
        # Duel 3: REMATCH 01 again, the bot asks a plain one after a mirror: a new seed, nobody moved.
        part = os.urandom(32)
        c.send(T_REMATCH, b"\x01" + part)
        p, seen = until(c, "START")
        lobbies = [parse_lobby(q) for nm, q in seen if nm == "LOBBY"]
        bits = lobbies[-1]["parts"] if lobbies else lobby["parts"]
        d3 = Duel(cl, c, me2, 3)
        d3.v = d3.start(p)
        d3.play()
        log3, lobby = d3.log_and_lobby()
        ok, out = d3.replay(log3, "host3")
        cl.emit(d3.flags == 0 and d3.v.me == me2 and seed_ok(d3, part, bits) and d3.end["seed"] != e1["seed"] and ok,
                "REMATCH 01 against the bot's plain REMATCH: flags %d, still player %d, a new seed %016x with my part, "
                "log: %s" % (d3.flags, d3.v.me, d3.end["seed"], out))
        c.close()
        bot_done(cl, b, "host room")
        b = None
    finally:
        if b and b.poll() is None:
            b.kill()
            b.wait()
        srv.stop()


def main():
    wizwar = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "docs", "protocol.md")
    tmp = tempfile.TemporaryDirectory(prefix="wizwar-docroom-")
    cl = Client(wizwar, doc, tmp.name)
    t0 = time.monotonic()
    try:
        cl.emit(*check_password_example(cl.doc))
        cl.emit(*check_ident_example(cl.doc))
    except (Fail, Broken, ValueError) as e:
        cl.emit(False, "the password example: %s" % e)
    for part in (password_server, lockout_server, lobby_pair, host_room):
        try:
            part(cl)
        except (Fail, Broken, OSError, ValueError, KeyError, IndexError) as e:
            cl.emit(False, "%s: %s: %s" % (part.__name__, e.__class__.__name__, e))
    print("# %.1f s" % (time.monotonic() - t0))
    print("1..%d" % cl.n)
    return 1 if cl.bad else 0


if __name__ == "__main__":
    sys.exit(main())
