#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xban: bans across a cluster's nodes and the pairing node's death (docs/server.md, "A cluster"): three
# `wizwar server --redis` nodes on one real redis-server started here on a loopback port of its own. A key
# banned on one node drops its player connected to a second and is refused by the third within 2.5 s; an
# unban said on another node lets it back; a node stopped while a ban is said learns it when it comes back,
# and a ban said while Redis is down reaches the others once Redis is back (empty); hostile moderation lines
# on the channel are ignored; the pairing node killed with -9 while two players wait in its pool: both are
# paired on the next node within 5 s and play a verified duel; a pairing node holding two rooms more than
# another has the pair's room made on that one, where they play. TAP output.
set -u
W="${1:?usage: xban.sh WIZWAR}"
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
. "$(dirname "$0")/../proc_lib.sh"
proc_init xban # TMP, PIDS, fail, ok
PROC_TAP=1
PROC_TAIL=${PROC_TAIL:-8}
PROC_SHOW=("$TMP/redis.log")
REDIS=""
trap 'kill -9 $REDIS 2>/dev/null; proc_finish' EXIT
echo "1..7"

redis_start

declare -A NPID NPORT FP
# node NAME [ARGS...]: a node with its own state folder (its key, so its id, and its admin socket), no store
# (bans then hold in memory: what spreads them here is the cluster alone).
node() {
	local x="$1"
	shift
	mkdir -p "$TMP/$x"
	server_start "$TMP/$x.err" --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" --state-dir "$TMP/$x" \
		--log-dir "$TMP/$x/logs" --no-store --handshakes-per-min 0 --max-per-addr 1000 "$@"
	NPID[$x]=$SRV
	NPORT[$x]=$PORT
	FP[$x]="$(grep -oE 'fingerprint [a-z2-7]{26}' "$TMP/$x.err" | head -1 | cut -d' ' -f2)"
}
for x in n1 n2 n3; do node $x --pair-wave 200; done
for x in n1 n2 n3; do
	for _ in $(seq 100); do [ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] && break; sleep 0.05; done
	[ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] || fail "$x did not hear of both other nodes"
done
# P pairs for the cluster (the smallest id); A and B are the others, A the smaller.
read -r P A B < <(for x in n1 n2 n3; do echo "${FP[$x]} $x"; done | sort | cut -d' ' -f2 | tr '\n' ' ')

admin() { local x="$1"; shift; "$W" admin --admin-socket "$TMP/$x/admin.sock" "$@"; }
keyfp() { "$W" id --key "$TMP/$1.key" | grep -oE 'fingerprint [a-z2-7]{26}' | cut -d' ' -f2; }
# bot NAME NODE ARGS...: a network bot of its own key in the background (BOTPID).
bot() {
	local name="$1" node="$2"
	shift 2
	XDG_STATE_HOME="$TMP/bots" "$W" bot "127.0.0.1:${NPORT[$node]}" --name "$name" --key "$TMP/$name.key" "$@" \
		>"$TMP/$name.out" 2>>"$TMP/$name.err" &
	BOTPID=$!
	PIDS+=("$BOTPID")
}
# refused NAME NODE: a bot of NAME's key asking NODE for a new room is refused as banned, at once.
refused() {
	local name="$1" node="$2"
	: >"$TMP/$name.err"
	bot "$name" "$node" --new-room --games 0 --think 30
	for _ in $(seq 100); do kill -0 "$BOTPID" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$BOTPID" 2>/dev/null && fail "$name's bot was not refused by $node"
	grep -q "banned from this server" "$TMP/$name.err" || fail "$name's bot ended on $node, but not as banned"
}
# ms: a monotonic clock in ms.
ms() { echo $(($(date +%s%N) / 1000000)); }

