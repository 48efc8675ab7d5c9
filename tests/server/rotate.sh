#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rotate: a real `wizwar server` rotates its key under real `wizwar bot`s over loopback TCP. Bots that
# pinned the old key play a duel during the rotation and move their pin to the new key by themselves,
# saying so; a bot given the new fingerprint joins too; a second rotation while one runs is refused; once
# the rotation is over (ended early by the operator, then SIGHUP) the old key's file is gone and a bot
# still pinning it is refused with the key-changed warning, its pin kept. SIGHUP applies a changed
# log-keep from the config file at once (an old log goes) and says so; log lines name the client's key.
# (A forged rotation is refused: tests/server/test_rotate.c, against the network client's code.)
set -u
W="${1:?usage: rotate.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init rotate # TMP, PIDS, fail, ok

ST="$TMP/st"
L="$TMP/logs"
CONF="$TMP/server.conf"
ERR="$TMP/srv.err"
printf '# wizwar server settings\nbind 127.0.0.1\nport 0\nlog-keep 30\n' >"$CONF"
chmod 600 "$CONF"
export XDG_STATE_HOME="$TMP/xdg" # the server's own; each client below has its own state folder
server_start "$ERR" --config "$CONF" --state-dir "$ST" --log-dir "$L" --no-store --handshakes-per-min 0 \
	--rooms-per-hour 0
OLD="$(grep -oE 'fingerprint [a-z2-7]{26}' "$ERR" | head -1 | cut -d' ' -f2)"
[ -n "$OLD" ] || fail "no fingerprint at the start"

# duel TAG STATE [ADDR-SUFFIX]: two bots sharing the client state folder STATE play one duel.
duel() {
	local tag="$1" state="$2" sfx="${3:-}"
	XDG_STATE_HOME="$state" "$W" bot "127.0.0.1:$PORT$sfx" --new-room --name "A$tag" --think 0 --games 1 --seed 3 \
		>"$TMP/a$tag.out" 2>"$TMP/a$tag.err" &
	local a=$!
	PIDS+=("$a")
	wait_re '^room ' "$TMP/a$tag.out" 10
	local room
	room="$(head -1 "$TMP/a$tag.out" | cut -d' ' -f2 | tr -d :)"
	XDG_STATE_HOME="$state" timeout 30 "$W" bot "127.0.0.1:$PORT$sfx" --room "$room" --name "B$tag" --think 0 \
		--games 1 --seed 4 >"$TMP/b$tag.out" 2>"$TMP/b$tag.err" || fail "bot B$tag: exit $?"
	wait "$a" || fail "bot A$tag: exit $?"
	grep -qE '^duel 1: .*log verified' "$TMP/a$tag.out" || fail "duel $tag was not played to its verified end"
}
pin() { cut -d' ' -f2 "$1/wizwar/known_servers"; }

# 1. Before the rotation: two client folders pin the key on first contact; log lines name the bot's key.
duel 1 "$TMP/c1"
duel 2 "$TMP/c2"
[ "$(pin "$TMP/c1")" = "$OLD" ] && [ "$(pin "$TMP/c2")" = "$OLD" ] || fail "the first key is not pinned"
BOTFP="$(grep -oE 'made a new key .*fingerprint [a-z2-7]{26}' "$TMP/a1.err" | grep -oE '[a-z2-7]{26}$')"
[ -n "$BOTFP" ] || fail "the bot's key fingerprint was not said"
grep -qE "^[0-9T:.-]+Z info room=[a-z0-9-]+ peer=127\.0\.0\.1:[0-9]+ key=$BOTFP A1 joins room" "$ERR" ||
	fail "the join line does not carry peer=ADDR key=$BOTFP"
grep -qE "^[0-9T:.-]+Z info room=[a-z0-9-]+ peer=127\.0\.0\.1:[0-9]+ key=$BOTFP room [a-z0-9-]+ created" "$ERR" ||
	fail "the room's creation does not carry the key"
ok "log lines of a client carry peer=ADDR key=FINGERPRINT once it proved its key"

# 2. The rotation, offline, then SIGHUP: the running server takes the new key and keeps the old one.
"$W" server --state-dir "$ST" --rotate-key --rotate-days 2 >"$TMP/rot.out" 2>"$TMP/rot.err" || fail "--rotate-key: exit $?"
NEW="$(grep -oE 'new fingerprint [a-z2-7]{26}' "$TMP/rot.out" | cut -d' ' -f3)"
[ -n "$NEW" ] && [ "$NEW" != "$OLD" ] || fail "no new fingerprint said"
grep -qF "the old one, $OLD, proves it" "$TMP/rot.out" || fail "the old key and the period were not said"
[ "$(stat -c %a "$ST/server.key.old")" = 600 ] && [ "$(stat -c %a "$ST/server.key")" = 600 ] || fail "key files not 0600"
kill -HUP "$SRV"
wait_re "notice reload: the server's key is now $NEW" "$ERR" 10
wait_re "notice key rotation: clients that pinned the old key $OLD are answered under it" "$ERR" 10
"$W" server --state-dir "$ST" --rotate-key >"$TMP/rot2.out" 2>"$TMP/rot2.err" && fail "a second rotation was taken"
grep -qF "a rotation runs until" "$TMP/rot2.err" || fail "a second rotation: not said why"
ok "--rotate-key makes a new key (0600) and keeps the old one 2 days; SIGHUP takes both; a second rotation meanwhile is refused"

