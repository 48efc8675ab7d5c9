#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_progress: long work shows a progress line on a terminal and nothing elsewhere. In tmux (stderr a
# terminal): `selfplay` of 150 games (seconds of work) draws "done of total, rate, time left" in place and
# erases it at the end, the summary after it starting on a clean line. With stderr a pipe or a file,
# selfplay, replay --check, replay --list, replay --text and server --resume print nothing on it.
set -u
WIZWAR="$(realpath "${1:?usage: test_progress.sh PATH-TO-WIZWAR}")"
. "$(dirname "$0")/tmux_lib.sh"

# A long log: seed 5's duel with chat between its commands, some 20 MB to read and check. (It
# replays in well under a second on a fast machine, before any progress line is due: on a
# terminal its line is left to the module's own tests, test_progress.c; here, that it says nothing
# into a pipe.)
"$WIZWAR" selfplay --games 1 --seed 5 --bots hard,hard --log "$TMPD/one" --quiet >/dev/null
python3 - "$(ls "$TMPD"/one/*.log)" "$TMPD/long.log" <<'PY'
import sys
out = []
for l in open(sys.argv[1], encoding='utf-8').read().split('\n'):
    out.append(l)
    if l[:2] in ('0 ', '1 '):
        out.extend('chat 0 a long duel, said again and again %d' % i for i in range(1500))
open(sys.argv[2], 'w', encoding='utf-8').write('\n'.join(out))
PY

# selfplay on a terminal: the line appears, says what it must, and is gone at the end.
start "$WIZWAR" selfplay --games 150 --seed 1 --bots random,random --quiet
wait_for "selfplay: [0-9]+ of 150 games, [0-9.]+/s, [0-9]+ (s|min [0-9]+ s) left" 60
ok "selfplay draws done of total, the rate and the time left"
wait_for "EXIT=0" 300
expect "^150 games \(random vs random\)" "the summary starts at the line's start, where the progress line was"
expect_not "of 150 games" "the progress line is erased at the end"
T kill-session -t w

# Not a terminal: nothing on stderr, however long the work.
"$WIZWAR" selfplay --games 150 --seed 1 --bots random,random --quiet >"$TMPD/sp.out" 2>"$TMPD/sp.err"
[ -s "$TMPD/sp.err" ] && fail "selfplay wrote to a stderr that is a file: $(head -c 200 "$TMPD/sp.err")"
grep -q "^combined hash" "$TMPD/sp.out" || fail "selfplay's output is missing"
ok "selfplay with stderr a file: nothing on it"
"$WIZWAR" replay --check "$TMPD/long.log" 2>&1 >/dev/null | cat >"$TMPD/check.err"
[ -s "$TMPD/check.err" ] && fail "replay --check wrote to a stderr that is a pipe: $(head -c 200 "$TMPD/check.err")"
ok "replay --check with stderr a pipe: nothing on it"
mkdir "$TMPD/many"
for i in $(seq 1 300); do cp "$TMPD"/one/*.log "$TMPD/many/l$i.log"; done
"$WIZWAR" replay --list "$TMPD/many" 2>&1 >"$TMPD/list.out" | cat >"$TMPD/list.err"
[ -s "$TMPD/list.err" ] && fail "replay --list wrote to a stderr that is a pipe: $(head -c 200 "$TMPD/list.err")"
[ "$(grep -c '^    ' "$TMPD/list.out")" -ge 1 ] || fail "replay --list listed nothing"
ok "replay --list of a big folder with stderr a pipe: nothing on it"
"$WIZWAR" replay --text "$TMPD/long.log" 2>&1 >/dev/null | cat >"$TMPD/text.err"
[ -s "$TMPD/text.err" ] && fail "replay --text wrote to stderr: $(head -c 200 "$TMPD/text.err")"
ok "replay --text: nothing on stderr"

# server --resume over many logs (finished duels, gzip, as a server names them): brought back with stderr
# a file, nothing of a progress line in it; on a terminal, none left on the screen once it listens.
mkdir "$TMPD/srvlogs"
gzip -c "$TMPD"/one/*.log >"$TMPD/one.log.gz"
for i in $(seq 1 400); do cp "$TMPD/one.log.gz" "$TMPD/srvlogs/wizwar-r$i-20260101-120000-1.log.gz"; done
"$WIZWAR" server --bind 127.0.0.1 --port 0 --log-dir "$TMPD/srvlogs" --resume >/dev/null 2>"$TMPD/srv.err" &
SRV=$!
PIDS+=("$SRV")
wait_file "listening on" "$TMPD/srv.err" 60
kill -TERM "$SRV"
wait "$SRV"
grep -q "0 unfinished duels brought back" "$TMPD/srv.err" || fail "server --resume did not read the logs: $(cat "$TMPD/srv.err")"
grep -q "server --resume:" "$TMPD/srv.err" && fail "server --resume wrote a progress line into a file"
ok "server --resume over 400 logs with stderr a file: nothing of a progress line"
start "$WIZWAR" server --bind 127.0.0.1 --port 0 --log-dir "$TMPD/srvlogs" --resume
wait_for "listening on" 60
expect_not "server --resume: [0-9]+ of" "server --resume on a terminal: no progress line left once it listens"
expect "^wizwar server: 0 unfinished duels brought back" "its next line starts at the line's start"
T kill-session -t w
