#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# config: `wizwar server --config FILE` as an operator runs it, real processes over loopback TCP. A bad
# file stops the start with its file and line; the command line wins over the file; SIGUSR1 logs a status
# line and leaves the server running; SIGHUP during a duel between two `wizwar bot`s applies a changed limit,
# says that a changed port needs a restart, and the duel is played to its verified end with nobody dropped;
# a bad file at SIGHUP changes nothing and says why; a password file set by SIGHUP is asked of new joins;
# every log line has the documented shape (docs/server.md, "Log lines"), with syslog priorities when stderr
# is the stream JOURNAL_STREAM names; SIGTERM stops it.
set -u
W="${1:?usage: config.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init config # TMP, PIDS, fail, ok
export XDG_STATE_HOME="$TMP/state"
# The documented line: [<P>]TIME LEVEL[ room=CODE][ peer=ADDR[ key=FP]] text.
LINE='^(<[3-7]>)?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z (error|warning|notice|info|debug)( room=[A-Za-z0-9_-]+)?( peer=[^ ]+( key=[a-z2-7]{26})?)? '
CONF="$TMP/server.conf"

# 1. A bad file: the start stops (exit 2) with the file and line.
printf '# limits\nmax-rooms 50\nmax-romz 7\n' > "$CONF"
chmod 600 "$CONF"
"$W" server --config "$CONF" --bind 127.0.0.1 --port 0 > "$TMP/bad.out" 2> "$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "a bad file: exit $rc, not 2"
grep -qF "wizwar server: $CONF:3: unknown setting 'max-romz'" "$TMP/bad.err" || fail "the unknown name was not said with file:line"
printf 'max-rooms 50\nmax-per-addr none\n' > "$CONF"
"$W" server --config "$CONF" --bind 127.0.0.1 --port 0 > "$TMP/bad.out" 2> "$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$CONF:2: --max-per-addr must be a number from 1 to 100000, not 'none'" "$TMP/bad.err" ||
	fail "a bad value: exit $rc, not said with file:line"
chmod 666 "$CONF"
"$W" server --config "$CONF" --bind 127.0.0.1 --port 0 > "$TMP/bad.out" 2> "$TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$CONF: writable by everyone" "$TMP/bad.err" || fail "a world-writable file was taken (exit $rc)"
ok "a bad file stops the start with its file and line (unknown name, bad value, world-writable)"

# 2. A good file, the command line over it. stderr is a file named as the journal's stream.
printf '# wizwar server settings\nmax-rooms 50\nmax-per-addr 9\nbind 127.0.0.1\nport 0\nlobby-idle 300\n' > "$CONF"
chmod 600 "$CONF"
ERR="$TMP/srv.err"
: > "$ERR"
exec 3>>"$ERR"
JOURNAL_STREAM="$(stat -c '%d:%i' "$ERR")" "$W" server --config "$CONF" --max-per-addr 4 --handshakes-per-min 0 \
	--log-dir "$TMP/logs" > "$TMP/srv.out" 2>&3 &
SRV=$!
PIDS+=("$SRV")
exec 3>&-
server_port "$ERR"
grep -qE "^<5>[0-9T:.-]+Z notice listening on 127\.0\.0\.1 port $PORT; .*settings from $CONF" "$ERR" ||
	fail "no <5> notice for the start on the journal's stream"
ok "the file is read (bind, port) and its lines carry syslog priorities on the journal's stream"

# 3. SIGUSR1: a status line, and the server goes on; the command line won over the file.
kill -USR1 "$SRV"
wait_re 'notice status: 0 connections, 0 rooms, 0 duels under way; max-conns [0-9]+, max-rooms 50, max-per-addr 4' "$ERR" 10
sleep 0.2
kill -0 "$SRV" 2>/dev/null || fail "SIGUSR1 stopped the server"
ok "SIGUSR1 logs a status line and the server runs on; max-per-addr 4 from the command line over the file's 9"

# 4. A duel under way; then SIGHUP with a changed limit and a changed port.
"$W" bot "127.0.0.1:$PORT" --new-room --name Ann --think 40 --games 1 --seed 5 > "$TMP/ann.out" 2> "$TMP/ann.err" &
ANN=$!
PIDS+=("$ANN")
wait_re '^room ' "$TMP/ann.out" 10
ROOM="$(head -1 "$TMP/ann.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Ben --think 40 --games 1 --seed 6 > "$TMP/ben.out" 2> "$TMP/ben.err" &
BEN=$!
PIDS+=("$BEN")
wait_re "^<5>[0-9T:.-]+Z notice room=$ROOM duel 1 starts: Ann vs Ben" "$ERR" 10
grep -qE "^<6>[0-9T:.-]+Z info room=$ROOM peer=127\.0\.0\.1:[0-9]+ key=[a-z2-7]{26} Ben joins room $ROOM as player 2" "$ERR" ||
	fail "the join line has no room=, peer= and key="
# peer= carries the key: the line's text does not say it again.
[ "$(grep -E "Ben joins room $ROOM" "$ERR" | grep -o '[a-z2-7]\{26\}' | sort -u | wc -l)" -eq 1 ] &&
	! grep -E "Ben joins room $ROOM" "$ERR" | grep -q ', key ' || fail "the join line names the key twice"
