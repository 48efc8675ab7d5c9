#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""server/haproxy: Debian's haproxy in front of a real `wizwar server --trusted-proxy 127.0.0.1/32`, sending the PROXY
protocol v2 (with LOCAL health checks). Two clients come through it from two source addresses, 127.0.0.2 (a stranger
with a wrong password) and 127.0.0.3: the stranger's wrong passwords lock out the stranger only, and the other still
joins and plays a whole duel; the server's log and metrics name the real addresses. A second server without
--trusted-proxy behind the same haproxy refuses the PROXY header as a bad handshake.

    haproxy.py WIZWAR [HAPROXY]

The clients are real `wizwar bot`s; each reaches haproxy through a small relay of this script that connects from the
source address it stands for (on Linux all of 127/8 is this machine), so haproxy sees two distinct clients.
haproxy is stopped in every case (finally, and on SIGTERM). Exit 77 when haproxy is not installed."""
import os, re, signal, socket, subprocess, sys, tempfile, threading, time, urllib.request

W = sys.argv[1]
HAPROXY = sys.argv[2] if len(sys.argv) > 2 else "/usr/sbin/haproxy"
if not os.access(HAPROXY, os.X_OK):
    print(f"1..0 # SKIP {HAPROXY} is not installed (apt-get install haproxy)")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="wizwar-haproxy-")
env = dict(os.environ, HOME=tmp, XDG_STATE_HOME=tmp + "/state")
procs = []
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    return cond


def stop_all(*_):
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
    if _:
        sys.exit(1)


signal.signal(signal.SIGTERM, stop_all)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    """A `wizwar server` on 127.0.0.1; its stderr kept (a reader thread) for the log checks."""

    def __init__(self, name, *extra):
        self.log = []
        d = f"{tmp}/{name}"
        os.makedirs(d, mode=0o700)
        self.p = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", d,
                                   "--admin-socket", f"{d}/admin.sock", "--metrics", "0", "--password-file",
                                   f"{tmp}/right", *extra], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        procs.append(self.p)
        self.port = self.metrics = None
        for line in self.p.stderr:
            self.log.append(line)
            if m := re.search(r"metrics on .* \(port (\d+)\)", line):
                self.metrics = int(m.group(1))
            if m := re.search(r"listening on .* port (\d+)", line):
                self.port = int(m.group(1))
            if self.port and self.metrics:
                break
        assert self.port and self.metrics, "".join(self.log)
        threading.Thread(target=lambda: [self.log.append(l) for l in self.p.stderr], daemon=True).start()

    def scrape(self):
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics}/metrics", timeout=5).read().decode()
        return {k: float(v) for k, v in re.findall(r"^(wizwar_\S+) (\S+)$", text, re.M)}


def relay(src, dst_port):
    """127.0.0.1:PORT that forwards each connection to haproxy from the address src."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)

    def pump(a, b):
        try:
            while d := a.recv(65536):
                b.sendall(d)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def serve():
        while True:
            c, _ = ls.accept()
            u = socket.socket()
            u.bind((src, 0))
            u.connect(("127.0.0.1", dst_port))
            threading.Thread(target=pump, args=(c, u), daemon=True).start()
            threading.Thread(target=pump, args=(u, c), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return ls.getsockname()[1]


def bot(port, *args, password="right", key="stranger", timeout=60):
    # Each client a key of its own (`--key`): a server counts wrong passwords per key as well as per address.
    return subprocess.run([W, "bot", f"127.0.0.1:{port}", "--password-file", f"{tmp}/{password}", "--think", "0",
                           "--reconnect", "1", "--key", f"{tmp}/{key}.key", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


try:
    print("1..15", flush=True)
    with open(f"{tmp}/right", "w") as f:
        f.write("the right one\n")
    with open(f"{tmp}/wrong", "w") as f:
        f.write("not it\n")
    trusting = Server("trusting", "--trusted-proxy", "127.0.0.1/32")
    plain = Server("plain")
    hp, hp1, hp2 = free_port(), free_port(), free_port()
    cfg = f"{tmp}/haproxy.cfg"
    with open(cfg, "w") as f:
        f.write(f"""global
    maxconn 256
defaults
    mode tcp
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend trusting
    bind 127.0.0.1:{hp}
    default_backend trusting
backend trusting
    server s1 127.0.0.1:{trusting.port} send-proxy-v2 check check-send-proxy inter 300
frontend trusting_v1
    bind 127.0.0.1:{hp1}
    default_backend trusting_v1
backend trusting_v1
    server s3 127.0.0.1:{trusting.port} send-proxy
frontend plain
    bind 127.0.0.1:{hp2}
    default_backend plain
backend plain
    server s2 127.0.0.1:{plain.port} send-proxy-v2
""")
    hap = subprocess.Popen([HAPROXY, "-db", "-f", cfg], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    procs.append(hap)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", hp), timeout=1).close()
            socket.create_connection(("127.0.0.1", hp2), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    ok(hap.poll() is None, f"haproxy runs ({HAPROXY}, frontends on ports {hp} and {hp2})")
    stranger, other = relay("127.0.0.2", hp), relay("127.0.0.3", hp)

    # Five wrong passwords from the stranger, then even the right one is refused: locked out.
    wrong = [bot(stranger, "--new-room", password="wrong") for _ in range(5)]
    ok(all(r.returncode == 1 and "wrong password" in r.stderr for r in wrong),
       "the stranger's five wrong passwords are refused: " + wrong[-1].stderr.strip()[-120:])
    r = bot(stranger, "--new-room")
    ok(r.returncode == 1 and "too many wrong passwords" in r.stderr,
       "the stranger is locked out, even with the right password: " + r.stderr.strip()[-120:])

    # The other client, through the same proxy: joins and plays a whole duel.
    a = subprocess.Popen([W, "bot", f"127.0.0.1:{other}", "--new-room", "--password-file", f"{tmp}/right",
                          "--think", "0", "--games", "1", "--name", "alice", "--key", f"{tmp}/alice.key"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    procs.append(a)
    code = None
    for line in a.stdout:
        if m := re.search(r"room (\S+):", line):
            code = m.group(1)
            break
    ok(code is not None, f"the other client makes room {code} through the proxy")
    b = bot(other, "--room", code or "none", "--games", "1", "--name", "bob", key="bob", timeout=120)
    a.wait(120)
    ok(b.returncode == 0 and a.returncode == 0, f"and plays a whole duel there (exit {a.returncode}, {b.returncode})"
       + (b.stderr[-200:] if b.returncode else ""))

    time.sleep(0.5)
    log = "".join(trusting.log)
    ok(re.search(r"peer=127\.0\.0\.2:\d+( key=[a-z2-7]{26})? dropped: authentication failed \(wrong password\)", log) is not None,
       "the server's log names the stranger's own address")
    ok("127.0.0.3:" in log and re.search(r"peer=127\.0\.0\.3:\d+( key=[a-z2-7]{26})? room \S+ created", log) is not None,
       "and the other's, not haproxy's")
    ok(not re.search(r"peer=127\.0\.0\.1:\d+( key=[a-z2-7]{26})? dropped", log), "no line blames haproxy's own address")
    # The text form (v1, haproxy's send-proxy, what nginx's stream module sends) from a third address.
    v1 = relay("127.0.0.4", hp1)
    c = subprocess.Popen([W, "bot", f"127.0.0.1:{v1}", "--new-room", "--password-file", f"{tmp}/right", "--name",
                          "carol", "--key", f"{tmp}/carol.key"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    procs.append(c)
    line = c.stdout.readline()
    c.terminate()
    time.sleep(0.3)
    ok("room " in line and re.search(r"peer=127\.0\.0\.4:\d+( key=[a-z2-7]{26})? room \S+ created", "".join(trusting.log)) is not None,
       "a PROXY v1 line (send-proxy) names its client too")
    m = trusting.scrape()
    wp = m.get('wizwar_handshake_failures_total{reason="wrong_password"}', 0)
    ok(wp >= 6, f"metrics: {wp:.0f} wrong_password failures")
    ok(m.get('wizwar_limit_hits_total{limit="wrong_passwords"}', 0) >= 1, "metrics: the lockout is a limit hit")
    ok(m.get("wizwar_proxied_connections_total", 0) >= 8,
       f"metrics: {m.get('wizwar_proxied_connections_total')} connections came with a client address")
    ok(m.get('wizwar_handshake_failures_total{reason="proxy"}', 1) == 0,
       "haproxy's LOCAL health checks are taken, not counted as failures")

    # The server that trusts nobody: haproxy's header is a bad handshake.
    r = bot(hp2, "--new-room")
    ok(r.returncode == 1 and "not a trusted proxy" in r.stderr,
       "without --trusted-proxy a PROXY header is refused: " + r.stderr.strip()[-120:])
    time.sleep(0.3)
    ok(plain.scrape().get('wizwar_handshake_failures_total{reason="proxy"}', 0) >= 1,
       "and counted as a proxy failure")
finally:
    stop_all()
sys.exit(1 if failed else 0)
