#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# openrooms: open rooms and quick pairing on one real `wizwar server`, with real network bots over loopback
# (docs/server.md, "Open rooms and quick pairing"). `wizwar rooms` lists a public room waiting for a
# player and never a private one; two bots that share no code are paired by `bot --quick` into the same
# room and play a verified duel there; a third with other options is paired with nobody and told so after
# its --bot-after (exit 3); a second QUICK of a key already waiting is refused; a server with a password
# refuses QUICK.
set -u
W="${1:?usage: openrooms.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init rooms # TMP, PIDS, fail, ok
export XDG_STATE_HOME="$TMP/state"

server_start "$TMP/srv.err" --bind 127.0.0.1 --port 0 --no-store --state-dir "$TMP/st" --log-dir "$TMP/logs"
S="127.0.0.1:$PORT"

# 1. The list: empty, then the public room and never the private one.
"$W" rooms "$S" > "$TMP/empty.out" 2> "$TMP/empty.err" || fail "rooms on an empty server: exit $?"
grep -qF "no public room is waiting for a player on $S" "$TMP/empty.out" || fail "an empty list was not said"
"$W" bot "$S" --new-room --public --name pubwait --key "$TMP/pub.key" --games 1 > "$TMP/pub.out" 2> "$TMP/pub.err" &
PIDS+=("$!")
"$W" bot "$S" --new-room --name privwait --key "$TMP/priv.key" --games 1 > "$TMP/priv.out" 2> "$TMP/priv.err" &
PIDS+=("$!")
wait_re '^room [a-z0-9-]+:' "$TMP/pub.out" 10
wait_re '^room [a-z0-9-]+:' "$TMP/priv.out" 10
PUB="$(grep -oE '^room [a-z0-9-]+' "$TMP/pub.out" | cut -d' ' -f2)"
PRIV="$(grep -oE '^room [a-z0-9-]+' "$TMP/priv.out" | cut -d' ' -f2)"
# The list is made at most once a second: within 2 s it shows the room made after the empty one.
rooms_wait "$S" "$PUB" 20
grep -qE "^$PUB +pubwait +1500 +25 +yes +yes +- +no +[0-9]+s$" "$TMP/list.out" ||
	fail "the public room is not listed with its player, rating and options within 2 s: $(cat "$TMP/list.out")"
grep -qF "join one with: wizwar join $S --room ROOM" "$TMP/list.out" || fail "no join line under the list"
if grep -qF -e "$PRIV" -e privwait "$TMP/list.out"; then fail "the private room is listed"; fi
grep -qF "room $PRIV created (private)" "$TMP/srv.err" && grep -qF "room $PUB created (public)" "$TMP/srv.err" ||
	fail "the server's log does not say which room is public"
ok "rooms lists the public room waiting (name, rating, options, password, wait), never the private one"

# 2. Quick pairing: qa and qb (size 25) share no code; qc (size 15) has nobody and is told after 1 s.
"$W" bot "$S" --quick --size 15 --bot-after 1 --name qc --key "$TMP/c.key" > "$TMP/qc.out" 2> "$TMP/qc.err" &
QC=$!
PIDS+=("$QC")
"$W" bot "$S" --quick --name qa --key "$TMP/a.key" --games 1 --think 0 > "$TMP/qa.out" 2> "$TMP/qa.err" &
QA=$!
PIDS+=("$QA")
wait_re 'qa.* waits to be paired|waits to be paired \(size 25' "$TMP/srv.err" 10
# The same key again while it waits: refused, the first left waiting.
"$W" bot "$S" --quick --name qa2 --key "$TMP/a.key" --games 1 > "$TMP/dup.out" 2> "$TMP/dup.err"
rc=$?
[ $rc -eq 1 ] && grep -qF "this key is already waiting for a player on this server" "$TMP/dup.err" ||
	fail "a second QUICK of a waiting key: exit $rc, not refused"
"$W" bot "$S" --quick --name qb --key "$TMP/b.key" --games 1 --think 0 > "$TMP/qb.out" 2> "$TMP/qb.err" &
QB=$!
PIDS+=("$QB")
wait "$QA" || fail "qa: exit $?"
wait "$QB" || fail "qb: exit $?"
RA="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qa.out" | cut -d' ' -f3)"
RB="$(grep -oE '^paired: room [a-z0-9-]+$' "$TMP/qb.out" | cut -d' ' -f3)"
[ -n "$RA" ] && [ "$RA" = "$RB" ] || fail "qa and qb were not paired into one room ('$RA', '$RB')"
[ "$RA" != "$PUB" ] && [ "$RA" != "$PRIV" ] || fail "paired into a room that existed"
grep -qE "^duel 1: .*log verified" "$TMP/qa.out" && grep -qE "^duel 1: .*log verified" "$TMP/qb.out" ||
	fail "the paired bots did not play a verified duel"
grep -qE "room=$RA .*qa joins room $RA" "$TMP/srv.err" && grep -qE "room=$RA .*qb joins room $RA" "$TMP/srv.err" ||
	fail "the server did not see both join the room it paired them in"
ok "two bots with no code shared are paired into one private room and play a verified duel"
wait "$QC"
rc=$?
[ $rc -eq 3 ] && grep -qF "nobody to pair with came in 1 s (rating 1500)" "$TMP/qc.err" ||
	fail "qc, alone with its options: exit $rc, not 3 with nobody said"
grep -qF "nobody to pair with after" "$TMP/srv.err" || fail "the server did not log the wait that found nobody"
ok "a player whose options nobody shares is told after its wait (exit 3), a second QUICK of one key refused"
if "$W" rooms "$S" | grep -qF "$RA"; then fail "the paired room is listed"; fi
ok "a paired room is private"

# 3. A server with a password refuses QUICK: a stranger who cannot join would leave the other alone.
server_start "$TMP/srv2.err" --bind 127.0.0.1 --port 0 --no-store --state-dir "$TMP/st2" --log-dir "$TMP/logs2" \
	--password=sesame
"$W" bot "127.0.0.1:$PORT" --quick --password=sesame --key "$TMP/a.key" > "$TMP/pw.out" 2> "$TMP/pw.err"
rc=$?
[ $rc -eq 1 ] && grep -qF "quick pairing is for open servers" "$TMP/pw.err" || fail "QUICK on a password server: exit $rc"
ok "a server with a password refuses quick pairing"
echo "1..$n"
