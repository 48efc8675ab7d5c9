#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""eavesdrop: what someone who watches one player's link learns from record sizes and times alone.

    eavesdrop.py WIZWAR [DUELS] [--parallel N] [--think MS]

Starts `WIZWAR server` on 127.0.0.1 and plays DUELS duels (default 20) between two
`WIZWAR bot --level normal --games 1` processes, N at a time (default 4), each duel through
a relay of its own that passes every byte on and notes, per direction, when each record
(2 length bytes and what they count, docs/protocol.md "Records") crossed it and how long it
was. That is all an eavesdropper on the path sees (no key is used here). The truth to score
it against comes from the duel's turn log, narrated by `WIZWAR replay --text` (who did what,
with which spell, from which square). Reported, for the player whose link is watched:

- own command type and spell from the length of the record that carried the command, and
  from the lengths of the records the server sent back for it;
- the opponent's command type and spell from the records the server sent the watched
  player after each opponent command (none, or their lengths);
- timing: how often an opponent's step sent the watched player a record at all, by the
  distance between the two wizards after the step (the server sends nothing when a view
  does not change, so a record means "you were seen").

Each guess is the best an attacker can do from these observations: the most frequent truth
for each observed value, scored on the same duels (an upper bound), next to the base rate
(always guessing the most frequent truth). docs/protocol.md ("What records still tell")
has the figures.
"""
import asyncio, collections, glob, gzip, os, re, signal, subprocess, sys, tempfile, time

W = sys.argv[1]
args = [a for a in sys.argv[2:] if not a.startswith("--")]
opt = dict(a[2:].split("=", 1) for a in sys.argv[2:] if a.startswith("--") and "=" in a)
DUELS = int(args[0]) if args else 20
PAR = int(opt.get("parallel", "4"))
THINK = opt.get("think", "150")


class Link:
    """One relayed connection: each direction's records as (time, length), after the clear frame."""

    def __init__(self):
        self.rec = {0: [], 1: []}   # 0: client to server, 1: server to client
        self.buf = {0: b"", 1: b""}
        self.clear = {0: True, 1: True}

    def take(self, d, data, t):
        b = self.buf[d] + data
        while True:
            if self.clear[d]:
                if len(b) < 2:
                    break
                n, h = b[1], 2
                if n & 0x80:
                    if len(b) < 3:
                        break
                    n, h = (n & 0x7f) | b[2] << 7, 3
                if len(b) < h + n:
                    break
                b = b[h + n:]
                self.clear[d] = False
                continue
            if len(b) < 2:
                break
            n = int.from_bytes(b[:2], "big")
            if len(b) < 2 + n:
                break
            self.rec[d].append((t, n))
            b = b[2 + n:]
        self.buf[d] = b


async def pipe(r, w, link, d):
    try:
        while True:
            data = await r.read(65536)
            if not data:
                break
            link.take(d, data, time.monotonic())
            w.write(data)
            await w.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        w.close()


async def relay(target, links):
    async def on_conn(cr, cw):
        link = Link()
        links.append(link)
        sr, sw = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(cr, sw, link, 0), pipe(sr, cw, link, 1))
    srv = await asyncio.start_server(on_conn, "127.0.0.1", 0)
    return srv, srv.sockets[0].getsockname()[1]


async def start_server(tmp):
    env = dict(os.environ, XDG_STATE_HOME=tmp + "/state")
    p = await asyncio.create_subprocess_exec(W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir",
                                             tmp + "/logs", stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE, env=env)
    port = fp = None
    while port is None:
        line = (await p.stderr.readline()).decode()
        if not line:
            sys.exit("eavesdrop: the server did not start")
        m = re.search(r"fingerprint (\w+)", line)
        fp = m.group(1) if m else fp
        m = re.search(r"port (\d+)", line)
        port = int(m.group(1)) if m else None

    async def drain():
        while await p.stderr.readline():
            pass
    asyncio.ensure_future(drain())
    return p, port, fp


