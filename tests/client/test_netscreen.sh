#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_netscreen: the real curses client in tmux over loopback TCP.
#  1. `wizwar join` in a room of `wizwar server` against a headless `wizwar bot`: the lobby, the duel
#     starting, the map, both HPs, the offered spells, chat, a step, a cast in the log, the bot's turn,
#     a forfeit and the end-of-game screen, the fair-host check, and the terminal restored on quit.
#  2. What a peer sends is text only: an escape sequence typed at the chat prompt reaches the log
#     without its ESC; a scripted peer's chat carrying a raw ESC is refused by the server and never
#     reaches the pane, while its plain chat is shown as it was sent.
#  3. `wizwar host` in tmux with a `wizwar bot` joining: the controller's lobby, the duel, the host's chat.
set -u
WIZWAR="${1:?usage: test_netscreen.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
. "$HERE/tmux_lib.sh"

STATE="$TMPD/state"
export XDG_STATE_HOME="$STATE" # keys and known servers too: never the real ones
mkdir -p "$STATE"

# wait_exit PID [SECONDS]: until the process is gone, else fail.
wait_exit() {
	local pid="$1" secs="${2:-10}" i
	for ((i = 0; i < secs * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	fail "process $pid still running after ${secs}s"
}

# ---- a server of rooms on loopback; the kernel picks the port and the server says which ----
env XDG_STATE_HOME="$STATE" "$WIZWAR" server --bind 127.0.0.1 --port 0 2>"$TMPD/server.err" &
PIDS+=($!)
wait_file 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/server.err"
PORT="$(grep -oE 'port [0-9]+' "$TMPD/server.err" | head -1 | grep -oE '[0-9]+')"
[ "${PORT:-0}" -gt 0 ] || fail "no port from the server"
ok "a server of rooms on 127.0.0.1 port $PORT"

# ==== 1. join against a network bot ====
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Tess
wait_for 'Waiting for an opponent'
echo "--- the lobby:"
cat "$SCREEN"
ROOM1="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
echo "$ROOM1" | grep -qE '^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{5}$' || fail "no new room's code on the screen"
ok "the server made room $ROOM1 on request, and the screen says how to share it"
expect 'Joined as player 1, the controller' "the first to arrive controls the room"
expect 'Lobby commands: /ready' "the lobby's commands are shown"
expect 'You control the options' "the controller is told so"
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM1" --level random --name Robo --think 60 --games 1 --seed 3 \
    >"$TMPD/bot.out" 2>"$TMPD/bot.err" &
BOT=$!
PIDS+=("$BOT")
wait_for 'The duel begins' 15
ok "the duel starts when the bot is ready (the client said ready by itself)"
wait_for 'your move, 5 steps left' 30
echo "--- the duel over the network at 80x24:"
cat "$SCREEN"
expect '^┌─ 25x25 ─+┐' "the map's frame"
awk -F'│' '{ print $2 }' "$SCREEN" | grep -q '@' || fail "no @ on the map"
ok "my @ on the map"
expect 'Tess HP [0-9]/5 +vs +Robo HP [0-9]/5' "both wizards' HP"
expect 'Spells / [A-Z][a-z]' "spell 1 offered, with its key"
expect '\* [A-Z][a-z]' "spell 2 offered, with its key"
expect '│ +- [A-Z][a-z]' "spell 3 offered, with its key"
expect '1-9 move +/ \* - cast' "the actions available now"
TURN="$(grep -oE 'Round [0-9]+: your move' "$SCREEN" | grep -oE '[0-9]+')"

# chat goes to the server and comes back
keys Enter
wait_for 'Say:'
text 'good luck, Robo'
keys Enter
wait_for '<Tess> good luck, Robo'
ok "a chat line, relayed by the server, in the log"

# an escape sequence typed at the prompt: the ESC is a key, never text
keys Enter
wait_for 'Say:'
text $'\e[31mred'
keys Enter
wait_for '<Tess> .*31mred'
T capture-pane -e -p -t w >"$TMPD/esc"
if grep -q $'\e\\[31mred' "$TMPD/esc"; then
	fail "an escape sequence from the chat line reached the terminal"
fi
grep -aq $'\e\\[36m<Tess> [^\e]*31mred' "$TMPD/esc" || fail "the chat line is not plain cyan text"
ok "an escape sequence in chat is shown as plain text, without its ESC"

# a step
moved=0
for d in 6 4 2 8 3 1 9 7; do
	keys "$d"
	capture
	if grep -q 'your move, 4 steps left' "$SCREEN"; then
		moved=1
		break
	fi
done
[ "$moved" = 1 ] || fail "no direction was open"
ok "a step spends one of the 5 steps"

# a cast ends the turn and appears in the log; then the bot plays its turn over the network
keys /
capture
if grep -q 'which way' "$SCREEN"; then
	ok "a directional spell asks for a direction"
	keys 8
fi
wait_for 'You cast '
ok "the cast is in the log"
wait_for "Round $((TURN + 1)): your move" 30
ok "the bot played its turn and it is my move again, a round later"

# forfeit, staying for the end-of-game screen and the fair-host check
keys Q
wait_for 'Forfeit and quit\?'
keys r
wait_for 'GAME OVER'
expect 'You lose: you forfeited the duel' "the end-of-game screen"
expect 'Q leaves' "how to leave"
# Read in the history: the panel keeps the check's line and drops older notes when full. Not under
# the end box: lobby lines that follow (the bot leaving, the room waiting) can push it up behind it.
keys C-p
wait_for 'Fair host: seed made with your part and the other' 30
ok "the client checked the revealed seed (its own part and the bot's went in) and log"
wait_for 'Turn log: ' 10
keys q
wait_gone 'Message history'
ok "and says where it kept the log"
wait_exit "$BOT" 10
grep -qE "^duel 1: .* \\(won\\), seed [0-9a-f]{16}: seed made with your part and the other player's, log verified" "$TMPD/bot.out" ||
	{ cat "$TMPD/bot.out" "$TMPD/bot.err"; fail "the bot's line"; }
ok "the bot won by forfeit and verified the host too"
# The revealed log is kept for `wizwar replay`: 0600 (it holds the chat), a whole log, and without the
# room comment (the room code is a passwordless room's only secret, and a log is made to be shared).
KEPT=("$STATE"/wizwar/duel-*.log)
[ "${#KEPT[@]}" = 1 ] && [ -f "${KEPT[0]}" ] || fail "not one kept log: ${KEPT[*]}"
[ "$(stat -c %a "${KEPT[0]}")" = 600 ] || fail "the kept log is mode $(stat -c %a "${KEPT[0]}")"
"$WIZWAR" replay --check "${KEPT[0]}" >/dev/null || fail "the kept log does not replay"
grep -q 'wizwar-server seed-part' "${KEPT[0]}" || fail "the kept log is not the server's: $(head -3 "${KEPT[0]}")"
grep -q 'wizwar-server room' "${KEPT[0]}" && fail "the kept log names the room"
sleep 0.3 # the finished duel's log compressed into the day's folder (docs/server.md, "Turn logs")
zcat "$STATE"/wizwar/logs/[0-9]*/*/*/wizwar-"$ROOM1"-*.log.gz 2>/dev/null | grep -qx "# wizwar-server room $ROOM1" ||
	fail "the server's own log lost its room comment"
ok "the revealed log is kept (0600), replays, and names no room (the server's own copy does)"
keys Q
wait_for 'STTY$' 10
expect '^EXIT=0$' "the client exited with status 0"
expect "^Turn log: ${KEPT[0]}\$" "the client says where the log is"
expect '^(echo icanon|icanon echo) STTY$' "the terminal is back in cooked mode with echo"
expect 'Last duel: seed made with your part and the other' "the last duel's check is printed after the screen is restored"
T kill-session -t w
log="$(ls "$STATE"/wizwar/logs/[0-9]*/*/*/wizwar-"$ROOM1"-*.log.gz 2>/dev/null | head -1)"
[ -n "$log" ] || fail "no server turn log for room $ROOM1"
"$WIZWAR" replay --check "$log" >"$TMPD/check" 2>&1 || { cat "$TMPD/check"; fail "the server's turn log does not replay"; }
gzip -dc "$log" | grep -q '^chat 0 good luck, Robo$' || fail "the chat is not in the server's turn log"
ok "the server's turn log replays exactly, chat included"

# ==== 2. a scripted peer: plain chat is shown as sent; a raw ESC is refused by the server ====
# The peer speaks the encrypted protocol through python3-dissononce (an independent Noise
# implementation; Debian's python3-dissononce), with the system python that has it.
PEERPY=""
for py in /usr/bin/python3 python3; do
	if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import dissononce' 2>/dev/null; then PEERPY=$py; break; fi
done
if [ -n "$PEERPY" ]; then
	cat >"$TMPD/peer.py" <<'EOF'
# A bare protocol peer: HELLO and the Noise NX handshake, AUTH without a password, then CHAT frames
# sent raw (not deflated) inside records.
import socket, struct, sys, time, zlib
from dissononce.processing.impl.handshakestate import HandshakeState
from dissononce.processing.impl.symmetricstate import SymmetricState
from dissononce.processing.impl.cipherstate import CipherState
from dissononce.processing.handshakepatterns.interactive.NX import NXHandshakePattern
from dissononce.cipher.chachapoly import ChaChaPolyCipher
from dissononce.dh.x25519.x25519 import X25519DH
from dissononce.hash.blake2b import Blake2bHash
port, room, proto, rules = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[5]), int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=10)
buf = b""
def recvn(n):
    global buf
    while len(buf) < n:
        d = s.recv(65536)
        if not d:
            raise EOFError
        buf += d
    out, buf = buf[:n], buf[n:]
    return out
