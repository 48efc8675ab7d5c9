#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# resumeall: `wizwar server --resume`, real processes over loopback TCP. A server with two duels under way
# (two rooms, four `wizwar bot`s) is killed with -9 (its logs as a kill leaves them), then started again
# on its port with --resume: both duels come back, every bot is back in its own seat by itself (no rerun),
# both duels are played to the end and verified, and every log replays. One of the two logs was renamed by
# hand to another room's name meanwhile: it comes back into the room its `# wizwar-server room` comment
# names, where its bots RESUME. Then the same with SIGTERM (the server says how many duels it leaves
# unfinished), the log stripped of its room comment (as written before the comment): placed by its name.
# Logs that are not unfinished duels of this server (a finished duel, a one-room host's, finished or not, a broken file, an
# older unfinished log of a room, a copy whose room comment is broken) are left alone, and a broken one is
# said.
set -u
W="${1:?usage: resumeall.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init resumeall # TMP, PIDS, fail, ok
export XDG_STATE_HOME="$TMP/state"
LOGS="$TMP/logs"

serve() { # serve ERRFILE [ARGS...]: the server on $PORT (0 the first time)
	SRV_ERR="$1"
	shift
	server_start "$SRV_ERR" --bind 127.0.0.1 --port "${PORT:-0}" --log-dir "$LOGS" "$@"
}
# duel NAME1 NAME2 SEED: two bots in a new room, 60 ms a command (a duel outlasts the restart); the room code
# into ROOM once the duel has started.
duel() {
	"$W" bot "127.0.0.1:$PORT" --new-room --name "$1" --think 60 --games 1 --seed "$3" >"$TMP/$1.out" \
	    2>"$TMP/$1.err" &
	PIDS+=($!)
	wait_re '^room ' "$TMP/$1.out" 10
	ROOM="$(head -1 "$TMP/$1.out" | cut -d' ' -f2 | tr -d :)"
	"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name "$2" --think 60 --games 1 --seed "$(($3 + 1))" \
	    >"$TMP/$2.out" 2>"$TMP/$2.err" &
	PIDS+=($!)
	wait_re "room=$ROOM duel [0-9]+ starts" "$SRV_ERR" 10
}

mkdir -p "$LOGS"
# Left alone: a broken file with a log's name, a log name with no room code in it (`wizwar--...`: no server
# writes one; a one-room host's logs are `wizwar-host-...`, below), a file of another kind.
head -c 300 /dev/urandom >"$LOGS/wizwar-junk-20260101-000000-1.log.gz"
cp "$LOGS/wizwar-junk-20260101-000000-1.log.gz" "$LOGS/wizwar--20260101-000000-2.log.gz"
echo hello >"$LOGS/notes.txt"

# ==== 1. killed with -9, two duels under way ====
serve "$TMP/srv1.err"
duel Ann Ben 1
R1="$ROOM"
duel Cat Dan 11
R2="$ROOM"
sleep 0.5
kill -9 "$SRV"
wait "$SRV" 2>/dev/null
# A duel under way is plain text in playing/ (docs/server.md, "Turn logs").
LOG2="$(ls -t "$LOGS"/playing/wizwar-"$R2"-*.log | head -1)"
head -c 14 "$LOG2" | grep -qx 'wizwar-turnlog' || fail "$LOG2 is not plain text while played"
grep -qx "# wizwar-server room $R2" "$LOG2" || fail "no room comment in $LOG2"
# A copy of a duel under way whose room comment is broken (a '/' no room code has), under a room's name:
# refused with the reason, not resumed into the room its name says.
BADROOM="$LOGS/wizwar-Zz9-20260101-000000-8.log.gz"
sed "s|^# wizwar-server room .*|# wizwar-server room $R2/x|" "$LOG2" | gzip >"$BADROOM"
# The same under a name with escapes in it (any name is read for its room comment): never read, so never
# printed ("not resumed: NAME: ...") to the operator's terminal.
cp "$BADROOM" "$LOGS/"$'\e[2J\e]0;x\a'"copy.log.gz"
# An unfinished one-room host's log in the same directory (a `wizwar host` writes no room comment, and
# names its logs for its room, "host"): `host --resume` brings it back, never a server into a room "host".
HOSTLOG="$LOGS/wizwar-host-20260101-000000-3.log.gz"
grep -v '^# wizwar-server room ' "$LOG2" | gzip >"$HOSTLOG"
# The second duel's log renamed by hand to another room's name: its comment, not its name, is its room.
RENAMED="$LOGS/playing/wizwar-elsewhere-20260101-000000-7.log"
mv "$LOG2" "$RENAMED"
# An older unfinished log of the first room (as a room made again after an earlier stop leaves): only a room's
# newest log can be its duel; this one is never resumed, now nor once the newest is finished (put away into
# the tree at the next start).
OLD="$LOGS/playing/wizwar-$R1-20260101-000000-9.log"
cp "$(ls -t "$LOGS"/playing/wizwar-"$R1"-*.log | head -1)" "$OLD"
touch -d '1 hour ago' "$OLD"
serve "$TMP/srv2.err" --resume
grep -q 'wizwar server: 2 unfinished duels brought back' "$TMP/srv2.err" || fail "not two duels brought back"
grep -q "not resumed: .*wizwar-junk-" "$TMP/srv2.err" || fail "the broken log was not said"
grep -qE "not resumed: .*: line [0-9]+: line [0-9]+:" "$TMP/srv2.err" && fail "the line said twice: $(grep 'not resumed' "$TMP/srv2.err")"
grep -q 'wizwar--2026' "$TMP/srv2.err" && fail "a log name with no room code was looked at"
grep -q $'\e' "$TMP/srv2.err" && fail "a file name's escape was printed"
grep -q "not resumed: .*wizwar-host-20260101-000000-3\.log\.gz: a one-room host's duel" "$TMP/srv2.err" ||
	fail "the one-room host's log was not said to be left to \`host --resume\`"
