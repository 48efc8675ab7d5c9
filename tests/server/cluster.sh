#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cluster: three `wizwar server --redis` nodes sharing one real redis-server on loopback (started here, on a
# port of its own, and stopped). A room made on one node is joined through another (REDIRECT: the client
# checks the node's key and plays there); a new room goes to the node holding the fewest, never to one that
# missed a beat (stopped with -STOP), and again once it beats; with Redis killed
# the duels under way go on and a join routed elsewhere is refused with the reason, and once Redis is back
# (empty) the nodes put their rooms back and route again; a node killed with -9 is forgotten by the others
# within CLUSTER_DEAD_MS; a client sent to a node stopped or killed right after it was chosen goes back to
# the node it asked, which by then says the room went with its node; a node stopped takes its rooms out of
# the directory; a quick pair whose room another node was asked to make, one of its players gone before the
# room's news: the other goes back into the pool, not into a room alone. TAP output.
set -u
W="${1:?usage: cluster.sh WIZWAR}"
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
. "$(dirname "$0")/../proc_lib.sh"
proc_init cluster # TMP, PIDS, fail, ok
PROC_TAP=1
PROC_TAIL=8
PROC_SHOW=("$TMP/redis.log")
REDIS=""
trap 'kill -9 $REDIS 2>/dev/null; proc_finish' EXIT
echo "1..10"

redis_start

declare -A NPID NPORT
declare -a W_ROOM
node_start() { # node_start NAME
	XDG_STATE_HOME="$TMP/$1" server_start "$TMP/$1.err" --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" \
		--log-dir "$TMP/$1/logs" --admin-socket none --no-store
	NPID[$1]=$SRV
	NPORT[$1]=$PORT
}
for x in n1 n2 n3; do node_start $x; done
for x in n1 n2 n3; do wait_re 'cluster: node [a-z0-9]+ .* joined.*' "$TMP/$x.err" 10; done
for x in n1 n2 n3; do
	for _ in $(seq 60); do [ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] && break; sleep 0.1; done
	[ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] || fail "$x did not hear of both other nodes"
done
ok "three nodes on one Redis each hear of the two others"

# bot NAME PORT ARGS...: a network bot, 40 ms a command, one duel, in the background.
bot() {
	local name="$1" port="$2"
	shift 2
	XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:$port" --name "$name" --think 40 --games 1 "$@" \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
	BOTPID=$!
}
room_of() { wait_re '^room ' "$TMP/$1.out" 10; head -1 "$TMP/$1.out" | cut -d' ' -f2 | tr -d :; }

# ==== a room made on n1, joined through n2 ====
bot Ann "${NPORT[n1]}" --new-room --seed 1
R1="$(room_of Ann)"
wait_re "room=$R1 .*created" "$TMP/n1.err" 10
sleep 0.3 # the directory's news reaches n2 (a publish; well under a beat)
bot Ben "${NPORT[n2]}" --room "$R1" --seed 2
wait_re "room=$R1 .*sent to node .* port ${NPORT[n1]} \(its room is there\)" "$TMP/n2.err" 10
wait_re "room=$R1 duel 1 starts" "$TMP/n1.err" 10
grep -q 'the room is on another node of this server' "$TMP/Ben.err" || fail "Ben was not told where the room is"
FP1="$(grep -oE 'fingerprint [a-z0-9]+' "$TMP/n1.err" | head -1 | cut -d' ' -f2)"
[ "$(rcli HGET wizwar:rooms "$R1")" = "$FP1" ] || fail "the directory does not say n1 ($FP1) holds $R1"
ok "a room made on n1 is joined through n2: sent to n1 with its key, the duel starts there"

# ==== Redis killed while the duel goes on ====
kill -9 "$REDIS"
wait "$REDIS" 2>/dev/null
wait_re 'cluster: Redis .* lost' "$TMP/n1.err" 10
wait_re 'cluster: Redis .* lost' "$TMP/n2.err" 10
XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:${NPORT[n3]}" --name Cat --room nosuchroom-xyz --games 1 \
	>"$TMP/Cat.out" 2>"$TMP/Cat.err"