# ==== a ban said on P: A drops the player, B refuses the key, within 2.5 s ====
bot Mal "$A" --new-room --games 0 --think 30
MALPID=$BOTPID
wait_re '^room [a-z0-9-]+:' "$TMP/Mal.out" 10
FMAL="$(keyfp Mal)"
[ -n "$FMAL" ] || fail "no fingerprint for Mal's key"
T0=$(ms)
admin "$P" ban key "$FMAL" --reason seen cheating >"$TMP/ban.out" 2>&1 || fail "ban on $P: $(cat "$TMP/ban.out")"
for _ in $(seq 200); do
	grep -q "dropped: banned from this server" "$TMP/$A.err" && grep -qF "cluster: ban key $FMAL" "$TMP/$B.err" && break
	sleep 0.025
done
T1=$(ms)
grep -q "dropped: banned from this server" "$TMP/$A.err" || fail "$A did not drop the player banned on $P"
grep -qF "cluster: ban key $FMAL" "$TMP/$B.err" || fail "$B did not apply the ban said on $P"
# One Redis publish away: some 30 ms idle. The bound is a loaded CI machine's (it once took past
# 1,000 ms beside server/cluster), still far below a node's 3.5 s death or a beat's second.
[ $((T1 - T0)) -le 2500 ] || fail "the ban took $((T1 - T0)) ms to reach both other nodes"
for _ in $(seq 40); do kill -0 "$MALPID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$MALPID" 2>/dev/null && fail "Mal's bot still runs after its drop"
grep -q "banned from this server (key): seen cheating" "$TMP/Mal.err" || fail "Mal was not told why"
refused Mal "$B"
ok "a key banned on $P: its player on $A dropped and told why, the key refused by $B ($((T1 - T0)) ms)"

# ==== an unban said on another node lets the key back everywhere ====
admin "$B" unban key "$FMAL" >"$TMP/unban.out" 2>&1 || fail "unban on $B: $(cat "$TMP/unban.out")"
wait_re "cluster: ban of $FMAL lifted by another node" "$TMP/$A.err" 2
: >"$TMP/Mal.out"
bot Mal "$A" --new-room --games 0 --think 30
wait_re '^room [a-z0-9-]+:' "$TMP/Mal.out" 10
kill -9 "$BOTPID"
ok "the ban lifted on $B: the key joins $A again"

# ==== a node away when the ban is said learns it as it rejoins; a ban said with Redis down goes out when it is back ====
proc_stop "${NPID[$P]}"
bot Eve "$A" --new-room --games 0 --think 30
wait_re '^room [a-z0-9-]+:' "$TMP/Eve.out" 10
kill -9 "$BOTPID"
FEVE="$(keyfp Eve)"
admin "$A" ban key "$FEVE" --for 1h >"$TMP/ban.out" 2>&1 || fail "ban on $A: $(cat "$TMP/ban.out")"
: >"$TMP/$P.err"
# P again, on its own key: now with a pairing wave of a minute, so that players wait in its pool below.
node "$P" --pair-wave 60000
wait_re "cluster: ban key $FEVE until .*, from another node" "$TMP/$P.err" 5
refused Eve "$P"
ok "$P, stopped while $A banned a key, refuses it once back (read from Redis as it rejoined)"

bot Zed "$B" --new-room --games 0 --think 30
wait_re '^room [a-z0-9-]+:' "$TMP/Zed.out" 10
kill -9 "$BOTPID"
FZED="$(keyfp Zed)"
kill -9 "$REDIS"
wait "$REDIS" 2>/dev/null
wait_re 'cluster: Redis .* lost' "$TMP/$B.err" 10
admin "$B" ban key "$FZED" >"$TMP/ban.out" 2>&1 || fail "ban on $B with Redis down: $(cat "$TMP/ban.out")"
grep -q "cluster: ban key $FZED" "$TMP/$A.err" && fail "a ban said with Redis down reached $A"
redis_start
wait_re "cluster: ban key $FZED permanent, .*from another node" "$TMP/$A.err" 10
wait_re "cluster: ban key $FZED permanent, .*from another node" "$TMP/$P.err" 5
refused Zed "$A"
grep -c "cluster: ban key $FEVE" "$TMP/$B.err" | grep -qx 1 || fail "$B applied Eve's ban again after Redis came back"
ok "a ban said on $B with Redis down reaches $A and $P once Redis is back empty (put back by $B)"

