#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_lobby: the first duel's lobby as two people meet it (issue 27), a host (h) and a joiner (w) in
# tmux: both see the options and a short countdown before the first duel starts by itself; /wait
# holds it until /ready; an option changed by the controller stops it on both screens, which say
# so; each lobby line is said once.
set -u
WIZWAR="${1:?usage: test_lobby.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE"

# host_then_join: a host in session h and a joiner in w, both in the lobby.
host_then_join() {
	T kill-session -t w 2>/dev/null
	T kill-session -t h 2>/dev/null
	T new-session -d -s h -x 80 -y 24 \
	    "env XDG_STATE_HOME='$STATE/h' '$WIZWAR' host --port 0 --bind 127.0.0.1 --name Hana; exec sleep 600"
	wait_for 'Hosting on port [0-9]+:' 10 h
	HPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
	wait_said 'When an opponent joins, a short countdown starts the duel \(/wait holds it\)' h
	start env XDG_STATE_HOME="$STATE/w" "$WIZWAR" join "127.0.0.1:$HPORT" --name Jo
}

# ==== 1. a quick start: the countdown runs out on both screens and the duel begins ====
host_then_join
wait_for 'Duel in [1-5] s: /wait holds it, /ready starts it now' 10
wait_said 'Options: 25x25, FoV on, potions on, no turn timer\. A short countdown starts the duel' w
ok "the joiner sees the options and the countdown"
wait_for 'Duel in [1-5] s: /wait holds it' 5 h
ok "so does the host"
join_panel h
[ "$(grep -o 'Waiting for an opponent\. Options' "$JOINED" | wc -l)" = 1 ] ||
	fail "the host's waiting line is said $(grep -o 'Waiting for an opponent\. Options' "$JOINED" | wc -l) times"
ok "the host's lobby line is said once"
wait_for 'Round 1: ' 12
wait_for 'Round 1: ' 5 h
ok "nobody typed anything: the duel began when the countdown ran out"

# ==== 2. /wait holds the start until /ready ====
host_then_join
wait_for 'Duel in [1-5] s' 10
say_to w '/wait'
wait_said 'You hold the start\. Type /ready when you are\.' w
sleep 7
capture w
expect_not 'Round 1: ' "after /wait no duel begins by itself"
wait_said 'You are ready; waiting for Jo to be ready' h
ok "the host is told what the duel waits for"
say_to w '/ready'
wait_for 'Round 1: ' 10
wait_for 'Round 1: ' 5 h
ok "/ready after /wait starts the duel"

# ==== 3. the controller changes an option: the countdown stops on both screens ====
host_then_join
wait_for 'Duel in [1-5] s' 10
say_to h '/size 21'
wait_said 'The options changed\. Both players are here\. Options: 21x21' w
ok "the joiner is told that the options changed"
sleep 7
capture w
expect_not 'Round 1: ' "after a change of options no duel begins by itself"
say_to w '/ready'
say_to h '/ready'
wait_for '┌─ 21x21 ─+┐' 10
wait_for 'Round 1: ' 10
ok "both agree with /ready and the duel begins on the options changed"
T kill-session -t w
T kill-session -t h

echo "all lobby tests passed"
