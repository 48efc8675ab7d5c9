#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_web: `wizwar server --web` in a real browser: Debian's chromium, driven by playwright-core (web.test.mjs).
#  1. Recorded duels (tests/replays) replayed in the page equal `wizwar replay` in tmux, cell for cell
#     (characters and colours), at several commands reached by the same keys.
#  2. A live bot duel is followed through the page to its end; the end gives its replay link. A room and a duel
#     that do not exist are said ("no such room", "no such duel, or not its link") with nothing drawn.
#  3. A private server (a password) lists nothing, and its room and its finished duel open only from their links.
#  4. `wizwar host --web`, played in tmux: its page lists its room and, once the host forfeits, that duel's
#     replay (and not an earlier log of its folder); the host's own screen is whole after.
# One chromium for every case; the terminal references are captured here first, in tmux.
set -u
WIZWAR="${1:?usage: test_web.sh PATH-TO-WIZWAR}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPLAYS="$HERE/../replays"
. "$HERE/web_lib.sh" # skipped without node, chromium or the npm packages; CHROMIUM
. "$HERE/../client/tmux_lib.sh"

# Finished duels where a server keeps them: LOGDIR/YYYY/MM/DD/NAME.log.gz.
LOGS="$TMPD/logs"
mkdir -p "$LOGS/2026/01/02" "$TMPD/plogs/2026/01/02"
DUELS=(normal-vs-hard small-15-nofov large-51)
for d in "${DUELS[@]}"; do
	gzip -c "$REPLAYS/$d.log" >"$LOGS/2026/01/02/$d.log.gz"
done
gzip -c "$REPLAYS/normal-vs-hard.log" >"$TMPD/plogs/2026/01/02/secret.log.gz"

start_server() { # NAME ARGS...: a server with --web, its ports in ${NAME}_PORT and ${NAME}_WEB
	local name="$1"
	shift
	"$WIZWAR" server --bind 127.0.0.1 --port 0 --web 127.0.0.1:0 --admin-socket none --no-store "$@" \
	    >"$TMPD/$name.out" 2>"$TMPD/$name.err" &
	PIDS+=($!)
	wait_file 'web page on .* port [0-9]+' "$TMPD/$name.err" 15
	printf -v "${name}_PORT" '%s' "$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$TMPD/$name.err" | grep -oE '[0-9]+$')"
	printf -v "${name}_WEB" '%s' "$(grep -oE 'web page on .* port [0-9]+' "$TMPD/$name.err" | grep -oE '[0-9]+$')"
}
start_server PUB --log-dir "$LOGS"
# A host (`wizwar host --web`) played in tmux: its terminal screen and the page's in one process.
# Its log folder holds an earlier duel, which its page must not list (only the duels it finishes).
HLOGS="$TMPD/hlogs"
mkdir -p "$HLOGS/2026/01/02"
gzip -c "$REPLAYS/normal-vs-hard.log" >"$HLOGS/2026/01/02/earlier.log.gz"
T new-session -d -s h -x 80 -y 24 "TERM=xterm-256color '$WIZWAR' host --bind 127.0.0.1 --port 0 --web 127.0.0.1:0 \
    --no-upnp --no-announce --log-dir '$HLOGS' --name hoster 2>'$TMPD/host.err'; exec sleep 600"
wait_file "Spectators' web page: http://127\.0\.0\.1:[0-9]+/" "$TMPD/host.err" 15
HOST_WEB="$(grep -oE "web page: http://127\.0\.0\.1:[0-9]+/" "$TMPD/host.err" | grep -oE '[0-9]+/$' | tr -d /)"
HOST_JOIN="$(grep -oE 'wizwar join 127\.0\.0\.1:[0-9]+#[a-z0-9]+' "$TMPD/host.err" | head -1 | cut -d' ' -f3)"
"$WIZWAR" bot "$HOST_JOIN" --games 1 --think "${THINK:-15}" --name guest >"$TMPD/guest.out" 2>"$TMPD/guest.err" &
PIDS+=($!)
echo "wizards only" >"$TMPD/pw"
start_server PRIV --log-dir "$TMPD/plogs" --password-file "$TMPD/pw"

