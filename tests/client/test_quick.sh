#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_quick: `wizwar join SERVER --quick` in tmux against a real `wizwar server` over loopback TCP.
#  1. The client waits in the pool and says so before its screen; a network bot of the same options asks
#     too (`bot --quick`); both are paired, with no code shared, into one private room: the client's screen
#     says so, and the duel with the bot begins.
#  2. Alone with its options (--size 15, --bot-after 1): told nobody came, offered the bot of its rating's
#     strength (normal for 1500); yes starts that duel here, as practice.
set -u
WIZWAR="${1:?usage: test_quick.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

"$WIZWAR" server --bind 127.0.0.1 --port 0 --no-store --state-dir "$TMPD/st" --log-dir "$TMPD/logs" \
	>/dev/null 2>"$TMPD/srv.err" &
PIDS+=("$!")
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/srv.err"
PORT="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/srv.err" | grep -oE '[0-9]+$')"

# ==== 1. paired with a network bot ====
start "$WIZWAR" join "127.0.0.1:$PORT" --quick --name Lea --bot-after 60 --no-log
wait_for 'waiting for a player: [0-9]+ s, 1 waiting with these options' 10
ok "the client waits in the pool and says how many wait with its options"
"$WIZWAR" bot "127.0.0.1:$PORT" --quick --name Bo --think 300 --games 1 >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=("$!")
wait_said 'Paired with a stranger in the private room [a-z0-9-]+\.' w 15
ROOM="$(grep -oE 'Paired with a stranger in the private room [a-z0-9-]+' "$JOINED" | grep -oE '[a-z0-9-]+$')"
grep -qx "paired: room $ROOM" "$TMPD/bot.out" || fail "the bot was not paired into the client's room $ROOM"
say_to w /ready # not the 5 s the first duel waits by itself
wait_for 'Round 1' 15
ok "paired with the bot in room $ROOM, no code shared, and the duel begins"
T kill-session -t w

# ==== 2. nobody: the bot offered, taken ====
start "$WIZWAR" join "127.0.0.1:$PORT" --quick --size 15 --bot-after 1 --name Lea --no-log
wait_for 'Nobody to pair with came in 1 s\. Play the normal bot here instead, for your rati' 10
grep -qF 'ng of 1500 (a practice duel, not rated)? [Y/n]' "$SCREEN" || fail "the offer does not name the rating"
ok "nobody with its options: the bot of its rating's strength is offered"
keys y Enter
wait_for 'Round 1' 10
ok "yes: a duel against that bot, here"
keys Q
T kill-session -t w
