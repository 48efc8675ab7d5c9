#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_samename: a second `wizwar bot` of the same name, room and state directory as one that plays (real
# processes over loopback TCP). It must not take the first one's seat with the token in their shared seat file
# (the server would log "replaced"): seat files are claimed (seatfile_claim), so it gets a file of its own, is
# refused ("that name is in use"), and says why. The first one, killed with -9 and run again, takes its own
# seat back, its file being free again. Before the claim, the second bot took over the first one's seat.
set -u
W="${1:?usage: test_samename.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh" # tmux for the `join` part; wait_file; its cleanup stops PIDS and removes TMPD
TMP="$TMPD"
fail() {
	echo "FAIL: $*"
	for f in "$TMP"/*.out "$TMP"/*.err; do echo "--- $(basename "$f"):"; tail -15 "$f"; done
	echo "--- the screen:"
	cat "$SCREEN" 2>/dev/null
	exit 1
}
count() { grep -cE -- "$1" "$2"; }

# A short grace (2 s), for the last part: a seat not taken back in time.
"$W" server --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" --grace 2 >"$TMP/srv.out" 2>"$TMP/srv.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 10
PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"

# Slow enough (80 ms a command) that the duel outlasts the second bot and a kill and rerun.
"$W" bot "127.0.0.1:$PORT" --new-room --name Opp --think 80 --games 1 --seed 1 >"$TMP/opp.out" 2>"$TMP/opp.err" &
PIDS+=($!)
OPP=$!
wait_file '^room ' "$TMP/opp.out" 10
ROOM="$(head -1 "$TMP/opp.out" | cut -d' ' -f2 | tr -d :)"
TWIN=("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Twin --think 80 --games 1 --seed 2)
"${TWIN[@]}" >"$TMP/a.out" 2>"$TMP/a.err" &
A=$!
PIDS+=("$A")
wait_file "room=$ROOM duel [0-9]+ starts" "$TMP/srv.err" 10
sleep 0.5 # its START is in: its seat file is written

"${TWIN[@]}" >"$TMP/b.out" 2>"$TMP/b.err"
RB=$?
[ "$RB" != 0 ] || fail "a second Twin in the room exited 0"
grep -q 'that name is in use in this room' "$TMP/b.err" || fail "the second Twin was not refused for its name"
grep -q 'another client here is already Twin on this server and room' "$TMP/b.err" ||
	fail "the second Twin did not say why it does not take the seat"
grep -q 'replaced' "$TMP/srv.err" && fail "the second Twin took the first one's seat: $(grep replaced "$TMP/srv.err")"
kill -0 "$A" 2>/dev/null || fail "the first Twin is gone"
echo "ok - a second Twin from the same state directory is refused, and does not take the first one's seat"

# The same with a person's `join`: told, refused, the seat untouched (the refusal ends the screen: what is left
# on the terminal is said). With the bots' key: with its own (id.key), the server's store would refuse the name
# as another key's before the room is looked at (client/id tests that).
T new-session -d -s w -x 100 -y 30 "$W join 127.0.0.1:$PORT --room $ROOM --name Twin --key $XDG_STATE_HOME/wizwar/bot.key; sleep 60"
wait_for 'another client here is already Twin on this server and room' 10
wait_for 'that name is in use in this room' 10
grep -q 'replaced' "$TMP/srv.err" && fail "the join took the first one's seat: $(grep replaced "$TMP/srv.err")"
T kill-session -t w
ok "a second Twin's join is told why it does not take the seat, and is refused"

(($(count "room=$ROOM duel over" "$TMP/srv.err") == 0)) || fail "the duel ended before the kill (too short)"
kill -9 "$A"
wait "$A" 2>/dev/null
sleep 0.1
"${TWIN[@]}" >>"$TMP/a.out" 2>>"$TMP/a.err" &
A=$!
PIDS+=("$A")
wait_file 'back in the duel at turn' "$TMP/a.err" 10
grep -q 'replaced' "$TMP/srv.err" && fail "the rerun replaced a connection: $(grep replaced "$TMP/srv.err")"
echo "ok - the first Twin, killed and run again, takes its own seat back"

wait "$A"
RA=$?
wait "$OPP"
RO=$?
[ "$RA" = 0 ] && [ "$RO" = 0 ] || fail "the bots exited $RA and $RO"
grep -qE '^duel 1: .*log verified' "$TMP/a.out" || fail "the duel was not played to its end"
left="$(find "$TMP/state" -path '*/seats/*' -type f | wc -l)"
[ "$left" = 0 ] || fail "seat or lock files left: $(find "$TMP/state" -path '*/seats/*' -type f)"
echo "ok - the duel ended; no seat file or lock left"

# A seat file the server has forgotten (the bot killed, not back within the grace): the rerun is warned, joins
# afresh, and stopped by a signal before its first duel is over it exits 0: a warning is not a failure.
"$W" bot "127.0.0.1:$PORT" --new-room --name Opp2 --think 80 --games 0 --seed 3 >"$TMP/opp2.out" 2>"$TMP/opp2.err" &
PIDS+=($!)
wait_file '^room ' "$TMP/opp2.out" 10
ROOM="$(head -1 "$TMP/opp2.out" | cut -d' ' -f2 | tr -d :)"
ZED=("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Zed --think 80 --games 0 --seed 4)
"${ZED[@]}" >"$TMP/z.out" 2>"$TMP/z.err" &
Z=$!
PIDS+=("$Z")
wait_file "room=$ROOM duel [0-9]+ starts" "$TMP/srv.err" 10
sleep 0.3
kill -9 "$Z"
wait "$Z" 2>/dev/null
wait_file "room=$ROOM Zed did not come back" "$TMP/srv.err" 10
"${ZED[@]}" >>"$TMP/z.out" 2>>"$TMP/z.err" &
Z=$!
PIDS+=("$Z")
wait_file 'warning: the seat kept from an earlier run is gone: joining afresh' "$TMP/z.err" 10
wait_file "Zed joins room $ROOM" "$TMP/srv.err" 10
kill -TERM "$Z"
wait "$Z"
RZ=$?
[ "$RZ" = 0 ] || fail "a bot stopped by SIGTERM after a warning exited $RZ"
echo "ok - a forgotten seat: warned, joined afresh, and stopped by a signal it exits 0"
echo "all same-name tests passed"
