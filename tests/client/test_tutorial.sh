#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_tutorial: `wizwar tutorial` in the real curses client (tmux, 80x24), played by a scripted newcomer who
# reads only the screen: the guide's words say which key to press, the map where the potion and the @ are.
# Each step must be taken from what the guide says and must move the guide on; the last is shown, and the
# end of the duel (a loss or a forfeit) keeps the steps done.
set -u
WIZWAR="${1:?usage: test_tutorial.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

start "$WIZWAR" tutorial --name Newt
wait_for 'Tutorial 1/6'

# The guide's sentence, from the side panel joined into one line.
guide() {
	join_panel w
	grep -oE 'Tutorial [0-9]/6, .*── Messages' "$JOINED" | sed 's/ ── Messages$//'
}
# A key the guide names, for tmux: a lone ; would end tmux's command.
tk() {
	case "$1" in
	';') printf '%s' '\;' ;;
	Esc) printf '%s' Escape ;;
	*) printf '%s' "$1" ;;
	esac
}
step_is() {
	join_panel w
	grep -qE "Tutorial $1/6" "$JOINED"
}
wait_step() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		step_is "$1" && return 0
		sleep 0.05
	done
	fail "waited for the guide's step $1; it says: $(guide)"
}
# The round shown, to see a turn go by.
round() {
	capture
	grep -oE 'Round [0-9]+: your move' "$SCREEN" | grep -oE '[0-9]+' | head -1
}

# 1: move. "Step with the move keys (N north, W west, or the arrows)".
g="$(guide)"
read -r NORTH WEST < <(sed -nE 's/.*move keys \((.+) north, (.+) west.*/\1 \2/p' <<<"$g")
[ -n "${NORTH:-}" ] || fail "step 1 names no keys: $g"
for k in "$NORTH" "$WEST" Down Right; do
	keys "$(tk "$k")"
	step_is 2 && break
done
wait_step 2
ok "1/6 move: the key the guide named moved me, and the guide moved on"

# 2: look. "press L, move the cursor over a square ..., E to stop."
g="$(guide)"
read -r LOOK STOP < <(sed -nE 's/.*press (.+), move the cursor.*, (.+) to stop.*/\1 \2/p' <<<"$g")
[ -n "${LOOK:-}" ] || fail "step 2 names no key: $g"
keys "$(tk "$LOOK")"
wait_for 'Look: You'
step_is 2 || fail "looking at my own square is not a look yet"
for k in "$NORTH" "$WEST" Down Right; do
	keys "$(tk "$k")"
	step_is 3 && break
done
wait_step 3
keys "$(tk "$STOP")"
wait_gone 'Look:'
ok "2/6 look: the cursor moved off me, and the guide moved on"

# 3: cast. "press A, B or C to cast one (an aimed one asks a direction)". The first; aimed: north.
g="$(guide)"
read -r CAST1 < <(sed -nE 's/.*press ([^,]+), .* to cast one.*/\1/p' <<<"$g")
[ -n "${CAST1:-}" ] || fail "step 3 names no key: $g"
# Any of the three will do; a curious newcomer takes Life Detection when the panel shows it offered,
# which finds the opponent before the guide asks (a step done early counts: 5/6 is then skipped).
capture
LD="$(sed -n '/Spells /,/Potions /p' "$SCREEN" | grep -oE '([^ ]) Life Detection' | head -1 | cut -c1)"
r0="$(round)"
keys "$(tk "${LD:-$CAST1}")"
capture
if grep -q 'which way?' "$SCREEN"; then
	keys "$(tk "$NORTH")"
fi
wait_step 4 15
[ "$(round)" != "$r0" ] || fail "the cast did not end the turn"
ok "4/6 shown once the cast ended the turn"

