#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_botopts: `wizwar bot --new-room` makes its room with the game options it was given (--size, --no-fov,
# --no-potions, --turn-time): `wizwar rooms` lists them and the duel is played with them; an option that
# cannot apply (a room joined, a one-room host, --bot-after without --quick) is refused, by bot and join
# alike, not ignored. A real `wizwar server` on loopback, real bots. TAP output.
set -u
W="${1:?usage: test_botopts.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init botopts # TMP, PIDS, fail, ok
PROC_TAP=1
export XDG_STATE_HOME="$TMP/state"
echo "1..4"

# refused CMD WANT ARGS...: exit 2 with WANT on stderr, before any connection (nothing listens on port 9).
refused() {
	local want="$1" rc
	shift
	"$W" "$@" >"$TMP/refused.out" 2>"$TMP/refused.err"
	rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$want" "$TMP/refused.err" || fail "$* : exit $rc, not refused with '$want'"
}
refused "--size is an option of the room made (--new-room) or paired by (--quick): a room joined keeps the options its controller set" \
	bot 127.0.0.1:9 --room oak-42 --size 31
refused "--no-fov is an option of the room made" bot 127.0.0.1:9 --no-fov
refused "--turn-time is an option of the room made" bot --lan somehost --turn-time 30
refused "--bot-after is how long --quick waits to be paired: give --quick too" bot 127.0.0.1:9 --new-room --bot-after 5
ok "bot: a game option for a room it joins, or --bot-after without --quick, is refused (exit 2, said)"
refused "--no-potions is an option to be paired by (--quick): a room joined keeps the options its controller set, and a room you make (--new-room) takes them in its lobby (/size, /fov, /potions, /time)" \
	join 127.0.0.1:9 --room oak-42 --no-potions
refused "--size is an option to be paired by (--quick)" join 127.0.0.1:9 --new-room --size 31
refused "--bot-after is how long --quick waits" join 127.0.0.1:9 --bot-after 5
ok "join: a game option outside --quick, or --bot-after without it, is refused (exit 2, said)"

server_start "$TMP/srv.err" --bind 127.0.0.1 --port 0 --no-store --state-dir "$TMP/st" --log-dir "$TMP/logs"
S="127.0.0.1:$PORT"
"$W" bot "$S" --new-room --public --size 31 --no-fov --no-potions --turn-time 60 --name optbot --key "$TMP/a.key" \
	--games 1 --think 0 >"$TMP/maker.out" 2>"$TMP/maker.err" &
PIDS+=("$!")
wait_re '^room [a-z0-9-]+:' "$TMP/maker.out" 10
ROOM="$(grep -oE '^room [a-z0-9-]+' "$TMP/maker.out" | cut -d' ' -f2)"
# The list is made at most once a second, and the options come in the bot's first lobby: until they show
# (every 0.4 s: each ask is a handshake, 30 then one a second per address).
line="^$ROOM +optbot +1500 +31 +no +no +60s +no +[0-9]+s$"
for _ in $(seq 10); do
	"$W" rooms "$S" >"$TMP/list.out" 2>"$TMP/list.err" || fail "rooms: exit $?"
	grep -qE -- "$line" "$TMP/list.out" && break
	sleep 0.4
done
grep -qE -- "$line" "$TMP/list.out" || fail "the room is not listed with size 31, no FoV, no potions, 60 s a turn"
ok "bot --new-room --public --size 31 --no-fov --no-potions --turn-time 60: rooms lists those options"

"$W" bot "$S" --room "$ROOM" --name joiner --key "$TMP/b.key" --games 1 --think 0 >"$TMP/joiner.out" \
	2>"$TMP/joiner.err" &
PIDS+=("$!")
wait_re "room=$ROOM duel 1 starts: " "$TMP/srv.err" 10
grep -qE "room=$ROOM duel 1 starts: (optbot vs joiner|joiner vs optbot), 31x31, no FoV, no potions" "$TMP/srv.err" ||
	fail "the duel did not start with the options asked: $(grep -E "room=$ROOM duel 1 starts" "$TMP/srv.err")"
ok "the duel in the room the bot made is played at 31x31 without FoV or potions"
