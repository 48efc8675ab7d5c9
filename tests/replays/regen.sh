#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerate everything the rules and the bots pin that a program can write again: the golden
# replays and the selfplay hash (tests/replays), the bots' golden hashes (tests/common/bot.golden),
# docs/rules.md's spell and potion tables, docs/protocol.md's generated tables and examples,
# and the rules version docs/turnlog.md quotes. Run it only when the rules or the bots changed
# on purpose (with RULES_VERSION bumped if old logs must be refused: a new spell or potion
# does), after building, then review `git diff` and commit the result (docs/hacking.md).
# Usage: tests/replays/regen.sh BUILD/client/wizwar   (BUILD: the meson build directory)
set -euo pipefail
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
build=$(cd "$(dirname "$exe")/.." && pwd)
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
for t in tests/common/doc_rules tests/common/test_common_bot tests/proto/doc_tables tests/proto/proto_examples; do
	[ -x "$build/$t" ] || { echo "regen.sh: $build/$t is missing: build the tests first (meson compile -C $build)" >&2; exit 1; }
done

# The documents first: the replays below do not read them, but a reviewer reads them first.
"$build/tests/common/doc_rules" --write "$root/docs/rules.md"
"$build/tests/proto/doc_tables" --write "$root/docs/protocol.md"
"$build/tests/proto/proto_examples" --write "$root/docs/protocol.md"
rules=$(sed -n 's/^#define RULES_VERSION \([0-9][0-9]*\).*/\1/p' "$root/common/game.h")
[ -n "$rules" ] || { echo "regen.sh: no RULES_VERSION in common/game.h" >&2; exit 1; }
sed -i -e "s/^rules [0-9][0-9]*\$/rules $rules/" \
	-e "s/this wizwar has rules version [0-9][0-9]*/this wizwar has rules version $rules/" "$root/docs/turnlog.md"

# The bots' golden hashes: the test that checks them writes them when WIZWAR_REGEN is set.
WIZWAR_SRCDIR=$root WIZWAR_REGEN=1 "$build/tests/common/test_common_bot" \
	--filter 'bot/hard_decides_as_before_its_caches' > /dev/null

rm -f "$dir"/*.log
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gen() { # name seed options...
	local name=$1 seed=$2; shift 2
	"$exe" selfplay --seed "$seed" --quiet --log "$tmp" "$@" >/dev/null
	mv "$tmp"/selfplay-*.log "$dir/$name.log"
}
gen default-25 11
gen small-15-nofov 12 --size 15 --no-fov
gen large-51 13 --size 51
gen no-potions 14 --no-potions
gen normal-vs-hard 15 --bots normal,hard
"$exe" selfplay --games 40 --seed 1000 --quiet | tail -1 > "$dir/selfplay.golden"
git -C "$root" status --short -- tests docs 2>/dev/null || true
