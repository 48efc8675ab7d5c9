#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_netbye: what `wizwar join` does with a server's goodbye (BYE), per reason, in tmux over loopback TCP.
#  1. `host --headless` stopped by SIGTERM while the joiner waits in the lobby: a shutdown, which the client
#     rides out as a drop ("the server is shutting down": reconnecting); the same host started again on the
#     same port takes it back, as a new player of the room, said plainly.
#  2. The same in a duel: SIGTERM, then `host --headless --resume LOG`: the joiner (and the bot opponent)
#     are back in the same duel.
#  2b. The same shutdown in a duel with no host back, and a short --reconnect: the joiner gives up and says what
#     became of the duel (a server still up gives it away once its grace runs out: the host's --grace 600, as its
#     WELCOME said, not the default).
#  2c. An interactive `wizwar host` whose terminal closes (SIGHUP) mid-duel: it names the log that brings the duel
#     back, and `host --headless --resume` from it takes the bot opponent back into the duel.
#  3. `wizwar host` whose player leaves (Q) while the joiner is in the lobby: the room is closed for good;
#     the joiner says so, does not try to reconnect, and exits 1 with the reason.
set -u
WIZWAR="${1:?usage: test_netbye.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE" "$TMPD/logs"
HOST=""
host_start() { # host_start ERRFILE ARGS...: a headless host on $PORT (0 the first time)
	local err="$1"
	shift
	"$WIZWAR" host --headless --bind 127.0.0.1 --port "$PORT" --log-dir "$TMPD/logs" "$@" >/dev/null 2>"$err" &
	HOST=$!
	PIDS+=("$HOST")
	wait_file 'Hosting on port [0-9]+' "$err"
	PORT="$(grep -oE 'Hosting on port [0-9]+' "$err" | head -1 | grep -oE '[0-9]+$')"
}
host_stop() {
	kill -TERM "$HOST"
	wait "$HOST" 2>/dev/null
}

# ==== 1. a shutdown in the lobby, ridden out ====
PORT=0
host_start "$TMPD/host1.err"
start "$WIZWAR" join "127.0.0.1:$PORT" --name Lea --reconnect 30
wait_said 'Joined as player 1, the controller\..*Waiting for an opponent' w 15
host_stop
wait_said 'Connection lost \(the server is shutting down\): reconnecting to the room, an attempt a second for up to 30 s\.' w
wait_for 'Reconnecting: try [0-9]+, seat held [0-9]+ s more \(conn' 10 w
ok "SIGTERM of the host in the lobby: a shutdown, ridden out as a drop, each try on the prompt line"
host_start "$TMPD/host2.err"
wait_said 'Reconnected, but the server had given up your seat: you are a new player of the room\. Joined the room again as player 1, the controller\.' w 15
ok "the host started again takes Lea back, as a new player of its room, said plainly"
T kill-session -t w

# ==== 2. a shutdown in a duel, then host --resume ====
host_stop
PORT=0
rm -rf "$TMPD"/logs/*
host_start "$TMPD/host3.err"
start "$WIZWAR" join "127.0.0.1:$PORT" --name Lea --reconnect 30
wait_said 'Joined as player 1' w 15
XDG_STATE_HOME="$TMPD/bot" "$WIZWAR" bot "127.0.0.1:$PORT" --name Bo --think 200 --games 1 --seed 5 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=($!)
wait_said 'The duel begins' w 15
sleep 1
host_stop
LOG="$(grep -oE 'stopped mid-duel: `wizwar host --headless [^`]*--resume [^`]+` brings it back' "$TMPD/host3.err" |
    sed 's/.*--resume \([^`]*\)`.*/\1/')"
[ -n "$LOG" ] && [ "$LOG" = "$(ls "$TMPD"/logs/playing/*.log | head -1)" ] ||
	fail "the stopped host did not say which log brings the duel back: $(cat "$TMPD/host3.err")"
wait_said 'Connection lost \(the server is shutting down\): reconnecting to the duel, an attempt a second for up to 30 s\.' w
ok "SIGTERM of the host in a duel: reconnecting to the duel"
host_start "$TMPD/host4.err" --resume "$LOG"
wait_said 'Reconnected: your seat is yours again\..*Back in the duel\.' w 15
wait_file '^wizwar bot: reconnected$' "$TMPD/bot.err" 15
ok "host --resume: Lea and the bot are back in the same duel"
T kill-session -t w
host_stop