# ==== hostile moderation lines on the channel (a Redis writer): refused, said once, nothing applied ====
rpub() { rcli -x PUBLISH wizwar:events >/dev/null; }
NOW=$(date +%s)
printf 'mod %s ban %s 0 key %s' "${FP[$B]}" "$NOW" "not-a-fingerprint" | rpub
printf 'mod %s ban %s 0 key %s --for 2h' "${FP[$B]}" "$NOW" "$FMAL" | rpub
printf 'mod %s ban %s 0 key %s' "${FP[$B]}" "$((NOW + 999999))" "$FMAL" | rpub
printf 'mod %s ban %s 5 key %s' "${FP[$B]}" "$NOW" "$FMAL" | rpub
printf 'mod %s ban %s 0 key %s --reason \033[2J' "${FP[$B]}" "$NOW" "$FMAL" | rpub
printf 'mod %s unban %s key %s trailing' "${FP[$B]}" "$NOW" "$FZED" | rpub
{ printf 'mod %s ban %s 0 name ' "${FP[$B]}" "$NOW"; head -c 400 /dev/zero | tr '\0' 'A'; } | rpub
wait_re "a moderation line that no node writes is ignored" "$TMP/$A.err" 5
wait_re "a moderation line on the channel is not what a node writes" "$TMP/$A.err" 5
[ "$(grep -c "moderation line that no node writes" "$TMP/$A.err")" -eq 1 ] || fail "a hostile line was said more than once"
admin "$A" bans >"$TMP/bans.out" 2>&1
grep -qF "$FMAL" "$TMP/bans.out" && fail "a hostile line banned Mal on $A: $(cat "$TMP/bans.out")"
grep -qF "$FZED" "$TMP/bans.out" || fail "a hostile unban lifted Zed's ban on $A"
kill -0 "${NPID[$A]}" && kill -0 "${NPID[$B]}" || fail "a node died of a hostile line"
# Hostile asks for a pair's room ("make FROM TO CODE SIZE FOV POTIONS TURN"): none made; then one that is well
# formed, from a Redis writer, is made (a node trusts Redis: a room, empty, private, swept when idle).
for m in "${FP[$B]} ${FP[$A]} hstl-aaaa-aaaaa 4 1 1 0" "${FP[$B]} ${FP[$A]} hstl-aaaa-aaaab 25 2 1 0" \
	"${FP[$B]} ${FP[$A]} hstl!aaaa 25 1 1 0" "${FP[$A]} ${FP[$A]} hstl-aaaa-aaaac 25 1 1 0" \
	"${FP[$B]} ${FP[$A]} hstl-aaaa-aaaad 25 1 1 0 extra" "${FP[$B]} ${FP[$A]} hstl-aaaa-aaaae 25 1 1 99999" \
	"${FP[$B]} ${FP[$A]} hstl-aaaa-aaaaf 25 1 1 3601" "${FP[$B]} ${FP[$A]} hstl-aaaa-aaaag 025 1 1 0"; do
	printf 'make %s' "$m" | rpub
done
printf 'make %s %s zzzz-zzzz-zzzzz 25 1 1 0' "${FP[$B]}" "${FP[$A]}" | rpub
wait_re "room=zzzz-zzzz-zzzzz .*made for a pair by the cluster's pairing node" "$TMP/$A.err" 5
grep -q "room=hstl" "$TMP/$A.err" && fail "a hostile ask for a pair's room was taken: $(grep "room=hstl" "$TMP/$A.err")"
ok "hostile moderation lines and asks for rooms on the channel are refused by the strict parsers; nothing applied"

