#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Passwords off the command line, and the server's key on disk: `wizwar server --password-file`,
# bots with WIZWAR_PASSWORD (right and wrong) and a fingerprint in the address; the key file made
# 0600 on first run and kept; a key file others can read refused. TAP output. Usage: test_passwords.sh WIZWAR
set -u
exe=$1
tmp=$(mktemp -d)
export XDG_STATE_HOME="$tmp/state" HOME="$tmp"
unset WIZWAR_PASSWORD
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
echo "1..11"

printf 'old oak\n' > "$tmp/pw"
"$exe" server --bind 127.0.0.1 --port 0 --password-file "$tmp/pw" --log-dir "$tmp/logs" \
	> "$tmp/server.out" 2> "$tmp/server.err" &
for _ in $(seq 100); do grep -q '^wizwar join' "$tmp/server.out" 2>/dev/null && break; sleep 0.1; done
line=$(head -1 "$tmp/server.out")
addr=$(awk '{print $3}' <<<"$line")      # 127.0.0.1:PORT#FINGERPRINT
check "the server prints its join line with a fingerprint" '[[ "$addr" =~ ^127\.0\.0\.1:[0-9]+#[a-z2-7]{26}$ ]]'
key="$XDG_STATE_HOME/wizwar/server.key"
check "its key is made on first run, mode 0600" '[ "$(stat -c %a "$key" 2>/dev/null)" = 600 ]'
check "the fingerprint is printed at start" 'grep -q "fingerprint ${addr#*#}" "$tmp/server.err"'
check "the join line of a server with a password asks for it" '[[ "$line" =~ \ --new-room\ --password$ ]]'

WIZWAR_PASSWORD='old oak' "$exe" bot "$addr" --new-room --name Ann --games 1 --think 0 --seed 1 > "$tmp/a.out" 2>&1 &
a=$!
room=
for _ in $(seq 100); do
	room=$(sed -n 's/^room \([0-9a-z-]*\):.*/\1/p' "$tmp/a.out")
	[ -n "$room" ] && break
	sleep 0.1
done
WIZWAR_PASSWORD='old oak' "$exe" bot "$addr" --room "$room" --name Bob --games 1 --think 0 --seed 2 > "$tmp/b.out" 2>&1 &
b=$!
wait $a; ra=$?; wait $b; rb=$?
check "two bots with WIZWAR_PASSWORD play a verified duel" '[ $ra -eq 0 ] && [ $rb -eq 0 ] && grep -q "verified" "$tmp/a.out"'
check "the right fingerprint joins with no question" 'grep -q "matches the fingerprint given" "$tmp/a.out"'
WIZWAR_PASSWORD='wrong' "$exe" bot "$addr" --room pw2 --games 1 --think 0 > "$tmp/c.out" 2>&1
check "a wrong password fails with its reason" 'grep -qi "wrong password" "$tmp/c.out"'
"$exe" bot "$addr" --room pw3 --games 1 --password-file "$tmp/nope" > "$tmp/d.out" 2>&1
check "a missing password file is said" 'grep -q "cannot read a password from" "$tmp/d.out"'
kill -INT %1 2>/dev/null; wait 2>/dev/null

fp1=${addr#*#}
"$exe" server --bind 127.0.0.1 --port 0 > "$tmp/server2.out" 2>/dev/null &
for _ in $(seq 100); do grep -q '^wizwar join' "$tmp/server2.out" 2>/dev/null && break; sleep 0.1; done
kill -INT %1 2>/dev/null; wait 2>/dev/null
check "the key is kept across runs" 'grep -q "#$fp1 " "$tmp/server2.out"'
check "the join line of a server without a password does not ask for one" 'grep -qE " --new-room$" "$tmp/server2.out"'
chmod 644 "$key"
"$exe" server --bind 127.0.0.1 --port 0 > /dev/null 2> "$tmp/server3.err"
check "a key file others can read is refused" 'grep -q "readable by others" "$tmp/server3.err"'
exit $((failed > 0))
