# SPDX-License-Identifier: MIT
# tmux_lib.sh: helpers for the tmux screen tests: a private server, waiting for text, failing with the screen.
# Sourced by the tmux tests (tests/client/test_*.sh) after they set WIZWAR.

if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux is not installed: skipped"
	exit 77
fi

SOCK="wizwar-test-$$"
TMPD="$(mktemp -d "${TMPDIR:-/tmp}/wizwar-screen.XXXXXX")"
SCREEN="$TMPD/screen"
# Everything a test runs (bots too) keeps seats, keys and known servers here, never in the real
# home: a host on an ephemeral port makes a new key each run, and a port reused from an earlier
# run would meet the old key in a shared known_servers and be refused as a changed server.
export XDG_STATE_HOME="$TMPD/state"

# Background programs a test starts (servers, bots) go in PIDS: cleanup stops them too.
PIDS=()

# descendants PID: every process below PID (children, theirs, ...), one pid a line.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# pane_procs [TARGET]: the processes running in a pane (its shell and all below it); without TARGET,
# in every pane of this test's tmux server.
pane_procs() {
	local p
	if [ -n "${1:-}" ]; then
		set -- -t "$1"
	else
		set -- -a
	fi
	for p in $(tmux -L "$SOCK" list-panes "$@" -F '#{pane_pid}' 2>/dev/null); do
		echo "$p"
		descendants "$p"
	done
}

# running PID: the process runs (a zombie, exited but not yet reaped by its parent, does not).
running() {
	local stat
	stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
	stat="${stat##*) }"
	[ "${stat%% *}" != Z ]
}

# pane_wizwar TARGET COMMAND: the pid of the `wizwar COMMAND` running in the pane TARGET, else fail.
pane_wizwar() {
	local p
	for p in $(pane_procs "$1"); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qE "^[^ ]*wizwar $2( |$)"; then
			echo "$p"
			return 0
		fi
	done
	fail "no wizwar $2 in $1"
}

# gone SECS PID...: true once none of the PIDs runs, within SECS seconds.
gone() {
	local secs="$1" i p left
	shift
	for ((i = 0; i < secs * 20; i++)); do
		left=0
		for p in "$@"; do
			running "$p" && left=1
		done
		[ $left = 0 ] && return 0
		sleep 0.05
	done
	return 1
}

# Every process this test starts carries WIZWAR_TEST_RUN in its environment (the tmux server too, and
# so every pane): cleanup finds them by it, whether their pane is still there or was closed earlier.
export WIZWAR_TEST_RUN="$SOCK"

# ours: the pids of the processes that carry this test's WIZWAR_TEST_RUN, but this shell and the shells
# it forks (its command substitutions, this one included).
ours() {
	local f p ppid comm
	for f in $(grep -lzx "WIZWAR_TEST_RUN=$SOCK" /proc/[0-9]*/environ 2>/dev/null); do
		p="${f#/proc/}"
		p="${p%/environ}"
		[ "$p" = $$ ] && continue
		read -r _ comm _ ppid _ <"/proc/$p/stat" 2>/dev/null || continue
		[ "$ppid" = $$ ] && [ "$comm" = "(bash)" ] && continue
		echo "$p"
	done
}

# The clients in the panes are stopped too, and those of panes closed earlier: a client that outlived
# its terminal (or a test that failed before it quit) must not run on after the test, whatever it does
# then (a sanitizer's leak check at its exit has been seen to spin for good once its terminal was gone).
cleanup() {
	local procs p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	tmux -L "$SOCK" kill-server >/dev/null 2>&1
	procs="$(ours)"
	if [ -n "$procs" ]; then
		# shellcheck disable=SC2086 # one pid a word
		kill $procs 2>/dev/null
		# shellcheck disable=SC2086
		gone 2 $procs || kill -9 $(ours) 2>/dev/null
	fi
	rm -rf "$TMPD"
}
trap cleanup EXIT INT TERM

T() {
	tmux -L "$SOCK" -f /dev/null "$@"
}

# A session that outlives every test session: tmux exits when its last session goes,
# and a test that killed its session and started the next one at once could reach a
# server on its way out ("server exited unexpectedly", seen once in CI).
T new-session -d -s keep -x 80 -y 24 "exec sleep 3600"

# The waits below (wait_for, wait_file, wait_gone, wait_said) end at their event; each gives up only after
# its SECS times WAIT_SCALE. A loaded machine running the sanitizers is several times slower than the one
# a test was written on, and a generous limit costs a passing test nothing. WIZWAR_TEST_WAIT_SCALE=1
# fails fast while a test is being written.
WAIT_SCALE="${WIZWAR_TEST_WAIT_SCALE:-3}"

