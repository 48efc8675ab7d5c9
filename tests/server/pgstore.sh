#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgstore: two `wizwar server` nodes sharing one real PostgreSQL (started here: initdb and pg_ctl on 127.0.0.1,
# stopped at the end), as a cluster's nodes share it (docs/server.md, "The store"). Both start at once and
# migrate it once; the password never reaches a log or an answer; a name claimed on A is refused on B, and of
# two keys racing for a new name on A and B exactly one gets it; a duel rated on A is B's `stats`, `top` and
# `rooms`; a name freed offline (`server --free-name` against PostgreSQL) goes to the next key; a ban made on
# A stops its key on B at B's next start; PostgreSQL stopped: a join is refused with the reason logged, and
# once it is back the nodes reconnect by themselves. TAP output.
set -u
W="${1:?usage: pgstore.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh" # proc_init, wait_re, server_start
. "$(dirname "$0")/../pg_lib.sh"   # pg_start, pg_sql, pg_stop
pg_bin || { echo "1..0 # SKIP no PostgreSQL server (initdb) on this machine"; exit 77; }
proc_init pgstore
PROC_TAP=1
PROC_TAIL=6
trap 'pg_stop; proc_finish' EXIT
export XDG_STATE_HOME="$TMP/bots"
echo "1..10"
pg_start
PROC_SHOW+=("$PG_DIR/log")

# ==== both nodes at once: one migration ====
node() { # node NAME: a node on the shared store, its own state folder (key, admin socket)
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
