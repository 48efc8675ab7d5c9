#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_resume: the resume commands that `host` and `server` print bring back exactly what ran
# (issue 27): every option, the port actually bound (--port 0 included), shell-quoted (a log
# folder with a space and a quote in its name), never a password.
#  1. `host` in tmux, a bot joined, the terminal closed mid-duel: the printed command, run as
#     printed, comes up on the same port and address, and the bot and the host are back in the duel.
#  2. `server --bind 127.0.0.1 --port 0`, a duel in a room, SIGTERM: the printed command listens
#     where the first did and brings the duel back.
set -u
WIZWAR="${1:?usage: test_resume.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
LOGS="$TMPD/turn logs, Jo's"
mkdir -p "$STATE" "$LOGS"
BIN="$(cd "$(dirname "$WIZWAR")" && pwd)"
export PATH="$BIN:$PATH" # the printed commands say `wizwar`: this build's

# ==== 1. host in a terminal, closed mid-duel ====
T new-session -d -s h -x 80 -y 24 \
    "env XDG_STATE_HOME='$STATE' '$WIZWAR' host --port 0 --bind 127.0.0.1 --name Hana --log-dir \"$LOGS\" --turn-time 600 \
    2>'$TMPD/host.err'; exec sleep 600"
wait_for 'Hosting on port [0-9]+:' 10 h
HPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
XDG_STATE_HOME="$STATE" "$WIZWAR" bot "127.0.0.1:$HPORT" --level random --name Robo --think 60 --seed 4 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=($!)
wait_for 'Round 1: ' 20 h
H1="$(pane_wizwar h host)" || fail "no wizwar host in session h"
T kill-session -t h # the terminal closes: the host's server stops mid-duel
wait_file 'the duel is left unfinished: `wizwar host .*` brings it back' "$TMPD/host.err"
# Its port is free once it has exited, not when it says so: the command below binds the same one.
gone $((20 * WAIT_SCALE)) "$H1" || fail "the host still runs after its terminal closed"
CMD="$(grep -oE '`wizwar host [^`]*`' "$TMPD/host.err" | tr -d '`')"
echo "--- printed: $CMD"
echo "$CMD" | grep -qF -- "--port $HPORT" || fail "the printed command does not name port $HPORT"
echo "$CMD" | grep -qF -- "--bind 127.0.0.1" || fail "the printed command drops --bind"
echo "$CMD" | grep -qF -- "--turn-time 600" || fail "the printed command drops --turn-time"
ok "host's resume command names every option and the port bound"
T new-session -d -s h -x 80 -y 24 "export XDG_STATE_HOME='$STATE'; $CMD 2>'$TMPD/host2.err'; exec sleep 600"
wait_for "Hosting on port $HPORT:" 10 h
wait_for 'Back in the duel' 10 h
wait_for 'Robo is back' 20 h
ok "run as printed, the host comes back on port $HPORT and the bot rejoins the duel"
T kill-session -t h

# ==== 2. server with --bind and --port 0, stopped mid-duel ====
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --bind 127.0.0.1 --port 0 --log-dir "$LOGS" --grace 60 \
    2>"$TMPD/server.err" &
SPID=$!
PIDS+=("$SPID")
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Tess
wait_for 'Waiting for an opponent'
ROOM="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
XDG_STATE_HOME="$STATE" "$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM" --level random --name Rob --think 60 \
    >"$TMPD/sbot.out" 2>"$TMPD/sbot.err" &
PIDS+=($!)
wait_for 'The duel begins' 20
kill -TERM "$SPID"
wait_file 'left unfinished: `wizwar server .*` brings it back' "$TMPD/server.err"
SCMD="$(grep -oE '`wizwar server [^`]*`' "$TMPD/server.err" | tr -d '`')"
echo "--- printed: $SCMD"
echo "$SCMD" | grep -qF -- "--bind 127.0.0.1" || fail "the printed command drops --bind"
echo "$SCMD" | grep -qF -- "--port $PORT" || fail "the printed command does not name port $PORT"
ok "server's resume command names --bind and the port bound"
wait "$SPID" # its port free
(export XDG_STATE_HOME="$STATE"; eval "exec $SCMD" 2>"$TMPD/server2.err") &
PIDS+=($!)
wait_file "listening on 127\\.0\\.0\\.1 port $PORT" "$TMPD/server2.err"
wait_file '1 unfinished duel brought back' "$TMPD/server2.err"
wait_for 'Back in the duel' 20
ok "run as printed, the server listens on 127.0.0.1 port $PORT again and the duel is back"
keys Q y
T kill-session -t w

echo "all resume tests passed"
