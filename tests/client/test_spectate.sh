#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_spectate: `wizwar watch SERVER ROOM`, the real curses client as a spectator in tmux over loopback TCP.
# Lea plays in one terminal (join --new-room), a bot is her opponent; Ada and Bob watch in two more.
#  1. The spectators see the duel as the room allows (the default: what both players know): both names and
#     HPs, the round, the status line naming the view and how many watch; Lea's header counts them. On the
#     map, a wizard exactly where the shared view places one (spect_expect replays the duel's log with the
#     real rules: the seed is the server's and random, and in about one duel in twelve a wizard is known to
#     the other by Lea's first move: the two start in sight, or the bot, moving first, comes into view).
#  2. Ada's chat reaches Bob and never Lea.
#  3. Lea turns spectators off (/spectators off): both spectators are told so and a new one is refused;
#     the turn log says so after its header's options, so that a resume keeps them off.
set -u
WIZWAR="${1:?usage: test_spectate.sh PATH-TO-WIZWAR PATH-TO-SPECT_EXPECT}"
SPECT_EXPECT="${2:?usage: test_spectate.sh PATH-TO-WIZWAR PATH-TO-SPECT_EXPECT}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

"$WIZWAR" server --bind 127.0.0.1 --port 0 --log-dir "$TMPD/logs" >"$TMPD/srv.out" 2>"$TMPD/srv.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/srv.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/srv.err" | head -1 | grep -oE '[0-9]+')"

start "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Lea
wait_for 'Waiting for an opponent'
ROOM="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
[ -n "$ROOM" ] || fail "no room code on the screen"
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM" --name Rob --think 100 >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
PIDS+=($!)
say_to w '/ready'
wait_for 'Round 1' 20

# ==== 1. two spectators ====
# Ada's terminal holds the 25x25 level whole (not scrolled): a square's place on the screen is its place on
# the level.
T new-session -d -s a -x 100 -y 32 "'$WIZWAR' watch 127.0.0.1:$PORT $ROOM --name Ada; echo EXIT=\$?; exec sleep 600"
T new-session -d -s b -x 80 -y 24 "'$WIZWAR' watch 127.0.0.1:$PORT $ROOM --name Bob; echo EXIT=\$?; exec sleep 600"
wait_said 'Spectator in room [0-9a-z-]+: shared view: only what both players know; 2 watching' a 15
# Lea makes no move during these checks: once it is hers (the bot, if it moves first, has its turn), the
# duel stands still, and what the spectator is shown can be compared with the duel's log.
wait_for 'Round 1: Lea to move' 20 a
capture a
expect 'Lea HP [0-9]/5 +vs +Rob HP [0-9]/5' "the spectator's header: both names and HPs"
expect 'Round 1: Lea to move' "whose move it is (Lea's: the duel waits for her)"
expect 'Spells not shown to spectators' "no player's spells"
LOG="$(find "$TMPD/logs" -name '*.log' | head -1)"
[ -n "$LOG" ] || fail "no turn log in $TMPD/logs"
for ((i = 0; i < 200 * WAIT_SCALE; i++)); do # the log catches up with the duel (its writes are queued)
	"$SPECT_EXPECT" "$LOG" >"$TMPD/expect" 2>"$TMPD/expect.err" && grep -qx 'to-move Lea' "$TMPD/expect" && break
	sleep 0.05
done
grep -qx 'to-move Lea' "$TMPD/expect" || fail "the turn log never came to Lea's move: $(cat "$TMPD/expect" "$TMPD/expect.err")"
capture a
# The map's frame: its top line holds the title " 25x25 "; inside it, the level's interior (the outer ring,
# always wall, is not drawn): square (x, y) is y lines below the title and x columns right of the corner.
python3 - "$SCREEN" "$TMPD/expect" >"$TMPD/at.out" <<'PY' || fail "the spectator's map: $(cat "$TMPD/at.out")"
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = next((i for i, r in enumerate(rows) if " 25x25 " in r), None)
if top is None:
    print("no map frame titled 25x25 (scrolled?)")
    sys.exit(1)
left = rows[top].index("\u250c")
seen = {(c - left, 1 + j) for j, r in enumerate(rows[top + 1:top + 24]) for c, ch in enumerate(r)
        if ch == "@" and left < c < left + 24}
want = {(int(w[2]), int(w[3])) for w in (l.split() for l in open(sys.argv[2])) if w[0] == "wizard"}
print("on the map:", sorted(seen), "where the other player knows it:", sorted(want))
if seen != want:
    print("(the wizards are at %s)" % sorted((int(w[2]), int(w[3])) for w in (l.split() for l in open(sys.argv[2])) if w[0] == "truth"))
    sys.exit(1)
PY
ok "the map shows a wizard exactly where the other player knows it ($(sed 's/^on the map: .* where the other player knows it: //' "$TMPD/at.out"))"
wait_said 'You see what both players know\.' a
ok "the spectator's log says which view it has"
wait_for 'Rob HP 5/5 +2 watching' 10 w
ok "the player's header counts the spectators"

# ==== 2. spectator chat ====
say_to a 'psst Lea, he is behind the wall'
wait_said '<Ada> psst Lea, he is behind the wall' b
ok "Bob hears Ada"
sleep 0.5
join_panel w
if grep -q 'psst' "$JOINED"; then
	fail "Lea's screen shows a spectator's chat"
fi
ok "Lea never sees it"

# ==== 3. spectators off ====
say_to w '/spectators off'
wait_said 'the players turned spectators off' a
wait_said 'the players turned spectators off' b
ok "both spectators are told the players turned them off"
wait_for 'no spectators' 10 w
ok "Lea's header says no spectators"
LOG="$(find "$TMPD/logs" -name '*.log' | head -1)"
[ -n "$LOG" ] || fail "no turn log in $TMPD/logs"
wait_file '^# wizwar-server spectators off$' "$LOG"
[ "$(grep -n '^# wizwar-server spectators' "$LOG" | cut -d: -f2-)" = "# wizwar-server spectators shared
# wizwar-server spectators off" ] || fail "the log's spectators comments: $(grep '^# wizwar-server spectators' "$LOG")"
ok "the log says they were shared, then turned off during the duel (a resume keeps them off)"
T new-session -d -s c -x 80 -y 24 "'$WIZWAR' watch 127.0.0.1:$PORT $ROOM --name Cy; echo EXIT=\$?; exec sleep 600"
wait_said 'do not allow spectators' c 15
ok "a new spectator is refused"
T send-keys -t a Q
wait_for 'EXIT=' 10 a
expect 'EXIT=0' "Q leaves a room that turned spectators off"
T send-keys -t c Q
wait_for 'EXIT=' 10 c
ok "the refused one leaves too"
echo "all spectate screen tests passed"
