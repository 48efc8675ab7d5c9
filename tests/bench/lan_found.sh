#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How soon a `wizwar host` is found on the LAN (issue 30's goal: p95 <= 2 s from the host's start), with the
# real daemons of tests/net/lan_lib.sh (two network namespaces, an avahi-daemon and a D-Bus bus in each).
# Each run starts a host in A and times, from its start, (1) the moment a browser running in B
# (avahi-browse -r) resolves its announcement, and (2) the moment `wizwar bot --lan NAME`, started in B
# with the host, says it is joining it (its browse, the resolve and the 0.5 s it listens for a second
# duel of that name). Beside each, the baseline: avahi-publish announcing a service of the same type,
# timed the same way as (1): the daemon's own probing and announcing, which no client can beat.
# Needs root. Usage: lan_found.sh WIZWAR [RUNS (default 10)]
set -u
W=$1
runs=${2:-10}
. "$(dirname "$0")/../net/lan_lib.sh"
lan_need
lan_up
now_ms() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }

# One browser for the whole run, each line stamped as it comes (line-buffered through stdbuf).
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$LAN_T/B/bus nsenter --net="/run/netns/$LAN_B" -- \
	stdbuf -oL avahi-browse -r -p _wizwar._tcp 2>/dev/null |
	while IFS= read -r l; do echo "$(now_ms) $l"; done >"$LAN_T/browse.log" &
lan_pids+=($!)
sleep 1

# seen NAME SINCE: ms from SINCE to the browser's first resolved line with name=NAME (-1: not in 10 s).
seen() {
	local i t
	for ((i = 0; i < 200; i++)); do
		t=$(grep -F "\"name=$1\"" "$LAN_T/browse.log" | grep ' =;' | head -1 | cut -d' ' -f1)
		[ -n "$t" ] && { echo $((t - $2)); return; }
		sleep 0.05
	done
	echo -1
}
p95() { sort -n | awk '{v[NR] = $1} END {i = int(NR * 0.95 + 0.999); if (i < 1) i = 1; print v[i]}'; }

: >"$LAN_T/host.ms"; : >"$LAN_T/join.ms"; : >"$LAN_T/base.ms"
for ((r = 1; r <= runs; r++)); do
	t0=$(now_ms)
	lan_bg "host$r" A "$W" host --headless --port 0 --name "h$r" --log-dir "$LAN_T/A/logs"
	lan_bg "bot$r" B "$W" bot --lan "h$r" --games 0 --think 0
	seen "h$r" "$t0" >>"$LAN_T/host.ms"
	for ((i = 0; i < 500; i++)); do  # polled every 20 ms: that is the resolution of (2)
		grep -q "joining" "$LAN_T/bot$r.out" && break
		sleep 0.02
	done
	grep -q "joining" "$LAN_T/bot$r.out" && echo $(($(now_ms) - t0)) >>"$LAN_T/join.ms" || echo -1 >>"$LAN_T/join.ms"
	lan_stop "bot$r"
	lan_stop "host$r"
	t0=$(now_ms)
	lan_bg "pub$r" A avahi-publish -s "p$r" _wizwar._tcp 7 "name=p$r"
	seen "p$r" "$t0" >>"$LAN_T/base.ms"
	lan_stop "pub$r"
done
read -r load _ </proc/loadavg
h=$(p95 <"$LAN_T/host.ms"); j=$(p95 <"$LAN_T/join.ms"); b=$(p95 <"$LAN_T/base.ms")
echo "lan_found: $runs runs, load average $load"
echo "  host start -> resolved by a browser in B: p95 $h ms (all: $(tr '\n' ' ' <"$LAN_T/host.ms"))"
echo "  host start -> bot --lan joining it:        p95 $j ms (all: $(tr '\n' ' ' <"$LAN_T/join.ms"))"
echo "  baseline avahi-publish -> resolved:        p95 $b ms (all: $(tr '\n' ' ' <"$LAN_T/base.ms"))"
awk -v h="$h" -v b="$b" 'BEGIN { r = 0; if (b > 0) r = h / b; printf "  ratio host/baseline: %.2f\n", r }'
if [ "$h" -ge 0 ] && [ "$h" -le 2000 ]; then
	echo "  goal p95 <= 2000 ms: met"
else
	echo "  goal p95 <= 2000 ms: NOT met"
	exit 1
fi