def str8(b):
    return bytes([len(b)]) + b
prefix = struct.pack(">IHH", 0x575A5752, proto, rules)
hs = HandshakeState(SymmetricState(CipherState(ChaChaPolyCipher()), Blake2bHash()), X25519DH())
hs.initialize(NXHandshakePattern(), True, prefix)
m1 = bytearray()
hs.write_message(b"", m1)
s.sendall(bytes([0x10, 8 + len(m1)]) + prefix + bytes(m1))
t, n = recvn(2); assert t == 0x11, t                 # CHALLENGE, in clear
tx, rx = hs.read_message(recvn(n)[8:], bytearray())
pending = []
def send(t, payload):                                 # padded with zeros to 240 (docs/protocol.md, "Padding")
    pt = bytes([t, len(payload)]) + payload
    ct = tx.encrypt_with_ad(b"", pt + bytes(240 - len(pt)))
    s.sendall(len(ct).to_bytes(2, "big") + ct)
def frame():
    global pending
    while not pending:
        pt = rx.decrypt_with_ad(b"", recvn(int.from_bytes(recvn(2), "big")))
        i = 0
        while i < len(pt) and pt[i] != 0:                # a 00 where a type would be: the padding
            t, n, h = pt[i], pt[i + 1], 2
            if n & 0x80:
                n, h = (n & 0x7f) | (pt[i + 2] << 7), 3
            pending.append((t, pt[i + h:i + h + n]))
            i += h + n
    return pending.pop(0)
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
key = Ed25519PrivateKey.generate()                    # IDENT: a key of its own, signed over h
h = bytes(hs.symmetricstate.get_handshake_hash())
send(0x14, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) + key.sign(b"wizwar-ident-1" + h))
send(0x12, bytes([0]) + str8(b"Mallory") + str8(room) + bytes(32))   # AUTH: no password
t, p = frame(); assert t == 0x13, t                  # WELCOME
print("joined as player", p[0], flush=True)
send(0x40, b"\xff" + str8(b"[31mplain, not red"))    # CHAT: text that only looks like a sequence
time.sleep(float(sys.argv[4]))
send(0x40, b"\xff" + str8(b"\x1b[31mred alert"))     # CHAT with a raw ESC: not a valid text
inf = zlib.decompressobj(-15)
try:
    while True:
        t, p = frame()
        if t & 0x80:
            p = inf.decompress(p + b"\x00\x00\xff\xff")
        if t & 0x7f == 0x41:                          # ERROR: u16 code, u8 fatal, str8 text
            code, fatal = struct.unpack(">HB", p[:3])
            print("error", code, "fatal" if fatal else "", p[4:4 + p[3]].decode(), flush=True)
