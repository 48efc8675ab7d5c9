#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hitdir: hurt from out of sight in the real curses client (tmux, 80x24), the narration says where the
# effect was seen and no more, and look (;) finds it on the squares around. Seed 5 at 15x15 (rules version 4; it
# was Rays of Cold on 11 squares under 3): the hard bot, unseen, strikes with Fire Storm while I only end my turns,
# and 17 squares I see burn.
set -u
WIZWAR="${1:?usage: test_hitdir.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

start "$WIZWAR" practice --seed 5 --bot hard --size 15 --no-log
wait_for 'Round 1: '
hurt=0
for ((turn = 0; turn < 12; turn++)); do
	wait_for 'your move, 5 steps left|GAME OVER' 15
	join_panel w
	if grep -qE 'You are hurt by' "$JOINED"; then
		hurt=1
		break
	fi
	grep -q 'GAME OVER' "$SCREEN" && fail "the duel ended before I was hurt"
	r0="$(grep -oE 'Round [0-9]+' "$SCREEN" | head -1)"
	keys .
	for ((i = 0; i < 15 * 20; i++)); do
		capture
		r="$(grep -oE 'Round [0-9]+' "$SCREEN" | head -1)"
		[ "$r" != "$r0" ] && grep -qE 'your move, 5 steps left|GAME OVER' "$SCREEN" && break
		sleep 0.05
	done
done
[ "$hurt" = 1 ] || fail "not hurt in 12 turns: the bot or the seed changed"
expect_not "Your opponent" "the opponent's cast is not narrated: it was not seen"
# The opponent is nowhere on the map: no red @ (SGR 31) left of the second │.
T capture-pane -e -p -t w >"$TMPD/colour"
python3 - "$TMPD/colour" <<'PY' || fail "the opponent is on the map: this is not a hit from the dark"
import re, sys
for line in open(sys.argv[1], encoding="utf-8"):
    bars, fg = 0, None
    for tok in re.findall(r"\x1b\[[0-9;]*m|.", line.rstrip("\n")):
        if tok.startswith("\x1b["):
            ps = [int(p) if p else 0 for p in tok[2:-1].split(";")]
            fg = None if 0 in ps else next((p for p in ps if 30 <= p <= 37), fg)
            continue
        bars += tok == "│"
        if bars == 1 and tok == "@" and fg == 31:
            sys.exit(1)
PY
wait_said 'You are hurt by fire \(-1 HP\)! You saw the fire on 17 squares around you \(; looks at them until the next move\)\.' w
ok "hurt from the dark: the narration says where the fire was seen (17 squares around me)"

# Look at the eight squares around me: the struck ones say so, and at least one of them is struck.
struck=0
keys '\;'
wait_for 'Look: You'
for d in 8 9 6 3 2 1 4 7; do
	keys "$d"
	capture
	grep -q 'Struck by fire a moment ago' "$SCREEN" && struck=$((struck + 1))
	keys "$((10 - d))"
done
keys Escape
[ "$struck" -ge 1 ] || fail "no square around me says it was struck by fire"
ok "look finds the fire on $struck of the 8 squares around me"
keys Q y
wait_for 'STTY$' 15
expect '^EXIT=0$' "practice exits 0"
echo "all hit-direction tests passed"