printf '# wizwar server settings\nmax-rooms 70\nmax-per-addr 12\nbind 127.0.0.1\nport 1\nlobby-idle 300\n' > "$CONF"
kill -HUP "$SRV"
wait_re "notice reloaded $CONF: applied: max-rooms; not applied, they need a restart: port; the command line's value kept: max-per-addr" "$ERR" 10
kill -USR1 "$SRV"
wait_re 'status: [0-9]+ connections?, 1 room, 1 duel under way; max-conns [0-9]+, max-rooms 70, max-per-addr 4; 1 reload since' "$ERR" 10
ok "SIGHUP mid-duel applies max-rooms, says the port needs a restart and keeps the command line's max-per-addr"

# 5. A bad file at SIGHUP: nothing changes, and the log says why.
printf 'max-rooms 90\nmax-rooms 91\n' > "$CONF"
kill -HUP "$SRV"
wait_re "^<4>[0-9T:.-]+Z warning reload: $CONF:2: max-rooms again \(first set on line 1\); nothing changed" "$ERR" 10
printf 'max-rooms 0\n' > "$CONF"
kill -HUP "$SRV"
wait_re "warning reload: $CONF:1: --max-rooms must be a number from 1 to 100000, not '0'; nothing changed" "$ERR" 10
# Every setting read before one is applied: a password file that cannot be read leaves max-rooms as it was.
printf 'max-rooms 90\npassword-file %s/none\n' "$TMP" > "$CONF"
kill -HUP "$SRV"
wait_re "warning reload: cannot read a password from $TMP/none: No such file or directory; nothing changed" "$ERR" 10
kill -USR1 "$SRV"
wait_re 'max-rooms 70, max-per-addr 4; 1 reload since' "$ERR" 10
ok "a bad file at SIGHUP changes nothing and is said with its file and line, at warning"

# 6. The duel ends verified with nobody dropped, the server still up after it all.
wait "$ANN"; ra=$?
wait "$BEN"; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "the bots: exit $ra and $rb"
grep -qE '^duel 1: .*log verified' "$TMP/ann.out" || fail "Ann's duel was not verified"
wait_re "room=$ROOM duel over" "$ERR" 10
grep -qE 'dropped|did not come back' "$ERR" && fail "a player was dropped: $(grep -E 'dropped|did not come back' "$ERR")"
kill -0 "$SRV" 2>/dev/null || fail "the server is gone"
ok "the duel went on through the reloads to its verified end, nobody dropped"

# 6b. A password set by SIGHUP: a join without it is refused, one with it gets its room.
printf 'pass phrase\n' > "$TMP/pw"
printf 'max-rooms 70\nmax-per-addr 12\nbind 127.0.0.1\nport 1\nlobby-idle 300\npassword-file %s\n' "$TMP/pw" > "$CONF"
kill -HUP "$SRV"
wait_re "notice reloaded $CONF: applied: password-file;" "$ERR" 10
wait_re 'notice reload: the password changed: joins need the new one' "$ERR" 20
WIZWAR_PASSWORD= timeout 20 "$W" bot "127.0.0.1:$PORT" --new-room --games 1 --reconnect 1 > "$TMP/nopw.out" 2> "$TMP/nopw.err"
rc=$?
[ $rc -eq 1 ] && grep -qiE "password" "$TMP/nopw.err" && ! grep -q "^room " "$TMP/nopw.out" || fail "a join without the new password: exit $rc"
"$W" bot "127.0.0.1:$PORT" --new-room --games 1 --password-file "$TMP/pw" > "$TMP/pw.out" 2> "$TMP/pw.err" &
PWB=$!
PIDS+=("$PWB")
wait_re '^room ' "$TMP/pw.out" 10
kill "$PWB"
wait "$PWB"
ok "SIGHUP applies a password file: a join without it is refused, one with it makes its room"

# 7. SIGTERM stops it (exit 0); then every line of its stderr has the documented shape, except the command's
# own lines before the server ran (its key).
kill -TERM "$SRV"
wait "$SRV"; rc=$?
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc"
bad="$(grep -vE "$LINE" "$ERR" | grep -vE '^wizwar server: (made a new|using the) key ')"
[ -z "$bad" ] || fail "lines not in the documented format: $bad"
lines=$(count "$LINE" "$ERR")
[ "$lines" -ge 10 ] || fail "only $lines log lines"
ok "SIGTERM stops it; all $lines log lines have the documented shape"

# 8. Without JOURNAL_STREAM (or with another stream's), no priorities.
printf 'max-rooms 5\n' > "$CONF"
JOURNAL_STREAM="1:1" server_start "$TMP/plain.err" --config "$CONF" --bind 127.0.0.1 --port 0
proc_stop "$SRV"
grep -q '^<' "$TMP/plain.err" && fail "priorities on a stderr that is not the journal's"
grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z notice listening on' "$TMP/plain.err" || fail "no plain line"
ok "no priority prefix when stderr is not the journal's stream"
echo "1..$n"
