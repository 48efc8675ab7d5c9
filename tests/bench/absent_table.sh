#!/bin/sh
# SPDX-License-Identifier: MIT
# absent_table.sh: docs/rules.md's table "What each spell and potion is worth" from bench_absent,
# written between its BEGIN/END markers (run by hand from a release build; minutes of CPU).
#
#   tests/bench/absent_table.sh BENCH_ABSENT [DUELS [SIZE [SEED]]] [> rows]
#
# With DOCS=path/to/rules.md in the environment the rows replace the table's in that file;
# without it they are printed. With ROWS=FILE the rows are read from FILE (bench_absent's output,
# e.g. the items split over several processes and the rows joined in order) instead of run. 1,000 duels an item give a 95% interval of at most +-3.1 points.
set -eu
bench=$1
duels=${2:-1000}
size=${3:-25}
seed=${4:-1}
[ -x "$bench" ] || { echo "absent_table.sh: $bench is not a program" >&2; exit 2; }
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
if [ -n "${ROWS:-}" ]; then
	cat "$ROWS" > "$rows"
else
	nice "$bench" "$duels" "$size" "$seed" all > "$rows"
fi
if [ -z "${DOCS:-}" ]; then
	cat "$rows"
	exit 0
fi
grep -q '^<!-- BEGIN absent -->$' "$DOCS" && grep -q '^<!-- END absent -->$' "$DOCS" ||
	{ echo "absent_table.sh: $DOCS has no <!-- BEGIN absent --> ... <!-- END absent --> block" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$rows" "$out"' EXIT
awk -v rows="$rows" '
	/^<!-- BEGIN absent -->$/ { print; print "| withheld from one side | won by that side | 95% interval | drawn | turns a duel | uses a duel by the other side |"; print "| --- | ---: | --- | ---: | ---: | ---: |"; while ((getline l < rows) > 0) print l; skip = 1; next }
	/^<!-- END absent -->$/ { skip = 0 }
	!skip { print }' "$DOCS" > "$out"
cat "$out" > "$DOCS"
