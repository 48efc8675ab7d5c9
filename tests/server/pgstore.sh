#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgstore: two `wizwar server` nodes sharing one real PostgreSQL (started here: initdb and pg_ctl on 127.0.0.1,
# stopped at the end), as a cluster's nodes share it (docs/server.md, "The store"). Both start at once and
# migrate it once; the password never reaches a log or an answer; a name claimed on A is refused on B, and of
# two keys racing for a new name on A and B exactly one gets it; a duel rated on A is B's `stats`, `top` and
# `rooms`; a bot rated on A and on B has its history verified on both, each record under the signer of the
# node that rated it (a signer outside the cluster: UNKNOWN SIGNER; a signer that did not sign: FORGED; another
# node's record re-signed by the node asked: CHANGED); a name freed offline (`server --free-name` against PostgreSQL) goes to the next key; a ban made on
# A stops its key on B at B's next start; PostgreSQL stopped: a join is refused with the reason logged, and
# once it is back the nodes reconnect by themselves. TAP output.
set -u
W="${1:?usage: pgstore.sh WIZWAR RESIGN}"
RESIGN="${2:?usage: pgstore.sh WIZWAR RESIGN}"
. "$(dirname "$0")/../proc_lib.sh" # proc_init, wait_re, server_start
. "$(dirname "$0")/../pg_lib.sh"   # pg_start, pg_sql, pg_stop
pg_bin || { echo "1..0 # SKIP no PostgreSQL server (initdb) on this machine"; exit 77; }
proc_init pgstore
PROC_TAP=1
PROC_TAIL=6
trap 'pg_stop; proc_finish' EXIT
export XDG_STATE_HOME="$TMP/bots"
echo "1..13"
pg_start
PROC_SHOW+=("$PG_DIR/log")

# ==== both nodes at once: one migration ====
node() { # node NAME: a node on the shared store, its own state folder (key, admin socket)
	# Its files emptied here, not by the background job's redirections: a restarted node's old
	# "listening on" line must not be read before the new process truncates the file.
	: >"$TMP/$1.out"
	: >"$TMP/$1.err"
	"$W" server --bind 127.0.0.1 --port 0 --state-dir "$TMP/$1" --log-dir "$TMP/$1/logs" --store "$PG_URI" \
		>"$TMP/$1.out" 2>"$TMP/$1.err" &
	PIDS+=($!)
	NPID[$1]=$!
}
declare -A NPID NPORT NS
node A
node B
for x in A B; do
	server_port "$TMP/$x.err"
	NPORT[$x]=$PORT
	NS[$x]="127.0.0.1:$PORT#$(grep -oE 'fingerprint [a-z2-7]{26}' "$TMP/$x.err" | head -1 | cut -d' ' -f2)"
done
[ "$(pg_sql 'SELECT count(*), count(DISTINCT version), max(version) FROM schema_version')" = "5|5|5" ] ||
	fail "schema_version: $(pg_sql 'SELECT * FROM schema_version')"
ok "two nodes started at once on one PostgreSQL: each step applied once, schema version 5"

grep -qE "names owned by keys in postgresql://wizwar@127\.0\.0\.1:$PG_PORT/wizwar$" "$TMP/A.err" ||
	fail "the start line does not name the store: $(grep listening "$TMP/A.err")"
# A URI holding the password (what the docs advise against), in an offline command's answer and its error.
"$W" server --free-name Nobody --store "postgresql://wizwar:$PG_PASS@127.0.0.1:$PG_PORT/wizwar" \
	>"$TMP/free0.out" 2>"$TMP/free0.err" || fail "--free-name with a password in the URI: $(cat "$TMP/free0.err")"
"$W" server --free-name Nobody --store "postgresql://wizwar:$PG_PASS-wrong@127.0.0.1:$PG_PORT/wizwar" \
	>"$TMP/free1.out" 2>"$TMP/free1.err" && fail "a wrong password was taken"
