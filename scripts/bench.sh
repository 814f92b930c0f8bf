#!/usr/bin/env bash
# `make bench`: the whole benchmark suite in release, then docs/benchmarks.md from its output.
# Extra arguments go to `swift package benchmark` (e.g. --filter "Resample.*").
# For your hardware's full instruction set: SWIFT_BENCH_FLAGS="-Xswiftc -target-cpu -Xswiftc native" make bench
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench-out
raw=bench-out/raw.txt
(cd Benchmarks && swift package ${SWIFT_BENCH_FLAGS:-} benchmark --no-progress "$@") | tee "$raw" | grep -E "^(Build|Running|Host)" || true
python3 scripts/bench_report.py "$raw" docs/benchmarks.md
echo "Wrote docs/benchmarks.md (raw output: $raw)"
