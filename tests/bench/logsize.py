#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""logsize: what a finished duel's turn log costs on disk, against its text gzipped once.

    logsize.py WIZWAR [DUELS] [--parallel=N] [--think=MS]

Starts `WIZWAR server` on 127.0.0.1 with a log directory of its own and plays DUELS duels
(default 20) between two `WIZWAR bot --games 1` processes, N at a time (default 4), at
--think MS a command (default 0), with a new room's options (a 25x25 level). Each finished duel's log
is the server's, as it left it on disk: LOGDIR/YYYY/MM/DD/NAME.log.gz (docs/server.md,
"Turn logs"). For each, beside it in the same run: its text (gunzipped), and that text
gzipped once by `gzip -9` (the baseline). Reported: bytes of text, of the log on disk and
of the blocks it holds, and the ratio log / `gzip -9` (the goal of issue 29: at most 1.2x;
the old writer's gzip member per 20 ms batch made 6.2x at a human pace), with the load
average. Exit 1 if a log is not one gzip member or the goal is missed.
"""
import glob, gzip, os, signal, subprocess, sys, tempfile, time, zlib

W = sys.argv[1]
args = [a for a in sys.argv[2:] if not a.startswith("--")]
opt = dict(a[2:].split("=", 1) for a in sys.argv[2:] if a.startswith("--") and "=" in a)
DUELS = int(args[0]) if args else 20
PAR = int(opt.get("parallel", "4"))
THINK = opt.get("think", "0")
SIZE = "25"  # a new room's default options (a bot takes the room's)
GOAL = 1.2


def main():
    tmp = tempfile.mkdtemp(prefix="wizwar-logsize.")
    logs = os.path.join(tmp, "logs")
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"), HOME=tmp)
    env.pop("WIZWAR_PASSWORD", None)
    srv = subprocess.Popen([W, "server", "--bind", "127.0.0.1", "--port", "0", "--log-dir", logs,
                            "--handshakes-per-min", "0", "--rooms-per-hour", "0"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        addr = srv.stdout.readline().split()[2].split("#")[0]  # "wizwar join 127.0.0.1:PORT#FP ..."
        seed = 1
        done = 0
        while done < DUELS:
            batch = []
            for _ in range(min(PAR, DUELS - done)):
                a = subprocess.Popen([W, "bot", addr, "--new-room", "--name", "A", "--games", "1", "--think", THINK,
                                      "--seed", str(seed)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
                room = a.stdout.readline().split()[1].rstrip(":")  # "room CODE: ..."
                b = subprocess.Popen([W, "bot", addr, "--room", room, "--name", "B", "--games", "1", "--think",
                                      THINK, "--seed", str(seed + 1)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                batch += [a, b]
                seed += 2
                done += 1
            for p in batch:
                p.wait(600)
        time.sleep(1)  # the last logs compressed, in the server's threadpool
        files = sorted(glob.glob(os.path.join(logs, "[0-9]" * 4, "[0-9]" * 2, "[0-9]" * 2, "*.log.gz")))
        rows, bad = [], []
        for f in files:
            data = open(f, "rb").read()
            d = zlib.decompressobj(16 + 15)
            text = d.decompress(data)
            if not d.eof or d.unused_data:
                bad.append("%s: not one gzip member" % os.path.basename(f))
            once = subprocess.run(["gzip", "-9", "-n", "-c"], input=text, stdout=subprocess.PIPE, check=True).stdout
            cmds = sum(1 for line in text.split(b"\n") if line[:2] in (b"0 ", b"1 "))
            rows.append((len(text), len(data), os.stat(f).st_blocks * 512, len(once), cmds))
        left = glob.glob(os.path.join(logs, "playing", "*"))
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(20)
        subprocess.run(["rm", "-rf", tmp])
    if len(rows) != DUELS:
        print("logsize: %d finished logs for %d duels" % (len(rows), DUELS))
        return 1
    if left:
        bad.append("%d logs left in playing/" % len(left))
    n = len(rows)
    mean = [sum(r[i] for r in rows) / n for i in range(5)]
    ratios = [r[1] / r[3] for r in rows]
    worst = max(ratios)
    print("logsize: %d duels of bots at %sx%s, --think %s, %d at a time; load %s" % (
        n, SIZE, SIZE, THINK, PAR, " ".join("%.2f" % x for x in os.getloadavg())))
    print("  per duel (mean): %.0f commands; text %.0f B; on disk %.0f B (%.0f B of blocks); gzip -9 of the text %.0f B"
          % (mean[4], mean[0], mean[1], mean[2], mean[3]))
    print("  log / gzip -9: mean %.3fx, worst %.3fx (goal: at most %.1fx); log / text: %.3fx"
          % (sum(ratios) / n, worst, GOAL, mean[1] / mean[0]))
    for b in bad:
        print("  FAIL: " + b)
    if bad or worst > GOAL:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
