#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rating: rated duels end to end on real processes (issue 31, "Ratings"): a `wizwar server` with a store,
# two `wizwar bot`s with their own keys play two duels; each bot prints both ratings after each END (RATED,
# checked against the server's key); `wizwar top`, `stats` and `history` answer from the store, history's
# records verified offline against the server's fingerprint; a record changed in the store (a hostile
# server) is refused by `wizwar history`, and so is one dropped (MISSING) or re-signed with another outcome
# (CHANGED: tests/server/resign.c signs with the server's key); one key on both seats is not rated; a server without a store says so.
set -u
W="${1:?usage: rating.sh WIZWAR RESIGN}"
RESIGN="${2:?usage: rating.sh WIZWAR RESIGN}"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-rating.XXXXXX")"
PIDS=""
finish() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap finish EXIT
export XDG_STATE_HOME="$TMP/state"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); echo "not ok $n - $*"; echo "# --- server:"; tail -15 "$TMP/srv.err" | sed 's/^/# /'; exit 1; }
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
echo "1..15"
"$W" server --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" --state-dir "$TMP/st" --store "$TMP/store.db" \
    >"$TMP/srv.out" 2>"$TMP/srv.err" &
PIDS="$PIDS $!"
wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 15 || fail "server start"
PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"
FP="$(grep -oE 'fingerprint [a-z2-7]{26}' "$TMP/srv.err" | head -1 | cut -d' ' -f2)"
S="127.0.0.1:$PORT#$FP"
"$W" bot "$S" --new-room --name Ann --key "$TMP/a.key" --think 0 --games 2 --seed 1 >"$TMP/a.out" 2>"$TMP/a.err" &
A=$!
PIDS="$PIDS $A"
wait_re '^room ' "$TMP/a.out" 10 || fail "no room"
ROOM="$(head -1 "$TMP/a.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "$S" --room "$ROOM" --name Bob --key "$TMP/b.key" --think 0 --games 2 --level easy --seed 2 \
    >"$TMP/b.out" 2>"$TMP/b.err" &
B=$!
PIDS="$PIDS $B"
wait "$A" "$B" || fail "the bots failed: $(tail -2 "$TMP/a.err" "$TMP/b.err")"
# The first duel's RATED comes while the bots stay for the second.
grep -qE '^rated: 1500 -> [0-9]+ \(\+-[0-9]+\), opponent 1500 -> [0-9]+' "$TMP/a.out" &&
    grep -qE '^rated: 1500 -> ' "$TMP/b.out" || fail "no ratings after END: $(cat "$TMP/a.out")"
ok "each bot shows both ratings before and after a rated duel"
# Both results in the store (the second's RATED may come after its bots left).
for ((i = 0; i < 100; i++)); do [ "$(grep -c ' rated: ' "$TMP/srv.err")" -ge 2 ] && break; sleep 0.05; done
top="$("$W" top "$S" 2>&1)" || fail "top: $top"
echo "$top" | grep -qE '^ +Ann +[0-9]+ +\+-[0-9]+ +2 ' && echo "$top" | grep -qE '^ +Bob +[0-9]+ +\+-[0-9]+ +2 ' &&
    echo "$top" | grep -q '^provisional' || fail "top: $top"
ok "top lists both players apart as provisional, 2 duels each"
st="$("$W" stats "$S" Bob 2>&1)" || fail "stats: $st"
echo "$st" | grep -qE '^ +Bob +[0-9]+ ' || fail "stats: $st"
"$W" stats "$S" Nobody >/dev/null 2>"$TMP/nob.err" && fail "stats of nobody succeeded"
grep -q 'Nobody has no rated duel' "$TMP/nob.err" || fail "stats nobody: $(cat "$TMP/nob.err")"
ok "stats shows one player, and says when a name has no rated duel"
hist="$("$W" history "$S" --key "$TMP/a.key" 2>&1)" || fail "history: $hist"
[ "$(echo "$hist" | grep -c '^duel ')" = 2 ] && echo "$hist" | grep -q "^2 rated duels, every record signed by the server's key $FP" ||
    fail "history: $hist"
