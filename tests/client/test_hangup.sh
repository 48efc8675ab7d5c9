#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hangup: a curses client whose terminal goes away exits within 2 s, saying so on stderr, instead of
# running on without one (docs/client.md, "When the terminal closes"). Real clients in tmux:
#  1. `practice`, its pane closed (kill-pane): gone, "the terminal closed" and its turn log said.
#  2. `practice` under a shell that ignores SIGHUP (so no SIGHUP ever reaches the client: only the
#     terminal's end tells it), its pane closed: gone all the same.
#  3. `join` in a duel on a `wizwar server` against a network bot, the whole tmux server killed: gone,
#     "the seat is held" said; the same command in a new terminal takes the seat back into the same duel.
set -u
WIZWAR="${1:?usage: test_hangup.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
# Under ASan, LeakSanitizer's exit-time check (it stops the process under a ptrace tracer of its own)
# sometimes never ends in a client whose terminal just vanished (google/sanitizers#777): the client has
# left its loop and said why, and then hangs in the sanitizer, which this test would take for a client
# that does not exit (CI's ASan run: half the runs). Set before tmux_lib.sh starts the tmux server, whose
# environment the panes get. Leaks stay checked by every other test; here only the exit is.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
. "$HERE/tmux_lib.sh"

# closed SESSION WHAT SHELL-COMMAND: practice running in a new pane (as SHELL-COMMAND says), its pane closed
# once the duel is on: gone within 2 s, and its stderr ($TMPD/SESSION.err) says the terminal closed.
closed() {
	local c
	T new-session -d -s "$1" -x 80 -y 24 "$3"
	wait_for 'Round 1' 15 "$1"
	c="$(pane_wizwar "$1" practice)" || fail "no wizwar practice in session $1"
	T kill-pane -t "$1"
	gone 2 "$c" || fail "$2: still running 2 s after its pane closed: $(ps -o pid,stat,pcpu,args -p "$c" | tail -1)"
	wait_file 'the terminal closed: the duel is left unfinished; its turn log: .*\.log' "$TMPD/$1.err" 5
}

# ==== 1. practice, the pane closed ====
closed p "practice" "'$WIZWAR' practice --seed 7 2>'$TMPD/p.err'; exec sleep 600"
ok "practice exits at once when its pane closes, and says so with its turn log"

# ==== 2. the same with no SIGHUP: the shell in the pane ignores it, so the kernel sends none on ====
closed q "practice with no SIGHUP" "sh -c \"trap '' HUP; '$WIZWAR' practice --seed 8 2>'$TMPD/q.err'; exec sleep 600\""
ok "a client that never gets SIGHUP exits on the terminal's end alone"

# ==== 3. join in a duel, the tmux server killed; the seat taken back ====
STATE="$TMPD/state"
"$WIZWAR" server --bind 127.0.0.1 --port 0 --no-store --log-dir "$TMPD/slogs" >"$TMPD/srv.out" 2>"$TMPD/srv.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/srv.err"
PORT="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/srv.err" | head -1 | grep -oE '[0-9]+$')"
XDG_STATE_HOME="$TMPD/bot" "$WIZWAR" bot "127.0.0.1:$PORT" --new-room --name Bo --think 100 --games 1 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=($!)
wait_file '^room [a-z0-9-]+:' "$TMPD/bot.out"
ROOM="$(grep -oE '^room [a-z0-9-]+' "$TMPD/bot.out" | cut -d' ' -f2)"
JOIN="'$WIZWAR' join 127.0.0.1:$PORT --room $ROOM --name Hal --no-log"
T new-session -d -s j -x 80 -y 24 "env XDG_STATE_HOME='$STATE' $JOIN 2>'$TMPD/j1.err'; exec sleep 600"
wait_for 'Round 1' 20 j
C="$(pane_wizwar j join)" || fail "no wizwar join in session j"
T kill-server
gone 2 "$C" || fail "join still runs 2 s after its tmux server was killed: $(ps -o pid,stat,pcpu,args -p "$C" | tail -1)"
wait_file 'the terminal closed; the seat is held: run the same command again to take it back' "$TMPD/j1.err" 5
wait_file 'Hal dropped.*the seat is held' "$TMPD/srv.err" 5
ok "join exits at once when its tmux server is killed; the seat is held, and it says so"
T new-session -d -s keep -x 80 -y 24 "exec sleep 3600"
T new-session -d -s j -x 80 -y 24 "env XDG_STATE_HOME='$STATE' $JOIN 2>'$TMPD/j2.err'; exec sleep 600"
wait_for 'Back in the duel' 20 j
ok "the same command in a new terminal takes the seat back into the duel"

echo "all hangup tests passed"