grep -q "password authentication failed" "$TMP/free1.err" || fail "wrong password: $(cat "$TMP/free1.err")"
grep -qF "$PG_PASS" "$TMP"/*.out "$TMP"/*.err && fail "the password is in an output: $(grep -lF "$PG_PASS" "$TMP"/*.out "$TMP"/*.err)"
grep -qF "was not owned" "$TMP/free0.out" || fail "free0: $(cat "$TMP/free0.out")"
ok "the store is named without its password or parameters: start line, --free-name's answer and its error"

bot() { # bot NAME PORT KEY ARGS...: a network bot in the background, BOT its pid
	local name="$1" port="$2" key="$3"
	shift 3
	"$W" bot "127.0.0.1:$port" --name "$name" --key "$TMP/$key.key" --think 0 --games 1 "$@" \
		>"$TMP/$name-$key.out" 2>"$TMP/$name-$key.err" &
	BOT=$!
	PIDS+=("$BOT")
}
room_of() { wait_re '^room ' "$TMP/$1.out" 10; head -1 "$TMP/$1.out" | cut -d' ' -f2 | tr -d :; }

# ==== a rated duel on A ====
bot Ann "${NPORT[A]}" a --new-room --seed 1
ANN=$BOT
R="$(room_of Ann-a)"
bot Bob "${NPORT[A]}" b --room "$R" --seed 2 --level easy
wait "$ANN" "$BOT" || fail "the duel on A failed"
wait_re ' rated: ' "$TMP/A.err" 10

# ==== names across nodes ====
bot ANN "${NPORT[B]}" c --new-room
wait "$BOT" && fail "B gave Ann's name to another key"
grep -q "belongs to another player's key" "$TMP/ANN-c.err" || fail "ANN on B: $(cat "$TMP/ANN-c.err")"
ok "a name claimed on node A is refused to another key on node B, whatever its case"

# Three names, each raced for by two keys at once, one on each node: exactly one key gets each.
for i in 1 2 3; do
	bot "Race$i" "${NPORT[A]}" "r${i}a" --new-room
	bot "RACE$i" "${NPORT[B]}" "r${i}b" --new-room
done
for i in 1 2 3; do
	for ((t = 0; t < 200; t++)); do
		got="$(cat "$TMP/Race$i-r${i}a.out" "$TMP/RACE$i-r${i}b.out" | grep -c '^room ')"
		lost="$(cat "$TMP/Race$i-r${i}a.err" "$TMP/RACE$i-r${i}b.err" | grep -c "belongs to another player's key")"
		[ $((got + lost)) -ge 2 ] && break
		sleep 0.05
	done
	[ "$got" = 1 ] && [ "$lost" = 1 ] || fail "race $i: $got got the name, $lost were refused"
done
[ "$(pg_sql "SELECT count(*) FROM names WHERE lower(name) LIKE 'race%'")" = 3 ] || fail "names: $(pg_sql 'SELECT name FROM names')"
ok "two keys racing for a name on two nodes: exactly one owns it, three times over"

# ==== ratings across nodes ====
st="$("$W" stats "${NS[B]}" Ann 2>&1)" || fail "stats on B: $st"
ANN_R="$(echo "$st" | awk '$1 == "Ann" { print $2 }')"
echo "$st" | grep -qE '^ +Ann +[0-9]+ +\+-[0-9]+ +1 ' && [ "$ANN_R" != 1500 ] || fail "stats on B: $st"
top="$("$W" top "${NS[B]}" 2>&1)" || fail "top on B: $top"
echo "$top" | grep -qE '^ +Bob +[0-9]+ +\+-[0-9]+ +1 ' || fail "top on B: $top"
bot Ann "${NPORT[B]}" a --new-room --public
rooms_wait "${NS[B]}" "Ann" 30
grep -qE "^[a-z0-9-]+ +Ann +$ANN_R " "$TMP/list.out" || fail "rooms on B does not show Ann's $ANN_R: $(cat "$TMP/list.out")"
kill "$BOT" 2>/dev/null
ok "a duel rated on A: B's stats, top and rooms show the new ratings ($ANN_R)"

# ==== history across nodes: a record signed by each node ====
bot Ann "${NPORT[B]}" a --new-room --seed 3
ANN=$BOT
R="$(room_of Ann-a)"
bot Bob "${NPORT[B]}" b --room "$R" --seed 4 --level easy
wait "$ANN" "$BOT" || fail "the duel on B failed"
wait_re ' rated: ' "$TMP/B.err" 10
declare -A FP SIGNER
for x in A B; do
	FP[$x]="${NS[$x]#*#}"
	SIGNER[$x]="$("$RESIGN" --signer "$TMP/$x/server.key")" || fail "no signer for $x"
done
[ "$(pg_sql "SELECT count(*) FROM results WHERE signer = decode('${SIGNER[A]}', 'hex')")|$(pg_sql \
	"SELECT count(*) FROM results WHERE signer = decode('${SIGNER[B]}', 'hex')")" = "1|1" ] ||
	fail "each node's signer in its row: $(pg_sql "SELECT seq, encode(signer, 'hex') FROM results")"
RECS="$XDG_STATE_HOME/wizwar/records"
history_on() { # history_on NODE: Ann's history asked of NODE, into $TMP/h.out and $TMP/h.err; its status
	"$W" history "${NS[$1]}" --key "$TMP/a.key" >"$TMP/h.out" 2>"$TMP/h.err"
}
# The bots may have left before their RATED (a player away at the end): A's answer keeps each record in
# its signer's file, and B's then finds both there.
kept='[01] records?'
for x in A B; do
	o=B; [ $x = B ] && o=A
	history_on $x || fail "history on $x: $(cat "$TMP/h.out" "$TMP/h.err")"
	[ "$(grep -c '^duel ' "$TMP/h.out")" = 2 ] && [ "$(grep -c ", signed by ${FP[$o]}\$" "$TMP/h.out")" = 1 ] &&
		grep -qxF "2 rated duels, every record signed by a server key this machine trusts: 1 by the server's key ${FP[$x]}, 1 by ${FP[$o]}" "$TMP/h.out" &&
		grep -qxE "all $kept kept here \($RECS/${FP[A]}\) are in it, as given" "$TMP/h.out" &&
		grep -qxE "all $kept kept here \($RECS/${FP[B]}\) are in it, as given" "$TMP/h.out" ||
		fail "history on $x: $(cat "$TMP/h.out" "$TMP/h.err")"
	kept='1 record'
done
ok "a bot rated on A and on B: its history verifies on both nodes, each record under its own node's signer"

# A hostile node serving a record signed by a key of its own making (a "node" of no cluster this
# machine met): said, not counted, and no records file is made for that key.
STRANGER="$("$RESIGN" --new-key "$TMP/stranger.key")" || fail "no stranger key"
last="$(pg_sql "SELECT encode(record, 'hex') FROM results ORDER BY seq DESC LIMIT 1")"
forged="$("$RESIGN" "$TMP/stranger.key" "$last" 1)" || fail "resign: $forged"
pg_sql "WITH r AS (SELECT decode('$forged', 'hex') AS b)
	INSERT INTO results (duel, time, key0, key1, result, reason, record, signer)
	SELECT substring(b FROM 10 FOR 32), ('x' || encode(substring(b FROM 2 FOR 8), 'hex'))::bit(64)::bigint,
	       substring(b FROM 42 FOR 32), substring(b FROM 74 FOR 32), get_byte(b, 105), get_byte(b, 106), b,
	       decode('$STRANGER', 'hex') FROM r" >/dev/null || fail "could not add the stranger's record"
files="$(ls "$RECS" | grep -vc lock)"
history_on A && fail "a record of an unknown signer was taken: $(cat "$TMP/h.out")"
grep -qE "^wizwar history: UNKNOWN SIGNER: record 1 is signed by the server key [a-z2-7]{26}, which this machine has never met" "$TMP/h.err" &&
	grep -qF "1 of 3 records not verified" "$TMP/h.err" && [ "$(grep -c '^duel ' "$TMP/h.out")" = 2 ] &&
	grep -qF "3 rated duels, every record shown signed by a server key this machine trusts" "$TMP/h.out" &&
	[ "$(ls "$RECS" | grep -vc lock)" = "$files" ] || fail "unknown signer: $(cat "$TMP/h.out" "$TMP/h.err")"
# The same record under a node's signer that did not sign it: it does not verify.
pg_sql "UPDATE results SET signer = decode('${SIGNER[B]}', 'hex') WHERE signer = decode('$STRANGER', 'hex')" >/dev/null
history_on A && fail "a record under a signer that did not sign it was taken"
grep -q "FORGED: record 1 does not verify against the key it names as its signer: refused" "$TMP/h.err" ||
	fail "forged signer: $(cat "$TMP/h.err")"
pg_sql "DELETE FROM results WHERE seq = (SELECT max(seq) FROM results)" >/dev/null
history_on A || fail "history after the stranger's record went: $(cat "$TMP/h.err")"
ok "a record signed by a key outside the cluster: UNKNOWN SIGNER, not counted; under a node's signer it is FORGED"

# A hostile node A re-signs B's record with its own key (another outcome): it verifies as A's, but
# the record B gave is kept here, and the duel is in the history otherwise: CHANGED, on both nodes.
seq="$(pg_sql "SELECT seq FROM results WHERE signer = decode('${SIGNER[B]}', 'hex')")"
orig="$(pg_sql "SELECT encode(record, 'hex') FROM results WHERE seq = $seq")"
resigned="$("$RESIGN" "$TMP/A/server.key" "$orig")" || fail "resign: $resigned"
pg_sql "UPDATE results SET record = decode('$resigned', 'hex'), signer = decode('${SIGNER[A]}', 'hex') WHERE seq = $seq" >/dev/null
for x in A B; do
	history_on $x && fail "history on $x took B's record re-signed by A: $(cat "$TMP/h.out")"
	grep -qE "^wizwar history: CHANGED: duel [0-9a-f]{16} of .* is in the server.s history with another record" "$TMP/h.err" ||
		fail "re-signed on $x: $(cat "$TMP/h.err")"
done
grep -qF "$resigned" "$RECS"/* && fail "a record of a history refuted as CHANGED was kept: $(grep -lF "$resigned" "$RECS"/*)"
pg_sql "UPDATE results SET record = decode('$orig', 'hex'), signer = decode('${SIGNER[B]}', 'hex') WHERE seq = $seq" >/dev/null
history_on B || fail "history after the restore: $(cat "$TMP/h.err")"
ok "another node's record re-signed by the node asked: CHANGED on both nodes, exit 1, and nothing of that answer kept"

# ==== a name freed offline, against PostgreSQL, while both nodes run ====
"$W" server --free-name ann --store "$PG_URI" >"$TMP/free.out" 2>"$TMP/free.err" || fail "--free-name: $(cat "$TMP/free.err")"
grep -qF "postgresql://wizwar@127.0.0.1:$PG_PORT/wizwar: the name 'ann' is free now" "$TMP/free.out" || fail "free: $(cat "$TMP/free.out")"
bot ANN "${NPORT[B]}" c --new-room
wait_re '^room ' "$TMP/ANN-c.out" 10
kill "$BOT" 2>/dev/null
ok "server --free-name against PostgreSQL frees the name for every node: the next key takes it on B"

# ==== a ban made on A, in force on B from its next start ====
"$W" admin --admin-socket "$TMP/A/admin.sock" ban name mallory --reason impersonation >"$TMP/ban.out" 2>&1 ||
	fail "ban on A: $(cat "$TMP/ban.out")"
[ "$(pg_sql "SELECT kind, target, reason FROM bans")" = "name|mallory|impersonation" ] || fail "bans: $(pg_sql 'SELECT * FROM bans')"
proc_stop "${NPID[B]}"
node B
server_port "$TMP/B.err"
NPORT[B]=$PORT
wait_re '1 bans and mutes in force, from postgresql://wizwar@127\.0\.0\.1:[0-9]+/wizwar$' "$TMP/B.err" 5
bot Mallory "${NPORT[B]}" m --new-room
wait "$BOT" && fail "B let a banned name in"
grep -q "impersonation" "$TMP/Mallory-m.err" || fail "Mallory on B: $(cat "$TMP/Mallory-m.err")"
ok "a ban made on A is in the shared store: B refuses the name after its restart, with the reason"

# ==== PostgreSQL stopped, then back ====
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || fail "pg_ctl stop"
bot Cleo "${NPORT[A]}" d --new-room
wait "$BOT" && fail "a join was taken with the store down"
grep -q "the server's store cannot answer now" "$TMP/Cleo-d.err" || fail "Cleo: $(cat "$TMP/Cleo-d.err")"
wait_re 'the store failed: PostgreSQL is unreachable: .*127\.0\.0\.1' "$TMP/A.err" 5
ok "PostgreSQL down: a join is refused with a clear error, the node logs the reason, and plays on"

pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 20 start \
	-o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR/sock -c fsync=off" >/dev/null 2>&1 || fail "pg_ctl start"
bot Cleo "${NPORT[A]}" d --new-room
wait_re '^room ' "$TMP/Cleo-d.out" 10
kill "$BOT" 2>/dev/null
[ "$(pg_sql "SELECT count(*) FROM names WHERE name = 'Cleo'")" = 1 ] || fail "Cleo is not in the store"
ok "PostgreSQL back: the node reconnects on its own and the next join is served"

# Both nodes stop cleanly (the store's thread joined, its connection closed).
for x in A B; do proc_stop "${NPID[$x]}"; done
grep -q "ERROR\|AddressSanitizer" "$TMP/A.err" "$TMP/B.err" && fail "a node said: $(grep -h 'ERROR\|AddressSanitizer' "$TMP/A.err" "$TMP/B.err")"
ok "both nodes stop cleanly"
