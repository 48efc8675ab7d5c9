#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xspect: spectators across a cluster's nodes. Three `wizwar server --redis` nodes on a real redis-server
# started here on a loopback port of its own; two duels on node n1, one whose spectators get the shared
# view, one player 1's view 2 turns behind. Each duel's second player is xspect_follow, which also watches
# its duel as a spectator asking node n3; `wizwar watch` asks n3 too, in tmux (the real curses client);
# xspect_first waits to ask n3 for the shared room while it moves.
#  1. n3 sends every spectator to n1 by REDIRECT, with n1's key, which the clients check; they watch there.
#     Then n2 joins the cluster: n1 tells its players and both rooms' spectators the nodes again
#     (server/nodes.c: the spectators through each room's own queue), so a room may move to n2 too.
#  2. n1 is killed with -9 in the middle of the duels: the spectators, which were told the nodes (NODES),
#     find each room on the node that took it over and watch it to its end from there; every frame each
#     follower got, from either node, passes the leak rule (spect_check.c, as server/spect) against the
#     duel's revealed log, a delayed frame never sooner than its 2 turns (also just after the takeover);
#     the curses watch says where it watches again from and shows the end.
#  3. Once n3 has seen n1 miss a beat (the room is moving until a node has taken it over), six new
#     spectators ask n3 for the shared room, one every 250 ms, each a first ask (no NODES yet): those
#     that come while it moves are told MOVING and ask again by themselves; every one watches to the end.
#     So does a `wizwar watch` started then, whose screen must say the room is moving.
# Fails without spectators following a takeover: a spectator's link lost was the end of its watch; and
# without MOVING: a new spectator asking for a room in the middle of a takeover was closed without a word.
set -u
W="${1:?usage: xspect.sh WIZWAR XSPECT_FOLLOW XSPECT_FIRST}"
F="${2:?usage: xspect.sh WIZWAR XSPECT_FOLLOW XSPECT_FIRST}"
X="${3:?usage: xspect.sh WIZWAR XSPECT_FOLLOW XSPECT_FIRST}"
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
command -v tmux >/dev/null || { echo "1..0 # SKIP tmux is not installed"; exit 77; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-xspect.XXXXXX")"
SOCK="wizwar-xspect-$$"
PIDS=()
REDIS=""
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
# A pane's processes, killed before its tmux server: a client whose terminal goes first exits through
# its sanitizer's leak check, which has been seen to spin for good (google/sanitizers#777).
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -9 "$1" 2>/dev/null
}
finish() {
	for p in $(T list-panes -a -F '#{pane_pid}' 2>/dev/null); do kill_tree "$p"; done
	T kill-server >/dev/null 2>&1
	for p in "${PIDS[@]}" $REDIS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ -n "${WIZWAR_KEEP:-}" ]; then mkdir -p "$WIZWAR_KEEP" && cp -r "$TMP" "$WIZWAR_KEEP/" 2>/dev/null; fi # as proc_lib.sh
	rm -rf "$TMP"
}
trap finish EXIT
[ -n "${KEEP:-}" ] && trap - EXIT # KEEP=1: leave the processes and files to look at
n=0
fail() {
	echo "not ok $((n + 1)) - $*"
	for f in "$TMP"/*.err "$TMP"/*.out "$TMP"/redis.log; do
		[ -e "$f" ] && { echo "# --- $(basename "$f"):"; tail -12 "$f" | sed 's/^/# /'; }
	done
	T capture-pane -p -t w 2>/dev/null | sed 's/^/# screen: /'
	T capture-pane -p -t w2 2>/dev/null | sed 's/^/# screen w2: /'
	exit 1
}
ok() { n=$((n + 1)); echo "ok $n - $* (at ${SECONDS} s)"; }
. "$(dirname "$0")/../proc_lib.sh" # wait_re
export XDG_STATE_HOME="$TMP/state" # the watch's key and known servers: this test's own
echo "1..4"

redis_start

declare -A NPID NPORT
node_launch() {
	XDG_STATE_HOME="$TMP/$1" "$W" server --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" \
		--log-dir "$TMP/$1/logs" --admin-socket none --no-store --rooms-per-hour 0 --handshakes-per-min 0 \
		--max-per-addr 1000 >/dev/null 2>"$TMP/$1.err" &
	NPID[$1]=$!
	PIDS+=($!)
}
node_port() {
	wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/$1.err" 10
	NPORT[$1]="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/$1.err" | grep -oE '[0-9]+$')"
}

# n1 alone first, so that both rooms are made there. The kill below comes some 0.6 s into the duels
# (the watch started, the frames seen), whatever their pace; the level's seed has the server's random
# part, and of 6,000 normal-against-normal duels 1 in 100 was over within 15 turns, 1 in 450 within
# 12, none within 9. At --think 15 (35-47 ms a turn here under load) the kill came at turn 11 to 15,
# and about one run in 100 lost a duel before it; at --think 30 it came by turn 8 or so, and by turn 10
# once n2's start (some 0.45 s, step 1) came before it; at --think 40, by turn 8 again.
node_launch n1
node_port n1
wait_re 'cluster: Redis .* answers' "$TMP/n1.err" 10
"$W" bot "127.0.0.1:${NPORT[n1]}" --new-room --name Ann --think 40 --games 1 --seed 3 --reconnect 30 \
	>"$TMP/ann.out" 2>"$TMP/ann.err" &
PIDS+=($!)
"$W" bot "127.0.0.1:${NPORT[n1]}" --new-room --name Dee --think 40 --games 1 --seed 4 --reconnect 30 \
	--spectators delayed:2:1 >"$TMP/dee.out" 2>"$TMP/dee.err" &
PIDS+=($!)
wait_re '^room ' "$TMP/ann.out" 10
wait_re '^room ' "$TMP/dee.out" 10
R1="$(head -1 "$TMP/ann.out" | cut -d' ' -f2 | tr -d :)"
R2="$(head -1 "$TMP/dee.out" | cut -d' ' -f2 | tr -d :)"
node_launch n3
node_port n3
for x in n1 n3; do
	for _ in $(seq 60); do [ "$(grep -c ' joined' "$TMP/$x.err")" -ge 1 ] && break; sleep 0.1; done
	[ "$(grep -c ' joined' "$TMP/$x.err")" -ge 1 ] || fail "$x did not hear of the other node"
done

# The second players, each with its spectator asking n3; and a person's watch of the shared room, at n3.
"$F" "127.0.0.1:${NPORT[n1]}" "127.0.0.1:${NPORT[n3]}" "$R1" shared "$TMP/known1" >"$TMP/f1.out" 2>"$TMP/f1.err" &
F1=$!
PIDS+=($!)
"$F" "127.0.0.1:${NPORT[n1]}" "127.0.0.1:${NPORT[n3]}" "$R2" delayed:2:1 "$TMP/known2" >"$TMP/f2.out" 2>"$TMP/f2.err" &
F2=$!
PIDS+=($!)
wait_re "room=$R1 duel 1 starts" "$TMP/n1.err" 10
T new-session -d -s w -x 80 -y 24 "'$W' watch 127.0.0.1:${NPORT[n3]} $R1 --name Eve --reconnect 30; echo EXIT=\$?; exec sleep 600"
screen_has() { # screen_has REGEX SECS [SESSION]: w, the first watch's, unless said
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		T capture-pane -p -t "${3:-w}" >"$TMP/screen" 2>/dev/null
		grep -qE -- "$1" "$TMP/screen" && return 0
		sleep 0.05
	done
	fail "waited $2 s for /$1/ on the screen of ${3:-w}"
}
wait_re '^frame 2 ' "$TMP/f1.out" 15
wait_re '^frame 1 ' "$TMP/f2.out" 15
screen_has "Spectator in room $R1: shared view" 10
screen_has 'Round [0-9]+' 10
redirected="$(grep -c "sent to node .* port ${NPORT[n1]} (its room is there)" "$TMP/n3.err")"
[ "$redirected" -ge 3 ] || fail "n3 sent $redirected spectators to n1, not 3"
grep -q "^watching at 127\.0\.0\.1:${NPORT[n1]}$" "$TMP/f1.out" || fail "follower 1 does not watch at n1"
grep -q "^watching at 127\.0\.0\.1:${NPORT[n1]}$" "$TMP/f2.out" || fail "follower 2 does not watch at n1"
[ "$(grep -c " watches room " "$TMP/n1.err")" -ge 3 ] || fail "n1 does not have the 3 spectators"
# n2 joins now: the players and spectators at n1 learn it only from n1's walk (their NODES so far named
# n1 and n3), which reaches both watched rooms.
walks_re='cluster: the nodes told to [0-9]+ players and the spectators of 2 rooms'
walks0="$(grep -cE "$walks_re" "$TMP/n1.err")"
node_launch n2
node_port n2
for x in n1 n2 n3; do
	for _ in $(seq 60); do [ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] && break; sleep 0.1; done
	[ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] || fail "$x did not hear of both other nodes"
done
for _ in $(seq 100); do [ "$(grep -cE "$walks_re" "$TMP/n1.err")" -gt "$walks0" ] && break; sleep 0.05; done
[ "$(grep -cE "$walks_re" "$TMP/n1.err")" -gt "$walks0" ] ||
	fail "n1 did not tell both rooms' spectators the nodes once n2 joined: $(grep 'cluster: the nodes told' "$TMP/n1.err" | tail -1)"
ok "3 spectators asking n3 were sent to n1 (its key checked) and watch the duels there; n2 joined, n1 told them and its players"

# The newcomers, ready before the kill (a process started then could come after the move).
"$X" "127.0.0.1:${NPORT[n3]}" "$R1" "$TMP/known3" 6 250 >"$TMP/first.out" 2>"$TMP/first.err" &
XF=$!
PIDS+=($!)
wait_re '^ready$' "$TMP/first.out" 10
missed_re="port ${NPORT[n1]} missed a beat"
missed0="$(grep -c "$missed_re" "$TMP/n3.err")"

# ==== kill -9 n1 in the middle of the duels ====
disown "${NPID[n1]}"
kill -9 "${NPID[n1]}"
sleep 0.1
grep -q 'duel over' "$TMP/n1.err" && fail "a duel ended before the kill: not in its middle (a longer --think)"
for _ in $(seq 100); do [ "$(grep -c "$missed_re" "$TMP/n3.err")" -gt "$missed0" ] && break; sleep 0.05; done
[ "$(grep -c "$missed_re" "$TMP/n3.err")" -gt "$missed0" ] || fail "n3 did not see n1 miss a beat within 5 s of the kill"
kill -USR1 "$XF"
# And a person's first ask, in the curses client, while the room moves: it must say so, not end.
T new-session -d -s w2 -x 80 -y 24 "'$W' watch 127.0.0.1:${NPORT[n3]} $R1 --name Newt --reconnect 30; echo EXIT=\$?; exec sleep 600"
screen_has "room $R1 is moving to another node" 5 w2
# The watch says where from as soon as it is back, in its status lines (which stay while the duel runs).
screen_has 'Live; watching again from 127\.0\.0\.1:('"${NPORT[n2]}|${NPORT[n3]}"')\.' 15
for f in F1 F2; do
	pid="${!f}"
	for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$pid" 2>/dev/null && fail "$f still runs 30 s after the kill"
	wait "$pid"
	rc=$?
	out="$TMP/$(echo "$f" | tr F f).out"
	grep -E '^(spectator back|.* frames checked|FAIL)' "$out" | sed 's/^/# /'
	[ "$rc" = 0 ] || fail "$f: $(tail -1 "$out")"
done
ok "both duels' spectators followed their room to the node that took it over, to its end: every frame within its promise"

screen_has 'wins:|is a draw' 30
screen_has 'The duel is over: everything is shown' 5
screen_has 'The duel is over: everything is shown' 10 w2
ok "the curses watch said where it watches again from and shows the duel's end; one started while the room moved said so and shows the end"

for _ in $(seq 600); do kill -0 "$XF" 2>/dev/null || break; sleep 0.05; done
kill -0 "$XF" 2>/dev/null && fail "the newcomers still watch 30 s after the duels"
wait "$XF"
rc=$?
grep -E '^(spectator [0-9]+: |FAIL|[0-9]+ of )' "$TMP/first.out" | sed 's/^/# /'
[ "$rc" = 0 ] || fail "a new spectator of the moving room: $(grep -E '^FAIL' "$TMP/first.out" | head -1)"
told="$(grep -oE '[0-9]+ told MOVING' "$TMP/first.out" | grep -oE '^[0-9]+')"
# A newcomer told MOVING is the point of this step: none means they all came after the move (a machine
# too loaded to start one in the 2 s the room moves), and nothing was tested.
[ "${told:-0}" -ge 1 ] || fail "no new spectator asked n3 while the room moved (none was told MOVING)"
ok "$told of 6 new spectators asking while the room moved were told MOVING, asked again and watched to the end"
