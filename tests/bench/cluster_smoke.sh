#!/bin/sh
# SPDX-License-Identifier: MIT
# cluster_smoke.sh: bench_cluster --quick, so that the bench cannot rot: two nodes of a cluster on a
# redis-server it starts, 80 duels over both, then one node with 40; every duel must start and play, the
# verdict be printed, and no join be started again after bouncing between the nodes, at most 2 sent on
# more than twice (a new room sent on is placed: cluster_room_place; before, a few of these 80 joins were
# sent on 4 times and started again, and before a node counted the rooms it sent, 448). Then
# node 1 given an option `wizwar server` refuses: the bench must say that node 1 did not start and exit
# 1. TAP output.
#   cluster_smoke.sh BENCH_CLUSTER WIZWAR
set -u
bench=$1
wizwar=$2
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BENCH_NO_PERF=1
echo "1..2"
fail=0

"$bench" "$wizwar" --quick --redis --tmp "$tmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
adm=$(grep -E '^cluster +80 duels on 2 nodes' "$tmp/out")
n0=$(echo "$adm" | sed -n 's/.*(node 0: \([0-9]*\), node 1: \([0-9]*\)).*/\1/p')
n1=$(echo "$adm" | sed -n 's/.*(node 0: \([0-9]*\), node 1: \([0-9]*\)).*/\2/p')
thrice=$(echo "$adm" | sed -n 's/.* \([0-9]*\) joins sent on more than twice.*/\1/p')
again=$(echo "$adm" | sed -n 's/.* \([0-9]*\) on 4 times and started again.*/\1/p')
if [ "$rc" -eq 0 ] && echo "$adm" | grep -q '160 of 160 players welcomed, 80 duels playing' &&
	[ "${n0:-0}" -gt 0 ] && [ "${n1:-0}" -gt 0 ] && [ "${thrice:-99}" -le 2 ] && [ "${again:-99}" -eq 0 ] &&
	grep -qE '^cluster +80 duels: 80 playing' "$tmp/out" && grep -qE '^1 node +40 duels: 40 playing' "$tmp/out" &&
	grep -q '^goal: 2 nodes hold 2x the duels of one' "$tmp/out"; then
	echo "ok 1 - 80 duels on two nodes of a cluster ($n0 and $n1; $thrice joins sent on more than twice), then 40 on one, all played"
else
	echo "not ok 1 - bench_cluster --quick (exit $rc)"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi

"$bench" "$wizwar" --quick --redis --tmp "$tmp" --node-arg 1 --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'node 1 did not start' "$tmp/err" && grep -q 'FAIL' "$tmp/out"; then
	echo "ok 2 - a node that does not come up fails the run (exit 1), and says which"
else
	echo "not ok 2 - node 1 refused its options: exit $rc"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi
exit $fail
