#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_joinfail: every way a `wizwar join` can fail to start (a wrong or changed server key too), with the real client in tmux: the reason on
# stderr (the pane shows it, since no screen ever started), exit status 1 (docs/wizwar.6), and never a
# duel screen. Then a closed terminal (SIGHUP) in a duel: a drop, not a resignation, and the same
# command again takes the seat back. Last, addresses: localhost, 127.0.0.1 and ::1 all reach a default
# `wizwar server` (::1 skipped without an IPv6 loopback), and `host --bind ::1` connects its own client there.
set -u
WIZWAR="${1:?usage: test_joinfail.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
mkdir -p "$STATE"

# refused WHAT REGEX ARGS...: `wizwar join ARGS` in tmux says REGEX on stderr and exits 1, no duel screen.
refused() {
	local what="$1" re="$2"
	shift 2
	start env XDG_STATE_HOME="${JSTATE:-$STATE}" "$WIZWAR" join "$@"
	wait_for 'STTY$' 20
	expect "^wizwar join: $re" "$what: the reason"
	expect '^EXIT=1$' "$what: exit status 1"
	expect_not 'HP [0-9]/5|GAME OVER|The duel is over|Joined as' "$what: no duel screen"
	T kill-session -t w
}

# A port nobody listens on: bind one, note it, close it.
FREE="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 9)"
refused "connection refused" "cannot connect to 127\.0\.0\.1 port $FREE: connection refused" "127.0.0.1:$FREE"
refused "unknown host" "cannot find no-such-host\.invalid" "no-such-host.invalid"

# ---- a password host ----
env XDG_STATE_HOME="$STATE" "$WIZWAR" host --headless --bind 127.0.0.1 --port 0 --password='old oak' 2>"$TMPD/host.err" &
PIDS+=($!)
wait_file 'Hosting on port [0-9]+' "$TMPD/host.err"
HPORT="$(grep -oE 'Hosting on port [0-9]+' "$TMPD/host.err" | head -1 | grep -oE '[0-9]+$')"
refused "missing password" "this game needs a password \(--password\)" "127.0.0.1:$HPORT"
refused "wrong password" "wrong password" "127.0.0.1:$HPORT" --password=young-oak

# ---- a server of rooms ----
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --bind 127.0.0.1 --port 0 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
refused "unknown room" "no room 'oak-42' on this server" "127.0.0.1:$PORT" --room oak-42
# The server's key: a fingerprint in the address that is not its key, and a key that differs from the
# one remembered for that address (trust on first use): both stop the join before anything is sent.
refused "wrong fingerprint" "THE SERVER'S KEY IS NOT THE ONE GIVEN" "127.0.0.1:$PORT#aaaaaaaaaaaaaaaaaaaaaaaaaa" --room oak-42
mkdir -p "$TMPD/moved/wizwar"
echo "127.0.0.1:$PORT aaaaaaaaaaaaaaaaaaaaaaaaaa" >"$TMPD/moved/wizwar/known_servers"
JSTATE="$TMPD/moved" refused "changed server key" "WARNING: THE SERVER'S KEY HAS CHANGED" "127.0.0.1:$PORT" --room oak-42

XDG_STATE_HOME="$TMPD/ada" "$WIZWAR" bot "127.0.0.1:$PORT" --new-room --name Ada --think 400 --games 1 >"$TMPD/a.out" 2>"$TMPD/a.err" &
PIDS+=($!)
wait_file '^room ' "$TMPD/a.out"
ROOM="$(head -1 "$TMPD/a.out" | cut -d' ' -f2 | tr -d :)"
# Ada's name belongs to the bot's key on this server (its store): another key is refused at once;
# with the bot's own key the name passes the store and meets the room's own rule. (A build without
# SQLite owns no names: its server says so at start.)
if grep -q 'names owned by keys' "$TMPD/server.err"; then
	refused "name owned by another key" "the name 'Ada' belongs to another player's key here" \
		"127.0.0.1:$PORT" --room "$ROOM" --name Ada
fi
refused "name in use" "that name is in use in this room" "127.0.0.1:$PORT" --room "$ROOM" --name Ada \
	--key "$TMPD/ada/wizwar/bot.key"
XDG_STATE_HOME="$TMPD/bea" "$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM" --name Bea --think 400 --games 1 >"$TMPD/b.out" 2>"$TMPD/b.err" &
PIDS+=($!)
wait_file "duel 1 starts" "$TMPD/server.err"
refused "full room" "the room is full" "127.0.0.1:$PORT" --room "$ROOM" --name Cy

# ---- a server of another version: a scripted one that answers HELLO with version 99 ----
cat >"$TMPD/v2.py" <<'EOF'
import socket, struct, sys
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(1)
print(l.getsockname()[1], flush=True)
c, _ = l.accept()
c.recv(4096)
payload = struct.pack(">IHH", 0x575A5752, 99, int(sys.argv[1])) + bytes(32) + b"\x00"
c.sendall(bytes([0x11, len(payload)]) + payload)
c.recv(4096)
EOF
RULES="$("$WIZWAR" --version | grep -oE 'rules [0-9]+' | grep -oE '[0-9]+')"
python3 "$TMPD/v2.py" "$RULES" >"$TMPD/v2.port" &
PIDS+=($!)
wait_file '^[0-9]+$' "$TMPD/v2.port"
PROTO="$(sed -n 's/^#define PROTO_VERSION \([0-9]*\).*/\1/p' "$WIZWAR_SRCDIR/proto/proto.h")"
refused "version mismatch" "version mismatch: this client has protocol version $PROTO, the server 99" \
    "127.0.0.1:$(cat "$TMPD/v2.port")"

