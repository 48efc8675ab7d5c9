#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_screen: the real curses client in tmux, playing a scripted practice duel against the random bot:
# map, HP, offered spells, moves, casting, chat, help, resize, inventory, quit with confirmation, the
# end-of-game screen, the turn log, Ctrl-C and NO_COLOR, and that the terminal is restored after each.
set -u
WIZWAR="${1:?usage: test_screen.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

SEED=5
STATE="$TMPD/state"
mkdir -p "$STATE"

# The duel's set-up comes from the rules, so ask them rather than hard-coding spell names here.
first="$("$WIZWAR" selfplay --seed "$SEED" | grep -m1 '^turn 1:')"
case "$first" in
"turn 1: P1 to move, offered "*) ;;
*) echo "seed $SEED no longer lets player 1 move first ($first): pick another"; exit 1 ;;
esac
spells="${first#turn 1: P1 to move, offered }"
IFS=',' read -r SPELL1 SPELL2 SPELL3 <<<"$spells"
SPELL2="${SPELL2# }"
SPELL3="${SPELL3# }"

start env XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed "$SEED" --bot random --name Tess

# ---- the main screen at 80x24 ----
wait_for 'Round 1: your move, 5 steps left'
# The header can be drawn a frame before the first view reaches the map ("waiting..." there): a full
# run under load captured that frame and found no @.
wait_gone 'waiting\.\.\.'
echo "--- the main screen at 80x24:"
cat "$SCREEN"
expect '^┌─ 25x25 ─+┐' "the map's frame (the level's outer wall) at the top left"
expect_not '└' "no bottom frame row at 24 rows: the inside fills the height"
awk -F'│' '{ print $2 }' "$SCREEN" | grep -q '@' || fail "no @ on the map"
ok "my @ on the map"
expect 'Tess HP 5/5 +vs +random bot HP 5/5' "both wizards' HP"
expect "Spells / $SPELL1" "spell 1 offered, with its key"
expect "\\* $SPELL2" "spell 2 offered, with its key"
expect "- $SPELL3" "spell 3 offered, with its key"
expect 'Potions 1 ' "the inventory"
expect '1-9 move +/ \* - cast' "the actions available now"
expect '── Messages ─' "the message log"
[ "$(wc -L <"$SCREEN")" -le 80 ] || fail "wider than 80 columns"

# ---- a step: try directions until one is open ----
moved=0
for d in 6 4 2 8 3 1 9 7; do
	keys "$d"
	capture
	if grep -q 'your move, 4 steps left' "$SCREEN"; then
		moved=1
		break
	fi
done
[ "$moved" = 1 ] || fail "no direction was open"
ok "a step spends one of the 5 steps"

# ---- chat, UTF-8 in and out ----
keys Enter
wait_for 'Say:'
text 'hello wörld ☃ 🙂'
wait_for 'Say: hello wörld ☃'
keys Enter
wait_for '<Tess> hello wörld ☃'
ok "chat echoed in the log, UTF-8 intact"
# A control character typed into chat goes nowhere.
keys Enter
T send-keys -t w C-g
text 'x'
keys Enter
wait_for '<Tess> x$'
ok "a control character is not part of a chat line"

# ---- help ----
keys '?'
wait_for 'wizwar: keys'
expect 'cast spell 1' "help lists the actions"
expect 'asks for a move key' "help explains directions"
keys Space
wait_for '── Messages ─'
ok "any key closes the help"

# ---- resize to 100x30 and back ----
T resize-window -t w -x 100 -y 30
SCREEN_W=100
SCREEN_H=30
wait_for '^└─+┘'
expect '^┌─ 25x25 ─+┐' "the whole map with its frame at 100x30"
expect 'Tess HP' "the side panel after a resize"
T resize-window -t w -x 80 -y 24
SCREEN_W=80
SCREEN_H=24
wait_gone '^└─+┘'
wait_for '^┌─ 25x25 ─+┐'
expect_not '^└─+┘' "back to 80x24: the map's inside fills the height again"
T resize-window -t w -x 60 -y 20
wait_for 'wizwar needs 80x24'
ok "a terminal too small says so"
T resize-window -t w -x 80 -y 24
wait_for 'Tess HP'

