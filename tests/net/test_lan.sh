#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# LAN discovery with the real daemons: two network namespaces on a veth pair, each with its own D-Bus system
# bus and avahi-daemon (lan_lib.sh). A host in A is found by `bot --lan NAME` in B, which plays a whole duel
# with a bot in A; the duel is withdrawn while full; a forged announcement in B (a real host with its own key
# behind `avahi-publish`) is refused: the same name twice is not guessed between, and the real host's
# fingerprint copied onto the forger's address fails the handshake; the announcement is gone once the host
# stops; `server --announce` too; without avahi-daemon, one line says so and the address form works. Needs root (exit 77 otherwise). TAP output. Usage: test_lan.sh WIZWAR
set -u
W=$1
here=$(dirname "$0")
. "$here/lan_lib.sh"
lan_need
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; return 1; fi; }
show() { sed 's/^/# /' "$@"; }
# wait_for CMD SECS: until CMD succeeds (tried every 0.1 s; an avahi-browse takes a second itself).
wait_for() {
	local until=$((SECONDS + $2))
	while ((SECONDS < until)); do
		eval "$1" && return 0
		sleep 0.1
	done
	return 1
}
proto=$("$W" --version | sed -n 's/.*(protocol \([0-9]*\),.*/\1/p')
echo "1..19"

lan_up
unset WIZWAR_PASSWORD