# ---- a clear-text ERROR before the handshake (anyone on the path can send one): said as unauthenticated ----
cat >"$TMPD/clear.py" <<'EOF'
import socket
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(4)
print(l.getsockname()[1], flush=True)
text = b"go to evil.example"
# ERROR (0x41) in clear, as docs/protocol.md's example: code 7, fatal, the text with its length.
payload = bytes([0, 7, 1, len(text)]) + text
while True:
    c, _ = l.accept()
    c.recv(4096)
    c.sendall(bytes([0x41, len(payload)]) + payload)
    c.close()
EOF
python3 "$TMPD/clear.py" >"$TMPD/clear.port" &
PIDS+=($!)
wait_file '^[0-9]+$' "$TMPD/clear.port"
CPORT="$(cat "$TMPD/clear.port")"
refused "clear-text ERROR" "before the encrypted channel \(unauthenticated\): go to evil\.example$" \
    "127.0.0.1:$CPORT"
XDG_STATE_HOME="$TMPD/clearbot" "$WIZWAR" bot "127.0.0.1:$CPORT" --games 1 >/dev/null 2>"$TMPD/clearbot.err"
RC=$?
grep -qE 'before the encrypted channel \(unauthenticated\): go to evil\.example' "$TMPD/clearbot.err" ||
	fail "bot: a clear-text ERROR not said as unauthenticated: $(cat "$TMPD/clearbot.err")"
[ "$RC" = 1 ] || fail "bot: exit $RC after a clear-text ERROR"
ok "bot: a clear-text ERROR is said as unauthenticated, exit 1"

# ---- a closed terminal in a duel is a drop: the same command again takes the seat back ----
XDG_STATE_HOME="$TMPD/dot" "$WIZWAR" bot "127.0.0.1:$PORT" --new-room --name Dot --think 300 --games 1 >"$TMPD/d.out" 2>"$TMPD/d.err" &
BOT=$!
PIDS+=("$BOT")
wait_file '^room ' "$TMPD/d.out"
ROOM="$(head -1 "$TMPD/d.out" | cut -d' ' -f2 | tr -d :)"
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --room "$ROOM" --name Eve
wait_for 'The duel begins' 15
SEATS="$(find "$STATE"/wizwar/seats -type f ! -name '*.lock' 2>/dev/null)"
[ "$(wc -w <<<"$SEATS")" = 1 ] || fail "not one seat file while the duel runs: $SEATS"
[ "$(stat -c %a "$SEATS")" = 600 ] || fail "the seat file is not 0600"
[ "$(stat -c %a "$SEATS.lock" 2>/dev/null)" = 600 ] || fail "the seat file's lock (its claim) is not there, 0600"
ok "the duel's resume token is kept in a 0600 seat file, claimed"
PANE_PID="$(T list-panes -t w -F '#{pane_pid}')"
T kill-session -t w # the terminal closes: SIGHUP
wait_file "Eve dropped; the seat is held" "$TMPD/server.err"
grep -q "Eve.*forfeit\|resign" "$TMPD/server.err" && fail "a closed terminal was taken as a resignation"
ok "a closed terminal is a dropped connection: the seat is held"
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --room "$ROOM" --name Eve
wait_for 'Back in the duel' 15
wait_file "Eve is back in room $ROOM" "$TMPD/server.err"
ok "the same command again took the seat back"
keys Q
wait_for 'Forfeit and quit\?'
keys y
wait_for 'STTY$' 10
expect '^EXIT=0$' "leaving on purpose exits 0"
ls "$STATE"/wizwar/seats/* >/dev/null 2>&1 && fail "the seat file outlived the duel"
ok "the seat file is gone when the duel ends"
: "$PANE_PID"
# ---- addresses: a default server (every address) is reached by localhost, 127.0.0.1 and ::1 ----
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --port 0 2>"$TMPD/any.err" &
PIDS+=($!)
wait_file 'listening on .* port [0-9]+' "$TMPD/any.err"
APORT="$(grep -oE 'port [0-9]+' "$TMPD/any.err" | head -1 | grep -oE '[0-9]+')"
V6=1
python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null || V6=0
for h in localhost 127.0.0.1 '[::1]'; do
	if [ "$h" = '[::1]' ] && [ "$V6" = 0 ]; then
		echo "ok - # SKIP no IPv6 loopback on this machine: ::1 not tried"
		continue
	fi
	"$WIZWAR" bot "$h:$APORT" --room no-such >"$TMPD/addr.out" 2>&1
	grep -q "no room 'no-such' on this server" "$TMPD/addr.out" || { cat "$TMPD/addr.out" "$TMPD/any.err"; fail "$h did not reach the server"; }
	ok "$h reaches a default wizwar server"
done
if [ "$V6" = 1 ]; then
	T kill-session -t w 2>/dev/null
	start env XDG_STATE_HOME="$STATE" "$WIZWAR" host --bind ::1 --port 0 --name Ivy
	wait_for 'Joined as player 1, the controller' 15
	ok "host --bind ::1: its own client connects to ::1"
	T kill-session -t w
fi

echo "all join failure tests passed"