# 3. Bots that pinned the old key play, and move their pin by themselves, saying so.
duel 3 "$TMP/c1"
grep -qF "the new one is pinned now ($NEW)" "$TMP/a3.err" || fail "the bot did not say it moved its pin"
[ "$(pin "$TMP/c1")" = "$NEW" ] || fail "the pin did not move: $(pin "$TMP/c1")"
grep -qE "peer=127\.0\.0\.1:[0-9]+ answered under the old key $OLD; sent the new key $NEW, signed by it" "$ERR" ||
	fail "the server did not log the rotation shown"
duel 4 "$TMP/c1"
grep -qF "the new one is pinned" "$TMP/a4.err" && fail "a client already moved was shown the rotation again"
grep -qF "the one remembered ($NEW)" "$TMP/a4.err" || fail "the moved pin is not used"
ok "bots that pinned the old key join under it, move their pin to the new key by themselves and say so"

# 4. The new fingerprint given on the join line, and a first contact, get the new key.
duel 5 "$TMP/c5" "#$NEW"
grep -qF "matches the fingerprint given ($NEW)" "$TMP/a5.err" || fail "the new fingerprint was not taken"
[ "$(pin "$TMP/c5")" = "$NEW" ] || fail "a first contact during the rotation did not pin the new key"
ok "a client given the new fingerprint joins during the rotation"

# 5. The rotation is ended early by the operator (UNTIL in the past), SIGHUP: the old key is gone.
sed -i -E 's/ [0-9]+$/ 1000/' "$ST/server.key.old"
kill -HUP "$SRV"
wait_re "key rotation over since 1970-01-01 00:16 UTC: the old key $OLD is removed" "$ERR" 10
[ -e "$ST/server.key.old" ] && fail "the old key's file is still there"
XDG_STATE_HOME="$TMP/c2" timeout 20 "$W" bot "127.0.0.1:$PORT" --new-room --name Late --think 0 --games 1 \
	>"$TMP/late.out" 2>"$TMP/late.err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a bot still pinning the dropped key: exit $rc"
grep -qF "THE SERVER'S KEY HAS CHANGED. 127.0.0.1:$PORT now shows key $NEW" "$TMP/late.err" ||
	fail "the refusal does not say the key changed"
grep -qF "wizwar join 127.0.0.1:$PORT#$NEW" "$TMP/late.err" || fail "the refusal does not say how to accept the new key"
[ "$(pin "$TMP/c2")" = "$OLD" ] || fail "a refused client's pin changed"
wait_re "its client pinned a key this server no longer has" "$ERR" 10
ok "after the rotation a client still pinning the old key is refused with the key-changed warning, its pin kept"

# 6. SIGHUP applies a changed log-keep from the file at once, and says so.
mkdir -p "$L/2020/01/01"
gzip -c <"$TMP/a1.out" >"$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz"
touch -d '5 days ago' "$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz"
kill -HUP "$SRV"
wait_re 'reloaded .*applied: none' "$ERR" 10
[ -f "$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz" ] || fail "a 5-day-old log went under log-keep 30"
printf '# wizwar server settings\nbind 127.0.0.1\nport 0\nlog-keep 2\n' >"$CONF"
kill -HUP "$SRV"
wait_re 'notice reload: finished turn logs are kept 2 days from now on' "$ERR" 10
wait_re 'reloaded .*applied: log-keep;' "$ERR" 10
wait_re 'turn logs: 1 finished duel older than 2 days removed' "$ERR" 10
[ -e "$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz" ] && fail "the old log is still there"
ok "SIGHUP applies a changed log-keep at once (a 5-day-old log goes under log-keep 2) and says so"

# 7. Root rotating a service's folder (DynamicUser=): the new files keep the service user's ownership.
if [ "$(id -u)" = 0 ]; then
	S2="$TMP/svc"
	mkdir -m 700 "$S2"
	cp "$ST/server.key" "$S2/server.key"
	chown -R 65534:65534 "$S2"
	"$W" server --state-dir "$S2" --rotate-key >"$TMP/rot3.out" 2>"$TMP/rot3.err" || fail "--rotate-key as root: exit $?"
	[ "$(stat -c %u:%a "$S2/server.key")" = 65534:600 ] && [ "$(stat -c %u:%a "$S2/server.key.old")" = 65534:600 ] ||
		fail "as root: $(stat -c '%n %u %a' "$S2"/server.key*)"
	ok "--rotate-key as root on a service user's folder: the new key files are that user's, 0600"
fi

proc_stop "$SRV"
echo "all key rotation tests passed"
