#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bounded fuzz run of the protocol's decoders and of whole connections into the server and the client: builds the libFuzzer targets of tests/fuzz with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer, writes a seed corpus of real frames (fuzz_seeds), and runs
# each target for FUZZ_SECONDS (default 60) or FUZZ_RUNS inputs, whichever ends first. Exits non-zero when a
# target crashes, leaks, hangs or fails a check; the input that did it is left in the build directory.
#
#   tests/fuzz/run.sh                     # from anywhere in the tree
#   FUZZ_SECONDS=600 tests/fuzz/run.sh    # longer
#   FUZZ_BUILD=/tmp/fz tests/fuzz/run.sh  # another build directory
#   build-fuzz/tests/fuzz/fuzz_pconn build-fuzz/fuzz-crash-pconn-...   # replay one input
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-100000000}
build=${FUZZ_BUILD:-build-fuzz}
targets=(decode pconn codes noise ident server client proxy webmsg xmsg turnlog lan keys)

if ! command -v clang >/dev/null; then
	echo "fuzz: clang is needed (libFuzzer)" >&2
	exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dwerror=true -Dfuzz=true -Dtests=false -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$build" tests/fuzz/fuzz_seeds "${targets[@]/#/tests/fuzz/fuzz_}"

corpus=$build/fuzz-corpus
rm -rf "$corpus"
"$build/tests/fuzz/fuzz_seeds" "$corpus"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
	echo "== fuzz_$t: ${secs}s from $(ls "$corpus/fuzz_$t" | wc -l) seeds"
	if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=20000 -print_final_stats=1 -artifact_prefix="$build/fuzz-crash-$t-" "$corpus/fuzz_$t" \
		> "$build/fuzz-$t.log" 2>&1; then
		tail -n 40 "$build/fuzz-$t.log" >&2
		echo "fuzz_$t: FAILED (log: $build/fuzz-$t.log)" >&2
		status=1
		continue
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$build/fuzz-$t.log" | tr '\n' ' '
	echo
	echo "fuzz_$t: ok"
done
exit $status
