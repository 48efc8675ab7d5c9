#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_follow: the web page follows its duel across a cluster's nodes (follow.test.mjs, headless chromium).
# Three private `wizwar server --redis --web` nodes on a redis-server started here on a loopback port of its
# own: n1 holds two bot duels (one shared view, one player 1's view 2 turns behind). A page watches each
# duel on n1 from the link n1 logged, from before it starts; n1 is killed with -9; each page asks the other
# nodes (n2 first: where the room is not, it says where it is or that it is moving), watches on from the
# node that took the room over, with the same link, for a few screens; then each room's second player
# leaves (a forfeit), and the page shows the duel's end; every screen it got, from either node, is within
# the view its room promised. A page opened on n2 while the room moves (n2 has seen n1 miss a beat) says
# the room is moving, finds it, and shows the end too. Then n3's Origin check, and a wrong link refused.
# Then a third duel on n2 (or n3), watched by a page; its node stopped, the duel's log deleted from Redis and
# the node killed: nobody can take it over, and the page says "could not be found on any node" once the
# live node said so, within 12 s of the kill (before: after 40 answers, 10 s of them at least).
# Fails without the page following: its websocket's close was the end of its watch.
set -u
W="${1:?usage: test_follow.sh PATH-TO-WIZWAR}"
W="$(cd "$(dirname "$W")" && pwd)/$(basename "$W")" # the test goes into tests/web to run node
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/web_lib.sh" # skipped without node, chromium or the npm packages; CHROMIUM
command -v redis-server >/dev/null || { echo "redis-server is not installed: skipped"; exit 77; }
. "$HERE/../proc_lib.sh"
proc_init follow
PROC_TAIL=12
trap 'kill -9 $REDIS 2>/dev/null; proc_finish' EXIT
REDIS=""
# The browser first: chromium starts while the cluster does (it waits for the line that says where).
coproc BROWSER { cd "$HERE" && CHROMIUM="$CHROMIUM" timeout 80 node follow.test.mjs 2>&1; }
BPID="$BROWSER_PID"
PIDS+=("$BPID")
exec 3<&"${BROWSER[0]}" 4>&"${BROWSER[1]}"
export XDG_STATE_HOME="$TMP/state" # the bots' keys and known servers: this test's own
redis_start
echo "the web's own secret" >"$TMP/pw"

declare -A NPID NPORT NWEB BOTPID
node_start() { # NAME ARGS...: a node with --web, its ports in NPORT and NWEB once it listens
	local name="$1"
	shift
	XDG_STATE_HOME="$TMP/$name" "$W" server --bind 127.0.0.1 --port 0 --web 127.0.0.1:0 --redis "redis://127.0.0.1:$RPORT" \
		--password-file "$TMP/pw" --admin-socket none --no-store --rooms-per-hour 0 --handshakes-per-min 0 \
		--max-per-addr 1000 "$@" >/dev/null 2>"$TMP/$name.err" &
	NPID[$name]=$!
	PIDS+=($!)
	wait_re 'web page on .* port [0-9]+' "$TMP/$name.err" 15
	NPORT[$name]="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/$name.err" | grep -oE '[0-9]+$')"
	NWEB[$name]="$(grep -oE 'web page on .* port [0-9]+' "$TMP/$name.err" | grep -oE '[0-9]+$')"
}
heard() { # NODE COUNT: until NODE heard of COUNT other nodes
	for _ in $(seq 100); do [ "$(grep -c ' joined' "$TMP/$1.err")" -ge "$2" ] && return 0; sleep 0.1; done
	fail "$1 did not hear of $2 other nodes"
}

# n1 alone first, so that both rooms are made there; then n2, heard by n1 before n3, so that a page
# asks n2 first.
node_start n1 --log-dir "$TMP/n1/logs"
wait_re 'cluster: Redis .* answers' "$TMP/n1.err" 10
# Each room's duel: 51x51 (the wizards meet later: a duel long enough to be killed in its middle).
bot() { # NAME ARGS...
	local name="$1"
	shift
	"$W" bot "127.0.0.1:${NPORT[${BOTNODE:-n1}]}" --name "$name" --think "${THINK:-40}" --games 1 --reconnect 30 \
		--password-file "$TMP/pw" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
	BOTPID[$name]=$!
}
room() { # NAME ARGS...: a room made on n1 by bot NAME; its code in ROOM_NAME
	bot "$@" --new-room --size 51
	wait_re '^room ' "$TMP/$1.out" 10
	printf -v "ROOM_$1" '%s' "$(head -1 "$TMP/$1.out" | cut -d' ' -f2 | tr -d :)"
}
room Ann
room Dee --spectators delayed:2:1
node_start n2
heard n1 1
node_start n3
heard n1 2
heard n3 2
# The rooms' links, as n1 says them for whoever runs it to hand on.
link() { # ROOM: its page's fragment
	wait_re "room $1: its web page is http://HOST:${NWEB[n1]}/#w=" "$TMP/n1.err" 10
	grep -oE "room $1: its web page is http://HOST:${NWEB[n1]}/#w=[^ ]+" "$TMP/n1.err" | head -1 | sed 's/.*#/#/'
}
LINK_A="$(link "$ROOM_Ann")"
LINK_B="$(link "$ROOM_Dee")"
ok "three nodes, two rooms on n1, their private links said"

