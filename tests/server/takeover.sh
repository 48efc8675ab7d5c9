#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# takeover: duels that survive their node. Three `wizwar server --redis` nodes on a real redis-server
# started here on a loopback port of its own; N duels between network bots are played on one node, which
# is killed with -9 in their middle. Every duel must be claimed by exactly one live node, resumed there by
# both of its bots within 5 s (they learnt the nodes from NODES; a RESUME that reaches a live node
# before the room has moved is told MOVING, and tried again), and end with both fair-host checks
# passed; the dead node's own log of each duel must be a prefix of the final log (no turn lost) and the
# final log replay whole (no turn twice). Prints the resume times (docs/benchmarks.md).
# MODE stop (server/fence): n1 is not killed but stopped (SIGSTOP), longer than a node is waited for
# (until the others have taken its duels over), and woken: the live nodes take its duels over as from a
# dead node, and n1, fenced, must drop each of them (its log says so) without playing one more move
# (its log of each duel is still where the final log begins); every server has a password, so every
# player's RESUME on its new node proves it there. In both modes Redis asks a password
# (--redis-password-file; a wrong one and none are refused at the start), and at the end n1, restarted
# with --resume, resumes none of the duels the others took over (and refuses to start while Redis
# cannot be asked). TAP output.
set -u
W="${1:?usage: takeover.sh WIZWAR [N [THINK_MS [kill|stop]]]}"
N="${2:-20}"
THINK="${3:-15}" # the bots' pause a command: long enough that no duel ends before the last one starts
MODE="${4:-kill}"
command -v redis-server >/dev/null || { echo "1..0 # SKIP redis-server is not installed"; exit 77; }
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-takeover.XXXXXX")"
PIDS=()
REDIS=""
finish() {
	for p in "${PIDS[@]}" $REDIS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap finish EXIT
[ -n "${KEEP:-}" ] && trap - EXIT # KEEP=1: leave the processes and files to look at
n=0
fail() {
	echo "not ok $((n + 1)) - $*"
	for f in "$TMP"/n*.err "$TMP"/redis.log; do [ -e "$f" ] && { echo "# --- $(basename "$f"):"; tail -8 "$f" | sed 's/^/# /'; }; done
	exit 1
}
ok() { n=$((n + 1)); echo "ok $n - $* (at ${SECONDS} s)"; }
. "$(dirname "$0")/../proc_lib.sh" # wait_re
echo "1..7"

# Redis's password in a file (0600), never on a command line; the servers' own, in stop mode, too.
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/redis.pw"
chmod 600 "$TMP/redis.pw"
PWARGS=()
if [ "$MODE" = stop ]; then
	echo "duel-password" >"$TMP/server.pw"
	PWARGS=(--password-file "$TMP/server.pw")
fi
redis_start "$TMP/redis.pw" # requirepass from stdin: not on redis-server's command line either

declare -A NPID NPORT
node_args() { # node_args NAME: a node's command line
	echo server --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" --redis-password-file "$TMP/redis.pw" \
		--log-dir "$TMP/$1/logs" --admin-socket none --no-store --rooms-per-hour 0 --handshakes-per-min 0 \
		--max-per-addr 1000 "${PWARGS[@]}"
}
node_launch() { # node_launch NAME: in the background; node_port NAME waits for its port
	# shellcheck disable=SC2046
	XDG_STATE_HOME="$TMP/$1" "$W" $(node_args "$1") >/dev/null 2>"$TMP/$1.err" &
	NPID[$1]=$!
	PIDS+=($!)
}

# Redis's password: a wrong one, and none, stop a node at its start with the reason.
echo wrong >"$TMP/wrong.pw"
XDG_STATE_HOME="$TMP/nx" timeout 10 "$W" server --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" \
	--redis-password-file "$TMP/wrong.pw" --admin-socket none --no-store >/dev/null 2>"$TMP/nx.err" &&
	fail "a node started with a wrong Redis password"
grep -q "refused the password of --redis-password-file" "$TMP/nx.err" || fail "a wrong Redis password: $(tail -1 "$TMP/nx.err")"
XDG_STATE_HOME="$TMP/nx" timeout 10 "$W" server --bind 127.0.0.1 --port 0 --redis "redis://127.0.0.1:$RPORT" \
	--admin-socket none --no-store >/dev/null 2>"$TMP/nx.err" && fail "a node started without the Redis password"
grep -q "asks a password: give it in a file with --redis-password-file" "$TMP/nx.err" ||
	fail "no Redis password: $(tail -1 "$TMP/nx.err")"
XDG_STATE_HOME="$TMP/nx" timeout 10 "$W" server --redis "redis://:$(cat "$TMP/redis.pw")@127.0.0.1:$RPORT" \
	--admin-socket none --no-store >/dev/null 2>"$TMP/nx.err" && fail "a node took a password in its --redis URL"
grep -q "no password in the URL" "$TMP/nx.err" || fail "a password in the URL: $(tail -1 "$TMP/nx.err")"
ok "Redis asks a password: a wrong one, none, and one in the URL each stop a node at its start, with the reason"
node_port() {
	wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/$1.err" 10
	NPORT[$1]="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/$1.err" | grep -oE '[0-9]+$')"
}