except (EOFError, OSError):
    print("closed", flush=True)
EOF
	RULES="$("$WIZWAR" --version | grep -oE 'rules [0-9]+' | grep -oE '[0-9]+')"
	PROTO="$("$WIZWAR" --version | grep -oE 'protocol [0-9]+' | grep -oE '[0-9]+')"
	start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Tess
	wait_for 'Waiting for an opponent'
	ROOM2="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
	"$PEERPY" "$TMPD/peer.py" "$PORT" "$ROOM2" "$RULES" 1.5 "$PROTO" >"$TMPD/peer.out" 2>&1 &
	PEER=$!
	PIDS+=("$PEER")
	wait_for '<Mallory> \[31mplain, not red'
	T capture-pane -e -p -t w >"$TMPD/esc"
	grep -aq $'\e\\[31mplain' "$TMPD/esc" && fail "a peer's text became a colour"
	ok "a peer's chat that looks like an escape sequence is shown as the text it is"
	wait_exit "$PEER" 10
	grep -qE '^error [0-9]+ fatal .*' "$TMPD/peer.out" || { cat "$TMPD/peer.out"; fail "the server did not refuse the ESC"; }
	ok "the server refused the peer's raw ESC: $(grep -m1 '^error' "$TMPD/peer.out")"
	wait_for 'Your opponent has left'
	expect_not 'red alert' "the refused chat never reached the pane"
	T capture-pane -e -p -t w >"$TMPD/esc"
	grep -aq $'\e\\[31mred' "$TMPD/esc" && fail "a raw ESC from a peer reached the terminal"
	ok "no escape sequence from the peer reached the terminal"
	keys Q
	wait_for 'STTY$' 10
	expect '^EXIT=0$' "leaving the lobby exits with status 0"
	T kill-session -t w