grep -q "the cluster's directory cannot be reached" "$TMP/Cat.err" || fail "a join with Redis down was not told why: $(tail -2 "$TMP/Cat.err")"
ok "Redis killed: a join of a room elsewhere is refused with the reason"
redis_start
wait_re 'cluster: Redis .* answers' "$TMP/n1.err" 10
for _ in $(seq 60); do [ -n "$(rcli HGET wizwar:rooms "$R1")" ] && break; sleep 0.1; done
[ -n "$(rcli HGET wizwar:rooms "$R1")" ] || fail "n1 did not put $R1 back into the empty Redis"
wait_re "room=$R1 duel over" "$TMP/n1.err" 120
for b in Ann Ben; do wait_re '^duel 1: .*log verified' "$TMP/$b.out" 15; done
ok "the duel went on through Redis's death and ended verified on both sides; n1 put its room back into the new Redis"

# ==== a new room goes to the node holding the fewest ====
# Three players each make a room on n1 and wait there: the first two stay (n1 holds no more than one room
# over the others), the third is sent to a node holding none.
for i in 1 2 3; do
	bot "Wait$i" "${NPORT[n1]}" --new-room
	W_ROOM[$i]="$(room_of "Wait$i")"
done
grep -q 'the room is on another node' "$TMP/Wait1.err" "$TMP/Wait2.err" && fail "a room was sent away from a node holding no more than the others"
grep -q 'the room is on another node' "$TMP/Wait3.err" || fail "the third new room stayed on n1: $(tail -2 "$TMP/n1.err")"
wait_re "room=${W_ROOM[3]} .*\(a new room, and fewer rooms there\)" "$TMP/n1.err" 5
OTHER=""
for x in n2 n3; do grep -q "room=${W_ROOM[3]} .*created" "$TMP/$x.err" && OTHER=$x; done
[ -n "$OTHER" ] || fail "no node made the third room"
ok "a new room asked of the busiest node is made on one holding fewer ($OTHER)"

# ==== a node that missed a beat gets no new room; once it beats again it does ====
# n1 holds two rooms, OTHER one, THIRD none. THIRD stopped (kill -STOP: it may be dead, and is counted
# alive for CLUSTER_DEAD_MS): once n1 says it missed a beat, a new room asked of n1 does not go there
# (its player would wait 10 s for an answer, then fail); THIRD let go, the next new room goes there.
THIRD=n2
[ "$OTHER" = n2 ] && THIRD=n3
P3=${NPORT[$THIRD]}
made='room=[^ ]+ .*(created|sent to node)'
before="$(count "$made" "$TMP/n1.err")"
# Counted, not grepped: on a loaded machine THIRD may have missed a beat (and beat again) before.
missed="node [a-z0-9]+ at 127\.0\.0\.1 port $P3 missed a beat"
back="node [a-z0-9]+ at 127\.0\.0\.1 port $P3 beats again"
joined="node [a-z0-9]+ at 127\.0\.0\.1 port $P3 joined"
nmissed="$(count "$missed" "$TMP/n1.err")" nback="$(count "$back" "$TMP/n1.err")" njoined="$(count "$joined" "$TMP/n1.err")"
# Stopped: missed a beat since, and no beat of its own came after that (one sent just before the stop).
stale() {
	[ "$(count "$missed" "$TMP/n1.err")" -gt "$nmissed" ] &&
		grep -E "$missed|$back" "$TMP/n1.err" | tail -1 | grep -qE "$missed"
}
kill -STOP "${NPID[$THIRD]}"
for _ in $(seq 100); do stale && break; sleep 0.05; done
stale || fail "n1 did not say that THIRD ($THIRD) missed a beat"
bot Wait4 "${NPORT[n1]}" --new-room
for _ in $(seq 200); do [ "$(count "$made" "$TMP/n1.err")" -gt "$before" ] && break; sleep 0.05; done
line="$(grep -E "$made" "$TMP/n1.err" | tail -1)"
kill -CONT "${NPID[$THIRD]}"
[ "$(count "$made" "$TMP/n1.err")" -gt "$before" ] || fail "n1 neither made nor sent Wait4's new room"
case "$line" in
*"port $P3 "*) fail "a new room was sent to a node that missed a beat ($THIRD, port $P3): $line" ;;
esac
# Back (or, on a machine so loaded that it stayed stopped past CLUSTER_DEAD_MS, joined again).
for _ in $(seq 100); do
	[ "$(count "$back" "$TMP/n1.err")" -gt "$nback" ] || [ "$(count "$joined" "$TMP/n1.err")" -gt "$njoined" ] && break
	sleep 0.05
