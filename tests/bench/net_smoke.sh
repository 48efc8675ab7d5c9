#!/bin/sh
# SPDX-License-Identifier: MIT
# net_smoke.sh: the network benchmarks run briefly, so that they cannot rot between the sessions that
# run them whole (docs/benchmarks.md): bench_net's latency part (the wizwar server beside relay.h's
# ping-pong, back to back) and bench_relay with 20 pairs for a second must each run to their figures
# and exit 0, and bench_relay must refuse arguments it cannot use (exit 2). Figures are not judged
# here: speed goals live in the benchmarks. TAP output.
#   net_smoke.sh BENCH_NET BENCH_RELAY
set -u
bnet=$1
brelay=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BENCH_NO_PERF=1
echo "1..3"
fail=0

"$bnet" 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -qE '^    wizwar server: median [0-9]+ µs' "$tmp/out" &&
	grep -qE '^    bare libuv ping-pong: median [0-9]+ µs' "$tmp/out" && grep -q 'ratio wizwar / ping-pong: median' "$tmp/out"; then
	echo "ok 1 - bench_net 0: commands to both clients and the relay's ping-pong timed side by side"
else
	echo "not ok 1 - bench_net 0 (exit $rc)"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi

"$brelay" 20 --secs 1 --warm 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
got=$(sed -n 's/^relay 20 pairs: \([0-9]*\) messages\/s.*/\1/p' "$tmp/out")
if [ "$rc" -eq 0 ] && [ "${got:-0}" -gt 0 ] && grep -q '^  a message on the relay: CPU' "$tmp/out"; then
	echo "ok 2 - bench_relay 20: $got messages a second relayed and measured"
else
	echo "not ok 2 - bench_relay 20 --secs 1 --warm 1 (exit $rc)"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi

"$brelay" 20 --cmd 4 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q '^usage: bench_relay PAIRS' "$tmp/err"; then
	echo "ok 3 - bench_relay refuses a message too short to carry its tag (exit 2, usage)"
else
	echo "not ok 3 - bench_relay 20 --cmd 4: exit $rc"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fail=1
fi
exit $fail