ok "history: Ann's two records, each verified against the server's fingerprint"
# Bob's view is his own: his records, as his seat.
"$W" history "$S" --key "$TMP/b.key" 2>&1 | grep -q 'as player 2 vs' || fail "Bob's history"
ok "history is the asking key's"
# The records the bots were given are kept on this machine, per server: 0600, one line a duel (both bots
# share this state folder and were given the same two records), and `history` checks them.
REC="$XDG_STATE_HOME/wizwar/records/$FP"
[ -f "$REC" ] && [ "$(stat -c %a "$REC")" = 600 ] && [ "$(wc -l < "$REC")" = 3 ] &&
	head -1 "$REC" | grep -qE '^wizwar-records-1 [0-9a-f]{64}$' || fail "records kept: $(ls -l "$REC"; head -c 300 "$REC")"
# The second duel's RATED may have come after the bots left (a player away at the end): the first history
# checked what was kept, then kept the server's verified records too; the next finds both.
echo "$hist" | grep -qE "^all [12] records? kept here \($REC\) are in it, as given$" || fail "history did not check the kept records: $hist"
"$W" history "$S" --key "$TMP/a.key" 2>&1 | grep -qF "all 2 records kept here ($REC) are in it, as given" ||
	fail "the second history did not find both records kept"
ok "the signed records given are kept per server (0600, a line each), history keeps what it verified and finds them all"
# Paging: the page after the newest one.
"$W" history "$S" --key "$TMP/a.key" --skip 1 > "$TMP/p.out" 2>&1 || fail "history --skip 1: $(cat "$TMP/p.out")"
[ "$(grep -c '^duel ' "$TMP/p.out")" = 1 ] && grep -q "^1 rated duel after the newest 1, every record" "$TMP/p.out" &&
	[ "$(grep '^duel ' "$TMP/p.out")" = "$(echo "$hist" | grep '^duel ' | tail -1)" ] || fail "history --skip 1: $(cat "$TMP/p.out")"
ok "history --skip 1: the older duel only"
# A hostile server drops a record it gave: caught against the kept ones (then put back).
python3 - "$TMP/store.db" drop <<'PY' || fail "could not drop"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('CREATE TABLE kept AS SELECT * FROM results WHERE seq = (SELECT min(seq) FROM results)')
con.execute('DELETE FROM results WHERE seq = (SELECT min(seq) FROM results)')
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" > "$TMP/d.out" 2> "$TMP/d.err" && fail "a dropped record went unseen"
grep -qE '^wizwar history: MISSING: duel [0-9a-f]{16} of .* is not in its history now' "$TMP/d.err" &&
	grep -qF "1 of the 2 records kept here are not in the server's history as given" "$TMP/d.err" || fail "drop: $(cat "$TMP/d.err")"
python3 - "$TMP/store.db" <<'PY' || fail "could not restore"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('INSERT INTO results SELECT * FROM kept')
con.execute('DROP TABLE kept')
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" > /dev/null 2>&1 || fail "history after the restore"
ok "a record the server dropped is caught (MISSING, exit 1)"
# A hostile server that re-signs: the newest duel's record in the store swapped for another outcome signed
# with the server's own key (it verifies), caught against the record kept here (then put back).
python3 - "$TMP/store.db" "$RESIGN" "$TMP/st/server.key" <<'PY' || fail "could not re-sign"
import sqlite3, subprocess, sys
con = sqlite3.connect(sys.argv[1])
seq, rec = con.execute('SELECT seq, record FROM results ORDER BY seq DESC LIMIT 1').fetchone()
new = subprocess.run([sys.argv[2], sys.argv[3], rec.hex()], check=True, capture_output=True, text=True).stdout.strip()
con.execute('CREATE TABLE kept AS SELECT * FROM results WHERE seq = ?', (seq,))
con.execute('UPDATE results SET record = ? WHERE seq = ?', (bytes.fromhex(new), seq))
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" > "$TMP/c.out" 2> "$TMP/c.err" && fail "a re-signed record went unseen: $(cat "$TMP/c.out")"
grep -qE '^wizwar history: CHANGED: duel [0-9a-f]{16} of .* is in the server.s history with another record' "$TMP/c.err" &&
	grep -qF "1 of the 2 records kept here are not in the server's history as given" "$TMP/c.err" || fail "re-signed: $(cat "$TMP/c.err")"
