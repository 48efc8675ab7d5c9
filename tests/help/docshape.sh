#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The figures' documents stay references, not diaries (issue 28): docs/benchmarks.md opens
# with its table of current figures and is under 600 lines, docs/bots.md too is under 600
# lines, no heading of either is dated or a session's, and every link to an anchor in them (from them or from any docs/*.md or README.md) names
# a heading that exists. TAP output. Usage: docshape.sh SOURCE_ROOT
set -u
root=${1:-.}
cd "$root" || exit 1

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

# GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces as -.
slugs() {
	sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

docs="docs/benchmarks.md docs/bots.md"
for d in $docs; do
	if [ ! -f "$d" ]; then
		notok "$d exists"
		continue
	fi
	lines=$(wc -l < "$d")
	check "$d is under 600 lines ($lines)" '[ "$lines" -lt 600 ]'
	dated=$(grep -nE '^#{1,6} .*([0-9]{4}-[0-9]{2}-[0-9]{2}|[Ss]ession|[Mm]orning|[Ee]vening|[Aa]fternoon)' "$d")
	check "$d has no dated or session headings${dated:+: $dated}" '[ -z "$dated" ]'
done

# benchmarks.md opens with the current figures: its first section is "Current figures" and
# its first table starts within the first 20 lines, before any other section.
b=docs/benchmarks.md
if [ -f "$b" ]; then
	first_h2=$(grep -m1 -n '^## ' "$b")
	check "$b's first section is \"Current figures\" (${first_h2:-none})" '[ "${first_h2#*:}" = "## Current figures" ]'
	first_table=$(grep -m1 -n '^|' "$b" | cut -d: -f1)
	second_h2=$(grep -n '^## ' "$b" | sed -n 2p | cut -d: -f1)
	check "$b's first table opens it (line ${first_table:-none})" \
		'[ -n "$first_table" ] && [ "$first_table" -le 20 ] && { [ -z "$second_h2" ] || [ "$first_table" -lt "$second_h2" ]; }'
	rows=$(awk -v s="${first_table:-0}" 'NR >= s && /^\|/ { r++ } NR > s && !/^\|/ { exit } END { print r - 2 }' "$b")
	check "$b's table of current figures has rows ($rows)" '[ "$rows" -ge 20 ]'
fi

# Every anchor into these documents exists.
for d in $docs; do
	[ -f "$d" ] || continue
	base=${d#docs/}
	known=$(slugs "$d")
	links=$( {
		grep -oE "\]\(#[^)]+\)" "$d" | sed 's/^](#//; s/)$//'
		grep -ohE "\]\((docs/)?$base#[^)]+\)" docs/*.md README.md | sed 's/^.*#//; s/)$//'
	} | sort -u)
	for a in $links; do
		check "$base#$a names a heading" 'printf "%s\n" "$known" | grep -qxF -- "$a"'
	done
done

[ $n -gt 0 ] || notok "nothing checked under $root"
echo "1..$n"
exit $((failed > 0))