# n1 alone first: every room is made there (with other nodes up, new rooms would go to the least loaded).
node_launch n1
node_port n1
wait_re 'cluster: Redis .* answers' "$TMP/n1.err" 10
bot() { # bot NAME ARGS...: a network bot on n1, THINK ms a command, one duel
	local name="$1"
	shift
	XDG_STATE_HOME="$TMP/bots/$name" "$W" bot "127.0.0.1:${NPORT[n1]}" --name "$name" --think "$THINK" --games 1 \
		--reconnect 30 "${PWARGS[@]}" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
}
for i in $(seq "$N"); do bot "A$i" --new-room --seed "$i"; done
declare -a ROOM
for i in $(seq "$N"); do
	wait_re '^room ' "$TMP/A$i.out" 15
	ROOM[$i]="$(head -1 "$TMP/A$i.out" | cut -d' ' -f2 | tr -d :)"
done
ok "$N rooms made on n1"

# Then the two others: the players waiting are told the new nodes (NODES) as each joins, and those who
# join now are told all three in their WELCOME's NODES.
node_launch n2
node_launch n3
node_port n2
node_port n3
for x in n1 n2 n3; do
	for _ in $(seq 60); do [ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] && break; sleep 0.1; done
	[ "$(grep -c ' joined' "$TMP/$x.err")" -ge 2 ] || fail "$x did not hear of both other nodes"
done
for i in $(seq "$N"); do bot "B$i" --room "${ROOM[$i]}" --seed "$((1000 + i))"; done
for i in $(seq "$N"); do wait_re "room=${ROOM[$i]} duel 1 starts" "$TMP/n1.err" 20; done
for i in $(seq "$N"); do # the header goes to Redis as the duel starts: at most a loop iteration after its log line
	for _ in $(seq 40); do
		[ "$(rcli XLEN "wizwar:tlog:${ROOM[$i]}")" -ge 1 ] && break
		grep -q "room=${ROOM[$i]} duel over" "$TMP/n1.err" && break
		sleep 0.05
	done
	# (a duel over already, on a machine so loaded that the bots' starts spread wider than a duel, has
	# had its stream deleted: it is left out below)
	[ "$(rcli XLEN "wizwar:tlog:${ROOM[$i]}")" -ge 1 ] || grep -q "room=${ROOM[$i]} duel over" "$TMP/n1.err" ||
		fail "room ${ROOM[$i]} has no turn log stream in Redis"
done
ok "n2 and n3 joined; $N duels started on n1, each one's turn log streamed to Redis"

if [ "$MODE" = kill ]; then
	# ==== Redis's script cache emptied under n1 (SCRIPT FLUSH: a Redis failed over to a fresh one) ====
	# n1's next call of its turn logs' script (EVALSHA) is refused, NOSCRIPT, and its batches with it:
	# n1 loads the script again and sends each duel's whole log again, which replaces the stream (its
	# first entry changes). The kill waits for that: a stream with the lost batch's hole in it would
	# lose turns at the takeover, which the checks below see.
	# Every stream's first entry in one call ("-": a duel over, its stream deleted).
	firsts() {
		local k=() i
		for i in $(seq "$N"); do k+=("wizwar:tlog:${ROOM[$i]}"); done
		rcli EVAL "local r = {} for i, k in ipairs(KEYS) do local x = redis.call('XRANGE', k, '-', '+', 'COUNT', 1) \
r[i] = x[1] and x[1][1] or '-' end return r" "$N" "${k[@]}"
	}
	before="$(firsts)"
	rcli SCRIPT FLUSH >/dev/null
	wait_re "cluster: Redis .* lost the turn logs' script \(NOSCRIPT\): loaded again" "$TMP/n1.err" 10
	for _ in $(seq 100); do
		same="$(paste -d ' ' <(echo "$before") <(firsts) | awk '$1 == $2 && $2 != "-"' | wc -l)"
		[ "$same" -eq 0 ] && break
		sleep 0.05
	done
	[ "$same" -eq 0 ] || fail "$same duels' streams were not replaced by their whole logs after NOSCRIPT"
	echo "# SCRIPT FLUSH: n1 said NOSCRIPT and sent every duel's whole log again"
