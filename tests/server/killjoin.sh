#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# killjoin: kill the joiner of whole duels at random points and run the same command again; count the
# turns lost and duplicated (both must be 0). Real processes on loopback: a `wizwar server`, an opponent
# `wizwar bot` that stays, and the joiner `wizwar bot --games 1` killed again and again.
#
#   killjoin.sh WIZWAR [COUNT] [MODE]   COUNT kills (default 10); MODE:
#     kill    kill -9
#     hup     SIGHUP (what a closed terminal sends)
#     locked  kill -9, with the server's password and the address locked out for wrong passwords
#             before every rerun: the resume token must still get the seat back
#
# Per rerun: it must come back into the duel (its seat file, a RESUME), at the turn the duel was at:
#   duplicated: it came back at a turn before the one the server's log had reached at the kill;
#   lost: it came back at a later turn than it could have (a turn of its passed without it), it could
#         not take its seat back, or it forfeited (a resign of its seat in the log).
# Every duel's log must also replay exactly (`wizwar replay --check`).
set -u
W="${1:?usage: killjoin.sh WIZWAR [COUNT] [MODE]}"
COUNT="${2:-10}"
MODE="${3:-kill}"
SIG=-KILL
[ "$MODE" = hup ] && SIG=-HUP
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-killjoin.XXXXXX")"
SRV="" OPP="" J=""
finish() {
	for p in $J $OPP $SRV; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap finish EXIT
export XDG_STATE_HOME="$TMP/state"
PW=()
[ "$MODE" = locked ] && PW=(--password sesame)

die() {
	echo "FAIL: $*"
	echo "--- server:"; tail -20 "$TMP/srv.err"
	echo "--- joiner:"; tail -20 "$TMP/j.err"; tail -5 "$TMP/j.out"
	exit 1
}

# wait_re REGEX FILE SECS [PID]: until FILE matches (0), or PID exits (2), or time is up (1).
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 2
		sleep 0.05
	done
	return 1
}

"$W" server --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" "${PW[@]}" 2>"$TMP/srv.err" &
SRV=$!
wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 10 || die "no server"
PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"
"$W" bot "127.0.0.1:$PORT" --new-room --name Opp --think 10 --games 0 --seed 1 "${PW[@]}" \
    >"$TMP/opp.out" 2>"$TMP/opp.err" &
