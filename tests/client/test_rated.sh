#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_rated: the real curses client, in tmux over loopback TCP, at the end of a rated duel on a `wizwar server`
# with a store: Lea plays a bot (its own key), forfeits and stays, and her end screen shows both ratings before
# and after (RATED, checked against the server's key); then `wizwar top` lists her.
set -u
WIZWAR="${1:?usage: test_rated.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

"$WIZWAR" server --bind 127.0.0.1 --port 0 --state-dir "$TMPD/srv" --store "$TMPD/store.db" >"$TMPD/server.out" 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
"$WIZWAR" bot "127.0.0.1:$PORT" --new-room --name Rob --key "$TMPD/rob.key" --think 300 --games 1 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=($!)
wait_file '^room ' "$TMPD/bot.out"
ROOM="$(head -1 "$TMPD/bot.out" | cut -d' ' -f2 | tr -d :)"
start "$WIZWAR" join "127.0.0.1:$PORT" --room "$ROOM" --name Lea
wait_said 'Joined as player 2' w 15
say_to w '/ready'
wait_said 'The duel begins' w 15
T send-keys -t w Q
wait_for 'Forfeit and quit\?' 10 w
T send-keys -t w r
wait_said 'Rated: you 1500 -> 1[0-9]{3} \(\+-[0-9]+\), opponent 1500 -> 1[0-9]{3} \(\+-[0-9]+\)\.' w 15
ok "the end screen shows both ratings before and after"
"$WIZWAR" top "127.0.0.1:$PORT" >"$TMPD/top" 2>&1 || fail "top: $(cat "$TMPD/top")"
grep -qE '^ +Lea +1[0-9]{3} ' "$TMPD/top" && grep -qE '^ +Rob +1[0-9]{3} ' "$TMPD/top" || fail "top: $(cat "$TMPD/top")"
ok "wizwar top lists both"
