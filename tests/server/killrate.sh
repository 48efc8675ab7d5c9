#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# killrate: rated duels survive kill -9 (issue 31, "Storage"). Real processes on loopback: a `wizwar server`
# with a store and a log directory, PAIRS pairs of `wizwar bot`s (each bot its own key) playing rated duels
# one after another, and the server killed with SIGKILL at random points (in a duel, as one ends, while its
# result is being written) and started again at once on the same port with --resume. Once DUELS duels have
# finished, the bots stop, the server starts once more (its start rates any finished duel whose result a
# kill beat to the store) and stops, and tests/server/ladder_check.py compares the store with the turn logs:
# every finished duel rated exactly once, none rated without its log, and the ladder equal to the one
# recomputed from the logs.
#
#   killrate.sh WIZWAR [DUELS] [PAIRS]   DUELS default $WIZWAR_KILLRATE_DUELS, else 24; PAIRS default 3.
# The issue's full run: WIZWAR_KILLRATE_DUELS=200.
set -u
W="${1:?usage: killrate.sh WIZWAR [DUELS] [PAIRS]}"
DUELS="${2:-${WIZWAR_KILLRATE_DUELS:-24}}"
PAIRS="${3:-3}"
HERE="$(cd "$(dirname "$0")" && pwd)"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-killrate.XXXXXX")"
SRV="" BOTS=""
finish() {
	for p in $BOTS $SRV; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${WIZWAR_KILLRATE_KEEP:-}" ] && echo "# kept $TMP" || rm -rf "$TMP"
}
trap finish EXIT
export XDG_STATE_HOME="$TMP/state"

die() {
	echo "not ok 1 - $*"
	echo "# --- server:"; tail -15 "$TMP/srv.err" | sed 's/^/# /'
	exit 1
}

# wait_re REGEX FILE SECS: until FILE matches (0) or time is up (1).
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

PORT=0
start_server() {
	: >"$TMP/srv.err"
	"$W" server --bind 127.0.0.1 --port "$PORT" --log-dir "$TMP/logs" --state-dir "$TMP/st" \
	    --store "$TMP/store.db" --grace 20 "$@" >>"$TMP/srv.out" 2>"$TMP/srv.err" &
	SRV=$!
	wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$TMP/srv.err" 15 || die "the server did not start"
	PORT="$(grep -oE 'port [0-9]+' "$TMP/srv.err" | head -1 | grep -oE '[0-9]+')"
}
finished() { find "$TMP/logs" -name '*.log.gz' -exec zgrep -l '^end ' {} + 2>/dev/null | wc -l; }

echo "1..1"
start_server
for ((i = 0; i < PAIRS; i++)); do
	"$W" bot "127.0.0.1:$PORT" --new-room --name "A$i" --key "$TMP/a$i.key" --think 5 --games 0 --reconnect 60 \
	    --seed "$i" >"$TMP/a$i.out" 2>"$TMP/a$i.err" &
	BOTS="$BOTS $!"
	wait_re '^room ' "$TMP/a$i.out" 10 || die "no room for pair $i"
	ROOM="$(head -1 "$TMP/a$i.out" | cut -d' ' -f2 | tr -d :)"
	"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name "B$i" --key "$TMP/b$i.key" --think 5 --games 0 --reconnect 60 \
	    --level easy --seed "$((i + 100))" >"$TMP/b$i.out" 2>"$TMP/b$i.err" &
	BOTS="$BOTS $!"
done
kills=0
deadline=$((SECONDS + 60 + DUELS * 2))
while [ "$(finished)" -lt "$DUELS" ]; do
	[ $SECONDS -lt $deadline ] || die "only $(finished) of $DUELS duels finished in time ($kills kills)"
	# A random point: 0.2 to 1.7 s after the last start, whatever the duels are doing then.
	sleep "$(printf '0.%03d' $((RANDOM % 1000)))"
	sleep "0.$((2 + RANDOM % 7))"
	kill -9 "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	kills=$((kills + 1))
	start_server --resume
done
# The bots go; a last start rates what a kill left unrated, then the server stops (its store answered:
# no finished log is left waiting in playing/).
for p in $BOTS; do kill -9 "$p" 2>/dev/null; done
wait $BOTS 2>/dev/null
BOTS=""
kill -TERM "$SRV"; wait "$SRV" 2>/dev/null
start_server
for ((i = 0; i < 100; i++)); do
	left=0
	for f in "$TMP"/logs/playing/*.log; do
		[ -e "$f" ] && grep -q '^end ' "$f" && left=1
	done
	[ $left = 0 ] && break
	sleep 0.05
done
kill -TERM "$SRV"; wait "$SRV" 2>/dev/null
SRV=""
out="$(python3 "$HERE/ladder_check.py" "$TMP/store.db" "$TMP/logs")"
rc=$?
echo "$out" | sed 's/^/# /'
echo "# $kills kills, $(finished) finished duels"
[ $rc = 0 ] || die "the ladder is not the one the turn logs make"
[ "$kills" -ge 5 ] || die "only $kills kills"
echo "ok 1 - $DUELS rated duels through $kills kill -9s: every one rated once, the ladder recomputed from the logs"
