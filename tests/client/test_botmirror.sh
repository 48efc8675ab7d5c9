#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_botmirror: `wizwar bot --mirror`, real processes over loopback TCP: two bots in a room of `wizwar server`
# play three duels; the second is the first's level with the seats swapped (a mirror rematch, verified as
# one), the third a new level. A bot without --mirror facing one gets no mirror.
set -u
W="${1:?usage: test_botmirror.sh PATH-TO-WIZWAR}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-botmirror.XXXXXX")"
PIDS=()
finish() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap finish EXIT
export XDG_STATE_HOME="$TMP/state"
fail() {
	echo "FAIL: $*"
	for f in "$TMP"/*.out "$TMP"/*.err; do echo "--- $(basename "$f"):"; cat "$f"; done
	exit 1
}
. "$(dirname "$0")/../proc_lib.sh" # wait_re, count

"$W" server --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" >"$TMP/srv.out" 2>"$TMP/srv.err" &
PIDS+=($!)
wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 10
PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"

# ---- both ask for mirrors: a level, its mirror, a new level ----
"$W" bot "127.0.0.1:$PORT" --new-room --name Ann --think 0 --games 3 --seed 1 --mirror >"$TMP/a.out" 2>"$TMP/a.err" &
A=$!
PIDS+=("$A")
wait_re '^room ' "$TMP/a.out" 10
ROOM="$(head -1 "$TMP/a.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Ben --think 0 --games 3 --seed 2 --mirror >"$TMP/b.out" 2>"$TMP/b.err"
RB=$?
wait "$A"
RA=$?
[ "$RA" = 0 ] && [ "$RB" = 0 ] || fail "the bots exited $RA and $RB"
seed() { grep -E "^duel $1: " "$TMP/a.out" | grep -oE 'seed [0-9a-f]{16}' | cut -d' ' -f2; }
S1="$(seed 1)" S2="$(seed 2)" S3="$(seed 3)"
[ -n "$S1" ] && [ "$S1" = "$S2" ] || fail "duel 2 ($S2) is not duel 1's level ($S1)"
grep -qE '^duel 2: .*the last duel.s seed again \(a mirror rematch\), log verified' "$TMP/a.out" ||
	fail "duel 2 was not verified as a mirror rematch"
[ -n "$S3" ] && [ "$S3" != "$S2" ] || fail "duel 3 played the same level a third time"
grep -qE '^duel 3: .*log verified' "$TMP/a.out" || fail "duel 3 not verified"
echo "ok - bot --mirror: duel 1 on $S1, its mirror, then a new level $S3"
W1="$(grep -E "^duel 1: " "$TMP/a.out" | grep -oE '\((won|lost|draw)\)')"
grep -q 'duel 2 starts: Ben vs Ann' "$TMP/srv.err" && grep -q 'duel 1 starts: Ann vs Ben' "$TMP/srv.err" ||
	fail "the seats were not swapped for the mirror"
echo "ok - the mirror swapped the seats (Ann $W1 the first)"

# ---- one asks, the other does not: a plain rematch ----
"$W" bot "127.0.0.1:$PORT" --new-room --name Cal --think 0 --games 2 --seed 3 --mirror >"$TMP/c.out" 2>"$TMP/c.err" &
C=$!
PIDS+=("$C")
wait_re '^room ' "$TMP/c.out" 10
ROOM="$(head -1 "$TMP/c.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Dee --think 0 --games 2 --seed 4 >"$TMP/d.out" 2>"$TMP/d.err" ||
	fail "Dee exited $?"
wait "$C" || fail "Cal exited $?"
S1="$(grep -E '^duel 1: ' "$TMP/c.out" | grep -oE 'seed [0-9a-f]{16}')"
S2="$(grep -E '^duel 2: ' "$TMP/c.out" | grep -oE 'seed [0-9a-f]{16}')"
[ -n "$S2" ] && [ "$S1" != "$S2" ] || fail "a mirror nobody else asked for: $S1 then $S2"
echo "ok - bot --mirror facing a plain bot: a new level"
echo "all bot --mirror tests passed"