done
bot Wait5 "${NPORT[n1]}" --new-room
R5="$(room_of Wait5)"
grep -qE "room=$R5 .*sent to node [a-z0-9]+ at 127\.0\.0\.1 port $P3 \(a new room" "$TMP/n1.err" ||
	fail "the node that beats again ($THIRD, port $P3) got no new room: $(grep -E "room=$R5 " "$TMP/n1.err" | tail -1)"
wait_re "room=$R5 .*created" "$TMP/$THIRD.err" 5
ok "a node that missed a beat (stopped) is sent no new room; once it beats again it is"

# ==== a client sent to a node that died asks the node it first asked again ====
# THIRD holds R5 (Wait5 waiting there). THIRD stopped (kill -STOP: it takes the connection and never
# answers), Eve asks n1 at once to join R5: the directory still names THIRD (alive for CLUSTER_DEAD_MS),
# so n1 sends her there. No handshake within NET_REDIRECT_WAIT_MS (4 s): she goes back to n1, saying so;
# by then n1 has found THIRD dead and its waiting room gone from the directory (nothing to take over), and
# tells her so. THIRD is then killed, stopped: it never comes back. Fails without the client's way back: a
# REDIRECT's node that did not answer was the end of the join ("no answer from ..." after 10 s).
kill -STOP "${NPID[$THIRD]}"
bot Eve "${NPORT[n1]}" --room "$R5"
wait_re "room=$R5 .*sent to node [a-z0-9]+ at 127\.0\.0\.1 port $P3 \(its room is there\)" "$TMP/n1.err" 5
wait_re "the node the cluster sent us to, 127\.0\.0\.1:$P3, is out of reach \(no answer in 4 s\): asking 127\.0\.0\.1:${NPORT[n1]} again in 1 s \(try 1 of 3\)" "$TMP/Eve.err" 10
wait_re "no room '$R5' on this server" "$TMP/Eve.err" 15
[ -z "$(rcli HGET wizwar:rooms "$R5")" ] || fail "the dead node's waiting room $R5 is still in the directory"
kill -9 "${NPID[$THIRD]}"
wait "${NPID[$THIRD]}" 2>/dev/null
ok "a client sent to a node stopped right after it was chosen asks the node it first asked again, and is told the room went with its node"

# ==== a node killed with -9 is forgotten; a node stopped takes its rooms out ====
kill -9 "${NPID[$OTHER]}"
# Fay asks n1 for OTHER's room at once: sent there (OTHER still counts as alive), refused, she asks n1 again.
XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:${NPORT[n1]}" --name Fay --room "${W_ROOM[3]}" --games 1 \
	>"$TMP/Fay.out" 2>"$TMP/Fay.err"
grep -qE "room=${W_ROOM[3]} .*sent to node [a-z0-9]+ at 127\.0\.0\.1 port ${NPORT[$OTHER]} \(its room is there\)" "$TMP/n1.err" ||
	fail "n1 did not send Fay to the node just killed"