# The host in A, and its join line: the port and the fingerprint the announcement must carry.
lan_bg hostA A "$W" host --headless --port 0 --name alice --log-dir "$LAN_T/A/logs"
wait_for 'grep -q "^wizwar join" "$LAN_T/hostA.out"' 10
line=$(grep "^wizwar join" "$LAN_T/hostA.out")
portA=$(sed -n 's/^wizwar join [^:]*:\([0-9]*\)#.*/\1/p' <<<"$line")
fpA=${line##*#}
check "the host in A says its join line" '[[ "$fpA" =~ ^[a-z2-7]{26}$ && -n "$portA" ]]' || show "$LAN_T/hostA.out"

# Seen from B as avahi-browse shows it (a Bonjour tool would see the same): the TXT keys, byte for byte.
wait_for 'lan_seen_b "$LAN_IP_A" >"$LAN_T/seen1" ' 10
check "avahi-browse in B sees the duel of A with its TXT record" \
	'grep -qF "\"fp=$fpA\" \"wait=1\" \"pw=0\" \"name=alice\" \"kind=host\" \"proto=$proto\" \"txtvers=1\"" "$LAN_T/seen1" &&
	 grep -qF ";$LAN_IP_A;$portA;" "$LAN_T/seen1"' || show "$LAN_T/seen1"

# bot --lan alice in B joins it by name; a bot in A joins by address; they play one whole duel.
lan_bg botB B "$W" bot --lan alice --games 1 --think 60 --name bob --seed 1
wait_for 'grep -q "joining" "$LAN_T/botB.out"' 10
check "bot --lan alice in B finds the host in A with its fingerprint pinned" \
	'grep -qF "joining '"'"'alice'"'"' found on the LAN at $LAN_IP_A:$portA (key $fpA)" "$LAN_T/botB.out"' || show "$LAN_T/botB.out"
lan_bg botA A "$W" bot "127.0.0.1:$portA#$fpA" --games 1 --think 60 --name carol --seed 2
# Full: withdrawn (avahi-browse in B no longer resolves it) while the duel is played; 60 ms a move keeps the
# duel several seconds long, so that a loaded machine still sees the withdrawal before its end (at 20 ms a
# 17-turn duel lasted 1.3 s, and a run missed it).
check "the duel is withdrawn from the LAN while it is full" \
	'wait_for "! lan_seen_b \"$LAN_IP_A\" >\"$LAN_T/seen2\"" 60' || show "$LAN_T/seen2" "$LAN_T/hostA.out"
wait "$(cat "$LAN_T/botB.pid")"; rb=$?
wait "$(cat "$LAN_T/botA.pid")"; ra=$?
check "the two bots play a whole duel, verified, and leave (exit 0)" \
	'[ $ra = 0 ] && [ $rb = 0 ] && grep -q "^duel 1: " "$LAN_T/botB.out" && grep -q "^duel 1: " "$LAN_T/botA.out" &&
	 ! grep -q "NOT VERIFIED" "$LAN_T/botA.out" "$LAN_T/botB.out"' || show "$LAN_T/botA.out" "$LAN_T/botB.out"
check "a seat free again, the duel is announced again" 'wait_for "lan_seen_b \"$LAN_IP_A\" >/dev/null" 20'

# A forger in B: a real host with its own key (no announcement of its own), and avahi-publish announcing
# it under the name alice.
lan_bg hostM B "$W" host --headless --port 0 --name mallory --no-announce --log-dir "$LAN_T/B/logs"
wait_for 'grep -q "^wizwar join" "$LAN_T/hostM.out"' 10
lineM=$(grep "^wizwar join" "$LAN_T/hostM.out")
portM=$(sed -n 's/^wizwar join [^:]*:\([0-9]*\)#.*/\1/p' <<<"$lineM")
fpM=${lineM##*#}
check "the forger's host has another key" '[[ "$fpM" =~ ^[a-z2-7]{26}$ && "$fpM" != "$fpA" ]]'
check "host --no-announce announces nothing" '! lan_seen_b "$portM" >/dev/null'
txt() { echo txtvers=1 proto="$proto" kind=host name=alice pw=0 wait=1 "fp=$1"; }
# 1. Its own key, under the real host's name, while the real host is there: two called alice.
lan_bg pub1 B avahi-publish -s alice _wizwar._tcp "$portM" $(txt "$fpM")
wait_for 'lan_seen_b "\"fp=$fpM\"" >/dev/null' 10
in_b "$W" bot --lan alice --games 1 --think 0 >"$LAN_T/dup.out" 2>&1; rd=$?
check "two duels called alice: bot --lan alice refuses to guess, and says why (exit 1)" \
	'[ $rd = 1 ] && grep -qF "2 duels on the LAN are called '"'"'alice'"'"'; not guessing which is the real one" "$LAN_T/dup.out" &&
	 grep -qF "$LAN_IP_A:$portA#$fpA" "$LAN_T/dup.out" && grep -qF ":$portM#$fpM" "$LAN_T/dup.out"' || show "$LAN_T/dup.out"
lan_stop pub1

# A person in B: `wizwar join` with no address, in tmux, lists the duels found and joins the one chosen.
tm() { tmux -S "$LAN_T/tmux" -f /dev/null "$@"; }
screen() { tm capture-pane -p -t w >"$LAN_T/screen" 2>/dev/null; grep -qE -- "$1" "$LAN_T/screen"; }
nsenter --net="/run/netns/$LAN_B" -- tmux -S "$LAN_T/tmux" -f /dev/null new-session -d -s w -x 100 -y 30 \
	"env DBUS_SYSTEM_BUS_ADDRESS=unix:path=$LAN_T/B/bus XDG_STATE_HOME=$LAN_T/B/state $W join --name dave --no-log; echo EXIT=\$?; sleep 60"
wait_for 'screen "Join which\\? \\(1-1, Enter for none\\)"' 10
cp "$LAN_T/screen" "$LAN_T/screen.list"
check "join with no address lists the duel of A: name, machine, address, waiting, key" \
	'grep -qE "^ +1  alice +on wwA[0-9]*\.local \($LAN_IP_A port $portA\): waiting, key ${fpA:0:8}$" "$LAN_T/screen.list"' ||
	show "$LAN_T/screen.list"
tm send-keys -t w 1 Enter
lan_bg botA2 A "$W" bot "127.0.0.1:$portA#$fpA" --games 1 --think 20 --name erin
check "the duel chosen is joined: the curses client's duel begins" 'wait_for "screen \"The duel begins\"" 20' ||
	show "$LAN_T/screen"
# The pane's processes first: a client whose terminal goes first exits through its sanitizer's leak
# check, which has been seen to spin for good (google/sanitizers#777).
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -9 "$1" 2>/dev/null
}
for p in $(tm list-panes -a -F '#{pane_pid}' 2>/dev/null); do kill_tree "$p"; done
tm kill-server 2>/dev/null
lan_stop botA2

# The real host stops: its announcement goes with it.
lan_stop hostA
check "the host stopped, its announcement is gone (avahi-browse in B)" \
	'wait_for "! lan_seen_b \"$LAN_IP_A\" >/dev/null" 5'

# 2. The real host's fingerprint copied onto the forger's address: the handshake shows the other key.
lan_bg pub2 B avahi-publish -s alice _wizwar._tcp "$portM" $(txt "$fpA")
wait_for 'lan_seen_b "\"fp=$fpA\"" >/dev/null' 10
in_b "$W" bot --lan alice --games 1 --think 0 >"$LAN_T/forged.out" 2>&1; rf=$?
check "a forged announcement (another key behind the announced fingerprint) is refused in the handshake" \
	'[ $rf = 1 ] && grep -qF "THE SERVER'"'"'S KEY IS NOT THE ONE GIVEN" "$LAN_T/forged.out" &&
	 grep -qF "shows key $fpM, but the LAN announcement of '"'"'alice'"'"' said $fpA" "$LAN_T/forged.out"' || show "$LAN_T/forged.out"
check "the forger's host saw no player join" '! grep -q "joins room" "$LAN_T/hostM.out"' || show "$LAN_T/hostM.out"
lan_stop pub2

# Nothing of that name: said in one line.
in_b "$W" bot --lan nobody --games 1 >"$LAN_T/none.out" 2>&1; rn=$?
check "bot --lan with no such duel says so (exit 1)" \
	'[ $rn = 1 ] && grep -qF "no duel called '"'"'nobody'"'"' found on the LAN" "$LAN_T/none.out"' || show "$LAN_T/none.out"

# server --announce: a server of rooms, under the machine's name, gone when it stops.
lan_bg srvA A "$W" server --port 0 --announce --log-dir "$LAN_T/A/slogs"
check "server --announce is seen in B as kind=server" \
	'wait_for "lan_seen_b \"\\\"kind=server\\\"\" | grep -qF \";$LAN_IP_A;\"" 10'
lan_stop srvA
check "the server stopped, its announcement is gone" \
	'wait_for "! lan_seen_b \"$LAN_IP_A\" >/dev/null" 5'

# No avahi-daemon in B (stopped): one line says so and names the address form, which still works.
lan_stop avahiB
in_b "$W" bot --lan alice --games 1 >"$LAN_T/nodaemon.out" 2>&1; rx=$?
check "without avahi-daemon, bot --lan says so in one line (exit 1)" \
	'[ $rx = 1 ] && [ "$(wc -l <"$LAN_T/nodaemon.out")" = 1 ] &&
	 grep -qF "no avahi-daemon is running here" "$LAN_T/nodaemon.out" && grep -qF "wizwar join HOST[:PORT]" "$LAN_T/nodaemon.out"' ||
	show "$LAN_T/nodaemon.out"
lan_bg hostN B "$W" host --headless --port 0 --name nell --log-dir "$LAN_T/B/logs2"
wait_for 'grep -q "^wizwar join" "$LAN_T/hostN.out"' 10
lineN=$(grep "^wizwar join" "$LAN_T/hostN.out")
addrN=127.0.0.1:$(sed -n 's/^wizwar join [^:]*:\([0-9]*#.*\)/\1/p' <<<"$lineN")
in_b "$W" bot "$addrN" --games 1 --think 0 --name n1 >"$LAN_T/n1.out" 2>&1 &
p1=$!
in_b "$W" bot "$addrN" --games 1 --think 0 --name n2 >"$LAN_T/n2.out" 2>&1; r2=$?
wait $p1; r1=$?
check "without avahi-daemon, a host says it is not announced and plays by address" \
	'grep -qF "not announced on the LAN: no avahi-daemon is running here" "$LAN_T/hostN.out" && [ $r1 = 0 ] && [ $r2 = 0 ] &&
	 grep -q "^duel 1: " "$LAN_T/n1.out"' || show "$LAN_T/hostN.out" "$LAN_T/n1.out" "$LAN_T/n2.out"
lan_stop hostN

[ "$n" = 19 ] || echo "not ok - ran $n checks of 19"
[ "$failed" = 0 ] && [ "$n" = 19 ]