fi

disown "${NPID[n1]}" # its death (or stop) is this test's doing: not reported by the shell
if [ "$MODE" = stop ]; then
	# ==== n1 stopped in the middle of the duels until the others took them over, then woken ====
	kill -STOP "${NPID[n1]}"
	t_stop="$(date +%s%3N)"
	# Its duels not over by now (its log is still: it is stopped) are those the others must take over,
	# which they do once it has been silent past CLUSTER_DEAD_MS (3.5 s): it is woken as soon as they
	# have, or after 6.5 s.
	sleep 0.1
	going=0
	for i in $(seq "$N"); do grep -q "room=${ROOM[$i]} duel over" "$TMP/n1.err" || going=$((going + 1)); done
	for _ in $(seq 130); do
		[ "$(cat "$TMP/n2.err" "$TMP/n3.err" | grep -c 'took room .* over')" -ge "$going" ] && break
		sleep 0.05
	done
	kill -CONT "${NPID[n1]}"
	echo "# n1 stood still $(($(date +%s%3N) - t_stop)) ms"
	t0="$(date -u +%H:%M:%S.%3N)"
	# A duel that ended before the stop (the bots' start is spread out on a loaded machine) is not
	# taken over: the checks below are of the duels that were, which must be at least one.
	LIVE=()
	for i in $(seq "$N"); do
		if grep -q "took room ${ROOM[$i]} over" "$TMP/n2.err" "$TMP/n3.err"; then
			LIVE+=("$i")
		else
			wait_re "room=${ROOM[$i]} duel over" "$TMP/n1.err" 5 # ended on n1, before its stop
		fi
	done
	[ "${#LIVE[@]}" -ge 1 ] || fail "every duel ended before the stop: none in its middle (a longer THINK)"
	ended_before=0
