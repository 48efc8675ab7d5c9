#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_loglist: `wizwar replay --list [DIR]`: the turn logs of a directory (and of the finished duels' date tree
# in it or in its logs/: a server's, a host's), newest first, each with who played,
# the size and how it ended, read from the text (plain or gzip); what is not a log is said so, never echoed;
# a file name's bytes never reach the terminal as a control sequence.
set -u
W="${1:?usage: test_loglist.sh PATH-TO-WIZWAR}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
check() { # DESCRIPTION COMMAND...
	if eval "$2"; then ok "$1"; else n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; fi
}
echo "1..12"

D="$T/logs"
"$W" selfplay --games 1 --seed 3 --bots hard,normal --log "$D" --quiet >/dev/null
LOG="$(ls "$D"/*.log)"
mv "$LOG" "$D/a-finished.log"
touch -d '2026-01-01 10:00' "$D/a-finished.log"
gzip -c "$D/a-finished.log" >"$D/b-gzip.log.gz"
touch -d '2026-01-02 10:00' "$D/b-gzip.log.gz"
# Unfinished: the header and the first turns (its last line torn in half, as a killed writer leaves it).
head -c 700 "$D/a-finished.log" >"$D/c-unfinished.log"
touch -d '2026-01-03 10:00' "$D/c-unfinished.log"
printf 'hello\n' >"$D/d-junk.log"
touch -d '2026-01-04 10:00' "$D/d-junk.log"
printf 'x\n' >"$D/e-"$'\e[2J\e]0;pwned\a'".log"
touch -d '2026-01-05 10:00' "$D/e-"$'\e[2J\e]0;pwned\a'".log"
# A damaged gzip log whose name holds an escape: said unreadable, its name never printed raw.
gzip -c "$D/a-finished.log" | python3 -c 'import sys; b = bytearray(sys.stdin.buffer.read()); b[-6] ^= 0xff; sys.stdout.buffer.write(b)' \
    >"$D/f-"$'\e[31m'"damaged.log.gz"
touch -d '2026-01-06 10:00' "$D/f-"$'\e[31m'"damaged.log.gz"
printf 'not a log\n' >"$D/notes.txt"
mkdir "$D/g-dir.log"

"$W" replay --list "$D" >"$T/out" 2>"$T/err"
rc=$?
check "exit 0" '[ $rc = 0 ]'
names="$(grep -E '^[0-9]{4}-' "$T/out" | awk '{ print $3 }' | tr '\n' ' ')"
check "the logs, newest first; not the .txt nor a directory: $names" \
    '[ "$names" = "f-?[31mdamaged.log.gz e-?[2J?]0;pwned?.log d-junk.log c-unfinished.log b-gzip.log.gz a-finished.log " ]'
check "no escape byte from a file name or its bytes on the terminal" '! grep -q $'"'"'\e'"'"' "$T/out" "$T/err"'
sed -n '/a-finished.log/{n;p}' "$T/out" >"$T/a"
check "a finished duel: names, size, winner, turns ($(cat "$T/a"))" \
    'grep -qE "^    hard-bot-0 vs normal-bot-1, 25x25: (hard-bot-0|normal-bot-1) won, [0-9]+ turns$" "$T/a"'
check "a gzip log reads the same" '[ "$(sed -n "/b-gzip.log.gz/{n;p}" "$T/out")" = "$(cat "$T/a")" ]'
check "an unfinished log says so" 'sed -n "/c-unfinished.log/{n;p}" "$T/out" | grep -qE "^    hard-bot-0 vs normal-bot-1, 25x25: unfinished, [0-9]+ turns?$"'
check "a damaged gzip log is said unreadable, with zlib's reason" \
    'sed -n "/damaged.log.gz/{n;p}" "$T/out" | grep -qx "    cannot read it: incorrect data check"'
check "what is not a log is said so, with its line" 'sed -n "/d-junk.log/{n;p}" "$T/out" | grep -qE "^    not a turn log: line 1: "'
mkdir "$T/empty"
check "an empty directory" '[ "$("$W" replay --list "$T/empty")" = "No turn logs in $T/empty." ]'
mkdir "$T/wizwar"
cp "$D/a-finished.log" "$T/wizwar/duel-0000000000000003.log"
XDG_STATE_HOME="$T" "$W" replay --list >"$T/def" 2>&1
check "by default, where practice, join and host keep them" 'grep -q "^Turn logs in $T/wizwar, newest first" "$T/def" &&
    grep -qE "^[0-9-]+ [0-9:]+  duel-0000000000000003.log$" "$T/def"'
# A host keeps its finished duels in logs/YYYY/MM/DD under the same folder; a server, YYYY/MM/DD in its
# log directory: both are listed, by their path under the folder. What is not a date's folder is not read.
mkdir -p "$T/wizwar/logs/2026/01/07" "$T/wizwar/logs/notes/01/07"
gzip -c "$D/a-finished.log" >"$T/wizwar/logs/2026/01/07/h-host.log.gz"
cp "$D/a-finished.log" "$T/wizwar/logs/notes/01/07/x-not-a-day.log"
XDG_STATE_HOME="$T" "$W" replay --list >"$T/def" 2>&1
check "by default, a host's finished duels in logs/YYYY/MM/DD too, read as the others" \
    'grep -qE "^[0-9-]+ [0-9:]+  logs/2026/01/07/h-host.log.gz$" "$T/def" && ! grep -q "x-not-a-day" "$T/def" &&
    [ "$(sed -n "/h-host.log.gz/{n;p}" "$T/def")" = "$(cat "$T/a")" ]'
mkdir -p "$T/srv/2026/01/08"
gzip -c "$D/a-finished.log" >"$T/srv/2026/01/08/s-server.log.gz"
"$W" replay --list "$T/srv" >"$T/srv.out" 2>&1
check "a server's log directory: its date tree listed" 'grep -qE "^[0-9-]+ [0-9:]+  2026/01/08/s-server.log.gz$" "$T/srv.out"'
exit $((failed > 0))
