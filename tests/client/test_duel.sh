#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_duel: the duel as a player lives it (issue 11), in the real client in tmux: narration of a visible
# opponent, rounds and who moves first, the describe screen, the end (whole level, summary, log, a box
# beside the map that Esc hides), rematch and mirror rematch with their own logs, the full-screen
# history, key presets, the visible clock with its warning, ? in a network duel, TERM=linux and
# TERM=dumb, LANG=C chat, the window at --size 51, and the replay viewer's help at 80 columns.
set -u
WIZWAR="${1:?usage: test_duel.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
LOGS="$STATE/wizwar"
mkdir -p "$STATE"

# ==== 1. told what happens: a visible opponent (FoV off), rounds, who moves first ====
SEED=5
start env XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed "$SEED" --bot random --name Tess --no-fov
wait_for 'Round 1: your move, 5 steps left'
expect 'You move first\.' "the first view says who moves first"
# The describe key: one line on each offered spell, from the table docs/rules.md also holds.
first="$("$WIZWAR" selfplay --seed "$SEED" | grep -m1 '^turn 1:')"
spells="${first#turn 1: P1 to move, offered }"
IFS=',' read -r SPELL1 _ <<<"$spells"
# The spell table comes first in rules.md; its in-game line is the last row naming the spell.
DESC1="$(grep "^| $SPELL1 | " "$SRC/docs/rules.md" | tail -1 | sed "s/^| $SPELL1 | //; s/ |\$//")"
keys I
wait_for 'Your spells and potions'
expect "/ $SPELL1: ${DESC1:0:30}" "I describes spell 1 in the words of docs/rules.md"
expect 'Carried:' "and the potions carried"
keys Space
wait_gone 'Your spells and potions'
# Pass until the opponent, in plain sight, drinks, casts or picks up something.
told=0
for i in $(seq 1 25); do
	keys .
	for ((k = 0; k < 40; k++)); do
		capture
		grep -q 'your move' "$SCREEN" && break
		sleep 0.1
	done
	if grep -qE 'Your opponent (drinks a [a-z]+ potion|casts|picks up a [a-z]+ potion)' "$SCREEN"; then
		told=1
		break
	fi
done
[ "$told" = 1 ] || fail "25 rounds and the visible opponent's actions were never told"
ok "a visible opponent's action is told: $(grep -oE 'Your opponent [^│]*' "$SCREEN" | head -1)"
expect 'Round [0-9]+: your move' "turns are counted in rounds"

# ==== 2. the end: the whole level, a summary, the log; the box beside the map, Esc hides it ====
keys Q r
wait_for 'GAME OVER'
echo "--- the end at 80x24:"
cat "$SCREEN"
expect 'You lose: you forfeited the duel' "the result"
expect 'Tess: lost [0-9]+ HP, regained [0-9]+' "a summary of the duel"
expect 'random bot carried' "what the opponent carried"
expect 'The map shows the whole level' "the whole level is revealed"
expect "^Turn log: $LOGS/practice-0*5\\.log\$" "the end says where the log is, whole, on a line of its own"
ok "where the turn log is"
# The map's frame (23 columns inside) is whole on every row the box covers.
for row in 2 3 4 5 6 7 8; do
	[ "$(sed -n "${row}p" "$SCREEN" | awk -F'│' '{ print length($2) }')" = 23 ] || fail "row $row: the box covers the map"
done
ok "the box leaves the map whole at 80 columns"
keys Escape
wait_gone 'GAME OVER'
ok "Esc puts the box away"
keys Escape
wait_for 'GAME OVER'
ok "and brings it back"

# ==== 3. rematch, mirror rematch; each duel its own log ====
keys r
wait_for 'A new duel begins \(duel 2\)' 15
wait_for 'Round 1: (your|random bot.s) move'
expect_not 'GAME OVER' "the old end is gone"
expect_not 'Over: Q leaves' "no stale end-of-duel line"
ok "r: a rematch, marked in the log"
keys Q r
wait_for 'GAME OVER'
keys m
wait_for 'A new duel begins \(duel 3\)' 15
wait_for 'you are\s*player 2'
expect 'random bot moves first|You move first' "who moves first in the mirror"
ok "m: a mirror rematch, in the other seat"
keys Q y
wait_for 'STTY$' 10
expect '^EXIT=0$' "left after three duels"
T kill-session -t w
n="$(ls "$LOGS"/practice-*.log | wc -l)"
[ "$n" = 3 ] || { ls -l "$LOGS"; fail "three duels, $n logs"; }
seed2="$(sed -n 's/^seed //p' "$(ls -tr "$LOGS"/practice-*.log | sed -n 2p)")"
seed3="$(sed -n 's/^seed //p' "$(ls -tr "$LOGS"/practice-*.log | sed -n 3p)")"
[ -n "$seed2" ] && [ "$seed2" = "$seed3" ] || fail "the mirror's seed $seed3 is not the duel's before it, $seed2"
for f in "$LOGS"/practice-*.log; do
	"$WIZWAR" replay --check "$f" >/dev/null 2>&1 || fail "$f does not replay"
done
ok "three logs, none overwritten, the mirror on the same seed, all replay"
# The same seed again: a log of its own beside the first.
start env XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed "$SEED" --bot random --name Tess
wait_for 'Round 1'
keys Q y
wait_for 'STTY$' 10
expect "Turn log: .*practice-0*5-[0-9]+\\.log" "a seed played again gets a log of its own"
T kill-session -t w

