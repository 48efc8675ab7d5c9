#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""server/metrics: a real `wizwar server --metrics` scraped during a crowd of `wizwar bot` duels, its numbers checked
against each other and against what was done (commands grow, rooms are playing, a wrong password is a handshake failure
by reason); `wizwar status` through the admin socket; the HTTP endpoint and the admin socket fed hostile input (other
paths and methods, oversized and silent requests, too many at once; long lines, control bytes, a reader that does not
read, another user); the admin socket's folder and a non-loopback --metrics refused.

    metrics.py WIZWAR"""
import os, re, socket, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

W = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="wizwar-metrics-")
os.chmod(tmp, 0o700)
env = dict(os.environ, HOME=tmp, XDG_STATE_HOME=tmp + "/state")
procs = []
n = failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    return cond


def start_server(*extra):
    log = []
    p = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", tmp + "/logs",
                          "--password-file", tmp + "/pw", "--handshakes-per-min", "0", *extra], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    procs.append(p)
    port = mport = None
    for line in p.stderr:
        log.append(line)
        if m := re.search(r"metrics on .* \(port (\d+)\)", line):
            mport = int(m.group(1))
        if m := re.search(r"listening on .* port (\d+)", line):
            port = int(m.group(1))
        if port and (mport or "--metrics" not in extra):
            break
    threading.Thread(target=lambda: [log.append(l) for l in p.stderr], daemon=True).start()
    return p, port, mport, log


def scrape(mport):
    text = urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=5).read().decode()
    return text, {k: float(v) for k, v in re.findall(r"^(wizwar_\S+) (\S+)$", text, re.M)}


def http_raw(mport, data, wait=6.0):
    """Send bytes, return (what came back, seconds until the server closed)."""
    s = socket.create_connection(("127.0.0.1", mport), timeout=wait)
    t0 = time.monotonic()
    if data:
        s.sendall(data)
    got = b""
    try:
        while d := s.recv(65536):
            got += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return got, time.monotonic() - t0


def admin(path, data, read_until=b"ok\n", timeout=5):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # answered and closed before all was sent (busy, a line too long): what it said is still there
    got = b""
    try:
        while not got.endswith(read_until) and (d := s.recv(65536)):
            got += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return got.decode(errors="replace")


def status(sock, *extra):
    return subprocess.run([W, "status", "--socket", sock, *extra], env=env, capture_output=True, text=True, timeout=20)


try:
    with open(tmp + "/pw", "w") as f:
        f.write("crowd\n")
    sock = tmp + "/state/admin.sock"
    os.makedirs(tmp + "/state", mode=0o700)
    srv, port, mport, log = start_server("--metrics", "127.0.0.1:0", "--admin-socket", sock)
    ok(port and mport, f"server on port {port}, metrics on port {mport}")
    ok(os.stat(sock).st_mode & 0o777 == 0o600, f"the admin socket is 0600 ({oct(os.stat(sock).st_mode & 0o777)})")
    text, m0 = scrape(mport)
    families = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    ok(families and all(f.startswith("wizwar_") and (t != "counter" or f.endswith("_total")) for f, t in families)
       and len(re.findall(r"^# HELP wizwar_", text, re.M)) == len(families),
       f"{len(families)} families, each with HELP and TYPE, counters named _total")

    # The crowd: four rooms of two bots each, playing on and on.
    bots = []
    for i in range(4):
        a = subprocess.Popen([W, "bot", f"127.0.0.1:{port}", "--new-room", "--password-file", tmp + "/pw", "--think",
                              "10", "--name", f"a{i}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
        procs.append(a)
        code = None
        for line in a.stdout:
            if m := re.search(r"room (\S+):", line):
                code = m.group(1)
                break
        threading.Thread(target=lambda a=a: [None for _ in a.stdout], daemon=True).start()
        b = subprocess.Popen([W, "bot", f"127.0.0.1:{port}", "--room", code, "--password-file", tmp + "/pw",
                              "--think", "10", "--name", f"b{i}"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        procs.append(b)
        bots += [a, b]
    time.sleep(3)
    _, m1 = scrape(mport)
    time.sleep(3)
    _, m2 = scrape(mport)
    playing = m2['wizwar_rooms{state="playing"}'] + m2['wizwar_rooms{state="seat_held"}']
    ok(m2["wizwar_connections"] >= 8 and m2["wizwar_connections_joined"] >= 8,
       f"connections {m2['wizwar_connections']:.0f}, joined {m2['wizwar_connections_joined']:.0f}")
    ok(playing >= 1 and m2['wizwar_rooms{state="playing"}'] >= 1, f"rooms playing: {playing:.0f}")
    ok(sum(v for k, v in m2.items() if k.startswith("wizwar_rooms{")) == 4, "the four rooms, each in one state")
    ok(m2["wizwar_duels_started_total"] >= 4, f"duels started: {m2['wizwar_duels_started_total']:.0f}")
    ok(m2["wizwar_duels_finished_total"] <= m2["wizwar_duels_started_total"], "no more finished than started")
    ok(0 < m1["wizwar_commands_total"] < m2["wizwar_commands_total"],
       f"commands grow: {m1['wizwar_commands_total']:.0f}, then {m2['wizwar_commands_total']:.0f}")
    rate = (m2["wizwar_commands_total"] - m1["wizwar_commands_total"]) / 3
    ok(m2["wizwar_commands_per_second"] > 0, f"commands a second {m2['wizwar_commands_per_second']} (about {rate:.1f})")
    ok(m1["wizwar_received_bytes_total"] < m2["wizwar_received_bytes_total"] and
       m1["wizwar_sent_bytes_total"] < m2["wizwar_sent_bytes_total"] and
       m2["wizwar_sent_bytes_total"] > m2["wizwar_received_bytes_total"], "bytes in and out grow (more out)")
    ok(m2["wizwar_handshakes_welcomed_total"] >= 8 and m2["wizwar_handshakes_total"] >=
       m2["wizwar_handshakes_welcomed_total"] + sum(v for k, v in m2.items() if k.startswith("wizwar_handshake_failures")),
       f"handshakes {m2['wizwar_handshakes_total']:.0f} >= {m2['wizwar_handshakes_welcomed_total']:.0f} joined + failures")
    ok(m2["wizwar_uptime_seconds"] >= m1["wizwar_uptime_seconds"] + 2.5 > 5, "uptime grows")

    r = subprocess.run([W, "bot", f"127.0.0.1:{port}", "--new-room", "--reconnect", "1"], env=dict(env,
                       WIZWAR_PASSWORD="not the password"), capture_output=True, text=True, timeout=30)
    time.sleep(0.3)
    _, m3 = scrape(mport)
    key = 'wizwar_handshake_failures_total{reason="wrong_password"}'
    ok(r.returncode == 1 and m3[key] == m2[key] + 1, f"a wrong password is one more wrong_password failure ({m3[key]:.0f})")

    st = status(sock)
    out = st.stdout
    ok(st.returncode == 0 and re.search(r"^rooms: 4: .* (\d+) playing", out, re.M) and
       int(re.search(r"(\d+) playing", out).group(1)) >= 1, "wizwar status: the rooms and how many play\n# " +
       out.replace("\n", "\n# "))
    for what in ("uptime:", "connections:", "duels:", "commands: ", "handshakes:", "handshake failures: wrong_password 1",
                 "limits hit:", "bytes:", "log writer:"):
        if not ok(what in out, f"wizwar status says '{what}'"):
            break
    st = status(sock, "--prometheus")
    ok(st.returncode == 0 and "# TYPE wizwar_commands_total counter" in st.stdout, "wizwar status --prometheus")
    st = status(tmp + "/nothing.sock")
    ok(st.returncode == 1 and "no server answers" in st.stderr, "no server there: exit 1 and why")

    # The HTTP endpoint, hostile.
    got, _ = http_raw(mport, b"GET /other HTTP/1.1\r\nHost: x\r\n\r\n")
    ok(got.startswith(b"HTTP/1.0 404 "), "another path: 404")
    got, _ = http_raw(mport, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    ok(got.startswith(b"HTTP/1.0 405 "), "another method: 405")
    got, _ = http_raw(mport, b"\x00\xff\x16garbage\r\n\r\n")
    ok(got.startswith(b"HTTP/1.0 400 "), "garbage: 400")
    got, _ = http_raw(mport, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 4000)
    ok(got.startswith(b"HTTP/1.0 431 "), "a request past the cap: 431")
    silent = [socket.create_connection(("127.0.0.1", mport)) for _ in range(8)]
    got, took = http_raw(mport, b"", wait=3)
    ok(got == b"" and took < 1, f"past 8 at once, a connection is closed at once ({took:.2f} s)")
    t0 = time.monotonic()
    for s in silent:
        s.settimeout(8)
        s.recv(1)
    took = time.monotonic() - t0
    ok(4 < took < 7.5, f"a silent one is closed at the 5 s deadline ({took:.1f} s after)")
    for s in silent:
        s.close()

    # The admin socket, hostile.
    got = admin(sock, b"x" * 600, read_until=b"\n")
    ok(got.startswith("error: a line longer than 512 bytes"), "a line too long: " + got.strip())
    got = admin(sock, b"sta\x01tus\nhelp\n")
    ok(got.startswith("error: a control character") and got.endswith("ok\n") and "- status" in got,
       "a control byte: an error line, and the next line is answered")
    got = admin(sock, b"\n\xff\xfe\nnope\n", read_until=b"'nope' (`help` lists the commands)\n")
    ok(got.count("error: ") == 3, "an empty line, bytes, an unknown name: an error each")
    # A reader that never reads: the server closes it at its cap, and others are answered meanwhile.
    hog = socket.socket(socket.AF_UNIX)
    hog.connect(sock)
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    hog.settimeout(0.2)
    try:
        for _ in range(3000):
            hog.sendall(b"metrics\n")
    except (socket.timeout, BrokenPipeError, ConnectionResetError):
        pass
    t0 = time.monotonic()
    st = status(sock)
    ok(st.returncode == 0 and time.monotonic() - t0 < 3, f"a reader that does not read stalls no one ({time.monotonic() - t0:.2f} s)")
    hog.close()
    held = []
    for _ in range(8):
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        held.append(s)
    got = admin(sock, b"status\n", read_until=b"\n")
    ok(got.startswith("error: busy"), "past 8 admin clients at once: busy")
    for s in held:
        s.close()
    if os.geteuid() == 0:
        os.chmod(sock, 0o666)
        os.chmod(tmp, 0o711)
        os.chmod(tmp + "/state", 0o711)
        pid = os.fork()
        if pid == 0:
            os.setgid(65534)
            os.setuid(65534)
            try:
                os._exit(0 if admin(sock, b"status\n", read_until=b"\n").startswith("error: permission denied") else 1)
            except Exception:
                os._exit(2)
        _, code = os.waitpid(pid, 0)
        os.chmod(sock, 0o600)
        os.chmod(tmp, 0o700)
        os.chmod(tmp + "/state", 0o700)
        ok(code == 0, "another user (nobody) who gets past the file's mode is refused by SO_PEERCRED")
    else:
        ok(True, "# SKIP another user: not root")

    # Refusals at the start.
    os.makedirs(tmp + "/open", mode=0o777)
    os.chmod(tmp + "/open", 0o777)
    r = subprocess.run([W, "server", "--port", "0", "--admin-socket", tmp + "/open/admin.sock"], env=env,
                       capture_output=True, text=True, timeout=20)
    ok(r.returncode == 1 and "not this user's own folder" in r.stderr, "a folder others may write to: refused")
    r = subprocess.run([W, "server", "--port", "0", "--admin-socket", sock], env=env, capture_output=True, text=True,
                       timeout=20)
    ok(r.returncode == 1 and "another server answers" in r.stderr, "a socket another server answers on: refused")
    r = subprocess.run([W, "server", "--port", "0", "--admin-socket", "none", "--metrics", "0.0.0.0:0"], env=env,
                       capture_output=True, text=True, timeout=20)
    ok(r.returncode == 1 and "not a loopback address" in r.stderr and "--metrics-public" in r.stderr,
       "--metrics on 0.0.0.0: refused, saying how to force it")
    print(f"1..{n}")
finally:
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
sys.exit(1 if failed else 0)
