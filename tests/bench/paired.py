#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# paired.py: two bench_master runs on the same seeds (BENCH_MASTER_RESULTS files: seed, seat,
# W/L/D a line), compared duel by duel: each one's win rate, the duels only one of them won, and
# the difference of the win rates with its 95% interval from the paired differences (a duel is
# the same level, seats and opponent's luck in both runs, so the pairs cancel most of the noise).
# Only the seeds both files hold count. docs/bots.md, "Master's budget".
#   paired.py A.res B.res
import math
import sys


def load(path):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != 3 or parts[2] not in ("W", "L", "D") or parts[1] not in ("0", "1"):
                sys.exit("paired.py: %s:%d: not 'seed seat W|L|D'" % (path, n))
            out[int(parts[0])] = (parts[1], parts[2] == "W")
    return out


def wilson(k, n, z=1.959964):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return 100 * (c - h), 100 * (c + h)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: paired.py A.res B.res")
    a, b = load(sys.argv[1]), load(sys.argv[2])
    seeds = sorted(set(a) & set(b))
    if not seeds:
        sys.exit("paired.py: no seed in both files")
    for s in seeds:
        if a[s][0] != b[s][0]:
            sys.exit("paired.py: seed %d: the measured player sits in seat %s in one run, %s in the other" % (s, a[s][0], b[s][0]))
    n = len(seeds)
    wa = sum(a[s][1] for s in seeds)
    wb = sum(b[s][1] for s in seeds)
    only_a = sum(a[s][1] and not b[s][1] for s in seeds)
    only_b = sum(b[s][1] and not a[s][1] for s in seeds)
    d = [int(a[s][1]) - int(b[s][1]) for s in seeds]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    half = 1.959964 * math.sqrt(var / n)
    print("%d duels on the same seeds (%d to %d)" % (n, seeds[0], seeds[-1]))
    print("A won %d (%.1f%%, 95%%: %.1f%% to %.1f%%); B won %d (%.1f%%, 95%%: %.1f%% to %.1f%%)"
          % ((wa, 100 * wa / n) + wilson(wa, n) + (wb, 100 * wb / n) + wilson(wb, n)))
    print("won by A only: %d; by B only: %d; A - B = %+.1f points, 95%% interval %+.1f to %+.1f"
          % (only_a, only_b, 100 * mean, 100 * (mean - half), 100 * (mean + half)))


main()