# ==== the pairing node killed with -9 while two players wait in its pool ====
# qa asks P itself (it learns the other nodes from NODES), qb asks A (sent to P by REDIRECT).
bot qa "$P" --quick --think 0 --bot-after 30 --games 1
QA=$BOTPID
bot qb "$A" --quick --think 0 --bot-after 30 --games 1
QB=$BOTPID
for _ in $(seq 200); do [ "$(grep -c 'waits to be paired' "$TMP/$P.err")" -ge 2 ] && break; sleep 0.05; done
[ "$(grep -c 'waits to be paired' "$TMP/$P.err")" -ge 2 ] || fail "the two players do not wait in $P's pool"
kill -9 "${NPID[$P]}"
T0=$(ms)
wait_re '^paired: room ' "$TMP/qa.out" 8
wait_re '^paired: room ' "$TMP/qb.out" 8
T1=$(ms)
[ $((T1 - T0)) -le 5000 ] || fail "paired $((T1 - T0)) ms after the pairing node's death (bound: 5 s)"
wait "$QA" || fail "qa: exit $?"
wait "$QB" || fail "qb: exit $?"
PA="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qa.out" | cut -d' ' -f3)"
PB="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qb.out" | cut -d' ' -f3)"
[ -n "$PA" ] && [ "$PA" = "$PB" ] || fail "qa and qb were not paired into one room ('$PA', '$PB')"
grep -qE "room=$PA .*paired .* with " "$TMP/$A.err" || fail "$A (the next smallest id) did not pair them"
grep -qE "^duel 1: .*log verified" "$TMP/qa.out" && grep -qE "^duel 1: .*log verified" "$TMP/qb.out" ||
	fail "the paired bots did not play a verified duel"
grep -q "the link to the pool was lost" "$TMP/qa.err" || fail "qa did not say it asked again"
ok "the pairing node killed with -9: both waiting players paired on $A $((T1 - T0)) ms later, a verified duel"

# ==== the pairing node (now A) holding two rooms more than B: the pair's room is made on B ====
# The dead P out of both nodes' views first (3.5 s after its last beat): until then a new room asked of A
# may be sent to it, as to any node not yet seen dead.
wait_re "cluster: node ${FP[$P]} .*not heard from" "$TMP/$A.err" 6
wait_re "cluster: node ${FP[$P]} .*not heard from" "$TMP/$B.err" 6
nrooms() { "$W" status --socket "$TMP/$1/admin.sock" | grep -oE '^rooms: [0-9]+' | cut -d' ' -f2; }
for i in 1 2 3 4 5 6; do
	RA="$(nrooms "$A")"
	RB="$(nrooms "$B")"
	[ -n "$RA" ] && [ -n "$RB" ] || fail "status of $A or $B: no room count"
	[ "$RA" -ge $((RB + 2)) ] && break
	# A new room asked of A stays there while A holds at most one room more than B.
	bot "hold$i" "$A" --new-room --games 0 --think 30
	wait_re '^room [a-z0-9-]+:' "$TMP/hold$i.out" 10
	wait_re "room=$(grep -oE '^room [a-z0-9-]+' "$TMP/hold$i.out" | cut -d' ' -f2) .*created" "$TMP/$A.err" 5
done
[ "$RA" -ge $((RB + 2)) ] || fail "$A holds $RA rooms and $B $RB: not two more"
sleep 1.2 # B's next beat: A counts B's rooms from there
bot qc "$A" --quick --think 0 --bot-after 30 --games 1
QC=$BOTPID
bot qd "$B" --quick --think 0 --bot-after 30 --games 1
QD=$BOTPID
wait "$QC" || fail "qc: exit $?"
wait "$QD" || fail "qd: exit $?"
PC="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qc.out" | cut -d' ' -f3)"
PD="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qd.out" | cut -d' ' -f3)"
[ -n "$PC" ] && [ "$PC" = "$PD" ] || fail "qc and qd were not paired into one room ('$PC', '$PD')"
grep -qE "room=$PC .*paired .* their room asked of node ${FP[$B]} " "$TMP/$A.err" ||
	fail "$A ($RA rooms) did not ask $B ($RB rooms) for the pair's room"
grep -qE "room=$PC .*made for a pair by the cluster's pairing node" "$TMP/$B.err" || fail "$B did not make the pair's room"
grep -qE "room=$PC duel 1 starts" "$TMP/$B.err" || fail "the pair's duel was not played on $B"
grep -qE "^duel 1: .*log verified" "$TMP/qc.out" && grep -qE "^duel 1: .*log verified" "$TMP/qd.out" ||
	fail "the paired bots did not play a verified duel"
ok "the pairing node $A holding $RA rooms and $B $RB: the pair's room made on $B, a verified duel there"