grep -qE "not resumed: .*wizwar-Zz9-[0-9-]+\.log\.gz: line [0-9]+: a room comment whose code is not a room code" \
	"$TMP/srv2.err" || fail "the broken room comment was not refused with its reason"
grep -q "room=$R2 wizwar-elsewhere-20260101-000000-7.log is named for room elsewhere; its room comment says $R2" \
	"$TMP/srv2.err" || fail "the renamed log was not said to go to its comment's room"
ok "killed with -9 and started again with --resume: both duels back (the renamed log into its comment's room), a broken log and a broken room comment said and left"
for b in Ann Ben Cat Dan; do wait_re 'back in the duel at turn [0-9]+' "$TMP/$b.err" 15; done
for r in "$R1" "$R2"; do wait_re "room=$r duel over" "$TMP/srv2.err" 120; done
for b in Ann Ben Cat Dan; do
	wait_re '^duel 1: .*log verified' "$TMP/$b.out" 10
	grep -qE 'NOT VERIFIED|forfeit' "$TMP/$b.out" && fail "$b: $(tail -1 "$TMP/$b.out")"
done
grep -q 'replaced\|did not come back' "$TMP/srv2.err" && fail "a seat was lost or taken: $(grep 'replaced\|did not come back' "$TMP/srv2.err")"
ok "every bot came back into its own seat by itself; both duels ended and were verified by all four"

# ==== 2. SIGTERM: said, and brought back ====
duel Eve Fay 21
sleep 0.5
proc_stop "$SRV"
grep -qE 'shutting down; 1 duel left unfinished: `wizwar server [^`]*--resume` brings it back' "$TMP/srv2.err" ||
	fail "the stop did not say the duel left unfinished"
# As a server written before the room comment left it: placed by its name, as before.
LOG3="$(ls -t "$LOGS"/playing/wizwar-"$ROOM"-*.log | head -1)"
grep -v '^# wizwar-server room ' "$LOG3" >"$LOG3.new" && mv "$LOG3.new" "$LOG3"
grep -q '^# wizwar-server room ' "$LOG3" && fail "the room comment is still in $LOG3"
serve "$TMP/srv3.err" --resume
grep -q 'wizwar server: 1 unfinished duel brought back' "$TMP/srv3.err" ||
	fail "not one duel brought back (not the finished ones, nor the older unfinished log of a finished room)"
for b in Eve Fay; do wait_re 'back in the duel at turn [0-9]+' "$TMP/$b.err" 15; done
wait_re "room=$ROOM duel over" "$TMP/srv3.err" 120
for b in Eve Fay; do wait_re '^duel 1: .*log verified' "$TMP/$b.out" 10; done
ok "SIGTERM says the duel left unfinished; --resume brings it back by its name (no room comment) and it is played out"

# Finished, each duel's log was compressed once into the day's folder of the tree; playing/ keeps only the
# older unfinished log nobody resumed.
sleep 0.5
# The older unfinished log of the first room was put away there too, unfinished, by the start that did not
# resume it: playing/ keeps only a server's own duels, so that it cannot pass for its room's newest later.
grep -q '1 turn log left in .*/playing and not resumed put away into the tree by date' "$TMP/srv2.err" ||
	fail "the older unfinished log was not said to be put away"
n=0
for log in "$LOGS"/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/wizwar-*-*-*-*.log.gz; do
	[ -e "$log" ] || continue
	"$W" replay --check "$log" >/dev/null 2>&1 || fail "$log does not replay"
	[ "$(gzip -l "$log" | wc -l)" = 2 ] || fail "$log is not one gzip member"
	case "$log" in */"$(basename "$OLD")".gz) zcat "$log" | grep -q '^end ' && fail "the older log was played on"; continue ;; esac
	n=$((n + 1))
done
[ "$n" = 3 ] || fail "$n finished duel logs in the tree, not 3"
[ -e "$OLD" ] && fail "the older unfinished log is still in playing/"
left="$(cd "$LOGS/playing" && echo *)"
[ "$left" = "*" ] || fail "playing/ still holds $left"
zcat "$LOGS"/[0-9]*/*/*/"$(basename "$RENAMED").gz" | grep -q '^end ' ||
	fail "the renamed log was not continued in place to its end"
ok "the three logs, each continued in place and compressed once at its end, replay exactly; playing/ is left empty"
echo "all --resume tests passed"
