#!/bin/sh
# SPDX-License-Identifier: MIT
# absent_smoke.sh: the tables' tools in a few seconds: absent_table.sh runs bench_absent (two duels
# an item at 15x15; then at 15x15 and 25x25 side by side) and writes the rows into a copy of
# docs/rules.md; each block must hold one row for the control and each spell offered and each
# potion kind a duel draws, and nothing else of the file may change.
# bench_absent itself stops with an error if a side ever casts or drinks what it goes without.
#   absent_smoke.sh BENCH_ABSENT RULES_MD
set -eu
bench=$1
doc=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# none, the spells offered (not the negative ones) and the kinds of potion, as the tables list them
src=$(cd "$dir/../.." && pwd)
spells=$(grep -cE '^[[:space:]]*X\([A-Z_]+, "[^"]+", SPELL_(POSITIVE|NEUTRAL),' "$src/common/spell.h")
kinds=$(grep -cE '^[[:space:]]*X\([A-Z_]+, "[^"]+", PEFFECT_' "$src/common/potion.h")
# less the kinds no duel draws (common/potion.c's retired[]), which have no row
retired=$(grep -cE '^[[:space:]]*\[POTION_[A-Z_]+\] = true,' "$src/common/potion.c" || true)
kinds=$((kinds - retired))
want=$((1 + spells + kinds))

# check BLOCK SIZES ROW_PATTERN: write BLOCK of a fresh copy from SIZES; count the rows matching.
check() {
	cp "$doc" "$tmp/rules.md"
	DOCS="$tmp/rules.md" "$dir/absent_table.sh" "$bench" 2 "$2" 1
	block=$(sed -n "/^<!-- BEGIN $1 -->\$/,/^<!-- END $1 -->\$/p" "$tmp/rules.md")
	rows=$(printf '%s\n' "$block" | grep -c "$3" || true)
	if [ "$rows" -ne "$want" ]; then
		echo "absent_smoke: $rows rows in the table $1, not $want" >&2
		printf '%s\n' "$block" >&2
		exit 1
	fi
	# Outside the block the file is untouched.
	strip() { sed "/^<!-- BEGIN $1 -->\$/,/^<!-- END $1 -->\$/d" "$2"; }
	strip "$1" "$doc" > "$tmp/a"
	strip "$1" "$tmp/rules.md" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || { echo "absent_smoke: absent_table.sh changed docs/rules.md outside $1" >&2; diff "$tmp/a" "$tmp/b" >&2; exit 1; }
	echo "absent_smoke: $rows rows written in $1"
}
cell='[0-9.]*% ([0-9]* of 2; [0-9.]*% to [0-9.]*%) | [0-9]* |'
check absent 15 '^| [A-Za-z].* | [0-9.]*% ([0-9]* of 2) |'
check absent-sizes 15,25 "^| [A-Za-z][^|]* | $cell $cell\$"
