#!/bin/sh
# SPDX-License-Identifier: MIT
# soak: DUELS duels at a command a second for MINUTES against the shipped server; its RSS and descriptors every 10 s must not grow.
#
# usage: soak.sh BENCH_CROWD WIZWAR [DUELS [MINUTES [SAMPLE_S]]]   (defaults: 1000 duels, 30 minutes, 10 s)
# bench_crowd does the work (docs/benchmarks.md, "Counts a command, the ceiling and the soak"): a
# fresh `wizwar server` with its turn logs on disk, 2 x DUELS real clients, rematches after every
# duel; the verdict (exit 1) is its: after the first third of the run and DUELS duels ended,
# resident memory within 5% + 2 MiB of the first settled sample and descriptors within 8 + 1% of
# the duels. SOAK_RATE=R: R commands a second a duel (1), for duels that end sooner.
set -eu
crowd=${1:?usage: soak.sh BENCH_CROWD WIZWAR [DUELS [MINUTES [SAMPLE_S]]]}
wizwar=${2:?usage: soak.sh BENCH_CROWD WIZWAR [DUELS [MINUTES [SAMPLE_S]]]}
duels=${3:-1000}
minutes=${4:-30}
sample=${5:-10}
# Two descriptors a duel on each side, and the server's turn logs: raise the soft limit to the
# hard one where allowed (bench_crowd raises its own too; the server inherits this one).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "soak: $duels duels, $minutes minutes, a sample every $sample s; file limit $(ulimit -n); load $(cut -d' ' -f1 /proc/loadavg)"
exec "$crowd" "$wizwar" "$duels" --warm 10 --secs "$((minutes * 60))" --sample "$sample" ${SOAK_RATE:+--rate "$SOAK_RATE"}
