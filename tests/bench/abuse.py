#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abuse: what strangers can do to a `wizwar server`, measured on loopback: room squatting, room guessing,
and a flood of deflated frames made of empty blocks, with another room's round trip measured meanwhile.

    abuse.py WIZWAR [--old] [--proto=N] [flood|guessing|squatting]...
      --old: the server before rooms on request (no create bit in HELLO); --proto: its protocol version

Prints one line per figure; docs/benchmarks.md, "Strangers", has them before and after.
"""
import os, socket, statistics, struct, subprocess, sys, threading, time, zlib, re

W = sys.argv[1]
OLD = "--old" in sys.argv
PROTO = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--proto=")), "3"))
RULES = int(re.search(r"rules (\d+)", subprocess.run([W, "--version"], capture_output=True, text=True).stdout).group(1))


def server(*extra):
    p = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", "/tmp/abuse-logs", *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    port = int(re.search(r"port (\d+)", line).group(1))
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, port


class Peer:
    def __init__(self, port, src="127.0.0.1"):
        self.s = socket.socket()
        self.s.bind((src, 0))
        self.s.connect(("127.0.0.1", port))
        self.s.settimeout(5)
        self.buf = b""
        self.inf = zlib.decompressobj(-15)

    def send(self, t, payload):
        n = len(payload)
        hdr = bytes([t, n]) if n < 128 else bytes([t, (n & 0x7F) | 0x80, n >> 7])
        self.s.sendall(hdr + payload)

    def frame(self):
        while True:
            if len(self.buf) >= 2:
                n, hl = self.buf[1], 2
                if n & 0x80:
                    if len(self.buf) < 3:
                        n = None
                    else:
                        n, hl = (n & 0x7F) | (self.buf[2] << 7), 3
                if n is not None and len(self.buf) >= hl + n:
                    t, p = self.buf[0], self.buf[hl:hl + n]
                    self.buf = self.buf[hl + n:]
                    if t & 0x80:
                        p = self.inf.decompress(p + b"\x00\x00\xff\xff")
                    return t & 0x7F, p
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d

    def join(self, name, room, create=True):
        role = 0x80 if create and not OLD else 0
        self.send(0x10, struct.pack(">IHHB", 0x575A5752, PROTO, RULES, role) + bytes([len(name)]) + name.encode()
                  + bytes([len(room)]) + room.encode())
        t, _ = self.frame()                         # CHALLENGE
        self.send(0x12, bytes(32))                  # AUTH, no password
        while True:
            t, p = self.frame()
            if t == 0x13:
                return True
            if t == 0x41:                           # ERROR: code u16, fatal u8, str8
                return struct.unpack(">H", p[:2])[0]

    def close(self):
        self.s.close()


def rtt_room(port, stop, out):
    """Two players in a room; one toggles READY and waits for the LOBBY, again and again."""
    a = Peer(port)
    b = Peer(port)
    a.join("rtt-a", "rtt-room")
    b.join("rtt-b", "rtt-room")
    ready = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        ready ^= 1
        a.send(0x22, bytes([ready]))                # READY on, off, on: each answered by a LOBBY
        try:
            while True:
                t, p = a.frame()
                if t == 0x20:
                    break
        except (EOFError, OSError):
            return
        out.append(time.perf_counter() - t0)
        time.sleep(0.005)


def flood():
    p, port = server()
    try:
        base, stop = [], threading.Event()
        th = threading.Thread(target=rtt_room, args=(port, stop, base))
        th.start()
        time.sleep(2)
        stop.set()
        th.join()
        during, stop = [], threading.Event()
        th = threading.Thread(target=rtt_room, args=(port, stop, during))
        th.start()
        # Empty stored blocks (16000 bytes that inflate to nothing), ending as a sync flush does
        # once its 4-byte tail is left off.
        frame = b"\x00\x00\x00\xff\xff" * 3199 + b"\x00"
        sent, t0, joins, drops = 0, time.perf_counter(), 0, 0
        while time.perf_counter() - t0 < 3:
            # Flood; when dropped, come back and flood again, as an attacker would.
            try:
                f = Peer(port)
                if f.join("flooder", f"flood-{joins}") is not True:
                    f.close()
                    continue
                joins += 1
                f.s.settimeout(0.5)
                while time.perf_counter() - t0 < 3:
                    f.send(0x42 | 0x80, frame)
                    sent += len(frame) + 3
            except OSError:
                drops += 1
            f.close()
        alive = drops == 0
        lived = time.perf_counter() - t0
        stop.set()
        th.join()
        print(f"empty-block flood: {sent / lived / 1e6:.1f} MB/s sent over {lived:.2f} s "
              f"({joins} connections, {drops} dropped); another room's round trip (READY to LOBBY): median "
              f"{statistics.median(base) * 1e3:.2f} ms before, {statistics.median(during) * 1e3:.2f} ms during "
              f"({len(during)} round trips)")
    finally:
        p.kill()


def guessing():
    p, port = server()
    try:
        tried, answered, limited, t0 = 0, 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < 3:
            g = Peer(port)
            code = g.join("guess", f"g{tried}", create=False)
            tried += 1
            if code is True:
                answered += 1                        # joined: a room existed (or was made) under that name
            elif code == 109:
                limited += 1
            g.close()
        lived = time.perf_counter() - t0
        print(f"room guessing: {tried / lived:.0f} codes tried per second; {answered} let in, "
              f"{limited} refused for guessing too much")
    finally:
        p.kill()


def squatting():
    extra = [] if OLD else ["--lobby-idle", "5"]
    p, port = server(*extra)
    try:
        squat = []
        for a in range(16):
            for k in range(16):
                s = Peer(port, f"127.0.{a + 1}.1")
                s.join(f"sq{k}", f"sq-{a}-{k}")
                s.s.setblocking(False)
                squat.append(s)
        def beat():
            for s in squat:
                try:
                    s.s.send(b"\x42\x00")
                    s.s.recv(65536)
                except OSError:
                    pass
        t0 = time.perf_counter()
        held = None
        while time.perf_counter() - t0 < 12:
            beat()
            time.sleep(1)
        n = Peer(port)
        code = n.join("latecomer", "late-room")
        alive = 0
        for s in squat:
            try:
                s.s.send(b"\x42\x00")
                d = s.s.recv(65536)
                alive += 1 if d != b"" else 0
            except BlockingIOError:
                alive += 1
            except OSError:
                pass
        print(f"squatting: 16 addresses x 16 connections, one HEARTBEAT each a second: after 12 s "
              f"{alive} of 256 still connected; a new room for someone else: "
              f"{'made' if code is True else 'refused (code %d)' % code}")
    finally:
        p.kill()


os.makedirs("/tmp/abuse-logs", exist_ok=True)
which = [a for a in sys.argv[2:] if not a.startswith("--")] or ["flood", "guessing", "squatting"]
for w in which:
    globals()[w]()
