#!/usr/bin/env bash
# The deterministic half of the benchmark suite, for CI: runs every benchmark a few times
# (AUDIOPIPE_BENCH_QUICK=1) and fails if any AudioPipeline stage allocated inside its measured,
# steady-state section. Peers (the iOS code, Foundation, JSONEncoder, libsoxr …) and benchmarks
# named "(allocates)" are exempt. Timing is never checked here.
#
# package-benchmark counts every thread's mallocs, so a stray one from another thread of the
# process (seen once in CI: 1 malloc in one iteration of a resampler that allocates nothing in
# isolation, in 4 of 4 reruns) can land in a measured iteration. A stage's own allocation is
# deterministic — same input, same iterations, same allocation — so a flagged benchmark is rerun
# alone twice: it fails if it allocates again in either rerun; one that does not is reported as
# stray and passes.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
out=$(mktemp)
flagged=$(mktemp)
rerun=$(mktemp)
trap 'rm -f "$out" "$flagged" "$rerun"' EXIT
if ! AUDIOPIPE_BENCH_QUICK=1 swift package benchmark --no-progress > "$out" 2>&1; then
  tail -40 "$out" >&2
  echo "check-allocations: the benchmark suite failed to build or run" >&2
  exit 1
fi
if python3 ../scripts/bench_table.py --check-allocations "$out" --flagged "$flagged"; then
  exit 0
fi
[ -s "$flagged" ] || exit 1  # nothing measured, or malloc counting not working
peer=$(tail -n 1 "$flagged")
status=0
while IFS= read -r name; do
  pattern=$(python3 -c 'import re, sys; print("^(" + re.escape(sys.argv[1]) + "|" + re.escape(sys.argv[2]) + ")$")' "$name" "$peer")
  again=0
  for round in 1 2; do
    AUDIOPIPE_BENCH_QUICK=1 swift package benchmark --no-progress --filter "$pattern" > "$rerun" 2>&1 || true
    code=0
    python3 ../scripts/bench_table.py --allocated "$name" "$rerun" || code=$?
    if [ "$code" = 2 ]; then
      # A rerun that did not measure it (or counted no mallocs at all) proves nothing.
      echo "check-allocations: the rerun of '$name' did not measure it with malloc counting on" >&2
    fi
    if [ "$code" != 0 ]; then
      again=1
      break
    fi
  done
  if [ "$again" = 1 ]; then
    echo "check-allocations: '$name' allocates again when rerun alone: a steady-state allocation" >&2
    status=1
  else
    echo "check-allocations: '$name' allocated nothing in two reruns alone: a stray malloc from another thread, not the stage's"
  fi
done < <(head -n -1 "$flagged")
exit $status