python3 - "$TMP/store.db" <<'PY' || fail "could not restore"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('UPDATE results SET record = (SELECT record FROM kept) WHERE seq = (SELECT seq FROM kept)')
con.execute('DROP TABLE kept')
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" > /dev/null 2>&1 || fail "history after the second restore"
ok "a record the server re-signed with another outcome is caught (CHANGED, exit 1)"
# A long history: 105 more duels of the same players, each honestly signed with the server's key, put in the
# store; `history` shows the newest 54 and says how to see the rest, `--all` pages through all 107.
cp "$REC" "$TMP/rec.long"
python3 - "$TMP/store.db" "$RESIGN" "$TMP/st/server.key" <<'PY' || fail "could not add a long history"
import sqlite3, subprocess, sys
con = sqlite3.connect(sys.argv[1])
rec = con.execute('SELECT record FROM results ORDER BY seq DESC LIMIT 1').fetchone()[0]
out = subprocess.run([sys.argv[2], sys.argv[3], rec.hex(), '105'], check=True, capture_output=True, text=True).stdout.split()
for h in out:
    r = bytes.fromhex(h)
    con.execute('INSERT INTO results (duel, time, key0, key1, result, reason, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
                (r[9:41], int.from_bytes(r[1:9], 'big'), r[41:73], r[73:105], r[105], r[106], r))
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" > "$TMP/l.out" 2>&1 || fail "history of 107: $(tail -3 "$TMP/l.out")"
[ "$(grep -c '^duel ' "$TMP/l.out")" = 54 ] && grep -qF "older ones: wizwar history $S --skip 54 (or --all)" "$TMP/l.out" ||
	fail "history of 107, first page: $(grep -vc '^duel ' "$TMP/l.out") other lines: $(grep -v '^duel ' "$TMP/l.out" | head -5)"
"$W" history "$S" --key "$TMP/a.key" --all > "$TMP/l.out" 2>&1 || fail "history --all: $(tail -3 "$TMP/l.out")"
[ "$(grep -c '^duel ' "$TMP/l.out")" = 107 ] && [ "$(grep '^duel ' "$TMP/l.out" | sort -u | wc -l)" = 107 ] &&
	grep -q "^107 rated duels, every record signed by the server's key $FP" "$TMP/l.out" ||
	fail "history --all: $(grep -c '^duel ' "$TMP/l.out") duels; $(grep -v '^duel ' "$TMP/l.out" | head -5)"
python3 - "$TMP/store.db" <<'PY' || fail "could not remove the long history"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute('DELETE FROM results WHERE seq > (SELECT min(seq) + 1 FROM results)')
con.commit()
PY
cp "$TMP/rec.long" "$REC"
ok "a history of 107 duels: the newest 54 and how to see more, --all pages through every one, each verified"
# A hostile records file (one hex digit of a record changed): refused with its line, nothing shown.
cp "$REC" "$TMP/rec.save"
python3 - "$REC" <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\n')
l = lines[2]
lines[2] = l[:200] + ('0' if l[200] != '0' else '1') + l[201:]
open(sys.argv[1], 'w').write('\n'.join(lines))
PY
"$W" history "$S" --key "$TMP/a.key" > "$TMP/f.out" 2> "$TMP/f.err" && fail "a changed records file was read"
grep -qF "$REC:3: a record that is not the server's signature (the file was changed)" "$TMP/f.err" ||
	fail "changed file: $(cat "$TMP/f.err")"
