#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""server/moderation: `wizwar admin` against a real `wizwar server` with its store, and real `wizwar bot` clients:
a playing bot banned by key is dropped with the reason and expiry and refused when it comes back; a name and an
address range banned; a ban that expires lets its key back; a name freed goes to the next key; hostile admin lines
answered with clear errors; the server stopped and started again still holds its bans (from the store's tables).

    moderation.py WIZWAR"""
import os, re, signal, socket, sqlite3, subprocess, sys, tempfile, threading, time

W = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="wizwar-moderation-")
os.chmod(tmp, 0o700)
env = dict(os.environ, HOME=tmp, XDG_STATE_HOME=tmp + "/state")
os.makedirs(tmp + "/state", mode=0o700)
SOCK, STORE = tmp + "/state/admin.sock", tmp + "/server.db"
procs = []
n = failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    return cond


def start_server():
    p = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", tmp + "/logs", "--store",
                          STORE, "--admin-socket", SOCK, "--handshakes-per-min", "0"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    log, port = [], None
    for line in p.stderr:
        log.append(line)
        if m := re.search(r"listening on .* port (\d+)", line):
            port = int(m.group(1))
        if "admin socket" in line:
            break
    threading.Thread(target=lambda: [log.append(l) for l in p.stderr], daemon=True).start()
    return p, port, log


def admin(*args):
    r = subprocess.run([W, "admin", "--admin-socket", SOCK, *args], env=env, capture_output=True, text=True,
                       timeout=10)
    return r.returncode, r.stdout + r.stderr


def admin_raw(line, answers=1):
    """Send raw bytes; read until `answers` answers (an `ok` or `error: ...` line each) have come,
    each line of several being answered as the server gets to it."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(SOCK)
    s.sendall(line)
    got = b""
    def answered():
        whole = got.split(b"\n")[:-1]  # complete lines only
        return sum(1 for l in whole if l == b"ok" or l.startswith(b"error: ")) >= answers and got.endswith(b"\n")
    while not (answered() and re.search(rb"(^|\n)(ok|error: [^\n]*)\n$", got)) and (d := s.recv(65536)):
        got += d
    s.close()
    return got.decode(errors="replace")


def fingerprint(name):
    r = subprocess.run([W, "id", "--key", f"{tmp}/{name}.key"], env=env, capture_output=True, text=True, timeout=10)
    return re.search(r"fingerprint (\S+)", r.stdout).group(1)


def bot(port, key, name, room=None):
    """A bot that makes a room (or joins one); returns the process once it said its room, or ended."""
    where = ["--room", room] if room else ["--new-room"]
    p = subprocess.Popen([W, "bot", f"127.0.0.1:{port}", *where, "--name", name, "--key", f"{tmp}/{key}.key",
                          "--think", "30", "--games", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    procs.append(p)
    p.room = None
    if not room:
        for line in p.stdout:
            if m := re.search(r"room (\S+):", line):
                p.room = m.group(1)
                break
    return p


def refused(p, what):
    """The bot ends by itself, and says why on stderr."""
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        return False, "still running"
    err = p.stderr.read()
    return p.returncode != 0 and what in err, err.strip().splitlines()[-1] if err.strip() else "(nothing)"


def wait_log(log, pattern, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(re.search(pattern, l) for l in list(log)):
            return True
        time.sleep(0.05)
    return False


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


try:
    fa, fb, fc = fingerprint("a"), fingerprint("b"), fingerprint("c")
    for k in ("m", "d", "x", "y"):
        fingerprint(k)
    srv, port, log = start_server()
    ok(port and os.path.exists(SOCK), f"server on port {port} with its admin socket and store")

    # A duel under way; its first player is banned by key and dropped at once, with the reason.
    a = bot(port, "a", "Alice")
    b = bot(port, "b", "Bob", a.room)
    ok(wait_log(log, r"Bob joins room"), "two bots in a room")
    rc, out = admin("ban", "key", fa, "--for", "1h", "--reason", "seen cheating")
    ok(rc == 0 and "1 connection dropped" in out and "until" in out, f"ban key: {out.strip()!r}")
    good, said = refused(a, "seen cheating")
    ok(good and "until" in said and "(key)" in said, f"the banned bot is dropped and told: {said!r}")
    ok(b.poll() is None, "the other bot plays on")
    ok(wait_log(log, r"Alice is banned: the seat is not held") and wait_log(log, r"Alice did not come back: forfeit"),
       "the banned player's duel is forfeit at once, not after the grace")
    good, said = refused(bot(port, "a", "Alicia"), "seen cheating")
    ok(good, f"the banned key under another name is refused: {said!r}")

    # A name, whatever its case, from any key.
    rc, out = admin("ban", "name", "mallory", "--reason", "impersonation")
    good, said = refused(bot(port, "m", "Mallory"), "impersonation")
    ok(rc == 0 and good and "(name)" in said, f"a banned name is refused: {said!r}")

    # An address range: every bot here comes from 127.0.0.1.
    rc, out = admin("ban", "addr", "127.0.0.0/8", "--reason", "closed for maintenance")
    good, said = refused(bot(port, "d", "Dana"), "closed for maintenance")
    ok(rc == 0 and good and "(address)" in said, f"an address range is refused: {said!r}")
    rc, out = admin("unban", "addr", "127.0.0.0/8")
    d = bot(port, "d", "Dana")
    ok(rc == 0 and d.room, f"unbanned, the address gets in ({out.strip()!r})")
    stop(d)

    # A ban that expires: refused within it, let in after it, without the operator.
    rc, out = admin("ban", "key", fc, "--for", "2s", "--reason", "cool off")
    t0 = time.monotonic()
    good, said = refused(bot(port, "c", "Cato"), "cool off")
    ok(rc == 0 and good, f"a 2 s ban refuses at once: {said!r}")
    c, tries = None, 0
    while time.monotonic() - t0 < 10:
        tries += 1
        c = bot(port, "c", "Cato")
        if c.room:
            break
        c.wait(timeout=10)
        time.sleep(0.25)
    ok(c is not None and c.room is not None and tries > 1, f"after its expiry the key gets in ({tries} tries, "
       f"{time.monotonic() - t0:.1f} s)")
    stop(c)

    # A mute is recorded (what it does to chat: tests/server/test_ban.c).
    rc, out = admin("mute", fb, "--for", "1d")
    ok(rc == 0 and f"mute {fb}" in out, f"mute: {out.strip()!r}")

    # A name freed: another key may then take it.
    x = bot(port, "x", "Vivien")
    ok(x.room is not None, "Vivien's first key owns the name")
    stop(x)
    good, said = refused(bot(port, "y", "Vivien"), "belongs to another player's key")
    ok(good, f"another key is refused the name: {said!r}")
    rc, out = admin("free-name", "Vivien")
    y = bot(port, "y", "Vivien")
    ok(rc == 0 and y.room is not None, f"freed, the name goes to the next key ({out.strip()!r})")
    stop(y)

    # Hostile or mistaken admin input: one clear error each, nothing applied.
    rc, out = admin("ban", "key")
    ok(rc == 1 and "usage: ban key" in out, f"no target: {out.strip()!r}")
    rc, out = admin("ban", "addr", "10.0.0.1/8")
    ok(rc == 1 and "bits set past" in out, f"host bits in a range: {out.strip()!r}")
    rc, out = admin("ban", "key", fa, "--for", "forever")
    ok(rc == 1 and "--for: a whole number" in out, f"a bad duration: {out.strip()!r}")
    rc, out = admin("ban", "name", "x", "--reason", "\x1b[2J")
    ok(rc == 2 and "control character" in out, f"an escape in an argument, refused by the client: {out.strip()!r}")
    got = admin_raw("ban name x --reason a\xc2\x9b2Jb\n".encode("latin-1"))
    ok(got.startswith("error: --reason: printable"), f"a C1 control sent raw: {got.strip()!r}")
    got = admin_raw(b"ban name x --reason " + b"r" * 57 + b"\n")
    ok(got.startswith("error: --reason: at most 56 bytes"), f"a long reason: {got.strip()!r}")
    got = admin_raw(b"bans now\nunban name nobody\n", answers=2)
    ok(got == "error: bans takes no arguments\nerror: no ban of nobody\n", f"two bad lines, two errors: {got!r}")
    rc, out = admin("bans")
    lines = out.strip().splitlines()
    ok(rc == 0 and len(lines) == 3 and lines[0].startswith(f"key {fa} until") and
       lines[1].startswith("name mallory permanent") and lines[2].startswith(f"mute {fb} until"),
       f"bans lists what is in force, the expired and lifted gone: {lines}")

    st = subprocess.run([W, "status", "--socket", SOCK, "--prometheus"], env=env, capture_output=True, text=True,
                        timeout=10).stdout
    m = re.search(r'^wizwar_handshake_failures_total\{reason="banned"\} (\d+)$', st, re.M)
    ok(m and int(m.group(1)) >= 5, f"refusals counted as banned in the metrics: {m.group(0) if m else None}")

    # Stopped and started again: the same bans, from the store.
    stop(b)
    stop(srv)
    db = sqlite3.connect(STORE)
    rows = sorted(db.execute("SELECT kind, target, expires IS NULL, reason FROM bans"))
    mutes = db.execute("SELECT fingerprint FROM mutes").fetchall()
    db.close()
    # The expired ban's row stays until the next start deletes it.
    ok(sorted([("key", fa, 0, "seen cheating"), ("key", fc, 0, "cool off"), ("name", "mallory", 1, "impersonation")])
       == rows and mutes == [(fb,)], f"the store's tables: {rows} {mutes}")
    srv, port, log = start_server()
    ok(wait_log(log, r"2 bans and mutes in force|3 bans and mutes in force"), "the restart loads them")
    rc, out = admin("bans")
    ok(rc == 0 and out.count("\n") == 3, f"the same three after the restart: {out.strip().splitlines()}")
    good, said = refused(bot(port, "a", "Alice"), "seen cheating")
    ok(good, f"the banned key is still refused: {said!r}")
    rc, out = admin("unban", "key", fa)
    stop(srv)
    db = sqlite3.connect(STORE)
    left = db.execute("SELECT count(*) FROM bans WHERE kind = 'key'").fetchone()[0]
    db.close()
    ok(rc == 0 and left == 0, "an unban is gone from the store too, written before the server stopped, and the "
       "expired ban was deleted at the start")

    # Rows written by hand (`sqlite3 FILE`): one that is no ban stops the start, with its kind and target; a
    # reason with an escape in it is cleaned before anyone is shown it.
    db = sqlite3.connect(STORE)
    db.execute("INSERT INTO bans (kind, target, created, reason) VALUES ('addr', '10.0.0.1/8', 0, '')")
    db.execute("INSERT INTO bans (kind, target, created, reason) VALUES ('name', 'Gawain', 0, 'x\x1b[2Jy')")
    db.commit()
    r = subprocess.run([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", tmp + "/logs", "--store",
                        STORE, "--admin-socket", SOCK], env=env, capture_output=True, text=True, timeout=20)
    ok(r.returncode != 0 and "a row of addr whose target is not one ('10.0.0.1/8')" in r.stderr,
       f"a hand-made row that is no ban stops the start: {r.stderr.strip().splitlines()[-1:]}")
    db.execute("DELETE FROM bans WHERE kind = 'addr'")
    db.commit()
    db.close()
    srv, port, log = start_server()
    rc, out = admin("bans")
    ok(rc == 0 and "name Gawain permanent" in out and ": x[2Jy" in out and "\x1b" not in out,
       f"a stored reason cleaned of its escape: {out.strip().splitlines()}")
    stop(srv)
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    subprocess.run(["rm", "-rf", tmp])

print(f"1..{n}")
sys.exit(1 if failed or n == 0 else 0)
