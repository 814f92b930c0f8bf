#!/usr/bin/env bash
# The deterministic half of the benchmark suite, for CI: runs every benchmark a few times
# (AUDIOPIPE_BENCH_QUICK=1) and fails if any AudioPipeline stage allocated inside its measured,
# steady-state section. Peers (the iOS code, Foundation, JSONEncoder, libsoxr …) and benchmarks
# named "(allocates)" are exempt. Timing is never checked here.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! AUDIOPIPE_BENCH_QUICK=1 swift package benchmark --no-progress > "$out" 2>&1; then
  tail -40 "$out" >&2
  echo "check-allocations: the benchmark suite failed to build or run" >&2
  exit 1
fi
python3 ../scripts/bench_table.py --check-allocations "$out"
