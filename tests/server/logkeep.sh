#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# logkeep: where a real `wizwar server` keeps its turn logs and for how long. Bad --log-keep, --log-dir and
# --state-dir values are refused with a clear reason (exit 2); --state-dir holds the key and, by default, the
# logs; a duel's log is plain text in playing/ while it is played and one gzip member in the day's folder once
# it ends; and a server started with --log-keep 1 removes a finished log older than a day at once, leaving a
# recent one, a log being played (or left) in playing/, an older server's flat log and the key beside them.
# HOME=/ (a service's user) makes the state folder /.local/state/wizwar, not //.local/state/wizwar.
set -u
W="${1:?usage: logkeep.sh WIZWAR}"
. "$(dirname "$0")/../proc_lib.sh"
proc_init logkeep # TMP, PIDS, fail, ok
export XDG_STATE_HOME="$TMP/xdg"

# ==== 1. bad values: exit 2 and the reason, before anything is made ====
refused() { # refused PATTERN ARGS...: the server exits 2 at once, saying PATTERN
	local want="$1"
	shift
	timeout 10 "$W" server --bind 127.0.0.1 --port 0 "$@" >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	[ "$rc" = 2 ] || fail "server $*: exit $rc, not 2: $(cat "$TMP/bad.err")"
	grep -qE -- "$want" "$TMP/bad.err" || fail "server $*: said '$(cat "$TMP/bad.err")', not /$want/"
}
refused '--log-keep' --log-keep abc
refused '--log-keep' --log-keep -1
refused '--log-keep' --log-keep 36501
refused '--log-keep' --log-keep 1.5
: >"$TMP/afile"
refused "--log-dir $TMP/afile/logs: cannot write there: Not a directory" --log-dir "$TMP/afile/logs"
refused '--log-dir needs a folder' --log-dir ''
refused '--state-dir needs a folder' --state-dir ''
[ -e "$XDG_STATE_HOME" ] && fail "a refused start made $XDG_STATE_HOME"
ok "a bad --log-keep, an unwritable --log-dir and empty folders are refused with the reason, exit 2"

# ==== 2. --state-dir: the key there, the logs in its logs/ ====
ST="$TMP/st"
SRV_ARGS=(--bind 127.0.0.1 --port 0 --handshakes-per-min 0 --rooms-per-hour 0)
server_start "$TMP/srv1.err" "${SRV_ARGS[@]}" --state-dir "$ST"
grep -q "made a new key $ST/server.key" "$TMP/srv1.err" || fail "the key is not in --state-dir"
grep -q "turn logs in $ST/logs, finished ones kept 30 days" "$TMP/srv1.err" || fail "the logs are not in STATE/logs"
[ -e "$XDG_STATE_HOME" ] && fail "--state-dir given, yet $XDG_STATE_HOME was made"

# A duel: plain in playing/ while played, one gzip member in the day's folder once over, playing/ left empty.
"$W" bot "127.0.0.1:$PORT" --new-room --name Ann --think 40 --games 1 --seed 3 >"$TMP/a.out" 2>"$TMP/a.err" &
PIDS+=($!)
wait_re '^room ' "$TMP/a.out" 10 || fail "no room"
ROOM="$(head -1 "$TMP/a.out" | cut -d' ' -f2 | tr -d :)"
"$W" bot "127.0.0.1:$PORT" --room "$ROOM" --name Ben --think 40 --games 1 --seed 4 >"$TMP/b.out" 2>"$TMP/b.err" &
PIDS+=($!)
wait_re "room=$ROOM duel 1 starts" "$TMP/srv1.err" 10 || fail "no duel"
sleep 0.5
PLAYING=("$ST"/logs/playing/wizwar-"$ROOM"-*.log)
[ -f "${PLAYING[0]}" ] || fail "no log in playing/: $(ls -R "$ST/logs")"
[ "$(head -c 14 "${PLAYING[0]}")" = wizwar-turnlog ] || fail "the log of a duel being played is not plain text"
[ "$(stat -c %a "${PLAYING[0]}")" = 600 ] || fail "the log is mode $(stat -c %a "${PLAYING[0]}")"
wait_re "room=$ROOM duel over" "$TMP/srv1.err" 120 || fail "the duel did not end"
wait_re '^duel 1: .*log verified' "$TMP/a.out" 10 || fail "Ann did not verify the duel"
sleep 0.5
DONE=("$ST"/logs/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/wizwar-"$ROOM"-*.log.gz)
[ -f "${DONE[0]}" ] || fail "no finished log in the tree: $(ls -R "$ST/logs")"
[ "${DONE[0]}" = "$ST/logs/$(date +%Y/%m/%d)/$(basename "${PLAYING[0]}").gz" ] || fail "${DONE[0]} is not today's folder"
[ -e "${PLAYING[0]}" ] && fail "the plain log is still in playing/"
python3 - "${DONE[0]}" <<'PY' || fail "the finished log is not one gzip member"
import sys, zlib
data = open(sys.argv[1], "rb").read()
d = zlib.decompressobj(16 + 15)
text = d.decompress(data)
sys.exit(0 if d.eof and not d.unused_data and text.startswith(b"wizwar-turnlog") and b"\nend " in text else 1)
PY
[ "$(stat -c %a "${DONE[0]}")" = 600 ] || fail "the finished log is mode $(stat -c %a "${DONE[0]}")"
"$W" replay --check "${DONE[0]}" >/dev/null || fail "the finished log does not replay"
proc_stop "$SRV"
ok "--state-dir holds the key and the logs; a duel's log is plain in playing/, then one gzip member (0600) in today's folder"

