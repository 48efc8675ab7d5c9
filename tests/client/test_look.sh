#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_look: the look cursor in the real curses client (tmux, 80x24): ; puts it on me, move keys move it
# without spending a step, what it says of each square matches what the map draws there, and Esc ends it;
# ? twice shows how to fight as docs/client.md has it; the end offers the all-seeing replay (v).
set -u
WIZWAR="${1:?usage: test_look.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

start "$WIZWAR" practice --seed 5 --bot random --name Tess
wait_for 'Round 1: your move, 5 steps left'

# My @ on the map: its row and column on the screen (the map is the pane left of the second │).
read -r ME_ROW ME_COL < <(python3 -c '
import sys
for r, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    bars = 0
    for c, ch in enumerate(line.rstrip("\n"), 1):
        bars += ch == "│"
        if ch == "@" and bars == 1:
            print(r, c)
            sys.exit(0)
' "$SCREEN")
[ -n "${ME_ROW:-}" ] || fail "no @ on the map"

# The character the map draws at (row, column), as the screen holds it.
cell_at() {
	python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
r, c = int(sys.argv[2]), int(sys.argv[3])
line = lines[r - 1] if 0 < r <= len(lines) else ""
print(line[c - 1] if 0 < c <= len(line) else " ")
' "$SCREEN" "$1" "$2"
}

keys '\;'
wait_for 'Look: You, HP 5\. Floor, in view\.'
ok "; puts the cursor on me and says so"

# Each direction, three squares out, one at a time, and back: the words match the map's character
# under the cursor every time (walls, floor and unknown squares all lie within three of the start).
checked=0
seen=""
for step in "6 0 1 east" "2 1 0 south" "4 0 -1 west" "8 -1 0 north" "3 1 1 south-east" "7 -1 -1 north-west" \
	"9 -1 1 north-east" "1 1 -1 south-west"; do
	read -r key dr dc word <<<"$step"
	for k in 1 2 3; do
		keys "$key"
		capture
		ch="$(cell_at $((ME_ROW + k * dr)) $((ME_COL + k * dc)))"
		case "$ch" in
		'#') want="Look: A wall, (in view|remembered \\(out of view now\\)) \\($k $word\\)" ;;
		'.') want="Look: Floor, (in view|remembered \\(out of view now\\)) \\($k $word\\)" ;;
		' ') want="Look: Unknown: you have not seen this square \\($k $word\\)" ;;
		'!') want="\\($k $word\\)\\. (A|An|You saw) .* potion" ;;
		*) want="Look: .*\\($k $word\\)" ;;
		esac
		join_panel w
		grep -qE -- "$want" "$JOINED" || fail "$k $word the map shows '$ch', and look says: $(grep -oE 'Look: .*' "$JOINED")"
		checked=$((checked + 1))
		seen="$seen$ch"
	done
	back=$((10 - key))
	keys "$back" "$back" "$back"
	join_panel w
	grep -qE 'Look: You, HP 5\.' "$JOINED" || fail "back from the $word, the cursor is not on me"
done
[ "$checked" = 24 ] || fail "only $checked squares checked"
case "$seen" in *'#'*) ;; *) fail "no wall among the squares looked at: pick another seed" ;; esac
case "$seen" in *'.'*) ;; *) fail "no floor among the squares looked at: pick another seed" ;; esac
ok "24 squares in 8 directions: the words match the map's character under the cursor"

capture
expect 'your move, 5 steps left' "looking spends no step"
keys Escape
wait_gone 'Look:'
expect 'your move, 5 steps left' "Esc puts the cursor away, the turn as it was"

# The cursor's keys are the move keys: a real step after Esc moves me.
moved=0
for d in 6 4 2 8 3 1 9 7; do
	keys "$d"
	capture
	if grep -q 'your move, 4 steps left' "$SCREEN"; then
		moved=1
		break
	fi
done
[ "$moved" = 1 ] || fail "no step after look"
ok "moves act again once look has ended"
# ? shows the keys, ? again how to fight: the very page docs/client.md shows, row for row.
keys '?'
wait_for '\? again: how to fight'
keys '?'
wait_for 'wizwar: how to fight'
python3 - "$SCREEN" "${WIZWAR_SRCDIR:-$HERE/../..}/docs/client.md" <<'PY' || fail "the fight page differs from docs/client.md"
import sys
screen = open(sys.argv[1], encoding="utf-8").read().split("\n")
doc = open(sys.argv[2], encoding="utf-8").read()
start = doc.index("turns to **how to fight**")
block = doc[doc.index("```\n", start) + 4:]
block = block[:block.index("```")].rstrip("\n").split("\n")
shown = [line[2:].rstrip() for line in screen[2:2 + len(block)]]
for i, (want, got) in enumerate(zip(block, shown)):
    if want.rstrip() != got:
        print("row %d: screen %r, docs %r" % (i + 3, got, want))
        sys.exit(1)
if len(block) < 15:
    sys.exit("the docs' block is only %d rows" % len(block))
PY
ok "? twice: how to fight, as docs/client.md shows it, within 80x24"
keys Space
wait_gone 'how to fight'
# The end offers the duel's all-seeing replay: v opens it in the replay viewer, q leaves.
keys Q r
wait_for 'GAME OVER'
expect 'v replays the duel all-seeing' "the end box offers the all-seeing replay"
keys v
wait_for 'all-seeing' 10
wait_gone 'GAME OVER'
capture
echo "--- the replay, opened from the end:"
cat "$SCREEN"
expect 'practice-0*5\.log|Tess' "the viewer plays this duel's log"
keys q
wait_for 'STTY$' 10
expect '^EXIT=0$' "the viewer's q leaves, status 0"
echo "all look tests passed"
