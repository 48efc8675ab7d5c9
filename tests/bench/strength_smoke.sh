#!/bin/sh
# SPDX-License-Identifier: MIT
# strength_smoke.sh: the Strength table's tool in a few seconds: strength_table.sh runs bench_bot
# (two duels a pairing at 15x15 and 25x25) and writes its rows into a copy of docs/bots.md; the
# block must hold one row for each pairing bench_bot plays, and nothing else of the file may change.
#   strength_smoke.sh BENCH_BOT BOTS_MD
set -eu
bench=$1
doc=$2
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$doc" "$tmp/bots.md"
DOCS="$tmp/bots.md" "$dir/strength_table.sh" "$bench" 15:2 25:2
# bench_bot's pairings, as its table lists them
want=$("$bench" 15 2 | grep -c '^| [a-z]* vs [a-z]* | 2 |')
cell='\(-\|[0-9.]*% ([0-9.]* to [0-9.]*)\(, [0-9]* drawn\)\?\) | [0-9.]* |'
block=$(sed -n '/^<!-- BEGIN strength -->$/,/^<!-- END strength -->$/p' "$tmp/bots.md")
rows=$(printf '%s\n' "$block" | grep -c "^| [a-z]* vs [a-z]* | $cell $cell\$" || true)
if [ "$want" -lt 1 ] || [ "$rows" -ne "$want" ]; then
	echo "strength_smoke: $rows rows in the table, bench_bot plays $want pairings" >&2
	printf '%s\n' "$block" >&2
	exit 1
fi
strip() { sed '/^<!-- BEGIN strength -->$/,/^<!-- END strength -->$/d' "$1"; }
strip "$doc" > "$tmp/a"
strip "$tmp/bots.md" > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || { echo "strength_smoke: strength_table.sh changed docs/bots.md outside its block" >&2; diff "$tmp/a" "$tmp/b" >&2; exit 1; }
# A bench_bot whose rows are not its arguments' is refused, not written.
if ROWS="$tmp/b" "$dir/strength_table.sh" "$bench" 15:2 > /dev/null 2>&1; then
	echo "strength_smoke: rows that are not bench_bot's were taken" >&2
	exit 1
fi
echo "strength_smoke: $rows rows written"
