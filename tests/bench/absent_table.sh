#!/bin/sh
# SPDX-License-Identifier: MIT
# absent_table.sh: docs/rules.md's tables "What each spell and potion is worth" from bench_absent,
# written between their BEGIN/END markers (run by hand from a release build; minutes of CPU).
#
#   tests/bench/absent_table.sh BENCH_ABSENT [DUELS [SIZE[,SIZE...] [SEED]]] [> rows]
#
# One size (25, the goal's, by default): bench_absent's rows, into the block `absent`. Several
# sizes (e.g. 15,51): one row an item with each size's win rate, interval and draws side by side,
# into the block `absent-sizes`. With DOCS=path/to/rules.md in the environment the rows replace
# the block's in that file; without it they are printed. With ROWS=FILE (several sizes:
# FILE,FILE... in the sizes' order) the rows are read from FILE (bench_absent's output, e.g. the
# items split over several processes and the rows joined in order) instead of run. 1,000 duels
# an item give a 95% interval of at most +-3.1 points.
set -eu
bench=$1
duels=${2:-1000}
sizes=${3:-25}
seed=${4:-1}
[ -x "$bench" ] || { echo "absent_table.sh: $bench is not a program" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for size in $(echo "$sizes" | tr ',' ' '); do
	n=$((n + 1))
	case $size in
	'' | *[!0-9]*) echo "absent_table.sh: size '$size' is not a number" >&2; exit 2 ;;
	esac
	if [ -n "${ROWS:-}" ]; then
		f=$(echo "$ROWS," | cut -d, -f$n)
		[ -n "$f" ] && [ -r "$f" ] || { echo "absent_table.sh: ROWS names no readable file for size $size" >&2; exit 2; }
		cat "$f" > "$tmp/$n"
	else
		nice "$bench" "$duels" "$size" "$seed" all > "$tmp/$n"
	fi
done
if [ "$n" -eq 1 ]; then
	block=absent
	head='| withheld from one side | won by that side | 95% interval | drawn | turns a duel | uses a duel by the other side |
| --- | ---: | --- | ---: | ---: | ---: |'
	cp "$tmp/1" "$tmp/rows"
else
	# Joined by item, in the first size's order (run it with `all`); an item a later size's rows
	# lack (bench_absent given only some items there, where a duel costs more) says "not run".
	block=absent-sizes
	head="| withheld from one side |" rule="| --- |"
	for size in $(echo "$sizes" | tr ',' ' '); do
		head="$head ${size}x$size: won by that side (95% interval) | drawn |" rule="$rule --- | ---: |"
	done
	head="$head
$rule"
	awk -F ' [|] ' -v n="$n" '
		{ sub(/^[|] /, "", $1); sub(/ [|]$/, "", $NF) }
		FNR == 1 { file++ }
		file == 1 { order[++items] = $1 }
		{ v = $2; sub(/[)]$/, "; " $3 ")", v); cell[file, $1] = v " | " $4 }
		END {
			for (i = 1; i <= items; i++) {
				line = "| " order[i] " |"
				for (f = 1; f <= n; f++) {
					line = line " " ((f, order[i]) in cell ? cell[f, order[i]] : "not run | -") " |"
				}
				print line
			}
		}' $(i=1; while [ $i -le "$n" ]; do echo "$tmp/$i"; i=$((i + 1)); done) > "$tmp/rows"
fi
if [ -z "${DOCS:-}" ]; then
	printf '%s\n' "$head"
	cat "$tmp/rows"
	exit 0
fi
grep -q "^<!-- BEGIN $block -->\$" "$DOCS" && grep -q "^<!-- END $block -->\$" "$DOCS" ||
	{ echo "absent_table.sh: $DOCS has no <!-- BEGIN $block --> ... <!-- END $block --> block" >&2; exit 1; }
printf '%s\n' "$head" > "$tmp/head"
awk -v rows="$tmp/rows" -v head="$tmp/head" -v b="<!-- BEGIN $block -->" -v e="<!-- END $block -->" '
	$0 == b { print; while ((getline l < head) > 0) print l; while ((getline l < rows) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip { print }' "$DOCS" > "$tmp/out"
cat "$tmp/out" > "$DOCS"