# ==== 3. --log-keep 1: what is older than a day goes at start, nothing else ====
L="$ST/logs"
mkdir -p "$L/2020/01/01" "$L/2020/01/02"
gzip -c <"$TMP/a.out" >"$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz"
gzip -c <"$TMP/a.out" >"$L/2020/01/02/wizwar-recent-20200102-000000-1.log.gz"
touch -d '3 days ago' "$L/2020/01/01/wizwar-old-20200101-000000-1.log.gz"
touch -d '3 hours ago' "$L/2020/01/02/wizwar-recent-20200102-000000-1.log.gz"
cp "${DONE[0]}" "$L/wizwar-flat-20200101-000000-1.log.gz"
touch -d '3 days ago' "$L/wizwar-flat-20200101-000000-1.log.gz" "${DONE[0]}"
# A one-room host's duel under way in the same folder (no room comment: not this server's to put away).
printf 'wizwar-turnlog 1\n' >"$L/playing/wizwar-host-20200101-000000-1.log"
touch -d '3 days ago' "$L/playing/wizwar-host-20200101-000000-1.log" "$ST/server.key"
KEY="$(sha256sum <"$ST/server.key")"
server_start "$TMP/srv2.err" "${SRV_ARGS[@]}" --state-dir "$ST" --log-dir "$L" --log-keep 1
wait_re 'turn logs: 2 finished duels older than 1 day removed' "$TMP/srv2.err" 10 ||
	fail "the old logs were not said to be removed"
[ -e "$L/2020/01/01" ] && fail "the emptied day folder is still there"
[ -e "${DONE[0]}" ] && fail "the duel's log, 3 days old, is still there"
[ -f "$L/2020/01/02/wizwar-recent-20200102-000000-1.log.gz" ] || fail "a recent log was removed"
[ -f "$L/wizwar-flat-20200101-000000-1.log.gz" ] || fail "a flat log of an older server was removed"
[ -f "$L/playing/wizwar-host-20200101-000000-1.log" ] || fail "a duel under way was removed"
[ "$(sha256sum <"$ST/server.key")" = "$KEY" ] || fail "the key changed"
proc_stop "$SRV"
ok "--log-keep 1: finished logs older than a day removed at start (and their empty folder), said; a recent one, a duel under way, a flat log and the key left"
# ==== 4. HOME=/ (a service's user with no home): the state folder is /.local/state/wizwar, not //.local/... ====
said="$(env -u XDG_STATE_HOME HOME=/ "$W" replay --list 2>&1)"
case "$said" in
*//.local*) fail "HOME=/ makes a path with //: $said" ;;
*/.local/state/wizwar*) ;;
*) fail "HOME=/: '$said' names no /.local/state/wizwar" ;;
esac
ok "HOME=/: the state folder is /.local/state/wizwar"
echo "all log keeping tests passed"
