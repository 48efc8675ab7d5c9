#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# killjoin: kill the joiner of whole duels at random points and run the same command again; count the
# turns lost and duplicated (both must be 0). Real processes on loopback: a `wizwar server`, an opponent
# `wizwar bot` that stays, and the joiner `wizwar bot` killed again and again.
#
#   killjoin.sh WIZWAR [COUNT] [MODE]   COUNT kills (default 10); MODE:
#     kill    kill -9; the joiner plays one duel (--games 1), then a fresh one joins the next
#     hup     the same with SIGHUP (what a closed terminal sends)
#     locked  kill -9, with the server's password and the joiner's address locked out at every kill:
#             the joiner joins once and stays for every duel (--games 0, rematching); before each
#             kill five wrong passwords from its address lock it out again (if the last lockout has
#             run out, or has less than 10 s to go), and a fresh join with the right password must
#             be refused right then; the rerun's resume token must still get the seat back. The
#             guesser and the fresh joiner have keys of their own (--key): the joiner's key proved
#             the password, and a proven key passes its address's lockout.
#
# Per kill, the rerun must come back into the duel (its seat file, a RESUME), at the turn the duel was at:
#   duplicated: it came back at a turn before the one the server's log had reached at the kill;
#   lost: it came back at a later turn than it could have (a turn of its passed without it), it could
#         not take its seat back, or it forfeited (a resign of its seat in the log).
# A kill that lands as the duel ends (the END sent, read or not, or the duel over while it was away,
# or in the lobby between duels) must come back too: to the final view, the END and the log (counted
# "at the end"). Only a joiner that had read its END and said BYE before the kill hit it may join
# afresh ("had left"). Every duel's log must replay exactly (`wizwar replay --check`), every duel the
# joiner finished must verify the host, and no seat file may be left.
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
[ "$MODE" = locked ] && PW=(--password=sesame)

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

"$W" server --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" "${PW[@]}" >"$TMP/srv.out" 2>"$TMP/srv.err" &
SRV=$!
wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 10 || die "no server"
PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"
"$W" bot "127.0.0.1:$PORT" --new-room --name Opp --think 10 --games 0 --seed 1 "${PW[@]}" \
    >"$TMP/opp.out" 2>"$TMP/opp.err" &
OPP=$!
wait_re '^room ' "$TMP/opp.out" 10 || die "no room"
ROOM="$(head -1 "$TMP/opp.out" | cut -d' ' -f2 | tr -d :)"
GAMES=1
[ "$MODE" = locked ] && GAMES=0
JOIN=("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Joe --think 10 --games "$GAMES" "${PW[@]}")
: >"$TMP/j.err"
: >"$TMP/j.out"

# A duel under way: plain in playing/; finished: compressed into the tree by date.
current_log() { ls -t "$TMP"/logs/playing/wizwar-"$ROOM"-*.log "$TMP"/logs/*/*/*/wizwar-"$ROOM"-*.log.gz 2>/dev/null | head -1; }
# The last turn the current duel's log has ended (its "= N" lines), 0 before any.
last_turn() {
	local log
	log="$(current_log)"
	[ -n "$log" ] || { echo 0; return; }
	gzip -dcf "$log" 2>/dev/null | grep -aE '^= [0-9]+ ' | tail -1 | cut -d' ' -f2 | grep -E '^[0-9]+$' || echo 0
}
count() { grep -cE -- "$1" "$2"; }
starts() { count "room=$ROOM duel [0-9]* starts" "$TMP/srv.err"; }
overs() { count "room=$ROOM duel over" "$TMP/srv.err"; }
backs() { count 'back in the duel at turn' "$TMP/j.err"; }
fresh_joins() { count 'Joe joins room' "$TMP/srv.err"; }
results() { count '^duel [0-9]+: ' "$TMP/j.out"; }
lock_out() {
	# Five wrong passwords from this address lock it out for a minute; while a lockout holds,
	# one try says so at once, with the seconds left. With less than 10 s left (too little for
	# the kill and the rerun), wait it out and lock the address out again.
	local out n
	for _ in $(seq 16); do
		out="$("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Mallory --password=wrong --key "$TMP/mallory.key" 2>&1)"
		n="$(grep -oE 'too many wrong passwords from your address: try again in [0-9]+ s' <<<"$out" |
		    grep -oE '[0-9]+ s$' | grep -oE '^[0-9]+')"
		[ -n "$n" ] || continue
		((n >= 10)) && return 0
		sleep "$((n + 1))"
	done
	die "the address is not locked out"
}
fresh_refused() {
	# Right then, a fresh join with the right password from that address must be refused.
	local out
	out="$("$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Fresh --password=sesame --games 1 --key "$TMP/fresh.key" 2>&1)" &&
	    die "a fresh join got in from a locked-out address"
	grep -q "too many wrong passwords" <<<"$out" || die "a fresh join was refused, but not for the lockout: $out"
}
start_joiner() {
	JRES="$(results)" # its duels' result lines are the ones after these
	"${JOIN[@]}" >>"$TMP/j.out" 2>>"$TMP/j.err" &
	J=$!
}
# Running, not a zombie that has exited and waits to be reaped.
alive() {
	local st
	st="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
	[[ $st != Z* ]]
}

