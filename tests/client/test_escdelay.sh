#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_escdelay: the real client in tmux respects a user's ESCDELAY: with ESCDELAY=3000 ncurses waits
# that long after Esc for the rest of a key's sequence, so the chat prompt is still open a second
# after Esc and closes later; without ESCDELAY, wizwar's own 25 ms applies and Esc closes it at once.
set -u
WIZWAR="${1:?usage: test_escdelay.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE"

# seed 5: player 0 (me) moves first, as test_screen.sh checks
start env ESCDELAY=3000 XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed 5 --bot random --no-log
wait_for 'Round 1: your move' 30
keys Enter
wait_for 'Say:'
T send-keys -t w Escape
sleep 1
capture
expect 'Say:' "ESCDELAY=3000: a second after Esc, ncurses is still waiting and the prompt is open"
wait_gone 'Say:' 10
ok "ESCDELAY=3000: then Esc closes the prompt"
T kill-session -t w

start env -u ESCDELAY XDG_STATE_HOME="$STATE" "$WIZWAR" practice --seed 5 --bot random --no-log
wait_for 'Round 1: your move' 30
keys Enter
wait_for 'Say:'
T send-keys -t w Escape
wait_gone 'Say:' 1
ok "no ESCDELAY: Esc closes the prompt at once"
