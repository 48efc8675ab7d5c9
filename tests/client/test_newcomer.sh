#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_newcomer: what a newcomer met (issue 27), in the real client in tmux over loopback TCP:
#  1. the header names the missing opponent while a server room waits for one; the join line and the
#     room code have a row of their own, whole, and are printed again when the screen closes;
#  2. with --turn-time the clock counts the first turn on both screens (it showed "0s left!");
#  3. a joiner killed and run again in the opponent's turn does not show time the opponent no
#     longer has ("?s": that turn began unseen), and counts its own next turn again;
#  4. Ctrl-C in a duel asks as Q does; n goes on; a second Ctrl-C within a few seconds forfeits.
set -u
WIZWAR="${1:?usage: test_newcomer.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE"

# ==== 1. a server room waiting: the header says there is no opponent yet ====
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --bind 127.0.0.1 --port 0 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Tess
wait_for 'Waiting for an opponent'
expect '^┌─ 25x25 ─+┐ Tess HP 5/5 +vs +no opponent yet' "the header names no opponent while the room waits"
ROOM="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
expect "^wizwar join 127\\.0\\.0\\.1:$PORT --room $ROOM *\$" "the room's join command has a row of its own, whole"
keys Q
wait_for 'STTY$' 10
expect "^wizwar join 127\\.0\\.0\\.1:$PORT --room $ROOM\$" "and is printed again when the screen closes"
T kill-session -t w

# ==== 2. a timed duel between a host (h) and a joiner (w): the first turn's clock ====
T new-session -d -s h -x 80 -y 24 \
    "env XDG_STATE_HOME='$STATE/h' '$WIZWAR' host --port 0 --bind 127.0.0.1 --name Hana --turn-time 40; exec sleep 600"
wait_for 'Hosting on port [0-9]+:' 10 h
HPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
expect "^wizwar join 127\\.0\\.0\\.1:$HPORT#[a-z2-7]+ *\$" "the host's join line has a row of its own, whole"
start env XDG_STATE_HOME="$STATE/w" "$WIZWAR" join "127.0.0.1:$HPORT" --name Jo
wait_for 'Round 1: ' 20
wait_for 'Round 1: ' 20 h
sleep 1.5
for t in w h; do
	capture "$t"
	grep -qE 'Round 1: [^│]*  (3[0-9]|40)s' "$SCREEN" || fail "the first turn's clock on $t does not count from 40 s"
	expect_not '0s left!' "no '0s left!' on the first turn ($t)"
done
ok "the first turn's clock counts down from the turn time on both screens"

# ==== 3. the joiner killed in the host's turn and run again: the host's time is not made up ====
capture w
if grep -q 'Round 1: your move' "$SCREEN"; then
	keys .
	wait_for "Round 1: Hana's move" 10
fi
wait_for 'Round [0-9]+: your move' 10 h
JPID="$(pgrep -P "$(T display -p -t w '#{pane_pid}')" | head -1)"
[ -n "$JPID" ] || fail "no joiner process to kill"
kill -9 "$JPID"
for ((i = 0; i < 100; i++)); do kill -0 "$JPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$JPID" 2>/dev/null && fail "the joiner outlived kill -9"
sleep 2
T kill-session -t w
start env XDG_STATE_HOME="$STATE/w" "$WIZWAR" join "127.0.0.1:$HPORT" --name Jo
wait_for 'Back in the duel' 20
wait_for "Round [0-9]+: Hana's move" 10
expect "Round [0-9]+: Hana's move  \\?s" "the opponent's turn begun unseen shows no made-up time"
# The host ends its turn: the joiner's own turn is counted again.
T send-keys -t h .
wait_for 'Round [0-9]+: your move, 5 steps left  (3[0-9]|40)s' 10
ok "after the resume, the joiner's own next turn is counted from the turn time"

# ==== 4. Ctrl-C in a duel asks first ====
keys C-c
wait_for 'Forfeit and quit\? y/\^C yes, r forfeit but stay, n no' 5
ok "Ctrl-C in a duel asks, as Q does"
keys n
wait_for 'The duel goes on' 5
expect 'Round [0-9]+: your move' "n: the duel goes on"
capture h
expect_not 'GAME OVER' "the host was told nothing"
sleep 3.5 # more than the confirming window: a lone second Ctrl-C asks again
keys C-c
wait_for 'Forfeit and quit\?' 5
keys C-c
wait_for 'STTY$' 10
expect '^EXIT=130$' "a second Ctrl-C within the window leaves (status 130)"
wait_for 'GAME OVER' 10 h
expect 'You win' "the host wins by the forfeit"
T kill-session -t w
T kill-session -t h

echo "all newcomer screen tests passed"
