#!/bin/sh
# SPDX-License-Identifier: MIT
# strength_table.sh: docs/bots.md's table "Strength" (every pairing of the levels below master at
# each size, with Wilson's 95% interval) from bench_bot's tables, written between its
# <!-- BEGIN strength --> and <!-- END strength --> markers (run by hand from a release build).
#
#   tests/bench/strength_table.sh BENCH_BOT SIZE:DUELS... [> rows]
#
# e.g. `strength_table.sh build/tests/bench/bench_bot 15:1000 25:1000 51:300`. With DOCS=FILE the
# rows replace the block's in FILE; without it they are printed. With ROWS=FILE,FILE... (one per
# SIZE:DUELS, in order) bench_bot's output is read from those files instead of run.
set -eu
bench=$1
shift
[ $# -ge 1 ] || { echo "usage: strength_table.sh BENCH_BOT SIZE:DUELS..." >&2; exit 2; }
[ -n "${ROWS:-}" ] || [ -x "$bench" ] || { echo "strength_table.sh: $bench is not a program" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 head="| A vs B |" rule="| --- |"
for arg in "$@"; do
	n=$((n + 1))
	size=${arg%%:*} duels=${arg#*:}
	case "$size:$duels" in
	*[!0-9:]* | :* | *:) echo "strength_table.sh: '$arg' is not SIZE:DUELS" >&2; exit 2 ;;
	esac
	if [ -n "${ROWS:-}" ]; then
		f=$(echo "$ROWS," | cut -d, -f$n)
		[ -n "$f" ] && [ -r "$f" ] || { echo "strength_table.sh: ROWS names no readable file for $arg" >&2; exit 2; }
		cat "$f" > "$tmp/$n"
	else
		nice "$bench" "$size" "$duels" > "$tmp/$n"
	fi
	grep -q "^bench_bot: ${size}x$size, $duels duels a pairing\$" "$tmp/$n" ||
		{ echo "strength_table.sh: the rows for $arg are not bench_bot $size $duels's" >&2; exit 1; }
	head="$head ${size}x$size ($duels duels): A won (95%) | turns |" rule="$rule ---: | ---: |"
done
# bench_bot's rows: | A vs B | duels | A wins | B wins | draws | turns | limit |; a level against itself
# has "-" for wins. Each cell: A's win rate and Wilson's interval from the count, and the duels
# drawn when any were (a drawn duel counts as not won).
awk -F ' [|] ' -v n="$n" '
	function wilson(k, m,   z, p, d, c, h) {
		z = 1.959964; p = k / m; d = 1 + z * z / m; c = (p + z * z / (2 * m)) / d
		h = z * sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / d
		return sprintf("%.1f%% (%.1f to %.1f)", 100 * p, 100 * (c - h), 100 * (c + h))
	}
	FNR == 1 { file++ }
	/^[|] [a-z]+ vs [a-z]+ [|]/ {
		sub(/^[|] /, "", $1)
		if (file == 1) order[++items] = $1
		m = $2 + 0; w = $3; sub(/%$/, "", w); d = $5; sub(/%$/, "", d)
		k = int(d * m / 100 + 0.5)
		cell[file, $1] = (w == "-" ? "-" : wilson(int(w * m / 100 + 0.5), m)) (k ? ", " k " drawn" : "") " | " $6
	}
	END {
		for (i = 1; i <= items; i++) {
			line = "| " order[i] " |"
			for (f = 1; f <= n; f++)
				line = line " " ((f, order[i]) in cell ? cell[f, order[i]] : "not run | -") " |"
			print line
		}
	}' $(i=1; while [ $i -le "$n" ]; do echo "$tmp/$i"; i=$((i + 1)); done) > "$tmp/rows"
[ -s "$tmp/rows" ] || { echo "strength_table.sh: no pairing in bench_bot's output" >&2; exit 1; }
printf '%s\n%s\n' "$head" "$rule" > "$tmp/head"
if [ -z "${DOCS:-}" ]; then
	cat "$tmp/head" "$tmp/rows"
	exit 0
fi
grep -q '^<!-- BEGIN strength -->$' "$DOCS" && grep -q '^<!-- END strength -->$' "$DOCS" ||
	{ echo "strength_table.sh: $DOCS has no <!-- BEGIN strength --> ... <!-- END strength --> block" >&2; exit 1; }
awk -v rows="$tmp/rows" -v head="$tmp/head" '
	/^<!-- BEGIN strength -->$/ { print; while ((getline l < head) > 0) print l; while ((getline l < rows) > 0) print l; skip = 1; next }
	/^<!-- END strength -->$/ { skip = 0 }
	!skip { print }' "$DOCS" > "$tmp/out"
cat "$tmp/out" > "$DOCS"
