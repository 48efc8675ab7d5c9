#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bytes: what whole duels between normal bots cost on the wire, from a real capture.

    bytes.py WIZWAR [DUELS] [--parallel N] [--think MS]

Starts `WIZWAR server` on 127.0.0.1, captures its port on lo with tcpdump, and plays DUELS
duels (default 32), each between two `WIZWAR bot --level normal --games 1` processes in a
room of their own, N duels at a time (default 8). A duel is its two connections, SYN to FIN,
both ways. For each duel it counts the TCP payload, the bytes of the IP packets (IP and TCP
headers included: what crosses a network, less the link layer), the packets, and, reading
the streams back (the clear HELLO or CHALLENGE, then records: 2 length bytes and a 16-byte
tag around the frames), what the same records' plaintext would be in clear (since protocol 6
that includes each record's padding, which a capture cannot tell from the frames). Prints the median, minimum
and maximum of each; docs/benchmarks.md ("Bytes per duel") has the figures.

Needs tcpdump and the right to capture (root).
"""
import os, re, shutil, signal, statistics, struct, subprocess, sys, tempfile, time

W = sys.argv[1]
args = [a for a in sys.argv[2:] if not a.startswith("--")]
opt = dict(a[2:].split("=", 1) for a in sys.argv[2:] if a.startswith("--") and "=" in a)
DUELS = int(args[0]) if args else 32
PAR = int(opt.get("parallel", "8"))
THINK = opt.get("think", "250")
TAG = 16


def start_server(tmp):
    env = dict(os.environ, XDG_STATE_HOME=tmp + "/state")
    p = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", tmp + "/logs"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    port = fp = None
    while port is None:
        line = p.stderr.readline()
        if not line:
            sys.exit("bytes: the server did not start")
        m = re.search(r"fingerprint (\w+)", line)
        fp = m.group(1) if m else fp
        m = re.search(r"port (\d+)", line)
        port = int(m.group(1)) if m else None
    return p, port, fp


def client_ports(pids, port):
    """The local port of each process's connection to the server (ss -tnp)."""
    out = subprocess.run(["ss", "-tnpH", "state", "all", f"( dport = :{port} )"], capture_output=True,
                         text=True).stdout
    got = {}
    for line in out.splitlines():
        m = re.search(r"127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:%d.*pid=(\d+)" % port, line)
        if m and int(m.group(2)) in pids:
            got[int(m.group(2))] = int(m.group(1))
    return got