echo "# $(date +%s.%N | cut -c1-14): servers up"
# ==== live duels: two bots in a room of each server ====
bots() { # NAME PORT ARGS...: a bot makes a room, another joins it (pub only); the room's code in ${NAME}_ROOM
	local name="$1" port="$2"
	shift 2
	"$WIZWAR" bot "127.0.0.1:$port" --new-room --games 10 --think "${THINK:-15}" --name "${name}-a" "$@" \
	    >"$TMPD/$name-a.out" 2>"$TMPD/$name-a.err" &
	PIDS+=($!)
	wait_file '^room [0-9a-z-]+' "$TMPD/$name-a.out" 15
	local room
	room="$(grep -oE '^room [0-9a-z-]+' "$TMPD/$name-a.out" | head -1 | cut -d' ' -f2)"
	if [ "$name" = pub ]; then # the private room waits for its second player: it stays open
		"$WIZWAR" bot "127.0.0.1:$port" --room "$room" --games 10 --think "${THINK:-15}" --name "${name}-b" "$@" \
		    >"$TMPD/$name-b.out" 2>"$TMPD/$name-b.err" &
		PIDS+=($!)
	fi
	printf -v "${name}_ROOM" '%s' "$room"
}
bots pub "$PUB_PORT" --level easy # easy bots: little thought a command, so a short duel to follow
bots priv "$PRIV_PORT" --password-file "$TMPD/pw"
# ==== the terminal's screens: `wizwar replay` in tmux (xterm-256color, as the page's are drawn) ====
# The three duels at once, each in its own session with its own screen file; the live duels above
# play meanwhile.
REFS="$TMPD/refs"
mkdir -p "$REFS"
capture_refs() { # DUEL: its screens into $REFS, its cases into $REFS/DUEL.json
	local d="$1" n i=0 keys_ at sep=''
	local SCREEN="$TMPD/screen-$d" # wait_for's, for this session only
	n="$(grep -cE '^[01] ' "$REPLAYS/$d.log")"
	T new-session -d -s "r-$d" -x 80 -y 24 "TERM=xterm-256color '$WIZWAR' replay '$LOGS/2026/01/02/$d.log.gz'; exec sleep 600"
	# Each step: the keys, then the command the status line must reach.
	for step in ":0" "e:$n" "b:$((n - 1))" "b b b b b b b b b b:$((n - 11))" "0:0"; do
		keys_="${step%%:*}" at="${step##*:}"
		[ -n "$keys_" ] && T send-keys -t "r-$d" $keys_
		wait_for "command $at/$n" 10 "r-$d"
		T capture-pane -p -e -t "r-$d" >"$REFS/$d-$i.ans"
		printf '%s{"duel":"%s","keys":"%s","at":%d,"of":%d,"ref":"%s"}\n' "$sep" "$d" "$keys_" "$at" "$n" \
		    "$REFS/$d-$i.ans" >>"$REFS/$d.json"
		sep=','
		i=$((i + 1))
	done
	# Jump to turn 10 ("g 1 0 Enter"): where it lands and what it shows, for the page's turn box.
	T send-keys -t "r-$d" g 1 0 Enter
	wait_for "turn 10, command [0-9]+/$n" 10 "r-$d"
	T capture-pane -p -e -t "r-$d" >"$REFS/$d-$i.ans"
	at="$(grep -oE "turn 10, command [0-9]+/$n" "$SCREEN" | grep -oE '[0-9]+/' | tr -d /)"
	printf ',{"duel":"%s","keys":"","turn":10,"at":%d,"of":%d,"ref":"%s"}\n' "$d" "$at" "$n" \
	    "$REFS/$d-$i.ans" >>"$REFS/$d.json"
	ok "$d: $((i + 1)) terminal screens captured"
}
CAPS=()
for d in "${DUELS[@]}"; do
	capture_refs "$d" &
	CAPS+=($!)
done
for p in "${CAPS[@]}"; do
	wait "$p" || fail "the terminal's screens of a recorded duel (above)"
done
{
	echo '['
	sep=''
	for d in "${DUELS[@]}"; do
		echo "$sep"
		cat "$REFS/$d.json"
		sep=','
	done
	echo ']'
} >"$REFS/cases.json"

# A private server says each room's link in its log, for whoever runs it to hand on.
wait_file "room $priv_ROOM: its web page is http://HOST:$PRIV_WEB/#w=" "$TMPD/PRIV.err" 15
PRIV_LINK="$(grep -oE "room $priv_ROOM: its web page is http://HOST:$PRIV_WEB/#w=[^ ]+" "$TMPD/PRIV.err" | head -1 | sed 's/.*#/#/')"

cd "$HERE" || exit 1
echo "# $(date +%s.%N | cut -c1-14): the browser test starts"
CHROMIUM="$CHROMIUM" WEB_PUB="http://127.0.0.1:$PUB_WEB/" WEB_PRIV="http://127.0.0.1:$PRIV_WEB/" \
    CASES="$REFS/cases.json" PUB_ROOM="$pub_ROOM" PRIV_ROOM="$priv_ROOM" PRIV_LINK="$PRIV_LINK" \
    PRIV_DUEL="20260102-secret" SHOTS="${WIZWAR_WEB_SHOTS:-}" WEB_HOST="http://127.0.0.1:$HOST_WEB/" TMUX_SOCK="$SOCK" \
    timeout 60 node web.test.mjs
rc=$?
echo "# $(date +%s.%N | cut -c1-14): the browser test ended"
if [ $rc -ne 0 ]; then
	for f in PUB.err PRIV.err pub-a.out pub-a.err priv-a.err host.err guest.err; do
		echo "--- $f:"
		tail -n 8 "$TMPD/$f"
	done
	fail "the browser test failed ($rc)"
fi
# The host's own screen lived beside the page's: still its duel, drawn, the forfeit said.
capture h
grep -q "hoster HP" "$SCREEN" && ! grep -qi "segmentation\|core dumped" "$SCREEN" || fail "the host's terminal screen after the page watched it"
ok "the host's terminal screen is whole after its page was watched and the duel ended"
ok "the browser test passed"