printf 'wizwar-records-1 zz\n' > "$REC"
"$W" history "$S" --key "$TMP/a.key" > "$TMP/f.out" 2> "$TMP/f.err" && fail "a broken records file was read"
grep -qF "$REC:1: not a wizwar records file" "$TMP/f.err" || fail "broken file: $(cat "$TMP/f.err")"
cp "$TMP/rec.save" "$REC"
chmod 600 "$REC"
ok "a records file changed by hand is refused with its file and line"
# A hostile server: one record's rating changed in the store, the signature left as it was.
python3 - "$TMP/store.db" <<'PY' || fail "could not tamper"
import sqlite3, struct, sys
con = sqlite3.connect(sys.argv[1])
seq, rec = con.execute('SELECT seq, record FROM results ORDER BY seq DESC LIMIT 1').fetchone()
rec = bytearray(rec)
rec[107 + 24:107 + 32] = struct.pack('>d', 2999.0)  # player 0's rating after
con.execute('UPDATE results SET record = ? WHERE seq = ?', (bytes(rec), seq))
con.commit()
PY
"$W" history "$S" --key "$TMP/a.key" >"$TMP/h.out" 2>"$TMP/h.err" && fail "a forged record was accepted"
grep -q '^wizwar: FORGED: record 1 does not verify' "$TMP/h.err" || grep -q 'FORGED: record 1 does not verify' "$TMP/h.err" ||
    fail "forged: $(cat "$TMP/h.err")"
ok "a record changed on the server is refused (FORGED), exit 1"
# One key on both seats rates nothing.
before="$(grep -c ' rated: ' "$TMP/srv.err")"
"$W" bot "$S" --new-room --name Cy --key "$TMP/c.key" --think 0 --games 1 >"$TMP/c.out" 2>"$TMP/c.err" &
C=$!
PIDS="$PIDS $C"
wait_re '^room ' "$TMP/c.out" 10 || fail "no room for Cy"
ROOM="$(head -1 "$TMP/c.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "$S" --room "$ROOM" --name Cy2 --key "$TMP/c.key" --think 0 --games 1 >"$TMP/c2.out" 2>"$TMP/c2.err" ||
    fail "Cy2: $(cat "$TMP/c2.err")"
wait "$C"
wait_re 'duel over' "$TMP/srv.err" 5
grep -q '^rated' "$TMP/c.out" "$TMP/c2.out" && fail "a key against itself was rated"
[ "$(grep -c ' rated: ' "$TMP/srv.err")" = "$before" ] || fail "a key against itself was rated (server)"
ok "one key on both seats is not rated"
# The store, as sqlite3 reads it: the documented tables.
python3 - "$TMP/store.db" <<'PY' || fail "tables"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
assert con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 5  # step 3 ratings, 4 bans and mutes, 5 signers
assert con.execute('SELECT count(*) FROM results').fetchone()[0] == 2
assert con.execute('SELECT count(*) FROM results WHERE length(signer) = 32').fetchone()[0] == 2  # each its signer's
assert con.execute('SELECT count(*) FROM ratings WHERE games = 2').fetchone()[0] == 2
PY
ok "schema version 5: results (each with its signer) and ratings as documented"
"$W" server --bind 127.0.0.1 --port 0 --state-dir "$TMP/st2" --no-store >"$TMP/srv2.out" 2>"$TMP/srv2.err" &
PIDS="$PIDS $!"
wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv2.err" 15 || fail "second server"
P2="$(grep -oE 'port [0-9]+' "$TMP/srv2.err" | head -1 | grep -oE '[0-9]+')"
"$W" top "127.0.0.1:$P2" >/dev/null 2>"$TMP/t2.err" && fail "top on a server without a store"
grep -q 'keeps no ratings' "$TMP/t2.err" || fail "no store: $(cat "$TMP/t2.err")"
ok "a server without a store says it keeps no ratings"