printf '{"N1_WEB":%d,"N2_WEB":%d,"N3_WEB":%d,"LINK_A":"%s","LINK_B":"%s","ROOM_A":"%s"}\n' "${NWEB[n1]}" "${NWEB[n2]}" \
	"${NWEB[n3]}" "$LINK_A" "$LINK_B" "$ROOM_Ann" >&4
while IFS= read -r line <&3; do
	if [ "$line" = start ]; then
		bot Ann-b --room "$ROOM_Ann"
		bot Dee-b --room "$ROOM_Dee"
		wait_re "room=$ROOM_Ann duel 1 starts" "$TMP/n1.err" 10
		wait_re "room=$ROOM_Dee duel 1 starts" "$TMP/n1.err" 10
		echo started >&4
		continue
	fi
	if [ "$line" = third ]; then
		# A third duel, asked of n2 (made there, or on n3 if n2 holds more rooms); its node and link said.
		BOTNODE=n2 bot Gus --new-room --size 51
		wait_re '^room ' "$TMP/Gus.out" 10
		ROOM_G="$(head -1 "$TMP/Gus.out" | cut -d' ' -f2 | tr -d :)"
		GN=""
		for _ in $(seq 100); do
			for x in n2 n3; do grep -qE "room=$ROOM_G .*created" "$TMP/$x.err" && GN=$x; done
			[ -n "$GN" ] && break
			sleep 0.05
		done
		[ -n "$GN" ] || fail "neither n2 nor n3 made Gus's room"
		wait_re "room $ROOM_G: its web page is http://HOST:${NWEB[$GN]}/#w=" "$TMP/$GN.err" 10
		LINK_G="$(grep -oE "room $ROOM_G: its web page is http://HOST:${NWEB[$GN]}/#w=[^ ]+" "$TMP/$GN.err" | head -1 | sed 's/.*#/#/')"
		BOTNODE=$GN bot Gus-b --room "$ROOM_G"
		wait_re "room=$ROOM_G duel 1 starts" "$TMP/$GN.err" 10
		printf '{"G_WEB":%d,"LINK_G":"%s"}\n' "${NWEB[$GN]}" "$LINK_G" >&4
		continue
	fi
	if [ "$line" = vanish ]; then
		# Its node stopped, the duel's turn log deleted from Redis (what a Redis that lost its data
		# leaves), the node killed: no node can take the duel over, and the directory drops it.
		kill -STOP "${NPID[$GN]}"
		rcli DEL "wizwar:tlog:$ROOM_G" >/dev/null
		disown "${NPID[$GN]}"
		kill -9 "${NPID[$GN]}"
		echo "# $GN stopped, its duel's log deleted, killed at ${SECONDS} s"
		echo vanished >&4
		continue
	fi
	if [ "$line" = leave ]; then
		# Each room's second player leaves (SIGTERM: its BYE, a forfeit): the duel's end, now.
		kill -TERM "${BOTPID[Ann-b]}" "${BOTPID[Dee-b]}" 2>/dev/null
		echo "# Ann-b and Dee-b stopped at ${SECONDS} s"
		echo left >&4
		continue
	fi
	if [ "$line" = moving ]; then
		# Once n2 has seen n1 miss a beat, n1's rooms are moving until a node has taken them over: a
		# page opened on n2 then asks while the room moves.
		for _ in $(seq 100); do [ "$(grep -c "$MISSED_RE" "$TMP/n2.err")" -gt "$MISSED0" ] && break; sleep 0.05; done
		[ "$(grep -c "$MISSED_RE" "$TMP/n2.err")" -gt "$MISSED0" ] || echo "# n2 did not see n1 miss a beat within 5 s"
		echo "# n2 saw n1 miss a beat at ${SECONDS} s"
		echo moving >&4
		continue
	fi
	if [ "$line" = kill ]; then
		grep -q 'duel over' "$TMP/n1.err" && echo "# a duel ended on n1 before the kill: not in its middle (THINK)"
		MISSED_RE="port ${NPORT[n1]} missed a beat"
		MISSED0="$(grep -c "$MISSED_RE" "$TMP/n2.err")"
		disown "${NPID[n1]}"
		kill -9 "${NPID[n1]}"
		echo "# n1 killed at ${SECONDS} s"
		echo killed >&4
		continue
	fi
	echo "$line"
done
wait "$BPID"
rc=$?
[ "$rc" = 0 ] || fail "the browser test failed ($rc)"
grep -hE "took room ($ROOM_Ann|$ROOM_Dee) over" "$TMP/n2.err" "$TMP/n3.err" | sed 's/^/# /'
ok "the pages followed both duels to the node that took each over (at ${SECONDS} s)"