grep -qE "the node the cluster sent us to, 127\.0\.0\.1:${NPORT[$OTHER]}, is out of reach \(connection refused\): asking 127\.0\.0\.1:${NPORT[n1]} again in 1 s \(try 1 of 3\)" "$TMP/Fay.err" ||
	fail "Fay did not go back to n1 when the node she was sent to refused"
grep -q "no room '${W_ROOM[3]}' on this server" "$TMP/Fay.err" || fail "Fay was not told the dead node's room is gone: $(tail -2 "$TMP/Fay.err")"
wait_re "node [a-z0-9]+ at 127\.0\.0\.1 port ${NPORT[$OTHER]} not heard from for [0-9]+ ms: its rooms are taken over or forgotten" "$TMP/n1.err" 10
for _ in $(seq 40); do [ -z "$(rcli HGET wizwar:rooms "${W_ROOM[3]}")" ] && break; sleep 0.1; done
[ -z "$(rcli HGET wizwar:rooms "${W_ROOM[3]}")" ] || fail "the dead node's room is still in the directory"
XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:${NPORT[n1]}" --name Dan --room "${W_ROOM[3]}" --games 1 \
	>"$TMP/Dan.out" 2>"$TMP/Dan.err"
grep -q "no room '${W_ROOM[3]}'" "$TMP/Dan.err" || fail "a join of the dead node's room was not refused: $(tail -2 "$TMP/Dan.err")"
[ -n "$(rcli HGET wizwar:rooms "${W_ROOM[1]}")" ] || fail "n1's waiting room is not in the directory"
kill -TERM "${NPID[n1]}"
wait "${NPID[n1]}" 2>/dev/null
[ -z "$(rcli HGET wizwar:rooms "${W_ROOM[1]}")$(rcli HGET wizwar:rooms "${W_ROOM[2]}")" ] ||
	fail "a stopped node's rooms are still in the directory"
ok "a node killed with -9 is forgotten with its rooms (a client sent there as it died asks again and is told); a node stopped takes its rooms out of the directory"

# ==== what Redis holds is what docs/server.md says: one hash, the password salt, the live nodes' beat keys ====
keys="$(rcli --scan | grep -v '^wizwar:alive:' | sort | tr '\n' ' ')"
[ "$keys" = "wizwar:rooms wizwar:salt " ] || [ "$keys" = "wizwar:salt " ] || fail "Redis holds more than the directory and the salt: $keys"
alive="$(rcli --scan --pattern 'wizwar:alive:*' | wc -l)"
[ "$alive" -eq 0 ] || fail "$alive beat keys, no node running (a stopped node deletes its own, a killed one's expires)"
ok "Redis holds the room directory, the password salt and the live nodes' beat keys (none now), nothing else, once the duels are over: no turn log stream left ($keys)"

# ==== a pair one of whose players leaves before their room is made: the other goes back into the pool ====
# Two fresh nodes on the same Redis (the others are gone), pairing every 250 ms: P, the pairing node (the
# smaller id), and T, reloaded to --max-rooms 1 and holding a room. P holding 3 rooms, T holds two fewer,
# so P asks T to make a pair's room, which T cannot: the pair waits for the room's news (QUICK_PEND_MS).
# qa is killed meanwhile (a player gone: its link lost, or it quit); qb goes back into the pool and,
# nobody else coming, is told so at its --bot-after (exit 3). Fails without: qb was told PAIRED into a
# room of its own where nobody comes, and waited there.
rcli SUBSCRIBE wizwar:events >"$TMP/events.txt" 2>/dev/null &
PIDS+=($!)
for x in p1 p2; do
	: >"$TMP/$x.conf"
	XDG_STATE_HOME="$TMP/$x" server_start "$TMP/$x.err" --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" \
		--log-dir "$TMP/$x/logs" --admin-socket none --no-store --config "$TMP/$x.conf" --pair-wave 250
	NPID[$x]=$SRV
	NPORT[$x]=$PORT
