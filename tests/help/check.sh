#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every subcommand listed by `wizwar --help` answers `--help` with its usage and exit 0,
# and is described in the man page; bad arguments exit 2 with a message. TAP output.
# Usage: check.sh WIZWAR_EXE MANPAGE
set -u
exe=$1 man=$2
mapfile -t cmds < <("$exe" --help | awk '/^commands:/ { on = 1; next } on && NF >= 2 && /^  [a-z]/ { print $1 }')
n=0; failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
echo "1..$(( ${#cmds[@]} * 3 + 3 ))"
[ ${#cmds[@]} -ge 3 ] && ok "wizwar --help lists ${#cmds[@]} commands" || notok "too few commands listed: ${cmds[*]}"
for c in "${cmds[@]}"; do
	out=$("$exe" "$c" --help 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -qi "usage" <<<"$out"; then ok "$c --help"; else notok "$c --help: rc=$rc"; fi
	if grep -q "^\.B $c\b\|^\.B wizwar $c\b" "$man"; then ok "$c is in the man page"; else notok "$c missing from $man"; fi
	out=$("$exe" "$c" --no-such-option 2>&1 </dev/null); rc=$?
	if [ $rc -eq 2 ] && [ -n "$out" ]; then ok "$c refuses a bad option with exit 2"; else notok "$c bad option: rc=$rc"; fi
done
out=$("$exe" no-such-command 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown command" <<<"$out" && ok "an unknown command exits 2" || notok "unknown command: rc=$rc"
out=$("$exe" --version); [ $? -eq 0 ] && grep -q "rules" <<<"$out" && ok "--version names the rules version" || notok "--version: $out"
exit $((failed > 0))
