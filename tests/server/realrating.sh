#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# realrating: quick pairing and `wizwar rooms` go by each key's real rating on the server (issue 31), on
# real processes: the ratings are rows an operator's database holds (written with Python's sqlite3 before
# the server starts, as `sqlite3 FILE` would), the server reads a key's row when its name is claimed or its
# QUICK comes. Four bots of ratings 1500 (no row), 1520, 1880 and 1900 enter the pool in an order where the
# first two to meet are far apart: they are paired nearest-rating-first. A public room shows its player's
# real rating. `server --pair-wave MS` from a config file sets the wave (a lone bot hears one a wave), and a
# value out of its bounds stops the start with the file's line.
set -u
W="${1:?usage: realrating.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh" # proc_init, wait_re, server_start
proc_init realrating
PROC_TAP=1
export XDG_STATE_HOME="$TMP/state"
echo "1..4"

# The keys, and their fingerprints as the server's log names them.
declare -A FP
for k in a b c d e; do
	FP[$k]="$("$W" id --key "$TMP/$k.key" | awk '/^fingerprint / { print $2 }')"
	[ -n "${FP[$k]}" ] || fail "no key $k"
done
# A bound out of range, in a config file: refused with its file and line, nothing started.
printf 'max-rooms 50\npair-wave 50\n' > "$TMP/bad.conf"
"$W" server --config "$TMP/bad.conf" --bind 127.0.0.1 --port 0 --no-store --state-dir "$TMP/st0" \
	> "$TMP/bad.out" 2> "$TMP/bad.err" && fail "pair-wave 50 was taken"
grep -qE "bad\.conf:2: .*pair-wave.*100.*60000" "$TMP/bad.err" || fail "pair-wave 50: $(cat "$TMP/bad.err")"
# The store made by a first start (its schema migrated), the server stopped, then the operator's rows:
# each key's public key from its seed.
server_start "$TMP/first.err" --bind 127.0.0.1 --port 0 --state-dir "$TMP/st" --store "$TMP/store.db"
FIRST=$SRV
kill -TERM "$FIRST"
wait "$FIRST"
python3 - "$TMP" <<'PY' || fail "could not write the ratings"
import sqlite3, sys, time
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization
tmp = sys.argv[1]
def pk(k):
    magic, seed = open(f'{tmp}/{k}.key').read().split()
    priv = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
    return priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
now = int(time.time())
con = sqlite3.connect(f'{tmp}/store.db')
for k, r in (('b', 1900), ('c', 1880), ('d', 1520), ('e', 2105)):  # a: no row, a new player's 1500
    con.execute('INSERT INTO keys (key, first_seen, last_seen) VALUES (?, ?, ?)', (pk(k), now, now))
    con.execute('INSERT INTO ratings VALUES (?, ?, 60, 0.06, 40, 20, 0, 20, ?)', (pk(k), r + 0.4, now))
con.commit()
PY
printf '# quick pairing waves of 600 ms\npair-wave 600\n' > "$TMP/srv.conf"
server_start "$TMP/srv.err" --config "$TMP/srv.conf" --bind 127.0.0.1 --port 0 --log-dir "$TMP/logs" \
	--state-dir "$TMP/st" --store "$TMP/store.db"
SFP="$(grep -oE 'fingerprint [a-z2-7]{26}' "$TMP/srv.err" | head -1 | cut -d' ' -f2)"
S="127.0.0.1:$PORT#$SFP"
ok "pair-wave is a bounded setting: 50 ms refused with the file's line"

# 1. A public room shows its player's real rating (2105 in the store), not 1500.
"$W" bot "$S" --new-room --public --name eve --key "$TMP/e.key" --games 1 > "$TMP/e.out" 2> "$TMP/e.err" &
E=$!
PIDS+=("$E")
wait_re '^room [a-z0-9-]+:' "$TMP/e.out" 10
ROOM="$(grep -oE '^room [a-z0-9-]+' "$TMP/e.out" | cut -d' ' -f2)"
rooms_wait "$S" "$ROOM" 30
grep -qE "^$ROOM +eve +2105 " "$TMP/list.out" || fail "the public room does not show eve's rating 2105: $(cat "$TMP/list.out")"
kill "$E" 2>/dev/null
ok "rooms shows the waiting player's rating from the store"

# 2. A lone bot in the pool hears a wave every 600 ms: 4 lines or more in its 3 s (2 s waves: 2 at most).
"$W" bot "$S" --quick --size 15 --bot-after 3 --name solo --key "$TMP/a.key" > "$TMP/solo.out" 2> "$TMP/solo.err"
[ $? -eq 3 ] || fail "the lone bot was not told nobody came"
[ "$(count '^waiting for a player' "$TMP/solo.err")" -ge 4 ] || fail "fewer waves than pair-wave 600 makes"
ok "pair-wave 600: a wave every 600 ms"

# 3. Pairing by the real ratings: ann (1500) and bob (1900) wait first, each alone in its range; dan
# (1520) then meets ann, and cat (1880) bob. With every key at 1500, ann and bob would meet at once.
quick() { # KEY NAME: a bot into the pool, once the server has it waiting
	local before
	before="$(count 'waits to be paired' "$TMP/srv.err")"
	"$W" bot "$S" --quick --name "$2" --key "$TMP/$1.key" --games 1 --think 0 --bot-after 30 \
		> "$TMP/q$1.out" 2> "$TMP/q$1.err" &
	PIDS+=("$!")
	for ((i = 0; i < 200; i++)); do
		[ "$(count 'waits to be paired' "$TMP/srv.err")" -gt "$before" ] && return 0
		sleep 0.05
	done
	fail "$2 never waited in the pool"
}
quick a ann
quick b bob
sleep 1.3 # two waves with ann and bob alone together
quick d dan
quick c cat
wait_re "paired .*key=${FP[a]}.* with .*key=${FP[d]}|paired .*key=${FP[d]}.* with .*key=${FP[a]}" "$TMP/srv.err" 15
wait_re "paired .*key=${FP[b]}.* with .*key=${FP[c]}|paired .*key=${FP[c]}.* with .*key=${FP[b]}" "$TMP/srv.err" 15
for kr in a:1500 b:1900 d:1520 c:1880; do
	grep -qE "key=${FP[${kr%:*}]} waits to be paired \(size 25, rating ${kr#*:}," "$TMP/srv.err" ||
		fail "the pool's log does not show ${kr%:*}'s rating ${kr#*:}"
done
if grep -qE "paired .*key=(${FP[a]}|${FP[b]}).* with .*key=(${FP[a]}|${FP[b]})" "$TMP/srv.err"; then
	fail "ann (1500) and bob (1900) were paired together"
fi
ok "quick pairing pairs by the store's ratings, nearest first (1500 with 1520, 1900 with 1880)"
