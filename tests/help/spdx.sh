#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source file says its licence in its first lines, as SPDX has it:
#   C sources and headers:        /* SPDX-License-Identifier: MIT */      as line 1
#   scripts (with a #! line):     # SPDX-License-Identifier: MIT          as line 2
#   meson.build, meson_options.txt and other files read by a tool: the # form as line 1
# And no tracked text file holds a merge's conflict markers (a line starting <<<<<<< or >>>>>>> and a space:
# a merge once committed two into the docs).
# TAP output, one test per file, and one for the markers. Usage: spdx.sh SOURCE_ROOT
set -u
root=${1:-.}
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	mapfile -t files < <(git ls-files)
else
	mapfile -t files < <(find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort)
fi

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

c_line='/* SPDX-License-Identifier: MIT */'
hash_line='# SPDX-License-Identifier: MIT'
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	case "$f" in
	*.c | *.h) want=$c_line ;;
	*.sh | *.py | meson.build | */meson.build | meson_options.txt | .ci/*) want=$hash_line ;;
	*) continue ;; # documents, logs, golden files, suppressions: not sources
	esac
	first=$(sed -n 1p "$f")
	if [ "${first#\#!}" != "$first" ]; then
		line=$(sed -n 2p "$f") where="line 2 (after #!)"
	else
		line=$first where="line 1"
	fi
	if [ "$line" = "$want" ]; then
		ok "$f"
	else
		notok "$f: $where should be '$want', is '$line'"
	fi
done
[ $n -gt 0 ] || notok "no source file found under $root"
marked=$(grep -lIE '^(<<<<<<<|>>>>>>>) ' -- "${files[@]}" 2>/dev/null | head -5 | tr '\n' ' ')
if [ -z "$marked" ]; then
	ok "no conflict markers in ${#files[@]} files"
else
	notok "conflict markers left by a merge in: $marked"
fi
echo "1..$n"
exit $((failed > 0))
