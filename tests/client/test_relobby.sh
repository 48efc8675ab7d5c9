#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_relobby: the real curses client whose link breaks in the lobby reconnects by itself, in tmux over
# loopback TCP. Lea joins a `wizwar server` through a forwarding process (the link: killed to break it,
# started again on the same port to mend it); Max joins the same room directly, in another terminal.
#  1. The first lobby: Lea controls the options (17x17, 30 s a turn) and is ready, Max is not. The link
#     breaks: Lea is told it is lost and that it reconnects (each try on the prompt line), Max that Lea
#     lost the connection and the room holds her seat; mended, Lea is back as the same player with the
#     lobby restored (the options, Max there, herself still ready), and Max is told she is back and ready.
#     Max readies: the duel starts.
#  2. After the duel (Lea forfeits and stays): the link breaks and is mended; Lea is back in the lobby, the
#     end not told twice, no "Back in the duel".
#  3. The link breaks for good: Lea gives up after --reconnect's seconds, says why and what to do, and
#     exits 1 (docs/wizwar.6).
#  4. `wizwar bot` the same: its lobby link broken and mended (said on stderr), then it plays; broken for
#     good, it says why and exits 1, also with --games 0 (until stopped) after it has played a duel.
#  5. A seat held shorter than the link is down (a server with --grace 8): Lea knows the hold from the server's
#     WELCOME (nobody else dropped before), is told it at her drop, sees it counted down on the prompt line and
#     its end said, and once back is told plainly that she is a new player of the room.
#  6. A server that holds no seat in the lobby (--lobby-hold 0): Lea is told so at her drop, the prompt line
#     only counts the rejoining down (never a hold of 0 s), and once back she is a new player; the bot's
#     stderr line says the same.
set -u
WIZWAR="${1:?usage: test_relobby.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
export XDG_STATE_HOME="$STATE"
mkdir -p "$STATE"

# ---- the link: a forwarder on FPORT to the server, killed and started again ----
cat >"$TMPD/fwd.py" <<'EOF'
import os, socket, sys, threading
lport, tport = int(sys.argv[1]), int(sys.argv[2])
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", lport))
l.listen(8)
print(l.getsockname()[1], flush=True)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    c, _ = l.accept()
    try:
        u = socket.create_connection(("127.0.0.1", tport))
    except OSError:
        c.close()
        continue
    for a, b in ((c, u), (u, c)):
        threading.Thread(target=pipe, args=(a, b), daemon=True).start()
EOF
FWD=""
NFWD=0
fwd_start() {
	local out="$TMPD/fwd.$((++NFWD))" # a file of its own: never the last one's port, read before it is cut
	python3 "$TMPD/fwd.py" "$1" "$PORT" >"$out" 2>&1 &
	FWD=$!
	PIDS+=("$FWD")
	wait_file '^[0-9]+$' "$out"
	FPORT="$(head -1 "$out")"
}
fwd_kill() {
	kill -9 "$FWD" 2>/dev/null
	wait "$FWD" 2>/dev/null
}

"$WIZWAR" server --bind 127.0.0.1 --port 0 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
fwd_start 0

# ==== 1. the first lobby ====
start "$WIZWAR" join "127.0.0.1:$FPORT" --new-room --name Lea --reconnect 12
wait_for 'Waiting for an opponent'
ROOM="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
[ -n "$ROOM" ] || fail "no room code on the screen"
say_to w '/size 17'
say_to w '/time 30'
wait_said 'Options: 17x17, FoV on, potions on, 30 seconds a turn\. You control the options\.' w
T new-session -d -s h -x 80 -y 24 \
    "env XDG_STATE_HOME='$TMPD/max' '$WIZWAR' join 127.0.0.1:$PORT --room $ROOM --name Max --key '$TMPD/max.key'; exec sleep 600"
