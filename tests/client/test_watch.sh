#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_watch: the replay viewer in tmux on a recorded selfplay duel: step, back, start, end, speed,
# viewpoints, help, and a clean exit with the terminal restored.
set -u
WIZWAR="${1:?usage: test_watch.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

"$WIZWAR" selfplay --seed 3 --log "$TMPD" --quiet >/dev/null || fail "selfplay could not record a duel"
LOG="$TMPD/selfplay-0000000000000003.log"
[ -f "$LOG" ] || fail "no log at $LOG"
N="$(grep -cE '^[01] ' "$LOG")"
NAME0="$(sed -n 's/^player 0 //p' "$LOG")"

# `wizwar replay LOG` (without --check or --text) is the viewer.
VIEW=replay

start "$WIZWAR" "$VIEW" "$LOG"
wait_for "Replay: paused"
echo "--- the replay viewer at 80x24:"
cat "$SCREEN"
expect "command 0/$N" "starts at the beginning"
expect 'View: all-seeing' "all-seeing by default"
expect '^┌─ 25x25 ─+┐' "the map"
awk -F'│' '{ print $2 }' "$SCREEN" | grep -q '@' || fail "no wizard on the map"
ok "wizards on the map"
keys n n n
wait_for "command 3/$N"
ok "n steps forward"
keys b
wait_for "command 2/$N"
ok "b steps back"
keys Right
wait_for "command 3/$N"
keys Left Left
wait_for "command 1/$N"
ok "arrow keys step too"
keys 0
wait_for "command 0/$N"
ok "0 goes back to the start"
keys +
wait_for "Replay: paused, 2x"
keys - -
wait_for "Replay: paused, 0.5x"
ok "+ and - change the speed"
keys + + + +
wait_for "Replay: paused, 16x"
keys Space
wait_for "Replay: playing"
sleep 1
capture
pos="$(grep -oE 'command [0-9]+/' "$SCREEN" | grep -oE '[0-9]+')"
[ "${pos:-0}" -gt 0 ] || fail "playing did not advance"
ok "space plays (at command $pos after a second)"
keys Space
wait_for "Replay: paused"
keys v
wait_for "View: $NAME0"
ok "v switches to player 0's view"
keys v
wait_for "View: random-bot-1"
keys v
wait_for "View: all-seeing"
keys e
wait_for "command $N/$N"
expect 'wins: |is a draw' "the result at the end"
expect_not 'GAME OVER' "no game-over box over the replay's controls"
keys '?'
wait_for 'play / pause'
ok "? shows the viewer's keys"
keys x
wait_gone 'play / pause'
keys q
wait_for 'STTY$' 10
expect '^EXIT=0$' "q leaves with status 0"
expect '^(echo icanon|icanon echo) STTY$' "the terminal is restored"

# The chat a log keeps shows in the message panel where it was said: before the first command (the
# header's too) at the start, the rest once the command before it is shown; a peer's text, cleaned.
python3 - "$LOG" "$TMPD/chat.log" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
out, cmds = ['chat 1 hello from before the header'], 0
for l in lines:
    out.append(l)
    if l.startswith('start '):
        out.append('chat 0 good luck')
    elif l[:2] in ('0 ', '1 '):
        cmds += 1
        if cmds == 3:
            out.append('chat 1 after three \u202emoves')
open(sys.argv[2], 'w', encoding='utf-8').write('\n'.join(out))
PY
T kill-session -t w
start "$WIZWAR" "$VIEW" "$TMPD/chat.log"
wait_for "Replay: paused"
expect "<random-bot-1> hello from before the header" "chat from before the header, at the start"
expect "<$NAME0> good luck" "chat from after the header, at the start"
expect_not "after three" "no chat ahead of its place"
keys n n
wait_for "command 2/$N"
expect_not "after three" "not after two commands"
keys n
wait_for "command 3/$N"
expect "<random-bot-1> after three moves" "chat after the third command, once it is shown, its override dropped"
keys q
wait_for 'STTY$' 10
expect '^EXIT=0$' "q leaves the viewer of a log with chat with status 0"

# A broken log is refused before the screen starts.
printf 'wizwar-turnlog 1\nrules 999\n' >"$TMPD/bad.log"
if "$WIZWAR" "$VIEW" "$TMPD/bad.log" >"$TMPD/out" 2>&1; then
	fail "a bad log was accepted"
fi
grep -q 'rules version' "$TMPD/out" || { cat "$TMPD/out"; fail "no reason for the bad log"; }
ok "a bad log is refused with a reason"
echo "all replay viewer tests passed"