# ---- cast spell 1 (a directional spell asks which way) ----
keys /
capture
if grep -q 'which way' "$SCREEN"; then
	ok "a directional spell asks for a direction"
	keys 8
fi
wait_for "You cast $SPELL1"
ok "casting puts the spell in the log"
# The bot moves now, a step at a time; then it is my move again.
wait_for 'Round 2: your move' 30
ok "the bot played its turn"
expect_not 'Round 2: .*random bot' "whose move it is"

# ---- the inventory prompt ----
if grep -q 'Potions 1 ' "$SCREEN"; then
	keys +
	wait_for 'Quaff which potion'
	keys Escape
	wait_gone 'Quaff which potion'
	ok "the inventory prompt opens and Esc closes it"
fi

# ---- a key that does nothing says so ----
keys F12
wait_for 'does nothing here'
ok "an unbound key is explained"

# ---- quit asks first; "r" forfeits and stays for the end-of-game screen ----
keys Q
wait_for 'Forfeit and quit\?'
ok "quitting a running duel asks first"
keys n
wait_for 'The duel goes on'
ok "n keeps the duel"
keys Q
wait_for 'Forfeit and quit\?'
keys r
wait_for 'GAME OVER'
expect 'You lose: you forfeited the duel' "the end-of-game screen"
expect 'You forfeit the duel' "the forfeit in the log"
expect 'Q leaves' "how to leave"
# Game keys are refused now; Q leaves without asking.
keys 5
wait_for 'The duel is over: Q leaves'
keys Q
wait_for 'STTY$' 10
expect '^EXIT=0$' "the client exited with status 0"
expect '^(echo icanon|icanon echo) STTY$' "the terminal is back in cooked mode with echo"
expect 'You lose: you forfeited the duel' "the result is printed after the screen is restored"
expect "Turn log: .*/wizwar/practice-0*5\\.log" "the turn log's path is shown"
log="$STATE/wizwar/practice-0000000000000005.log"
[ -f "$log" ] || fail "no turn log at $log"
"$WIZWAR" replay --check "$log" >"$TMPD/check" 2>&1 || { cat "$TMPD/check"; fail "the turn log does not replay"; }
grep -q 'finished' "$TMPD/check" || fail "the turn log has no end"
grep -q '^chat 0 hello wörld' "$log" || fail "the chat is not in the turn log"
ok "the turn log replays exactly, chat included"
T kill-session -t w

# ---- Ctrl-C: a clean exit with the terminal restored (in a duel it asks first: twice leaves) ----
start "$WIZWAR" practice --seed 9 --bot random --no-log
wait_for 'Tess|you HP'
keys C-c
wait_for 'Forfeit and quit\?' 5
keys C-c
wait_for 'STTY$' 10
expect '^EXIT=130$' "Ctrl-C exits with 130"
expect '^(echo icanon|icanon echo) STTY$' "the terminal is restored after Ctrl-C"
T kill-session -t w

# ---- colour, and none under NO_COLOR ----
start "$WIZWAR" practice --seed 9 --no-log
wait_for 'HP 5/5'
T capture-pane -e -p -t w >"$TMPD/colour"
grep -qE $'\e\\[[0-9;]*3[0-7](;|m)|\e\\[[0-9;]*38;5;' "$TMPD/colour" || fail "no colour by default"
ok "colour on a colour terminal"
keys Q y
wait_for 'STTY$' 10
T kill-session -t w
start env NO_COLOR=1 "$WIZWAR" practice --seed 9 --no-log
wait_for 'HP 5/5'
T capture-pane -e -p -t w >"$TMPD/mono"
if grep -qE $'\e\\[[0-9;]*3[0-7](;|m)|\e\\[[0-9;]*38;5;|\e\\[[0-9;]*4[0-7](;|m)' "$TMPD/mono"; then
	fail "colour under NO_COLOR"
fi
ok "no colour under NO_COLOR"
keys Q y
wait_for 'STTY$' 10
expect '^EXIT=0$' "quit with y exits with status 0"

echo "all screen tests passed"
