#!/usr/bin/env bash
# `make bench` / `make bench-report`: the benchmark suite in release, then the Markdown report.
#
#   bench.sh                 whole suite → bench-out/raw.txt, report → bench-out/benchmarks.md (scratch,
#                            git-ignored); docs/benchmarks.md is not touched
#   FILTER=Resampling        only that target (package-benchmark's --target; several: "Framing Jitter");
#                            a FILTER that is not a target name is a regex on benchmark names (--filter,
#                            e.g. FILTER='Resample 1s.*'). Raw → bench-out/raw-filtered.txt
#   bench.sh --report        whole suite, then rewrites docs/benchmarks.md (refuses a FILTER: the committed
#                            report is one full run); every benchmark Benchmarks/goals.json names must be there
#   RAW=FILE bench.sh ...    no run: the report from a saved raw output (e.g. RAW=bench-out/raw.txt)
#
# Extra arguments go to `swift package benchmark`. For your hardware's full instruction set:
#   SWIFT_BENCH_FLAGS="-Xswiftc -target-cpu -Xswiftc native" make bench
set -euo pipefail
cd "$(dirname "$0")/.."

report=0
if [[ "${1:-}" == "--report" ]]; then
  report=1
  shift
fi
filter="${FILTER:-}"
if ((report)) && [[ -n "$filter" ]]; then
  echo "bench: the committed report comes from one full run; drop FILTER (or use make bench FILTER=…)" >&2
  exit 64
fi

mkdir -p bench-out
# Which FILTER words are targets (Benchmarks/Benchmarks/<Target>/): all of them → --target each;
# otherwise the whole FILTER is one --filter regex.
select=()
if [[ -n "$filter" ]]; then
  all_targets=1
  for word in $filter; do
    [[ -d "Benchmarks/Benchmarks/$word" ]] || all_targets=0
  done
  if ((all_targets)); then
    for word in $filter; do select+=(--target "$word"); done
  else
    select+=(--filter "$filter")
  fi
fi

if [[ -n "${RAW:-}" ]]; then
  raw="$RAW"
  [[ -s "$raw" ]] || { echo "bench: RAW=$raw is missing or empty" >&2; exit 66; }
  echo "bench: no run; the report from $raw"
else
  if [[ -n "$filter" ]]; then raw=bench-out/raw-filtered.txt; else raw=bench-out/raw.txt; fi
  meta="${raw%.txt}.meta"
  started=$(date -u +%s)
  {
    echo "started=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- Sources Benchmarks 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "arguments=${select[*]:-}${*:+ $*}"
  } > "$meta"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
  # package-benchmark's plugin (Swift 6.3 on Linux) announces a "Swift runtime interposer" and then
  # skips preloading it: Benchmarks/Package.swift enables only the MallocInterposer trait, so that
  # library is never built. It serves only ARC metrics, which this suite does not record — harmless,
  # so those two lines are dropped (README → Benchmarks). Anything else it says is kept; a skipped
  # libMallocInterposerSwift.so would mean no malloc counts, so that one stops the run.
  set +e
  (cd Benchmarks && swift package ${SWIFT_BENCH_FLAGS:-} benchmark --no-progress "${select[@]}" "$@") 2>&1 \
    | grep -v -e 'running with the Swift runtime interposer on Linux' \
      -e 'skipping LD_PRELOAD of .*libSwiftRuntimeInterposerSwift\.so' \
    | tee "$raw" | grep -E "^(Build|Running|Host|error|Note|Warning)"
  run_status=${PIPESTATUS[0]}
  set -e
  if ((run_status != 0)); then
    tail -30 "$raw" >&2
    echo "bench: swift package benchmark failed (exit $run_status); raw output in $raw" >&2
    exit "$run_status"
  fi
  if grep -q 'skipping LD_PRELOAD of .*libMallocInterposerSwift' "$raw"; then
    echo "bench: the malloc interposer was not built: malloc counts would be missing (see $raw)" >&2
    exit 1
  fi
  finished=$(date -u +%s)
  {
    echo "finished=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "duration=$(((finished - started) / 60)) min $(((finished - started) % 60)) s (build included)"
    echo "load=$load_before before, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') after (other work on the machine shows here)"
  } >> "$meta"
fi

if ((report)); then
  tmp=$(mktemp bench-out/benchmarks.md.XXXXXX)
  trap 'rm -f "$tmp"' EXIT
  python3 scripts/bench_report.py "$raw" "$tmp" --batch-from docs/benchmarks.md --require-all
  mv "$tmp" docs/benchmarks.md
  echo "Wrote docs/benchmarks.md (raw output: $raw)"
else
  python3 scripts/bench_report.py "$raw" bench-out/benchmarks.md --batch-from docs/benchmarks.md
  echo "Wrote bench-out/benchmarks.md (raw output: $raw); docs/benchmarks.md unchanged (make bench-report rewrites it)"
fi
