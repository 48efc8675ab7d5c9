#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# ladder_check: a server's ladder against the one recomputed from its finished turn logs (tests/server/killrate.sh).
#
#   ladder_check.py STORE.db LOGDIR
#
# Every finished log of a rated duel (an `end` line, both players' `# wizwar-server key` comments) must be in
# the store's results exactly once, by its duel id (the seed commitment, made here from the log's seed-part
# the way docs/protocol.md says), with the same keys and result; the store holds no result without its log.
# Then the ladder is recomputed from the logs' results, in the order and at the times the store rated them,
# with Glicko-2 as lichess runs it (server/glicko.c, written again here from Glickman's paper): every signed
# record's before and after, and the ratings table's rating, deviation, volatility and counts, must match.
# Prints one line; exit 0 when all match, 1 with what did not.
import glob
import gzip
import hashlib
import math
import os
import sqlite3
import struct
import sys

SCALE, TAU, PERIODS_PER_DAY = 173.7178, 0.75, 0.21436
START = (1500.0, 500.0, 0.09)


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def g_of(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def update(player, opp, score, periods):
    mu, phi = (player[0] - 1500.0) / SCALE, player[1] / SCALE
    mu_j, phi_j = (opp[0] - 1500.0) / SCALE, opp[1] / SCALE
    g = g_of(phi_j)
    e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
    v = 1.0 / (g * g * e * (1.0 - e))
    s = g * (score - e)
    delta = v * s
    sigma = player[2]
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)

    A = a
    if delta * delta > phi * phi + v:
        B = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        B = a - k * TAU
    fA, fB = f(A), f(B)
    while abs(B - A) > 0.000001:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA /= 2.0
        B, fB = C, fC
    sigma = math.exp(A / 2.0)
    phi_star = math.sqrt(phi * phi + periods * sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * s
    return (clamp(mu_new * SCALE + 1500.0, 400.0, 4000.0), clamp(phi_new * SCALE, 45.0, 500.0), min(sigma, 0.1))


def read_log(path):
    op = gzip.open if path.endswith('.gz') else open
    try:
        with op(path, 'rt', encoding='utf-8', errors='replace') as f:
            text = f.read()
    except (OSError, EOFError):
        return None  # a gzip member cut by a kill: its plain log is the one that counts
    d = {'names': {}, 'keys': {}}
    for line in text.split('\n'):
        w = line.split(' ')
        if w[0] == 'player' and len(w) >= 3:
            d['names'][int(w[1])] = line.split(' ', 2)[2]
        elif line.startswith('# wizwar-server seed-part '):
            d['part'] = bytes.fromhex(w[3])
        elif line.startswith('# wizwar-server key '):
            d['keys'][int(w[3])] = bytes.fromhex(w[4])
        elif w[0] == 'end' and len(w) == 4:
            d['result'] = {'win0': 0, 'win1': 1, 'draw': 2}[w[1]]
    if 'result' not in d or 'part' not in d or len(d['keys']) != 2 or d['keys'][0] == d['keys'][1]:
        return None
    d['duel'] = hashlib.blake2b(d['part'], digest_size=32, key=b'wizwar-seed-commit-4').digest()
    return d


def main():
    db, logdir = sys.argv[1], sys.argv[2]
    logs = {}
    for path in glob.glob(os.path.join(logdir, '**', '*.log*'), recursive=True):
        d = read_log(path)
        if d:
            logs[d['duel']] = d
    con = sqlite3.connect(db)
    rows = con.execute('SELECT seq, duel, time, key0, key1, result, record FROM results ORDER BY seq').fetchall()
    bad = []
    seen = set()
    for seq, duel, t, k0, k1, res, rec in rows:
        if duel in seen:
            bad.append('duel %s counted twice' % duel.hex()[:16])
        seen.add(duel)
        d = logs.get(duel)
        if d is None:
            bad.append('result %d (duel %s) has no finished log' % (seq, duel.hex()[:16]))
        elif (k0, k1, res) != (d['keys'][0], d['keys'][1], d['result']):
            bad.append('result %d differs from its log' % seq)
    for duel in logs:
        if duel not in seen:
            bad.append('finished duel %s (%s vs %s) not rated' % (duel.hex()[:16], logs[duel]['names'][0],
                                                                   logs[duel]['names'][1]))
    # The ladder again, from the logs' results in the store's order and times.
    rating, last, counts = {}, {}, {}
    for seq, duel, t, k0, k1, res, rec in rows:
        d = logs.get(duel)
        if d is None:
            continue
        keys = (d['keys'][0], d['keys'][1])
        before = [rating.get(k, START) for k in keys]
        after = []
        for p in (0, 1):
            score = 0.5 if d['result'] == 2 else 1.0 if d['result'] == p else 0.0
            lt = last.get(keys[p], 0)
            periods = (t - lt) / 86400.0 * PERIODS_PER_DAY if lt > 0 and t > lt else 0.0
            after.append(update(before[p], before[1 - p], score, periods))
            c = counts.setdefault(keys[p], [0, 0, 0, 0])
            c[0] += 1
            c[1 if score == 1.0 else 2 if score == 0.5 else 3] += 1
        nums = struct.unpack('>12d', rec[107:203])
        want = list(before[0]) + list(after[0]) + list(before[1]) + list(after[1])
        if any(abs(x - y) > 1e-6 for x, y in zip(nums, want)):
            bad.append('result %d: the signed ratings are not the recomputed ones' % seq)
        for p in (0, 1):
            rating[keys[p]] = after[p]
            last[keys[p]] = t
    table = con.execute('SELECT key, rating, deviation, volatility, games, wins, draws, losses FROM ratings').fetchall()
    if len(table) != len(rating):
        bad.append('%d rated keys in the store, %d recomputed' % (len(table), len(rating)))
    for key, r, dev, vol, g, w, dr, lo in table:
        want = rating.get(key)
        if want is None or any(abs(x - y) > 1e-6 for x, y in zip((r, dev, vol), want)) or \
                [g, w, dr, lo] != counts.get(key):
            bad.append('key %s: the ladder says %.6f/%.6f/%d duels, recomputed %s/%s' %
                       (key.hex()[:8], r, dev, g, want, counts.get(key)))
    print('%d finished rated duels in the logs, %d results in the store, %d players' % (len(logs), len(rows),
                                                                                           len(table)))
    for b in bad[:20]:
        print('MISMATCH: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