else
	echo "python3 with dissononce is missing: the scripted peer is skipped"
fi

# ==== 3. host in tmux, a bot joining it ====
start env XDG_STATE_HOME="$STATE" "$WIZWAR" host --port 0 --bind 127.0.0.1 --name Hana
wait_for 'Hosting on port [0-9]+:'
wait_for 'Waiting for an opponent'
echo "--- the host's lobby:"
cat "$SCREEN"
HPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
[ "${HPORT:-0}" -gt 0 ] || fail "the host does not say its port"
ok "the host says its port ($HPORT)"
expect 'Joined as player [12], the controller' "the host is the controller"
expect 'You control the options' "the controller's lobby"
"$WIZWAR" bot "127.0.0.1:$HPORT" --level random --name Robo --think 60 --seed 4 \
    >"$TMPD/hbot.out" 2>"$TMPD/hbot.err" &
HBOT=$!
PIDS+=("$HBOT")
wait_for 'The duel begins' 15
wait_for 'Hana HP [0-9]/5 +vs +Robo HP [0-9]/5|Robo HP [0-9]/5 +vs +Hana HP [0-9]/5'
ok "the duel starts between the host and the bot"
keys Enter
wait_for 'Say:'
text 'hello from the host'
keys Enter
wait_for '<Hana> hello from the host'
ok "the host's chat in its log"
keys Q
wait_for 'Forfeit and quit\?'
keys r
wait_for 'GAME OVER'
keys C-p
wait_for 'wizwar/logs/[0-9]{4}/[0-9]{2}/[0-9]{2}/wizwar-host-[0-9-]+' 10 # the rest wraps
keys q
wait_gone 'Message history'
ok "the host is told where its server keeps the duel's log"
keys Q
wait_for 'STTY$' 10
expect '^EXIT=0$' "the host exited with status 0"
expect '^(echo icanon|icanon echo) STTY$' "the host's terminal is restored"
HLOG="$(T capture-pane -p -J -t w | grep -oE '^Turn log: .*' | head -1 | cut -d' ' -f3)"
[ -f "$HLOG" ] && zcat "$HLOG" | "$WIZWAR" replay --check /dev/stdin >/dev/null ||
	fail "the host's exit line names no log that replays: '$HLOG'"
ok "and says it again on exit: $HLOG replays"
wait_exit "$HBOT" 10
grep -qE '^duel 1: .* \(won\), seed [0-9a-f]{16}: seed made with your part, log verified' "$TMPD/hbot.out" ||
	{ cat "$TMPD/hbot.out" "$TMPD/hbot.err"; fail "the bot did not see the host's forfeit"; }
ok "the host's forfeit reached the bot (won, verified: the seed made with the joiner's part alone) before the host closed, and the bot left"

