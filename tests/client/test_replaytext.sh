#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_replaytext: `wizwar replay --text LOG` prints the chat of a turn log where the log has it (before the
# header, between commands, after the end), each line once and in order, cleaned of what a terminal would
# read as a command (C1 controls, bidi overrides); a log without chat narrates as before. It opens with the
# header (players, options, seed, rules) and turn 1's mover and spells, and narrates every command of the
# log as one line of the shape docs/turnlog.md gives, whatever its kind.
set -u
W="${1:?usage: test_replaytext.sh PATH-TO-WIZWAR}"
T="$(mktemp -d)"
trap "rm -rf \"$T\"" EXIT; [ -n "${KEEP:-}" ] && trap - EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
check() { # DESCRIPTION COMMAND...
	if eval "$2"; then ok "$1"; else n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; fi
}
echo "1..13"

"$W" selfplay --games 1 --seed 5 --bots hard,hard --log "$T" --quiet >/dev/null
LOG="$(ls "$T"/*.log)"
"$W" replay --text "$LOG" >"$T/plain.txt" 2>&1
# The same log with chat: before the header, after `start`, after the 10th command (said by the player to
# move next), and after `end`; one line holds a C1 control (U+0085) and a right-to-left override (U+202E).
python3 - "$LOG" "$T/chat.log" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
out, cmds = ['chat 1 before the start'], 0
for l in lines:
    out.append(l)
    if l.startswith('start '):
        out.append('chat 0 good luck, have fun')
    elif l[:2] in ('0 ', '1 '):
        cmds += 1
        if cmds == 10:
            out.append('chat 1 nice \u0085one\u202e! evil')
            tenth = l
    elif l.startswith('end '):
        out.append('chat 0 gg')
open(sys.argv[2], 'w', encoding='utf-8').write('\n'.join(out))
PY
"$W" replay --text "$T/chat.log" >"$T/chat.txt" 2>&1
rc=$?
check "a log with chat replays exactly (exit 0)" '[ $rc -eq 0 ] && grep -q "replays exactly" "$T/chat.txt"'
check "without the chat lines, the narration is the same as the log's without chat" \
    'diff <(grep -v " says: " "$T/chat.txt" | sed "s|$T/chat.log|LOG|") <(sed "s|$LOG|LOG|" "$T/plain.txt") >/dev/null'
check "a log without chat prints no chat" '! grep -q " says: " "$T/plain.txt"'
check "four chat lines, each once" '[ "$(grep -c " says: " "$T/chat.txt")" -eq 4 ]'
check "in the log's order: before the header and after start first, gg last" \
    '[ "$(grep " says: " "$T/chat.txt" | tr "\n" "|")" = "  P2 says: before the start|  P1 says: good luck, have fun|  P2 says: nice one! evil|  P1 says: gg|" ]'
check "the chat before the start line comes before the header, the chat after it after the first turn's line" \
    '[ "$(sed -n 1p "$T/chat.txt")" = "  P2 says: before the start" ] && [ "$(sed -n 2p "$T/chat.txt")" = "P1: hard-bot-0" ] &&
     [ "$(sed -n 6p "$T/chat.txt")" = "  P1 says: good luck, have fun" ]'
# A narrated command is a line "  P1 VERB ..." (docs/turnlog.md): counted by that shape, chat aside, so
# that no kind of command is missed whatever its verb.
narrated() { grep -E '^  P[12] ' | grep -vcE '^  P[12] says: '; }
# The chat after the 10th command comes right after that command's narration: 10 narrated commands before it.
check "the chat after the tenth command: ten commands narrated before it" \
    '[ "$(sed -n "1,/says: nice/p" "$T/chat.txt" | narrated)" -eq 10 ]'
check "every command of the log is narrated, each as one line" \
    '[ "$(narrated <"$T/plain.txt")" -eq "$(grep -cE "^[01] " "$LOG")" ]'
# The header: the players, the options, the seed and the rules, then the first turn's mover and spells.
check "the header names the players, the options and the seed" \
    '[ "$(sed -n 1,3p "$T/plain.txt" | tr "\n" "|")" = "P1: hard-bot-0|P2: hard-bot-1|size 25, fov on, potions on, seed 0x0000000000000005, rules $(sed -n "s/^rules //p" "$LOG")|" ]'
check "then turn 1: its mover and the three spells offered" \
    '[ "$(sed -n 4p "$T/plain.txt" | grep -cE "^turn 1: P[12] to move, offered [^,]+, [^,]+, [^,]+$")" -eq 1 ]'
# More duels, so that drinks, pick-ups and quaffs are among the commands: each narrated as one line.
"$W" selfplay --games 12 --seed 1 --bots easy,normal --log "$T/more" --quiet >/dev/null
all=0 bad=0
for f in "$T"/more/*.log; do
	"$W" replay --text "$f" >"$T/more.txt" 2>&1 || bad=$((bad + 1))
	[ "$(narrated <"$T/more.txt")" -eq "$(grep -cE "^[01] " "$f")" ] || bad=$((bad + 1))
	all=$((all + $(grep -cE "^[01] " "$f")))
done
kinds=$(cat "$T"/more/*.log | sed -n 's/^[01] \([a-z]*\).*/\1/p' | sort -u | tr "\n" " ")
check "twelve more logs ($all commands of kinds: $kinds): each command narrated as one line" \
    '[ "$bad" -eq 0 ] && [ "$all" -gt 0 ] && grep -q drink <<<"$kinds" && grep -q quaff <<<"$kinds" && grep -q pickup <<<"$kinds"'
check "gg after the end, before the closing line" \
    '[ "$(tail -n 2 "$T/chat.txt" | head -n 1)" = "  P1 says: gg" ]'
check "no C1 control nor bidi override reaches the terminal (the rest of the line kept)" \
    '! LC_ALL=C grep -q -P "\xc2\x85|\xe2\x80\xae" "$T/chat.txt"'
[ "$failed" -eq 0 ]
