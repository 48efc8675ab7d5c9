#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_rated: the real curses client, in tmux over loopback TCP, at the end of a rated duel on a `wizwar server`
# with a store: Lea plays a bot (its own key) that is killed mid-duel (its seat held in the grace); she forfeits
# and stays, and her end screen shows both ratings before and after (RATED, checked against the server's key);
# the bot, run again, takes its seat back and is given the END and the RATED of the duel that ended while it
# was away; then `wizwar top` lists both.
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
ROB=$!
PIDS+=($ROB)
wait_file '^room ' "$TMPD/bot.out"
ROOM="$(head -1 "$TMPD/bot.out" | cut -d' ' -f2 | tr -d :)"
start "$WIZWAR" join "127.0.0.1:$PORT" --room "$ROOM" --name Lea
wait_said 'Joined as player 2' w 15
say_to w '/ready'
wait_said 'The duel begins' w 15
kill -9 "$ROB"
wait_file 'Rob dropped' "$TMPD/server.err" 15
T send-keys -t w Q
wait_for 'Forfeit and quit\?' 10 w
T send-keys -t w r
wait_said 'Rated: you 1500 -> 1[0-9]{3} \(\+-[0-9]+\), opponent 1500 -> 1[0-9]{3} \(\+-[0-9]+\)\.' w 15
ok "the end screen shows both ratings before and after"
wait_file 'Rob is away; its seat is held for the end' "$TMPD/server.err" 10
wait_file ' rated: 1500 -> ' "$TMPD/server.err" 10
# The same command as before, with the room's code: the bot's seat file takes the seat back (--games 2:
# a bot whose last duel is played leaves at its END, before anything after it is read).
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM" --name Rob --key "$TMPD/rob.key" --think 300 --games 2 \
    >"$TMPD/bot2.out" 2>"$TMPD/bot2.err" &
PIDS+=($!)
wait_file '^rated: 1500 -> 1[0-9]{3} \(\+-[0-9]+\), opponent 1500 -> 1[0-9]{3}' "$TMPD/bot2.out" 15
grep -q 'Rob is back in room' "$TMPD/server.err" || fail "Rob did not resume: $(tail -5 "$TMPD/server.err")"
ok "the player away at the end is given its RATED when it comes back"
"$WIZWAR" top "127.0.0.1:$PORT" >"$TMPD/top" 2>&1 || fail "top: $(cat "$TMPD/top")"
grep -qE '^ +Lea +1[0-9]{3} ' "$TMPD/top" && grep -qE '^ +Rob +1[0-9]{3} ' "$TMPD/top" || fail "top: $(cat "$TMPD/top")"
ok "wizwar top lists both"