done
for x in p1 p2; do wait_re 'cluster: node [a-z0-9]+ .* joined' "$TMP/$x.err" 10; done
fp() { grep -oE 'fingerprint [a-z0-9]+' "$TMP/$1.err" | head -1 | cut -d' ' -f2; }
if [ "$(printf '%s\n%s\n' "$(fp p1)" "$(fp p2)" | LC_ALL=C sort | head -1)" = "$(fp p1)" ]; then P=p1 T=p2; else P=p2 T=p1; fi
FT="$(fp $T)"
echo "max-rooms 1" >"$TMP/$T.conf"
kill -HUP "${NPID[$T]}"
wait_re "reloaded $TMP/$T.conf: applied: max-rooms" "$TMP/$T.err" 10
bot Tw "${NPORT[$T]}" --new-room
room_of Tw >/dev/null
# T's load as P sees it: two beats that say its room (the second: it makes no more, so P counts none ahead).
for _ in $(seq 100); do [ "$(count "^beat $FT [0-9.]+ [0-9]+ [0-9a-f]+ 1$" "$TMP/events.txt")" -ge 2 ] && break; sleep 0.05; done
[ "$(count "^beat $FT [0-9.]+ [0-9]+ [0-9a-f]+ 1$" "$TMP/events.txt")" -ge 2 ] || fail "T's beats did not say its room"
for i in 1 2 3; do bot "Pw$i" "${NPORT[$P]}" --new-room; done # each stays on P: T, full, holds 1
for i in 1 2 3; do room_of "Pw$i" >/dev/null; done
[ "$(count "room=[^ ]+ .*created" "$TMP/$P.err")" -eq 3 ] || fail "P does not hold the 3 rooms: $(grep -E 'created|sent to' "$TMP/$P.err")"
pbot() { # NAME: a quick bot of its own key asking P, giving up after 2 s
	XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:${NPORT[$P]}" --name "$1" --key "$TMP/$1.key" --quick --bot-after 2 \
		--games 1 >"$TMP/$1.out" 2>"$TMP/$1.err" &
	PIDS+=($!)
	BOTPID=$!
}
# The pair goes to T only while P has T's beat of the last 1.6 s: on a machine so loaded that T missed
# one just then, P pairs them on itself (said, and that pair let go), and two more bots ask.
QB=""
for try in 1 2 3; do
	paired="$(count "paired .* with " "$TMP/$P.err")"
	pbot "qa$try"
	QA=$BOTPID
	pbot "qb$try"
	QB=$BOTPID
	for _ in $(seq 200); do [ "$(count "paired .* with " "$TMP/$P.err")" -gt "$paired" ] && break; sleep 0.05; done
	line="$(grep -E "paired .* with " "$TMP/$P.err" | tail -1)"
	case "$line" in *"their room asked of node $FT at"*) break ;; esac
	echo "# try $try: P did not ask T for the pair's room: $line"
	kill -9 "$QA" "$QB" 2>/dev/null
	QB=""
done
[ -n "$QB" ] || fail "P never asked T to make a pair's room"
kill -9 "$QA"
wait_re "a pair's room asked by the pairing node not made: this server holds --max-rooms" "$TMP/$T.err" 5
for _ in $(seq 200); do kill -0 "$QB" 2>/dev/null || break; sleep 0.05; done
kill -0 "$QB" 2>/dev/null && fail "qb still runs 10 s on: $(grep '^paired' "$TMP/qb$try.out")"
wait "$QB"
rc=$?
grep -q '^paired' "$TMP/qb$try.out" && fail "qb was told it was paired, into a room nobody else comes to"
[ "$rc" = 3 ] || fail "qb: exit $rc, not 3 (nobody to pair with)"
grep -q 'nobody to pair with came in 2 s' "$TMP/qb$try.err" || fail "qb was not told nobody came"
grep -q "the other player of the pair left before their room was made: back in the pool" "$TMP/$P.err" ||
	fail "P did not say qb went back into the pool"
ok "a pair whose other player left before their room was made: the one left goes back into the pool, and is told nobody came"