else
	# ==== kill -9 n1 in the middle of the duels ====
	kill -9 "${NPID[n1]}"
	t0="$(date -u +%H:%M:%S.%3N)"
	sleep 0.1 # its last lines are in its log now: a duel it ended was not in its middle
	# The duels it had not ended are the ones checked below: all of them unless the machine is so
	# loaded that the bots' starts spread wider than a duel; then at least half.
	LIVE=()
	for i in $(seq "$N"); do grep -q "room=${ROOM[$i]} duel over" "$TMP/n1.err" || LIVE+=("$i"); done
	ended_before=$((N - ${#LIVE[@]}))
	[ "$ended_before" -le $((N / 2)) ] ||
		fail "$ended_before duels of $N ended before the kill: not in their middle (a longer THINK)"
	[ "$ended_before" -eq 0 ] || echo "# $ended_before duels of $N ended before the kill (a loaded machine): left out"
fi
NL="${#LIVE[@]}"
# Each player back is a line of the node that took its room over ("NAME is back in room"), stamped to
# the millisecond by the same clock as t0.
for _ in $(seq 300); do
	[ "$(cat "$TMP/n2.err" "$TMP/n3.err" | grep -c ' is back in room ')" -ge $((2 * NL)) ] && break
	sleep 0.05
done
back="$(cat "$TMP/n2.err" "$TMP/n3.err" | grep -c ' is back in room ')"
[ "$back" -ge $((2 * NL)) ] || fail "$((2 * NL - back)) players did not resume within 15 s of the kill (or the wake)"
times="$(cat "$TMP/n2.err" "$TMP/n3.err" | grep ' is back in room ' | cut -c12-23 |
	awk -v t0="$t0" 'function ms(s, a) { split(s, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 }
	{ d = ms($1) - ms(t0); if (d < 0) d += 86400000; printf "%d\n", d }' | sort -n)"
max="$(echo "$times" | tail -1)"
echo "# resume times after the $([ "$MODE" = stop ] && echo 'wake (SIGCONT)' || echo 'kill -9') (ms, $((2 * NL)) players): min $(echo "$times" | head -1)" \
	"median $(echo "$times" | sed -n "${NL}p") p90 $(echo "$times" | sed -n "$((2 * NL * 9 / 10))p") max $max"
[ "$max" -le 5000 ] || fail "a player resumed $max ms after the $MODE (over 5 s)"
if [ "$MODE" = stop ]; then # one salt for the cluster's passwords: a key derived for n1 proves it on n2 and n3
	[ "$(rcli STRLEN wizwar:salt)" = 32 ] || fail "no password salt shared through Redis"
fi
# The players try the live nodes every 250 ms from the kill on, so n2 and n3 are asked for rooms still
# moving (n1 has not yet been silent long enough to be dead) many times a run: each such RESUME is
# told MOVING (not fatal) and closed, and the player, its token kept, must still be back in time.
told="$(cat "$TMP/n2.err" "$TMP/n3.err" | grep -c 'resuming into a room that is moving to another node: told MOVING')"
[ "$MODE" = stop ] || [ "$told" -ge 1 ] || fail "no RESUME reached a live node while its room moved (none was told MOVING)"
ok "every player of the $NL duels resumed on another node within 5 s (the slowest: $max ms; $told resumes told MOVING on the way)"

for i in "${LIVE[@]}"; do
	c="$(grep -h "took room ${ROOM[$i]} over" "$TMP/n2.err" "$TMP/n3.err" | wc -l)"
	[ "$c" -eq 1 ] || fail "room ${ROOM[$i]} was taken over $c times"
	if [ "$MODE" = stop ]; then
		grep -q "room ${ROOM[$i]} lost: another node took it over" "$TMP/n1.err" ||
			fail "n1 woke and did not drop room ${ROOM[$i]}"
	fi
done
if [ "$MODE" = stop ]; then
	ok "each room was claimed and taken over by exactly one live node; n1, woken, dropped every one of them"
else
	ok "each room was claimed and taken over by exactly one live node"
fi

# A duel lasts up to ~190 turns, each of them a few of the bots' THINK ms pauses and more on a loaded
# machine (100 duels at 100 ms: the longest ended 70 s after the kill): one deadline for them all.
end=$((SECONDS + 60 + THINK * 2))
for i in "${LIVE[@]}"; do
	for s in A B; do wait_re '^duel 1: .*log verified' "$TMP/$s$i.out" $((end > SECONDS ? end - SECONDS : 1)); done
done
for i in "${LIVE[@]}"; do
	R="${ROOM[$i]}"
	dead="$(ls "$TMP"/n1/logs/playing/wizwar-"$R"-*.log)"
	final="$(find "$TMP/n2/logs" "$TMP/n3/logs" -name "wizwar-$R-*.log.gz" | head -1)"
	for _ in $(seq 40); do [ -n "$final" ] && break; sleep 0.1; final="$(find "$TMP/n2/logs" "$TMP/n3/logs" -name "wizwar-$R-*.log.gz" | head -1)"; done
	[ -n "$final" ] || fail "room $R: no finished log on n2 or n3"
	size="$(stat -c %s "$dead")"
	cmp -s <(head -c "$size" "$dead") <(zcat "$final" | head -c "$size") ||
		fail "room $R: the dead node's log is not where the final log begins (a turn lost)"
	"$W" replay --check "$final" >"$TMP/replay.out" 2>&1 || fail "room $R: the final log does not replay: $(tail -1 "$TMP/replay.out")"
	[ "$(rcli EXISTS "wizwar:tlog:$R")" = 0 ] || fail "room $R: its stream stayed in Redis after the duel"
done
ok "every duel finished with both fair-host checks passed; the dead node's log begins each final log, which replays whole; no stream left"

# ==== n1 again, with --resume: none of the duels the others took over (and played out) ====
if [ "$MODE" = stop ]; then
	kill -9 "${NPID[n1]}"
else # (once is enough: in kill mode) Redis cannot be asked: the start stops rather than resume what may be another's
	kill -STOP "$REDIS"
	# shellcheck disable=SC2046
	XDG_STATE_HOME="$TMP/n1" timeout 20 "$W" $(node_args n1) --resume >/dev/null 2>"$TMP/n1.again.err" &&
		fail "n1 resumed its duels while Redis could not be asked"
	kill -CONT "$REDIS"
	grep -q -- "--resume: which duels other nodes took over cannot be asked" "$TMP/n1.again.err" ||
		fail "n1 --resume with Redis not answering: $(tail -1 "$TMP/n1.again.err")"
fi
# shellcheck disable=SC2046
XDG_STATE_HOME="$TMP/n1" "$W" $(node_args n1) --resume >/dev/null 2>"$TMP/n1.again.err" &
PIDS+=($!)
wait_re 'unfinished duels? brought back' "$TMP/n1.again.err" 15
grep -qE '(^|: )0 unfinished duels brought back' "$TMP/n1.again.err" ||
	fail "n1 --resume brought back duels other nodes took over: $(grep 'brought back' "$TMP/n1.again.err")"
for i in "${LIVE[@]}"; do
	grep -q "not resumed: .*: room ${ROOM[$i]} was taken over by node " "$TMP/n1.again.err" ||
		fail "n1 --resume did not say why room ${ROOM[$i]} is not resumed"
done
ok "n1 restarted with --resume resumes none of the $NL duels taken over$([ "$MODE" = kill ] && echo ', and will not start while Redis cannot be asked')"
