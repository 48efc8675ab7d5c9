#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The same duels from two programs: `wizwar` or tests/port/rules_hash, of one build or of two (CI compares
# a 64-bit build with an -m32 one). Each configuration's combined hash must be the same, and so must the
# master level's budgets when both programs print them (rules_hash budgets). The configurations put
# master against each level and at the smallest, default and largest sizes, where its budget differs.
# TAP output. Usage: compare.sh REF NEW
set -u
ref=${1:?usage: compare.sh REF NEW} new=${2:?usage: compare.sh REF NEW}
configs=(
	"--games 40 --seed 1000 --bots random,random --size 25"
	"--games 20 --seed 50 --bots hard,normal --size 25"
	"--games 10 --seed 3 --bots easy,hard --size 15"
	"--games 1 --seed 7 --bots master,hard --size 15"
	"--games 1 --seed 11 --bots normal,master --size 25"
	"--games 1 --seed 9 --bots hard,master --size 51"
)
budgets=0
"$ref" budgets >/dev/null 2>&1 && "$new" budgets >/dev/null 2>&1 && budgets=1
echo "1..$(( ${#configs[@]} + budgets ))"
n=0 failed=0
for c in "${configs[@]}"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the configuration is a list of words
	a=$("$ref" selfplay $c --quiet 2>&1 | tail -1) b=$("$new" selfplay $c --quiet 2>&1 | tail -1)
	if [ "$a" = "$b" ] && [[ $a == "combined hash "* ]]; then
		echo "ok $n - $c: $a"
	else
		failed=$((failed + 1))
		echo "not ok $n - $c: '$a' from $ref, '$b' from $new"
	fi
done
if [ $budgets = 1 ]; then
	n=$((n + 1))
	if diff <("$ref" budgets) <("$new" budgets) >/dev/null; then
		echo "ok $n - the master budgets at every size: $("$ref" budgets | awk '{ printf "%s%s", sep, $3; sep = "," }')"
	else
		failed=$((failed + 1))
		echo "not ok $n - the master budgets differ:"
		diff <("$ref" budgets) <("$new" budgets) | sed 's/^/# /'
	fi
fi
exit $((failed > 0))
