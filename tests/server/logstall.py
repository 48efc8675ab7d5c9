#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# logstall: the reproduction, as a test. `wizwar server` with its stderr a FIFO that nobody reads
# (a stuck log shipper, a terminal paused with Ctrl-S), and thousands of connections from one address that
# each cost a log line: the pipe fills, and the server must still answer (a bot from another address gets
# its room), say how many lines it dropped once the log is read again, and stop on SIGTERM at once with
# the pipe full again. Before the log writer thread the loop blocked in write(2): no answer, and SIGTERM
# was never handled.
import fcntl
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time

W = sys.argv[1]
FLOOD = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
F_GETPIPE_SZ = 1032
tmp = tempfile.mkdtemp(prefix="wizwar-logstall.")
procs = []


def fail(why):
    print("FAIL: " + why)
    for p in procs:
        if p.poll() is None:
            p.kill()
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1)


def ok(what):
    print("ok - " + what)


def queued(fd):
    """Bytes in the pipe, read by nobody."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def writable(fd):
    p = select.poll()
    p.register(fd, select.POLLOUT)
    return bool(p.poll(0))


def wait_full(fd, size, secs):
    """Until a writer of the pipe would block (no free slot: poll says not writable)."""
    probe = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    end = time.time() + secs
    try:
        while time.time() < end:
            if not writable(probe):
                time.sleep(0.3)  # and still so: the server's writer is blocked in it
                if not writable(probe):
                    return queued(fd)
            time.sleep(0.05)
    finally:
        os.close(probe)
    fail("the log pipe did not fill (%d of %d bytes): the test would prove nothing" % (queued(fd), size))


def flood(port, n):
    """n connections from 127.0.0.2 (another address than the bot's): past the 16 an address may hold,
    each is dropped at once with a log line."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.connect(("127.0.0.1", port))
        socks.append(s)
    return socks


env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"))
fifo = os.path.join(tmp, "err.fifo")
os.mkfifo(fifo)
rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # held open, not read: the stuck reader
wfd = os.open(fifo, os.O_WRONLY)
pipe_size = fcntl.fcntl(rfd, F_GETPIPE_SZ)
# --handshakes-per-min 0: every refused connection is then a log line of its own (with the limit on, a
# flood from one address is said once), which is what fills the pipe here.
srv = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", os.path.join(tmp, "logs"),
                        "--handshakes-per-min", "0"], stdout=subprocess.PIPE, stderr=wfd, env=env, text=True)
procs.append(srv)
os.close(wfd)
m = re.search(r":(\d+)#", srv.stdout.readline())
if not m:
    fail("no join line from the server")
port = int(m.group(1))

socks = flood(port, FLOOD)
held = wait_full(rfd, pipe_size, 20)
ok("%d connections from one address: the log pipe is full (%d bytes in it) and nobody reads it" % (FLOOD, held))

bot = subprocess.Popen([W, "bot", "127.0.0.1:%d" % port, "--new-room", "--name", "late", "--games", "1"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
procs.append(bot)
t0 = time.time()
fcntl.fcntl(bot.stdout, fcntl.F_SETFL, os.O_NONBLOCK)
said = ""
while time.time() - t0 < 10 and not said.startswith("room "):
    try:
        said += bot.stdout.read() or ""
    except (BlockingIOError, TypeError):
        pass
    time.sleep(0.05)
if not said.startswith("room "):
    fail("a new player got no answer while the log pipe was full (bot said %r)" % said)
ok("a new player from another address got its room in %.2f s with the log pipe full" % (time.time() - t0))
bot.send_signal(signal.SIGTERM)
bot.wait(10)
for s in socks:
    s.close()

# Read the log again: what it held comes out, and the lines it could not hold are counted.
text = b""
t0 = time.time()
while time.time() - t0 < 10 and b"log lines dropped" not in text:
    try:
        text += os.read(rfd, 1 << 16)
    except BlockingIOError:
        time.sleep(0.02)
m = re.search(rb"(\d+) log lines dropped: the log \(stderr\) was not being read", text)
if not m:
    fail("no count of the dropped lines once the log was read (%d bytes read)" % len(text))
ok("the log read again says \"%s\"" % m.group(0).decode())

# Full again, then SIGTERM: the server stops at once (its log writer gives up after a second).
socks = flood(port, FLOOD)
wait_full(rfd, pipe_size, 20)
for s in socks:
    s.close()
t0 = time.time()
srv.send_signal(signal.SIGTERM)
try:
    rc = srv.wait(8)
except subprocess.TimeoutExpired:
    fail("SIGTERM with the log pipe full: the server did not stop within 8 s")
if rc != 0:
    fail("the server stopped with status %d" % rc)
ok("SIGTERM with the log pipe full: stopped in %.2f s, status 0" % (time.time() - t0))
os.close(rfd)
shutil.rmtree(tmp, ignore_errors=True)
