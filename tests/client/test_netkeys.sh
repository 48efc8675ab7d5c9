#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_netkeys: `--keys PRESET` for `wizwar host` and `wizwar join`, as for practice and replay, in tmux over
# loopback TCP.
#  1. A bad preset is refused with the list of presets, exit 2, before anything starts.
#  2. `wizwar host --keys vi` and `wizwar join --keys vi` into it: `?` in the lobby lists the vi keys (k moves
#     north) on both screens; the duel starts and whoever has the move shows the vi keys on the action line.
#  3. keys.conf still applies on top: a `bind` line in it rebinds a key of the preset given.
set -u
WIZWAR="${1:?usage: test_netkeys.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
export XDG_STATE_HOME="$STATE"
# keys.conf: never the real one (given to each command: the tmux server's environment is older than this)
CONF="$TMPD/config"
mkdir -p "$STATE" "$CONF/wizwar"

# ==== 1. a bad preset ====
for cmd in host join; do
	addr=()
	[ "$cmd" = join ] && addr=(127.0.0.1:1)
	out="$(XDG_CONFIG_HOME="$CONF" "$WIZWAR" "$cmd" "${addr[@]}" --keys emacs 2>&1)"
	rc=$?
	[ "$rc" = 2 ] || fail "$cmd --keys emacs exited $rc, not 2: $out"
	grep -qx "wizwar $cmd: --keys takes default, numpad, vi or arrows, not 'emacs'" <<<"$out" ||
		fail "$cmd --keys emacs said: $out"
	ok "$cmd --keys emacs: refused with the presets, exit 2"
done

# ==== 2. host and join with the vi preset ====
start env XDG_CONFIG_HOME="$CONF" "$WIZWAR" host --bind 127.0.0.1 --port 0 --name Hana --keys vi
wait_for 'Hosting on port [0-9]+'
PORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
keys '?'
wait_for 'wizwar: keys'
expect '^ *k +move north ' "host --keys vi: ? lists k for north"
expect '^ *h +move west ' "host --keys vi: ? lists h for west"
keys Space
T new-session -d -s j -x 80 -y 24 \
    "env XDG_STATE_HOME='$TMPD/joiner' XDG_CONFIG_HOME='$CONF' '$WIZWAR' join 127.0.0.1:$PORT --name Jo --keys vi; exec sleep 600"
wait_for 'Joined as player 2' 15 j
T send-keys -t j '?'
wait_for 'wizwar: keys' 10 j
expect '^ *k +move north ' "join --keys vi: ? lists k for north"
T send-keys -t j Space
wait_for 'The duel begins' 15 w
wait_for 'The duel begins' 15 j
# Whoever moves first has the action line with the move keys.
for ((i = 0; i < 100; i++)); do
	capture w
	grep -qE 'hjklyubn move|kulnjbhy move' "$SCREEN" && break
	capture j
	grep -qE 'hjklyubn move|kulnjbhy move' "$SCREEN" && break
	sleep 0.1
done
expect 'hjklyubn move|kulnjbhy move' "in the duel, the vi keys on the action line of the player to move"
T kill-session -t j
T kill-session -t w

# ==== 3. keys.conf on top of the preset ====
printf 'bind end-turn e\n' >"$CONF/wizwar/keys.conf"
start env XDG_CONFIG_HOME="$CONF" "$WIZWAR" host --bind 127.0.0.1 --port 0 --keys vi
wait_for 'Hosting on port [0-9]+'
keys '?'
wait_for 'wizwar: keys'
expect '^ *k +move north ' "the vi preset"
expect '\. Del e +end the turn' "keys.conf's bind on top of it (e ends the turn too)"
T kill-session -t w

echo "all --keys tests for host and join passed"