# ==== 4. the full-screen history, page-wise; the vi preset ====
start env XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed "$SEED" --bot random --name Tess --no-log --keys vi
wait_for 'Round 1: your move'
# The action line is the screen's last: a capture can come while the lines above it are drawn.
wait_for 'hjklyubn move|kulnjbhy move' 10
ok "--keys vi: the vi keys on the action line"
keys C-p
wait_for 'Message history'
expect 'Practice against the random bot' "the history holds the first lines"
keys PPage
keys NPage
capture
expect 'Message history' "PgUp and PgDn page through it"
keys q
wait_gone 'Message history'
ok "any other key closes the history"
keys Q y
wait_for 'STTY$' 10
T kill-session -t w
printf 'preset vi\n' >"$TMPD/vi.conf"
"$WIZWAR" keys --file "$TMPD/vi.conf" | grep -q '^# starting preset: vi$' || fail "wizwar keys does not report the file's preset"
ok "wizwar keys reports the preset a file starts from"

# ==== 5. terminals: TERM=dumb refused, TERM=linux memory distinct, LANG=C chat, --size 51 ====
start env TERM=dumb "$WIZWAR" practice --no-log
wait_for 'STTY$' 10
expect 'cannot move the cursor' "TERM=dumb is refused with a reason"
expect_not '^EXIT=0$' "and a failing status"
T kill-session -t w

start env TERM=linux XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed "$SEED" --bot random --no-log
wait_for 'Round 1: your move'
for d in 6 4 2 8 3 1 9 7 6 4; do keys "$d"; done
sleep 0.5
T capture-pane -e -p -t w >"$TMPD/linux"
grep -qE $'\e\\[[0-9;]*34m[#.]' "$TMPD/linux" || { cat -v "$TMPD/linux" | head -30; fail "TERM=linux: no remembered square in blue"; }
ok "TERM=linux: remembered squares are blue, not a dim that the console does not show"
keys Q y
wait_for 'STTY$' 10
T kill-session -t w

start env LANG=C LC_ALL=C XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed 7 --bot random --name Tess
wait_for 'Round 1'
keys Enter
text 'héllo'
keys Enter
wait_for '<Tess> h\?llo'
ok "LANG=C: a non-ASCII key does not eat the keys after it; shown as a stand-in"
keys Q y
wait_for 'STTY$' 10
log="$(grep -oE '/[^ ]*practice-0*7\.log' "$SCREEN" | head -1)"
grep -q '^chat 0 héllo$' "$log" || fail "LANG=C: the chat was not sent as UTF-8"
ok "and sent as the UTF-8 typed"
T kill-session -t w

start env XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed 3 --size 51 --no-log
wait_for 'Round 1'
expect '^┌─ 51x51 x[0-9]+-[0-9]+ y[0-9]+-[0-9]+ ─*┐' "--size 51 at 80x24: the title says which part is in view"
keys Q y
wait_for 'STTY$' 10
T kill-session -t w

# ==== 6. the replay viewer's help fits 80 columns ====
"$WIZWAR" selfplay --seed 21 --quiet --log "$TMPD" >/dev/null
RLOG="$(ls "$TMPD"/selfplay-*.log | head -1)"
start "$WIZWAR" replay "$RLOG"
wait_for 'Replay:'
keys e
keys 0
keys n
capture
expect_not 'A new duel begins' "seeking in a replay is not a new duel"
expect 'moves first\.' "the replay says who moves first"
keys '?'
wait_for 'player 1 or player 2 saw it'
expect 'usage: wizwar replay LOG \[--view 1\|2\|all\]' "the help's first line, whole"
[ "$(wc -L <"$SCREEN")" -le 80 ] || fail "the help is wider than 80 columns"
ok "the replay viewer's help fits 80 columns"
keys q
keys q
wait_for 'STTY$' 10
T kill-session -t w

# ==== 7. a network duel: the clock, its warning, time-up first; ? shows the lobby commands ====
start env XDG_STATE_HOME="$STATE" "$WIZWAR" host --port 0 --bind 127.0.0.1 --name Hana --turn-time 12
wait_for 'Waiting for an opponent'
expect '12 seconds a turn' "the lobby states the turn time"
# The port line is drawn after the first lobby line: wait for it, never read a half-drawn screen.
wait_for 'Hosting on port [0-9]+:'
HPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
"$WIZWAR" bot "127.0.0.1:$HPORT" --level random --name Robo --think 60 --seed 4 \
    >"$TMPD/hbot.out" 2>"$TMPD/hbot.err" &
PIDS+=($!)
wait_for 'Round [0-9]+: your move, 5 steps left +1[0-2]s' 30
ok "the clock shows the seconds left on my move"
wait_for 'your move, 5 steps left +([0-9]|10)s left!' 10
ok "the last ten seconds stand out"
wait_for 'Time is up: your turn passes' 10
grep -A1 'Time is up' "$SCREEN" | grep -q 'You end your turn' && fail "time-up followed by a pass I did not make"
ok "time-up is told, and not after a pass I did not make"
keys '?'
wait_for '/rematch /mirror'
ok "? in a network duel lists the lobby commands"
keys Space
keys Q y
wait_for 'STTY$' 10
T kill-session -t w

echo "all duel screen tests passed"
