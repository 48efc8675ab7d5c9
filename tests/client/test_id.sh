#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_id: `wizwar id` makes the player's key on first use (0600) and shows the same fingerprint after, the
# bots' key apart; a key file others may read is refused with the reason and exit 1. Then a real `wizwar
# server` and two real bots with different keys and one name: the second is refused with the reason, the
# owner's key takes the name again, and `wizwar server --free-name` (offline, beside the running server)
# frees it for the other key. The store is the one `sqlite3 FILE` reads.
set -u
W="${1:?usage: test_id.sh PATH-TO-WIZWAR}"
T="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
n=0
failed=0
check() { # DESCRIPTION COMMAND...
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else failed=$((failed + 1)); echo "not ok $n - $1"; fi
}
echo "1..13"

export XDG_STATE_HOME="$T/me"
"$W" id >"$T/id1" 2>"$T/id1.err"
check "wizwar id makes a key on first use and says so" "grep -q 'made a new key' '$T/id1.err'"
check "its file is 0600" "[ \"\$(stat -c %a '$T/me/wizwar/id.key')\" = 600 ]"
"$W" id >"$T/id2" 2>"$T/id2.err"
check "the same fingerprint the second time, nothing made" "cmp -s '$T/id1' '$T/id2' && [ ! -s '$T/id2.err' ]"
check "the fingerprint looks like a server's: 26 of a-z2-7" "grep -qE '^fingerprint [a-z2-7]{26}$' '$T/id1'"
"$W" id --bot >"$T/bot" 2>/dev/null
check "the bots' key is another" "! cmp -s '$T/id1' '$T/bot' && grep -q 'bot.key' '$T/bot'"
chmod 640 "$T/me/wizwar/id.key"
"$W" id >/dev/null 2>"$T/perm.err"
rc=$?
check "a key others may read is refused, exit 1" "[ $rc = 1 ] && grep -q 'may be read by others (mode 640)' '$T/perm.err'"
chmod 600 "$T/me/wizwar/id.key"

# ---- a server of rooms, its store, two keys ----
export XDG_STATE_HOME="$T/srv"
"$W" server --bind 127.0.0.1 --port 0 --log-dir "$T/srv" 2>"$T/server.err" >"$T/server.out" &
PIDS+=($!)
for _ in $(seq 100); do grep -q 'listening on' "$T/server.err" && break; sleep 0.1; done
PORT="$(grep -oE 'port [0-9]+' "$T/server.err" | head -1 | grep -oE '[0-9]+')"
check "the server says where names are kept" "grep -q 'names owned by keys in $T/srv/wizwar/server.db' '$T/server.err'"
bot() { # STATE-DIR NAME ROOM-ARGS...: a bot until it is refused (its exit status) or in a room (then stopped: 0)
	local who="$1" name="$2" pid
	shift 2
	XDG_STATE_HOME="$T/$who" "$W" bot "127.0.0.1:$PORT" --name "$name" --think 0 --games 1 "$@" \
		>"$T/$who.out" 2>"$T/$who.err" &
	pid=$!
	for _ in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		grep -q '^room ' "$T/$who.out" && { kill "$pid"; wait "$pid"; return 0; }
		sleep 0.1
	done
	kill "$pid"
	return 99
}
XDG_STATE_HOME="$T/ann" timeout 60 "$W" bot "127.0.0.1:$PORT" --name Morgana --new-room --think 50 --games 1 \
	>"$T/ann.out" 2>"$T/ann.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q '^room ' "$T/ann.out" && break; sleep 0.1; done
ROOM="$(head -1 "$T/ann.out" | cut -d' ' -f2 | tr -d :)"
bot ben morgana --room "$ROOM"
rc=$?
check "another key asking for the name (in other letters' case) is refused with the reason, exit 1" \
	"[ $rc = 1 ] && grep -q \"the name 'morgana' belongs to another player's key here\" '$T/ben.err'"
DB="$T/srv/wizwar/server.db"
check "sqlite3 reads the store: the name is the first key's" \
	"[ \"\$(sqlite3 '$DB' \"SELECT count(*) FROM names WHERE name = 'Morgana'\")\" = 1 ]"
bot ann2 Morgana --new-room --key "$T/ann/wizwar/bot.key"
check "the owner's key takes its name again in another room" "grep -q 'room .*' '$T/ann2.out' && ! grep -qi 'belongs' '$T/ann2.err'"
"$W" server --free-name MORGANA >"$T/free.out" 2>&1
check "server --free-name frees it, offline, beside the running server" "grep -q \"the name 'MORGANA' is free now\" '$T/free.out'"
check "the store no longer holds it" "[ \"\$(sqlite3 '$DB' \"SELECT count(*) FROM names WHERE name = 'Morgana'\")\" = 0 ]"
bot ben2 Morgana --new-room --key "$T/ben/wizwar/bot.key"
check "the other key takes the freed name" "! grep -qi 'belongs' '$T/ben2.err' && grep -q '^room ' '$T/ben2.out'"
[ "$failed" = 0 ]
