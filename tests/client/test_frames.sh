#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_frames: the curses client's frames reach the terminal whole. ncurses flushed at every cursor move
# until its screen had been through endwin() once (client/ui.c, ui_start), so a frame left in some 40
# writes and a capture between two showed the new header ("your move") over the old map ("waiting...")
# or the old spells and actions. Here, in tmux, a practice duel:
#  1. captured as fast as tmux answers from its start and across three turn changes each way, every capture
#     agrees with itself: "your move" in the header, then no "waiting..." on the map, the spells offered
#     and "cast" among the actions; the opponent's move, then "offered on your move" and no "cast";
#  2. a whole-screen repaint (the ? page, and back) is at most 2 writes (the client's syscw in
#     /proc/PID/io, counted while nothing else in it writes): it was one a row or two, some 25 to 45.
set -u
WIZWAR="${1:?usage: test_frames.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

# burst N PREFIX: N captures as fast as tmux answers, into PREFIX.1 .. PREFIX.N (checked after: a check
# between captures would leave the frames it should catch unseen).
burst() {
	local i
	for ((i = 1; i <= $1; i++)); do T capture-pane -p -t w >"$2.$i" 2>/dev/null; done
}
# agree FILE: the capture shows one state (see above); otherwise fail with it.
agree() {
	local why=""
	if grep -qE 'Round [0-9]+: your move' "$1"; then
		grep -qF 'waiting...' "$1" && why="'your move' in the header, 'waiting...' on the map"
		grep -qF 'offered on your move' "$1" && why="'your move' in the header, the spells still not offered"
		grep -qE '/ \* - cast' "$1" || why="'your move' in the header, no cast among the actions"
	elif grep -qE "Round [0-9]+: random bot's move" "$1"; then
		grep -qF 'offered on your move' "$1" || why="the opponent's move in the header, the spells still offered"
		grep -qE '/ \* - cast' "$1" && why="the opponent's move in the header, cast still among the actions"
	fi
	if [ -n "$why" ]; then
		cp "$1" "$SCREEN"
		fail "a frame seen half drawn: $why"
	fi
}
writes() { awk '/^syscw:/ { print $2 }' "/proc/$C/io"; }
# settled: until the client has written nothing for 0.2 s (its frame whole, whatever the load).
settled() {
	local a b i
	b="$(writes)"
	for ((i = 0; i < 50 * WAIT_SCALE; i++)); do
		sleep 0.2
		a="$b"
		b="$(writes)"
		[ "$a" = "$b" ] && return 0
	done
	fail "the client kept writing for $((10 * WAIT_SCALE)) s"
}

start env LANG=C.UTF-8 "$WIZWAR" practice --seed 5 --bot random --name Tess --no-log
burst 100 "$TMPD/start"
wait_for 'Round 1: your move'
C="$(pane_wizwar w practice)"
n=0
for f in "$TMPD"/start.*; do
	agree "$f"
	grep -qE 'Round 1: your move' "$f" && n=$((n + 1))
done
echo "# the start: $n of 100 captures already showed the first move"
ok "the duel's start, captured as fast as tmux answers: the header and the map agree in every capture"

# Three turns each way: end the turn, capture through the bot's turn until the next move is mine.
for round in 2 3 4; do
	keys .
	k=0
	while :; do
		k=$((k + 1))
		burst 20 "$TMPD/r$round.$k"
		grep -qE "Round $round: your move" "$TMPD/r$round.$k.20" && break
		[ $k -lt $((40 * WAIT_SCALE)) ] || fail "round $round never came to my move"
	done
	for f in "$TMPD/r$round".*; do agree "$f"; done
done
ok "three turn changes each way, captured through: every capture shows one turn"

settled
before="$(writes)"
keys '?'
wait_for 'wizwar: keys'
settled
after="$(writes)"
[ $((after - before)) -le 2 ] || fail "the ? page took $((after - before)) writes, not at most 2"
keys Space
wait_for 'Round 4: your move'
settled
back="$(writes)"
[ $((back - after)) -le 2 ] || fail "the duel's screen, drawn again, took $((back - after)) writes, not at most 2"
ok "a whole-screen repaint is one frame: the ? page in $((after - before)) writes, back in $((back - after))"
keys Q
wait_for 'Forfeit and quit'
keys y
wait_for 'EXIT='
ok "quit"