def play(port, fp, tmp, seed):
    env = dict(os.environ, XDG_STATE_HOME=tmp + "/state")
    base = [W, "bot", f"127.0.0.1:{port}#{fp}", "--level", "normal", "--games", "1", "--think", THINK]
    a = subprocess.Popen(base + ["--new-room", "--seed", str(seed), "--name", f"a{seed}"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env)
    code = None
    while code is None:
        line = a.stdout.readline()
        if not line:
            sys.exit("bytes: the first bot made no room")
        m = re.match(r"room (\S+):", line)
        code = m.group(1) if m else None
    b = subprocess.Popen(base + ["--room", code, "--seed", str(seed + 100000), "--name", f"b{seed}"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    ports = {}
    for _ in range(200):
        ports = client_ports({a.pid, b.pid}, port)
        if len(ports) == 2:
            break
        time.sleep(0.02)
    if len(ports) != 2:
        sys.exit("bytes: cannot find the bots' connections")
    return a, b, set(ports.values())


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack("<I", data[:4])
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    link = struct.unpack(end + "I", data[20:24])[0]
    skip = {1: 14, 113: 16, 276: 20}[link]
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip = pkt[skip:]
        if not ip or ip[0] >> 4 != 4:
            continue
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:]
        sport, dport, seq = struct.unpack(">HHI", tcp[:8])
        doff = (tcp[12] >> 4) * 4
        flags = tcp[13]
        yield sport, dport, seq, flags, total, ip[ihl + doff:total]


def records_clear(stream):
    """The clear frame first (HELLO or CHALLENGE), then records: returns (records, bytes in clear)."""
    if not stream:
        return 0, 0
    n = stream[1] & 0x7f
    i = 2
    if stream[1] & 0x80:
        n |= stream[2] << 7
        i = 3
    pos, recs, clear = i + n, 0, i + n
    while pos + 2 <= len(stream):
        ln = struct.unpack(">H", stream[pos:pos + 2])[0]
        if pos + 2 + ln > len(stream):
            break
        recs += 1
        clear += ln - TAG
        pos += 2 + ln
    if pos != len(stream):
        raise SystemExit(f"bytes: a stream does not end on a record ({pos} of {len(stream)})")
    return recs, clear


def main():
    if shutil.which("tcpdump") is None or os.geteuid() != 0:
        print("bytes: skipped: needs tcpdump (apt-get install tcpdump) and root to capture on lo")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="wizwar-bytes-")
    os.makedirs(tmp + "/logs")
    srv, port, fp = start_server(tmp)
    pcap = tmp + "/lo.pcap"
    dump = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "-s", "0", "-w", pcap, f"tcp port {port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while "listening" not in dump.stderr.readline():
        pass
    duels = []
    seed = 1
    try:
        while len(duels) < DUELS:
            wave = []
            for _ in range(min(PAR, DUELS - len(duels))):
                wave.append(play(port, fp, tmp, seed))
                seed += 1
            for a, b, ports in wave:
                a.wait()
                b.wait()
                duels.append(ports)
        time.sleep(2)
    finally:  # never leave the capture or the server running, whatever stopped the run
        dump.send_signal(signal.SIGINT)
        dump.wait()
        srv.send_signal(signal.SIGTERM)
        srv.wait()
    conn = {}
    for sport, dport, seq, flags, total, payload in read_pcap(pcap):
        cport, up = (sport, True) if dport == port else (dport, False)
        c = conn.setdefault(cport, {"pkts": 0, "ip": 0, "payload": 0, "syn": False, "fin": 0, "seg": ([], [])})
        c["pkts"] += 1
        c["ip"] += total
        c["payload"] += len(payload)
        c["syn"] |= bool(flags & 2) and up
        c["fin"] += bool(flags & 1)
        c["rst"] = c.get("rst", 0) + bool(flags & 4)
        if payload:
            c["seg"][0 if up else 1].append((seq, payload))
    rows = []
    partial = 0
    for ports in duels:
        r = {"payload": 0, "ip": 0, "pkts": 0, "records": 0, "clear": 0, "up": 0}
        if any(p not in conn or not conn[p]["syn"] or conn[p]["fin"] + conn[p]["rst"] == 0 for p in ports):
            partial += 1  # its SYN or its end is not in the capture: left out
            continue
        for p in ports:
            c = conn[p]
            for k in ("payload", "ip", "pkts"):
                r[k] += c[k]
            for way, segs in enumerate(c["seg"]):
                segs.sort()
                stream, nxt = bytearray(), None
                for seq, d in segs:
                    if nxt is None or seq == nxt:
                        stream += d
                        nxt = seq + len(d)
                    elif seq < nxt:  # a retransmission
                        stream += d[nxt - seq:] if seq + len(d) > nxt else b""
                        nxt = max(nxt, seq + len(d))
                recs, clear = records_clear(bytes(stream))
                r["records"] += recs
                r["up"] += recs if way == 0 else 0
                r["clear"] += clear
        rows.append(r)
    print(f"bytes: {len(rows)} duels of normal bots (think {THINK} ms), two connections each, SYN to FIN both ways"
          + (f"; {partial} left out, not captured whole" if partial else ""))
    for k, what in (("payload", "TCP payload"), ("ip", "IP packets (TCP/IP headers included)"), ("pkts", "packets"),
                    ("records", "records"), ("up", "records from the clients"), ("clear", "the same frames in clear (no record headers or tags)")):
        v = [r[k] for r in rows]
        print(f"  {what}: median {statistics.median(v):,.0f}, min {min(v):,}, max {max(v):,}")
    ratio = [r["payload"] / r["clear"] for r in rows]
    print(f"  encrypted / clear: median {statistics.median(ratio):.3f}")
    # Duels differ in length (the server picks each level at random): per client record
    # (a command, or one of the few lobby messages) they compare across runs.
    for k, what in (("payload", "TCP payload"), ("ip", "IP bytes"), ("pkts", "packets"), ("records", "records")):
        v = [r[k] / r["up"] for r in rows if r["up"]]
        print(f"  {what} per record from a client: median {statistics.median(v):.2f}")
    if "rows" in opt:
        with open(opt["rows"], "w") as f:
            for r in rows:
                print(" ".join(f"{k}={v}" for k, v in r.items()), file=f)
    shutil.rmtree(tmp)


main()
