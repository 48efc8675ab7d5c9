#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The conventions of a Unix command, on the real executable: --opt=VALUE and --opt VALUE alike,
# a flag refuses a value, -- ends the options, --version on every subcommand, `wizwar help CMD`,
# write errors reported, the seed error quoting what was typed, an unknown TERM reported by
# wizwar, and `wizwar server` shutting down cleanly on SIGINT and SIGTERM with 0600 turn logs
# (two network bots given their options as --opt=VALUE play a duel on it first); getopt_long's rules
# (abbreviations, an optional value only after '=', operands anywhere) and one error form, "wizwar CMD: ",
# with exit status 2 for bad arguments and 1 for work that failed, on every subcommand. TAP output.
# Usage: conventions.sh WIZWAR_EXE
set -u
exe=$(realpath "$1")
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config HOME=$tmp/home
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; return 1; fi; }
mapfile -t cmds < <("$exe" --help | awk '/^commands:/ { on = 1; next } on && NF >= 2 && /^  [a-z]/ { print $1 }')

# --opt=VALUE is --opt VALUE.
a=$("$exe" selfplay --games 3 --seed 0x10 --bots easy,hard --quiet)
b=$("$exe" selfplay --games=3 --seed=0x10 --bots=easy,hard --quiet)
check "selfplay: --opt=VALUE gives what --opt VALUE gives" test -n "$a" -a "$a" = "$b"
b=$("$exe" selfplay --games=3 --seed=0x10 --bots=easy,hard --quiet --)
check "selfplay: a trailing -- is accepted" test "$a" = "$b"
out=$("$exe" selfplay --quiet=yes 2>&1); rc=$?
check "a flag given a value exits 2 and says so" test $rc -eq 2 -a -n "$(grep -F -- "--quiet takes no value" <<<"$out")"
out=$("$exe" selfplay --size=16 2>&1); rc=$?
check "a bad --opt=VALUE is checked as --opt VALUE is" test $rc -eq 2 -a -n "$(grep -F "odd" <<<"$out")"
out=$("$exe" selfplay --nope=1 2>&1); rc=$?
check "an unknown --opt=VALUE exits 2 naming it" test $rc -eq 2 -a -n "$(grep -F -- "'--nope=1'" <<<"$out")"
out=$("$exe" selfplay -- --games 2 2>&1); rc=$?
check "after --, an option is an operand (selfplay takes none: exit 2)" \
	test $rc -eq 2 -a -n "$(grep -F -- "takes no operand, not '--games'" <<<"$out")"
out=$("$exe" join -- --help 2>&1 </dev/null); rc=$?
check "join -- --help: --help is the host, not a request for help" \
	test $rc -ne 0 -a -z "$(grep -i usage <<<"$out")" -a -n "$(grep -F "needs a terminal" <<<"$out")"
out=$("$exe" join --name=x -- a b 2>&1); rc=$?
check "join takes one operand" test $rc -eq 2 -a -n "$(grep -F "one operand only" <<<"$out")"
out=$("$exe" join --name -- 2>&1); rc=$?
check "an option's value is taken as it is, even --" test $rc -eq 2 -a -n "$(grep -F -- "--name must be" <<<"$out")"