OPP=$!
wait_re '^room ' "$TMP/opp.out" 10 || die "no room"
ROOM="$(head -1 "$TMP/opp.out" | cut -d' ' -f2 | tr -d :)"
# Locked out, the joiner cannot join a new duel for a minute: longer duels, more kills in each.
THINK=10
[ "$MODE" = locked ] && THINK=150
JOIN=("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Joe --think "$THINK" --games 1 "${PW[@]}")
: >"$TMP/j.err"
: >"$TMP/j.out"

current_log() { ls -t "$TMP"/logs/wizwar-"$ROOM"-*.log.gz 2>/dev/null | head -1; }
# The last turn the current duel's log has ended (its "= N" lines), 0 before any.
last_turn() {
	local log
	log="$(current_log)"
	[ -n "$log" ] || { echo 0; return; }
	gzip -dc "$log" 2>/dev/null | grep -aE '^= [0-9]+ ' | tail -1 | cut -d' ' -f2 | grep -E '^[0-9]+$' || echo 0
}
starts() { grep -c "room $ROOM: duel [0-9]* starts" "$TMP/srv.err"; }
overs() { grep -c "room $ROOM: duel over" "$TMP/srv.err"; }
lock_out() {
	# Five wrong passwords from this address: it is locked out for a minute.
	# (until the server says so: a window may run out in the middle)
	for _ in $(seq 12); do
		grep -q "too many wrong passwords" <("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Mallory \
		    --password wrong 2>&1) && return 0
	done
	die "the address is not locked out"
}

kills=0 lost=0 dup=0 resumed=0 duels=0 started=0 ended_at_kill=0
RANDOM=$$
while ((kills < COUNT)); do
	# A whole duel: the joiner joins afresh, and is killed at random points until its duel ends.
	if [ -n "$J" ] && ! kill -0 "$J" 2>/dev/null; then
		# A rerun that joined afresh has played its whole duel already.
		wait "$J" 2>/dev/null
		J=""
		duels=$((duels + 1))
		continue
	fi
	if [ -z "$J" ]; then
		"${JOIN[@]}" >>"$TMP/j.out" 2>>"$TMP/j.err" &
		J=$!
	fi
	for ((i = 0; i < 400; i++)); do
		(($(starts) > $(overs))) && break
		kill -0 "$J" 2>/dev/null || die "the joiner left before its duel started"
		sleep 0.05
	done
	(($(starts) > $(overs))) || die "no duel started"
	started=$((started + 1))
	ended_before="$(overs)" # duels over before this one
	while ((kills < COUNT)); do
		sleep "0.$((RANDOM % 9))$((RANDOM % 10))"
		kill -0 "$J" 2>/dev/null || break # its duel is over and it left
		(($(overs) >= $(starts))) && { wait "$J"; break; }
		kill "$SIG" "$J" 2>/dev/null
		wait "$J" 2>/dev/null
		sleep 0.05 # the server sees the socket close
		k="$(last_turn)"
		kills=$((kills + 1))
		[ "$MODE" = locked ] && lock_out
		backs="$(grep -c 'back in the duel at turn' "$TMP/j.err")"
		fresh="$(grep -c 'Joe joins room' "$TMP/srv.err")"
		"${JOIN[@]}" >>"$TMP/j.out" 2>>"$TMP/j.err" &
		J=$!
		for ((i = 0; i < 600; i++)); do
			(($(grep -c 'back in the duel at turn' "$TMP/j.err") > backs)) && break
			kill -0 "$J" 2>/dev/null || break
			sleep 0.05
		done
		if (($(grep -c 'back in the duel at turn' "$TMP/j.err") <= backs)); then
			if [ "$MODE" != locked ] && (($(overs) > ended_before)) &&
			    (($(grep -c 'Joe joins room' "$TMP/srv.err") > fresh)); then
				# The duel ended as it was killed (its END read or not): the seat went with
				# the duel, and the rerun joined the next one. No turn of it was lost.
				ended_at_kill=$((ended_at_kill + 1))
				duels=$((duels + 1))
				continue 2
			fi
			lost=$((lost + 1))
			echo "kill $kills: the rerun did not take its seat back"
			grep -v 'back in the duel' "$TMP/j.err" | tail -3
			tail -4 "$TMP/srv.err"
			break
		fi
		resumed=$((resumed + 1))
		t="$(grep -oE 'back in the duel at turn [0-9]+' "$TMP/j.err" | tail -1 | grep -oE '[0-9]+$')"
		# Back at the turn in progress at the kill (the log's last "= k" starts turn k), or the
		# next if the opponent ended its own meanwhile.
		if ((t < k)); then
			dup=$((dup + 1))
			echo "kill $kills: back at turn $t, but the log had ended turn $k"
		elif ((t > k + 1)); then
			lost=$((lost + t - k - 1))
			echo "kill $kills: back at turn $t, the log had ended turn $k"
		fi
	done
	# Let the duel end (the joiner plays it out unkilled once the count is reached).
	while kill -0 "$J" 2>/dev/null; do sleep 0.1; done
	wait "$J" 2>/dev/null
	J=""
	duels=$((duels + 1))
	# A fresh join waits for the lockout to pass, as a person's would.
	((kills < COUNT)) && [ "$MODE" = locked ] && sleep 61
done
kill "$OPP" 2>/dev/null
wait "$OPP" 2>/dev/null
OPP=""
for log in "$TMP"/logs/wizwar-"$ROOM"-*.log.gz; do
	[ -e "$log" ] || continue
	"$W" replay --check "$log" >/dev/null 2>&1 || { gzip -dc "$log" | tail -3; die "$log does not replay"; }
	seat="$(gzip -dc "$log" | grep -aE '^player [01] Joe$' | cut -d' ' -f2)"
	# The joiner's forfeit: turns lost (a forfeit in the last duel by the opponent's leaving is not).
	if gzip -dc "$log" | grep -aqE "^$seat resign$"; then
		lost=$((lost + 1))
		echo "$(basename "$log"): the joiner forfeited"
	fi
done
# Every duel the joiner finished, however often it was killed, checked the host.
unverified="$(grep -c 'NOT VERIFIED' "$TMP/j.out")"
if ((unverified > 0)); then
	grep 'NOT VERIFIED' "$TMP/j.out" | head -3
	die "$unverified duels not verified by the joiner"
fi
seats="$(ls "$XDG_STATE_HOME"/wizwar/seats 2>/dev/null | wc -l)"
echo "killjoin $MODE: $kills kills ($resumed resumed, $ended_at_kill as their duel ended) in $duels duels: turns lost $lost, duplicated $dup; seat files left $seats"
((lost == 0 && dup == 0 && seats == 0)) || exit 1
