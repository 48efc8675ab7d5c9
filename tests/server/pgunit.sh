#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgunit: a Criterion program of the store's unit tests run against a real PostgreSQL rather than a SQLite file:
# one server started here (pg_lib.sh), a fresh database for each test (every test of the program, or those named) (WIZWAR_TEST_STORE, its URI), stopped at
# the end. The program's tests pick their store from WIZWAR_TEST_STORE. TAP output.
set -u
EXE="${1:?usage: pgunit.sh CRITERION-PROGRAM [TEST...]}"
shift
. "$(dirname "$0")/../proc_lib.sh"
. "$(dirname "$0")/../pg_lib.sh"
pg_bin || { echo "SKIP: no PostgreSQL server (initdb) on this machine"; exit 77; }
proc_init pgunit
PROC_TAP=1
trap 'pg_stop; proc_finish' EXIT
pg_start
PG_PID="$(head -1 "$PG_DIR/data/postmaster.pid")" # the postmaster's: a test may stop it a moment (SIGSTOP, then SIGCONT)
PROC_SHOW+=("$PG_DIR/log")
PROC_TAIL=30
# `--list` draws a tree: "suite: N tests", then one test a line after the box-drawing characters.
suite="$("$EXE" --list | head -1 | cut -d: -f1)"
tests="${*:-$("$EXE" --list | tail -n +2 | sed 's/^[^a-z_]*//')}"
[ -n "$suite" ] && [ -n "$tests" ] || fail "no test listed by $EXE"
echo "1..$(echo "$tests" | wc -w)"
i=0
for t in $tests; do
	i=$((i + 1))
	PG_DB=postgres pg_sql "CREATE DATABASE t$i OWNER wizwar;" >/dev/null || fail "database t$i"
	WIZWAR_TEST_STORE="postgresql://wizwar@127.0.0.1:$PG_PORT/t$i?passfile=$TMP/pgpass" WIZWAR_TEST_PG_PID="$PG_PID" \
		"$EXE" --jobs=1 --filter "$suite/$t" >"$TMP/t$i.out" 2>&1 || fail "$suite/$t on PostgreSQL"
	grep -qE 'Tested: 1 ' "$TMP/t$i.out" || fail "$suite/$t ran no test"
	echo "ok $i - $suite/$t on PostgreSQL"
done
