#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every test and benchmark belongs to a module's suite (rules, proto, server, client, replays, help,
# bench), so that `meson test --suite server` (quoted in docs/server.md) and a packager's selection
# find it; a test() without `suite :` would sit only in the project's catch-all suite. And no test
# program runs zero tests: every Criterion program (run with --tap) lists at least one test, and a
# Criterion program that registers none (EMPTY_EXE, tests/help/empty.c) fails rather than passing
# with nothing run (tests/help/criterion_main.c). TAP output.
# Usage: suites.sh BUILD_DIR EMPTY_EXE
set -u
info=${1:?usage: suites.sh BUILD_DIR EMPTY_EXE}/meson-info
empty=${2:?usage: suites.sh BUILD_DIR EMPTY_EXE}
exec python3 - "$info" "$empty" <<'PY'
import json, subprocess, sys
info, empty = sys.argv[1], sys.argv[2]
known = {"rules", "proto", "server", "client", "replays", "help", "bench"}
rows = []
criterion = []
for kind in ("tests", "benchmarks"):
    for t in json.load(open(f"{info}/intro-{kind}.json")):
        suites = {s.split(":", 1)[-1] for s in t["suite"] if ":" in s}
        rows.append((t["name"], suites & known))
        if any(a.startswith("--tap") for a in t["cmd"][1:]):
            criterion.append((t["name"], t["cmd"][0]))
print(f"1..{len(rows) + len(criterion) + 2}")
n = bad = 0
def report(good, text):
    global n, bad
    n += 1
    bad += not good
    print(f"{'ok' if good else 'not ok'} {n} - {text}")
for name, mine in rows:
    report(bool(mine), f"{name}: suite {', '.join(sorted(mine))}" if mine else
           f"{name} has no module suite: give its test() a `suite :` from {sorted(known)}")
# `--list` prints "SUITE: N tests" and one line per test; a program whose tests were dropped lists none.
for name, exe in criterion:
    r = subprocess.run([exe, "--list"], capture_output=True, text=True, timeout=60)
    count = sum(int(l.rsplit(":", 1)[1].split()[0]) for l in r.stdout.splitlines()
                if l.endswith((" tests", " test")) and ":" in l)
    report(r.returncode == 0 and count > 0, f"{name}: {count} tests registered" +
           ("" if r.returncode == 0 else f" ({exe} --list exited {r.returncode}: {r.stderr.strip()})"))
report(len(criterion) > 0, f"{len(criterion)} Criterion programs found in meson-info (those run with --tap)")
r = subprocess.run([empty, "--tap=-"], capture_output=True, text=True, timeout=60)
report(r.returncode != 0 and "no test is registered" in r.stderr,
       f"a Criterion program with no test fails (exit {r.returncode}): {r.stderr.strip()}")
sys.exit(bad > 0)
PY