# The replay viewer's operand after --, even one that starts with '-'; --check=LOG.
"$exe" selfplay --games 1 --seed 5 --log "$tmp/logs" > /dev/null
log=$(ls "$tmp"/logs/*.log)
cp "$log" "$tmp/-odd.log"
out=$(cd "$tmp" && "$exe" replay --check=-odd.log 2>&1); rc=$?
check "replay --check=LOG" test $rc -eq 0
out=$(cd "$tmp" && "$exe" replay --view=all -- -odd.log 2>&1 </dev/null); rc=$?
check "replay -- -odd.log reads the log, then wants a terminal" \
	test $rc -eq 1 -a -n "$(grep -F "terminal" <<<"$out")" -a -z "$(grep -F "unknown" <<<"$out")"
out=$(cd "$tmp" && "$exe" replay -- -missing.log 2>&1 </dev/null); rc=$?
check "replay -- -missing.log names the file it could not open" test $rc -ne 0 -a -n "$(grep -F -- "-missing.log" <<<"$out")"

# --version and help on every subcommand.
version=$("$exe" --version)
for c in "${cmds[@]}"; do
	out=$("$exe" "$c" --version 2>&1); rc=$?
	check "$c --version" test $rc -eq 0 -a "$out" = "$version"
	a=$("$exe" "$c" --help 2>&1)
	b=$("$exe" help "$c" 2>&1); rc=$?
	check "wizwar help $c is $c --help" test $rc -eq 0 -a -n "$a" -a "$a" = "$b"
done
out=$("$exe" help no-such 2>&1); rc=$?
check "wizwar help of an unknown command exits 2" test $rc -eq 2 -a -n "$(grep -F "no command 'no-such'" <<<"$out")"

# getopt_long's rules and one error form, on every subcommand: an unknown option, a flag given a value and
# a missing value are refused with exit 2 and a message that starts "wizwar CMD: "; a long option may be
# shortened to a prefix that names it alone.
for c in "${cmds[@]}"; do
	out=$("$exe" "$c" --no-such-option 2>&1 </dev/null); rc=$?
	check "$c: an unknown option: exit 2, 'wizwar $c: unknown option'" \
		test $rc -eq 2 -a "$(head -n 1 <<<"$out")" = "wizwar $c: unknown option '--no-such-option'"
	out=$("$exe" "$c" --help=yes 2>&1 </dev/null); rc=$?
	check "$c: a flag given a value: exit 2, 'wizwar $c: --help takes no value'" \
		test $rc -eq 2 -a "$(head -n 1 <<<"$out")" = "wizwar $c: --help takes no value, not 'yes'"
	a=$("$exe" "$c" --help 2>&1)
	b=$("$exe" "$c" --hel 2>&1); rc=$?
	check "$c: --hel is --help (an abbreviation)" test $rc -eq 0 -a "$a" = "$b"
done
for c in "selfplay --games" "selfplay --seed" "practice --bot" "host --port" "join --name" "bot --level" \
	"server --max-rooms" "keys --preset" "replay --check"; do
	# shellcheck disable=SC2086
	out=$("$exe" $c 2>&1 </dev/null); rc=$?
	check "wizwar $c (no value): exit 2, 'wizwar ${c%% *}: ${c#* } needs a value'" \
		test $rc -eq 2 -a "$(head -n 1 <<<"$out")" = "wizwar ${c%% *}: ${c#* } needs a value"
done
# Messages of the helpers every command shares carry the command's name too.
for c in "selfplay --seed=x" "selfplay --size 16" "practice --seed -1" "host --port 70000" "bot --games x h"; do
	# shellcheck disable=SC2086
	out=$("$exe" $c 2>&1 </dev/null); rc=$?
	check "wizwar $c: exit 2, 'wizwar ${c%% *}: '" test $rc -eq 2 -a "${out#"wizwar ${c%% *}: "}" != "$out"
done
out=$("$exe" join --pass x 2>&1 </dev/null); rc=$?
check "an ambiguous abbreviation is refused, naming the options" \
	test $rc -eq 2 -a "$(head -n 1 <<<"$out")" = "wizwar join: '--pass' is ambiguous: --password --password-file"
# setsid: no controlling terminal, so that the password is not asked on the terminal of whoever runs the suite.
out=$(setsid -w "$exe" bot --password 127.0.0.1:9 --games 1 2>&1 </dev/null); rc=$?
check "bot --password HOST: HOST is the server, the password is asked for (none without a terminal)" \
	test $rc -eq 1 -a -z "$(grep -F "which server" <<<"$out")" -a -n "$(grep -F -- "--password with no value asks" <<<"$out")"
out=$("$exe" bot --password= 127.0.0.1:9 2>&1 </dev/null); rc=$?
check "bot --password= (empty) is refused" test $rc -eq 2 -a -n "$(grep -F "empty --password" <<<"$out")"
a=$("$exe" selfplay --games 3 --quiet 2>&1)
b=$(POSIXLY_CORRECT=1 "$exe" selfplay --quiet --gam=3 2>&1)
check "options in any order, abbreviated, POSIXLY_CORRECT or not: the same" test -n "$a" -a "$a" = "$b"
out=$("$exe" keys --file "$tmp/no-such.conf" 2>&1); rc=$?
check "keys --file MISSING: exit 1 (the man page's 'a file that cannot be read')" \
	test $rc -eq 1 -a "${out#"wizwar keys: "}" != "$out"
check "the practice usage names every bot level" test -n "$("$exe" practice --help | grep -F "novice|easy|normal|hard|master|random")"

# Write errors are failures.
for args in "keys" "--help" "selfplay --games 2" "replay --text $log" "keys --version"; do
	# shellcheck disable=SC2086
	out=$("$exe" $args 2>&1 >/dev/full); rc=$?
	check "wizwar $args > /dev/full exits 1 and says why" \
		test $rc -eq 1 -a -n "$(grep -F "cannot write the output: No space left on device" <<<"$out")"
done

# The seed error quotes what was typed.
out=$("$exe" selfplay --seed 0xFFFFFFFFFFFFFFFFF 2>&1); rc=$?
check "the seed error keeps the 0x" test $rc -eq 2 -a -n "$(grep -F "not '0xFFFFFFFFFFFFFFFFF'" <<<"$out")"

# An unknown TERM, on a real pseudo-terminal (script(1)).
if command -v script > /dev/null; then
	out=$(TERM=no-such-terminal script -qec "$exe practice --no-log" /dev/null 2>&1 </dev/null); rc=$?
	check "an unknown TERM is reported by wizwar, exit 1" \
		test $rc -eq 1 -a -n "$(grep -F "wizwar practice: the terminal type 'no-such-terminal' (TERM)" <<<"$out")"
else
	ok "# SKIP script(1) is missing"
fi

# wizwar server: two bots play one duel in a room over loopback, then SIGINT (or SIGTERM) closes it
# cleanly: exit 0, the log flushed, complete and 0600. (SIGHUP reloads its --config: tests/server/config.sh.)
for sig in INT TERM; do
	dir=$tmp/srv-$sig
	# Each run's outputs in files of their own: the port and the room code are read from them while
	# the programs start, and a file the run before left would give its port or code (a race: the
	# shell opens, and so empties, a background program's output in that program's own process,
	# which may not have run yet when the next line reads the file).
	w=$tmp/run-$sig
	mkdir "$w"
	XDG_STATE_HOME="$tmp" "$exe" server --bind=127.0.0.1 --port=0 --log-dir="$dir" > "$w/server.out" 2> "$w/server.err" &
	srv=$!
	port=
	for _ in $(seq 300); do
		port=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$w/server.err")
		[ -n "$port" ] && break
		sleep 0.1
	done
	# The first asks for a room (its code on its first line), the second joins it by that code.
	# Each program under `timeout`: a hang is a failure with the programs' words below, not the suite's limit.
	XDG_STATE_HOME="$tmp" timeout 60 "$exe" bot --new-room --level=easy --games=1 --think=0 --seed=1 -- "127.0.0.1:$port" \
		> "$w/bot1.out" 2>&1 &
	b1=$!
	room=
	for _ in $(seq 300); do
		room=$(sed -n 's/^room \([0-9a-z-]*\):.*/\1/p' "$w/bot1.out")
		[ -n "$room" ] && break
		sleep 0.1
	done
	XDG_STATE_HOME="$tmp" timeout 60 "$exe" bot --room="$room" --level=hard --games=1 --think=0 --seed=2 -- "127.0.0.1:$port" \
		> "$w/bot2.out" 2>&1 &
	b2=$!
	wait $b1; r1=$?
	wait $b2; r2=$?
	check "SIG$sig: two bots given --opt=VALUE and -- HOST:PORT played a verified duel" \
		test -n "$port" -a $r1 -eq 0 -a $r2 -eq 0 -a -n "$(grep -F "duel 1:" "$w/bot1.out")" ||
		sed 's/^/# /' "$w/bot1.out" "$w/bot2.out" "$w/server.err"
	kill -$sig $srv
	# The server has 20 s to stop; then it is killed and the check fails.
	for _ in $(seq 200); do
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $srv 2>/dev/null
	wait $srv; rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$w/server.err"
	check "SIG$sig: the server shut down cleanly (exit 0)" \
		test $rc -eq 0 -a -n "$(grep -F "shutting down" "$w/server.err")"
	logs=("$dir"/[0-9]*/*/*/*.log.gz) # finished: compressed into the tree by date
	check "SIG$sig: its turn log is complete" test -f "${logs[0]}" -a -n "$(zcat "${logs[0]}" 2>/dev/null | grep "^end ")"
	check "SIG$sig: its turn log is 0600" test "$(stat -c %a "${logs[0]}")" = 600
done

echo "1..$n"
exit $((failed > 0))
