#!/bin/sh
# SPDX-License-Identifier: MIT
# cluster_smoke.sh: bench_cluster --quick, so that the bench cannot rot: two nodes of a cluster on a
# redis-server it starts, 80 duels over both, then one node with 40; every duel must start and play, the
# verdict be printed, and no join be started again after bouncing between the nodes, at most 2 sent on
# more than twice (a new room sent on is placed: cluster_room_place; before, a few of these 80 joins were
# sent on 4 times and started again, and before a node counted the rooms it sent, 448). Then
# node 1 given an option `wizwar server` refuses: the bench must say that node 1 did not start and exit
# 1. With --join, a third node is started in the middle of the cluster's window: every player must be
# told of it (its last NODES names it), and each node's walk telling its players the nodes must have
# taken more than one loop iteration wherever it had more players than a slice sends (64): a node that
# told them all in one callback stalled its loop for the whole walk (server/nodes.c). TAP output.
#   cluster_smoke.sh BENCH_CLUSTER WIZWAR
set -u
bench=$1
wizwar=$2
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BENCH_NO_PERF=1
echo "1..3"
fail=0

"$bench" "$wizwar" --quick --redis --join --tmp "$tmp" >"$tmp/out" 2>"$tmp/err"
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

# The join: the last window's count of players told (the walks are done before it), and each walk.
told=$(grep 'join: players whose last NODES named the node started mid-run' "$tmp/out" | tail -1)
walks=$(grep -E "join: node [01]'s walk: " "$tmp/out")
sliced=$(echo "$walks" | awk '/told to [0-9]+ players/ {
	for (i = 1; i <= NF; i++) { if ($i == "told") p = $(i + 2); if ($i == "slices,") s = $(i - 1) }
	if (p > 64) { big++; if (s > 1) ok++ } } END { print (big > 0 && ok == big) ? "yes" : "no" }')
if [ "$rc" -eq 0 ] && echo "$told" | grep -q ': 160 (of 160 playing)' && [ "$(echo "$walks" | grep -c 'told to')" -eq 2 ] &&
	[ "$sliced" = yes ]; then
	echo "ok 2 - a node started mid-run: all 160 players told of it, each node's walk in slices ($(echo "$walks" | sed 's/.*told to //' | tr '\n' ';'))"
else
	echo "not ok 2 - a node started mid-run: ${told:-no count}; walks: ${walks:-none}"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi

"$bench" "$wizwar" --quick --redis --tmp "$tmp" --node-arg 1 --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'node 1 did not start' "$tmp/err" && grep -q 'FAIL' "$tmp/out"; then
	echo "ok 3 - a node that does not come up fails the run (exit 1), and says which"
else
	echo "not ok 3 - node 1 refused its options: exit $rc"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi
exit $fail