fail() {
	echo "FAIL: $*"
	echo "--- the screen (${SCREEN_W:-?}x${SCREEN_H:-?}):"
	cat "$SCREEN" 2>/dev/null
	exit 1
}

ok() {
	echo "ok - $*"
}

# capture [TARGET]: the pane's text into $SCREEN.
capture() {
	T capture-pane -p -t "${1:-w}" >"$SCREEN" 2>/dev/null
}

# wait_for REGEX [SECONDS] [TARGET]: until the screen matches (grep -E), else fail.
wait_for() {
	local re="$1" secs="${2:-10}" target="${3:-w}" i
	for ((i = 0; i < secs * 20 * WAIT_SCALE; i++)); do
		capture "$target"
		if grep -qE -- "$re" "$SCREEN"; then
			return 0
		fi
		sleep 0.05
	done
	fail "waited $((secs * WAIT_SCALE))s for /$re/"
}

# wait_file REGEX FILE [SECONDS]: until a file (a background program's output) matches, else fail.
wait_file() {
	local re="$1" file="$2" secs="${3:-10}" i
	for ((i = 0; i < secs * 20 * WAIT_SCALE; i++)); do
		grep -qE -- "$re" "$file" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "--- $file:"
	cat "$file" 2>/dev/null
	fail "waited $((secs * WAIT_SCALE))s for /$re/ in $(basename "$file")"
}

# wait_gone REGEX [SECONDS]: until the screen no longer matches.
wait_gone() {
	local re="$1" secs="${2:-10}" i
	for ((i = 0; i < secs * 20 * WAIT_SCALE; i++)); do
		capture
		if ! grep -qE -- "$re" "$SCREEN"; then
			return 0
		fi
		sleep 0.05
	done
	fail "waited $((secs * WAIT_SCALE))s for /$re/ to go"
}

# expect REGEX WHAT: the screen as last captured matches.
expect() {
	grep -qE -- "$1" "$SCREEN" || fail "$2: no /$1/"
	ok "$2"
}

# expect_not REGEX WHAT
expect_not() {
	if grep -qE -- "$1" "$SCREEN"; then
		fail "$2: /$1/ should not be there"
	fi
	ok "$2"
}

# keys KEY...: send keys (tmux key names), with a short pause for the client to draw.
keys() {
	T send-keys -t w "$@"
	sleep 0.15
}

# text STRING: type a string literally (UTF-8 included).
text() {
	T send-keys -t w -l "$1"
	sleep 0.15
}

# start CMD...: a session of 80x24 running CMD, then the shell's report: the exit status and whether
# the terminal is back in cooked mode with echo. The shell survives a Ctrl-C sent to the client (the
# trap is reset to the default in the client, which then installs its own handler).
start() {
	local cmd="$*"
	SCREEN_W=80
	SCREEN_H=24
	T new-session -d -s w -x 80 -y 24 \
	    "sh -c 'trap : INT; $cmd; echo EXIT=\$?; stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e echo -e icanon | tr \"\\n\" \" \"; echo STTY; exec sleep 600'"
}

# The side panel's text as one line, into $JOINED: the map column cut off each line, wrapped messages
# joined, so that a sentence is found whatever the width broke it at.
JOINED="$TMPD/joined"
join_panel() {
	capture "$1"
	LC_ALL=C.UTF-8 sed -E 's/^[│┌└][^│┐┘]*[│┐┘] ?//' "$SCREEN" | tr '\n' ' ' | tr -s ' ' >"$JOINED"
}

# wait_said REGEX TARGET [SECONDS]: until the side panel, joined, says it, else fail.
wait_said() {
	local re="$1" target="$2" secs="${3:-10}" i
	for ((i = 0; i < secs * 20 * WAIT_SCALE; i++)); do
		join_panel "$target"
		grep -qE -- "$re" "$JOINED" && return 0
		sleep 0.05
	done
	echo "--- joined: $(cat "$JOINED")"
	fail "waited $((secs * WAIT_SCALE))s for /$re/ in $target"
}

# say_to TARGET LINE: a line typed at the chat prompt of session TARGET.
say_to() {
	T send-keys -t "$1" Enter
	sleep 0.2
	T send-keys -t "$1" -l "$2"
	T send-keys -t "$1" Enter
	sleep 0.2
}
