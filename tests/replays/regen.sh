#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerate the golden replays and the selfplay hash. Run only when the rules changed on
# purpose (and RULES_VERSION was bumped if old logs must be refused); commit the result.
# Usage: tests/replays/regen.sh path/to/wizwar
set -euo pipefail
exe=$1
dir=$(cd "$(dirname "$0")" && pwd)
rm -f "$dir"/*.log
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gen() { # name seed options...
	local name=$1 seed=$2; shift 2
	"$exe" selfplay --seed "$seed" --quiet --log "$tmp" "$@" >/dev/null
	mv "$tmp"/selfplay-*.log "$dir/$name.log"
}
gen default-25 11
gen small-15-nofov 12 --size 15 --no-fov
gen large-51 13 --size 51
gen no-potions 14 --no-potions
gen normal-vs-hard 15 --bots normal,hard
"$exe" selfplay --games 40 --seed 1000 --quiet | tail -1 > "$dir/selfplay.golden"
ls -la "$dir"
