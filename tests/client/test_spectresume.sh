#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_spectresume: the spectators of a room follow it through `wizwar server --resume`, with the options its
# players chose, kept by the turn log. Real processes over loopback TCP: a server, two `wizwar bot`s (the
# controller sets `--spectators delayed:2:1`), and `wizwar watch` in tmux, the real curses client.
#  1. The log says the options (`# wizwar-server spectators delayed 2 0`); the spectator sees player 1's
#     view, 2 turns behind.
#  2. The server is killed with -9 and started again on its port with --resume: the bots and the spectator
#     come back by themselves; the spectator is told the same options (from the log: a room's default is
#     the shared view) and follows the duel on; the log replays, its options said once.
set -u
WIZWAR="${1:?usage: test_spectresume.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"
LOGS="$TMPD/logs"
mkdir -p "$LOGS"

SRV=""
server_start() { # server_start ERRFILE [ARGS...]: on $PORT (0 the first time)
	local err="$1"
	shift
	"$WIZWAR" server --bind 127.0.0.1 --port "${PORT:-0}" --log-dir "$LOGS" "$@" >/dev/null 2>"$err" &
	SRV=$!
	PIDS+=("$SRV")
	wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$err"
	PORT="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$err" | grep -oE '[0-9]+$')"
}

server_start "$TMPD/srv1.err"
"$WIZWAR" bot "127.0.0.1:$PORT" --new-room --name Ann --level hard --think 50 --games 1 --seed 5 --spectators delayed:2:1 \
    >"$TMPD/ann.out" 2>"$TMPD/ann.err" &
PIDS+=($!)
wait_file '^room ' "$TMPD/ann.out"
ROOM="$(head -1 "$TMPD/ann.out" | cut -d' ' -f2 | tr -d :)"
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM" --name Ben --level hard --think 50 --games 1 --seed 6 \
    >"$TMPD/ben.out" 2>"$TMPD/ben.err" &
PIDS+=($!)
wait_file "room=$ROOM duel [0-9]+ starts" "$TMPD/srv1.err"
LOG="$(ls "$LOGS"/*"$ROOM"*.log 2>/dev/null | head -1)"
[ -n "$LOG" ] || LOG="$(find "$LOGS" -name "*$ROOM*.log" | head -1)"
[ -n "$LOG" ] || fail "no turn log for room $ROOM in $LOGS"
wait_file '^# wizwar-server spectators delayed 2 0$' "$LOG"
ok "the log keeps the spectators' options: delayed 2 turns, player 1's view"

# ==== 1. a spectator of the delayed view ====
T new-session -d -s a -x 80 -y 24 "'$WIZWAR' watch 127.0.0.1:$PORT $ROOM --name Ada; echo EXIT=\$?; exec sleep 600"
wait_said "Spectator in room $ROOM: Ann's view, 2 turns behind; 1 watching" a 15
wait_for 'Round [2-9]:|Round [1-9][0-9]+:' 30 a
ok "the spectator sees Ann's view, 2 turns behind, and the duel going on"

# ==== 2. kill -9, --resume ====
kill -9 "$SRV"
wait "$SRV" 2>/dev/null
capture a
before="$(grep -oE 'Round [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+')"
server_start "$TMPD/srv2.err" --resume
wait_file "room=$ROOM .*resumed" "$TMPD/srv2.err"
ok "the server resumed room $ROOM (the spectator last saw round $before)"
wait_file "Ada watches room $ROOM" "$TMPD/srv2.err" 20
wait_said "Spectator in room $ROOM: Ann's view, 2 turns behind; 1 watching" a 15
ok "the spectator came back by itself, with the options the log kept (not the default shared view)"
for ((i = 0; i < 600; i++)); do
	capture a
	now="$(grep -oE 'Round [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+')"
	[ -n "$now" ] && [ "$now" -gt "$((before + 1))" ] && break
	grep -qE 'wins:|is a draw' "$SCREEN" && break
	sleep 0.05
done
grep -qE 'wins:|is a draw' "$SCREEN" || [ "${now:-0}" -gt "$((before + 1))" ] ||
	fail "the spectator's view stopped at round ${now:-?} (round $before before the kill)"
ok "the spectator follows the resumed duel (round ${now:-the end})"
# A duel that ended meanwhile has its log compressed and moved: that one, then.
[ -f "$LOG" ] || LOG="$(find "$LOGS" -name "*$ROOM*.log.gz" | head -1)"
"$WIZWAR" replay --check "$LOG" >"$TMPD/check.out" 2>&1 || fail "the resumed log does not replay: $(cat "$TMPD/check.out")"
[ "$(zcat -f "$LOG" | grep -c '^# wizwar-server spectators delayed 2 0$')" = 1 ] || fail "the options are not in the log once"
ok "the resumed log replays and keeps the options once"
echo "all spectator resume tests passed"