# 4: potions. "walk onto a ! you have not identified and press D to drink it". The nearest ! on the map,
# walked to with the arrows (the map is left of the second │; squares are one character each).
g="$(guide)"
read -r DRINK < <(sed -nE 's/.*and press (.+) to drink it.*/\1/p' <<<"$g")
[ -n "${DRINK:-}" ] || fail "step 4 names no key: $g"
wait_for 'your move, 5 steps left' # the bot's turn and its effects are over: the map is the new one
# With its colours: the guide says I am the white @, and the opponent's is red (SGR 31).
T capture-pane -e -p -t w >"$TMPD/colour"
read -r DR DC < <(python3 -c '
import re, sys
me, pots = None, []
for r, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    bars, c, fg = 0, 0, None
    for tok in re.findall(r"\x1b\[[0-9;]*m|.", line.rstrip("\n")):
        if tok.startswith("\x1b["):
            ps = [int(p) if p else 0 for p in tok[2:-1].split(";")]
            i = 0
            while i < len(ps):
                if ps[i] == 0:
                    fg = None
                elif 30 <= ps[i] <= 37:
                    fg = ps[i]
                elif ps[i] == 38:
                    fg, i = 38, i + 2
                i += 1
            continue
        bars += tok == "│"
        if bars == 1 and tok == "@" and fg != 31:
            me = (r, c)
        elif bars == 1 and tok == "!":
            pots.append((r, c))
        c += 1
if me is None or not pots:
    sys.exit(1)
p = min(pots, key=lambda p: max(abs(p[0] - me[0]), abs(p[1] - me[1])))
print(p[0] - me[0], p[1] - me[1])
' "$TMPD/colour") || fail "no white @ or no ! on the map"
echo "# the nearest potion: $DR rows, $DC columns away"
[ $((${DR#-} + ${DC#-})) -le 5 ] || fail "the nearest potion is $DR,$DC away: more than a turn's steps"
for ((i = 0; i < ${DR#-}; i++)); do keys "$([ "$DR" -gt 0 ] && echo Down || echo Up)"; done
for ((i = 0; i < ${DC#-}; i++)); do keys "$([ "$DC" -gt 0 ] && echo Right || echo Left)"; done
wait_said 'You stand on .* potion' w
keys "$(tk "$DRINK")"
wait_said 'It was a potion of' w
ok "the potion drunk was named"
for ((i = 0; i < 10 * 20; i++)); do
	step_is 5 || step_is 6 && break
	sleep 0.05
done
step_is 5 || step_is 6 || fail "the guide did not move past the potion: $(guide)"
ok "4/6 potions: drinking an unknown potion moved the guide on"

# 5: find. Cast Life Detection or Telepathy when offered (the key drawn before it), else end the turn
# (the actions line names its key) and walk towards the middle of the level with the arrows.
wait_for 'your move, 5 steps left' 15
END="$(capture; grep -oE '[^ ]+ end turn' "$SCREEN" | head -1 | cut -d' ' -f1)"
[ -n "$END" ] || fail "no end-turn key on the actions line"
for ((turn = 0; turn < 20; turn++)); do
	step_is 6 && break
	capture
	if grep -q 'GAME OVER' "$SCREEN"; then
		break
	fi
	# The spells offered: the rows from "Spells" to "Potions", each name after its key.
	k="$(sed -n '/Spells /,/Potions /p' "$SCREEN" | grep -oE '([^ ]) (Life Detection|Telepathy)' | head -1 | cut -c1)"
	r0="$(round)"
	if [ -n "$k" ]; then
		keys "$(tk "$k")"
	else
		keys Right Right "$(tk "$END")"
	fi
	for ((i = 0; i < 10 * 20; i++)); do
		r="$(round)"
		[ -n "$r" ] && [ "$r" != "$r0" ] && break
		capture
		grep -q 'GAME OVER' "$SCREEN" && break
		sleep 0.05
	done
done
step_is 6 || fail "the opponent was not found in 20 turns"
g="$(guide)"
ok "5/6 find (Life Detection found it early, or the turns after): the guide says: $g"
grep -qE 'win: bring its HP to 0' <<<"$g" || fail "step 6 does not ask for the win"
# Its pointer to the fight page: the key it names, twice.
HELPK="$(sed -nE 's/.*needs sight\. (.+) twice: how to fight.*/\1/p' <<<"$g")"
[ -n "$HELPK" ] || fail "step 6 names no help key: $g"
keys "$(tk "$HELPK")" "$(tk "$HELPK")"
wait_for 'wizwar: how to fight'
keys Space
wait_gone 'wizwar: how to fight'
ok "6/6 win: the key it names for how to fight opens that page"

# 6: the win is the newcomer's own; the scripted one forfeits. The duel ends as a loss, and the program
# says so on the way out.
keys Q
wait_for 'forfeit'
keys y
wait_for 'STTY$' 15
expect 'You lose: you forfeited the duel' "leaving forfeits the tutorial's duel"
expect '^EXIT=0$' "the tutorial exits 0"
echo "all tutorial tests passed"