# ==== 2b. a shutdown in a duel, and no host back: given up, and what became of the duel ====
PORT=0
host_start "$TMPD/host5.err" --grace 600
start "$WIZWAR" join "127.0.0.1:$PORT" --name Lea --reconnect 3
wait_said 'Joined as player 1' w 15
XDG_STATE_HOME="$TMPD/bot" "$WIZWAR" bot "127.0.0.1:$PORT" --name Bo --think 200 --games 1 --seed 6 \
    >"$TMPD/bot2.out" 2>"$TMPD/bot2.err" &
PIDS+=($!)
wait_said 'The duel begins' w 15
host_stop
wait_said 'could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts? in [0-9]+ s, the last: [^;]*; a server still up gives the duel to the other player once its grace runs out \(600 s after the loss\): run the same command to join the room again' w 20
T send-keys -t w Q
wait_for 'STTY$' 10 w
expect '^wizwar join: could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts? in' "the reason on stderr once the terminal is back"
expect '^EXIT=1$' "given up: exit 1"
ok "a duel's server gone for good: given up, and told what becomes of the duel, with the host's own grace"
T kill-session -t w

# ==== 2c. an interactive host's terminal closes mid-duel: it names the log, which brings the duel back ====
start "$WIZWAR" host --bind 127.0.0.1 --port 0 --name Hal --log-dir "$TMPD/logs2"
wait_for 'Hosting on port [0-9]+'
PORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
XDG_STATE_HOME="$TMPD/bot" "$WIZWAR" bot "127.0.0.1:$PORT" --name Bo --think 200 --games 1 --seed 7 \
    >"$TMPD/bot3.out" 2>"$TMPD/bot3.err" &
PIDS+=($!)
wait_said 'Both players are here' w 15
say_to w '/ready'
wait_said 'The duel begins' w 15
HAL="$(pgrep -f -- "^[^ ]*wizwar host --bind 127\.0\.0\.1 --port 0 --name Hal" | head -1)" # not the sh around it
[ -n "$HAL" ] || fail "no host process"
kill -HUP "$HAL"
wait_for 'the duel is left unfinished' 10 w
LOG="$(T capture-pane -p -J -t w | grep -oE 'wizwar host [^`]*--resume [^`]+` brings it back' | sed 's/^.*--resume //; s/` brings it back$//')"
[ -n "$LOG" ] && [ -f "$LOG" ] || fail "no log named: '$LOG'"
ok "the host's terminal closed mid-duel: it names the log that brings the duel back"
T kill-session -t w
HOST=""
PORT_SAVED="$PORT"
host_start "$TMPD/host6.err" --resume "$LOG"
[ "$PORT" = "$PORT_SAVED" ] || fail "port changed"
wait_file '^wizwar bot: back in the duel at turn' "$TMPD/bot3.err" 15
ok "host --headless --resume from that log: the bot is back in the duel"
host_stop

# ==== 3. the host's player leaves: the room is closed for good ====
start "$WIZWAR" host --bind 127.0.0.1 --port 0 --name Hana
wait_for 'Hosting on port [0-9]+'
PORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
say_to w '/size 17' # not ready: the lobby stays a lobby
T new-session -d -s j -x 80 -y 24 \
    "sh -c 'env XDG_STATE_HOME=\"$TMPD/joiner\" \"$WIZWAR\" join 127.0.0.1:$PORT --name Jo --reconnect 30; echo EXIT=\$?; exec sleep 600'"
wait_said 'Joined as player 2' j 15
T send-keys -t w Q
wait_said 'the host left and closed the room' j 10
capture j
expect_not 'Reconnecting|Connection lost' "no reconnecting to a room closed for good"
ok "the host's player left: the joiner is told the room is closed"
T send-keys -t j Q
wait_for 'EXIT=' 10 j
expect '^wizwar join: the host left and closed the room$' "the reason on stderr"
expect '^EXIT=1$' "exit 1"
T kill-session -t j
T kill-session -t w

echo "all goodbye tests passed"
