#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_replaytext: `wizwar replay --text LOG` prints the chat of a turn log where the log has it (before the
# header, between commands, after the end), each line once and in order, cleaned of what a terminal would
# read as a command (C1 controls, bidi overrides); a log without chat narrates as before.
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
echo "1..9"

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
check "the chat before the first command comes before its narration" \
    '[ "$(sed -n 1p "$T/chat.txt")" = "  P2 says: before the start" ] && [ "$(sed -n 2p "$T/chat.txt")" = "  P1 says: good luck, have fun" ]'
# The chat after the 10th command comes right after that command's narration: 10 narrated commands before it.
check "the chat after the tenth command: ten commands narrated before it" \
    '[ "$(sed -n "1,/says: nice/p" "$T/chat.txt" | grep -c -E "^  P[12] (steps|casts|drinks|picks|passes|ends|waits)")" -eq 10 ]'
check "gg after the end, before the closing line" \
    '[ "$(tail -n 2 "$T/chat.txt" | head -n 1)" = "  P1 says: gg" ]'
check "no C1 control nor bidi override reaches the terminal (the rest of the line kept)" \
    '! LC_ALL=C grep -q -P "\xc2\x85|\xe2\x80\xae" "$T/chat.txt"'
[ "$failed" -eq 0 ]