wait_said 'Joined as player 2' h 15
say_to h '/unready'
say_to w '/ready'
wait_said 'You are ready; waiting for Max to be ready\.' w
wait_said 'Lea is ready: type /ready \(or /rematch\) to start\.' h
ok "the lobby: Lea controls 17x17 at 30 s a turn and is ready, Max is not"
ls "$STATE"/wizwar/seats/* >/dev/null 2>&1 || fail "no seat file in the first lobby"
ok "the seat's resume token is kept from the join on"

fwd_kill
wait_said 'Connection lost \([^)]*\): reconnecting to the room, an attempt a second for up to 12 s\. This server holds your seat 30 s; after that you join the room again as a new player\. Q leaves\.' w
ok "Lea is told the link is lost and that it reconnects, for how long, and how long this server holds the seat"
wait_for 'Reconnecting: try [0-9]+, seat held [0-9]+ s more \(connection' 10 w
ok "each try on the prompt line: $(grep -oE 'Reconnecting: try [0-9]+, seat held [0-9]+ s more' "$SCREEN" | head -1)"
wait_said 'Lea lost the connection; the room holds its seat up to 30 s\. Waiting for Lea to come back\. Options: 17x17.* Type /ready to be ready when Lea is back\.' h
ok "Max is told Lea lost the connection, how long her seat is held, and that the room waits for her"
wait_file 'Lea dropped in the lobby; the seat is held 30 s' "$TMPD/server.err"
fwd_start "$FPORT"
wait_said 'Reconnected: your seat is yours again\. Back in the room as player 1, the controller\.' w 15
wait_said 'Back in the room as player 1, the controller\. Both players are here\. Options: 17x17, FoV on, potions on, 30 seconds a turn\. You control the options\. You are ready; waiting for Max to be ready\.' w
ok "Lea is back: the same seat, the options, Max there, herself still ready"
capture w
expect_not 'Reconnecting: try' "the prompt line is clear once back"
wait_said 'Lea is back\..* Lea is ready: type /ready \(or /rematch\) to start\.' h
ok "Max is told Lea is back, and ready"
wait_file "Lea is back in room $ROOM as player 1" "$TMPD/server.err"
say_to h '/ready'
wait_said 'The duel begins' w 15
wait_said 'The duel begins' h 15
ok "both ready: the duel starts"

# ==== 2. the lobby after a duel ====
T send-keys -t w Q
wait_for 'Forfeit and quit\?' 10 w
T send-keys -t w r
wait_said 'Fair host: seed made with your part and the other player.s, log verified' w 15
ok "Lea forfeits and stays; the end checked"
fwd_kill
wait_said 'Connection lost \([^)]*\): reconnecting to the room' w
wait_said 'Lea lost the connection; the room holds its seat up to 30 s\.' h
wait_file 'Lea dropped after the duel; the seat is held 30 s for its END' "$TMPD/server.err"
fwd_start "$FPORT"
wait_said 'Reconnected: your seat is yours again\. Back in the room as player [12][^.]*\. Both players are here\. Options: 17x17' w 15
ok "after a duel, Lea is back in the lobby"
join_panel w
sed 's/.*Reconnected: your seat is yours again//' "$JOINED" | grep -qE 'Fair host|Host checked|WARNING|Back in the duel|begins' &&
	fail "the end (or a duel) was told again after the return: $(cat "$JOINED")"
ok "the end not told twice, no 'Back in the duel'"
KEPT=("$STATE"/wizwar/duel-*.log)
[ "${#KEPT[@]}" = 1 ] && [ -f "${KEPT[0]}" ] || fail "the duel's log was not kept once: ${KEPT[*]}"
ok "its log kept once across the drop and the return"
wait_said 'Lea is back\.' h

# ==== 3. the link gone for good ====
fwd_kill
wait_said 'Connection lost' w
wait_said 'could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts in 1[0-9] s, the last: connection refused; your seat is given up: run the same command to join the room again' w 25
ok "Lea gives up after --reconnect's seconds, with the reason and what to do"
T send-keys -t w Q
wait_for 'STTY$' 10 w
expect '^wizwar join: could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts in' "the reason on stderr once the terminal is back"
expect '^EXIT=1$' "a connection lost for good exits 1"
expect '^(echo icanon|icanon echo) STTY$' "the terminal is restored"
ls "$STATE"/wizwar/seats/* >/dev/null 2>&1 && fail "the seat file outlived giving up"
ok "the seat file is gone with the seat"
T kill-session -t h
T kill-session -t w

# ==== 4. `wizwar bot` the same way: back by itself in the first lobby, plays; gone for good: exit 1 ====
fwd_start "$FPORT"
XDG_STATE_HOME="$TMPD/bot" "$WIZWAR" bot "127.0.0.1:$FPORT" --new-room --name Bo --think 50 --games 1 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
BOT=$!
PIDS+=("$BOT")
wait_file '^room ' "$TMPD/bot.out"
BROOM="$(head -1 "$TMPD/bot.out" | cut -d' ' -f2 | tr -d :)"
fwd_kill
wait_file '^wizwar bot: connection lost \(.*\): reconnecting, an attempt a second for up to 130 s; the lobby seat is held 30 s, then the bot joins the room again as a new player$' "$TMPD/bot.err"
fwd_start "$FPORT"
wait_file '^wizwar bot: reconnected$' "$TMPD/bot.err" 15
wait_file "Bo is back in room $BROOM" "$TMPD/server.err"
ok "wizwar bot: the link lost in its lobby is said, and taken back by itself"
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$BROOM" --name Cy --think 50 --games 1 >/dev/null 2>&1 &
PIDS+=($!)
wait "$BOT"
RC=$?
[ "$RC" = 0 ] || { cat "$TMPD/bot.err"; fail "the bot exited $RC"; }
grep -qE '^duel 1: .*log verified' "$TMPD/bot.out" || { cat "$TMPD/bot.out" "$TMPD/bot.err"; fail "no verified duel"; }
ok "wizwar bot: it then plays its duel, verified, and exits 0"
XDG_STATE_HOME="$TMPD/bot2" "$WIZWAR" bot "127.0.0.1:$FPORT" --new-room --name Di --games 1 --reconnect 2 \
    >"$TMPD/bot2.out" 2>"$TMPD/bot2.err" &
BOT=$!
PIDS+=("$BOT")
wait_file '^room ' "$TMPD/bot2.out"
fwd_kill
wait "$BOT"
RC=$?
[ "$RC" = 1 ] || { cat "$TMPD/bot2.err"; fail "a bot cut off before its duel exited $RC, not 1"; }
grep -qE '^wizwar bot: could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts? in 2 s, the last: connection refused$' \
    "$TMPD/bot2.err" || { cat "$TMPD/bot2.err"; fail "the bot did not say why it gave up"; }
ok "wizwar bot: gone for good, it says why and exits 1"
# --games 0 (until stopped): a link lost for good after its duels is no success either.
fwd_start "$FPORT"
XDG_STATE_HOME="$TMPD/bot3" "$WIZWAR" bot "127.0.0.1:$FPORT" --new-room --name Ed --think 0 --games 0 --reconnect 2 \
    >"$TMPD/bot3.out" 2>"$TMPD/bot3.err" &
BOT=$!
PIDS+=("$BOT")
wait_file '^room ' "$TMPD/bot3.out"
EROOM="$(head -1 "$TMPD/bot3.out" | cut -d' ' -f2 | tr -d :)"
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$EROOM" --name Fay --think 0 --games 1 >/dev/null 2>&1 &
PIDS+=($!)
wait_file '^duel 1: ' "$TMPD/bot3.out" 30
fwd_kill
wait "$BOT"
RC=$?
[ "$RC" = 1 ] || { cat "$TMPD/bot3.out" "$TMPD/bot3.err"; fail "bot --games 0 cut off after its duel exited $RC, not 1"; }
grep -qE '^wizwar bot: could not get back to 127\.0\.0\.1:[0-9]+: [0-9]+ attempts? in 2 s, the last: connection refused$' \
    "$TMPD/bot3.err" || { cat "$TMPD/bot3.err"; fail "bot --games 0 did not say why it gave up"; }
ok "wizwar bot --games 0: cut off after a duel, it says why and exits 1"

# ==== 5. a seat held shorter than the link is down: the hold as this server shows it, then a new player ====
# A server whose grace (8 s) bounds its lobby hold: its WELCOME says 8 s, and nothing else has (no PEER
# came before). Lea's link breaks for longer than that: she is told the hold, its end, and once back that
# she is a new player of the room.
# A server of its own (N, then its options), Lea in a new room through a fresh link, Max joined
# directly; nobody ready, whatever comes back, so no duel starts.
lobby_pair() {
	local n=$1
	shift
	"$WIZWAR" server --bind 127.0.0.1 --port 0 "$@" 2>"$TMPD/server$n.err" &
	PIDS+=($!)
	wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server$n.err"
	PORT="$(grep -oE 'port [0-9]+' "$TMPD/server$n.err" | head -1 | grep -oE '[0-9]+')"
	fwd_start 0
	LPORT=$FPORT
	start "$WIZWAR" join "127.0.0.1:$LPORT" --new-room --name Lea --reconnect 30
	wait_for 'Waiting for an opponent'
	ROOM="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
	say_to w '/size 17' # Lea is not ready
	T new-session -d -s h -x 80 -y 24 \
	    "env XDG_STATE_HOME='$TMPD/max$n' '$WIZWAR' join 127.0.0.1:$PORT --room $ROOM --name Max --key '$TMPD/max.key'; exec sleep 600"
	wait_said 'Joined as player 2' h 15
	say_to h '/unready'
}
lobby_pair 5 --grace 8
wait_said 'The duel starts when both are ready' w
fwd_kill
wait_said 'Connection lost \([^)]*\): reconnecting to the room, an attempt a second for up to 30 s\. This server holds your seat 8 s; after that you join the room again as a new player\. Q leaves\.' w
ok "Lea is told this server's hold, 8 s, not the default"
wait_for 'Reconnecting: try [0-9]+, seat held [1-8] s more \(conn' 10 w
ok "the prompt line counts the hold down: $(grep -oE 'Reconnecting: try [0-9]+, seat held [0-9]+ s more' "$SCREEN" | head -1)"
wait_said 'Your seat has most likely been given up by now \(held 8 s\): once back you join the room again as a new player, if there is room\.' w 10
wait_for 'Rejoining: try [0-9]+, [0-9]+ s left \(connection refused\)' 10 w
ok "the hold's end is said, and the prompt line says it rejoins: $(grep -oE 'Rejoining: try [0-9]+, [0-9]+ s left' "$SCREEN" | head -1)"
wait_said 'Your opponent has left; the room waits for another\.' h
fwd_start "$LPORT"
wait_said 'Reconnected, but the server had given up your seat: you are a new player of the room\. Joined the room again as player [12]\.' w 15
join_panel w
sed 's/.*Connection lost//' "$JOINED" | grep -qE 'your seat is yours again|Back in the room' &&
	fail "a new seat was told as the old one: $(cat "$JOINED")"
ok "back as a new player, told plainly, never 'your seat is yours again'"
capture w
expect_not 'Reconnecting: try|Rejoining: try' "the prompt line is clear once back"
T kill-session -t h
T kill-session -t w

# ==== 6. a server that holds no seat in the lobby (--lobby-hold 0): said so, never "held 0 s" ====
# Its WELCOME says hold 0. Lea's link breaks: she is told at once that she comes back as a new player,
# and the prompt line only counts the rejoining down; the bot's stderr line says the same in its words.
lobby_pair 6 --lobby-hold 0
wait_said 'The duel starts when both are ready' w
fwd_kill
wait_said 'Connection lost \([^)]*\): reconnecting to the room, an attempt a second for up to 30 s\. This server does not hold a seat dropped in the lobby: you join the room again as a new player\. Q leaves\.' w
ok "Lea is told at the drop that this server holds no lobby seat"
wait_said 'Your opponent has left; the room waits for another\.' h
ok "Max is told at once that the seat is free"
wait_for 'Rejoining: try [0-9]+, [0-9]+ s left \(connection refused\)' 10 w
sleep 1.5
capture w
expect_not 'held (about )?0 s|seat held [0-9]+ s more|most likely been given up' "no hold of 0 s is counted or said"
fwd_start "$LPORT"
wait_said 'Reconnected, but the server had given up your seat: you are a new player of the room\. Joined the room again as player [12]\.' w 15
ok "back as a new player, told plainly"
T kill-session -t h
T kill-session -t w
XDG_STATE_HOME="$TMPD/bot6" "$WIZWAR" bot "127.0.0.1:$LPORT" --new-room --name Gus --games 1 --reconnect 2 \
    >"$TMPD/bot6.out" 2>"$TMPD/bot6.err" &
BOT=$!
PIDS+=("$BOT")
wait_file '^room ' "$TMPD/bot6.out"
fwd_kill
wait "$BOT"
grep -qE '^wizwar bot: connection lost \(.*\): reconnecting, an attempt a second for up to 2 s; this server holds no seat dropped in the lobby, so the bot joins the room again as a new player$' "$TMPD/bot6.err" ||
	{ cat "$TMPD/bot6.err"; fail "the bot did not say that this server holds no lobby seat"; }
grep -qE 'held (about )?0 s' "$TMPD/bot6.err" && { cat "$TMPD/bot6.err"; fail "the bot spoke of a hold of 0 s"; }
ok "wizwar bot: a server that holds no lobby seat is said so"

echo "all lobby reconnection tests passed"