kills=0 lost=0 dup=0 resumed=0 at_end=0 had_left=0 locks=0
RANDOM=$$
start_joiner
while ((kills < COUNT)); do
	# A duel with the joiner in it (a joiner of one duel that has played it leaves: a fresh one comes).
	for ((i = 0; i < 400; i++)); do
		(($(starts) > $(overs))) && break
		if ! alive "$J"; then
			wait "$J" 2>/dev/null
			start_joiner
		fi
		sleep 0.05
	done
	((i < 400)) || die "no duel started" # (it may be over again already: the kill then finds it left)
	sleep "0.$((RANDOM % 9))$((RANDOM % 10))"
	if [ "$MODE" = locked ]; then
		lock_out
		fresh_refused
		locks=$((locks + 1))
	fi
	alive "$J" || continue # its one duel is over and it left: no kill
	o="$(overs)" s="$(starts)" b="$(backs)" f="$(fresh_joins)" jres="$JRES"
	kill "$SIG" "$J" 2>/dev/null
	wait "$J" 2>/dev/null
	sleep 0.05 # the server sees the socket close
	k="$(last_turn)"
	kills=$((kills + 1))
	start_joiner
	for ((i = 0; i < 600; i++)); do
		(($(backs) > b)) && break
		(($(fresh_joins) > f)) && break
		alive "$J" || break
		sleep 0.05
	done
	if (($(backs) <= b)); then
		if (($(fresh_joins) > f && $(results) > jres)); then
			# It had its END (its result line is out) and had said BYE before the kill hit it:
			# its seat went with that BYE, and the rerun joined the next duel.
			had_left=$((had_left + 1))
			continue
		fi
		lost=$((lost + 1))
		echo "kill $kills: the rerun did not take its seat back"
		grep -v 'back in the duel' "$TMP/j.err" | tail -3
		tail -4 "$TMP/srv.err"
		alive "$J" || start_joiner
		continue
	fi
	t="$(grep -oE 'back in the duel at turn [0-9]+' "$TMP/j.err" | tail -1 | grep -oE '[0-9]+$')"
	if ((s == o || $(overs) > o)); then
		# In the lobby between duels, or the duel ended as it was killed or while it was away:
		# it came back to the final view, the END and the log.
		at_end=$((at_end + 1))
	else
		resumed=$((resumed + 1))
	fi
	# Back at the turn in progress at the kill (the log's last "= k" starts turn k), or the
	# next if the opponent ended its own meanwhile. Not for a comeback at the end: the log read
	# at the kill may be the next duel's, just begun (turn 0), while the rerun comes back to
	# the end of the one it was killed in (seen under ASan: "back at turn 50, the log had
	# ended turn 0" with the duel over while it was away); its END and log are checked below.
	if ((s == o || $(overs) > o)); then
		:
	elif ((t < k)); then
		dup=$((dup + 1))
		echo "kill $kills: back at turn $t, but the log had ended turn $k"
	elif ((t > k + 1)); then
		lost=$((lost + t - k - 1))
		echo "kill $kills: back at turn $t, the log had ended turn $k"
	fi
done
if [ "$MODE" = locked ]; then
	# The joiner stays for every duel: the opponent leaves (a forfeit of its own if a duel is on),
	# and the joiner, in the lobby, leaves with BYE.
	kill "$OPP" 2>/dev/null
	wait "$OPP" 2>/dev/null
	OPP=""
	wait_re 'Opp left' "$TMP/srv.err" 10
	for ((i = 0; i < 100; i++)); do (($(starts) == $(overs))) && break; sleep 0.05; done
	sleep 0.5 # its END, log and check
	kill "$J" 2>/dev/null
fi
# Let the joiner's last duel end (it plays it out unkilled once the count is reached).
while alive "$J"; do sleep 0.1; done
wait "$J" 2>/dev/null
J=""
if [ -n "$OPP" ]; then
	kill "$OPP" 2>/dev/null
	wait "$OPP" 2>/dev/null
	OPP=""
fi
duels=0
sleep 0.3 # the last duel's log compressed
for log in "$TMP"/logs/playing/wizwar-"$ROOM"-*.log "$TMP"/logs/*/*/*/wizwar-"$ROOM"-*.log.gz; do
	[ -e "$log" ] || continue
	duels=$((duels + 1))
	"$W" replay --check "$log" >/dev/null 2>&1 || { gzip -dcf "$log" | tail -3; die "$log does not replay"; }
	seat="$(gzip -dcf "$log" | grep -aE '^player [01] Joe$' | cut -d' ' -f2)"
	# The joiner's forfeit: turns lost (the opponent's leaving in the last duel is not).
	if gzip -dcf "$log" | grep -aqE "^$seat resign$"; then
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
lockmsg=""
[ "$MODE" = locked ] && lockmsg="; locked out, and a fresh join refused, at all $locks kills"
echo "killjoin $MODE: $kills kills in $duels duels: $resumed resumed in a duel, $at_end at the end (resumed with" \
    "its END), $had_left after the joiner had left; turns lost $lost, duplicated $dup; seat files left $seats$lockmsg"
((lost == 0 && dup == 0 && seats == 0)) || exit 1