async def duel(port, fp, tmp, seed):
    links = []
    srv, rport = await relay(port, links)
    env = dict(os.environ, XDG_STATE_HOME=tmp + "/state")
    base = [W, "bot", f"127.0.0.1:{rport}#{fp}", "--level", "normal", "--games", "1", "--think", THINK]
    a = await asyncio.create_subprocess_exec(*base, "--new-room", "--seed", str(seed), "--name", f"a{seed}",
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    code = None
    while code is None:
        line = (await a.stdout.readline()).decode()
        if not line:
            sys.exit("eavesdrop: the first bot made no room")
        m = re.match(r"room (\S+):", line)
        code = m.group(1) if m else None
    b = await asyncio.create_subprocess_exec(*base, "--room", code, "--seed", str(seed + 100000), "--name",
                                             f"b{seed}", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             env=env)
    await a.stdout.read()
    await a.wait()
    await b.wait()
    await asyncio.sleep(0.3)
    srv.close()
    return {"a": links[0], "b": links[1]} if len(links) == 2 else None


def narrate(tmp, seed):
    """(names by player index, commands: (player, type, spell or None, (x, y) after it or None))."""
    for path in glob.glob(tmp + "/logs/**", recursive=True):
        if not os.path.isfile(path):
            continue
        opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
        with opener(path, "rt", errors="replace") as f:
            text = f.read()
        names = dict(re.findall(r"^player (\d) (.+)$", text, re.M))
        if sorted(names.values()) != sorted([f"a{seed}", f"b{seed}"]):
            continue
        out = subprocess.run([W, "replay", "--text", path], capture_output=True, text=True).stdout
        cmds, offered = [], None
        for line in out.splitlines():
            m = re.match(r"turn \d+: P\d to move, offered (.*)$", line)
            if m:
                offered = m.group(1).split(", ")
                continue
            m = re.match(r"  P([12]) (\w+)(.*)$", line)
            if not m:
                continue
            who, verb, rest = int(m.group(1)) - 1, m.group(2), m.group(3)
            spell = None
            if verb == "casts":
                s = re.search(r"slot (\d)", rest)
                spell = offered[int(s.group(1)) - 1] if s and offered else None
            pos = re.search(r"to \((\d+),(\d+)\)", rest)
            cmds.append((who, verb, spell, (int(pos.group(1)), int(pos.group(2))) if pos else None))
        return {int(k): v for k, v in names.items()}, cmds
    return None, None


def score(pairs):
    """(accuracy of the best guess per observed value, base rate, count)."""
    if not pairs:
        return 0.0, 0.0, 0
    by = collections.defaultdict(collections.Counter)
    truth = collections.Counter()
    for seen, t in pairs:
        by[seen][t] += 1
        truth[t] += 1
    hit = sum(c.most_common(1)[0][1] for c in by.values())
    return hit / len(pairs), truth.most_common(1)[0][1] / len(pairs), len(pairs)


def analyse(results):
    own_up, own_down, own_sp_up, own_sp_down, opp_type, opp_spell = [], [], [], [], [], []
    seen_by_dist = collections.defaultdict(lambda: [0, 0])
    used = skipped = 0
    lengths = collections.Counter()
    for links, names, cmds in results:
        idx = {names[0]: 0, names[1]: 1}
        link_of = {idx[n]: links[n[0]] for n in names.values()}
        for link in link_of.values():
            for d in (0, 1):
                for _, n in link.rec[d]:
                    lengths[(d, n)] += 1
        # Each player's commands, in order, each with the time it reached the relay: its up
        # records after AUTH and READY (the bots send nothing else in a duel but HEARTBEAT
        # after 15 s of quiet, which never happens at this pace, and BYE at the end).
        ok = True
        t_of = []
        per = {0: [c for c in cmds if c[0] == 0], 1: [c for c in cmds if c[0] == 1]}
        ups = {}
        for p in (0, 1):
            up = link_of[p].rec[0][2:]
            if len(up) < len(per[p]) or len(up) > len(per[p]) + 2:
                ok = False
            ups[p] = up
        if not ok:
            skipped += 1
            continue
        used += 1
        k = {0: 0, 1: 0}
        for c in cmds:
            t_of.append(ups[c[0]][k[c[0]]])
            k[c[0]] += 1
        pos = {0: None, 1: None}
        for i, c in enumerate(cmds):
            p, verb, spell, at = c
            if at:
                pos[p] = at
            t0, n_up = t_of[i]
            t1 = t_of[i + 1][0] if i + 1 < len(cmds) else t0 + 5
            for q in (0, 1):
                downs = tuple(n for t, n in link_of[q].rec[1] if t0 <= t < t1)
                if q == p:
                    own_up.append((n_up, verb))
                    own_down.append((downs, verb))
                    if verb == "casts" and spell:
                        own_sp_up.append((n_up, spell))
                        own_sp_down.append((downs, spell))
                else:
                    opp_type.append((downs, verb))
                    if verb == "casts" and spell:
                        opp_spell.append((downs, spell))
                    if verb == "steps" and pos[0] and pos[1]:
                        dist = max(abs(pos[0][0] - pos[1][0]), abs(pos[0][1] - pos[1][1]))
                        b = "1" if dist <= 1 else "2-3" if dist <= 3 else "4-7" if dist <= 7 else "8+"
                        seen_by_dist[b][0] += 1
                        seen_by_dist[b][1] += bool(downs)
    duel_down = sorted(n for downs, _ in own_down + opp_type for n in downs)
    if duel_down:
        print("records to a player during duels: " + ", ".join(
            f"{lab} {duel_down[min(len(duel_down) - 1, int(f * len(duel_down)))]}"
            for lab, f in (("median", 0.5), ("99%", 0.99), ("99.9%", 0.999)))
            + f", most {duel_down[-1]} bytes (length field)")
    print(f"duels scored: {used} ({skipped} left out: their records did not line up with the log)")
    print(f"commands: {len(own_up)}")
    for name, pairs in [("own command type, from the record that carried it", own_up),
                        ("own command type, from the records sent back", own_down),
                        ("own spell, from the record that carried it", own_sp_up),
                        ("own spell, from the records sent back", own_sp_down),
                        ("opponent's command type, from the records it sent the watched player", opp_type),
                        ("opponent's spell, likewise", opp_spell)]:
        acc, base, n = score(pairs)
        print(f"{name}: guessed {100 * acc:.1f}%, base rate {100 * base:.1f}% ({n})")
    for b in ("1", "2-3", "4-7", "8+"):
        n, s = seen_by_dist[b]
        if n:
            print(f"an opponent's step at distance {b}: a record to the watched player {100 * s / n:.0f}% ({n} steps)")
    for d, label in ((0, "client to server"), (1, "server to client")):
        c = {n: k for (dd, n), k in lengths.items() if dd == d}
        top = sorted(c.items(), key=lambda x: -x[1])[:8]
        flat = sorted(n for n, k in c.items() for _ in range(k))
        if flat:
            q = [flat[min(len(flat) - 1, int(f * len(flat)))] for f in (0.5, 0.9, 0.99, 0.999)]
            print(f"record lengths {label}: median {q[0]}, 90% {q[1]}, 99% {q[2]}, 99.9% {q[3]}, most {flat[-1]}")
        print(f"record lengths {label}: {len(c)} distinct; most frequent " +
              ", ".join(f"{n} ({k})" for n, k in top))
    total = sum(n * k for (d, n), k in lengths.items()) + 2 * sum(lengths.values())
    print(f"record bytes in all (length prefixes included): {total}, {total / max(1, len(own_up)):.1f} per command")


async def main():
    tmp = tempfile.mkdtemp(prefix="wizwar-eavesdrop-")
    srv, port, fp = await start_server(tmp)
    results = []
    sem = asyncio.Semaphore(PAR)

    async def one(seed):
        async with sem:
            links = await duel(port, fp, tmp, seed)
        await asyncio.sleep(1.0)   # the server's log is whole once the room is closed
        names, cmds = narrate(tmp, seed)
        if links and names and cmds:
            results.append((links, names, cmds))
        else:
            print(f"eavesdrop: duel {seed}: no log or links", file=sys.stderr)
    await asyncio.gather(*(one(1000 + i) for i in range(DUELS)))
    srv.send_signal(signal.SIGTERM)
    await srv.wait()
    analyse(results)
    subprocess.run(["rm", "-rf", tmp])


asyncio.run(main())