# ==== 3b. `join` a `host`, both in terminals: the joiner is told the seed is made with its part ====
# The host in a second session (h), the joiner in w. Then `host --seed`: told at the start and at the end.
host_and_join() {
	T kill-session -t w 2>/dev/null
	T kill-session -t h 2>/dev/null
	T new-session -d -s h -x 80 -y 24 \
	    "env XDG_STATE_HOME='$STATE' '$WIZWAR' host --port 0 --bind 127.0.0.1 --name Hana $*; exec sleep 600"
	wait_for 'Hosting on port [0-9]+:' 10 h
	wait_for 'Waiting for an opponent' 10 h
	JPORT="$(grep -oE 'Hosting on port [0-9]+' "$SCREEN" | head -1 | grep -oE '[0-9]+$')"
	[ "${JPORT:-0}" -gt 0 ] || fail "the host does not say its port"
	start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$JPORT" --name Jo
}
# The joiner forfeits and stays for the end (the host staying too, nothing scrolls the line away).
joiner_forfeits() {
	keys Q
	wait_for 'Forfeit and quit\?'
	keys r
}
host_and_join
wait_for 'The duel begins, on a seed made with your part\.' 20
ok "the joiner is told at the start that its part makes the seed"
# /mute: the host's chat no longer reaches the joiner's screen; /unmute says how much was hidden.
say_to h 'first words'
wait_for '<Hana> first words' 10
say_to w '/mute'
wait_for 'Chat from Hana is hidden from now on' 10
say_to h 'spam one'
say_to h 'spam two'
wait_for '<Hana> spam two' 10 h # sent, and echoed to the host
sleep 0.5
capture w
expect_not 'spam' "a muted player's chat is not shown"
say_to w '/unmute'
wait_said 'Chat from Hana is shown again \(2 lines were hidden meanwhile\)' w 10
say_to h 'heard again'
wait_for '<Hana> heard again' 10
ok "/mute hides the other player's chat, /unmute shows it again and says how many lines were hidden"
joiner_forfeits
wait_for 'Fair host: seed made with your part, log verified' 15
ok "the joiner's verification line: seed made with its part, log verified"
keys Q
wait_for 'STTY$' 10
expect 'Last duel: seed made with your part, log verified' "the joiner's last line says so after the screen"
host_and_join --seed 77
wait_for 'The duel begins. The host chose this level' 20
ok "host --seed: the joiner is told at the start that the host chose the level"
joiner_forfeits
wait_for 'Host checked: the host chose this level' 15
ok "host --seed: the verification line says the host chose the level"
keys Q
wait_for 'STTY$' 10
expect 'Last duel: the host chose this level' "host --seed: and the last line after the screen"
T kill-session -t h

# ==== 4. the lobby: options checked with the command line's words, ? lists, who waits for what ====
T kill-session -t w
start env XDG_STATE_HOME="$STATE" "$WIZWAR" join "127.0.0.1:$PORT" --new-room --name Lea
wait_for 'Waiting for an opponent'
ROOM4="$(grep -oE 'New room [0-9a-z-]+' "$SCREEN" | head -1 | cut -d' ' -f3)"
say() {
	keys Enter
	wait_for 'Say:'
	text "$1"
	keys Enter
}
say '/size 271'
wait_for "/size must be a number from 15 to 51, not '271'"
ok "/size 271 is refused with the command line's reason"
say '/time 99999'
wait_for "/time must be a number from 0 to 3600, not '99999'"
ok "/time 99999 is refused with the command line's reason"
say '/size'
wait_for "/size needs a number from 15 to 51"
ok "/size alone is refused"
say '/size 20'
wait_for "/size must be odd"
ok "an even /size is refused"
say '?'
wait_for '/potions on\|off the controller'
wait_for '/quit +leave'
ok "? lists the lobby's commands"
say '/unready'
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM4" --name Rob --think 60 --games 1 >/dev/null 2>&1 &
LBOT=$!
PIDS+=("$LBOT")
wait_for 'Rob is ready: type /ready \(or /rematch\) to start'
ok "told that the opponent is ready and what to type"
kill "$LBOT"
wait_for 'Your opponent has left; the room waits for another'
"$WIZWAR" bot "127.0.0.1:$PORT" --room "$ROOM4" --name Zed --think 60 --games 1 >/dev/null 2>&1 &
PIDS+=($!)
wait_for 'Zed is ready: type /ready \(or /rematch\) to start'
ok "after one opponent left and another came, told again what the duel waits for"
say '/ready'
wait_for 'The duel begins' 15
ok "the duel starts when both are ready"
T kill-session -t w

echo "all network screen tests passed"
