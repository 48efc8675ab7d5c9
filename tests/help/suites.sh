#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every test and benchmark belongs to a module's suite (rules, proto, server, client, replays, help,
# bench), so that `meson test --suite server` (quoted in docs/server.md) and a packager's selection
# find it; a test() without `suite :` would sit only in the project's catch-all suite. TAP output.
# Usage: suites.sh BUILD_DIR
set -u
info=${1:?usage: suites.sh BUILD_DIR}/meson-info
exec python3 - "$info" <<'PY'
import json, sys
info = sys.argv[1]
known = {"rules", "proto", "server", "client", "replays", "help", "bench"}
rows = []
for kind in ("tests", "benchmarks"):
    for t in json.load(open(f"{info}/intro-{kind}.json")):
        suites = {s.split(":", 1)[-1] for s in t["suite"] if ":" in s}
        rows.append((t["name"], suites & known))
print(f"1..{len(rows)}")
bad = 0
for i, (name, mine) in enumerate(rows, 1):
    if mine:
        print(f"ok {i} - {name}: suite {', '.join(sorted(mine))}")
    else:
        bad += 1
        print(f"not ok {i} - {name} has no module suite: give its test() a `suite :` from {sorted(known)}")
sys.exit(bad > 0)
PY
