#!/bin/sh
# SPDX-License-Identifier: MIT
# absent_smoke.sh: the table's tools in a few seconds: absent_table.sh runs bench_absent (two duels
# an item at 15x15) and writes the rows into a copy of docs/rules.md; the copy must hold one row for
# the control and each spell offered and each potion kind a duel draws, and nothing else of the file may change.
# bench_absent itself stops with an error if a side ever casts or drinks what it goes without.
#   absent_smoke.sh BENCH_ABSENT RULES_MD
set -eu
bench=$1
doc=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$doc" "$tmp/rules.md"
DOCS="$tmp/rules.md" "$dir/absent_table.sh" "$bench" 2 15 1
rows=$(sed -n '/^<!-- BEGIN absent -->$/,/^<!-- END absent -->$/p' "$tmp/rules.md" | grep -c '^| [A-Za-z].* | [0-9.]*% ([0-9]* of 2) |' || true)
# none, the spells offered (not the negative ones) and the kinds of potion, as the tables list them
src=$(cd "$dir/../.." && pwd)
spells=$(grep -cE '^[[:space:]]*X\([A-Z_]+, "[^"]+", SPELL_(POSITIVE|NEUTRAL),' "$src/common/spell.h")
kinds=$(grep -cE '^[[:space:]]*X\([A-Z_]+, "[^"]+", PEFFECT_' "$src/common/potion.h")
# less the kinds no duel draws (common/potion.c's retired[]), which have no row
retired=$(grep -cE '^[[:space:]]*\[POTION_[A-Z_]+\] = true,' "$src/common/potion.c" || true)
kinds=$((kinds - retired))
want=$((1 + spells + kinds))
if [ "$rows" -ne "$want" ]; then
	echo "absent_smoke: $rows rows in the table, not $want" >&2
	sed -n '/^<!-- BEGIN absent -->$/,/^<!-- END absent -->$/p' "$tmp/rules.md" >&2
	exit 1
fi
# Outside the block the file is untouched.
strip() { sed '/^<!-- BEGIN absent -->$/,/^<!-- END absent -->$/d' "$1"; }
strip "$doc" > "$tmp/a"
strip "$tmp/rules.md" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "absent_smoke: absent_table.sh changed docs/rules.md outside its block" >&2; diff "$tmp/a" "$tmp/b" >&2; exit 1; }
echo "absent_smoke: $rows rows written"
