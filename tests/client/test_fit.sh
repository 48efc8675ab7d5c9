#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_fit: every screen the client draws at 80x24 fits without cutting words (issue 28), in the
# real client in tmux: the duel's side panel (header, turn line, key line, with a potion underfoot
# too), the status line after a refused key at the end, the help (in practice and in a network
# lobby, whose commands are longer), the describe screen, the history and the end box. The client
# ends any text it had to cut with an ellipsis ("…", in a UTF-8 locale): no screen may show one.
set -u
WIZWAR="${1:?usage: test_fit.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE"
export LC_ALL=C.UTF-8

SEEN=0
# fits WHAT: the screen as it is now has no cut text and nothing wider than 80 columns.
fits() {
	capture
	SEEN=$((SEEN + 1))
	if grep -q '…' "$SCREEN"; then
		fail "$1: text cut at 80x24 (…)"
	fi
	[ "$(wc -L <"$SCREEN")" -le 80 ] || fail "$1: wider than 80 columns"
	ok "$1 fits 80x24"
}

# ==== a practice duel: the panel, the help, describe, history, the end ====
start env LC_ALL=C.UTF-8 XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed 4 --bot random --name Tess --no-fov
wait_for 'Round 1: your move, 5 steps left'
fits "the duel's side panel"
keys '?'
wait_for 'wizwar: keys'
fits "the help"
expect 'Q +quit \(asks first' "the help lists the last action, Q"
keys Space
keys I
wait_for 'Your spells and potions'
fits "the describe screen"
keys Space
keys C-p
wait_for 'Message history'
fits "the message history"
keys q
# Seed 4 with FoV off: a potion lies one step north-west of the wizard's start (7).
keys 7
wait_for 'You stand on an? [a-z]+ potion'
fits "the key line with a potion underfoot"
expect 'Q quit' "the key line keeps its last key, Q quit"
expect 'You stand on an? [a-z]+ potion' "the potion underfoot is told with the right article"
keys I
wait_for 'Underfoot: an? [a-z]+ potion'
fits "the describe screen with a potion underfoot"
keys Space
keys Q r
wait_for 'GAME OVER'
fits "the end box"
keys x
wait_for 'The duel is over'
fits "the status line after a key that does nothing at the end"
expect 'The duel is over: Q leaves, r rematch, m mirror\.' "the status line is whole (it was cut at 'm mirror rematc')"
keys Q
wait_for 'STTY$' 10
T kill-session -t w

# ==== a network lobby: its help lists the lobby commands, its lines ====
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --bind 127.0.0.1 --port 0 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
start env LC_ALL=C.UTF-8 XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Tess
wait_for 'Waiting for an opponent'
fits "the lobby"
keys '?'
wait_for 'wizwar: keys'
fits "the help in a network lobby"
expect '/control' "the help's lobby line is whole"
expect 'I +describe spells' "the help keeps its last key in a lobby"
keys Space
keys Q
wait_for 'STTY$' 10
T kill-session -t w

[ "$SEEN" -ge 10 ] || fail "only $SEEN screens looked at"
echo "all fit tests passed ($SEEN screens)"
