# SPDX-License-Identifier: MIT
# proc_lib.sh: for the tests that drive whole processes without a terminal (sourced). The test calls
# proc_init (below: its folder, its processes stopped on exit, fail and ok), or defines fail() itself (it
# prints what it needs and exits 1) before it calls these. The tmux tests have tmux_lib.sh.

# wait_re REGEX FILE SECS: until FILE matches (grep -E), else fail.
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "waited $3 s for /$1/ in $(basename "$2")"
}

# rooms_wait SERVER TEXT TRIES: `$W rooms SERVER` into $TMP/list.out (its stderr list.err) every 0.1 s
# until the list holds TEXT, at most TRIES times (a failing `rooms` fails the test); the caller then
# checks list.out, whose last listing it is.
rooms_wait() {
	local i
	for ((i = 0; i < $3; i++)); do
		"$W" rooms "$1" >"$TMP/list.out" 2>"$TMP/list.err" || fail "rooms: exit $?"
		grep -qF -- "$2" "$TMP/list.out" && return 0
		sleep 0.1
	done
}

# count REGEX FILE: how many lines match.
count() { grep -cE -- "$1" "$2"; }

# ---- a test of whole processes, from its start: proc_init NAME ----
# TMP: a fresh folder (wizwar-NAME.XXXXXX). PIDS: every background program the test starts goes there;
# on exit each is killed (-9, so that a stuck one cannot hold the test) and TMP removed. Also defines
#   fail WHY: says "FAIL: WHY" and the last PROC_TAIL lines of each $TMP/*.out, $TMP/*.err and PROC_SHOW
#             file (what the processes said), then exits 1;
#   ok WHAT:  "ok N - WHAT", N counting from 1.
# PROC_TAP=1 (before a fail): "not ok N - WHY", the files as TAP comments. A test that must stop more
# than PIDS on exit sets its own EXIT trap and calls proc_finish from it.
proc_init() {
	TMP="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-$1.XXXXXX")"
	PIDS=()
	PROC_SHOW=()
	PROC_TAIL=15
	PROC_TAP=""
	n=0
	trap proc_finish EXIT
	fail() {
		local f pre=""
		if [ -n "$PROC_TAP" ]; then
			echo "not ok $((n + 1)) - $*"
			pre="# "
		else
			echo "FAIL: $*"
		fi
		for f in "$TMP"/*.out "$TMP"/*.err "${PROC_SHOW[@]}"; do
			[ -e "$f" ] || continue
			echo "$pre--- $(basename "$f"):"
			tail -n "$PROC_TAIL" "$f" | sed "s/^/$pre/"
		done
		exit 1
	}
	ok() {
		n=$((n + 1))
		echo "ok $n - $*"
	}
}

proc_finish() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	# WIZWAR_KEEP=DIR: a copy of the folder kept there, to read a failure that comes one run in many.
	if [ -n "${WIZWAR_KEEP:-}" ]; then mkdir -p "$WIZWAR_KEEP" && cp -r "$TMP" "$WIZWAR_KEEP/" 2>/dev/null; fi
	rm -rf "$TMP"
}

# server_port ERRFILE: until a `wizwar server` says in ERRFILE that it listens on loopback (else fail),
# then PORT is its port (the first said: --port 0 is known only from there).
server_port() {
	wait_re 'listening on 127\.0\.0\.1 port [0-9]+' "$1" 10
	PORT="$(grep -oE 'listening on 127\.0\.0\.1 port [0-9]+' "$1" | head -1 | grep -oE '[0-9]+$')"
}

# server_start ERRFILE ARGS...: `$W server ARGS` in the background, its stderr in ERRFILE and its stdout
# beside it (.out for .err); SRV its pid (in PIDS), PORT its port once it listens (else fail). A variable
# set before the call (XDG_STATE_HOME=... server_start ...) is the server's alone.
server_start() {
	local err="$1"
	shift
	# Emptied before the start, not by the background job's own redirections, which may come after
	# server_port has read the file: a server restarted on the same files showed its old port.
	: >"${err%.err}.out"
	: >"$err"
	"$W" server "$@" >"${err%.err}.out" 2>"$err" &
	SRV=$!
	PIDS+=("$SRV")
	server_port "$err"
}

# proc_stop PID: SIGTERM, then until it has exited (its own shutdown: logs flushed, the duels' ends said).
proc_stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# free_port: a TCP port free on 127.0.0.1 now, for a daemon that cannot be given port 0.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# redis_start [PASSWORD_FILE]: a redis-server of the test's own on 127.0.0.1:$RPORT (RPORT chosen at the
# first call and kept, so a restart is the same Redis to the nodes), nothing saved, its output appended to
# $TMP/redis.log; REDIS is its pid (the test kills it). With PASSWORD_FILE, Redis asks that password
# (requirepass read from stdin: on no command line). Waits for its PONG, else fail. rcli ARGS: redis-cli
# to it (with the password, if any).
redis_start() {
	[ -n "${RPORT:-}" ] || RPORT="$(free_port)"
	REDIS_PWFILE="${1:-}"
	{ [ -n "$REDIS_PWFILE" ] && printf 'requirepass %s\n' "$(cat "$REDIS_PWFILE")"; } |
		redis-server - --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --protected-mode yes \
			>>"$TMP/redis.log" 2>&1 &
	REDIS=$!
	for _ in $(seq 100); do
		rcli ping 2>/dev/null | grep -q PONG && return 0
		sleep 0.05
	done
	fail "redis-server did not start"
}
rcli() {
	if [ -n "${REDIS_PWFILE:-}" ]; then
		REDISCLI_AUTH="$(cat "$REDIS_PWFILE")" redis-cli -p "$RPORT" "$@"
	else
		redis-cli -p "$RPORT" "$@"
	fi
}
