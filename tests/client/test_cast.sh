#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_cast: `wizwar replay LOG --asciicast` writes asciicast v3 (castcheck.py reads it strictly), and its
# screen at chosen turns, played into a tmux pane, is the replay viewer's after "g TURN Enter", cell for
# cell with colours (tmux is the terminal of both; only "playing" vs "paused" differs, by design).
set -u
WIZWAR="${1:?usage: test_cast.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

# A short duel (112 commands) with spells, so with effects frames, to its end.
"$WIZWAR" selfplay --seed 1 --bots hard,hard --log "$TMPD" --quiet >/dev/null || fail "selfplay could not record a duel"
LOG="$TMPD/selfplay-0000000000000001.log"
N="$(grep -cE '^[01] ' "$LOG")"
CAST="$TMPD/duel.cast"

"$WIZWAR" replay "$LOG" --asciicast >"$CAST" 2>"$TMPD/err" || fail "--asciicast failed: $(cat "$TMPD/err")"
sum="$(python3 "$HERE/castcheck.py" "$CAST")" || fail "not asciicast v3"
echo "$sum"
read -r word size events markers _ <<<"$sum"
[ "$word $size" = "ok 80x24" ] || fail "the header: $sum"
[ "$events" -gt "$((N + markers))" ] || fail "$events events for $N commands"
LAST="$(grep -oE '"m", "turn [0-9]+"' "$CAST" | tail -1 | grep -oE '[0-9]+')"
[ "$markers" -eq "$((LAST + 1))" ] || fail "markers are not turns 1..$LAST and the end"
ok "asciicast v3: $events events for $N commands, a marker at each of $LAST turns"

"$WIZWAR" replay "$LOG" --asciicast --view 1 --term-size 100x30 >"$TMPD/p1.cast" || fail "--view 1 failed"
python3 "$HERE/castcheck.py" "$TMPD/p1.cast" | grep -q '^ok 100x30 ' || fail "--view 1 --term-size 100x30"
cmp -s "$CAST" "$TMPD/p1.cast" && fail "player 1's view is the all-seeing one"
ok "--view 1 --term-size 100x30: another cast, still v3"
if "$WIZWAR" replay "$LOG" --asciicast --term-size 79x24 >/dev/null 2>"$TMPD/err"; then
	fail "a 79-column cast was written"
fi
grep -q 'term-size takes COLSxROWS' "$TMPD/err" || fail "no reason for 79x24: $(cat "$TMPD/err")"
ok "--term-size under 80x24 is refused"
printf 'not a log\n' >"$TMPD/bad.log"
if "$WIZWAR" replay "$TMPD/bad.log" --asciicast >"$TMPD/bad.cast" 2>"$TMPD/err"; then
	fail "a broken log made a cast"
fi
[ ! -s "$TMPD/bad.cast" ] || fail "a broken log wrote a partial cast"
ok "a broken log is refused before anything is written"

# The viewer, as an xterm-256color (the cast's terminal), jumps to each turn; the cast's bytes up to that
# turn's marker are played into a pane of the same size: the two screens must be the same.
start env TERM=xterm-256color LC_ALL=C.UTF-8 "$WIZWAR" replay "$LOG"
wait_for "Replay: paused"
expect 'g turn' "the viewer's key line offers g"
TURNS="1 $((LAST / 2)) $LAST"
for turn in $TURNS; do
	keys g
	wait_for 'Jump to turn: _'
	text "$turn"
	keys Enter
	wait_for "Replay: paused, 1x, turn $turn, command"
	T capture-pane -e -p -t w >"$TMPD/viewer.$turn"
done
keys e
wait_for "Replay: at the end, 1x, turn $LAST, command $N/$N"
T capture-pane -e -p -t w >"$TMPD/viewer.end"
ok "g jumps to turns $TURNS"
# A turn's marker follows the frame that first shows it: the bytes before it are that screen.
LABELS=(end)
for t in $TURNS; do LABELS+=("turn $t"); done
python3 "$HERE/castcheck.py" "$CAST" --frames "$TMPD" "${LABELS[@]}" >/dev/null || fail "no frames"
for turn in $TURNS end; do
	T kill-session -t c 2>/dev/null
	if [ "$turn" = end ]; then
		T new-session -d -s c -x 80 -y 24 "cat '$TMPD/end'; exec sleep 600"
		wait_for "Replay: at the end, 1x, turn $LAST, command $N/$N" 10 c
	else
		T new-session -d -s c -x 80 -y 24 "cat '$TMPD/turn-$turn'; exec sleep 600"
		wait_for "Replay: playing, 1x, turn $turn, command" 10 c
	fi
	T capture-pane -e -p -t c | sed -e 's/Replay: playing/Replay: paused/' >"$TMPD/cast.$turn"
done
python3 "$HERE/cells.py" $(for t in $TURNS end; do echo "$TMPD/viewer.$t $TMPD/cast.$t"; done)
for turn in $TURNS end; do
	[ "$(grep -c -v blank "$TMPD/viewer.$turn.cells")" -gt 500 ] || fail "turn $turn: the viewer's screen is nearly empty"
	if ! diff "$TMPD/viewer.$turn.cells" "$TMPD/cast.$turn.cells" >"$TMPD/diff"; then
		cat "$TMPD/diff"
		fail "turn $turn: the cast's screen is not the viewer's"
	fi
	ok "turn $turn: the cast's screen is the viewer's, cell for cell with colours"
done
keys g
text 12
keys Escape
wait_for 'g turn'
expect "turn $LAST, command" "Esc gives up the jump"
keys g
text 99999
keys Enter
wait_for "Replay: at the end, 1x, turn $LAST, command $N/$N"
ok "a turn past the end jumps to the end"
keys g
text 07
keys BSpace
text 3
keys Enter
wait_for "Replay: paused, 1x, turn 3, command"
ok "only digits are typed, Backspace takes one back"
keys q
wait_for 'STTY$' 10
expect '^EXIT=0$' "q leaves with status 0"
echo "PASS"
